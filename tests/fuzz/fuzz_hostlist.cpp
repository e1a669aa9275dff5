// libFuzzer harness: the Slurm hostlist parser.  Bad input must end in
// std::invalid_argument; a list that expands must compress back to an
// expression that expands to the same names.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "angara/hostlist.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> names;
  try {
    names = angara::expand_hostlist(text);
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).empty()) std::abort();
    return 0;
  }
  // Round trip: compress_hostlist() of the names expands to them again
  // (as a set: compression sorts and drops duplicates).
  if (names.empty() || names.size() > 4096) return 0;
  for (const std::string& name : names)
    if (name.empty() || name.find_first_of(",[]") != std::string::npos) return 0;
  std::string compressed;
  try {
    compressed = angara::compress_hostlist(names);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  std::vector<std::string> again = angara::expand_hostlist(compressed);
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::sort(again.begin(), again.end());
  again.erase(std::unique(again.begin(), again.end()), again.end());
  if (again != sorted) std::abort();
  return 0;
}
