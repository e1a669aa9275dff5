// Balanced shortest paths for the layered backends; see shortest_paths.hpp.
#include "routing/common/shortest_paths.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>

#include "routing/common/candidates.hpp"
#include "routing/common/dependency_graph.hpp"
#include "routing/common/generator_support.hpp"

namespace angara {

PathSet::PathSet(std::vector<NodeId> nodes) : nodes_(std::move(nodes)) {
  std::sort(nodes_.begin(), nodes_.end());
  nodes_.erase(std::unique(nodes_.begin(), nodes_.end()), nodes_.end());
}

void PathSet::append(const std::vector<ChannelId>& channels) {
  channels_.insert(channels_.end(), channels.begin(), channels.end());
  first_.push_back(channels_.size());
}

RouteTable PathSet::make_table(const std::vector<std::uint8_t>& layers, const std::string& algorithm) const {
  RouteTable table(nodes_);
  table.algorithm = algorithm;
  const std::size_t n = nodes_.size();
  for (std::size_t p = 0; p < pair_count(); ++p) {
    if (p / n == p % n) continue;
    Route route;
    route.hops.reserve(length(p));
    for (const ChannelId* c = begin(p); c != end(p); ++c) route.hops.push_back(Torus::channel_direction(*c));
    route.layer = layers.empty() ? 0 : layers[p];
    table.set_route(p / n, p % n, std::move(route));
  }
  return table;
}

namespace {

[[noreturn]] void no_path(const char* generator, const Torus& torus, NodeId src, NodeId dst, const char* what) {
  throw RoutingError(std::string(generator) + ": no " + what + " from " + torus.format_coord(src) + " to " +
                         torus.format_coord(dst) + " avoids the failures",
                     std::vector<NodePair>{{src, dst}}, std::string(generator) + ": no " + what + " avoids the failures");
}

// A descent: consecutive channels whose directions go down the direction
// order (+X < +Y < ... < -K).  A path without descents is a DOR path; the
// dependencies of DOR paths all go up the order, so their only cycles run
// around one ring in one direction, harmless under bubble flow control: a
// table of DOR paths needs one layer.  Preferring fewer descents among the
// shortest paths is what keeps the layer count low (DFSSSP paper, section
// IV: the minimum is NP-hard, so the path step is where it is won).
bool descends(ChannelId a, ChannelId b) { return Torus::channel_direction(b) < Torus::channel_direction(a); }

// What one more path on a channel that carries `load` paths costs: the
// growth of sum(load^4) / 4, so the choice approaches the least max load
// (the edge forwarding index) rather than the least total, which a linear
// weight would give.
std::uint64_t marginal_cost(std::uint64_t load) { return (load + 1) * (load + 1) * (load + 1); }

std::uint32_t count_descents(const std::vector<ChannelId>& channels) {
  std::uint32_t count = 0;
  for (std::size_t i = 1; i < channels.size(); ++i) count += descends(channels[i - 1], channels[i]) ? 1 : 0;
  return count;
}

// General rules, `paths: trees`: Algorithm 1 as published, one
// shortest-path tree per destination over the whole network (DFSSSP paper; the tree of `source` there is the tree
// into our destination, since its reverse paths are the forwarding entries).
class DestinationTrees {
 public:
  DestinationTrees(const Network& network, const std::vector<NodeId>& nodes)
      : network_(network),
        torus_(network.torus()),
        nodes_(nodes),
        weight_(torus_.channel_slots(), 0),
        next_(nodes.size() * torus_.node_count(), kNoChannel),
        dist_(torus_.node_count(), -1),
        cost_(torus_.node_count(), 0) {}

  // Builds the tree into nodes_[di] against the current weights.
  void build(std::size_t di, const char* generator) {
    const NodeId dst = nodes_[di];
    const NodeId count = torus_.node_count();
    hop_distances_to(network_, dst, dist_, order_);
    ChannelId* next = next_.data() + di * count;
    // Nodes nearest first: each takes the step one hop closer whose weight
    // plus the rest of the path is least (ties: lowest direction rank).
    cost_[dst] = 0;
    for (std::size_t i = 1; i < order_.size(); ++i) {
      const NodeId here = order_[i];
      std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
      ChannelId chosen = kNoChannel;
      for_each_step(here, [&](ChannelId c, NodeId to) {
        if (weight_[c] + cost_[to] < best) {
          best = weight_[c] + cost_[to];
          chosen = c;
        }
      });
      next[here] = chosen;
      cost_[here] = best;
    }
    for (NodeId src : nodes_)
      if (src != dst && dist_[src] < 0) no_path(generator, torus_, src, dst, "path");
  }

  // Adds `delta` to the weight of every channel of the tree's paths from the
  // allocated sources.
  void charge(std::size_t di, std::int64_t delta) {
    const NodeId dst = nodes_[di];
    const ChannelId* next = next_.data() + di * torus_.node_count();
    for (NodeId src : nodes_)
      for (NodeId at = src; at != dst;) {
        const ChannelId c = next[at];
        weight_[c] = static_cast<std::uint64_t>(static_cast<std::int64_t>(weight_[c]) + delta);
        at = torus_.neighbor(at, Torus::channel_direction(c));
      }
  }

  void path(std::size_t si, std::size_t di, std::vector<ChannelId>& out) const {
    out.clear();
    const NodeId dst = nodes_[di];
    const ChannelId* next = next_.data() + di * torus_.node_count();
    for (NodeId at = nodes_[si]; at != dst;) {
      const ChannelId c = next[at];
      out.push_back(c);
      at = torus_.neighbor(at, Torus::channel_direction(c));
    }
  }

 private:
  // Calls f(channel, next node) for every live step from `here` one hop
  // closer to the destination of the current tree.
  template <typename F>
  void for_each_step(NodeId here, F&& f) const {
    for (int rank = 0; rank < kDirectionCount; ++rank) {
      const Direction d(rank);
      if (!torus_.direction_present(d) || !network_.channel_alive(here, d)) continue;
      const NodeId to = torus_.neighbor(here, d);
      if (dist_[to] == dist_[here] - 1) f(Torus::channel(here, d), to);
    }
  }

  const Network& network_;
  const Torus& torus_;
  const std::vector<NodeId>& nodes_;
  std::vector<std::uint64_t> weight_;
  std::vector<ChannelId> next_;  // destination index * nodes + node -> channel towards it
  std::vector<int> dist_;
  std::vector<std::uint64_t> cost_;
  std::vector<NodeId> order_;
};

PathSet tree_paths(const Network& network, PathSet paths, int passes, const char* generator) {
  const std::vector<NodeId>& nodes = paths.nodes();
  DestinationTrees trees(network, nodes);
  for (std::size_t di = 0; di < nodes.size(); ++di) {
    trees.build(di, generator);
    trees.charge(di, +1);
  }
  for (int pass = 1; pass < passes; ++pass)
    for (std::size_t di = 0; di < nodes.size(); ++di) {
      trees.charge(di, -1);
      trees.build(di, generator);
      trees.charge(di, +1);
    }
  std::vector<ChannelId> path;
  for (std::size_t si = 0; si < nodes.size(); ++si)
    for (std::size_t di = 0; di < nodes.size(); ++di) {
      if (si == di)
        path.clear();
      else
        trees.path(si, di, path);
      paths.append(path);
    }
  return paths;
}

// General rules, `paths: pairs` (the default).  Angara routes are source
// routes, one per pair, so the weight update of Algorithm 1 can follow every
// path instead of every destination tree: each pair takes, among its
// shortest live paths, the one with the fewest descents (see above), then
// the least summed weight, and its channels' weights grow at once.  Pairs go
// destination by destination, as the trees of Algorithm 1; a second pass
// re-routes every pair against all the others (P2).
class PairRouter {
 public:
  PairRouter(const Network& network, RuleSet rules, const char* generator)
      : network_(network),
        torus_(network.torus()),
        rules_(rules),
        turns_(network, TurnRules::Mode::all_turns),
        generator_(generator),
        weight_(torus_.channel_slots(), 0),
        distance_(torus_.node_count(), -1),
        stamp_(std::size_t(torus_.node_count()) * kStates, 0),
        best_(std::size_t(torus_.node_count()) * kStates) {}

  // Shortest live path from src to dst into `out`.  `seed`: the first pass,
  // which takes the balanced DOR path (see dor_path) without looking at the
  // weights; later passes choose by the weights.
  void route(NodeId src, NodeId dst, bool seed, std::vector<ChannelId>& out) {
    if (dor_path(src, dst, seed, out)) return;
    if (rules_ == RuleSet::general)
      dag_path(src, dst, out);
    else
      encodable_path(src, dst, out);
  }

  void charge(const ChannelId* begin, const ChannelId* end, std::int64_t delta) {
    for (const ChannelId* c = begin; c != end; ++c)
      weight_[*c] = static_cast<std::uint64_t>(static_cast<std::int64_t>(weight_[*c]) + delta);
  }

  std::uint64_t load(ChannelId c) const { return weight_[c]; }

  // Every live minimal path that moves through the dimensions one after the
  // other, in any order and with either sign where the offset is tied: the
  // alternatives of the relief pass (see pair_paths).
  void dimension_order_paths(NodeId src, NodeId dst, std::vector<std::vector<ChannelId>>& out) const {
    out.clear();
    const Coord from = torus_.coord(src), to = torus_.coord(dst);
    int offset[kMaxDims] = {};
    int tied[kMaxDims];
    const int tie_count = displacement(from, to, offset, tied);
    std::vector<int> order;
    for (int dim = 0; dim < kMaxDims; ++dim)
      if (offset[dim] != 0) order.push_back(dim);
    std::vector<ChannelId> path;
    for (unsigned signs = 0; signs < (1u << tie_count); ++signs) {
      for (int t = 0; t < tie_count; ++t)
        offset[tied[t]] = (signs >> t) & 1u ? -torus_.size(tied[t]) / 2 : torus_.size(tied[t]) / 2;
      std::sort(order.begin(), order.end());
      do {
        path.clear();
        NodeId at = src;
        bool live = true;
        for (int dim : order) {
          const Direction d = Direction::make(dim, offset[dim] < 0);
          for (int h = 0; h < std::abs(offset[dim]) && live; ++h) {
            live = network_.channel_alive(at, d);
            path.push_back(Torus::channel(at, d));
            at = torus_.neighbor(at, d);
          }
        }
        if (live) out.push_back(path);
      } while (std::next_permutation(order.begin(), order.end()));
    }
  }

 private:
  static constexpr int kStates = kDirectionCount + 1;  // last direction, or none

  // The minimal offset per dimension from `from` to `to` (0 where they
  // agree), and the dimensions whose offset is half their ring ("tied",
  // returned in `tied`, their count returned).  A single-cabled pair has one
  // cable, +D from coordinate 0 and -D from 1: never tied.
  int displacement(const Coord& from, const Coord& to, int* offset, int* tied) const {
    int tie_count = 0;
    for (int dim = 0; dim < kMaxDims; ++dim) {
      offset[dim] = 0;
      if (!torus_.dim_present(dim)) continue;
      const int k = torus_.size(dim);
      const int delta = ((to[dim] - from[dim]) % k + k) % k;
      if (delta == 0) continue;
      offset[dim] = 2 * delta < k ? delta : delta - k;
      if (torus_.single_cabled(dim))
        offset[dim] = from[dim] == 0 ? 1 : -1;
      else if (2 * delta == k)
        tied[tie_count++] = dim;
    }
    return tie_count;
  }

  // The common case: a live DOR path.  There is one per choice of sign in
  // the dimensions whose offset is half their ring ("tied").  The seed takes
  // the first live one in an order that splits every tied dimension evenly
  // between + and -: + first when the offsets in the other dimensions sum
  // to an even number (half of the displacements, when another dimension
  // has an even size; otherwise the source's own coordinate joins the sum).
  // Every source then routes a displacement alike, so the loads within a
  // direction are equal, and + and - carry the same totals: on a whole
  // fault-free torus the seed is at the per-dimension lower bound.  Later
  // passes take the least costly live one.
  bool dor_path(NodeId src, NodeId dst, bool seed, std::vector<ChannelId>& out) {
    const Coord from = torus_.coord(src), to = torus_.coord(dst);
    int offset[kMaxDims] = {};
    int tied[kMaxDims];
    const int tie_count = displacement(from, to, offset, tied);
    unsigned preferred = 0;  // bit t set: tied dimension t starts with -
    for (int t = 0; t < tie_count; ++t) {
      int sum = 0;
      bool other_even = false;
      for (int dim = 0; dim < kMaxDims; ++dim) {
        if (dim == tied[t] || !torus_.dim_present(dim)) continue;
        const int k = torus_.size(dim);
        sum += ((to[dim] - from[dim]) % k + k) % k;
        other_even = other_even || k % 2 == 0;
      }
      if (!other_even) sum += from[tied[t]];
      if (sum % 2 != 0) preferred |= 1u << t;
    }
    bool found = false;
    std::uint64_t best = 0;
    for (unsigned variant = 0; variant < (1u << tie_count); ++variant) {
      const unsigned signs = variant ^ preferred;
      for (int t = 0; t < tie_count; ++t) {
        const int k = torus_.size(tied[t]);
        offset[tied[t]] = (signs >> t) & 1u ? -k / 2 : k / 2;
      }
      candidate_.clear();
      std::uint64_t sum = 0;
      bool live = true;
      NodeId at = src;
      // Positive directions first, then negative, each in dimension order.
      for (int rank = 0; rank < kDirectionCount && live; ++rank) {
        const Direction d(rank);
        const int hops = d.negative() ? -offset[d.dim()] : offset[d.dim()];
        for (int h = 0; h < hops; ++h) {
          if (!network_.channel_alive(at, d)) {
            live = false;
            break;
          }
          const ChannelId c = Torus::channel(at, d);
          candidate_.push_back(c);
          sum += marginal_cost(weight_[c]);
          at = torus_.neighbor(at, d);
        }
      }
      if (live && (!found || sum < best)) {
        found = true;
        best = sum;
        out = candidate_;
        if (seed) return true;
      }
    }
    return found;
  }

  // Around failures: a search over the shortest live paths (the DAG of the
  // steps that bring the destination one hop closer), one state per node
  // and last direction, minimising (descents, summed weight).
  void dag_path(NodeId src, NodeId dst, std::vector<ChannelId>& out) {
    if (distance_destination_ != dst) find_distances(dst);
    if (distance_[src] < 0)
      throw RoutingError(std::string(generator_) + ": no path from " + torus_.format_coord(src) + " to " +
                             torus_.format_coord(dst) + " avoids the failures",
                         std::vector<NodePair>{{src, dst}}, std::string(generator_) + ": no path avoids the failures");
    ++epoch_;
    level_.assign(1, src);
    set_state(src, kDirectionCount, State{0, 0, kNoChannel, kDirectionCount});
    std::vector<NodeId> next_level;
    while (level_.front() != dst) {
      next_level.clear();
      for (NodeId here : level_)
        for (int last = 0; last < kStates; ++last) {
          const std::size_t slot = std::size_t(here) * kStates + last;
          if (stamp_[slot] != epoch_) continue;
          const State state = best_[slot];
          for (int rank = 0; rank < kDirectionCount; ++rank) {
            const Direction d(rank);
            if (!network_.channel_alive(here, d)) continue;
            const NodeId to = torus_.neighbor(here, d);
            if (distance_[to] != distance_[here] - 1) continue;
            const ChannelId c = Torus::channel(here, d);
            const State candidate{state.descents + (last < kDirectionCount && rank < last ? 1u : 0u),
                                  state.weight + marginal_cost(weight_[c]), c, last};
            const std::size_t to_slot = std::size_t(to) * kStates + rank;
            if (stamp_[to_slot] != epoch_) {
              // A node of the next level has a state from the moment it joins
              // it (levels only go down in distance), so this finds it there.
              if (!has_state(to)) next_level.push_back(to);
              set_state(to, rank, candidate);
            } else if (better(candidate, best_[to_slot])) {
              best_[to_slot] = candidate;
            }
          }
        }
      level_.swap(next_level);
    }
    int last = -1;
    for (int s = 0; s < kDirectionCount; ++s) {
      const std::size_t slot = std::size_t(dst) * kStates + s;
      if (stamp_[slot] == epoch_ && (last < 0 || better(best_[slot], best_[std::size_t(dst) * kStates + last])))
        last = s;
    }
    out.clear();
    for (NodeId at = dst; at != src;) {
      const State& state = best_[std::size_t(at) * kStates + last];
      out.push_back(state.channel);
      at = Torus::channel_node(state.channel);
      last = state.previous;
    }
    std::reverse(out.begin(), out.end());
  }

  struct State {
    std::uint32_t descents;
    std::uint64_t weight;
    ChannelId channel;  // the channel that entered this state
    int previous;       // last direction of the state it came from
  };
  static bool better(const State& a, const State& b) {
    return a.descents < b.descents || (a.descents == b.descents && a.weight < b.weight);
  }
  bool has_state(NodeId node) const {
    for (int s = 0; s < kStates; ++s)
      if (stamp_[std::size_t(node) * kStates + s] == epoch_) return true;
    return false;
  }
  void set_state(NodeId node, int last, const State& state) {
    stamp_[std::size_t(node) * kStates + last] = epoch_;
    best_[std::size_t(node) * kStates + last] = state;
  }

  // Angara rules around failures: the pair's shortest encodable routes
  // (every First/Last Step turn allowed: the layering decides about
  // deadlock), found once and kept, fewest descents then least cost.
  void encodable_path(NodeId src, NodeId dst, std::vector<ChannelId>& out) {
    constexpr std::size_t kVariantCap = 64;
    const std::uint64_t key = std::uint64_t(src) * torus_.node_count() + dst;
    auto found = encodable_.find(key);
    if (found == encodable_.end()) {
      std::vector<std::vector<Direction>> routes = minimal_routes(network_, turns_, src, dst, kVariantCap);
      if (routes.empty()) {
        auto& search = searches_[src];
        if (heads_.empty()) heads_ = live_channel_heads(network_);
        if (!search) search = std::make_unique<ShortestRouteSearch>(network_, turns_, src, std::vector<NodeId>{}, &heads_);
        routes = search->routes(dst, kVariantCap);
      }
      if (routes.empty())
        throw RoutingError(std::string(generator_) + ": no Angara-encodable route from " + torus_.format_coord(src) +
                               " to " + torus_.format_coord(dst) + " avoids the failures",
                           std::vector<NodePair>{{src, dst}},
                           std::string(generator_) + ": no Angara-encodable route avoids the failures");
      std::vector<std::vector<ChannelId>> variants;
      for (const auto& hops : routes) {
        variants.emplace_back();
        route_is_usable(network_, turns_, src, hops, &variants.back());
      }
      found = encodable_.emplace(key, std::move(variants)).first;
    }
    std::uint64_t best = 0;
    std::uint32_t best_descents = 0;
    const std::vector<ChannelId>* chosen = nullptr;
    for (const auto& variant : found->second) {
      const std::uint32_t descents = count_descents(variant);
      std::uint64_t sum = 0;
      for (ChannelId c : variant) sum += marginal_cost(weight_[c]);
      if (!chosen || descents < best_descents || (descents == best_descents && sum < best)) {
        best_descents = descents;
        best = sum;
        chosen = &variant;
      }
    }
    out = *chosen;
  }

  // Hop distances to `dst` over live channels (breadth-first, backwards).
  void find_distances(NodeId dst) {
    hop_distances_to(network_, dst, distance_, level_);
    distance_destination_ = dst;
  }

  const Network& network_;
  const Torus& torus_;
  const RuleSet rules_;
  const TurnRules turns_;
  const char* generator_;
  std::vector<std::uint64_t> weight_;
  std::unordered_map<std::uint64_t, std::vector<std::vector<ChannelId>>> encodable_;
  std::unordered_map<NodeId, std::unique_ptr<ShortestRouteSearch>> searches_;
  std::vector<NodeId> heads_;  // live_channel_heads(), built with the first search
  std::vector<int> distance_;
  NodeId distance_destination_ = kNoNode;
  std::vector<std::uint32_t> stamp_;
  std::vector<State> best_;
  std::uint32_t epoch_ = 0;
  std::vector<NodeId> level_;
  std::vector<ChannelId> candidate_;
};

// The relief pass (general rules): where direction-order paths cannot be
// balanced (single-cabled dimensions fix the direction of their hops, and
// the direction order then stacks the other hops into a few rows), a pair on
// a channel above the per-dimension average moves to another dimension order
// when that lowers its load, provided its turns close no forbidden cycle in
// the one dependency graph of all paths: the table keeps one virtual
// channel.  It runs only when that graph is acyclic to begin with, so it
// never costs a layer; on a whole double-cabled torus no channel is above
// the average and nothing moves.
void relieve(const Network& network, PairRouter& router, FlowControl flow_control,
             std::vector<std::vector<ChannelId>>& chosen, std::size_t n) {
  constexpr int kRounds = 3;
  const Torus& torus = network.torus();
  // Target: the average load of the busiest dimension, rounded up.
  std::array<std::uint64_t, kMaxDims> sum{}, channels{};
  std::uint64_t busiest = 0;
  for (ChannelId c = 0; c < torus.channel_slots(); ++c)
    if (network.channel_alive(c)) {
      sum[Torus::channel_direction(c).dim()] += router.load(c);
      ++channels[Torus::channel_direction(c).dim()];
      busiest = std::max(busiest, router.load(c));
    }
  std::uint64_t target = 0;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (channels[dim] > 0) target = std::max(target, (sum[dim] + channels[dim] - 1) / channels[dim]);
  if (busiest <= target) return;  // balanced already (every whole torus)
  IncrementalDependencyGraph graph(torus, flow_control);
  for (const auto& path : chosen)
    if (!graph.try_add_path(path)) return;
  // (max load with the path on it, summed marginal cost), compared in order.
  const auto key = [&](const std::vector<ChannelId>& path) {
    std::uint64_t top = 0, cost = 0;
    for (ChannelId c : path) {
      top = std::max(top, router.load(c) + 1);
      cost += marginal_cost(router.load(c));
    }
    return std::pair{top, cost};
  };
  std::vector<std::vector<ChannelId>> alternatives;
  for (int round = 0; round < kRounds; ++round) {
    bool moved = false;
    for (std::size_t di = 0; di < n; ++di)
      for (std::size_t si = 0; si < n; ++si) {
        std::vector<ChannelId>& path = chosen[si * n + di];
        if (si == di || path.size() < 2) continue;
        std::uint64_t top = 0;
        for (ChannelId c : path) top = std::max(top, router.load(c));
        if (top <= target) continue;
        router.charge(path.data(), path.data() + path.size(), -1);
        graph.remove_path(path);
        const auto current = key(path);
        router.dimension_order_paths(Torus::channel_node(path.front()),
                                     torus.neighbor(Torus::channel_node(path.back()),
                                                    Torus::channel_direction(path.back())),
                                     alternatives);
        std::sort(alternatives.begin(), alternatives.end(),
                  [&](const auto& a, const auto& b) { return key(a) < key(b); });
        bool replaced = false;
        for (const auto& alternative : alternatives) {
          if (!(key(alternative) < current)) break;
          if (graph.try_add_path(alternative)) {
            path = alternative;
            replaced = moved = true;
            break;
          }
        }
        if (!replaced) graph.add_path(path);
        router.charge(path.data(), path.data() + path.size(), +1);
      }
    if (!moved) break;
  }
}

PathSet pair_paths(const Network& network, PathSet paths, RuleSet rules, FlowControl flow_control, int passes,
                   const char* generator) {
  const std::vector<NodeId>& nodes = paths.nodes();
  const std::size_t n = nodes.size();
  PairRouter router(network, rules, generator);
  std::vector<std::vector<ChannelId>> chosen(n * n);
  for (int pass = 0; pass < passes; ++pass)
    for (std::size_t di = 0; di < n; ++di)
      for (std::size_t si = 0; si < n; ++si) {
        if (si == di) continue;
        std::vector<ChannelId>& path = chosen[si * n + di];
        if (pass > 0) router.charge(path.data(), path.data() + path.size(), -1);
        router.route(nodes[si], nodes[di], pass == 0, path);
        router.charge(path.data(), path.data() + path.size(), +1);
      }
  if (rules == RuleSet::general) relieve(network, router, flow_control, chosen, n);
  for (const auto& path : chosen) paths.append(path);
  return paths;
}

}  // namespace

bool connected(const Network& network, const std::vector<NodeId>& nodes) {
  if (nodes.empty()) return true;
  const std::vector<int> hops = hop_distances_to(network, nodes.front());
  return std::all_of(nodes.begin(), nodes.end(), [&](NodeId node) { return hops[node] >= 0; });
}

void hop_distances_to(const Network& network, NodeId dst, std::vector<int>& distance, std::vector<NodeId>& order) {
  const Torus& torus = network.torus();
  distance.assign(torus.node_count(), -1);
  distance[dst] = 0;
  order.assign(1, dst);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const NodeId here = order[i];
    for (int rank = 0; rank < kDirectionCount; ++rank) {
      const Direction d(rank);
      if (!torus.direction_present(d)) continue;
      const NodeId from = torus.neighbor(here, d.opposite());
      if (distance[from] >= 0 || !network.channel_alive(from, d)) continue;
      distance[from] = distance[here] + 1;
      order.push_back(from);
    }
  }
}

std::vector<int> hop_distances_to(const Network& network, NodeId dst) {
  std::vector<int> distance;
  std::vector<NodeId> order;
  hop_distances_to(network, dst, distance, order);
  return distance;
}

PathSet balanced_shortest_paths(const Network& network, const std::vector<NodeId>& allocation,
                                const ShortestPathOptions& options, const char* generator) {
  PathSet paths(allocation);
  const int passes = std::max(1, options.passes);
  if (options.rules == RuleSet::general && options.step == PathStep::trees)
    return tree_paths(network, std::move(paths), passes, generator);
  return pair_paths(network, std::move(paths), options.rules, options.flow_control, passes, generator);
}

}  // namespace angara
