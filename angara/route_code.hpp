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

// Encodes an Angara-encodable route towards `destination`.  Throws
// std::invalid_argument if the route is not encodable or a count overflows.
HeaderFlit encode_route(const Torus& torus, const Route& route, NodeId destination);
// Decodes a header back into the route (hops in the order the router takes
// them) and its destination.  Throws std::invalid_argument on a malformed header.
Route decode_route(const Torus& torus, const HeaderFlit& header, NodeId* destination = nullptr);

}  // namespace angara
