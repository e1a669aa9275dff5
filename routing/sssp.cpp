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
// the level on which the last destination of N_dst was reached.  Vertices
// whose node is too far from every destination to still reach one within
// the group's length (by torus distance, a lower bound that holds with
// faults too) are not expanded: they cannot be on any path being sought.
//
// Ties: strict improvement only, so the first relaxation in frontier order
// (discovery order, edges in RG order) wins.  Deterministic.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "routing/sssp.hpp"

#include "angara/routing_graph.hpp"
#include "routing/checked_turns.hpp"

namespace angara {

namespace {

using VertexId = RoutingGraph::VertexId;
using EdgeId = RoutingGraph::EdgeId;

constexpr std::uint32_t kNone = 0xFFFFFFFFu;

std::uint32_t saturating_add(std::uint32_t a, std::uint32_t b) { return a > UINT32_MAX - b ? UINT32_MAX : a + b; }

// Torus distances from every node to every allocated node, for the pruning
// in BUILD_SSSP (a table of nodes x allocated entries: a few hundred KiB on
// the largest machines the prologue serves), and stage 2's turns.
class Geometry {
 public:
  Geometry(const Torus& torus, const std::vector<NodeId>& allocation)
      : allocated_(allocation.size()),
        coords_(torus.node_count()),
        distance_(static_cast<std::size_t>(torus.node_count()) * allocation.size()) {
    for (NodeId node = 0; node < torus.node_count(); ++node) coords_[node] = torus.coord(node);
    for (NodeId node = 0; node < torus.node_count(); ++node)
      for (std::size_t i = 0; i < allocated_; ++i) {
        int total = 0;
        for (int dim = 0; dim < kMaxDims; ++dim) {
          const int diff = std::abs(coords_[node][dim] - coords_[allocation[i]][dim]);
          total += std::min(diff, torus.size(dim) - diff);
        }
        distance_[node * allocated_ + i] = static_cast<std::uint16_t>(total);
      }
  }
  // Torus distance from `node` to the allocated node of index `allocated`.
  std::uint32_t distance(NodeId node, std::uint32_t allocated) const { return distance_[node * allocated_ + allocated]; }
  // Dimensions with a non-zero displacement, minus one (stage 2's turns).
  std::uint32_t turns(NodeId a, NodeId b) const {
    std::uint32_t differing = 0;
    for (int dim = 0; dim < kMaxDims; ++dim) differing += coords_[a][dim] != coords_[b][dim] ? 1 : 0;
    return differing - 1;
  }

 private:
  std::size_t allocated_;
  std::vector<Coord> coords_;
  std::vector<std::uint16_t> distance_;  // node * allocated_ + allocation index
};

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
  // of them) has been reached or nothing is left to expand.
  void search(NodeId source, const std::vector<unsigned char>& wanted, std::size_t wanted_count);

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

void RouteCounter::search(NodeId source, const std::vector<unsigned char>& wanted, std::size_t wanted_count) {
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
// is done once per group: a breadth-first search from begin(src) down to
// level L + 1, then a backward pass keeps the vertices and edges that lie on
// a shortest path to some destination of the group (the group's shortest-
// path DAG, in discovery order).  Each round then relaxes over that DAG
// only, vertex by vertex in discovery order, which is Algorithm 4's level by
// level relaxation restricted to the vertices that can be on a path being
// sought.  The result is the same: a vertex that reaches a destination in
// time is only ever entered from another such vertex, so discovery order,
// parents and tie-breaks among them do not change.

class GroupSearch {
 public:
  GroupSearch(const RoutingGraph& graph, const Geometry& geometry, const std::vector<std::uint32_t>& weights)
      : graph_(graph),
        geometry_(geometry),
        weights_(weights),
        position_(graph.vertex_count(), 0),
        stamp_(graph.vertex_count(), 0),
        node_stamp_(graph.torus().node_count(), 0),
        node_deadline_(graph.torus().node_count(), 0) {}

  // Builds the DAG of the group: `source` and the allocated nodes of
  // indices `targets`, whose shortest routes are all `length` hops long.
  void start_group(NodeId source, const std::vector<std::uint32_t>& targets, std::uint32_t length);
  // BUILD_SSSP with the current weights.
  void run();
  // The channels of the path run() built to `target` (one of the group's
  // nodes), from the source on.
  void path_to(NodeId target, std::vector<ChannelId>& channels) const;

 private:
  // The most hops after which a path may still enter `node` and reach one
  // of the targets in time: length - torus distance to the nearest target.
  // The torus distance bounds the remaining hops from below, faults or not,
  // so pruning with it loses no path of the DAG; it only spares the BFS the
  // hopeless vertices.
  int deadline(NodeId node, const std::vector<std::uint32_t>& targets);

  const RoutingGraph& graph_;
  const Geometry& geometry_;
  const std::vector<std::uint32_t>& weights_;
  std::vector<std::uint32_t> position_;  // vertex -> index in order_, valid when reached
  // stamp_[v] = level stamp when v was reached; reached in this group's BFS
  // iff >= search_start_.
  std::vector<std::uint32_t> stamp_;
  std::uint32_t level_stamp_ = 0, search_start_ = 1;
  std::vector<std::uint32_t> node_stamp_;  // node_deadline_ valid iff == group_
  std::vector<int> node_deadline_;
  std::uint32_t group_ = 0;
  int length_ = 0;

  std::vector<VertexId> order_;              // BFS discovery order, level by level
  std::vector<unsigned char> useful_;        // by position: on a shortest path to a target
  // The DAG: the vertices by position in discovery order, each with its
  // out-edges (DAG positions of the heads, channels) in RG edge order.
  std::vector<VertexId> dag_vertex_;
  std::vector<std::uint32_t> dag_edges_begin_, dag_edges_end_;
  std::vector<std::uint32_t> dag_head_;
  std::vector<ChannelId> dag_channel_;
  std::vector<std::uint32_t> dag_position_;  // BFS position -> DAG position
  std::vector<std::uint64_t> distance_;      // by DAG position: summed channel weight
  std::vector<std::uint32_t> dag_parent_;    // by DAG position
  std::vector<ChannelId> dag_parent_channel_;  // channel of the edge from dag_parent_
};

int GroupSearch::deadline(NodeId node, const std::vector<std::uint32_t>& targets) {
  if (node_stamp_[node] != group_) {
    std::uint32_t nearest = UINT32_MAX;
    for (std::uint32_t target : targets) nearest = std::min(nearest, geometry_.distance(node, target));
    node_stamp_[node] = group_;
    node_deadline_[node] = length_ - static_cast<int>(nearest);
  }
  return node_deadline_[node];
}

void GroupSearch::start_group(NodeId source, const std::vector<std::uint32_t>& targets, std::uint32_t length) {
  const std::vector<EdgeId>& offsets = graph_.offsets();
  const std::vector<VertexId>& heads = graph_.targets();
  const std::vector<ChannelId>& channels = graph_.channels();
  const std::uint32_t per_node = graph_.vertices_per_node();

  if (level_stamp_ > UINT32_MAX - graph_.vertex_count() - 2u) {
    std::fill(stamp_.begin(), stamp_.end(), 0);
    level_stamp_ = 0;
  }
  if (group_ == UINT32_MAX) {
    std::fill(node_stamp_.begin(), node_stamp_.end(), 0);
    group_ = 0;
  }
  ++group_;
  length_ = static_cast<int>(length);
  search_start_ = ++level_stamp_;

  // Unweighted BFS, level by level; a level's vertices are
  // order_[level_begin .. order_.size()).  Level k = k hops; the targets'
  // ends are on level length + 1.
  const VertexId root = graph_.begin_vertex(source);
  order_.assign(1, root);
  stamp_[root] = level_stamp_;
  position_[root] = 0;
  std::size_t level_begin = 0;
  for (int hops = 0; hops <= length_; ++hops) {
    const std::size_t level_end = order_.size();
    if (level_begin == level_end) throw std::logic_error("sssp: BUILD_SSSP lost a destination stage 1 reached");
    ++level_stamp_;
    for (std::size_t i = level_begin; i < level_end; ++i) {
      const VertexId u = order_[i];
      for (EdgeId e = offsets[u]; e < offsets[u + 1]; ++e) {
        const VertexId v = heads[e];
        if (stamp_[v] >= search_start_) continue;
        const NodeId node = v / per_node;
        if (channels[e] == kNoChannel) {
          if (hops != length_ || deadline(node, targets) != length_) continue;  // a target's end
        } else if (hops + 1 > deadline(node, targets)) {
          continue;
        }
        stamp_[v] = level_stamp_;
        position_[v] = static_cast<std::uint32_t>(order_.size());
        order_.push_back(v);
      }
    }
    level_begin = level_end;
  }
  // order_[level_begin ..) are the targets' ends.
  if (order_.size() - level_begin != targets.size())
    throw std::logic_error("sssp: BUILD_SSSP lost a destination stage 1 reached");

  // Backward pass: a vertex is useful when an edge leads to a useful vertex
  // of the next level.  Every edge between reached vertices either joins
  // consecutive levels or goes back to an earlier one, so comparing stamps
  // selects the DAG edges.
  useful_.assign(order_.size(), 0);
  for (std::size_t i = level_begin; i < order_.size(); ++i) useful_[i] = 1;
  for (std::size_t i = level_begin; i-- > 0;) {
    const VertexId u = order_[i];
    const std::uint32_t next_level = stamp_[u] + 1;
    for (EdgeId e = offsets[u]; e < offsets[u + 1]; ++e) {
      const VertexId v = heads[e];
      if (stamp_[v] == next_level && useful_[position_[v]]) {
        useful_[i] = 1;
        break;
      }
    }
  }

  // The DAG in discovery order.
  dag_vertex_.clear();
  dag_position_.assign(order_.size(), kNone);
  for (std::size_t i = 0; i < order_.size(); ++i)
    if (useful_[i]) {
      dag_position_[i] = static_cast<std::uint32_t>(dag_vertex_.size());
      dag_vertex_.push_back(order_[i]);
    }
  dag_edges_begin_.assign(dag_vertex_.size(), 0);
  dag_edges_end_.assign(dag_vertex_.size(), 0);
  dag_head_.clear();
  dag_channel_.clear();
  for (std::size_t d = 0; d < dag_vertex_.size(); ++d) {
    const VertexId u = dag_vertex_[d];
    const std::uint32_t next_level = stamp_[u] + 1;
    dag_edges_begin_[d] = static_cast<std::uint32_t>(dag_head_.size());
    for (EdgeId e = offsets[u]; e < offsets[u + 1]; ++e) {
      const VertexId v = heads[e];
      if (stamp_[v] != next_level || !useful_[position_[v]]) continue;
      dag_head_.push_back(dag_position_[position_[v]]);
      dag_channel_.push_back(channels[e]);
    }
    dag_edges_end_[d] = static_cast<std::uint32_t>(dag_head_.size());
  }
  distance_.resize(dag_vertex_.size());
  dag_parent_.resize(dag_vertex_.size());
  dag_parent_channel_.resize(dag_vertex_.size());
}

void GroupSearch::run() {
  // Discovery order is level order, so each vertex is final when reached
  // here; strict improvement keeps the first relaxation on ties.
  std::fill(distance_.begin(), distance_.end(), UINT64_MAX);
  distance_[0] = 0;
  dag_parent_[0] = kNone;
  for (std::size_t d = 0; d < dag_vertex_.size(); ++d) {
    const std::uint64_t here = distance_[d];
    for (std::uint32_t e = dag_edges_begin_[d]; e < dag_edges_end_[d]; ++e) {
      const ChannelId channel = dag_channel_[e];
      const std::uint64_t candidate = here + (channel == kNoChannel ? 0 : weights_[channel]);
      const std::uint32_t v = dag_head_[e];
      if (candidate < distance_[v]) {
        distance_[v] = candidate;
        dag_parent_[v] = static_cast<std::uint32_t>(d);
        dag_parent_channel_[v] = channel;
      }
    }
  }
}

void GroupSearch::path_to(NodeId target, std::vector<ChannelId>& channels) const {
  channels.clear();
  for (std::uint32_t d = dag_position_[position_[graph_.end_vertex(target)]]; d != 0; d = dag_parent_[d])
    if (dag_parent_channel_[d] != kNoChannel) channels.push_back(dag_parent_channel_[d]);
  std::reverse(channels.begin(), channels.end());
}

// ---------------------------------------------------------------------------

enum class WeightReading { applied, all };

WeightReading read_weight_reading(const GeneratorOptions& options) {
  const auto it = options.extra.find("weights");
  if (it == options.extra.end() || it->second == "applied") return WeightReading::applied;
  if (it->second == "all") return WeightReading::all;
  throw std::invalid_argument("sssp: option 'weights' expects 'applied' or 'all', got '" + it->second + "'");
}

class SsspGenerator : public Generator {
 public:
  std::string_view name() const override { return "sssp"; }
  std::vector<std::string_view> option_keys() const override { return {"weights"}; }
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
  const Geometry geometry(torus, nodes);
  std::vector<std::uint32_t> weights(torus.channel_slots(), 0);
  std::vector<ChannelId> path;

  // Stage 1: unique routes.
  std::vector<PendingPair> pending;
  {
    RouteCounter counter(graph);
    std::vector<unsigned char> wanted(torus.node_count(), 0);
    for (NodeId node : nodes) wanted[node] = 1;
    for (std::size_t s = 0; s < n; ++s) {
      const NodeId src = nodes[s];
      wanted[src] = 0;
      counter.search(src, wanted, n - 1);
      wanted[src] = 1;
      for (std::size_t d = 0; d < n; ++d) {
        if (d == s) continue;
        const NodeId dst = nodes[d];
        if (!counter.reached(dst)) continue;  // left to the checked-turn stage
        if (counter.count(dst) == 1) {
          counter.unique_route(dst, path);
          table.set_route(s, d, route_along(path));
          for (ChannelId c : path) ++weights[c];
        } else {
          pending.push_back({geometry.turns(src, dst), counter.length(dst),
                             static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(d)});
        }
      }
    }
  }

  // Stage 2: sort and group.
  std::sort(pending.begin(), pending.end(), [](const PendingPair& a, const PendingPair& b) {
    if (a.turns != b.turns) return a.turns < b.turns;
    if (a.length != b.length) return a.length < b.length;
    if (a.source != b.source) return a.source < b.source;
    return a.destination < b.destination;
  });

  // Stage 3: BUILD_SSSP rounds per group.
  GroupSearch search(graph, geometry, weights);
  std::vector<unsigned char> taken(torus.channel_slots(), 0);  // channels of this round's applied paths
  std::vector<ChannelId> round_channels;  // the channels to weigh after the round
  std::vector<std::uint32_t> targets, rest;  // allocation indices
  for (std::size_t first = 0; first < pending.size();) {
    std::size_t last = first;
    while (last < pending.size() && pending[last].turns == pending[first].turns &&
           pending[last].length == pending[first].length && pending[last].source == pending[first].source)
      ++last;
    const std::uint32_t s = pending[first].source;
    const NodeId src = nodes[s];
    targets.clear();
    for (std::size_t i = first; i < last; ++i) targets.push_back(pending[i].destination);
    search.start_group(src, targets, pending[first].length);
    while (!targets.empty()) {
      search.run();
      rest.clear();
      round_channels.clear();
      for (std::uint32_t d : targets) {
        search.path_to(nodes[d], path);
        const bool crosses = std::any_of(path.begin(), path.end(), [&](ChannelId c) { return taken[c] != 0; });
        if (crosses) {
          rest.push_back(d);
          if (reading == WeightReading::all) round_channels.insert(round_channels.end(), path.begin(), path.end());
          continue;
        }
        for (ChannelId c : path) taken[c] = 1;
        round_channels.insert(round_channels.end(), path.begin(), path.end());
        table.set_route(s, d, route_along(path));
      }
      for (ChannelId c : round_channels) {
        ++weights[c];
        taken[c] = 0;
      }
      targets.swap(rest);
    }
    first = last;
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
