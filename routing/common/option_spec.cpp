#include "routing/common/option_spec.hpp"

#include <cmath>
#include <stdexcept>

namespace angara {

namespace {

std::string number_text(double value) {
  if (value == std::floor(value) && std::fabs(value) < 1e15) return std::to_string(static_cast<long long>(value));
  std::string text = std::to_string(value);
  while (!text.empty() && text.back() == '0') text.pop_back();
  return text;
}

std::string word_list(const std::vector<std::string_view>& words) {
  std::string text;
  for (std::size_t i = 0; i < words.size(); ++i)
    text += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + std::string(words[i]);
  return text;
}

// Whole numbers only, no sign or spaces: what angara.yaml holds.
bool parse_integer(const std::string& text, double* value) {
  if (text.empty() || text.size() > 15) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  *value = std::stod(text);
  return true;
}

bool parse_number(const std::string& text, double* value) {
  std::size_t used = 0;
  try {
    *value = std::stod(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used != 0 && used == text.size();
}

}  // namespace

std::string OptionSpec::expected() const {
  switch (kind) {
    case Kind::word:
      return word_list(words);
    case Kind::integer:
      return (words.empty() ? "" : word_list(words) + " or ") + "an integer from " + number_text(low) + " to " +
             number_text(high);
    case Kind::number:
      return "a number from " + number_text(low) + " to " + number_text(high);
  }
  return "";
}

bool OptionSpec::accepts(const std::string& text) const {
  for (std::string_view word : words)
    if (text == word) return true;
  double value = 0;
  switch (kind) {
    case Kind::word:
      return false;
    case Kind::integer:
      return parse_integer(text, &value) && value >= low && value <= high;
    case Kind::number:
      return parse_number(text, &value) && value >= low && value <= high;
  }
  return false;
}

std::string option_text(std::string_view generator, const OptionSpec& spec, const GeneratorOptions& options) {
  const auto it = options.extra.find(std::string(spec.key));
  if (it == options.extra.end()) return std::string(spec.fallback);
  if (!spec.accepts(it->second))
    throw std::invalid_argument(std::string(generator) + ": option '" + std::string(spec.key) + "' expects " +
                                spec.expected() + ", got '" + it->second + "'");
  return it->second;
}

long option_integer(std::string_view generator, const OptionSpec& spec, const GeneratorOptions& options) {
  const std::string text = option_text(generator, spec, options);
  for (std::string_view word : spec.words)
    if (text == word) return static_cast<long>(spec.low);
  return std::stol(text);
}

double option_number(std::string_view generator, const OptionSpec& spec, const GeneratorOptions& options) {
  return std::stod(option_text(generator, spec, options));
}

}  // namespace angara
