// Balanced shortest paths: the path step the layered backends (dfsssp, lash)
// share.  SSSP routing (DFSSSP paper, section II, Algorithm 1): one shortest
// path tree per destination, chosen by Dijkstra over channel weights, and
// after each tree every channel's weight grows by the number of the tree's
// paths that cross it, so later trees avoid the loaded channels.
//
// Paths are minimal: the search only moves one hop closer to the destination
// at every step, which is what the paper's initial weight |V|^2 achieves; the
// weights only choose among the shortest paths.
//
// Rule sets (doc/model.md, "Rule sets"):
//   general  any shortest path over live channels and routers;
//   angara   the shortest Angara-encodable routes ([FS] DOR+dirbit [LS]),
//            every First/Last Step turn allowed (the layering decides about
//            deadlock); among them the least loaded one, pair by pair.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "angara/rules.hpp"

namespace angara {

// One channel sequence per ordered pair of the allocation, stored flat.
// Pair p = src_index * n + dst_index over the sorted, deduplicated
// allocation (the order of RouteTable); diagonal pairs are empty.
class PathSet {
 public:
  PathSet() = default;
  explicit PathSet(std::vector<NodeId> nodes);

  const std::vector<NodeId>& nodes() const { return nodes_; }
  std::size_t node_count() const { return nodes_.size(); }
  std::size_t pair_count() const { return nodes_.size() * nodes_.size(); }
  std::size_t pair(std::size_t src, std::size_t dst) const { return src * nodes_.size() + dst; }
  std::size_t pair_source(std::size_t p) const { return p / nodes_.size(); }
  std::size_t pair_destination(std::size_t p) const { return p % nodes_.size(); }

  // Channels of pair p's path, in order.
  const ChannelId* begin(std::size_t p) const { return channels_.data() + first_[p]; }
  const ChannelId* end(std::size_t p) const { return channels_.data() + first_[p + 1]; }
  std::size_t length(std::size_t p) const { return first_[p + 1] - first_[p]; }

  // Paths are appended pair by pair in pair order (diagonal pairs included,
  // with no channels).
  void append(const std::vector<ChannelId>& channels);
  bool complete() const { return first_.size() == pair_count() + 1; }

  // The table with these paths, every pair on layer layers[p] (all 0 when
  // `layers` is empty).
  RouteTable make_table(const std::vector<std::uint8_t>& layers, const std::string& algorithm) const;

 private:
  std::vector<NodeId> nodes_;
  std::vector<ChannelId> channels_;
  std::vector<std::size_t> first_{0};
};

// How the general rule set chooses paths: per pair (fewest descents of the
// direction order, then least weight; the default) or as destination trees
// (Algorithm 1 as published: least weight only).
enum class PathStep { pairs, trees };

struct ShortestPathOptions {
  RuleSet rules = RuleSet::general;
  // 1: Algorithm 1 as published.  2 (P2): a second round re-routes every
  // destination tree against the final weights of all the others.
  int passes = 2;
  PathStep step = PathStep::pairs;  // general rules only
  FlowControl flow_control = FlowControl::bubble;  // the deadlock rule of the relief pass
};

// Hop distances to `dst` over live channels (-1: cut off), found breadth-
// first backwards; `order` receives the reached nodes, nearest first, and
// `distance` (resized to the torus) each node's distance.  Live channels come
// in both directions (a failed router or cable takes both), so these are also
// the distances from `dst`.
void hop_distances_to(const Network& network, NodeId dst, std::vector<int>& distance, std::vector<NodeId>& order);
std::vector<int> hop_distances_to(const Network& network, NodeId dst);
// Whether live channels join every node of `nodes` (true when empty): the
// hop distances to the first reach all of them.
bool connected(const Network& network, const std::vector<NodeId>& nodes);

// Throws RoutingError ("NAME: no path from A to B ...") when a pair of the
// allocation cannot be joined.  Deterministic.
PathSet balanced_shortest_paths(const Network& network, const std::vector<NodeId>& allocation,
                                const ShortestPathOptions& options, const char* generator);

}  // namespace angara
