// The independent verifier (routing/check/verifier.hpp) against hand-made tables,
// good and bad.  Every expected message and count is worked out by hand.
#include <array>
#include <cstdlib>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "routing/check/verifier.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using angara_test::all_nodes;
using angara_test::dor_table;
using angara_test::node_at;
using angara_test::set_layer;
using angara_test::set_route;

namespace {

// Asserts that the report holds exactly one example, of `rule`, with this text.
void expect_single(const VerifyReport& report, Rule rule, const std::string& message, std::size_t count) {
  ck_assert(!report.ok());
  ck_assert_uint_eq(report.violations.size(), 1);
  ck_assert_str_eq(rule_name(report.violations[0].rule), rule_name(rule));
  ck_assert_std_str_eq(report.violations[0].message, message);
  ck_assert_uint_eq(report.violation_count, count);
}

// walk_routes() against a plain hop-by-hop walk of every route: the loads
// and every layer's dependency graph.
void expect_hop_walk(const Network& network, const RouteTable& table, const std::string& what) {
  const Torus& torus = network.torus();
  std::vector<std::uint64_t> loads(torus.channel_slots(), 0);
  std::vector<ChannelDependencyGraph> graphs(table.virtual_channels(), ChannelDependencyGraph(torus));
  for (std::size_t s = 0; s < table.size(); ++s)
    for (std::size_t d = 0; d < table.size(); ++d) {
      if (!table.has_route(s, d)) continue;
      const Route route = table.route(s, d);
      NodeId at = table.nodes()[s];
      for (std::size_t k = 0; k < route.hops.size(); ++k) {
        const ChannelId c = Torus::channel(at, route.hops[k]);
        ++loads[c];
        if (k + 1 < route.hops.size()) graphs[route.layer].add(c, route.hops[k + 1]);
        at = torus.neighbor(at, route.hops[k]);
      }
    }
  const RouteWalkFigures walked = walk_routes(network, table);
  ck_assert_msg(walked.loads == loads, "loads differ on %s", what.c_str());
  ck_assert_uint_eq(walked.graphs.size(), graphs.size());
  for (std::size_t layer = 0; layer < graphs.size(); ++layer)
    for (ChannelId c = 0; c < torus.channel_slots(); ++c)
      ck_assert_msg(walked.graphs[layer].successors(c) == graphs[layer].successors(c),
                    "%s layer %zu channel %u: successors %u, expected %u", what.c_str(), layer, c,
                    walked.graphs[layer].successors(c), graphs[layer].successors(c));
}

// 2x2 torus: the diagonal routes (0,0) +X +Y, (1,0) +Y +X, (1,1) +X +Y and
// (0,1) +Y +X chain the channels 0,0 +X -> 1,0 +Y -> 1,1 +X -> 0,1 +Y -> back
// to 0,0 +X (size-2 dimensions wrap after one hop).  All four are minimal and
// encodable (the +Y +X ones use a First Step), yet every link of the cycle is
// a turn: a deadlock.  The other eight pairs are one hop.
RouteTable staircase_table(const Torus& torus) {
  RouteTable table(all_nodes(torus));
  set_route(table, torus, "0,0", "1,0", "+X");
  set_route(table, torus, "0,0", "0,1", "+Y");
  set_route(table, torus, "0,0", "1,1", "+X +Y");
  set_route(table, torus, "1,0", "0,0", "+X");
  set_route(table, torus, "1,0", "1,1", "+Y");
  set_route(table, torus, "1,0", "0,1", "+Y +X");
  set_route(table, torus, "0,1", "1,1", "+X");
  set_route(table, torus, "0,1", "0,0", "+Y");
  set_route(table, torus, "0,1", "1,0", "+Y +X");
  set_route(table, torus, "1,1", "0,1", "+X");
  set_route(table, torus, "1,1", "1,0", "+Y");
  set_route(table, torus, "1,1", "0,0", "+X +Y");
  return table;
}

}  // namespace

START_TEST(test_rule_names) {
  ck_assert_str_eq(rule_name(Rule::MissingRoute), "missing-route");
  ck_assert_str_eq(rule_name(Rule::DeadNode), "dead-node");
  ck_assert_str_eq(rule_name(Rule::DeadChannel), "dead-channel");
  ck_assert_str_eq(rule_name(Rule::WrongDestination), "wrong-destination");
  ck_assert_str_eq(rule_name(Rule::NotEncodable), "not-encodable");
  ck_assert_str_eq(rule_name(Rule::Deadlock), "deadlock");
  ck_assert_str_eq(rule_name(Rule::BadLayer), "bad-layer");
}
END_TEST

// Dimension order on 3x3: 72 minimal DOR routes, every channel carries 3
// (each direction gets 3 hops per source, by symmetry), 12 hops per source
// over 8 destinations = 1.5 on average, at most 2; bound 54 / 18 = 3.
START_TEST(test_valid_table_passes_with_metrics) {
  const Torus torus = Torus::parse("3x3");
  const Network network(torus);
  const VerifyReport report = verify(network, dor_table(torus, all_nodes(torus)));
  ck_assert(report.ok());
  ck_assert_uint_eq(report.violation_count, 0);
  ck_assert_uint_eq(report.routes, 72);
  ck_assert_uint_eq(report.non_minimal, 0);
  ck_assert_uint_eq(report.fs_ls_routes, 0);
  ck_assert_int_eq(report.virtual_channels, 1);
  ck_assert_uint_eq(report.metrics.channels, 36);
  ck_assert_uint_eq(report.metrics.max_gamma, 3);
  ck_assert_uint_eq(report.metrics.min_gamma, 3);
  ck_assert_double_eq_tol(report.metrics.avg_gamma, 3.0, 1e-12);
  ck_assert_double_eq_tol(report.metrics.sigma4, 0.0, 1e-12);
  ck_assert_int_eq(report.metrics.max_hops, 2);
  ck_assert_double_eq_tol(report.metrics.avg_hops, 1.5, 1e-12);
  ck_assert_uint_eq(report.metrics.lower_bound, 3);
}
END_TEST

START_TEST(test_turn_cycle_is_deadlock) {
  const Torus torus = Torus::parse("2x2");
  const Network network(torus);
  const RouteTable table = staircase_table(torus);
  // The lowest channel with a turn on the cycle is 0,0 +X (id 0), turning
  // into 1,0 +Y; the route 0,0 -> 1,1 takes that turn after its first hop.
  const std::string expected =
      "virtual channel 0: turn 0,0 +X -> 1,0 +Y lies on a channel dependency cycle; "
      "route 0,0 -> 1,1 (+X +Y) takes it after hop 1";
  std::string example;
  ck_assert(!layer_deadlock_free(network, table, 0, &example));
  ck_assert_std_str_eq(example, expected);

  const VerifyReport report = verify(network, table);
  expect_single(report, Rule::Deadlock, expected, 1);
  ck_assert_uint_eq(report.routes, 12);
  ck_assert_uint_eq(report.fs_ls_routes, 2);
  ck_assert_uint_eq(report.non_minimal, 0);
}
END_TEST

// Moving the two First-Step routes to virtual channel 1 cuts the cycle in
// both layers (layer 0 keeps +X -> +Y turns only, layer 1 +Y -> +X only).
// With one virtual channel allowed, the two moved routes break BadLayer.
START_TEST(test_layers_split_the_cycle) {
  const Torus torus = Torus::parse("2x2");
  const Network network(torus);
  RouteTable table = staircase_table(torus);
  set_layer(table, torus, "1,0", "0,1", 1);
  set_layer(table, torus, "0,1", "1,0", 1);
  ck_assert(layer_deadlock_free(network, table, 0, nullptr));
  ck_assert(layer_deadlock_free(network, table, 1, nullptr));

  VerifyOptions two_layers;
  two_layers.max_virtual_channels = 2;
  const VerifyReport layered = verify(network, table, two_layers);
  ck_assert(layered.ok());
  ck_assert_int_eq(layered.virtual_channels, 2);

  expect_single(verify(network, table), Rule::BadLayer,
                "route 1,0 -> 0,1 (+Y +X) uses virtual channel 1, but only virtual channel 0 is allowed", 2);
}
END_TEST

// A 4-node ring where every node reaches every other by going +X only (3 hops
// to its - neighbour): the CDG is the ring of +X channels, a cycle with no
// turn, which bubble flow control makes harmless.  4 routes are non-minimal.
START_TEST(test_same_direction_ring_passes) {
  const Torus torus = Torus::parse("4x1");
  const Network network(torus);
  RouteTable table(all_nodes(torus));
  for (std::size_t s = 0; s < 4; ++s)
    for (std::size_t d = 0; d < 4; ++d)
      if (s != d) table.set_route(s, d, Route{std::vector<Direction>((d + 4 - s) % 4, Direction::make(0, false))});
  ck_assert(layer_deadlock_free(network, table, 0, nullptr));
  const VerifyReport report = verify(network, table);
  ck_assert(report.ok());
  ck_assert_uint_eq(report.non_minimal, 4);
  ck_assert_uint_eq(report.metrics.max_gamma, 6);
  ck_assert_uint_eq(report.metrics.min_gamma, 0);
}
END_TEST

// Dimension order on 4x4 has +X +X routes, so the +X channels of each row
// form dependency rings, next to many +X -> +Y turns that are on no cycle.
START_TEST(test_rings_beside_acyclic_turns_pass) {
  const Torus torus = Torus::parse("4x4");
  const Network network(torus);
  const RouteTable table = dor_table(torus, all_nodes(torus));
  ck_assert(layer_deadlock_free(network, table, 0, nullptr));
  const VerifyReport report = verify(network, table);
  ck_assert(report.ok());
  ck_assert_uint_eq(report.routes, 240);
  ck_assert_uint_eq(report.metrics.lower_bound, 8);
}
END_TEST

// Without bubble flow control (flow_control: none) the same-direction ring
// of test_same_direction_ring_passes is a deadlock: every cycle counts.  The
// lowest channel on it is 0,0 +X; 0,0 -> 2,0 is the first route to depend on
// it.  The DOR table of 4x4 deadlocks too: +X +X and +Y +Y routes close the
// four +X row rings and the four +Y column rings (distance 2 goes the
// positive way; -X and -Y routes are single hops).
START_TEST(test_flow_control_none_forbids_every_cycle) {
  const Torus ring = Torus::parse("4x1");
  const Network ring_network(ring);
  RouteTable table(all_nodes(ring));
  for (std::size_t s = 0; s < 4; ++s)
    for (std::size_t d = 0; d < 4; ++d)
      if (s != d) table.set_route(s, d, Route{std::vector<Direction>((d + 4 - s) % 4, Direction::make(0, false))});
  const std::string expected =
      "virtual channel 0: dependency 0,0 +X -> 1,0 +X lies on a channel dependency cycle; "
      "route 0,0 -> 2,0 (+X +X) takes it after hop 1";
  std::string example;
  ck_assert(!layer_deadlock_free(ring_network, table, 0, &example, FlowControl::none));
  ck_assert_std_str_eq(example, expected);
  VerifyOptions none;
  none.flow_control = FlowControl::none;
  const VerifyReport report = verify(ring_network, table, none);
  expect_single(report, Rule::Deadlock, expected, 1);
  ck_assert(report.flow_control == FlowControl::none);

  const Torus torus = Torus::parse("4x4");
  const Network network(torus);
  const RouteTable dor = dor_table(torus, all_nodes(torus));
  ck_assert(verify(network, dor).ok());
  const VerifyReport dor_report = verify(network, dor, none);
  ck_assert(!dor_report.ok());
  ck_assert_uint_eq(dor_report.violation_count, 8);
  ChannelDependencyGraph graph(torus);
  graph.add(Torus::channel(node_at(torus, "0,0"), Direction::make(0, false)), Direction::make(0, false));
  ck_assert_uint_eq(graph.turns_on_cycles(FlowControl::none), 0);
}
END_TEST

// Under rules general a route need not be Angara-encodable, but it must
// still walk live channels to its destination and keep the CDG acyclic; the
// report says which rules it was checked under.
START_TEST(test_general_rules) {
  const Torus torus = Torus::parse("3x3");
  Network network(torus);
  RouteTable table = dor_table(torus, all_nodes(torus));
  set_route(table, torus, "0,0", "0,1", "+X +X +Y -X -X");
  VerifyOptions general;
  general.rules = RuleSet::general;
  const VerifyReport report = verify(network, table, general);
  ck_assert(report.ok());
  ck_assert(report.rules == RuleSet::general);
  ck_assert_uint_eq(report.fs_ls_routes, 0);
  ck_assert_uint_eq(report.non_minimal, 1);

  set_route(table, torus, "0,0", "0,1", "+X +X +Y -X");
  expect_single(verify(network, table, general), Rule::WrongDestination,
                "route 0,0 -> 0,1 (+X +X +Y -X) ends at 1,1", 1);
  // Two nodes, so only the detour crosses the failed cable 1,1 - 0,1.
  RouteTable pair({node_at(torus, "0,0"), node_at(torus, "0,1")});
  set_route(pair, torus, "0,0", "0,1", "+X +X +Y -X -X");
  set_route(pair, torus, "0,1", "0,0", "-Y");
  ck_assert(verify(network, pair, general).ok());
  network.fail_link(node_at(torus, "1,1"), Direction::make(0, true));
  expect_single(verify(network, pair, general), Rule::DeadChannel,
                "route 0,0 -> 0,1 (+X +X +Y -X -X) uses failed channel 1,1 -X at hop 5", 1);
}
END_TEST

START_TEST(test_missing_pair) {
  const Torus torus = Torus::parse("3x3");
  const Network network(torus);
  RouteTable table = dor_table(torus, all_nodes(torus));
  set_route(table, torus, "1,0", "2,2", "");
  const VerifyReport report = verify(network, table);
  expect_single(report, Rule::MissingRoute, "no route from 1,0 to 2,2", 1);
  ck_assert_uint_eq(report.routes, 71);
}
END_TEST

// 0,0 -> 2,1 detours "+Y +X +X" (First Step +Y, 3 hops for distance 2) and
// cable 0,1 +X is failed, hit at the second hop.  The dimension-order routes
// also cross that cable: 0,1 -> 1,0 / 1,1 / 1,2 start with +X from 0,1, and
// its reverse 1,1 -X carries 1,1 -> 0,1, 1,1 -> 0,0 (-X -Y) and 1,0 -> 0,1
// (+Y -X): 7 routes in all.  0,0 is the first source and 2,1 comes before the
// others of its routes that cross, so it is the example.
START_TEST(test_route_over_failed_link) {
  const Torus torus = Torus::parse("3x3");
  Network network(torus);
  network.fail_link(node_at(torus, "0,1"), Direction::make(0, false));
  RouteTable table = dor_table(torus, all_nodes(torus));
  set_route(table, torus, "0,0", "2,1", "+Y +X +X");
  const VerifyReport report = verify(network, table);
  expect_single(report, Rule::DeadChannel, "route 0,0 -> 2,1 (+Y +X +X) uses failed channel 0,1 +X at hop 2", 7);
  ck_assert_uint_eq(report.non_minimal, 1);
  ck_assert_uint_eq(report.fs_ls_routes, 1);
}
END_TEST

// Node 1,1 failed and left out of the allocation.  Dimension-order routes
// whose first hop enters it: 0,1 -> 1,2 (+X +Y), 0,1 -> 1,0 (+X -Y),
// 2,1 -> 1,0 (-X -Y), 1,0 -> 0,1 (+Y -X).  The first in source order is
// 1,0's (node 1 precedes 0,1 = node 3 and 2,1 = node 5).
START_TEST(test_route_through_failed_node) {
  const Torus torus = Torus::parse("3x3");
  Network network(torus);
  network.fail_node(node_at(torus, "1,1"));
  std::vector<NodeId> allocation = all_nodes(torus);
  allocation.erase(allocation.begin() + node_at(torus, "1,1"));
  const VerifyReport report = verify(network, dor_table(torus, allocation));
  expect_single(report, Rule::DeadNode, "route 1,0 -> 0,1 (+Y -X) passes through failed node 1,1 at hop 1", 4);
  ck_assert_uint_eq(report.routes, 56);
}
END_TEST

// The same failure with 1,1 still allocated: the node itself is the first
// example, its own 16 routes are not walked, the 4 routes through it are
// still counted.
START_TEST(test_allocated_node_failed) {
  const Torus torus = Torus::parse("3x3");
  Network network(torus);
  network.fail_node(node_at(torus, "1,1"));
  const VerifyReport report = verify(network, dor_table(torus, all_nodes(torus)));
  expect_single(report, Rule::DeadNode, "allocated node 1,1 is failed", 5);
}
END_TEST

START_TEST(test_route_ending_at_wrong_node) {
  const Torus torus = Torus::parse("3x3");
  const Network network(torus);
  RouteTable table = dor_table(torus, all_nodes(torus));
  set_route(table, torus, "0,0", "2,2", "-X");
  expect_single(verify(network, table), Rule::WrongDestination, "route 0,0 -> 2,2 (-X) ends at 2,0", 1);
}
END_TEST

// +X +X +Y -X -X reaches 0,1 with every turn in direction order, but after
// peeling off First Step +X and Last Step -X the middle +X +Y -X still uses
// both +X and -X: it breaks the direction-bit rule.  No turn goes back in the
// order, so no cycle appears; it is non-minimal, which is no violation.
START_TEST(test_non_encodable_route) {
  const Torus torus = Torus::parse("3x3");
  const Network network(torus);
  RouteTable table = dor_table(torus, all_nodes(torus));
  set_route(table, torus, "0,0", "0,1", "+X +X +Y -X -X");
  const VerifyReport report = verify(network, table);
  expect_single(report, Rule::NotEncodable,
                "route 0,0 -> 0,1 (+X +X +Y -X -X) is not Angara-encodable as [FS] DOR+direction-bit [LS]", 1);
  ck_assert_uint_eq(report.fs_ls_routes, 0);
  ck_assert_uint_eq(report.non_minimal, 1);
}
END_TEST

START_TEST(test_layer_out_of_range) {
  const Torus torus = Torus::parse("3x3");
  const Network network(torus);
  RouteTable table = dor_table(torus, all_nodes(torus));
  set_layer(table, torus, "2,2", "0,0", 3);
  VerifyOptions options;
  options.max_virtual_channels = 2;
  const VerifyReport report = verify(network, table, options);
  expect_single(report, Rule::BadLayer,
                "route 2,2 -> 0,0 (+X +Y) uses virtual channel 3, but only virtual channels 0 to 1 are allowed", 1);
  ck_assert_int_eq(report.virtual_channels, 4);
}
END_TEST

// A hop in a dimension the torus does not have.  +Z +X is encodable (First
// Step +Z) and the walk would end at 1,0, but there is no Z cable.
START_TEST(test_absent_dimension) {
  const Torus torus = Torus::parse("3x3");
  const Network network(torus);
  RouteTable table = dor_table(torus, all_nodes(torus));
  set_route(table, torus, "0,0", "1,0", "+Z +X");
  expect_single(verify(network, table), Rule::DeadChannel,
                "route 0,0 -> 1,0 (+Z +X) uses channel 0,0 +Z of the absent dimension Z at hop 1", 1);
}
END_TEST

// Single cabling: a hop through a port without a cable is a dead channel.
// 4x2 with Y single-cabled: 1,1 has only -Y, so "+Y" from it cannot leave.
START_TEST(test_port_without_cable) {
  const Torus torus = Torus::parse("4x2").with_single_cable(dimension_bit(1));
  const Network network(torus);
  RouteTable table = dor_table(torus, all_nodes(torus));  // + on a tie: +Y from row 1 too
  for (const char* from : {"0,1", "1,1", "2,1", "3,1"})
    for (const char* to : {"0,0", "1,0", "2,0", "3,0"}) {
      Route route = angara_test::route_between(table, torus, from, to);
      for (Direction& hop : route.hops)
        if (hop == Direction::make(1, false)) hop = Direction::make(1, true);
      table.set_route(table.index_of(node_at(torus, from)), table.index_of(node_at(torus, to)), route);
    }
  ck_assert(verify(network, table).ok());
  set_route(table, torus, "1,1", "3,0", "+Y +X +X");
  expect_single(verify(network, table), Rule::DeadChannel,
                "route 1,1 -> 3,0 (+Y +X +X) leaves through a port without a cable at hop 1: port +Y of 1,1 has no "
                "cable (Y is single-cabled: only +Y at Y=0 and -Y at Y=1 are cabled)",
                1);
}
END_TEST

// A table naming a node the torus does not have: reported, never indexed.
START_TEST(test_node_outside_torus) {
  const Torus torus = Torus::parse("3x3");
  const Network network(torus);
  const VerifyReport report = verify(network, RouteTable({0, 100}));
  ck_assert_uint_eq(report.violation_count, 3);  // the node, and both directions missing
  ck_assert_uint_eq(report.violations.size(), 2);
  ck_assert_std_str_eq(report.violations[0].message, "no route from 0,0 to id 100");
  ck_assert_std_str_eq(report.violations[1].message, "allocated node id 100 is outside the 3x3 torus");
}
END_TEST

// Several rules at once: one example each, in Rule order, all counted.
// The non-encodable -Y +X from 0,0 also closes a dependency cycle with three
// dimension-order routes: 0,0 -Y -> 0,2 +X (this route), 0,2 +X -> 1,2 +Y
// (0,2 -> 1,0), 1,2 +Y -> 1,0 -X (1,2 -> 0,0), 1,0 -X -> 0,0 -Y (1,0 -> 0,2).
// The lowest channel with a turn on it is 0,0 -Y (id 5).
START_TEST(test_one_example_per_rule) {
  const Torus torus = Torus::parse("3x3");
  const Network network(torus);
  RouteTable table = dor_table(torus, all_nodes(torus));
  set_route(table, torus, "1,0", "2,2", "");
  set_route(table, torus, "2,0", "0,0", "");
  set_route(table, torus, "0,0", "2,2", "-X");
  set_route(table, torus, "0,0", "1,2", "-Y +X");
  const VerifyReport report = verify(network, table);
  ck_assert_uint_eq(report.violation_count, 5);
  ck_assert_uint_eq(report.violations.size(), 4);
  ck_assert_int_eq(static_cast<int>(report.violations[0].rule), static_cast<int>(Rule::MissingRoute));
  ck_assert_std_str_eq(report.violations[0].message, "no route from 1,0 to 2,2");
  ck_assert_int_eq(static_cast<int>(report.violations[1].rule), static_cast<int>(Rule::WrongDestination));
  ck_assert_std_str_eq(report.violations[1].message, "route 0,0 -> 2,2 (-X) ends at 2,0");
  ck_assert_int_eq(static_cast<int>(report.violations[2].rule), static_cast<int>(Rule::NotEncodable));
  ck_assert_int_eq(static_cast<int>(report.violations[3].rule), static_cast<int>(Rule::Deadlock));
  ck_assert_std_str_eq(report.violations[3].message,
                       "virtual channel 0: turn 0,0 -Y -> 0,2 +X lies on a channel dependency cycle; "
                       "route 0,0 -> 1,2 (-Y +X) takes it after hop 1");
}
END_TEST

// The run-by-run walk of the verifier against a plain hop-by-hop walk, on
// random hop sequences: long runs that lap a ring, size-2 and absent
// dimensions, general paths, several layers, failed nodes and links.  And
// the whole report does not depend on the number of threads.
START_TEST(test_run_walk_matches_hop_walk) {
  std::uint64_t state = 12345;
  const auto next = [&](std::uint64_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % bound;
  };
  for (const char* dims : {"5x3", "4x2x3", "3x3x2x2", "7"}) {
    const Torus torus = Torus::parse(dims);
    Network network(torus);
    network.fail_link(1, Direction::make(0, false));
    if (torus.node_count() > 6) network.fail_node(5);
    RouteTable table(all_nodes(torus));
    for (std::size_t s = 0; s < table.size(); ++s)
      for (std::size_t d = 0; d < table.size(); ++d) {
        if (s == d || next(10) == 0) continue;  // some routes missing
        Route route;
        route.layer = static_cast<std::uint8_t>(next(3));
        const std::size_t runs = 1 + next(4);
        for (std::size_t r = 0; r < runs; ++r)
          route.hops.insert(route.hops.end(), 1 + next(r == 0 ? 12 : 3), Direction(static_cast<int>(next(8))));
        table.set_route(s, d, route);
      }
    expect_hop_walk(network, table, dims);

    setenv("ANGARA_THREADS", "1", 1);
    const VerifyReport one = verify(network, table, VerifyOptions{3});
    setenv("ANGARA_THREADS", "3", 1);
    const VerifyReport three = verify(network, table, VerifyOptions{3});
    unsetenv("ANGARA_THREADS");
    ck_assert(!one.ok());
    ck_assert_uint_eq(one.violation_count, three.violation_count);
    ck_assert_uint_eq(one.violations.size(), three.violations.size());
    for (std::size_t i = 0; i < one.violations.size(); ++i)
      ck_assert_std_str_eq(one.violations[i].message, three.violations[i].message);
    ck_assert_uint_eq(one.fs_ls_routes, three.fs_ls_routes);
    ck_assert_uint_eq(one.non_minimal, three.non_minimal);
    ck_assert_uint_eq(one.metrics.max_gamma, three.metrics.max_gamma);
  }
}
END_TEST

// A seeded stream of numbers for the tables below.
class Seeded {
 public:
  explicit Seeded(std::uint64_t state) : state_(state) {}
  std::uint64_t operator()(std::uint64_t bound) {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return (state_ >> 33) % bound;
  }

 private:
  std::uint64_t state_;
};

// Every kind of exception to a table's common routes, `changes` times at
// random pairs: missing, detoured (a First Step in Z and back), other
// layers, wrong ends, the long way round in X, not encodable.  With
// `in_order` only those that keep the direction order: missing, other
// layers, the long way round in X (kLongWayInOrder).
constexpr int kLongWayInOrder = 6;
void add_exceptions(const Torus& torus, RouteTable& table, std::size_t changes, Seeded& next, bool in_order = false) {
  static constexpr int kInOrder[] = {0, 2, kLongWayInOrder};
  for (std::size_t k = 0; k < changes; ++k) {
    const std::size_t s = next(table.size()), d = next(table.size());
    if (s == d) continue;
    Route route = table.route(s, d);
    switch (in_order ? kInOrder[next(3)] : static_cast<int>(next(6))) {
      case 0: table.set_route(s, d, Route{}); break;
      case 1:
        route.hops.insert(route.hops.begin(), Direction::make(2, false));
        route.hops.push_back(Direction::make(2, true));
        table.set_route(s, d, route);
        break;
      case 2: route.layer = static_cast<std::uint8_t>(1 + next(2)); table.set_route(s, d, route); break;
      case 3: route.hops.push_back(Direction::make(0, false)); table.set_route(s, d, route); break;
      case 4:
        route.hops.insert(route.hops.begin(), static_cast<std::size_t>(torus.size(0)), Direction::make(0, true));
        table.set_route(s, d, route);
        break;
      case kLongWayInOrder: {  // X's hops the other way round, still in direction order
        std::array<int, kDirectionCount> hops{};
        for (const Direction hop : route.hops) ++hops[static_cast<std::size_t>(hop.rank())];
        const int plus = hops[0], minus = hops[kMaxDims];
        if (plus + minus == 0) break;
        hops[0] = minus ? torus.size(0) - minus : 0;
        hops[kMaxDims] = plus ? torus.size(0) - plus : 0;
        route.hops.clear();
        for (int rank = 0; rank < kDirectionCount; ++rank)
          route.hops.insert(route.hops.end(), static_cast<std::size_t>(hops[static_cast<std::size_t>(rank)]), Direction(rank));
        table.set_route(s, d, route);
        break;
      }
      default:
        route.hops.insert(route.hops.begin(), {Direction::make(1, true), Direction::make(0, false), Direction::make(1, false)});
        table.set_route(s, d, route);
    }
  }
}

// The verifier's report with the check by displacement equals the one of
// walking every route, figure by figure and message by message, and both
// match a hop-by-hop walk.  Returns whether the check by displacement
// walked fewer than a quarter of the pairs.
bool expect_displacement_check_exact(const Network& network, const RouteTable& table, const std::string& what) {
  VerifyOptions by_displacement;
  by_displacement.max_virtual_channels = 2;
  VerifyOptions every_route = by_displacement;
  every_route.walk_every_route = true;
  const VerifyReport fast = verify(network, table, by_displacement);
  const VerifyReport slow = verify(network, table, every_route);
  ck_assert_uint_eq(slow.pairs_walked, table.size() * (table.size() - 1));
  ck_assert_msg(fast.violation_count == slow.violation_count, "%s: %zu violations, walking every route %zu",
                what.c_str(), fast.violation_count, slow.violation_count);
  ck_assert_uint_eq(fast.violations.size(), slow.violations.size());
  for (std::size_t i = 0; i < fast.violations.size(); ++i) {
    ck_assert_int_eq(static_cast<int>(fast.violations[i].rule), static_cast<int>(slow.violations[i].rule));
    ck_assert_std_str_eq(fast.violations[i].message, slow.violations[i].message);
  }
  ck_assert_uint_eq(fast.routes, slow.routes);
  ck_assert_uint_eq(fast.non_minimal, slow.non_minimal);
  ck_assert_uint_eq(fast.fs_ls_routes, slow.fs_ls_routes);
  ck_assert_int_eq(fast.virtual_channels, slow.virtual_channels);
  ck_assert_msg(fast.metrics.max_gamma == slow.metrics.max_gamma, "%s: max load %zu, walking every route %zu",
                what.c_str(), static_cast<std::size_t>(fast.metrics.max_gamma),
                static_cast<std::size_t>(slow.metrics.max_gamma));
  ck_assert_uint_eq(fast.metrics.min_gamma, slow.metrics.min_gamma);
  ck_assert(fast.metrics.sigma4 == slow.metrics.sigma4);
  ck_assert_int_eq(fast.metrics.max_hops, slow.metrics.max_hops);
  ck_assert(fast.metrics.avg_hops == slow.metrics.avg_hops);
  ck_assert_uint_eq(fast.metrics.lower_bound, slow.metrics.lower_bound);
  expect_hop_walk(network, table, what);
  return fast.pairs_walked < slow.pairs_walked / 4;
}

// A whole machine's table is checked by displacement (each common route
// once, the pairs that differ or meet a failure walked): the same report as
// walking every route, on tables with every kind of exception: failed
// routers and links on the common routes, detours, First and Last Steps,
// long ways, other layers, missing, wrong and non-encodable routes.
START_TEST(test_translates_match_walking_every_route) {
  Seeded next(777);
  int fast_runs = 0;
  for (const char* dims : {"8x8x4", "4x4x4x4", "16x16", "6x6x8"}) {
    for (int variant = 0; variant < 4; ++variant) {
      const Torus torus = Torus::parse(dims);
      Network network(torus);
      if (variant >= 1) network.fail_node(static_cast<NodeId>(next(torus.node_count())));
      if (variant >= 2) network.fail_link(static_cast<NodeId>(next(torus.node_count())), Direction::make(1, true));
      std::vector<NodeId> live;
      for (NodeId node = 0; node < torus.node_count(); ++node)
        if (network.node_alive(node)) live.push_back(node);
      RouteTable table = dimension_order_table(torus, live, variant % 2 == 1);
      add_exceptions(torus, table, variant == 3 ? 400 : variant == 2 ? 40 : 0, next);
      if (expect_displacement_check_exact(network, table, std::string(dims) + " variant " + std::to_string(variant)))
        ++fast_runs;
    }
  }
  // Tables whose common routes break no rule are checked by displacement.
  ck_assert_int_ge(fast_runs, 12);
}
END_TEST

// A block of a larger torus (per dimension a whole ring or an arc, which
// may wrap round the machine's ring) is checked by its keys (displacement
// and the parity of the source on the even rings): the same report as
// walking every route, with failures outside the block (which its routes
// never meet), ring ties split by parity, and every kind of exception.  A
// failed link inside the block leaves it to the check by counts of a
// scattered set (test_scattered_sets_match_walking_every_route).
START_TEST(test_blocks_match_walking_every_route) {
  struct Block {
    const char* machine;
    Coord origin, extent;
  };
  const Block blocks[] = {
      {"16x8x4", {12, 0, 0, 0}, {8, 8, 4, 1}},     // an arc wrapping round X, two rings
      {"8x4x4x8", {6, 0, 0, 1}, {4, 4, 4, 4}},     // arcs in X (wrapping) and W
      {"32x16", {5, 0, 0, 0}, {16, 16, 1, 1}},     // a long arc and a ring of 16
      {"8x8x16", {2, 3, 0, 0}, {4, 4, 16, 1}},     // two arcs and a ring
      {"16x16x8x4", {3, 12, 1, 3}, {8, 4, 4, 2}},  // four arcs, one of 2
  };
  Seeded next(4242);
  int fast_runs = 0;
  for (const Block& block : blocks) {
    const Torus torus = Torus::parse(block.machine);
    std::vector<NodeId> inside, outside;
    for (NodeId node = 0; node < torus.node_count(); ++node) {
      const Coord c = torus.coord(node);
      bool in = true;
      for (int dim = 0; dim < kMaxDims; ++dim)
        in = in && (c[dim] - block.origin[dim] + torus.size(dim)) % torus.size(dim) < block.extent[dim];
      (in ? inside : outside).push_back(node);
    }
    for (int variant = 0; variant < 4; ++variant) {
      Network network(torus);
      if (variant >= 1) network.fail_node(outside[next(outside.size())]);
      if (variant >= 2) network.fail_link(outside[next(outside.size())], Direction::make(0, true));
      if (variant == 3) network.fail_link(inside[next(inside.size())], Direction::make(1, false));
      RouteTable table = dimension_order_table(torus, inside, variant % 2 == 1);
      add_exceptions(torus, table, variant == 3 ? 300 : variant == 2 ? 30 : 0, next);
      const std::string what = std::string(block.machine) + " block variant " + std::to_string(variant);
      const bool fast = expect_displacement_check_exact(network, table, what);
      if (fast) ++fast_runs;
    }
  }
  ck_assert_int_ge(fast_runs, 15);
}
END_TEST

// A scattered set (no box): each pair's word against the direction-order
// word, the loads, run ends and turns from the set's counts, and the walk
// of the pairs that differ or may meet a failure give the report of walking
// every route, with ring ties any way, failed routers and channels
// outside the set (some routes cross them) and every kind of exception.
START_TEST(test_scattered_sets_match_walking_every_route) {
  Seeded next(99);
  for (const char* dims : {"8x8x4x4", "16x8x8", "6x6x6", "8x8x8x2"}) {
    const Torus torus = Torus::parse(dims);
    for (int variant = 0; variant < 4; ++variant) {
      std::vector<NodeId> chosen, others;
      const std::uint64_t percent = variant == 0 ? 25 : 50 + 15 * static_cast<std::uint64_t>(variant % 2);
      for (NodeId node = 0; node < torus.node_count(); ++node)
        (next(100) < percent ? chosen : others).push_back(node);
      Network network(torus);
      if (variant >= 1) network.fail_node(others[next(others.size())]);
      if (variant >= 2) network.fail_link(others[next(others.size())], Direction::make(0, true));
      if (variant == 3) network.fail_link(chosen[next(chosen.size())], Direction::make(1, false));
      RingTies mixed;  // X's ties the negative way, Y's negative from an even coordinate
      mixed.negative[0] = {true, true};
      mixed.negative[1] = {true, false};
      RouteTable table = variant == 2 ? dimension_order_table(torus, chosen, mixed)
                                      : dimension_order_table(torus, chosen, variant % 2 == 1);
      add_exceptions(torus, table, variant == 3 ? 300 : variant == 2 ? 200 : 0, next, variant == 2);
      const std::string what = std::string(dims) + " scattered variant " + std::to_string(variant);
      const bool fast = expect_displacement_check_exact(network, table, what);
      // 6x6x6 has too few routers (at most 216) for the counts to pay.
      const bool pays = std::string(dims) != "6x6x6" && chosen.size() >= 256;
      ck_assert_msg(fast == pays, "%s: %s", what.c_str(), fast ? "checked by counts" : "walked");
    }
  }
}
END_TEST

int main() {
  Suite* s = suite_create("verifier");
  TCase* tc = tcase_create("core");
  tcase_add_test(tc, test_rule_names);
  tcase_add_test(tc, test_valid_table_passes_with_metrics);
  tcase_add_test(tc, test_turn_cycle_is_deadlock);
  tcase_add_test(tc, test_layers_split_the_cycle);
  tcase_add_test(tc, test_same_direction_ring_passes);
  tcase_add_test(tc, test_rings_beside_acyclic_turns_pass);
  tcase_add_test(tc, test_flow_control_none_forbids_every_cycle);
  tcase_add_test(tc, test_general_rules);
  tcase_add_test(tc, test_missing_pair);
  tcase_add_test(tc, test_route_over_failed_link);
  tcase_add_test(tc, test_route_through_failed_node);
  tcase_add_test(tc, test_allocated_node_failed);
  tcase_add_test(tc, test_route_ending_at_wrong_node);
  tcase_add_test(tc, test_non_encodable_route);
  tcase_add_test(tc, test_layer_out_of_range);
  tcase_add_test(tc, test_absent_dimension);
  tcase_add_test(tc, test_port_without_cable);
  tcase_add_test(tc, test_node_outside_torus);
  tcase_add_test(tc, test_one_example_per_rule);
  tcase_add_test(tc, test_run_walk_matches_hop_walk);
  tcase_add_test(tc, test_translates_match_walking_every_route);
  tcase_add_test(tc, test_blocks_match_walking_every_route);
  tcase_add_test(tc, test_scattered_sets_match_walking_every_route);
  tcase_set_timeout(tc, 60);  // the comparisons walk every route twice; slow under the sanitizers
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
