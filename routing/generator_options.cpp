// Validation of routing.options: every key must be read by some generator.
#include <set>

#include "routing/generator.hpp"

namespace angara {

void check_generator_options(const std::map<std::string, std::string>& options) {
  std::set<std::string> known;
  std::string valid;
  for (const GeneratorInfo& info : generators()) {
    const std::vector<std::string_view> keys = info.create()->option_keys();
    if (keys.empty()) continue;
    std::string list;
    for (std::string_view key : keys) {
      known.emplace(key);
      list += (list.empty() ? "" : ", ") + std::string(key);
    }
    valid += (valid.empty() ? "" : "; ") + std::string(info.name) + ": " + list;
  }
  for (const auto& option : options)
    if (!known.count(option.first))
      throw std::invalid_argument("routing.options: unknown option '" + option.first + "' (valid: " + valid + ")");
}

}  // namespace angara
