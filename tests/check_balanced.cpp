// Candidate routes (routing/common/candidates.hpp) and the "balanced" generator
// (routing/generators/balanced.cpp and routing/generators/balanced/).
#include <algorithm>
#include <memory>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "routing/common/candidates.hpp"
#include "routing/common/work_budget.hpp"
#include "routing/generator.hpp"
#include "routing/memory.hpp"
#include "routing/generators/balanced/around_failures.hpp"
#include "routing/generators/balanced/anytime.hpp"
#include "routing/generators/balanced/block.hpp"
#include "routing/generators/balanced/ring_ways.hpp"
#include "routing/generators/balanced/sub_torus.hpp"
#include "routing/check/lp_bound.hpp"
#include "routing/check/metrics.hpp"
#include "routing/check/verifier.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using angara_test::block;
using angara_test::error_message;
using angara_test::generate;
using angara_test::live_nodes;
using angara_test::verified;

namespace {

const Direction kPlusX = Direction::make(0, false), kMinusX = Direction::make(0, true);
const Direction kPlusY = Direction::make(1, false), kMinusY = Direction::make(1, true);

std::string text(const std::vector<Direction>& hops) {
  Route route;
  route.hops = hops;
  return route.to_string();
}

// Routes as "+X +Y | -X -Y" for exact comparison.
std::string joined(const std::vector<std::vector<Direction>>& routes) {
  std::string out;
  for (const auto& hops : routes) {
    if (!out.empty()) out += " | ";
    out += text(hops);
  }
  return out;
}

std::vector<std::vector<Direction>> candidates(const Network& net, const char* from, const char* to) {
  const TurnRules rules(net);
  const Torus& t = net.torus();
  return minimal_routes(net, rules, t.id(t.parse_coord(from)), t.id(t.parse_coord(to)), 64);
}

RouteTable balanced_table(const Network& net, const std::vector<NodeId>& nodes, const GeneratorOptions& options = {}) {
  return generate("balanced", net, nodes, options);
}

// balanced's message for one bad option value (options are read before any
// routing, so a 2-node allocation of a 4x4 will do).
std::string bad_option_message(const std::string& key, const std::string& value) {
  GeneratorOptions bad;
  bad.extra[key] = value;
  const Network net(Torus::parse("4x4"));
  return error_message<std::invalid_argument>([&] { balanced_table(net, {0, 5}, bad); });
}

}  // namespace

// ---------------------------------------------------------------------------
// Candidates

// The all-turn candidates of a healthy machine are written straight into
// the set (CandidateSet::with_all_turns): the same routes in the same order
// as minimal_routes() under all-turn rules, each pair's table route found
// among them, on tori with rings of even and odd size and a doubly cabled
// size-2 dimension.
START_TEST(test_all_turn_candidates_of_healthy_machine) {
  for (const char* sizes : {"4x4x2", "6x5", "4x3x2x2"}) {
    const Network net(Torus::parse(sizes));
    const Torus& t = net.torus();
    std::vector<NodeId> nodes;
    for (NodeId n = 0; n < t.node_count(); ++n)
      if ((n * 7 + 3) % 3 != 0) nodes.push_back(n);
    const TurnRules augmented(net), all_turns(net, TurnRules::Mode::all_turns);
    const CandidateSet narrow(net, augmented, nodes, 64);
    const RouteTable table = dimension_order_table(t, nodes);
    std::vector<std::uint32_t> choice;
    const CandidateSet wide = CandidateSet::with_all_turns(net, narrow, table, 64, &choice);
    ck_assert_uint_eq(choice.size(), wide.pair_count());
    std::size_t turning = 0;
    for (std::size_t s = 0; s < nodes.size(); ++s)
      for (std::size_t d = 0; d < nodes.size(); ++d) {
        if (s == d) continue;
        const std::size_t p = wide.pair(s, d);
        const auto expected = minimal_routes(net, all_turns, nodes[s], nodes[d], 64);
        std::vector<std::vector<Direction>> got;
        for (std::size_t v = 0; v < wide.variants(p); ++v) got.push_back(wide.hops(p, v));
        const std::string want_text = joined(expected), got_text = joined(got);
        ck_assert_std_str_eq(got_text, want_text);
        const std::string own = text(table.route(s, d).hops), chosen = text(wide.hops(p, choice[p]));
        ck_assert_std_str_eq(chosen, own);
        turning += expected.size() > 1 ? 1 : 0;
      }
    ck_assert_uint_gt(turning, 0);
  }
}
END_TEST

// append_minimal_route_channels() stores the routes of pair after pair
// flat: each pair's are minimal_routes()' own, walked to channels, in the
// same order, the cap counted per pair, and a route of one pair is not
// taken for a repeat of another's.
START_TEST(test_minimal_route_channels_appended) {
  Network net(Torus::parse("4x4x3"));
  const Torus& t = net.torus();
  net.fail_node(t.id(t.parse_coord("1,1,0")));
  const TurnRules all_turns(net, TurnRules::Mode::all_turns);
  std::vector<ChannelId> channels;
  std::vector<std::size_t> bounds{0};
  std::size_t pairs = 0, several = 0;
  for (const auto& [from, to] : std::vector<std::pair<const char*, const char*>>{
           {"0,0,0", "2,2,1"}, {"0,0,0", "2,2,1"}, {"0,1,0", "2,1,0"}, {"3,3,2", "1,1,1"}, {"0,0,0", "1,0,0"}}) {
    const NodeId src = t.id(t.parse_coord(from)), dst = t.id(t.parse_coord(to));
    for (std::size_t cap : {std::size_t{64}, std::size_t{2}}) {
      const std::size_t before = bounds.size() - 1;
      const std::size_t added = append_minimal_route_channels(net, all_turns, src, dst, cap, channels, bounds);
      const auto expected = minimal_routes(net, all_turns, src, dst, cap);
      ck_assert_uint_eq(added, expected.size());
      ck_assert_uint_eq(bounds.size() - 1, before + added);
      for (std::size_t k = 0; k < added; ++k)
        ck_assert(std::vector<ChannelId>(channels.begin() + static_cast<std::ptrdiff_t>(bounds[before + k]),
                                         channels.begin() + static_cast<std::ptrdiff_t>(bounds[before + k + 1])) ==
                  route_channels(t, src, expected[k]));
      ++pairs;
      several += added > 2 ? 1 : 0;
    }
  }
  ck_assert_uint_eq(pairs, 10);
  ck_assert_uint_gt(several, 0);
  ck_assert_uint_eq(channels.size(), bounds.back());
}
END_TEST

// The long way round rings: after a pair's minimal routes, its pure DOR
// routes of the other sign choices at most `extra_hops` longer, X's sign
// changing fastest; a live channel on every hop.
START_TEST(test_long_way_dor_routes) {
  Network net(Torus::parse("8x4"));
  const Torus& t = net.torus();
  const auto id = [&](const char* c) { return t.id(t.parse_coord(c)); };
  const std::vector<NodeId> nodes{id("0,0"), id("3,1"), id("4,2"), id("6,3")};
  const CandidateSet minimal(net, TurnRules(net), nodes, 64);
  const auto long_ways = [&](const CandidateSet& set, const char* from, const char* to) {
    const auto index = [&](const char* c) { return std::size_t(std::find(nodes.begin(), nodes.end(), id(c)) - nodes.begin()); };
    const std::size_t p = set.pair(index(from), index(to));
    std::vector<std::vector<Direction>> routes;
    for (std::size_t v = minimal.variants(p); v < set.variants(p); ++v) routes.push_back(set.hops(p, v));
    for (std::size_t v = 0; v < minimal.variants(p); ++v) ck_assert(set.hops(p, v) == minimal.hops(p, v));
    return joined(routes);
  };
  const CandidateSet longer = CandidateSet::with_long_way_dor(net, minimal, 2);
  // X 3 the short way (5 the long), Y 1 (3): each flipped alone; both is 4 longer.
  ck_assert_std_str_eq(long_ways(longer, "0,0", "3,1"), "+Y -X -X -X -X -X | +X +X +X -Y -Y -Y");
  // X 4 is a tie (both ways minimal already), Y 2 too: nothing longer.
  ck_assert_std_str_eq(long_ways(longer, "0,0", "4,2"), "");
  // X 6 (2 the short way, -X: the long way is 4 longer), Y 3 (1, -Y: 2).
  ck_assert_std_str_eq(long_ways(longer, "0,0", "6,3"), "+Y +Y +Y -X -X");
  ck_assert_std_str_eq(long_ways(CandidateSet::with_long_way_dor(net, minimal, 4), "0,0", "6,3"),
                       "+Y +Y +Y -X -X | +X +X +X +X +X +X -Y");
  // Found once, appended to two sets of the allocation: the same routes.
  const CandidateSet::LongWayRoutes routes = CandidateSet::long_way_dor_routes(net, minimal, 2);
  const CandidateSet again = CandidateSet::with_routes_after(minimal, routes);
  ck_assert_uint_eq(again.route_count(), longer.route_count());
  for (std::size_t p = 0; p < again.pair_count(); ++p)
    for (std::size_t v = 0; v < again.variants(p); ++v) ck_assert(again.hops(p, v) == longer.hops(p, v));
  const CandidateSet other(net, TurnRules(net), {id("0,0"), id("1,1")}, 64);
  ck_assert_std_str_eq(error_message<std::logic_error>([&] { CandidateSet::with_routes_after(other, routes); }),
                       "long-way routes of another allocation");
  // A failed cable on the long way: that route is left out.
  Network cut(Torus::parse("8x4"));
  cut.fail_link(id("6,1"), Direction::make(0, true));
  const CandidateSet cut_minimal(cut, TurnRules(cut), nodes, 64);
  const CandidateSet cut_longer = CandidateSet::with_long_way_dor(cut, cut_minimal, 2);
  const std::size_t p = cut_minimal.pair(0, 1);
  ck_assert_uint_eq(cut_longer.variants(p) - cut_minimal.variants(p), 1);
  ck_assert_std_str_eq(text(cut_longer.hops(p, cut_longer.variants(p) - 1)), "+X +X +X -Y -Y -Y");
}
END_TEST

START_TEST(test_tied_ring_signs) {
  // 4x4 from (0,0) to (2,2): both dimensions are tied at distance 2, so four
  // sign choices, X slowest, + before -, each in DOR.  Without faults no
  // turn is admissible, so there are no FS/LS variants.
  const Network net(Torus::parse("4x4"));
  ck_assert_uint_eq(TurnRules(net).turn_count(), 0);
  ck_assert_std_str_eq(joined(candidates(net, "0,0", "2,2")),
                       "+X +X +Y +Y | +X +X -Y -Y | +Y +Y -X -X | -X -X -Y -Y");
  // Distance 1 and 3 are not tied: one sign each.
  ck_assert_std_str_eq(joined(candidates(net, "0,0", "1,3")), "+X -Y");
  ck_assert_std_str_eq(joined(candidates(net, "0,0", "2,1")), "+X +X +Y | +Y -X -X");
  // An odd ring never ties.
  ck_assert_std_str_eq(joined(candidates(Network(Torus::parse("5x3")), "0,0", "2,1")), "+X +X +Y");
}
END_TEST

START_TEST(test_two_cables) {
  // In a size-2 dimension +D and -D are two cables to the same node.
  const Network net(Torus::parse("2x2"));
  ck_assert_std_str_eq(joined(candidates(net, "0,0", "1,0")), "+X | -X");
  ck_assert_std_str_eq(joined(candidates(net, "0,0", "1,1")), "+X +Y | +X -Y | +Y -X | -X -Y");
  // The candidate set keeps them as distinct channels of node (0,0).
  const TurnRules rules(net);
  const CandidateSet set(net, rules, live_nodes(net), 64);
  const std::size_t p = set.pair(0, 1);  // (0,0) -> (1,0)
  ck_assert_uint_eq(set.variants(p), 2);
  ck_assert_uint_eq(*set.channels(p, 0).begin(), Torus::channel(0, kPlusX));
  ck_assert_uint_eq(*set.channels(p, 1).begin(), Torus::channel(0, kMinusX));
  ck_assert(set.minimal(p));
  ck_assert_uint_eq(set.find(p, parse_hops("-X")), 1);
  ck_assert_uint_eq(set.find(p, parse_hops("+Y")), CandidateSet::npos);
}
END_TEST

START_TEST(test_dead_link_removes_sign) {
  // The +X cable of (0,0) in a 4x4 is gone: (0,0) -> (2,0) must go -X -X.
  Network net(Torus::parse("4x4"));
  net.fail_link(net.torus().id({0, 0, 0, 0}), kPlusX);
  ck_assert_std_str_eq(joined(candidates(net, "0,0", "2,0")), "-X -X");
  // Through the far end of the dead cable as well: (3,0) -> (1,0).
  ck_assert_std_str_eq(joined(candidates(net, "3,0", "1,0")), "-X -X");
}
END_TEST

START_TEST(test_last_step_variant) {
  // 4x4 with the -Y and -X cables of a = (1,1) failed.  From v = (2,1) the
  // channel (v, -X) enters a, where only -X / -Y could continue DOR: both are
  // dead, so B(v, -X) = {-X} and the Last Step turn (w, -Y) -> (v, -X) with
  // w = (2,2) closes no cycle (Theorem 2).  So (2,2) -> (1,1) has the DOR
  // route -X -Y and the LS variant -Y -X.
  Network net(Torus::parse("4x4"));
  const Torus& t = net.torus();
  const NodeId a = t.id({1, 1, 0, 0});
  net.fail_link(a, kMinusY);
  net.fail_link(a, kMinusX);
  const TurnRules rules(net);
  ck_assert(rules.turn_allowed(Torus::channel(t.id({2, 2, 0, 0}), kMinusY), kMinusX));
  ck_assert_std_str_eq(joined(candidates(net, "2,2", "1,1")), "-X -Y | -Y -X");
}
END_TEST

START_TEST(test_first_step_variant) {
  // 4x4 with the +Y and +X cables of b = (2,1) failed.  From u = (1,1) the
  // channel (u, +X) enters b, where no positive direction other than -X's
  // opposite continues: B(u, +X) holds +X and negatives only, so the First
  // Step turn (s, +Y) -> (u, +X) with s = (1,0) is admitted.
  // (1,0) -> (2,1): DOR +X +Y (via (2,0) and b's -Y cable) and FS +Y +X
  // (via (1,1) and b's -X cable).
  Network net(Torus::parse("4x4"));
  const Torus& t = net.torus();
  const NodeId b = t.id({2, 1, 0, 0});
  net.fail_link(b, kPlusY);
  net.fail_link(b, kPlusX);
  const TurnRules rules(net);
  ck_assert(rules.turn_allowed(Torus::channel(t.id({1, 0, 0, 0}), kPlusY), kPlusX));
  ck_assert_std_str_eq(joined(candidates(net, "1,0", "2,1")), "+X +Y | +Y +X");
  // The balanced table over the whole machine uses only these turns.
  verified(net, balanced_table(net, live_nodes(net)));
}
END_TEST

START_TEST(test_detour_when_no_minimal_route) {
  // The cable (0,0) +X is the only minimal route to (1,0); the FS detour
  // +Y +X -Y needs the turn (0,0)+Y -> (0,1)+X, which is not admissible
  // ((0,1)+X still reaches +Y at (1,1)).  The shortest encodable route left
  // is around the ring: -X -X -X.
  Network net(Torus::parse("4x4"));
  const Torus& t = net.torus();
  const NodeId origin = t.id({0, 0, 0, 0}), east = t.id({1, 0, 0, 0});
  net.fail_link(origin, kPlusX);
  const TurnRules rules(net);
  ck_assert(minimal_routes(net, rules, origin, east, 64).empty());
  const ShortestRouteSearch search(net, rules, origin);
  ck_assert_int_eq(search.length(east), 3);
  ck_assert_std_str_eq(joined(search.routes(east, 8)), "-X -X -X");
  ck_assert_int_eq(search.length(t.id({0, 1, 0, 0})), 1);

  const CandidateSet set(net, rules, {origin, east}, 64);
  ck_assert(!set.minimal(set.pair(0, 1)));
  ck_assert_std_str_eq(text(set.hops(set.pair(0, 1), 0)), "-X -X -X");
  ck_assert_std_str_eq(text(set.hops(set.pair(1, 0), 0)), "+X +X +X");
}
END_TEST

START_TEST(test_disconnected_pair_throws) {
  Network net(Torus::parse("3x3"));
  const Torus& t = net.torus();
  const NodeId lonely = t.id({1, 1, 0, 0});
  for (int rank = 0; rank < kDirectionCount; ++rank)
    if (t.direction_present(Direction(rank))) net.fail_link(lonely, Direction(rank));
  const TurnRules rules(net);
  ck_assert_std_str_eq(error_message([&] { CandidateSet(net, rules, {t.id({0, 0, 0, 0}), lonely}, 64); }),
                       "no deadlock-free Angara-encodable route from 0,0 to 1,1");
}
END_TEST

// ---------------------------------------------------------------------------
// Balanced generator

// Max gamma on the Desmos blocks (two cables in every size-2 dimension; doc/model.md,
// "Reference numbers") equals the per-dimension lower bound.
START_TEST(test_desmos_blocks) {
  const Network net(Torus::parse("4x2x2x2"));
  const Torus& t = net.torus();
  const struct {
    Coord extent;
    std::uint64_t max_gamma;
  } rows[] = {{{2, 1, 1, 1}, 1}, {{4, 1, 1, 1}, 2}, {{4, 2, 1, 1}, 4}, {{4, 2, 2, 1}, 8}, {{4, 2, 2, 2}, 16}};
  for (const auto& row : rows) {
    const RouteTable table = balanced_table(net, block(t, row.extent));
    const VerifyReport report = verified(net, table);
    ck_assert_uint_eq(report.metrics.max_gamma, row.max_gamma);
    ck_assert_uint_eq(report.metrics.lower_bound, row.max_gamma);
    ck_assert_uint_eq(report.non_minimal, 0);
    ck_assert_uint_eq(report.fs_ls_routes, 0);
  }
}
END_TEST

// Whole machines: max gamma equals the per-dimension bound worked out by hand.
START_TEST(test_whole_machines_reach_bound) {
  const struct {
    const char* torus;
    std::uint64_t max_gamma;
  } rows[] = {
      // 4x4: per source 4 X hops per row, 16 sources * 16 / 32 X channels = 8.
      {"4x4", 8},
      // 3x3x3: per source 2 hops per dimension per line, 27 * 18 / 54 = 9.
      {"3x3x3", 9},
      // 4x3: X 12 * 12 / 24 = 6; the three displacements (2, y) cannot split
      // evenly by displacement alone (that gives 7), the source parity does.
      {"4x3", 6},
      // 6x3: X 18 * 27 / 36 = 13.5, rounded up.
      {"6x3", 14},
      // 2x2x2: every pair one hop per differing dimension: 8 * 4 / 16 = 2.
      {"2x2x2", 2},
  };
  for (const auto& row : rows) {
    const Network net(Torus::parse(row.torus));
    const VerifyReport report = verified(net, balanced_table(net, live_nodes(net)));
    ck_assert_msg(report.metrics.max_gamma == row.max_gamma, "%s: max gamma %lu, expected %lu", row.torus,
                  static_cast<unsigned long>(report.metrics.max_gamma), static_cast<unsigned long>(row.max_gamma));
    ck_assert_uint_eq(report.metrics.lower_bound, row.max_gamma);
    ck_assert_uint_eq(report.non_minimal, 0);
  }
}
END_TEST

// 3x3x3 has no tied pair: every route is forced and every channel carries 9.
START_TEST(test_forced_routes_uniform) {
  const Network net(Torus::parse("3x3x3"));
  const RouteTable table = balanced_table(net, live_nodes(net));
  verified(net, table);
  const std::vector<std::uint64_t> loads = channel_loads(net, table);
  for (ChannelId c = 0; c < net.torus().channel_slots(); ++c)
    if (net.channel_alive(c)) ck_assert_uint_eq(loads[c], 9);
  const Torus& t = net.torus();
  const std::size_t from = table.index_of(t.id({0, 0, 0, 0}));
  const std::size_t to = table.index_of(t.id({1, 2, 1, 0}));
  ck_assert_std_str_eq(table.route(from, to).to_string(), "+X +Z -Y");
}
END_TEST

START_TEST(test_faulty_machine_routed) {
  // 4x4 without router (1,1): (0,1) -> (1,2) has no usable minimal route
  // (+X +Y crosses (1,1); +Y +X needs an inadmissible First Step turn), and
  // by parity no 3-hop route, so it takes a 4-hop detour such as +Y -X -X -X.
  Network net(Torus::parse("4x4"));
  const Torus& t = net.torus();
  net.fail_node(t.id({1, 1, 0, 0}));
  const RouteTable table = balanced_table(net, live_nodes(net));
  const VerifyReport report = verified(net, table);
  const auto from = table.index_of(t.id({0, 1, 0, 0})), to = table.index_of(t.id({1, 2, 0, 0}));
  ck_assert_uint_eq(table.route(from, to).hops.size(), 4);
  ck_assert(report.non_minimal > 0);
  // Only pairs without a minimal candidate are detoured.
  const TurnRules rules(net);
  const CandidateSet set(net, rules, live_nodes(net), 64);
  std::size_t detoured = 0;
  for (std::size_t p = 0; p < set.pair_count(); ++p)
    if (set.variants(p) > 0 && !set.minimal(p)) ++detoured;
  ck_assert_uint_eq(report.non_minimal, detoured);
}
END_TEST

// Half of a 4x4 (X ring full, Y in {0, 1}) is not a whole sub-torus, so the
// search starts from the greedy stage or from SSSP's table.  The per-dimension
// bound says 4, but 5 is optimal: the 16 Y hops between columns x = 0 -> 1 all
// run in column 1 (+X goes first), those of 1 -> 0 run in column 1 when +Y
// (before -X) and 4 of them must be +Y (distance 1), so column 1's 8 Y
// channels carry 16 + 16 + 4 = 36 > 8 * 4 hops.
//
// That is for DOR routes (turns=off).  With First Steps (the default) the
// pairs 0 -> 1 with a Y hop may go +Y first and +X in column 0, and the
// table reaches the bound 4.
START_TEST(test_start_option) {
  const Network net(Torus::parse("4x4"));
  const std::vector<NodeId> half = block(net.torus(), {4, 2, 1, 1});
  for (const char* start : {"greedy", "sssp", "best"}) {
    GeneratorOptions options;
    options.extra["start"] = start;
    options.extra["turns"] = "off";
    VerifyReport report = verified(net, balanced_table(net, half, options));
    ck_assert_uint_eq(report.metrics.lower_bound, 4);
    ck_assert_uint_eq(report.metrics.max_gamma, 5);
    ck_assert_uint_eq(report.fs_ls_routes, 0);
    options.extra.erase("turns");
    report = verified(net, balanced_table(net, half, options));
    ck_assert_uint_eq(report.metrics.max_gamma, 4);
    ck_assert_uint_gt(report.fs_ls_routes, 0);
  }
  ck_assert_std_str_eq(bad_option_message("start", "random"),
                       "balanced: option 'start' expects greedy, sssp or best, got 'random'");
}
END_TEST

// Sub-allocations use First/Last Step orders where they lower the max load:
// blocks that are not whole sub-tori, against the LP bound
// (routing/check/lp_bound.hpp) and against the DOR routes alone (turns=off).
// Every table verifies (deadlock-free under bubble, encodable, minimal), and
// these reach the rounded-up LP bound: no table of minimal encodable routes
// does better.
START_TEST(test_turns_on_sub_allocations) {
  const struct {
    const char* torus;
    Coord extent;
    std::uint64_t dor, with_turns;
  } rows[] = {
      {"4x4x4", {2, 2, 2, 1}, 9, 7},   // LP 6.33
      {"4x4x4", {2, 2, 4, 1}, 12, 10},  // LP 10
      {"4x4x4", {2, 4, 4, 1}, 18, 16},  // LP 16
      {"8x8", {4, 4, 1, 1}, 28, 22},    // LP 22
      {"4x4x4x4", {2, 2, 2, 2}, 27, 17},  // LP 16.25
  };
  for (const auto& row : rows) {
    const Network net(Torus::parse(row.torus));
    const std::vector<NodeId> nodes = block(net.torus(), row.extent);
    GeneratorOptions off;
    off.extra["turns"] = "off";
    const VerifyReport dor = verified(net, balanced_table(net, nodes, off));
    const VerifyReport turns = verified(net, balanced_table(net, nodes));
    ck_assert_uint_eq(dor.metrics.max_gamma, row.dor);
    ck_assert_uint_eq(dor.fs_ls_routes, 0);
    ck_assert_uint_eq(turns.metrics.max_gamma, row.with_turns);
    ck_assert_uint_eq(turns.metrics.max_gamma, lp_lower_bound(net, nodes).rounded());  // at the LP bound
    ck_assert_uint_gt(turns.fs_ls_routes, 0);
    ck_assert_uint_eq(turns.non_minimal, 0);
  }
  ck_assert_std_str_eq(bad_option_message("turns", "maybe"), "balanced: option 'turns' expects on or off, got 'maybe'");
}
END_TEST

// Scattered halves, where the deadlock rule keeps the minimal routes above
// what the same search reaches without it: balanced then takes pure DOR
// routes the long way round rings, at most `long_way` (default 2) hops
// longer, and only as far as the deadlock-free-less search got.  Blocks
// reach it with minimal routes and stay minimal (test above).
START_TEST(test_long_way_on_scattered_sets) {
  const struct {
    const char* torus;
    unsigned multiplier;
    std::uint64_t minimal, long_way, lp;
  } rows[] = {
      {"6x8", 37, 16, 15, 14},
      {"8x8", 37, 24, 21, 19},
      {"5x6x3", 41, 20, 18, 18},
  };
  for (const auto& row : rows) {
    const Network net(Torus::parse(row.torus));
    const Torus& t = net.torus();
    std::vector<NodeId> nodes;  // a fixed scattered half
    for (NodeId n = 0; n < t.node_count(); ++n)
      if ((n * row.multiplier + 11) % t.node_count() < t.node_count() / 2) nodes.push_back(n);
    GeneratorOptions minimal;
    minimal.extra["long_way"] = "0";
    const VerifyReport plain = verified(net, balanced_table(net, nodes, minimal));
    const RouteTable table = balanced_table(net, nodes);
    const VerifyReport longer = verified(net, table);
    const LpBound lp = lp_lower_bound(net, nodes);
    ck_assert_uint_eq(plain.metrics.max_gamma, row.minimal);
    ck_assert_uint_eq(plain.non_minimal, 0);
    ck_assert_uint_eq(longer.metrics.max_gamma, row.long_way);
    ck_assert_uint_gt(longer.non_minimal, 0);
    ck_assert(lp.solved());
    ck_assert_uint_eq(lp.rounded(), row.lp);
    // Every detour is a pure DOR route at most two hops longer than minimal.
    for (std::size_t s = 0; s < nodes.size(); ++s)
      for (std::size_t d = 0; d < nodes.size(); ++d) {
        if (s == d) continue;
        const auto route = table.route(s, d);
        const int distance = t.distance(nodes[s], nodes[d]);
        ck_assert_int_le(static_cast<int>(route.hops.size()), distance + 2);
        if (static_cast<int>(route.hops.size()) > distance)
          for (std::size_t i = 1; i < route.hops.size(); ++i) ck_assert(!(route.hops[i] < route.hops[i - 1]));
      }
  }
  ck_assert_std_str_eq(bad_option_message("long_way", "far"),
                       "balanced: option 'long_way' expects off or an integer from 0 to 99, got 'far'");
}
END_TEST

// The time budget (routing.time_budget) cuts the refinement in steps of
// work, not seconds: the same budget gives the same table every time (each
// node of a job computes it alone), a verified one, no better than the
// unlimited refinement and no worse than none; the cut stage is named.
START_TEST(test_work_budget_cuts_the_refinement) {
  const Network net(Torus::parse("8x8"));
  const Torus& t = net.torus();
  std::vector<NodeId> nodes;  // the scattered half of test_long_way_on_scattered_sets
  for (NodeId n = 0; n < t.node_count(); ++n)
    if ((n * 37 + 11) % t.node_count() < t.node_count() / 2) nodes.push_back(n);
  GeneratorOptions unlimited;
  unlimited.budget = std::make_shared<WorkBudget>();
  const RouteTable full = balanced_table(net, nodes, unlimited);
  ck_assert(unlimited.budget->cut().empty());
  ck_assert_uint_gt(unlimited.budget->used(), 0);
  GeneratorOptions off;
  off.extra["turns"] = "off";
  const std::uint64_t none = verified(net, balanced_table(net, nodes, off)).metrics.max_gamma;

  const auto with_budget = [&](std::uint64_t steps, std::vector<std::string>* cut) {
    GeneratorOptions options;
    options.budget = std::make_shared<WorkBudget>(steps);
    RouteTable table = balanced_table(net, nodes, options);
    *cut = options.budget->cut();
    return table;
  };
  std::vector<std::string> cut, again_cut;
  const std::uint64_t small = unlimited.budget->used() / 20;
  const RouteTable cut_table = with_budget(small, &cut);
  const RouteTable again = with_budget(small, &again_cut);
  ck_assert_msg(!cut.empty(), "a twentieth of the work cut nothing");
  ck_assert(cut == again_cut);
  for (std::size_t s = 0; s < nodes.size(); ++s)
    for (std::size_t d = 0; d < nodes.size(); ++d)
      if (s != d) ck_assert(cut_table.route(s, d).hops == again.route(s, d).hops);
  const std::uint64_t cut_gamma = verified(net, cut_table).metrics.max_gamma;
  ck_assert_uint_le(verified(net, full).metrics.max_gamma, cut_gamma);
  ck_assert_uint_le(cut_gamma, none);
  // No work at all, or less than the stages every searched table needs
  // (balanced::kFixedWorkPerPair a pair): a plain direction-order table,
  // neither stage run.  With no work, every ring tie the positive way; with
  // enough for counting both tables' loads (balanced::tie_choice_work) and
  // more, the direction-order table of some ring ties (per dimension and
  // source parity) no worse than the lower of that and the table with ties
  // split by the source's parity.
  const RouteTable positive = dimension_order_table(t, nodes);
  const RouteTable split = dimension_order_table(t, nodes, /*split_ties=*/true);
  const std::uint64_t positive_gamma = verified(net, positive).metrics.max_gamma;
  const std::uint64_t split_gamma = verified(net, split).metrics.max_gamma;
  ck_assert_uint_ne(positive_gamma, split_gamma);  // else the choice below is not tested
  for (const std::uint64_t steps : {std::uint64_t{1}, balanced::kFixedWorkPerPair * nodes.size() * nodes.size() - 1}) {
    std::vector<std::string> nothing;
    const RouteTable plain = with_budget(steps, &nothing);
    verified(net, plain);
    const bool chose = steps > 1;
    ck_assert_uint_eq(nothing.size(), chose ? 2 : 3);
    if (!chose) {
      const std::string ties = nothing[0];
      ck_assert_std_str_eq(ties, "choice of the ring ties");
    }
    // With the budget for it, the pairs take other ways round their rings
    // after the choice of the ties (balance_ring_ways).
    const std::string first = nothing[chose ? 0 : 1], second = nothing[chose ? 1 : 2];
    ck_assert_std_str_eq(first, chose ? "load balancing (ring ways only)" : "load balancing");
    ck_assert_std_str_eq(second, "First/Last Step refinement");
    const auto same_routes = [&](const RouteTable& table, const RouteTable& dor) {
      for (std::size_t s = 0; s < nodes.size(); ++s)
        for (std::size_t d = 0; d < nodes.size(); ++d)
          if (s != d && table.route(s, d).hops != dor.route(s, d).hops) return false;
      return true;
    };
    if (!chose) {
      ck_assert(same_routes(plain, positive));
      continue;
    }
    ck_assert_uint_lt(verified(net, plain).metrics.max_gamma, std::min(positive_gamma, split_gamma));
    // The start alone, on a budget for the first two tables' counts and no
    // more: the ring ways do not run, and the table is the direction-order
    // table of some ring ties.
    RouteTable tied = start_route_table("balanced", net, nodes);
    WorkBudget ties_only(nodes.size() * nodes.size() / 8 + balanced::tie_choice_work(t) + 1);
    balanced::RingWaysOutcome outcome = balanced::RingWaysOutcome::converged;
    ck_assert(balanced::direction_order_start(net, tied, FlowControl::bubble, &ties_only, 2, &outcome));
    ck_assert(outcome == balanced::RingWaysOutcome::not_run);
    bool found = false;  // the ties of X and Y: each way per source parity
    for (unsigned ways = 0; ways < 16 && !found; ++ways) {
      RingTies ties;
      for (int dim = 0; dim < 2; ++dim)
        ties.negative[static_cast<std::size_t>(dim)] = {((ways >> (2 * dim)) & 1u) != 0, ((ways >> (2 * dim + 1)) & 1u) != 0};
      found = same_routes(tied, dimension_order_table(t, nodes, ties));
    }
    ck_assert_msg(found, "the table is no direction-order table");
    ck_assert_uint_le(verified(net, tied).metrics.max_gamma, std::min(positive_gamma, split_gamma));
  }
  // Just enough for them: the budget cannot pay for the refinement, so the
  // job goes the short way (refine_scattered_intact): the greedy start over
  // the direction-order and long-way DOR routes, whose work leaves too
  // little for the First/Last Step set; a verified table at most what the
  // search over the direction-order routes alone (turns off) reaches
  // under the same budget.
  std::vector<std::string> enough;
  const RouteTable bound_table = with_budget(balanced::kFixedWorkPerPair * nodes.size() * nodes.size(), &enough);
  ck_assert_uint_eq(enough.size(), 1);
  const std::string refined = enough[0];
  ck_assert_std_str_eq(refined, "First/Last Step refinement");
  for (std::size_t s = 0; s < nodes.size(); ++s)
    for (std::size_t d = 0; d < nodes.size(); ++d) {
      if (s == d) continue;
      const auto hops = bound_table.route(s, d).hops;  // pure DOR: directions never go down in DOR order
      for (std::size_t i = 1; i < hops.size(); ++i) ck_assert(!(hops[i] < hops[i - 1]));
    }
  GeneratorOptions dor_only;
  dor_only.extra["turns"] = "off";
  dor_only.budget = std::make_shared<WorkBudget>(balanced::kFixedWorkPerPair * nodes.size() * nodes.size());
  ck_assert_uint_le(verified(net, bound_table).metrics.max_gamma,
                    verified(net, balanced_table(net, nodes, dor_only)).metrics.max_gamma);
  // Room for the First/Last Step set and a search from that start: the
  // search runs (from the short way's start) and lowers the max load.
  std::vector<std::string> some;
  const RouteTable searched_table =
      with_budget(4 * balanced::kTurnSetWorkPerPair * nodes.size() * nodes.size(), &some);
  for (const std::string& stage : some) ck_assert_std_str_eq(stage, "First/Last Step refinement (stopped early)");
  ck_assert_uint_lt(verified(net, searched_table).metrics.max_gamma, verified(net, bound_table).metrics.max_gamma);
  // A budget that pays for the whole refinement does not bind: every stage
  // runs as without one.
  std::vector<std::string> ample;
  const RouteTable ample_table =
      with_budget(balanced::kFullRefinementWorkPerPair * nodes.size() * nodes.size() + unlimited.budget->used(),
                  &ample);
  ck_assert_uint_eq(ample.size(), 0);
  ck_assert_uint_eq(verified(net, ample_table).metrics.max_gamma, verified(net, full).metrics.max_gamma);
}
END_TEST

// A block under a budget too short for the search: its closed form
// (block_table), whose max load on an 8x4 block of 8x8 is 56 (worked out in
// test_block_closed_form); the ring ways lower it given their start, the
// search given the fixed stages.
START_TEST(test_short_budget_takes_block_closed_form) {
  const Network net(Torus::parse("8x8"));
  const std::vector<NodeId> nodes = block(net.torus(), {8, 4, 1, 1});
  GeneratorOptions short_budget;
  short_budget.budget = std::make_shared<WorkBudget>(1000);
  const RouteTable table = balanced_table(net, nodes, short_budget);
  ck_assert_uint_eq(verified(net, table).metrics.max_gamma, 56);
  const std::vector<std::string> cut = short_budget.budget->cut();
  ck_assert_uint_eq(cut.size(), 2);
  const std::string first = cut[0];
  ck_assert_std_str_eq(first, "load balancing");
  GeneratorOptions unlimited;
  unlimited.budget = std::make_shared<WorkBudget>();
  ck_assert_uint_lt(verified(net, balanced_table(net, nodes, unlimited)).metrics.max_gamma, 56);
  // A budget that binds but covers the fixed stages: the refinement runs
  // straight from the closed form and lowers it.
  GeneratorOptions binding;
  binding.budget = std::make_shared<WorkBudget>(2 * balanced::kFixedWorkPerPair * nodes.size() * nodes.size());
  ck_assert_uint_lt(verified(net, balanced_table(net, nodes, binding)).metrics.max_gamma, 56);
  const std::vector<std::string> binding_cut = binding.budget->cut();
  for (const std::string& stage : binding_cut) ck_assert(stage.rfind("load balancing", 0) != 0);
  // A budget below the fixed stages that pays for the ring ways' start:
  // the closed form's ties and pile-up at the arc's end move (the pairs of
  // the top line go the other way round X), every route stays in direction
  // order and inside the block (long ways only round X, the ring it spans
  // whole), and the max load drops below the closed form's.
  GeneratorOptions ring_ways_budget;
  ring_ways_budget.budget = std::make_shared<WorkBudget>(balanced::kFixedWorkPerPair * nodes.size() * nodes.size() - 1);
  const RouteTable moved = balanced_table(net, nodes, ring_ways_budget);
  const VerifyReport moved_report = verified(net, moved);
  ck_assert_uint_lt(moved_report.metrics.max_gamma, 56);
  ck_assert_uint_gt(moved_report.non_minimal, 0);  // long ways round X
  const std::vector<std::string> moved_cut = ring_ways_budget.budget->cut();
  ck_assert_uint_ge(moved_cut.size(), 1);
  const std::string moved_stage = moved_cut[0];
  ck_assert(moved_stage.rfind("load balancing (ring ways only", 0) == 0);
  for (std::size_t s = 0; s < nodes.size(); ++s)
    for (std::size_t d = 0; d < nodes.size(); ++d) {
      if (s == d) continue;
      int previous = -1;
      NodeId at = nodes[s];
      moved.for_each_run(s, d, [&](Direction direction, int hops) {
        ck_assert_int_gt(direction.rank(), previous);
        previous = direction.rank();
        for (int hop = 0; hop < hops; ++hop) {
          at = net.torus().neighbor(at, direction);
          ck_assert_msg(std::binary_search(nodes.begin(), nodes.end(), at), "route %zu -> %zu leaves the block", s, d);
        }
      });
      ck_assert_uint_le(moved.hop_count(s, d), net.torus().distance(nodes[s], nodes[d]) + 2);
    }
  // A 4x4 block (two arcs of 4) of a larger torus with a failed router
  // elsewhere: the closed form still applies, its routes stay inside.
  Network faulty(Torus::parse("8x8"));
  faulty.fail_node(faulty.torus().id(faulty.torus().parse_coord("6,6")));
  GeneratorOptions none_left;
  none_left.budget = std::make_shared<WorkBudget>(1);
  const RouteTable small = balanced_table(faulty, block(faulty.torus(), {4, 4, 1, 1}), none_left);
  ck_assert_uint_eq(verified(faulty, small).non_minimal, 0);
  ck_assert_uint_eq(none_left.budget->cut().size(), 2);
}
END_TEST

// A scattered job beside failed routers and a failed cable, under a budget
// below the fixed stages: the direction-order table, verified, where the
// failures leave each route alive; the pairs they cut on live routes
// around them, with the detours' shortening said to be cut.  Given the
// budget to count the stage's graph, the stage shortens detours.
START_TEST(test_short_budget_routes_direction_order_around_failures) {
  Network net(Torus::parse("8x6x4"));
  const Torus& torus = net.torus();
  const NodeId failed_a = torus.id(torus.parse_coord("3,2,1")), failed_b = torus.id(torus.parse_coord("6,4,3"));
  net.fail_node(failed_a);
  net.fail_node(failed_b);
  net.fail_link(torus.id(torus.parse_coord("1,1,0")), Direction::make(1, false));
  std::vector<NodeId> nodes;
  for (NodeId node = 0; node < torus.node_count(); ++node)
    if (node % 3 != 0 && node != failed_a && node != failed_b) nodes.push_back(node);
  const RouteTable dor = dimension_order_table(torus, nodes);
  const auto is_alive = [&](const RouteTable& table, std::size_t s, std::size_t d) {
    bool alive = true;
    table.walk(s, d, torus, [&](NodeId at, Direction hop) { alive = alive && net.channel_alive(at, hop); });
    return alive;
  };
  std::size_t cut = 0;
  for (std::size_t s = 0; s < nodes.size(); ++s)
    for (std::size_t d = 0; d < nodes.size(); ++d)
      if (s != d && !is_alive(dor, s, d)) ++cut;
  ck_assert_uint_gt(cut, 0);

  GeneratorOptions short_budget;
  short_budget.budget = std::make_shared<WorkBudget>(1);  // spent at once: positive ties, no detour shortened
  const RouteTable table = balanced_table(net, nodes, short_budget);
  const VerifyReport report = verified(net, table);
  ck_assert_uint_gt(report.non_minimal + report.fs_ls_routes, 0);
  std::size_t kept = 0;
  for (std::size_t s = 0; s < nodes.size(); ++s)
    for (std::size_t d = 0; d < nodes.size(); ++d)
      if (s != d && is_alive(dor, s, d)) {
        ck_assert_msg(table.route(s, d).hops == dor.route(s, d).hops, "pair %zu %zu left its direction-order route", s, d);
        ++kept;
      }
  ck_assert_uint_eq(kept + cut, nodes.size() * (nodes.size() - 1));
  const std::vector<std::string> cut_stages = short_budget.budget->cut();
  ck_assert(std::find_if(cut_stages.begin(), cut_stages.end(), [](const std::string& stage) {
              return stage.rfind("shortening of detours (", 0) == 0;
            }) != cut_stages.end() || report.non_minimal == 0);

  // Enough for the graph (and the ties' count) but still below the fixed stages.
  const std::size_t pairs = nodes.size() * nodes.size();
  GeneratorOptions room;
  room.budget = std::make_shared<WorkBudget>((balanced::kFixedWorkPerPair - 1) * pairs);
  ck_assert(balanced::budget_below_fixed_stages(room.budget.get(), nodes.size()));
  // The cut pairs' detours are shortened; the other pairs may go the
  // long way round a ring now (balance_ring_ways_around; no direction-order
  // table of any ring ties has such a route), in direction order and never
  // over a failure.
  const RouteTable roomy = balanced_table(net, nodes, room);
  // The ring ways balance with the detours already on their channels:
  // 107 here, against 163 for the short budget's table and 123 when the
  // detours were placed after the ring ways.
  ck_assert_uint_le(verified(net, roomy).metrics.max_gamma, 110);
  const auto detours = [&](const RouteTable& routed) {
    std::size_t longer = 0;
    for (std::size_t s = 0; s < nodes.size(); ++s)
      for (std::size_t d = 0; d < nodes.size(); ++d)
        if (s != d && !is_alive(dor, s, d))
          longer += routed.hop_count(s, d) > static_cast<std::size_t>(torus.distance(nodes[s], nodes[d])) ? 1 : 0;
    return longer;
  };
  ck_assert_uint_lt(detours(roomy), detours(table));
  std::size_t moved = 0;
  for (std::size_t s = 0; s < nodes.size(); ++s)
    for (std::size_t d = 0; d < nodes.size(); ++d) {
      if (s == d || !is_alive(dor, s, d)) continue;
      ck_assert(is_alive(roomy, s, d));
      moved += roomy.hop_count(s, d) > static_cast<std::size_t>(torus.distance(nodes[s], nodes[d])) ? 1 : 0;
      int previous = -1;
      roomy.for_each_run(s, d, [&](Direction direction, int) {
        ck_assert_int_gt(direction.rank(), previous);
        previous = direction.rank();
      });
    }
  ck_assert_uint_gt(moved, 0);
}
END_TEST

// On a machine with failures the First/Last Step refinement runs too, over
// the pairs that keep a minimal route, while the pairs that need a
// detour keep the route the checked-turn stage gave them.  A scattered 16
// nodes of a 4x4x4 with router 1,0,0 failed: 10 pairs have no minimal route
// in the augmented candidate set (the checked-turn stage finds minimal ones
// for 8, two stay detours).  Without the refinement (turns=off) the max load
// is 6, with it 5, the
// rounded LP bound over the minimal routes (the LP leaves the two detour
// pairs out; the table routes every other pair minimally, so it bounds the
// table).
START_TEST(test_turns_on_faulty_machine) {
  Network net(Torus::parse("4x4x4"));
  net.fail_node(1);
  const std::vector<NodeId> nodes = {0, 3, 5, 9, 12, 17, 22, 27, 30, 33, 38, 41, 44, 50, 55, 61};
  GeneratorOptions off;
  off.extra["turns"] = "off";
  const RouteTable before = balanced_table(net, nodes, off);
  const RouteTable after = balanced_table(net, nodes);
  const VerifyReport plain = verified(net, before);
  const VerifyReport refined = verified(net, after);
  ck_assert_uint_eq(plain.metrics.max_gamma, 6);
  ck_assert_uint_eq(refined.metrics.max_gamma, 5);
  ck_assert_uint_eq(refined.metrics.max_gamma, lp_lower_bound(net, nodes).rounded());
  ck_assert_uint_gt(refined.fs_ls_routes, plain.fs_ls_routes);
  ck_assert_uint_eq(plain.non_minimal, 2);
  ck_assert_uint_eq(refined.non_minimal, 2);
  // The pairs without a minimal candidate keep their routes.
  const CandidateSet set(net, TurnRules(net), nodes, 64, /*allow_unroutable=*/true);
  std::size_t kept = 0;
  for (std::size_t s = 0; s < nodes.size(); ++s)
    for (std::size_t d = 0; d < nodes.size(); ++d)
      if (s != d && !set.minimal(set.pair(s, d))) {
        ck_assert_std_str_eq(after.route(s, d).to_string(), before.route(s, d).to_string());
        ++kept;
      }
  ck_assert_uint_eq(kept, 10);
}
END_TEST

// The refinement's second start admits the unguarded search's routes into
// the table it started from (repair_deadlocks).  On a faulty machine that
// table holds the checked-turn stage's routes with turns, with which a DOR
// route of another sign choice can close a cycle: it must be checked like
// any other.  On this 6x6 with routers 1,0 and 2,5 failed and 18 scattered
// nodes an unchecked DOR swap would close the cycle the verifier names as
// "turn 3,0 +Y -> 3,1 +X lies on a channel dependency cycle".
START_TEST(test_refinement_repair_on_faulty_machine) {
  Network net(Torus::parse("6x6"));
  const Torus& t = net.torus();
  net.fail_node(angara_test::node_at(t, "1,0"));
  net.fail_node(angara_test::node_at(t, "2,5"));
  std::vector<NodeId> nodes;
  for (const char* coord : {"2,0", "3,0", "4,0", "0,1", "1,1", "2,1", "1,2", "3,2", "4,2", "5,2", "2,3", "4,4", "5,4",
                            "0,5", "1,5", "3,5", "4,5", "5,5"})
    nodes.push_back(angara_test::node_at(t, coord));
  GeneratorOptions off;
  off.extra["turns"] = "off";
  const VerifyReport plain = verified(net, balanced_table(net, nodes, off));
  const VerifyReport refined = verified(net, balanced_table(net, nodes));
  ck_assert_uint_eq(plain.metrics.max_gamma, 20);
  ck_assert_uint_eq(refined.metrics.max_gamma, 19);
}
END_TEST

// The direct construction of whole fault-free sub-tori (no candidate set)
// gives exactly the table of the candidate path, including the split pure
// classes (4x3, 8x5) and the cases it leaves to the search (6x3, a dead link
// inside the block), with failures elsewhere, and for any thread count.
START_TEST(test_direct_construction_matches_candidates) {
  const struct {
    const char* torus;
    Coord extent;  // the block at the origin; {0,...} = the whole machine
    bool fail_outside;
  } rows[] = {
      {"4x4", {}, false},      {"4x3", {}, false},         {"6x3", {}, false},   {"2x2x2", {}, false},
      {"3x3x3", {}, false},    {"8x5", {}, false},         {"8x4x2", {}, false}, {"4x4x4", {}, false},
      {"4x2x2x2", {4, 2, 1, 1}, false}, {"4x2x2x2", {4, 2, 2, 1}, false}, {"4x4x2", {4, 4, 1, 1}, true},
      {"6x4", {6, 1, 1, 1}, true}, {"8", {}, false},
  };
  GeneratorOptions candidates;
  candidates.extra["construction"] = "candidates";
  for (const auto& row : rows) {
    Network net(Torus::parse(row.torus));
    const Torus& t = net.torus();
    if (row.fail_outside) net.fail_node(t.node_count() - 1);
    const std::vector<NodeId> nodes = row.extent[0] ? block(t, row.extent) : live_nodes(net);
    setenv("ANGARA_THREADS", "2", 1);
    const RouteTable direct = balanced_table(net, nodes);
    unsetenv("ANGARA_THREADS");
    const RouteTable searched = balanced_table(net, nodes, candidates);
    ck_assert_msg(angara_test::same_routes(direct, searched), "%s: the direct construction differs", row.torus);
    verified(net, direct);
  }
  Network broken(Torus::parse("4x4"));
  broken.fail_link(0, kPlusX);
  ck_assert(angara_test::same_routes(balanced_table(broken, live_nodes(broken)),
                                     balanced_table(broken, live_nodes(broken), candidates)));
  ck_assert_std_str_eq(bad_option_message("construction", "fast"),
                       "balanced: option 'construction' expects direct or candidates, got 'fast'");
}
END_TEST

// A block of a larger torus (block_table): its closed form is minimal and
// verified; with turns off the search from it reaches what the search from
// the greedy start does.  A failure inside the block, or an arc long enough
// for minimal routes to leave it, has no closed form.
START_TEST(test_block_closed_form) {
  GeneratorOptions off, candidates_off;
  off.extra["turns"] = "off";
  candidates_off.extra["turns"] = "off";
  candidates_off.extra["construction"] = "candidates";
  const struct {
    const char* torus;
    Coord extent;
  } rows[] = {{"8x8x4", {8, 3, 2, 1}}, {"8x8", {4, 8, 1, 1}}, {"8x8x8", {8, 4, 4, 1}}, {"6x6", {6, 3, 1, 1}}};
  for (const auto& row : rows) {
    const Network net(Torus::parse(row.torus));
    const std::vector<NodeId> nodes = block(net.torus(), row.extent);
    const RouteTable direct = balanced_table(net, nodes, off);
    const RouteTable searched = balanced_table(net, nodes, candidates_off);
    const VerifyReport a = verified(net, direct), b = verified(net, searched);
    ck_assert_msg(a.metrics.max_gamma == b.metrics.max_gamma, "%s: max load %llu, search %llu", row.torus,
                  static_cast<unsigned long long>(a.metrics.max_gamma),
                  static_cast<unsigned long long>(b.metrics.max_gamma));
    ck_assert_uint_eq(a.non_minimal, 0);
    // With turns on the refinement starts from the closed form.
    verified(net, balanced_table(net, nodes));
  }
  // 8x4 of 8x8: X a ring of 8 (ties split by source parity), Y an arc of 4
  // whose middle cut carries 16 sources times 16 targets over 8 lines, 32 a
  // channel, as does +X; -X comes after +Y in direction order, so the line
  // at Y offset w carries the pairs that went up to w or start at w: 2w + 1
  // of 4 per line, 7/4 of 32 on the top line.
  // (The search's ring ties then take -X where the lines are loaded: 42.)
  const Network net(Torus::parse("8x8"));
  RouteTable closed(block(net.torus(), {8, 4, 1, 1}));
  ck_assert(balanced::block_table(net, closed, FlowControl::bubble));
  ck_assert_uint_eq(verified(net, closed).metrics.max_gamma, 56);
  ck_assert_uint_eq(verified(net, balanced_table(net, closed.nodes(), off)).metrics.max_gamma, 42);
  // Under flow control none the ring of 8 would close a cycle.
  ck_assert(!balanced::block_table(net, closed, FlowControl::none));
  // A tie on a ring of 4k + 2 goes by the pair's displacement: on a 6x3
  // block of 6x6 (X a ring of 6, Y an arc of 3), a pair 3 apart in X goes
  // +X when its Y displacement is odd (with the arc's extent, the sum of
  // the other dimensions' shares is even), -X otherwise.
  const Network six(Torus::parse("6x6"));
  RouteTable ring6(block(six.torus(), {6, 3, 1, 1}));
  ck_assert(balanced::block_table(six, ring6, FlowControl::bubble));
  verified(six, ring6);
  int ties = 0;
  for (std::size_t s = 0; s < ring6.size(); ++s)
    for (std::size_t d = 0; d < ring6.size(); ++d) {
      const Coord from = six.torus().coord(ring6.nodes()[s]), to = six.torus().coord(ring6.nodes()[d]);
      if ((to[0] - from[0] + 6) % 6 != 3) continue;
      ++ties;
      const std::vector<Direction>& hops = ring6.route(s, d).hops;
      const bool positive = std::count(hops.begin(), hops.end(), kPlusX) == 3;
      ck_assert_msg(positive == ((to[1] - from[1]) % 2 != 0), "%s -> %s: %s", six.torus().format_coord(ring6.nodes()[s]).c_str(),
                    six.torus().format_coord(ring6.nodes()[d]).c_str(), ring6.route(s, d).to_string().c_str());
    }
  ck_assert_int_eq(ties, 18 * 3);
  // A failed link inside the block, a long arc (6 of 8), a whole torus.
  Network broken(Torus::parse("8x8"));
  broken.fail_link(0, kPlusX);
  RouteTable none(block(net.torus(), {8, 4, 1, 1}));
  ck_assert(!balanced::block_table(broken, none, FlowControl::bubble));
  RouteTable long_arc(block(net.torus(), {8, 6, 1, 1}));
  ck_assert(!balanced::block_table(net, long_arc, FlowControl::bubble));
  RouteTable whole(block(net.torus(), {8, 8, 1, 1}));
  ck_assert(!balanced::block_table(net, whole, FlowControl::bubble));
}
END_TEST

// A whole torus with failed routers, routed from the fault-free closed form
// (balanced/around_failures.hpp; the generator takes this path from
// kAroundFailuresMinNodes nodes, so it is called directly here).  On 4x4x4
// without router 1,1,0 (node 5) the closed form loads every channel 32
// times, the per-dimension bound; the 48 pairs whose minimal routes all
// cross the failure detour, and the search brings the max load to 33, what
// the search over every pair from the greedy start reaches too.
START_TEST(test_around_failures_one_router) {
  Network net(Torus::parse("4x4x4"));
  net.fail_node(angara_test::node_at(net.torus(), "1,1,0"));
  RouteTable table = start_route_table("balanced", net, live_nodes(net));
  ck_assert(balanced::around_failures_table(net, table, GeneratorOptions{}));
  const VerifyReport report = verified(net, table);
  ck_assert_uint_eq(report.metrics.lower_bound, 32);
  ck_assert_uint_eq(report.metrics.max_gamma, 33);
  ck_assert_uint_eq(report.non_minimal, 48);
  const VerifyReport full = verified(net, balanced_table(net, live_nodes(net)));
  ck_assert_uint_eq(full.metrics.max_gamma, 33);
  ck_assert_uint_eq(full.non_minimal, 48);
  // The same on 8x8 without router 5,0: 69 against the bound 64, as the
  // search over every pair.
  Network plane(Torus::parse("8x8"));
  plane.fail_node(angara_test::node_at(plane.torus(), "5,0"));
  RouteTable plane_table = start_route_table("balanced", plane, live_nodes(plane));
  ck_assert(balanced::around_failures_table(plane, plane_table, GeneratorOptions{}));
  const VerifyReport plane_report = verified(plane, plane_table);
  ck_assert_uint_eq(plane_report.metrics.lower_bound, 64);
  ck_assert_uint_eq(plane_report.metrics.max_gamma, 69);
}
END_TEST

// A budget that cannot pay for the search over every pair (its set-up costs
// 13 steps a pair, 51597 here) leaves the closed form wherever the failure
// leaves it alive, and puts the pairs it cuts on their least loaded
// candidates (max load 43 against 33 with the search); the report names the
// search as not run.
START_TEST(test_around_failures_small_budget) {
  Network net(Torus::parse("4x4x4"));
  const NodeId failed = angara_test::node_at(net.torus(), "1,1,0");
  net.fail_node(failed);
  GeneratorOptions options;
  options.budget = std::make_shared<WorkBudget>(50000);
  RouteTable table = start_route_table("balanced", net, live_nodes(net));
  ck_assert(balanced::around_failures_table(net, table, options));
  const VerifyReport report = verified(net, table);
  ck_assert_uint_eq(report.metrics.max_gamma, 43);
  ck_assert_uint_eq(options.budget->cut().size(), 2);
  const std::string first_cut = options.budget->cut()[0];
  ck_assert_std_str_eq(first_cut, std::string("load balancing (not run)"));
  // Exactly the routes through the failed router changed.
  const Network healthy(Torus::parse("4x4x4"));
  const RouteTable closed = balanced_table(healthy, angara_test::all_nodes(healthy.torus()));
  std::size_t changed = 0, crossing = 0;
  for (std::size_t s = 0; s < table.size(); ++s)
    for (std::size_t d = 0; d < table.size(); ++d) {
      if (s == d) continue;
      const std::size_t cs = closed.index_of(table.nodes()[s]), cd = closed.index_of(table.nodes()[d]);
      bool through = false;
      closed.walk(cs, cd, healthy.torus(), [&](NodeId at, Direction) { through = through || at == failed; });
      const std::string mine = table.route(s, d).to_string(), theirs = closed.route(cs, cd).to_string();
      changed += mine != theirs;
      crossing += through;
    }
  ck_assert_uint_eq(crossing, 129);
  ck_assert_uint_eq(changed, crossing);
}
END_TEST

// A budget already spent pays for no detour, so the path does not count
// the routes' dependencies: where the candidates leave a pair without a
// route, the checked-turn stage counts the table itself.  4x4x4 without
// routers 1,0,0 and 3,0,0 cuts both ways round the X ring between 0,0,0 and
// 2,0,0 (no direction-order route of any sign), and that pair takes a
// detour with turns; the table is complete and deadlock-free.  With one
// failed router every pair keeps a candidate and the table is the same as
// with the dependencies counted (a budget with one step left).
START_TEST(test_around_failures_spent_budget) {
  Network net(Torus::parse("4x4x4"));
  net.fail_node(angara_test::node_at(net.torus(), "1,0,0"));
  net.fail_node(angara_test::node_at(net.torus(), "3,0,0"));
  GeneratorOptions spent;
  spent.budget = std::make_shared<WorkBudget>(1);
  spent.budget->spend(1);
  RouteTable table = start_route_table("balanced", net, live_nodes(net));
  ck_assert(balanced::around_failures_table(net, table, spent));
  const VerifyReport report = verified(net, table);
  ck_assert(report.ok());
  const std::size_t from = table.index_of(angara_test::node_at(net.torus(), "0,0,0"));
  const std::size_t to = table.index_of(angara_test::node_at(net.torus(), "2,0,0"));
  ck_assert(table.has_route(from, to));
  ck_assert_uint_gt(table.route(from, to).hops.size(), 2);

  Network one(Torus::parse("4x4x4"));
  one.fail_node(angara_test::node_at(one.torus(), "1,1,0"));
  GeneratorOptions none_left = spent;
  none_left.budget = std::make_shared<WorkBudget>(1);
  none_left.budget->spend(1);
  GeneratorOptions one_left;
  one_left.budget = std::make_shared<WorkBudget>(2);
  one_left.budget->spend(1);
  RouteTable without = start_route_table("balanced", one, live_nodes(one));
  RouteTable with = start_route_table("balanced", one, live_nodes(one));
  ck_assert(balanced::around_failures_table(one, without, none_left));
  ck_assert(balanced::around_failures_table(one, with, one_left));
  ck_assert(verified(one, without).ok());
  for (std::size_t s = 0; s < without.size(); ++s)
    for (std::size_t d = 0; d < without.size(); ++d)
      ck_assert_msg(without.route(s, d).hops == with.route(s, d).hops, "pair %zu %zu", s, d);
}
END_TEST

// What the path leaves to the search over every pair: a machine without
// failures, a part of the machine, flow control none, and failures that cut
// a pair off (6x6 without routers 5,0, 0,1 and 1,1: 0,0 -> 5,1 has no
// encodable route left), each with the table untouched.
START_TEST(test_around_failures_declines) {
  const Network healthy(Torus::parse("4x4x4"));
  RouteTable whole = start_route_table("balanced", healthy, live_nodes(healthy));
  ck_assert(!balanced::around_failures_table(healthy, whole, GeneratorOptions{}));
  Network net(Torus::parse("4x4x4"));
  net.fail_node(angara_test::node_at(net.torus(), "1,1,0"));
  std::vector<NodeId> part = live_nodes(net);
  part.pop_back();
  RouteTable partial = start_route_table("balanced", net, part);
  ck_assert(!balanced::around_failures_table(net, partial, GeneratorOptions{}));
  GeneratorOptions none;
  none.flow_control = FlowControl::none;
  RouteTable strict = start_route_table("balanced", net, live_nodes(net));
  ck_assert(!balanced::around_failures_table(net, strict, none));
  Network cut(Torus::parse("6x6"));
  for (const char* coord : {"5,0", "0,1", "1,1"}) cut.fail_node(angara_test::node_at(cut.torus(), coord));
  RouteTable refused = start_route_table("balanced", cut, live_nodes(cut));
  ck_assert(!balanced::around_failures_table(cut, refused, GeneratorOptions{}));
  for (RouteTable* untouched : {&whole, &partial, &strict, &refused}) ck_assert(!untouched->has_route(0, 1));
}
END_TEST

// Determinism (also on a partial allocation of a faulty 5x4x2), whole
// machines, partial allocations with faults and the error messages are
// checked for every generator in check_generators.


// The memory estimate of a whole machine with failures follows the budget:
// without the search over every pair (a budget that cannot pay for its
// set-up) the table around failures holds the closed form, the result and
// the detours' stage, 24 bytes a pair (kAroundFailuresBytesPerPair) and 16
// a channel slot; with the search, its candidate sets, many times that.  A
// whole 16x8x8x8 with two failed routers was estimated at 18 GB this way
// and refused under the default limit, for a table that takes 1.2 GB.
START_TEST(test_around_failures_memory_follows_the_budget) {
  Network net(Torus::parse("8x8x4x4"));
  net.fail_node(angara_test::node_at(net.torus(), "6,0,2,3"));
  const auto generator_bytes = [&](double seconds) {
    GeneratorOptions options;
    options.budget = std::make_shared<WorkBudget>(seconds > 0 ? WorkBudget::for_seconds(seconds) : WorkBudget());
    const MemoryEstimate estimate = estimate_job_memory(net, 1023, "balanced", options, MemoryWork{});
    for (const MemoryPart& part : estimate.parts)
      if (part.what == "generator balanced") return static_cast<double>(part.bytes);
    return 0.0;
  };
  const double without_search = 1023.0 * 1023 * balanced::kAroundFailuresBytesPerPair + 8192.0 * 16;
  ck_assert_msg(std::abs(generator_bytes(0.5) - without_search) <= 1, "%.0f", generator_bytes(0.5));
  const WorkBudget half_second = WorkBudget::for_seconds(0.5);
  ck_assert(!balanced::search_every_pair_affordable(&half_second, 1023));
  ck_assert_double_gt(generator_bytes(0), 4 * without_search);  // no limit: the search runs
}
END_TEST

// Around failures the direction-order start's loads and dependency counts
// come from the allocation's counts less the cut pairs' direction-order
// routes plus their new ones (balanced::count_around_cut): they must be
// what a walk over every route counts, for ties any way, pairs left
// without a route and pairs given detours with turns against the
// direction order.
START_TEST(test_counts_around_cut_like_a_walk) {
  std::uint32_t seed = 777;
  const auto next = [&seed](std::uint32_t range) {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) % range;
  };
  for (const char* shape : {"5x4x2", "8x6", "4x4x2x2", "6x3x4"}) {
    const Torus torus = Torus::parse(shape);
    std::vector<NodeId> nodes;
    for (NodeId node = 0; node < torus.node_count(); ++node)
      if (next(3) != 0) nodes.push_back(node);
    RingTies ties;
    for (auto& way : ties.negative) way = {next(2) != 0, next(2) != 0};
    RouteTable table = dimension_order_table(torus, nodes, ties);
    std::vector<std::pair<std::size_t, std::size_t>> cut;
    std::vector<Route> cut_routes;
    for (std::size_t s = 0; s < nodes.size(); ++s)
      for (std::size_t d = 0; d < nodes.size(); ++d) {
        if (s == d || next(7) != 0) continue;
        cut.emplace_back(s, d);
        cut_routes.push_back(table.route(s, d));
        Route detour;  // none, or a First Step ahead of a walk in direction order
        if (next(2)) {
          detour.hops.push_back(Direction::make(static_cast<int>(next(2)) + 1, false));
          for (int rank = 0; rank < kDirectionCount; ++rank)
            if (torus.direction_present(Direction(rank)) && next(3) == 0)
              detour.hops.insert(detour.hops.end(), 1 + next(3), Direction(rank));
        }
        table.set_route(s, d, detour);
      }
    const RouteDependencies walked = walk_route_dependencies(torus, table);
    for (const bool with_dependencies : {false, true}) {
      const RouteDependencies counted = balanced::count_around_cut(torus, table, ties, cut, cut_routes, with_dependencies);
      ck_assert_msg(walked.loads == counted.loads, "%s: loads differ", shape);
      if (with_dependencies) ck_assert_msg(walked.edge_counts == counted.edge_counts, "%s: dependency counts differ", shape);
    }
  }
}
END_TEST

// The cut-pairs start counts the table's dependencies and loads from the
// closed form's rows of one source per parity class: they must be what a
// walk over every route counts, and its cut pairs exactly those whose
// fault-free route the failures kill.  Machines with every parity layout:
// all dimensions even, odd ones mixed in (3, 5), the class split by source
// (8x3x3: the other sizes' product is odd), failed routers and cables.
START_TEST(test_cut_pairs_start_counts_like_a_walk) {
  struct Case {
    const char* torus;
    std::vector<const char*> routers;
    std::vector<std::pair<const char*, Direction>> cables;
  };
  const std::vector<Case> cases = {
      {"4x4x4", {"1,2,3"}, {}},
      {"6x4x3", {}, {{"5,3,2", kPlusX}, {"0,0,0", kMinusY}}},
      {"8x3x3", {"7,1,2"}, {{"2,0,1", kPlusY}}},
      {"4x4x2x2", {"0,0,0,0", "3,2,1,1"}, {}},
      {"5x5", {"2,2"}, {{"4,0", kPlusX}}},
  };
  for (const Case& c : cases) {
    Network net(Torus::parse(c.torus));
    const Torus& torus = net.torus();
    for (const char* at : c.routers) net.fail_node(angara_test::node_at(torus, at));
    for (const auto& [at, d] : c.cables) net.fail_link(angara_test::node_at(torus, at), d);
    const std::vector<NodeId> nodes = live_nodes(net);
    const std::optional<balanced::CutPairsStart> start = balanced::cut_pairs_start(net, nodes);
    ck_assert_msg(start.has_value(), "%s: no closed form", c.torus);

    const RouteDependencies walked = walk_route_dependencies(torus, start->table);
    ck_assert_msg(walked.loads == start->dependencies.loads, "%s: loads differ from the walk", c.torus);
    ck_assert_msg(walked.edge_counts == start->dependencies.edge_counts, "%s: dependency counts differ", c.torus);

    // The fault-free closed form, every node: a pair is cut iff its route
    // there crosses a dead channel; the others keep that route.
    std::vector<NodeId> every(torus.node_count());
    for (NodeId node = 0; node < torus.node_count(); ++node) every[node] = node;
    RouteTable closed(every);
    ck_assert(balanced::sub_torus_table(Network(torus), closed));
    std::vector<std::pair<std::size_t, std::size_t>> cut;
    for (std::size_t s = 0; s < nodes.size(); ++s)
      for (std::size_t d = 0; d < nodes.size(); ++d) {
        if (s == d) continue;
        bool alive = true;
        closed.walk(nodes[s], nodes[d], torus, [&](NodeId at, Direction hop) { alive = alive && net.channel_alive(at, hop); });
        if (!alive)
          cut.emplace_back(s, d);
        else
          ck_assert_msg(start->table.route(s, d).hops == closed.route(nodes[s], nodes[d]).hops, "%s: pair %zu %zu",
                        c.torus, s, d);
      }
    ck_assert_msg(!cut.empty() && cut == start->listed, "%s: %zu cut pairs listed, %zu by the walk", c.torus,
                  start->listed.size(), cut.size());

    // The classes the start writes from are sub_torus_table's, word for
    // word, on the whole machine too.
    const std::optional<balanced::DisplacementRoutes> classes = balanced::DisplacementRoutes::of_whole(torus);
    ck_assert(classes.has_value());
    RouteTable written(every);
    classes->write(written);
    for (std::size_t s = 0; s < every.size(); ++s)
      for (std::size_t d = 0; d < every.size(); ++d)
        ck_assert_msg(written.packed_route(s, d)->code == closed.packed_route(s, d)->code &&
                          classes->word(every[s], every[d]).code == closed.packed_route(s, d)->code,
                      "%s: pair %zu %zu written differently", c.torus, s, d);
  }
  // No classes where the construction's loads are not uniform (a ring of
  // 6 with its split class), as sub_torus_table() returns false there.
  const Torus six = Torus::parse("6x3");
  std::vector<NodeId> every(six.node_count());
  for (NodeId node = 0; node < six.node_count(); ++node) every[node] = node;
  RouteTable unused(every);
  ck_assert(!balanced::sub_torus_table(Network(six), unused));
  ck_assert(!balanced::DisplacementRoutes::of_whole(six).has_value());
}
END_TEST


// The ring-way search on a scattered half of 8x8x4 (seeded): from the
// direction-order table it lowers the max load, every route stays in
// direction order (positive runs in dimension order, then negative ones)
// and at most long_way hops longer than minimal, and the verifier finds
// the table complete and deadlock-free.  With long_way 0 only ring ties
// change sides, every route minimal.  A budget that ends stops it.
START_TEST(test_ring_ways_lower_direction_order_loads) {
  const Network net(Torus::parse("8x8x4"));
  const Torus& torus = net.torus();
  std::vector<NodeId> nodes;
  std::mt19937 random(7);
  for (NodeId node = 0; node < torus.node_count(); ++node)
    if (random() % 2 == 0) nodes.push_back(node);
  const DirectionOrderWays ways = dimension_order_ways(torus, RingTies::split());
  const RouteTable start = dimension_order_table(torus, nodes, RingTies::split());
  const std::uint64_t before = verified(net, start).metrics.max_gamma;
  for (const int long_way : {2, 0}) {
    RouteTable table = start;
    ck_assert(balanced::balance_ring_ways(torus, ways, long_way, table, nullptr) ==
              balanced::RingWaysOutcome::converged);
    const VerifyReport report = verified(net, table);
    ck_assert_msg(report.metrics.max_gamma < before, "long_way %d: max load %llu, direction order %llu", long_way,
                  static_cast<unsigned long long>(report.metrics.max_gamma), static_cast<unsigned long long>(before));
    std::size_t longer = 0;
    for (std::size_t s = 0; s < nodes.size(); ++s)
      for (std::size_t d = 0; d < nodes.size(); ++d) {
        if (s == d) continue;
        int previous = -1;
        table.for_each_run(s, d, [&](Direction direction, int) {
          ck_assert_int_gt(direction.rank(), previous);
          previous = direction.rank();
        });
        const std::size_t hops = table.hop_count(s, d), minimal = torus.distance(nodes[s], nodes[d]);
        ck_assert_uint_le(hops, minimal + static_cast<std::size_t>(long_way));
        longer += hops > minimal ? 1 : 0;
      }
    ck_assert_uint_eq(report.non_minimal, longer);
    if (long_way == 0) ck_assert_uint_eq(longer, 0);
  }
  RouteTable table = start;
  WorkBudget budget(2 * balanced::ring_ways_start_work(torus, nodes.size()) + 10);
  ck_assert(balanced::balance_ring_ways(torus, ways, 2, table, &budget) == balanced::RingWaysOutcome::stopped);
  verified(net, table);
  WorkBudget none(1);
  ck_assert(balanced::balance_ring_ways(torus, ways, 2, table, &none) == balanced::RingWaysOutcome::not_run);
}
END_TEST

int main() {
  Suite* s = suite_create("balanced");
  TCase* candidates_case = tcase_create("candidates");
  tcase_add_test(candidates_case, test_minimal_route_channels_appended);
  tcase_add_test(candidates_case, test_long_way_dor_routes);
  tcase_add_test(candidates_case, test_tied_ring_signs);
  tcase_add_test(candidates_case, test_all_turn_candidates_of_healthy_machine);
  tcase_add_test(candidates_case, test_two_cables);
  tcase_add_test(candidates_case, test_dead_link_removes_sign);
  tcase_add_test(candidates_case, test_last_step_variant);
  tcase_add_test(candidates_case, test_first_step_variant);
  tcase_add_test(candidates_case, test_detour_when_no_minimal_route);
  tcase_add_test(candidates_case, test_disconnected_pair_throws);
  suite_add_tcase(s, candidates_case);
  TCase* generator_case = tcase_create("generator");
  tcase_set_timeout(generator_case, 60);
  tcase_add_test(generator_case, test_desmos_blocks);
  tcase_add_test(generator_case, test_whole_machines_reach_bound);
  tcase_add_test(generator_case, test_forced_routes_uniform);
  tcase_add_test(generator_case, test_faulty_machine_routed);
  tcase_add_test(generator_case, test_start_option);
  tcase_add_test(generator_case, test_turns_on_sub_allocations);
  tcase_add_test(generator_case, test_long_way_on_scattered_sets);
  tcase_add_test(generator_case, test_turns_on_faulty_machine);
  tcase_add_test(generator_case, test_refinement_repair_on_faulty_machine);
  tcase_add_test(generator_case, test_direct_construction_matches_candidates);
  tcase_add_test(generator_case, test_block_closed_form);
  tcase_add_test(generator_case, test_work_budget_cuts_the_refinement);
  tcase_add_test(generator_case, test_around_failures_one_router);
  tcase_add_test(generator_case, test_around_failures_small_budget);
  tcase_add_test(generator_case, test_around_failures_spent_budget);
  tcase_add_test(generator_case, test_around_failures_memory_follows_the_budget);
  tcase_add_test(generator_case, test_cut_pairs_start_counts_like_a_walk);
  tcase_add_test(generator_case, test_ring_ways_lower_direction_order_loads);
  tcase_add_test(generator_case, test_counts_around_cut_like_a_walk);
  tcase_add_test(generator_case, test_short_budget_routes_direction_order_around_failures);
  tcase_add_test(generator_case, test_around_failures_declines);
  tcase_add_test(generator_case, test_short_budget_takes_block_closed_form);
  suite_add_tcase(s, generator_case);
  return angara_test::run_suite(s);
}
