// Node selection (placement/placement.hpp), its blocks (placement/blocks.hpp)
// and Slurm's order (placement/slurm_order.hpp): exact choices on small tori.
#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "routing/check/metrics.hpp"
#include "placement/block_choice.hpp"
#include "placement/blocks.hpp"
#include "placement/placement.hpp"
#include "placement/slurm_order.hpp"
#include "routing/check/verifier.hpp"
#include "routing/generator.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using angara_test::error_message;
using angara_test::node_at;

namespace {

const Torus kDesmos{{4, 2, 2, 2}};
// Desmos as built: one cable in Y, Z and K.
const Torus kSingleCabledDesmos = kDesmos.with_single_cable(dimension_bit(1) | dimension_bit(2) | dimension_bit(3));
const Torus k4x4 = Torus::parse("4x4");

// The x = `x` slab of Desmos (1x2x2x2): desmos{x, x+4, ..., x+28}.
std::vector<NodeId> slab(int x) {
  std::vector<NodeId> nodes;
  for (NodeId node = static_cast<NodeId>(x); node < 32; node += 4) nodes.push_back(node);
  return nodes;
}

std::string coords_text(const Torus& torus, const std::vector<NodeId>& nodes) {
  std::string text;
  for (NodeId node : nodes) text += (text.empty() ? "" : " ") + torus.format_coord(node);
  return text;
}

std::vector<unsigned char> free_only(const Torus& torus, const std::vector<NodeId>& nodes) {
  std::vector<unsigned char> free(torus.node_count(), 0);
  for (NodeId node : nodes) free[node] = 1;
  return free;
}

std::vector<NodeId> ids(const Torus& torus, std::initializer_list<const char*> coords) {
  std::vector<NodeId> nodes;
  for (const char* c : coords) nodes.push_back(node_at(torus, c));
  return nodes;
}

const Candidate& winner(const PlacementResult& result) { return result.compared.at(result.winner); }

}  // namespace

// On the double-cabled Desmos an 8-node slab 1x2x2x2 (three size-2
// dimensions, two cables each) routes at max gamma 2; the 4x2 block of the
// paper's Table 2 needs 4.  The first slab wins; the table is verified.
START_TEST(desmos_eight_nodes_get_a_slab) {
  const Network network(kDesmos);
  PlacementRequest request;
  request.node_count = 8;
  const PlacementResult result = select_nodes(network, request);
  ck_assert(result.nodes == slab(0));
  ck_assert(winner(result).kind == CandidateKind::block);
  ck_assert(winner(result).shape == (Shape{1, 2, 2, 2}));
  ck_assert(result.report.ok());
  ck_assert_uint_eq(result.report.metrics.max_gamma, 2);
  ck_assert_uint_eq(result.report.metrics.lower_bound, 2);
  ck_assert(result.table.nodes() == slab(0));
  // The 4x2 block was compared and lost on its routed max gamma.
  bool saw_4x2 = false;
  for (const Candidate& c : result.compared)
    if (c.kind == CandidateKind::block && c.shape == (Shape{4, 1, 1, 2})) {
      saw_4x2 = true;
      ck_assert(c.routable);
      ck_assert_uint_gt(c.max_gamma, 2);
    }
  ck_assert(saw_4x2);
}
END_TEST

// With slab 0 taken, slabs 1 and 3 both touch it (8 taken nodes in the
// layer next to them) and slab 2 touches nothing: the job packs against
// the running one, at the lower of the two origins.
START_TEST(desmos_packs_next_to_a_running_job) {
  const Network network(kDesmos);
  std::vector<NodeId> free;
  for (int x = 1; x < 4; ++x)
    for (NodeId node : slab(x)) free.push_back(node);
  PlacementRequest request;
  request.node_count = 8;
  request.free = free_only(kDesmos, free);
  const PlacementResult result = select_nodes(network, request);
  ck_assert(result.nodes == slab(1));
  ck_assert_uint_eq(winner(result).contact, 8);
}
END_TEST

// A shape asks for one orientation: 4x2 is desmos[00-07].
START_TEST(desmos_shape_4x2) {
  const Network network(kDesmos);
  PlacementRequest request;
  request.shape = parse_shape(kDesmos, "4x2");
  const PlacementResult result = select_nodes(network, request);
  std::vector<NodeId> expected{0, 1, 2, 3, 4, 5, 6, 7};
  ck_assert(result.nodes == expected);
  ck_assert(result.compared.size() == 1);
  ck_assert_uint_eq(result.report.metrics.max_gamma, 4);
}
END_TEST

// Channels running jobs' routes use steer the choice: a busy port on slab
// 0 sends the job to slab 1, and its routes share nothing with them.
START_TEST(busy_channels_steer_away) {
  const Network network(kDesmos);
  PlacementRequest request;
  request.node_count = 8;
  request.busy.assign(kDesmos.channel_slots(), 0);
  request.busy[Torus::channel(node_at(kDesmos, "0,1,0,0"), Direction::make(1, false))] = 3;
  const PlacementResult result = select_nodes(network, request);
  ck_assert(result.nodes == slab(1));
  ck_assert_uint_eq(winner(result).shared_channels, 0);
  ck_assert_uint_eq(winner(result).busy_ports, 0);
}
END_TEST

// add_busy_channels sums the loads of a table per channel slot.
START_TEST(busy_channels_from_a_table) {
  const Network network(kDesmos);
  PlacementRequest request;
  request.node_count = 8;
  const PlacementResult first = select_nodes(network, request);
  std::vector<std::uint64_t> busy;
  add_busy_channels(network, first.table, busy);
  add_busy_channels(network, first.table, busy);
  ck_assert_uint_eq(busy.size(), kDesmos.channel_slots());
  std::uint64_t max = 0;
  for (std::uint64_t load : busy) max = std::max(max, load);
  ck_assert_uint_eq(max, 4);  // twice the table's max gamma of 2
}
END_TEST

// On 4x4 a column (a whole ring of 4) and the nearest "plus" set
// {0,0 1,0 3,0 0,1}: with First/Last Steps (the default) the plus set routes
// at max gamma 1 against the ring's 2, but only through routers it does not
// own (1,1 and 3,1 carry its turns), where every route of the ring stays on
// the ring.  Isolation ranks first: the ring wins.  In direction order
// (balanced's turns: off) the ring wins too.
START_TEST(isolated_ring_beats_nearest_set) {
  const Network network(k4x4);
  PlacementRequest request;
  request.compare_slurm_runs = false;  // pins blocks against nearest sets
  request.node_count = 4;
  const PlacementResult with_turns = select_nodes(network, request);
  ck_assert(with_turns.nodes == ids(k4x4, {"0,0", "0,1", "0,2", "0,3"}));
  ck_assert(winner(with_turns).kind == CandidateKind::block);
  ck_assert_uint_eq(winner(with_turns).foreign_routers, 0);
  ck_assert_uint_eq(with_turns.report.metrics.max_gamma, 2);
  bool saw_plus = false;
  for (const Candidate& c : with_turns.compared)
    if (c.nodes == ids(k4x4, {"0,0", "1,0", "3,0", "0,1"})) {
      saw_plus = true;
      ck_assert_uint_eq(c.max_gamma, 1);
      ck_assert_uint_gt(c.foreign_routers, 0);
    }
  ck_assert(saw_plus);
  request.generator_options.extra["turns"] = "off";
  const PlacementResult result = select_nodes(network, request);
  ck_assert(result.nodes == ids(k4x4, {"0,0", "0,1", "0,2", "0,3"}));
  ck_assert_uint_eq(result.report.metrics.max_gamma, 2);
}
END_TEST

// No block of 3 fits the free nodes {0,0 1,0 1,1 2,2 3,3}: the two leading
// nearest sets are routed, {0,0 1,0 1,1} around 0,0 (1,1 before 3,3: same
// distance, lower id) and {1,0 1,1 2,2}, both at max gamma 1 (First/Last
// Steps); the first has the shorter mean route and wins.
START_TEST(nearest_set_when_no_block_fits) {
  const Network network(k4x4);
  PlacementRequest request;
  request.compare_slurm_runs = false;  // pins blocks against nearest sets
  request.node_count = 3;
  request.free = free_only(k4x4, ids(k4x4, {"0,0", "1,0", "1,1", "2,2", "3,3"}));
  const PlacementResult result = select_nodes(network, request);
  ck_assert_uint_eq(result.compared.size(), 2);
  ck_assert(result.compared[0].nodes == ids(k4x4, {"0,0", "1,0", "1,1"}));
  ck_assert(result.compared[1].nodes == ids(k4x4, {"1,0", "1,1", "2,2"}));
  ck_assert_uint_eq(result.compared[1].max_gamma, 1);
  ck_assert(result.nodes == ids(k4x4, {"0,0", "1,0", "1,1"}));
  ck_assert_uint_eq(winner(result).max_gamma, 1);
  ck_assert(winner(result).kind == CandidateKind::nearest);
  ck_assert(result.report.ok());
}
END_TEST

// With routers 3,1 0,2 1,2 failed, 3,2 is cut off from 0,1 (no
// Angara-encodable route avoids them): the generator fails on the nearest
// sets {0,1 2,1 3,2} and {0,0 0,1 3,2} (the two leading ones, lower bound
// first), the routability oracle says why, and the next set is chosen;
// never a set that cannot be routed.
START_TEST(unroutable_set_is_skipped) {
  Network network(k4x4);
  for (const char* c : {"3,1", "0,2", "1,2"}) network.fail_node(node_at(k4x4, c));
  PlacementRequest request;
  request.compare_slurm_runs = false;  // pins blocks against nearest sets
  request.node_count = 3;
  request.free = free_only(k4x4, ids(k4x4, {"0,0", "0,1", "2,1", "3,2"}));
  const PlacementResult result = select_nodes(network, request);
  ck_assert(result.compared.size() == 3);
  ck_assert(result.compared[0].nodes == ids(k4x4, {"0,1", "2,1", "3,2"}));
  ck_assert(result.compared[1].nodes == ids(k4x4, {"0,0", "0,1", "3,2"}));
  for (int i = 0; i < 2; ++i) {
    ck_assert(!result.compared[i].routable);
    ck_assert_std_str_eq(result.compared[i].failure,
                         "1 of 6 ordered pairs have no encodable route around the failures (routability oracle), "
                         "first 0,1 -> 3,2");
  }
  ck_assert(result.nodes == ids(k4x4, {"0,0", "0,1", "2,1"}));
  ck_assert(result.report.ok());
}
END_TEST

// On Desmos single-cabled in Y, Z and K the slab 1x2x2x2 has one cable per
// pair, so its bound is 4 (16 routes cross each dimension each way over 4
// channels), as the 4x2 block's: both classes are compared on that bound and
// every routed max gamma is at least the verifier's bound for its set.
START_TEST(single_cabled_desmos_bounds) {
  const Torus& single = kSingleCabledDesmos;
  const Network network(single);
  PlacementRequest request;
  request.node_count = 8;
  const PlacementResult result = select_nodes(network, request);
  bool saw_slab = false;
  for (const Candidate& c : result.compared) {
    ck_assert(c.routable);
    const RouteTable table = make_generator("balanced")->generate(network, c.nodes, GeneratorOptions{});
    ck_assert_uint_eq(c.lower_bound, verify(network, table, VerifyOptions{}).metrics.lower_bound);
    if (c.kind == CandidateKind::block && c.shape == (Shape{1, 2, 2, 2})) {
      saw_slab = true;
      ck_assert_uint_eq(c.lower_bound, 4);
    }
  }
  ck_assert(saw_slab);
  ck_assert(result.report.ok());
  ck_assert_uint_eq(result.report.metrics.max_gamma, winner(result).max_gamma);
}
END_TEST

// Slurm's own best fit competes: on 4x2 with 0,0 taken, the run along the
// node order is 1,0 2,0 3,0 0,1 (not a block), and the nested-block order
// (Y halves first, then the X ring) is the same; it is routed first, named
// a run.  The run routes at max gamma 2 through routers it does not own; the
// winner is the isolated X ring 0,1..3,1 (every route on its own ring), which
// leans on the taken 0,0.
START_TEST(slurm_runs_compete) {
  const Torus torus = Torus::parse("4x2");
  const Network network(torus);
  PlacementRequest request;
  request.node_count = 4;
  request.free = free_only(torus, ids(torus, {"1,0", "2,0", "3,0", "0,1", "1,1", "2,1", "3,1"}));
  const std::vector<NodeId> run = ids(torus, {"1,0", "2,0", "3,0", "0,1"});
  ck_assert(best_fit_run(nested_blocks(torus).order, request.free, 4) == run);
  const PlacementResult result = select_nodes(network, request);
  ck_assert(result.compared.front().kind == CandidateKind::run);
  ck_assert(result.compared.front().nodes == run);
  ck_assert(result.compared.front().routable);
  ck_assert_uint_gt(result.compared.front().foreign_routers, 0);
  ck_assert(result.nodes == ids(torus, {"0,1", "1,1", "2,1", "3,1"}));
  ck_assert_uint_eq(winner(result).foreign_routers, 0);
  ck_assert_uint_eq(winner(result).max_gamma, 2);
}
END_TEST

// Nested blocks of Desmos: K, Z, Y halves first (sub-tori), then the X ring.
START_TEST(nested_blocks_of_desmos) {
  const NestedBlocks blocks = nested_blocks(kDesmos);
  ck_assert_uint_eq(blocks.order.size(), 32);
  for (NodeId i = 0; i < 32; ++i) ck_assert_uint_eq(blocks.order[i], i);
  ck_assert(blocks.blocks[0].children.size() == 2);
  const NestedBlock& upper = blocks.blocks[blocks.blocks[0].children[1]];
  ck_assert(upper.shape == (Shape{4, 2, 2, 1}));
  ck_assert_std_str_eq(upper.path, "1");
  ck_assert_uint_eq(upper.first, 16);
  const NestedBlock& block = blocks.blocks[upper.children[0]];
  ck_assert(block.shape == (Shape{4, 2, 1, 1}));
  ck_assert_std_str_eq(block.path, "10");
  const Torus ring = Torus::parse("5");
  const NestedBlocks odd = nested_blocks(ring);
  ck_assert(odd.blocks[odd.blocks[0].children[0]].shape == (Shape{3, 1, 1, 1}));
  ck_assert(odd.blocks[odd.blocks[0].children[1]].origin == (Coord{3, 0, 0, 0}));
}
END_TEST

// topology/tree over slurm-conf's switches on Desmos (leaves of 8: the 4x2
// blocks desmos[00-07], [08-15], [16-23], [24-31]): the lowest switch that
// holds the job with the fewest free nodes, then leaves best fit, else the
// fullest leaf first.  Linear best fit takes a run across two leaves instead.
START_TEST(tree_best_fit_on_desmos) {
  std::vector<unsigned char> free(32, 1);
  for (NodeId node : {0, 1, 2, 3, 4, 5, 16, 17, 18, 19}) free[node] = 0;
  const NestedBlocks blocks = nested_blocks(kDesmos);
  const std::vector<NodeId> three{20, 21, 22};
  ck_assert(tree_best_fit(blocks, free, 3, 8) == three);
  const std::vector<NodeId> linear_three{6, 7, 8};
  ck_assert(best_fit_run(blocks.order, free, 3) == linear_three);
  const std::vector<NodeId> ten{6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  ck_assert(tree_best_fit(blocks, free, 10, 8) == ten);
  const std::vector<NodeId> eleven{20, 21, 22, 24, 25, 26, 27, 28, 29, 30, 31};
  ck_assert(tree_best_fit(blocks, free, 11, 8) == eleven);
  ck_assert_uint_eq(tree_best_fit(blocks, free, 22, 8).size(), 22);
  ck_assert(tree_best_fit(blocks, free, 23, 8).empty());
}
END_TEST

// Failed routers are never chosen, even when the free mask offers them.
START_TEST(failed_nodes_are_never_chosen) {
  Network network(k4x4);
  network.fail_node(node_at(k4x4, "0,0"));
  PlacementRequest request;
  request.node_count = 4;
  const PlacementResult result = select_nodes(network, request);
  ck_assert(result.nodes == ids(k4x4, {"1,0", "1,1", "1,2", "1,3"}));
}
END_TEST

START_TEST(requests_that_cannot_be_met) {
  const Network network(k4x4);
  PlacementRequest request;
  request.node_count = 7;
  request.free = free_only(k4x4, ids(k4x4, {"0,0", "1,0", "2,0", "3,0", "0,1", "1,1"}));
  ck_assert_std_str_eq(error_message<PlacementError>([&] { select_nodes(network, request); }),
                   "7 nodes asked, only 6 free live nodes on the 4x4 machine");
  request.node_count = 3;
  request.shape = parse_shape(k4x4, "2x2");
  ck_assert_std_str_eq(error_message<PlacementError>([&] { select_nodes(network, request); }), "shape 2x2 has 4 nodes, not 3");
  request.node_count = 0;
  request.free = free_only(k4x4, ids(k4x4, {"0,0", "1,0", "2,0", "3,0"}));
  ck_assert_std_str_eq(error_message<PlacementError>([&] { select_nodes(network, request); }),
                   "no free block of shape 2x2 on the 4x4 machine");
  request.shape.reset();
  ck_assert_std_str_eq(error_message<PlacementError>([&] { select_nodes(network, request); }),
                   "a node count (or a shape) is needed");
  request.node_count = 2;
  request.algorithm = "nosuch";
  ck_assert_std_str_eq(error_message<PlacementError>([&] { select_nodes(network, request); }),
                   "unknown routing algorithm 'nosuch' (valid: " + generator_names() + ")");
}
END_TEST

START_TEST(shapes_parse_and_print) {
  ck_assert(parse_shape(kDesmos, "2x2") == (Shape{2, 2, 1, 1}));
  ck_assert(parse_shape(kDesmos, "4x2x2x2") == (Shape{4, 2, 2, 2}));
  ck_assert_std_str_eq(format_shape(kDesmos, Shape{1, 2, 2, 2}), "1x2x2x2");
  ck_assert_std_str_eq(format_shape(k4x4, Shape{2, 4, 1, 1}), "2x4");
  ck_assert_std_str_eq(error_message<PlacementError>([] { parse_shape(k4x4, "5x1"); }),
                   "bad shape '5x1': size 5 of X is outside 1..4; expected up to 2 sizes separated by 'x', each at "
                   "most the machine's (4x4)");
  ck_assert_std_str_eq(error_message<PlacementError>([] { parse_shape(k4x4, "2x2x2"); }),
                   "bad shape '2x2x2': expected up to 2 sizes separated by 'x', each at most the machine's (4x4)");
  ck_assert_std_str_eq(error_message<PlacementError>([] { parse_shape(k4x4, "2xx2"); }),
                   "bad shape '2xx2': expected up to 2 sizes separated by 'x', each at most the machine's (4x4)");
  // A block wraps around the ring: 3,0 and 0,0 are neighbours.
  ck_assert(block_nodes(k4x4, Shape{2, 1, 1, 1}, Coord{3, 2, 0, 0}) == ids(k4x4, {"0,2", "3,2"}));
}
END_TEST

// 32 nodes of a 4x4x4: the halves (4x4x2 and its rotations, one class,
// led by the block ranking; more of them come as Slurm-like runs along the
// row-major orders, named blocks when a kept block is the same set) and the
// two leading nearest sets around 0,0,0 are compared.  The nearest sets
// route at max gamma 12 against the halves' 16, but through routers of the
// other half; the winner is a half (isolated), the lowest of the halves.
START_TEST(half_of_4x4x4) {
  const Network network(Torus::parse("4x4x4"));
  PlacementRequest request;
  request.node_count = 32;
  const PlacementResult result = select_nodes(network, request);
  std::size_t halves = 0;
  for (const Candidate& c : result.compared) {
    ck_assert(c.routable);
    if (c.kind == CandidateKind::nearest) {
      ck_assert_uint_eq(c.max_gamma, 12);
      ck_assert_uint_gt(c.foreign_routers, 0);
    } else {
      ck_assert_uint_eq(c.foreign_routers, 0);
      ck_assert_uint_le(winner(result).max_gamma, c.max_gamma);
      ++halves;
      Shape sorted = c.shape;
      std::sort(sorted.begin(), sorted.begin() + 3);
      ck_assert(sorted == (Shape{2, 4, 4, 1}));
      ck_assert_uint_eq(c.lower_bound, 16);
    }
  }
  ck_assert_uint_eq(halves, 3);  // the node-order run (4x4x2) and two blocks of other orientations
  ck_assert_uint_eq(winner(result).max_gamma, result.report.metrics.max_gamma);
}
END_TEST

// On a machine of more than 512 nodes, when no isolated block is free
// (every other node taken, like a chessboard) and routing the leading set
// is cheap (8 nodes), the candidates are scored in closed form and only the
// best two are routed, as configured; the winner is one of those two, and
// its table is the one verified.
START_TEST(large_machine_scores_then_routes_two) {
  const Torus torus = Torus::parse("8x8x16");
  const Network network(torus);
  PlacementRequest request;
  request.node_count = 8;
  request.free.assign(torus.node_count(), 0);
  for (NodeId node = 0; node < torus.node_count(); ++node) {
    const Coord c = torus.coord(node);
    request.free[node] = (c[0] + c[1] + c[2]) % 2 == 0;
  }
  const PlacementResult result = select_nodes(network, request);
  ck_assert(result.routed);
  ck_assert_uint_eq(result.compared.size(), 2);
  for (const Candidate& c : result.compared) {
    ck_assert(c.routable);
    ck_assert(c.routed);
    ck_assert(!c.closed_form);
    ck_assert(!c.estimate);
    ck_assert_uint_eq(c.nodes.size(), 8);
    for (NodeId node : c.nodes) ck_assert(request.free[node]);
  }
  ck_assert_uint_eq(winner(result).max_gamma, result.report.metrics.max_gamma);
  ck_assert(result.report.ok());
}
END_TEST

// On a machine of more than 512 nodes a free isolated block is chosen in
// closed form, without routing: its routes stay inside (0 foreign routers),
// its max load is its shape's bound, and the running jobs' routes on the
// channels between its routers are its shared channels.
START_TEST(large_machine_isolated_block_in_closed_form) {
  const Torus torus = Torus::parse("8x8x16");
  const Network network(torus);
  PlacementRequest request;
  request.node_count = 16;
  const PlacementResult result = select_nodes(network, request);
  ck_assert(!result.routed);
  ck_assert_uint_eq(result.table.size(), 0);
  const Candidate& w = winner(result);
  ck_assert(w.closed_form);
  ck_assert_uint_eq(w.kind == CandidateKind::block, 1);
  ck_assert_uint_eq(w.foreign_routers, 0);
  ck_assert_uint_eq(w.max_gamma, block_bound(torus, w.shape).bound);
  ck_assert_uint_eq(w.nodes.size(), 16);
  ck_assert(isolated_shape(torus, w.shape));
  for (const Candidate& c : result.compared) ck_assert_uint_le(w.lower_bound, c.lower_bound);

  // A running job whose region covers the winner's routers: the winner now
  // counts its channels as shared, and another block wins.
  std::vector<std::uint64_t> busy;
  add_region_channels(network, w.nodes, busy);
  request.busy = busy;
  const PlacementResult second = select_nodes(network, request);
  ck_assert(!second.routed);
  ck_assert(winner(second).nodes != w.nodes);
  ck_assert_uint_eq(winner(second).shared_channels, 0);
}
END_TEST

// A random half of 8x8x8x8 taken (angara-scale's linear cases draw it the
// same way): no block of 256 nodes is free, and routing a 256-node
// scattered set would take seconds, so the set is chosen in closed form;
// its estimated foreign routers come from its route region.
START_TEST(half_busy_8x8x8x8_in_closed_form) {
  const Torus torus = Torus::parse("8x8x8x8");
  const Network network(torus);
  std::vector<NodeId> order(torus.node_count());
  for (NodeId node = 0; node < torus.node_count(); ++node) order[node] = node;
  std::mt19937_64 random(6);
  std::shuffle(order.begin(), order.end(), random);
  PlacementRequest request;
  request.node_count = 256;
  request.free.assign(torus.node_count(), 1);
  for (std::size_t i = 0; i < order.size() / 2; ++i) request.free[order[i]] = 0;
  const PlacementResult result = select_nodes(network, request);
  ck_assert(!result.routed);
  const Candidate& w = winner(result);
  ck_assert(w.closed_form);
  ck_assert_uint_eq(w.nodes.size(), 256);
  for (NodeId node : w.nodes) ck_assert(request.free[node]);
  const RouteRegion region = route_region(torus, w.nodes);
  ck_assert_uint_eq(w.foreign_routers, shape_volume(region.shape) - 256);
  ck_assert_uint_gt(w.max_gamma, 0);
  ck_assert_double_le(result.seconds, 1.0);  // milliseconds here; seconds when it routed
}
END_TEST

// The route region: the shortest cyclic arc of the coordinates per
// dimension, the whole ring when that arc is not isolated; its channels;
// the volume bound and the largest free isolated block.
START_TEST(route_regions_and_volume_bounds) {
  const Torus t8 = Torus::parse("8x8");
  const RouteRegion wrap = route_region(t8, ids(t8, {"7,0", "0,0", "1,1"}));
  ck_assert(wrap.shape == (Shape{3, 2, 1, 1}));
  ck_assert_int_eq(wrap.origin[0], 7);
  const RouteRegion wide = route_region(t8, ids(t8, {"0,0", "4,0"}));
  ck_assert(wide.shape == (Shape{8, 1, 1, 1}));  // 0 and 4: as near either way round
  const Network network(t8);
  // A 3x2 block: 2 * (2 * 2) X channels and 2 * 3 Y channels.
  ck_assert_uint_eq(region_channels(network, wrap).size(), 14);
  // A whole ring of 8: each node is 1, 1, 2, 2, 3, 3 and 4 hops from the others.
  std::vector<NodeId> ring;
  for (int x = 0; x < 8; ++x) ring.push_back(t8.id(Coord{x, 0, 0, 0}));
  const IntactBound bound = region_bound(t8, ring);
  ck_assert_uint_eq(bound.bound, 8);  // 8 nodes x 16 hops = 128 hops over 16 channels
  ck_assert_double_eq_tol(bound.distance, 128.0 / 56.0, 1e-9);

  std::vector<unsigned char> free(t8.node_count(), 1);
  for (int y = 0; y < 8; ++y) free[t8.id(Coord{3, y, 0, 0})] = 0;  // a wall at X = 3
  const std::optional<FreeBlock> largest = largest_free_block(network, free);
  ck_assert(largest.has_value());
  ck_assert_uint_eq(largest->nodes.size(), 32);  // 4x8: 7 free columns, and 4 is the longest isolated arc
  for (NodeId node : largest->nodes) ck_assert(free[node]);

  // One wall leaves the 56 free nodes connected round the X ring; a second
  // at X = 6 cuts them into 2 columns (16 nodes) and 4 columns (32).
  ck_assert_uint_eq(largest_free_component(network, free), 56);
  for (int y = 0; y < 8; ++y) free[t8.id(Coord{6, y, 0, 0})] = 0;
  ck_assert_uint_eq(largest_free_component(network, free), 32);
  // Failed cables between X = 0 and 1 on every row cut the 32 into two
  // 16s; a failed router in each of the three 16s leaves 15.
  Network cut(t8);
  for (int y = 0; y < 8; ++y) cut.fail_link(t8.id(Coord{0, y, 0, 0}), Direction::make(0, false));
  ck_assert_uint_eq(largest_free_component(cut, free), 16);
  for (int x : {0, 1, 4}) {
    ck_assert_uint_eq(largest_free_component(cut, free), 16);
    cut.fail_node(t8.id(Coord{x, 0, 0, 0}));
  }
  ck_assert_uint_eq(largest_free_component(cut, free), 15);
}
END_TEST

// isolated_shape: per dimension 1, the whole ring, or an arc whose inside
// way is strictly the shorter (2 * (extent - 1) < size).
START_TEST(isolated_shapes) {
  const Torus t8 = Torus::parse("8x8x4");
  ck_assert(isolated_shape(t8, Shape{4, 8, 1, 1}));   // 2*3 = 6 < 8; a whole ring
  ck_assert(!isolated_shape(t8, Shape{5, 1, 1, 1}));  // 2*4 = 8: 0 and 4 are as near round the outside
  ck_assert(isolated_shape(t8, Shape{8, 8, 4, 1}));
  ck_assert(isolated_shape(t8, Shape{2, 2, 2, 1}));
  ck_assert(!isolated_shape(t8, Shape{1, 1, 3, 1}));  // 2*2 = 4 on the ring of 4
  ck_assert(isolated_shape(kDesmos, Shape{2, 2, 2, 1}));
}
END_TEST

// The geometric choice alone (the select plugin's): four 8-node jobs in a
// row on Desmos get four disjoint isolated blocks that tile the machine; a
// down router is never in a block; 7 nodes (no block shape of 7
// fits: 7x1 is longer than the ring of 4) get the smallest free isolated
// box, 8 nodes.
START_TEST(block_choice_tiles_desmos) {
  Network network(kDesmos);
  BlockChoiceRequest request;
  request.node_count = 8;
  request.free.assign(kDesmos.node_count(), 1);
  std::vector<unsigned char> owner(kDesmos.node_count(), 0);
  for (int job = 1; job <= 4; ++job) {
    const BlockChoice choice = choose_free_block(network, request);
    ck_assert_uint_eq(choice.blocks.size(), 1);
    ck_assert(choice.exact);
    const FreeBlock& block = choice.blocks.front();
    ck_assert(block.isolated);
    ck_assert_uint_eq(block.nodes.size(), 8);
    if (job > 1) ck_assert_uint_gt(block.contact, 0);  // leans on the earlier jobs
    for (NodeId node : block.nodes) {
      ck_assert_uint_eq(owner[node], 0);
      owner[node] = static_cast<unsigned char>(job);
      request.free[node] = 0;
    }
  }
  ck_assert(std::find(owner.begin(), owner.end(), 0) == owner.end());
  const BlockChoice none = choose_free_block(network, request);
  ck_assert(none.blocks.empty());
  ck_assert_std_str_eq(none.reason, "8 nodes asked, 0 free");

  network.fail_node(node_at(kDesmos, "1,1,0,0"));  // desmos05
  BlockChoiceRequest with_failure;
  with_failure.node_count = 16;
  const BlockChoice sixteen = choose_free_block(network, with_failure);
  ck_assert_uint_eq(sixteen.blocks.size(), 1);
  for (NodeId node : sixteen.blocks.front().nodes) ck_assert(network.node_alive(node));
  ck_assert(sixteen.blocks.front().isolated);

  BlockChoiceRequest seven;
  seven.node_count = 7;
  const BlockChoice box = choose_free_block(Network(kDesmos), seven);
  ck_assert(!box.exact);
  ck_assert_uint_eq(box.blocks.front().nodes.size(), 8);
  ck_assert(box.blocks.front().isolated);
}
END_TEST

// block_bound's closed form agrees with the pair scan of intact_bound on
// every shape of every volume of these machines (isolated or not, one and
// two cables in the size-2 dimensions, rings of 3 to 8).
START_TEST(block_bound_matches_the_pair_scan) {
  std::size_t compared = 0;
  for (const Torus& torus : {kDesmos, kSingleCabledDesmos,
                             Torus::parse("8x8x4"), Torus::parse("5x3x6"), Torus::parse("3x3x3x3"), Torus::parse("7x2")})
    for (std::size_t volume = 1; volume <= torus.node_count(); ++volume)
      for (const Shape& shape : shapes_of_volume(torus, volume)) {
        const IntactBound fast = block_bound(torus, shape);
        const IntactBound scanned = intact_bound(torus, block_nodes(torus, shape, Coord{}));
        ck_assert_msg(fast.bound == scanned.bound && std::abs(fast.distance - scanned.distance) < 1e-9,
                      "%s %s: %lu/%f against %lu/%f", torus.to_string().c_str(), format_shape(torus, shape).c_str(),
                      static_cast<unsigned long>(fast.bound), fast.distance, static_cast<unsigned long>(scanned.bound),
                      scanned.distance);
        ++compared;
      }
  ck_assert_uint_gt(compared, 500);
}
END_TEST

// routing.confine: a block's routes are computed inside it, so its
// dimensions it spans in part are lines.  A line of 5 on a ring of 8:
// ordered-pair hops 2 x (4x1 + 3x2 + 2x3 + 1x4) = 40 over its 8 channels,
// bound 5, mean distance 40 / 20 = 2; unconfined, the ring's way round
// gives 36 hops (distances 1, 2, 3, 4 and 4 round) over the same pairs.
START_TEST(confined_block_bound_is_the_line_s) {
  const Torus ring = Torus::parse("8");
  const IntactBound line = block_bound(ring, Shape{5, 1, 1, 1}, true);
  ck_assert_uint_eq(line.bound, 5);
  ck_assert(std::abs(line.distance - 2.0) < 1e-12);
  // An isolated shape is the same either way.
  const Torus t8x8 = Torus::parse("8x8");
  const IntactBound isolated = block_bound(t8x8, Shape{4, 3, 1, 1}, true);
  const IntactBound plain = block_bound(t8x8, Shape{4, 3, 1, 1});
  ck_assert_uint_eq(isolated.bound, plain.bound);
  ck_assert(std::abs(isolated.distance - plain.distance) < 1e-12);
}
END_TEST

// The staircase of a box: its last nodes in the box's own order.  A 4x2
// box at 1,6 of 8x8 (wrapping in Y), 5 nodes: the whole row y = 7 and the
// last node of the row y = 6.
START_TEST(box_staircase_takes_the_top_rows) {
  const Torus t8x8 = Torus::parse("8x8");
  const std::vector<NodeId> stairs = box_staircase(t8x8, Shape{4, 2, 1, 1}, Coord{1, 6, 0, 0}, 5);
  ck_assert_std_str_eq(coords_text(t8x8, stairs), "4,6 1,7 2,7 3,7 4,7");
  ck_assert_std_str_eq(error_message<PlacementError>([&] { box_staircase(t8x8, Shape{2, 2, 1, 1}, Coord{}, 5); }),
                       "a staircase of more nodes than its box");
}
END_TEST

// With confine, a 5-node job on an empty 8x8 gets an exact 5x1 line (not
// an isolated shape, routed inside); without, the smallest isolated box.
// A 5-node job with only a 3x3 box free takes the box's staircase.
START_TEST(confined_choice_takes_any_shape) {
  const Network network(Torus::parse("8x8"));
  BlockChoiceRequest request;
  request.node_count = 5;
  const BlockChoice plain = choose_free_block(network, request);
  ck_assert(!plain.exact);
  ck_assert_uint_eq(plain.blocks.front().nodes.size(), 6);
  request.confined = true;
  const BlockChoice confined = choose_free_block(network, request);
  ck_assert(confined.exact);
  ck_assert(!confined.staircase);
  ck_assert(confined.blocks.front().confined);
  ck_assert_uint_eq(shape_volume(confined.blocks.front().shape), 5);
  ck_assert_uint_eq(confined.blocks.front().nodes.size(), 5);

  request.free = free_only(network.torus(), block_nodes(network.torus(), Shape{3, 3, 1, 1}, Coord{2, 2, 0, 0}));
  const BlockChoice box = choose_free_block(network, request);
  ck_assert(!box.exact);
  const FreeBlock& six = box.blocks.front();
  ck_assert_uint_eq(shape_volume(six.shape), 6);
  ck_assert(six.nodes == box_staircase(network.torus(), six.shape, six.origin, 5));
  for (NodeId node : six.nodes) ck_assert(request.free[node]);
}
END_TEST

// A free staircase is routed on its own routers alone, in direction order,
// on any free pattern: seeded random masks of 8x8, 4x4x4 and Desmos (one
// cable in Y, Z and K), every count the pattern holds a staircase of.  A
// set that breaks the filter property (or an anchor at 0 of a single-cabled
// dimension) leaves pairs without a route inside it and fails here.
START_TEST(free_staircases_route_on_their_own_routers) {
  const std::unique_ptr<Generator> balanced = make_generator("balanced");
  const GeneratorOptions dor = balanced->scoring_options(GeneratorOptions{}).value_or(GeneratorOptions{});
  std::mt19937 random(7);
  std::size_t routed = 0;
  for (const Torus& torus : {Torus::parse("8x8"), Torus::parse("4x4x4"),
                             kSingleCabledDesmos}) {
    const Network network(torus);
    for (int round = 0; round < 40; ++round) {
      std::vector<unsigned char> free(torus.node_count(), 0);
      for (auto& f : free) f = std::uniform_int_distribution<int>(0, 99)(random) < 60;
      for (std::size_t count : {3, 5, 8, 12, 16, 24}) {
        const std::optional<FreeBlock> stairs = free_staircase(network, free, count);
        if (!stairs) continue;
        ck_assert_uint_eq(stairs->nodes.size(), count);
        for (NodeId node : stairs->nodes) ck_assert(free[node]);
        const Network own = confined_to(network, stairs->nodes);
        const RouteTable table = balanced->generate(own, stairs->nodes, dor);
        ck_assert_msg(verify(own, table, VerifyOptions{}).ok(), "%s: %s", torus.to_string().c_str(),
                      coords_text(torus, stairs->nodes).c_str());
        ++routed;
      }
    }
  }
  ck_assert_uint_gt(routed, 300);

  // An L with its corner at the low end is no staircase, with or without
  // skin, and indeed has no table on its own routers: from 0,2 to 2,0 a
  // route must take +X before -Y, and 1,2 is not in the set.
  const Network square(Torus::parse("8x8"));
  const std::vector<NodeId> l_shape = ids(square.torus(), {"0,0", "1,0", "2,0", "0,1", "0,2"});
  const std::vector<unsigned char> only_l = free_only(square.torus(), l_shape);
  ck_assert(!free_staircase(square, only_l, 5));
  ck_assert(!free_staircase(square, only_l, 5, 1000, true));
  ck_assert_std_str_eq(error_message([&] { balanced->generate(confined_to(square, l_shape), l_shape, dor); }).substr(0, 9),
                       "balanced:");
}
END_TEST

// routing.confine in select: each candidate is routed on its own routers
// first, and the confined choice (here a staircase) competes.  Five nodes
// of single-cabled Desmos have no block; without confinement the best set's
// routes cross routers it does not own, with it the staircase wins and
// every route stays on its own channels.  On 8x8x8x8 (scored in closed
// form) 7 nodes have no isolated block; the line 7x1x1x1 routed confined
// is isolated all the same, and so is a block of 100, unrouted.
START_TEST(select_under_confine) {
  const Torus& desmos = kSingleCabledDesmos;
  const Network network(desmos);
  PlacementRequest request;
  request.node_count = 5;
  const PlacementResult open = select_nodes(network, request);
  ck_assert_uint_gt(winner(open).foreign_routers, 0);
  ck_assert(!winner(open).confined);
  request.confine = true;
  const PlacementResult confined = select_nodes(network, request);
  const Candidate& w = winner(confined);
  ck_assert_str_eq(candidate_kind_name(w.kind), "staircase");
  ck_assert(w.confined);
  ck_assert_uint_eq(w.foreign_routers, 0);
  ck_assert(confined.report.ok());
  std::vector<unsigned char> own = free_only(desmos, confined.nodes);
  const std::vector<std::uint64_t> loads = channel_loads(network, confined.table);
  for (ChannelId c = 0; c < loads.size(); ++c)
    if (loads[c]) {
      const NodeId from = Torus::channel_node(c);
      ck_assert(own[from] && own[desmos.neighbor(from, Torus::channel_direction(c))]);
    }

  const Torus big = Torus::parse("8x8x8x8");
  const Network big_network(big);
  PlacementRequest line;
  line.node_count = 7;
  ck_assert_uint_gt(winner(select_nodes(big_network, line)).foreign_routers, 0);
  line.confine = true;
  const PlacementResult big_result = select_nodes(big_network, line);
  ck_assert(winner(big_result).confined);
  ck_assert_uint_eq(winner(big_result).foreign_routers, 0);
  ck_assert_uint_eq(big_result.nodes.size(), 7);
  // 100 nodes: every shape has an extent of 5 (not isolated on a ring of
  // 8), and routing 100 nodes here would cost too much: the confined block
  // wins in closed form, isolated, its routes left to the prologue.
  line.node_count = 100;
  const PlacementResult hundred = select_nodes(big_network, line);
  ck_assert(!hundred.routed);
  ck_assert(winner(hundred).closed_form && winner(hundred).confined);
  ck_assert_uint_eq(winner(hundred).foreign_routers, 0);
  ck_assert_str_eq(candidate_kind_name(winner(hundred).kind), "block");
  ck_assert_uint_eq(shape_volume(winner(hundred).shape), 100);
}
END_TEST

int main() {
  Suite* suite = suite_create("placement");
  TCase* tc = tcase_create("select");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, desmos_eight_nodes_get_a_slab);
  tcase_add_test(tc, large_machine_scores_then_routes_two);
  tcase_add_test(tc, large_machine_isolated_block_in_closed_form);
  tcase_add_test(tc, half_busy_8x8x8x8_in_closed_form);
  tcase_add_test(tc, route_regions_and_volume_bounds);
  tcase_add_test(tc, desmos_packs_next_to_a_running_job);
  tcase_add_test(tc, desmos_shape_4x2);
  tcase_add_test(tc, busy_channels_steer_away);
  tcase_add_test(tc, busy_channels_from_a_table);
  tcase_add_test(tc, isolated_ring_beats_nearest_set);
  tcase_add_test(tc, nearest_set_when_no_block_fits);
  tcase_add_test(tc, unroutable_set_is_skipped);
  tcase_add_test(tc, single_cabled_desmos_bounds);
  tcase_add_test(tc, failed_nodes_are_never_chosen);
  tcase_add_test(tc, slurm_runs_compete);
  tcase_add_test(tc, nested_blocks_of_desmos);
  tcase_add_test(tc, tree_best_fit_on_desmos);
  tcase_add_test(tc, requests_that_cannot_be_met);
  tcase_add_test(tc, shapes_parse_and_print);
  tcase_add_test(tc, half_of_4x4x4);
  tcase_add_test(tc, isolated_shapes);
  tcase_add_test(tc, block_choice_tiles_desmos);
  tcase_add_test(tc, block_bound_matches_the_pair_scan);
  tcase_add_test(tc, confined_block_bound_is_the_line_s);
  tcase_add_test(tc, box_staircase_takes_the_top_rows);
  tcase_add_test(tc, confined_choice_takes_any_shape);
  tcase_add_test(tc, free_staircases_route_on_their_own_routers);
  tcase_add_test(tc, select_under_confine);
  suite_add_tcase(suite, tc);
  return angara_test::run_suite(suite);
}
