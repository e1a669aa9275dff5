// The shared incremental channel dependency graph (routing/common/dependency_graph.hpp):
// hand-made cycles on small tori under both deadlock rules, ref-counted
// removal, atomic try_add_path, and a random cross-check against the
// verifier's strongly-connected-component criterion.
#include <random>
#include <stdexcept>
#include <vector>

#include "angara/torus.hpp"
#include "routing/common/dependency_graph.hpp"
#include "routing/check/verifier.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using angara_test::node_at;

namespace {

// Channel "x,y +X" of a torus.
ChannelId ch(const Torus& torus, const char* coord, const char* direction) {
  return Torus::channel(node_at(torus, coord), *Direction::parse(direction));
}

// The channels of the route with these hops from `coord`.
std::vector<ChannelId> path(const Torus& torus, const char* coord, const char* hops) {
  return route_channels(torus, node_at(torus, coord), parse_hops(hops));
}

// The 2x2 staircase of check_verifier.cpp: four two-hop routes whose turns
// chain 0,0 +X -> 1,0 +Y -> 1,1 +X -> 0,1 +Y -> 0,0 +X, a cycle of turns.
std::vector<std::vector<ChannelId>> staircase(const Torus& torus) {
  return {path(torus, "0,0", "+X +Y"), path(torus, "1,0", "+Y +X"), path(torus, "1,1", "+X +Y"),
          path(torus, "0,1", "+Y +X")};
}

}  // namespace

START_TEST(test_route_channels) {
  const Torus torus = Torus::parse("3x3");
  const std::vector<ChannelId> channels = path(torus, "2,0", "+Y +X -Y");
  ck_assert_uint_eq(channels.size(), 3);
  ck_assert_uint_eq(channels[0], ch(torus, "2,0", "+Y"));
  ck_assert_uint_eq(channels[1], ch(torus, "2,1", "+X"));
  ck_assert_uint_eq(channels[2], ch(torus, "0,1", "-Y"));
}
END_TEST

// Three routes around the X ring of row 0 in the + direction: 0 -> 2, 1 -> 0
// and 2 -> 1 chain 0,0 +X -> 1,0 +X -> 2,0 +X -> 0,0 +X.  Bubble flow control
// makes that ring harmless; without it the third route closes a deadlock.
START_TEST(test_ring_cycle_harmless_under_bubble_only) {
  const Torus torus = Torus::parse("3x3");
  const std::vector<ChannelId> a = path(torus, "0,0", "+X +X"), b = path(torus, "1,0", "+X +X"),
                               c = path(torus, "2,0", "+X +X");
  IncrementalDependencyGraph bubble(torus, FlowControl::bubble);
  ck_assert(bubble.try_add_path(a));
  ck_assert(bubble.try_add_path(b));
  ck_assert(!bubble.closes_cycle(c[0], c[1]));
  ck_assert(bubble.try_add_path(c));
  ck_assert(bubble.has_edge(ch(torus, "2,0", "+X"), ch(torus, "0,0", "+X")));

  IncrementalDependencyGraph none(torus, FlowControl::none);
  ck_assert(none.try_add_path(a));
  ck_assert(none.try_add_path(b));
  ck_assert(none.closes_cycle(c[0], c[1]));
  ck_assert(!none.try_add_path(c));
  ck_assert(!none.has_edge(ch(torus, "2,0", "+X"), ch(torus, "0,0", "+X")));
}
END_TEST

// The staircase's fourth route closes a cycle of turns: refused under both
// rules; removing any one of the first three routes lets it in.
START_TEST(test_turn_cycle_forbidden_and_removal_reallows) {
  const Torus torus = Torus::parse("2x2");
  for (const FlowControl rule : {FlowControl::bubble, FlowControl::none}) {
    const auto routes = staircase(torus);
    IncrementalDependencyGraph graph(torus, rule);
    for (int k = 0; k < 3; ++k) ck_assert(graph.try_add_path(routes[k]));
    ck_assert(graph.closes_cycle(routes[3][0], routes[3][1]));
    ck_assert(!graph.try_add_path(routes[3]));
    graph.remove_path(routes[1]);
    ck_assert(!graph.has_edge(routes[1][0], routes[1][1]));
    ck_assert(!graph.closes_cycle(routes[3][0], routes[3][1]));
    ck_assert(graph.try_add_path(routes[3]));
    // Now the second route would close the cycle instead.
    ck_assert(!graph.try_add_path(routes[1]));
  }
}
END_TEST

// A cycle whose closing dependency goes straight on (0,0 +X -> 1,0 +X) but
// that turns elsewhere: the 3x3 loop 1,0 +X +Y -X -X -Y +X.  Forbidden under
// bubble although the new dependency itself is no turn.
START_TEST(test_straight_edge_closing_a_cycle_with_turns) {
  const Torus torus = Torus::parse("3x3");
  IncrementalDependencyGraph graph(torus, FlowControl::bubble);
  ck_assert(graph.try_add_path(path(torus, "1,0", "+X +Y -X -X -Y +X")));
  const std::vector<ChannelId> straight = path(torus, "0,0", "+X +X");
  ck_assert(graph.closes_cycle(straight[0], straight[1]));
  ck_assert(!graph.try_add_path(straight));
  // Turning up at 1,0 instead closes nothing: 1,0 +Y has no dependencies.
  ck_assert(graph.try_add_path(path(torus, "0,0", "+X +Y")));
}
END_TEST

// The walk closes_cycle() hands back is the cycle it found, from the new
// dependency's head to its tail: the 3x3 loop above, channel by channel, and
// the staircase's four turns; each of its dependencies is in the graph.
START_TEST(test_closing_walk_is_the_cycle) {
  const Torus torus = Torus::parse("3x3");
  IncrementalDependencyGraph graph(torus, FlowControl::bubble);
  const std::vector<ChannelId> loop = path(torus, "1,0", "+X +Y -X -X -Y +X");
  graph.add_path(loop);
  const std::vector<ChannelId> straight = path(torus, "0,0", "+X +X");
  std::vector<ChannelId> walk{42};
  ck_assert(graph.closes_cycle(straight[0], straight[1], &walk));
  ck_assert(walk == loop);
  for (std::size_t k = 1; k < walk.size(); ++k) ck_assert(graph.has_edge(walk[k - 1], walk[k]));

  const Torus square = Torus::parse("2x2");
  for (const FlowControl rule : {FlowControl::bubble, FlowControl::none}) {
    const auto routes = staircase(square);
    IncrementalDependencyGraph stairs(square, rule);
    for (int k = 0; k < 3; ++k) ck_assert(stairs.try_add_path(routes[k]));
    ck_assert(stairs.closes_cycle(routes[3][0], routes[3][1], &walk));
    const std::vector<ChannelId> expected{ch(square, "0,0", "+X"), ch(square, "1,0", "+Y"), ch(square, "1,1", "+X"),
                                          ch(square, "0,1", "+Y")};
    ck_assert(walk == expected);
  }
}
END_TEST

// try_add_path changes nothing when its last dependency is refused: the
// harmless first dependency 1,1 -X -> 0,1 +Y is not kept.
START_TEST(test_try_add_path_is_atomic) {
  const Torus torus = Torus::parse("2x2");
  const auto routes = staircase(torus);
  IncrementalDependencyGraph graph(torus, FlowControl::bubble);
  for (int k = 0; k < 3; ++k) graph.add_path(routes[k]);
  const std::vector<ChannelId> detour = path(torus, "1,1", "-X +Y +X");
  ck_assert(!graph.closes_cycle(detour[0], detour[1]));
  ck_assert(!graph.try_add_path(detour));
  ck_assert(!graph.has_edge(detour[0], detour[1]));
  ck_assert_uint_eq(graph.edge_count(detour[0], detour[1]), 0);
  ck_assert(!graph.has_edge(detour[1], detour[2]));
  // The earlier routes are untouched.
  ck_assert_uint_eq(graph.edge_count(routes[0][0], routes[0][1]), 1);
}
END_TEST

START_TEST(test_reference_counts) {
  const Torus torus = Torus::parse("3x3");
  const std::vector<ChannelId> route = path(torus, "0,0", "+X +Y");
  IncrementalDependencyGraph graph(torus, FlowControl::bubble);
  graph.add_path(route);
  ck_assert(graph.try_add_path(route));  // present already: nothing to close
  ck_assert_uint_eq(graph.edge_count(route[0], route[1]), 2);
  ck_assert_uint_eq(graph.successors(route[0]), 1u << Direction::make(1, false).rank());
  graph.remove_path(route);
  ck_assert(graph.has_edge(route[0], route[1]));
  graph.remove_path(route);
  ck_assert(!graph.has_edge(route[0], route[1]));
  ck_assert_uint_eq(graph.successors(route[0]), 0);
  const std::string message = angara_test::error_message<std::logic_error>([&] { graph.remove_path(route); });
  ck_assert_str_eq(message.c_str(), "remove_path: the route was not added");
}
END_TEST

START_TEST(test_rejects_non_adjacent_channels) {
  const Torus torus = Torus::parse("3x3");
  const IncrementalDependencyGraph graph(torus, FlowControl::bubble);
  // 0,0 +X enters 1,0; a channel of 0,0 does not continue it.
  const std::string message = angara_test::error_message<std::invalid_argument>(
      [&] { graph.has_edge(ch(torus, "0,0", "+X"), ch(torus, "0,0", "+Y")); });
  ck_assert_str_eq(message.c_str(),
                   "channel dependency 0 -> 1: the second channel does not leave the node the first one enters");
}
END_TEST

namespace {

// True when some strongly connected component of `graph` holds an edge at
// all (rule none) or a turn (rule bubble): the verifier's criterion.
bool forbidden_cycle(const ChannelDependencyGraph& graph, FlowControl rule) {
  if (rule == FlowControl::bubble) return graph.turns_on_cycles() != 0;
  const std::vector<std::int32_t> component = graph.components();
  for (ChannelId c = 0; c < graph.slots(); ++c)
    for (int rank = 0; rank < kDirectionCount; ++rank)
      if (((graph.successors(c) >> rank) & 1u) && component[graph.target(c, rank)] == component[c]) return true;
  return false;
}

ChannelDependencyGraph verifier_graph(const Torus& torus, const std::vector<std::vector<ChannelId>>& paths) {
  ChannelDependencyGraph graph(torus);
  for (const auto& p : paths)
    for (std::size_t k = 1; k < p.size(); ++k) graph.add(p[k - 1], p[k]);
  return graph;
}

}  // namespace

// Random walks offered one by one: every accepted set is free of forbidden
// cycles by the verifier's Tarjan criterion, and every refused walk would
// have created one.  Some walks are removed again on the way.
START_TEST(test_random_paths_match_the_verifier) {
  std::mt19937 rng(7);
  for (const char* dims : {"2x2", "3x3", "4x2x2", "3x3x3"}) {
    const Torus torus = Torus::parse(dims);
    std::vector<Direction> present;
    for (int rank = 0; rank < kDirectionCount; ++rank)
      if (torus.direction_present(Direction(rank))) present.push_back(Direction(rank));
    for (const FlowControl rule : {FlowControl::bubble, FlowControl::none}) {
      IncrementalDependencyGraph graph(torus, rule);
      std::vector<std::vector<ChannelId>> accepted;
      std::size_t refused = 0;
      for (int trial = 0; trial < 300; ++trial) {
        std::vector<Direction> hops;
        const int length = 2 + static_cast<int>(rng() % 4);
        for (int k = 0; k < length; ++k) {
          // Mostly straight on, so that ring cycles appear too.
          hops.push_back(k && rng() % 2 ? hops.back() : present[rng() % present.size()]);
        }
        const std::vector<ChannelId> p = route_channels(torus, rng() % torus.node_count(), hops);
        std::vector<std::vector<ChannelId>> with = accepted;
        with.push_back(p);
        const bool would_deadlock = forbidden_cycle(verifier_graph(torus, with), rule);
        const bool added = graph.try_add_path(p);
        ck_assert_msg(added == !would_deadlock, "%s trial %d: try_add_path %d, verifier says deadlock %d", dims,
                      trial, added, would_deadlock);
        if (added) accepted.push_back(p);
        refused += !added;
        if (!accepted.empty() && rng() % 5 == 0) {
          const std::size_t victim = rng() % accepted.size();
          graph.remove_path(accepted[victim]);
          accepted.erase(accepted.begin() + static_cast<long>(victim));
        }
      }
      ck_assert_msg(refused > 0, "%s: no walk was refused, the test proves nothing", dims);
      ck_assert(!forbidden_cycle(verifier_graph(torus, accepted), rule));
    }
  }
}
END_TEST

// closes_cycle() asked about random dependencies after every change (walks
// added with and without the check, some removed): each answer matches the
// verifier's criterion on the graph with that one dependency added.  The
// graph answers from a topological order it refreshes lazily, so the
// answers are checked while that order is stale as well as fresh.
// Under bubble, First Step turns (+Y then +X) go against the order that
// direction-order routes (+X then +Y) give the channels: each such insertion
// lifts what its head reaches to its tail's position, or lets the order go
// stale, and in either case the order every query prunes by holds, and the
// queries agree with the verifier.
START_TEST(test_order_kept_through_turns_against_it) {
  std::mt19937 rng(5);
  const Torus torus = Torus::parse("5x5");
  const Direction x = *Direction::parse("+X"), y = *Direction::parse("+Y");
  IncrementalDependencyGraph graph(torus, FlowControl::bubble);
  // Every channel has successors first, +X +Y and +Y +Y from every node,
  // added unchecked (direction order): the first query orders them all.
  std::vector<std::vector<ChannelId>> accepted;
  for (NodeId node = 0; node < torus.node_count(); ++node)
    for (const std::vector<Direction>& hops : {std::vector<Direction>{x, y}, std::vector<Direction>{y, y}}) {
      accepted.push_back(route_channels(torus, node, hops));
      graph.add_path(accepted.back());
    }
  const std::size_t fixed = accepted.size();
  std::size_t closing = 0, open = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<Direction> hops;
    if (rng() % 2 == 0) {
      hops = {y};  // a First Step, then direction order
      for (int k = static_cast<int>(rng() % 3); k >= 0; --k) hops.push_back(x);
    } else {
      for (int k = static_cast<int>(rng() % 3); k >= 0; --k) hops.push_back(x);
      for (int k = static_cast<int>(rng() % 3); k >= 0; --k) hops.push_back(y);
    }
    const std::vector<ChannelId> p = route_channels(torus, rng() % torus.node_count(), hops);
    if (graph.try_add_path(p)) accepted.push_back(p);
    ck_assert_msg(graph.order_holds(), "trial %d: an edge goes against the order", trial);
    if (accepted.size() > fixed + 8 && rng() % 3 == 0) {
      const std::size_t victim = fixed + rng() % (accepted.size() - fixed);
      graph.remove_path(accepted[victim]);
      accepted.erase(accepted.begin() + static_cast<long>(victim));
    }
    for (int query = 0; query < 6; ++query) {
      const NodeId node = rng() % torus.node_count();
      const Direction first = rng() % 2 ? x : y, second = rng() % 2 ? x : y;
      const ChannelId from = Torus::channel(node, first);
      const ChannelId to = Torus::channel(torus.neighbor(node, first), second);
      std::vector<std::vector<ChannelId>> with = accepted;
      with.push_back({from, to});
      const bool expected = !graph.has_edge(from, to) && forbidden_cycle(verifier_graph(torus, with), FlowControl::bubble);
      ck_assert_msg(graph.closes_cycle(from, to) == expected, "trial %d: closes_cycle %d, verifier %d", trial, !expected,
                    expected);
      (expected ? closing : open) += 1;
      ck_assert_msg(graph.order_holds(), "trial %d: an edge goes against the order after a query", trial);
    }
  }
  ck_assert_msg(closing > 0 && open > 0, "%zu closing, %zu open: the test proves little", closing, open);
}
END_TEST

START_TEST(test_random_queries_match_the_verifier) {
  std::mt19937 rng(11);
  for (const char* dims : {"3x3", "4x2x2", "3x3x2"}) {
    const Torus torus = Torus::parse(dims);
    std::vector<Direction> present;
    for (int rank = 0; rank < kDirectionCount; ++rank)
      if (torus.direction_present(Direction(rank))) present.push_back(Direction(rank));
    for (const FlowControl rule : {FlowControl::bubble, FlowControl::none}) {
      IncrementalDependencyGraph graph(torus, rule);
      std::vector<std::vector<ChannelId>> accepted;
      std::size_t closing = 0, open = 0;
      for (int trial = 0; trial < 150; ++trial) {
        std::vector<Direction> hops;
        const int length = 2 + static_cast<int>(rng() % 3);
        for (int k = 0; k < length; ++k) hops.push_back(k && rng() % 2 ? hops.back() : present[rng() % present.size()]);
        const std::vector<ChannelId> p = route_channels(torus, rng() % torus.node_count(), hops);
        if (graph.try_add_path(p)) accepted.push_back(p);
        if (!accepted.empty() && rng() % 4 == 0) {
          const std::size_t victim = rng() % accepted.size();
          graph.remove_path(accepted[victim]);
          accepted.erase(accepted.begin() + static_cast<long>(victim));
        }
        for (int query = 0; query < 12; ++query) {
          const NodeId node = rng() % torus.node_count();
          const Direction first = present[rng() % present.size()], second = present[rng() % present.size()];
          const ChannelId from = Torus::channel(node, first);
          const ChannelId to = Torus::channel(torus.neighbor(node, first), second);
          std::vector<std::vector<ChannelId>> with = accepted;
          with.push_back({from, to});
          const bool expected = !graph.has_edge(from, to) && forbidden_cycle(verifier_graph(torus, with), rule);
          ck_assert_msg(graph.closes_cycle(from, to) == expected, "%s trial %d: closes_cycle %d, verifier %d", dims,
                        trial, !expected, expected);
          (expected ? closing : open) += 1;
        }
      }
      ck_assert_msg(closing > 0 && open > 0, "%s: %zu closing, %zu open: the test proves little", dims, closing, open);
    }
  }
}
END_TEST

// Under flow control none the order is repaired at each insertion (Pearce
// and Kelly): long walks on a larger torus, most against the order, and
// every answer of closes_cycle() checked against a plain search for a walk
// back and the accepted set against the verifier; then a ring added
// unchecked (a cycle, which no order holds) and the answers checked again on
// the fallback.
START_TEST(test_dynamic_order_under_none) {
  std::mt19937 rng(5);
  const Torus torus = Torus::parse("5x4x3");
  std::vector<Direction> present;
  for (int rank = 0; rank < kDirectionCount; ++rank)
    if (torus.direction_present(Direction(rank))) present.push_back(Direction(rank));
  IncrementalDependencyGraph graph(torus, FlowControl::none);
  std::vector<std::vector<ChannelId>> accepted;
  std::size_t added = 0, closing = 0;
  const auto check_queries = [&](int trial) {
    for (int query = 0; query < 20; ++query) {
      const NodeId node = rng() % torus.node_count();
      const Direction first = present[rng() % present.size()], second = present[rng() % present.size()];
      const ChannelId from = Torus::channel(node, first);
      const ChannelId to = Torus::channel(torus.neighbor(node, first), second);
      // Under none the edge closes a cycle iff `to` reaches `from` already.
      std::vector<unsigned char> seen(torus.channel_slots(), 0);
      std::vector<ChannelId> stack{to};
      seen[to] = 1;
      bool reaches = false;
      while (!stack.empty() && !reaches) {
        const ChannelId c = stack.back();
        stack.pop_back();
        reaches = c == from;
        for (int rank = 0; rank < kDirectionCount; ++rank)
          if (((graph.successors(c) >> rank) & 1u) && !seen[graph.target(c, rank)]) {
            seen[graph.target(c, rank)] = 1;
            stack.push_back(graph.target(c, rank));
          }
      }
      const bool expected = !graph.has_edge(from, to) && reaches;
      ck_assert_msg(graph.closes_cycle(from, to) == expected, "trial %d: closes_cycle %d, a walk back %d", trial, !expected,
                    expected);
      closing += expected;
    }
  };
  for (int trial = 0; trial < 600; ++trial) {
    std::vector<Direction> hops;
    const int length = 2 + static_cast<int>(rng() % 6);
    for (int k = 0; k < length; ++k) hops.push_back(present[rng() % present.size()]);
    const std::vector<ChannelId> p = route_channels(torus, rng() % torus.node_count(), hops);
    if (graph.try_add_path(p)) {
      accepted.push_back(p);
      ++added;
    }
    if (!accepted.empty() && rng() % 6 == 0) {
      const std::size_t victim = rng() % accepted.size();
      graph.remove_path(accepted[victim]);
      accepted.erase(accepted.begin() + static_cast<long>(victim));
    }
    if (trial % 30 == 0) check_queries(trial);
  }
  ck_assert_msg(added > 100 && closing > 0, "%zu walks added, %zu closing queries: the test proves little", added,
                closing);
  ck_assert(!forbidden_cycle(verifier_graph(torus, accepted), FlowControl::none));
  // Once around the X ring of node 0, unchecked: a cycle.
  const std::vector<ChannelId> ring = route_channels(torus, 0, std::vector<Direction>(6, Direction(0)));
  graph.add_path(ring);
  accepted.push_back(ring);
  for (int trial = 0; trial < 5; ++trial) check_queries(1000 + trial);
}
END_TEST

int main() {
  Suite* s = suite_create("dependency_graph");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_route_channels);
  tcase_add_test(tc, test_ring_cycle_harmless_under_bubble_only);
  tcase_add_test(tc, test_turn_cycle_forbidden_and_removal_reallows);
  tcase_add_test(tc, test_straight_edge_closing_a_cycle_with_turns);
  tcase_add_test(tc, test_closing_walk_is_the_cycle);
  tcase_add_test(tc, test_try_add_path_is_atomic);
  tcase_add_test(tc, test_reference_counts);
  tcase_add_test(tc, test_rejects_non_adjacent_channels);
  tcase_add_test(tc, test_random_paths_match_the_verifier);
  tcase_add_test(tc, test_random_queries_match_the_verifier);
  tcase_add_test(tc, test_dynamic_order_under_none);
  tcase_add_test(tc, test_order_kept_through_turns_against_it);
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
