// The balanced generator's first table when the time budget
// (routing.time_budget) cannot pay for its search (routing/generators/balanced.cpp):
// the direction-order table, verified by construction, in place of the
// candidate sets, the greedy start and the refinement's dependency graph.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "angara/rules.hpp"
#include "routing/common/checked_turns.hpp"
#include "routing/common/generator_support.hpp"
#include "routing/common/work_budget.hpp"
#include "routing/generators/balanced/ring_ways.hpp"

namespace angara::balanced {

// The budget's steps (WorkBudget) that the stages every searched table
// needs cost per ordered pair on the reference machine: the candidate sets
// (direction order and First/Last Step), the greedy start, the bounds, the
// balancers' indexes, the deadlock guard's graph and the tables made from
// them.  Measured with bench/angara-scale --cases latency on the 1024-node
// cases: 0.85 s on the 8x8x4x4 block of 8x8x8x8, 1.26 s on the scattered
// 1024 nodes of 8x8x8x8, a million pairs each, at 30e6 steps a second:
// 25 and 38 steps a pair.
constexpr std::uint64_t kFixedWorkPerPair = 40;

// True when a limited budget holds less than the fixed stages' work for
// `nodes` allocated nodes: those stages alone would overrun it (the budget
// counts the searches' work only, the fixed stages come on top), and the
// searches would have too little left to do better than direction order.
// A million pairs need 40e6 steps: the default 2 s (51e6 steps) searches
// them, 0.5 s (12.75e6) takes direction order; 512 nodes (10.5e6) are
// searched under either.
bool budget_below_fixed_stages(const WorkBudget* budget, std::size_t nodes);

// True when a limited budget holds less than kBindingShare times the fixed
// stages' work: it will cut the searches, and where it goes matters.  On a
// healthy machine it then goes to the First/Last Step refinement alone
// (refinement.hpp, refine_intact_with_turns); a block whose budget it does
// not bind searches the direction-order routes first, then the refinement,
// as without a budget (up to 564 nodes under the default 2 s).  Any other
// job of a healthy machine follows budget_cuts_refinement() below.
constexpr std::uint64_t kBindingShare = 4;
bool budget_binds(const WorkBudget* budget, std::size_t nodes);

// What the whole refinement of a scattered job costs a pair when no budget
// cuts it: the augmented search, the guarded First/Last Step search, its
// second start and the long-way routes (no limit, one core: a random
// quarter of 8x8x4x4 1.6e9 steps in 9.6 s, 24000 a pair).  A healthy
// machine's job that is
// no block and whose budget holds less goes the short way
// (refinement.hpp, refine_scattered_intact): under the default 2 s every
// such job above 41 nodes, under 0.5 s above 20.
constexpr std::uint64_t kFullRefinementWorkPerPair = 30000;
bool budget_cuts_refinement(const WorkBudget* budget, std::size_t nodes);

// The steps a pair that the First/Last Step set, its long-way routes and
// the deadlock guard's graph cost to build (a scattered 1024 nodes of
// 8x8x8x8: 0.95 s for a million pairs, 29 steps a pair), and as many again
// for a search worth running: the short way stops at its start below.
constexpr std::uint64_t kTurnSetWorkPerPair = 64;
bool budget_below_turn_set(const WorkBudget* budget, std::size_t nodes);

// The steps direction_order_start() spends counting the loads of both its
// tables from the allocation's counts (angara/direction_order_loads.hpp):
// whatever the number of pairs, about 40 units of
// direction_order_loads_work a step, twice (a random quarter of 16x16x8x8
// 0.04 s a table, a random half of 8x8x8x8 0.007 s).
std::uint64_t tie_choice_work(const Torus& torus);

// The direction-order table of `table`'s nodes (from start_route_table), or
// false, the table untouched: a block of a larger torus in closed form
// (block_table, ring ties split evenly) where the budget cannot pay for the
// ring ways below or a port is down, or on a machine whose every port is
// cabled and live the plain dimension-order table (dimension_order_table).
// Its routes are pure DOR+direction-bit routes, which under bubble flow
// control close no forbidden cycle among themselves (doc/model.md,
// "Deadlock rule"), and minimal; so it needs no candidate set and no cycle
// check.  Under flow control none only a block without a ring qualifies.
// On such a machine, when the budget pays for counting both, the ring ties
// go the positive way or split by the source's parity, whichever table has
// the lower max load (dimension_order_table); otherwise the positive way
// (said as "choice of the ring ties" cut).  Then, on such a machine, the
// pairs take other ways round their rings (at most `long_way` hops longer;
// a block's, only round the rings it spans whole, so that its routes stay
// inside it) while the budget lasts (balance_ring_ways, ring_ways.hpp),
// which says in `balanced` how far it went.
bool direction_order_start(const Network& network, RouteTable& table, FlowControl rule, WorkBudget* budget,
                           int long_way = 0, RingWaysOutcome* balanced = nullptr);

// The same start on a machine with failed routers or cables, under bubble
// flow control (else false, the table untouched): the direction-order
// table (its ties as above), the pairs whose route meets a failure cleared
// and routed by the checked-turn stage (routing/common/checked_turns.hpp)
// around the others, which close no forbidden cycle among themselves; a
// pair it cannot route is refused with its RoutingError.  For a job too
// large for the searched stages on the budget: a scattered 4096 nodes of
// 16x16x8x8 with two failed routers took 87 s of CPU through them.  The
// checked-turn stage's loads and dependency counts come from the
// allocation's counts (count_around_cut_work steps); it shortens the cut
// pairs' detours when the budget holds kShorteningWorkPerPair steps a pair
// more (a detour's shortening costs 1 ms on 8x8x4x4, 20 ms on 16x8x8x8).
constexpr std::uint64_t kShorteningWorkPerPair = 3;
std::uint64_t count_around_cut_work(const Torus& torus, std::size_t cut_pairs);
// What the checked-turn stage needs of a direction-order table (with ring
// ties `ties`) whose `cut` pairs lost their direction-order route
// (`cut_routes`) and may have another in `table`: the loads and, with
// `with_dependencies`, the dependency counts that walk_route_dependencies()
// counts, from the allocation's counts (angara/direction_order_loads.hpp)
// less the cut pairs' direction-order routes plus their routes in the
// table, in work that grows with the machine and the cut pairs, not with
// every pair.
RouteDependencies count_around_cut(const Torus& torus, const RouteTable& table, const RingTies& ties,
                                   const std::vector<std::pair<std::size_t, std::size_t>>& cut,
                                   const std::vector<Route>& cut_routes, bool with_dependencies);
constexpr std::size_t kFilteredFailures = 64;  // failure points the pair filter tests; above, every route is walked
// Before the cut pairs are routed, the others go other ways round their
// rings as in direction_order_start() (balance_ring_ways_around), on half
// of the budget left, keeping to live channels.
bool direction_order_around_failures(const Network& network, RouteTable& table, const GeneratorOptions& options,
                                     int long_way = 0, RingWaysOutcome* balanced = nullptr);

}  // namespace angara::balanced
