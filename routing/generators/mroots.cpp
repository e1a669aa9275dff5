// mroots: layered UpDown routing with multiple roots, D-MROOTS (Layered
// Routing in Irregular Networks, Lysne et al., section 4; its deterministic
// form of section 8.1, each pair on one layer).
//
// Section 4.1, UpDown: a root; every link's up end is the end nearer the
// root (hop distance over the live network), the lower node id on a tie; a
// legal route never takes an up hop after a down hop.  The channel
// dependencies of legal routes follow the total order (distance, id), so
// each layer is deadlock-free under any flow control.
// Section 4.2, multiple roots: one UpDown structure per layer (virtual
// channel); layer i's root is the node whose shortest distance to the roots
// already chosen is largest, the lowest id on a tie (Step 1), so that the
// hot spots around the roots are spread.  The first root is the lowest id.
// Roots are taken among the job's nodes, so that each structure is centred
// in the job and its routes stay near it.
//
// Each pair takes the shortest legal route of every layer and goes to the
// layer where it is shortest; among equally short ones, the layer whose
// route crosses the channels least loaded by the pairs routed so far, then
// the lowest layer.  Under `rules: angara` the search runs in the Angara
// routing graph (ANSU paper, section 3) times the up/down phase, so every
// route is encodable ([FS] DOR+direction-bit [LS]); under `rules: general`
// over the live channels.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "angara/routing_graph.hpp"
#include "routing/common/layering.hpp"
#include "routing/common/shortest_paths.hpp"
#include "routing/generator.hpp"

namespace angara {

namespace {

constexpr std::uint32_t kUnreached = std::numeric_limits<std::uint32_t>::max();
// States times sources times layers searched at most: beyond, the search
// would take minutes, and the job is refused with that reason.
constexpr double kMaxSearchWork = 4e9;

// Section 4.2, Step 1: the roots of `layers` layers among the allocation.
std::vector<NodeId> choose_roots(const Network& network, const std::vector<NodeId>& allocation, int layers) {
  std::vector<NodeId> roots{allocation.front()};
  std::vector<int> nearest = hop_distances_to(network, roots.front());  // to the nearest root
  while (static_cast<int>(roots.size()) < layers) {
    NodeId best = allocation.front();
    int best_distance = -1;
    for (NodeId node : allocation)
      if (nearest[node] > best_distance) {
        best_distance = nearest[node];
        best = node;
      }
    roots.push_back(best);  // when every node is a root already, roots repeat
    const std::vector<int> from_new = hop_distances_to(network, best);
    for (NodeId node = 0; node < nearest.size(); ++node)
      if (from_new[node] >= 0 && (nearest[node] < 0 || from_new[node] < nearest[node])) nearest[node] = from_new[node];
  }
  return roots;
}

// One layer's UpDown structure: a channel is up when it leads to a node of
// lower (distance to the root, id).
class UpDown {
 public:
  UpDown(const Network& network, NodeId root) : torus_(network.torus()), distance_(hop_distances_to(network, root)) {}
  bool up(ChannelId c) const {
    const NodeId from = Torus::channel_node(c);
    const NodeId to = torus_.neighbor(from, Torus::channel_direction(c));
    return rank(to) < rank(from);
  }

 private:
  std::pair<int, NodeId> rank(NodeId node) const { return {distance_[node], node}; }
  const Torus& torus_;
  std::vector<int> distance_;
};

// The shortest legal routes of one layer from one source to every node: a
// breadth-first search over (vertex, phase) where phase 1 means a down hop
// was taken.  Vertices are routing-graph vertices under the Angara rules and
// nodes under the general ones.
class LegalSearch {
 public:
  LegalSearch(const Network& network, const RoutingGraph* graph) : network_(network), graph_(graph) {
    vertices_ = graph ? graph->vertex_count() : network.torus().node_count();
    parent_.assign(2 * static_cast<std::size_t>(vertices_), kUnreached);
    via_.assign(parent_.size(), kNoChannel);
  }
  std::size_t states() const { return 2 * static_cast<std::size_t>(vertices_); }

  void run(const UpDown& layer, NodeId source) {
    std::fill(parent_.begin(), parent_.end(), kUnreached);
    queue_.clear();
    const std::uint32_t start = graph_ ? graph_->begin_vertex(source) : source;
    parent_[start] = start;  // the root is its own parent
    queue_.push_back(start);
    const Torus& torus = network_.torus();
    for (std::size_t i = 0; i < queue_.size(); ++i) {
      const std::uint32_t state = queue_[i];
      const std::uint32_t vertex = state % vertices_;
      const bool down = state >= vertices_;
      const auto visit = [&](std::uint32_t next_vertex, ChannelId c) {
        bool next_down = down;
        if (c != kNoChannel) {
          if (layer.up(c)) {
            if (down) return;  // up after down: not legal (section 4.1)
          } else {
            next_down = true;
          }
        }
        const std::uint32_t next = next_vertex + (next_down ? vertices_ : 0);
        if (parent_[next] != kUnreached) return;
        parent_[next] = state;
        via_[next] = c;
        queue_.push_back(next);
      };
      if (graph_) {
        for (RoutingGraph::EdgeId e = graph_->edges_begin(vertex); e < graph_->edges_end(vertex); ++e)
          visit(graph_->edge_target(e), graph_->edge_channel(e));
      } else {
        for (int rank = 0; rank < kDirectionCount; ++rank) {
          const Direction d(rank);
          if (!torus.direction_present(d) || !network_.channel_alive(vertex, d)) continue;
          const NodeId next = torus.neighbor(vertex, d);
          if (network_.node_alive(next)) visit(next, Torus::channel(vertex, d));
        }
      }
    }
  }

  // The channels of the route to `destination` (empty when none), the
  // nearer of the two phases' (phase 0 first on a tie).
  bool route_to(NodeId destination, std::vector<ChannelId>& channels) const {
    channels.clear();
    const std::uint32_t target = graph_ ? graph_->end_vertex(destination) : destination;
    std::uint32_t state = kUnreached;
    std::size_t best = std::numeric_limits<std::size_t>::max();
    for (std::uint32_t phase = 0; phase < 2; ++phase) {
      const std::uint32_t candidate = target + phase * vertices_;
      if (parent_[candidate] == kUnreached) continue;
      const std::size_t length = depth(candidate);
      if (length < best) {
        best = length;
        state = candidate;
      }
    }
    if (state == kUnreached) return false;
    for (; parent_[state] != state; state = parent_[state])
      if (via_[state] != kNoChannel) channels.push_back(via_[state]);
    std::reverse(channels.begin(), channels.end());
    return true;
  }

 private:
  std::size_t depth(std::uint32_t state) const {
    std::size_t length = 0;
    while (parent_[state] != state) {
      state = parent_[state];
      ++length;
    }
    return length;
  }

  const Network& network_;
  const RoutingGraph* graph_;
  std::uint32_t vertices_ = 0;
  std::vector<std::uint32_t> parent_;
  std::vector<ChannelId> via_;  // the channel crossed into a state (kNoChannel: none)
  std::vector<std::uint32_t> queue_;
};

class MrootsGenerator final : public Generator {
 public:
  std::string_view name() const override { return "mroots"; }
  double peak_bytes(const MemoryContext& context, const GeneratorOptions&) const override {
    // The routing graph (about 90 vertices and 400 edges a node in 4D, 12
    // bytes an edge), the search's two phases, and every pair's route.
    return context.live_nodes * 90.0 * (12 * 4.5 + 2 * 8) + context.pairs * (48 + 4 * context.mean_hops);
  }
  RouteTable generate(const Network& network, const std::vector<NodeId>& allocation,
                      const GeneratorOptions& options) const override {
    RouteTable table = start_route_table(name(), network, allocation);
    const std::vector<NodeId>& nodes = table.nodes();
    const std::size_t n = nodes.size();
    const Torus& torus = network.torus();
    const int layers = std::max(1, options.virtual_channels);
    if (n < 2) return table;
    std::unique_ptr<RoutingGraph> graph;
    if (options.rules == RuleSet::angara) graph = std::make_unique<RoutingGraph>(network);
    LegalSearch search(network, graph.get());
    const double work = static_cast<double>(search.states()) * static_cast<double>(n) * layers;
    if (work > kMaxSearchWork)
      throw RoutingError("mroots: searching " + std::to_string(n) + " sources' up*/down* routes on " +
                         std::to_string(layers) + " layers of the " + torus.to_string() +
                         " machine would visit " + std::to_string(static_cast<long long>(work)) +
                         " states, more than its limit of " + std::to_string(static_cast<long long>(kMaxSearchWork)));
    const std::vector<NodeId> roots = choose_roots(network, nodes, layers);
    std::vector<UpDown> structures;
    structures.reserve(roots.size());
    for (NodeId root : roots) structures.emplace_back(network, root);

    PathSet paths(nodes);
    std::vector<std::uint8_t> layer_of(n * n, 0);
    std::vector<std::uint64_t> weight(torus.channel_slots(), 0);
    std::vector<std::vector<ChannelId>> best(n), candidate;
    std::vector<int> best_layer(n, -1);
    std::vector<std::uint64_t> best_weight(n, 0);
    std::vector<NodePair> unrouted;
    std::vector<ChannelId> route;
    for (std::size_t s = 0; s < n; ++s) {
      std::fill(best_layer.begin(), best_layer.end(), -1);
      for (int l = 0; l < layers; ++l) {
        search.run(structures[static_cast<std::size_t>(l)], nodes[s]);
        for (std::size_t d = 0; d < n; ++d) {
          if (d == s || !search.route_to(nodes[d], route)) continue;
          std::uint64_t load = 0;
          for (ChannelId c : route) load += weight[c];
          if (best_layer[d] < 0 || route.size() < best[d].size() ||
              (route.size() == best[d].size() && load < best_weight[d])) {
            best[d] = route;
            best_layer[d] = l;
            best_weight[d] = load;
          }
        }
      }
      for (std::size_t d = 0; d < n; ++d) {
        if (d == s) {
          paths.append({});
          continue;
        }
        if (best_layer[d] < 0) {
          unrouted.emplace_back(nodes[s], nodes[d]);
          paths.append({});
          continue;
        }
        for (ChannelId c : best[d]) ++weight[c];
        layer_of[s * n + d] = static_cast<std::uint8_t>(best_layer[d]);
        paths.append(best[d]);
      }
    }
    if (!unrouted.empty() && layers < kMaxLayers &&
        static_cast<double>(search.states()) * static_cast<double>(n) * kMaxLayers <= kMaxSearchWork) {
      // How many layers would route them: Step 1 goes on choosing roots (the
      // first `layers` are the same), each new layer searched from the
      // sources of the pairs still left.
      const std::vector<NodeId> more_roots = choose_roots(network, nodes, kMaxLayers);
      std::vector<NodePair> left = unrouted;
      for (int extra = layers; extra < kMaxLayers && !left.empty(); ++extra) {
        const UpDown structure(network, more_roots[static_cast<std::size_t>(extra)]);
        std::vector<NodePair> still;
        for (std::size_t i = 0; i < left.size();) {
          const NodeId source = left[i].first;
          search.run(structure, source);
          for (; i < left.size() && left[i].first == source; ++i)
            if (!search.route_to(left[i].second, route)) still.push_back(left[i]);
        }
        left.swap(still);
        if (left.empty()) too_many_layers(name(), extra + 1, layers, false);
      }
    }
    if (!unrouted.empty()) {
      const std::string what = options.rules == RuleSet::angara ? "Angara-encodable up*/down* route" : "up*/down* route";
      throw RoutingError("mroots: no " + what + " from " + torus.format_coord(unrouted.front().first) + " to " +
                             torus.format_coord(unrouted.front().second) + " in any of its " + std::to_string(layers) +
                             " layer(s)" + (unrouted.size() > 1 ? " (and " + std::to_string(unrouted.size() - 1) + " more pairs)" : "") +
                             "; more virtual channels give more roots",
                         unrouted, "mroots: no " + what + " in any layer");
    }
    RouteTable result = paths.make_table(layer_of, std::string(name()));
    result.rules = options.rules;
    result.flow_control = options.flow_control;
    return result;
  }
};

}  // namespace

// For the tests: the roots D-MROOTS gives `layers` layers of `allocation`
// (section 4.2, Step 1), and whether channel `c` is up in the UpDown
// structure of `root` (section 4.1).
std::vector<NodeId> mroots_roots(const Network& network, const std::vector<NodeId>& allocation, int layers) {
  std::vector<NodeId> sorted = allocation;
  std::sort(sorted.begin(), sorted.end());
  return choose_roots(network, sorted, layers);
}
bool mroots_up_channel(const Network& network, NodeId root, ChannelId c) { return UpDown(network, root).up(c); }

std::unique_ptr<Generator> create_mroots_generator() { return std::make_unique<MrootsGenerator>(); }

}  // namespace angara
