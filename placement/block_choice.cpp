#include "placement/block_choice.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace angara {

namespace {

std::vector<std::int64_t> taken_values(const Network& network, const std::vector<unsigned char>& free) {
  const NodeId n = network.torus().node_count();
  std::vector<std::int64_t> taken(n, 0);
  for (NodeId node = 0; node < n; ++node) taken[node] = !(network.node_alive(node) && free[node] != 0);
  return taken;
}

std::vector<std::int64_t> busy_values(const Torus& torus, const std::vector<std::uint32_t>& busy_ports) {
  if (busy_ports.empty()) return std::vector<std::int64_t>(torus.node_count(), 0);
  return std::vector<std::int64_t>(busy_ports.begin(), busy_ports.end());
}

bool inside(const Torus& torus, const Shape& shape, const Coord& origin, const Coord& c) {
  for (int dim = 0; dim < kMaxDims; ++dim) {
    const int size = torus.size(dim);
    if ((c[dim] - origin[dim] + size) % size >= shape[dim]) return false;
  }
  return true;
}

}  // namespace

bool isolated_shape(const Torus& torus, const Shape& shape) {
  for (int dim = 0; dim < kMaxDims; ++dim) {
    const int extent = shape[dim], size = torus.size(dim);
    if (extent != 1 && extent != size && 2 * (extent - 1) >= size) return false;
  }
  return true;
}

BlockScanner::BlockScanner(const Network& network, const std::vector<unsigned char>& free,
                           const std::vector<std::uint32_t>& busy_ports)
    : network_(network),
      torus_(network.torus()),
      taken_(torus_, taken_values(network, free)),
      busy_(torus_, busy_values(torus_, busy_ports)),
      any_busy_(std::any_of(busy_ports.begin(), busy_ports.end(), [](std::uint32_t v) { return v != 0; })) {}

void BlockScanner::scan(const Shape& shape,
                        const std::function<void(const Coord&, std::int64_t, std::size_t)>& visit) {
  const std::vector<std::int64_t>& taken = taken_.of(shape);
  const std::vector<std::int64_t>* busy = any_busy_ ? &busy_.of(shape) : nullptr;
  // Taken or failed nodes in the layers right outside the block, each layer
  // counted once (on a ring of 2, or a block one short of the ring, the two
  // sides are one layer): per dimension, the sums over the block's face at
  // every origin, read one step below and one step above.
  std::array<const std::vector<std::int64_t>*, kMaxDims> faces{};
  for (int dim = 0; dim < kMaxDims; ++dim) {
    if (shape[dim] >= torus_.size(dim)) continue;
    Shape face = shape;
    face[dim] = 1;
    faces[dim] = &taken_.of(face);
  }
  std::array<NodeId, kMaxDims> stride{};
  for (int dim = 0; dim < kMaxDims; ++dim) {
    Coord unit{};
    unit[dim] = 1;
    stride[dim] = torus_.id(unit);
  }
  // By stride arithmetic: this runs for every free origin of every shape.
  const auto contact_of = [&](const Coord& origin, NodeId at) {
    std::int64_t contact = 0;
    for (int dim = 0; dim < kMaxDims; ++dim) {
      const int size = torus_.size(dim);
      if (shape[dim] >= size) continue;
      const NodeId row = at - static_cast<NodeId>(origin[dim]) * stride[dim];  // coordinate 0 of dim
      const int below = origin[dim] == 0 ? size - 1 : origin[dim] - 1;
      const int above = origin[dim] + shape[dim] >= size ? origin[dim] + shape[dim] - size : origin[dim] + shape[dim];
      contact += (*faces[dim])[row + static_cast<NodeId>(below) * stride[dim]];
      if (above != below) contact += (*faces[dim])[row + static_cast<NodeId>(above) * stride[dim]];
    }
    return static_cast<std::size_t>(contact);
  };
  Coord span{};
  for (int dim = 0; dim < kMaxDims; ++dim) span[dim] = shape[dim] == torus_.size(dim) ? 1 : torus_.size(dim);
  Coord origin{};
  for (origin[3] = 0; origin[3] < span[3]; ++origin[3])
    for (origin[2] = 0; origin[2] < span[2]; ++origin[2])
      for (origin[1] = 0; origin[1] < span[1]; ++origin[1])
        for (origin[0] = 0; origin[0] < span[0]; ++origin[0]) {
          const NodeId at = torus_.id(origin);
          if (taken[at] != 0) continue;
          ++scanned_;
          visit(origin, busy ? (*busy)[at] : 0, contact_of(origin, at));
        }
}

std::size_t BlockScanner::failed_links_inside(const Shape& shape, const Coord& origin) const {
  std::size_t count = 0;
  for (ChannelId c : network_.failed_links()) {
    const NodeId from = Torus::channel_node(c);
    const NodeId to = torus_.neighbor(from, Torus::channel_direction(c));
    count += inside(torus_, shape, origin, torus_.coord(from)) && inside(torus_, shape, origin, torus_.coord(to));
  }
  return count;
}

bool better_block(const FreeBlock& a, const FreeBlock& b) {
  const auto key = [](const FreeBlock& k) {
    return std::make_tuple(!k.isolated, k.failed_links_inside, k.busy_ports, -static_cast<std::int64_t>(k.contact),
                           k.lower_bound, k.average_distance);
  };
  const auto ka = key(a), kb = key(b);
  if (ka != kb) return ka < kb;
  for (int dim = kMaxDims - 1; dim >= 0; --dim)
    if (a.origin[dim] != b.origin[dim]) return a.origin[dim] < b.origin[dim];
  return a.shape < b.shape;
}

BlockChoice choose_free_block(const Network& network, const BlockChoiceRequest& request) {
  const Torus& torus = network.torus();
  const NodeId n = torus.node_count();
  if (request.node_count == 0) throw PlacementError("a node count is needed");
  if (!request.free.empty() && request.free.size() != n)
    throw PlacementError("placement: free-node mask has the wrong size");
  if (!request.busy_ports.empty() && request.busy_ports.size() != n)
    throw PlacementError("placement: busy ports have the wrong size");
  std::vector<unsigned char> free(n, 1);
  if (!request.free.empty()) free = request.free;
  std::size_t free_count = 0;
  for (NodeId node = 0; node < n; ++node) {
    free[node] = free[node] && network.node_alive(node);
    free_count += free[node];
  }
  BlockChoice choice;
  if (free_count < request.node_count) {
    choice.reason = std::to_string(request.node_count) + " nodes asked, " + std::to_string(free_count) + " free";
    return choice;
  }
  BlockScanner scanner(network, free, request.busy_ports);
  const std::array<std::size_t, kMaxDims> channels = channels_per_dimension(Network(torus));
  std::map<ShapeClassKey, IntactBound> own_bounds;
  std::map<ShapeClassKey, IntactBound>& bounds = request.bound_cache ? *request.bound_cache : own_bounds;
  const std::size_t keep = std::max<std::size_t>(1, request.keep);

  // The best `keep` blocks among `shapes` (isolated ones only when asked).
  const auto best_of = [&](const std::vector<Shape>& shapes, bool isolated_only) {
    std::vector<FreeBlock> kept;  // best first
    for (const Shape& shape : shapes) {
      const bool isolated = isolated_shape(torus, shape);
      if (isolated_only && !isolated) continue;
      const auto [bound_it, inserted] = bounds.try_emplace(class_key(torus, channels, shape));
      if (inserted) bound_it->second = block_bound(torus, shape);
      const IntactBound bound = bound_it->second;
      scanner.scan(shape, [&](const Coord& origin, std::int64_t busy, std::size_t contact) {
        FreeBlock block;
        block.shape = shape;
        block.origin = origin;
        block.isolated = isolated;
        block.busy_ports = busy;
        block.contact = contact;
        block.lower_bound = bound.bound;
        block.average_distance = bound.distance;
        if (!network.failed_links().empty()) block.failed_links_inside = scanner.failed_links_inside(shape, origin);
        if (kept.size() == keep && !better_block(block, kept.back())) return;
        kept.insert(std::upper_bound(kept.begin(), kept.end(), block, better_block), block);
        if (kept.size() > keep) kept.pop_back();
      });
    }
    for (FreeBlock& block : kept) block.nodes = block_nodes(torus, block.shape, block.origin);
    return kept;
  };

  const std::vector<Shape> exact_shapes = shapes_of_volume(torus, request.node_count);
  choice.blocks = best_of(exact_shapes, true);
  if (choice.blocks.empty()) {
    // The smallest free isolated box that holds the job.
    const std::size_t largest =
        std::min(free_count, static_cast<std::size_t>(request.largest_box_factor * static_cast<double>(request.node_count)));
    for (std::size_t volume = request.node_count + 1; volume <= largest && choice.blocks.empty(); ++volume) {
      choice.blocks = best_of(shapes_of_volume(torus, volume), true);
      choice.exact = choice.blocks.empty();
    }
  }
  if (choice.blocks.empty()) {
    choice.exact = true;
    choice.blocks = best_of(exact_shapes, false);
  }
  choice.considered = scanner.origins_scanned();
  if (choice.blocks.empty())
    choice.reason = exact_shapes.empty()
                        ? "no block shape of " + std::to_string(request.node_count) + " nodes fits the " +
                              torus.to_string() + " machine, and no free isolated box of up to " +
                              std::to_string(static_cast<std::size_t>(request.largest_box_factor *
                                                                      static_cast<double>(request.node_count))) +
                              " nodes holds it"
                        : "no free block of " + std::to_string(request.node_count) + " nodes";
  return choice;
}

std::optional<FreeBlock> largest_free_block(const Network& network, const std::vector<unsigned char>& free) {
  const Torus& torus = network.torus();
  std::size_t free_count = 0;
  for (NodeId node = 0; node < torus.node_count(); ++node) free_count += free.at(node) && network.node_alive(node);
  for (std::size_t volume = free_count; volume >= 1; --volume) {
    std::vector<Shape> shapes = shapes_of_volume(torus, volume);
    shapes.erase(std::remove_if(shapes.begin(), shapes.end(), [&](const Shape& s) { return !isolated_shape(torus, s); }),
                 shapes.end());
    if (shapes.empty()) continue;
    BlockChoiceRequest request;
    request.node_count = volume;
    request.free = free;
    request.largest_box_factor = 1.0;
    BlockChoice choice = choose_free_block(network, request);
    if (!choice.blocks.empty() && choice.exact && choice.blocks.front().isolated) return choice.blocks.front();
  }
  return std::nullopt;
}

}  // namespace angara
