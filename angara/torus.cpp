#include "angara/torus.hpp"

#include <stdexcept>

namespace angara {

namespace {
constexpr char kLetters[kMaxDims] = {'X', 'Y', 'Z', 'K'};

int parse_int(std::string_view text, const char* what) {
  if (text.empty()) throw std::invalid_argument(std::string("empty ") + what);
  int value = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '9')
      throw std::invalid_argument(std::string("expected a non-negative integer for ") + what +
                                  ", got '" + std::string(text) + "'");
    value = value * 10 + (ch - '0');
    if (value > 1000000) throw std::invalid_argument(std::string(what) + " is too large");
  }
  return value;
}
}  // namespace

char dimension_letter(int dim) { return kLetters[dim]; }

std::optional<Direction> Direction::parse(std::string_view token) {
  if (token.size() != 2 || (token[0] != '+' && token[0] != '-')) return std::nullopt;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (token[1] == kLetters[dim]) return Direction::make(dim, token[0] == '-');
  return std::nullopt;
}

std::string Direction::token() const {
  return std::string(1, negative() ? '-' : '+') + kLetters[dim()];
}

Torus::Torus(std::array<int, kMaxDims> sizes, int declared_dims)
    : sizes_(sizes), declared_dims_(declared_dims) {
  if (declared_dims < 1 || declared_dims > kMaxDims)
    throw std::invalid_argument("a torus has 1 to 4 dimensions");
  NodeId count = 1;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    if (sizes_[dim] < 1) throw std::invalid_argument("torus sizes must be at least 1");
    if (dim >= declared_dims && sizes_[dim] != 1)
      throw std::invalid_argument("undeclared dimensions must have size 1");
    if (sizes_[dim] > 255) throw std::invalid_argument("torus sizes above 255 are not supported");
    stride_[dim] = count;
    count *= static_cast<NodeId>(sizes_[dim]);
    if (sizes_[dim] >= 2) ++present_dims_;
  }
  if (present_dims_ == 0) throw std::invalid_argument("a torus needs a dimension of size 2 or more");
  if (count > (1u << 20)) throw std::invalid_argument("torus has too many nodes (limit 1048576)");
  node_count_ = count;
}

Torus Torus::parse(std::string_view text) {
  std::array<int, kMaxDims> sizes{1, 1, 1, 1};
  int dims = 0;
  std::size_t start = 0;
  while (true) {
    std::size_t end = text.find('x', start);
    std::string_view part = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (dims == kMaxDims)
      throw std::invalid_argument("expected 1 to 4 sizes like 4x2x2x2, got '" + std::string(text) + "'");
    sizes[dims++] = parse_int(part, "a torus size");
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return Torus(sizes, dims);
}

bool Torus::valid(const Coord& c) const {
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (c[dim] < 0 || c[dim] >= sizes_[dim]) return false;
  return true;
}

ChannelId Torus::reverse_channel(ChannelId c) const {
  const NodeId node = channel_node(c);
  const Direction d = channel_direction(c);
  return channel(neighbor(node, d), d.opposite());
}

int Torus::ring_distance(int dim, int from, int to) const {
  const int size = sizes_[dim];
  const int forward = ((to - from) % size + size) % size;
  return forward <= size - forward ? forward : size - forward;
}

int Torus::distance(NodeId a, NodeId b) const {
  const Coord ca = coord(a), cb = coord(b);
  int total = 0;
  for (int dim = 0; dim < kMaxDims; ++dim) total += ring_distance(dim, ca[dim], cb[dim]);
  return total;
}

std::string Torus::format_coord(const Coord& c) const {
  std::string out;
  for (int dim = 0; dim < declared_dims_; ++dim) {
    if (dim) out += ',';
    out += std::to_string(c[dim]);
  }
  return out;
}

Coord Torus::parse_coord(std::string_view text) const {
  Coord c{0, 0, 0, 0};
  int dim = 0;
  std::size_t start = 0;
  while (true) {
    std::size_t end = text.find(',', start);
    std::string_view part = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (dim == declared_dims_)
      throw std::invalid_argument("expected " + std::to_string(declared_dims_) +
                                  " comma-separated coordinates for a " + to_string() +
                                  " torus, got '" + std::string(text) + "'");
    c[dim] = parse_int(part, "a coordinate");
    if (c[dim] >= sizes_[dim])
      throw std::invalid_argument("coordinate " + std::string(1, kLetters[dim]) + "=" +
                                  std::to_string(c[dim]) + " is outside the " + to_string() + " torus");
    ++dim;
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (dim != declared_dims_)
    throw std::invalid_argument("expected " + std::to_string(declared_dims_) +
                                " comma-separated coordinates for a " + to_string() +
                                " torus, got '" + std::string(text) + "'");
  return c;
}

Torus Torus::with_single_cable(std::uint8_t mask) const {
  for (int dim = 0; dim < kMaxDims; ++dim) {
    if (!(mask & dimension_bit(dim))) continue;
    const std::string letter(1, kLetters[dim]);
    if (!dim_present(dim))
      throw std::invalid_argument(letter + " is not a dimension of the " + to_string() +
                                  " torus, so it cannot be single-cabled");
    if (sizes_[dim] != 2)
      throw std::invalid_argument(letter + " has size " + std::to_string(sizes_[dim]) + " in the " + to_string() +
                                  " torus; only a dimension of size 2 can be single-cabled");
  }
  if (mask >> kMaxDims) throw std::invalid_argument("a single-cable mask has one bit per dimension X, Y, Z, K");
  Torus copy = *this;
  copy.single_cable_ = mask;
  return copy;
}

std::string Torus::dimension_letters(std::uint8_t mask) {
  std::string out;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (mask & dimension_bit(dim)) out += kLetters[dim];
  return out;
}

std::uint8_t Torus::parse_dimension_letters(std::string_view text) {
  if (text == "none") return 0;
  std::uint8_t mask = 0;
  for (char ch : text) {
    int dim = 0;
    while (dim < kMaxDims && kLetters[dim] != ch) ++dim;
    if (dim == kMaxDims)
      throw std::invalid_argument(std::string("'") + ch + "' is not a dimension (expected X, Y, Z or K)");
    if (mask & dimension_bit(dim)) throw std::invalid_argument(std::string(1, ch) + " is given twice");
    mask |= dimension_bit(dim);
  }
  return mask;
}

std::size_t Torus::cabled_channel_count() const {
  std::size_t count = 2u * static_cast<std::size_t>(present_dims_) * node_count_;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (single_cabled(dim)) count -= node_count_;  // half the nodes lack +D, the other half -D
  return count;
}

std::string Torus::missing_cable_text(NodeId node, Direction d) const {
  const std::string port = "port " + d.token() + " of " + format_coord(node);
  const std::string letter(1, kLetters[d.dim()]);
  if (!direction_present(d)) return port + " does not exist: the " + to_string() + " torus has no " + letter + " dimension";
  if (cabled(node, d)) return port + " has a cable";
  return port + " has no cable (" + letter + " is single-cabled: only +" + letter + " at " + letter + "=0 and -" +
         letter + " at " + letter + "=1 are cabled)";
}

std::size_t Torus::first_uncabled_hop(NodeId node, const std::vector<Direction>& hops, NodeId* at) const {
  std::size_t k = 0;
  for (; k < hops.size(); ++k) {
    if (!cabled(node, hops[k])) break;
    node = neighbor(node, hops[k]);
  }
  if (at) *at = node;
  return k;
}

std::string Torus::description() const {
  if (!single_cable_) return to_string();
  return to_string() + " single_cable=" + dimension_letters(single_cable_);
}

std::string Torus::to_string() const {
  std::string out;
  for (int dim = 0; dim < declared_dims_; ++dim) {
    if (dim) out += 'x';
    out += std::to_string(sizes_[dim]);
  }
  return out;
}

}  // namespace angara
