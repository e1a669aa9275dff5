// The SSSP routing table generator (ANSU paper, section 4.3, Algorithms 3-4).
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "angara/routing_graph.hpp"
#include "routing/generator.hpp"
#include "routing/generators/sssp.hpp"
#include "routing/check/verifier.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using angara_test::block;
using angara_test::error_message;
using angara_test::expect_routes;
using angara_test::generate;
using angara_test::live_nodes;
using angara_test::route_text;
using angara_test::verified;

namespace {

// Every whole-machine table goes through the independent verifier.
RouteTable route_all(const Network& net, const GeneratorOptions& options = {}) {
  RouteTable table = angara_test::route_all("sssp", net, options);
  verified(net, table);
  return table;
}

ShortestRoutes count(const Network& net, const char* from, const char* to) {
  const Torus& t = net.torus();
  return count_shortest_routes(net, t.id(t.parse_coord(from)), t.id(t.parse_coord(to)));
}

// Independent count for the cross-check: depth-first over hop sequences,
// carrying the set of routing graph vertices the prefix can be in; counts
// the sequences of exactly `hops` hops that end at `destination`, and
// the shorter ones in `shorter`.
void enumerate(const RoutingGraph& graph, const std::set<RoutingGraph::VertexId>& states, NodeId here,
               NodeId destination, std::uint32_t depth, std::uint32_t hops, std::uint64_t& exact,
               std::uint64_t& shorter) {
  if (depth > 0 && here == destination) {
    ++(depth == hops ? exact : shorter);
    return;
  }
  if (depth == hops) return;
  for (int rank = 0; rank < kDirectionCount; ++rank) {
    const ChannelId channel = Torus::channel(here, Direction(rank));
    std::set<RoutingGraph::VertexId> next;
    for (RoutingGraph::VertexId v : states)
      for (RoutingGraph::EdgeId e = graph.edges_begin(v); e < graph.edges_end(v); ++e)
        if (graph.edge_channel(e) == channel) next.insert(graph.edge_target(e));
    if (!next.empty())
      enumerate(graph, next, graph.torus().neighbor(here, Direction(rank)), destination, depth + 1, hops, exact,
                shorter);
  }
}

}  // namespace

// Stage 1 counts hop sequences.  4x4: a dimension with displacement 2 can be
// crossed either way, any other displacement one way only, and a fault-free
// routing graph has no FS/LS turns, so a pair has 2^(half-ring dimensions)
// routes.  Routing graph paths would count more: "+X" alone is begin -> FS_X
// -> end and begin -> dirbit{+X} -> end.
// 2x2 and Desmos: a size-2 dimension has two cables, so two routes per
// differing size-2 dimension.
START_TEST(test_route_counts) {
  const Network net(Torus::parse("4x4"));
  const struct { const char* to; std::uint32_t hops, count; } expected[] = {
      {"1,0", 1, 1}, {"3,0", 1, 1}, {"1,1", 2, 1}, {"1,3", 2, 1}, {"3,3", 2, 1},
      {"2,0", 2, 2}, {"0,2", 2, 2}, {"2,1", 3, 2}, {"3,2", 3, 2}, {"2,2", 4, 4},
  };
  for (const auto& row : expected) {
    const ShortestRoutes r = count(net, "0,0", row.to);
    ck_assert_uint_eq(r.hops, row.hops);
    ck_assert_uint_eq(r.count, row.count);
  }
  const Network small(Torus::parse("2x2"));
  ck_assert_uint_eq(count(small, "0,0", "1,0").count, 2);
  ck_assert_uint_eq(count(small, "0,0", "1,1").count, 4);
  const Network desmos(Torus::parse("4x2x2x2"));
  ck_assert_uint_eq(count(desmos, "0,0,0,0", "1,0,0,0").count, 1);
  ck_assert_uint_eq(count(desmos, "0,0,0,0", "1,1,1,1").count, 8);
  ck_assert_uint_eq(count(desmos, "0,0,0,0", "2,1,1,1").count, 16);
  ck_assert_uint_eq(count(desmos, "0,0,0,0", "2,1,1,1").hops, 5);
}
END_TEST

// Faults.  4x4 without the cable (0,0)+Y: (0,0) -> (0,1) takes 3 hops, by
// "-Y -Y -Y" or by "+X +Y -X".  The latter is three routing graph paths
// (FS_X -> dirbit{+Y} -> dirbit{+Y,-X} or -> LS_-X, and dirbit{+X} ->
// dirbit{+X,+Y} -> LS_-X) but one route.  4x4 without router (1,1):
// (0,1) -> (1,0) has the single route "+Y +Y +Y -X -X -X" (see check_bfs).
START_TEST(test_route_counts_with_faults) {
  Network cut(Torus::parse("4x4"));
  cut.fail_link(0, *Direction::parse("+Y"));
  const ShortestRoutes around = count(cut, "0,0", "0,1");
  ck_assert_uint_eq(around.hops, 3);
  ck_assert_uint_eq(around.count, 2);

  Network hole(Torus::parse("4x4"));
  hole.fail_node(hole.torus().id({1, 1, 0, 0}));
  const ShortestRoutes detour = count(hole, "0,1", "1,0");
  ck_assert_uint_eq(detour.hops, 6);
  ck_assert_uint_eq(detour.count, 1);
  ck_assert_uint_eq(count(hole, "0,1", "1,1").count, 0);  // a dead router has no route
}
END_TEST

// The counts against the brute-force enumeration above, for every pair of
// small machines with faults (which add FS/LS turns and detours).
START_TEST(test_route_counts_match_enumeration) {
  std::vector<Network> machines;
  machines.emplace_back(Torus::parse("4x4"));
  machines.back().fail_node(machines.back().torus().id({1, 1, 0, 0}));
  machines.back().fail_link(machines.back().torus().id({2, 3, 0, 0}), *Direction::parse("+X"));
  machines.emplace_back(Torus::parse("3x2x4"));
  machines.back().fail_link(0, *Direction::parse("+Y"));
  machines.back().fail_link(machines.back().torus().id({1, 0, 2, 0}), *Direction::parse("-Z"));
  machines.emplace_back(Torus::parse("5x3"));
  machines.back().fail_node(machines.back().torus().id({2, 1, 0, 0}));
  std::size_t checked = 0, several = 0;
  for (const Network& net : machines) {
    const RoutingGraph graph(net);
    for (NodeId s = 0; s < net.torus().node_count(); ++s)
      for (NodeId d = 0; d < net.torus().node_count(); ++d) {
        if (s == d || !net.node_alive(s) || !net.node_alive(d)) continue;
        const ShortestRoutes counted = count_shortest_routes(net, s, d);
        std::uint64_t exact = 0, shorter = 0;
        enumerate(graph, {graph.begin_vertex(s)}, s, d, 0, counted.hops, exact, shorter);
        ck_assert_uint_eq(shorter, 0);
        ck_assert_uint_eq(exact, counted.count);
        ++checked;
        if (counted.count > 1) ++several;
      }
  }
  ck_assert_uint_eq(checked, 15 * 14 + 24 * 23 + 14 * 13);
  ck_assert_uint_gt(several, 0);
}
END_TEST

// 2x2 (ids 0 = (0,0), 1 = (1,0), 2 = (0,1), 3 = (1,1)): no pair is unique
// (two cables per dimension), so everything goes through stage 3.  Turns 0
// first: each source's two neighbours form one group; all weights on its
// channels are 0, ties go to the first vertex discovered, and begin lists
// +X before +Y before -X: "+X" and "+Y", disjoint, both applied.  After the
// four groups every +X and +Y channel weighs 1 and every -X and -Y 0.  Then
// the diagonals (turns 1): "-X -Y" costs 0 against 1 or 2 for the others,
// for every source, as the -X/-Y channels each diagonal uses differ.  Every
// channel ends with load 1: a perfect table.
START_TEST(test_routes_2x2) {
  const Network net(Torus::parse("2x2"));
  const RouteTable table = route_all(net);
  expect_routes(net, table, {{"0,0", "1,0", "+X"}, {"0,0", "0,1", "+Y"}, {"0,0", "1,1", "-X -Y"},
                             {"1,0", "0,0", "+X"}, {"1,0", "1,1", "+Y"}, {"1,0", "0,1", "-X -Y"},
                             {"0,1", "1,1", "+X"}, {"0,1", "0,0", "+Y"}, {"0,1", "1,0", "-X -Y"},
                             {"1,1", "0,1", "+X"}, {"1,1", "1,0", "+Y"}, {"1,1", "0,0", "-X -Y"}});
  const VerifyReport report = verified(net, table);
  ck_assert_uint_eq(report.metrics.max_gamma, 1);
  ck_assert_uint_eq(report.metrics.min_gamma, 1);
}
END_TEST

// 4x4.  Unique pairs (no displacement of 2) by DOR: "+X -Y", "+Y -X",
// "-X -Y".  Stage 1 is translation invariant and every unique route crosses
// its dimensions' channels once per sign choice of the other dimension:
// each channel of the machine weighs 3 after it.
// Stage 3 starts with turns 0, length 2, source (0,0): (2,0) and (0,2).
// "+X +X" and "-X -X" both cost 6; the tie goes to the first discovered,
// +X: "+X +X"; likewise "+Y +Y".  They share no channel: both applied, and
// (0,0)+X, (1,0)+X, (0,0)+Y, (0,1)+Y weigh 4.  Next source (1,0): to
// (3,0), "+X +X" costs 4 + 3 and "-X -X" 3 + 3: "-X -X"; to (1,2) "+Y +Y"
// and "-Y -Y" both cost 6 and +Y comes first: "+Y +Y".
START_TEST(test_routes_4x4) {
  const Network net(Torus::parse("4x4"));
  const RouteTable table = route_all(net);
  expect_routes(net, table, {{"0,0", "1,3", "+X -Y"},
                             {"0,0", "3,1", "+Y -X"},
                             {"0,0", "3,3", "-X -Y"},
                             {"2,2", "1,1", "-X -Y"},
                             {"0,0", "2,0", "+X +X"},
                             {"0,0", "0,2", "+Y +Y"},
                             {"1,0", "3,0", "-X -X"},
                             {"1,0", "1,2", "+Y +Y"}});
  // Lower bound: per dimension, 16 sources * 4 rows * (0 + 1 + 2 + 1) hops
  // over 32 channels = 8.  The greedy rounds end one above it (measured).
  const VerifyReport report = verified(net, table);
  ck_assert_uint_eq(report.metrics.lower_bound, 8);
  ck_assert_uint_eq(report.metrics.max_gamma, 9);
}
END_TEST

// Desmos 4x2x2x2 against the ANSU paper's Table 2 (SSSP 5 / 12 / 28; lower
// bounds 4 / 8 / 16).  Our model has two cables per size-2 dimension, so the
// numbers are lower than the paper's.  Pinned at what the generator gives.
START_TEST(test_desmos_max_gamma) {
  const Network net(Torus::parse("4x2x2x2"));
  const Torus& t = net.torus();
  const struct { Coord extent; std::uint64_t max_gamma, bound; } expected[] = {
      {{4, 2, 1, 1}, 4, 4}, {{4, 2, 2, 1}, 9, 8}, {{4, 2, 2, 2}, 17, 16}};
  for (const auto& row : expected) {
    const RouteTable table = generate("sssp", net, block(t, row.extent));
    const VerifyReport report = verified(net, table);
    ck_assert_uint_eq(report.metrics.max_gamma, row.max_gamma);
    ck_assert_uint_eq(report.metrics.lower_bound, row.bound);
    ck_assert_uint_eq(report.non_minimal, 0);
    // Never worse than BFS on the same allocation.
    const VerifyReport bfs = verify(net, make_generator("bfs")->generate(net, block(t, row.extent), {}));
    ck_assert_uint_le(report.metrics.max_gamma, bfs.metrics.max_gamma);
  }
}
END_TEST

// Line 16 of Algorithm 3 read as "weigh every path built in the round": a
// valid table, but worse balanced on the whole Desmos machine (22 against 17).
START_TEST(test_weight_readings) {
  const Network net(Torus::parse("4x2x2x2"));
  GeneratorOptions all;
  all.extra["weights"] = "all";
  ck_assert_uint_eq(verified(net, route_all(net, all)).metrics.max_gamma, 22);
  GeneratorOptions applied;
  applied.extra["weights"] = "applied";
  ck_assert_uint_eq(verified(net, route_all(net, applied)).metrics.max_gamma, 17);
  GeneratorOptions bad;
  bad.extra["weights"] = "some";
  ck_assert_std_str_eq(error_message<std::invalid_argument>([&] { generate("sssp", net, live_nodes(net), bad); }),
                       "sssp: option 'weights' expects applied or all, got 'some'");
}
END_TEST

// 4x4 without router (1,1): the only route (0,1) -> (1,0) under the static
// turns is unique and stage 1 takes it; the checked-turn stage then replaces
// the 6-hop detour with the shortest encodable route (see check_bfs.cpp).
START_TEST(test_failed_node) {
  Network net(Torus::parse("4x4"));
  net.fail_node(net.torus().id({1, 1, 0, 0}));
  const RouteTable table = route_all(net);
  ck_assert_uint_eq(table.size(), 15);
  ck_assert_std_str_eq(route_text(net, table, "0,1", "1,0"), "-X -X -Y -X");
  verified(net, table);

  // Desmos without router (1,1,0,0): (0,1,0,0) -> (1,0,0,0) must change Y
  // before X, and under the static turns only +Y may precede -X:
  // "+Y -X -X -X", unique; the checked-turn stage shortens it to "+Y +X".
  Network desmos(Torus::parse("4x2x2x2"));
  desmos.fail_node(desmos.torus().id({1, 1, 0, 0}));
  ck_assert_uint_eq(count(desmos, "0,1,0,0", "1,0,0,0").count, 1);
  const RouteTable desmos_table = route_all(desmos);
  ck_assert_std_str_eq(route_text(desmos, desmos_table, "0,1,0,0", "1,0,0,0"), "+Y +X");
  verified(desmos, desmos_table);
}
END_TEST

// 4x4 without the cable (0,0)+Y.  (0,0) -> (0,1) has two 3-hop routes,
// "-Y -Y -Y" and the First Step detour "+X +Y -X", and is alone in its
// group (turns 0, length 3, source (0,0)).  When the group comes, the -Y
// arc weighs 5 + 7 + 5 (the dead cable sends column 0's +Y traffic the long
// way) and the detour 4 + 4 + 4 (measured), so the detour wins.
START_TEST(test_failed_link) {
  Network net(Torus::parse("4x4"));
  net.fail_link(0, *Direction::parse("+Y"));
  const RouteTable table = route_all(net);
  const std::string around = route_text(net, table, "0,0", "0,1");
  ck_assert_std_str_eq(around, "+X +Y -X");
  ck_assert(!is_dor_route(parse_hops(around)));

  // Desmos with the cable (0,0,0,0)+X failed: (1,0,0,0) -> (0,0,0,0) needs
  // 3 hops: "+X +X +X" around the ring, or "+D -X -D" for D = Y, Z, K (the
  // -D is a Last Step breaking the direction bit).  Measured choice: Y.
  Network desmos(Torus::parse("4x2x2x2"));
  desmos.fail_link(0, *Direction::parse("+X"));
  const ShortestRoutes routes = count(desmos, "1,0,0,0", "0,0,0,0");
  ck_assert_uint_eq(routes.hops, 3);
  ck_assert_uint_eq(routes.count, 4);
  const RouteTable desmos_table = route_all(desmos);
  ck_assert_std_str_eq(route_text(desmos, desmos_table, "1,0,0,0", "0,0,0,0"), "+Y -X -Y");
}
END_TEST

// The DOR routes on odd rings, determinism, fault-free minimal tables,
// partial allocations with faults and the error messages are checked for
// every generator in check_generators.

int main() {
  Suite* s = suite_create("sssp");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_route_counts);
  tcase_add_test(tc, test_route_counts_with_faults);
  tcase_add_test(tc, test_route_counts_match_enumeration);
  tcase_add_test(tc, test_routes_2x2);
  tcase_add_test(tc, test_routes_4x4);
  tcase_add_test(tc, test_desmos_max_gamma);
  tcase_add_test(tc, test_weight_readings);
  tcase_add_test(tc, test_failed_node);
  tcase_add_test(tc, test_failed_link);
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
