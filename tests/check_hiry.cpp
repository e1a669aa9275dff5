// HiRy (Kawano et al.): the worked examples of the theory (Sec. II and
// III-D) as permitted-turn sets, Alg. 2's partitions (Sec. IV-B, Fig. 9),
// and the hiry generator end to end through both verifiers.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "angara/multipath.hpp"
#include "angara/network.hpp"
#include "routing/check/multipath_verifier.hpp"
#include "routing/check/verifier.hpp"
#include "routing/common/regions.hpp"
#include "routing/generator.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using angara_test::error_message;
using angara_test::node_at;

namespace {

// The eight compass directions of a 2D mesh with diagonal links, X east, Y north.
const Region N{{0, 1}}, NE{{1, 1}}, E{{1, 0}}, SE{{1, -1}}, S{{0, -1}}, SW{{-1, -1}}, W{{-1, 0}}, NW{{-1, 1}};

std::string name_of(const Region& r) {
  const std::vector<std::pair<Region, std::string>> names = {{N, "N"},  {NE, "NE"}, {E, "E"}, {SE, "SE"},
                                                              {S, "S"},  {SW, "SW"}, {W, "W"}, {NW, "NW"}};
  for (const auto& [region, name] : names)
    if (region == r) return name;
  return r.to_string();
}

// "N->W S->W": the turns among `directions` the order prohibits, sorted.
std::string prohibited(const PartitionOrder& order, const std::vector<Region>& directions, bool right_angles_only) {
  std::set<std::string> turns;
  for (const Region& from : directions)
    for (const Region& to : directions) {
      if (from == to) continue;
      const bool u_turn = to == from.opposite();
      if (right_angles_only && u_turn) continue;
      if (!order.turn_permitted(from, 0, to, 0)) turns.insert(name_of(from) + "->" + name_of(to));
    }
  std::string out;
  for (const std::string& turn : turns) out += (out.empty() ? "" : " ") + turn;
  return out;
}

}  // namespace

// Sec. II, Fig. 1: West-First as two partitions, {W} then {N, E, S}, the
// vertical channels of the second ordered (S, N) (Lemma 2).  The 90-degree
// turns it prohibits are exactly West-First's, N->W and S->W; of the
// 180-degree turns it permits W->E (a transition) and S->N (Lemma 2), and
// prohibits E->W and N->S.
START_TEST(test_west_first) {
  const Partition west{{W}, 0, -1, 0};
  const Partition rest{{N, E, S}, 0, /*complete_axis=*/1, /*first_sign=*/-1};
  ck_assert_std_str_eq(hiry_condition_violation({west, rest}), "");
  const PartitionOrder order({west, rest});
  const std::vector<Region> compass = {N, E, S, W};
  const std::string right_angles = prohibited(order, compass, true);
  ck_assert_std_str_eq(right_angles, "N->W S->W");
  const std::string all_turns = prohibited(order, compass, false);
  ck_assert_std_str_eq(all_turns, "E->W N->S N->W S->W");
  // Without Lemma 2's order the second partition breaks the theorem.
  const Partition unordered{{N, E, S}, 0, 1, 0};
  const std::string violation = hiry_condition_violation({west, unordered});
  ck_assert_msg(violation.find("180-degree turn") != std::string::npos, "%s", violation.c_str());
  // {N, E, S, W} in one partition has both signs on X and Y: not Lemma 1.
  const std::string lemma1 = hiry_condition_violation({Partition{{N, E, S, W}, 0, 0, 1}});
  ck_assert_msg(lemma1.find("Lemma 1") != std::string::npos, "%s", lemma1.c_str());
  // In the other order ({N, E, S} then {W}, West-Last) a packet turns
  // west last: W->N and W->S are the prohibited 90-degree turns.
  const PartitionOrder reversed({rest, west});
  const std::string reversed_turns = prohibited(reversed, compass, true);
  ck_assert_std_str_eq(reversed_turns, "W->N W->S");
}
END_TEST

// Sec. III-D, Fig. 8: South-Last with diagonal links as two partitions,
// {W, NW, N, NE, E} then {SW, S, SE}, the first ordered E before W along
// its complete axis X.  Permitted: anything from the first partition but
// W->E; from the second only to the second.  So the prohibited turns are
// W->E and the 15 from {SW, S, SE} to {W, NW, N, NE, E}.
START_TEST(test_south_last) {
  const Partition north{{W, NW, N, NE, E}, 0, /*complete_axis=*/0, /*first_sign=*/+1};
  const Partition south{{SW, S, SE}, 0, 0, 0};
  ck_assert_std_str_eq(hiry_condition_violation({north, south}), "");
  const PartitionOrder order({north, south});
  const std::vector<Region> compass = {N, NE, E, SE, S, SW, W, NW};
  std::set<std::string> expected = {"W->E"};
  for (const Region& from : {SW, S, SE})
    for (const Region& to : {W, NW, N, NE, E}) expected.insert(name_of(from) + "->" + name_of(to));
  std::string expected_text;
  for (const std::string& turn : expected) expected_text += (expected_text.empty() ? "" : " ") + turn;
  const std::string got = prohibited(order, compass, false);
  ck_assert_std_str_eq(got, expected_text);
  ck_assert_uint_eq(expected.size(), 16);
  // Lemma 1 on both: only X carries both signs.
  ck_assert_uint_eq(axes_with_both_signs(north).size(), 1);
  ck_assert_int_eq(axes_with_both_signs(north).front(), 0);
  ck_assert_int_eq(axes_with_both_signs(south).front(), 0);
}
END_TEST

// Sec. IV-B, Fig. 9a: Alg. 2 for n = 2, complete axis X, the negative X
// direction in the partition of Y+: P1 = {X-Y0, X-Y+, X0Y+, X+Y+},
// P2 = {X+Y0, X+Y-, X0Y-, X-Y-}.  For n = 2..4 and every complete axis:
// 2^(n-1) partitions, every one of the 3^n - 1 regions in exactly one,
// and the theorem's condition holds for them in any order.
START_TEST(test_algorithm_2) {
  // choose(): no boundary regions in 2D; the positive direction goes to
  // partition 1 (index 1 of 2, Y-), the negative to the first left (Y+).
  std::vector<std::size_t> picks = {1, 0};
  std::size_t next = 0;
  const std::vector<Partition> two =
      vc_partitions(2, 0, 0, [&](std::size_t) { return picks.at(next++); });
  ck_assert_uint_eq(two.size(), 2);
  const std::set<Region> p1(two[0].regions.begin(), two[0].regions.end());
  const std::set<Region> p2(two[1].regions.begin(), two[1].regions.end());
  ck_assert(p1 == (std::set<Region>{W, NW, N, NE}));
  ck_assert(p2 == (std::set<Region>{E, SE, S, SW}));

  for (int n = 1; n <= 4; ++n)
    for (int axis = 0; axis < n; ++axis)
      for (std::size_t seed = 0; seed < 5; ++seed) {
        std::size_t state = seed;
        const std::vector<Partition> parts = vc_partitions(n, axis, 0, [&](std::size_t k) { return (state++ * 7) % k; });
        ck_assert_uint_eq(parts.size(), n == 1 ? 2 : std::size_t{1} << (n - 1));
        std::multiset<Region> seen;
        for (const Partition& p : parts) seen.insert(p.regions.begin(), p.regions.end());
        const std::vector<Region> every = all_regions(n);
        ck_assert_uint_eq(seen.size(), every.size());
        for (const Region& r : every) ck_assert_uint_eq(seen.count(r), 1);
        ck_assert_std_str_eq(hiry_condition_violation(parts), "");
        std::vector<Partition> reversed(parts.rbegin(), parts.rend());
        ck_assert_std_str_eq(hiry_condition_violation(reversed), "");
      }
  // The Lemma: 3^n - 1 regions, and region_index is their position.
  ck_assert_uint_eq(all_regions(3).size(), 26);
  const std::vector<Region> four = all_regions(4);
  ck_assert_uint_eq(four.size(), 80);
  for (std::size_t i = 0; i < four.size(); ++i) ck_assert_uint_eq(region_index(four[i]), i);
}
END_TEST

namespace {

MultiPathTable hiry_function(const Network& net, int virtual_channels, RuleSet rules = RuleSet::general) {
  GeneratorOptions options;
  options.rules = rules;
  options.virtual_channels = virtual_channels;
  return *angara_test::generator_named("hiry")->generate_multipath(net, angara_test::live_nodes(net), options);
}

double average_hops(const RouteTable& table) {
  double hops = 0;
  for (std::size_t s = 0; s < table.size(); ++s)
    for (std::size_t d = 0; d < table.size(); ++d)
      if (s != d) hops += static_cast<double>(table.hop_count(s, d));
  return hops / static_cast<double>(table.size() * (table.size() - 1));
}

// The 4x4 torus with four failed cables on which one virtual channel leaves
// pairs unreachable (found by search over random failures; Alg. 4 then
// counts 2).
Network four_by_four_cut() {
  Network net(Torus::parse("4x4"));
  net.fail_link(node_at(net.torus(), "0,1"), *Direction::parse("+Y"));
  net.fail_link(node_at(net.torus(), "3,3"), *Direction::parse("+Y"));
  net.fail_link(node_at(net.torus(), "2,0"), *Direction::parse("+X"));
  net.fail_link(node_at(net.torus(), "3,3"), *Direction::parse("-Y"));
  return net;
}

}  // namespace

// The generator (Sec. IV) on whole and faulty tori: the function passes the
// multi-path verifier, even under flow control none (the theorem: the union
// of every VC's permitted paths has no cycle at all), its alternative 0 is
// the table generate() gives and passes the verifier, every allowed path
// of a pair is as long as alternative 0's (all are the shortest permitted),
// and more virtual channels shorten the paths on 8x8 (1, 2, 4: 4.571,
// 4.381, 4.200 hops on average against 4.063 minimal).
START_TEST(test_generator) {
  Network desmos(Torus::parse("4x2x2x2"));
  desmos.fail_node(desmos.torus().id({2, 1, 0, 1}));
  desmos.fail_link(desmos.torus().id({0, 0, 1, 0}), *Direction::parse("-K"));
  Network eight(Torus::parse("8x8"));
  Network eight_faulty(Torus::parse("8x8"));
  for (const char* router : {"1,1", "3,3", "2,6"}) eight_faulty.fail_node(node_at(eight_faulty.torus(), router));
  const Network four_d(Torus::parse("3x3x3x3"));
  const Network ring(Torus::parse("5"));
  for (const Network* net : std::vector<const Network*>{&desmos, &eight, &eight_faulty, &four_d, &ring})
    for (int vcs : {1, 2}) {
      const MultiPathTable function = hiry_function(*net, vcs);
      const std::string where = net->torus().to_string() + " with " + std::to_string(vcs) + " VCs";
      ck_assert_std_str_eq(function.algorithm, "hiry");
      ck_assert(function.adaptivity == Adaptivity::source);
      for (FlowControl flow : {FlowControl::bubble, FlowControl::none}) {
        VerifyOptions options;
        options.rules = RuleSet::general;
        options.max_virtual_channels = vcs;
        options.flow_control = flow;
        const MultiPathReport report = verify_multipath(*net, function, options);
        ck_assert_msg(report.ok(), "%s: %s", where.c_str(),
                      report.ok() ? "" : report.violations.front().message.c_str());
        ck_assert_uint_eq(report.union_forbidden, 0);
      }
      GeneratorOptions options;
      options.rules = RuleSet::general;
      options.virtual_channels = vcs;
      const RouteTable installed = angara_test::generator_named("hiry")->generate(*net, angara_test::live_nodes(*net), options);
      ck_assert_msg(angara_test::same_routes(installed, function.alternatives.front()), "%s", where.c_str());
      const RouteTable& first = function.alternatives.front();
      for (std::size_t s = 0; s < first.size(); ++s)
        for (std::size_t d = 0; d < first.size(); ++d)
          if (s != d)
            for (const Route& route : function.allowed(s, d)) ck_assert_uint_eq(route.hops.size(), first.hop_count(s, d));
    }
  const double one = average_hops(hiry_function(eight, 1).alternatives.front());
  const double two = average_hops(hiry_function(eight, 2).alternatives.front());
  const double four = average_hops(hiry_function(eight, 4).alternatives.front());
  ck_assert_msg(one > two && two > four && four > 4.063, "%.3f %.3f %.3f", one, two, four);
  ck_assert_double_eq_tol(one, 4.571, 0.001);
  // A pair has several allowed paths on most pairs of a whole 8x8.
  const MultiPathReport report = verify_multipath(eight, hiry_function(eight, 2), [] {
    VerifyOptions o;
    o.rules = RuleSet::general;
    o.max_virtual_channels = 2;
    return o;
  }());
  ck_assert_msg(report.adaptive_pairs > 2000, "%zu", report.adaptive_pairs);
}
END_TEST

// A budget too small is refused naming the virtual channels needed (Alg. 4);
// a cut machine is refused as such; bad options are named.
START_TEST(test_refusals) {
  const Network cut = four_by_four_cut();
  const std::string refused = error_message([&] { hiry_function(cut, 1); });
  ck_assert_std_str_eq(refused, "hiry: the routes need 2 virtual channels, only 1 allowed (routing.virtual_channels)");
  const MultiPathTable two = hiry_function(cut, 2);
  VerifyOptions options;
  options.rules = RuleSet::general;
  options.max_virtual_channels = 2;
  ck_assert(verify_multipath(cut, two, options).ok());

  Network split(Torus::parse("4"));
  split.fail_link(node_at(split.torus(), "0"), *Direction::parse("+X"));
  split.fail_link(node_at(split.torus(), "2"), *Direction::parse("+X"));
  const std::string cut_off = error_message([&] { hiry_function(split, 1); });
  ck_assert_std_str_eq(cut_off, "hiry: no live path from 0 to 1 (and 7 more pairs)");

  GeneratorOptions bad;
  bad.extra["attempts"] = "0";
  const Network whole(Torus::parse("4x4"));
  const std::string message = error_message<std::invalid_argument>(
      [&] { angara_test::generator_named("hiry")->generate_multipath(whole, angara_test::live_nodes(whole), bad); });
  ck_assert_std_str_eq(message, "hiry: option 'attempts' expects an integer from 1 to 64, got '0'");
}
END_TEST

int main() {
  Suite* s = suite_create("hiry");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_west_first);
  tcase_add_test(tc, test_south_last);
  tcase_add_test(tc, test_algorithm_2);
  tcase_add_test(tc, test_generator);
  tcase_add_test(tc, test_refusals);
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
