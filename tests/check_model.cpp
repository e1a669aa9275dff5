// Torus geometry, failures and route rules of doc/model.md.
#include <algorithm>
#include <stdexcept>

#include "angara/network.hpp"
#include "angara/direction_order_loads.hpp"
#include "angara/route.hpp"
#include "angara/torus.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using angara_test::error_message;

START_TEST(test_desmos_geometry) {
  const Torus t = Torus::parse("4x2x2x2");
  ck_assert_int_eq(t.node_count(), 32);
  ck_assert_int_eq(t.present_dims(), 4);
  ck_assert_std_str_eq(t.to_string(), "4x2x2x2");
  const NodeId n = t.id({3, 1, 0, 1});
  ck_assert_std_str_eq(t.format_coord(n), "3,1,0,1");
  // +X wraps around the ring of 4.
  ck_assert_std_str_eq(t.format_coord(t.neighbor(n, Direction::make(0, false))), "0,1,0,1");
  // Both cables of a size-2 dimension reach the same node.
  const NodeId a = t.id({0, 0, 0, 0});
  ck_assert_int_eq(t.neighbor(a, Direction::make(1, false)), t.neighbor(a, Direction::make(1, true)));
  ck_assert_int_eq(t.distance(a, t.id({2, 1, 1, 0})), 4);
  ck_assert_int_eq(t.distance(a, t.id({3, 0, 0, 0})), 1);
}
END_TEST

// Torus::Cursor steps as neighbor() does, wrapping round rings of every
// size (2 included) both ways, and keeps the coordinates of where it is.
START_TEST(test_cursor_walks_as_neighbor) {
  const Torus t = Torus::parse("5x2x4x3");
  std::uint32_t state = 12345;
  for (NodeId start : {NodeId{0}, t.id({4, 1, 3, 2}), t.id({2, 0, 1, 1})}) {
    Torus::Cursor cursor(t, start);
    NodeId expected = start;
    for (int hop = 0; hop < 500; ++hop) {
      state = state * 1103515245u + 12345u;
      const Direction d(static_cast<int>((state >> 16) % kDirectionCount));
      cursor.step(d);
      expected = t.neighbor(expected, d);
      ck_assert_uint_eq(cursor.node(), expected);
      ck_assert(cursor.coord() == t.coord(expected));
    }
  }
  // Once round each ring of 5 steps back to the start.
  Torus::Cursor round(t, t.id({4, 0, 0, 0}));
  for (int hop = 0; hop < 5; ++hop) round.step(Direction::make(0, true));
  ck_assert_uint_eq(round.node(), t.id({4, 0, 0, 0}));
}
END_TEST

START_TEST(test_two_dim_coords) {
  const Torus t = Torus::parse("4x4");
  ck_assert_int_eq(t.declared_dims(), 2);
  ck_assert_int_eq(t.present_dims(), 2);
  ck_assert_std_str_eq(t.format_coord(t.id({1, 2, 0, 0})), "1,2");
  ck_assert_int_eq(t.id(t.parse_coord("3,1")), t.id({3, 1, 0, 0}));
  ck_assert_int_eq(t.channel_slots(), 16 * 8);
}
END_TEST

START_TEST(test_bad_torus_text) {
  bool threw = false;
  try {
    Torus::parse("4x2x2x2x2");
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  ck_assert(threw);
  threw = false;
  try {
    Torus::parse("1x1");
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  ck_assert(threw);
  threw = false;
  try {
    Torus::parse("4x2").parse_coord("4,0");
  } catch (const std::invalid_argument& e) {
    threw = std::string(e.what()).find("outside") != std::string::npos;
  }
  ck_assert(threw);
}
END_TEST

START_TEST(test_channel_count_and_failures) {
  Network net(Torus::parse("4x2x2x2"));
  // 2 * n_dims_present * |N| channels when nothing has failed.
  ck_assert_uint_eq(net.live_channel_count(), 2u * 4u * 32u);
  const Torus& t = net.torus();
  const NodeId a = t.id({0, 0, 0, 0});
  // Failing the +Y cable of a size-2 dimension leaves the -Y cable alive.
  net.fail_link(a, Direction::make(1, false));
  ck_assert(!net.channel_alive(a, Direction::make(1, false)));
  ck_assert(!net.channel_alive(t.id({0, 1, 0, 0}), Direction::make(1, true)));
  ck_assert(net.channel_alive(a, Direction::make(1, true)));
  ck_assert_uint_eq(net.live_channel_count(), 256u - 2u);
  // A failed node kills its 8 outgoing and 8 incoming channels.
  net.fail_node(t.id({2, 0, 0, 0}));
  ck_assert_uint_eq(net.live_channel_count(), 256u - 2u - 16u);
  ck_assert(!net.node_alive(t.id({2, 0, 0, 0})));

  // A job's own routers (routing.confine): every other live router fails,
  // the failed router is not failed twice (30 of 32 failed).  Nodes
  // 0,0,0,0 and 1,0,0,0 keep the one X cable between them: 2 channels.
  const Network own = confined_to(net, {a, t.id({1, 0, 0, 0})});
  ck_assert_uint_eq(own.failed_nodes().size(), 30);
  ck_assert_uint_eq(own.live_channel_count(), 2);
  ck_assert(own.channel_alive(a, Direction::make(0, false)));
  ck_assert(!own.channel_alive(a, Direction::make(0, true)));
}
END_TEST

// Single cabling (doc/model.md, "Channels and cabling"): in a single-cabled size-2
// dimension only +D at coordinate 0 and -D at coordinate 1 have a cable.
START_TEST(test_single_cable_ports) {
  const Torus t = Torus::parse("4x2x2x2").with_single_cable(Torus::parse_dimension_letters("YZK"));
  ck_assert_uint_eq(t.single_cable_mask(), 0xEu);
  ck_assert_std_str_eq(Torus::dimension_letters(t.single_cable_mask()), "YZK");
  ck_assert_std_str_eq(t.description(), "4x2x2x2 single_cable=YZK");
  ck_assert_std_str_eq(t.to_string(), "4x2x2x2");
  ck_assert(!(t == Torus::parse("4x2x2x2")));
  ck_assert(t == Torus::parse("4x2x2x2").with_single_cable(0xE));
  const Direction plus_y = Direction::make(1, false), minus_y = Direction::make(1, true);
  const NodeId low = t.id({2, 0, 1, 1}), high = t.id({2, 1, 1, 1});
  ck_assert(t.cabled(low, plus_y));
  ck_assert(!t.cabled(low, minus_y));
  ck_assert(!t.cabled(high, plus_y));
  ck_assert(t.cabled(high, minus_y));
  // X is a ring of 4: every port cabled.
  for (int rank : {0, 4}) ck_assert(t.cabled(low, Direction(rank)) && t.cabled(high, Direction(rank)));
  // The one Y cable joins +Y of the low node and -Y of the high node.
  ck_assert_uint_eq(t.reverse_channel(Torus::channel(low, plus_y)), Torus::channel(high, minus_y));
  ck_assert_uint_eq(t.reverse_channel(Torus::channel(high, minus_y)), Torus::channel(low, plus_y));
  // 2 * 4 * 32 = 256 ports, less 32 for each of Y, Z and K.
  ck_assert_uint_eq(t.cabled_channel_count(), 160u);
  ck_assert_std_str_eq(t.missing_cable_text(high, plus_y),
                       "port +Y of 2,1,1,1 has no cable (Y is single-cabled: only +Y at Y=0 and -Y at Y=1 are cabled)");
  ck_assert_std_str_eq(Torus::parse("4x2").missing_cable_text(0, Direction::make(2, false)),
                       "port +Z of 0,0 does not exist: the 4x2 torus has no Z dimension");
  // Walks: the first hop through a port without a cable.
  NodeId at = kNoNode;
  ck_assert_uint_eq(t.first_uncabled_hop(low, parse_hops("+X +Y -Y"), &at), 3u);
  ck_assert_uint_eq(t.first_uncabled_hop(low, parse_hops("+X -Y"), &at), 1u);
  ck_assert_std_str_eq(t.format_coord(at), "3,0,1,1");
}
END_TEST

START_TEST(test_single_cable_network) {
  Network net(Torus::parse("4x2x2x2").with_single_cable(Torus::parse_dimension_letters("YZK")));
  const Torus& t = net.torus();
  ck_assert_uint_eq(net.live_channel_count(), 160u);
  for (ChannelId c = 0; c < t.channel_slots(); ++c) {
    ck_assert(net.channel_alive(c) == t.channel_cabled(c));
    if (net.channel_alive(c)) ck_assert(net.channel_alive(t.reverse_channel(c)));
  }
  // A port without a cable has nothing to fail.
  const NodeId high = t.id({0, 1, 0, 0});
  net.fail_link(high, Direction::make(1, false));
  ck_assert_uint_eq(net.live_channel_count(), 160u);
  ck_assert(net.failed_links().empty());
  // The cable itself fails both ways, named from either end.
  net.fail_link(high, Direction::make(1, true));
  ck_assert_uint_eq(net.live_channel_count(), 158u);
  ck_assert(!net.channel_alive(t.id({0, 0, 0, 0}), Direction::make(1, false)));
  ck_assert_std_str_eq(net.fault_signature(), "nodes= links=0,0,0,0 +Y");
  // The cable keeps the end it was declared with (reports name it so); the
  // other end names no second failure.
  ck_assert_uint_eq(net.failed_links().size(), 1u);
  ck_assert_uint_eq(net.failed_links().front(), Torus::channel(high, Direction::make(1, true)));
  net.fail_link(t.id({0, 0, 0, 0}), Direction::make(1, false));
  ck_assert_uint_eq(net.failed_links().size(), 1u);
  // A failed router of a 4x2x2x2 with one cable in Y, Z, K has 5 ports:
  // +X, -X and one per single-cabled dimension; 10 channels go.
  net.fail_node(t.id({2, 1, 0, 1}));
  ck_assert_uint_eq(net.live_channel_count(), 148u);
  // Failures in any order are listed ascending, each once.
  for (const NodeId node : {NodeId{30}, NodeId{3}, NodeId{17}, t.id({2, 1, 0, 1}), NodeId{0}, NodeId{3}})
    net.fail_node(node);
  const std::vector<NodeId> listed = net.failed_nodes();
  ck_assert_uint_eq(listed.size(), 5u);
  ck_assert(std::is_sorted(listed.begin(), listed.end()));
  ck_assert_uint_eq(listed.front(), 0u);
  ck_assert_uint_eq(listed.back(), 30u);
  net.fail_link(t.id({3, 0, 0, 0}), Direction::make(0, false));
  net.fail_link(t.id({1, 0, 0, 0}), Direction::make(0, false));
  net.fail_link(t.id({0, 0, 0, 0}), Direction::make(0, true));  // the second one's other end
  ck_assert_uint_eq(net.failed_links().size(), 3u);
  ck_assert(std::is_sorted(net.failed_links().begin(), net.failed_links().end()));
}
END_TEST

START_TEST(test_single_cable_errors) {
  const Torus t = Torus::parse("4x2x3");
  const auto error = [&](std::uint8_t mask) {
    try {
      t.with_single_cable(mask);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  ck_assert_std_str_eq(error(dimension_bit(0)),
                       "X has size 4 in the 4x2x3 torus; only a dimension of size 2 can be single-cabled");
  ck_assert_std_str_eq(error(dimension_bit(3)), "K is not a dimension of the 4x2x3 torus, so it cannot be single-cabled");
  ck_assert_std_str_eq(error(dimension_bit(1)), "(no error)");
  const auto letters = [](const char* text) {
    try {
      Torus::parse_dimension_letters(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  ck_assert_std_str_eq(letters("YW"), "'W' is not a dimension (expected X, Y, Z or K)");
  ck_assert_std_str_eq(letters("y"), "'y' is not a dimension (expected X, Y, Z or K)");
  ck_assert_std_str_eq(letters("YZY"), "Y is given twice");
  ck_assert_uint_eq(Torus::parse_dimension_letters("none"), 0u);
  ck_assert_uint_eq(Torus::parse_dimension_letters(""), 0u);
  ck_assert_uint_eq(Torus::parse_dimension_letters("KY"), 0xAu);
}
END_TEST

START_TEST(test_ring_failures) {
  Network net(Torus::parse("5x3"));
  ck_assert_uint_eq(net.live_channel_count(), 2u * 2u * 15u);
  net.fail_node(net.torus().id({0, 0, 0, 0}));
  ck_assert_uint_eq(net.live_channel_count(), 60u - 8u);
}
END_TEST

START_TEST(test_encodability) {
  // Pure DOR + direction bit.
  ck_assert(is_dor_route(parse_hops("+X +X +Y -Z")));
  ck_assert(!is_dor_route(parse_hops("+Y +X")));
  ck_assert(!is_dor_route(parse_hops("+X -X")));
  // The model's example: a positive First Step breaks DOR.
  ck_assert(is_angara_encodable(parse_hops("+Y +X +X -Z")));
  // A negative Last Step breaks DOR at the end.
  ck_assert(is_angara_encodable(parse_hops("+X -Y -X")));
  // FS and LS together, around a DOR middle.
  ck_assert(is_angara_encodable(parse_hops("+Z +X -Y -X")));
  // Two violations in the middle cannot be fixed by FS/LS.
  ck_assert(!is_angara_encodable(parse_hops("+X +Z +Y -Y +X")));
  // A negative first hop is not a First Step.
  ck_assert(!is_angara_encodable(parse_hops("-Y +X +Y -Y +X")));
  ck_assert(is_angara_encodable({}));
}
END_TEST

START_TEST(test_parse_hops_error) {
  bool threw = false;
  try {
    parse_hops("+X +W");
  } catch (const std::invalid_argument& e) {
    threw = std::string(e.what()).find("'+W'") != std::string::npos;
  }
  ck_assert(threw);
}
END_TEST

START_TEST(test_route_table_indexing) {
  RouteTable table({7, 3, 5, 3});
  ck_assert_uint_eq(table.size(), 3);
  ck_assert_uint_eq(table.index_of(5), 1);
  ck_assert_uint_eq(table.index_of(4), RouteTable::npos);
  ck_assert(!table.has_route(0, 1));
  table.set_route(0, 1, Route{parse_hops("+X")});
  ck_assert(table.has_route(0, 1));
  table.set_route(2, 0, Route{parse_hops("-X"), 2});
  ck_assert_uint_eq(table.virtual_channels(), 3);
}
END_TEST

// A table past kHugeFrom takes a mapping of its own (huge pages where the
// kernel gives them): its words start as "no route", copies and moves keep
// them, and a table that grows back under the threshold frees it the same way.
START_TEST(test_large_route_table_storage) {
  std::vector<NodeId> nodes(1600);
  for (NodeId k = 0; k < nodes.size(); ++k) nodes[k] = 3 * k;
  RouteTable table(nodes);
  ck_assert(table.size() * table.size() * sizeof(std::uint32_t) >= kHugeFrom);
  for (std::size_t s = 0; s < table.size(); s += 97)
    for (std::size_t d = 0; d < table.size(); ++d) ck_assert(!table.has_route(s, d));
  ck_assert(!table.has_route(table.size() - 1, table.size() - 2));
  table.set_route(1599, 1598, Route{parse_hops("-X +Y")});
  table.set_route(0, 1, Route{parse_hops("+X")});
  RouteTable copy = table;
  ck_assert_std_str_eq(copy.route(1599, 1598).to_string(), "-X +Y");
  RouteTable moved = std::move(copy);
  ck_assert_std_str_eq(moved.route(0, 1).to_string(), "+X");
  ck_assert(!moved.has_route(1, 0));
  table = RouteTable({1, 2, 3});  // the large mapping released for a small table
  ck_assert(!table.has_route(0, 2));
}
END_TEST

// dimension_order_table packs one route per displacement class (and side of
// a single-cabled size-2 dimension): every pair still gets the route of the
// definition, here built pair by pair.
START_TEST(test_dimension_order_table_by_definition) {
  const Torus desmos = Torus::parse("4x2x2x2").with_single_cable(Torus::parse_dimension_letters("YZK"));
  // Besides positive and split ties: every tie of X the negative way, and
  // those of Y negative from an even coordinate.
  RingTies mixed;
  mixed.negative[0] = {true, true};
  mixed.negative[1] = {true, false};
  for (const Torus& torus : {desmos, Torus::parse("5x4x3"), Torus::parse("3x3"), Torus::parse("70x2"), Torus::parse("4x6x2")})
   for (const int variant : {0, 1, 2}) {
    const bool split_ties = variant == 1;
    const RingTies ties = variant == 2 ? mixed : split_ties ? RingTies::split() : RingTies::positive();
    std::vector<NodeId> nodes;
    for (NodeId n = 0; n < torus.node_count(); ++n)
      if (n % 3 != 1) nodes.push_back(n);  // a scattered two thirds
    const RouteTable table = variant == 2 ? dimension_order_table(torus, nodes, ties)
                                          : dimension_order_table(torus, nodes, split_ties);
    for (std::size_t s = 0; s < nodes.size(); ++s)
      for (std::size_t d = 0; d < nodes.size(); ++d) {
        if (s == d) continue;
        const Coord from = torus.coord(nodes[s]), to = torus.coord(nodes[d]);
        std::vector<Direction> hops;
        for (const bool negative_pass : {false, true})
          for (int dim = 0; dim < kMaxDims; ++dim) {
            const int size = torus.size(dim), forward = ((to[dim] - from[dim]) % size + size) % size;
            if (forward == 0) continue;
            // A tie (half an even ring away) with split ties: negative
            // from an odd coordinate.
            const bool tie = forward == size - forward;
            const bool negative = size == 2 && torus.single_cabled(dim) ? from[dim] == 1
                                  : tie ? ties.negative[static_cast<std::size_t>(dim)][static_cast<std::size_t>(from[dim] % 2)]
                                        : forward > size - forward;
            if (negative == negative_pass)
              hops.insert(hops.end(), negative ? size - forward : forward, Direction::make(dim, negative));
          }
        ck_assert_msg(table.route(s, d).hops == hops, "%s (ties %d): %s -> %s", torus.to_string().c_str(),
                      variant, torus.format_coord(nodes[s]).c_str(),
                      torus.format_coord(nodes[d]).c_str());
      }
   }
  const Torus square = Torus::parse("3x3");
  const RouteTable whole = dimension_order_table(square, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  ck_assert_std_str_eq(whole.route(whole.index_of(0), whole.index_of(5)).to_string(), "+Y -X");
  // On a ring of 4, 2 hops either way: + from 0 always, - from 1 when split.
  const Torus four = Torus::parse("4");
  const RouteTable positive = dimension_order_table(four, {0, 1, 2, 3});
  const RouteTable split = dimension_order_table(four, {0, 1, 2, 3}, /*split_ties=*/true);
  ck_assert_std_str_eq(positive.route(1, 3).to_string(), "+X +X");
  ck_assert_std_str_eq(split.route(1, 3).to_string(), "-X -X");
  ck_assert_std_str_eq(split.route(0, 2).to_string(), "+X +X");
  // 40 hops half way round an 80-ring do not fit a compact word: the
  // overflow store, for both pairs of the class.
  const Torus ring = Torus::parse("80");
  const RouteTable long_ring = dimension_order_table(ring, {0, 40});
  for (const auto& [s, d] : {std::pair<std::size_t, std::size_t>{0, 1}, {1, 0}}) {
    ck_assert_std_str_eq(long_ring.route(s, d).to_string(), Route{std::vector<Direction>(40, Direction::make(0, false))}.to_string());
    ck_assert(!long_ring.packed_route(s, d).has_value());
  }
}
END_TEST

// restricted_to keeps each kept pair's route, compact or in the overflow
// store, over the kept nodes' own indices, and refuses a node it lacks.
START_TEST(test_route_table_restricted_to) {
  RouteTable table({10, 11, 12, 13, 14});
  const char* compact[] = {"+X", "-Y", "+X +Y", "-X -X", "+Z"};
  for (std::size_t s = 0; s < 5; ++s)
    for (std::size_t d = 0; d < 5; ++d)
      if (s != d) table.set_route(s, d, Route{parse_hops(compact[(s + d) % 5]), static_cast<std::uint8_t>(s)});
  table.set_route(3, 0, Route{parse_hops("+X -Y +X")});  // overflow
  table.algorithm = "balanced";
  const RouteTable kept = table.restricted_to({10, 13, 14});  // 11 and 12 left out: two segments
  ck_assert_uint_eq(kept.size(), 3);
  ck_assert_std_str_eq(kept.algorithm.c_str(), "balanced");
  const std::size_t from[] = {0, 3, 4};
  for (std::size_t s = 0; s < 3; ++s)
    for (std::size_t d = 0; d < 3; ++d) {
      if (s == d) continue;
      ck_assert_msg(kept.route(s, d) == table.route(from[s], from[d]), "pair %zu %zu: %s against %s", s, d,
                    kept.route(s, d).to_string().c_str(), table.route(from[s], from[d]).to_string().c_str());
    }
  ck_assert_uint_eq(kept.overflow_routes(), 1);
  ck_assert(!kept.packed_route(1, 0).has_value());
  const std::string refused = error_message<std::invalid_argument>([&] { (void)table.restricted_to({10, 15}); });
  ck_assert_std_str_eq(refused, "restricted_to: node 15 is not in the table");
}
END_TEST

// The compact store keeps every route exactly: encodable ones in one word,
// the rest (general paths, layers above 7, long middles) in the overflow.
START_TEST(test_route_table_compact_store) {
  RouteTable table({0, 1, 2, 3});
  const struct {
    const char* hops;
    int layer;
    bool compact;
  } cases[] = {
      {"+X", 0, true},
      {"+X +X +Y -Z -K -K", 7, true},      // DOR + direction bit
      {"+Y +X -X", 1, true},               // FS +Y, middle +X -X
      {"+Z +X +Y -K -Y", 0, true},         // First and Last Step
      {"-X -X", 0, true},
      {"+X -Y +X", 3, false},              // not Angara-encodable: overflow
      {"+X", 8, false},                    // layer beyond the header's three bits
      {"+X +Y +X +Y +X +Y +X", 2, false},  // a general path
  };
  for (const auto& c : cases) {
    const Route route{parse_hops(c.hops), static_cast<std::uint8_t>(c.layer)};
    ck_assert_msg(RouteTable::pack(route).has_value() == c.compact, "pack(%s)", c.hops);
    if (c.compact) ck_assert_msg(RouteTable::unpack(*RouteTable::pack(route)) == route, "unpack(pack(%s))", c.hops);
    table.set_route(1, 2, route);
    // The stored word, as the shared job tables publish it: only for compact routes.
    ck_assert_msg(table.packed_route(1, 2).has_value() == c.compact, "packed_route(%s)", c.hops);
    ck_assert_msg(table.route(1, 2) == route, "%s came back as %s", c.hops, table.route(1, 2).to_string().c_str());
    ck_assert_uint_eq(table.hop_count(1, 2), route.hops.size());
    ck_assert_uint_eq(table.layer(1, 2), c.layer);
    std::string runs;
    table.for_each_run(1, 2, [&](Direction d, int count) { runs += d.token() + std::to_string(count) + " "; });
    ck_assert_msg(!runs.empty(), "no runs for %s", c.hops);
  }
  std::string runs;
  table.set_route(0, 3, Route{parse_hops("+X +X -Y -Y -Y")});
  table.for_each_run(0, 3, [&](Direction d, int count) { runs += d.token() + std::to_string(count) + " "; });
  ck_assert_std_str_eq(runs.c_str(), "+X2 -Y3 ");
  // 33 hops in one dimension do not fit the five-bit count, even after a First Step.
  const Route long_route{std::vector<Direction>(33, Direction::make(0, false))};
  ck_assert(!RouteTable::pack(long_route));
  table.set_route(3, 0, long_route);
  ck_assert(table.route(3, 0) == long_route);
  // Pair (1,2) took two slots (the second path did not fit the first), (3,0) one.
  ck_assert_uint_eq(table.overflow_routes(), 3);
  // A rewrite with a shorter general path reuses the slot; copies are deep.
  table.set_route(3, 0, Route{parse_hops("+X -X +X")});
  ck_assert_uint_eq(table.overflow_routes(), 3);
  const RouteTable copy = table;
  table.set_route(3, 0, Route{parse_hops("+X")});
  ck_assert_std_str_eq(copy.route(3, 0).to_string().c_str(), "+X -X +X");
  ck_assert_std_str_eq(table.route(3, 0).to_string().c_str(), "+X");
  ck_assert_uint_eq(table.virtual_channels(), 3);  // (1,2) on layer 2; the slots left behind count no more
  // (3,0) went back to a compact word; an overflow word (low six bits 32) is not a compact route.
  ck_assert_uint_eq(table.packed_route(3, 0)->code, RouteTable::pack(Route{parse_hops("+X")})->code);
  bool refused = false;
  try {
    RouteTable::unpack(PackedRoute{32});
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  ck_assert(refused);
  // Missing routes: empty hops.
  table.set_route(0, 3, Route{});
  ck_assert(!table.has_route(0, 3));
  ck_assert_uint_eq(table.hop_count(0, 3), 0);
  ck_assert(table.route_bytes() >= 16 * sizeof(std::uint32_t));
}
END_TEST

// direction_order_counts counts, for every channel, the pairs whose route
// in dimension_order_table takes it, the runs that end on it and the routes
// that turn there to each next direction: here against walking every route
// hop by hop, with odd and even rings, ties either way, a size-2 ring,
// single cabling and sets dense and sparse.
START_TEST(test_direction_order_counts_by_walking) {
  const Torus desmos = Torus::parse("4x2x2x2").with_single_cable(Torus::parse_dimension_letters("YZK"));
  for (const Torus& torus : {desmos, Torus::parse("5x4x3"), Torus::parse("3x3"), Torus::parse("70x2"),
                             Torus::parse("6x4x2x3"), Torus::parse("8x4x4x2")})
    for (const int variant : {0, 1, 2})
      for (const NodeId every : {NodeId{1}, NodeId{3}, NodeId{17}}) {
        RingTies ties = variant == 1 ? RingTies::split() : RingTies::positive();
        if (variant == 2) {  // X the negative way, Y negative from an even coordinate
          ties.negative[0] = {true, true};
          ties.negative[1] = {true, false};
        }
        std::vector<NodeId> nodes;
        for (NodeId n = 0; n < torus.node_count(); ++n)
          if (n % every == every / 2 || n * 7 % 11 == 3) nodes.push_back(n);
        const RouteTable table = dimension_order_table(torus, nodes, ties);
        const std::size_t slots = torus.channel_slots();
        std::vector<std::int64_t> loads(slots, 0), ends(slots, 0), turns(slots * kDirectionCount, 0);
        for (std::size_t s = 0; s < nodes.size(); ++s)
          for (std::size_t d = 0; d < nodes.size(); ++d) {
            if (s == d) continue;
            const std::vector<Direction> hops = table.route(s, d).hops;
            NodeId at = nodes[s];
            for (std::size_t h = 0; h < hops.size(); ++h) {
              const ChannelId c = Torus::channel(at, hops[h]);
              ++loads[c];
              if (h + 1 == hops.size() || hops[h + 1] != hops[h]) ++ends[c];
              if (h + 1 < hops.size() && hops[h + 1] != hops[h])
                ++turns[std::size_t(c) * kDirectionCount + static_cast<std::size_t>(hops[h + 1].rank())];
              at = torus.neighbor(at, hops[h]);
            }
          }
        const DirectionOrderCounts counted = direction_order_counts(torus, dimension_order_ways(torus, ties), nodes, true);
        const std::string what =
            torus.to_string() + " (ties " + std::to_string(variant) + "), " + std::to_string(nodes.size()) + " nodes";
        ck_assert(direction_order_loads(torus, dimension_order_ways(torus, ties), nodes) == counted.loads);
        for (ChannelId c = 0; c < slots; ++c) {
          const std::string channel = torus.format_coord(Torus::channel_node(c)) + " " + Torus::channel_direction(c).token();
          ck_assert_msg(counted.loads[c] == loads[c], "%s: channel %s carries %lld routes, counted %lld", what.c_str(),
                        channel.c_str(), static_cast<long long>(loads[c]), static_cast<long long>(counted.loads[c]));
          ck_assert_msg(counted.ends[c] == ends[c], "%s: %lld runs end on channel %s, counted %lld", what.c_str(),
                        static_cast<long long>(ends[c]), channel.c_str(), static_cast<long long>(counted.ends[c]));
          for (int next = 0; next < kDirectionCount; ++next) {
            const std::size_t at = std::size_t(c) * kDirectionCount + static_cast<std::size_t>(next);
            ck_assert_msg(counted.turns[at] == turns[at], "%s: %lld routes turn from channel %s to %s, counted %lld",
                          what.c_str(), static_cast<long long>(turns[at]), channel.c_str(),
                          Direction(next).token().c_str(), static_cast<long long>(counted.turns[at]));
          }
        }
      }
}
END_TEST

int main() {
  Suite* s = suite_create("model");
  TCase* tc = tcase_create("core");
  tcase_add_test(tc, test_desmos_geometry);
  tcase_add_test(tc, test_cursor_walks_as_neighbor);
  tcase_add_test(tc, test_two_dim_coords);
  tcase_add_test(tc, test_bad_torus_text);
  tcase_add_test(tc, test_single_cable_ports);
  tcase_add_test(tc, test_single_cable_network);
  tcase_add_test(tc, test_single_cable_errors);
  tcase_add_test(tc, test_channel_count_and_failures);
  tcase_add_test(tc, test_ring_failures);
  tcase_add_test(tc, test_encodability);
  tcase_add_test(tc, test_parse_hops_error);
  tcase_add_test(tc, test_route_table_indexing);
  tcase_add_test(tc, test_route_table_compact_store);
  tcase_add_test(tc, test_large_route_table_storage);
  tcase_add_test(tc, test_route_table_restricted_to);
  tcase_add_test(tc, test_dimension_order_table_by_definition);
  tcase_add_test(tc, test_direction_order_counts_by_walking);
  tcase_set_timeout(tc, 60);  // the walks of every route: slow under the sanitizers
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
