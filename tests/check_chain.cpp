// Fallback chains of generators (routing/chain.hpp): parsing, the member
// that wins, why the earlier ones were passed over, and the errors.
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "routing/chain.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using angara_test::node_at;

namespace {

std::string parse_error(const std::string& text) {
  return angara_test::error_message<std::invalid_argument>([&] { parse_algorithm_chain(text); });
}

// A 6x6 with seven failed routers and an 11-node scattered allocation on
// which bfs, sssp and balanced leave 5,4 -> 0,2 and 5,4 -> 3,2 unrouted
// (every route they try closes a cycle with their own routes) and genetic
// routes every pair: a chain has to fall back.
Network seven_failed_routers_6x6() {
  Network net(Torus::parse("6x6"));
  for (const char* dead : {"4,0", "0,1", "4,2", "0,3", "4,3", "0,4", "3,4"}) net.fail_node(node_at(net.torus(), dead));
  return net;
}

std::vector<NodeId> scattered_allocation(const Network& net) {
  std::vector<NodeId> nodes;
  for (const char* node : {"3,0", "5,0", "1,1", "2,1", "0,2", "3,2", "2,4", "5,4", "0,5", "2,5", "3,5"})
    nodes.push_back(node_at(net.torus(), node));
  return nodes;
}

const std::string kBalancedRefusal =
    "cannot route 2 of 110 ordered pairs deadlock-free on one virtual channel: 5,4 -> 0,2: an encodable route of 7 "
    "hops exists, but every route tried closes a deadlock cycle with the other routes (its minimal routes are "
    "blocked by router 0,4); 5,4 -> 3,2: an encodable route of 8 hops exists, but every route tried closes a "
    "deadlock cycle with the other routes (its minimal routes are blocked by router 3,4, router 4,3)";

}  // namespace

START_TEST(test_parse) {
  ck_assert(parse_algorithm_chain("balanced") == std::vector<std::string>{"balanced"});
  ck_assert(parse_algorithm_chain(" balanced , genetic,bfs ") ==
            (std::vector<std::string>{"balanced", "genetic", "bfs"}));
  ck_assert_std_str_eq(format_algorithm_chain({"balanced", "genetic"}), "balanced,genetic");
  const std::string valid = " (valid: " + generator_names() + ")";
  ck_assert_std_str_eq(parse_error("nosuch"), "unknown routing algorithm 'nosuch'" + valid);
  ck_assert_std_str_eq(parse_error("balanced,nosuch"),
                       "unknown routing algorithm 'nosuch' in chain 'balanced,nosuch'" + valid);
  ck_assert_std_str_eq(parse_error(""), "empty routing algorithm name" + valid);
  ck_assert_std_str_eq(parse_error("balanced,,bfs"), "empty routing algorithm name in chain 'balanced,,bfs'" + valid);
  ck_assert_std_str_eq(parse_error("bfs,balanced,bfs"),
                       "routing algorithm 'bfs' appears twice in chain 'bfs,balanced,bfs'");
}
END_TEST

// balanced first, then nue and exact, both registered.
START_TEST(test_default_chain) {
  const std::string expected = "balanced,nue,exact";
  ck_assert_std_str_eq(default_algorithm_chain(), expected);
  ck_assert(parse_algorithm_chain(default_algorithm_chain()).front() == default_generator_name());
}
END_TEST

// The first member whose table verifies wins; the others are not run.
START_TEST(test_first_member_wins) {
  const Network net(Torus::parse("4x4"));
  const ChainOutcome outcome =
      run_algorithm_chain({"bfs", "balanced"}, net, angara_test::live_nodes(net), {}, VerifyOptions{});
  ck_assert_std_str_eq(outcome.algorithm, "bfs");
  ck_assert_std_str_eq(outcome.table.algorithm, "bfs");
  ck_assert(outcome.passed_over.empty());
  ck_assert(outcome.report.ok());
  ck_assert_uint_eq(outcome.report.routes, 240);
}
END_TEST

// balanced refuses that allocation, genetic routes it: genetic wins, and the
// outcome says why balanced was passed over (its refusal, without its name).
START_TEST(test_fallback) {
  const Network net = seven_failed_routers_6x6();
  const std::vector<NodeId> nodes = scattered_allocation(net);
  const ChainOutcome outcome = run_algorithm_chain({"balanced", "genetic"}, net, nodes, {}, VerifyOptions{});
  ck_assert_std_str_eq(outcome.algorithm, "genetic");
  ck_assert_std_str_eq(outcome.table.algorithm, "genetic");
  ck_assert(outcome.report.ok());
  angara_test::verified(net, outcome.table);
  ck_assert_uint_eq(outcome.passed_over.size(), 1);
  ck_assert_std_str_eq(outcome.passed_over[0].algorithm, "balanced");
  ck_assert_std_str_eq(outcome.passed_over[0].reason, kBalancedRefusal);
}
END_TEST

// Every member fails: a longer chain says so with every member's reason; a
// one-member chain passes the generator's own refusal on.
START_TEST(test_every_member_fails) {
  const Network net = seven_failed_routers_6x6();
  const std::vector<NodeId> nodes = scattered_allocation(net);
  ck_assert_std_str_eq(angara_test::error_message([&] {
                         run_algorithm_chain({"sssp", "balanced"}, net, nodes, {}, VerifyOptions{});
                       }),
                       "no generator of the chain sssp,balanced found a valid table; sssp: " + kBalancedRefusal +
                           "; balanced: " + kBalancedRefusal);
  ck_assert_std_str_eq(
      angara_test::error_message([&] { run_algorithm_chain({"balanced"}, net, nodes, {}, VerifyOptions{}); }),
      "balanced: " + kBalancedRefusal);
}
END_TEST

// The chain's refusal keeps each member's, with the pairs it named and its
// headline without them (routing/refusal.hpp lists each pair once).
START_TEST(test_refusal_keeps_members_and_pairs) {
  const Network net = seven_failed_routers_6x6();
  const std::vector<NodeId> nodes = scattered_allocation(net);
  const Torus& t = net.torus();
  const std::vector<NodePair> pairs{{node_at(t, "5,4"), node_at(t, "0,2")}, {node_at(t, "5,4"), node_at(t, "3,2")}};
  try {
    run_algorithm_chain({"sssp", "balanced"}, net, nodes, {}, VerifyOptions{});
    ck_abort_msg("the chain routed");
  } catch (const ChainRoutingError& e) {
    ck_assert_uint_eq(e.members().size(), 2);
    for (const PassedOver& member : e.members()) {
      ck_assert_std_str_eq(member.headline, "cannot route 2 of 110 ordered pairs deadlock-free on one virtual channel");
      ck_assert_std_str_eq(member.reason, kBalancedRefusal);
      ck_assert(member.unrouted == pairs);
    }
    ck_assert_std_str_eq(e.members()[0].algorithm, "sssp");
  }
}
END_TEST

// A table the verifier rejects passes the member over with the verifier's
// first violation (here: no virtual channel allowed at all); a one-member
// chain hands the rejected table back for the caller to refuse.
START_TEST(test_verifier_rejection) {
  const Network net(Torus::parse("4x4"));
  VerifyOptions none;
  none.max_virtual_channels = 0;
  const std::string message = angara_test::error_message(
      [&] { run_algorithm_chain({"bfs", "balanced"}, net, angara_test::live_nodes(net), {}, none); });
  ck_assert_msg(message.rfind("no generator of the chain bfs,balanced found a valid table; bfs: table rejected by the "
                              "verifier (240 violation(s)); ",
                              0) == 0,
                "%s", message.c_str());
  ck_assert_msg(message.find("no virtual channel is allowed") != std::string::npos, "%s", message.c_str());
  ck_assert_msg(message.find("; balanced: table rejected by the verifier") != std::string::npos, "%s",
                message.c_str());
  const ChainOutcome alone = run_algorithm_chain({"bfs"}, net, angara_test::live_nodes(net), {}, none);
  ck_assert(!alone.report.ok());
  ck_assert_std_str_eq(alone.algorithm, "bfs");
}
END_TEST

int main() {
  Suite* s = suite_create("chain");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_parse);
  tcase_add_test(tc, test_default_chain);
  tcase_add_test(tc, test_first_member_wins);
  tcase_add_test(tc, test_fallback);
  tcase_add_test(tc, test_every_member_fails);
  tcase_add_test(tc, test_verifier_rejection);
  tcase_add_test(tc, test_refusal_keeps_members_and_pairs);
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
