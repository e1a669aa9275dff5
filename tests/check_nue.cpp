// The nue generator (routing/generators/nue.cpp): Nue routing on small tori and
// hand-made faulty networks, under both rule sets and both deadlock rules.
// The generic contract (complete, deterministic, DOR on odd rings, errors) is
// in check_generators.cpp; here are the properties specific to Nue.
#include <set>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "routing/generator.hpp"
#include "routing/check/verifier.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using angara_test::error_message;
using angara_test::generate;
using angara_test::live_nodes;
using angara_test::node_at;
using angara_test::route_all;
using angara_test::route_between;
using angara_test::same_routes;

namespace {

GeneratorOptions options(RuleSet rules, FlowControl flow, int virtual_channels) {
  GeneratorOptions o;
  o.rules = rules;
  o.flow_control = flow;
  o.virtual_channels = virtual_channels;
  return o;
}

// Verified under the same rules and virtual channels the table was made with.
VerifyReport verified_as(const Network& network, const RouteTable& table, const GeneratorOptions& o) {
  VerifyOptions v;
  v.rules = o.rules;
  v.flow_control = o.flow_control;
  v.max_virtual_channels = o.virtual_channels;
  const VerifyReport report = verify(network, table, v);
  ck_assert_msg(report.ok(), "%s", report.ok() ? "" : report.violations.front().message.c_str());
  ck_assert_uint_eq(report.routes, table.size() * (table.size() - 1));
  for (int layer = 0; layer < report.virtual_channels; ++layer)
    ck_assert(layer_deadlock_free(network, table, layer, nullptr, o.flow_control));
  return report;
}

}  // namespace

// Fault-free 4x4x4 under rules general: the direction-order preference keeps
// every route a minimal DOR route (no detour, no turn cycle to avoid), and
// the load splits the ties of the 4-rings to within 1.25x of the bound.
START_TEST(test_general_fault_free) {
  const Network net(Torus::parse("4x4x4"));
  const GeneratorOptions o = options(RuleSet::general, FlowControl::bubble, 1);
  const RouteTable table = route_all("nue", net, o);
  const VerifyReport report = verified_as(net, table, o);
  ck_assert_uint_eq(report.non_minimal, 0);
  ck_assert_int_eq(report.virtual_channels, 1);
  for (std::size_t s = 0; s < table.size(); ++s)
    for (std::size_t d = 0; d < table.size(); ++d)
      if (s != d) ck_assert(is_dor_route(table.route(s, d).hops));
  ck_assert_uint_eq(report.metrics.lower_bound, 32);
  ck_assert_uint_le(report.metrics.max_gamma, 40);
  ck_assert(same_routes(table, route_all("nue", net, o)));
}
END_TEST

// A ring of 5: under bubble flow control the one-direction ring cycles of
// the two-hop routes are harmless, so every route is minimal on one virtual
// channel.  Under flow control none each ring direction's cycle must be cut:
// with one virtual channel that costs exactly one detour per direction (a
// two-hop route going the long way round, three hops), with two virtual
// channels none.
START_TEST(test_ring_cycles) {
  const Network ring(Torus::parse("5"));
  const GeneratorOptions bubble = options(RuleSet::general, FlowControl::bubble, 1);
  const VerifyReport free_rings = verified_as(ring, route_all("nue", ring, bubble), bubble);
  ck_assert_uint_eq(free_rings.non_minimal, 0);
  ck_assert_int_eq(free_rings.virtual_channels, 1);

  const GeneratorOptions none = options(RuleSet::general, FlowControl::none, 1);
  const VerifyReport cut = verified_as(ring, route_all("nue", ring, none), none);
  ck_assert_uint_eq(cut.non_minimal, 2);
  ck_assert_uint_eq(cut.metrics.max_hops, 3);

  const GeneratorOptions two = options(RuleSet::general, FlowControl::none, 2);
  const VerifyReport layered = verified_as(ring, route_all("nue", ring, two), two);
  ck_assert_uint_eq(layered.non_minimal, 0);
  ck_assert_int_eq(layered.virtual_channels, 2);
}
END_TEST

// 5x3 with both cables of 0,0 along X failed, allocation {0,0, 1,0}.  The
// only three-hop Angara routes: 0,0 -> 1,0 "+Y +X -Y" (First Step +Y,
// middle +X, Last Step -Y; "-Y +X +Y" is not encodable) and 1,0 -> 0,0
// "+Y -X -Y" (middle +Y -X, Last Step -Y: +Y and -Y break the direction-bit
// rule, so it needs the Last Step too).  Under rules general a route need
// not be encodable, but it is just as short.
START_TEST(test_angara_first_and_last_step) {
  Network net(Torus::parse("5x3"));
  const Torus& t = net.torus();
  net.fail_link(node_at(t, "0,0"), Direction::make(0, false));
  net.fail_link(node_at(t, "0,0"), Direction::make(0, true));
  const std::vector<NodeId> pair{node_at(t, "0,0"), node_at(t, "1,0")};
  const GeneratorOptions angara = options(RuleSet::angara, FlowControl::bubble, 1);
  const RouteTable table = generate("nue", net, pair, angara);
  ck_assert_std_str_eq(route_between(table, t, "0,0", "1,0").to_string(), "+Y +X -Y");
  ck_assert_std_str_eq(route_between(table, t, "1,0", "0,0").to_string(), "+Y -X -Y");
  ck_assert_uint_eq(verified_as(net, table, angara).fs_ls_routes, 2);

  const GeneratorOptions general = options(RuleSet::general, FlowControl::bubble, 1);
  const VerifyReport report = verified_as(net, generate("nue", net, pair, general), general);
  ck_assert_uint_eq(report.metrics.max_hops, 3);
}
END_TEST

// An 8x8 with failed routers 1,0, 2,1 and 4,0.  From 2,0 every
// way out but +X (to 3,0) and -Y is failed; a route starting -Y may only
// continue -Y (DOR) and end with one Last Step, and from 3,0 the ways on are
// +X (4,0 failed), +Y then -X (through 2,1) or -X (through 1,0): no Angara
// route reaches 0,0 (nor 5,0, 6,0, 7,0, behind 4,0), and nue says so with
// the failures that cut them off, as the oracle does.  Under rules general
// every pair is routed, deadlock-free, around the failures.
START_TEST(test_pairs_cut_off_on_faulty_8x8) {
  Network net(Torus::parse("8x8"));
  const Torus& t = net.torus();
  for (const char* dead : {"1,0", "2,1", "4,0"}) net.fail_node(node_at(t, dead));
  ck_assert_std_str_eq(error_message([&] { route_all("nue", net); }),
                       "nue: 4 of 3660 ordered pairs have no Angara-encodable route that avoids the failures: "
                       "2,0 -> 0,0 (cut off by router 1,0, router 4,0, router 2,1); "
                       "2,0 -> 5,0 (cut off by router 1,0, router 4,0, router 2,1); "
                       "2,0 -> 6,0 (cut off by router 1,0, router 4,0, router 2,1); "
                       "2,0 -> 7,0 (cut off by router 1,0, router 4,0, router 2,1)");
  const GeneratorOptions general = options(RuleSet::general, FlowControl::bubble, 1);
  const VerifyReport report = verified_as(net, route_all("nue", net, general), general);
  ck_assert_uint_eq(report.routes, 61u * 60u);
  ck_assert_uint_gt(report.non_minimal, 0);
}
END_TEST

// Rules general under bubble, one virtual channel, on an 8x8 with routers
// 3,2 and 0,6 and the cable 1,5 +X failed: the search with the escape paths
// checked like any route gets stuck here, so the layer is routed again with
// the escape tree's dependencies reserved from the start (section 4.3), and
// every pair is routed, deadlock-free, around the failures.
START_TEST(test_general_escape_reserved) {
  Network net(Torus::parse("8x8"));
  const Torus& t = net.torus();
  for (const char* dead : {"3,2", "0,6"}) net.fail_node(node_at(t, dead));
  net.fail_link(node_at(t, "1,5"), Direction::make(0, false));
  const GeneratorOptions general = options(RuleSet::general, FlowControl::bubble, 1);
  const RouteTable table = route_all("nue", net, general);
  const VerifyReport report = verified_as(net, table, general);
  ck_assert_uint_eq(report.routes, 62u * 61u);
  ck_assert_int_eq(report.virtual_channels, 1);
  ck_assert_uint_gt(report.non_minimal, 0);
  ck_assert(same_routes(table, route_all("nue", net, general)));
}
END_TEST

// Faulty Desmos (a failed router and a failed cable) on every second node
// and on the whole machine, under rules angara with 1 and 4 virtual
// channels: complete, encodable, acyclic per channel, verified.
START_TEST(test_angara_faulty_desmos) {
  Network net(Torus::parse("4x2x2x2"));
  const Torus& t = net.torus();
  net.fail_node(node_at(t, "2,1,0,1"));
  net.fail_link(node_at(t, "0,0,1,0"), Direction::make(3, true));
  for (int vcs : {1, 4}) {
    const GeneratorOptions o = options(RuleSet::angara, FlowControl::bubble, vcs);
    verified_as(net, route_all("nue", net, o), o);
    std::vector<NodeId> every_second;
    for (NodeId v : live_nodes(net))
      if (v % 2 == 0) every_second.push_back(v);
    verified_as(net, generate("nue", net, every_second, o), o);
  }
}
END_TEST

// k = 4 virtual channels on 4x4x4: the destinations are split by METIS into
// four parts of 16 (a balanced k-way partition of the 64 nodes); all routes
// to one destination share its part's virtual channel, each channel's CDG is
// acyclic under the bubble rule, and the table is verified.
START_TEST(test_metis_layers) {
  const Network net(Torus::parse("4x4x4"));
  for (RuleSet rules : {RuleSet::general, RuleSet::angara}) {
    const GeneratorOptions o = options(rules, FlowControl::bubble, 4);
    const RouteTable table = route_all("nue", net, o);
    const VerifyReport report = verified_as(net, table, o);
    ck_assert_int_eq(report.virtual_channels, 4);
    ck_assert_uint_eq(report.non_minimal, 0);
    std::vector<int> per_layer(4, 0);
    for (std::size_t d = 0; d < table.size(); ++d) {
      std::set<int> layers;
      for (std::size_t s = 0; s < table.size(); ++s)
        if (s != d) layers.insert(table.route(s, d).layer);
      ck_assert_uint_eq(layers.size(), 1);
      ++per_layer[*layers.begin()];
    }
    for (int count : per_layer) ck_assert_int_eq(count, 16);
  }
}
END_TEST

// Flow control none on a 4x4 with one virtual channel: the escape paths keep
// every destination routable although every ring cycle is forbidden.
START_TEST(test_flow_control_none) {
  Network net(Torus::parse("4x4"));
  net.fail_node(node_at(net.torus(), "1,1"));
  const GeneratorOptions o = options(RuleSet::general, FlowControl::none, 1);
  const RouteTable table = route_all("nue", net, o);
  verified_as(net, table, o);
  ck_assert(same_routes(table, route_all("nue", net, o)));
}
END_TEST

int main() {
  Suite* s = suite_create("nue");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_general_fault_free);
  tcase_add_test(tc, test_ring_cycles);
  tcase_add_test(tc, test_angara_first_and_last_step);
  tcase_add_test(tc, test_pairs_cut_off_on_faulty_8x8);
  tcase_add_test(tc, test_general_escape_reserved);
  tcase_add_test(tc, test_angara_faulty_desmos);
  tcase_add_test(tc, test_metis_layers);
  tcase_add_test(tc, test_flow_control_none);
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
