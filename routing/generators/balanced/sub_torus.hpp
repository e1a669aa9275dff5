// Stage 0 of the balanced generator (routing/generators/balanced.cpp): the
// exact construction of whole fault-free sub-tori by displacement, through
// the candidate set (sub_torus_choice) or straight into the table
// (sub_torus_table), and the lower bound of a candidate space, at which the
// search of stages 2, 3 and 5 stops.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "routing/common/candidates.hpp"

namespace angara::balanced {

// max over dimensions of ceil(hops / channels): the hops each pair must spend
// in a dimension (the fewest over its candidates) over the channels of that
// dimension any candidate uses.  No choice of candidates goes below it.
std::uint32_t candidate_space_bound(const CandidateSet& set);

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
bool sub_torus_choice(const Network& network, const CandidateSet& set, std::vector<std::uint32_t>* choice);

// The construction of sub_torus_choice() without the candidate set,
// straight into the table: on a whole sub-torus each route depends on the
// displacement alone (and, for the one split pure class, on the source's
// parity), so the table is a few thousand packed routes copied into every
// row, which costs about as much as writing the table.
//
// Used only when the construction's loads are uniform: every channel of a
// direction carries the same load, and +D the same as -D.  Then the search
// that follows sub_torus_choice() leaves the table as it is: the max load is
// the candidate-space bound, and no move lowers the objective (a move only
// shifts hops between channels of one dimension, all at the same load, so it
// raises the spread or the max).  So this path returns exactly the table the
// full path returns; any other case (a size-6 ring's split class covers its
// channels once or twice) takes the full path.  Returns false then, with
// `table` (from start_route_table) untouched; true when it filled it.
bool sub_torus_table(const Network& network, RouteTable& table);

// sub_torus_table()'s routes by displacement class: the spanned dimensions,
// their mixed radix (X fastest), and per class the route, and for the
// classes split by the source's parity (split_dim >= 0) the odd sources'.
struct Construction {
  std::array<bool, kMaxDims> spanned{};
  std::array<std::size_t, kMaxDims> weight{};
  std::vector<PackedRoute> even_route, odd_route;
  std::vector<int> split_dim;
};

// The construction of a whole fault-free torus without the table of every
// pair: a machine with failures starts from it (around_failures.hpp), and
// its table of n^2 words for n live routers is written from the classes
// directly instead of copied from one of the whole machine's.
class DisplacementRoutes {
 public:
  // Nothing where sub_torus_table() returns false for the whole machine.
  static std::optional<DisplacementRoutes> of_whole(const Torus& torus);
  PackedRoute word(const Coord& from, const Coord& to) const;
  PackedRoute word(NodeId from, NodeId to) const { return word(torus_.coord(from), torus_.coord(to)); }
  // Calls hop(router, direction) for every hop of the route from -> to.
  template <typename Hop>
  void walk(NodeId from, NodeId to, Hop&& hop) const {
    NodeId at = from;
    RouteTable::for_each_packed_run(word(from, to), [&](Direction direction, int count) {
      for (int k = 0; k < count; ++k) {
        hop(at, direction);
        at = torus_.neighbor(at, direction);
      }
    });
  }
  // Every route of `table`, whose nodes are routers of the torus.
  void write(RouteTable& table) const;

 private:
  DisplacementRoutes(const Torus& torus, Construction made) : torus_(torus), made_(std::move(made)) {}
  const Torus& torus_;
  Construction made_;
};

}  // namespace angara::balanced
