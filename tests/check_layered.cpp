// The layered backends: the shared path step (routing/common/shortest_paths.hpp),
// the layer assignments of dfsssp and lash (routing/common/layering.hpp) on
// hand-made cases, and both generators end to end through the verifier.
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "routing/common/dependency_graph.hpp"
#include "routing/common/layering.hpp"
#include "routing/common/shortest_paths.hpp"
#include "routing/check/verifier.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using angara_test::error_message;
using angara_test::node_at;

namespace {

VerifyReport verify_general(const Network& network, const RouteTable& table, FlowControl rule = FlowControl::bubble) {
  VerifyOptions options;
  options.rules = RuleSet::general;
  options.flow_control = rule;
  options.max_virtual_channels = kMaxLayers;
  return verify(network, table, options);
}

GeneratorOptions general_options(int virtual_channels = kMaxLayers) {
  GeneratorOptions options;
  options.rules = RuleSet::general;
  options.virtual_channels = virtual_channels;
  return options;
}

// "SRC -> DST: HOPS @LAYER" for every pair on a layer above 0.
std::string raised_pairs(const Torus& torus, const PathSet& paths, const std::vector<std::uint8_t>& layer) {
  std::string out;
  for (std::size_t p = 0; p < paths.pair_count(); ++p) {
    if (layer[p] == 0) continue;
    Route route;
    for (const ChannelId* c = paths.begin(p); c != paths.end(p); ++c) route.hops.push_back(Torus::channel_direction(*c));
    out += (out.empty() ? "" : "; ") + torus.format_coord(paths.nodes()[paths.pair_source(p)]) + " -> " +
           torus.format_coord(paths.nodes()[paths.pair_destination(p)]) + ": " + route.to_string() + " @" +
           std::to_string(layer[p]);
  }
  return out;
}

// The square 0,0 1,0 1,1 0,1 of a 3x3 torus, routed by hand: neighbours
// directly, the diagonals with one turn each, so that the four turns close
// the cycle +X@0,0 -> +Y@1,0 -> -X@1,1 -> -Y@0,1 -> +X@0,0.
PathSet square_with_cycle(const Torus& torus) {
  const std::vector<NodeId> nodes = {node_at(torus, "0,0"), node_at(torus, "1,0"), node_at(torus, "0,1"),
                                     node_at(torus, "1,1")};
  PathSet paths(nodes);
  // Hops per pair, sources and destinations in the sorted order above.
  const char* const hops[4][4] = {
      {"", "+X", "+Y", "+X +Y"},   // from 0,0
      {"-X", "", "+Y -X", "+Y"},   // from 1,0
      {"-Y", "-Y +X", "", "+X"},   // from 0,1
      {"-X -Y", "-Y", "-X", ""}};  // from 1,1
  for (std::size_t s = 0; s < 4; ++s)
    for (std::size_t d = 0; d < 4; ++d)
      paths.append(route_channels(torus, paths.nodes()[s], parse_hops(hops[s][d])));
  return paths;
}

}  // namespace

// A 6-ring: every shortest path runs one way round, so the only dependency
// cycles are the two ring directions.  Under bubble flow control they are
// harmless: one layer.  Under none each direction's cycle must be cut, and
// the cheapest cut moves the paths that induce one dependency per direction.
START_TEST(test_ring) {
  const Network net(Torus::parse("6"));
  const Torus& t = net.torus();
  const PathSet paths = balanced_shortest_paths(net, angara_test::all_nodes(t), ShortestPathOptions{}, "test");
  ck_assert(paths.complete());
  // Offset 3 is tied: + from even coordinates, - from odd ones.
  std::vector<std::uint8_t> only(paths.pair_count(), 0);
  only[paths.pair(0, 3)] = only[paths.pair(1, 4)] = only[paths.pair(0, 5)] = 1;
  ck_assert_std_str_eq(raised_pairs(t, paths, only), "0 -> 3: +X +X +X @1; 0 -> 5: -X @1; 1 -> 4: -X -X -X @1");
  for (const auto& assign : {dfsssp_layers, lash_layers}) {
    const LayerAssignment bubble = assign(t, paths, FlowControl::bubble);
    ck_assert_int_eq(bubble.used, 1);
    const LayerAssignment none = assign(t, paths, FlowControl::none);
    ck_assert_int_eq(none.used, 2);
    ck_assert(!none.exhausted);
    const RouteTable table = paths.make_table(none.layer, "test");
    ck_assert(verify_general(net, table, FlowControl::none).ok());
    // The same paths on one layer deadlock without bubble flow control.
    ck_assert(!verify_general(net, paths.make_table({}, "test"), FlowControl::none).ok());
  }
  // DFSSSP cuts one weakest dependency of each ring direction (every one is
  // induced by two paths; the first on the cycle goes): +X@0 -> +X@1, which
  // 0 -> 2 and 0 -> 3 induce, and -X@0 -> -X@5, which 0 -> 4 and 1 -> 4 do.
  ck_assert_std_str_eq(raised_pairs(t, paths, dfsssp_layers(t, paths, FlowControl::none).layer),
                       "0 -> 2: +X +X @1; 0 -> 3: +X +X +X @1; 0 -> 4: -X -X @1; 1 -> 4: -X -X -X @1");
}
END_TEST

// The known cycle of the square: dfsssp cuts its weakest dependency (each
// is induced by one path; the first found goes), lash puts the last pair
// that would close it on layer 1.  On one layer the verifier finds the
// deadlock; with the assignment it passes.
START_TEST(test_square_cycle) {
  const Network net(Torus::parse("3x3"));
  const Torus& t = net.torus();
  const PathSet paths = square_with_cycle(t);
  const VerifyReport flat = verify_general(net, paths.make_table({}, "test"));
  ck_assert(!flat.ok());
  ck_assert_int_eq(static_cast<int>(flat.violations.front().rule), static_cast<int>(Rule::Deadlock));

  const LayerAssignment dfsssp = dfsssp_layers(t, paths, FlowControl::bubble);
  ck_assert_int_eq(dfsssp.used, 2);
  ck_assert_std_str_eq(raised_pairs(t, paths, dfsssp.layer), "0,0 -> 1,1: +X +Y @1");
  ck_assert(verify_general(net, paths.make_table(dfsssp.layer, "dfsssp")).ok());

  const LayerAssignment lash = lash_layers(t, paths, FlowControl::bubble);
  ck_assert_int_eq(lash.used, 2);
  ck_assert_std_str_eq(raised_pairs(t, paths, lash.layer), "1,1 -> 0,0: -X -Y @1");
  ck_assert(verify_general(net, paths.make_table(lash.layer, "lash")).ok());

  // A table with the layers but only one virtual channel allowed is refused.
  VerifyOptions one;
  one.rules = RuleSet::general;
  const VerifyReport narrow = verify(net, paths.make_table(lash.layer, "lash"), one);
  ck_assert(!narrow.ok());
  ck_assert_int_eq(static_cast<int>(narrow.violations.front().rule), static_cast<int>(Rule::BadLayer));
}
END_TEST

// Whole tori: DOR paths with the ties split evenly are at the per-dimension
// bound, and their dependencies only go up the direction order: one layer.
START_TEST(test_whole_tori_one_layer_at_the_bound) {
  for (const auto& [dims, bound] : {std::pair{"4x4x4", 32u}, {"6x6x6", 162u}, {"8x8", 64u}})
    for (const char* name : {"dfsssp", "lash"})
      for (RuleSet rules : {RuleSet::general, RuleSet::angara}) {
        const Network net(Torus::parse(dims));
        GeneratorOptions options = general_options();
        options.rules = rules;
        const RouteTable table = angara_test::route_all(name, net, options);
        VerifyOptions verify_options;
        verify_options.rules = rules;
        verify_options.max_virtual_channels = kMaxLayers;
        const VerifyReport report = verify(net, table, verify_options);
        ck_assert_msg(report.ok(), "%s %s", name, dims);
        ck_assert_int_eq(report.virtual_channels, 1);
        ck_assert_uint_eq(report.non_minimal, 0);
        ck_assert_uint_eq(report.metrics.max_gamma, bound);
      }
}
END_TEST

// The single-cabled Desmos (Y, Z and K cabled once): the hops of those
// dimensions have a fixed direction, and direction-order paths alone stack
// the -X hops into a few rows (max 36).  The relief pass moves pairs to other
// dimension orders where that closes no cycle: one layer, max 25 (balanced,
// with First and Last Steps: 26; bound 16).
START_TEST(test_single_cabled_desmos) {
  const Network net(Torus::parse("4x2x2x2").with_single_cable(dimension_bit(1) | dimension_bit(2) | dimension_bit(3)));
  for (const char* name : {"dfsssp", "lash"}) {
    const RouteTable table = angara_test::route_all(name, net, general_options(1));
    const VerifyReport report = verify_general(net, table);
    ck_assert_msg(report.ok(), "%s", name);
    ck_assert_int_eq(report.virtual_channels, 1);
    ck_assert_uint_eq(report.non_minimal, 0);
    ck_assert_uint_eq(report.metrics.max_gamma, 25);
  }
}
END_TEST

// 4x4x4 with two failed cables, and with a failed router: verified tables
// on few layers, every pair on a shortest live path.
START_TEST(test_faulty_tori) {
  Network cables(Torus::parse("4x4x4"));
  cables.fail_link(node_at(cables.torus(), "0,0,0"), Direction(0));  // +X
  cables.fail_link(node_at(cables.torus(), "1,2,3"), Direction(1));  // +Y
  Network router(Torus::parse("4x4x4"));
  router.fail_node(node_at(router.torus(), "1,1,1"));
  for (const Network* net : {&cables, &router})
    for (const char* name : {"dfsssp", "lash"}) {
      const RouteTable table = angara_test::route_all(name, *net, general_options());
      const VerifyReport report = verify_general(*net, table);
      ck_assert_msg(report.ok(), "%s: %s", name, report.ok() ? "" : report.violations.front().message.c_str());
      ck_assert_int_le(report.virtual_channels, 3);
      ck_assert_int_ge(report.virtual_channels, 2);  // detours add turns against the order
      // A failed cable makes 4 pairs one hop longer (they must go round);
      // around a failed router every pair keeps its torus distance.
      ck_assert_uint_eq(report.non_minimal, net == &cables ? 4 : 0);
    }
}
END_TEST

// The refusals: too few virtual channels (with the number needed), a pair
// cut off, bad options.
START_TEST(test_refusals) {
  const Network net(Torus::parse("4x4x4"));
  GeneratorOptions trees = general_options(2);
  trees.extra["paths"] = "trees";  // Algorithm 1 as published needs many layers here
  const std::string refused = error_message([&] { angara_test::route_all("dfsssp", net, trees); });
  ck_assert_msg(refused.find("dfsssp: the routes need ") == 0 &&
                    refused.find(" virtual channels, only 2 allowed (routing.virtual_channels)") != std::string::npos,
                "%s", refused.c_str());
  trees.virtual_channels = kMaxLayers;
  ck_assert(verify_general(net, angara_test::route_all("dfsssp", net, trees)).ok());

  GeneratorOptions bad = general_options();
  bad.extra["paths"] = "random";
  ck_assert_std_str_eq(error_message<std::invalid_argument>([&] { angara_test::route_all("lash", net, bad); }),
                       "lash: option 'paths' expects pairs or trees, got 'random'");
  bad.extra["paths"] = "trees";
  bad.rules = RuleSet::angara;
  ck_assert_std_str_eq(error_message([&] { angara_test::route_all("lash", net, bad); }),
                       "lash: option paths: trees needs routing.rules: general");
  bad = general_options();
  bad.extra["passes"] = "3";
  ck_assert_std_str_eq(error_message<std::invalid_argument>([&] { angara_test::route_all("dfsssp", net, bad); }),
                       "dfsssp: option 'passes' expects an integer from 1 to 2, got '3'");

  // A router whose every cable failed is cut off from the others.
  Network island(Torus::parse("4x4"));
  for (int rank : {0, 1, 4, 5}) island.fail_link(node_at(island.torus(), "2,2"), Direction(rank));
  ck_assert_std_str_eq(error_message([&] { angara_test::route_all("dfsssp", island, general_options()); }),
                       "dfsssp: no path from 2,2 to 0,0 avoids the failures");
}
END_TEST

// DFSSSP's cycle breaking cuts one cycle per component a round; on a whole
// 8x8x8 under rules general without bubble flow control a cut moves paths
// out of components not yet looked at, whose cycle is then gone: such a
// component waits for the next round's components.  Six layers, verified,
// and a clear refusal with fewer.
START_TEST(test_dfsssp_cuts_that_dissolve_later_cycles) {
  const Network net(Torus::parse("8x8x8"));
  GeneratorOptions options = general_options();
  options.flow_control = FlowControl::none;
  const RouteTable table = angara_test::route_all("dfsssp", net, options);
  const VerifyReport report = verify_general(net, table, FlowControl::none);
  ck_assert(report.ok());
  ck_assert_int_eq(report.virtual_channels, 6);
  options.virtual_channels = 2;
  ck_assert_std_str_eq(error_message([&] { angara_test::route_all("dfsssp", net, options); }).c_str(),
                       "dfsssp: the routes need 6 virtual channels, only 2 allowed (routing.virtual_channels)");
}
END_TEST

// MROOTS (Lysne et al., section 4.1), the UpDown structure of a ring of 4
// rooted at 0: 1 and 3 are one hop from the root, 2 two; every link's up end
// is the end nearer the root.  So 1 -> 0, 3 -> 0, 2 -> 1 and 2 -> 3 are up,
// their reverses down, and the route 1 -> 3 must go up through the root
// (1 -> 0 -> 3, -X -X): the other way 1 -> 2 -> 3 goes down, then up.
// Section 4.2: the second layer's root is the node farthest from the first,
// 2; with two layers, 1 -> 3 may take either way, both two hops.
START_TEST(test_mroots_updown_on_a_ring) {
  const Torus ring = Torus::parse("4");
  const Network net(ring);
  const NodeId n0 = node_at(ring, "0"), n1 = node_at(ring, "1"), n2 = node_at(ring, "2"), n3 = node_at(ring, "3");
  const Direction plus(0), minus(4);
  ck_assert(mroots_up_channel(net, n0, Torus::channel(n1, minus)));   // 1 -> 0
  ck_assert(mroots_up_channel(net, n0, Torus::channel(n3, plus)));    // 3 -> 0 (round the ring)
  ck_assert(mroots_up_channel(net, n0, Torus::channel(n2, minus)));   // 2 -> 1
  ck_assert(mroots_up_channel(net, n0, Torus::channel(n2, plus)));    // 2 -> 3
  ck_assert(!mroots_up_channel(net, n0, Torus::channel(n0, plus)));   // 0 -> 1
  ck_assert(!mroots_up_channel(net, n0, Torus::channel(n1, plus)));   // 1 -> 2
  ck_assert(mroots_roots(net, {n0, n1, n2, n3}, 2) == (std::vector<NodeId>{n0, n2}));
  ck_assert(mroots_roots(net, {n0, n1, n2, n3}, 3) == (std::vector<NodeId>{n0, n2, n1}));

  const RouteTable one = angara_test::route_all("mroots", net, general_options(1));
  ck_assert_std_str_eq(one.route(1, 3).to_string(), "-X -X");
  ck_assert_std_str_eq(one.route(3, 1).to_string(), "+X +X");  // 3 -> 0 -> 1: up, then down
  ck_assert_std_str_eq(one.route(2, 0).to_string(), "+X +X");  // 2 -> 3 -> 0, both up (the lower id first)
  const VerifyReport report = verify_general(net, one, FlowControl::none);
  ck_assert(report.ok());  // acyclic even without bubble flow control
  ck_assert_int_eq(report.virtual_channels, 1);
}
END_TEST

// D-MROOTS end to end: every table verified under both rule sets, on a
// faulty torus under the general rules, on Desmos under the Angara rules
// with 4 layers; there one layer (plain UpDown) leaves pairs without an
// encodable legal route, a refusal naming the 2 layers that route them.
START_TEST(test_mroots_tables) {
  Network faulty(Torus::parse("4x4x4"));
  faulty.fail_node(node_at(faulty.torus(), "1,1,1"));
  faulty.fail_link(node_at(faulty.torus(), "0,0,0"), Direction(0));
  for (const Network* net : {&faulty}) {
    for (int layers : {1, 2, 4}) {
      const RouteTable table = angara_test::route_all("mroots", *net, general_options(layers));
      const VerifyReport report = verify_general(*net, table, FlowControl::none);
      ck_assert_msg(report.ok(), "%d layers: %s", layers, report.ok() ? "" : report.violations.front().message.c_str());
      ck_assert_int_le(report.virtual_channels, layers);
    }
  }
  const Network desmos(Torus::parse("4x2x2x2"));
  GeneratorOptions angara_rules;
  angara_rules.virtual_channels = 4;
  const RouteTable table = angara_test::route_all("mroots", desmos, angara_rules);
  VerifyOptions verify_options;
  verify_options.max_virtual_channels = 4;
  const VerifyReport report = verify(desmos, table, verify_options);
  ck_assert(report.ok());
  ck_assert_int_eq(report.virtual_channels, 4);
  // One UpDown structure leaves pairs without an encodable legal route; the
  // refusal names the layers that route them all.
  angara_rules.virtual_channels = 1;
  ck_assert_std_str_eq(error_message([&] { angara_test::route_all("mroots", desmos, angara_rules); }),
                       "mroots: the routes need 2 virtual channels, only 1 allowed (routing.virtual_channels)");
}
END_TEST

int main() {
  Suite* s = suite_create("layered");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_ring);
  tcase_add_test(tc, test_square_cycle);
  tcase_add_test(tc, test_whole_tori_one_layer_at_the_bound);
  tcase_add_test(tc, test_single_cabled_desmos);
  tcase_add_test(tc, test_faulty_tori);
  tcase_add_test(tc, test_refusals);
  tcase_add_test(tc, test_dfsssp_cuts_that_dissolve_later_cycles);
  tcase_add_test(tc, test_mroots_updown_on_a_ring);
  tcase_add_test(tc, test_mroots_tables);
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
