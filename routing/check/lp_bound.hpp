// The LP lower bound on max gamma (doc/model.md, "Metrics"): the
// linear relaxation of minimal routing, where every ordered pair of the
// allocation splits its one unit of traffic over all its minimal
// Angara-encodable routes (First and Last Steps included, deadlock ignored)
// and the largest channel load is minimised.  Integer tables cannot go below
// it, so ceil(value) bounds every minimal table's max gamma.  It is tighter
// than the per-dimension bound for scattered and block allocations, where the
// channels of one dimension cannot all be used evenly.
//
// Solved with GLPK's simplex by column generation: a pair starts with one
// route, and each round prices all of its candidates against the channel
// duals and adds the cheapest one when its reduced cost is negative.  Every
// round also yields a certified bound from the duals (the Lagrangian bound
// sum_c w_c * const_c + sum_p min_r w(r) for channel weights w summing to
// 1), and at the optimum it equals the LP value; that certified value is
// what is reported.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "routing/common/candidates.hpp"

namespace angara {

struct LpBoundOptions {
  double time_limit = 2.0;      // seconds for everything (candidate routes included); <= 0 disables
  std::size_t max_nodes = 512;  // larger allocations are skipped without trying
  // A whole fault-free torus with two cables in every size-2 dimension is
  // symmetric under translation and reflection, so the LP optimum is the
  // per-dimension bound (see lp_lower_bound); false solves the LP anyway.
  bool use_symmetry = true;
  // Every candidate route enters the LP at once, without column generation:
  // slower on most allocations, but it ends where the generation tails off
  // (one column a round; the 2x8x7x2 random half of the benchmark).
  bool all_columns = false;
};

struct LpBound {
  enum class Status { solved, disabled, not_applicable, too_large, timed_out, failed };
  Status status = Status::disabled;
  // solved: the LP optimum.  timed_out: the best bound the duals seen so far
  // certify (a valid lower bound below the optimum; 0 if none).
  double value = 0;
  bool by_symmetry = false;         // solved without the LP (whole symmetric torus)
  double seconds = 0;               // wall time spent
  std::size_t pairs = 0;            // ordered pairs in the LP
  std::size_t pairs_left_out = 0;   // pairs without a minimal route (faults): not in the LP
  std::size_t routes = 0;           // candidate routes of those pairs
  std::size_t columns = 0;          // routes the column generation brought into the LP
  int rounds = 0;                   // simplex solves
  std::string note;                 // why it was skipped, in words

  bool solved() const { return status == Status::solved; }
  // Whether value is a bound worth reporting (solved, or a partial one).
  bool has_value() const { return solved() || (status == Status::timed_out && value > 0); }
  // The bound on an integer max gamma: ceil(value), with a tolerance for
  // floating point (a value of 9.9999999 is 10).
  std::uint64_t rounded() const;
};

const char* lp_status_name(LpBound::Status status);  // "solved", "timed out", ...

// The fractional optimum behind the bound: for every pair, the candidates it
// uses with their shares (summing to 1), as (variant index, share).
struct LpSolution {
  LpBound bound;
  std::vector<std::vector<std::pair<std::uint32_t, double>>> shares;  // by pair of the candidate set
};

// The LP over the minimal pairs of `set` (pairs whose candidates are
// detours are left out, which keeps the value a lower bound for any table
// that routes minimally every pair that has a minimal route).  The candidate
// set should hold every minimal encodable route of each pair, as one built
// with TurnRules::Mode::all_turns and a cap of 64 does (a minimal route
// fixes the sign per dimension, at most 16 sign choices, and each has at most
// 4 encodable orders: DOR, and a First Step and/or Last Step variant).
LpSolution solve_route_lp(const CandidateSet& set, double time_limit, bool all_columns = false);

// The bound of an allocation: its candidate routes, then the LP, together
// within options.time_limit.
LpBound lp_lower_bound(const Network& network, const std::vector<NodeId>& allocation,
                       const LpBoundOptions& options = {});

// The bound for a table's allocation as the reports give it: not_applicable
// for rules general (its routes need not be Angara-encodable, so the LP's
// route space does not cover them).
LpBound table_lp_bound(const Network& network, const RouteTable& table, double time_limit);

}  // namespace angara
