// Stage 0 of the balanced generator for blocks (routing/generators/balanced.cpp):
// an allocation that is a box of a larger torus, without failures inside,
// routed in closed form like a whole sub-torus (sub_torus.hpp).
#pragma once

#include <optional>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "angara/rules.hpp"
#include "angara/torus.hpp"

namespace angara::balanced {

// A block: per dimension the allocation spans one coordinate, the whole
// ring, or a contiguous arc of it, every node of that box is allocated, and
// every channel between two of its nodes is live.  An arc whose minimal
// routes stay inside it (2 * (extent - 1) < ring size, placement/blocks.hpp,
// block_bound) is a mesh dimension: each pair has one minimal direction in
// it, and every route of the block that stays inside crosses the arc's
// middle, so direction-order routes load its middle channels with the cut's
// crossings, the least any table inside the block reaches.  A whole ring is
// routed as sub_torus_choice() routes it: the shorter way, and at a tie
// (delta = d/2) split so that the ring's channels carry the same load: on a
// ring of 4k by the source's parity (its d/2-hop arcs from the even
// positions going +D cover every +D channel k times, those from the odd
// positions every -D channel), otherwise by the parity of the other
// dimensions' displacement.  Every route is a pure DOR+direction-bit route
// (deadlock-free under bubble flow control; no ring dimension of 3 or more
// under flow control none), so the table is at the larger of the mesh cut
// and the rings' per-dimension bound: one pass over the pairs.
//
// Fills `table` (from start_route_table) and returns true; returns false,
// the table untouched, for anything else: no mesh dimension (a whole sub-torus,
// sub_torus_table's), an arc long enough for minimal routes to leave the
// block, a failure inside the box, a missing node, or ring dimensions under
// flow control none.
bool block_table(const Network& network, RouteTable& table, FlowControl rule);

// The dimensions (bit d for dimension d) in which `nodes`, a block of the
// shape block_table() routes, span the whole ring; nullopt when they are no
// such block.  A route the long way round one of those rings stays inside
// the block; round an arc it would cross routers of other jobs.
std::optional<unsigned> block_ring_dimensions(const Torus& torus, const std::vector<NodeId>& nodes);

}  // namespace angara::balanced
