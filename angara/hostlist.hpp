// Slurm hostlist expressions ("desmos[00-03,07],login1") in both directions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace angara {

// Expands a hostlist into names in the order written, keeping zero padding
// ("n[08-10]" -> n08 n09 n10).  Throws std::invalid_argument describing the
// problem and its position.  Duplicates are kept.
std::vector<std::string> expand_hostlist(std::string_view expression);

// Compresses names into one hostlist expression, as Slurm prints them
// ("desmos[00-03,07]").  Order of first appearance of each prefix is kept.
std::string compress_hostlist(const std::vector<std::string>& names);

}  // namespace angara
