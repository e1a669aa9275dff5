// BFS routing table generator (ANSU paper, section 4.1, Algorithms 1 and 2).
//
// For each source, a breadth-first search from begin(source) in the routing
// graph builds a tree; the routes are read back from the end vertices of the
// other allocated nodes, and every channel on a route gains weight 1.  Later
// searches prefer light channels, which balances the load.  Sources are taken
// in GET_MAX_REMOTE order: the next source is the unprocessed node farthest
// from the previous one.
//
// Reading of "ascending vertex sort in Q by outgoing edge weights" used here
// (first parent wins, in the order of that sort): a vertex v of the next level
// takes as parent the frontier vertex u whose edge (u, v) has the smallest key
//   (weight of the channel of (u, v), weight of the channel u was entered by),
// ties going to the earlier u in the frontier (discovery order), then to the
// earlier edge of u.  This equals expanding the frontier's edges in a stable
// ascending sort by that key and letting the first one win, without sorting.
// The second key component matters for the channel-less edges into end: of
// the vertices at the destination reached with the same hop count, the one
// entered over the lighter channel finishes the route.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "angara/routing_graph.hpp"
#include "routing/common/checked_turns.hpp"
#include "routing/generator.hpp"

namespace angara {

namespace {

using VertexId = RoutingGraph::VertexId;

class BfsGenerator : public Generator {
 public:
  std::string_view name() const override { return "bfs"; }
  // One search state a pair on a whole fault-free torus, more elsewhere.
  double peak_bytes(const MemoryContext& context, const GeneratorOptions&) const override {
    const double fixed = context.whole_intact_torus ? 4 : 16, per_hop = context.whole_intact_torus ? 1 : 4;
    return context.pairs * (fixed + per_hop * context.mean_hops) + context.channel_slots * context.layers * 16;
  }
  RouteTable generate(const Network& network, const std::vector<NodeId>& allocation,
                      const GeneratorOptions& options) const override;
};

// The search state, allocated once per table and reused for every source.
class BfsSearch {
 public:
  BfsSearch(const RoutingGraph& graph, const std::vector<std::uint32_t>& weights)
      : graph_(graph),
        weights_(weights),
        parent_(graph.vertex_count(), RoutingGraph::kNoVertex),
        entry_channel_(graph.vertex_count(), kNoChannel),
        best_key_(graph.vertex_count(), 0),
        stamp_(graph.vertex_count(), 0) {}

  // BUILD_BFS_ROUTES, tree part: searches level by level from begin(source)
  // until the end vertices of `wanted_count` nodes flagged in `wanted_node` have been
  // reached or the graph is exhausted.
  void search(NodeId source, const std::vector<unsigned char>& wanted_node, std::size_t wanted_count);

  bool reached(VertexId v) const { return stamp_[v] >= search_start_; }
  VertexId parent(VertexId v) const { return parent_[v]; }
  ChannelId entry_channel(VertexId v) const { return entry_channel_[v]; }

 private:
  // Stamps grow by one per level; a search has at most vertex_count() + 1
  // levels, so the wrap-around reset can only be needed between searches.
  void start_stamps() {
    if (stamp_counter_ > UINT32_MAX - graph_.vertex_count() - 2u) {
      std::fill(stamp_.begin(), stamp_.end(), 0);
      stamp_counter_ = 0;
    }
    search_start_ = ++stamp_counter_;
  }

  const RoutingGraph& graph_;
  const std::vector<std::uint32_t>& weights_;
  std::vector<VertexId> parent_;
  std::vector<ChannelId> entry_channel_;  // channel of the tree edge into v
  std::vector<std::uint64_t> best_key_;
  // stamp_[v] = level stamp at which v was reached; v belongs to the current
  // search iff stamp_[v] >= search_start_, to the level being built iff
  // stamp_[v] == stamp_counter_.
  std::vector<std::uint32_t> stamp_;
  std::uint32_t stamp_counter_ = 0;
  std::uint32_t search_start_ = 1;
  std::vector<VertexId> frontier_, next_;
};

void BfsSearch::search(NodeId source, const std::vector<unsigned char>& wanted_node, std::size_t wanted_count) {
  const std::vector<RoutingGraph::EdgeId>& offsets = graph_.offsets();
  const std::vector<VertexId>& targets = graph_.targets();
  const std::vector<ChannelId>& channels = graph_.channels();
  const std::uint32_t per_node = graph_.vertices_per_node();

  start_stamps();
  const VertexId root = graph_.begin_vertex(source);
  stamp_[root] = stamp_counter_;
  parent_[root] = RoutingGraph::kNoVertex;
  entry_channel_[root] = kNoChannel;
  frontier_.assign(1, root);
  std::size_t found = 0;

  while (!frontier_.empty() && found < wanted_count) {
    const std::uint32_t level = ++stamp_counter_;
    next_.clear();
    for (VertexId u : frontier_) {
      const ChannelId in = entry_channel_[u];
      const std::uint64_t in_weight = in == kNoChannel ? 0 : weights_[in];
      for (RoutingGraph::EdgeId e = offsets[u]; e < offsets[u + 1]; ++e) {
        const VertexId v = targets[e];
        const std::uint32_t seen = stamp_[v];
        if (seen >= search_start_ && seen != level) continue;  // settled on an earlier level
        const ChannelId channel = channels[e];
        const std::uint64_t key =
            (static_cast<std::uint64_t>(channel == kNoChannel ? 0 : weights_[channel]) << 32) | in_weight;
        if (seen != level) {
          stamp_[v] = level;
          next_.push_back(v);
          if (v % per_node == per_node - 1 && wanted_node[v / per_node]) ++found;
        } else if (key >= best_key_[v]) {
          continue;
        }
        parent_[v] = u;
        entry_channel_[v] = channel;
        best_key_[v] = key;
      }
    }
    frontier_.swap(next_);
  }
}

RouteTable BfsGenerator::generate(const Network& network, const std::vector<NodeId>& allocation,
                                  const GeneratorOptions& options) const {
  const Torus& torus = network.torus();
  RouteTable table = start_route_table(name(), network, allocation);
  const std::vector<NodeId>& nodes = table.nodes();
  if (nodes.size() < 2) return table;

  const RoutingGraph graph(network);
  std::vector<std::uint32_t> weights(torus.channel_slots(), 0);
  BfsSearch bfs(graph, weights);

  std::vector<unsigned char> wanted(torus.node_count(), 0);
  for (NodeId node : nodes) wanted[node] = 1;
  std::vector<unsigned char> processed(nodes.size(), 0);
  std::vector<std::size_t> last_lengths(nodes.size(), 0);
  std::vector<ChannelId> path_channels;

  // BUILD_RT_BFS: the first source is the lowest allocated NodeId.
  std::size_t source = 0;
  for (std::size_t round = 0; round < nodes.size(); ++round) {
    const NodeId src = nodes[source];
    wanted[src] = 0;
    bfs.search(src, wanted, nodes.size() - 1);
    wanted[src] = 1;

    // BUILD_BFS_ROUTES, read-back part: every route, then every weight.
    for (std::size_t dst = 0; dst < nodes.size(); ++dst) {
      if (dst == source) continue;
      const VertexId end = graph.end_vertex(nodes[dst]);
      if (!bfs.reached(end)) {  // left to the checked-turn stage below
        last_lengths[dst] = 0;
        continue;
      }
      std::vector<Direction> hops;
      for (VertexId v = bfs.parent(end); v != graph.begin_vertex(src); v = bfs.parent(v)) {
        const ChannelId channel = bfs.entry_channel(v);
        hops.push_back(Torus::channel_direction(channel));
        path_channels.push_back(channel);
      }
      std::reverse(hops.begin(), hops.end());
      last_lengths[dst] = hops.size();
      table.set_route(source, dst, Route{std::move(hops)});
    }
    for (ChannelId channel : path_channels) ++weights[channel];
    path_channels.clear();
    processed[source] = 1;

    // GET_MAX_REMOTE: the unprocessed node with the longest route from this
    // source (the routing-graph distance, so faults count), ties to the
    // lowest NodeId.
    std::size_t next = nodes.size();
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (processed[i]) continue;
      if (next == nodes.size() || last_lengths[i] > last_lengths[next]) next = i;
    }
    source = next;
  }
  complete_with_checked_turns(name(), network, table, options);
  return table;
}

}  // namespace

std::unique_ptr<Generator> create_bfs_generator() { return std::make_unique<BfsGenerator>(); }

}  // namespace angara
