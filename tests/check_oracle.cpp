// The routability oracle (routing/common/oracle.hpp) and the checked-turn stage
// (routing/common/checked_turns.hpp) on hand-checked faulty tori.
#include <algorithm>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "routing/common/checked_turns.hpp"
#include "routing/common/dependency_graph.hpp"
#include "routing/common/oracle.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using angara_test::node_at;
using angara_test::route_text;
using angara_test::verified;

namespace {

// An 8x8 with routers 1,0, 2,1 and 4,0 failed.
Network three_failed_routers_8x8() {
  Network net(Torus::parse("8x8"));
  for (const char* dead : {"1,0", "2,1", "4,0"}) net.fail_node(node_at(net.torus(), dead));
  return net;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : "; ") + name;
  return out;
}

}  // namespace

// 0,0 -> 2,0: both ways along row 0 hit a dead router (1,0 and 4,0), and
// +Y +X +X -Y meets 2,1.  The shortest encodable route goes up, west around
// the ring and down: "+Y -X -X -X -X -X -Y -X" (First Step +Y, Last Step
// -X), 8 hops.  2,0 -> 0,0 is cut off: its only neighbours are 3,0 and 2,7,
// and every encodable route from them back to column 0 needs one of the
// failed routers; reviving any one of the three opens one.
START_TEST(test_shortest_and_cut_off_pairs) {
  const Network net = three_failed_routers_8x8();
  const Torus& t = net.torus();
  const RoutabilityOracle oracle(net);
  ck_assert_int_eq(oracle.shortest(node_at(t, "0,0"), node_at(t, "2,0")), 8);
  ck_assert_int_eq(oracle.shortest(node_at(t, "2,0"), node_at(t, "0,0")), -1);
  ck_assert_int_eq(oracle.shortest(node_at(t, "0,0"), node_at(t, "0,1")), 1);
  ck_assert_int_eq(oracle.shortest(node_at(t, "0,0"), node_at(t, "0,0")), 0);
  ck_assert_std_str_eq(joined(blocking_failures(net, node_at(t, "2,0"), node_at(t, "0,0"))),
                       "router 1,0; router 4,0; router 2,1");
  // For a pair that can be joined: the failures on its minimal routes (the
  // only one is "+X +X").
  ck_assert_std_str_eq(joined(blocking_failures(net, node_at(t, "0,0"), node_at(t, "2,0"))), "router 1,0");

  const AllocationRoutability whole = assess_routability(net, angara_test::live_nodes(net));
  ck_assert_uint_eq(whole.nodes.size(), 61);
  ck_assert(!whole.all_routable());
  ck_assert_uint_eq(whole.cut_off_pairs, 4);  // 2,0 -> 0,0, 5,0, 6,0, 7,0
}
END_TEST

// Without 2,0 every pair of that 8x8 can be joined, and every
// generator with the checked-turn stage routes it, 0,0 -> 2,0 included at
// the oracle's length, in a table the verifier accepts.
START_TEST(test_generators_route_around_three_failed_routers) {
  const Network net = three_failed_routers_8x8();
  const Torus& t = net.torus();
  std::vector<NodeId> nodes = angara_test::live_nodes(net);
  nodes.erase(std::find(nodes.begin(), nodes.end(), node_at(t, "2,0")));
  ck_assert(assess_routability(net, nodes).all_routable());
  for (const char* name : {"bfs", "sssp", "balanced"}) {
    const RouteTable table = angara_test::generate(name, net, nodes);
    verified(net, table);
    ck_assert_std_str_eq(route_text(net, table, "0,0", "3,0"), "+Y -X -X -X -X -X -Y");
    ck_assert_uint_eq(table.route(table.index_of(node_at(t, "0,0")), table.index_of(node_at(t, "5,0"))).hops.size(),
                      3);
  }
}
END_TEST

// Seven failed cables on the whole 6x6: the generators' own routes leave
// three pairs whose every encodable route closes a forbidden cycle with them; the
// rip-up loop routes those first in later attempts (two left after the
// second, none after the third), and every generator comes out with a
// complete, verified table.
START_TEST(test_rip_up_routes_failed_cables) {
  Network net(Torus::parse("6x6"));
  const Torus& t = net.torus();
  for (const auto& [node, direction] : {std::pair{"1,0", "-Y"}, {"4,0", "+Y"}, {"5,0", "-Y"}, {"1,1", "+X"},
                                        {"3,3", "+X"}, {"0,4", "-X"}, {"4,5", "+X"}})
    net.fail_link(node_at(t, node), *Direction::parse(direction));
  const std::vector<NodeId> nodes = angara_test::live_nodes(net);
  ck_assert(assess_routability(net, nodes).all_routable());
  for (const char* name : {"bfs", "sssp", "balanced", "genetic"}) {
    const RouteTable table = angara_test::generate(name, net, nodes);
    ck_assert_uint_eq(table.size(), 36);
    verified(net, table);
  }
}
END_TEST

// On the whole machine the cut-off pairs are refused, with the reason and
// the failures to repair; nothing else.
START_TEST(test_refusal_names_failures) {
  const Network net = three_failed_routers_8x8();
  const std::string message =
      angara_test::error_message([&] { angara_test::generate("balanced", net, angara_test::live_nodes(net)); });
  ck_assert_std_str_eq(message,
                       "balanced: cannot route 4 of 3660 ordered pairs deadlock-free on one virtual channel: "
                       "2,0 -> 0,0: no Angara-encodable route avoids the failures (cut off by router 1,0, router 4,0, "
                       "router 2,1); 2,0 -> 5,0: no Angara-encodable route avoids the failures (cut off by router "
                       "1,0, router 4,0, router 2,1); 2,0 -> 6,0: no Angara-encodable route avoids the failures (cut "
                       "off by router 1,0, router 4,0, router 2,1); 2,0 -> 7,0: no Angara-encodable route avoids the "
                       "failures (cut off by router 1,0, router 4,0, router 2,1)");
  // The error carries every pair left out and the headline without them.
  try {
    angara_test::generate("balanced", net, angara_test::live_nodes(net));
  } catch (const RoutingError& e) {
    ck_assert_std_str_eq(e.headline(), "balanced: cannot route 4 of 3660 ordered pairs deadlock-free on one virtual channel");
    ck_assert_uint_eq(e.unrouted().size(), 4);
    for (const char* dst : {"0,0", "5,0", "6,0", "7,0"})
      ck_assert(std::find(e.unrouted().begin(), e.unrouted().end(),
                          NodePair{node_at(net.torus(), "2,0"), node_at(net.torus(), dst)}) != e.unrouted().end());
  }
}
END_TEST

// The diagnosis of many pairs at once: the shortest route or none, the
// failures whose single repair reopens a pair (by failure_names() index),
// or those on the minimal routes of a pair that can be joined.
START_TEST(test_diagnose_pairs) {
  const Network net = three_failed_routers_8x8();  // failure_names: router 1,0; router 4,0; router 2,1
  const Torus& t = net.torus();
  const std::vector<PairDiagnosis> diagnoses =
      diagnose_pairs(net, {{node_at(t, "2,0"), node_at(t, "0,0")}, {node_at(t, "2,0"), node_at(t, "5,0")},
                           {node_at(t, "0,0"), node_at(t, "2,0")}, {node_at(t, "0,0"), node_at(t, "0,1")}});
  ck_assert_uint_eq(diagnoses.size(), 4);
  for (int i = 0; i < 2; ++i) {
    ck_assert_int_eq(diagnoses[i].shortest, -1);
    ck_assert(diagnoses[i].blockers == (std::vector<std::size_t>{0, 1, 2}));
    ck_assert(diagnoses[i].each_repair_reopens);
  }
  ck_assert_int_eq(diagnoses[2].shortest, 8);
  ck_assert(diagnoses[2].blockers == std::vector<std::size_t>{0});  // router 1,0 on "+X +X"
  ck_assert(!diagnoses[2].each_repair_reopens);
  ck_assert_int_eq(diagnoses[3].shortest, 1);
  ck_assert(diagnoses[3].blockers.empty());
}
END_TEST

// A failed cable is named as it was declared (from the end the
// configuration names), not from its other end.
START_TEST(test_cable_names) {
  Network net(Torus::parse("4x4"));
  const Torus& t = net.torus();
  net.fail_link(node_at(t, "1,0"), *Direction::parse("-X"));
  ck_assert_std_str_eq(joined(failure_names(net)), "cable 1,0 -X");
  ck_assert_std_str_eq(joined(blocking_failures(net, node_at(t, "0,0"), node_at(t, "1,0"))), "cable 1,0 -X");
  ck_assert_int_eq(RoutabilityOracle(net).shortest(node_at(t, "0,0"), node_at(t, "1,0")), 3);
}
END_TEST

// The staircase of check_dependency_graph.cpp with three routes in: the
// First Step route 0,1 -> 1,0 "+Y +X" would close the cycle of turns, and
// the checked search takes "+X +Y" instead (0,1 +X -> 1,1 +Y closes nothing).
START_TEST(test_find_checked_route) {
  const Network net(Torus::parse("2x2"));
  const Torus& t = net.torus();
  IncrementalDependencyGraph graph(t, FlowControl::bubble);
  for (const auto& [from, hops] : {std::pair{"0,0", "+X +Y"}, {"1,0", "+Y +X"}, {"1,1", "+X +Y"}})
    graph.add_path(route_channels(t, node_at(t, from), parse_hops(hops)));
  ck_assert(!graph.try_add_path(route_channels(t, node_at(t, "0,1"), parse_hops("+Y +X"))));
  const auto found = find_checked_route(net, graph, node_at(t, "0,1"), node_at(t, "1,0"));
  ck_assert(found.has_value());
  ck_assert_std_str_eq(Route{*found}.to_string(), "+X +Y");
  // Limited to one hop there is none.
  ck_assert(!find_checked_route(net, graph, node_at(t, "0,1"), node_at(t, "1,0"), 1).has_value());
}
END_TEST

// A memo shared by searches answers as the graph was when it asked, until
// forget(): the staircase's closing turn 0,1 +Y -> 0,0 +X is refused, stays
// refused in the memo after the route that made it close a cycle is gone,
// and is allowed once the memo forgets.
START_TEST(test_dependency_memo) {
  const Network net(Torus::parse("2x2"));
  const Torus& t = net.torus();
  IncrementalDependencyGraph graph(t, FlowControl::bubble);
  const std::vector<ChannelId> middle = route_channels(t, node_at(t, "1,0"), parse_hops("+Y +X"));
  for (const auto& [from, hops] : {std::pair{"0,0", "+X +Y"}, {"1,1", "+X +Y"}})
    graph.add_path(route_channels(t, node_at(t, from), parse_hops(hops)));
  graph.add_path(middle);
  DependencyMemo memo(t);
  const auto found = find_checked_route(net, graph, node_at(t, "0,1"), node_at(t, "1,0"), 0, &memo);
  ck_assert(found.has_value());
  ck_assert_std_str_eq(Route{*found}.to_string(), "+X +Y");
  const std::vector<ChannelId> closing = route_channels(t, node_at(t, "0,1"), parse_hops("+Y +X"));
  ck_assert(!memo.allowed(graph, closing[0], closing[1]));
  graph.remove_path(middle);
  ck_assert(!graph.closes_cycle(closing[0], closing[1]));
  ck_assert(!memo.allowed(graph, closing[0], closing[1]));  // as the graph was
  memo.forget();
  ck_assert(memo.allowed(graph, closing[0], closing[1]));
}
END_TEST

int main() {
  Suite* s = suite_create("oracle");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_shortest_and_cut_off_pairs);
  tcase_add_test(tc, test_generators_route_around_three_failed_routers);
  tcase_add_test(tc, test_rip_up_routes_failed_cables);
  tcase_add_test(tc, test_refusal_names_failures);
  tcase_add_test(tc, test_cable_names);
  tcase_add_test(tc, test_diagnose_pairs);
  tcase_add_test(tc, test_find_checked_route);
  tcase_add_test(tc, test_dependency_memo);
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
