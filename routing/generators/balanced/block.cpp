// Stage 0 of the balanced generator for blocks of a larger torus (block.hpp).
#include "routing/generators/balanced/block.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "angara/torus.hpp"
#include "routing/common/parallel.hpp"

namespace angara::balanced {

namespace {

enum class Span { fixed, ring, mesh };

// Per dimension: how the allocation spans it, where its arc starts and how
// long it is; nullopt when the nodes are not a box of whole rings, single
// coordinates and short arcs.
struct BlockShape {
  std::array<Span, kMaxDims> span{};
  std::array<int, kMaxDims> start{}, extent{};
};

std::optional<BlockShape> block_shape(const Torus& torus, const std::vector<NodeId>& nodes) {
  BlockShape shape;
  std::size_t volume = 1;
  bool mesh = false;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    const int size = torus.size(dim);
    std::vector<char> used(static_cast<std::size_t>(size), 0);
    for (NodeId node : nodes) used[static_cast<std::size_t>(torus.coord(node)[dim])] = 1;
    // The longest cyclic run of unused coordinates: the arc starts after it.
    int best_gap = 0, gap_end = 0;
    for (int i = 0; i < size; ++i) {
      if (used[static_cast<std::size_t>(i)]) continue;
      int run = 0;
      while (run < size && !used[static_cast<std::size_t>((i + run) % size)]) ++run;
      if (run > best_gap) {
        best_gap = run;
        gap_end = (i + run) % size;
      }
    }
    const int extent = size - best_gap;
    shape.start[dim] = best_gap == 0 ? 0 : gap_end;
    shape.extent[dim] = extent;
    if (extent == 1) {
      shape.span[dim] = Span::fixed;
    } else if (extent == size) {
      shape.span[dim] = Span::ring;
    } else if (2 * (extent - 1) < size) {
      shape.span[dim] = Span::mesh;
      mesh = true;
    } else {
      return std::nullopt;  // minimal routes may leave the block
    }
    volume *= static_cast<std::size_t>(extent);
  }
  // Distinct nodes inside a box of exactly their number: every node of it.
  if (!mesh || volume != nodes.size()) return std::nullopt;
  return shape;
}

}  // namespace

std::optional<unsigned> block_ring_dimensions(const Torus& torus, const std::vector<NodeId>& nodes) {
  if (nodes.size() < 2) return std::nullopt;
  const std::optional<BlockShape> shape = block_shape(torus, nodes);
  if (!shape) return std::nullopt;
  unsigned rings = 0;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (shape->span[dim] == Span::ring) rings |= 1u << dim;
  return rings;
}

bool block_table(const Network& network, RouteTable& table, FlowControl rule) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = table.nodes();
  if (nodes.size() < 2) return false;
  const std::optional<BlockShape> found = block_shape(torus, nodes);
  if (!found) return false;
  const BlockShape& shape = *found;
  // Without bubble flow control a ring of 3 or more closes a cycle of ring
  // steps under direction-order routes.
  if (rule != FlowControl::bubble)
    for (int dim = 0; dim < kMaxDims; ++dim)
      if (shape.span[dim] == Span::ring && torus.size(dim) >= 3) return false;

  // Per allocated node its offsets along the arcs (ring: its coordinate);
  // every channel between two nodes of the block must be live.
  const std::size_t n = nodes.size();
  std::vector<std::array<int, kMaxDims>> offset(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Coord c = torus.coord(nodes[i]);
    for (int dim = 0; dim < kMaxDims; ++dim) {
      const int size = torus.size(dim);
      offset[i][dim] = ((c[dim] - shape.start[dim]) % size + size) % size;
      if (shape.span[dim] == Span::fixed) continue;
      for (bool negative : {false, true}) {
        const Direction d = Direction::make(dim, negative);
        if (!torus.cabled(nodes[i], d)) continue;
        const int next = offset[i][dim] + d.step();
        const bool inside = shape.span[dim] == Span::ring || (next >= 0 && next < shape.extent[dim]);
        if (inside && !network.channel_alive(nodes[i], d)) return false;
      }
    }
  }

  // The packed route of every signed hop count per dimension (mixed radix
  // over -reach..reach), computed once: a few thousand words.
  std::array<int, kMaxDims> reach{};
  std::array<std::size_t, kMaxDims> weight{};
  std::size_t codes = 1;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    reach[dim] = shape.span[dim] == Span::ring   ? torus.size(dim) / 2
                 : shape.span[dim] == Span::mesh ? shape.extent[dim] - 1
                                                 : 0;
    weight[dim] = codes;
    codes *= static_cast<std::size_t>(2 * reach[dim] + 1);
  }
  if (codes > (std::size_t{1} << 22)) return false;
  std::vector<PackedRoute> packed(codes);
  std::vector<Direction> hops;
  for (std::size_t index = 0; index < codes; ++index) {
    hops.clear();
    std::array<int, kMaxDims> count{};
    for (int dim = 0; dim < kMaxDims; ++dim)
      count[dim] = static_cast<int>(index / weight[dim] % static_cast<std::size_t>(2 * reach[dim] + 1)) - reach[dim];
    // Direction order: positive hops by dimension, then negative ones.
    for (int dim = 0; dim < kMaxDims; ++dim) hops.insert(hops.end(), std::max(0, count[dim]), Direction::make(dim, false));
    for (int dim = 0; dim < kMaxDims; ++dim) hops.insert(hops.end(), std::max(0, -count[dim]), Direction::make(dim, true));
    const std::optional<PackedRoute> word = RouteTable::pack(Route{hops});
    if (!word) return false;  // a count above the header's
    packed[index] = *word;
  }

  // Per source, by dimension and the destination's offset there: the
  // pair's share of the word's index and of the displacement's sum, so that
  // a pair costs a few look-ups (16.7 million pairs on a 4096-node block).
  // A ring tie on a ring of 4k + 2 depends on the whole displacement: its
  // two shares are kept and the pair picks one.
  struct Share {
    std::size_t index = 0;           // (count + reach) * weight; the positive way of a tie
    std::size_t negative_index = 0;  // a tie's negative way
    int others = 0;                  // the forward count (mesh: plus the extent)
    int tie_count = -1;              // a tie settled by the pair's displacement: its forward count
  };
  run_parallel(n, [&](std::size_t, std::size_t begin, std::size_t end) {
    std::array<std::vector<Share>, kMaxDims> shares;
    for (std::size_t s = begin; s < end; ++s) {
      const std::array<int, kMaxDims>& from = offset[s];
      bool ties_by_sum = false;
      for (int dim = 0; dim < kMaxDims; ++dim) {
        const int size = torus.size(dim);
        const int values = shape.span[dim] == Span::ring ? size : shape.span[dim] == Span::mesh ? shape.extent[dim] : 1;
        shares[dim].assign(static_cast<std::size_t>(values), Share{});
        for (int to = 0; to < values; ++to) {
          Share& share = shares[dim][static_cast<std::size_t>(to)];
          const int forward = shape.span[dim] == Span::mesh ? to - from[dim] : (to - from[dim] + size) % size;
          share.others = forward + (shape.span[dim] == Span::mesh ? shape.extent[dim] : 0);
          int count = forward;
          if (shape.span[dim] == Span::ring && count != 0) {
            const int back = size - count;
            bool positive = count < back;
            if (torus.single_cabled(dim)) {
              positive = from[dim] == 0;  // the pair's one cable
            } else if (count == back) {
              if (size % 4 == 0) {
                positive = from[dim] % 2 == 0;
              } else {
                positive = true;  // even sum; an odd one takes negative_index
                share.tie_count = count;
                share.negative_index = static_cast<std::size_t>(reach[dim] - back) * weight[dim];
                ties_by_sum = true;
              }
            }
            count = positive ? count : -back;
          }
          share.index = static_cast<std::size_t>(count + reach[dim]) * weight[dim];
        }
      }
      for (std::size_t t = 0; t < n; ++t) {
        if (s == t) continue;
        const std::array<int, kMaxDims>& to = offset[t];
        const Share* share[kMaxDims];
        std::size_t index = 0;
        for (int dim = 0; dim < kMaxDims; ++dim) {
          share[dim] = &shares[dim][static_cast<std::size_t>(to[dim])];
          index += share[dim]->index;
        }
        if (ties_by_sum) {
          int others = 0;  // the displacement's sum
          for (int dim = 0; dim < kMaxDims; ++dim) others += share[dim]->others;
          for (int dim = 0; dim < kMaxDims; ++dim)
            if (share[dim]->tie_count >= 0 && (others - share[dim]->tie_count) % 2 != 0)
              index = index - share[dim]->index + share[dim]->negative_index;
        }
        table.set_route(s, t, packed[index]);
      }
    }
  });
  return true;
}

}  // namespace angara::balanced
