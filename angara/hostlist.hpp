// Slurm hostlist expressions ("desmos[00-03,07],login1") in both directions.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace angara {

// The most names one hostlist may expand to: a typo like "n[0-999999999]"
// must not exhaust memory before it is reported.  Equal to the largest torus.
constexpr std::size_t kMaxHostlistNames = std::size_t{1} << 20;

// What expand_hostlist throws when the names would pass its limit, so that a
// caller with a smaller limit of its own can say what the limit is for.
class HostlistTooLong : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Expands a hostlist into names in the order written, keeping zero padding
// ("n[08-10]" -> n08 n09 n10).  Throws std::invalid_argument describing the
// problem and its position.  Duplicates are kept.
//
// Syntax, as Slurm's: items are separated by commas or white space; an item
// is a plain name or literal text with bracketed range lists
// ("prefix[00-03,07]suffix").  A range "a-b" is written with its lower bound's
// width ("8-10" gives 8 9 10, "08-10" gives 08 09 10).  Several bracket groups
// in one item give their cartesian product, the rightmost group varying
// fastest ("r[1-2]n[1-2]" -> r1n1 r1n2 r2n1 r2n2).  Nested brackets are
// rejected.  Positions in messages are 0-based offsets into the expression.
// More than max_names names throw HostlistTooLong before they are made.
std::vector<std::string> expand_hostlist(std::string_view expression, std::size_t max_names = kMaxHostlistNames);

// Compresses names into one hostlist expression, as Slurm prints them
// ("desmos[00-03,07]").  Order of first appearance of each prefix is kept.
// Names are grouped by prefix and by the width of their numeric suffix; within
// a group numbers are sorted and duplicates dropped.  A group of one name is
// printed without brackets, names without a numeric suffix as they are.
std::string compress_hostlist(const std::vector<std::string>& names);

}  // namespace angara
