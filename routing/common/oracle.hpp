// The routability oracle: whether any Angara-encodable route joins two live
// nodes over the live channels and routers, and how short the shortest one
// is, with every First/Last Step turn allowed and deadlock ignored (the
// routing graph of the ANSU paper, section 3.1, without the section 3.2
// restriction).  It bounds what any single-channel generator can do: a pair
// it cannot join is cut off by the failures; a pair it can join but a
// generator leaves out was refused by the deadlock rule.  It also names the
// failures behind a refusal, so an administrator knows what to drain or fix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "routing/common/candidates.hpp"
#include "routing/common/generator_support.hpp"

namespace angara {

class RoutabilityOracle {
 public:
  explicit RoutabilityOracle(const Network& network);
  const Network& network() const { return network_; }

  // Hops of the shortest encodable route, -1 when none exists, 0 for src == dst.
  // One search per source; the last source's search is kept, so asking
  // source by source costs one search each.
  int shortest(NodeId src, NodeId dst) const;
  // Up to `cap` shortest encodable routes, in ShortestRouteSearch's order.
  std::vector<std::vector<Direction>> shortest_routes(NodeId src, NodeId dst, std::size_t cap) const;
  // Searches run so far (one per change of source): each visits the whole
  // machine, the measure of the oracle's work.
  std::uint64_t searches() const { return searches_; }

 private:
  const ShortestRouteSearch& search(NodeId src) const;

  const Network& network_;
  TurnRules rules_;
  std::vector<NodeId> heads_;  // live_channel_heads(), for every search
  mutable NodeId cached_source_ = kNoNode;
  mutable std::unique_ptr<ShortestRouteSearch> cached_;
  mutable std::uint64_t searches_ = 0;
};

// The oracle over a whole allocation (sorted, deduplicated, all alive):
// shortest[src_index * n + dst_index], -1 when the pair is cut off.
struct AllocationRoutability {
  std::vector<NodeId> nodes;
  std::vector<int> shortest;
  std::size_t cut_off_pairs = 0;  // ordered pairs without any encodable route
  bool all_routable() const { return cut_off_pairs == 0; }
  int at(std::size_t src, std::size_t dst) const { return shortest[src * nodes.size() + dst]; }
};
AllocationRoutability assess_routability(const Network& network, std::vector<NodeId> allocation);

// A failure by name: "router 1,0" or "cable 2,1 +X" (the cable from the end
// it was declared with).  Routers first (Network::failed_nodes() order), then
// cables (Network::failed_links() order): the failure indices below.
std::vector<std::string> failure_names(const Network& network);

// Why a pair has no route, or why its route may detour.
struct PairDiagnosis {
  int shortest = -1;  // hops of the shortest encodable route around the failures; -1: cut off
  // Indices (failure_names() order) of the failures that cut the pair off:
  // those whose repair alone would open an encodable route; when no single
  // repair does, or the pair can be joined, the failures that block its
  // minimal routes (what forced a detour).
  std::vector<std::size_t> blockers;
  bool each_repair_reopens = false;  // cut off, and repairing any one blocker opens a route
};
// Each pair's diagnosis, in order; pairs grouped by source cost one oracle
// search per source and failure.
std::vector<PairDiagnosis> diagnose_pairs(const Network& network, const std::vector<NodePair>& pairs);
// One pair's blockers by name (failure_names()).
std::vector<std::string> blocking_failures(const Network& network, NodeId src, NodeId dst);

// The honest refusal when a generator leaves pairs of `table` without a
// route: "NAME: cannot route K of M ordered pairs deadlock-free on one
// virtual channel: A -> B: ...; ..." with at most `shown` pairs explained
// (whether an encodable route exists at all, and the failures behind it).
std::string describe_unrouted_pairs(std::string_view generator, const Network& network, const RouteTable& table,
                                    std::size_t shown = 4);
// That refusal as the error to throw: every pair left out attached, the
// headline without the pairs, and `table` as the partial table when asked.
RoutingError unrouted_pairs_error(std::string_view generator, const Network& network, const RouteTable& table,
                                  bool keep_partial = false);
// The pairs of `table` without a route, as allocation indices.
std::vector<std::pair<std::size_t, std::size_t>> unrouted_pairs(const RouteTable& table);

}  // namespace angara
