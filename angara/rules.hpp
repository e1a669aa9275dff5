// The rule sets and deadlock rules of doc/model.md ("Rule sets", "Deadlock
// rule"), shared by the configuration, the
// generators and the verifier so that all of them judge a table the same way.
#pragma once

#include <optional>
#include <string_view>

namespace angara {

// Which paths a table may use.
enum class RuleSet {
  angara,   // every route Angara-encodable: [FS] DOR+direction-bit [LS] (the hardware)
  general,  // any path over live channels (table-routed networks, comparisons)
};

// Which channel dependency cycles are deadlocks.
enum class FlowControl {
  bubble,  // Angara: a cycle around one ring in one direction is harmless
  none,    // every cycle of a channel dependency graph is a deadlock
};

constexpr std::string_view rule_set_name(RuleSet rules) {
  return rules == RuleSet::angara ? "angara" : "general";
}
constexpr std::string_view flow_control_name(FlowControl flow) {
  return flow == FlowControl::bubble ? "bubble" : "none";
}
// nullopt for anything but the names above.
inline std::optional<RuleSet> parse_rule_set(std::string_view text) {
  if (text == "angara") return RuleSet::angara;
  if (text == "general") return RuleSet::general;
  return std::nullopt;
}
inline std::optional<FlowControl> parse_flow_control(std::string_view text) {
  if (text == "bubble") return FlowControl::bubble;
  if (text == "none") return FlowControl::none;
  return std::nullopt;
}

}  // namespace angara
