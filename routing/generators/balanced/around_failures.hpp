// Stage 0 of the balanced generator for a whole torus with a few failures
// (routing/generators/balanced.cpp): the closed form of the fault-free
// machine (sub_torus.hpp) for every pair whose route the failures leave
// alone, and stages 1-4 only for the pairs around them.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "routing/common/checked_turns.hpp"
#include "routing/common/generator_support.hpp"
#include "routing/common/work_budget.hpp"

namespace angara::balanced {

// The smallest whole machine routed this way by the generator: below it the
// greedy start over every pair costs little, and the tables of the fault
// campaign (doc/benchmarks.md, "Fault campaign", up to 512 nodes) stay as
// they are.
constexpr std::size_t kAroundFailuresMinNodes = 1000;

// Pairs whose closed-form route comes within this many hops of a failure
// (a failed router, or either end of a failed cable), or starts or ends
// there, are assigned greedily at the start of the search; the others start
// on their closed-form route.  With 0 only the cut routes are reassigned,
// and the search ends higher (8x8x4x4: 1046 and 1097 with one and three
// failed routers, against 1037 and 1062 with 1 and 1032 and 1043 with 2, the
// greedy start over every pair 1031 and 1038), 2 costs as much as a greedy
// start over every pair where failures are many.
constexpr int kAroundFailuresRadius = 1;

// Whether around_failures_table() can route an allocation of `nodes` on a
// machine with failures (`faults`) and `live_nodes` live routers: the whole
// live machine under bubble flow control.  (The generator asks it from
// kAroundFailuresMinNodes nodes on.)
bool routes_around_failures(bool faults, std::size_t nodes, std::size_t live_nodes, FlowControl rule);

// Whether `budget` pays for the search over every pair of `nodes` (its
// set-up, and as much again for the search); otherwise only the pairs the
// failures cut get new routes.
bool search_every_pair_affordable(const WorkBudget* budget, std::size_t nodes);

// What the table around failures holds besides the program and the route
// table when the search over every pair does not run: the cut pairs, their
// candidates and the checked-turn stage on the detours (the closed form is
// kept by displacement class, not as a table).  Whole 8x8x8x8 with one
// failed router: 75 MB of growth for 16.8 million pairs; 16x8x8x8 with
// two: 289 MB for 67 million, 4.3 bytes a pair with the route table's 4;
// the verifier's pass comes on top.
constexpr double kAroundFailuresBytesPerPair = 4;

// A whole torus with failures: `table` (from start_route_table) holds every
// live node of a machine whose fault-free table has the uniform closed form
// of sub_torus_table().  The search starts from that closed form instead of
// the greedy assignment (stage 1): every pair whose closed-form route stays
// clear of the failures keeps it, and only the pairs they cut or pass next
// to take a candidate greedily around the others.  Stages 2 and 3 then balance every pair on
// the budget (routing.time_budget), and the checked-turn stage
// (routing/common/checked_turns.hpp) works only on the pairs the candidates
// leave without a route or with a detour, on a dependency graph that takes
// every other route unchecked: they close no forbidden cycle among
// themselves, being direction-order routes and routes with the
// augmentation's turns only (ANSU paper, section 3.2, Theorem 2;
// doc/model.md, "Deadlock rule").  The closed form holds the load of every
// channel at the per-dimension bound, so the search has only the failures'
// disturbance to even out: on 8x8x4x4 with one failed router it reaches
// 1037 (bound 1024), where the greedy start over every pair reaches 1031
// in 1.7 s of CPU against 1.2-1.4 s (bench/angara-scale --cases latency),
// and the search from the greedy start followed by the checked-turn stage
// over every pair 1031 in 2.4 s.
//
// The search over every pair is optional work: the set-up of its candidate
// set (13 budget steps a pair, 0.45 s of CPU for 8x8x4x4 with one failed
// router) is paid from the budget and runs only when as much again is left
// for the search: from a routing.time_budget of about 1.1 s on 8x8x4x4.
// Under a smaller budget only the cut pairs get new routes, each greedily
// the least loaded of its minimal candidates or, when the failures leave
// none, of its shortest live direction-order routes (the long way round a
// ring; deadlock-free like every direction-order route), and the budget's
// note says "load balancing (not run)": on 8x8x4x4 with one and three
// failed routers and a 0.5 s budget, a table in 0.46-0.51 s at 1.17-1.26
// times the bound, against 1.2-1.4 s at 1.01-1.04 with the default budget
// (doc/benchmarks.md, "Latency of a job's tables").
//
// Returns false, `table` untouched, when the allocation is not such a whole
// machine, the flow control is not bubble (the closed form's rings close
// cycles that are deadlocks under none), or the checked-turn stage leaves
// pairs without a route (the full stage, where every pair's dependencies
// are checked, may still route them).
bool around_failures_table(const Network& network, RouteTable& table, const GeneratorOptions& options);

// The start around_failures_table() takes when the budget leaves out the
// search over every pair, for the tests: the closed form for every pair
// the failures leave alone, a candidate for each pair they cut, the pairs
// listed for the checked-turn stage (the cut ones) and the dependency
// counts and channel loads of the table's routes, which come from the
// closed form's rows of one source per parity class of the even-sized
// coordinates rather than from a walk over every route.  nullopt when the
// machine has no uniform closed form.
struct CutPairsStart {
  RouteTable table;
  std::vector<std::pair<std::size_t, std::size_t>> listed;
  RouteDependencies dependencies;
};
std::optional<CutPairsStart> cut_pairs_start(const Network& network, const std::vector<NodeId>& nodes);

// The `cut` pairs of `result` (allocation indices; without a route, their
// start's route having met a failure), the most constrained first, each take
// the least loaded of their candidates: the augmented rules' minimal routes
// (ANSU paper, section 3.2), else the shortest live direction-order routes;
// these close no forbidden cycle with the start's direction-order routes
// under bubble flow control.  A pair without a candidate stays without a
// route, for the checked-turn stage.  `counted` holds the loads of
// `result`'s routes and their dependencies (or none: edge_counts empty) and
// takes the new ones.
void assign_cut_pairs(const Network& network, const std::vector<std::pair<std::size_t, std::size_t>>& cut,
                      RouteTable& result, RouteDependencies& counted);

}  // namespace angara::balanced
