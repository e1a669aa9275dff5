// Shared pieces of the layered backends; see routing/common/layering.hpp.
#include "routing/common/layering.hpp"

#include <algorithm>
#include <numeric>

namespace angara {

int spread_over_empty_layers(const PathSet& paths, std::vector<std::uint8_t>& layer, int used, int allowed) {
  const std::size_t n = paths.node_count();
  if (used >= allowed || used == 0) return used;
  // Destinations per used layer (a destination's paths may lie on several
  // layers; each (layer, destination) group moves as one).
  std::vector<std::size_t> size(used, 0);
  for (std::size_t p = 0; p < paths.pair_count(); ++p)
    if (p / n != p % n) ++size[layer[p]];
  // Largest remainder: every used layer keeps itself and gets extra layers
  // in proportion to its share of the paths.
  const int spare = allowed - used;
  const std::size_t total = std::accumulate(size.begin(), size.end(), std::size_t{0});
  std::vector<int> extra(used, 0);
  int given = 0;
  for (int l = 0; l < used; ++l) {
    extra[l] = total ? static_cast<int>(static_cast<double>(spare) * size[l] / total) : 0;
    given += extra[l];
  }
  while (given < spare) {
    int pick = 0;
    for (int l = 1; l < used; ++l)
      if (static_cast<double>(size[l]) / (extra[l] + 1) > static_cast<double>(size[pick]) / (extra[pick] + 1)) pick = l;
    ++extra[pick];
    ++given;
  }
  std::vector<int> first_target(used, 0);
  int next_free = used;
  for (int l = 0; l < used; ++l) {
    first_target[l] = next_free;
    next_free += extra[l];
  }
  // Deal each layer's destinations round-robin over itself and its extras.
  std::vector<std::size_t> dealt(used, 0);
  for (int l = 0; l < used; ++l) {
    if (extra[l] == 0) continue;
    const int groups = extra[l] + 1;
    for (std::size_t d = 0; d < n; ++d) {
      bool has = false;
      for (std::size_t s = 0; s < n && !has; ++s) has = s != d && layer[paths.pair(s, d)] == l;
      if (!has) continue;
      const int group = static_cast<int>(dealt[l]++ % static_cast<std::size_t>(groups));
      if (group == 0) continue;
      const auto to = static_cast<std::uint8_t>(first_target[l] + group - 1);
      for (std::size_t s = 0; s < n; ++s)
        if (s != d && layer[paths.pair(s, d)] == l) layer[paths.pair(s, d)] = to;
    }
  }
  return allowed;
}

void too_many_layers(std::string_view generator, int needed, int allowed, bool at_least) {
  throw RoutingError(std::string(generator) + ": the routes need " + (at_least ? "more than " : "") +
                     std::to_string(needed) + " virtual channels, only " + std::to_string(allowed) +
                     " allowed (routing.virtual_channels)");
}

int integer_option(std::string_view generator, const GeneratorOptions& options, const std::string& key,
                   int fallback, int low, int high) {
  const auto it = options.extra.find(key);
  if (it == options.extra.end()) return fallback;
  const std::string& text = it->second;
  const bool digits = !text.empty() && text.size() < 10 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  const int value = digits ? std::stoi(text) : low - 1;
  if (value < low || value > high)
    throw RoutingError(std::string(generator) + ": option " + key + ": expected an integer from " +
                       std::to_string(low) + " to " + std::to_string(high) + ", got '" + text + "'");
  return value;
}

RouteTable layered_table(std::string_view generator, const Network& network, const std::vector<NodeId>& allocation,
                         const GeneratorOptions& options,
                         LayerAssignment (*assign)(const Torus&, const PathSet&, FlowControl)) {
  start_route_table(generator, network, allocation);  // checks the allocation
  const int allowed = std::clamp(options.virtual_channels, 1, kMaxLayers);
  const std::string name(generator);
  const PathSet paths = balanced_shortest_paths(network, allocation, path_options(generator, options), name.c_str());
  LayerAssignment assignment = assign(network.torus(), paths, options.flow_control);
  if (assignment.exhausted) too_many_layers(generator, kSearchLayers, allowed, true);
  if (assignment.used > allowed) too_many_layers(generator, assignment.used, allowed, false);
  if (integer_option(generator, options, "spread", 0, 0, 1))
    spread_over_empty_layers(paths, assignment.layer, assignment.used, allowed);
  return paths.make_table(assignment.layer, name);
}

ShortestPathOptions path_options(std::string_view generator, const GeneratorOptions& options) {
  ShortestPathOptions result;
  result.rules = options.rules;
  result.flow_control = options.flow_control;
  result.passes = integer_option(generator, options, "passes", 2, 1, 2);
  const auto it = options.extra.find("paths");
  if (it == options.extra.end() || it->second == "pairs") return result;
  if (it->second != "trees")
    throw RoutingError(std::string(generator) + ": option paths: expected pairs or trees, got '" + it->second + "'");
  if (options.rules != RuleSet::general)
    throw RoutingError(std::string(generator) + ": option paths: trees needs routing.rules: general");
  result.step = PathStep::trees;
  return result;
}

}  // namespace angara
