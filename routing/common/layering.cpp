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

bool try_add_dependencies(DependencyLayer& layer, const std::vector<Dependency>& dependencies) {
  std::vector<ChannelId> edge(2);
  std::size_t added = 0;  // dependencies [0, added) are in
  bool new_edge = false;
  bool fits = true;
  for (const Dependency& dependency : dependencies) {
    edge[0] = dependency.first;
    edge[1] = dependency.second;
    if (!layer.graph.has_edge(edge[0], edge[1])) {
      const std::size_t slot = dependency_slot(edge[0], edge[1]);
      if (layer.forbidden[slot] || layer.graph.closes_cycle(edge[0], edge[1])) {
        // Forbidden for good only when the graph held none of these
        // dependencies' new ones, which are taken back below.
        if (!new_edge) layer.forbidden[slot] = 1;
        fits = false;
        break;
      }
      new_edge = true;
    }
    layer.graph.add_path(edge);
    ++added;
  }
  if (!fits)
    for (std::size_t i = 0; i < added; ++i) {
      edge[0] = dependencies[i].first;
      edge[1] = dependencies[i].second;
      layer.graph.remove_path(edge);
    }
  return fits;
}

bool try_add_path(DependencyLayer& layer, const ChannelId* first, const ChannelId* last) {
  std::vector<Dependency> dependencies;
  for (const ChannelId* c = first + 1; c < last; ++c) dependencies.emplace_back(c[-1], c[0]);
  return try_add_dependencies(layer, dependencies);
}

void too_many_layers(std::string_view generator, int needed, int allowed, bool at_least) {
  throw RoutingError(std::string(generator) + ": the routes need " + (at_least ? "more than " : "") +
                     std::to_string(needed) + " virtual channels, only " + std::to_string(allowed) +
                     " allowed (routing.virtual_channels)");
}

namespace {

const OptionSpec kPathsOption{"paths", OptionSpec::Kind::word, "pairs", {"pairs", "trees"}, 0, 0,
                              "how the shortest paths are chosen: pairs takes per pair a direction-order path "
                              "when one is live (ties between the two ways round a ring split evenly), otherwise "
                              "the shortest live path with the fewest turns against the direction order, then the "
                              "least loaded (one virtual channel on a whole torus, few around failures); trees "
                              "(only with rules: general) is Algorithm 1 of the DFSSSP paper as published, one "
                              "least-weight shortest-path tree per destination, which needs many more layers"};
const OptionSpec kPassesOption{"passes", OptionSpec::Kind::integer, "2", {}, 1, 2,
                               "2 routes every pair a second time against the loads of all the others"};
const OptionSpec kSpreadOption{"spread", OptionSpec::Kind::integer, "0", {}, 0, 1,
                               "1 spreads the finished layers over the virtual channels left unused (the balancing "
                               "step of both papers); 0 keeps the fewest, which the report then shows"};

}  // namespace

double layered_peak_bytes(const MemoryContext& context) {
  // Around failures 330 + 55 bytes a hop a pair (8x8x8 with two failed
  // routers, dfsssp: 171.7 MiB of peak).
  const double fixed = context.faults ? 330 : 60, per_hop = context.faults ? 55 : 10;
  return context.pairs * (fixed + per_hop * context.mean_hops) + context.channel_slots * context.layers * 16;
}

std::vector<OptionSpec> layered_option_specs() { return {kPathsOption, kPassesOption, kSpreadOption}; }

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
  if (option_integer(generator, kSpreadOption, options))
    spread_over_empty_layers(paths, assignment.layer, assignment.used, allowed);
  return paths.make_table(assignment.layer, name);
}

ShortestPathOptions path_options(std::string_view generator, const GeneratorOptions& options) {
  ShortestPathOptions result;
  result.rules = options.rules;
  result.flow_control = options.flow_control;
  result.passes = static_cast<int>(option_integer(generator, kPassesOption, options));
  if (option_text(generator, kPathsOption, options) == "pairs") return result;
  if (options.rules != RuleSet::general)
    throw RoutingError(std::string(generator) + ": option paths: trees needs routing.rules: general");
  result.step = PathStep::trees;
  return result;
}

}  // namespace angara
