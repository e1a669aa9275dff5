#include "cli/table_input.hpp"

#include <algorithm>
#include <sstream>

#include "angara/file_io.hpp"
#include "angara/route_dump.hpp"
#include "routing/common/parallel.hpp"
#include "routing/memory.hpp"
#include "routing/pipeline.hpp"

namespace angara::cli {

TableInput read_table_input(const Config& config, const std::string& tables, const std::string& dump) {
  TableInput input;
  if (!tables.empty()) {
    input.table = verify_table_directory(config, tables).table;
    input.source = tables;
    return input;
  }
  const FileContents contents = read_regular_file(dump, kMaxRouteDumpBytes);
  if (!contents.error.empty()) throw TableFileError(contents.error);
  // Refused before parsing when it would not fit: a parsed route takes
  // several times its line of text.
  MemoryWork work;
  work.threads = worker_count();
  work.adaptive_escape = config.adaptive;
  check_memory_limit(estimate_dump_read_memory(config.network(), contents.text.size(),
                                               std::count(contents.text.begin(), contents.text.end(), '\n') + 1, work),
                     config.memory_limit, config.source);
  std::istringstream in(contents.text);
  input.table = read_route_dump(in, config.torus, dump);
  input.source = dump;
  return input;
}

}  // namespace angara::cli
