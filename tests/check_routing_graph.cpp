// The routing graph of the ANSU paper (section 3.1) and its deadlock-free
// augmentation (section 3.2, Theorem 2).
#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <stdexcept>
#include <vector>

#include "angara/network.hpp"
#include "angara/routing_graph.hpp"
#include "routing/check/verifier.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using VertexId = RoutingGraph::VertexId;
using Kind = RoutingGraph::VertexKind;

namespace {

Direction dir(const char* token) { return *Direction::parse(token); }

std::uint8_t dirs(std::initializer_list<const char*> tokens) {
  std::uint8_t mask = 0;
  for (const char* token : tokens) mask |= direction_bit(dir(token));
  return mask;
}

// The paper's per-node edge count C_E(n) = 2n*3^n + 1.5n^2 + 1.5n + 1, times 2
// to stay in integers.
long paper_edges_times_two(int n) {
  long power = 1;
  for (int i = 0; i < n; ++i) power *= 3;
  return 4L * n * power + 3L * n * n + 3L * n + 2;
}

struct Edge {
  VertexId target;
  ChannelId channel;
};

std::vector<Edge> out_edges(const RoutingGraph& g, VertexId v) {
  std::vector<Edge> edges;
  for (auto e = g.edges_begin(v); e < g.edges_end(v); ++e) edges.push_back({g.edge_target(e), g.edge_channel(e)});
  return edges;
}

// Number of dependencies between channels of different direction inside one
// strongly connected component, by the verifier's channel dependency graph.
std::size_t turns_inside_components(const Torus& torus, const std::vector<std::vector<ChannelId>>& successors) {
  ChannelDependencyGraph graph(torus);
  for (ChannelId a = 0; a < successors.size(); ++a)
    for (ChannelId b : successors[a]) graph.add(a, b);
  return graph.turns_on_cycles();
}

// The augmented CDG as adjacency lists, from ChannelDependencies::has_edge.
std::vector<std::vector<ChannelId>> cdg_successors(const ChannelDependencies& cdg) {
  const Torus& t = cdg.torus();
  std::vector<std::vector<ChannelId>> successors(t.channel_slots());
  for (ChannelId a = 0; a < t.channel_slots(); ++a) {
    if (!cdg.channel_alive(a)) continue;
    const NodeId next = t.neighbor(Torus::channel_node(a), Torus::channel_direction(a));
    for (int rank = 0; rank < kDirectionCount; ++rank) {
      const ChannelId b = Torus::channel(next, Direction(rank));
      if (cdg.has_edge(a, b)) successors[a].push_back(b);
    }
  }
  return successors;
}

}  // namespace

// C_V(n) = 3^n + 2n + 1 (section 3.1): 6, 14, 34, 90 for n = 1..4.
START_TEST(test_vertices_per_node) {
  ck_assert_uint_eq(RoutingGraph::vertices_per_node(1), 6);
  ck_assert_uint_eq(RoutingGraph::vertices_per_node(2), 14);
  ck_assert_uint_eq(RoutingGraph::vertices_per_node(3), 34);
  ck_assert_uint_eq(RoutingGraph::vertices_per_node(4), 90);
  ck_assert_uint_eq(RoutingGraph(Network(Torus::parse("5"))).vertex_count(), 5 * 6);
  ck_assert_uint_eq(RoutingGraph(Network(Torus::parse("4x4"))).vertex_count(), 16 * 14);
  ck_assert_uint_eq(RoutingGraph(Network(Torus::parse("3x3x3"))).vertex_count(), 27 * 34);
  ck_assert_uint_eq(RoutingGraph(Network(Torus::parse("3x3x3x3"))).vertex_count(), 81 * 90);
  // n counts the present dimensions only: 4x1x3 is a 2-dimensional torus.
  const RoutingGraph sparse(Network(Torus::parse("4x1x3")));
  ck_assert_int_eq(sparse.present_dims(), 2);
  ck_assert_uint_eq(sparse.vertices_per_node(), 14);
}
END_TEST

// Exact out-edges per node of a fault-free torus, derived by hand from the
// rules of section 3.1 as implemented (every vertex also has an edge to end):
//   begin: end + n FS + 2n single-direction dirbit            = 3n + 1
//   FS_l:  end + one dirbit per direction above +dim_l        = sum_l (2n - l) = (3n^2 + n) / 2
//   dirbit S (last direction L): end + extensions (D >= L, -D not in S)
//          + LS edges (negative D > L)
//   LS:    end                                                = n in total
// n = 1, directions +X < -X:
//   begin 4; FS_X 2 (end, -X); dirbit{+X} 3 (end, +X, LS -X; -X is barred by
//   the direction bit); dirbit{-X} 2 (end, -X); LS 1             -> 12
// n = 2, directions +X < +Y < -X < -Y:
//   begin 7; FS_X 4 (end, +Y, -X, -Y); FS_Y 3 (end, -X, -Y);
//   dirbit {+X} 6 (end; +X, +Y, -Y; LS -X, -Y)   {+Y} 5 (end; +Y, -X; LS -X, -Y)
//          {+X,+Y} 4 (end; +Y; LS -X, -Y)        {-X} 4 (end; -X, -Y; LS -Y)
//          {+Y,-X} 3 (end; -X; LS -Y)            {-Y}, {+X,-Y}, {-X,-Y} 2 each (end; -Y)
//          = 28;  LS 2                                           -> 44
// The same rules give 135 (n = 3) and 401 (n = 4).  Against the paper's
// C_E(n) = 10, 46, 181, 679: the count is below C_E(n) for n >= 2 (C_E takes
// 2n edges for every dirbit vertex, an upper bound), and C_E(1) + 2 for
// n = 1, whose {+X} vertex has 3 edges and whose FS vertex has the FS -> end
// edge that C_E leaves out.
START_TEST(test_edges_per_node) {
  ck_assert_uint_eq(RoutingGraph(Network(Torus::parse("5"))).edge_count(), 5 * 12);
  ck_assert_uint_eq(RoutingGraph(Network(Torus::parse("4x4"))).edge_count(), 16 * 44);
  // Two parallel cables per size-2 dimension: the same count.
  ck_assert_uint_eq(RoutingGraph(Network(Torus::parse("2x2"))).edge_count(), 4 * 44);
  ck_assert_uint_eq(RoutingGraph(Network(Torus::parse("3x3x3"))).edge_count(), 27 * 135);
  ck_assert_uint_eq(RoutingGraph(Network(Torus::parse("3x3x3x3"))).edge_count(), 81 * 401);
  ck_assert_int_eq(paper_edges_times_two(1), 20);
  ck_assert_int_eq(2 * 12, paper_edges_times_two(1) + 2 * 2);
  ck_assert_int_le(2 * 44, paper_edges_times_two(2));
  ck_assert_int_le(2 * 135, paper_edges_times_two(3));
  ck_assert_int_le(2 * 401, paper_edges_times_two(4));
}
END_TEST

// Local layout for n = 2: begin 0, FS_X 1, FS_Y 2, dirbit 2 + code (code in
// base 3, X digit first, 1 = '+', 2 = '-'), LS_X 11, LS_Y 12, end 13.
START_TEST(test_vertex_layout) {
  const RoutingGraph g(Network(Torus::parse("4x4")));
  const NodeId node = 5;
  ck_assert_uint_eq(g.begin_vertex(node), 5 * 14);
  ck_assert_uint_eq(g.end_vertex(node), 5 * 14 + 13);
  ck_assert_uint_eq(g.local_index(g.first_step_vertex(node, dir("+Y"))), 2);
  ck_assert_uint_eq(g.local_index(g.last_step_vertex(node, dir("-X"))), 11);
  // {+X, -Y}: code 1 + 2*3 = 7.
  const VertexId v = g.dirbit_vertex(node, dirs({"+X", "-Y"}));
  ck_assert_uint_eq(g.local_index(v), 9);
  ck_assert_uint_eq(g.node_of(v), node);
  ck_assert(g.kind(v) == Kind::dirbit);
  ck_assert(g.incoming_direction(v) == dir("-Y"));  // the last direction in DOR
  ck_assert_uint_eq(g.used_directions(v), dirs({"+X", "-Y"}));
  // Entered over the -Y channel of the node above: 5 = (1,1), so (1,2).
  ck_assert_uint_eq(g.incoming_channel(v), Torus::channel(g.torus().id({1, 2, 0, 0}), dir("-Y")));
  ck_assert(g.kind(g.begin_vertex(node)) == Kind::begin);
  ck_assert(!g.has_incoming(g.begin_vertex(node)));
  ck_assert(g.kind(g.end_vertex(node)) == Kind::end);
  ck_assert_uint_eq(g.incoming_channel(g.end_vertex(node)), kNoChannel);
  ck_assert(g.kind(g.first_step_vertex(node, dir("+X"))) == Kind::first_step);
  ck_assert(g.kind(g.last_step_vertex(node, dir("-Y"))) == Kind::last_step);
  // Each local index is one distinct vertex.
  std::vector<VertexId> all = {g.begin_vertex(node), g.end_vertex(node)};
  for (const char* d : {"+X", "+Y"}) all.push_back(g.first_step_vertex(node, dir(d)));
  for (const char* d : {"-X", "-Y"}) all.push_back(g.last_step_vertex(node, dir(d)));
  for (std::uint8_t set : {dirs({"+X"}), dirs({"+Y"}), dirs({"+X", "+Y"}), dirs({"-X"}), dirs({"+Y", "-X"}),
                           dirs({"-Y"}), dirs({"+X", "-Y"}), dirs({"-X", "-Y"})})
    all.push_back(g.dirbit_vertex(node, set));
  std::sort(all.begin(), all.end());
  ck_assert(std::unique(all.begin(), all.end()) == all.end());
  ck_assert_uint_eq(all.size(), 14);
}
END_TEST

START_TEST(test_begin_and_dirbit_edges) {
  const RoutingGraph g(Network(Torus::parse("4x4")));
  const Torus& t = g.torus();
  const NodeId origin = t.id({0, 0, 0, 0});
  const NodeId right = t.id({1, 0, 0, 0}), up = t.id({0, 1, 0, 0});
  const NodeId left = t.id({3, 0, 0, 0}), down = t.id({0, 3, 0, 0});
  // begin: end, then by direction: FS before dirbit.
  const std::vector<Edge> begin = out_edges(g, g.begin_vertex(origin));
  ck_assert_uint_eq(begin.size(), 7);
  ck_assert_uint_eq(begin[0].target, g.end_vertex(origin));
  ck_assert_uint_eq(begin[0].channel, kNoChannel);
  ck_assert_uint_eq(begin[1].target, g.first_step_vertex(right, dir("+X")));
  ck_assert_uint_eq(begin[1].channel, Torus::channel(origin, dir("+X")));
  ck_assert_uint_eq(begin[2].target, g.dirbit_vertex(right, dirs({"+X"})));
  ck_assert_uint_eq(begin[3].target, g.first_step_vertex(up, dir("+Y")));
  ck_assert_uint_eq(begin[4].target, g.dirbit_vertex(up, dirs({"+Y"})));
  ck_assert_uint_eq(begin[5].target, g.dirbit_vertex(left, dirs({"-X"})));
  ck_assert_uint_eq(begin[5].channel, Torus::channel(origin, dir("-X")));
  ck_assert_uint_eq(begin[6].target, g.dirbit_vertex(down, dirs({"-Y"})));
  // dirbit {+X}: end; +X keeps the state; +Y extends it; -X only as LS (the
  // direction bit bars it from the list); -Y both extends and ends with LS.
  const std::vector<Edge> plus_x = out_edges(g, g.dirbit_vertex(origin, dirs({"+X"})));
  ck_assert_uint_eq(plus_x.size(), 6);
  ck_assert_uint_eq(plus_x[1].target, g.dirbit_vertex(right, dirs({"+X"})));
  ck_assert_uint_eq(plus_x[2].target, g.dirbit_vertex(up, dirs({"+X", "+Y"})));
  ck_assert_uint_eq(plus_x[3].target, g.last_step_vertex(left, dir("-X")));
  ck_assert_uint_eq(plus_x[4].target, g.dirbit_vertex(down, dirs({"+X", "-Y"})));
  ck_assert_uint_eq(plus_x[5].target, g.last_step_vertex(down, dir("-Y")));
  ck_assert_uint_eq(plus_x[5].channel, Torus::channel(origin, dir("-Y")));
  // FS_Y: only directions above +Y (no turns in a fault-free torus).
  const std::vector<Edge> fs_y = out_edges(g, g.first_step_vertex(origin, dir("+Y")));
  ck_assert_uint_eq(fs_y.size(), 3);
  ck_assert_uint_eq(fs_y[1].target, g.dirbit_vertex(left, dirs({"-X"})));
  ck_assert_uint_eq(fs_y[2].target, g.dirbit_vertex(down, dirs({"-Y"})));
  // LS: only the end.
  const std::vector<Edge> ls = out_edges(g, g.last_step_vertex(origin, dir("-X")));
  ck_assert_uint_eq(ls.size(), 1);
  ck_assert_uint_eq(ls[0].target, g.end_vertex(origin));
}
END_TEST

// Per node of a fault-free 4x4, the RG edges crossing a hop direction are
// (from the table in test_edges_per_node): +X 3, +Y 6, -X 9, -Y 13, and 13
// edges into end.  A failed cable (0,0)+X = (1,0)-X removes 3 + 9 edges; a
// failed node removes its own 44 and the 3 + 6 + 9 + 13 that enter it.
START_TEST(test_failures_remove_edges) {
  Network link_failed(Torus::parse("4x4"));
  link_failed.fail_link(0, dir("+X"));
  const RoutingGraph g1(link_failed);
  ck_assert_uint_eq(g1.edge_count(), 704 - 12);
  for (RoutingGraph::EdgeId e = 0; e < g1.edge_count(); ++e)
    ck_assert(g1.edge_channel(e) == kNoChannel || link_failed.channel_alive(g1.edge_channel(e)));

  Network node_failed(Torus::parse("4x4"));
  const NodeId dead = node_failed.torus().id({1, 1, 0, 0});
  node_failed.fail_node(dead);
  const RoutingGraph g2(node_failed);
  ck_assert_uint_eq(g2.edge_count(), 704 - 44 - 31);
  for (VertexId v = 0; v < g2.vertex_count(); ++v)
    for (auto e = g2.edges_begin(v); e < g2.edges_end(v); ++e) {
      ck_assert_uint_ne(g2.node_of(v), dead);
      ck_assert_uint_ne(g2.node_of(g2.edge_target(e)), dead);
    }
  // A single failure admits no turn (see test_no_turns_without_cuts).
  ck_assert_uint_eq(g2.first_step_turn_edges() + g2.last_step_turn_edges(), 0);
}
END_TEST

// Without faults a DOR route from any channel (v, D) reaches every higher
// direction, so B(v, D) = {D' >= D} and Theorem 2 admits no turn.
START_TEST(test_no_turns_without_cuts) {
  for (const char* dims : {"4x4", "4x2x2x2", "3x3x3"}) {
    const ChannelDependencies cdg(Network(Torus::parse(dims)));
    ck_assert_uint_eq(cdg.first_step_turns() + cdg.last_step_turns(), 0);
  }
  const ChannelDependencies cdg(Network(Torus::parse("4x4")));
  ck_assert_uint_eq(cdg.used_directions(Torus::channel(6, dir("+X"))), dirs({"+X", "+Y", "-X", "-Y"}));
  ck_assert_uint_eq(cdg.used_directions(Torus::channel(6, dir("-X"))), dirs({"-X", "-Y"}));
  ck_assert_uint_eq(cdg.used_directions(Torus::channel(6, dir("-Y"))), dirs({"-Y"}));
  ck_assert_uint_eq(cdg.used_directions(Torus::channel(6, dir("+Z"))), 0);  // absent dimension
  // Base edges: DOR-compatible moves, U-turns included; no turn down in DOR.
  const NodeId right = 7;  // (3,1), the +X neighbour of 6 = (2,1)
  ck_assert(cdg.has_edge(Torus::channel(6, dir("+X")), Torus::channel(right, dir("+Y"))));
  ck_assert(cdg.has_edge(Torus::channel(6, dir("+X")), Torus::channel(right, dir("-X"))));
  ck_assert(!cdg.has_edge(Torus::channel(6, dir("+Y")), Torus::channel(10, dir("+X"))));
  ck_assert(!cdg.has_edge(Torus::channel(6, dir("+X")), Torus::channel(8, dir("+Y"))));  // not adjacent
}
END_TEST

// 3x3 with the +Y cables of row y = 1 failed (so also the -Y channels of row
// y = 2).  From (x,1)+X a DOR route runs along row 1 (+X, -X) and down with
// -Y, never up again: +Y is not in B((x,1), +X), so the FS turns
// (x,0)+Y -> (x,1)+X are admitted (3).  From (x,2)-X the route runs along row
// 2, whose -Y channels are dead: -Y is not in B((x,2), -X), so the LS turns
// (x,0)-Y -> (x,2)-X are admitted (3).  Rows 0 and 2 keep live +Y and rows 0
// and 1 live -Y, which bars every other candidate.  In the RG: one FS_Y
// vertex per (x,1) takes its turn (3 edges); the dirbit vertices at (x,2) whose
// last direction is -Y ({-Y}, {+X,-Y}, {-X,-Y}) take theirs (9 edges).
START_TEST(test_turns_where_faults_cut) {
  Network net(Torus::parse("3x3"));
  const Torus& t = net.torus();
  for (int x = 0; x < 3; ++x) net.fail_link(t.id({x, 1, 0, 0}), dir("+Y"));
  const RoutingGraph g(net);
  const ChannelDependencies& cdg = g.dependencies();
  ck_assert_uint_eq(cdg.first_step_turns(), 3);
  ck_assert_uint_eq(cdg.last_step_turns(), 3);
  for (int x = 0; x < 3; ++x) {
    ck_assert_uint_eq(cdg.turn_targets(Torus::channel(t.id({x, 0, 0, 0}), dir("+Y"))), dirs({"+X"}));
    ck_assert_uint_eq(cdg.turn_targets(Torus::channel(t.id({x, 0, 0, 0}), dir("-Y"))), dirs({"-X"}));
    ck_assert(cdg.has_edge(Torus::channel(t.id({x, 0, 0, 0}), dir("+Y")),
                           Torus::channel(t.id({x, 1, 0, 0}), dir("+X"))));
  }
  ck_assert_uint_eq(g.first_step_turn_edges(), 3);
  ck_assert_uint_eq(g.last_step_turn_edges(), 9);
  // The FS turn edge itself: FS_Y at (0,1) -> dirbit{+X} at (1,1).
  const std::vector<Edge> fs = out_edges(g, g.first_step_vertex(t.id({0, 1, 0, 0}), dir("+Y")));
  ck_assert(std::any_of(fs.begin(), fs.end(), [&](const Edge& e) {
    return e.target == g.dirbit_vertex(t.id({1, 1, 0, 0}), dirs({"+X"}));
  }));
  ck_assert_uint_eq(turns_inside_components(t, cdg_successors(cdg)), 0);
}
END_TEST

// Random heavily faulty small tori: B(c) equals the reachable directions of
// the augmented CDG, every consecutive hop pair the RG can produce is an edge
// of that CDG, and neither the CDG nor the RG's own pair graph has a turn
// inside a strongly connected component.
START_TEST(test_random_faulty_tori_deadlock_free) {
  std::mt19937 random(12345);
  const std::vector<std::vector<int>> shapes = {{3, 3}, {4, 3}, {4, 4}, {2, 3}, {3, 3, 2}, {4, 2, 3}, {2, 2, 2}};
  std::size_t turns_seen = 0, pairs_checked = 0;
  for (int trial = 0; trial < 70; ++trial) {
    const std::vector<int>& shape = shapes[static_cast<std::size_t>(trial) % shapes.size()];
    std::array<int, kMaxDims> sizes{1, 1, 1, 1};
    std::copy(shape.begin(), shape.end(), sizes.begin());
    Network net(Torus(sizes, static_cast<int>(shape.size())));
    const Torus& t = net.torus();
    const unsigned link_percent = 15 + 5 * static_cast<unsigned>(trial % 6);  // 15% .. 40%
    for (NodeId v = 0; v < t.node_count(); ++v) {
      for (int dim = 0; dim < kMaxDims; ++dim)
        if (t.dim_present(dim) && random() % 100 < link_percent) net.fail_link(v, Direction::make(dim, false));
      if (random() % 100 < 4) net.fail_node(v);
    }
    const RoutingGraph g(net);
    const ChannelDependencies& cdg = g.dependencies();
    turns_seen += cdg.first_step_turns() + cdg.last_step_turns();

    const std::vector<std::vector<ChannelId>> successors = cdg_successors(cdg);
    for (ChannelId c = 0; c < t.channel_slots(); ++c) {
      if (!cdg.channel_alive(c)) continue;
      std::uint8_t reach = 0;
      std::vector<unsigned char> seen(t.channel_slots(), 0);
      std::vector<ChannelId> queue{c};
      seen[c] = 1;
      for (std::size_t head = 0; head < queue.size(); ++head) {
        reach |= direction_bit(Torus::channel_direction(queue[head]));
        for (ChannelId next : successors[queue[head]])
          if (!seen[next]) {
            seen[next] = 1;
            queue.push_back(next);
          }
      }
      ck_assert_uint_eq(cdg.used_directions(c), reach);
    }
    ck_assert_uint_eq(turns_inside_components(t, successors), 0);

    std::vector<std::vector<ChannelId>> rg_pairs(t.channel_slots());
    for (VertexId v = 0; v < g.vertex_count(); ++v) {
      const ChannelId in = g.incoming_channel(v);
      if (in == kNoChannel || !cdg.channel_alive(in)) continue;  // begin, end, unreachable
      for (auto e = g.edges_begin(v); e < g.edges_end(v); ++e) {
        const ChannelId out = g.edge_channel(e);
        if (out == kNoChannel) continue;
        ck_assert(cdg.has_edge(in, out));
        rg_pairs[in].push_back(out);
        ++pairs_checked;
      }
    }
    ck_assert_uint_eq(turns_inside_components(t, rg_pairs), 0);
  }
  // The faults must actually have produced turns, or the test proves nothing.
  ck_assert_uint_gt(turns_seen, 20);
  ck_assert_uint_gt(pairs_checked, 10000);
}
END_TEST

START_TEST(test_path_reconstruction) {
  const RoutingGraph g(Network(Torus::parse("4x4")));
  const Torus& t = g.torus();
  const NodeId a = t.id({0, 0, 0, 0}), b = t.id({1, 0, 0, 0}), c = t.id({1, 3, 0, 0});
  // FS +X, then -Y: begin(a) -> FS_X(b) -> dirbit{-Y}(c) -> end(c).
  const std::vector<VertexId> path = {g.begin_vertex(a), g.first_step_vertex(b, dir("+X")),
                                      g.dirbit_vertex(c, dirs({"-Y"})), g.end_vertex(c)};
  Route from_path;
  from_path.hops = g.path_hops(path);
  ck_assert_std_str_eq(from_path.to_string(), "+X -Y");
  std::vector<VertexId> parent(g.vertex_count(), RoutingGraph::kNoVertex);
  for (std::size_t i = 1; i < path.size(); ++i) parent[path[i]] = path[i - 1];
  ck_assert_std_str_eq(g.route_from_parents(parent, a, c).to_string(), "+X -Y");
  bool threw = false;
  try {
    g.route_from_parents(parent, a, b);  // end(b) was never reached
  } catch (const std::logic_error&) {
    threw = true;
  }
  ck_assert(threw);
}
END_TEST

int main() {
  Suite* s = suite_create("routing_graph");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_vertices_per_node);
  tcase_add_test(tc, test_edges_per_node);
  tcase_add_test(tc, test_vertex_layout);
  tcase_add_test(tc, test_begin_and_dirbit_edges);
  tcase_add_test(tc, test_failures_remove_edges);
  tcase_add_test(tc, test_no_turns_without_cuts);
  tcase_add_test(tc, test_turns_where_faults_cut);
  tcase_add_test(tc, test_random_faulty_tori_deadlock_free);
  tcase_add_test(tc, test_path_reconstruction);
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
