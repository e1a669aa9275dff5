// Stage 5 of the balanced generator (routing/generators/balanced.cpp): the
// First/Last Step refinement and the long-way routes (refinement.hpp).
#include "routing/generators/balanced/refinement.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "angara/rules.hpp"
#include "angara/torus.hpp"
#include "routing/common/dependency_graph.hpp"
#include "routing/generators/balanced/anytime.hpp"
#include "routing/generators/balanced/balancer.hpp"
#include "routing/generators/balanced/sub_torus.hpp"

namespace angara::balanced {

namespace {

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

}  // namespace

namespace {

// Stages 2 and 3 over `wide`, from `choice` (the table's routes), under the
// deadlock guard, then the second start and the long-way routes.
void refine_from(const Network& network, const CandidateSet& wide, const std::vector<std::uint32_t>& choice,
                 const GeneratorOptions& options, int long_way, RouteTable& table) {
  WorkBudget* budget = options.budget.get();
  const auto out_of_budget = [budget](const char* stage) {
    if (!budget || !budget->exhausted()) return false;
    budget->note_cut(stage);
    return true;
  };
  const std::uint32_t bound = candidate_space_bound(wide);
  const std::size_t slots = network.torus().channel_slots();
  Balancer balancer(wide, slots);
  balancer.limit_work(budget);
  balancer.assign(choice);
  if (balancer.max_load() <= bound) {
    if (table.size() > 1 && !table.has_route(0, 1)) table = wide.make_table(choice, "balanced");  // started without routes
    return;
  }
  DeadlockGuard guard(wide, network.torus(), options.flow_control);
  balancer.guard_with(&guard);
  search(balancer, bound);
  if (balancer.max_load() <= bound || out_of_budget("First/Last Step refinement (stopped early)")) {
    table = wide.make_table(balancer.choice(), "balanced");
    return;
  }
  // A second start: the search without the deadlock rule (it reaches the
  // LP bound or close to it), its routes admitted by repair_deadlocks(),
  // then the guarded search again.  The better table is kept.
  Balancer free(wide, slots);
  free.limit_work(budget);
  free.assign(choice);
  search(free, bound);
  if (out_of_budget("second start of the refinement")) {
    table = wide.make_table(balancer.choice(), "balanced");
    return;
  }
  std::vector<std::uint32_t> repaired = free.choice();
  repair_deadlocks(wide, network.torus(), options.flow_control, free.loads(), choice, &repaired);
  Balancer second(wide, slots);
  second.limit_work(budget);
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
  if (best.max_load() <= target || long_way == 0 || out_of_budget("long-way routes")) {
    table = wide.make_table(best.choice(), "balanced");
    return;
  }
  const CandidateSet longer = CandidateSet::with_long_way_dor(network, wide, long_way);
  Balancer third(longer, slots);
  third.limit_work(budget);
  third.assign(best.choice());
  DeadlockGuard third_guard(longer, network.torus(), options.flow_control);
  third.guard_with(&third_guard);
  search(third, target, /*polish=*/false);
  out_of_budget("long-way routes (stopped early)");
  if (third.max_load() < best.max_load())
    table = longer.make_table(third.choice(), "balanced");
  else
    table = wide.make_table(best.choice(), "balanced");
}

}  // namespace

void refine_with_turns(const Network& network, const CandidateSet& narrow, const GeneratorOptions& options,
                       int long_way, RouteTable& table) {
  if (options.rules != RuleSet::angara || options.flow_control != FlowControl::bubble) return;
  // The whole live machine (the epilogues' default table, whole-machine
  // jobs) is left out too: there it gains 2-4% of max load for 5-10 times
  // the CPU (whole faulty 8x8x8: max load 525 against 536, 18.1 s against
  // 1.6 s; 4x4x4x8: 524 against 544, 27.7 s against 4.1 s), where scattered
  // halves gain 30%.
  const std::size_t live_nodes =
      static_cast<std::size_t>(network.torus().node_count()) - network.failed_nodes().size();
  if ((narrow.node_count() > kFaultyRefinementMaxNodes || narrow.node_count() == live_nodes) &&
      network.live_channel_count() != network.torus().cabled_channel_count())
    return;
  std::vector<std::uint32_t> seed;
  if (sub_torus_choice(network, narrow, &seed)) return;
  // The optional work of this stage runs on the budget (routing.time_budget);
  // every start keeps the best table reached when it runs out.
  WorkBudget* budget = options.budget.get();
  const auto out_of_budget = [budget](const char* stage) {
    if (!budget || !budget->exhausted()) return false;
    budget->note_cut(stage);
    return true;
  };
  if (out_of_budget("First/Last Step refinement")) return;
  std::vector<std::uint32_t> choice;
  const CandidateSet wide = CandidateSet::with_all_turns(network, narrow, table, kCandidateCap, &choice);
  if (budget) budget->spend(wide.pair_count());
  if (choice.empty()) return;  // a route on another layer: not a table of these candidates
  refine_from(network, wide, choice, options, long_way, table);
}

void refine_intact_with_turns(const Network& network, const GeneratorOptions& options, int long_way,
                              RouteTable& table) {
  if (options.rules != RuleSet::angara || options.flow_control != FlowControl::bubble) return;
  WorkBudget* budget = options.budget.get();
  if (budget && budget->exhausted()) {
    budget->note_cut("First/Last Step refinement");
    return;
  }
  std::vector<std::uint32_t> choice;
  const CandidateSet wide = CandidateSet::with_all_turns_of_intact(network, table, kCandidateCap, &choice);
  if (budget) budget->spend(wide.route_count());  // a step per candidate written
  if (choice.empty()) return;
  refine_from(network, wide, choice, options, long_way, table);
}


void refine_scattered_intact(const Network& network, const GeneratorOptions& options, int long_way,
                             RouteTable& table) {
  WorkBudget* budget = options.budget.get();
  const std::size_t slots = network.torus().channel_slots();
  // The start: every pair's direction-order routes, one per sign choice, and
  // its pure DOR routes at most `long_way` hops the long way round rings.
  // Pure DOR routes close no forbidden cycle among themselves, so this is a
  // table without a dependency graph; and on scattered jobs it is where the
  // guarded search of the minimal routes stalls (a random quarter of
  // 8x8x4x4 ends at 110 on the whole refinement without a limit, at 103 on
  // this one under 0.5 s).  Two starts, the better kept: the greedy choice
  // over them all, and the greedy choice over the minimal ones searched
  // (without a dependency graph) over them all on a tenth of the budget.
  // The second takes the long way only where the search finds it lowers
  // the max, and long routes the guarded search after it would have to take
  // back one by one are not there: under 2 s the random half of 8x8x4x4
  // starts at 338 instead of 344 (and ends at 316); the random quarter
  // starts at 112 instead of 114 (under 0.5 s its second start is at 124,
  // and the first is kept).
  std::vector<std::uint32_t> start;
  CandidateSet::LongWayRoutes long_ways;  // found once, for both sets
  {
    const TurnRules direction_order(network);  // on an intact machine: the DOR routes of every sign choice
    const CandidateSet minimal(network, direction_order, table.nodes(), kCandidateCap);
    long_ways = CandidateSet::long_way_dor_routes(network, minimal, long_way);
    const CandidateSet dor = CandidateSet::with_routes_after(minimal, long_ways);
    // What a greedy choice over a set costs: a step per candidate written,
    // and one per 4 channels its evaluations walk (a walk that only reads
    // loads: 7 ns a channel, where a step is about 30 ns; a random half of
    // 8x8x4x4, 9.3 million channels, in 0.064 s).
    const auto greedy_work = [](const CandidateSet& set) {
      return std::uint64_t{set.route_count()} + set.channel_count() / 4;
    };
    Balancer greedy(dor, slots);
    greedy.assign_greedy(/*searched_next=*/false);
    start = greedy.choice();
    if (budget) budget->spend(greedy_work(dor));
    const bool refined = options.rules == RuleSet::angara && options.flow_control == FlowControl::bubble;
    if (!refined || budget_below_turn_set(budget, table.size())) {
      if (refined && budget) budget->note_cut("First/Last Step refinement");
      table = dor.make_table(start, "balanced");
      return;
    }
    // The second start.  The minimal routes are the first candidates of
    // `dor` (with_routes_after), so a choice over them is one over `dor`.
    Balancer shortest(minimal, slots);
    shortest.assign_greedy(/*searched_next=*/false);
    Balancer searched(dor, slots);
    searched.assign(shortest.choice());
    if (budget) budget->spend(greedy_work(minimal) + dor.pair_count() * kEvaluationWork);  // and the search's index
    WorkBudget share(budget ? budget->left() / 10 + 1 : 0);
    searched.limit_work(&share);
    searched.local_search(candidate_space_bound(dor), /*polish=*/false);
    if (budget) budget->spend(share.used());
    if (searched.better_than(greedy)) start = searched.choice();
  }
  // Then the First/Last Step routes join them, and stages 2 and 3 search
  // the whole set from that start under the deadlock guard.  The start's
  // routes are the same channel sequences in the wider set: each pair's
  // direction-order routes are its first candidates there (`prefix`), in
  // the same order, and with_routes_after() appends the same long-way routes
  // after the set it widens.
  std::vector<std::uint32_t> prefix;
  const CandidateSet wide = CandidateSet::with_all_turns_of_intact(network, table, kCandidateCap, nullptr, &prefix);
  const std::uint32_t bound = candidate_space_bound(wide);
  const CandidateSet longer = CandidateSet::with_routes_after(wide, long_ways);
  long_ways = CandidateSet::LongWayRoutes();  // freed before the search
  if (budget) budget->spend(wide.route_count() + longer.route_count());
  for (std::size_t p = 0; p < start.size(); ++p)
    if (start[p] >= prefix[p]) start[p] = static_cast<std::uint32_t>(wide.variants(p) + (start[p] - prefix[p]));
  Balancer searching(longer, slots);
  searching.limit_work(budget);
  searching.assign(start);
  DeadlockGuard guard(longer, network.torus(), options.flow_control);
  searching.guard_with(&guard);
  search(searching, bound, /*polish=*/false);
  if (budget && budget->exhausted()) budget->note_cut("First/Last Step refinement (stopped early)");
  table = longer.make_table(searching.choice(), "balanced");
}

}  // namespace angara::balanced
