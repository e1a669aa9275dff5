// The "balanced" generator: minimal, Angara-encodable, deadlock-free routes
// chosen to bring the edge forwarding index (max channel load) down to the
// per-dimension lower bound of shared/angara-model.md ("Metrics").
//
// Every pair picks one of its candidate routes (routing/candidates.hpp: the
// sign choices of tied dimensions, the two cables of size-2 dimensions and
// the deadlock-safe FS/LS orders), so every table is minimal where faults
// allow, encodable and deadlock-free by construction.  The choice:
//  0. whole sub-tori (the whole machine, Desmos-like blocks) without faults
//     get an exact construction by displacement (sub_torus_choice below);
//  1. otherwise greedy: pairs in a fixed order, most constrained first, each
//     taking the candidate that least raises the loads it crosses;
//  2. local search: a route crossing a channel at the max load moves to
//     another candidate when that lowers the objective (max load, number of
//     channels at the max, sum of load^4), compared lexicographically; when
//     no such move exists, a pass over all pairs takes any move lowering it;
//  3. negotiated congestion (rip-up and reroute with history costs) tries to
//     bring the max one lower, and stage 2 resumes after each success;
//  4. on a machine with failures, the checked-turn stage routes the pairs
//     the candidates leave out and shortens detours (routing/checked_turns.hpp);
//  5. unless the allocation is a whole fault-free sub-torus, stages 2 and 3
//     again over every minimal encodable route (First/Last Steps) under a
//     deadlock guard, and where that stays above the unguarded search, pure
//     DOR routes the long way round rings (refine_with_turns below).
// Everything is deterministic.  The search stops at the lower bound of the
// candidate space (no table of these candidates can do better).
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "routing/common/candidates.hpp"
#include "routing/common/checked_turns.hpp"
#include "routing/common/dependency_graph.hpp"
#include "routing/generator.hpp"
#include "routing/common/parallel.hpp"

namespace angara {

namespace {

constexpr std::size_t kCandidateCap = 64;
// Safety net on rounds of the local search; each round is one pass, and every
// accepted move strictly lowers the objective, so this is rarely reached.
constexpr int kMaxRounds = 400;
constexpr int kPolishPasses = 4;
// Extra hops a long-way DOR route may take by default (option long_way).
constexpr int kLongWayHops = 2;
// Largest allocation of a machine with failures that gets the First/Last
// Step refinement (refine_with_turns).  Above it the refinement's candidate
// set (up to kCandidateCap routes a pair) costs far more than the augmented
// one and, on the whole machines measured, gained nothing: a whole 16x8x8
// with one failed router took 106 s of CPU and 685 MB instead of 8 s and
// 146 MB, a whole 8x8x8 7.2 s instead of 1.3 s, both at the same max load.
constexpr std::size_t kFaultyRefinementMaxNodes = 512;
// Iterations of one negotiated-congestion attempt.
constexpr int kNegotiationRounds = 40;

// max over dimensions of ceil(hops / channels): the hops each pair must spend
// in a dimension (the fewest over its candidates) over the channels of that
// dimension any candidate uses.  No choice of candidates goes below it.
std::uint32_t candidate_space_bound(const CandidateSet& set) {
  std::array<std::uint64_t, kMaxDims> hops{};
  std::array<std::uint64_t, kMaxDims> channels{};
  for (std::size_t p = 0; p < set.pair_count(); ++p) {
    if (set.variants(p) == 0) continue;
    std::array<std::uint64_t, kMaxDims> fewest;
    fewest.fill(~std::uint64_t{0});
    for (std::size_t v = 0; v < set.variants(p); ++v) {
      std::array<std::uint64_t, kMaxDims> count{};
      for (ChannelId c : set.channels(p, v)) ++count[Torus::channel_direction(c).dim()];
      for (int dim = 0; dim < kMaxDims; ++dim) fewest[dim] = std::min(fewest[dim], count[dim]);
    }
    for (int dim = 0; dim < kMaxDims; ++dim) hops[dim] += fewest[dim];
  }
  for (ChannelId c : set.used_channels()) ++channels[Torus::channel_direction(c).dim()];
  std::uint64_t bound = 0;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (channels[dim]) bound = std::max(bound, (hops[dim] + channels[dim] - 1) / channels[dim]);
  return static_cast<std::uint32_t>(bound);
}

// A construction for allocations that are whole sub-tori (every dimension
// either fully allocated or fixed at one coordinate), with no failure among
// them: the whole machine, and blocks like Desmos' 4x2 and 4x2x2.
//
// Only the signs of tied dimensions are free.  With a route that depends on
// the displacement delta alone, every channel of one direction carries the
// same load, sum over delta of its hops, so it suffices that in each tied
// dimension D half of the displacements with delta_D = d/2 go +D.  Those
// displacements are indexed by their other components m (mixed radix); +D
// iff m is even.  When their number M is odd the halves differ by one
// displacement, which costs d/2 on every +D channel; so the pure one,
// delta = (d/2) e_D (m = 0), is split by source instead: +D iff the source's
// D coordinate is even.  Its d/2-hop arcs then cover every channel d/4 times
// (d = 4, 8), or once or twice (d = 6), which is the ceiling of the bound.
// Returns false when some pair lacks the chosen route.
//
// The sign of a tied dimension `dim` (delta_D = d/2), as described above:
// +D iff the displacement's other components m are even; `split` marks the
// pure displacement (m = 0) of an odd number of them, split by source.
struct TiedSign {
  bool positive;
  bool split;
};
TiedSign tied_sign(const Torus& torus, const std::array<bool, kMaxDims>& spanned,
                   const std::array<int, kMaxDims>& delta, int dim) {
  std::size_t m = 0, classes = 1;
  for (int other = 0; other < kMaxDims; ++other) {
    if (other == dim || !spanned[other]) continue;
    m = m * static_cast<std::size_t>(torus.size(other)) + static_cast<std::size_t>(delta[other]);
    classes *= static_cast<std::size_t>(torus.size(other));
  }
  return {m % 2 == 0, m == 0 && classes % 2 == 1 && torus.size(dim) >= 4};
}

bool sub_torus_choice(const Network& network, const CandidateSet& set, std::vector<std::uint32_t>* choice) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = set.nodes();
  if (nodes.size() < 2) return false;
  const Coord first = torus.coord(nodes.front());
  std::array<bool, kMaxDims> spanned{};
  std::size_t expected = 1;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    bool varies = false;
    for (NodeId node : nodes) varies = varies || torus.coord(node)[dim] != first[dim];
    spanned[dim] = varies;
    if (varies) expected *= static_cast<std::size_t>(torus.size(dim));
  }
  if (expected != nodes.size()) return false;  // sorted and distinct, so this means "all of them"
  for (NodeId node : nodes)
    for (int rank = 0; rank < kDirectionCount; ++rank) {
      const Direction d(rank);
      if (spanned[d.dim()] && torus.cabled(node, d) && !network.channel_alive(node, d)) return false;
    }

  choice->assign(set.pair_count(), 0);
  std::vector<Direction> hops;
  for (std::size_t s = 0; s < nodes.size(); ++s) {
    const Coord from = torus.coord(nodes[s]);
    for (std::size_t t = 0; t < nodes.size(); ++t) {
      if (s == t) continue;
      const Coord to = torus.coord(nodes[t]);
      std::array<int, kMaxDims> delta{};
      for (int dim = 0; dim < kMaxDims; ++dim)
        delta[dim] = ((to[dim] - from[dim]) % torus.size(dim) + torus.size(dim)) % torus.size(dim);
      std::array<int, kDirectionCount> counts{};
      for (int dim = 0; dim < kMaxDims; ++dim) {
        const int size = torus.size(dim);
        const int forward = delta[dim];
        if (forward == 0) continue;
        bool positive = forward < size - forward;
        if (torus.single_cabled(dim)) {
          positive = from[dim] == 0;  // the only cabled port of the pair
        } else if (forward == size - forward) {
          const TiedSign tied = tied_sign(torus, spanned, delta, dim);
          positive = tied.split ? from[dim] % 2 == 0 : tied.positive;
        }
        counts[Direction::make(dim, !positive).rank()] = positive ? forward : size - forward;
      }
      hops.clear();
      for (int rank = 0; rank < kDirectionCount; ++rank)
        for (int k = 0; k < counts[rank]; ++k) hops.push_back(Direction(rank));
      const std::size_t p = set.pair(s, t);
      const std::size_t v = set.find(p, hops);
      if (v == CandidateSet::npos) return false;
      (*choice)[p] = static_cast<std::uint32_t>(v);
    }
  }
  return true;
}

// The construction above without the candidate set, straight into the table
// (issue 8): on a whole sub-torus each route depends on the displacement
// alone (and, for the one split pure class, on the source's parity), so the
// table is a few thousand packed routes copied into every row, which costs
// about as much as writing the table.
//
// Used only when the construction's loads are uniform: every channel of a
// direction carries the same load, and +D the same as -D.  Then the search
// that follows sub_torus_choice() leaves the table as it is: the max load is
// the candidate-space bound, and no move lowers the objective (a move only
// shifts hops between channels of one dimension, all at the same load, so it
// raises the spread or the max).  So this path returns exactly the table the
// full path returns; any other case (a size-6 ring's split class covers its
// channels once or twice) takes the full path.  Returns nullopt then.
std::optional<RouteTable> sub_torus_table(const Network& network, RouteTable table) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = table.nodes();
  if (nodes.size() < 2) return std::nullopt;
  const Coord first = torus.coord(nodes.front());
  std::array<bool, kMaxDims> spanned{};
  std::array<std::size_t, kMaxDims> weight{};  // mixed radix of the sub-torus, X fastest
  std::size_t expected = 1;
  for (NodeId node : nodes) {
    const Coord c = torus.coord(node);
    for (int dim = 0; dim < kMaxDims; ++dim) spanned[dim] = spanned[dim] || c[dim] != first[dim];
  }
  for (int dim = 0; dim < kMaxDims; ++dim) {
    weight[dim] = expected;
    if (spanned[dim]) expected *= static_cast<std::size_t>(torus.size(dim));
  }
  if (expected != nodes.size()) return std::nullopt;
  for (NodeId node : nodes) {
    const Coord c = torus.coord(node);
    for (int dim = 0; dim < kMaxDims; ++dim)
      if (!spanned[dim] && c[dim] != first[dim]) return std::nullopt;
    for (int rank = 0; rank < kDirectionCount; ++rank) {
      const Direction d(rank);
      if (spanned[d.dim()] && !network.channel_alive(node, d)) return std::nullopt;
    }
  }

  // The route of every displacement class, as sub_torus_choice() picks it;
  // split_dim[class] >= 0 marks the class split by the source's parity.
  const std::size_t classes_total = nodes.size();
  std::vector<PackedRoute> even_route(classes_total), odd_route(classes_total);
  std::vector<int> split_dim(classes_total, -1);
  std::array<std::uint64_t, kDirectionCount> uniform{};  // load of every channel from the other classes
  std::array<std::vector<std::uint64_t>, kDirectionCount> split_load;  // by ring position
  std::vector<Direction> hops;
  for (std::size_t index = 0; index < classes_total; ++index) {
    std::array<int, kMaxDims> delta{};
    for (int dim = 0; dim < kMaxDims; ++dim)
      if (spanned[dim]) delta[dim] = static_cast<int>(index / weight[dim] % static_cast<std::size_t>(torus.size(dim)));
    std::array<std::array<int, kDirectionCount>, 2> counts{};  // [odd source]
    for (int dim = 0; dim < kMaxDims; ++dim) {
      const int size = torus.size(dim);
      const int forward = delta[dim];
      if (forward == 0) continue;
      bool positive = forward < size - forward;
      bool split = false;
      if (forward == size - forward) {
        const TiedSign tied = tied_sign(torus, spanned, delta, dim);
        positive = tied.positive;
        split = tied.split;
      }
      if (split) {
        split_dim[index] = dim;
        counts[0][Direction::make(dim, false).rank()] = forward;
        counts[1][Direction::make(dim, true).rank()] = forward;
      } else {
        for (auto& side : counts) side[Direction::make(dim, !positive).rank()] = positive ? forward : size - forward;
      }
    }
    for (int odd = 0; odd <= 1; ++odd) {
      hops.clear();
      for (int rank = 0; rank < kDirectionCount; ++rank) hops.insert(hops.end(), counts[odd][rank], Direction(rank));
      const std::optional<PackedRoute> packed = RouteTable::pack(Route{hops});
      if (!packed) return std::nullopt;
      (odd ? odd_route : even_route)[index] = *packed;
    }
    if (split_dim[index] < 0) {
      for (int rank = 0; rank < kDirectionCount; ++rank) uniform[rank] += static_cast<std::uint64_t>(counts[0][rank]);
      continue;
    }
    // The split class: sources at even positions of the ring go +D, odd ones
    // -D, half the ring each; count the channels by ring position.
    const int dim = split_dim[index], size = torus.size(dim), half = size / 2;
    for (int negative = 0; negative <= 1; ++negative) {
      std::vector<std::uint64_t>& load = split_load[Direction::make(dim, negative != 0).rank()];
      load.assign(static_cast<std::size_t>(size), 0);
      for (int source = negative; source < size; source += 2)
        for (int k = 0; k < half; ++k) ++load[static_cast<std::size_t>(((negative ? source - k : source + k) % size + size) % size)];
    }
  }
  // Uniform loads, +D equal to -D, in every spanned dimension?
  for (int dim = 0; dim < kMaxDims; ++dim) {
    if (!spanned[dim]) continue;
    std::array<std::uint64_t, 2> level{};
    for (int negative = 0; negative <= 1; ++negative) {
      const int rank = Direction::make(dim, negative != 0).rank();
      level[negative] = uniform[rank];
      const std::vector<std::uint64_t>& load = split_load[rank];
      if (load.empty()) continue;
      for (std::uint64_t value : load)
        if (value != load.front()) return std::nullopt;
      level[negative] += load.front();
    }
    if (level[0] != level[1]) return std::nullopt;
  }

  // Rows: the class of (s, t) is the displacement t - s per spanned
  // dimension; allocation indices are the sub-torus's mixed radix too.
  std::vector<int> span_dims;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (spanned[dim]) span_dims.push_back(dim);
  run_parallel(nodes.size(), [&](std::size_t, std::size_t begin, std::size_t end) {
    std::array<std::vector<std::size_t>, kMaxDims> shift;  // per dimension: target coordinate -> class offset
    std::array<int, kMaxDims> sizes{};
    for (int k = 0; k < kMaxDims; ++k) sizes[k] = 1;
    for (std::size_t k = 0; k < span_dims.size(); ++k) sizes[k] = torus.size(span_dims[k]);
    for (std::size_t s = begin; s < end; ++s) {
      std::array<int, kMaxDims> own{};
      for (std::size_t k = 0; k < span_dims.size(); ++k)
        own[k] = static_cast<int>(s / weight[span_dims[k]] % static_cast<std::size_t>(sizes[k]));
      for (int k = 0; k < kMaxDims; ++k) {
        shift[k].resize(static_cast<std::size_t>(sizes[k]));
        const std::size_t w = k < static_cast<int>(span_dims.size()) ? weight[span_dims[k]] : 0;
        for (int t = 0; t < sizes[k]; ++t)
          shift[k][static_cast<std::size_t>(t)] = static_cast<std::size_t>((t - own[k] + sizes[k]) % sizes[k]) * w;
      }
      std::size_t t = 0;
      for (int t3 = 0; t3 < sizes[3]; ++t3)
        for (int t2 = 0; t2 < sizes[2]; ++t2)
          for (int t1 = 0; t1 < sizes[1]; ++t1) {
            const std::size_t outer = shift[3][t3] + shift[2][t2] + shift[1][t1];
            for (int t0 = 0; t0 < sizes[0]; ++t0, ++t) {
              const std::size_t index = outer + shift[0][static_cast<std::size_t>(t0)];
              table.set_route(s, t, even_route[index]);
            }
          }
      // The split classes: by the parity of the source's coordinate.
      for (std::size_t k = 0; k < span_dims.size(); ++k) {
        const int dim = span_dims[k];
        const std::size_t index = static_cast<std::size_t>(sizes[k] / 2) * weight[dim];
        if (split_dim[index] != dim) continue;
        const int to = (own[k] + sizes[k] / 2) % sizes[k];
        const std::size_t target = s + static_cast<std::size_t>(to - own[k]) * weight[dim];
        table.set_route(s, target, own[k] % 2 == 0 ? even_route[index] : odd_route[index]);
      }
    }
  });
  return table;
}

// The tie-breaking term of the objective: sum over channels of load^4, the
// sum behind sigma(4) (the total load is the same for every choice of
// minimal routes).  It favours many small reductions near the top.
constexpr std::int64_t spread_of(std::int64_t load) { return load * load * load * load; }

// The effect of moving one pair to another candidate.
struct MoveDelta {
  bool valid = false;           // false: the move would raise the max load
  int at_max = 0;               // change of the number of channels at the max load
  std::int64_t spread = 0;     // change of the sum of load^4
  bool improves() const { return valid && (at_max < 0 || (at_max == 0 && spread < 0)); }
  bool better_than(const MoveDelta& o) const {
    return at_max < o.at_max || (at_max == o.at_max && spread < o.spread);
  }
};

// Keeps a choice over a candidate set with First/Last Step turns
// (TurnRules::Mode::all_turns) deadlock-free: the channel dependency graph
// of the chosen routes, through which every change of a route goes.  A
// route is taken only when it closes no forbidden cycle with the others.
class DeadlockGuard {
 public:
  DeadlockGuard(const CandidateSet& set, const Torus& torus, FlowControl rule)
      : set_(set), torus_(torus), rule_(rule), closing_(torus.channel_slots() * std::size_t{kDirectionCount}, 0) {}

  // The graph of `choice` (routes known to be deadlock-free together).
  void reset(const std::vector<std::uint32_t>& choice) {
    if (graph_)
      graph_->clear();
    else
      graph_.emplace(torus_, rule_);
    for (std::size_t p = 0; p < set_.pair_count(); ++p)
      if (set_.variants(p) > 0) graph_->add_path(copy(p, choice[p], &old_));
    forget();
  }
  // Pair p's route goes from variant `from` to `to` when that closes no
  // forbidden cycle; false (and nothing changed) otherwise.
  bool try_move(std::size_t p, std::uint32_t from, std::uint32_t to) {
    if (from == to) return true;
    copy(p, to, &new_);
    // A dependency found closing a cycle keeps closing it until some
    // dependency disappears: no search then.
    for (std::size_t k = 1; k < new_.size(); ++k)
      if (closing_[slot(new_[k - 1], new_[k])] == epoch_ && !graph_->has_edge(new_[k - 1], new_[k])) return false;
    graph_->remove_path(copy(p, from, &old_));
    std::size_t added = 1;
    for (; added < new_.size(); ++added) {
      const ChannelId a = new_[added - 1], b = new_[added];
      if (graph_->closes_cycle(a, b)) {
        // Only a search on the graph as it stands is remembered (not one
        // that saw part of this route already).
        bool fresh = true;
        for (std::size_t k = 1; k < added; ++k) fresh = fresh && graph_->edge_count(new_[k - 1], new_[k]) > 1;
        if (fresh) closing_[slot(a, b)] = epoch_;
        break;
      }
      edge_[0] = a;
      edge_[1] = b;
      graph_->add_path(edge_);
    }
    if (added == new_.size()) {
      for (std::size_t k = 1; k < old_.size(); ++k)
        if (!graph_->has_edge(old_[k - 1], old_[k])) {
          forget();
          break;
        }
      return true;
    }
    for (std::size_t k = 1; k < added; ++k) {
      edge_[0] = new_[k - 1];
      edge_[1] = new_[k];
      graph_->remove_path(edge_);
    }
    graph_->add_path(old_);
    return false;
  }

 private:
  static std::size_t slot(ChannelId from, ChannelId to) {
    return std::size_t{from} * kDirectionCount + static_cast<std::size_t>(Torus::channel_direction(to).rank());
  }
  void forget() {
    if (++epoch_ == 0) {
      std::fill(closing_.begin(), closing_.end(), 0);
      epoch_ = 1;
    }
  }
  const std::vector<ChannelId>& copy(std::size_t p, std::uint32_t v, std::vector<ChannelId>* out) const {
    const ChannelSpan span = set_.channels(p, v);
    out->assign(span.begin(), span.end());
    return *out;
  }

  const CandidateSet& set_;
  const Torus& torus_;
  FlowControl rule_;
  std::optional<IncrementalDependencyGraph> graph_;
  std::vector<std::uint32_t> closing_;  // per dependency slot: the epoch it was found closing a cycle in
  std::uint32_t epoch_ = 1;             // bumped whenever a dependency disappears
  std::vector<ChannelId> old_, new_, edge_ = std::vector<ChannelId>(2);
};

class Balancer {
 public:
  Balancer(const CandidateSet& set, std::size_t channel_slots)
      : set_(set),
        used_(set.used_channels()),
        choice_(set.pair_count(), 0),
        loads_(channel_slots, 0),
        delta_(channel_slots, 0),
        crossing_(channel_slots) {}

  const std::vector<std::uint32_t>& choice() const { return choice_; }
  std::uint32_t max_load() const { return max_load_; }
  const std::vector<std::uint32_t>& loads() const { return loads_; }
  // Every later change of a route goes through `guard` (set after assign()).
  void guard_with(DeadlockGuard* guard) {
    guard_ = guard;
    if (guard_) guard_->reset(choice_);
  }
  // True if this state beats `other` on (max load, channels at max, spread).
  bool better_than(const Balancer& other) const {
    if (max_load_ != other.max_load_) return max_load_ < other.max_load_;
    if (at_max_ != other.at_max_) return at_max_ < other.at_max_;
    return spread_ < other.spread_;
  }

  // Stage 1: each pair, most constrained first, takes the candidate with the
  // lowest (highest load it would create, added load^4).
  void assign_greedy() {
    std::vector<std::size_t> order;
    order.reserve(set_.pair_count());
    for (std::size_t p = 0; p < set_.pair_count(); ++p)
      if (set_.variants(p) > 0) order.push_back(p);
    // Fewest candidates first, then the longest routes; ties keep pair order,
    // which walks the sources in turn so that neighbouring sources see each
    // other's choices.
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (set_.variants(a) != set_.variants(b)) return set_.variants(a) < set_.variants(b);
      return set_.channels(a, 0).size() > set_.channels(b, 0).size();
    });
    for (std::size_t p : order) {
      std::uint32_t best = 0;
      std::uint32_t best_peak = 0;
      std::uint64_t best_spread = 0;
      for (std::uint32_t v = 0; v < set_.variants(p); ++v) {
        std::uint32_t peak = 0;
        std::uint64_t spread = 0;
        for (ChannelId c : set_.channels(p, v)) {
          peak = std::max(peak, loads_[c] + 1);
          spread += static_cast<std::uint64_t>(spread_of(loads_[c] + 1) - spread_of(loads_[c]));
        }
        if (v == 0 || peak < best_peak || (peak == best_peak && spread < best_spread)) {
          best = v;
          best_peak = peak;
          best_spread = spread;
        }
      }
      choice_[p] = best;
      for (ChannelId c : set_.channels(p, best)) ++loads_[c];
    }
    index();
  }

  // Starts from a given choice instead (e.g. another generator's table).
  void assign(const std::vector<std::uint32_t>& choice) {
    std::fill(loads_.begin(), loads_.end(), 0);
    choice_ = choice;
    for (std::size_t p = 0; p < set_.pair_count(); ++p)
      if (set_.variants(p) > 0)
        for (ChannelId c : set_.channels(p, choice_[p])) ++loads_[c];
    index();
    if (guard_) guard_->reset(choice_);
  }

  // Stage 3, negotiated congestion (after PathFinder, McMurchie and Ebeling
  // 1995): to reach a max load of `target`, every pair in turn is ripped up
  // and rerouted on the candidate of least cost, where a channel costs
  // (1 + history) * (1 + pressure * overflow above target).  Pressure grows
  // each iteration; channels still above target after an iteration add their
  // overflow to their history, so persistently contested channels grow
  // expensive for everyone.  True (and the state kept) when the max load
  // reached `target`; otherwise the state is rolled back.
  bool negotiate(std::uint32_t target, int iterations) {
    const std::vector<std::uint32_t> saved = choice_;
    std::vector<double> history(loads_.size(), 0.0);
    double pressure = 0.5;
    for (int iteration = 0; iteration < iterations; ++iteration) {
      for (std::size_t p = 0; p < set_.pair_count(); ++p) {
        if (set_.variants(p) < 2) continue;
        for (ChannelId c : set_.channels(p, choice_[p])) --loads_[c];
        auto cost_of = [&](std::uint32_t v) {
          double cost = 0;
          for (ChannelId c : set_.channels(p, v)) {
            const double over = loads_[c] + 1 > target ? double(loads_[c] + 1 - target) : 0.0;
            cost += (1.0 + history[c]) * (1.0 + pressure * over);
          }
          return cost;
        };
        // The current route wins ties, which keeps the search steady.
        std::uint32_t best = choice_[p];
        if (!guard_) {
          double best_cost = cost_of(best);
          for (std::uint32_t v = 0; v < set_.variants(p); ++v) {
            if (v == choice_[p]) continue;
            const double cost = cost_of(v);
            if (cost < best_cost) {
              best = v;
              best_cost = cost;
            }
          }
        } else {
          // The cheapest route that closes no forbidden cycle.
          ranked_.clear();
          const double current = cost_of(best);
          for (std::uint32_t v = 0; v < set_.variants(p); ++v)
            if (v != choice_[p]) {
              const double cost = cost_of(v);
              if (cost < current) ranked_.emplace_back(cost, v);
            }
          std::sort(ranked_.begin(), ranked_.end());
          for (const auto& [cost, v] : ranked_)
            if (guard_->try_move(p, choice_[p], v)) {
              best = v;
              break;
            }
        }
        choice_[p] = best;
        for (ChannelId c : set_.channels(p, best)) ++loads_[c];
      }
      bool over = false;
      for (ChannelId c : used_)
        if (loads_[c] > target) {
          over = true;
          history[c] += 0.2 * (loads_[c] - target);
        }
      if (!over) {
        index();
        return true;
      }
      pressure *= 1.5;
    }
    assign(saved);
    return false;
  }

  // Stage 2.
  // `polish`: then passes lowering the spread (and with it, often, the max
  // load below `bound`).
  void local_search(std::uint32_t bound, bool polish = true) {
    for (int round = 0; round < kMaxRounds && max_load_ > bound; ++round)
      if (!relieve_max_channels() && !lower_spread()) break;
    for (int pass = 0; polish && pass < kPolishPasses; ++pass)
      if (!lower_spread()) break;
  }

 private:
  // Per-channel lists of the pairs crossing it, and the max-load counters.
  void index() {
    for (ChannelId c : used_) crossing_[c].clear();
    for (std::size_t p = 0; p < set_.pair_count(); ++p)
      if (set_.variants(p) > 0)
        for (ChannelId c : set_.channels(p, choice_[p])) crossing_[c].push_back(static_cast<std::uint32_t>(p));
    recount_max();
  }

  void recount_max() {
    max_load_ = 0;
    at_max_ = 0;
    spread_ = 0;
    for (ChannelId c : used_) {
      const std::uint32_t load = loads_[c];
      spread_ += static_cast<std::uint64_t>(spread_of(load));
      if (load > max_load_) {
        max_load_ = load;
        at_max_ = 0;
      }
      if (load == max_load_) ++at_max_;
    }
  }

  MoveDelta evaluate(std::size_t p, std::uint32_t to) {
    MoveDelta delta;
    touched_.clear();
    for (ChannelId c : set_.channels(p, choice_[p])) {
      --delta_[c];
      touched_.push_back(c);
    }
    for (ChannelId c : set_.channels(p, to)) {
      ++delta_[c];
      touched_.push_back(c);
    }
    delta.valid = true;
    for (ChannelId c : touched_) {
      const int change = delta_[c];
      if (change == 0) continue;
      delta_[c] = 0;
      const std::int64_t before = loads_[c];
      const std::int64_t after = before + change;
      if (after > static_cast<std::int64_t>(max_load_)) delta.valid = false;
      delta.at_max += (after == max_load_) - (before == max_load_);
      delta.spread += spread_of(after) - spread_of(before);
    }
    return delta;
  }

  void apply(std::size_t p, std::uint32_t to) {
    const auto pair_id = static_cast<std::uint32_t>(p);
    for (ChannelId c : set_.channels(p, choice_[p])) {
      if (loads_[c] == max_load_) --at_max_;
      spread_ -= static_cast<std::uint64_t>(spread_of(loads_[c]) - spread_of(loads_[c] - 1));
      --loads_[c];
      auto& list = crossing_[c];
      list.erase(std::find(list.begin(), list.end(), pair_id));
    }
    bool above = false;
    for (ChannelId c : set_.channels(p, to)) {
      spread_ += static_cast<std::uint64_t>(spread_of(loads_[c] + 1) - spread_of(loads_[c]));
      ++loads_[c];
      if (loads_[c] == max_load_) ++at_max_;
      above = above || loads_[c] > max_load_;
      crossing_[c].push_back(pair_id);
    }
    choice_[p] = to;
    if (at_max_ == 0 || above) recount_max();
  }

  // Best improving move of pair p, or false.
  bool best_move(std::size_t p, std::uint32_t* to) {
    MoveDelta best;
    moves_.clear();
    for (std::uint32_t v = 0; v < set_.variants(p); ++v) {
      if (v == choice_[p]) continue;
      const MoveDelta delta = evaluate(p, v);
      if (!delta.improves()) continue;
      if (guard_) moves_.emplace_back(delta, v);
      if (!best.valid || delta.better_than(best)) {
        best = delta;
        *to = v;
      }
    }
    if (!guard_ || !best.valid) return best.valid;
    // Under the guard: the best move that closes no forbidden cycle.
    std::stable_sort(moves_.begin(), moves_.end(),
                     [](const auto& a, const auto& b) { return a.first.better_than(b.first); });
    for (const auto& [delta, v] : moves_)
      if (guard_->try_move(p, choice_[p], v)) {
        *to = v;
        return true;
      }
    return false;
  }

  // Moves routes off the channels at the max load; true if anything moved.
  bool relieve_max_channels() {
    bool moved = false;
    std::vector<ChannelId> hottest;
    for (ChannelId c : used_)
      if (loads_[c] == max_load_) hottest.push_back(c);
    const std::uint32_t level = max_load_;
    std::vector<std::uint32_t> pairs;
    for (ChannelId c : hottest) {
      if (max_load_ != level) break;  // the maximum dropped: start a new round
      if (loads_[c] != level) continue;
      pairs = crossing_[c];
      for (std::uint32_t p : pairs) {
        std::uint32_t to = 0;
        if (set_.variants(p) < 2 || !best_move(p, &to)) continue;
        apply(p, to);
        moved = true;
        if (loads_[c] != level) break;
      }
    }
    return moved;
  }

  // One pass over all pairs taking any improving move; true if anything moved.
  bool lower_spread() {
    bool moved = false;
    for (std::size_t p = 0; p < set_.pair_count(); ++p) {
      std::uint32_t to = 0;
      if (set_.variants(p) < 2 || !best_move(p, &to)) continue;
      apply(p, to);
      moved = true;
    }
    return moved;
  }

  const CandidateSet& set_;
  // The channels any candidate uses, ascending: the only ones that ever
  // carry load, so the scans below are sized by the allocation, not by the
  // machine.
  std::vector<ChannelId> used_;
  DeadlockGuard* guard_ = nullptr;
  std::vector<std::pair<MoveDelta, std::uint32_t>> moves_;  // scratch of best_move() under the guard
  std::vector<std::pair<double, std::uint32_t>> ranked_;    // scratch of negotiate() under the guard
  std::vector<std::uint32_t> choice_;
  std::vector<std::uint32_t> loads_;
  std::vector<int> delta_;
  std::vector<ChannelId> touched_;
  std::vector<std::vector<std::uint32_t>> crossing_;
  std::uint32_t max_load_ = 0;
  std::size_t at_max_ = 0;
  std::uint64_t spread_ = 0;
};

// Where the search starts (option `start`):
//   greedy  stage 1 above (the default);
//   sssp    the SSSP generator's table, when all its routes are candidates
//           (otherwise greedy);
//   best    both, each searched, and the better result kept.
// On the benchmark set the greedy start alone was never worse than SSSP, and
// SSSP costs several times the rest, hence the default.
enum class Start { greedy, sssp, best };

const OptionSpec kStartOption{"start", OptionSpec::Kind::word, "greedy", {"greedy", "sssp", "best"}, 0, 0,
                               "start the local search from the greedy assignment, from the SSSP table, or from "
                               "whichever of the two is better"};

Start read_start(const GeneratorOptions& options) {
  const std::string start = option_text("balanced", kStartOption, options);
  return start == "sssp" ? Start::sssp : start == "best" ? Start::best : Start::greedy;
}

// Option `construction`: direct (the default) writes whole fault-free
// sub-tori straight from their displacement classes (sub_torus_table);
// candidates always goes through the candidate set, for comparison.
const OptionSpec kConstructionOption{"construction", OptionSpec::Kind::word, "direct", {"direct", "candidates"}, 0, 0,
                                      "a whole fault-free machine or sub-torus is written straight from its displacement "
                                      "classes (the same table in a fraction of the time and memory), or always through "
                                      "the candidate set, for comparison"};

bool read_construction(const GeneratorOptions& options) {
  return option_text("balanced", kConstructionOption, options) == "direct";
}

// The candidate indices of another generator's table, or false when one of
// its routes is not a candidate.
bool choice_of_table(const CandidateSet& set, const RouteTable& table, std::vector<std::uint32_t>* choice) {
  choice->assign(set.pair_count(), 0);
  for (std::size_t s = 0; s < set.node_count(); ++s)
    for (std::size_t d = 0; d < set.node_count(); ++d) {
      if (s == d) continue;
      const std::size_t v = set.find(set.pair(s, d), table.route(s, d).hops);
      if (v == CandidateSet::npos || table.route(s, d).layer != 0) return false;
      (*choice)[set.pair(s, d)] = static_cast<std::uint32_t>(v);
    }
  return true;
}

// Stages 2 and 3 from the balancer's current state.
void search(Balancer& balancer, std::uint32_t bound, bool polish = true) {
  balancer.local_search(bound, polish);
  while (balancer.max_load() > bound && balancer.negotiate(balancer.max_load() - 1, kNegotiationRounds))
    balancer.local_search(bound, polish);
}

// Option `turns`: on (the default) lets allocations that are not whole
// fault-free sub-tori use First/Last Step orders as extra path diversity
// (below; on a machine with failures, the pairs that keep a minimal route);
// off keeps the routes of the augmented candidate set, for comparison.
const OptionSpec kTurnsOption{"turns", OptionSpec::Kind::word, "on", {"on", "off"}, 0, 0,
                               "an allocation that is not a whole fault-free sub-torus (a block, a scattered job) "
                               "may also use First and Last Step orders of its minimal routes, each admitted only "
                               "when it closes no forbidden cycle in the channel dependency graph; on a machine "
                               "with failures this applies to the pairs that keep a minimal route; off keeps the "
                               "direction-order routes, for comparison"};

bool read_turns(const GeneratorOptions& options) { return option_text("balanced", kTurnsOption, options) == "on"; }

// Option `long_way`: how many hops longer than minimal a route of a
// sub-allocation may be, as a pure DOR route the long way round
// rings, where the minimal routes stay above the bound (the refinement
// below).  Default 2; 0 (or off) keeps every such route minimal.
const OptionSpec kLongWayOption{"long_way", OptionSpec::Kind::integer, "2", {"off"}, 0, 99,
                                 "where those minimal routes stay above what the same search reaches without the "
                                 "deadlock rule (scattered jobs on long rings), routes may go the long way round "
                                 "rings as direction-order routes at most this many hops longer than minimal; they "
                                 "close no forbidden cycle; 0 or off keeps every route minimal"};

int read_long_way(const GeneratorOptions& options) {
  return static_cast<int>(option_integer("balanced", kLongWayOption, options));
}

// Whether a candidate is a pure DOR + direction-bit route: its directions
// never go down in DOR order, so no mix of such routes closes a forbidden
// cycle.
bool pure_dor(const CandidateSet& set, std::size_t p, std::uint32_t v) {
  int last = -1;
  for (ChannelId c : set.channels(p, v)) {
    const int rank = Torus::channel_direction(c).rank();
    if (rank < last) return false;
    last = rank;
  }
  return true;
}

// Makes `choice` deadlock-free, given a deadlock-free `fallback` table: the
// dependency graph starts as the fallback's; the pure DOR routes of `choice`
// replace the fallback routes of their pairs where that closes no forbidden
// cycle (always, when the fallback is pure DOR too: DOR routes close none
// among themselves); then the routes with turns of `choice` go in on top of
// the fallback routes of their pairs (so that each of those stays
// admissible), each kept when it closes no forbidden cycle.  A pair whose
// route would not takes its least loaded candidate that closes none, at
// worst its fallback route.  (On a machine with failures the fallback has
// routes with turns, the checked-turn stage's among them, with which a DOR
// route of another sign choice can close a cycle: hence the check.)
void repair_deadlocks(const CandidateSet& set, const Torus& torus, FlowControl rule,
                      const std::vector<std::uint32_t>& loads, const std::vector<std::uint32_t>& fallback,
                      std::vector<std::uint32_t>* choice) {
  IncrementalDependencyGraph graph(torus, rule);
  std::vector<ChannelId> channels;
  auto path = [&](std::size_t p, std::uint32_t v) -> const std::vector<ChannelId>& {
    const ChannelSpan span = set.channels(p, v);
    channels.assign(span.begin(), span.end());
    return channels;
  };
  std::vector<std::size_t> turning, rejected;
  for (std::size_t p = 0; p < set.pair_count(); ++p)
    if (set.variants(p) > 0) graph.add_path(path(p, fallback[p]));
  for (std::size_t p = 0; p < set.pair_count(); ++p) {
    if (set.variants(p) == 0 || (*choice)[p] == fallback[p]) continue;
    if (!pure_dor(set, p, (*choice)[p])) {
      turning.push_back(p);
      continue;
    }
    graph.remove_path(path(p, fallback[p]));
    if (!graph.try_add_path(path(p, (*choice)[p]))) {
      graph.add_path(path(p, fallback[p]));
      rejected.push_back(p);
    }
  }
  for (std::size_t p : turning)
    if (!graph.try_add_path(path(p, (*choice)[p]))) rejected.push_back(p);
  std::vector<std::pair<std::uint64_t, std::uint32_t>> ranked;
  for (std::size_t p : rejected) {
    ranked.clear();
    for (std::uint32_t v = 0; v < set.variants(p); ++v) {
      if (v == (*choice)[p] || v == fallback[p]) continue;
      std::uint64_t peak = 0;
      for (ChannelId c : set.channels(p, v)) peak = std::max<std::uint64_t>(peak, loads[c]);
      ranked.emplace_back(peak, v);
    }
    std::sort(ranked.begin(), ranked.end());
    (*choice)[p] = fallback[p];
    for (const auto& [peak, v] : ranked)
      if (graph.try_add_path(path(p, v))) {
        (*choice)[p] = v;
        break;
      }
  }
}

// The refinement for sub-allocations (issue 12).  On a healthy torus the
// augmented candidates are the DOR routes alone, and a scattered or block
// allocation leaves most pairs a single one of them: far from the LP bound
// (routing/lp_bound.hpp), whose routes move one positive hop to the front
// (First Step) or one negative hop to the end (Last Step).  Here every
// minimal Angara-encodable route is a candidate, and the search of stages 2
// and 3 resumes from the table so far, each change of a route admitted only
// when it closes no forbidden cycle in the channel dependency graph of the
// others (DeadlockGuard), so the table stays deadlock-free.  Whole sub-tori
// without failures keep their construction (it is at the bound).
//
// On a machine with failures (issue 10: every machine of the placement
// bench has some, and its jobs were routed without this, 1.3-1.5x their LP
// bound) it runs, for allocations of up to kFaultyRefinementMaxNodes
// nodes other than the whole live machine, on the table the checked-turn
// stage completed, over the pairs that keep a minimal route; a pair that needs a detour (or that the
// augmented set could not route) keeps its route, whose dependencies stay
// in the guard's graph like every other route's.  So the refined table is
// as complete as the one it starts from, and no later stage touches it
// (that stage would take the long-way routes below for detours and
// "shorten" them, raising the max load again).
void refine_with_turns(const Network& network, const CandidateSet& narrow, const GeneratorOptions& options,
                       int long_way, RouteTable& table) {
  if (options.rules != RuleSet::angara || options.flow_control != FlowControl::bubble) return;
  // The whole live machine (the epilogues' default table, whole-machine
  // jobs) is left out too: there it gained 2-4% of max load for 5-10 times
  // the CPU (whole 8x8x8 with failures: 536 -> 525 at 1.6 -> 18.1 s; 4x4x4x8:
  // 544 -> 524 at 4.1 -> 27.7 s), where scattered halves gain 30%.
  const std::size_t live_nodes =
      static_cast<std::size_t>(network.torus().node_count()) - network.failed_nodes().size();
  if ((narrow.node_count() > kFaultyRefinementMaxNodes || narrow.node_count() == live_nodes) &&
      network.live_channel_count() != network.torus().cabled_channel_count())
    return;
  std::vector<std::uint32_t> seed;
  if (sub_torus_choice(network, narrow, &seed)) return;
  const CandidateSet wide = CandidateSet::with_all_turns(network, narrow, table, kCandidateCap);
  std::vector<std::uint32_t> choice;
  if (!choice_of_table(wide, table, &choice)) return;
  const std::uint32_t bound = candidate_space_bound(wide);
  const std::size_t slots = network.torus().channel_slots();
  Balancer balancer(wide, slots);
  balancer.assign(choice);
  if (balancer.max_load() <= bound) return;
  DeadlockGuard guard(wide, network.torus(), options.flow_control);
  balancer.guard_with(&guard);
  search(balancer, bound);
  if (balancer.max_load() <= bound) {
    table = wide.make_table(balancer.choice(), "balanced");
    return;
  }
  // A second start: the search without the deadlock rule (it reaches the
  // LP bound or close to it), its routes admitted by repair_deadlocks(),
  // then the guarded search again.  The better table is kept.
  Balancer free(wide, slots);
  free.assign(choice);
  search(free, bound);
  std::vector<std::uint32_t> repaired = free.choice();
  repair_deadlocks(wide, network.torus(), options.flow_control, free.loads(), choice, &repaired);
  Balancer second(wide, slots);
  second.assign(repaired);
  DeadlockGuard second_guard(wide, network.torus(), options.flow_control);
  second.guard_with(&second_guard);
  search(second, bound);
  Balancer& best = second.better_than(balancer) ? second : balancer;
  // What the deadlock rule costs: the same search without it (`free`)
  // reaches the LP bound or near it over the same minimal routes.  Where the
  // guarded tables stay above that, a third start from the best of them
  // admits pure DOR routes the long way round rings, at most `long_way` hops
  // longer (they close no forbidden cycle with other DOR routes), and aims
  // at free's max load, not lower (no polishing passes, which would take
  // detours to lower the spread and the max load further): detours are
  // there to win back what the deadlock rule costs, not to go below the
  // minimal optimum.  Kept only when it lowers the max load.
  const std::uint32_t target = std::max(bound, free.max_load());
  if (best.max_load() <= target || long_way == 0) {
    table = wide.make_table(best.choice(), "balanced");
    return;
  }
  const CandidateSet longer = CandidateSet::with_long_way_dor(network, wide, long_way);
  Balancer third(longer, slots);
  third.assign(best.choice());
  DeadlockGuard third_guard(longer, network.torus(), options.flow_control);
  third.guard_with(&third_guard);
  search(third, target, /*polish=*/false);
  if (third.max_load() < best.max_load())
    table = longer.make_table(third.choice(), "balanced");
  else
    table = wide.make_table(best.choice(), "balanced");
}

class BalancedGenerator : public Generator {
 public:
  std::string_view name() const override { return "balanced"; }
  std::vector<OptionSpec> option_specs() const override {
    return {kStartOption, kConstructionOption, kTurnsOption, kLongWayOption};
  }
  // On a whole fault-free torus it fills the table directly; elsewhere it
  // keeps the candidate routes of every pair.  Its First/Last Step
  // refinement holds every minimal encodable route of a pair, the long-way
  // routes and several balancers at once: 0.55-1.1 KiB a pair at 4-6 mean
  // hops, 0.8 KiB at 10 (random subsets of 128 to 1024 nodes,
  // doc/benchmarks.md, "Memory estimate").
  double peak_bytes(const MemoryContext& context, const GeneratorOptions& options) const override {
    const auto turns = options.extra.find(std::string(kTurnsOption.key));
    const bool refined = !context.whole_intact_torus && (turns == options.extra.end() || turns->second != "off") &&
                         (!context.faults || (context.allocation_size <= kFaultyRefinementMaxNodes &&
                                              context.allocation_size < context.live_nodes));
    const double fixed = context.whole_intact_torus ? 0.25 : refined ? 900 : 40;
    const double per_hop = context.whole_intact_torus ? 0 : refined ? 100 : 10;
    return context.pairs * (fixed + per_hop * context.mean_hops) + context.channel_slots * context.layers * 16;
  }
  // Node selection scores many candidate sets: in direction order (turns:
  // off, a few milliseconds each) unless turns is configured.
  std::optional<GeneratorOptions> scoring_options(const GeneratorOptions& configured) const override {
    if (configured.extra.count(std::string(kTurnsOption.key))) return std::nullopt;
    GeneratorOptions scoring = configured;
    scoring.extra[std::string(kTurnsOption.key)] = "off";
    return scoring;
  }

  RouteTable generate(const Network& network, const std::vector<NodeId>& allocation,
                      const GeneratorOptions& options) const override {
    // The shared allocation check: "NAME: allocated node ... has failed".
    RouteTable empty = start_route_table(name(), network, allocation);
    const Start start = read_start(options);
    const int long_way = read_long_way(options);
    if (read_construction(options))
      if (std::optional<RouteTable> table = sub_torus_table(network, std::move(empty))) return std::move(*table);
    const TurnRules rules(network);
    // Pairs without a candidate are routed (or refused, with the reason) by
    // the checked-turn stage, as are detours it can shorten.
    const CandidateSet set(network, rules, allocation, kCandidateCap, /*allow_unroutable=*/true);
    RouteTable table = balance(network, set, start, options);
    complete_with_checked_turns(name(), network, table, options);
    if (read_turns(options)) refine_with_turns(network, set, options, long_way, table);
    return table;
  }

 private:
  RouteTable balance(const Network& network, const CandidateSet& set, Start start,
                     const GeneratorOptions& options) const {
    const std::uint32_t bound = candidate_space_bound(set);
    const std::size_t slots = network.torus().channel_slots();

    Balancer balancer(set, slots);
    std::vector<std::uint32_t> seed;
    if (sub_torus_choice(network, set, &seed)) {
      balancer.assign(seed);
      search(balancer, bound);
      return set.make_table(balancer.choice(), "balanced");
    }
    bool from_sssp = false;
    if (start != Start::greedy && has_starting_table()) {
      GeneratorOptions plain;  // the starting generator's own defaults, not our options
      plain.seed = options.seed;
      try {
        if (choice_of_table(set, starting_table(network, set.nodes(), plain), &seed)) {
          balancer.assign(seed);
          from_sssp = true;
        }
      } catch (const RoutingError&) {
        // SSSP refused: the greedy start below still routes what it can.
      }
    }
    if (!from_sssp) balancer.assign_greedy();
    search(balancer, bound);
    if (start == Start::best && from_sssp && balancer.max_load() > bound) {
      Balancer greedy(set, slots);
      greedy.assign_greedy();
      search(greedy, bound);
      if (greedy.better_than(balancer)) return set.make_table(greedy.choice(), "balanced");
    }
    return set.make_table(balancer.choice(), "balanced");
  }
};

}  // namespace

std::unique_ptr<Generator> create_balanced_generator() { return std::make_unique<BalancedGenerator>(); }

}  // namespace angara
