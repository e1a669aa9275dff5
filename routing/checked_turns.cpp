#include "routing/checked_turns.hpp"

#include <algorithm>
#include <cstdint>
#include <tuple>

#include "routing/oracle.hpp"

namespace angara {

namespace {

// Route states of the encodable-route automaton, as in ShortestRouteSearch
// (routing/candidates.hpp): at the source; after a First Step P; inside the
// DOR middle with the used-direction mask; after a Last Step (terminal).
constexpr int kBegin = 0;
constexpr int kFirstStep = 1;
constexpr int kMiddle = 5;
constexpr int kLastStep = kMiddle + 256;
constexpr int kStages = kLastStep + 1;
constexpr std::uint32_t kNone = 0xFFFFFFFFu;

Direction highest(unsigned mask) {
  int rank = kDirectionCount - 1;
  while (!((mask >> rank) & 1u)) --rank;
  return Direction(rank);
}

// The channel that entered `node` with the hop `last_hop`.
ChannelId entry_channel(const Torus& torus, NodeId node, Direction last_hop) {
  return Torus::channel(torus.neighbor(node, last_hop.opposite()), last_hop);
}

}  // namespace

std::optional<std::vector<Direction>> find_checked_route(const Network& network,
                                                         const IncrementalDependencyGraph& graph, NodeId src,
                                                         NodeId dst, std::size_t max_hops) {
  const Torus& torus = network.torus();
  if (src == dst) return std::vector<Direction>{};
  const std::size_t states = static_cast<std::size_t>(torus.node_count()) * kStages;
  std::vector<std::uint32_t> parent(states, kNone);
  std::vector<std::uint8_t> hop(states, 0);
  std::vector<std::uint8_t> reached(states, 0);
  // Memo of the cycle test per dependency (channel, next direction): the
  // graph does not change during the search.  0 unknown, 1 allowed, 2 refused.
  std::vector<std::uint8_t> allowed(static_cast<std::size_t>(torus.channel_slots()) * kDirectionCount, 0);
  auto dependency_ok = [&](ChannelId from, ChannelId to) {
    std::uint8_t& memo = allowed[static_cast<std::size_t>(from) * kDirectionCount +
                                 static_cast<std::size_t>(Torus::channel_direction(to).rank())];
    if (!memo) memo = graph.has_edge(from, to) || !graph.closes_cycle(from, to) ? 1 : 2;
    return memo == 1;
  };

  auto state = [](NodeId node, int stage) { return static_cast<std::uint32_t>(node) * kStages + stage; };
  std::vector<std::uint32_t> frontier{state(src, kBegin)}, next;
  reached[frontier[0]] = 1;
  std::uint32_t goal = kNone;
  for (std::size_t depth = 0; !frontier.empty() && goal == kNone && (max_hops == 0 || depth < max_hops); ++depth) {
    next.clear();
    for (const std::uint32_t s : frontier) {
      const NodeId node = s / kStages;
      const int stage = static_cast<int>(s % kStages);
      if (stage == kLastStep) continue;
      const bool has_entry = stage != kBegin;
      const ChannelId in = has_entry ? entry_channel(torus, node, Direction(hop[s])) : 0;
      const unsigned mask = stage >= kMiddle ? static_cast<unsigned>(stage - kMiddle) : 0;
      for (int rank = 0; rank < kDirectionCount && goal == kNone; ++rank) {
        const Direction d(rank);
        if (!torus.direction_present(d)) continue;
        const ChannelId out = Torus::channel(node, d);
        if (!network.channel_alive(out)) continue;
        int targets[2];
        int count = 0;
        if (stage == kBegin) {
          targets[count++] = kMiddle + direction_bit(d);
          if (d.positive()) targets[count++] = kFirstStep + rank;
        } else if (stage < kMiddle) {
          if (d != Direction(stage - kFirstStep).opposite()) targets[count++] = kMiddle + direction_bit(d);
        } else {
          const Direction last = highest(mask);
          if (last <= d && !(mask & direction_bit(d.opposite())))
            targets[count++] = kMiddle + static_cast<int>(mask | direction_bit(d));
          else if (d.negative() && d != last.opposite())
            targets[count++] = kLastStep;
        }
        if (count == 0 || (has_entry && !dependency_ok(in, out))) continue;
        const NodeId to = torus.neighbor(node, d);
        for (int k = 0; k < count; ++k) {
          const std::uint32_t t = state(to, targets[k]);
          if (reached[t]) continue;
          reached[t] = 1;
          parent[t] = s;
          hop[t] = static_cast<std::uint8_t>(rank);
          if (to == dst) {
            goal = t;
            break;
          }
          next.push_back(t);
        }
      }
      if (goal != kNone) break;
    }
    frontier.swap(next);
  }
  if (goal == kNone) return std::nullopt;
  std::vector<Direction> hops;
  for (std::uint32_t s = goal; parent[s] != kNone; s = parent[s]) hops.push_back(Direction(hop[s]));
  std::reverse(hops.begin(), hops.end());
  return hops;
}

namespace {

constexpr std::size_t kShortestCandidates = 32;

struct Work {
  bool missing;
  std::size_t src, dst;
};

}  // namespace

CheckedTurnStats complete_with_checked_turns(std::string_view generator, const Network& network, RouteTable& table,
                                             const GeneratorOptions& options) {
  CheckedTurnStats stats;
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = table.nodes();
  const std::size_t n = nodes.size();
  const bool faulty = !network.failed_nodes().empty() || !network.failed_links().empty();
  if (n < 2 || !faulty) {
    if (!unrouted_pairs(table).empty()) throw RoutingError(describe_unrouted_pairs(generator, network, table));
    return stats;
  }

  std::vector<Work> work;
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      if (s == d) continue;
      if (!table.has_route(s, d))
        work.push_back({true, s, d});
      else if (table.route(s, d).hops.size() > static_cast<std::size_t>(torus.distance(nodes[s], nodes[d])))
        work.push_back({false, s, d});
    }
  if (work.empty()) return stats;
  // Missing pairs first (they must be routed), then the detours; by source
  // inside each group, so the oracle searches once per source and group.
  std::stable_sort(work.begin(), work.end(), [](const Work& a, const Work& b) {
    if (a.missing != b.missing) return a.missing;
    return std::tie(a.src, a.dst) < std::tie(b.src, b.dst);
  });

  IncrementalDependencyGraph graph(torus, options.flow_control);
  std::vector<std::uint32_t> loads(torus.channel_slots(), 0);
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d)
      if (s != d && table.has_route(s, d)) {
        const std::vector<ChannelId> channels = route_channels(torus, nodes[s], table.route(s, d).hops);
        graph.add_path(channels);
        for (ChannelId c : channels) ++loads[c];
      }

  const RoutabilityOracle oracle(network);
  std::vector<ChannelId> old;
  for (const Work& pair : work) {
    const NodeId src = nodes[pair.src], dst = nodes[pair.dst];
    const int best = oracle.shortest(src, dst);
    if (best < 0) continue;  // cut off: stays missing and is reported
    old.clear();
    if (!pair.missing) {
      const Route current = table.route(pair.src, pair.dst);
      if (current.hops.size() <= static_cast<std::size_t>(best)) continue;
      old = route_channels(torus, src, current.hops);
      graph.remove_path(old);
      for (ChannelId c : old) --loads[c];
    }
    // The shortest encodable routes, least loaded first (highest channel
    // load on the route, then the summed load; ties keep the oracle's order).
    std::vector<std::vector<Direction>> candidates = oracle.shortest_routes(src, dst, kShortestCandidates);
    std::vector<std::pair<std::uint64_t, std::size_t>> order;
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      std::uint64_t peak = 0, sum = 0;
      for (ChannelId c : route_channels(torus, src, candidates[k])) {
        peak = std::max<std::uint64_t>(peak, loads[c]);
        sum += loads[c];
      }
      order.emplace_back((peak << 32) | std::min<std::uint64_t>(sum, 0xFFFFFFFFu), k);
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::optional<std::vector<Direction>> chosen;
    for (const auto& [cost, k] : order) {
      if (graph.try_add_path(route_channels(torus, src, candidates[k]))) {
        chosen = candidates[k];
        break;
      }
    }
    if (!chosen) {
      const std::size_t limit = pair.missing ? 0 : old.size() - 1;
      std::optional<std::vector<Direction>> found = find_checked_route(network, graph, src, dst, limit);
      if (found && graph.try_add_path(route_channels(torus, src, *found))) chosen = std::move(found);
    }
    if (!chosen) {
      if (!old.empty()) {
        graph.add_path(old);
        for (ChannelId c : old) ++loads[c];
      }
      continue;
    }
    for (ChannelId c : route_channels(torus, src, *chosen)) ++loads[c];
    table.set_route(pair.src, pair.dst, Route{std::move(*chosen)});
    ++(pair.missing ? stats.filled : stats.shortened);
  }
  if (!unrouted_pairs(table).empty()) throw RoutingError(describe_unrouted_pairs(generator, network, table));
  return stats;
}

}  // namespace angara
