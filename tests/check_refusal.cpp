// Refusals around failures in the administrator's words (routing/refusal.hpp):
// the summary line, each pair once, nodes by Slurm name, cables as the
// configuration declares them, routers failed or down, and the detail.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "angara/config.hpp"
#include "routing/pipeline.hpp"
#include "routing/refusal.hpp"
#include "routing/report.hpp"
#include "tests/test_support.hpp"

using namespace angara;

namespace {

// The 5x5 of issue 26: every pair cut off ends at 2,1 (n07); "4,4 -Y" is a
// cable whose other end is 4,3 +Y (n19 +Y).
const char* const kCut5x5 =
    "machine:\n  torus: 5x5\n  nodes: n[00-24]\nfailures:\n  links:\n"
    "    - 2,3 +Y\n    - 2,1 +X\n    - 2,1 +Y\n    - 4,4 -Y\n    - 3,4 -X\n";

Refusal refusal_of(const Config& config, const JobRequest& request) {
  try {
    compute_job_routes(config, request);
  } catch (const RefusalError& e) {
    ck_assert_std_str_eq(e.what(), e.refusal().summary);
    return e.refusal();
  }
  ck_abort_msg("no refusal");
  return {};
}

std::string joined_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

}  // namespace

// The default chain on the 5x5: balanced leaves 10 pairs, nue and exact the
// 7 cut off; the refusal names the 10 once each, cut off first, with the
// members that refused each, and one summary line.
START_TEST(test_chain_refusal_on_5x5) {
  const Config config = parse_config(kCut5x5, "cut.yaml");
  const Refusal refusal = refusal_of(config, JobRequest{});
  ck_assert_std_str_eq(refusal.summary,
                       "refused: 7 pairs of 25 nodes have no route around cable n07 +X, cable n07 +Y, cable n17 +Y "
                       "and cable n24 -Y; all involve n07: leave it out of the job or repair cable n07 +X, cable "
                       "n07 +Y or cable n17 +Y; first: n10 -> n07");
  ck_assert_std_str_eq(refusal.chain, "balanced,nue,exact");
  ck_assert_uint_eq(refusal.node_count, 25);
  ck_assert_uint_eq(refusal.pairs.size(), 10);
  ck_assert_uint_eq(refusal.cut_off, 7);
  ck_assert_std_str_eq(refusal.common_node, "n07");
  std::set<std::pair<std::string, std::string>> seen;
  for (std::size_t i = 0; i < refusal.pairs.size(); ++i) {
    const RefusedPair& pair = refusal.pairs[i];
    ck_assert(seen.insert({pair.source, pair.destination}).second);  // each once
    ck_assert_std_str_eq(pair.destination, "n07");
    ck_assert(i < refusal.cut_off ? pair.shortest < 0 : pair.shortest > 0);
    if (i < refusal.cut_off)
      ck_assert(pair.refused_by == (std::vector<std::string>{"balanced", "nue", "exact"}));
    else
      ck_assert(pair.refused_by == std::vector<std::string>{"balanced"});
  }
  ck_assert(refusal.pairs.front().blockers ==
            (std::vector<std::string>{"cable n07 +X", "cable n07 +Y", "cable n17 +Y"}));
  ck_assert(refusal.pairs.front().each_repair_reopens);
  // The detail: each member's reason once, without its pairs; each pair once.
  const std::string detail = joined_lines(refusal_detail(refusal));
  ck_assert_msg(detail.find("  nue (") != std::string::npos, "%s", detail.c_str());
  ck_assert_msg(detail.find("): 7 of 600 ordered pairs have no Angara-encodable route that avoids the failures\n") !=
                    std::string::npos,
                "%s", detail.c_str());
  ck_assert_msg(detail.find("  n10 -> n07: cut off by cable n07 +X, cable n07 +Y, cable n17 +Y (repairing any one "
                            "reopens it); refused by balanced, nue, exact\n") != std::string::npos,
                "%s", detail.c_str());
  ck_assert_msg(detail.find("  n16 -> n07: shortest route 4 hops, its minimal routes blocked by cable n07 +Y; "
                            "refused by balanced\n") != std::string::npos,
                "%s", detail.c_str());
  // No coordinates, no cable from its other end, anywhere.
  const std::string json = refusal_json(refusal);
  for (const std::string& text : {detail, json, refusal.summary}) {
    ck_assert_msg(text.find("2,1") == std::string::npos, "%s", text.c_str());
    ck_assert_msg(text.find("n19 +Y") == std::string::npos, "%s", text.c_str());
  }
  ck_assert_msg(json.find("\"cut_off_pairs\":7,\"pairs\":[{\"source\":\"n10\",\"destination\":\"n07\",\"cut_off\":true,"
                          "\"shortest_hops\":-1,") != std::string::npos,
                "%s", json.c_str());
}
END_TEST

// One generator's refusal becomes the same kind of refusal; the detail of
// the log stops after `max_pairs` pairs and says how many more there are.
START_TEST(test_one_generator_and_detail_limit) {
  const Config config = parse_config(kCut5x5, "cut.yaml");
  JobRequest request;
  request.algorithm = "nue";
  const Refusal refusal = refusal_of(config, request);
  ck_assert_uint_eq(refusal.members.size(), 1);
  ck_assert_uint_eq(refusal.pairs.size(), 7);
  const std::vector<std::string> lines = refusal_detail(refusal, 2);
  ck_assert_uint_eq(lines.size(), 5);  // the generator, the heading, two pairs, how many more
  ck_assert_std_str_eq(lines[0].substr(0, 15), "generator nue (");
  ck_assert_std_str_eq(lines[4], "and 5 more pairs (angara-route generate --verbose or --json lists them all)");
}
END_TEST

// A refusal of a whole machine names every pair by count, and describes
// the first kRefusalDetailPairs: its memory does not grow with the pairs.
START_TEST(test_many_pairs_listed_up_to_the_cap) {
  const Config config = parse_config("machine:\n  torus: 8x8\n  nodes: n[00-63]\n", "whole.yaml");
  const Network network = config.network();
  PassedOver member;
  member.algorithm = "mroots";
  member.reason = "no up*/down* route in any layer";
  member.headline = member.reason;
  for (NodeId s = 0; s < 64; ++s)
    for (NodeId d = 0; d < 64; ++d)
      if (s != d && (s + d) % 2 == 0) member.unrouted.emplace_back(s, d);
  const std::size_t named = member.unrouted.size();  // 64 x 31
  const Refusal refusal = describe_refusal(config, network, 64, "mroots", {member});
  ck_assert_uint_eq(refusal.pair_count, named);
  ck_assert_uint_eq(refusal.pairs.size(), kRefusalDetailPairs);
  const std::string expected_summary = "refused: 1984 pairs of 64 nodes left without a deadlock-free route; first: n00 -> n02";
  ck_assert_std_str_eq(refusal.summary, expected_summary);
  const std::vector<std::string> lines = refusal_detail(refusal);
  const std::string last = lines.back();
  ck_assert_std_str_eq(last, "and 984 more pairs (a refusal lists the first 1000)");
  const std::string json = refusal_json(refusal);
  ck_assert_msg(json.find("\"pair_count\":1984,\"cut_off_pairs\":0,") != std::string::npos, "%s", json.substr(0, 400).c_str());
}
END_TEST

// A router down in Slurm is "down", one the configuration lists "failed";
// failed routers of a kind are a hostlist in the summary.
START_TEST(test_routers_failed_and_down) {
  const Config config = parse_config(
      "machine:\n  torus: 4x2x2x2\n  nodes: desmos[00-31]\n  single_cable: [Y, Z, K]\n"
      "failures:\n  nodes: [desmos01, desmos06, desmos10]\n  links:\n    - desmos18 -K\n",
      "desmos.yaml");
  JobRequest request;
  request.node_names = {"desmos00", "desmos02", "desmos04", "desmos05"};
  request.down_nodes = {"desmos03"};
  const Refusal refusal = refusal_of(config, request);
  ck_assert(refusal.failures == (std::vector<std::string>{"router desmos01 (failed)", "router desmos03 (down)",
                                                          "router desmos06 (failed)", "router desmos10 (failed)",
                                                          "cable desmos18 -K"}));
  ck_assert_msg(refusal.summary.rfind("refused: 6 pairs of 4 nodes have no route around routers desmos[01,06,10] "
                                      "(failed), router desmos03 (down) and cable desmos18 -K; all involve desmos02",
                                      0) == 0,
                "%s", refusal.summary.c_str());
}
END_TEST

// desmos02 is cut off by its five neighbours: on three nodes the refusal
// says to leave desmos02 out; on two it cannot tell which one to leave out.
START_TEST(test_node_to_leave_out) {
  const Config config = parse_config(
      "machine:\n  torus: 4x2x2x2\n  nodes: desmos[00-31]\n"
      "failures:\n  nodes: [desmos01, desmos03, desmos06, desmos10, desmos18]\n",
      "desmos.yaml");
  JobRequest request;
  request.algorithm = "bfs";
  request.node_names = {"desmos00", "desmos02", "desmos04"};
  ck_assert_std_str_eq(refusal_of(config, request).summary,
                       "refused: 4 pairs of 3 nodes have no route around routers desmos[01,03,06,10,18] (failed); "
                       "all involve desmos02: leave it out of the job or repair any one of them; first: desmos00 -> "
                       "desmos02");
  request.node_names = {"desmos00", "desmos02"};
  ck_assert_std_str_eq(refusal_of(config, request).summary,
                       "refused: 2 pairs of 2 nodes have no route around routers desmos[01,03,06,10,18] (failed); "
                       "repair any one of them to reopen them all; first: desmos00 -> desmos02");
}
END_TEST

// Members that name no pair (a table the verifier rejected, an option a
// generator lacks): the summary names the chain and every failure; the
// detail keeps each member's reason whole.
START_TEST(test_refusal_without_pairs) {
  const Config config = parse_config(kCut5x5, "cut.yaml");
  const Network network = config.network();
  std::vector<PassedOver> members{{"bfs", "table rejected by the verifier (3 violation(s)); deadlock: a cycle", 0.5, "", {}},
                                  {"exact", "it searches Angara-encodable routes only (routing.rules: angara)", 0, "", {}}};
  const Refusal refusal = describe_refusal(config, network, 25, "bfs,exact", members);
  ck_assert(refusal.pairs.empty());
  ck_assert_std_str_eq(refusal.summary,
                       "refused: no generator of the chain bfs,exact found a valid table for 25 nodes around cable "
                       "n07 +X, cable n07 +Y, cable n17 +Y, cable n23 -X and 1 more");
  const std::vector<std::string> lines = refusal_detail(refusal);
  ck_assert_uint_eq(lines.size(), 3);
  ck_assert_std_str_eq(lines[1], "  bfs (0.500 s): table rejected by the verifier (3 violation(s)); deadlock: a cycle");
}
END_TEST

int main() {
  Suite* s = suite_create("refusal");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_chain_refusal_on_5x5);
  tcase_add_test(tc, test_one_generator_and_detail_limit);
  tcase_add_test(tc, test_routers_failed_and_down);
  tcase_add_test(tc, test_node_to_leave_out);
  tcase_add_test(tc, test_refusal_without_pairs);
  tcase_add_test(tc, test_many_pairs_listed_up_to_the_cap);
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
