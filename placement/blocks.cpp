#include "placement/blocks.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>

#include "routing/check/metrics.hpp"

namespace angara {

namespace {

// Every shape of exactly `count` nodes that fits the machine, in
// lexicographic order of extents.
void shapes_of_volume(const Torus& torus, std::size_t count, int dim, Shape& shape, std::vector<Shape>& out) {
  if (dim == kMaxDims) {
    if (count == 1) out.push_back(shape);
    return;
  }
  for (int s = 1; s <= torus.size(dim); ++s) {
    if (count % static_cast<std::size_t>(s) != 0) continue;
    shape[dim] = s;
    shapes_of_volume(torus, count / static_cast<std::size_t>(s), dim + 1, shape, out);
  }
  shape[dim] = 1;
}

// Mean torus distance over ordered pairs, from the per-dimension hop sums.
double mean_distance(const std::array<DimensionBoundTerms, kMaxDims>& terms, std::size_t nodes) {
  if (nodes < 2) return 0;
  std::uint64_t hops = 0;
  for (const DimensionBoundTerms& term : terms) hops += term.hops;
  return static_cast<double>(hops) / static_cast<double>(nodes * (nodes - 1));
}

}  // namespace

std::size_t shape_volume(const Shape& shape) {
  std::size_t v = 1;
  for (int s : shape) v *= static_cast<std::size_t>(s);
  return v;
}

Shape parse_shape(const Torus& torus, std::string_view text) {
  Shape shape;
  shape.fill(1);
  const std::string expected = "expected up to " + std::to_string(torus.declared_dims()) +
                               " sizes separated by 'x', each at most the machine's (" + torus.to_string() + ")";
  int dim = 0;
  std::size_t pos = 0;
  while (true) {
    std::size_t end = text.find('x', pos);
    const std::string_view part = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    if (dim >= torus.declared_dims() || part.empty() || part.size() > 4 ||
        part.find_first_not_of("0123456789") != std::string_view::npos)
      throw PlacementError("bad shape '" + std::string(text) + "': " + expected);
    const int size = std::stoi(std::string(part));
    if (size < 1 || size > torus.size(dim))
      throw PlacementError("bad shape '" + std::string(text) + "': size " + std::to_string(size) + " of " +
                           dimension_letter(dim) + " is outside 1.." + std::to_string(torus.size(dim)) + "; " +
                           expected);
    shape[dim++] = size;
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  return shape;
}

std::string format_shape(const Torus& torus, const Shape& shape) {
  std::string out;
  for (int dim = 0; dim < torus.declared_dims(); ++dim) {
    if (dim) out += 'x';
    out += std::to_string(shape[dim]);
  }
  return out;
}

std::vector<NodeId> block_nodes(const Torus& torus, const Shape& shape, const Coord& origin) {
  std::vector<NodeId> nodes;
  nodes.reserve(shape_volume(shape));
  for (int k = 0; k < shape[3]; ++k)
    for (int z = 0; z < shape[2]; ++z)
      for (int y = 0; y < shape[1]; ++y)
        for (int x = 0; x < shape[0]; ++x)
          nodes.push_back(torus.id({(origin[0] + x) % torus.size(0), (origin[1] + y) % torus.size(1),
                                    (origin[2] + z) % torus.size(2), (origin[3] + k) % torus.size(3)}));
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

std::vector<Shape> shapes_of_volume(const Torus& torus, std::size_t count) {
  std::vector<Shape> out;
  Shape shape;
  shape.fill(1);
  shapes_of_volume(torus, count, 0, shape, out);
  return out;
}

std::array<std::size_t, kMaxDims> channels_per_dimension(const Network& intact) {
  std::array<std::size_t, kMaxDims> channels{};
  for (NodeId node = 0; node < intact.torus().node_count(); ++node)
    for (int rank = 0; rank < kDirectionCount; ++rank)
      channels[Direction(rank).dim()] += intact.channel_alive(node, Direction(rank));
  return channels;
}

ShapeClassKey class_key(const Torus& torus, const std::array<std::size_t, kMaxDims>& channels, const Shape& shape) {
  ShapeClassKey key;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (torus.dim_present(dim)) key.emplace_back(torus.size(dim), channels[dim], shape[dim]);
  std::sort(key.begin(), key.end());
  return key;
}

const std::vector<std::int64_t>& BoxSums::of(const Shape& shape) {
  const auto found = sums_.find(shape);
  if (found != sums_.end()) return found->second;
  int dim = kMaxDims - 1;
  while (shape[dim] <= 1) --dim;  // the unit shape is always there
  Shape shorter = shape;
  shorter[dim] = 1;
  const std::vector<std::int64_t>& values = of(shorter);  // std::map: stays valid
  const NodeId n = torus_.node_count();
  const int size = torus_.size(dim), width = shape[dim];
  Coord unit{};
  unit[dim] = 1;
  const NodeId stride = torus_.id(unit), period = stride * static_cast<NodeId>(size);
  std::vector<std::int64_t> next(n);
  std::vector<std::int64_t> line(static_cast<std::size_t>(size + width));
  for (NodeId outer = 0; outer < n; outer += period)
    for (NodeId base = outer; base < outer + stride; ++base) {
      // The line once and its first `width` values again, so the window never wraps.
      for (int i = 0; i < size + width; ++i) line[i] = values[base + static_cast<NodeId>(i % size) * stride];
      std::int64_t sum = 0;
      for (int i = 0; i < width; ++i) sum += line[i];
      for (int origin = 0; origin < size; ++origin) {
        next[base + static_cast<NodeId>(origin) * stride] = sum;
        sum += line[origin + width] - line[origin];
      }
    }
  return sums_.emplace(shape, std::move(next)).first->second;
}

IntactBound intact_bound(const Torus& torus, const std::vector<NodeId>& nodes) {
  if (nodes.size() < 2) return {};
  std::vector<Coord> coords;
  coords.reserve(nodes.size());
  for (NodeId node : nodes) coords.push_back(torus.coord(node));
  Shape reduced;
  Coord start{};
  for (int dim = 0; dim < kMaxDims; ++dim) {
    const int size = torus.size(dim);
    std::vector<char> used(static_cast<std::size_t>(size), 0);
    for (const Coord& c : coords) used[c[dim]] = 1;
    // The longest cyclic run of unused coordinates; the span starts after it.
    int best_gap = 0, gap_end = 0;
    for (int i = 0; i < 2 * size; ++i) {
      int run = 0;
      while (run < size && !used[(i + run) % size]) ++run;
      if (run > best_gap) {
        best_gap = run;
        gap_end = (i + run) % size;
      }
      i += run;
    }
    const int span = size - best_gap;
    start[dim] = gap_end;
    if (span == 1)
      reduced[dim] = 1;
    else if (size >= 3 && 2 * span - 1 <= size)
      reduced[dim] = 2 * span - 1;
    else
      reduced[dim] = size;
  }
  // A size-2 dimension the set spans is kept whole (start 0), so its
  // single cabling carries over port for port; one it does not span goes.
  std::uint8_t single_cable = 0;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (reduced[dim] == 2 && torus.single_cabled(dim)) single_cable |= dimension_bit(dim);
  const Torus small = Torus(reduced, torus.declared_dims()).with_single_cable(single_cable);
  std::vector<NodeId> moved;
  moved.reserve(coords.size());
  for (const Coord& c : coords) {
    Coord m;
    for (int dim = 0; dim < kMaxDims; ++dim)
      m[dim] = reduced[dim] == 1 ? 0 : (c[dim] - start[dim] + torus.size(dim)) % torus.size(dim);
    moved.push_back(small.id(m));
  }
  const auto terms = dimension_bound_terms(Network(small), moved);
  return {integer_lower_bound(terms), mean_distance(terms, nodes.size())};
}

IntactBound block_bound(const Torus& torus, const Shape& shape, bool confined) {
  for (int dim = 0; dim < kMaxDims && !confined; ++dim) {
    const int extent = shape[dim], size = torus.size(dim);
    if (extent != 1 && extent != size && 2 * (extent - 1) >= size)
      return intact_bound(torus, block_nodes(torus, shape, Coord{}));
  }
  const std::uint64_t volume = shape_volume(shape);
  if (volume < 2) return {};
  std::array<DimensionBoundTerms, kMaxDims> terms{};
  for (int dim = 0; dim < kMaxDims; ++dim) {
    const int extent = shape[dim];
    if (extent < 2) continue;
    // One line of the block along dim, at coordinate 0 of the others: the
    // ring distances of its ordered pairs, and its channels to another node
    // of the line (cabling repeats line by line).
    std::uint64_t line_hops = 0, line_channels = 0;
    Coord at{};
    // Inside an isolated arc the ring distance is the line's; a confined
    // arc that is not isolated has the line's only.
    const bool ring = extent == torus.size(dim);
    for (int a = 0; a < extent; ++a) {
      for (int b = 0; b < extent; ++b)
        line_hops += static_cast<std::uint64_t>(ring ? torus.ring_distance(dim, a, b) : std::abs(a - b));
      at[dim] = a;
      const NodeId node = torus.id(at);
      for (bool negative : {false, true}) {
        const Direction d = Direction::make(dim, negative);
        const int next = negative ? (a + torus.size(dim) - 1) % torus.size(dim) : (a + 1) % torus.size(dim);
        if (torus.cabled(node, d) && next < extent) ++line_channels;
      }
    }
    const std::uint64_t lines = volume / static_cast<std::uint64_t>(extent);
    terms[dim].hops = lines * lines * line_hops;
    terms[dim].channels = lines * line_channels;
  }
  return {integer_lower_bound(terms), mean_distance(terms, volume)};
}

}  // namespace angara
