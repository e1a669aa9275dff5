// Direction-order loads and dependencies by counts (direction_order_loads.hpp).
#include "angara/direction_order_loads.hpp"

#include <algorithm>

#include "angara/route.hpp"

namespace angara {

DirectionOrderWays::DirectionOrderWays(const Torus& torus) {
  for (int dim = 0; dim < kMaxDims; ++dim) {
    size[dim] = torus.size(dim);
    const std::size_t cells = static_cast<std::size_t>(size[dim]) * static_cast<std::size_t>(size[dim]);
    sign[dim].assign(cells, 0);
    hops[dim].assign(cells, 0);
  }
}

DirectionOrderWays dimension_order_ways(const Torus& torus, const RingTies& ties) {
  DirectionOrderWays ways(torus);
  for (int dim = 0; dim < kMaxDims; ++dim) {
    const int n = ways.size[dim];
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        const int forward = (b - a + n) % n;
        if (forward == 0) continue;
        const bool negative = dimension_order_negative(torus, dim, a, forward, ties);
        ways.sign[dim][ways.at(dim, a, b)] = static_cast<std::int8_t>(negative ? -1 : 1);
        ways.hops[dim][ways.at(dim, a, b)] = static_cast<std::uint8_t>(negative ? n - forward : forward);
      }
  }
  return ways;
}

std::uint64_t direction_order_loads_work(const Torus& torus) {
  std::uint64_t ring_sum = 0;
  for (int dim = 0; dim < kMaxDims; ++dim) ring_sum += static_cast<std::uint64_t>(torus.size(dim));
  return std::uint64_t(kDirectionCount) * 8 * torus.node_count() * ring_sum;
}

namespace {

// How a dimension's coordinate x of a pair enters the count at a router
// with coordinate c in that dimension.  A router on a pair's route has, in
// each dimension, the destination's coordinate once that dimension's run is
// done and the source's before; the runs go in the direction order
// (positive ones in dimension order, then negative ones).
enum class Weight : unsigned char {
  same,          // x == c (the router has x)
  every,         // any x
  into_plus,     // a source x whose run to c goes +
  into_minus,    // a source x whose run to c goes -
  into_any,      // a source x != c
  from_plus,     // a destination x reached from c going +
  from_minus,    // a destination x reached from c going -
  from_not_plus, // a destination x not reached from c going + (x == c included)
};
constexpr int kWeights = 8;

// At a channel of direction D = (k, s), a dimension j != k holds the
// destination's coordinate when its run came before D, from a source x:
// for +k, a + run if j < k (none if j > k: false); for -k, any run if
// j < k, a + run if j > k.
bool done_before(Direction d, int j, Weight& weight) {
  const int k = d.dim();
  if (d.positive()) {
    weight = Weight::into_plus;
    return j < k;
  }
  weight = j < k ? Weight::into_any : Weight::into_plus;
  return true;
}

// It holds the source's coordinate when its run comes after D, or there is
// none, to a destination x: for +k, no + run if j < k (any x if j > k); for
// -k, no run if j < k, no + run if j > k.
Weight not_yet(Direction d, int j) {
  if (d.positive()) return j < d.dim() ? Weight::from_not_plus : Weight::every;
  return j < d.dim() ? Weight::same : Weight::from_not_plus;
}

}  // namespace

DirectionOrderCounts direction_order_counts(const Torus& torus, const DirectionOrderWays& ways,
                                            const std::vector<NodeId>& nodes, bool dependencies) {
  const std::size_t routers = torus.node_count();
  DirectionOrderCounts counts;
  counts.loads.assign(torus.channel_slots(), 0);
  if (dependencies) {
    counts.ends.assign(torus.channel_slots(), 0);
    counts.turns.assign(std::size_t(torus.channel_slots()) * kDirectionCount, 0);
  }
  std::array<std::size_t, kMaxDims> stride{};
  std::size_t step = 1;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    stride[dim] = step;
    step *= static_cast<std::size_t>(ways.size[dim]);
  }
  std::vector<std::int32_t> member(routers, 0);
  for (const NodeId node : nodes) member[node] = 1;
  // Per dimension and weight with a matrix, by c * n + x: whether x counts.
  std::array<std::array<std::vector<unsigned char>, kWeights>, kMaxDims> matrix;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    const int n = ways.size[dim];
    for (const Weight weight : {Weight::into_plus, Weight::into_minus, Weight::from_plus, Weight::from_minus,
                                Weight::from_not_plus}) {
      std::vector<unsigned char>& m = matrix[dim][static_cast<int>(weight)];
      m.assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0);
      for (int c = 0; c < n; ++c)
        for (int x = 0; x < n; ++x) {
          const int into = ways.sign[dim][ways.at(dim, x, c)], from = ways.sign[dim][ways.at(dim, c, x)];
          const bool counts_x = weight == Weight::into_plus    ? into > 0
                                : weight == Weight::into_minus ? into < 0
                                : weight == Weight::from_plus  ? from > 0
                                : weight == Weight::from_minus ? from < 0
                                                               : from <= 0;
          m[static_cast<std::size_t>(c) * static_cast<std::size_t>(n) + static_cast<std::size_t>(x)] = counts_x ? 1 : 0;
        }
    }
  }
  // values[c] := the weighted sum of values[x] along every ring of `dim`
  // (rings without a count are left alone).
  std::vector<std::int32_t> line, mixed;
  const auto along = [&](std::vector<std::int32_t>& values, int dim, Weight weight) {
    if (weight == Weight::same) return;
    const int n = ways.size[dim];
    const std::size_t s = stride[dim], span = s * static_cast<std::size_t>(n);
    const unsigned char* m = matrix[dim][static_cast<int>(weight)].empty() ? nullptr : matrix[dim][static_cast<int>(weight)].data();
    line.resize(static_cast<std::size_t>(n));
    mixed.resize(static_cast<std::size_t>(n));
    for (std::size_t high = 0; high < routers; high += span)
      for (std::size_t base = high; base < high + s; ++base) {  // the ring's router at coordinate 0
        std::int32_t total = 0;
        for (int x = 0; x < n; ++x) {
          line[static_cast<std::size_t>(x)] = values[base + static_cast<std::size_t>(x) * s];
          total += line[static_cast<std::size_t>(x)];
        }
        if (total == 0) continue;  // counts are never negative
        for (int c = 0; c < n; ++c) {
          std::int32_t sum = total;
          if (weight == Weight::into_any) {
            sum = total - line[static_cast<std::size_t>(c)];
          } else if (m) {
            sum = 0;
            const unsigned char* w = m + static_cast<std::size_t>(c) * static_cast<std::size_t>(n);
            for (int x = 0; x < n; ++x) sum += w[x] ? line[static_cast<std::size_t>(x)] : 0;
          }
          mixed[static_cast<std::size_t>(c)] = sum;
        }
        for (int c = 0; c < n; ++c) values[base + static_cast<std::size_t>(c) * s] = mixed[static_cast<std::size_t>(c)];
      }
  };
  // The counts transformed along some dimensions, cached by their weights
  // (a base-8 digit per dimension, 0 for none: shared between directions),
  // built from the highest dimension down, each step from the cached one
  // before it (transforms along different dimensions commute).
  std::vector<std::vector<std::int32_t>> cache(std::size_t(1) << (3 * kMaxDims));
  using Weights = std::array<Weight, kMaxDims>;
  const auto transformed = [&](const Weights& weights) -> const std::vector<std::int32_t>& {
    const std::vector<std::int32_t>* values = &member;
    std::size_t code = 0;
    for (int dim = kMaxDims - 1; dim >= 0; --dim) {
      if (weights[dim] == Weight::same) continue;
      code += static_cast<std::size_t>(weights[dim]) << (3 * dim);
      if (cache[code].empty()) {
        cache[code] = *values;
        along(cache[code], dim, weights[dim]);
      }
      values = &cache[code];
    }
    return *values;
  };
  // The dimensions other than the given ones that have a ring.
  const auto rings_but = [&](unsigned excluded) {
    unsigned mask = 0;
    for (int dim = 0; dim < kMaxDims; ++dim)
      if (!((excluded >> dim) & 1u) && ways.size[dim] >= 2) mask |= 1u << dim;
    return mask;
  };
  // Every subset t of mask (t: the dimensions where the router has the
  // destination's coordinate) with the weights of both sides, or nothing
  // where a dimension of t cannot be done before D.
  const auto split = [&](Direction d, unsigned mask, unsigned t, Weights& from, Weights& to, Direction after) {
    for (int dim = 0; dim < kMaxDims; ++dim) {
      if (!((mask >> dim) & 1u)) continue;
      if ((t >> dim) & 1u) {
        if (!done_before(d, dim, from[dim])) return false;
      } else {
        to[dim] = not_yet(after, dim);
      }
    }
    return true;
  };

  std::vector<std::int64_t> diff;
  for (int rank = 0; rank < kDirectionCount; ++rank) {
    const Direction direction(rank);
    const int k = direction.dim(), n_k = ways.size[k], sign = direction.positive() ? 1 : -1;
    if (n_k < 2) continue;
    const unsigned others = rings_but(1u << k);
    diff.resize(static_cast<std::size_t>(n_k) + 1);
    const std::size_t s_k = stride[k], span_k = s_k * static_cast<std::size_t>(n_k);
    for (unsigned t = others;; t = (t - 1) & others) {
      Weights from{}, to{};
      if (split(direction, others, t, from, to, direction)) {
        const std::vector<std::int32_t>& from_counts = transformed(from);
        const std::vector<std::int32_t>& to_counts = transformed(to);
        // Along each ring of k: the runs D from source coordinate a to
        // destination coordinate b cover their channels.
        for (std::size_t high = 0; high < routers; high += span_k)
          for (std::size_t base = high; base < high + s_k; ++base) {
            std::fill(diff.begin(), diff.end(), 0);
            bool any = false;
            for (int a = 0; a < n_k; ++a) {
              const std::int64_t source = from_counts[base + static_cast<std::size_t>(a) * s_k];
              if (source == 0) continue;
              const std::int8_t* signs = ways.sign[k].data() + ways.at(k, a, 0);
              const std::uint8_t* hops = ways.hops[k].data() + ways.at(k, a, 0);
              for (int b = 0; b < n_k; ++b) {
                if (signs[b] != sign) continue;
                const std::int64_t destination = to_counts[base + static_cast<std::size_t>(b) * s_k];
                if (destination == 0) continue;
                const std::int64_t weight = source * destination;
                const int count = hops[b];
                int lo = sign > 0 ? a : a - count + 1;
                if (lo < 0) lo += n_k;
                const int end = lo + count;
                diff[static_cast<std::size_t>(lo)] += weight;
                if (end <= n_k) {
                  diff[static_cast<std::size_t>(end)] -= weight;
                } else {  // wraps past the ring's position 0
                  diff[static_cast<std::size_t>(n_k)] -= weight;
                  diff[0] += weight;
                  diff[static_cast<std::size_t>(end - n_k)] -= weight;
                }
                if (dependencies) {  // the run's last channel
                  const int last = sign > 0 ? (end - 1) % n_k : lo;
                  counts.ends[Torus::channel(static_cast<NodeId>(base + static_cast<std::size_t>(last) * s_k),
                                             direction)] += weight;
                }
                any = true;
              }
            }
            if (!any) continue;
            std::int64_t running = 0;
            for (int position = 0; position < n_k; ++position) {
              running += diff[static_cast<std::size_t>(position)];
              counts.loads[Torus::channel(static_cast<NodeId>(base + static_cast<std::size_t>(position) * s_k),
                                          direction)] += running;
            }
          }
      }
      if (t == 0) break;
    }
  }
  if (!dependencies) return counts;

  // Turns from D = (k, s) to a later D' = (k', s'), at the router r where
  // the run D ends and D' starts: in k the router has the destination's
  // coordinate, reached by a run s from the source's; in k' the source's,
  // left by a run s'; every other dimension is done before D (the
  // destination's coordinate) or comes after D' or has no run (the
  // source's), none between.  The count is a product at r of the sources
  // transformed along the first kind and the destinations along the second.
  for (int next_rank = 0; next_rank < kDirectionCount; ++next_rank) {
    const Direction next(next_rank);
    const int k2 = next.dim();
    if (ways.size[k2] < 2) continue;
    for (int rank = 0; rank < next_rank; ++rank) {
      const Direction direction(rank);
      const int k = direction.dim(), n_k = ways.size[k];
      if (k == k2 || n_k < 2) continue;
      const unsigned rest = rings_but((1u << k) | (1u << k2));
      const int back = direction.positive() ? n_k - 1 : 1;  // one hop against D along k
      const std::size_t s_k = stride[k];
      for (unsigned t = rest;; t = (t - 1) & rest) {
        Weights from{}, to{};
        if (split(direction, rest, t, from, to, next)) {
          from[k] = direction.positive() ? Weight::into_plus : Weight::into_minus;
          to[k2] = next.positive() ? Weight::from_plus : Weight::from_minus;
          const std::vector<std::int32_t>& from_counts = transformed(from);
          const std::vector<std::int32_t>& to_counts = transformed(to);
          for (std::size_t r = 0; r < routers; ++r) {
            const std::int64_t pairs = std::int64_t(from_counts[r]) * to_counts[r];
            if (pairs == 0) continue;
            const int at = static_cast<int>(r / s_k % static_cast<std::size_t>(n_k));
            const std::size_t before = r - static_cast<std::size_t>(at) * s_k +
                                       static_cast<std::size_t>((at + back) % n_k) * s_k;
            counts.turns[std::size_t(Torus::channel(static_cast<NodeId>(before), direction)) * kDirectionCount +
                         static_cast<std::size_t>(next_rank)] += pairs;
          }
        }
        if (t == 0) break;
      }
    }
  }
  return counts;
}

std::vector<std::int64_t> direction_order_loads(const Torus& torus, const DirectionOrderWays& ways,
                                                const std::vector<NodeId>& nodes) {
  return direction_order_counts(torus, ways, nodes, false).loads;
}

}  // namespace angara
