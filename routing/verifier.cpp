// The independent verifier.  It reads only the torus, the failures and the
// table: no generator and no routing graph, so a generator bug cannot hide
// behind a shared helper.  Rules from shared/angara-model.md ("Routing rules",
// "Deadlock model").
#include "routing/verifier.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>

namespace angara {

const char* rule_name(Rule rule) {
  switch (rule) {
    case Rule::MissingRoute: return "missing-route";
    case Rule::DeadNode: return "dead-node";
    case Rule::DeadChannel: return "dead-channel";
    case Rule::WrongDestination: return "wrong-destination";
    case Rule::NotEncodable: return "not-encodable";
    case Rule::Deadlock: return "deadlock";
    case Rule::BadLayer: return "bad-layer";
  }
  return "unknown";
}

namespace {

constexpr int kRuleCount = static_cast<int>(Rule::BadLayer) + 1;

std::string describe_route(const Torus& torus, NodeId src, NodeId dst, const Route& route) {
  return "route " + torus.format_coord(src) + " -> " + torus.format_coord(dst) + " (" + route.to_string() + ")";
}

std::string channel_name(const Torus& torus, ChannelId c) {
  return torus.format_coord(Torus::channel_node(c)) + " " + Torus::channel_direction(c).token();
}

// Counts every violation and keeps the first message of each rule.  Messages
// are built lazily: a broken table can have thousands of violations.
class ViolationLog {
 public:
  template <class MakeMessage>
  void add(Rule rule, MakeMessage make_message, std::size_t count = 1) {
    count_ += count;
    auto& example = examples_[static_cast<int>(rule)];
    if (!example) example = make_message();
  }
  void fill(VerifyReport& report) const {
    report.violation_count = count_;
    for (int r = 0; r < kRuleCount; ++r)
      if (examples_[r]) report.violations.push_back({static_cast<Rule>(r), *examples_[r]});
  }

 private:
  std::size_t count_ = 0;
  std::array<std::optional<std::string>, kRuleCount> examples_;
};

struct LayerDeadlocks {
  std::size_t cyclic_components = 0;  // strongly connected components holding a turn
  std::string example;                // names the first such turn and a route using it
};

// Calls visit(src_index, dst_index, src_node, route) for every route of `layer`.
template <class Visit>
void for_each_layer_route(const Torus& torus, const RouteTable& table, int layer, Visit visit) {
  const std::vector<NodeId>& nodes = table.nodes();
  for (std::size_t s = 0; s < nodes.size(); ++s) {
    if (nodes[s] >= torus.node_count()) continue;
    for (std::size_t d = 0; d < nodes.size(); ++d)
      if (table.has_route(s, d) && table.route(s, d).layer == layer) visit(s, d, nodes[s], table.route(s, d));
  }
}

// The channel dependency graph of one layer (shared model, "Deadlock model";
// the CDG as defined in the DFSSSP paper, section II).
ChannelDependencyGraph layer_graph(const Torus& torus, const RouteTable& table, int layer) {
  ChannelDependencyGraph graph(torus);
  for_each_layer_route(torus, table, layer, [&](std::size_t, std::size_t, NodeId src, const Route& route) {
    NodeId at = src;
    ChannelId previous = 0;
    for (std::size_t k = 0; k < route.hops.size(); ++k) {
      const ChannelId c = Torus::channel(at, route.hops[k]);
      if (k) graph.add(previous, route.hops[k]);
      previous = c;
      at = torus.neighbor(at, route.hops[k]);
    }
  });
  return graph;
}

// A dependency inside a strongly connected component lies on a cycle.  Under
// bubble flow control only turns (a change of dimension or sign) make such a
// cycle a deadlock; without it every such dependency does.
bool forbidden_on_cycle(FlowControl flow, ChannelId from, int next_rank) {
  return flow == FlowControl::none || Direction(next_rank) != Torus::channel_direction(from);
}

LayerDeadlocks find_layer_deadlocks(const Network& network, const RouteTable& table, int layer, FlowControl flow) {
  const Torus& torus = network.torus();
  const ChannelDependencyGraph graph = layer_graph(torus, table, layer);
  const std::vector<std::int32_t> component = graph.components();

  LayerDeadlocks result;
  std::vector<unsigned char> flagged;
  std::optional<std::pair<ChannelId, int>> first_turn;
  for (ChannelId c = 0; c < graph.slots(); ++c) {
    const std::uint8_t mask = graph.successors(c);
    for (int rank = 0; mask && rank < kDirectionCount; ++rank) {
      if (!((mask >> rank) & 1u) || !forbidden_on_cycle(flow, c, rank)) continue;
      const ChannelId w = graph.target(c, rank);
      if (component[w] != component[c]) continue;
      // A turn inside a strongly connected component: it lies on a cycle.
      const auto id = static_cast<std::size_t>(component[c]);
      if (flagged.size() <= id) flagged.resize(id + 1, 0);
      if (!flagged[id]) {
        flagged[id] = 1;
        ++result.cyclic_components;
      }
      if (!first_turn) first_turn = std::make_pair(c, rank);
    }
  }
  if (!first_turn) return result;

  const auto [turn_from, turn_rank] = *first_turn;
  result.example = "virtual channel " + std::to_string(layer) + ": " +
                   (Direction(turn_rank) == Torus::channel_direction(turn_from) ? "dependency " : "turn ") +
                   channel_name(torus, turn_from) +
                   " -> " + channel_name(torus, graph.target(turn_from, turn_rank)) +
                   " lies on a channel dependency cycle";
  bool found = false;
  for_each_layer_route(torus, table, layer, [&](std::size_t, std::size_t d, NodeId src, const Route& route) {
    if (found) return;
    NodeId at = src;
    for (std::size_t k = 0; k + 1 < route.hops.size(); ++k) {
      if (Torus::channel(at, route.hops[k]) == turn_from && route.hops[k + 1].rank() == turn_rank) {
        result.example += "; " + describe_route(torus, src, table.nodes()[d], route) + " takes it after hop " +
                          std::to_string(k + 1);
        found = true;
        return;
      }
      at = torus.neighbor(at, route.hops[k]);
    }
  });
  return result;
}

std::string allowed_layers(int max_virtual_channels) {
  if (max_virtual_channels <= 0) return "no virtual channel is allowed";
  if (max_virtual_channels == 1) return "only virtual channel 0 is allowed";
  return "only virtual channels 0 to " + std::to_string(max_virtual_channels - 1) + " are allowed";
}

}  // namespace

bool layer_deadlock_free(const Network& network, const RouteTable& table, int layer, std::string* example,
                         FlowControl flow) {
  LayerDeadlocks deadlocks = find_layer_deadlocks(network, table, layer, flow);
  if (deadlocks.cyclic_components == 0) return true;
  if (example) *example = std::move(deadlocks.example);
  return false;
}

VerifyReport verify(const Network& network, const RouteTable& table, const VerifyOptions& options) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = table.nodes();
  const std::size_t n = nodes.size();
  VerifyReport report;
  ViolationLog log;

  // Allocated nodes must exist and be alive; routes from or to a failed one
  // are not walked, its failure is the one violation to fix.
  std::vector<unsigned char> inside(n, 0), walkable(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (nodes[i] >= torus.node_count()) {
      log.add(Rule::DeadNode, [&] {
        return "allocated node id " + std::to_string(nodes[i]) + " is outside the " + torus.to_string() + " torus";
      });
      continue;
    }
    inside[i] = 1;
    if (network.node_alive(nodes[i]))
      walkable[i] = 1;
    else
      log.add(Rule::DeadNode, [&] { return "allocated node " + torus.format_coord(nodes[i]) + " is failed"; });
  }

  for (std::size_t s = 0; s < n; ++s) {
    for (std::size_t d = 0; d < n; ++d) {
      if (s == d) continue;
      if (!table.has_route(s, d)) {
        log.add(Rule::MissingRoute, [&] {
          const auto name = [&](NodeId node) {
            return node < torus.node_count() ? torus.format_coord(node) : "id " + std::to_string(node);
          };
          return "no route from " + name(nodes[s]) + " to " + name(nodes[d]);
        });
        continue;
      }
      ++report.routes;
      if (!inside[s] || !inside[d]) continue;
      const NodeId src = nodes[s], dst = nodes[d];
      const Route& route = table.route(s, d);
      const auto described = [&] { return describe_route(torus, src, dst, route); };

      if (route.layer >= options.max_virtual_channels)
        log.add(Rule::BadLayer, [&] {
          return described() + " uses virtual channel " + std::to_string(route.layer) + ", but " +
                 allowed_layers(options.max_virtual_channels);
        });
      if (!is_dor_route(route.hops)) {  // the cheap test first: most routes are plain DOR
        if (is_angara_encodable(route.hops))
          ++report.fs_ls_routes;
        else if (options.rules == RuleSet::angara)  // general: any path over live channels
          log.add(Rule::NotEncodable,
                  [&] { return described() + " is not Angara-encodable as [FS] DOR+direction-bit [LS]"; });
      }
      if (route.hops.size() > static_cast<std::size_t>(torus.distance(src, dst))) ++report.non_minimal;

      if (!walkable[s] || !walkable[d]) continue;
      NodeId at = src;
      bool broken = false;
      for (std::size_t k = 0; k < route.hops.size(); ++k) {
        const Direction hop = route.hops[k];
        const auto hop_number = [k] { return std::to_string(k + 1); };
        if (!torus.direction_present(hop)) {
          log.add(Rule::DeadChannel, [&] {
            return described() + " uses channel " + torus.format_coord(at) + " " + hop.token() +
                   " of the absent dimension " + dimension_letter(hop.dim()) + " at hop " + hop_number();
          });
          broken = true;
          break;
        }
        if (!torus.cabled(at, hop)) {
          log.add(Rule::DeadChannel, [&] {
            return described() + " leaves through a port without a cable at hop " + hop_number() + ": " +
                   torus.missing_cable_text(at, hop);
          });
          broken = true;
          break;
        }
        const NodeId next = torus.neighbor(at, hop);
        if (!network.node_alive(next)) {
          log.add(Rule::DeadNode, [&] {
            return described() + " passes through failed node " + torus.format_coord(next) + " at hop " + hop_number();
          });
          broken = true;
          break;
        }
        if (!network.channel_alive(at, hop)) {
          log.add(Rule::DeadChannel, [&] {
            return described() + " uses failed channel " + torus.format_coord(at) + " " + hop.token() + " at hop " +
                   hop_number();
          });
          broken = true;
          break;
        }
        at = next;
      }
      if (!broken && at != dst)
        log.add(Rule::WrongDestination, [&] { return described() + " ends at " + torus.format_coord(at); });
    }
  }

  report.rules = options.rules;
  report.flow_control = options.flow_control;
  report.virtual_channels = static_cast<int>(table.virtual_channels());
  for (int layer = 0; layer < report.virtual_channels; ++layer) {
    LayerDeadlocks deadlocks = find_layer_deadlocks(network, table, layer, options.flow_control);
    if (deadlocks.cyclic_components)
      log.add(Rule::Deadlock, [&] { return std::move(deadlocks.example); }, deadlocks.cyclic_components);
  }

  log.fill(report);
  report.metrics = compute_metrics(network, table);
  return report;
}

ChannelDependencyGraph::ChannelDependencyGraph(const Torus& torus)
    : torus_(&torus), successors_(torus.channel_slots(), 0) {}

void ChannelDependencyGraph::add(ChannelId from, ChannelId to) {
  if (Torus::channel_node(to) != torus_->neighbor(Torus::channel_node(from), Torus::channel_direction(from)))
    throw std::invalid_argument("a channel dependency must lead to a channel leaving the first channel's head node");
  add(from, Torus::channel_direction(to));
}

ChannelId ChannelDependencyGraph::target(ChannelId c, int rank) const {
  return Torus::channel(torus_->neighbor(Torus::channel_node(c), Torus::channel_direction(c)), Direction(rank));
}

std::vector<std::int32_t> ChannelDependencyGraph::components() const {
  const ChannelId n = slots();
  std::vector<std::int32_t> index(n, -1), low(n, 0), component(n, -1);
  std::vector<unsigned char> on_stack(n, 0);
  std::vector<ChannelId> stack;
  struct Frame {
    ChannelId channel;
    int next_rank;
  };
  std::vector<Frame> calls;
  std::int32_t counter = 0, count = 0;
  auto open = [&](ChannelId c) {
    index[c] = low[c] = counter++;
    stack.push_back(c);
    on_stack[c] = 1;
    calls.push_back({c, 0});
  };
  for (ChannelId root = 0; root < n; ++root) {
    if (!successors_[root] || index[root] >= 0) continue;
    open(root);
    while (!calls.empty()) {
      const std::size_t top = calls.size() - 1;
      const ChannelId v = calls[top].channel;
      bool descended = false;
      while (calls[top].next_rank < kDirectionCount) {
        const int rank = calls[top].next_rank++;
        if (!((successors_[v] >> rank) & 1u)) continue;
        const ChannelId w = target(v, rank);
        if (index[w] < 0) {
          open(w);
          descended = true;
          break;
        }
        if (on_stack[w]) low[v] = std::min(low[v], index[w]);
      }
      if (descended) continue;
      if (low[v] == index[v]) {
        ChannelId w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = 0;
          component[w] = count;
        } while (w != v);
        ++count;
      }
      calls.pop_back();
      if (!calls.empty()) {
        const ChannelId parent = calls.back().channel;
        low[parent] = std::min(low[parent], low[v]);
      }
    }
  }
  return component;
}

std::size_t ChannelDependencyGraph::turns_on_cycles(FlowControl flow) const {
  const std::vector<std::int32_t> component = components();
  std::size_t turns = 0;
  for (ChannelId c = 0; c < slots(); ++c)
    for (int rank = 0; successors_[c] && rank < kDirectionCount; ++rank)
      if (((successors_[c] >> rank) & 1u) && forbidden_on_cycle(flow, c, rank) &&
          component[target(c, rank)] == component[c])
        ++turns;
  return turns;
}

}  // namespace angara
