// The routing a report command reads (analyze, simulate): a job's installed
// table files (--tables DIR, re-read and verified as a set) or a route dump
// (--dump FILE, refused before parsing when it would not fit the memory
// limit).
#pragma once

#include <string>

#include "angara/config.hpp"
#include "angara/route.hpp"

namespace angara::cli {

struct TableInput {
  RouteTable table;
  std::string source;  // the directory or file it came from
};

// Exactly one of `tables` and `dump` is non-empty.  Throws TableFileError
// for an unreadable or inconsistent input, MemoryLimitError when it would
// not fit, std::invalid_argument for a dump that does not parse.
TableInput read_table_input(const Config& config, const std::string& tables, const std::string& dump);

}  // namespace angara::cli
