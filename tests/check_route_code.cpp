// The 128-bit header flit: exact bit patterns, the canonical FS/LS split,
// rejection of malformed headers, and a brute-force round trip over every
// Angara-encodable route of up to 5 hops on small tori.
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "angara/route.hpp"
#include "angara/route_code.hpp"
#include "angara/torus.hpp"
#include "tests/test_support.hpp"

using namespace angara;

namespace {

Route make_route(const std::string& hops, int layer = 0) {
  Route r;
  r.hops = parse_hops(hops);
  r.layer = static_cast<std::uint8_t>(layer);
  return r;
}

// The message of the std::invalid_argument `action` throws, "" if none.
std::string invalid_argument_text(const std::function<void()>& action) {
  try {
    action();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

HeaderFlit flit(std::uint64_t high, std::uint64_t low) {
  HeaderFlit h;
  h.high = high;
  h.low = low;
  return h;
}

std::string encode_hex(const Torus& t, const std::string& hops, const Coord& dest, int layer = 0) {
  return encode_route(t, make_route(hops, layer), t.id(dest)).to_hex();
}

NodeId walk(const Torus& t, NodeId from, const std::vector<Direction>& hops) {
  for (Direction d : hops) from = t.neighbor(from, d);
  return from;
}

struct RoundTripCounts {
  std::size_t sequences = 0;   // hop sequences tried (all lengths 1..5)
  std::size_t encodable = 0;   // of which Angara-encodable
  std::size_t round_trips = 0; // (sequence, source) pairs checked
};

// Every hop sequence of 1..max_len present directions; the encodable ones are
// encoded from every source, decoded and re-encoded; the others must throw.
RoundTripCounts round_trip_all_routes(const Torus& t, int max_len) {
  std::vector<Direction> dirs;
  for (int rank = 0; rank < kDirectionCount; ++rank)
    if (t.direction_present(Direction(rank))) dirs.push_back(Direction(rank));
  RoundTripCounts counts;
  for (int len = 1; len <= max_len; ++len) {
    std::vector<std::size_t> digit(static_cast<std::size_t>(len), 0);
    while (true) {
      Route route;
      for (std::size_t i : digit) route.hops.push_back(dirs[i]);
      route.layer = static_cast<std::uint8_t>(counts.sequences % 8);
      ++counts.sequences;
      if (is_angara_encodable(route.hops)) {
        ++counts.encodable;
        const bool dor = is_dor_route(route.hops);
        for (NodeId src = 0; src < t.node_count(); ++src) {
          const NodeId dst = walk(t, src, route.hops);
          const HeaderFlit h = encode_route(t, route, dst);
          // Canonical split: a DOR route uses neither FS nor LS (bits 0, 3).
          if (dor) ck_assert_uint_eq(h.low & 0x9u, 0u);
          NodeId decoded_dst = kNoNode;
          const Route back = decode_route(t, h, &decoded_dst);
          ck_assert_msg(back == route, "%s decoded as %s", route.to_string().c_str(), back.to_string().c_str());
          ck_assert_uint_eq(decoded_dst, dst);
          ck_assert(encode_route(t, back, decoded_dst) == h);
          ck_assert(HeaderFlit::from_hex(h.to_hex()) == h);
          ++counts.round_trips;
        }
      } else {
        ck_assert(!invalid_argument_text([&] { encode_route(t, route, 0); }).empty());
      }
      std::size_t pos = 0;
      while (pos < digit.size() && ++digit[pos] == dirs.size()) digit[pos++] = 0;
      if (pos == digit.size()) break;
    }
  }
  return counts;
}

}  // namespace

START_TEST(test_exact_bit_patterns) {
  const Torus t = Torus::parse("4x2x2x2");
  // +X to (1,0,0,0): X count 1 (bit 8), destination X=1 (bit 64), tag 0xa.
  ck_assert_std_str_eq(encode_hex(t, "+X", {1, 0, 0, 0}), "a0000000000000010000000000000100");
  // FS=+Y (bits 0,1), middle +X (bit 8) -Z (Z count bit 24, sign bit 31), layer 1 (bit 40).
  ck_assert_std_str_eq(encode_hex(t, "+Y +X -Z", {1, 1, 1, 0}, 1), "a0000000000101010000010081000103");
  // LS=-X (bit 3, dim 0), middle +X -Y (Y count bit 16, sign bit 23).
  ck_assert_std_str_eq(encode_hex(t, "+X -Y -X", {0, 1, 0, 0}), "a0000000000001000000000000810108");
  // FS=+Y and LS=-X around a middle of +X; virtual channel 7 (bits 40..42).
  ck_assert_std_str_eq(encode_hex(t, "+Y +X -X", {0, 1, 0, 0}, 7), "a000000000000100000007000000010b");
  // -K then destination K=1 (bits 88..95), K count bit 32, sign bit 39.
  ck_assert_std_str_eq(encode_hex(t, "-K", {0, 0, 0, 1}), "a0000000010000000000008100000000");

  const Torus t2 = Torus::parse("4x4");
  // Two dimensions: Z and K bytes of the destination stay zero.
  ck_assert_std_str_eq(encode_hex(t2, "+X +X -Y", {2, 3}), "a0000000000003020000000000810200");
  ck_assert_std_str_eq(encode_hex(t2, "+Y +X", {1, 1}), "a0000000000001010000000000000103");
}
END_TEST

START_TEST(test_canonical_split) {
  const Torus t = Torus::parse("4x4");
  // "+X -X": FS=+X middle=-X (canonical) or middle=+X LS=-X. FS-only wins.
  const HeaderFlit h = encode_route(t, make_route("+X -X"), t.id({0, 0}));
  ck_assert_std_str_eq(h.to_hex(), "a0000000000000000000000000008101");
  auto split = canonical_split(parse_hops("+X -X"));
  ck_assert(split && split->first_step && !split->last_step);
  // Already DOR: no special step even though "+X" could be an FS.
  split = canonical_split(parse_hops("+X +X"));
  ck_assert(split && !split->first_step && !split->last_step);
  split = canonical_split(parse_hops("+X -Y -X"));
  ck_assert(split && !split->first_step && split->last_step);
  split = canonical_split(parse_hops("+Y +X -X"));
  ck_assert(split && split->first_step && split->last_step);
  ck_assert(!canonical_split(parse_hops("-X +X")));
  ck_assert(!canonical_split(parse_hops("+Z +Y +X")));
  ck_assert(!canonical_split(parse_hops("+X -X +X")));

  // The same hops written with LS instead: rejected so each route has one header.
  const HeaderFlit ls_form = flit(0xa000000000000000ull, 0x108);
  ck_assert_std_str_eq(invalid_argument_text([&] { decode_route(t, ls_form); }),
                       "malformed header flit: route '+X -X' is not written with its canonical FS/LS split");
  // FS and LS around an empty middle: "+X -Y" is DOR on its own.
  const HeaderFlit both = flit(0xa000000000000000ull, 0x19);
  ck_assert_std_str_eq(invalid_argument_text([&] { decode_route(t, both); }),
                       "malformed header flit: route '+X -Y' is not written with its canonical FS/LS split");
}
END_TEST

START_TEST(test_decode_exact) {
  const Torus t = Torus::parse("4x2x2x2");
  NodeId dst = kNoNode;
  const auto h = HeaderFlit::from_hex("A0000000000101010000010081000103");  // upper case accepted
  ck_assert(h.has_value());
  const Route r = decode_route(t, *h, &dst);
  ck_assert_std_str_eq(r.to_string(), "+Y +X -Z");
  ck_assert_int_eq(r.layer, 1);
  ck_assert_std_str_eq(t.format_coord(dst), "1,1,1,0");
}
END_TEST

START_TEST(test_decode_rejects) {
  const Torus t = Torus::parse("4x4");
  const std::uint64_t tag = 0xa000000000000000ull;
  const auto text = [&](std::uint64_t high, std::uint64_t low) {
    return invalid_argument_text([&] { decode_route(t, flit(high, low)); });
  };
  ck_assert_std_str_eq(text(0x0000000000000001ull, 0x100), "malformed header flit: format tag is 0x0, expected 0xa");
  ck_assert_std_str_eq(text(0xb000000000000001ull, 0x100), "malformed header flit: format tag is 0xb, expected 0xa");
  // Reserved bits: 6, 7, 43..63 of the low word, 96..123 of the header.
  for (int bit : {6, 7, 43, 50, 63})
    ck_assert_std_str_eq(text(tag | 1, 0x100 | (1ull << bit)), "malformed header flit: reserved bits are not zero");
  for (int bit : {32, 40, 59})
    ck_assert_std_str_eq(text(tag | 1 | (1ull << bit), 0x100), "malformed header flit: reserved bits are not zero");
  ck_assert_std_str_eq(text(tag, 0x8000), "malformed header flit: sign bit set on a zero hop count in X");
  ck_assert_std_str_eq(text(tag | 1, 0x102), "malformed header flit: FS dimension set without an FS step");
  ck_assert_std_str_eq(text(tag | 1, 0x120), "malformed header flit: LS dimension set without an LS step");
  ck_assert_std_str_eq(text(tag, 0x01000000),
                       "malformed header flit: the middle uses dimension Z, which the 4x4 torus does not have");
  ck_assert_std_str_eq(text(tag, 0x0100 | 0x5),
                       "malformed header flit: FS uses dimension Z, which the 4x4 torus does not have");
  ck_assert_std_str_eq(text(tag | 4, 0x100),
                       "malformed header flit: destination coordinate is outside the 4x4 torus");
  ck_assert_std_str_eq(text(tag | 0x10000, 0x100),
                       "malformed header flit: destination coordinate is outside the 4x4 torus");
}
END_TEST

START_TEST(test_encode_rejects) {
  const Torus t = Torus::parse("4x4");
  ck_assert_std_str_eq(invalid_argument_text([&] { encode_route(t, make_route("-X +X"), 0); }),
                       "route '-X +X' is not Angara-encodable: it does not split as [FS] middle [LS] with a DOR, "
                       "direction-bit middle");
  ck_assert_std_str_eq(invalid_argument_text([&] { encode_route(t, make_route("+Y -X +X"), 0); }),
                       "route '+Y -X +X' is not Angara-encodable: it does not split as [FS] middle [LS] with a DOR, "
                       "direction-bit middle");
  ck_assert_std_str_eq(invalid_argument_text([&] { encode_route(t, make_route("+X +Z"), 0); }),
                       "route '+X +Z' uses +Z but the 4x4 torus has no Z dimension");
  ck_assert_std_str_eq(invalid_argument_text([&] { encode_route(t, make_route("+X", 8), 1); }),
                       "virtual channel 8 does not fit the header's 3-bit field (0..7)");
  ck_assert_std_str_eq(invalid_argument_text([&] { encode_route(t, make_route("+X"), 16); }),
                       "cannot encode a route to node 16: the 4x4 torus has 16 nodes");

  // Hop counts: 127 fit the 7-bit field, 128 do not.
  const Torus ring = Torus::parse("255x2");
  Route long_route;
  long_route.hops.assign(127, Direction::make(0, true));
  const HeaderFlit h = encode_route(ring, long_route, ring.id({128, 0}));
  ck_assert_std_str_eq(h.to_hex(), "a000000000000080000000000000ff00");
  ck_assert(decode_route(ring, h) == long_route);
  long_route.hops.assign(128, Direction::make(0, false));
  ck_assert_std_str_eq(invalid_argument_text([&] { encode_route(ring, long_route, 0); }),
                       "route takes 128 hops along X; the header's 7-bit count holds at most 127");
  // The FS step is not part of the middle's count: FS=+Y then 127 x +X fits.
  Route with_fs;
  with_fs.hops.push_back(Direction::make(1, false));
  with_fs.hops.insert(with_fs.hops.end(), 127, Direction::make(0, false));
  ck_assert(decode_route(ring, encode_route(ring, with_fs, ring.id({127, 1}))) == with_fs);
}
END_TEST

START_TEST(test_hex_text) {
  ck_assert(!HeaderFlit::from_hex("a000000000000001000000000000010"));    // 31 digits
  ck_assert(!HeaderFlit::from_hex("a00000000000000100000000000001000"));  // 33 digits
  ck_assert(!HeaderFlit::from_hex("a000000000000001000000000000010g"));
  ck_assert(!HeaderFlit::from_hex(" a00000000000000100000000000010"));
  const auto h = HeaderFlit::from_hex("0123456789abcdefFEDCBA9876543210");
  ck_assert(h.has_value());
  ck_assert_uint_eq(h->high, 0x0123456789abcdefull);
  ck_assert_uint_eq(h->low, 0xfedcba9876543210ull);
  ck_assert_std_str_eq(h->to_hex(), "0123456789abcdeffedcba9876543210");
}
END_TEST

START_TEST(test_round_trip_2x2) {
  const RoundTripCounts c = round_trip_all_routes(Torus::parse("2x2"), 5);
  ck_assert_uint_eq(c.sequences, 4u + 16u + 64u + 256u + 1024u);
  ck_assert_uint_gt(c.encodable, 0u);
  ck_assert_uint_eq(c.round_trips, c.encodable * 4u);
}
END_TEST

START_TEST(test_round_trip_3x3) {
  const RoundTripCounts c = round_trip_all_routes(Torus::parse("3x3"), 5);
  ck_assert_uint_eq(c.sequences, 1364u);
  ck_assert_uint_eq(c.round_trips, c.encodable * 9u);
}
END_TEST

START_TEST(test_round_trip_4x4) {
  const RoundTripCounts c = round_trip_all_routes(Torus::parse("4x4"), 5);
  ck_assert_uint_eq(c.round_trips, c.encodable * 16u);
}
END_TEST

START_TEST(test_round_trip_desmos) {
  const RoundTripCounts c = round_trip_all_routes(Torus::parse("4x2x2x2"), 5);
  ck_assert_uint_eq(c.sequences, 8u + 64u + 512u + 4096u + 32768u);
  ck_assert_uint_eq(c.round_trips, c.encodable * 32u);
}
END_TEST

// Every length-1 and length-2 route is encodable (an FS and/or LS absorbs any
// order); counting them checks the enumeration against hand arithmetic.
START_TEST(test_short_routes_all_encodable) {
  const RoundTripCounts c = round_trip_all_routes(Torus::parse("4x2x2x2"), 2);
  // Length 2 "a b" fails only when a is negative, b positive and a > b in
  // DOR or a, b opposite: a in -X..-K, b in +X..+K: 16 pairs, all fail.
  ck_assert_uint_eq(c.sequences, 72u);
  ck_assert_uint_eq(c.encodable, 72u - 16u);
}
END_TEST

// The other direction: every header built from small field values either is
// rejected or re-encodes to itself.
START_TEST(test_decode_then_encode_is_identity) {
  const Torus t = Torus::parse("4x2x2x2");
  std::size_t accepted = 0;
  std::set<std::string> routes;
  const int field_values[] = {0x00, 0x01, 0x02, 0x81, 0x82};
  // fs, ls: 0 = absent, 1..4 = dimension X..K.
  for (int fs = 0; fs <= kMaxDims; ++fs)
    for (int ls = 0; ls <= kMaxDims; ++ls)
      for (int code = 0; code < 625; ++code) {
        std::uint64_t low = 0;
        if (fs) low |= 0x1u | (static_cast<std::uint64_t>(fs - 1) << 1);
        if (ls) low |= 0x8u | (static_cast<std::uint64_t>(ls - 1) << 4);
        int rest = code;
        for (int dim = 0; dim < 4; ++dim, rest /= 5)
          low |= static_cast<std::uint64_t>(field_values[rest % 5]) << (8 + 8 * dim);
        const HeaderFlit h = flit(0xa000000000000000ull | 0x01000101ull, low | (3ull << 40));
        try {
          NodeId dst = kNoNode;
          const Route r = decode_route(t, h, &dst);
          ck_assert(encode_route(t, r, dst) == h);
          routes.insert(r.to_string());
          ++accepted;
        } catch (const std::invalid_argument&) {
        }
      }
  // Distinct accepted headers decode to distinct routes.
  ck_assert_uint_eq(routes.size(), accepted);
  ck_assert_uint_gt(accepted, 625u);  // at least all the FS/LS-free ones
}
END_TEST

int main() {
  Suite* s = suite_create("route_code");
  TCase* exact = tcase_create("exact");
  tcase_add_test(exact, test_exact_bit_patterns);
  tcase_add_test(exact, test_canonical_split);
  tcase_add_test(exact, test_decode_exact);
  tcase_add_test(exact, test_decode_rejects);
  tcase_add_test(exact, test_encode_rejects);
  tcase_add_test(exact, test_hex_text);
  suite_add_tcase(s, exact);
  TCase* brute = tcase_create("brute_force");
  tcase_set_timeout(brute, 120);
  tcase_add_test(brute, test_round_trip_2x2);
  tcase_add_test(brute, test_round_trip_3x3);
  tcase_add_test(brute, test_round_trip_4x4);
  tcase_add_test(brute, test_round_trip_desmos);
  tcase_add_test(brute, test_short_routes_all_encodable);
  tcase_add_test(brute, test_decode_then_encode_is_identity);
  suite_add_tcase(s, brute);
  return angara_test::run_suite(s);
}
