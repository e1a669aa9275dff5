// The exact generator's rank search (rank_search, exact.hpp; large
// allocations, after an undecided repair).  A channel dependency graph has no cycle with a turn iff some integer rank
// per channel climbs strictly over every turn dependency and does not fall
// over any straight one (ranks: the topological index of the condensation;
// conversely a cycle keeps its rank constant, so it cannot turn).  So a
// table exists iff ranks exist under which every pair has an admissible
// route (one that climbs so), and the shortest admissible route of every
// pair, given ranks, is a table that the ranks certify.  Direction order
// (+X < +Y < ... < -X < ...) admits every DOR route; around failures some
// pairs need a turn against it.  The search: a small set of pairs, each with
// its candidates, asks the solver for ranks under which each of them has an
// admissible candidate, with as few turns against direction order as it can
// (soft constraints: each such turn breaks the DOR routes through it); the
// ranks then keep direction order wherever those turns allow, every pair is
// routed by a breadth-first search over admissible hops, the pairs left
// without a route join the set, and the question is asked again.  The
// repair's cores (a cycle through an intact ring, fed by thousands of pairs)
// do not arise: the ranks decide every pair at once.  With `collapse` all
// channels of an intact ring direction share one rank (a restriction, for
// routing: a 16x32 has 96 ring directions, so the question stays small);
// without it the ranks are per channel and, with every candidate, an
// unsatisfiable answer is a proof over the set's pairs (the question is
// exact's model over them, no assumption).
#include <z3++.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "angara/network.hpp"
#include "routing/common/checked_turns.hpp"
#include "routing/common/dependency_graph.hpp"
#include "routing/generators/exact/exact.hpp"
#include "routing/generators/exact/shared.hpp"

namespace angara {

namespace exact {

// The channels that share a rank: with `collapse`, those of each intact ring
// direction; otherwise each live channel alone.
struct ChannelGroups {
  std::vector<std::int32_t> of;  // channel -> group, -1: dead or absent
  std::vector<int> direction;    // group -> direction rank
};

ChannelGroups channel_groups(const Network& network, bool collapse) {
  const Torus& torus = network.torus();
  ChannelGroups groups;
  groups.of.assign(torus.channel_slots(), -1);
  for (ChannelId c = 0; c < torus.channel_slots(); ++c) {
    const Direction d = Torus::channel_direction(c);
    if (groups.of[c] >= 0 || !torus.direction_present(d) || !network.channel_alive(c)) continue;
    std::vector<ChannelId> ring{c};
    bool intact = collapse;
    for (NodeId node = torus.neighbor(Torus::channel_node(c), d); intact && node != Torus::channel_node(c);
         node = torus.neighbor(node, d)) {
      const ChannelId next = Torus::channel(node, d);
      if (!network.node_alive(node) || !network.channel_alive(next)) intact = false;
      ring.push_back(next);
    }
    const auto group = static_cast<std::int32_t>(groups.direction.size());
    groups.direction.push_back(d.rank());
    if (intact)
      for (ChannelId r : ring) groups.of[r] = group;
    else
      groups.of[c] = group;
  }
  return groups;
}

// Shortest admissible routes from one source to every node under given
// channel ranks: a breadth-first search over (node, encoding stage); a
// state's entry channel follows from its stage, so ranks see one channel.
class RankedSearch {
 public:
  RankedSearch(const Network& network, FlowControl flow)
      : network_(network), torus_(network.torus()), flow_(flow) {
    const std::size_t states = static_cast<std::size_t>(torus_.node_count()) * encodable::kStages;
    stamp_.assign(states, 0);
    parent_.assign(states, 0);
    hop_.assign(states, 0);
    first_.assign(torus_.node_count(), 0);
    first_stamp_.assign(torus_.node_count(), 0);
    depth_.assign(torus_.node_count(), 0);
  }

  bool admissible(ChannelId in, ChannelId out, const std::vector<std::int64_t>& rank) const {
    const bool straight = flow_ == FlowControl::bubble && Torus::channel_direction(in) == Torus::channel_direction(out);
    return straight ? rank[in] <= rank[out] : rank[in] < rank[out];
  }

  void search(NodeId src, const std::vector<std::int64_t>& rank) {
    using encodable::kStages;
    if (++epoch_ == 0) {
      std::fill(stamp_.begin(), stamp_.end(), 0);
      std::fill(first_stamp_.begin(), first_stamp_.end(), 0);
      epoch_ = 1;
    }
    const auto state = [](NodeId node, int stage) { return static_cast<std::uint32_t>(node) * kStages + stage; };
    std::vector<std::uint32_t> frontier{state(src, encodable::kBegin)}, next;
    stamp_[frontier[0]] = epoch_;
    first_stamp_[src] = epoch_;
    first_[src] = frontier[0];
    depth_[src] = 0;
    for (std::uint32_t level = 1; !frontier.empty(); ++level) {
      next.clear();
      work_ += frontier.size();
      for (const std::uint32_t s : frontier) {
        const NodeId node = s / kStages;
        const int stage = static_cast<int>(s % kStages);
        if (stage == encodable::kLastStep) continue;
        const bool has_entry = stage != encodable::kBegin;
        const ChannelId in =
            has_entry ? Torus::channel(torus_.neighbor(node, Direction(hop_[s]).opposite()), Direction(hop_[s])) : 0;
        for (int r = 0; r < kDirectionCount; ++r) {
          const Direction d(r);
          if (!torus_.direction_present(d)) continue;
          const ChannelId out = Torus::channel(node, d);
          if (!network_.channel_alive(out)) continue;
          if (has_entry && !admissible(in, out, rank)) continue;
          int targets[2];
          const int count = encodable::next_stages(stage, d, targets);
          const NodeId to = torus_.neighbor(node, d);
          for (int k = 0; k < count; ++k) {
            const std::uint32_t t = state(to, targets[k]);
            if (stamp_[t] == epoch_) continue;
            stamp_[t] = epoch_;
            parent_[t] = s;
            hop_[t] = static_cast<std::uint8_t>(r);
            if (first_stamp_[to] != epoch_) {
              first_stamp_[to] = epoch_;
              first_[to] = t;
              depth_[to] = level;
            }
            next.push_back(t);
          }
        }
      }
      frontier.swap(next);
    }
    src_ = src;
  }

  bool reached(NodeId dst) const { return first_stamp_[dst] == epoch_; }
  std::size_t depth(NodeId dst) const { return depth_[dst]; }
  // States expanded by all searches so far.
  std::uint64_t work() const { return work_; }

  Hops route(NodeId dst) const {
    Hops hops;
    for (std::uint32_t s = first_[dst]; s / encodable::kStages != src_ || s % encodable::kStages != encodable::kBegin;
         s = parent_[s])
      hops.push_back(Direction(hop_[s]));
    std::reverse(hops.begin(), hops.end());
    return hops;
  }

 private:
  const Network& network_;
  const Torus& torus_;
  FlowControl flow_;
  std::vector<std::uint32_t> stamp_, parent_, first_, first_stamp_, depth_;
  std::vector<std::uint8_t> hop_;
  std::uint32_t epoch_ = 0;
  NodeId src_ = 0;
  std::uint64_t work_ = 0;
};

class RankSearch {
 public:
  struct Edge {
    std::int32_t from, to;
    int strict;
    bool operator<(const Edge& o) const { return std::tie(from, to, strict) < std::tie(o.from, o.to, o.strict); }
  };

  // `budget`: the solver's resource units for all questions.
  RankSearch(const Network& network, RouteTable table, FlowControl flow, bool collapse, int slack,
             std::uint64_t budget = kRankBudget)
      : network_(network), torus_(network.torus()), table_(std::move(table)), flow_(flow),
        groups_(channel_groups(network, collapse && flow == FlowControl::bubble)), slack_(slack),
        proves_(slack < 0 && !(collapse && flow == FlowControl::bubble)), budget_(budget),
        search_(network, flow) {}

  // Routes every pair, or throws RoutingError (undecided, or with every
  // candidate and ranks per channel, the proof).
  RouteTable run(std::string* log) {
    const std::size_t n = table_.size();
    const std::vector<NodeId>& nodes = table_.nodes();
    std::vector<std::int64_t> direction_order(groups_.direction.begin(), groups_.direction.end());
    std::uint64_t budget = budget_;
    for (int round = 0;; ++round) {
      // Round 0: direction order (the DOR routes' ranks); then the best of the
      // solver's alternatives (fewest pairs left out, then fewest hops).
      std::vector<std::int64_t> rank;
      std::size_t hops = 0;
      std::vector<std::size_t> failing;
      for (std::size_t k = 0; k < std::max<std::size_t>(1, alternatives_.size()); ++k) {
        std::vector<std::int64_t> other = channel_ranks(alternatives_.empty() ? direction_order : alternatives_[k]);
        std::size_t other_hops = 0;
        std::vector<std::size_t> other_failing = failing_pairs(other, other_hops);
        if (k == 0 || std::make_pair(other_failing.size(), other_hops) < std::make_pair(failing.size(), hops)) {
          rank.swap(other);
          failing.swap(other_failing);
          hops = other_hops;
        }
      }
      if (log)
        *log += "round " + std::to_string(round) + ": " + std::to_string(failing.size()) +
                " pairs without an admissible route, " + std::to_string(pairs_.size()) + " in the question\n";
      if (log && failing.empty()) *log += "steps: " + std::to_string(search_.work() + walked_) + "\n";
      if (failing.empty()) {
        for (std::size_t s = 0; s < n; ++s) {
          search_.search(nodes[s], rank);
          for (std::size_t d = 0; d < n; ++d)
            if (d != s) table_.set_route(s, d, Route{search_.route(nodes[d])});
        }
        return std::move(table_);
      }
      if (round + 1 >= kRankRounds) throw undecided("no ranks after " + std::to_string(kRankRounds) + " rounds");
      add_pairs(failing);
      const auto [result, resources] = solve(std::min<std::uint64_t>(kResourceLimit, budget));
      budget -= std::min(budget, resources);
      if (log)
        *log += "  solver: " + std::string(result == z3::sat ? "sat" : result == z3::unsat ? "unsat" : "unknown") +
                ", " + std::to_string(resources) + " units\n";
      if (result == z3::unknown || (result == z3::sat && budget == 0))
        throw undecided(memory_bound_reached_ ? "the solver reached its memory bound of " +
                                                    std::to_string(kLargeQuestionSolverBytes >> 20) + " MiB"
                                              : "the solver spent its resource budget");
      if (result == z3::unsat && proves_) {
        // The proof, asked once more in exact's own model (routes, their
        // dependencies, levels) over the same pairs and every route of theirs.
        Question again;
        again.n = n;
        std::vector<std::vector<Hops>> routes(pairs_.size());
        std::vector<std::size_t> sorted = pairs_;
        std::sort(sorted.begin(), sorted.end());
        std::size_t k = 0;
        for_each_pair_routes(network_, nodes, sorted, [&](std::size_t p, std::vector<Hops> found) {
          again.pairs.push_back(p);
          routes[k] = std::move(found);
          again.routes.push_back(&routes[k++]);
        });
        if (exact::solve(network_, again, flow_, nodes).result == z3::unsat) throw RoutingError(proof());
        throw undecided("the solver's answers disagree");
      }
      if (result == z3::unsat) throw undecided("no ranks for the question's pairs");
    }
  }

 private:
  static constexpr int kRankRounds = 40;
  static constexpr std::uint64_t kRankBudget = 4 * std::uint64_t{kResourceLimit};
  static constexpr std::size_t kAddPerRound = 3000;
  // The breadth-first searches' expanded states and the candidates' walked
  // hops at most, together (the solver has its budget; this bounds the rest,
  // about a minute here: a whole faulty 16x32 of the fault campaign takes 13
  // million).
  static constexpr std::uint64_t kRankWork = 400'000'000;
  // The ranks of successive directions apart (room for the constraints' steps).
  static constexpr std::int64_t kRankSpacing = std::int64_t{1} << 24;

  // The pairs without an admissible route; `hops`: the routes' hops of the others.
  std::vector<std::size_t> failing_pairs(const std::vector<std::int64_t>& rank, std::size_t& hops) {
    const std::size_t n = table_.size();
    const std::vector<NodeId>& nodes = table_.nodes();
    std::vector<std::size_t> failing;
    for (std::size_t s = 0; s < n; ++s) {
      if (search_.work() + walked_ > kRankWork)
        throw undecided("its searches reached their limit of " + std::to_string(kRankWork) + " steps");
      search_.search(nodes[s], rank);
      for (std::size_t d = 0; d < n; ++d)
        if (d != s && !search_.reached(nodes[d]))
          failing.push_back(s * n + d);
        else
          hops += search_.depth(nodes[d]);
    }
    return failing;
  }

  std::vector<std::int64_t> channel_ranks(const std::vector<std::int64_t>& group_rank) const {
    std::vector<std::int64_t> rank(torus_.channel_slots(), 0);
    for (ChannelId c = 0; c < rank.size(); ++c)
      if (groups_.of[c] >= 0) rank[c] = group_rank[groups_.of[c]];
    return rank;
  }

  // Adds up to kAddPerRound of the failing pairs (spread evenly) with their
  // candidates as sets of rank constraints.
  void add_pairs(const std::vector<std::size_t>& failing) {
    const std::size_t n = table_.size();
    const std::vector<NodeId>& nodes = table_.nodes();
    std::vector<std::size_t> chosen;
    const std::size_t step = std::max<std::size_t>(1, (failing.size() + kAddPerRound - 1) / kAddPerRound);
    for (std::size_t k = 0; k < failing.size(); k += step) chosen.push_back(failing[k]);
    for_each_pair_routes(
        network_, nodes, chosen,
        [&](std::size_t p, const std::vector<Hops>& routes) {
      std::set<std::vector<std::int32_t>> sets;
      for (const Hops& hops : routes) {
        if (slack_ >= 0 && hops.size() > routes.front().size() + static_cast<std::size_t>(slack_)) break;
        const std::vector<ChannelId> channels = route_channels(torus_, nodes[p / n], hops);
        std::vector<std::int32_t> set;
        bool possible = true;
        for (std::size_t k = 1; k < channels.size() && possible; ++k) {
          const std::int32_t a = groups_.of[channels[k - 1]], b = groups_.of[channels[k]];
          const bool straight = flow_ == FlowControl::bubble &&
                                Torus::channel_direction(channels[k - 1]) == Torus::channel_direction(channels[k]);
          if (a == b) {
            possible = straight;
            continue;
          }
          const Edge e{a, b, straight ? 0 : 1};
          auto it = edge_index_.find(e);
          if (it == edge_index_.end()) {
            it = edge_index_.emplace(e, static_cast<std::int32_t>(edges_.size())).first;
            edges_.push_back(e);
          }
          set.push_back(it->second);
        }
        if (!possible) continue;
        std::sort(set.begin(), set.end());
        set.erase(std::unique(set.begin(), set.end()), set.end());
        sets.insert(std::move(set));
      }
      if (sets.empty())  // (no candidate at all: ranks never make one impossible)
        throw RoutingError("exact: " + torus_.format_coord(nodes[p / n]) + " -> " + torus_.format_coord(nodes[p % n]) +
                               ": no Angara-encodable route avoids the failures",
                           std::vector<NodePair>{{nodes[p / n], nodes[p % n]}},
                           "exact: no Angara-encodable route avoids the failures");
      pairs_.push_back(p);
      candidates_.emplace_back(sets.begin(), sets.end());
        },
        &walked_);
  }

  // The question over the pairs so far; on sat, the new group ranks.
  std::pair<z3::check_result, std::uint64_t> solve(std::uint64_t limit) {
    try {
      const SolverMemoryCap cap(kLargeQuestionSolverBytes);
      return solve_within_memory(limit);
    } catch (const z3::exception& error) {
      if (!is_out_of_memory(error)) throw;
      memory_bound_reached_ = true;  // as undecided as a spent budget
      return {z3::unknown, 0};
    }
  }

  std::pair<z3::check_result, std::uint64_t> solve_within_memory(std::uint64_t limit) {
    z3::context context;
    z3::optimize solver(context);
    z3::params params(context);
    params.set("rlimit", static_cast<unsigned>(limit));
    solver.set(params);
    std::map<std::int32_t, z3::expr> ranks;
    const auto rank_of = [&](std::int32_t g) {
      auto it = ranks.find(g);
      if (it == ranks.end()) it = ranks.emplace(g, context.int_const(("r" + std::to_string(g)).c_str())).first;
      return it->second;
    };
    std::vector<std::optional<z3::expr>> edge_var(edges_.size());
    const auto edge = [&](std::int32_t k) {
      if (!edge_var[k]) {
        const Edge& e = edges_[k];
        edge_var[k] = context.bool_const(("e" + std::to_string(k)).c_str());
        solver.add(z3::implies(*edge_var[k], rank_of(e.to) >= rank_of(e.from) + e.strict));
        // Turns against direction order are what breaks other pairs' DOR routes: as few as may be.
        if (e.strict && groups_.direction[e.from] > groups_.direction[e.to]) solver.add_soft(!*edge_var[k], 1);
      }
      return *edge_var[k];
    };
    std::vector<std::vector<z3::expr>> chosen(pairs_.size());
    std::size_t variables = 0;
    for (std::size_t i = 0; i < pairs_.size(); ++i) {
      z3::expr_vector any(context);
      bool free = false;
      for (const auto& set : candidates_[i]) {
        if (set.empty()) free = true;
        const z3::expr x = context.bool_const(("x" + std::to_string(variables++)).c_str());
        for (std::int32_t k : set) solver.add(z3::implies(x, edge(k)));
        any.push_back(x);
        chosen[i].push_back(x);
      }
      if (free) continue;
      if (any.empty()) return {z3::unsat, 0};
      solver.add(z3::mk_or(any));
    }
    const z3::check_result result = solver.check();
    const std::uint64_t resources = resources_spent(solver.statistics());
    if (result != z3::sat) return {result, resources};
    // The constraints of the chosen candidates; the new ranks keep direction
    // order where they can: rank = kDirectionCount * level + direction, with
    // the least levels (0 unless constrained) that satisfy them.
    const z3::model model = solver.get_model();
    std::vector<Edge> needed;
    for (std::size_t i = 0; i < pairs_.size(); ++i)
      for (std::size_t k = 0; k < chosen[i].size(); ++k)
        if (model.eval(chosen[i][k], true).is_true()) {
          for (std::int32_t e : candidates_[i][k]) needed.push_back(edges_[e]);
          break;
        }
    // Two ways to keep direction order where the chosen constraints allow:
    // lift (each group at least its direction's base, raised over what must
    // lie below it) and lower (at most the base, pushed under what must lie
    // above it).  Each satisfies the constraints, and so does their sum,
    // which moves both ends of an inverted turn halfway, so that the
    // inversion breaks no other turn of those two groups.
    const std::size_t groups = groups_.direction.size();
    std::vector<std::int64_t> up(groups), down(groups);
    for (std::size_t g = 0; g < groups; ++g) up[g] = down[g] = kRankSpacing * groups_.direction[g];
    for (std::size_t pass = 0; pass <= groups; ++pass) {
      bool changed = false;
      for (const Edge& e : needed) {
        if (up[e.to] < up[e.from] + e.strict) {
          up[e.to] = up[e.from] + e.strict;
          changed = true;
        }
        if (down[e.from] > down[e.to] - e.strict) {
          down[e.from] = down[e.to] - e.strict;
          changed = true;
        }
      }
      if (!changed) break;
    }
    alternatives_.assign(2, std::vector<std::int64_t>(groups));
    for (std::size_t g = 0; g < groups; ++g) {
      alternatives_[0][g] = up[g] + down[g];
      alternatives_[1][g] = 2 * up[g];
    }
    return {result, resources};
  }

  // Ranks per channel and every candidate: the question is exact's model
  // over the pairs asked about, without assumptions, so unsat is a proof.
  std::string proof() const {
    const std::size_t n = table_.size();
    std::string list;
    for (std::size_t k = 0; k < pairs_.size() && k < kPairsShown; ++k)
      list += (k ? ", " : "") + torus_.format_coord(table_.nodes()[pairs_[k] / n]) + " -> " +
              torus_.format_coord(table_.nodes()[pairs_[k] % n]);
    if (pairs_.size() > kPairsShown) list += " and " + std::to_string(pairs_.size() - kPairsShown) + " more";
    return no_table_exists(n, " of " + std::to_string(pairs_.size()) + " pairs, which alone admit no choice: " + list);
  }

  UndecidedError undecided(const std::string& why) const {
    const std::string what = "the rank search asked about " + std::to_string(pairs_.size()) + " pairs; " + why;
    return UndecidedError("exact: undecided for these " + std::to_string(table_.size()) + " nodes: " + what, what);
  }

  const Network& network_;
  const Torus& torus_;
  RouteTable table_;
  FlowControl flow_;
  ChannelGroups groups_;
  int slack_;
  bool proves_;
  std::uint64_t budget_;
  RankedSearch search_;
  std::vector<Edge> edges_;
  std::map<Edge, std::int32_t> edge_index_;
  std::vector<std::size_t> pairs_;
  std::uint64_t walked_ = 0;  // hops walked by the candidates' enumeration
  bool memory_bound_reached_ = false;  // a question hit SolverMemoryCap
  std::vector<std::vector<std::int64_t>> alternatives_;  // ranks per group after a satisfiable answer
  std::vector<std::vector<std::vector<std::int32_t>>> candidates_;  // per pair: constraint sets (edge indices)
};

RouteTable rank_search_with_budget(const Network& network, RouteTable table, FlowControl flow, bool collapse,
                                   int slack, std::uint64_t budget) {
  return RankSearch(network, std::move(table), flow, collapse, slack, budget).run(nullptr);
}

}  // namespace exact

RouteTable rank_search(const Network& network, RouteTable table, FlowControl flow, bool collapse, int slack,
                       std::string* log) {
  return exact::RankSearch(network, std::move(table), flow, collapse, slack).run(log);
}

}  // namespace angara
