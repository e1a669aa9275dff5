#include "angara/route.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include <sys/mman.h>

namespace angara {

namespace {
constexpr std::size_t kHugePage = std::size_t(2) << 20;
std::size_t whole_huge_pages(std::size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }
}  // namespace

void* huge_zeroed(std::size_t bytes) {
  const std::size_t size = whole_huge_pages(bytes);
  // Mapped a huge page longer, then trimmed to an aligned start.
  void* mapped = ::mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(mapped);
  const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) ::munmap(mapped, aligned - start);
  const std::uintptr_t end = start + size + kHugePage;
  if (end > aligned + size) ::munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
  void* memory = reinterpret_cast<void*>(aligned);
  ::madvise(memory, size, MADV_HUGEPAGE);  // a hint: without huge pages the mapping still works
  return memory;
}

void huge_release(void* memory, std::size_t bytes) noexcept { ::munmap(memory, whole_huge_pages(bytes)); }

std::string Route::to_string() const {
  std::string out;
  for (std::size_t i = 0; i < hops.size(); ++i) {
    if (i) out += ' ';
    out += hops[i].token();
  }
  return out;
}

std::vector<Direction> parse_hops(std::string_view text) {
  std::vector<Direction> hops;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] == ' ' || text[pos] == '\t') {
      ++pos;
      continue;
    }
    std::size_t end = text.find_first_of(" \t", pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view token = text.substr(pos, end - pos);
    const auto d = Direction::parse(token);
    if (!d)
      throw std::invalid_argument("expected a hop like +X or -K, got '" + std::string(token) + "'");
    hops.push_back(*d);
    pos = end;
  }
  return hops;
}

bool is_dor_route(const std::vector<Direction>& hops) {
  bool used[kDirectionCount] = {};
  for (std::size_t i = 0; i < hops.size(); ++i) {
    if (i && hops[i] < hops[i - 1]) return false;        // direction order
    if (used[hops[i].opposite().rank()]) return false;  // direction bit
    used[hops[i].rank()] = true;
  }
  return true;
}

bool is_angara_encodable(const std::vector<Direction>& hops) {
  // Try every way to peel off an optional positive first step and an optional
  // negative last step; the rest must be a DOR route.
  const std::size_t n = hops.size();
  for (int fs = 0; fs <= 1; ++fs) {
    if (fs && (n < 1 || !hops.front().positive())) continue;
    for (int ls = 0; ls <= 1; ++ls) {
      if (ls && (n < static_cast<std::size_t>(fs + 1) || !hops.back().negative())) continue;
      std::vector<Direction> middle(hops.begin() + fs, hops.end() - ls);
      if (is_dor_route(middle)) return true;
    }
  }
  return false;
}

RouteTable::RouteTable(std::vector<NodeId> nodes) : nodes_(std::move(nodes)) {
  std::sort(nodes_.begin(), nodes_.end());
  nodes_.erase(std::unique(nodes_.begin(), nodes_.end()), nodes_.end());
  const NodeId top = nodes_.empty() ? 0 : nodes_.back() + 1;
  index_.assign(top, npos);
  for (std::size_t i = 0; i < nodes_.size(); ++i) index_[nodes_[i]] = i;
  codes_ = decltype(codes_)(nodes_.size() * nodes_.size());  // zero: calloc()
}

std::size_t RouteTable::index_of(NodeId node) const {
  return node < index_.size() ? index_[node] : npos;
}

RouteTable RouteTable::restricted_to(std::vector<NodeId> nodes) const {
  RouteTable result(std::move(nodes));
  result.algorithm = algorithm;
  result.rules = rules;
  result.flow_control = flow_control;
  const std::size_t n = result.size(), m = size();
  std::vector<std::size_t> from(n);
  for (std::size_t k = 0; k < n; ++k) {
    from[k] = index_of(result.nodes_[k]);
    if (from[k] == npos)
      throw std::invalid_argument("restricted_to: node " + std::to_string(result.nodes_[k]) + " is not in the table");
  }
  // Segments [k, k + length) of the new columns that are consecutive here.
  std::vector<std::pair<std::size_t, std::size_t>> segments;
  for (std::size_t k = 0; k < n;) {
    std::size_t length = 1;
    while (k + length < n && from[k + length] == from[k] + length) ++length;
    segments.emplace_back(k, length);
    k += length;
  }
  for (std::size_t s = 0; s < n; ++s)
    for (const auto& [k, length] : segments) {
      const auto source = codes_.begin() + static_cast<std::ptrdiff_t>(from[s] * m + from[k]);
      std::copy(source, source + static_cast<std::ptrdiff_t>(length),
                result.codes_.begin() + static_cast<std::ptrdiff_t>(s * n + k));
    }
  if (!overflow_.empty())  // their words index this table's store: copied route by route
    for (std::size_t s = 0; s < n; ++s)
      for (std::size_t d = 0; d < n; ++d)
        if (is_overflow(result.codes_[s * n + d])) {
          result.codes_[s * n + d] = 0;
          result.set_route(s, d, route(from[s], from[d]));
        }
  return result;
}

namespace {

// The word of hops[fs, size - ls) as a DOR + direction-bit middle, with the
// First Step hops[0] (fs) and Last Step hops.back() (ls); 0 if it does not fit.
std::uint32_t pack_split(const std::vector<Direction>& hops, bool fs, bool ls) {
  std::array<int, kMaxDims> count{};
  std::array<int, kMaxDims> sign{};  // 0 unused, 1 +, 2 -
  int previous = -1;
  for (std::size_t i = fs ? 1 : 0; i + (ls ? 1 : 0) < hops.size(); ++i) {
    const Direction d = hops[i];
    if (d.rank() < previous) return 0;  // direction order
    const int s = d.negative() ? 2 : 1;
    if (sign[d.dim()] && sign[d.dim()] != s) return 0;  // direction bit
    sign[d.dim()] = s;
    if (++count[d.dim()] > 31) return 0;
    previous = d.rank();
  }
  std::uint32_t word = 0;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (count[dim]) word |= static_cast<std::uint32_t>(count[dim] + (sign[dim] == 2 ? 32 : 0)) << (6 * dim);
  const unsigned first = fs ? static_cast<unsigned>(hops.front().dim() + 1) : 0u;
  const unsigned last = ls ? static_cast<unsigned>(hops.back().dim() + 1) : 0u;
  return word | (first * 5 + last) << 24;
}

}  // namespace

std::optional<PackedRoute> RouteTable::pack(const Route& route) {
  const std::vector<Direction>& hops = route.hops;
  if (hops.empty()) return PackedRoute{};
  if (route.layer > 7) return std::nullopt;
  // The splits in the order of canonical_split (angara/route_code.hpp).
  const bool can_fs = hops.front().positive(), can_ls = hops.back().negative() && hops.size() >= 2;
  std::uint32_t word = pack_split(hops, false, false);
  if (!word && can_fs) word = pack_split(hops, true, false);
  if (!word && hops.back().negative()) word = pack_split(hops, false, true);
  if (!word && can_fs && can_ls) word = pack_split(hops, true, true);
  if (!word) return std::nullopt;
  return PackedRoute{word | static_cast<std::uint32_t>(route.layer) << 29};
}

void RouteTable::set_route(std::size_t src, std::size_t dst, const Route& route) {
  std::uint32_t& slot = codes_[src * nodes_.size() + dst];
  if (const auto packed = pack(route)) {
    if (is_overflow(slot)) {  // the old overflow entry is dead now
      const std::lock_guard<std::mutex> lock(*overflow_lock_.mutex);
      overflow_[slot >> 6].layer = 0;
    }
    slot = packed->code;
    return;
  }
  const auto length = static_cast<std::uint32_t>(route.hops.size());
  const std::lock_guard<std::mutex> lock(*overflow_lock_.mutex);
  std::uint32_t index;
  if (is_overflow(slot) && overflow_[slot >> 6].capacity >= length) {
    index = slot >> 6;
  } else {
    if (overflow_.size() >= (std::size_t{1} << 26))
      throw std::length_error("route table: more than 2^26 routes that are not Angara-encodable");
    if (overflow_hops_.size() + length > UINT32_MAX) throw std::length_error("route table: overflow store full");
    if (is_overflow(slot)) overflow_[slot >> 6].layer = 0;  // left behind
    index = static_cast<std::uint32_t>(overflow_.size());
    overflow_.push_back({static_cast<std::uint32_t>(overflow_hops_.size()), 0, length, 0});
    overflow_hops_.resize(overflow_hops_.size() + length);
  }
  Overflow& entry = overflow_[index];
  std::copy(route.hops.begin(), route.hops.end(), overflow_hops_.begin() + entry.first);
  entry.length = length;
  entry.layer = route.layer;
  slot = index << 6 | kEscape;
}

Route RouteTable::route(std::size_t src, std::size_t dst) const {
  Route out;
  const std::uint32_t word = code(src, dst);
  if (word == 0) return out;
  out.layer = layer(src, dst);
  out.hops.reserve(hop_count(src, dst));
  for_each_run(src, dst, [&](Direction d, int count) { out.hops.insert(out.hops.end(), count, d); });
  return out;
}

Route RouteTable::unpack(PackedRoute packed) {
  if (is_overflow(packed.code)) throw std::invalid_argument("not a compact route word");
  Route out;
  if (packed.code == 0) return out;
  out.layer = static_cast<std::uint8_t>(packed.code >> 29);
  for_each_compact_run(packed.code, [&](Direction d, int count) { out.hops.insert(out.hops.end(), count, d); });
  return out;
}

std::uint8_t RouteTable::layer(std::size_t src, std::size_t dst) const {
  const std::uint32_t word = code(src, dst);
  return is_overflow(word) ? overflow(word).layer : static_cast<std::uint8_t>(word >> 29);
}

std::size_t RouteTable::hop_count(std::size_t src, std::size_t dst) const {
  const std::uint32_t word = code(src, dst);
  if (is_overflow(word)) return overflow(word).length;
  const unsigned steps = (word >> 24) & 31u;
  std::size_t hops = (steps / 5 ? 1 : 0) + (steps % 5 ? 1 : 0);
  for (int dim = 0; dim < kMaxDims; ++dim) hops += (word >> (6 * dim)) & 31u;
  return hops;
}

std::size_t RouteTable::virtual_channels() const {
  std::uint32_t top = 0;  // the highest layer field of a compact word
  for (std::uint32_t word : codes_)
    if (!is_overflow(word)) top = std::max(top, word >> 29);
  std::size_t layers = top + 1u;
  for (const Overflow& entry : overflow_) layers = std::max<std::size_t>(layers, entry.layer + 1u);
  return layers;
}

std::size_t RouteTable::route_bytes() const {
  return codes_.capacity() * sizeof(std::uint32_t) + overflow_.capacity() * sizeof(Overflow) +
         overflow_hops_.capacity() * sizeof(Direction);
}

RouteTable dimension_order_table(const Torus& torus, std::vector<NodeId> allocation, bool split_ties) {
  return dimension_order_table(torus, std::move(allocation), split_ties ? RingTies::split() : RingTies::positive());
}

RouteTable dimension_order_table(const Torus& torus, std::vector<NodeId> allocation, const RingTies& ties) {
  RouteTable table(std::move(allocation));
  table.algorithm = "dor";
  const std::size_t n = table.size();
  // A route depends on the displacement alone, and on the source's side of
  // a single-cabled size-2 dimension (with ties split by parity, on the
  // source's parity in that even-sized dimension): each class is packed once (a
  // random half of 8x8x8x8 has 4096 classes for 4.2 million pairs), and a
  // pair finds its class by a few table look-ups, without a division (the
  // whole 8x8x8x8 is 16.7 million pairs).
  int side_bits = 0;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if ((torus.size(dim) == 2 && torus.single_cabled(dim)) ||
        (torus.size(dim) % 2 == 0 && ties.negative[static_cast<std::size_t>(dim)][0] != ties.negative[static_cast<std::size_t>(dim)][1]))
      side_bits |= 1 << dim;
  const std::size_t classes = static_cast<std::size_t>(torus.node_count()) << kMaxDims;
  std::vector<std::uint32_t> words(classes, 0);  // 0: not packed yet, or not compact
  std::vector<unsigned char> known(classes, 0);
  // The allocation's coordinates, a dimension at a time.
  std::array<std::vector<std::uint16_t>, kMaxDims> coords;
  std::array<std::size_t, kMaxDims> stride{};
  std::size_t next_stride = 1;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    coords[dim].resize(n);
    stride[dim] = next_stride;
    next_stride *= static_cast<std::size_t>(torus.size(dim));
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Coord c = torus.coord(table.nodes()[i]);
    for (int dim = 0; dim < kMaxDims; ++dim) coords[dim][i] = static_cast<std::uint16_t>(c[dim]);
  }
  // The route of a class: positive runs in dimension order first, then the
  // negative ones.
  Route route;
  const auto build_route = [&](const Coord& from, const Coord& forward) {
    route.hops.clear();
    for (const bool negative_pass : {false, true})
      for (int dim = 0; dim < kMaxDims; ++dim) {
        const int size = torus.size(dim);
        if (forward[dim] == 0) continue;
        const bool negative = dimension_order_negative(torus, dim, from[dim], forward[dim], ties);
        if (negative != negative_pass) continue;
        route.hops.insert(route.hops.end(), negative ? size - forward[dim] : forward[dim],
                          Direction::make(dim, negative));
      }
  };
  // By dimension: a destination coordinate's forward distance from the
  // source's, times the dimension's stride (its part of the class key).
  std::array<std::vector<std::size_t>, kMaxDims> key_part;
  for (int dim = 0; dim < kMaxDims; ++dim) key_part[dim].resize(static_cast<std::size_t>(torus.size(dim)));
  for (std::size_t s = 0; s < n; ++s) {
    Coord from{};
    std::size_t side = 0;
    for (int dim = 0; dim < kMaxDims; ++dim) {
      from[dim] = coords[dim][s];
      if ((side_bits >> dim) & 1) side |= static_cast<std::size_t>(from[dim] & 1) << dim;
      const int size = torus.size(dim);
      for (int to = 0; to < size; ++to)
        key_part[dim][static_cast<std::size_t>(to)] = static_cast<std::size_t>((to - from[dim] + size) % size) * stride[dim];
    }
    const std::size_t side_key = side * torus.node_count();
    for (std::size_t d = 0; d < n; ++d) {
      if (s == d) continue;
      const std::size_t key = side_key + key_part[0][coords[0][d]] + key_part[1][coords[1][d]] +
                              key_part[2][coords[2][d]] + key_part[3][coords[3][d]];
      if (known[key] && words[key] != 0) {
        table.set_route(s, d, PackedRoute{words[key]});
        continue;
      }
      Coord forward{};
      for (int dim = 0; dim < kMaxDims; ++dim)
        forward[dim] = static_cast<int>(key_part[dim][coords[dim][d]] / stride[dim]);
      build_route(from, forward);
      if (!known[key]) {
        known[key] = 1;
        if (const std::optional<PackedRoute> packed = RouteTable::pack(route)) words[key] = packed->code;
      }
      if (words[key] != 0)
        table.set_route(s, d, PackedRoute{words[key]});
      else
        table.set_route(s, d, route);  // not compact: the overflow store
    }
  }
  return table;
}

}  // namespace angara
