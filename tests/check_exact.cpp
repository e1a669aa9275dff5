// The exact generator (routing/generators/exact/): it routes what the heuristics
// miss although every pair has an encodable route, proves where no
// deadlock-free single-channel table exists, and refuses what it does not
// decide.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "routing/chain.hpp"
#include "routing/generators/exact/exact.hpp"
#include "routing/generator.hpp"
#include "routing/common/oracle.hpp"
#include "routing/memory.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using angara_test::error_message;
using angara_test::node_at;

namespace {

// The whole 6x6 with four failed routers: every pair is joined by an
// encodable route, yet balanced and nue both leave pairs without a
// deadlock-free one on one virtual channel.
Network four_failed_routers_6x6() {
  Network net(Torus::parse("6x6"));
  for (const char* dead : {"0,1", "0,2", "2,2", "5,4"}) net.fail_node(node_at(net.torus(), dead));
  return net;
}

std::size_t non_minimal(const Network& net, const RouteTable& table) {
  const AllocationRoutability oracle = assess_routability(net, table.nodes());
  std::size_t longer = 0;
  for (std::size_t s = 0; s < table.size(); ++s)
    for (std::size_t d = 0; d < table.size(); ++d)
      if (s != d && table.route(s, d).hops.size() > static_cast<std::size_t>(oracle.at(s, d))) ++longer;
  return longer;
}

// A 5x5 with three failed routers and three failed cables: an encodable
// route for every pair, and under flow control none no deadlock-free table.
Network five_by_five_without_table() {
  Network net(Torus::parse("5x5"));
  const Torus& t = net.torus();
  for (const char* dead : {"4,0", "2,1", "3,3"}) net.fail_node(node_at(t, dead));
  net.fail_link(node_at(t, "1,0"), *Direction::parse("-Y"));
  net.fail_link(node_at(t, "0,1"), *Direction::parse("+X"));
  net.fail_link(node_at(t, "0,2"), *Direction::parse("+Y"));
  return net;
}

// Balanced's partial table (RoutingError::partial()) where it leaves pairs out.
RouteTable partial_of_balanced(const Network& net, const GeneratorOptions& options = {}) {
  try {
    angara_test::generate("balanced", net, angara_test::live_nodes(net), options);
  } catch (const RoutingError& e) {
    ck_assert(e.partial() != nullptr);
    return *e.partial();
  }
  ck_abort_msg("balanced routed every pair");
  return {};
}

std::size_t changed_routes(const RouteTable& before, const RouteTable& after) {
  std::size_t changed = 0;
  for (std::size_t s = 0; s < before.size(); ++s)
    for (std::size_t d = 0; d < before.size(); ++d)
      if (s != d && before.has_route(s, d) && before.route(s, d).hops != after.route(s, d).hops) ++changed;
  return changed;
}

// The whole 12x12 with four failed routers (140 nodes, more than exact
// decides with one question).
Network four_failed_routers_12x12() {
  Network net(Torus::parse("12x12"));
  for (const char* dead : {"8,3", "5,6", "8,7", "10,10"}) net.fail_node(node_at(net.torus(), dead));
  return net;
}

}  // namespace

START_TEST(test_routes_what_balanced_and_nue_leave) {
  const Network net = four_failed_routers_6x6();
  const std::vector<NodeId> nodes = angara_test::live_nodes(net);
  ck_assert(assess_routability(net, nodes).all_routable());
  ck_assert(error_message([&] { angara_test::generate("balanced", net, nodes); })
                .find("balanced: cannot route 7 of 992 ordered pairs deadlock-free") == 0);
  ck_assert(error_message([&] { angara_test::generate("nue", net, nodes); })
                .find("nue: no deadlock-free Angara-encodable route from ") == 0);
  const RouteTable table = angara_test::generate("exact", net, nodes);
  const VerifyReport report = angara_test::verified(net, table);
  ck_assert_uint_eq(report.routes, 992);
  ck_assert_uint_eq(report.metrics.max_gamma, 58);
  ck_assert_uint_eq(non_minimal(net, table), 55);
  // Deterministic: the same table again.
  ck_assert(angara_test::same_routes(table, angara_test::generate("exact", net, nodes)));
}
END_TEST

// The default chain reaches exact there, and says why the others were
// passed over.
START_TEST(test_default_chain_ends_with_exact) {
  const Network net = four_failed_routers_6x6();
  const ChainOutcome outcome = run_algorithm_chain(parse_algorithm_chain(default_algorithm_chain()), net,
                                                   angara_test::live_nodes(net), {}, VerifyOptions{});
  ck_assert_std_str_eq(outcome.algorithm, "exact");
  ck_assert(outcome.report.ok());
  ck_assert_uint_eq(outcome.passed_over.size(), 2);
  ck_assert_std_str_eq(outcome.passed_over[0].algorithm, "balanced");
  ck_assert_std_str_eq(outcome.passed_over[1].algorithm, "nue");
  ck_assert(outcome.passed_over[1].reason.find("no deadlock-free Angara-encodable route from ") == 0);
}
END_TEST

// A fault-free 4x4: one virtual channel carries minimal routes only.
START_TEST(test_fault_free_minimal) {
  const Network net(Torus::parse("4x4"));
  const RouteTable table = angara_test::route_all("exact", net);
  angara_test::verified(net, table);
  ck_assert_uint_eq(non_minimal(net, table), 0);
}
END_TEST

// Under flow control none (every cycle a deadlock) this 5x5 with three
// failed routers and three failed cables has an encodable route for every
// pair, but no choice of them is acyclic on one virtual channel: the solver
// proves it over every route.
START_TEST(test_proves_that_none_exists) {
  const Network net = five_by_five_without_table();
  const std::vector<NodeId> nodes = angara_test::live_nodes(net);
  ck_assert(assess_routability(net, nodes).all_routable());
  GeneratorOptions none;
  none.flow_control = FlowControl::none;
  ck_assert_std_str_eq(error_message([&] { angara_test::generate("exact", net, nodes, none); }),
                       "exact: no deadlock-free table of Angara-encodable routes exists on one virtual channel for "
                       "these 22 nodes and failures (the solver proved it over every route); more virtual channels "
                       "(routing.virtual_channels) with nue, or repairs, are needed");
}
END_TEST

// The repair of balanced's partial table of the faulty 6x6: its 7 pairs
// without a route are freed, the solver's unsat core names dependencies of
// other routes, their holders are freed too, and the answer completes the
// table; the routes never freed stay balanced's.
START_TEST(test_repair_routes) {
  const Network net = four_failed_routers_6x6();
  const RouteTable partial = partial_of_balanced(net);
  ck_assert_uint_eq(unrouted_pairs(partial).size(), 7);
  const RouteTable table = repair_with_solver(net, partial, FlowControl::bubble);
  const VerifyReport report = angara_test::verified(net, table);
  ck_assert_uint_eq(report.routes, 992);
  ck_assert_uint_eq(report.metrics.max_gamma, 51);
  ck_assert_uint_eq(changed_routes(partial, table), 136);
  ck_assert(angara_test::same_routes(table, repair_with_solver(net, partial, FlowControl::bubble)));
}
END_TEST

// A proof on a subset: under flow control none the 5x5 below has no
// deadlock-free table (test_proves_that_none_exists); the repair of
// balanced's partial table proves it with 160 of the 462 pairs.
START_TEST(test_repair_proves_on_a_subset) {
  const Network net = five_by_five_without_table();
  GeneratorOptions none;
  none.flow_control = FlowControl::none;
  const RouteTable partial = partial_of_balanced(net, none);
  ck_assert_std_str_eq(error_message([&] { repair_with_solver(net, partial, FlowControl::none); }),
                       "exact: no deadlock-free table of Angara-encodable routes exists on one virtual channel for "
                       "these 22 nodes and failures (the solver proved it over every route of 160 pairs, which alone "
                       "admit no choice: 0,0 -> 1,1, 0,0 -> 0,2, 0,0 -> 1,2, 0,0 -> 3,2 and 156 more); more virtual "
                       "channels (routing.virtual_channels) with nue, or repairs, are needed");
}
END_TEST

// Above 100 nodes exact repairs balanced's partial table: alone (it runs
// balanced itself) and in a chain (balanced's partial table handed on).
START_TEST(test_large_allocation) {
  const Network net = four_failed_routers_12x12();
  const std::vector<NodeId> nodes = angara_test::live_nodes(net);
  ck_assert_uint_eq(nodes.size(), 140);
  const RouteTable partial = partial_of_balanced(net);
  ck_assert_uint_eq(unrouted_pairs(partial).size(), 2);
  const RouteTable table = angara_test::generate("exact", net, nodes);
  const VerifyReport report = angara_test::verified(net, table);
  ck_assert_uint_eq(report.metrics.max_gamma, 351);
  // Its two pairs found routes among the others as they are.
  ck_assert_uint_eq(changed_routes(partial, table), 0);
  const ChainOutcome outcome =
      run_algorithm_chain(parse_algorithm_chain("balanced,exact"), net, nodes, {}, VerifyOptions{});
  ck_assert_std_str_eq(outcome.algorithm, "exact");
  ck_assert(angara_test::same_routes(outcome.table, table));
  // Where balanced routes every pair, exact's table is balanced's.
  const Network intact(Torus::parse("12x12"));
  ck_assert(angara_test::same_routes(angara_test::route_all("exact", intact), angara_test::route_all("balanced", intact)));
}
END_TEST

// The rank search on the faulty 6x6: direction order (round 0) leaves 16
// pairs without an admissible route; the solver's ranks for them, then for
// the pairs those ranks leave out, route every pair, and the ranks certify
// the table (the verifier agrees).
START_TEST(test_rank_search_routes) {
  const Network net = four_failed_routers_6x6();
  std::string log;
  const RouteTable table =
      rank_search(net, start_route_table("exact", net, angara_test::live_nodes(net)), FlowControl::bubble, true, -1,
                  &log);
  ck_assert_msg(log.find("round 0: 16 pairs without an admissible route, 0 in the question\n") == 0, "%s",
                log.c_str());
  const VerifyReport report = angara_test::verified(net, table);
  ck_assert_uint_eq(report.routes, 992);
  ck_assert_uint_eq(report.metrics.max_gamma, 68);
  ck_assert_uint_eq(non_minimal(net, table), 99);
  ck_assert(angara_test::same_routes(
      table, rank_search(net, start_route_table("exact", net, angara_test::live_nodes(net)), FlowControl::bubble,
                         true, -1)));
}
END_TEST

// Nothing failed: direction order admits every DOR route, round 0 routes
// every pair minimally and the solver is never asked.
START_TEST(test_rank_search_fault_free) {
  const Network net(Torus::parse("8x8"));
  std::string log;
  const RouteTable table =
      rank_search(net, start_route_table("exact", net, angara_test::live_nodes(net)), FlowControl::bubble, true, -1,
                  &log);
  // (steps: 64 searches over the reachable (node, stage) states)
  ck_assert_std_str_eq(log.c_str(), "round 0: 0 pairs without an admissible route, 0 in the question\nsteps: 24256\n");
  angara_test::verified(net, table);
  ck_assert_uint_eq(non_minimal(net, table), 0);
  for (std::size_t s = 0; s < table.size(); ++s)  // the DOR routes: directions in order
    for (std::size_t d = 0; d < table.size(); ++d) {
      if (s == d) continue;
      const auto route = table.route(s, d);
      ck_assert_msg(std::is_sorted(route.hops.begin(), route.hops.end()), "%s", route.to_string().c_str());
    }
}
END_TEST

// Where no table exists (the 5x5 under flow control none), ranks per
// channel with every candidate end in the proof over the pairs asked about;
// with the candidates up to 2 hops over the shortest only, the same answer
// is no proof: undecided.
START_TEST(test_rank_search_proves) {
  const Network net = five_by_five_without_table();
  const RouteTable empty = start_route_table("exact", net, angara_test::live_nodes(net));
  ck_assert_std_str_eq(error_message([&] { rank_search(net, empty, FlowControl::none, false, -1); }),
                       "exact: no deadlock-free table of Angara-encodable routes exists on one virtual channel for "
                       "these 22 nodes and failures (the solver proved it over every route of 337 pairs, which alone "
                       "admit no choice: 0,0 -> 2,0, 0,0 -> 3,0, 0,0 -> 3,1, 0,0 -> 0,2 and 333 more); more virtual "
                       "channels (routing.virtual_channels) with nue, or repairs, are needed");
  ck_assert_std_str_eq(error_message([&] { rank_search(net, empty, FlowControl::none, false, 2); }),
                       "exact: undecided for these 22 nodes: the rank search asked about 337 pairs; no ranks for the "
                       "question's pairs");
}
END_TEST

START_TEST(test_refusals) {
  // 0,0 cut off by its four neighbours: the oracle's refusal.
  Network cut(Torus::parse("4x4"));
  for (const char* dead : {"1,0", "3,0", "0,1", "0,3"}) cut.fail_node(node_at(cut.torus(), dead));
  const std::string message = error_message([&] { angara_test::route_all("exact", cut); });
  ck_assert_msg(message.find("exact: cannot route 22 of 132 ordered pairs deadlock-free on one virtual channel: 0,0 -> "
                             "2,0: no Angara-encodable route avoids the failures") == 0,
                "%s", message.c_str());
  // The same above 100 nodes, from the repair.
  Network large(Torus::parse("12x12"));
  for (const char* dead : {"1,0", "11,0", "0,1", "0,11"}) large.fail_node(node_at(large.torus(), dead));
  const std::string large_message = error_message([&] { angara_test::route_all("exact", large); });
  ck_assert_msg(large_message.find("exact: cannot route 278 of 19460 ordered pairs deadlock-free on one virtual "
                                   "channel: 0,0 -> 2,0: no Angara-encodable route avoids the failures") == 0,
                "%s", large_message.c_str());
  GeneratorOptions general;
  general.rules = RuleSet::general;
  ck_assert_std_str_eq(error_message([&] { angara_test::route_all("exact", Network(Torus::parse("4x4")), general); }),
                       "exact: it searches Angara-encodable routes only (routing.rules: angara)");
}
END_TEST

// The memory estimate counts Z3 itself: bench/angara-sweep measured 35 MiB
// of peak for exact on a fault-free 3x3 (and on 4 of its nodes), where the
// per-pair model is under 2 MiB and the estimate without the solver was 9 MiB;
// and the harder model under flow control none.
START_TEST(test_estimate_counts_the_solver) {
  const Network net(Torus::parse("3x3"));
  for (const std::size_t nodes : {std::size_t{4}, std::size_t{9}}) {
    const MemoryEstimate estimate = estimate_job_memory(net, nodes, "exact", GeneratorOptions{}, MemoryWork{});
    ck_assert_msg(estimate.total >= std::uint64_t{36} << 20, "%zu nodes: %s", nodes, estimate.text().c_str());
  }
  // Under flow control none a whole fault-free 8x8 took 165 MiB (the
  // estimate was 104 MiB).
  GeneratorOptions none;
  none.flow_control = FlowControl::none;
  const MemoryEstimate whole_8x8 = estimate_job_memory(Network(Torus::parse("8x8")), 64, "exact", none, MemoryWork{});
  ck_assert_msg(whole_8x8.total >= std::uint64_t{170} << 20, "%s", whole_8x8.text().c_str());
}
END_TEST

// Above 100 nodes under flow control none, balanced's whole table (direction
// order, a cycle around every ring) is not exact's to return: bench/angara-sweep
// found exact handing it on for a whole 6x6x6, which the verifier rejected.
START_TEST(test_none_above_the_solver_refuses) {
  const Network net(Torus::parse("11x10"));
  GeneratorOptions none;
  none.flow_control = FlowControl::none;
  const std::string message = error_message([&] { angara_test::generate("exact", net, angara_test::live_nodes(net), none); });
  ck_assert_msg(message.find("exact: 110 nodes, more than the 100 it decides at once, and under flow control none") == 0,
                "%s", message.c_str());
}
END_TEST

int main() {
  Suite* s = suite_create("exact");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_routes_what_balanced_and_nue_leave);
  tcase_add_test(tc, test_default_chain_ends_with_exact);
  tcase_add_test(tc, test_fault_free_minimal);
  tcase_add_test(tc, test_proves_that_none_exists);
  tcase_add_test(tc, test_repair_routes);
  tcase_add_test(tc, test_repair_proves_on_a_subset);
  tcase_add_test(tc, test_large_allocation);
  tcase_add_test(tc, test_rank_search_routes);
  tcase_add_test(tc, test_rank_search_fault_free);
  tcase_add_test(tc, test_rank_search_proves);
  tcase_add_test(tc, test_refusals);
  tcase_add_test(tc, test_estimate_counts_the_solver);
  tcase_add_test(tc, test_none_above_the_solver_refuses);
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
