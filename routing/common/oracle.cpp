#include "routing/common/oracle.hpp"

#include <algorithm>

namespace angara {

RoutabilityOracle::RoutabilityOracle(const Network& network)
    : network_(network), rules_(network, TurnRules::Mode::all_turns) {}

const ShortestRouteSearch& RoutabilityOracle::search(NodeId src) const {
  if (cached_source_ != src || !cached_) {
    cached_ = std::make_unique<ShortestRouteSearch>(network_, rules_, src);
    cached_source_ = src;
  }
  return *cached_;
}

int RoutabilityOracle::shortest(NodeId src, NodeId dst) const {
  if (src == dst) return 0;
  return search(src).length(dst);
}

std::vector<std::vector<Direction>> RoutabilityOracle::shortest_routes(NodeId src, NodeId dst,
                                                                       std::size_t cap) const {
  if (src == dst) return {};
  return search(src).routes(dst, cap);
}

AllocationRoutability assess_routability(const Network& network, std::vector<NodeId> allocation) {
  std::sort(allocation.begin(), allocation.end());
  allocation.erase(std::unique(allocation.begin(), allocation.end()), allocation.end());
  AllocationRoutability result;
  result.nodes = std::move(allocation);
  const std::size_t n = result.nodes.size();
  result.shortest.assign(n * n, 0);
  const RoutabilityOracle oracle(network);
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      if (s == d) continue;
      const int hops = oracle.shortest(result.nodes[s], result.nodes[d]);
      result.shortest[s * n + d] = hops;
      if (hops < 0) ++result.cut_off_pairs;
    }
  return result;
}

namespace {

std::string router_name(const Torus& torus, NodeId node) { return "router " + torus.format_coord(node); }

std::string cable_name(const Torus& torus, ChannelId c) {
  return "cable " + torus.format_coord(Torus::channel_node(c)) + " " + Torus::channel_direction(c).token();
}

// The failure that makes the hop from `at` in direction `d` impossible, by
// its declared name, or "" when the hop is live.
std::string hop_blocker(const Network& network, NodeId at, Direction d) {
  const Torus& torus = network.torus();
  const NodeId next = torus.neighbor(at, d);
  if (!network.node_alive(next)) return router_name(torus, next);
  const ChannelId c = Torus::channel(at, d);
  if (network.channel_alive(c)) return "";
  const ChannelId back = torus.reverse_channel(c);
  for (ChannelId declared : network.failed_links())
    if (declared == c || declared == back) return cable_name(torus, declared);
  return cable_name(torus, c);
}

// The network with every failure but one (index into failure_names order:
// routers first, then cables).
Network without_failure(const Network& network, std::size_t skipped) {
  Network copy(network.torus());
  std::size_t index = 0;
  for (NodeId node : network.failed_nodes())
    if (index++ != skipped) copy.fail_node(node);
  for (ChannelId c : network.failed_links())
    if (index++ != skipped) copy.fail_link(Torus::channel_node(c), Torus::channel_direction(c));
  return copy;
}

void add_unique(std::vector<std::string>& names, std::string name) {
  if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
}

// The first failure on each minimal encodable route of the fault-free torus.
std::vector<std::string> minimal_route_blockers(const Network& network, NodeId src, NodeId dst) {
  const Network intact(network.torus());
  const TurnRules every_turn(intact, TurnRules::Mode::all_turns);
  std::vector<std::string> names;
  for (const auto& hops : minimal_routes(intact, every_turn, src, dst, 64)) {
    NodeId at = src;
    for (Direction d : hops) {
      const std::string blocker = hop_blocker(network, at, d);
      if (!blocker.empty()) {
        add_unique(names, blocker);
        break;
      }
      at = network.torus().neighbor(at, d);
    }
  }
  return names;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

std::vector<std::string> failure_names(const Network& network) {
  std::vector<std::string> names;
  for (NodeId node : network.failed_nodes()) names.push_back(router_name(network.torus(), node));
  for (ChannelId c : network.failed_links()) names.push_back(cable_name(network.torus(), c));
  return names;
}

std::vector<std::string> blocking_failures(const Network& network, NodeId src, NodeId dst) {
  if (RoutabilityOracle(network).shortest(src, dst) < 0) {
    const std::vector<std::string> all = failure_names(network);
    std::vector<std::string> reopening;
    for (std::size_t f = 0; f < all.size(); ++f) {
      const Network repaired = without_failure(network, f);
      if (RoutabilityOracle(repaired).shortest(src, dst) >= 0) reopening.push_back(all[f]);
    }
    if (!reopening.empty()) return reopening;
  }
  return minimal_route_blockers(network, src, dst);
}

std::vector<std::pair<std::size_t, std::size_t>> unrouted_pairs(const RouteTable& table) {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t s = 0; s < table.size(); ++s)
    for (std::size_t d = 0; d < table.size(); ++d)
      if (s != d && !table.has_route(s, d)) pairs.emplace_back(s, d);
  return pairs;
}

std::string describe_unrouted_pairs(std::string_view generator, const Network& network, const RouteTable& table,
                                    std::size_t shown) {
  const Torus& torus = network.torus();
  const auto pairs = unrouted_pairs(table);
  const std::size_t total = table.size() * (table.size() - 1);
  std::string out = std::string(generator) + ": cannot route " + std::to_string(pairs.size()) + " of " +
                    std::to_string(total) + " ordered pairs deadlock-free on one virtual channel";
  const RoutabilityOracle oracle(network);
  for (std::size_t k = 0; k < pairs.size() && k < shown; ++k) {
    const NodeId src = table.nodes()[pairs[k].first], dst = table.nodes()[pairs[k].second];
    out += (k == 0 ? ": " : "; ") + torus.format_coord(src) + " -> " + torus.format_coord(dst) + ": ";
    const int hops = oracle.shortest(src, dst);
    const std::vector<std::string> blockers = blocking_failures(network, src, dst);
    if (hops < 0) {
      out += "no Angara-encodable route avoids the failures";
      if (!blockers.empty()) out += " (cut off by " + join(blockers) + ")";
    } else {
      out += "an encodable route of " + std::to_string(hops) +
             " hops exists, but every route tried closes a deadlock cycle with the other routes";
      if (!blockers.empty()) out += " (its minimal routes are blocked by " + join(blockers) + ")";
    }
  }
  if (pairs.size() > shown) out += "; and " + std::to_string(pairs.size() - shown) + " more";
  return out;
}

}  // namespace angara
