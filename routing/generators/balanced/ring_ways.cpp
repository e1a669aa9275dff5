// Stage 2 over the direction-order routes alone (ring_ways.hpp).
#include "routing/generators/balanced/ring_ways.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace angara::balanced {

namespace {

constexpr std::uint32_t kAbsent = 0xFFFFFFFFu;
// Pairs are indexed s * n + d in 32 bits, a byte each.
constexpr std::size_t kMaxNodes = 16384;
// The longest route: every dimension's run at most the ring's size.
constexpr std::size_t kMaxRouteHops = kMaxDims * 256;

// Work in steps (work_budget.hpp, about 33 ns): a unit is a coordinate
// combination tried while enumerating a channel's pairs or a hop of a way
// evaluated (its channel's load read), 8-12 ns on a random half of
// 8x8x8x8 (with a failed router or not) and a random quarter of
// 16x16x8x8.
constexpr std::uint64_t kUnitsPerStep = 3;

// flips_ of a pair that keeps its route (cut by a failure: not a
// direction-order route of `ways`): never enumerated, never moved.
constexpr std::uint8_t kKept = 0x80;

class RingWaysSearch {
 public:
  // `dead`: by channel slot, the channels no way may take (empty: none).
  // `long_way_dimensions`: the dimensions (bit d) whose runs may go the
  // long way; a tie's other half is open in every dimension.
  RingWaysSearch(const Torus& torus, const DirectionOrderWays& ways, int long_way, const std::vector<NodeId>& nodes,
                 std::vector<unsigned char> dead = {}, unsigned long_way_dimensions = kEveryDimension)
      : torus_(torus), ways_(ways), long_way_(long_way), nodes_(nodes), n_(nodes.size()),
        index_of_(torus.node_count(), kAbsent), flips_(n_ * n_, 0), moved_onto_(torus.channel_slots()),
        mark_(torus.channel_slots(), 0), dead_(std::move(dead)) {
    for (std::size_t k = 0; k < n_; ++k) index_of_[nodes[k]] = static_cast<std::uint32_t>(k);
    for (int dim = 0; dim < kMaxDims; ++dim) {
      longer_allowed_[dim] = ((long_way_dimensions >> dim) & 1u) ? long_way : 0;
      Coord unit{};
      if (torus.size(dim) > 1) unit[dim] = 1;
      stride_[dim] = torus.size(dim) > 1 ? torus.id(unit) : 0;
      coord_[dim].resize(n_);
      for (std::size_t k = 0; k < n_; ++k) coord_[dim][k] = static_cast<std::uint8_t>(torus.coord(nodes[k])[dim]);
    }
    load_ = direction_order_loads(torus, ways, nodes);
  }
  // Pair (s, d) keeps its route; `loads` replace the direction-order loads.
  void keep(std::size_t s, std::size_t d) { flips_[s * n_ + d] = kKept; }
  void set_loads(std::vector<std::int64_t> loads) { load_ = std::move(loads); }
  const std::vector<std::int64_t>& loads() const { return load_; }

  RingWaysOutcome run(WorkBudget* budget) {
    std::vector<ChannelId> at_max;
    while (true) {
      const std::int64_t top = *std::max_element(load_.begin(), load_.end());
      if (top <= 0) return RingWaysOutcome::converged;
      at_max.clear();
      for (ChannelId c = 0; c < load_.size(); ++c)
        if (load_[c] == top) at_max.push_back(c);
      for (const ChannelId c : at_max) {
        if (load_[c] < top) continue;  // a pair moved off it for another channel
        if (budget && budget->exhausted()) return RingWaysOutcome::stopped;
        const std::uint64_t before = work_;
        const bool moved = move_one_off(c, top);
        if (budget) budget->spend((work_ - before) / kUnitsPerStep + 1);
        if (!moved) return RingWaysOutcome::converged;  // c stays at the max
      }
    }
  }

  // The moved pairs' routes into `table` (the others keep theirs), and
  // with `moved` the pairs with their direction-order routes.
  void write(RouteTable& table, std::vector<MovedPair>* moved = nullptr) const {
    const auto route_of = [&](std::size_t s, std::size_t d, std::uint8_t flips) {
      Route route;
      each_run(s, d, flips, [&](Direction direction, int count) {
        route.hops.insert(route.hops.end(), static_cast<std::size_t>(count), direction);
      });
      return route;
    };
    for (std::size_t s = 0; s < n_; ++s)
      for (std::size_t d = 0; d < n_; ++d) {
        const std::uint8_t flips = flips_[s * n_ + d];
        if (flips == 0 || flips == kKept) continue;
        table.set_route(s, d, route_of(s, d, flips));
        if (moved) moved->push_back(MovedPair{s, d, route_of(s, d, 0)});
      }
  }

 private:
  // The run of dimension `dim` from coordinate a to b under `flipped`: sign
  // (+1, -1, 0) and hops.
  std::pair<int, int> run_of(int dim, int a, int b, bool flipped) const {
    const std::size_t at = ways_.at(dim, a, b);
    const int sign = ways_.sign[dim][at], hops = ways_.hops[dim][at];
    if (!flipped || sign == 0) return {sign, hops};
    return {-sign, torus_.size(dim) - hops};
  }
  template <class Run>
  void each_run(std::size_t s, std::size_t d, std::uint8_t flips, Run run) const {
    for (int negative = 0; negative <= 1; ++negative)
      for (int dim = 0; dim < kMaxDims; ++dim) {
        const auto [sign, hops] = run_of(dim, coord_[dim][s], coord_[dim][d], ((flips >> dim) & 1u) != 0);
        if (sign == 0 || (sign < 0) != (negative != 0)) continue;
        run(Direction::make(dim, negative != 0), hops);
      }
  }
  // visit(channel) for the channels of the route of (s, d) under `flips`
  // in order, while it returns true; the number visited.  A dimension's
  // one run starts at the source's coordinate there: the steps are counted
  // along the ring, not decoded from node ids.
  template <class Visit>
  std::size_t each_channel(std::size_t s, std::size_t d, std::uint8_t flips, Visit visit) const {
    std::int64_t at = nodes_[s];
    std::size_t count = 0;
    bool going = true;
    each_run(s, d, flips, [&](Direction direction, int hops) {
      const int dim = direction.dim(), size = torus_.size(dim), step = direction.step();
      const std::int64_t stride = stride_[dim], wrap = static_cast<std::int64_t>(size - 1) * stride;
      int x = coord_[dim][s];
      for (int h = 0; h < hops && going; ++h) {
        ++count;
        going = visit(Torus::channel(static_cast<NodeId>(at), direction));
        x += step;
        if (x == size) {
          x = 0;
          at -= wrap;
        } else if (x < 0) {
          x = size - 1;
          at += wrap;
        } else {
          at += step * stride;
        }
      }
    });
    work_ += count + 4;
    return count;
  }
  // Moves one pair off channel c (at load `top`) to another way that
  // raises no channel to `top`; false when none can.
  bool move_one_off(ChannelId c, std::int64_t top) {
    bool moved = false;
    // The pairs that moved onto c, then those whose direction-order route
    // crosses it.
    for (std::size_t i = 0; i < moved_onto_[c].size() && !moved; ++i) {
      const std::uint32_t p = moved_onto_[c][i];
      moved = try_move(p / n_, p % n_, c, top, /*listed=*/true);
    }
    if (!moved)
      each_default_pair_on(c, [&](std::size_t s, std::size_t d) { return moved = try_move(s, d, c, top, false); });
    return moved;
  }

  // `listed`: the pair came from moved_onto_[c] and may have left c.
  bool try_move(std::size_t s, std::size_t d, ChannelId c, std::int64_t top, bool listed) {
    const std::uint8_t current = flips_[s * n_ + d];
    // The dimensions that may go the other way and what each costs, then
    // every set of them within long_way_ hops.
    std::array<int, kMaxDims> longer{};
    unsigned flippable = 0;
    for (int dim = 0; dim < kMaxDims; ++dim) {
      const auto [sign, hops] = run_of(dim, coord_[dim][s], coord_[dim][d], false);
      longer[dim] = torus_.size(dim) - 2 * hops;
      if (sign != 0 && longer[dim] <= longer_allowed_[dim] && torus_.direction_present(Direction::make(dim, sign > 0)))
        flippable |= 1u << dim;
    }
    if (flippable == 0) return false;
    std::array<std::uint8_t, 1u << kMaxDims> ways;
    std::size_t count = 0;
    for (unsigned flips = flippable;; flips = (flips - 1) & flippable) {  // the subsets of flippable
      int extra = 0;
      for (int dim = 0; dim < kMaxDims; ++dim) extra += ((flips >> dim) & 1u) ? longer[dim] : 0;
      if (flips != current && extra <= long_way_) ways[count++] = static_cast<std::uint8_t>(flips);
      if (flips == 0) break;
    }
    if (count == 0) return false;
    // The current route's channels, marked.
    if (++stamp_ == 0) {
      std::fill(mark_.begin(), mark_.end(), 0);
      stamp_ = 1;
    }
    std::array<ChannelId, kMaxRouteHops> old_route;
    std::size_t old_count = 0;
    each_channel(s, d, current, [&](ChannelId e) {
      old_route[old_count++] = e;
      mark_[e] = stamp_;
      return true;
    });
    if (listed && mark_[c] != stamp_) return false;
    // Each other way with its busiest channel after the move, given up as
    // soon as it cannot be the best: one that keeps c or reaches the max.
    std::uint8_t best = current;
    std::int64_t best_peak = top - 1;
    std::size_t best_hops = 0;
    for (std::size_t w = 0; w < count; ++w) {
      std::int64_t peak = 0;
      bool fits = true;
      const std::size_t hops = each_channel(s, d, ways[w], [&](ChannelId e) {
        peak = std::max(peak, load_[e] + (mark_[e] == stamp_ ? 0 : 1));
        fits = e != c && peak <= best_peak && (dead_.empty() || !dead_[e]);
        return fits;
      });
      if (!fits || (best != current && peak == best_peak && hops >= best_hops)) continue;
      best = ways[w];
      best_peak = peak;
      best_hops = hops;
    }
    if (best == current) return false;
    for (std::size_t h = 0; h < old_count; ++h) --load_[old_route[h]];
    const std::uint32_t pair = static_cast<std::uint32_t>(s * n_ + d);
    each_channel(s, d, best, [&](ChannelId e) {
      ++load_[e];
      moved_onto_[e].push_back(pair);
      return true;
    });
    flips_[pair] = best;
    return true;
  }

  // visit(s, d) for every pair still on its direction-order route (no
  // flips) that crosses channel c, until visit returns true.  Dimension by
  // dimension the (source, destination) coordinates such a pair may have:
  // in c's dimension a run of c's direction over c's router, in a
  // dimension whose run comes before c's the router's coordinate at the
  // destination, in the others (and without a run) at the source.
  template <class Visit>
  void each_default_pair_on(ChannelId c, Visit visit) {
    const NodeId router = Torus::channel_node(c);
    const Direction direction = Torus::channel_direction(c);
    const Coord r = torus_.coord(router);
    const int k = direction.dim();
    std::array<std::vector<std::pair<std::uint8_t, std::uint8_t>>, kMaxDims> options;
    for (int dim = 0; dim < kMaxDims; ++dim) {
      const int size = torus_.size(dim);
      for (int a = 0; a < size; ++a)
        for (int b = 0; b < size; ++b) {
          const auto [sign, hops] = run_of(dim, a, b, false);
          bool fits;
          if (dim == k) {
            const int ahead = ((direction.positive() ? r[dim] - a : a - r[dim]) % size + size) % size;
            fits = sign == (direction.positive() ? 1 : -1) && ahead < hops;
          } else if (sign == 0) {
            fits = a == r[dim];
          } else {
            const bool before = Direction::make(dim, sign < 0) < direction;  // ranks are the direction order
            fits = before ? b == r[dim] : a == r[dim];
          }
          if (fits) options[dim].emplace_back(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b));
        }
    }
    for (const auto& [a3, b3] : options[3])
      for (const auto& [a2, b2] : options[2])
        for (const auto& [a1, b1] : options[1]) {
          const NodeId from = a3 * stride_[3] + a2 * stride_[2] + a1 * stride_[1];
          const NodeId to = b3 * stride_[3] + b2 * stride_[2] + b1 * stride_[1];
          work_ += options[0].size();
          for (const auto& [a0, b0] : options[0]) {
            const std::uint32_t s = index_of_[from + a0 * stride_[0]];
            const std::uint32_t d = index_of_[to + b0 * stride_[0]];
            if (s == kAbsent || d == kAbsent || flips_[std::size_t(s) * n_ + d] != 0) continue;
            if (visit(s, d)) return;
          }
        }
  }

  const Torus& torus_;
  const DirectionOrderWays& ways_;
  const int long_way_;
  std::array<int, kMaxDims> longer_allowed_{};                 // per dimension: long_way_ or 0
  const std::vector<NodeId>& nodes_;
  const std::size_t n_;
  std::vector<std::uint32_t> index_of_;                        // by node id
  std::array<NodeId, kMaxDims> stride_{};                      // node id per coordinate step
  std::array<std::vector<std::uint8_t>, kMaxDims> coord_;      // by allocation index
  std::vector<std::uint8_t> flips_;                            // by s * n + d: dimensions the other way
  std::vector<std::int64_t> load_;                             // by channel slot
  std::vector<std::vector<std::uint32_t>> moved_onto_;         // by channel slot: pairs moved onto it
  std::vector<std::uint32_t> mark_;                            // by channel slot: stamp_ on the current route
  std::uint32_t stamp_ = 0;
  const std::vector<unsigned char> dead_;                      // by channel slot (empty: none)
  mutable std::uint64_t work_ = 0;                             // combinations and hops, for the budget
};

}  // namespace

std::uint64_t ring_ways_start_work(const Torus& torus, std::size_t nodes) {
  return direction_order_loads_work(torus) / 40 + static_cast<std::uint64_t>(nodes) * nodes / 64;
}

bool ring_ways_can_start(const Torus& torus, std::size_t nodes, const WorkBudget* budget, std::uint64_t before) {
  if (nodes < 2 || nodes > kMaxNodes) return false;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (torus.size(dim) > 255) return false;
  return !budget || budget->affords(before + 2 * ring_ways_start_work(torus, nodes));
}

namespace {

// ring_ways_can_start(), then the start spent.
bool ring_ways_start(const Torus& torus, std::size_t nodes, WorkBudget* budget) {
  if (!ring_ways_can_start(torus, nodes, budget)) return false;
  if (budget) budget->spend(ring_ways_start_work(torus, nodes));
  return true;
}

}  // namespace

RingWaysOutcome balance_ring_ways(const Torus& torus, const DirectionOrderWays& ways, int long_way, RouteTable& table,
                                  WorkBudget* budget, unsigned long_way_dimensions) {
  if (!ring_ways_start(torus, table.size(), budget)) return RingWaysOutcome::not_run;
  RingWaysSearch search(torus, ways, long_way, table.nodes(), {}, long_way_dimensions);
  const RingWaysOutcome outcome = search.run(budget);
  search.write(table);
  return outcome;
}

RingWaysOutcome balance_ring_ways_around(const Network& network, const DirectionOrderWays& ways, int long_way,
                                         const std::vector<std::pair<std::size_t, std::size_t>>& kept,
                                         std::vector<std::int64_t>& loads, RouteTable& table, WorkBudget* budget,
                                         std::vector<MovedPair>& moved) {
  const Torus& torus = network.torus();
  if (!ring_ways_start(torus, table.size(), budget)) return RingWaysOutcome::not_run;
  std::vector<unsigned char> dead(torus.channel_slots(), 0);
  for (ChannelId c = 0; c < dead.size(); ++c)
    dead[c] = torus.direction_present(Torus::channel_direction(c)) && !network.channel_alive(c) ? 1 : 0;
  RingWaysSearch search(torus, ways, long_way, table.nodes(), std::move(dead));
  for (const auto& [s, d] : kept) search.keep(s, d);
  search.set_loads(std::move(loads));
  const RingWaysOutcome outcome = search.run(budget);
  search.write(table, &moved);
  loads = search.loads();
  return outcome;
}

}  // namespace angara::balanced
