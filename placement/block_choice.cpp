#include "placement/block_choice.hpp"

#include <algorithm>
#include <array>
#include <cmath>
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

bool BlockScanner::any_free(const Shape& shape) {
  const std::vector<std::int64_t>& taken = taken_.of(shape);
  return std::find(taken.begin(), taken.end(), 0) != taken.end();
}

RouteRegion route_region(const Torus& torus, const std::vector<NodeId>& nodes) {
  RouteRegion region;
  region.shape.fill(1);
  if (nodes.empty()) return region;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    const int size = torus.size(dim);
    std::vector<char> used(static_cast<std::size_t>(size), 0);
    for (NodeId node : nodes) used[torus.coord(node)[dim]] = 1;
    // The longest cyclic run of unused coordinates; the arc starts after it.
    int longest = 0, end_of_longest = 0;
    for (int start = 0; start < size; ++start) {
      if (used[start]) continue;
      int length = 0;
      while (length < size && !used[(start + length) % size]) ++length;
      if (length > longest) {
        longest = length;
        end_of_longest = (start + length) % size;
      }
    }
    const int extent = size - longest;
    const bool isolated = extent == 1 || extent == size || 2 * (extent - 1) < size;
    region.shape[dim] = isolated ? extent : size;
    region.origin[dim] = isolated && extent != size ? end_of_longest : 0;
  }
  return region;
}

IntactBound region_bound(const Torus& torus, const std::vector<NodeId>& nodes) {
  IntactBound result;
  const double n = static_cast<double>(nodes.size());
  if (nodes.size() < 2) return result;
  const RouteRegion region = route_region(torus, nodes);
  const double volume = static_cast<double>(shape_volume(region.shape));
  double hops_total = 0;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    const int size = torus.size(dim), extent = region.shape[dim];
    if (extent < 2) continue;
    std::vector<double> histogram(static_cast<std::size_t>(size), 0);
    for (NodeId node : nodes) ++histogram[torus.coord(node)[dim]];
    double hops = 0;  // over ordered pairs
    for (int x = 0; x < size; ++x)
      for (int y = 0; y < size; ++y) hops += histogram[x] * histogram[y] * torus.ring_distance(dim, x, y);
    hops_total += hops;
    // Channels of this dimension in the region, both directions.
    double channels;
    if (size == 2)
      channels = torus.single_cabled(dim) ? volume : 2 * volume;
    else if (extent == size)
      channels = 2 * volume;
    else
      channels = 2 * volume * static_cast<double>(extent - 1) / static_cast<double>(extent);
    result.bound = std::max<std::uint64_t>(result.bound, static_cast<std::uint64_t>(std::ceil(hops / channels - 1e-9)));
  }
  result.distance = hops_total / (n * (n - 1));
  return result;
}

std::vector<ChannelId> region_channels(const Network& network, const RouteRegion& region) {
  const Torus& torus = network.torus();
  // Per dimension, whether each coordinate is on the region's arc: a
  // neighbour differs from its node in one coordinate only.
  std::array<std::vector<char>, kMaxDims> on_arc;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    const int size = torus.size(dim);
    on_arc[dim].assign(static_cast<std::size_t>(size), 0);
    for (int i = 0; i < region.shape[dim]; ++i) on_arc[dim][(region.origin[dim] + i) % size] = 1;
  }
  std::vector<ChannelId> channels;
  for (NodeId node : block_nodes(torus, region.shape, region.origin)) {
    const Coord c = torus.coord(node);
    for (int rank = 0; rank < kDirectionCount; ++rank) {
      const Direction d(rank);
      if (!torus.direction_present(d)) continue;
      const int size = torus.size(d.dim());
      if (!on_arc[d.dim()][(c[d.dim()] + d.step() + size) % size]) continue;
      const ChannelId channel = Torus::channel(node, d);
      if (network.channel_alive(channel)) channels.push_back(channel);
    }
  }
  return channels;
}

bool better_block(const FreeBlock& a, const FreeBlock& b) {
  const auto key = [](const FreeBlock& k) {
    return std::make_tuple(!k.isolated, k.failed_links_inside, -static_cast<std::int64_t>(k.contact), k.busy_ports,
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
  // `natural_only`: isolated_shape ones alone, even for a confined request.
  const auto best_of = [&](const std::vector<Shape>& shapes, bool isolated_only, bool natural_only = false) {
    std::vector<FreeBlock> kept;  // best first
    for (const Shape& shape : shapes) {
      const bool natural = isolated_shape(torus, shape);
      const bool isolated = natural || (request.confined && !natural_only);
      if (isolated_only && !isolated) continue;
      ShapeClassKey key = class_key(torus, channels, shape);
      // A confined shape that is not isolated has a line's bound, not the
      // ring's: kept apart in a cache shared with unconfined calls.
      const bool confined = isolated && !natural;
      if (confined) key.emplace_back(-1, 0, 0);
      const auto [bound_it, inserted] = bounds.try_emplace(std::move(key));
      if (inserted) bound_it->second = block_bound(torus, shape, confined);
      const IntactBound bound = bound_it->second;
      scanner.scan(shape, [&](const Coord& origin, std::int64_t busy, std::size_t contact) {
        FreeBlock block;
        block.shape = shape;
        block.origin = origin;
        block.isolated = isolated;
        block.confined = confined;
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
      // Isolated shapes only, confined or not: every shape of up to twice
      // the count would make a job test on a fragmented 8x8x8x8 three
      // times as long (50-80 ms) and isolated no more jobs in the replays.
      choice.blocks = best_of(shapes_of_volume(torus, volume), true, true);
      choice.exact = choice.blocks.empty();
    }
  }
  if (request.confined && !choice.exact)
    for (FreeBlock& block : choice.blocks)
      block.nodes = box_staircase(torus, block.shape, block.origin, request.node_count);
  if (choice.blocks.empty() && request.confined) {
    std::optional<FreeBlock> stairs = free_staircase(network, free, request.node_count);
    // Its skin only when no filter alone holds the job: skin routes need a
    // First or Last Step.
    if (!stairs) stairs = free_staircase(network, free, request.node_count, 4'000'000, true);
    if (stairs) {
      if (!request.busy_ports.empty())
        for (NodeId node : stairs->nodes) stairs->busy_ports += request.busy_ports[node];
      choice.blocks.push_back(std::move(*stairs));
      choice.staircase = true;
      choice.exact = true;
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

std::vector<NodeId> box_staircase(const Torus& torus, const Shape& shape, const Coord& origin, std::size_t count) {
  std::vector<NodeId> order;
  order.reserve(shape_volume(shape));
  Coord at{};
  for (at[3] = 0; at[3] < shape[3]; ++at[3])
    for (at[2] = 0; at[2] < shape[2]; ++at[2])
      for (at[1] = 0; at[1] < shape[1]; ++at[1])
        for (at[0] = 0; at[0] < shape[0]; ++at[0]) {
          Coord c{};
          for (int dim = 0; dim < kMaxDims; ++dim) c[dim] = (origin[dim] + at[dim]) % torus.size(dim);
          order.push_back(torus.id(c));
        }
  if (count > order.size()) throw PlacementError("a staircase of more nodes than its box");
  std::vector<NodeId> nodes(order.end() - static_cast<std::ptrdiff_t>(count), order.end());
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

std::optional<FreeBlock> free_staircase(const Network& network, const std::vector<unsigned char>& free,
                                        std::size_t count, std::size_t work, bool skin) {
  const Torus& torus = network.torus();
  const NodeId n = torus.node_count();
  const auto usable = [&](NodeId node) { return free[node] != 0 && network.node_alive(node); };
  // Per node, the anchor whose set holds it (member of the current set
  // when equal to the anchor), and the anchor whose filter holds it (the
  // set less its skin).
  std::vector<NodeId> set_of(n, kNoNode), filter_of(n, kNoNode);
  struct Member {
    NodeId node;
    Coord below;  // per dimension, negative hops from the anchor
  };
  std::optional<FreeBlock> best;
  std::tuple<std::size_t, std::int64_t, std::int64_t> best_key{};
  std::size_t visits = 0;
  std::vector<Member> members;
  for (NodeId anchor = 0; anchor < n && visits < work; ++anchor) {
    if (!usable(anchor)) continue;
    const Coord top = torus.coord(anchor);
    members.assign(1, Member{anchor, Coord{}});
    set_of[anchor] = filter_of[anchor] = anchor;
    std::int64_t distance_sum = 0;
    // Layer by layer (hops from the anchor), so the set taken is the
    // nearest part of the anchor's filter and stays a filter.
    for (std::size_t layer_begin = 0; members.size() < count && layer_begin < members.size();) {
      const std::size_t layer_end = members.size();
      for (std::size_t i = layer_begin; i < layer_end && members.size() < count; ++i) {
        if (filter_of[members[i].node] != anchor) continue;
        for (int dim = 0; dim < kMaxDims && members.size() < count; ++dim) {
          const int size = torus.size(dim);
          if (size < 2 || (torus.single_cabled(dim) && top[dim] == 0)) continue;
          Coord below = members[i].below;
          if (below[dim] + 1 >= size) continue;
          // Reached once: from its lowest dimension with a hop.
          bool lowest = true;
          for (int e = 0; e < dim && lowest; ++e) lowest = below[e] == 0;
          if (!lowest) continue;
          ++below[dim];
          Coord at{};
          for (int e = 0; e < kMaxDims; ++e)
            at[e] = ((top[e] - below[e]) % torus.size(e) + torus.size(e)) % torus.size(e);
          const NodeId node = torus.id(at);
          ++visits;
          if (!usable(node) || set_of[node] == anchor) continue;
          // Every neighbour one hop nearer the anchor is in the filter; for
          // the skin, one is.
          bool closed = true, touching = false;
          for (int e = 0; e < kMaxDims; ++e) {
            if (below[e] == 0) continue;
            Coord nearer = at;
            nearer[e] = (nearer[e] + 1) % torus.size(e);
            const bool in_filter = filter_of[torus.id(nearer)] == anchor;
            closed = closed && in_filter;
            touching = touching || in_filter;
          }
          if (!closed && !(skin && touching)) continue;
          set_of[node] = anchor;
          if (closed) filter_of[node] = anchor;
          members.push_back(Member{node, below});
          for (int e = 0; e < kMaxDims; ++e) distance_sum += below[e];
        }
      }
      layer_begin = layer_end;
    }
    if (members.size() < count) continue;
    // Taken or failed nodes right outside, and failed cables inside.
    std::int64_t contact = 0;
    std::size_t failed_inside = 0;
    for (const Member& member : members)
      for (int rank = 0; rank < kDirectionCount; ++rank) {
        const Direction d(rank);
        if (!torus.direction_present(d) || !torus.cabled(member.node, d)) continue;
        const NodeId next = torus.neighbor(member.node, d);
        if (set_of[next] == anchor)
          failed_inside += !network.channel_alive(member.node, d);
        else
          contact += !usable(next);
      }
    const std::tuple<std::size_t, std::int64_t, std::int64_t> key{failed_inside, -contact, distance_sum};
    if (best && !(key < best_key)) continue;
    best_key = key;
    FreeBlock stairs;
    for (const Member& member : members) {
      stairs.nodes.push_back(member.node);
      for (int dim = 0; dim < kMaxDims; ++dim) stairs.shape[dim] = std::max(stairs.shape[dim], member.below[dim] + 1);
    }
    std::sort(stairs.nodes.begin(), stairs.nodes.end());
    for (int dim = 0; dim < kMaxDims; ++dim)
      stairs.origin[dim] = ((top[dim] - stairs.shape[dim] + 1) % torus.size(dim) + torus.size(dim)) % torus.size(dim);
    stairs.isolated = true;
    stairs.confined = true;
    stairs.failed_links_inside = failed_inside;
    stairs.contact = static_cast<std::size_t>(contact);
    best = std::move(stairs);
  }
  if (best) {
    const IntactBound bound = region_bound(torus, best->nodes);
    best->lower_bound = bound.bound;
    best->average_distance = bound.distance;
  }
  return best;
}

std::size_t largest_free_component(const Network& network, const std::vector<unsigned char>& free) {
  const Torus& torus = network.torus();
  if (free.size() != torus.node_count()) throw PlacementError("placement: free-node mask has the wrong size");
  std::vector<unsigned char> seen(torus.node_count(), 0);
  std::vector<NodeId> stack;
  std::size_t largest = 0;
  for (NodeId start = 0; start < torus.node_count(); ++start) {
    if (seen[start] || !free[start] || !network.node_alive(start)) continue;
    std::size_t size = 0;
    seen[start] = 1;
    stack.assign(1, start);
    while (!stack.empty()) {
      const NodeId node = stack.back();
      stack.pop_back();
      ++size;
      for (int rank = 0; rank < kDirectionCount; ++rank) {
        const Direction d(rank);
        if (!torus.direction_present(d) || !network.channel_alive(node, d)) continue;
        const NodeId next = torus.neighbor(node, d);
        if (seen[next] || !free[next] || !network.node_alive(next)) continue;
        seen[next] = 1;
        stack.push_back(next);
      }
    }
    largest = std::max(largest, size);
  }
  return largest;
}

std::optional<FreeBlock> largest_free_block(const Network& network, const std::vector<unsigned char>& free) {
  const Torus& torus = network.torus();
  std::vector<unsigned char> live(torus.node_count(), 0);
  std::size_t free_count = 0;
  for (NodeId node = 0; node < torus.node_count(); ++node) {
    live[node] = free.at(node) && network.node_alive(node);
    free_count += live[node];
  }
  if (free_count == 0) return std::nullopt;
  // The isolated extents of each dimension, smallest first.
  std::array<std::vector<int>, kMaxDims> extents;
  for (int dim = 0; dim < kMaxDims; ++dim)
    for (int e = 1; e <= torus.size(dim); ++e)
      if (e == 1 || e == torus.size(dim) || 2 * (e - 1) < torus.size(dim)) extents[dim].push_back(e);
  std::vector<Shape> shapes;
  Shape shape{};
  for (int a : extents[0])
    for (int b : extents[1])
      for (int c : extents[2])
        for (int d : extents[3]) {
          shape = {a, b, c, d};
          if (shape_volume(shape) <= free_count) shapes.push_back(shape);
        }
  std::stable_sort(shapes.begin(), shapes.end(),
                   [](const Shape& x, const Shape& y) { return shape_volume(x) < shape_volume(y); });
  BlockScanner scanner(network, live, {});
  std::map<Shape, bool> has_free;
  std::size_t largest = 0;
  for (const Shape& s : shapes) {
    bool possible = true;
    for (int dim = 0; dim < kMaxDims && possible; ++dim) {
      if (s[dim] == 1) continue;
      Shape smaller = s;
      const std::vector<int>& allowed = extents[dim];
      smaller[dim] = *(std::lower_bound(allowed.begin(), allowed.end(), s[dim]) - 1);
      const auto found = has_free.find(smaller);
      possible = found != has_free.end() && found->second;
    }
    const bool found = possible && scanner.any_free(s);
    has_free.emplace(s, found);
    if (found) largest = std::max(largest, shape_volume(s));
  }
  if (largest == 0) return std::nullopt;
  BlockChoiceRequest request;
  request.node_count = largest;
  request.free = live;
  request.largest_box_factor = 1.0;
  BlockChoice choice = choose_free_block(network, request);
  if (!choice.blocks.empty() && choice.exact && choice.blocks.front().isolated) return choice.blocks.front();
  return std::nullopt;
}

}  // namespace angara
