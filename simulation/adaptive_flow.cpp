#include "simulation/adaptive_flow.hpp"

#include <algorithm>

namespace angara::simulation {

AdaptiveLoads adaptive_channel_loads(const Network& network, const RouteTable& escape,
                                     const std::vector<std::pair<std::size_t, std::size_t>>& flows) {
  const Torus& torus = network.torus();
  AdaptiveLoads result;
  result.load.assign(torus.channel_slots(), 0.0);
  // The share of the flow at each router of the current distance, and the
  // routers of the current and the next distance.
  std::vector<double> share(torus.node_count(), 0.0);
  std::vector<NodeId> level, next;
  std::vector<std::pair<Direction, NodeId>> hops;
  for (const auto& [src, dst] : flows) {
    const NodeId target = escape.nodes()[dst];
    level.assign(1, escape.nodes()[src]);
    share[level[0]] = 1.0;
    for (std::size_t taken = 0; !level.empty(); ++taken) {
      next.clear();
      for (NodeId at : level) {
        const double part = share[at];
        share[at] = 0.0;
        const int distance = torus.distance(at, target);
        hops.clear();
        for (int rank = 0; rank < kDirectionCount; ++rank) {
          const Direction d(rank);
          if (!torus.direction_present(d) || !network.channel_alive(at, d)) continue;
          const NodeId w = torus.neighbor(at, d);
          if (escape.index_of(w) == RouteTable::npos || torus.distance(w, target) != distance - 1) continue;
          hops.emplace_back(d, w);
        }
        if (hops.empty()) {  // no minimal hop left: the escape, the table's route from here
          std::size_t length = taken;
          escape.walk(escape.index_of(at), dst, torus, [&](NodeId from, Direction d) {
            result.load[Torus::channel(from, d)] += part;
            ++length;
          });
          result.max_hops = std::max(result.max_hops, length);
          continue;
        }
        const double each = part / static_cast<double>(hops.size());
        for (const auto& [d, w] : hops) {
          result.load[Torus::channel(at, d)] += each;
          if (w == target) {
            result.max_hops = std::max(result.max_hops, taken + 1);
            continue;
          }
          if (share[w] == 0.0) next.push_back(w);
          share[w] += each;
        }
      }
      level.swap(next);
    }
  }
  return result;
}

}  // namespace angara::simulation
