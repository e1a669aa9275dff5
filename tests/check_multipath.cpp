// Multi-path routing functions (angara/multipath.hpp): the verifier on a
// hand-made function whose alternatives are each deadlock-free while their
// union is not, and mp-lash / a-lash end to end through it.
#include <string>
#include <vector>

#include "angara/multipath.hpp"
#include "angara/network.hpp"
#include "routing/check/multipath_verifier.hpp"
#include "routing/check/verifier.hpp"
#include "routing/common/layering.hpp"
#include "routing/generator.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using angara_test::error_message;
using angara_test::node_at;

namespace {

VerifyOptions general_check(int virtual_channels = 1) {
  VerifyOptions options;
  options.rules = RuleSet::general;
  options.max_virtual_channels = virtual_channels;
  return options;
}

std::string first_violation(const MultiPathReport& report) {
  return report.ok() ? std::string() : report.violations.front().message;
}

MultiPathTable generate_function(const char* name, const Network& net, const GeneratorOptions& options) {
  const std::optional<MultiPathTable> function =
      angara_test::generator_named(name)->generate_multipath(net, angara_test::live_nodes(net), options);
  ck_assert(function.has_value());
  return *function;
}

}  // namespace

// On 3x3 every route has at most one hop per dimension, so a route's only
// dependency is its one turn.  The square (0,0) (1,0) (1,1) (0,1) closes a
// turn cycle +X -> +Y -> -X -> -Y -> +X when all four turns are present.
// The DOR table has the first three ((0,0)->(1,1) "+X +Y", (1,0)->(0,1)
// "+Y -X", (1,1)->(0,0) "-X -Y"), not the fourth; alternative 1 adds the
// fourth ((0,1)->(1,0) "-Y +X") but takes the first pair the other way
// ("+Y +X").  Each alone is deadlock-free; the pairs' allowed paths together
// close the cycle.
START_TEST(test_union_closes_a_cycle) {
  const Network net(Torus::parse("3x3"));
  const std::vector<NodeId> nodes = angara_test::all_nodes(net.torus());
  MultiPathTable function;
  function.alternatives.push_back(angara_test::dor_table(net.torus(), nodes));
  RouteTable other = angara_test::dor_table(net.torus(), nodes);
  angara_test::set_route(other, net.torus(), "0,1", "1,0", "-Y +X");
  angara_test::set_route(other, net.torus(), "0,0", "1,1", "+Y +X");
  function.alternatives.push_back(other);

  ck_assert(verify(net, function.alternatives[0], general_check()).ok());
  const VerifyReport alone = verify(net, function.alternatives[1], general_check());
  ck_assert_msg(alone.ok(), "%s", alone.ok() ? "" : alone.violations.front().message.c_str());

  const MultiPathReport report = verify_multipath(net, function, general_check());
  ck_assert(!report.ok());
  ck_assert_int_eq(static_cast<int>(report.violations.front().rule), static_cast<int>(Rule::Deadlock));
  const std::string message = first_violation(report);
  ck_assert_msg(message.find("allowed paths: virtual channel 0: the union") == 0, "%s", message.c_str());
  ck_assert_uint_eq(report.union_forbidden, 4);  // the four turns of the square
  ck_assert_uint_eq(report.adaptive_pairs, 2);
  ck_assert_uint_eq(report.paths, 72 + 2);

  // The same paths on two virtual channels: each layer's union is one table's.
  RouteTable layered = other;
  for (std::size_t s = 0; s < layered.size(); ++s)
    for (std::size_t d = 0; d < layered.size(); ++d)
      if (s != d) {
        Route route = layered.route(s, d);
        route.layer = 1;
        layered.set_route(s, d, route);
      }
  function.alternatives[1] = layered;
  ck_assert(!verify_multipath(net, function, general_check(1)).ok());  // layer 1 beyond the budget
  const MultiPathReport two = verify_multipath(net, function, general_check(2));
  ck_assert_msg(two.ok(), "%s", first_violation(two).c_str());
  ck_assert_int_eq(two.virtual_channels, 2);
}
END_TEST

// Under switch adaptivity a packet may move between a pair's paths where
// they meet.  On 5x5, (0,0) -> (2,2) with DOR "+X +X +Y +Y" and
// "+Y +X +X +Y": they meet at (2,1), both leaving by +Y, so the switch's
// choices add nothing.  With a third path "+X +Y +Y +X", it and the second
// meet at (1,1), one entering by (0,1)+X and leaving +X, the other entering
// by (1,0)+Y and leaving +Y: the crossing (0,1)+X -> (1,1)+Y is a DOR
// dependency of other pairs already, (1,0)+Y -> (1,1)+X is new.
START_TEST(test_switch_crossings) {
  const Network net(Torus::parse("5x5"));
  const std::vector<NodeId> nodes = angara_test::all_nodes(net.torus());
  MultiPathTable function;
  RouteTable second = angara_test::dor_table(net.torus(), nodes);
  angara_test::set_route(second, net.torus(), "0,0", "2,2", "+Y +X +X +Y");
  function.alternatives = {angara_test::dor_table(net.torus(), nodes), second};
  const auto edges = [&](Adaptivity adaptivity) {
    function.adaptivity = adaptivity;
    std::size_t count = 0;
    for (const ChannelDependencyGraph& graph : multipath_dependency_graphs(net, function))
      for (ChannelId c = 0; c < graph.slots(); ++c)
        for (int rank = 0; rank < kDirectionCount; ++rank) count += (graph.successors(c) >> rank) & 1u;
    return count;
  };
  const std::size_t source_two = edges(Adaptivity::source);
  ck_assert_uint_eq(edges(Adaptivity::switch_hops), source_two);

  RouteTable third = angara_test::dor_table(net.torus(), nodes);
  angara_test::set_route(third, net.torus(), "0,0", "2,2", "+X +Y +Y +X");
  function.alternatives.push_back(third);
  const std::size_t source_three = edges(Adaptivity::source);
  ck_assert_uint_eq(source_three, source_two + 1);  // the third path's turn +Y -> +X at (1,2)
  ck_assert_uint_eq(edges(Adaptivity::switch_hops), source_three + 1);
}
END_TEST

// mp-lash and a-lash on whole and faulty tori: the function verifies, its
// alternative 0 is generate()'s table, pairs have several paths when the
// budget allows, and with one virtual channel the function still routes
// every pair (extra paths dropped).
START_TEST(test_generators) {
  Network faulty(Torus::parse("4x4x4"));
  faulty.fail_node(node_at(faulty.torus(), "1,1,1"));
  const Network whole(Torus::parse("4x4"));
  for (const Network* net : std::vector<const Network*>{&whole, &faulty})
    for (const char* name : {"mp-lash", "a-lash"})
      for (int budget : {1, 4}) {
        if (net == &faulty && budget == 1) continue;  // lash's paths need 2 around the failed router
        GeneratorOptions options;
        options.virtual_channels = budget;
        const MultiPathTable function = generate_function(name, *net, options);
        VerifyOptions check;
        check.max_virtual_channels = budget;
        const MultiPathReport report = verify_multipath(*net, function, check);
        ck_assert_msg(report.ok(), "%s, %d VCs: %s", name, budget, first_violation(report).c_str());
        const std::size_t n = function.size();
        ck_assert_uint_eq(report.installed.routes, n * (n - 1));
        ck_assert(angara_test::same_routes(function.alternatives.front(),
                                           angara_test::generate(name, *net, angara_test::live_nodes(*net), options)));
        if (net == &whole) ck_assert_int_eq(report.installed.non_minimal, 0);  // encodable detours round the failure
        if (budget == 4) {
          ck_assert_msg(report.adaptive_pairs > n * (n - 1) / 2, "%s: only %zu pairs adaptive", name,
                        report.adaptive_pairs);
          ck_assert_int_le(report.virtual_channels, 4);
        }
        ck_assert_uint_ge(report.paths, n * (n - 1));
        ck_assert_uint_le(function.alternatives.size(), 4);
      }
  // Under the general rules too.
  GeneratorOptions general;
  general.rules = RuleSet::general;
  general.virtual_channels = 4;
  for (const char* name : {"mp-lash", "a-lash"}) {
    const MultiPathTable function = generate_function(name, faulty, general);
    const MultiPathReport report = verify_multipath(faulty, function, general_check(4));
    ck_assert_msg(report.ok(), "%s general: %s", name, first_violation(report).c_str());
    ck_assert_uint_gt(report.adaptive_pairs, 0);
  }
}
END_TEST

// A budget too small for one path per pair is refused naming the virtual
// channels needed, as lash does.
START_TEST(test_refusals) {
  Network cables(Torus::parse("4x4x4"));
  cables.fail_link(node_at(cables.torus(), "0,0,0"), Direction(0));  // +X
  cables.fail_link(node_at(cables.torus(), "1,2,3"), Direction(1));  // +Y
  GeneratorOptions options;
  options.rules = RuleSet::general;
  for (const char* name : {"mp-lash", "a-lash"}) {
    const std::string refused = error_message([&] { generate_function(name, cables, options); });
    const std::string expected_start = std::string(name) + ": the routes need ";
    ck_assert_msg(refused.find(expected_start) == 0 &&
                      refused.find(" virtual channels, only 1 allowed (routing.virtual_channels)") != std::string::npos,
                  "%s", refused.c_str());
  }
  GeneratorOptions bad;
  bad.extra["paths_per_pair"] = "0";
  const std::string message =
      error_message<std::invalid_argument>([&] { generate_function("mp-lash", cables, bad); });
  ck_assert_std_str_eq(message, "mp-lash: option 'paths_per_pair' expects an integer from 1 to 64, got '0'");
}
END_TEST

int main() {
  Suite* s = suite_create("multipath");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_union_closes_a_cycle);
  tcase_add_test(tc, test_switch_crossings);
  tcase_add_test(tc, test_generators);
  tcase_add_test(tc, test_refusals);
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
