// Safe live transitions: the union check and the greedy staging (transition.hpp).
#include "routing/check/transition.hpp"

#include <memory>
#include <optional>

#include "routing/common/dependency_graph.hpp"
#include "routing/check/verifier.hpp"

namespace angara {

namespace {

// The parts of a route that lie on live channels between live routers: only
// they can hold packets, so only their dependencies count.
std::vector<std::vector<ChannelId>> live_segments(const Network& network, NodeId source, const Route& route) {
  const Torus& torus = network.torus();
  std::vector<std::vector<ChannelId>> segments(1);
  NodeId at = source;
  for (const Direction d : route.hops) {
    const NodeId to = torus.neighbor(at, d);
    const ChannelId channel = Torus::channel(at, d);
    if (network.node_alive(at) && network.node_alive(to) && network.channel_alive(channel)) {
      segments.back().push_back(channel);
    } else if (!segments.back().empty()) {
      segments.emplace_back();
    }
    at = to;
  }
  if (segments.back().empty()) segments.pop_back();
  return segments;
}

bool route_is_live(const Network& network, NodeId source, const Route& route) {
  const auto segments = live_segments(network, source, route);
  return segments.size() == 1 && segments.front().size() == route.hops.size();
}

// Calls visit(source, destination, route) for every route of a table.
template <class Visit>
void for_each_route(const RouteTable& table, Visit visit) {
  for (std::size_t s = 0; s < table.size(); ++s)
    for (std::size_t d = 0; d < table.size(); ++d)
      if (table.has_route(s, d)) visit(table.nodes()[s], table.nodes()[d], table.route(s, d));
}

// One incremental dependency graph per virtual channel, made when first used.
class LayeredGraphs {
 public:
  LayeredGraphs(const Network& network, FlowControl flow) : network_(network), flow_(flow) {}
  void add(NodeId source, const Route& route) {
    for (const auto& segment : live_segments(network_, source, route)) layer(route.layer).add_path(segment);
  }
  // All of the route's live segments, or none of them.
  bool try_add(NodeId source, const Route& route) {
    IncrementalDependencyGraph& graph = layer(route.layer);
    const auto segments = live_segments(network_, source, route);
    for (std::size_t i = 0; i < segments.size(); ++i) {
      if (graph.try_add_path(segments[i])) continue;
      for (std::size_t j = 0; j < i; ++j) graph.remove_path(segments[j]);
      return false;
    }
    return true;
  }

 private:
  IncrementalDependencyGraph& layer(std::uint8_t index) {
    if (graphs_.size() <= index) graphs_.resize(index + 1u);
    if (!graphs_[index]) graphs_[index] = std::make_unique<IncrementalDependencyGraph>(network_.torus(), flow_);
    return *graphs_[index];
  }
  const Network& network_;
  FlowControl flow_;
  std::vector<std::unique_ptr<IncrementalDependencyGraph>> graphs_;
};

// A pair of the new table and where its route stands.
struct PairState {
  std::size_t src = 0, dst = 0;  // indices in the new table
  std::optional<Route> installed;
  Route fresh;
  bool switched = false;
  bool installed_dead = false;  // crosses a failed channel or router: must switch at once
};

std::string pair_text(const Torus& torus, const RouteTable& table, const PairState& pair) {
  return torus.format_coord(table.nodes()[pair.src]) + " -> " + torus.format_coord(table.nodes()[pair.dst]) +
         " (installed " + (pair.installed ? pair.installed->to_string() : "none") + ", new " + pair.fresh.to_string() +
         ")";
}

}  // namespace

const char* transition_kind_name(TransitionKind kind) {
  switch (kind) {
    case TransitionKind::direct: return "direct";
    case TransitionKind::staged: return "staged";
    case TransitionKind::quiesce: return "quiesce";
  }
  return "?";
}

std::size_t union_turns_on_cycles(const Network& network, const RouteTable& a, const RouteTable& b,
                                  FlowControl flow) {
  std::vector<ChannelDependencyGraph> layers;
  const auto add = [&](NodeId source, NodeId, const Route& route) {
    while (layers.size() <= route.layer) layers.emplace_back(network.torus());
    for (const auto& segment : live_segments(network, source, route))
      for (std::size_t i = 1; i < segment.size(); ++i) layers[route.layer].add(segment[i - 1], segment[i]);
  };
  for_each_route(a, add);
  for_each_route(b, add);
  std::size_t turns = 0;
  for (const ChannelDependencyGraph& graph : layers) turns += graph.turns_on_cycles(flow);
  return turns;
}

TransitionPlan plan_transition(const Network& network, const RouteTable& installed, const RouteTable& next,
                               FlowControl flow, std::size_t max_steps) {
  const Torus& torus = network.torus();
  std::vector<PairState> pairs;
  for (std::size_t s = 0; s < next.size(); ++s)
    for (std::size_t d = 0; d < next.size(); ++d) {
      if (!next.has_route(s, d)) continue;
      PairState pair;
      pair.src = s;
      pair.dst = d;
      pair.fresh = next.route(s, d);
      const std::size_t old_s = installed.index_of(next.nodes()[s]), old_d = installed.index_of(next.nodes()[d]);
      if (old_s != RouteTable::npos && old_d != RouteTable::npos && installed.has_route(old_s, old_d))
        pair.installed = installed.route(old_s, old_d);
      pair.switched = !pair.installed || *pair.installed == pair.fresh;
      pair.installed_dead = !pair.switched && !route_is_live(network, next.nodes()[s], *pair.installed);
      pairs.push_back(std::move(pair));
    }

  TransitionPlan plan;
  for (std::size_t step = 0;; ++step) {
    // The dependencies the network may carry now: at the first step the whole
    // installed table (pairs leaving the job included), later the last
    // intermediate table.
    LayeredGraphs graphs(network, flow);
    if (step == 0) {
      for_each_route(installed, [&](NodeId source, NodeId, const Route& route) { graphs.add(source, route); });
      for (const PairState& pair : pairs)
        if (pair.switched && !pair.installed) graphs.add(next.nodes()[pair.src], pair.fresh);
    } else {
      for (const PairState& pair : pairs)
        graphs.add(next.nodes()[pair.src], pair.switched ? pair.fresh : *pair.installed);
    }
    // Pairs whose installed route is broken first: they cannot wait.
    std::size_t switched_now = 0;
    const PairState* blocked = nullptr;
    for (const bool dead_pass : {true, false})
      for (PairState& pair : pairs) {
        if (pair.switched || pair.installed_dead != dead_pass) continue;
        if (graphs.try_add(next.nodes()[pair.src], pair.fresh)) {
          pair.switched = true;
          ++switched_now;
        } else if (pair.installed_dead) {
          plan.kind = TransitionKind::quiesce;
          plan.steps.clear();
          plan.reason = "the installed route of " + pair_text(torus, next, pair) +
                        " crosses a failed part, and its new route closes a dependency cycle with the installed "
                        "routes";
          return plan;
        } else if (!blocked) {
          blocked = &pair;
        }
      }
    if (!blocked) {
      plan.kind = step == 0 ? TransitionKind::direct : TransitionKind::staged;
      return plan;
    }
    if (switched_now == 0 || plan.steps.size() == max_steps) {
      plan.kind = TransitionKind::quiesce;
      plan.steps.clear();
      plan.reason = "no sequence of at most " + std::to_string(max_steps) +
                    " intermediate tables found: the new route of " + pair_text(torus, next, *blocked) +
                    " closes a dependency cycle with the routes still installed";
      return plan;
    }
    RouteTable intermediate(next.nodes());
    intermediate.algorithm = next.algorithm;
    intermediate.rules = next.rules;
    intermediate.flow_control = next.flow_control;
    for (const PairState& pair : pairs)
      intermediate.set_route(pair.src, pair.dst, pair.switched ? pair.fresh : *pair.installed);
    plan.steps.push_back(std::move(intermediate));
  }
}

}  // namespace angara
