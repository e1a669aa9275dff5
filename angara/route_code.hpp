// Encoding of an Angara route into the 128-bit header flit the source router
// stamps on injected packets.  The bit layout is documented in angara-tables(5).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "angara/route.hpp"

namespace angara {

struct HeaderFlit {
  std::uint64_t low = 0;   // bits 0..63
  std::uint64_t high = 0;  // bits 64..127
  std::string to_hex() const;  // 32 hex digits, bit 127 first
  static std::optional<HeaderFlit> from_hex(const std::string& hex);
  friend bool operator==(const HeaderFlit& a, const HeaderFlit& b) {
    return a.low == b.low && a.high == b.high;
  }
};

// Limits of the header fields (layout: angara-tables(5), "HEADER FLIT").
constexpr int kHeaderMaxHopsPerDim = 127;  // 7-bit hop count per dimension
constexpr int kHeaderMaxLayer = 7;         // 3-bit virtual channel
constexpr unsigned kHeaderFormatTag = 0xA; // bits 124..127 of every v1 header

// Where a route is cut into [FS] middle [LS].  Several cuts can describe the
// same hops ("+X -X" is FS=+X middle=-X, or middle=+X LS=-X); the canonical
// cut is the first that works in the order: none, FS only, LS only, FS and LS.
// nullopt if the hops are not Angara-encodable.
struct RouteSplit {
  bool first_step = false;
  bool last_step = false;
};
std::optional<RouteSplit> canonical_split(const std::vector<Direction>& hops);

// Encodes an Angara-encodable route towards `destination`.  Throws
// std::invalid_argument if the route is not encodable or a count overflows.
HeaderFlit encode_route(const Torus& torus, const Route& route, NodeId destination);
// Decodes a header back into the route (hops in the order the router takes
// them) and its destination.  Throws std::invalid_argument on a malformed
// header: wrong tag, reserved bits set, an absent dimension, a destination
// outside the torus, or a split other than the canonical one (so that
// encode_route(decode_route(h)) == h for every accepted h).
Route decode_route(const Torus& torus, const HeaderFlit& header, NodeId* destination = nullptr);

}  // namespace angara
