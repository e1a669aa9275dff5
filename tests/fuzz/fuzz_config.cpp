// libFuzzer harness: the YAML configuration reader (angara.yaml(5)).  Bad
// input must end in a ConfigError (or std::invalid_argument from a value
// parser) with a message; anything else, a crash or a sanitizer report is a
// finding (doc/fuzzing.md).
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "angara/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const angara::Config config = angara::parse_config(text, "fuzz.yaml");
    // What the tools do next with a configuration that parsed.
    (void)angara::config_summary(config);
    (void)config.network();
    for (std::size_t i = 0; i < config.node_names.size() && i < 64; ++i) (void)config.node_by_name(config.node_names[i]);
  } catch (const angara::ConfigError& e) {
    if (std::string(e.what()).empty()) std::abort();
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).empty()) std::abort();
  }
  return 0;
}
