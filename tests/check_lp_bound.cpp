// The LP lower bound on max gamma (routing/check/lp_bound.hpp) against values
// solved by hand, and its statuses.
#include <cmath>
#include <vector>

#include "angara/network.hpp"
#include "routing/common/candidates.hpp"
#include "routing/check/lp_bound.hpp"
#include "routing/check/metrics.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using angara_test::all_nodes;
using angara_test::block;
using angara_test::node_at;

namespace {

void check_solved(const LpBound& bound, double value, std::uint64_t rounded) {
  ck_assert_msg(bound.solved(), "LP not solved: %s", bound.note.c_str());
  ck_assert_msg(std::fabs(bound.value - value) < 1e-6, "LP value %.9f, expected %.9f", bound.value, value);
  ck_assert_uint_eq(bound.rounded(), rounded);
}

LpBoundOptions without_symmetry() {
  LpBoundOptions options;
  options.use_symmetry = false;
  return options;
}

}  // namespace

// Four nodes in a line, 0..3, on the 8-ring: every minimal route is unique
// (distances up to 3 < 4).  The channel 1 -> 2 carries the pairs from {0, 1}
// to {2, 3}: 4; so does 2 -> 1.  The LP is 4, while the per-dimension bound
// spreads the 1+2+3+1+2+1 = 10 hops of each sense over 3 channels: 10/3.
START_TEST(test_line_on_a_ring) {
  const Network network(Torus::parse("8"));
  const std::vector<NodeId> nodes = {0, 1, 2, 3};
  check_solved(lp_lower_bound(network, nodes, without_symmetry()), 4.0, 4);
  ck_assert(std::fabs(dimension_lower_bounds(network, nodes)[0] - 10.0 / 3.0) < 1e-9);
}
END_TEST

// Two nodes diagonal on 4x4: each direction has two channel-disjoint
// routes (+X +Y and FS +Y then +X; -X -Y and -Y then LS -X), so the LP
// splits each pair in halves: 0.5, rounded up to 1.
START_TEST(test_diagonal_pair) {
  const Torus torus = Torus::parse("4x4");
  const Network network(torus);
  check_solved(lp_lower_bound(network, {node_at(torus, "0,0"), node_at(torus, "1,1")}, without_symmetry()), 0.5, 1);
}
END_TEST

// The 2x2 block of 4x4: encodability makes the LP exceed the per-dimension
// bound.  Each of the 8 block channels carries one neighbour pair.  The
// diagonal 0,0 -> 1,1 may go +X +Y or (FS) +Y +X, and 1,1 -> 0,0 -X -Y or
// -Y (LS) -X; but 1,0 -> 0,1 has only +Y -X (-X +Y would need a negative
// First Step), and 0,1 -> 1,0 only +X -Y.  With a = share of +X +Y:
// 1,0 +Y carries 1 + a + 1 (the fixed +Y -X), 0,1 +X carries 1 + (1 - a) + 1
// (the fixed +X -Y): max(2 + a, 3 - a) >= 2.5 at a = 1/2, and likewise on
// the negative side.  LP 2.5 (integer tables: 3); per-dimension 8/4 = 2.
START_TEST(test_square_block_needs_encodable_routes) {
  const Torus torus = Torus::parse("4x4");
  const Network network(torus);
  const std::vector<NodeId> nodes = block(torus, {2, 2, 1, 1});
  check_solved(lp_lower_bound(network, nodes), 2.5, 3);
  const auto per_dimension = dimension_lower_bounds(network, nodes);
  ck_assert(std::fabs(per_dimension[0] - 2.0) < 1e-9 && std::fabs(per_dimension[1] - 2.0) < 1e-9);

  // The fractional solution behind it: shares of every pair sum to 1, and
  // the diagonal 0,0 -> 1,1 is split in halves.
  const CandidateSet set(network, TurnRules(network, TurnRules::Mode::all_turns), nodes, 64);
  const LpSolution solution = solve_route_lp(set, 2.0);
  check_solved(solution.bound, 2.5, 3);
  for (std::size_t p = 0; p < set.pair_count(); ++p) {
    double total = 0;
    for (const auto& [variant, share] : solution.shares[p]) total += share;
    ck_assert(set.pair_source(p) == set.pair_destination(p) ? total == 0 : std::fabs(total - 1) < 1e-9);
  }
  const std::size_t diagonal = set.pair(0, 3);  // nodes sorted: 0,0  1,0  0,1  1,1
  ck_assert_uint_eq(set.variants(diagonal), 2);
  ck_assert_uint_eq(solution.shares[diagonal].size(), 2);
  for (const auto& [variant, share] : solution.shares[diagonal]) ck_assert(std::fabs(share - 0.5) < 1e-9);
}
END_TEST

// Whole fault-free tori with two cables: the LP is the per-dimension bound,
// by symmetry without the LP and with it.  4x4: each source sends
// 0+1+2+1 = 4 X hops per row, 16 * 16 = 256 X hops over 32 X channels: 8.
// Desmos with two cables: X carries 32 * 32 / 64 = 16.
START_TEST(test_whole_torus_symmetry) {
  for (const char* sizes : {"4x4", "4x2x2x2"}) {
    const Torus torus = Torus::parse(sizes);
    const Network network(torus);
    const LpBound quick = lp_lower_bound(network, all_nodes(torus));
    const LpBound solved = lp_lower_bound(network, all_nodes(torus), without_symmetry());
    const double expected = torus.node_count() == 16 ? 8.0 : 16.0;
    check_solved(quick, expected, static_cast<std::uint64_t>(expected));
    ck_assert(quick.by_symmetry);
    check_solved(solved, expected, static_cast<std::uint64_t>(expected));
    ck_assert(!solved.by_symmetry);
  }
}
END_TEST

// Single-cabled Desmos is not symmetric that way: the LP runs, and it is far
// above the per-dimension bound 16 (regression values; balanced reaches 26).
// The 8-node 4x2 block (X ring times one Y cable) is at its bound 4.
START_TEST(test_single_cable_desmos) {
  const Torus torus = Torus::parse("4x2x2x2").with_single_cable(Torus::parse_dimension_letters("YZK"));
  const Network network(torus);
  const LpBound whole = lp_lower_bound(network, all_nodes(torus));
  check_solved(whole, 76.0 / 3.0, 26);
  ck_assert(!whole.by_symmetry);
  check_solved(lp_lower_bound(network, block(torus, {4, 2, 1, 1})), 4.0, 4);
  check_solved(lp_lower_bound(network, block(torus, {4, 2, 2, 1})), 10.0, 10);
}
END_TEST

// The full LP at once (all_columns, the benchmark's way out where the
// column generation tails off): every candidate route is a column from the
// start (the generation brings in only some), the optima are the same, and
// one simplex solve ends it.
START_TEST(test_all_columns_same_optimum) {
  const Torus torus = Torus::parse("4x2x2x2").with_single_cable(Torus::parse_dimension_letters("YZK"));
  const Network network(torus);
  LpBoundOptions options;
  options.all_columns = true;
  const LpBound whole = lp_lower_bound(network, all_nodes(torus), options);
  check_solved(whole, 76.0 / 3.0, 26);
  ck_assert_int_eq(whole.rounds, 1);
  ck_assert_uint_eq(whole.columns, whole.routes);
  const LpBound generated = lp_lower_bound(network, all_nodes(torus));
  check_solved(generated, 76.0 / 3.0, 26);
  ck_assert_uint_lt(generated.columns, generated.routes);
  check_solved(lp_lower_bound(network, block(torus, {4, 2, 2, 1}), options), 10.0, 10);
  const Torus square = Torus::parse("4x4");
  const Network square_network(square);
  const LpBound block_bound = lp_lower_bound(square_network, block(square, {2, 2, 1, 1}), options);
  check_solved(block_bound, 2.5, 3);
  ck_assert_int_eq(block_bound.rounds, 1);
}
END_TEST

START_TEST(test_statuses) {
  const Torus torus = Torus::parse("4x4x4");
  const Network network(torus);
  LpBoundOptions options;
  options.time_limit = 0;
  LpBound bound = lp_lower_bound(network, block(torus, {2, 2, 1, 1}), options);
  ck_assert(bound.status == LpBound::Status::disabled);
  ck_assert(!bound.has_value());

  options.time_limit = 2;
  options.max_nodes = 3;
  bound = lp_lower_bound(network, block(torus, {2, 2, 1, 1}), options);
  ck_assert(bound.status == LpBound::Status::too_large);
  ck_assert_std_str_eq(bound.note, "4 nodes, more than the 3 the LP is tried for");

  // Out of time: a partial bound the duals certify, never above the optimum.
  options.max_nodes = 512;
  options.time_limit = 1e-6;
  bound = lp_lower_bound(network, block(torus, {4, 4, 2, 1}), options);
  ck_assert(bound.status == LpBound::Status::timed_out);
  ck_assert_std_str_eq(bound.note, "not solved within 1e-06 s");
  options.time_limit = 30;
  const LpBound full = lp_lower_bound(network, block(torus, {4, 4, 2, 1}), options);
  ck_assert(full.solved());
  ck_assert(bound.value <= full.value + 1e-9);

  // Tables under rules general are outside the LP's route space.
  RouteTable table(block(torus, {2, 1, 1, 1}));
  table.rules = RuleSet::general;
  ck_assert(table_lp_bound(network, table, 2).status == LpBound::Status::not_applicable);
}
END_TEST

int main() {
  Suite* s = suite_create("lp_bound");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_line_on_a_ring);
  tcase_add_test(tc, test_diagonal_pair);
  tcase_add_test(tc, test_square_block_needs_encodable_routes);
  tcase_add_test(tc, test_whole_torus_symmetry);
  tcase_add_test(tc, test_single_cable_desmos);
  tcase_add_test(tc, test_all_columns_same_optimum);
  tcase_add_test(tc, test_statuses);
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
