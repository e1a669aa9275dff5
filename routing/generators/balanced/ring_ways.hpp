// Stage 2 of the balanced generator for a table that stays direction-order
// (a budget below the fixed stages of the candidate search, anytime.hpp):
// each pair may take its run in a dimension the other way round the ring.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "angara/direction_order_loads.hpp"
#include "angara/network.hpp"
#include "angara/route.hpp"
#include "angara/torus.hpp"
#include "routing/common/work_budget.hpp"

namespace angara::balanced {

// What balance_ring_ways() did, for the report.
enum class RingWaysOutcome {
  not_run,    // the budget could not pay for its start
  converged,  // a channel at the max load kept every pair it carries
  stopped,    // the budget ended first
};

// Local search (stage 2, balancer.hpp) over the direction-order routes
// alone.  `table` holds the direction-order routes of `ways` (its ring ties
// included) for every pair; a pair may instead go the other way round the
// ring in any of its dimensions: a tie's other half at no cost, otherwise
// at most `long_way` hops longer in all.  Every such route keeps the
// direction order (positive runs in dimension order, then negative ones),
// so under bubble flow control the table stays deadlock-free
// (doc/model.md, "Deadlock rule"), and its words stay compact.
//
// While the budget lasts, every channel at the max load gives up one pair
// to another of its ways that raises no channel to the max (of those, the
// way whose busiest new channel is least loaded, then the fewest hops).
// The pairs on a channel are enumerated from coordinates
// (a pair crosses router r in direction D when, dimension by dimension, it
// has r's coordinate where its run comes after D's, the destination's
// where it comes before, and r on D's run), not from lists of every route,
// so memory stays at a byte a pair.  It stops when a channel at the max
// keeps every pair (the max cannot drop), or the budget ends.
//
// On a random half of 8x8x8x8 (seed 1 of bench/angara-scale) the
// direction-order table's max load of 2080 drops to 1864 in 1.5 s of CPU
// and to 1700 in 5 s.
//
// `long_way_dimensions` (bit d for dimension d) limits the long ways to
// those dimensions: a block keeps its routes inside by going the long way
// only round the rings it spans whole (anytime.hpp, direction_order_start).
constexpr unsigned kEveryDimension = (1u << kMaxDims) - 1;
RingWaysOutcome balance_ring_ways(const Torus& torus, const DirectionOrderWays& ways, int long_way, RouteTable& table,
                                  WorkBudget* budget, unsigned long_way_dimensions = kEveryDimension);

// A pair balance_ring_ways_around() moved, with its direction-order route.
struct MovedPair {
  std::size_t source, target;  // allocation indices
  Route direction_order;
};

// The same beside failures: the pairs in `kept` (their direction-order
// route cut) keep whatever `table` has for them and are never moved; no
// way takes a dead channel; the search starts from `loads` (by channel
// slot: the routes of `table` it counts) and leaves them as it ends.  The
// pairs it moved, in (source, target) order, go to `moved`.
RingWaysOutcome balance_ring_ways_around(const Network& network, const DirectionOrderWays& ways, int long_way,
                                         const std::vector<std::pair<std::size_t, std::size_t>>& kept,
                                         std::vector<std::int64_t>& loads, RouteTable& table, WorkBudget* budget,
                                         std::vector<MovedPair>& moved);

// The steps balance_ring_ways() needs before its first move (the loads by
// counts and a byte a pair): it does not start below them.
std::uint64_t ring_ways_start_work(const Torus& torus, std::size_t nodes);

// Whether balance_ring_ways() would start on `nodes` allocated nodes of
// `torus`: it can index them (up to 16384 nodes, ring sizes up to 255) and
// `budget` (nullptr: no limit) holds twice its start once `before` steps
// are spent.
bool ring_ways_can_start(const Torus& torus, std::size_t nodes, const WorkBudget* budget, std::uint64_t before = 0);

}  // namespace angara::balanced
