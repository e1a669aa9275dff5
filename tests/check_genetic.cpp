// The "genetic" generator (ANSU paper, section 4.2; routing/generators/genetic.cpp).
#include <stdexcept>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "routing/common/candidates.hpp"
#include "routing/generator.hpp"
#include "routing/check/verifier.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using angara_test::all_nodes;
using angara_test::block;
using angara_test::error_message;
using angara_test::generate;
using angara_test::live_nodes;
using angara_test::same_routes;
using angara_test::verified;

namespace {

RouteTable genetic(const Network& net, const std::vector<NodeId>& nodes, const GeneratorOptions& options) {
  return generate("genetic", net, nodes, options);
}

GeneratorOptions seeded(std::uint64_t seed) {
  GeneratorOptions options;
  options.seed = seed;
  return options;
}

std::string option_error(const std::string& key, const std::string& value) {
  const Network net(Torus::parse("4x2"));
  GeneratorOptions options;
  options.extra[key] = value;
  return error_message<std::invalid_argument>([&] { genetic(net, {0, 1, 2}, options); });
}

}  // namespace

START_TEST(test_same_seed_same_table) {
  const Network net(Torus::parse("4x2x2x2"));
  const std::vector<NodeId> nodes = block(net.torus(), {4, 2, 2, 1});
  const RouteTable first = genetic(net, nodes, seeded(7));
  const RouteTable again = genetic(net, nodes, seeded(7));
  ck_assert(same_routes(first, again));
  verified(net, first);
}
END_TEST

// Different seeds explore differently; over a few seeds some table differs
// (the 16-node block has 2^k equally minimal choices, k in the hundreds).
START_TEST(test_seed_matters) {
  const Network net(Torus::parse("4x2x2x2"));
  const std::vector<NodeId> nodes = block(net.torus(), {4, 2, 2, 1});
  const RouteTable base = genetic(net, nodes, seeded(1));
  verified(net, base);
  bool differs = false;
  for (std::uint64_t seed = 2; seed <= 4 && !differs; ++seed) {
    const RouteTable other = genetic(net, nodes, seeded(seed));
    verified(net, other);
    differs = !same_routes(base, other);
  }
  ck_assert(differs);
}
END_TEST

// Paper, Table 2: genetic reaches 4 on the 8-node block; we accept 5.
START_TEST(test_desmos_eight) {
  const Network net(Torus::parse("4x2x2x2"));
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const VerifyReport report = verified(net, genetic(net, block(net.torus(), {4, 2, 1, 1}), seeded(seed)));
    ck_assert_uint_le(report.metrics.max_gamma, 5);
    ck_assert_uint_eq(report.non_minimal, 0);
  }
}
END_TEST

// Complete, encodable, minimal tables on the whole machine.  With no
// generation the result is the best of 100 random chromosomes (max gamma 21
// for seed 3); evolution must improve its sigma(4) (elitism alone only keeps
// it) and brings max gamma to 18 (measured; the paper's genetic got 27).
START_TEST(test_whole_machine_evolves) {
  const Network net(Torus::parse("4x2x2x2"));
  const std::vector<NodeId> all = all_nodes(net.torus());
  const VerifyReport evolved = verified(net, genetic(net, all, seeded(3)));
  ck_assert_uint_eq(evolved.non_minimal, 0);
  ck_assert_uint_le(evolved.metrics.max_gamma, 19);

  GeneratorOptions none = seeded(3);
  none.extra["generations"] = "0";
  const VerifyReport random = verified(net, genetic(net, all, none));
  ck_assert(evolved.metrics.sigma4 < random.metrics.sigma4);
  ck_assert_uint_ge(random.metrics.max_gamma, 20);
}
END_TEST

// A failed router: the remaining nodes are still routed, some by detours.
START_TEST(test_failed_router) {
  Network net(Torus::parse("4x4"));
  net.fail_node(5);
  const VerifyReport report = verified(net, genetic(net, live_nodes(net), seeded(3)));
  ck_assert(report.non_minimal > 0);
}
END_TEST

START_TEST(test_options) {
  ck_assert_std_str_eq(option_error("population", "1"),
                       "genetic: option 'population' expects an integer from 2 to 100000, got '1'");
  ck_assert_std_str_eq(option_error("mutation", "0.5x"),
                       "genetic: option 'mutation' expects a number from 0 to 1, got '0.5x'");
  ck_assert_std_str_eq(option_error("stall", "many"),
                       "genetic: option 'stall' expects an integer from 1 to 100000000, got 'many'");
  ck_assert_std_str_eq(option_error("variants", "300"),
                       "genetic: option 'variants' expects an integer from 1 to 255, got '300'");
  ck_assert_std_str_eq(option_error("population", "10"), "no error");
}
END_TEST

// Tuned-down settings still give a verified table, and `variants: 1` leaves
// only the first candidate of every pair (nothing to search).
START_TEST(test_small_settings) {
  const Network net(Torus::parse("4x4"));
  const std::vector<NodeId> all = all_nodes(net.torus());
  GeneratorOptions options = seeded(11);
  options.extra = {{"population", "6"}, {"mutation", "0.1"}, {"generations", "5"}, {"stall", "2"}};
  verified(net, genetic(net, all, options));

  options.extra = {{"variants", "1"}};
  const RouteTable first_only = genetic(net, all, options);
  verified(net, first_only);
  const TurnRules rules(net);
  const CandidateSet set(net, rules, all, 1);
  for (std::size_t s = 0; s < all.size(); ++s)
    for (std::size_t d = 0; d < all.size(); ++d)
      if (s != d) ck_assert(first_only.route(s, d).hops == set.hops(set.pair(s, d), 0));
}
END_TEST

int main() {
  Suite* s = suite_create("genetic");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_same_seed_same_table);
  tcase_add_test(tc, test_seed_matters);
  tcase_add_test(tc, test_desmos_eight);
  tcase_add_test(tc, test_whole_machine_evolves);
  tcase_add_test(tc, test_failed_router);
  tcase_add_test(tc, test_options);
  tcase_add_test(tc, test_small_settings);
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
