#include "cli/cli_support.hpp"

#include <cerrno>
#include <cstdlib>
#include <iostream>

#include "angara/hostlist.hpp"
#include "cli/exit_status.hpp"
#include "routing/report.hpp"

namespace angara::cli {

int usage_error(const std::string& command, const std::string& message) {
  std::cerr << kProgramName << ": " << command << ": " << message << "\nTry '" << kProgramName << " " << command
            << " --help'.\n";
  return kExitUsage;
}

std::string json_string_list(const std::vector<std::string>& items) {
  std::string text = "[";
  for (std::size_t i = 0; i < items.size(); ++i) text += (i ? "," : "") + json_quote(items[i]);
  return text + "]";
}

bool parse_timeout(const char* text, int& seconds) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || errno != 0 || value < 1 || value > 3600) return false;
  seconds = static_cast<int>(value);
  return true;
}

std::string memory_limit_error(const char* value) {
  return "--memory-limit expects a size (4G, 512M, bytes; at least 1M), a percentage of the node's "
         "memory (50%) or 'none', got '" + std::string(value) + "'";
}

Config load_config_announced(const std::string& path) {
  Config config = find_config(path);
  if (config.source == desmos_default_config().source)
    std::cerr << kProgramName << ": note: no --config, no $ANGARA_CONFIG and no " << system_config_path()
              << ": using the built-in Desmos machine (4x2x2x2, one cable in Y, Z and K, desmos[00-31])\n";
  return config;
}

}  // namespace angara::cli
