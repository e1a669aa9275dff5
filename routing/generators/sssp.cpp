// SSSP routing table generator (ANSU paper, section 4.3, Algorithms 3 and 4).
//
// Algorithm 3 in three stages, all on the routing graph (RG) of section 3:
//  1. Unique routes.  From every allocated source, a breadth-first search
//     counts the shortest routes to every other allocated node and their
//     length.  A pair with exactly one shortest route gets it at once, and
//     every channel on it gains weight 1.
//  2. Sort and group.  The other pairs are sorted by (turns, length, source,
//     destination) and grouped by source within equal (turns, length).
//     turns = (number of dimensions in which source and destination
//     coordinates differ) - 1: the direction changes a minimal DOR route
//     between them makes (section 4.3 says "turn number in a route in torus
//     topology"; this is our reading, it depends on the pair only, so it is
//     known before any route exists).  length = the shortest route length
//     from stage 1 (in hops; longer than the torus distance only around
//     faults).
//  3. For each group (src, N_dst), while N_dst is not empty: BUILD_SSSP
//     (Algorithm 4) builds the cheapest shortest path from src to every node
//     of N_dst; going through N_dst in ascending order, a path is applied
//     when it shares no channel with a path applied before it in this round;
//     the applied destinations leave N_dst.
//
// Line 16 of Algorithm 3, "increase edge weight by 1 along all paths", has
// two readings: along the applied paths only, or along every path built in
// the round, rejected ones included.  The default is "applied": then a
// channel's weight is exactly its load in the table being built, which is
// what the balancing needs; the rejected paths are built again in the next
// round and counted when applied, so counting them now counts them twice.
// Measured, max gamma: Desmos 4x2x2x2 blocks of 8 / 16 / 32 nodes give
// 4 / 9 / 17 with "applied" and 4 / 9 / 22 with "all"; summed over whole
// machines, 2D sizes 2..8: 1086 against 1107, 3D sizes 2..6: 5775 against
// 6463, 4D sizes 2..4: 3402 against 4487 (BFS: 1199, 6994, 4749).  The
// other reading stays selectable with the option `weights: all`.
//
// Stage 1 counts routes, not RG paths.  One route (hop sequence) can be
// several RG paths: "+X" is begin -> FS_X -> end and begin -> dirbit{+X} ->
// end, and "+X -Y" can end in LS_-Y or in dirbit{+X,-Y}.  Counting RG paths
// would call almost no pair unique, unlike the paper's statistics (81.6% of
// the 2D pairs unique).  So the search runs over sets of RG vertices: a
// state is (node, the set of RG vertices a hop prefix can be in), the subset
// construction of the RG read as an automaton over hops.  Each prefix is in
// exactly one state, so summing prefix counts over states counts distinct
// routes.  A set has at most three vertices (the dirbit state without a
// First Step, the dirbit state after one, and LS of the last hop; FS_k only
// after one hop), so states are small fixed arrays.
//
// Algorithm 4 is a breadth-first search with relaxation.  The paper weights
// an edge |N|^2 + w(channel) so that no detour is ever cheaper; here the
// search is level-synchronous and a vertex reached on an earlier level is
// never relaxed again, which is that order made exact: paths compare by hop
// count first and by summed channel weight second (the |N|^2 term is the
// same for every path of one level, so only the weight sums are stored).
// A level is settled when it has been processed, and the search stops after
// the level on which the last destination of N_dst was reached.  The search
// runs only over the vertices that can lie on a shortest route from src to
// one of its pending destinations: one pruned search per source (a vertex is
// kept when its torus distance to some pending destination still fits that
// destination's route length; torus distance is a lower bound with faults
// too), and per group a backward pass from N_dst over it (stage 3 below).
//
// Ties: strict improvement only, so the first relaxation in frontier order
// (discovery order, edges in RG order) wins.  Deterministic.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "routing/generators/sssp.hpp"

#include "angara/routing_graph.hpp"
#include "routing/common/checked_turns.hpp"
#include "routing/common/parallel.hpp"

namespace angara {

namespace {

using VertexId = RoutingGraph::VertexId;
using EdgeId = RoutingGraph::EdgeId;

constexpr std::uint32_t kNone = 0xFFFFFFFFu;
// Below this many sources a part, a thread costs more than it saves.
constexpr std::size_t kSourcesPerThread = 64;

std::uint32_t saturating_add(std::uint32_t a, std::uint32_t b) { return a > UINT32_MAX - b ? UINT32_MAX : a + b; }

// deadline[x] = max over `seeds` (node, value) of value - torus distance(x,
// node), or -1 where that is negative: the most hops after which a search
// may still enter x and reach some seed within its value.  A breadth-first
// search over the whole torus by decreasing value; faults are ignored, as
// the torus distance only has to bound a route's length from below.  The
// result is 1-Lipschitz in the torus distance, so a search pruned with it
// never discovers a kept vertex from a pruned one, and keeps the levels and
// discovery order of the unpruned search on the vertices it keeps.
// The torus neighbours of every node, over the present directions.
struct TorusNeighbors {
  explicit TorusNeighbors(const Torus& torus) : node_count(torus.node_count()), per_node(0) {
    for (int rank = 0; rank < kDirectionCount; ++rank)
      if (torus.direction_present(Direction(rank))) ++per_node;
    next.reserve(static_cast<std::size_t>(torus.node_count()) * per_node);
    for (NodeId node = 0; node < torus.node_count(); ++node)
      for (int rank = 0; rank < kDirectionCount; ++rank)
        if (torus.direction_present(Direction(rank))) next.push_back(torus.neighbor(node, Direction(rank)));
  }
  std::size_t node_count, per_node;
  std::vector<NodeId> next;  // node * per_node + i
};

void spread_deadlines(const TorusNeighbors& neighbors, const std::vector<std::pair<NodeId, std::uint32_t>>& seeds,
                      std::vector<int>& deadline, std::vector<std::vector<NodeId>>& buckets) {
  const std::size_t node_count = neighbors.node_count;
  deadline.assign(node_count, -1);
  int top = 0;
  for (const auto& [node, value] : seeds) {
    deadline[node] = std::max(deadline[node], static_cast<int>(value));
    top = std::max(top, static_cast<int>(value));
  }
  if (buckets.size() < static_cast<std::size_t>(top) + 1) buckets.resize(static_cast<std::size_t>(top) + 1);
  for (auto& bucket : buckets) bucket.clear();
  for (NodeId node = 0; node < node_count; ++node)
    if (deadline[node] > 0) buckets[static_cast<std::size_t>(deadline[node])].push_back(node);
  for (int value = top; value > 0; --value) {
    std::vector<NodeId>& bucket = buckets[static_cast<std::size_t>(value)];
    for (std::size_t i = 0; i < bucket.size(); ++i) {
      const NodeId node = bucket[i];
      if (deadline[node] != value) continue;  // raised since
      for (std::size_t i = node * neighbors.per_node; i < (node + 1) * neighbors.per_node; ++i) {
        const NodeId next = neighbors.next[i];
        if (deadline[next] < value - 1) {
          deadline[next] = value - 1;
          if (value > 1) buckets[static_cast<std::size_t>(value - 1)].push_back(next);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Stage 1: counting shortest routes (not RG paths), see the file comment.

class RouteCounter {
 public:
  static constexpr std::size_t kMaxMembers = 4;

  explicit RouteCounter(const RoutingGraph& graph)
      : graph_(graph),
        head_(graph.vertex_count(), kNone),
        head_stamp_(graph.vertex_count(), 0),
        node_level_(graph.torus().node_count(), 0),
        node_count_(graph.torus().node_count(), 0),
        node_state_(graph.torus().node_count(), kNone),
        node_stamp_(graph.torus().node_count(), 0) {}

  // Searches from `source` until every node flagged in `wanted` (wanted_count
  // of them) has been reached or nothing is left to expand.  With
  // `deadline` (from spread_deadlines), states entering a node x after
  // deadline[x] hops are not made: counts stay exact for every node whose
  // shortest routes all keep within it.
  void search(NodeId source, const std::vector<unsigned char>& wanted, std::size_t wanted_count,
              const std::vector<int>* deadline = nullptr);

  bool reached(NodeId node) const { return node_stamp_[node] == stamp_; }
  // Hops of the shortest routes to `node`, and how many there are
  // (saturating at UINT32_MAX).
  std::uint32_t length(NodeId node) const { return node_level_[node]; }
  std::uint32_t count(NodeId node) const { return node_count_[node]; }
  // The route to a node with count() == 1, as channels from the source.
  void unique_route(NodeId node, std::vector<ChannelId>& channels) const;

 private:
  struct State {
    std::array<VertexId, kMaxMembers> members{};  // sorted ascending
    std::uint32_t size = 0;
    std::uint32_t level = 0;
    std::uint32_t count = 0;
    std::uint32_t parent = kNone;  // state index
    ChannelId channel = kNoChannel;  // the hop from the parent
    std::uint32_t next_same_head = kNone;  // lookup chain by members[0]
  };
  // Index of the state with exactly these members, or kNone.
  std::uint32_t find(const State& probe) const;
  void expand(std::uint32_t index, std::uint32_t level);

  const RoutingGraph& graph_;
  std::vector<State> states_;
  std::vector<std::uint32_t> head_;        // RG vertex -> first state with members[0] == vertex
  std::vector<std::uint32_t> head_stamp_;  // head_ is valid iff == stamp_
  std::vector<std::uint32_t> node_level_, node_count_, node_state_, node_stamp_;
  std::uint32_t stamp_ = 0;
  const std::vector<int>* deadline_ = nullptr;
  std::vector<std::uint32_t> frontier_, next_;
  // Per hop direction, the targets of the expanded state's edges.
  std::array<std::array<VertexId, 4 * kMaxMembers>, kDirectionCount> bucket_{};
  std::array<std::uint32_t, kDirectionCount> bucket_size_{};
};

std::uint32_t RouteCounter::find(const State& probe) const {
  const VertexId first = probe.members[0];
  if (head_stamp_[first] != stamp_) return kNone;
  for (std::uint32_t i = head_[first]; i != kNone; i = states_[i].next_same_head) {
    const State& s = states_[i];
    if (s.size == probe.size && std::equal(s.members.begin(), s.members.begin() + s.size, probe.members.begin()))
      return i;
  }
  return kNone;
}

void RouteCounter::expand(std::uint32_t index, std::uint32_t level) {
  const std::vector<EdgeId>& offsets = graph_.offsets();
  const std::vector<VertexId>& targets = graph_.targets();
  const std::vector<ChannelId>& channels = graph_.channels();
  bucket_size_.fill(0);
  {
    const State& s = states_[index];
    for (std::uint32_t m = 0; m < s.size; ++m)
      for (EdgeId e = offsets[s.members[m]]; e < offsets[s.members[m] + 1]; ++e) {
        const ChannelId c = channels[e];
        if (c == kNoChannel) continue;  // into end: counted per node by the caller
        const int rank = Torus::channel_direction(c).rank();
        if (bucket_size_[rank] == bucket_[rank].size())
          throw std::logic_error("sssp: too many routing graph edges share one hop");
        bucket_[rank][bucket_size_[rank]++] = targets[e];
      }
  }
  const NodeId here = graph_.node_of(states_[index].members[0]);
  for (int rank = 0; rank < kDirectionCount; ++rank) {
    if (bucket_size_[rank] == 0) continue;
    // Sorted, duplicate-free members by insertion: buckets hold a handful.
    State probe;
    for (std::uint32_t i = 0; i < bucket_size_[rank]; ++i) {
      const VertexId v = bucket_[rank][i];
      std::uint32_t at = 0;
      while (at < probe.size && probe.members[at] < v) ++at;
      if (at < probe.size && probe.members[at] == v) continue;
      if (probe.size == kMaxMembers) throw std::logic_error("sssp: a hop prefix reaches too many routing graph states");
      for (std::uint32_t j = probe.size; j > at; --j) probe.members[j] = probe.members[j - 1];
      probe.members[at] = v;
      ++probe.size;
    }
    if (deadline_ != nullptr && static_cast<int>(level) > (*deadline_)[graph_.node_of(probe.members[0])]) continue;
    const std::uint32_t found = find(probe);
    const std::uint32_t count = states_[index].count;
    if (found != kNone) {
      // Reached on an earlier level: these prefixes are not shortest.
      if (states_[found].level == level) states_[found].count = saturating_add(states_[found].count, count);
      continue;
    }
    probe.level = level;
    probe.count = count;
    probe.parent = index;
    probe.channel = Torus::channel(here, Direction(rank));
    const VertexId first = probe.members[0];
    probe.next_same_head = head_stamp_[first] == stamp_ ? head_[first] : kNone;
    head_[first] = static_cast<std::uint32_t>(states_.size());
    head_stamp_[first] = stamp_;
    next_.push_back(static_cast<std::uint32_t>(states_.size()));
    states_.push_back(probe);
  }
}

void RouteCounter::search(NodeId source, const std::vector<unsigned char>& wanted, std::size_t wanted_count,
                          const std::vector<int>* deadline) {
  deadline_ = deadline;
  if (stamp_ == UINT32_MAX) {
    std::fill(head_stamp_.begin(), head_stamp_.end(), 0);
    std::fill(node_stamp_.begin(), node_stamp_.end(), 0);
    stamp_ = 0;
  }
  ++stamp_;
  states_.clear();
  State root;
  root.members[0] = graph_.begin_vertex(source);
  root.size = 1;
  root.count = 1;
  head_[root.members[0]] = 0;
  head_stamp_[root.members[0]] = stamp_;
  states_.push_back(root);
  node_stamp_[source] = stamp_;  // the source is never a destination
  node_level_[source] = 0;
  node_count_[source] = 0;
  frontier_.assign(1, 0);
  std::size_t found = 0;
  for (std::uint32_t level = 1; !frontier_.empty() && found < wanted_count; ++level) {
    next_.clear();
    for (std::uint32_t index : frontier_) expand(index, level);
    // Every live vertex has an edge to its node's end, so the routes to a
    // node are the prefixes of all states at that node on its first level.
    for (std::uint32_t index : next_) {
      const NodeId node = graph_.node_of(states_[index].members[0]);
      if (node_stamp_[node] != stamp_) {
        node_stamp_[node] = stamp_;
        node_level_[node] = level;
        node_count_[node] = 0;
        node_state_[node] = index;
        if (wanted[node]) ++found;
      }
      if (node_level_[node] == level) node_count_[node] = saturating_add(node_count_[node], states_[index].count);
    }
    frontier_.swap(next_);
  }
}

void RouteCounter::unique_route(NodeId node, std::vector<ChannelId>& channels) const {
  channels.clear();
  for (std::uint32_t i = node_state_[node]; states_[i].parent != kNone; i = states_[i].parent)
    channels.push_back(states_[i].channel);
  std::reverse(channels.begin(), channels.end());
}

// ---------------------------------------------------------------------------
// Stage 3: BUILD_SSSP (Algorithm 4), buffers reused across calls.
//
// All destinations of a group have shortest routes of the same length L, and
// the rounds of one group differ only in the weights and in which of the
// group's destinations are still open.  So the unweighted part of the search
// is done once per group: the group's shortest-path DAG (the vertices and
// edges on a shortest path from begin(src) to some destination's end), in
// breadth-first discovery order.  Each round then relaxes over that DAG
// only, vertex by vertex in discovery order, which is Algorithm 4's level by
// level relaxation restricted to the vertices that can be on a path being
// sought.
//
// The DAG itself does not depend on the weights either, so its expensive
// part is shared by all groups of a source (up to one per (turns, length)):
// a SourceBall is the breadth-first search from begin(src) pruned to the
// vertices that may still reach one of the source's pending destinations in
// time (hops + torus distance <= that destination's length), with each
// vertex's level and discovery position.  A group's DAG is then a backward
// pass from its destinations' ends through the ball along consecutive
// levels, sorted by discovery position.
//
// This gives exactly the DAG, order and tie-breaks of a breadth-first search
// run for the group alone: both prunings are 1-Lipschitz in the torus
// distance, so a pruned vertex never discovers a kept one, and each search
// keeps the full search's levels and order restricted to its vertices.

// The pruned searches of every source, stored per (source, node) so that a
// vertex is looked up among the few ball vertices of its node.
class SourceBalls {
 public:
  struct Entry {
    std::uint32_t position;  // discovery position in the source's search
    std::uint16_t local;     // RG local vertex index
    std::uint16_t level;     // hops from begin(src)
  };

  // `pending[s]` = (destination node, shortest length) of source s's pairs
  // left to stage 3.
  SourceBalls(const RoutingGraph& graph, const TorusNeighbors& neighbors, const std::vector<NodeId>& sources,
              const std::vector<std::vector<std::pair<NodeId, std::uint32_t>>>& pending);

  // The entry of vertex v in source s's ball, or nullptr.
  const Entry* find(std::size_t source, VertexId v) const {
    const std::size_t row = source * (node_count_ + 1);
    const NodeId node = v / per_node_;
    const std::uint32_t local = v % per_node_;
    const Entry* entries = balls_[source].data();
    for (std::uint32_t i = offsets_[row + node]; i < offsets_[row + node + 1]; ++i)
      if (entries[i].local == local) return &entries[i];
    return nullptr;
  }
  // The entries of source s at `node`, in discovery order.
  const Entry* at_begin(std::size_t source, NodeId node) const {
    return balls_[source].data() + offsets_[source * (node_count_ + 1) + node];
  }
  const Entry* at_end(std::size_t source, NodeId node) const {
    return balls_[source].data() + offsets_[source * (node_count_ + 1) + node + 1];
  }

 private:
  // Builds the ball of one source into the empty `out` (entries grouped by node) and
  // `offsets` (node_count + 1 of them, relative).
  void build(NodeId source, const std::vector<std::pair<NodeId, std::uint32_t>>& pending, std::vector<Entry>& out,
             std::uint32_t* offsets, std::vector<int>& deadline, std::vector<std::uint32_t>& seen,
             std::uint32_t& stamp, std::vector<VertexId>& order, std::vector<std::uint16_t>& levels,
             std::vector<std::vector<NodeId>>& buckets) const;

  const RoutingGraph& graph_;
  const TorusNeighbors& neighbors_;
  std::uint32_t per_node_;
  std::size_t node_count_;
  std::vector<std::vector<Entry>> balls_;  // per source, each allocated once at its size
  std::vector<std::uint32_t> offsets_;     // per source: node_count + 1 entry offsets
};

SourceBalls::SourceBalls(const RoutingGraph& graph, const TorusNeighbors& neighbors, const std::vector<NodeId>& sources,
                         const std::vector<std::vector<std::pair<NodeId, std::uint32_t>>>& pending)
    : graph_(graph),
      neighbors_(neighbors),
      per_node_(graph.vertices_per_node()),
      node_count_(graph.torus().node_count()),
      balls_(sources.size()),
      offsets_(sources.size() * (node_count_ + 1), 0) {
  // Per source independent, so split over the node's cores.
  run_parallel(sources.size(), [&](std::size_t, std::size_t first, std::size_t last) {
    std::vector<int> deadline;
    std::vector<std::uint32_t> seen(graph_.vertex_count(), 0);
    std::uint32_t stamp = 0;
    std::vector<VertexId> order;
    std::vector<std::uint16_t> levels;
    std::vector<std::vector<NodeId>> buckets;
    for (std::size_t s = first; s < last; ++s)
      build(sources[s], pending[s], balls_[s], &offsets_[s * (node_count_ + 1)], deadline, seen, stamp, order, levels,
            buckets);
  }, kSourcesPerThread);
}

void SourceBalls::build(NodeId source, const std::vector<std::pair<NodeId, std::uint32_t>>& pending,
                        std::vector<Entry>& out, std::uint32_t* offsets, std::vector<int>& deadline,
                        std::vector<std::uint32_t>& seen, std::uint32_t& stamp, std::vector<VertexId>& order,
                        std::vector<std::uint16_t>& levels, std::vector<std::vector<NodeId>>& buckets) const {
  std::fill(offsets, offsets + node_count_ + 1, 0u);
  if (pending.empty()) return;
  // Vertices that may still reach a pending destination in time.
  spread_deadlines(neighbors_, pending, deadline, buckets);
  int top = 0;
  for (const auto& entry : pending) top = std::max(top, static_cast<int>(entry.second));
  // Levels are stored in 16 bits: refuse before searching, not after.
  if (top > UINT16_MAX) throw std::length_error("sssp: routes longer than 65535 hops");

  // The pruned breadth-first search over the RG, ends left out.
  if (stamp == UINT32_MAX) {
    std::fill(seen.begin(), seen.end(), 0);
    stamp = 0;
  }
  ++stamp;
  const std::vector<EdgeId>& edge_offsets = graph_.offsets();
  const std::vector<VertexId>& heads = graph_.targets();
  const std::vector<ChannelId>& channels = graph_.channels();
  const VertexId root = graph_.begin_vertex(source);
  order.assign(1, root);
  levels.assign(1, 0);
  seen[root] = stamp;
  std::size_t level_begin = 0;
  for (int hops = 0; hops < top; ++hops) {
    const std::size_t level_end = order.size();
    for (std::size_t i = level_begin; i < level_end; ++i) {
      const VertexId u = order[i];
      for (EdgeId e = edge_offsets[u]; e < edge_offsets[u + 1]; ++e) {
        if (channels[e] == kNoChannel) continue;
        const VertexId v = heads[e];
        if (seen[v] == stamp || hops + 1 > deadline[v / per_node_]) continue;
        seen[v] = stamp;
        order.push_back(v);
        levels.push_back(static_cast<std::uint16_t>(hops + 1));
      }
    }
    if (level_end == order.size()) break;
    level_begin = level_end;
  }

  // Group by node (a counting sort keeps discovery order within a node).
  for (VertexId v : order) ++offsets[v / per_node_ + 1];
  for (std::size_t node = 0; node < node_count_; ++node) offsets[node + 1] += offsets[node];
  const std::size_t base = out.size();
  out.resize(base + order.size());
  std::vector<std::uint32_t> fill(offsets, offsets + node_count_);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const VertexId v = order[i];
    out[base + fill[v / per_node_]++] = {static_cast<std::uint32_t>(i), static_cast<std::uint16_t>(v % per_node_), levels[i]};
  }
}

// The RG's hop edges reversed (ends left out), shared by the DAG builders.
struct ReverseEdges {
  explicit ReverseEdges(const RoutingGraph& graph) : offsets(graph.vertex_count() + 1, 0) {
    const std::vector<EdgeId>& forward = graph.offsets();
    const std::vector<VertexId>& heads = graph.targets();
    const std::vector<ChannelId>& channels = graph.channels();
    for (EdgeId e = 0; e < graph.edge_count(); ++e)
      if (channels[e] != kNoChannel) ++offsets[heads[e] + 1];
    for (VertexId v = 0; v < graph.vertex_count(); ++v) offsets[v + 1] += offsets[v];
    tails.resize(offsets.back());
    channel.resize(offsets.back());
    std::vector<EdgeId> fill(offsets.begin(), offsets.end() - 1);
    for (VertexId u = 0; u < graph.vertex_count(); ++u)
      for (EdgeId e = forward[u]; e < forward[u + 1]; ++e)
        if (channels[e] != kNoChannel) {
          tails[fill[heads[e]]] = u;
          channel[fill[heads[e]]++] = channels[e];
        }
  }
  std::vector<EdgeId> offsets;  // v -> first incoming hop edge
  std::vector<VertexId> tails;
  std::vector<ChannelId> channel;
};

// One group's DAG, ready for BUILD_SSSP rounds: the vertices by position in
// discovery order (position 0 = begin(src)), each with its out-edges (DAG
// positions of the heads, channels); the end of the group's i-th target is
// at position first_end + i.  No two edges join the same pair of vertices
// (RG edges of one vertex lead to distinct vertices), so the order of one
// vertex's edges does not matter to the relaxation.
struct GroupDag {
  std::vector<std::uint32_t> edges_begin;  // per position, plus one
  std::vector<std::uint32_t> head;
  std::vector<ChannelId> channel;
  std::uint32_t first_end = 0;
};

class DagBuilder {
 public:
  DagBuilder(const RoutingGraph& graph, const SourceBalls& balls, const ReverseEdges& reverse)
      : graph_(graph),
        balls_(balls),
        reverse_(reverse),
        marked_(graph.vertex_count(), 0),
        position_(graph.vertex_count(), 0),
        level_of_(graph.vertex_count(), 0) {}

  // The DAG of the group: the source of allocation index `source` (node
  // `source_node`) and the nodes `targets`, whose shortest routes are all
  // `length` hops long.
  void build(std::size_t source, NodeId source_node, const std::vector<NodeId>& targets, std::uint32_t length,
             GroupDag& dag);

 private:
  struct Edge {
    VertexId tail;
    std::uint32_t head;  // DAG position
    ChannelId channel;
  };
  void mark(VertexId v, std::uint32_t level, std::uint32_t position) {
    marked_[v] = group_;
    level_of_[v] = static_cast<std::uint16_t>(level);
    by_level_[level].push_back(v);
    if (position / 64 >= in_ball_.size()) {
      in_ball_.resize(position / 64 + 1, 0);
      vertex_at_.resize(in_ball_.size() * 64);
    }
    in_ball_[position / 64] |= std::uint64_t{1} << (position % 64);
    vertex_at_[position] = v;
  }

  const RoutingGraph& graph_;
  const SourceBalls& balls_;
  const ReverseEdges& reverse_;
  std::vector<std::uint32_t> marked_;    // vertex -> group stamp when in the DAG
  std::vector<std::uint32_t> position_;  // vertex -> DAG position once assigned
  std::vector<std::uint16_t> level_of_;  // vertex -> level, valid when marked
  std::uint32_t group_ = 0;
  std::vector<std::vector<VertexId>> by_level_;
  // The DAG's vertices as bits by their position in the source's search,
  // which is level order: read in order, they are the discovery order.
  std::vector<std::uint64_t> in_ball_;
  std::vector<VertexId> vertex_at_;
  std::vector<Edge> edges_;
  std::vector<std::uint32_t> fill_;
};

void DagBuilder::build(std::size_t source, NodeId source_node, const std::vector<NodeId>& targets,
                       std::uint32_t length, GroupDag& dag) {
  const std::vector<EdgeId>& offsets = graph_.offsets();
  const std::vector<VertexId>& heads = graph_.targets();
  if (group_ == UINT32_MAX) {
    std::fill(marked_.begin(), marked_.end(), 0);
    group_ = 0;
  }
  ++group_;
  if (by_level_.size() < length + 1u) by_level_.resize(length + 1u);
  for (std::uint32_t level = 0; level <= length; ++level) by_level_[level].clear();
  edges_.clear();

  // The targets' ends, on level length + 1, are entered from their node's
  // ball vertices on level `length`: a live vertex's first edge leads to its
  // node's end.  Their DAG positions come last, in target order.
  const std::uint32_t none = UINT32_MAX;
  for (std::uint32_t i = 0; i < targets.size(); ++i) {
    const VertexId end = graph_.end_vertex(targets[i]);
    bool entered = false;
    for (const auto* entry = balls_.at_begin(source, targets[i]); entry != balls_.at_end(source, targets[i]); ++entry) {
      if (entry->level != length) continue;
      const VertexId u = graph_.begin_vertex(targets[i]) + entry->local;
      if (offsets[u] == offsets[u + 1] || heads[offsets[u]] != end) continue;
      if (marked_[u] != group_) mark(u, length, entry->position);
      edges_.push_back({u, none - 1 - i, kNoChannel});  // the end's position is fixed below
      entered = true;
    }
    if (!entered) throw std::logic_error("sssp: BUILD_SSSP lost a destination stage 1 reached");
  }
  // Backward along consecutive levels through the ball, keeping every edge
  // between consecutive levels of the DAG.
  for (std::uint32_t level = length; level > 0; --level)
    for (std::size_t i = 0; i < by_level_[level].size(); ++i) {
      const VertexId v = by_level_[level][i];
      for (EdgeId r = reverse_.offsets[v]; r < reverse_.offsets[v + 1]; ++r) {
        const VertexId u = reverse_.tails[r];
        if (marked_[u] != group_) {
          const SourceBalls::Entry* entry = balls_.find(source, u);
          if (entry == nullptr || entry->level + 1u != level) continue;
          mark(u, level - 1, entry->position);
        } else if (level_of_[u] + 1u != level) {
          continue;
        }
        edges_.push_back({u, v, reverse_.channel[r]});  // head as a vertex for now
      }
    }
  if (by_level_[0].size() != 1 || by_level_[0][0] != graph_.begin_vertex(source_node))
    throw std::logic_error("sssp: BUILD_SSSP's DAG does not start at the source");

  // DAG positions in discovery order; the bits are cleared as they are read.
  std::uint32_t count = 0;
  for (std::size_t word = 0; word < in_ball_.size(); ++word)
    for (std::uint64_t bits = in_ball_[word]; bits != 0; bits &= bits - 1)
      position_[vertex_at_[word * 64 + static_cast<std::size_t>(__builtin_ctzll(bits))]] = count++;
  std::fill(in_ball_.begin(), in_ball_.end(), 0);
  dag.first_end = count;
  const std::uint32_t total = count + static_cast<std::uint32_t>(targets.size());
  // CSR by tail position (a counting sort).
  dag.edges_begin.assign(total + 1u, 0);
  for (const Edge& e : edges_) ++dag.edges_begin[position_[e.tail] + 1u];
  for (std::uint32_t p = 0; p < total; ++p) dag.edges_begin[p + 1u] += dag.edges_begin[p];
  dag.head.resize(edges_.size());
  dag.channel.resize(edges_.size());
  std::vector<std::uint32_t>& fill = fill_;
  fill.assign(dag.edges_begin.begin(), dag.edges_begin.end() - 1);
  for (const Edge& e : edges_) {
    const std::uint32_t at = fill[position_[e.tail]]++;
    dag.head[at] = e.channel == kNoChannel ? count + (none - 1 - e.head) : position_[e.head];
    dag.channel[at] = e.channel;
  }
}

// BUILD_SSSP's relaxation over a group's DAG with the current weights.
class Relaxation {
 public:
  explicit Relaxation(const std::vector<std::uint32_t>& weights) : weights_(weights) {}

  void run(const GroupDag& dag) {
    // Discovery order is level order, so each vertex is final when reached
    // here; strict improvement keeps the first relaxation on ties.
    const std::size_t count = dag.edges_begin.size() - 1;
    distance_.assign(count, UINT64_MAX);
    parent_.resize(count);
    parent_channel_.resize(count);
    distance_[0] = 0;
    parent_[0] = kNone;
    for (std::size_t d = 0; d < count; ++d) {
      const std::uint64_t here = distance_[d];
      for (std::uint32_t e = dag.edges_begin[d]; e < dag.edges_begin[d + 1]; ++e) {
        const ChannelId channel = dag.channel[e];
        const std::uint64_t candidate = here + (channel == kNoChannel ? 0 : weights_[channel]);
        const std::uint32_t v = dag.head[e];
        if (candidate < distance_[v]) {
          distance_[v] = candidate;
          parent_[v] = static_cast<std::uint32_t>(d);
          parent_channel_[v] = channel;
        }
      }
    }
  }
  // The channels of the path run() built to the group's target of index
  // `target`, from the source on.
  void path_to(const GroupDag& dag, std::uint32_t target, std::vector<ChannelId>& channels) const {
    channels.clear();
    for (std::uint32_t d = dag.first_end + target; d != 0; d = parent_[d])
      if (parent_channel_[d] != kNoChannel) channels.push_back(parent_channel_[d]);
    std::reverse(channels.begin(), channels.end());
  }

 private:
  const std::vector<std::uint32_t>& weights_;
  std::vector<std::uint64_t> distance_;
  std::vector<std::uint32_t> parent_;
  std::vector<ChannelId> parent_channel_;
};

// ---------------------------------------------------------------------------

enum class WeightReading { applied, all };

const OptionSpec kWeightsOption{"weights", OptionSpec::Kind::word, "applied", {"applied", "all"}, 0, 0,
                                 "raise channel weights along the paths applied in a round, or along every path "
                                 "built in it (the other reading of Algorithm 3, line 16)"};

WeightReading read_weight_reading(const GeneratorOptions& options) {
  return option_text("sssp", kWeightsOption, options) == "all" ? WeightReading::all : WeightReading::applied;
}

class SsspGenerator : public Generator {
 public:
  std::string_view name() const override { return "sssp"; }
  std::vector<OptionSpec> option_specs() const override { return {kWeightsOption}; }
  // Each source's pruned search kept for stage 3 (about three routing-graph
  // vertices a node, 8 bytes each, and a node offset) and the pairs left to it.
  double peak_bytes(const MemoryContext& context, const GeneratorOptions&) const override {
    const double fixed = context.whole_intact_torus ? 48 : 56, per_hop = context.whole_intact_torus ? 1 : 4;
    return context.pairs * (fixed + per_hop * context.mean_hops) + context.channel_slots * context.layers * 16;
  }
  RouteTable generate(const Network& network, const std::vector<NodeId>& allocation,
                      const GeneratorOptions& options) const override;
};

// The route that follows `channels`.
Route route_along(const std::vector<ChannelId>& channels) {
  Route route;
  for (ChannelId c : channels) route.hops.push_back(Torus::channel_direction(c));
  return route;
}

struct PendingPair {
  std::uint32_t turns = 0, length = 0, source = 0, destination = 0;  // allocation indices
};

RouteTable SsspGenerator::generate(const Network& network, const std::vector<NodeId>& allocation,
                                   const GeneratorOptions& options) const {
  const WeightReading reading = read_weight_reading(options);
  const Torus& torus = network.torus();
  RouteTable table = start_route_table(name(), network, allocation);
  const std::vector<NodeId>& nodes = table.nodes();
  const std::size_t n = nodes.size();
  if (n < 2) return table;

  const RoutingGraph graph(network);
  const TorusNeighbors neighbors(torus);
  std::vector<Coord> coords(n);
  for (std::size_t i = 0; i < n; ++i) coords[i] = torus.coord(nodes[i]);
  // Stage 2's turns: the dimensions in which the pair differs, minus one.
  const auto turns = [&](std::size_t s, std::size_t d) {
    std::uint32_t differing = 0;
    for (int dim = 0; dim < kMaxDims; ++dim) differing += coords[s][dim] != coords[d][dim] ? 1 : 0;
    return differing - 1;
  };
  std::vector<std::uint32_t> weights(torus.channel_slots(), 0);
  std::vector<ChannelId> path;

  // Stage 1: unique routes, per source and so split over the node's cores;
  // each part keeps its own weights and pending pairs, joined in order.
  std::vector<PendingPair> pending;
  {
    struct Part {
      std::vector<std::uint32_t> weights;
      std::vector<PendingPair> pending;
    };
    std::vector<Part> parts(parallel_parts(n, kSourcesPerThread));
    run_parallel(n, [&](std::size_t part, std::size_t first, std::size_t last) {
      Part& mine = parts[part];
      mine.weights.assign(torus.channel_slots(), 0);
      RouteCounter counter(graph);
      std::vector<ChannelId> unique;
      std::vector<unsigned char> wanted(torus.node_count(), 0);
      for (NodeId node : nodes) wanted[node] = 1;
      std::vector<int> deadline;
      std::vector<std::vector<NodeId>> buckets;
      std::vector<std::pair<NodeId, std::uint32_t>> seeds;
      for (std::size_t s = first; s < last; ++s) {
        const NodeId src = nodes[s];
        wanted[src] = 0;
        // First pruned to the minimal routes (a torus distance is a lower
        // bound of the route length, and exact without faults in the way);
        // where a node is reached later or not at all, once more pruned to
        // the lengths found (upper bounds), or unpruned if one is missing.
        seeds.clear();
        for (std::size_t d = 0; d < n; ++d)
          if (d != s) seeds.emplace_back(nodes[d], static_cast<std::uint32_t>(torus.distance(src, nodes[d])));
        spread_deadlines(neighbors, seeds, deadline, buckets);
        counter.search(src, wanted, n - 1, &deadline);
        bool exact = true, all_reached = true;
        for (auto& [node, bound] : seeds) {
          if (!counter.reached(node)) {
            all_reached = exact = false;
          } else if (counter.length(node) != bound) {
            exact = false;
            bound = counter.length(node);
          }
        }
        if (!exact && all_reached) {
          spread_deadlines(neighbors, seeds, deadline, buckets);
          counter.search(src, wanted, n - 1, &deadline);
        } else if (!exact) {
          counter.search(src, wanted, n - 1);
        }
        wanted[src] = 1;
        for (std::size_t d = 0; d < n; ++d) {
          if (d == s) continue;
          const NodeId dst = nodes[d];
          if (!counter.reached(dst)) continue;  // left to the checked-turn stage
          if (counter.count(dst) == 1) {
            counter.unique_route(dst, unique);
            table.set_route(s, d, route_along(unique));
            for (ChannelId c : unique) ++mine.weights[c];
          } else {
            mine.pending.push_back({turns(s, d), counter.length(dst), static_cast<std::uint32_t>(s),
                                    static_cast<std::uint32_t>(d)});
          }
        }
      }
    }, kSourcesPerThread);
    for (Part& part : parts) {
      for (std::size_t c = 0; c < weights.size(); ++c) weights[c] += part.weights[c];
      pending.insert(pending.end(), part.pending.begin(), part.pending.end());
      part = Part{};
    }
  }

  // Stage 3's per-source searches (weight-independent), before the sort
  // while `pending` is still in source order.
  std::unique_ptr<SourceBalls> balls;
  {
    std::vector<std::vector<std::pair<NodeId, std::uint32_t>>> by_source(n);
    for (const PendingPair& pair : pending) by_source[pair.source].emplace_back(nodes[pair.destination], pair.length);
    balls = std::make_unique<SourceBalls>(graph, neighbors, nodes, by_source);
  }

  // Stage 2: sort and group.
  std::sort(pending.begin(), pending.end(), [](const PendingPair& a, const PendingPair& b) {
    if (a.turns != b.turns) return a.turns < b.turns;
    if (a.length != b.length) return a.length < b.length;
    if (a.source != b.source) return a.source < b.source;
    return a.destination < b.destination;
  });

  // Stage 3: BUILD_SSSP rounds per group.  The groups' DAGs do not depend
  // on the weights, so with a second core they are built a batch ahead by
  // a worker while this thread runs the rounds of the current batch; the
  // rounds themselves stay in the paper's order.
  struct Group {
    std::size_t first, last;  // in pending
  };
  std::vector<Group> groups;
  for (std::size_t first = 0; first < pending.size();) {
    std::size_t last = first;
    while (last < pending.size() && pending[last].turns == pending[first].turns &&
           pending[last].length == pending[first].length && pending[last].source == pending[first].source)
      ++last;
    groups.push_back({first, last});
    first = last;
  }
  const ReverseEdges reverse(graph);
  constexpr std::size_t kBatch = 128;
  const auto build_batch = [&](DagBuilder& builder, std::size_t batch, std::vector<GroupDag>& dags) {
    std::vector<NodeId> target_nodes;
    const std::size_t begin = batch * kBatch, end = std::min(groups.size(), begin + kBatch);
    for (std::size_t g = begin; g < end; ++g) {
      const PendingPair& head = pending[groups[g].first];
      target_nodes.clear();
      for (std::size_t i = groups[g].first; i < groups[g].last; ++i) target_nodes.push_back(nodes[pending[i].destination]);
      builder.build(head.source, nodes[head.source], target_nodes, head.length, dags[g - begin]);
    }
  };
  DagBuilder builder(graph, *balls, reverse);
  std::unique_ptr<DagBuilder> ahead_builder;
  const bool overlap = worker_count() > 1 && groups.size() > kBatch;
  if (overlap) ahead_builder = std::make_unique<DagBuilder>(graph, *balls, reverse);
  std::vector<GroupDag> current(kBatch), next(kBatch);
  const std::size_t batches = (groups.size() + kBatch - 1) / kBatch;
  if (batches > 0) build_batch(builder, 0, current);

  Relaxation relaxation(weights);
  std::vector<unsigned char> taken(torus.channel_slots(), 0);  // channels of this round's applied paths
  std::vector<ChannelId> round_channels;  // the channels to weigh after the round
  std::vector<std::uint32_t> open, rest;   // indices into the group's targets
  for (std::size_t batch = 0; batch < batches; ++batch) {
    std::future<void> built;
    if (overlap && batch + 1 < batches)
      built = std::async(std::launch::async, [&, batch] { build_batch(*ahead_builder, batch + 1, next); });
    const std::size_t begin = batch * kBatch, end = std::min(groups.size(), begin + kBatch);
    for (std::size_t g = begin; g < end; ++g) {
      const GroupDag& dag = current[g - begin];
      const std::size_t first = groups[g].first;
      const std::uint32_t s = pending[first].source;
      open.resize(groups[g].last - first);
      for (std::uint32_t i = 0; i < open.size(); ++i) open[i] = i;
      while (!open.empty()) {
        relaxation.run(dag);
        rest.clear();
        round_channels.clear();
        for (std::uint32_t i : open) {
          relaxation.path_to(dag, i, path);
          const bool crosses = std::any_of(path.begin(), path.end(), [&](ChannelId c) { return taken[c] != 0; });
          if (crosses) {
            rest.push_back(i);
            if (reading == WeightReading::all) round_channels.insert(round_channels.end(), path.begin(), path.end());
            continue;
          }
          for (ChannelId c : path) taken[c] = 1;
          round_channels.insert(round_channels.end(), path.begin(), path.end());
          table.set_route(s, pending[first + i].destination, route_along(path));
        }
        for (ChannelId c : round_channels) {
          ++weights[c];
          taken[c] = 0;
        }
        open.swap(rest);
      }
    }
    if (built.valid()) {
      built.get();
    } else if (batch + 1 < batches) {
      build_batch(builder, batch + 1, next);
    }
    current.swap(next);
  }
  complete_with_checked_turns(name(), network, table, options);
  return table;
}

}  // namespace

std::unique_ptr<Generator> create_sssp_generator() { return std::make_unique<SsspGenerator>(); }

ShortestRoutes count_shortest_routes(const Network& network, NodeId source, NodeId destination) {
  const RoutingGraph graph(network);
  RouteCounter counter(graph);
  std::vector<unsigned char> wanted(network.torus().node_count(), 0);
  wanted[destination] = 1;
  counter.search(source, wanted, 1);
  if (!counter.reached(destination)) return {};
  return {counter.length(destination), counter.count(destination)};
}

}  // namespace angara
