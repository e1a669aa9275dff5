#include "routing/check/multipath_verifier.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace angara {

namespace {

// Under switch adaptivity, the dependencies a switch creates by moving a
// packet of the pair (src, dst) between its allowed paths of one layer.
void add_switch_crossings(const Torus& torus, const std::vector<NodeId>& nodes, std::size_t src,
                          const std::vector<Route>& paths, std::vector<ChannelDependencyGraph>& graphs) {
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const std::uint8_t layer = paths[i].layer;
    bool first_of_layer = true;  // each layer is handled once
    for (std::size_t j = 0; j < i; ++j) first_of_layer = first_of_layer && paths[j].layer != layer;
    if (!first_of_layer) continue;
    // Per node of the layer's paths: the channels entering it and the
    // directions leaving it.
    std::vector<std::pair<NodeId, std::uint8_t>> leaving;
    std::vector<std::pair<NodeId, ChannelId>> entering;
    for (const Route& route : paths) {
      if (route.layer != layer) continue;
      NodeId at = nodes[src];
      for (std::size_t k = 0; k < route.hops.size(); ++k) {
        const Direction d = route.hops[k];
        bool found = false;
        for (auto& [node, mask] : leaving)
          if (node == at) {
            mask |= static_cast<std::uint8_t>(1u << d.rank());
            found = true;
          }
        if (!found) leaving.emplace_back(at, static_cast<std::uint8_t>(1u << d.rank()));
        const ChannelId channel = Torus::channel(at, d);
        at = torus.neighbor(at, d);
        entering.emplace_back(at, channel);
      }
    }
    if (layer >= graphs.size()) graphs.resize(layer + 1u, ChannelDependencyGraph(torus));
    for (const auto& [node, channel] : entering)
      for (const auto& [from, mask] : leaving)
        if (from == node) graphs[layer].add_mask(channel, mask);
  }
}

std::string channel_text(const Torus& torus, ChannelId c) {
  return torus.format_coord(Torus::channel_node(c)) + " " + Torus::channel_direction(c).token();
}

}  // namespace

std::vector<ChannelDependencyGraph> multipath_dependency_graphs(const Network& network,
                                                                 const MultiPathTable& function) {
  const Torus& torus = network.torus();
  std::vector<ChannelDependencyGraph> graphs;
  for (const RouteTable& table : function.alternatives) {
    const RouteWalkFigures walk = walk_routes(network, table);
    for (std::size_t layer = 0; layer < walk.graphs.size(); ++layer) {
      if (layer >= graphs.size()) graphs.resize(layer + 1, ChannelDependencyGraph(torus));
      for (ChannelId c = 0; c < walk.graphs[layer].slots(); ++c)
        graphs[layer].add_mask(c, walk.graphs[layer].successors(c));
    }
  }
  if (function.adaptivity == Adaptivity::switch_hops && !function.alternatives.empty()) {
    const std::vector<NodeId>& nodes = function.nodes();
    for (std::size_t s = 0; s < nodes.size(); ++s) {
      if (nodes[s] >= torus.node_count()) continue;
      for (std::size_t d = 0; d < nodes.size(); ++d) {
        const std::vector<Route> paths = function.allowed(s, d);
        if (paths.size() > 1) add_switch_crossings(torus, nodes, s, paths, graphs);
      }
    }
  }
  return graphs;
}

MultiPathReport verify_multipath(const Network& network, const MultiPathTable& function,
                                 const VerifyOptions& options) {
  MultiPathReport report;
  const auto add = [&](Rule rule, std::string message, std::size_t count) {
    report.violations.push_back({rule, std::move(message)});
    report.violation_count += count;
  };
  if (function.alternatives.empty()) {
    add(Rule::MissingRoute, "the multi-path function has no alternative", 1);
    return report;
  }
  for (std::size_t k = 0; k < function.alternatives.size(); ++k) {
    const RouteTable& table = function.alternatives[k];
    if (table.nodes() != function.nodes()) {
      add(Rule::MissingRoute, "alternative " + std::to_string(k) + " is over other nodes than alternative 0", 1);
      continue;
    }
    VerifyOptions alternative_options = options;
    alternative_options.adaptive = options.adaptive && k == 0;
    VerifyReport checked = verify(network, table, alternative_options);
    for (Violation& violation : checked.violations)
      report.violations.push_back({violation.rule, "alternative " + std::to_string(k) + ": " + violation.message});
    report.violation_count += checked.violation_count;
    if (k == 0) report.installed = std::move(checked);
  }
  const std::size_t n = function.size();
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      const std::size_t count = function.allowed(s, d).size();
      report.paths += count;
      if (count > 1) ++report.adaptive_pairs;
    }
  report.virtual_channels = static_cast<int>(function.virtual_channels());

  // The union of every allowed path's dependencies, per virtual channel.
  const Torus& torus = network.torus();
  const std::vector<ChannelDependencyGraph> graphs = multipath_dependency_graphs(network, function);
  for (std::size_t layer = 0; layer < graphs.size(); ++layer) {
    const std::size_t forbidden = graphs[layer].turns_on_cycles(options.flow_control);
    if (forbidden == 0) continue;
    report.union_forbidden += forbidden;
    // An example: the first forbidden dependency inside a component.
    const std::vector<std::int32_t> component = graphs[layer].components();
    std::string example;
    for (ChannelId c = 0; c < graphs[layer].slots() && example.empty(); ++c)
      for (int rank = 0; rank < kDirectionCount && example.empty(); ++rank) {
        if (!((graphs[layer].successors(c) >> rank) & 1u)) continue;
        if (options.flow_control == FlowControl::bubble && Direction(rank) == Torus::channel_direction(c)) continue;
        const ChannelId w = graphs[layer].target(c, rank);
        if (component[w] == component[c])
          example = channel_text(torus, c) + " -> " + channel_text(torus, w);
      }
    add(Rule::Deadlock,
        "allowed paths: virtual channel " + std::to_string(layer) + ": the union of the dependencies of all allowed "
        "paths has " + std::to_string(forbidden) + " forbidden dependencies on cycles, e.g. " + example,
        forbidden);
  }
  return report;
}

std::vector<double> multipath_split_loads(const Network& network, const MultiPathTable& function,
                                          const std::vector<std::pair<std::size_t, std::size_t>>& flows,
                                          std::size_t* max_hops) {
  const Torus& torus = network.torus();
  std::vector<double> load(torus.channel_slots(), 0.0);
  std::size_t longest = 0;
  const std::vector<NodeId>& nodes = function.nodes();
  for (const auto& [src, dst] : flows) {
    const std::vector<Route> paths = function.allowed(src, dst);
    if (paths.empty())
      throw std::invalid_argument("the multi-path function has no path " + torus.format_coord(nodes.at(src)) + " -> " +
                                  torus.format_coord(nodes.at(dst)));
    const double share = 1.0 / static_cast<double>(paths.size());
    for (const Route& route : paths) {
      NodeId at = nodes[src];
      for (Direction d : route.hops) {
        load[Torus::channel(at, d)] += share;
        at = torus.neighbor(at, d);
      }
      longest = std::max(longest, route.hops.size());
    }
  }
  if (max_hops) *max_hops = longest;
  return load;
}

}  // namespace angara
