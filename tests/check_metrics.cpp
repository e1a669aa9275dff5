// Channel loads, balance metrics and the per-dimension lower bound
// (routing/check/metrics.hpp), against values computed by hand.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "routing/check/metrics.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using angara_test::all_nodes;
using angara_test::block;
using angara_test::dor_table;
using angara_test::set_route;

namespace {

const Direction kPlusX = Direction::make(0, false);
const Direction kMinusX = Direction::make(0, true);

void check_terms(const DimensionBoundTerms& term, std::uint64_t hops, std::uint64_t channels) {
  ck_assert_uint_eq(term.hops, hops);
  ck_assert_uint_eq(term.channels, channels);
}

}  // namespace

// 4-node ring (4x1), every pair sent the +X way only: s -> s+k takes k hops
// of +X.  Each source puts 1 + 2 + 3 = 6 hops on +X, so every +X channel
// carries 4 * 6 / 4 = 6 and every -X channel 0.  Over the 8 channels the
// average is 3 and every channel deviates by exactly 3, so sigma(4) = 3.
// Route lengths: 4 * (1 + 2 + 3) / 12 = 2 on average, 3 at most.
START_TEST(test_ring_all_plus_x) {
  const Torus torus = Torus::parse("4x1");
  const Network network(torus);
  RouteTable table(all_nodes(torus));
  for (std::size_t s = 0; s < 4; ++s)
    for (std::size_t d = 0; d < 4; ++d)
      if (s != d) table.set_route(s, d, Route{std::vector<Direction>((d + 4 - s) % 4, kPlusX)});

  const auto loads = channel_loads(network, table);
  for (NodeId n = 0; n < 4; ++n) {
    ck_assert_uint_eq(loads[Torus::channel(n, kPlusX)], 6);
    ck_assert_uint_eq(loads[Torus::channel(n, kMinusX)], 0);
  }
  const Metrics m = compute_metrics(network, table);
  ck_assert_uint_eq(m.channels, 8);
  ck_assert_uint_eq(m.max_gamma, 6);
  ck_assert_uint_eq(m.min_gamma, 0);
  ck_assert_double_eq_tol(m.avg_gamma, 3.0, 1e-12);
  ck_assert_double_eq_tol(m.sigma4, 3.0, 1e-12);
  ck_assert_int_eq(m.max_hops, 3);
  ck_assert_double_eq_tol(m.avg_hops, 2.0, 1e-12);
  // Bound: each source has X distances 1 + 2 + 1 = 4, 16 in all, over the
  // 8 X channels: 2.
  ck_assert_double_eq_tol(m.dim_bound[0], 2.0, 1e-12);
  ck_assert_uint_eq(m.lower_bound, 2);
}
END_TEST

// The same ring routed minimally: s+1 by +X, s-1 by -X, s+2 by +X +X.  Each
// source loads +X with 1 + 2 = 3 hops and -X with 1, so +X channels carry 3,
// -X channels 1; average 2, every deviation 1, sigma(4) = 1.  Average length
// (1 + 1 + 2) / 3 = 4/3.
START_TEST(test_ring_minimal) {
  const Torus torus = Torus::parse("4x1");
  const Network network(torus);
  RouteTable table(all_nodes(torus));
  for (std::size_t s = 0; s < 4; ++s) {
    table.set_route(s, (s + 1) % 4, Route{{kPlusX}});
    table.set_route(s, (s + 2) % 4, Route{{kPlusX, kPlusX}});
    table.set_route(s, (s + 3) % 4, Route{{kMinusX}});
  }
  const Metrics m = compute_metrics(network, table);
  ck_assert_uint_eq(m.max_gamma, 3);
  ck_assert_uint_eq(m.min_gamma, 1);
  ck_assert_double_eq_tol(m.avg_gamma, 2.0, 1e-12);
  ck_assert_double_eq_tol(m.sigma4, 1.0, 1e-12);
  ck_assert_int_eq(m.max_hops, 2);
  ck_assert_double_eq_tol(m.avg_hops, 4.0 / 3.0, 1e-12);
  ck_assert_uint_eq(m.lower_bound, 2);
}
END_TEST

// The dimension-order table of the whole Desmos machine (4x2x2x2, + on the
// size-2 dimensions).  Per source: +X carries dx=1 (8 destinations, 1 hop)
// and dx=2 (8 destinations, 2 hops) = 24, -X carries dx=3: 8; +Y, +Z, +K
// carry 16 each, the - cables of size-2 dimensions nothing.  Spread over the
// 32 channels of each direction: +X 24, -X 8, +Y/+Z/+K 16, -Y/-Z/-K 0.
// Total 32 * (24 + 8 + 3 * 16) = 2560 over 256 channels: average 10.
// Fourth powers of the deviations: 32 * 14^4 + 32 * 2^4 + 96 * 6^4 + 96 * 10^4
// = 2314240, / 256 = 9040, sigma(4) = 9040^(1/4).  Lengths: 80 hops per
// source over 31 destinations, at most 2 + 1 + 1 + 1 = 5.
START_TEST(test_desmos_dor_metrics) {
  const Torus torus = Torus::parse("4x2x2x2");
  const Network network(torus);
  const RouteTable table = dor_table(torus, all_nodes(torus));
  const Metrics m = compute_metrics(network, table);
  ck_assert_uint_eq(m.channels, 256);
  ck_assert_uint_eq(m.max_gamma, 24);
  ck_assert_uint_eq(m.min_gamma, 0);
  ck_assert_double_eq_tol(m.avg_gamma, 10.0, 1e-12);
  ck_assert_double_eq_tol(m.sigma4, std::pow(9040.0, 0.25), 1e-9);
  ck_assert_int_eq(m.max_hops, 5);
  ck_assert_double_eq_tol(m.avg_hops, 80.0 / 31.0, 1e-12);
  ck_assert_uint_eq(m.lower_bound, 16);
}
END_TEST

// Measured channels of a block are the block's own channels: the Desmos 4x2
// block (z = k = 0) has 8 nodes * 2 X channels + 8 * 2 Y channels = 32.  A
// route that borrows a channel outside the block adds that channel.
START_TEST(test_measured_channels_of_block) {
  const Torus torus = Torus::parse("4x2x2x2");
  const Network network(torus);
  RouteTable table(block(torus, {4, 2, 1, 1}));
  std::vector<std::uint64_t> loads(torus.channel_slots(), 0);
  ck_assert_uint_eq(measured_channels(network, table, loads).size(), 32);

  set_route(table, torus, "0,0,0,0", "1,0,0,0", "+Z +X -Z");
  loads = channel_loads(network, table);
  ck_assert_uint_eq(loads[Torus::channel(torus.id({0, 0, 1, 0}), kPlusX)], 1);
  const auto measured = measured_channels(network, table, loads);
  // +Z from 0,0,0,0 and +X, -Z from 0,0,1,0 leave the block.
  ck_assert_uint_eq(measured.size(), 35);
  const Metrics m = compute_metrics(network, table);
  ck_assert_uint_eq(m.channels, 35);
  ck_assert_uint_eq(m.max_gamma, 1);
  ck_assert_uint_eq(m.min_gamma, 0);
  ck_assert_int_eq(m.max_hops, 3);
}
END_TEST

// Whole Desmos: X distances per source 0+1+2+1 = 4 for each of 8 (y,z,k),
// so 32 * 32 = 1024 over the 64 X channels: 16.  Y: 16 destinations at
// distance 1 per source, 512 over 64: 8; Z and K the same.
START_TEST(test_bound_desmos_whole) {
  const Torus torus = Torus::parse("4x2x2x2");
  const Network network(torus);
  const auto terms = dimension_bound_terms(network, all_nodes(torus));
  check_terms(terms[0], 1024, 64);
  check_terms(terms[1], 512, 64);
  check_terms(terms[2], 512, 64);
  check_terms(terms[3], 512, 64);
  ck_assert_uint_eq(integer_lower_bound(terms), 16);
  const auto bounds = dimension_lower_bounds(network, all_nodes(torus));
  ck_assert_double_eq_tol(bounds[0], 16.0, 1e-12);
  ck_assert_double_eq_tol(bounds[3], 8.0, 1e-12);
}
END_TEST

// The model's table: 4x2 block (8 nodes) bound 4, 4x2x2 block (16) bound 8.
// 4x2 block: X distances 4 per source for each of 2 y values = 8, 8 * 8 = 64
// over the block's 16 X channels: 4; Y: 4 destinations per source, 32 over 16
// Y channels: 2; Z and K carry nothing and give 0.
// 4x2x2 block: X 16 per source, 256 over 32: 8; Y and Z 8 per source, 128
// over 32: 4.
START_TEST(test_bound_desmos_blocks) {
  const Torus torus = Torus::parse("4x2x2x2");
  const Network network(torus);
  const auto small = dimension_bound_terms(network, block(torus, {4, 2, 1, 1}));
  check_terms(small[0], 64, 16);
  check_terms(small[1], 32, 16);
  check_terms(small[2], 0, 0);
  check_terms(small[3], 0, 0);
  ck_assert_uint_eq(integer_lower_bound(small), 4);
  const auto bounds = dimension_lower_bounds(network, block(torus, {4, 2, 1, 1}));
  ck_assert_double_eq_tol(bounds[1], 2.0, 1e-12);
  ck_assert_double_eq_tol(bounds[2], 0.0, 1e-12);

  const auto medium = dimension_bound_terms(network, block(torus, {4, 2, 2, 1}));
  check_terms(medium[0], 256, 32);
  check_terms(medium[1], 128, 32);
  check_terms(medium[2], 128, 32);
  check_terms(medium[3], 0, 0);
  ck_assert_uint_eq(integer_lower_bound(medium), 8);
}
END_TEST

// 4x4 whole: X distances 0+1+2+1 = 4 for each of 4 y values, 16 per source,
// 256 over 32 X channels: 8, Y the same.  3x3 whole: 0+1+1 = 2 for each of 3
// y values, 6 per source, 54 over 18 X channels: 3.
START_TEST(test_bound_square_tori) {
  const Torus t44 = Torus::parse("4x4");
  const auto terms44 = dimension_bound_terms(Network(t44), all_nodes(t44));
  check_terms(terms44[0], 256, 32);
  check_terms(terms44[1], 256, 32);
  ck_assert_uint_eq(integer_lower_bound(terms44), 8);

  const Torus t33 = Torus::parse("3x3");
  const auto terms33 = dimension_bound_terms(Network(t33), all_nodes(t33));
  check_terms(terms33[0], 54, 18);
  check_terms(terms33[1], 54, 18);
  ck_assert_uint_eq(integer_lower_bound(terms33), 3);
  // Dimension order on 3x3 loads every channel with exactly 3 (each
  // direction gets 3 hops per source by symmetry): it meets the bound.
  const Metrics m = compute_metrics(Network(t33), dor_table(t33, all_nodes(t33)));
  ck_assert_uint_eq(m.max_gamma, 3);
  ck_assert_uint_eq(m.min_gamma, 3);
  ck_assert_double_eq_tol(m.sigma4, 0.0, 1e-12);
  ck_assert_uint_eq(m.lower_bound, 3);
}
END_TEST

// Only channels on some minimal path count.
// Ring of 8, nodes {0,1,2}: distances 1, 2, 1, ordered 8; minimal paths use
// +X at 0 and 1 and -X at 2 and 1: 4 channels, bound 2.
// 4x4, nodes {(0,0),(1,1)}: X traffic 2; (0,0)->(1,1) may take +X at x=0 on
// either row y=0 or y=1 (y lies on its arc 0..1), the way back -X at x=1 on
// the same rows: 4 channels, 0.5, rounded up to 1.
// 4x4, nodes {(0,0),(1,2)}: y is equidistant (2 each way) so every row is on
// some arc: X 2 over 8; Y 4 over all 16 Y channels of columns 0 and 1.
// Ring of 6, nodes {0,3}: equidistant, both arcs, all 12 channels, 6 / 12.
START_TEST(test_bound_partial_allocations) {
  const Torus ring8 = Torus::parse("8");
  const auto terms8 = dimension_bound_terms(Network(ring8), {0, 1, 2});
  check_terms(terms8[0], 8, 4);
  ck_assert_uint_eq(integer_lower_bound(terms8), 2);

  const Torus t44 = Torus::parse("4x4");
  const Network n44(t44);
  const auto diagonal = dimension_bound_terms(n44, {t44.id({0, 0, 0, 0}), t44.id({1, 1, 0, 0})});
  check_terms(diagonal[0], 2, 4);
  check_terms(diagonal[1], 2, 4);
  ck_assert_uint_eq(integer_lower_bound(diagonal), 1);
  const auto bounds = dimension_lower_bounds(n44, {t44.id({0, 0, 0, 0}), t44.id({1, 1, 0, 0})});
  ck_assert_double_eq_tol(bounds[0], 0.5, 1e-12);

  const auto far = dimension_bound_terms(n44, {t44.id({0, 0, 0, 0}), t44.id({1, 2, 0, 0})});
  check_terms(far[0], 2, 8);
  check_terms(far[1], 4, 16);
  ck_assert_uint_eq(integer_lower_bound(far), 1);

  const Torus ring6 = Torus::parse("6");
  const auto terms6 = dimension_bound_terms(Network(ring6), {0, 3});
  check_terms(terms6[0], 6, 12);
  ck_assert_uint_eq(integer_lower_bound(terms6), 1);

  // A single node has no pairs.
  ck_assert_uint_eq(integer_lower_bound(dimension_bound_terms(Network(ring6), {2})), 0);
}
END_TEST

// Failed channels leave the denominator: whole Desmos with one X cable
// failed has 62 live X channels, 1024 / 62 = 16.5..., rounded up 17.  A pair
// whose only minimal channel is dead has no minimal routing: no bound.
START_TEST(test_bound_with_failures) {
  const Torus torus = Torus::parse("4x2x2x2");
  Network network(torus);
  network.fail_link(torus.id({1, 0, 0, 0}), kPlusX);
  const auto terms = dimension_bound_terms(network, all_nodes(torus));
  check_terms(terms[0], 1024, 62);
  ck_assert_uint_eq(integer_lower_bound(terms), 17);
  ck_assert_double_eq_tol(dimension_lower_bounds(network, all_nodes(torus))[0], 1024.0 / 62.0, 1e-12);

  const Torus ring5 = Torus::parse("5");
  Network broken(ring5);
  broken.fail_link(0, kPlusX);
  const auto pair = dimension_bound_terms(broken, {0, 1});
  check_terms(pair[0], 2, 0);
  ck_assert_uint_eq(integer_lower_bound(pair), 0);
  ck_assert_double_eq_tol(dimension_lower_bounds(broken, {0, 1})[0], 0.0, 1e-12);
}
END_TEST

// A detour voids the minimal-routing bound: a table may reach max gamma 3
// where that bound says 4.  On 4x2 the square (0,0) (1,0) (0,1) (1,1) with the +X cable of (0,0)
// failed: the minimal-path X channels are the +X/-X cable of the y = 1 row
// only, 8 X hops over 2 channels = 4, yet 1,0 -> 0,0 can run +Y -X -Y and
// 0,0 -> 1,0 the other way round the X ring, so max gamma 3 is reachable.
// With a non-minimal route the bound is taken over every live channel of the
// dimension: X 8 hops over the 14 live X channels, Y 8 over 16: 1.
START_TEST(test_bound_with_detours) {
  const Torus torus = Torus::parse("4x2");
  Network network(torus);
  network.fail_link(torus.id({0, 0, 0, 0}), kPlusX);
  const std::vector<NodeId> square = block(torus, {2, 2, 1, 1});
  check_terms(dimension_bound_terms(network, square)[0], 8, 2);
  RouteTable table(square);
  set_route(table, torus, "0,0", "1,0", "-X -X -X");
  set_route(table, torus, "1,0", "0,0", "+Y -X -Y");
  set_route(table, torus, "0,0", "0,1", "+Y");
  set_route(table, torus, "0,1", "0,0", "+Y");
  set_route(table, torus, "1,0", "1,1", "+Y");
  set_route(table, torus, "1,1", "1,0", "+Y");
  set_route(table, torus, "0,1", "1,1", "+X");
  set_route(table, torus, "1,1", "0,1", "-X");
  set_route(table, torus, "0,0", "1,1", "+Y +X");
  set_route(table, torus, "1,1", "0,0", "-X -Y");
  set_route(table, torus, "1,0", "0,1", "+Y -X");
  set_route(table, torus, "0,1", "1,0", "+X -Y");
  const Metrics m = compute_metrics(network, table);
  ck_assert(!m.bound_for_minimal_routing);
  ck_assert_uint_eq(m.lower_bound, 1);
  ck_assert_uint_le(m.lower_bound, m.max_gamma);
  ck_assert(compute_metrics(network, dor_table(torus, block(torus, {2, 1, 1, 1}))).bound_for_minimal_routing);
}
END_TEST

// Machine-sized inputs stay fast (Check's 4 s timeout guards this).
// 12x6x6 whole (432 nodes): X ring distances 0+1+...+6+...+1 = 36 per row,
// 36 * 36 = 1296 per source, * 432 = 559872 over 864 X channels: 648.  Y: 9
// per column, * 72 = 648 per source, 279936 over 864: 324.
// 6x6x6 block at x < 6: X distances inside the block are |a - b|, summing to
// 70 over the 36 ordered (a, b), * 36 * 36 = 90720, over +X at x = 0..4 and -X
// at x = 1..5 on 36 rows: 360 channels, 252.  Y: 54 * 36 * 36 = 69984 over
// the block's 432 Y channels: 162.
START_TEST(test_bound_machine_sized) {
  const Torus torus = Torus::parse("12x6x6");
  const Network network(torus);
  const auto whole = dimension_bound_terms(network, all_nodes(torus));
  check_terms(whole[0], 559872, 864);
  check_terms(whole[1], 279936, 864);
  check_terms(whole[2], 279936, 864);
  ck_assert_uint_eq(integer_lower_bound(whole), 648);

  const auto half = dimension_bound_terms(network, block(torus, {6, 6, 6, 1}));
  check_terms(half[0], 90720, 360);
  check_terms(half[1], 69984, 432);
  check_terms(half[2], 69984, 432);
  ck_assert_uint_eq(integer_lower_bound(half), 252);
}
END_TEST

namespace {

int wrap(int value, int size) { return ((value % size) + size) % size; }

// The definition of dimension_bound_terms, checked the slow way: a channel
// counts when some pair has it on a minimal path.
bool on_shortest_arc(int x, int a, int b, int size) {
  const int forward = wrap(b - a, size), backward = wrap(a - b, size);
  return (forward <= backward && wrap(x - a, size) <= forward) ||
         (backward <= forward && wrap(a - x, size) <= backward);
}

std::array<DimensionBoundTerms, kMaxDims> slow_terms(const Network& network, const std::vector<NodeId>& nodes) {
  const Torus& torus = network.torus();
  std::array<DimensionBoundTerms, kMaxDims> terms{};
  for (int dim = 0; dim < kMaxDims; ++dim) {
    if (!torus.dim_present(dim)) continue;
    const int n = torus.size(dim);
    for (NodeId s : nodes)
      for (NodeId t : nodes)
        terms[dim].hops += static_cast<std::uint64_t>(torus.ring_distance(dim, torus.coord(s)[dim], torus.coord(t)[dim]));
    for (NodeId node = 0; node < torus.node_count(); ++node)
      for (int negative = 0; negative <= 1; ++negative) {
        const Direction direction = Direction::make(dim, negative != 0);
        if (!network.channel_alive(node, direction)) continue;
        const Coord u = torus.coord(node);
        bool found = false;
        for (NodeId s : nodes)
          for (NodeId t : nodes) {
            const Coord a = torus.coord(s), b = torus.coord(t);
            const int along = wrap((b[dim] - a[dim]) * direction.step(), n);
            bool ok = along > 0 && along == torus.ring_distance(dim, a[dim], b[dim]) &&
                      wrap((u[dim] - a[dim]) * direction.step(), n) < along;
            for (int j = 0; ok && j < kMaxDims; ++j)
              if (j != dim) ok = on_shortest_arc(u[j], a[j], b[j], torus.size(j));
            found = found || ok;
          }
        if (found) ++terms[dim].channels;
      }
  }
  return terms;
}

}  // namespace

// Pseudo-random allocations and failures on a few shapes, against the
// definition computed pair by pair.
START_TEST(test_bound_matches_definition) {
  std::uint32_t seed = 12345;
  const auto next = [&seed](std::uint32_t range) {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) % range;
  };
  for (const char* shape : {"5x4", "4x3x2", "3x3x3", "6x2x2", "7"}) {
    const Torus torus = Torus::parse(shape);
    for (int round = 0; round < 6; ++round) {
      Network network(torus);
      for (int f = 0; f < round % 3; ++f)
        network.fail_link(next(torus.node_count()), Direction(static_cast<int>(next(kDirectionCount))));
      std::vector<NodeId> nodes;
      const std::uint32_t keep = 2 + next(4);  // keep about 1 node in `keep`
      for (NodeId n = 0; n < torus.node_count(); ++n)
        if (next(keep) == 0) nodes.push_back(n);
      const auto slow = slow_terms(network, nodes);
      // The channels the ring witnesses leave: by the default, always
      // channel by channel, always through the pair classes.
      for (const LeftoverChannels leftover :
           {LeftoverChannels::automatic, LeftoverChannels::direct, LeftoverChannels::pair_classes}) {
        const auto fast = dimension_bound_terms(network, nodes, leftover);
        for (int dim = 0; dim < kMaxDims; ++dim) check_terms(fast[dim], slow[dim].hops, slow[dim].channels);
      }
    }
  }
}
END_TEST

// Allocations that are the product of their occupied coordinates (blocks,
// arcs across the wrap, whole rings, gaps inside a dimension), decided
// dimension by dimension, against the same definition.
START_TEST(test_product_bound_matches_definition) {
  struct Case {
    const char* torus;
    std::vector<std::vector<int>> values;  // occupied coordinates per dimension
  };
  const std::vector<Case> cases = {
      {"6x5x4", {{4, 5, 0}, {0, 1, 2, 3, 4}, {1, 2}}},
      {"8x8", {{6, 7, 0, 1}, {2, 3, 4}}},
      {"4x3x2", {{0, 2}, {1}, {0, 1}}},
      {"7", {{5, 6, 0}}},
      {"5x4x3x2", {{1, 2, 3}, {3, 0}, {0, 1, 2}, {1}}},
  };
  for (const Case& c : cases) {
    const Torus torus = Torus::parse(c.torus);
    std::vector<NodeId> nodes;
    for (NodeId n = 0; n < torus.node_count(); ++n) {
      const Coord at = torus.coord(n);
      bool inside = true;
      for (int dim = 0; dim < static_cast<int>(c.values.size()); ++dim)
        inside = inside && std::find(c.values[dim].begin(), c.values[dim].end(), at[dim]) != c.values[dim].end();
      if (inside) nodes.push_back(n);
    }
    for (int failures = 0; failures <= 2; ++failures) {
      Network network(torus);
      if (failures >= 1) network.fail_link(nodes.front(), kPlusX);
      if (failures >= 2) network.fail_link(nodes.back(), kMinusX);
      const auto fast = dimension_bound_terms(network, nodes);
      const auto slow = slow_terms(network, nodes);
      for (int dim = 0; dim < kMaxDims; ++dim) check_terms(fast[dim], slow[dim].hops, slow[dim].channels);
    }
  }
}
END_TEST

START_TEST(test_empty_table) {
  const Torus torus = Torus::parse("3x3");
  const Network network(torus);
  const Metrics m = compute_metrics(network, RouteTable({4}));
  ck_assert_uint_eq(m.channels, 0);
  ck_assert_uint_eq(m.max_gamma, 0);
  ck_assert_int_eq(m.max_hops, 0);
  ck_assert_uint_eq(m.lower_bound, 0);
}
END_TEST

int main() {
  Suite* s = suite_create("metrics");
  TCase* tc = tcase_create("core");
  tcase_add_test(tc, test_ring_all_plus_x);
  tcase_add_test(tc, test_ring_minimal);
  tcase_add_test(tc, test_desmos_dor_metrics);
  tcase_add_test(tc, test_measured_channels_of_block);
  tcase_add_test(tc, test_bound_desmos_whole);
  tcase_add_test(tc, test_bound_desmos_blocks);
  tcase_add_test(tc, test_bound_square_tori);
  tcase_add_test(tc, test_bound_partial_allocations);
  tcase_add_test(tc, test_bound_with_failures);
  tcase_add_test(tc, test_bound_with_detours);
  tcase_add_test(tc, test_bound_machine_sized);
  tcase_add_test(tc, test_bound_matches_definition);
  tcase_add_test(tc, test_product_bound_matches_definition);
  tcase_add_test(tc, test_empty_table);
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
