// libFuzzer harness: the per-router table file reader (angara-tables(5)).
// Bad input must end in a TableFileError naming the file; a table that
// parses must format back to bytes that parse to the same table.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "angara/table_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  angara::NodeTable table;
  try {
    table = angara::parse_node_table(text, "fuzz.rt");
  } catch (const angara::TableFileError& e) {
    if (std::string(e.what()).empty()) std::abort();
    return 0;
  }
  const std::string formatted = angara::format_node_table(table);
  const angara::NodeTable again = angara::parse_node_table(formatted, "fuzz-again.rt");
  if (angara::format_node_table(again) != formatted) std::abort();
  return 0;
}
