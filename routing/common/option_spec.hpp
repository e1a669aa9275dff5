// Typed generator options (routing.options in angara.yaml(5)): each
// generator declares its keys with their type, range or words, default and
// help text (Generator::option_specs), and reads them through these
// functions.  The same declarations validate a configuration once when it is
// loaded (check_generator_options) and write the option lists of
// angara.yaml(5) and `angara-route generate --help`, so the three cannot
// disagree.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "routing/common/generator_support.hpp"

namespace angara {

struct OptionSpec {
  enum class Kind {
    word,     // one of `words`
    integer,  // a whole number from low to high, or one of `words` standing for low (e.g. "off")
    number,   // a decimal number from low to high
  };
  std::string_view key;
  Kind kind = Kind::word;
  std::string_view fallback;             // the default, as written in angara.yaml
  std::vector<std::string_view> words;   // word: the accepted values; integer: aliases of `low`
  double low = 0, high = 0;              // integer, number
  std::string_view help;                 // one sentence

  // "greedy, sssp or best", "an integer from 2 to 100000", "off or an
  // integer from 0 to 99", "a number from 0 to 1".
  std::string expected() const;
  // Whether `text` is a valid value.
  bool accepts(const std::string& text) const;
};

// The configured text of a declared option, or its default.  Throws
// std::invalid_argument "GENERATOR: option 'KEY' expects EXPECTED, got
// 'VALUE'" for a value the declaration does not accept.
std::string option_text(std::string_view generator, const OptionSpec& spec, const GeneratorOptions& options);
// The value of an integer option (an alias word reads as `low`).
long option_integer(std::string_view generator, const OptionSpec& spec, const GeneratorOptions& options);
// The value of a number option.
double option_number(std::string_view generator, const OptionSpec& spec, const GeneratorOptions& options);

}  // namespace angara
