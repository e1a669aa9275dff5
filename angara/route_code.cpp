// The 128-bit header flit (ANSU paper, section 2: "a router creates a 128-bit
// header flit with a route information from a routing table").  A route
// [FS] middle [LS] is stored as the two special steps plus, per dimension, a
// sign and a hop count: the middle obeys DOR and the direction-bit rule, so
// the router can replay it in the order +X +Y +Z +K -X -Y -Z -K.
//
// Bit layout (bit 0 = least significant bit of `low`), angara-tables(5):
//   0       FS present          1..2   FS dimension (0=X .. 3=K)
//   3       LS present          4..5   LS dimension
//   6..7    reserved
//   8+8d .. 14+8d  hop count of dimension d (7 bits), 15+8d its sign (1 = -)
//   40..42  virtual channel     43..63 reserved
//   64+8d .. 71+8d destination coordinate in dimension d
//   96..123 reserved            124..127 format tag 0xA
#include "angara/route_code.hpp"

#include <stdexcept>

namespace angara {

namespace {

constexpr int kFirstStepPresentBit = 0;
constexpr int kFirstStepDimShift = 1;
constexpr int kLastStepPresentBit = 3;
constexpr int kLastStepDimShift = 4;
constexpr int kDimFieldShift = 8;  // dimension d's byte starts at bit 8 + 8d
constexpr int kSignBitInField = 7;
constexpr int kLayerShift = 40;
constexpr int kTagShift = 60;  // within `high`

constexpr std::uint64_t kCountMask = 0x7F;
constexpr std::uint64_t kLowUsedBits = 0x3Full                    // FS, LS
                                       | (0xFFFFFFFFull << 8)     // 4 dimension bytes
                                       | (0x7ull << kLayerShift);  // virtual channel
constexpr std::uint64_t kHighUsedBits = 0xFFFFFFFFull | (0xFull << kTagShift);

// DOR + direction-bit check on hops[first, last) without copying.
bool is_dor_span(const std::vector<Direction>& hops, std::size_t first, std::size_t last) {
  bool used[kDirectionCount] = {};
  for (std::size_t i = first; i < last; ++i) {
    if (i > first && hops[i] < hops[i - 1]) return false;
    if (used[hops[i].opposite().rank()]) return false;
    used[hops[i].rank()] = true;
  }
  return true;
}

std::uint64_t bit(int position) { return std::uint64_t{1} << position; }

[[noreturn]] void reject_header(const std::string& why) {
  throw std::invalid_argument("malformed header flit: " + why);
}

}  // namespace

std::string HeaderFlit::to_hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[15 - i] = kDigits[(high >> (4 * i)) & 0xF];
    out[31 - i] = kDigits[(low >> (4 * i)) & 0xF];
  }
  return out;
}

std::optional<HeaderFlit> HeaderFlit::from_hex(const std::string& hex) {
  if (hex.size() != 32) return std::nullopt;
  HeaderFlit flit;
  for (std::size_t i = 0; i < 32; ++i) {
    const char ch = hex[i];
    unsigned digit;
    if (ch >= '0' && ch <= '9') digit = static_cast<unsigned>(ch - '0');
    else if (ch >= 'a' && ch <= 'f') digit = static_cast<unsigned>(ch - 'a' + 10);
    else if (ch >= 'A' && ch <= 'F') digit = static_cast<unsigned>(ch - 'A' + 10);
    else return std::nullopt;
    std::uint64_t& word = i < 16 ? flit.high : flit.low;
    word = (word << 4) | digit;
  }
  return flit;
}

std::optional<RouteSplit> canonical_split(const std::vector<Direction>& hops) {
  const std::size_t n = hops.size();
  // Fewest special steps first; between FS-only and LS-only, FS-only wins.
  static constexpr RouteSplit kOrder[] = {{false, false}, {true, false}, {false, true}, {true, true}};
  for (const RouteSplit& split : kOrder) {
    const std::size_t specials = (split.first_step ? 1u : 0u) + (split.last_step ? 1u : 0u);
    if (n < specials) continue;
    if (split.first_step && !hops.front().positive()) continue;
    if (split.last_step && !hops.back().negative()) continue;
    if (is_dor_span(hops, split.first_step ? 1 : 0, n - (split.last_step ? 1 : 0))) return split;
  }
  return std::nullopt;
}

HeaderFlit encode_route(const Torus& torus, const Route& route, NodeId destination) {
  if (destination >= torus.node_count())
    throw std::invalid_argument("cannot encode a route to node " + std::to_string(destination) +
                                ": the " + torus.to_string() + " torus has " +
                                std::to_string(torus.node_count()) + " nodes");
  if (route.layer > kHeaderMaxLayer)
    throw std::invalid_argument("virtual channel " + std::to_string(route.layer) +
                                " does not fit the header's 3-bit field (0.." +
                                std::to_string(kHeaderMaxLayer) + ")");
  for (Direction d : route.hops)
    if (!torus.direction_present(d))
      throw std::invalid_argument("route '" + route.to_string() + "' uses " + d.token() + " but the " +
                                  torus.to_string() + " torus has no " +
                                  std::string(1, dimension_letter(d.dim())) + " dimension");
  const std::optional<RouteSplit> split = canonical_split(route.hops);
  if (!split)
    throw std::invalid_argument("route '" + route.to_string() +
                                "' is not Angara-encodable: it does not split as [FS] middle [LS] "
                                "with a DOR, direction-bit middle");

  HeaderFlit flit;
  std::size_t first = 0, last = route.hops.size();
  if (split->first_step) {
    const Direction fs = route.hops[first++];
    flit.low |= bit(kFirstStepPresentBit) | (static_cast<std::uint64_t>(fs.dim()) << kFirstStepDimShift);
  }
  if (split->last_step) {
    const Direction ls = route.hops[--last];
    flit.low |= bit(kLastStepPresentBit) | (static_cast<std::uint64_t>(ls.dim()) << kLastStepDimShift);
  }
  // The middle obeys the direction-bit rule: one sign per dimension.
  int count[kMaxDims] = {};
  bool negative[kMaxDims] = {};
  for (std::size_t i = first; i < last; ++i) {
    const Direction d = route.hops[i];
    ++count[d.dim()];
    negative[d.dim()] = d.negative();
  }
  for (int dim = 0; dim < kMaxDims; ++dim) {
    if (count[dim] > kHeaderMaxHopsPerDim)
      throw std::invalid_argument("route takes " + std::to_string(count[dim]) + " hops along " +
                                  std::string(1, dimension_letter(dim)) +
                                  "; the header's 7-bit count holds at most " +
                                  std::to_string(kHeaderMaxHopsPerDim));
    const int shift = kDimFieldShift + 8 * dim;
    flit.low |= static_cast<std::uint64_t>(count[dim]) << shift;
    if (count[dim] > 0 && negative[dim]) flit.low |= bit(shift + kSignBitInField);
  }
  flit.low |= static_cast<std::uint64_t>(route.layer) << kLayerShift;

  const Coord dest = torus.coord(destination);
  for (int dim = 0; dim < kMaxDims; ++dim) flit.high |= static_cast<std::uint64_t>(dest[dim]) << (8 * dim);
  flit.high |= static_cast<std::uint64_t>(kHeaderFormatTag) << kTagShift;
  return flit;
}

Route decode_route(const Torus& torus, const HeaderFlit& header, NodeId* destination) {
  const unsigned tag = static_cast<unsigned>(header.high >> kTagShift);
  if (tag != kHeaderFormatTag)
    reject_header(std::string("format tag is 0x") + "0123456789abcdef"[tag & 0xF] + ", expected 0xa");
  if ((header.low & ~kLowUsedBits) != 0 || (header.high & ~kHighUsedBits) != 0)
    reject_header("reserved bits are not zero");

  const std::uint64_t low = header.low;
  const bool has_fs = (low & bit(kFirstStepPresentBit)) != 0;
  const bool has_ls = (low & bit(kLastStepPresentBit)) != 0;
  const int fs_dim = static_cast<int>((low >> kFirstStepDimShift) & 0x3);
  const int ls_dim = static_cast<int>((low >> kLastStepDimShift) & 0x3);
  if (!has_fs && fs_dim != 0) reject_header("FS dimension set without an FS step");
  if (!has_ls && ls_dim != 0) reject_header("LS dimension set without an LS step");

  auto require_dim = [&](int dim, const char* what) {
    if (!torus.dim_present(dim))
      reject_header(std::string(what) + " uses dimension " + std::string(1, dimension_letter(dim)) +
                    ", which the " + torus.to_string() + " torus does not have");
  };

  Route route;
  route.layer = static_cast<std::uint8_t>((low >> kLayerShift) & 0x7);
  if (has_fs) {
    require_dim(fs_dim, "FS");
    route.hops.push_back(Direction::make(fs_dim, false));
  }
  int count[kMaxDims];
  bool negative[kMaxDims];
  for (int dim = 0; dim < kMaxDims; ++dim) {
    const int shift = kDimFieldShift + 8 * dim;
    count[dim] = static_cast<int>((low >> shift) & kCountMask);
    negative[dim] = (low & bit(shift + kSignBitInField)) != 0;
    if (count[dim] == 0 && negative[dim])
      reject_header(std::string("sign bit set on a zero hop count in ") + dimension_letter(dim));
    if (count[dim] > 0) require_dim(dim, "the middle");
  }
  // The middle in direction order: the positive dimensions, then the negative.
  for (int pass = 0; pass < 2; ++pass)
    for (int dim = 0; dim < kMaxDims; ++dim)
      if (negative[dim] == (pass == 1))
        route.hops.insert(route.hops.end(), static_cast<std::size_t>(count[dim]), Direction::make(dim, negative[dim]));
  if (has_ls) {
    require_dim(ls_dim, "LS");
    route.hops.push_back(Direction::make(ls_dim, true));
  }

  // One route, one header: a split other than the canonical one is rejected
  // so that encode(decode(h)) == h for every accepted h.
  const std::optional<RouteSplit> canonical = canonical_split(route.hops);
  if (!canonical || canonical->first_step != has_fs || canonical->last_step != has_ls)
    reject_header("route '" + route.to_string() + "' is not written with its canonical FS/LS split");

  Coord dest{};
  for (int dim = 0; dim < kMaxDims; ++dim) dest[dim] = static_cast<int>((header.high >> (8 * dim)) & 0xFF);
  if (!torus.valid(dest))
    reject_header("destination coordinate is outside the " + torus.to_string() + " torus");
  if (destination) *destination = torus.id(dest);
  return route;
}

}  // namespace angara
