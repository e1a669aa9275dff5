// The BFS routing table generator (ANSU paper, section 4.1, Algorithms 1-2).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "routing/generator.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using angara_test::expect_routes;
using angara_test::generate;
using angara_test::route_text;

namespace {

RouteTable route_all(const Network& net) { return angara_test::route_all("bfs", net); }

// Walks a route over live channels and routers; the node it ends at, or
// kNoNode when a hop uses a dead channel.
NodeId walk(const Network& net, NodeId from, const std::vector<Direction>& hops) {
  NodeId here = from;
  for (Direction d : hops) {
    if (!net.channel_alive(here, d)) return kNoNode;
    here = net.torus().neighbor(here, d);
    if (!net.node_alive(here)) return kNoNode;
  }
  return here;
}

struct TableFacts {
  std::size_t pairs = 0, reached = 0, encodable = 0, minimal = 0, dor = 0;
  std::uint64_t max_load = 0;
};

TableFacts examine(const Network& net, const RouteTable& table) {
  const Torus& t = net.torus();
  TableFacts facts;
  std::vector<std::uint64_t> load(t.channel_slots(), 0);
  for (std::size_t s = 0; s < table.size(); ++s)
    for (std::size_t d = 0; d < table.size(); ++d) {
      if (s == d) continue;
      ++facts.pairs;
      const std::vector<Direction> hops = table.route(s, d).hops;
      if (walk(net, table.nodes()[s], hops) == table.nodes()[d]) ++facts.reached;
      if (is_angara_encodable(hops)) ++facts.encodable;
      if (is_dor_route(hops)) ++facts.dor;
      if (static_cast<int>(hops.size()) == t.distance(table.nodes()[s], table.nodes()[d])) ++facts.minimal;
      NodeId here = table.nodes()[s];
      for (Direction h : hops) {
        ++load[Torus::channel(here, h)];
        here = t.neighbor(here, h);
      }
    }
  facts.max_load = *std::max_element(load.begin(), load.end());
  return facts;
}

}  // namespace

// 2x2 (ids 0 = (0,0), 1 = (1,0), 2 = (0,1), 3 = (1,1)); every dimension has a
// +D and a -D cable to the same neighbour.
// Source order (GET_MAX_REMOTE): 0 first; (1,1) is 2 hops away; from (1,1)
// both others are 1 hop away, the lower id (1,0) wins; (0,1) last.
// Source (0,0), all weights 0: ties go to the vertex discovered first, and
// begin lists +X (FS then dirbit) before +Y, -X, -Y, so: (1,0) "+X",
// (0,1) "+Y", (1,1) "+X +Y".  Loads: (0,0)+X 2, (0,0)+Y 1, (1,0)+Y 1.
// Source (1,1) touches none of them: "+X", "+Y", "+X +Y" again; loads
// (1,1)+X 2, (1,1)+Y 1, (0,1)+Y 1.
// Source (1,0): (0,0) over the unused +X cable: "+X".  (1,1): the vertices
// at (1,1) after one hop compete for end(1,1) by the load of the channel that
// entered them; (1,0)+Y carries 1, (1,0)-Y 0, so "-Y".  (0,1): the first
// level-2 vertex at (0,1) entered over a load-0 channel is dirbit{-Y} under
// FS_X(0,0) ((0,0)+Y carries 1, (0,0)-Y 0): "+X -Y".
// Source (0,1): (0,0): (0,1)+Y carries 1, -Y 0: "-Y".  (1,1): both cables
// carry 0, first found: "+X".  (1,0): at level 2 dirbit{+Y} under FS_X(1,1)
// comes first but entered over (1,1)+Y (load 1); the next, dirbit{-Y} over
// (1,1)-Y (load 0), wins: "+X -Y".
START_TEST(test_routes_2x2) {
  const Network net(Torus::parse("2x2"));
  const RouteTable table = route_all(net);
  ck_assert_std_str_eq(table.algorithm, "bfs");
  expect_routes(net, table, {{"0,0", "1,0", "+X"}, {"0,0", "0,1", "+Y"}, {"0,0", "1,1", "+X +Y"},
                             {"1,1", "0,1", "+X"}, {"1,1", "1,0", "+Y"}, {"1,1", "0,0", "+X +Y"},
                             {"1,0", "0,0", "+X"}, {"1,0", "1,1", "-Y"}, {"1,0", "0,1", "+X -Y"},
                             {"0,1", "0,0", "-Y"}, {"0,1", "1,1", "+X"}, {"0,1", "1,0", "+X -Y"}});
}
END_TEST

// 4x4: half-ring ties (2 hops either way).  Source (0,0) sees only zero
// weights, so the first-discovered vertex wins and begin's +X edges come
// before its -X edges: "+X +X" to (2,0), "+X +X +Y +Y" to (2,2); (3,2) is
// -X of the ring, after +Y in DOR: "+Y +Y -X".
// Sources: (0,0), then (2,2) (4 hops), then the lowest id 3 hops from (2,2),
// (1,0).  From (1,0): to (3,0) the two candidates at level 2 are dirbit{+X}
// entered over (2,0)+X (load 0) and dirbit{-X} entered over (0,0)-X (load 2,
// the routes (0,0)->(3,0) and (0,0)->(3,3)), so "+X +X" even though
// (1,0)+X already carries 4 routes: BFS looks one edge back only.  To (1,2):
// (1,1)+Y carries (0,0)->(1,2), (1,3)-Y nothing, so "-Y -Y".
START_TEST(test_routes_4x4) {
  const Network net(Torus::parse("4x4"));
  const RouteTable table = route_all(net);
  expect_routes(net, table, {{"0,0", "2,0", "+X +X"},
                             {"0,0", "2,2", "+X +X +Y +Y"},
                             {"0,0", "3,2", "+Y +Y -X"},
                             {"0,0", "3,3", "-X -Y"},
                             {"1,0", "3,0", "+X +X"},
                             {"1,0", "1,2", "-Y -Y"}});
}
END_TEST

// Desmos 4x2x2x2.  Source (0,0,0,0) with zero weights takes the +D cable of
// every size-2 dimension (listed first) and DOR order: "+X +X +Y +Z +K" to
// the farthest node, "+Y +Z +K -X" to (3,1,1,1).  Next source: (2,1,1,1) (5
// hops), whose own channels no earlier route used: "+Y" to (2,0,1,1).  Then
// (1,0,0,0), the lowest id 4 hops from (2,1,1,1): its +Y cable carries the 4
// routes (0,0,0,0) -> (1,1,*,*) and its -Y cable none, so "-Y" to (1,1,0,0);
// likewise "-Z" to (1,0,1,0).
START_TEST(test_routes_desmos) {
  const Network net(Torus::parse("4x2x2x2"));
  const RouteTable table = route_all(net);
  expect_routes(net, table, {{"0,0,0,0", "2,1,1,1", "+X +X +Y +Z +K"},
                             {"0,0,0,0", "3,1,1,1", "+Y +Z +K -X"},
                             {"0,0,0,0", "0,1,0,0", "+Y"},
                             {"2,1,1,1", "2,0,1,1", "+Y"},
                             {"1,0,0,0", "1,1,0,0", "-Y"},
                             {"1,0,0,0", "1,0,1,0", "-Z"}});
}
END_TEST

// Whole-machine Desmos load, two cables in every size-2 dimension, between the
// per-dimension lower bound 16 and the ANSU paper's published BFS figure 48
// (doc/model.md, "Reference numbers"; doc/benchmarks.md gives BFS's own figure).
START_TEST(test_desmos_load) {
  const Network net(Torus::parse("4x2x2x2"));
  const TableFacts facts = examine(net, route_all(net));
  ck_assert_uint_le(facts.max_load, 48);
  ck_assert_uint_ge(facts.max_load, 16);
}
END_TEST

// 4x4 without router (1,1).  (0,1) -> (1,0): +X leads into the dead router
// at once; x must then go 0 -> 3 -> 2 -> 1 with -X, and y 1 -> 0 cannot use
// -Y before -X (DOR).  The routing graph's static turns (Theorem 2) admit no
// Last Step here, so BFS alone finds only "+Y +Y +Y -X -X -X"; the
// checked-turn stage (routing/common/checked_turns.hpp) replaces it with the
// shortest encodable route "-X -X -Y -X" (Last Step -X), whose turn closes
// no cycle with the other routes.
START_TEST(test_failed_node_4x4) {
  Network net(Torus::parse("4x4"));
  net.fail_node(net.torus().id({1, 1, 0, 0}));
  const RouteTable table = route_all(net);
  ck_assert_uint_eq(table.size(), 15);
  const TableFacts facts = examine(net, table);
  ck_assert_uint_eq(facts.reached, 15 * 14);
  ck_assert_uint_eq(facts.encodable, 15 * 14);
  ck_assert_std_str_eq(route_text(net, table, "0,1", "1,0"), "-X -X -Y -X");
  angara_test::verified(net, table);
  // Around the ring the other way where the distance allows it.
  ck_assert_std_str_eq(route_text(net, table, "1,0", "1,2"), "-Y -Y");
}
END_TEST

// Desmos without router (1,1,0,0).  (0,1,0,0) -> (1,0,0,0): +X enters the
// dead router; the static turns only allow "+Y -X -X -X", and the
// checked-turn stage finds the minimal First Step route "+Y +X" admissible.
START_TEST(test_failed_node_desmos) {
  Network net(Torus::parse("4x2x2x2"));
  net.fail_node(net.torus().id({1, 1, 0, 0}));
  const RouteTable table = route_all(net);
  const TableFacts facts = examine(net, table);
  ck_assert_uint_eq(facts.pairs, 31 * 30);
  ck_assert_uint_eq(facts.reached, facts.pairs);
  ck_assert_uint_eq(facts.encodable, facts.pairs);
  ck_assert_std_str_eq(route_text(net, table, "0,1,0,0", "1,0,0,0"), "+Y +X");
  angara_test::verified(net, table);
}
END_TEST

// 4x4 with the cable (0,0)+Y failed.  From source (0,0) (zero weights) the
// 3-hop ways to (0,1) are "-Y -Y -Y" and the First/Last Step detour
// "+X +Y -X"; the level-2 vertex dirbit{+Y} at (1,1) (under FS_X at (1,0))
// is discovered before anything at (0,2), so the FS route wins: it breaks
// the direction bit, which only FS/LS allow.
START_TEST(test_failed_link_uses_first_step) {
  Network net(Torus::parse("4x4"));
  net.fail_link(0, *Direction::parse("+Y"));
  const RouteTable table = route_all(net);
  const TableFacts facts = examine(net, table);
  ck_assert_uint_eq(facts.reached, facts.pairs);
  ck_assert_uint_eq(facts.encodable, facts.pairs);
  const std::string detour = route_text(net, table, "0,0", "0,1");
  ck_assert_std_str_eq(detour, "+X +Y -X");
  ck_assert(!is_dor_route(parse_hops(detour)));
  ck_assert_uint_lt(facts.dor, facts.pairs);

  // Desmos with the cable (0,0,0,0)+X = (1,0,0,0)-X failed: (1,0,0,0) ->
  // (0,0,0,0) needs 3 hops, by +X +X +X or a detour through Y, Z or K that
  // ends with a Last Step.
  Network desmos(Torus::parse("4x2x2x2"));
  desmos.fail_link(0, *Direction::parse("+X"));
  const RouteTable desmos_table = route_all(desmos);
  const TableFacts desmos_facts = examine(desmos, desmos_table);
  ck_assert_uint_eq(desmos_facts.reached, desmos_facts.pairs);
  ck_assert_uint_eq(desmos_facts.encodable, desmos_facts.pairs);
  const std::string around = route_text(desmos, desmos_table, "1,0,0,0", "0,0,0,0");
  ck_assert(around == "+X +X +X" || around == "+Y -X -Y" || around == "+Z -X -Z" || around == "+K -X -K");
}
END_TEST

// Routes may cross unallocated live nodes; failed ones are avoided.
START_TEST(test_partial_allocation) {
  Network net(Torus::parse("4x4"));
  const Torus& t = net.torus();
  net.fail_node(t.id({1, 0, 0, 0}));
  const RouteTable table = generate("bfs", net, {t.id({2, 0, 0, 0}), t.id({0, 0, 0, 0})});
  ck_assert_uint_eq(table.size(), 2);
  expect_routes(net, table, {{"0,0", "2,0", "-X -X"},
                             {"2,0", "0,0", "+X +X"}});
  // One node: nothing to route.
  const RouteTable single = generate("bfs", net, {3});
  ck_assert_uint_eq(single.size(), 1);
}
END_TEST

// The DOR routes on odd rings, determinism, fault-free minimal tables and
// the error messages are checked for every generator in check_generators.

int main() {
  Suite* s = suite_create("bfs");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_routes_2x2);
  tcase_add_test(tc, test_routes_4x4);
  tcase_add_test(tc, test_routes_desmos);
  tcase_add_test(tc, test_desmos_load);
  tcase_add_test(tc, test_failed_node_4x4);
  tcase_add_test(tc, test_failed_node_desmos);
  tcase_add_test(tc, test_failed_link_uses_first_step);
  tcase_add_test(tc, test_partial_allocation);
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
