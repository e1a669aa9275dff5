// What every registered routing table generator must do, whatever its
// algorithm: each test is a loop test over angara::generators() (iteration
// _i is the i-th generator), so a new generator is covered by registering it.
// The generator-specific exact routes and metrics stay in check_<name>.cpp.
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "routing/generator.hpp"
#include "routing/check/verifier.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using namespace angara_test;

namespace {

std::string generator_name(int index) { return std::string(generators().at(static_cast<std::size_t>(index)).name); }

// The rule set under which the generator routes every connected
// allocation (GeneratorInfo::complete_under: the Angara rules for all but
// mroots), given to it and checked by the verifier.
RuleSet rules_of(const std::string& name) { return find_generator(name)->complete_under; }
GeneratorOptions options_of(const std::string& name) {
  GeneratorOptions options;
  options.rules = rules_of(name);
  return options;
}
VerifyReport checked(const std::string& name, const Network& net, const RouteTable& table) {
  VerifyOptions options;
  options.rules = rules_of(name);
  const VerifyReport report = verify(net, table, options);
  ck_assert_msg(report.ok(), "%s: %s", name.c_str(), report.ok() ? "" : report.violations.front().message.c_str());
  ck_assert_uint_eq(report.routes, table.size() * (table.size() - 1));
  return report;
}

// Routes `nodes` twice and requires the same table both times, and a valid one.
void check_deterministic(const std::string& name, const Network& net, const std::vector<NodeId>& nodes) {
  const RouteTable first = generate(name, net, nodes, options_of(name));
  const RouteTable second = generate(name, net, nodes, options_of(name));
  ck_assert_msg(same_routes(first, second), "%s: two runs gave different tables", name.c_str());
  checked(name, net, first);
}

}  // namespace

// Same inputs, same table: on a faulty Desmos (one failed router, one failed
// cable, so FS/LS turns and detours come into play) and on a partial
// allocation of a faulty 5x4x2.
START_TEST(test_deterministic) {
  const std::string name = generator_name(_i);
  Network desmos(Torus::parse("4x2x2x2"));
  desmos.fail_node(desmos.torus().id({2, 1, 0, 1}));
  desmos.fail_link(desmos.torus().id({0, 0, 1, 0}), *Direction::parse("-K"));
  check_deterministic(name, desmos, live_nodes(desmos));

  Network partial(Torus::parse("5x4x2"));
  partial.fail_node(7);
  std::vector<NodeId> every_third;
  for (NodeId v = 0; v < partial.torus().node_count(); v += 3)
    if (partial.node_alive(v)) every_third.push_back(v);
  check_deterministic(name, partial, every_third);
}
END_TEST

// Whole fault-free machines: every pair routed (the verifier walks each
// route over live channels to its destination, checks it is
// Angara-encodable and the CDG deadlock-free), every route of a generator
// of minimal routes minimal and none needing a First or Last Step (no turn
// is admissible without faults).
START_TEST(test_fault_free_machines) {
  const std::string name = generator_name(_i);
  for (const char* dims : {"5", "2x2", "3x3", "4x4", "2x2x2", "3x3x3", "4x4x4", "4x2x2x2", "3x4x2", "2x3x2x3",
                           "6x5", "3x3x3x3"}) {
    const Network net(Torus::parse(dims));
    const RouteTable table = route_all(name, net, options_of(name));
    ck_assert_uint_eq(table.size(), net.torus().node_count());
    const VerifyReport report = checked(name, net, table);
    if (!find_generator(name)->minimal_routes) continue;  // UpDown (mroots) goes round its roots
    ck_assert_msg(report.non_minimal == 0, "%s on %s: %zu non-minimal routes", name.c_str(), dims,
                  report.non_minimal);
    ck_assert_msg(report.fs_ls_routes == 0, "%s on %s: %zu FS/LS routes", name.c_str(), dims,
                  report.fs_ls_routes);
  }
}
END_TEST

// Rings of odd size have one shortest arc per coordinate difference, and
// without faults no FS/LS turn is admissible, so the only minimal encodable
// route of a pair is its DOR route: every generator must give exactly the
// DOR table.  On 3x3 e.g. (1,2) -> (0,0) is one -X and one +Y, positive
// hops first: "+Y -X".
START_TEST(test_odd_rings_take_dor_routes) {
  const std::string name = generator_name(_i);
  if (!find_generator(name)->minimal_routes) return;  // the claim is about minimal routes
  const Network net(Torus::parse("3x3"));
  const RouteTable table = route_all(name, net, options_of(name));
  expect_routes(net, table, {{"0,0", "2,2", "-X -Y"},
                             {"0,0", "1,2", "+X -Y"},
                             {"2,1", "0,0", "+X -Y"},
                             {"1,2", "0,0", "+Y -X"},
                             {"2,2", "1,1", "-X -Y"}});
  ck_assert_uint_eq(checked(name, net, table).routes, 72);
  for (std::size_t s = 0; s < table.size(); ++s)
    for (std::size_t d = 0; d < table.size(); ++d)
      if (s != d) ck_assert(is_dor_route(table.route(s, d).hops));
  for (const char* dims : {"3x3", "5x3", "3x3x3", "3x5x3"}) {
    const Network odd(Torus::parse(dims));
    ck_assert_msg(same_routes(route_all(name, odd, options_of(name)), dor_table(odd.torus(), all_nodes(odd.torus()))),
                  "%s on %s: not the DOR table", name.c_str(), dims);
  }
}
END_TEST

// One-cable Desmos (4x2x2x2, Y, Z and K single-cabled, as the ANSU paper's
// machine is built): every table verifies, and a walk of every route that
// does not ask the model (coordinates only) finds no hop through a port
// without a cable: in a single-cabled dimension a route leaves +D only from
// coordinate 0 and -D only from coordinate 1.  Blocks of 2 to 32 nodes,
// a scattered allocation, and the whole machine with a failed router and a
// failed cable.
START_TEST(test_single_cable_desmos) {
  const std::string name = generator_name(_i);
  const Torus torus = Torus::parse("4x2x2x2").with_single_cable(Torus::parse_dimension_letters("YZK"));
  const auto walk_against_cabling = [&](const Network& net, const RouteTable& table, const char* what) {
    checked(name, net, table);
    for (std::size_t s = 0; s < table.size(); ++s)
      for (std::size_t d = 0; d < table.size(); ++d) {
        if (s == d) continue;
        Coord at = torus.coord(table.nodes()[s]);
        for (Direction hop : table.route(s, d).hops) {
          const int dim = hop.dim();
          if (dim != 0)
            ck_assert_msg(at[dim] == (hop.negative() ? 1 : 0), "%s on %s: %s -> %s (%s) leaves %s without a cable",
                          name.c_str(), what, torus.format_coord(table.nodes()[s]).c_str(),
                          torus.format_coord(table.nodes()[d]).c_str(), table.route(s, d).to_string().c_str(),
                          hop.token().c_str());
          at[dim] = (at[dim] + hop.step() + torus.size(dim)) % torus.size(dim);
        }
        ck_assert(torus.id(at) == table.nodes()[d]);
      }
  };
  const Network net(torus);
  for (const Coord& extent : {Coord{2, 1, 1, 1}, Coord{4, 1, 1, 1}, Coord{4, 2, 1, 1}, Coord{4, 2, 2, 1},
                              Coord{4, 2, 2, 2}, Coord{2, 2, 2, 2}, Coord{1, 2, 2, 2}})
    walk_against_cabling(net, generate(name, net, block(torus, extent), options_of(name)), "a block");
  std::vector<NodeId> every_third;
  for (NodeId v = 1; v < torus.node_count(); v += 3) every_third.push_back(v);
  walk_against_cabling(net, generate(name, net, every_third, options_of(name)), "every third node");

  Network faulty(torus);
  faulty.fail_node(torus.id({2, 1, 0, 1}));
  faulty.fail_link(torus.id({0, 0, 1, 0}), *Direction::parse("+K"));
  walk_against_cabling(faulty, generate(name, faulty, live_nodes(faulty), options_of(name)), "the faulty machine");
}
END_TEST

// Several faults at once on a bigger machine, every second live node
// allocated: routes may cross unallocated live routers, never failed ones.
START_TEST(test_faults_partial_allocation) {
  const std::string name = generator_name(_i);
  Network net(Torus::parse("5x4x3"));
  const Torus& t = net.torus();
  net.fail_node(t.id({2, 1, 1, 0}));
  net.fail_node(t.id({4, 3, 0, 0}));
  net.fail_link(t.id({0, 0, 0, 0}), *Direction::parse("+Z"));
  net.fail_link(t.id({3, 2, 2, 0}), *Direction::parse("-X"));
  std::vector<NodeId> allocation;
  for (NodeId v = 0; v < t.node_count(); v += 2)
    if (net.node_alive(v)) allocation.push_back(v);
  const RouteTable table = generate(name, net, allocation, options_of(name));
  ck_assert_uint_eq(table.size(), allocation.size());
  checked(name, net, table);
  // One node: nothing to route.
  ck_assert_uint_eq(generate(name, net, {3}, options_of(name)).size(), 1);
}
END_TEST

// The errors name the generator.  4x4 where (0,0) has lost all four
// neighbours: it cannot reach (2,2), and (1,0) is a failed router.
START_TEST(test_errors) {
  const std::string name = generator_name(_i);
  Network net(Torus::parse("4x4"));
  const Torus& t = net.torus();
  for (const char* dead : {"1,0", "3,0", "0,1", "0,3"}) net.fail_node(node_at(t, dead));
  const std::unique_ptr<Generator> generator = generator_named(name);
  const std::string unreachable =
      error_message([&] { generator->generate(net, {node_at(t, "2,2"), node_at(t, "0,0")}, options_of(name)); });
  // The generators with the checked-turn stage give the oracle's refusal,
  // which names for each unroutable pair the failures whose repair alone
  // would reconnect it (routing/common/oracle.hpp).
  if (name == "bfs" || name == "sssp" || name == "balanced" || name == "genetic") {
    ck_assert_std_str_eq(unreachable,
                         name + ": cannot route 2 of 2 ordered pairs deadlock-free on one virtual channel: "
                                "0,0 -> 2,2: no Angara-encodable route avoids the failures (cut off by router 1,0, "
                                "router 3,0, router 0,1); 2,2 -> 0,0: no Angara-encodable route avoids the failures "
                                "(cut off by router 1,0, router 0,1, router 0,3)");
  } else {
    ck_assert_msg(unreachable.rfind(name + ": ", 0) == 0, "%s", unreachable.c_str());
  }
  ck_assert_std_str_eq(error_message([&] { generator->generate(net, {node_at(t, "2,2"), node_at(t, "1,0")}, {}); }),
                       name + ": allocated node 1,0 has failed");
  ck_assert_std_str_eq(error_message([&] { generator->generate(net, {node_at(t, "2,2"), 16}, {}); }),
                       name + ": allocated node id 16 is outside the 4x4 torus");
}
END_TEST

int main() {
  const int count = static_cast<int>(generators().size());
  Suite* s = suite_create("generators");
  TCase* tc = tcase_create("every generator");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_deterministic, 0, count);
  tcase_add_loop_test(tc, test_fault_free_machines, 0, count);
  tcase_add_loop_test(tc, test_odd_rings_take_dor_routes, 0, count);
  tcase_add_loop_test(tc, test_faults_partial_allocation, 0, count);
  tcase_add_loop_test(tc, test_single_cable_desmos, 0, count);
  tcase_add_loop_test(tc, test_errors, 0, count);
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
