// Stage 5 of the balanced generator (routing/generators/balanced.cpp): the
// First/Last Step refinement of allocations that are not whole fault-free
// sub-tori, under a deadlock guard, and the long-way DOR routes where its
// minimal routes stay above what the search reaches without the deadlock
// rule.
#pragma once

#include <cstddef>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "routing/common/candidates.hpp"
#include "routing/common/generator_support.hpp"

namespace angara::balanced {

// Largest allocation of a machine with failures that gets the First/Last
// Step refinement (refine_with_turns).  Above it the refinement's candidate
// set (up to kCandidateCap routes a pair) costs far more than the augmented
// one and gains nothing on whole machines: with it a whole 16x8x8 with one
// failed router takes 106 s of CPU and 685 MB against 8 s and 146 MB without
// it, a whole 8x8x8 7.2 s against 1.3 s, both at the same max load.
constexpr std::size_t kFaultyRefinementMaxNodes = 512;

// The refinement for sub-allocations.  On a healthy torus the augmented
// candidates are the DOR routes alone, and a scattered or block allocation
// leaves most pairs a single one of them: far from the LP bound
// (routing/check/lp_bound.hpp), whose routes move one positive hop to the
// front (First Step) or one negative hop to the end (Last Step).  Here every
// minimal Angara-encodable route is a candidate, and the search of stages 2
// and 3 resumes from the table so far, each change of a route admitted only
// when it closes no forbidden cycle in the channel dependency graph of the
// others (DeadlockGuard), so the table stays deadlock-free.  Whole sub-tori
// without failures keep their construction (it is at the bound).
//
// On a machine with failures (every machine of the placement bench has some;
// without the refinement its jobs stay 1.3-1.5x their LP bound) it runs, for
// allocations of up to kFaultyRefinementMaxNodes nodes other than the whole
// live machine, on the table the checked-turn stage completed, over the
// pairs that keep a minimal route; a pair that needs a detour (or that the
// augmented set cannot route) keeps its route, whose dependencies stay in
// the guard's graph like every other route's.  So the refined table is as
// complete as the one it starts from, and no later stage touches it (that
// stage would take the long-way routes of this one for detours and
// "shorten" them, raising the max load again).
void refine_with_turns(const Network& network, const CandidateSet& narrow, const GeneratorOptions& options,
                       int long_way, RouteTable& table);

// The same refinement straight from a complete minimal table of a network
// whose every port is cabled and live (a block's closed form), without the
// augmented candidate set: there every pair's candidates are its minimal
// routes, and the First/Last Step set holds its direction-order ones too.
void refine_intact_with_turns(const Network& network, const GeneratorOptions& options, int long_way,
                              RouteTable& table);

// A job of such a network that is no block, whose time budget cannot pay
// for the whole refinement (anytime.hpp, budget_cuts_refinement), from
// nothing (`table` from start_route_table, without routes): the greedy
// start over every pair's direction-order routes and its pure DOR routes
// at most `long_way` hops the long way round rings (deadlock-free among
// themselves, so no dependency graph), then, when the budget leaves room
// for the First/Last Step set (kTurnSetWorkPerPair), a second start (the
// greedy choice over the minimal routes, searched over the long-way ones
// too without a dependency graph on a tenth of the budget), the better one
// kept, and stages 2 and 3 over that set and the same long-way routes from
// it under the deadlock guard.  The guarded search over the minimal routes, which the full
// refinement starts with, stalls far above the bound on scattered jobs
// before the long-way routes join (a random quarter of 8x8x4x4: 110 on the
// whole refinement without a limit, 103 this way under 0.5 s).
void refine_scattered_intact(const Network& network, const GeneratorOptions& options, int long_way,
                             RouteTable& table);

}  // namespace angara::balanced
