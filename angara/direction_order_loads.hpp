// The channel loads of direction-order routes over a set of routers,
// counted from the set's coordinates instead of route by route.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "angara/route.hpp"
#include "angara/torus.hpp"

namespace angara {

// The way of a direction-order table in each dimension: from coordinate a
// to coordinate b, the sign of the run (+1, -1; 0 for a == b) and its hops.
// A route takes its positive runs in dimension order, then its negative
// ones (doc/model.md, "Routing rules").
struct DirectionOrderWays {
  std::array<int, kMaxDims> size{};
  std::array<std::vector<std::int8_t>, kMaxDims> sign;   // by at(dim, a, b)
  std::array<std::vector<std::uint8_t>, kMaxDims> hops;  // by at(dim, a, b)
  std::size_t at(int dim, int a, int b) const {
    return static_cast<std::size_t>(a) * static_cast<std::size_t>(size[dim]) + static_cast<std::size_t>(b);
  }
  // Sizes set, every way empty (sign 0): fill sign and hops of a != b.
  explicit DirectionOrderWays(const Torus& torus);
};

// The ways of dimension_order_table(torus, nodes, ties).
DirectionOrderWays dimension_order_ways(const Torus& torus, const RingTies& ties);
inline DirectionOrderWays dimension_order_ways(const Torus& torus, bool split_ties) {
  return dimension_order_ways(torus, split_ties ? RingTies::split() : RingTies::positive());
}

// Per channel slot (Torus::channel), the number of ordered pairs of
// distinct routers of `nodes` whose direction-order route under `ways`
// takes the channel.  A run of direction D = (k, s) at router c belongs to a
// pair whose coordinates other than k are, dimension by dimension, either
// the destination's (that dimension's run comes before D) or the source's
// (it comes after D, or there is none).  So the load is a sum over those
// 2^(d-1) choices of products of two counts of the set, one transformed
// along the destination-side dimensions (the sources' coordinates that put
// their run before D), one along the others, combined along each ring of
// dimension k.  The work is about 64 N * (sum of the ring sizes) for a
// machine of N routers (direction_order_loads_work), whatever the number of
// pairs.
std::vector<std::int64_t> direction_order_loads(const Torus& torus, const DirectionOrderWays& ways,
                                                const std::vector<NodeId>& nodes);
std::uint64_t direction_order_loads_work(const Torus& torus);

// The loads and, with `dependencies`, what a channel dependency graph needs
// of the same routes: per channel the runs whose last hop it is, and per
// channel and next direction the routes that turn there (the run ends on
// the channel and the next one leaves in that direction).  A turn from D to
// D' at a router is counted like a load: in D's dimension the router has
// the destination's coordinate, reached by a run of D; in D''s the
// source's, left by a run of D'; every other dimension done before D or
// after D' (or without a run).  About twice the work of the loads alone.
struct DirectionOrderCounts {
  std::vector<std::int64_t> loads;  // by channel slot
  std::vector<std::int64_t> ends;   // by channel slot
  std::vector<std::int64_t> turns;  // by channel slot * kDirectionCount + the next direction's rank
};
DirectionOrderCounts direction_order_counts(const Torus& torus, const DirectionOrderWays& ways,
                                            const std::vector<NodeId>& nodes, bool dependencies);

}  // namespace angara
