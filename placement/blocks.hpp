// Blocks of the torus: the box of a shape at an origin, taken with
// wrap-around (a sub-torus in the dimensions it spans whole), the shapes of a
// volume and their classes, and sums of a per-node value over the box of a
// shape at every origin.  Node selection (placement.hpp) searches free
// blocks with them; Slurm's order (slurm_order.hpp) cuts the machine into
// nested ones.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "angara/network.hpp"

namespace angara {

// Extent of a block in each dimension (1 for a dimension it does not span).
using Shape = std::array<int, kMaxDims>;

// A request that cannot be met as asked: too few free nodes, a shape that
// does not fit the machine, a count that disagrees with the shape.
class PlacementError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Parses "2x4x4" against the machine: one size per declared dimension or
// fewer (the rest are 1), each between 1 and the machine's size.  Throws
// PlacementError saying what was expected.
Shape parse_shape(const Torus& torus, std::string_view text);
// "2x4x4": the declared dimensions of the machine.
std::string format_shape(const Torus& torus, const Shape& shape);
std::size_t shape_volume(const Shape& shape);
// The nodes of the block of `shape` whose lowest corner is `origin`, taken
// with wrap-around, sorted by NodeId.
std::vector<NodeId> block_nodes(const Torus& torus, const Shape& shape, const Coord& origin);

// Every shape of exactly `count` nodes that fits the machine, in
// lexicographic order of extents.
std::vector<Shape> shapes_of_volume(const Torus& torus, std::size_t count);

// Shapes that differ only by a permutation of dimensions with the same size
// and cabling are one class: on the intact machine they route alike, so one
// representative is routed, and the class offers all its orientations.
// Cabling is told apart by the intact machine's live channels per dimension
// (a single-cabled size-2 dimension has half those of a double-cabled one).
using ShapeClassKey = std::vector<std::tuple<int, std::size_t, int>>;
// The intact machine's live channels per dimension.
std::array<std::size_t, kMaxDims> channels_per_dimension(const Network& intact);
// The class of a shape: per present dimension, (size, channels, extent), sorted.
ShapeClassKey class_key(const Torus& torus, const std::array<std::size_t, kMaxDims>& channels, const Shape& shape);

// The per-dimension bound and mean distance of a node set on the intact
// machine, computed on the smallest torus where they are the same: the set
// is moved to the corner of its cyclic bounding box, and a ring of size d in
// which the set spans s with 2s - 1 <= d shrinks to 2s - 1 (every shortest
// arc between two of its coordinates, at most s - 1 long, stays inside the
// span, and the way round outside, at least s long, is longer in both
// rings).  A 32-node block of a 4096-node machine is bounded
// on 256 nodes instead.
struct IntactBound {
  std::uint64_t bound = 0;
  double distance = 0;
};
IntactBound intact_bound(const Torus& torus, const std::vector<NodeId>& nodes);
// The same for the block of a shape, in closed form when every minimal
// route of the block stays inside it (per dimension it spans 1, the whole
// ring, or an arc with 2 * (extent - 1) < ring size): then the hop sum of a
// dimension is (volume / extent)^2 times the ring distances within one line,
// and its channels are those between two of the block's nodes, so the bound
// costs O(extent^2) per dimension instead of the pairs of the block (about
// 200 ms for 512 nodes).  Other shapes: intact_bound of the block, unless
// `confined`: the job's routes are computed inside the block (routing.confine),
// so a dimension it spans in part is a line, not a ring, and the closed form
// holds for every shape (line distances, the line's own channels).
IntactBound block_bound(const Torus& torus, const Shape& shape, bool confined = false);

// Sums of a per-node value over the cyclic box of a shape at every origin
// (indexed by the origin's NodeId), as one sliding window per dimension the
// box spans: O(dims * nodes) for all origins together, where a box query of
// prefix sums would cost O(2^dims) per origin.  A box that spans a whole
// ring has the same sum at every origin along it.  The sums of a box are
// those of the box one dimension shorter, slid along that dimension, and
// every box is kept: the shapes of one volume and their faces share most
// of their shorter boxes, so each distinct box costs one pass.
class BoxSums {
 public:
  BoxSums(const Torus& torus, std::vector<std::int64_t> values) : torus_(torus) {
    Shape unit;
    unit.fill(1);
    sums_.emplace(unit, std::move(values));
  }

  // Per origin, the sum over the box of `shape` there; computed on first
  // use, and valid as long as the BoxSums.
  const std::vector<std::int64_t>& of(const Shape& shape);

 private:
  const Torus& torus_;
  std::map<Shape, std::vector<std::int64_t>> sums_;
};

}  // namespace angara
