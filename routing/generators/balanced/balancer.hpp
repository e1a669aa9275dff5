// The load balancer of the balanced generator (routing/generators/balanced.cpp):
// stage 1 (greedy), stage 2 (local search) and stage 3 (negotiated
// congestion) over a candidate set, and the deadlock guard under which
// stage 5 runs them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "angara/route.hpp"
#include "angara/rules.hpp"
#include "angara/torus.hpp"
#include "routing/common/candidates.hpp"
#include "routing/common/dependency_graph.hpp"
#include "routing/common/work_budget.hpp"

namespace angara::balanced {

// The most candidate routes a pair keeps in the candidate sets searched here.
constexpr std::size_t kCandidateCap = 64;

// The budget's steps (WorkBudget) one evaluated candidate costs: a step is
// one channel a dependency-graph search expands (about 20 ns on the
// reference machine), an evaluation or a negotiation's costing of a
// candidate walks its channels and their loads (50-180 ns).
constexpr std::uint64_t kEvaluationWork = 6;

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
  DeadlockGuard(const CandidateSet& set, const Torus& torus, FlowControl rule);

  // The graph of `choice` (routes known to be deadlock-free together).
  void reset(const std::vector<std::uint32_t>& choice);
  // Pair p's route goes from variant `from` to `to` when that closes no
  // forbidden cycle; false (and nothing changed) otherwise.
  bool try_move(std::size_t p, std::uint32_t from, std::uint32_t to);
  // The cycle searches' work so far (IncrementalDependencyGraph::search_work).
  std::uint64_t work() const { return graph_ ? graph_->search_work() : 0; }

 private:
  static std::size_t slot(ChannelId from, ChannelId to);
  void forget();
  const std::vector<ChannelId>& copy(std::size_t p, std::uint32_t v, std::vector<ChannelId>* out) const;

  // Whether the walk `witness_[slot]` (the slot's cycle as a search found
  // it) is still in the graph: then the dependency still closes it.
  bool witnessed(std::size_t slot) const;

  const CandidateSet& set_;
  const Torus& torus_;
  FlowControl rule_;
  std::optional<IncrementalDependencyGraph> graph_;
  std::vector<std::uint32_t> closing_;  // per dependency slot: the epoch in which a search finds it closing a cycle
  std::uint32_t epoch_ = 1;             // bumped whenever a dependency disappears
  // Per dependency slot found closing a cycle: the walk back from its head
  // to its tail that closed it.  A route's moves are tried again and again
  // (a source's First Step routes share their first turn): while the walk
  // stands, the answer is known without a search, however many other
  // dependencies disappeared meanwhile.
  std::unordered_map<std::size_t, std::vector<ChannelId>> witness_;
  std::vector<ChannelId> walk_;
  std::vector<ChannelId> old_, new_, edge_ = std::vector<ChannelId>(2);
};

// One choice of a candidate per pair, with the channel loads it makes, and
// the stages that change it to lower the objective: max load, then number of
// channels at the max, then sum of load^4, compared lexicographically.
class Balancer {
 public:
  Balancer(const CandidateSet& set, std::size_t channel_slots);

  const std::vector<std::uint32_t>& choice() const { return choice_; }
  std::uint32_t max_load() const { return max_load_; }
  const std::vector<std::uint32_t>& loads() const { return loads_; }
  // Every later change of a route goes through `guard` (set after assign()).
  void guard_with(DeadlockGuard* guard);
  // Stages 2 and 3 spend their work from `budget` (candidate routes
  // evaluated and the guard's cycle searches) and stop, keeping the state
  // reached, once it is exhausted; nullptr: no limit.
  void limit_work(WorkBudget* budget) { budget_ = budget; }
  bool over_budget();
  // True if this state beats `other` on (max load, channels at max, spread).
  bool better_than(const Balancer& other) const;

  // Stage 1: each pair, most constrained first, takes the candidate with the
  // lowest (highest load it would create, added load^4).
  // `searched_next` false: only the choice and the loads are wanted, not
  // the per-channel lists the searches use.
  void assign_greedy(bool searched_next = true);

  // Starts from a given choice instead (e.g. another generator's table).
  void assign(const std::vector<std::uint32_t>& choice);

  // Stage 3, negotiated congestion (after PathFinder, McMurchie and Ebeling
  // 1995): to reach a max load of `target`, every pair in turn is ripped up
  // and rerouted on the candidate of least cost, where a channel costs
  // (1 + history) * (1 + pressure * overflow above target).  Pressure grows
  // each iteration; channels still above target after an iteration add their
  // overflow to their history, so persistently contested channels grow
  // expensive for everyone.  True (and the state kept) when the max load
  // reached `target`; otherwise the state is rolled back.
  bool negotiate(std::uint32_t target, int iterations);

  // Stage 2.
  // `polish`: then passes lowering the spread (and with it, often, the max
  // load below `bound`).
  void local_search(std::uint32_t bound, bool polish = true);

 private:
  // Per-channel lists of the pairs crossing it, and the max-load counters.
  void index();
  void recount_max();
  // Pair p's current route taken off the loads (removal_, on_route_) for
  // the evaluations of its candidates, and put back after them.
  void take_off(std::size_t p);
  void put_back(std::size_t p);
  // The effect of moving pair p to candidate `to`, between take_off(p) and
  // put_back(p).
  MoveDelta evaluate(std::size_t p, std::uint32_t to);
  void apply(std::size_t p, std::uint32_t to);
  // Best improving move of pair p, or false.
  bool best_move(std::size_t p, std::uint32_t* to);
  // Moves routes off the channels at the max load; true if anything moved.
  bool relieve_max_channels();
  // One pass over all pairs taking any improving move; true if anything moved.
  bool lower_spread();

  const CandidateSet& set_;
  // The channels any candidate uses, ascending: the only ones that ever
  // carry load, so the scans below are sized by the allocation, not by the
  // machine.
  std::vector<ChannelId> used_;
  DeadlockGuard* guard_ = nullptr;
  WorkBudget* budget_ = nullptr;
  std::uint64_t pending_work_ = 0;  // evaluations not yet charged to budget_
  std::uint64_t guard_work_seen_ = 0;
  std::vector<std::pair<MoveDelta, std::uint32_t>> moves_;  // scratch of best_move() under the guard
  std::vector<std::pair<double, std::uint32_t>> ranked_;    // scratch of negotiate() under the guard
  std::vector<std::uint32_t> choice_;
  std::vector<std::uint32_t> loads_;
  std::vector<int> delta_;     // per channel: a candidate's crossings, zero between evaluations
  std::vector<int> on_route_;  // per channel: minus the current route's crossings, zero outside take_off..put_back
  MoveDelta removal_;          // the current route's removal alone
  // Per channel the pairs whose route crosses it, in the order they took
  // it, as (pair, the pair's move count then): an entry whose count is not
  // the pair's current one is stale (the pair moved since).
  struct Crossing {
    std::uint32_t pair;
    std::uint32_t moves;
  };
  void crossing_now(ChannelId c, std::vector<std::uint32_t>* pairs) const;
  std::vector<std::vector<Crossing>> crossing_;
  std::vector<std::uint32_t> stale_;     // per channel: stale entries in its list
  std::vector<std::uint32_t> moves_of_;  // per pair: how often it moved since index()
  std::uint32_t max_load_ = 0;
  std::size_t at_max_ = 0;
  std::uint64_t spread_ = 0;
};

// The candidate indices of another generator's table, or false when one of
// its routes is not a candidate.
bool choice_of_table(const CandidateSet& set, const RouteTable& table, std::vector<std::uint32_t>* choice);

// Stages 2 and 3 from the balancer's current state.
void search(Balancer& balancer, std::uint32_t bound, bool polish = true);

}  // namespace angara::balanced
