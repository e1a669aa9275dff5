// Safe live transitions (routing/check/transition.hpp): the union of the installed
// and the new routes, hand-made staircases on the 2x2 torus (direct, staged
// through one exact intermediate table, refused), and failures appearing
// under balanced tables of 4x4x4 jobs, every step checked by the verifier's
// own dependency graph.
#include <random>
#include <string>

#include "angara/network.hpp"
#include "routing/check/transition.hpp"
#include "routing/check/verifier.hpp"
#include "routing/memory.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using namespace angara_test;

namespace {

// The 2x2 torus's twelve routes: one hop to each neighbour, and the four
// diagonal pairs on the routes given (the staircase of check_verifier.cpp
// is 0,0 +X +Y; 1,0 +Y +X; 1,1 +X +Y; 0,1 +Y +X, a cycle of turns).
RouteTable square(const Torus& torus, const char* from_00, const char* from_10, const char* from_11,
                  const char* from_01) {
  RouteTable table = dor_table(torus, all_nodes(torus));
  set_route(table, torus, "0,0", "1,1", from_00);
  set_route(table, torus, "1,0", "0,1", from_10);
  set_route(table, torus, "1,1", "0,0", from_11);
  set_route(table, torus, "0,1", "1,0", from_01);
  table.algorithm = "test";
  return table;
}

}  // namespace

START_TEST(test_same_routes_switch_directly) {
  const Network network(Torus::parse("4x4"));
  const RouteTable table = dor_table(network.torus(), all_nodes(network.torus()));
  const TransitionPlan plan = plan_transition(network, table, table, FlowControl::bubble);
  ck_assert_str_eq(transition_kind_name(plan.kind), "direct");
  ck_assert_uint_eq(plan.steps.size(), 0);
  ck_assert_uint_eq(union_turns_on_cycles(network, table, table, FlowControl::bubble), 0);
}
END_TEST

// Installed: 0,0 and 1,0 on staircase routes, 1,1 and 0,1 the other way.  New:
// the opposite.  Each table is deadlock-free, their union holds the whole
// staircase.  Greedily from the installed routes, pairs in node order (0,0
// 1,0 0,1 1,1): 0,0's new +Y +X fits; 1,0's new +X +Y would close
// 0,0 +Y -> 0,1 +X -> 1,1 +Y -> 1,0 +X -> 0,0 +Y; 0,1's new +Y +X fits;
// 1,1's new +X +Y would close 0,0 +X -> 1,0 +Y -> 1,1 +X -> 0,1 +Y -> 0,0 +X.
// So one intermediate table: 0,0 and 0,1 new, 1,0 and 1,1 installed; once the
// installed routes of 0,0 and 0,1 are gone, both remaining pairs switch.
START_TEST(test_staircase_staged_through_one_table) {
  const Network network(Torus::parse("2x2"));
  const Torus& torus = network.torus();
  const RouteTable installed = square(torus, "+X +Y", "+Y +X", "+Y +X", "+X +Y");
  const RouteTable next = square(torus, "+Y +X", "+X +Y", "+X +Y", "+Y +X");
  verified(network, installed);
  verified(network, next);
  ck_assert_uint_gt(union_turns_on_cycles(network, installed, next, FlowControl::bubble), 0);

  const TransitionPlan plan = plan_transition(network, installed, next, FlowControl::bubble);
  ck_assert_str_eq(transition_kind_name(plan.kind), "staged");
  ck_assert_uint_eq(plan.steps.size(), 1);
  const RouteTable& step = plan.steps.front();
  ck_assert_std_str_eq(route_text(network, step, "0,0", "1,1"), "+Y +X");
  ck_assert_std_str_eq(route_text(network, step, "1,0", "0,1"), "+Y +X");
  ck_assert_std_str_eq(route_text(network, step, "0,1", "1,0"), "+Y +X");
  ck_assert_std_str_eq(route_text(network, step, "1,1", "0,0"), "+Y +X");
  ck_assert_std_str_eq(step.algorithm, "test");
  verified(network, step);
  ck_assert_uint_eq(union_turns_on_cycles(network, installed, step, FlowControl::bubble), 0);
  ck_assert_uint_eq(union_turns_on_cycles(network, step, next, FlowControl::bubble), 0);
}
END_TEST

START_TEST(test_no_room_for_steps_means_quiesce) {
  const Network network(Torus::parse("2x2"));
  const Torus& torus = network.torus();
  const RouteTable installed = square(torus, "+X +Y", "+Y +X", "+Y +X", "+X +Y");
  const RouteTable next = square(torus, "+Y +X", "+X +Y", "+X +Y", "+Y +X");
  const TransitionPlan plan = plan_transition(network, installed, next, FlowControl::bubble, 0);
  ck_assert_str_eq(transition_kind_name(plan.kind), "quiesce");
  ck_assert_uint_eq(plan.steps.size(), 0);
  ck_assert_std_str_eq(plan.reason,
                       "no sequence of at most 0 intermediate tables found: the new route of 1,0 -> 0,1 (installed "
                       "+Y +X, new +X +Y) closes a dependency cycle with the routes still installed");
}
END_TEST

// Without bubble flow control the ring cycles count too.  On the 3-ring,
// installed: 0 -> 2 by +X +X (0 +X -> 1 +X); new: 0 -> 2 by -X, 1 -> 0 by
// +X +X (1 +X -> 2 +X) and 2 -> 1 by +X +X (2 +X -> 0 +X).  Each is acyclic,
// the union closes the ring: harmless under bubble, a deadlock under none,
// where 2 -> 1 has to wait one step for 0 -> 2 to leave the ring.
START_TEST(test_ring_cycles_count_under_none) {
  const Network network(Torus::parse("3"));
  const Torus& torus = network.torus();
  RouteTable installed(all_nodes(torus));
  set_route(installed, torus, "0", "1", "+X");
  set_route(installed, torus, "1", "2", "+X");
  set_route(installed, torus, "2", "0", "+X");
  set_route(installed, torus, "0", "2", "+X +X");
  set_route(installed, torus, "1", "0", "-X");
  set_route(installed, torus, "2", "1", "-X");
  RouteTable next = installed;
  set_route(next, torus, "0", "2", "-X");
  set_route(next, torus, "1", "0", "+X +X");
  set_route(next, torus, "2", "1", "+X +X");
  ck_assert_uint_eq(union_turns_on_cycles(network, installed, installed, FlowControl::none), 0);
  ck_assert_uint_eq(union_turns_on_cycles(network, next, next, FlowControl::none), 0);
  ck_assert_uint_gt(union_turns_on_cycles(network, installed, next, FlowControl::none), 0);
  ck_assert_uint_eq(union_turns_on_cycles(network, installed, next, FlowControl::bubble), 0);
  ck_assert_str_eq(transition_kind_name(plan_transition(network, installed, next, FlowControl::bubble).kind),
                   "direct");
  const TransitionPlan plan = plan_transition(network, installed, next, FlowControl::none);
  ck_assert_str_eq(transition_kind_name(plan.kind), "staged");
  ck_assert_uint_eq(plan.steps.size(), 1);
  ck_assert_std_str_eq(route_text(network, plan.steps.front(), "0", "2"), "-X");
  ck_assert_std_str_eq(route_text(network, plan.steps.front(), "1", "0"), "+X +X");
  ck_assert_std_str_eq(route_text(network, plan.steps.front(), "2", "1"), "-X");
}
END_TEST

// A failure appears under a running job: the job's bfs table on a 4x4x4
// machine with one failed router, then one more router or cable fails and the
// table is rebuilt.  Whatever the plan, every consecutive union is
// deadlock-free by the verifier's own count and every intermediate table
// verifies; a refusal says why.  With this seed all three outcomes occur.
START_TEST(test_failures_under_running_jobs) {
  std::mt19937 random(13);
  int direct = 0, staged = 0, quiesce = 0;
  const int trials = 30;
  for (int trial = 0; trial < trials; ++trial) {
    Network before(Torus::parse("4x4x4"));
    const auto random_node = [&] { return static_cast<NodeId>(random() % before.torus().node_count()); };
    before.fail_node(random_node());
    const RouteTable installed = generate("bfs", before, live_nodes(before));
    Network after = before;
    NodeId failed = random_node();
    while (!after.node_alive(failed)) failed = random_node();
    if (trial % 2 == 0)
      after.fail_node(failed);
    else
      after.fail_link(failed, Direction::make(static_cast<int>(random() % 3), random() % 2 != 0));
    const RouteTable next = generate("bfs", after, live_nodes(after));
    const TransitionPlan plan = plan_transition(after, installed, next, FlowControl::bubble);
    const RouteTable* previous = &installed;
    for (const RouteTable& step : plan.steps) {
      verified(after, step);
      ck_assert_uint_eq(union_turns_on_cycles(after, *previous, step, FlowControl::bubble), 0);
      previous = &step;
    }
    switch (plan.kind) {
      case TransitionKind::direct:
        ++direct;
        ck_assert_uint_eq(union_turns_on_cycles(after, installed, next, FlowControl::bubble), 0);
        break;
      case TransitionKind::staged:
        ++staged;
        ck_assert_uint_gt(union_turns_on_cycles(after, installed, next, FlowControl::bubble), 0);
        ck_assert_uint_gt(plan.steps.size(), 0);
        ck_assert_uint_eq(union_turns_on_cycles(after, *previous, next, FlowControl::bubble), 0);
        break;
      case TransitionKind::quiesce:
        ++quiesce;
        ck_assert_uint_gt(union_turns_on_cycles(after, installed, next, FlowControl::bubble), 0);
        ck_assert(plan.reason.find("closes a dependency cycle") != std::string::npos);
        break;
    }
  }
  ck_assert_int_eq(direct + staged + quiesce, trials);
  ck_assert_msg(direct > 0 && staged > 0 && quiesce > 0, "%d direct, %d staged, %d quiesce", direct, staged, quiesce);
}
END_TEST

// A rebuild holds the installed table and, switching live, up to 8
// intermediate tables and a transient copy beside the new one: the
// estimate counts them as tables of the allocation (4 bytes a pair and 16 a
// node), 10 of 4096 nodes being 640.6 MiB.
START_TEST(test_memory_estimate_counts_switch_tables) {
  const Network network(Torus::parse("16x16x16"));
  MemoryWork work;
  const auto switch_part = [&](int extra_tables) {
    work.extra_tables = extra_tables;
    const MemoryEstimate estimate = estimate_job_memory(network, 4096, "balanced", GeneratorOptions{}, work);
    for (const MemoryPart& part : estimate.parts)
      if (part.what == "installed and intermediate tables") return part.bytes;
    return std::uint64_t{0};
  };
  // (The totals are not compared: the program's part is what the process
  // holds at each call, /proc/self/statm.)
  const std::uint64_t table = 4ull * 4096 * 4096 + 16ull * 4096;
  ck_assert_uint_eq(switch_part(10), 10 * table);
  ck_assert_uint_eq(switch_part(1), table);
  ck_assert_uint_eq(switch_part(0), 0);
}
END_TEST

int main() {
  Suite* suite = suite_create("transition");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_same_routes_switch_directly);
  tcase_add_test(tc, test_staircase_staged_through_one_table);
  tcase_add_test(tc, test_no_room_for_steps_means_quiesce);
  tcase_add_test(tc, test_ring_cycles_count_under_none);
  tcase_add_test(tc, test_failures_under_running_jobs);
  tcase_add_test(tc, test_memory_estimate_counts_switch_tables);
  suite_add_tcase(suite, tc);
  return run_suite(suite);
}
