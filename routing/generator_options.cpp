// Validation of routing.options against the generators' declarations
// (Generator::option_specs): every key must be read by some generator, and
// its value must be one that generator accepts.
#include <set>
#include <utility>
#include <sstream>
#include <stdexcept>

#include "routing/generator.hpp"

namespace angara {

void check_generator_options(const std::map<std::string, std::string>& options) {
  std::set<std::string> known;
  std::string valid;
  for (const GeneratorInfo& info : generators()) {
    const std::vector<OptionSpec> specs = info.create()->option_specs();
    if (specs.empty()) continue;
    std::string list;
    for (const OptionSpec& spec : specs) {
      known.emplace(spec.key);
      list += (list.empty() ? "" : ", ") + std::string(spec.key);
      const auto it = options.find(std::string(spec.key));
      if (it != options.end() && !spec.accepts(it->second))
        throw std::invalid_argument("routing.options: " + std::string(spec.key) + ": " + std::string(info.name) +
                                    " expects " + spec.expected() + ", got '" + it->second + "'");
    }
    valid += (valid.empty() ? "" : "; ") + std::string(info.name) + ": " + list;
  }
  for (const auto& option : options)
    if (!known.count(option.first))
      throw std::invalid_argument("routing.options: unknown option '" + option.first + "' (valid: " + valid + ")");
}

namespace {

// troff: a leading dot or quote would start a request; '-' is a hyphen,
// '\-' the minus that options and values use.
std::string troff_escaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

std::string values_of(const OptionSpec& spec) {
  std::string values;
  for (std::string_view word : spec.words) values += (values.empty() ? "" : " | ") + std::string(word);
  if (spec.kind != OptionSpec::Kind::word)
    values += (values.empty() ? "" : " | ") + std::string(spec.kind == OptionSpec::Kind::integer ? "integer" : "number") +
              " " + spec.expected().substr(spec.expected().find("from "));
  return values;
}

// `text` wrapped at 80 columns, each line indented by `indent` spaces.
std::string wrapped(const std::string& text, std::size_t indent) {
  std::string out, line;
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    if (!line.empty() && indent + line.size() + 1 + word.size() > 80) {
      out += std::string(indent, ' ') + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += std::string(indent, ' ') + line + "\n";
  return out;
}

}  // namespace

std::string describe_generator_options(OptionsFormat format) {
  // Generators that declare the same keys (the layered backends) share one
  // entry: "dfsssp, lash".
  std::vector<std::pair<std::string, std::vector<OptionSpec>>> entries;
  const auto keys = [](const std::vector<OptionSpec>& specs) {
    std::string text;
    for (const OptionSpec& spec : specs) text += std::string(spec.key) + " ";
    return text;
  };
  for (const GeneratorInfo& info : generators()) {
    std::vector<OptionSpec> specs = info.create()->option_specs();
    if (!entries.empty() && !specs.empty() && keys(entries.back().second) == keys(specs))
      entries.back().first += ", " + std::string(info.name);
    else
      entries.emplace_back(std::string(info.name), std::move(specs));
  }
  std::ostringstream out;
  for (const auto& [names, specs] : entries) {
    if (format == OptionsFormat::text) {
      out << names << (specs.empty() ? ": no options\n" : ":\n");
      for (const OptionSpec& spec : specs)
        out << "  " << spec.key << ": " << values_of(spec) << " (default " << spec.fallback << ")\n"
            << wrapped(std::string(spec.help) + ".", 6);
      continue;
    }
    if (specs.empty()) continue;
    out << ".TP\n.B " << troff_escaped(names) << "\n";
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const OptionSpec& spec = specs[i];
      if (i) out << ".br\n";
      out << ".BR \"" << troff_escaped(spec.key) << ":\" \" " << troff_escaped(values_of(spec)) << "\"\n"
          << "\\(em " << troff_escaped(spec.help) << " (default\n.BR " << troff_escaped(spec.fallback) << " ).\n";
    }
  }
  return out.str();
}

}  // namespace angara
