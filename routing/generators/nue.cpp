// Nue routing (J. Domke, T. Hoefler, S. Matsuoka, "Routing on the Dependency
// Graph: A New Approach to Deadlock-Free High-Performance Routing", HPDC'16):
// routes are searched in the complete channel dependency graph, and a
// dependency is only used when it keeps the virtual channel's CDG free of
// forbidden cycles, so deadlock freedom holds by construction with any number
// of virtual channels, including one.
//
// What is implemented, by paper section:
// - 4.1 complete CDG: every pair of consecutive live channels (no U-turn) is a
//   candidate dependency; the "used" state is the layer's
//   IncrementalDependencyGraph (routing/common/dependency_graph.hpp), "blocked" is a
//   per-layer cache of dependencies found to close a forbidden cycle.  The
//   cycle rule is doc/model.md's ("Deadlock rule"): under bubble
//   flow control only cycles with a turn are forbidden, so one-direction ring
//   cycles cost neither detours nor virtual channels; under none every cycle is.
// - 4.4 Dijkstra within the complete CDG, destination by destination,
//   backwards from the destination; a candidate is taken only if its
//   dependency is admissible (Algorithm 1, line 15), else the next best
//   candidate of that vertex is (the stack of alternatives of 4.6.2).
// - 4.5 Algorithm 2: destinations partitioned into k virtual layers with METIS
//   (multilevel k-way), channel weights updated after every destination.
// - 4.2/4.3 escape paths (rules general): a spanning tree rooted at the most
//   central node (Brandes' betweenness) of the convex subgraph H_i of the
//   layer's destinations; a METIS part is usually not convex, H_i is the
//   paper's answer to that (Definition 8), and for k = 1 H_1 is the network.
//   The tree's dependencies towards the layer's destinations are used from
//   the start, so the tree routes always remain available.
// - 4.6.2 impasses (rules general): local backtracking (a neighbour of the
//   island node switches to another settled neighbour when all its local
//   dependencies allow it; 4.6.3), then the escape paths for the destination.
//
// Project-specific readings:
// - Routes are source routes here.  The search settles one out channel per
//   vertex (destination-based within the search) and only the routes of the
//   allocated sources are committed to the CDG, each dependency checked again
//   (try-add); a dependency that fails there is blocked and the destination
//   searched again, so no phantom dependency of an unused vertex stays.
// - rules angara: the search vertices are the ANSU routing graph's states
//   (paper ANSU, section 3.1: begin, FS_j, dirbit_k, LS_j per node), each
//   entered over one channel, with every First Step and Last Step turn a
//   candidate (not only the statically augmented ones): every route is
//   Angara-encodable and the acyclicity check is on channel dependencies.
//   Escape paths are spanning-tree routes, which are not encodable, so an
//   impasse is resolved by routing that destination first in its layer again.
// - Path cost: hops first, then (angara) First/Last Steps, then the channel
//   weights (the load so far): routes stay minimal unless the CDG forbids it,
//   as the DFSSSP weight initialisation (|N|^2) intends.
#include <metis.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "angara/routing_graph.hpp"
#include "routing/common/dependency_graph.hpp"
#include "routing/generator.hpp"
#include "routing/common/oracle.hpp"

namespace angara {

namespace {

using Cost = std::uint64_t;
constexpr Cost kHopCost = Cost{1} << 56;          // one hop outweighs any load sum
constexpr Cost kSpecialStepCost = Cost{1} << 55;  // a First/Last Step or a turn against the order
constexpr Cost kLoadCap = Cost{1} << 14;          // load^4 / 256 <= 2^48: 100 hops stay below 2^55
constexpr Cost kInfinity = ~Cost{0};
constexpr std::uint32_t kNone = 0xFFFFFFFFu;

// ---- search states (ANSU routing graph, section 3.1) ---------------------

struct LocalState {
  enum class Kind : std::uint8_t { begin, first_step, dirbit, last_step } kind = Kind::begin;
  Direction in;            // direction of the hop that entered the state
  std::uint8_t mask = 0;   // dirbit: the directions used by the middle
};

struct Predecessor {
  std::uint32_t state;
  bool special_step;  // the hop into the successor is a First or Last Step
};

// The per-node states of a search.  rules general: one state per node.
// rules angara: begin, FS_d for positive d, dirbit M for each set of
// directions with at most one sign per dimension, LS_d for negative d.
class StateSpace {
 public:
  StateSpace(const Torus& torus, RuleSet rules) {
    states_.push_back(LocalState{});
    if (rules == RuleSet::general) return;
    std::fill(dirbit_index_.begin(), dirbit_index_.end(), kNone);
    for (int rank = 0; rank < kDirectionCount; ++rank) {
      const Direction d(rank);
      if (!torus.direction_present(d)) continue;
      if (d.positive()) states_.push_back(LocalState{LocalState::Kind::first_step, d, 0});
      else states_.push_back(LocalState{LocalState::Kind::last_step, d, 0});
      (d.positive() ? first_step_ : last_step_)[d.dim()] = static_cast<std::uint32_t>(states_.size() - 1);
    }
    for (unsigned mask = 1; mask < 256; ++mask) {
      bool legal = true;
      int last = -1;
      for (int rank = 0; rank < kDirectionCount; ++rank) {
        if (!((mask >> rank) & 1u)) continue;
        const Direction d(rank);
        if (!torus.direction_present(d) || ((mask >> d.opposite().rank()) & 1u)) legal = false;
        last = rank;
      }
      if (!legal) continue;
      dirbit_index_[mask] = static_cast<std::uint32_t>(states_.size());
      states_.push_back(LocalState{LocalState::Kind::dirbit, Direction(last), static_cast<std::uint8_t>(mask)});
    }
    angara_ = true;
  }

  std::uint32_t per_node() const { return static_cast<std::uint32_t>(states_.size()); }
  const LocalState& state(std::uint32_t local) const { return states_[local]; }
  // Can a route end in this state?  Every state but begin (general: the node).
  bool can_end(std::uint32_t local) const { return !angara_ || local != 0; }

  // The states p of the previous node from which a hop `hop` leads into
  // state `w` (section 3.1's edge list, with every FS/LS turn allowed).
  void predecessors(std::uint32_t w, Direction hop, std::vector<Predecessor>& out) const {
    out.clear();
    if (!angara_) {
      out.push_back({0, false});
      return;
    }
    const LocalState& s = states_[w];
    if (s.kind == LocalState::Kind::begin || s.in != hop) return;
    const std::uint8_t bit = direction_bit(hop);
    switch (s.kind) {
      case LocalState::Kind::first_step:
        out.push_back({0, true});
        break;
      case LocalState::Kind::dirbit:
        if (s.mask == bit) {
          out.push_back({0, false});
          // First Step then the middle: any positive FS but a U-turn.
          for (int dim = 0; dim < kMaxDims; ++dim)
            if (first_step_[dim] != kNone && dim != hop.dim()) out.push_back({first_step_[dim], false});
        } else {
          out.push_back({dirbit_index_[s.mask & ~bit], false});
        }
        out.push_back({w, false});  // the same direction once more
        break;
      case LocalState::Kind::last_step:
        // A Last Step after any middle but a U-turn.
        for (std::uint32_t p = 0; p < states_.size(); ++p)
          if (states_[p].kind == LocalState::Kind::dirbit && states_[p].in != hop.opposite()) out.push_back({p, true});
        break;
      case LocalState::Kind::begin:
        break;
    }
  }

 private:
  std::vector<LocalState> states_;
  std::array<std::uint32_t, 256> dirbit_index_{};
  std::array<std::uint32_t, kMaxDims> first_step_{kNone, kNone, kNone, kNone};
  std::array<std::uint32_t, kMaxDims> last_step_{kNone, kNone, kNone, kNone};
  bool angara_ = false;
};

// ---- one virtual layer's complete CDG -------------------------------------

// The "used" dependencies (the graph) and the "blocked" ones (a cache, valid
// while no dependency is removed: adding can only close more cycles).
class LayerCdg {
 public:
  LayerCdg(const Torus& torus, FlowControl flow)
      : graph_(torus, flow), blocked_(static_cast<std::size_t>(torus.channel_slots()) * kDirectionCount, 0) {}

  IncrementalDependencyGraph& graph() { return graph_; }

  // Algorithm 3: may from -> to be used?
  bool admissible(ChannelId from, ChannelId to) {
    if (graph_.has_edge(from, to)) return true;  // condition (b): used already
    std::uint32_t& mark = blocked_[slot(from, to)];
    if (mark == epoch_) return false;  // condition (a): known to be blocked
    if (!graph_.closes_cycle(from, to)) return true;
    mark = epoch_;
    return false;
  }
  // Adds a route's dependencies one by one; on a forbidden cycle removes
  // what it added and returns the index k of the channel whose dependency
  // (k-1 -> k) failed, else 0.
  std::size_t try_add(const std::vector<ChannelId>& channels) {
    for (std::size_t k = 1; k < channels.size(); ++k) {
      if (!admissible(channels[k - 1], channels[k])) {
        graph_.remove_path(std::vector<ChannelId>(channels.begin(), channels.begin() + static_cast<long>(k)));
        forget_blocked();
        return k;
      }
      graph_.add_path({channels[k - 1], channels[k]});
    }
    return 0;
  }
  void remove(const std::vector<ChannelId>& channels) {
    graph_.remove_path(channels);
    forget_blocked();
  }

 private:
  static std::size_t slot(ChannelId from, ChannelId to) {
    return static_cast<std::size_t>(from) * kDirectionCount + static_cast<std::size_t>(Torus::channel_direction(to).rank());
  }
  void forget_blocked() { ++epoch_; }

  IncrementalDependencyGraph graph_;
  std::vector<std::uint32_t> blocked_;
  std::uint32_t epoch_ = 1;
};

// ---- partitioning (section 4.5) -------------------------------------------

// The virtual layer of each allocated node as a destination: METIS k-way
// partition of the live network (one vertex per live node, weight 1 for
// allocated nodes, edge weights = parallel cables), destinations taking their
// node's part.
std::vector<int> partition_destinations(const Network& network, const std::vector<NodeId>& nodes, int layers) {
  std::vector<int> layer(nodes.size(), 0);
  if (layers <= 1 || nodes.size() <= 1) return layer;
  if (static_cast<std::size_t>(layers) >= nodes.size()) {
    for (std::size_t i = 0; i < nodes.size(); ++i) layer[i] = static_cast<int>(i);
    return layer;
  }
  const Torus& torus = network.torus();
  std::vector<idx_t> xadj{0}, adjncy, adjwgt, vwgt(torus.node_count(), 0);
  for (NodeId node : nodes) vwgt[node] = 1;
  for (NodeId node = 0; node < torus.node_count(); ++node) {
    std::array<std::pair<NodeId, idx_t>, kDirectionCount> around{};
    std::size_t count = 0;
    for (int rank = 0; rank < kDirectionCount; ++rank) {
      if (!network.channel_alive(node, Direction(rank))) continue;
      const NodeId next = torus.neighbor(node, Direction(rank));
      std::size_t k = 0;
      while (k < count && around[k].first != next) ++k;
      if (k == count) around[count++] = {next, 0};
      ++around[k].second;
    }
    for (std::size_t k = 0; k < count; ++k) {
      adjncy.push_back(static_cast<idx_t>(around[k].first));
      adjwgt.push_back(around[k].second);
    }
    xadj.push_back(static_cast<idx_t>(adjncy.size()));
  }
  idx_t vertices = static_cast<idx_t>(torus.node_count()), constraints = 1, parts = layers, cut = 0;
  std::vector<idx_t> part(torus.node_count(), 0);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;  // deterministic
  options[METIS_OPTION_NUMBERING] = 0;
  const int status = METIS_PartGraphKway(&vertices, &constraints, xadj.data(), adjncy.data(), vwgt.data(), nullptr,
                                         adjwgt.data(), &parts, nullptr, nullptr, options, &cut, part.data());
  if (status != METIS_OK) {
    // METIS refused (e.g. out of memory): contiguous blocks of destinations.
    for (std::size_t i = 0; i < nodes.size(); ++i) layer[i] = static_cast<int>(i * layers / nodes.size());
    return layer;
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) layer[i] = static_cast<int>(part[nodes[i]]);
  return layer;
}

// ---- the generator ---------------------------------------------------------

class NueGenerator : public Generator {
 public:
  std::string_view name() const override { return "nue"; }
  double peak_bytes(const MemoryContext& context, const GeneratorOptions&) const override {
    return context.pairs * (40 + 10 * context.mean_hops) + context.channel_slots * context.layers * 16;
  }
  RouteTable generate(const Network& network, const std::vector<NodeId>& allocation,
                      const GeneratorOptions& options) const override;
};

// One heap entry: settle `vertex` by leaving over `channel` towards `next`.
struct Candidate {
  Cost cost;
  std::uint32_t vertex;
  ChannelId channel;
  std::uint32_t next;
  bool operator>(const Candidate& o) const {
    if (cost != o.cost) return cost > o.cost;
    if (vertex != o.vertex) return vertex > o.vertex;
    if (channel != o.channel) return channel > o.channel;
    return next > o.next;
  }
};

class NueRouter {
 public:
  NueRouter(const Network& network, const std::vector<NodeId>& nodes, const GeneratorOptions& options)
      : network_(network),
        torus_(network.torus()),
        nodes_(nodes),
        options_(options),
        states_(torus_, options.rules),
        per_node_(states_.per_node()),
        vertex_count_(static_cast<std::size_t>(torus_.node_count()) * per_node_),
        load_(torus_.channel_slots(), 0),
        dist_(vertex_count_, kInfinity),
        out_(vertex_count_, kNoChannel),
        next_(vertex_count_, kNone),
        settled_(vertex_count_, 0) {}

  RouteTable route(RouteTable table);

 private:
  using Path = std::vector<ChannelId>;
  std::uint32_t vertex(NodeId node, std::uint32_t local) const { return node * per_node_ + local; }
  NodeId node_of(std::uint32_t v) const { return v / per_node_; }
  std::uint32_t local_of(std::uint32_t v) const { return v % per_node_; }
  NodeId head(ChannelId c) const { return torus_.neighbor(Torus::channel_node(c), Torus::channel_direction(c)); }
  // rules general: a turn from `first` to `second` against the direction
  // order (+X < +Y < ... < -K) costs like a First/Last Step: among routes of
  // equal length those that keep the order win, which keeps their
  // dependencies free of turn cycles on a torus, and the load splits ties.
  // (One order in all layers: rotating it per layer measured worse.)
  bool against_order(Direction first, Direction second) const {
    return options_.rules == RuleSet::general && second < first;
  }
  // The channel weights of section 4.4: one hop, plus the fourth power of the
  // load so far, so that a route avoids one heavy channel before several
  // light ones (measured against the linear and square weights: the lumps of
  // routes that destination-based trees move together balance better).
  Cost channel_cost(ChannelId c) const {
    const Cost load = std::min<Cost>(load_[c], kLoadCap);
    return kHopCost + load * load * load * load / 256;
  }

  // Routes one layer; returns the destination index of an unresolved
  // impasse, or npos.
  bool route_destination(std::size_t dst, LayerCdg& cdg, std::vector<Path>& committed);
  static constexpr int kRerouteRounds = 6;
  // rules general under bubble: layer attempts with the stuck destination
  // first before the escape paths are reserved from the start.
  static constexpr std::size_t kReorderAttempts = 8;
  // Phase A: the search tree towards nodes_[dst]; blocked: dependencies a
  // commit found to close a cycle.
  void search(std::size_t dst, LayerCdg& cdg, const std::vector<std::pair<ChannelId, ChannelId>>& blocked);
  void expand(std::uint32_t w, std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>>& heap);
  bool dependency_ok(ChannelId from, std::uint32_t next, LayerCdg& cdg,
                     const std::vector<std::pair<ChannelId, ChannelId>>& blocked) const;
  bool local_backtracking(std::size_t dst, LayerCdg& cdg, const std::vector<std::pair<ChannelId, ChannelId>>& blocked,
                          std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>>& heap);
  std::uint32_t source_vertex(NodeId node) const { return vertex(node, 0); }
  Path path_from(std::uint32_t v) const;
  void check_routable();
  [[noreturn]] void fail_cut_off(const std::vector<std::pair<NodeId, NodeId>>& pairs) const;
  [[noreturn]] void fail_unroutable(NodeId src, NodeId dst, int layer) const;

  // Escape paths (rules general, sections 4.2-4.3).
  void build_escape_tree(const std::vector<std::size_t>& destinations, LayerCdg& cdg, bool reserve);
  Path escape_path(NodeId src, NodeId dst) const;

  const Network& network_;
  const Torus& torus_;
  const std::vector<NodeId> nodes_;  // the allocation, sorted
  const GeneratorOptions& options_;
  StateSpace states_;
  std::uint32_t per_node_;
  std::size_t vertex_count_;
  std::vector<std::uint64_t> load_;  // routes per channel so far: the weights of 4.4
  std::vector<Cost> dist_;
  std::vector<ChannelId> out_;
  std::vector<std::uint32_t> next_;
  std::vector<unsigned char> settled_;
  std::vector<std::uint32_t> touched_;  // vertices to reset after a search
  std::vector<Predecessor> scratch_;
  // Escape tree of the current layer: the channel towards the root per node.
  std::vector<ChannelId> tree_up_;
  std::vector<std::uint32_t> tree_depth_;
};

void NueRouter::expand(std::uint32_t w,
                       std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>>& heap) {
  const NodeId at = node_of(w);
  const NodeId after = out_[w] == kNoChannel ? kNoNode : head(out_[w]);
  for (int rank = 0; rank < kDirectionCount; ++rank) {
    const Direction hop(rank);
    if (!torus_.direction_present(hop)) continue;
    const NodeId from = torus_.neighbor(at, hop.opposite());
    const ChannelId c = Torus::channel(from, hop);
    if (!network_.channel_alive(c) || from == after) continue;  // dead, or a U-turn
    states_.predecessors(local_of(w), hop, scratch_);
    for (const Predecessor& p : scratch_) {
      const std::uint32_t v = vertex(from, p.state);
      if (settled_[v]) continue;
      const Cost cost = dist_[w] + channel_cost(c) + (p.special_step ? kSpecialStepCost : 0) +
                        (out_[w] != kNoChannel && against_order(hop, Torus::channel_direction(out_[w])) ? kSpecialStepCost
                                                                                                       : 0);
      if (dist_[v] == kInfinity) touched_.push_back(v);
      dist_[v] = std::min(dist_[v], cost);
      heap.push(Candidate{cost, v, c, w});
    }
  }
}

bool NueRouter::dependency_ok(ChannelId from, std::uint32_t next, LayerCdg& cdg,
                              const std::vector<std::pair<ChannelId, ChannelId>>& blocked) const {
  const ChannelId to = out_[next];
  if (to == kNoChannel) return true;  // the route ends there: no dependency
  if (std::find(blocked.begin(), blocked.end(), std::make_pair(from, to)) != blocked.end()) return false;
  return cdg.admissible(from, to);
}

void NueRouter::search(std::size_t dst, LayerCdg& cdg, const std::vector<std::pair<ChannelId, ChannelId>>& blocked) {
  for (std::uint32_t v : touched_) {
    dist_[v] = kInfinity;
    out_[v] = kNoChannel;
    next_[v] = kNone;
    settled_[v] = 0;
  }
  touched_.clear();
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
  const NodeId target = nodes_[dst];
  for (std::uint32_t local = 0; local < per_node_; ++local) {
    if (!states_.can_end(local)) continue;
    const std::uint32_t v = vertex(target, local);
    dist_[v] = 0;
    settled_[v] = 1;
    touched_.push_back(v);
  }
  for (std::uint32_t local = 0; local < per_node_; ++local)
    if (states_.can_end(local)) expand(vertex(target, local), heap);

  std::size_t waiting = 0;  // allocated sources not settled yet
  for (NodeId node : nodes_)
    if (node != target) ++waiting;
  auto settle_loop = [&] {
    while (!heap.empty() && waiting) {
      const Candidate c = heap.top();
      heap.pop();
      if (settled_[c.vertex] || !dependency_ok(c.channel, c.next, cdg, blocked)) continue;
      settled_[c.vertex] = 1;
      dist_[c.vertex] = c.cost;
      out_[c.vertex] = c.channel;
      next_[c.vertex] = c.next;
      const NodeId node = node_of(c.vertex);
      if (local_of(c.vertex) == 0 && node != target && std::binary_search(nodes_.begin(), nodes_.end(), node))
        --waiting;
      expand(c.vertex, heap);
    }
  };
  settle_loop();
  // Section 4.6.2: an island is left; try local backtracking (general rules:
  // one vertex per node) until nothing more can be attached.
  while (waiting && options_.rules == RuleSet::general && local_backtracking(dst, cdg, blocked, heap)) {
    // the attached node was counted by local_backtracking
    waiting = 0;
    for (NodeId node : nodes_)
      if (node != target && !settled_[source_vertex(node)]) ++waiting;
    settle_loop();
  }
}

// Section 4.6.2/4.6.3: an unsettled node x next to a settled node u whose
// dependency (x -> u, out(u)) is blocked.  u may switch to another settled
// neighbour v if every dependency at u stays admissible: into the new out
// channel from x and from every node that already routes through u, and from
// it into out(v).  The cheapest such switch attaches x.
bool NueRouter::local_backtracking(std::size_t dst, LayerCdg& cdg,
                                   const std::vector<std::pair<ChannelId, ChannelId>>& blocked,
                                   std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>>& heap) {
  const NodeId target = nodes_[dst];
  for (NodeId x = 0; x < torus_.node_count(); ++x) {
    if (!network_.node_alive(x) || settled_[x]) continue;
    struct Choice {
      Cost cost = kInfinity;
      ChannelId into_u = kNoChannel;
      ChannelId new_out = kNoChannel;
    } best;
    for (int rank = 0; rank < kDirectionCount; ++rank) {
      const ChannelId c = Torus::channel(x, Direction(rank));
      if (!torus_.direction_present(Direction(rank)) || !network_.channel_alive(c)) continue;
      const NodeId u = head(c);
      if (!settled_[u] || u == target) continue;
      // Nodes that route through u now, and their out channels.
      std::vector<ChannelId> incoming;
      for (int r = 0; r < kDirectionCount; ++r) {
        const Direction back(r);
        if (!torus_.direction_present(back)) continue;
        const NodeId y = torus_.neighbor(u, back.opposite());
        if (settled_[y] && next_[y] == u && out_[y] != kNoChannel && head(out_[y]) == u) incoming.push_back(out_[y]);
      }
      for (int r = 0; r < kDirectionCount; ++r) {
        const ChannelId alt = Torus::channel(u, Direction(r));
        if (!torus_.direction_present(Direction(r)) || !network_.channel_alive(alt) || alt == out_[u]) continue;
        const NodeId v = head(alt);
        if (v == x || !settled_[v]) continue;
        bool through_u = false;  // v's route must not come back through u
        for (std::uint32_t w = v; w != kNone && out_[w] != kNoChannel; w = next_[w])
          if (w == u) through_u = true;
        if (through_u) continue;
        const Cost cost = dist_[v] + channel_cost(alt) + channel_cost(c);
        if (cost >= best.cost) continue;
        auto ok = [&](ChannelId from, ChannelId to) {
          return std::find(blocked.begin(), blocked.end(), std::make_pair(from, to)) == blocked.end() &&
                 cdg.admissible(from, to);
        };
        if (!ok(c, alt) || (out_[v] != kNoChannel && !ok(alt, out_[v]))) continue;
        bool all = true;
        for (ChannelId in : incoming) all = all && ok(in, alt);
        if (all) best = Choice{cost, c, alt};
      }
    }
    if (best.into_u == kNoChannel) continue;
    const NodeId u = head(best.into_u);
    out_[u] = best.new_out;
    next_[u] = head(best.new_out);
    dist_[u] = best.cost - channel_cost(best.into_u);
    settled_[x] = 1;
    if (dist_[x] == kInfinity) touched_.push_back(x);
    dist_[x] = best.cost;
    out_[x] = best.into_u;
    next_[x] = u;
    expand(x, heap);
    return true;
  }
  return false;
}

NueRouter::Path NueRouter::path_from(std::uint32_t v) const {
  Path path;
  for (; out_[v] != kNoChannel; v = next_[v]) path.push_back(out_[v]);
  return path;
}

// Before any routing: every pair must have a route in the complete CDG at
// all (dependencies aside), else the first such pair (by source, then
// destination) is named.  A backward search over the states per destination.
void NueRouter::check_routable() {
  std::vector<std::vector<unsigned char>> reaches(nodes_.size());
  std::vector<unsigned char> seen(vertex_count_);
  std::vector<std::uint32_t> stack;
  for (std::size_t d = 0; d < nodes_.size(); ++d) {
    std::fill(seen.begin(), seen.end(), 0);
    stack.clear();
    for (std::uint32_t local = 0; local < per_node_; ++local)
      if (states_.can_end(local)) {
        seen[vertex(nodes_[d], local)] = 1;
        stack.push_back(vertex(nodes_[d], local));
      }
    while (!stack.empty()) {
      const std::uint32_t w = stack.back();
      stack.pop_back();
      for (int rank = 0; rank < kDirectionCount; ++rank) {
        const Direction hop(rank);
        if (!torus_.direction_present(hop)) continue;
        const NodeId from = torus_.neighbor(node_of(w), hop.opposite());
        if (!network_.channel_alive(Torus::channel(from, hop))) continue;
        states_.predecessors(local_of(w), hop, scratch_);
        for (const Predecessor& p : scratch_)
          if (!seen[vertex(from, p.state)]) {
            seen[vertex(from, p.state)] = 1;
            stack.push_back(vertex(from, p.state));
          }
      }
    }
    reaches[d].resize(nodes_.size());
    for (std::size_t s = 0; s < nodes_.size(); ++s) reaches[d][s] = seen[source_vertex(nodes_[s])];
  }
  std::vector<std::pair<NodeId, NodeId>> cut_off;
  for (std::size_t s = 0; s < nodes_.size(); ++s)
    for (std::size_t d = 0; d < nodes_.size(); ++d)
      if (s != d && !reaches[d][s]) cut_off.emplace_back(nodes_[s], nodes_[d]);
  if (!cut_off.empty()) fail_cut_off(cut_off);
}

// The refusal when failures cut pairs off: how many pairs, the first few,
// and (rules angara) the failures whose repair would reconnect each, as the
// routability oracle names them (routing/common/oracle.hpp).
void NueRouter::fail_cut_off(const std::vector<std::pair<NodeId, NodeId>>& pairs) const {
  constexpr std::size_t kShown = 4;
  const bool angara = options_.rules == RuleSet::angara;
  const std::string headline = "nue: " + std::to_string(pairs.size()) + " of " +
                               std::to_string(nodes_.size() * (nodes_.size() - 1)) + " ordered pairs have no " +
                               (angara ? "Angara-encodable route" : "path") + " that avoids the failures";
  std::string out = headline;
  for (std::size_t k = 0; k < pairs.size() && k < kShown; ++k) {
    out += (k == 0 ? ": " : "; ") + torus_.format_coord(pairs[k].first) + " -> " +
           torus_.format_coord(pairs[k].second);
    if (!angara) continue;
    std::string blockers;
    for (const std::string& name : blocking_failures(network_, pairs[k].first, pairs[k].second))
      blockers += (blockers.empty() ? "" : ", ") + name;
    if (!blockers.empty()) out += " (cut off by " + blockers + ")";
  }
  if (pairs.size() > kShown) out += "; and " + std::to_string(pairs.size() - kShown) + " more";
  throw RoutingError(out, pairs, headline);
}

void NueRouter::fail_unroutable(NodeId src, NodeId dst, int layer) const {
  const std::string pair = torus_.format_coord(src) + " to " + torus_.format_coord(dst);
  const std::string route = options_.rules == RuleSet::angara ? "Angara-encodable route" : "route";
  const std::string why = " fits the routes of the other destinations of virtual channel " + std::to_string(layer) +
                          " (routing.virtual_channels: " + std::to_string(options_.virtual_channels) +
                          "; more may help)";
  throw RoutingError("nue: no deadlock-free " + route + " from " + pair + why, std::vector<NodePair>{{src, dst}},
                     "nue: no deadlock-free " + route + why);
}

// Sections 4.2-4.3: root = the most central node (Brandes' betweenness) of
// the convex subgraph H of the layer's destinations (the union of their
// shortest paths); the tree = shortest paths from the root under the current
// channel weights, so layers get different trees.  The tree's dependencies
// towards the layer's destinations are marked used.
void NueRouter::build_escape_tree(const std::vector<std::size_t>& destinations, LayerCdg& cdg, bool reserve) {
  const NodeId n = torus_.node_count();
  std::vector<unsigned char> is_destination(n, 0);
  for (std::size_t d : destinations) is_destination[nodes_[d]] = 1;
  auto neighbours = [&](NodeId at, auto&& visit) {
    for (int rank = 0; rank < kDirectionCount; ++rank)
      if (torus_.direction_present(Direction(rank)) && network_.channel_alive(at, Direction(rank)))
        visit(torus_.neighbor(at, Direction(rank)));
  };
  // Convex subgraph H (Definition 8): BFS from each destination, then the
  // nodes from which a shortest path leads on to another destination.
  std::vector<unsigned char> in_hull(n, 0);
  std::vector<int> depth(n);
  std::vector<NodeId> order;
  for (std::size_t d : destinations) {
    std::fill(depth.begin(), depth.end(), -1);
    order.assign(1, nodes_[d]);
    depth[nodes_[d]] = 0;
    for (std::size_t i = 0; i < order.size(); ++i)
      neighbours(order[i], [&](NodeId next) {
        if (depth[next] < 0) {
          depth[next] = depth[order[i]] + 1;
          order.push_back(next);
        }
      });
    std::vector<unsigned char> leads(n, 0);
    for (std::size_t i = order.size(); i-- > 0;) {
      const NodeId v = order[i];
      bool on = is_destination[v] != 0;
      neighbours(v, [&](NodeId next) { on = on || (depth[next] == depth[v] + 1 && leads[next]); });
      leads[v] = on;
      if (on) in_hull[v] = 1;
    }
  }
  // Brandes' betweenness centrality on H (unweighted).
  std::vector<double> centrality(n, 0.0), delta(n);
  std::vector<double> sigma(n);
  for (NodeId s = 0; s < n; ++s) {
    if (!in_hull[s]) continue;
    std::fill(depth.begin(), depth.end(), -1);
    std::fill(sigma.begin(), sigma.end(), 0.0);
    order.assign(1, s);
    depth[s] = 0;
    sigma[s] = 1;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const NodeId v = order[i];
      neighbours(v, [&](NodeId w) {
        if (!in_hull[w]) return;
        if (depth[w] < 0) {
          depth[w] = depth[v] + 1;
          order.push_back(w);
        }
        if (depth[w] == depth[v] + 1) sigma[w] += sigma[v];
      });
    }
    std::fill(delta.begin(), delta.end(), 0.0);
    for (std::size_t i = order.size(); i-- > 0;) {
      const NodeId w = order[i];
      neighbours(w, [&](NodeId v) {
        if (in_hull[v] && depth[v] == depth[w] - 1) delta[v] += sigma[v] / sigma[w] * (1 + delta[w]);
      });
      if (w != s) centrality[w] += delta[w];
    }
  }
  NodeId root = nodes_[destinations.front()];
  for (NodeId v = 0; v < n; ++v)
    if (in_hull[v] && centrality[v] > centrality[root] + 1e-9) root = v;

  // The tree: Dijkstra from the root under the channel weights.
  tree_up_.assign(n, kNoChannel);
  tree_depth_.assign(n, kNone);
  std::vector<Cost> cost(n, kInfinity);
  std::priority_queue<std::pair<Cost, NodeId>, std::vector<std::pair<Cost, NodeId>>, std::greater<>> heap;
  cost[root] = 0;
  tree_depth_[root] = 0;
  heap.push({0, root});
  std::vector<NodeId> tree_order;
  while (!heap.empty()) {
    const auto [c, v] = heap.top();
    heap.pop();
    if (c != cost[v]) continue;
    tree_order.push_back(v);
    for (int rank = 0; rank < kDirectionCount; ++rank) {
      const Direction d(rank);
      if (!torus_.direction_present(d) || !network_.channel_alive(v, d)) continue;
      const NodeId w = torus_.neighbor(v, d);
      const ChannelId down = Torus::channel(v, d);
      const Cost next = c + channel_cost(torus_.reverse_channel(down));
      if (next < cost[w]) {
        cost[w] = next;
        tree_up_[w] = torus_.reverse_channel(down);
        tree_depth_[w] = tree_depth_[v] + 1;
        heap.push({next, w});
      }
    }
  }
  // Destinations below each node; a dependency of the tree routes is used
  // when some destination needs it (up*/down* routing on a tree is acyclic).
  std::vector<std::size_t> below(n, 0);
  for (std::size_t i = tree_order.size(); i-- > 0;) {
    const NodeId v = tree_order[i];
    below[v] += is_destination[v];
    if (tree_up_[v] != kNoChannel) below[head(tree_up_[v])] += below[v];
  }
  // Reserved from the start under flow control none, where impasses are the
  // rule on a torus; under bubble the tree's turns would block the
  // direction-order routes that rings allow (doc/benchmarks.md), so there the
  // escape paths are first checked like any route when an impasse needs them,
  // and reserved (`reserve`) only when that fails: the paper's guarantee.
  if (!reserve) return;
  const std::size_t total = destinations.size();
  for (NodeId child = 0; child < n; ++child) {
    if (tree_up_[child] == kNoChannel) continue;
    const ChannelId up = tree_up_[child];
    const NodeId v = head(up);
    // up -> up: leaving v's subtree towards a destination outside it.
    if (tree_up_[v] != kNoChannel && below[v] < total) cdg.graph().add_path({up, tree_up_[v]});
    for (NodeId other = 0; other < n; ++other) {
      if (tree_up_[other] == kNoChannel || head(tree_up_[other]) != v || !below[other]) continue;
      const ChannelId down = torus_.reverse_channel(tree_up_[other]);
      if (other != child) cdg.graph().add_path({up, down});                   // up -> down at v
      if (tree_up_[v] != kNoChannel) cdg.graph().add_path({torus_.reverse_channel(tree_up_[v]), down});  // down -> down
    }
  }
}

NueRouter::Path NueRouter::escape_path(NodeId src, NodeId dst) const {
  Path up, down;
  NodeId a = src, b = dst;
  while (a != b) {
    if (tree_depth_[a] >= tree_depth_[b]) {
      up.push_back(tree_up_[a]);
      a = head(tree_up_[a]);
    } else {
      down.push_back(torus_.reverse_channel(tree_up_[b]));
      b = head(tree_up_[b]);
    }
  }
  up.insert(up.end(), down.rbegin(), down.rend());
  return up;
}

// Routes every allocated source to nodes_[dst] in `cdg` and commits the
// routes: search, then try-add each route; a dependency that closes a cycle
// with the destination's own other routes is blocked and the destination
// searched again.  On an impasse the island's sources take the escape paths
// if there are any (rules general), else false with nothing committed.
bool NueRouter::route_destination(std::size_t dst, LayerCdg& cdg, std::vector<Path>& committed) {
  const NodeId target = nodes_[dst];
  std::vector<std::pair<ChannelId, ChannelId>> blocked;
  auto take_back = [&] {
    for (Path& path : committed)
      if (!path.empty()) cdg.remove(path);
    committed.assign(nodes_.size(), Path{});
  };
  committed.assign(nodes_.size(), Path{});
  // Commits a route for every source: the search's, or the escape path for
  // the island's sources (all sources when all_escape).  On a forbidden
  // cycle everything is taken back; `cycle` gets the failing dependency when
  // it was on a search route.
  auto commit = [&](bool all_escape, std::pair<ChannelId, ChannelId>& cycle) {
    for (std::size_t s = 0; s < nodes_.size(); ++s) {
      if (s == dst) continue;
      const std::uint32_t v = source_vertex(nodes_[s]);
      const bool escape = all_escape || !settled_[v];
      Path path = escape ? escape_path(nodes_[s], target) : path_from(v);
      if (const std::size_t k = cdg.try_add(path)) {
        take_back();
        if (!escape) cycle = {path[k - 1], path[k]};
        return false;
      }
      committed[s] = std::move(path);
    }
    return true;
  };
  for (;;) {
    search(dst, cdg, blocked);
    bool island = false;
    for (std::size_t s = 0; s < nodes_.size() && !island; ++s)
      island = s != dst && !settled_[source_vertex(nodes_[s])];
    // Section 4.6.2, last resort: the island's sources follow the escape
    // paths (reserved from the start under flow control none, else checked
    // like any route), then, if that closes a cycle, all the destination's
    // sources do; without escape paths (rules angara) it is an impasse.
    if (island && tree_up_.empty()) return false;
    std::pair<ChannelId, ChannelId> cycle{kNoChannel, kNoChannel};
    if (commit(false, cycle)) break;
    if (cycle.first != kNoChannel) {
      blocked.push_back(cycle);  // a search route closed a cycle: search again without it
      continue;
    }
    if (commit(true, cycle)) break;
    return false;
  }
  for (const Path& path : committed)
    for (ChannelId c : path) ++load_[c];  // Algorithm 2, line 11: weight update
  return true;
}

RouteTable NueRouter::route(RouteTable table) {
  check_routable();
  const int layers = std::max(1, options_.virtual_channels);
  const std::vector<int> layer_of = partition_destinations(network_, nodes_, layers);
  std::vector<std::vector<Path>> paths(nodes_.size());
  std::vector<std::unique_ptr<LayerCdg>> cdgs(static_cast<std::size_t>(layers));
  std::vector<std::vector<std::size_t>> members(static_cast<std::size_t>(layers));
  for (std::size_t d = 0; d < nodes_.size(); ++d) members[static_cast<std::size_t>(layer_of[d])].push_back(d);

  for (int layer = 0; layer < layers; ++layer) {
    std::vector<std::size_t>& destinations = members[static_cast<std::size_t>(layer)];
    if (destinations.empty()) continue;
    // Layer-level backtracking for impasses without escape paths: the
    // destination that got stuck is routed first; bounded by the layer's size.
    const std::vector<std::uint64_t> loads_before = load_;
    bool reserve_tree = options_.flow_control == FlowControl::none;
    for (std::size_t attempt = 0;; ++attempt) {
      auto& cdg = cdgs[static_cast<std::size_t>(layer)];
      cdg = std::make_unique<LayerCdg>(torus_, options_.flow_control);
      tree_up_.clear();
      if (options_.rules == RuleSet::general) build_escape_tree(destinations, *cdg, reserve_tree);
      std::size_t stuck = RouteTable::npos;
      for (std::size_t d : destinations)
        if (!route_destination(d, *cdg, paths[d])) {
          stuck = d;
          break;
        }
      if (stuck == RouteTable::npos) break;
      load_ = loads_before;
      const bool general = options_.rules == RuleSet::general;
      if (attempt + 1 >= destinations.size() || destinations.front() == stuck ||
          (general && !reserve_tree && attempt >= kReorderAttempts)) {
        if (general && !reserve_tree) {
          // Section 4.3: with the escape paths' dependencies used from the
          // start, every impasse can fall back to them (the paper's
          // guarantee, at the price of the tree's turns); the layer again.
          reserve_tree = true;
          continue;
        }
        std::size_t missing = 0;
        for (std::size_t s = 0; s < nodes_.size(); ++s)
          if (s != stuck && !settled_[source_vertex(nodes_[s])]) missing = s;
        fail_unroutable(nodes_[missing], nodes_[stuck], layer);
      }
      destinations.erase(std::find(destinations.begin(), destinations.end(), stuck));
      destinations.insert(destinations.begin(), stuck);
    }
  }

  // Weight updates for balance, continued: every destination is routed again
  // with the loads of all the others known (rip-up and re-route); a
  // destination keeps its old routes if the new search finds none.
  for (int round = 0; round < kRerouteRounds; ++round)
    for (int layer = 0; layer < layers; ++layer) {
      LayerCdg* cdg = cdgs[static_cast<std::size_t>(layer)].get();
      if (!cdg) continue;
      tree_up_.clear();  // escape paths are for the first pass
      for (std::size_t d : members[static_cast<std::size_t>(layer)]) {
        std::vector<Path> old = std::move(paths[d]);
        for (const Path& path : old) {
          for (ChannelId c : path) --load_[c];
          if (!path.empty()) cdg->remove(path);
        }
        if (route_destination(d, *cdg, paths[d])) continue;
        paths[d] = std::move(old);  // put the old routes back: they fit as before
        for (const Path& path : paths[d]) {
          for (ChannelId c : path) ++load_[c];
          if (!path.empty()) cdg->graph().add_path(path);
        }
      }
    }

  for (int layer = 0; layer < layers; ++layer)
    for (std::size_t d : members[static_cast<std::size_t>(layer)])
      for (std::size_t s = 0; s < nodes_.size(); ++s) {
        if (s == d) continue;
        Route route;
        for (ChannelId c : paths[d][s]) route.hops.push_back(Torus::channel_direction(c));
        route.layer = static_cast<std::uint8_t>(layer);
        table.set_route(s, d, std::move(route));
      }
  return table;
}

RouteTable NueGenerator::generate(const Network& network, const std::vector<NodeId>& allocation,
                                  const GeneratorOptions& options) const {
  RouteTable table = start_route_table(name(), network, allocation);
  if (table.size() < 2) return table;
  NueRouter router(network, table.nodes(), options);
  return router.route(std::move(table));
}

}  // namespace

std::unique_ptr<Generator> create_nue_generator() { return std::make_unique<NueGenerator>(); }

}  // namespace angara
