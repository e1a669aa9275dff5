// What the admin tool's subcommands share: their usage errors, the
// configuration they load, and the parsing of common options.
#pragma once

#include <string>
#include <vector>

#include "angara/config.hpp"

namespace angara::cli {

inline constexpr const char* kProgramName = "angara-route";

// "angara-route COMMAND: MESSAGE" and the --help hint on stderr; returns
// the usage exit status.
int usage_error(const std::string& command, const std::string& message);

// JSON array of strings.
std::string json_string_list(const std::vector<std::string>& items);

// --timeout SECONDS (1..3600); false when the text is not such a number.
bool parse_timeout(const char* text, int& seconds);

// The message for a --memory-limit value that does not parse.
std::string memory_limit_error(const char* value);

// find_config(), with a note on stderr when it falls back to the built-in
// Desmos machine.
Config load_config_announced(const std::string& path);

}  // namespace angara::cli
