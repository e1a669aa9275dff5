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
//     bring the max one lower, and stage 2 resumes after each success.
// Everything is deterministic.  The search stops at the lower bound of the
// candidate space (no table of these candidates can do better).
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "routing/candidates.hpp"
#include "routing/checked_turns.hpp"
#include "routing/generator.hpp"

namespace angara {

namespace {

constexpr std::size_t kCandidateCap = 64;
// Safety net on rounds of the local search; each round is one pass, and every
// accepted move strictly lowers the objective, so this is rarely reached.
constexpr int kMaxRounds = 400;
constexpr int kPolishPasses = 4;
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
          std::size_t m = 0, classes = 1;
          for (int other = 0; other < kMaxDims; ++other) {
            if (other == dim || !spanned[other]) continue;
            m = m * static_cast<std::size_t>(torus.size(other)) + static_cast<std::size_t>(delta[other]);
            classes *= static_cast<std::size_t>(torus.size(other));
          }
          positive = m % 2 == 0;
          if (m == 0 && classes % 2 == 1 && size >= 4) positive = from[dim] % 2 == 0;
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

class Balancer {
 public:
  Balancer(const CandidateSet& set, std::size_t channel_slots)
      : set_(set),
        choice_(set.pair_count(), 0),
        loads_(channel_slots, 0),
        delta_(channel_slots, 0),
        crossing_(channel_slots) {}

  const std::vector<std::uint32_t>& choice() const { return choice_; }
  std::uint32_t max_load() const { return max_load_; }
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
        double best_cost = cost_of(best);
        for (std::uint32_t v = 0; v < set_.variants(p); ++v) {
          if (v == choice_[p]) continue;
          const double cost = cost_of(v);
          if (cost < best_cost) {
            best = v;
            best_cost = cost;
          }
        }
        choice_[p] = best;
        for (ChannelId c : set_.channels(p, best)) ++loads_[c];
      }
      bool over = false;
      for (ChannelId c = 0; c < loads_.size(); ++c)
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
  void local_search(std::uint32_t bound) {
    for (int round = 0; round < kMaxRounds && max_load_ > bound; ++round)
      if (!relieve_max_channels() && !lower_spread()) break;
    for (int pass = 0; pass < kPolishPasses; ++pass)
      if (!lower_spread()) break;
  }

 private:
  // Per-channel lists of the pairs crossing it, and the max-load counters.
  void index() {
    for (auto& list : crossing_) list.clear();
    for (std::size_t p = 0; p < set_.pair_count(); ++p)
      if (set_.variants(p) > 0)
        for (ChannelId c : set_.channels(p, choice_[p])) crossing_[c].push_back(static_cast<std::uint32_t>(p));
    recount_max();
  }

  void recount_max() {
    max_load_ = 0;
    at_max_ = 0;
    spread_ = 0;
    for (std::uint32_t load : loads_) {
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
    for (std::uint32_t v = 0; v < set_.variants(p); ++v) {
      if (v == choice_[p]) continue;
      const MoveDelta delta = evaluate(p, v);
      if (delta.improves() && (!best.valid || delta.better_than(best))) {
        best = delta;
        *to = v;
      }
    }
    return best.valid;
  }

  // Moves routes off the channels at the max load; true if anything moved.
  bool relieve_max_channels() {
    bool moved = false;
    std::vector<ChannelId> hottest;
    for (ChannelId c = 0; c < loads_.size(); ++c)
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

Start read_start(const GeneratorOptions& options) {
  const auto it = options.extra.find("start");
  if (it == options.extra.end() || it->second == "greedy") return Start::greedy;
  if (it->second == "sssp") return Start::sssp;
  if (it->second == "best") return Start::best;
  throw std::invalid_argument("balanced: option 'start' expects greedy, sssp or best, got '" + it->second + "'");
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
void search(Balancer& balancer, std::uint32_t bound) {
  balancer.local_search(bound);
  while (balancer.max_load() > bound && balancer.negotiate(balancer.max_load() - 1, kNegotiationRounds))
    balancer.local_search(bound);
}

class BalancedGenerator : public Generator {
 public:
  std::string_view name() const override { return "balanced"; }

  RouteTable generate(const Network& network, const std::vector<NodeId>& allocation,
                      const GeneratorOptions& options) const override {
    // The shared allocation check: "NAME: allocated node ... has failed".
    start_route_table(name(), network, allocation);
    const Start start = read_start(options);
    const TurnRules rules(network);
    // Pairs without a candidate are routed (or refused, with the reason) by
    // the checked-turn stage, as are detours it can shorten.
    const CandidateSet set(network, rules, allocation, kCandidateCap, /*allow_unroutable=*/true);
    RouteTable table = balance(network, set, start, options);
    complete_with_checked_turns(name(), network, table, options);
    return table;
  }

 private:
  static RouteTable balance(const Network& network, const CandidateSet& set, Start start,
                            const GeneratorOptions& options) {
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
    if (start != Start::greedy) {
      const std::unique_ptr<Generator> sssp = make_generator("sssp");
      GeneratorOptions plain;  // SSSP's own defaults, not our options
      plain.seed = options.seed;
      try {
        if (sssp && choice_of_table(set, sssp->generate(network, set.nodes(), plain), &seed)) {
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
