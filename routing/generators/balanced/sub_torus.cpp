// Stage 0 of the balanced generator (routing/generators/balanced.cpp): the
// construction of whole fault-free sub-tori by displacement and the bound of
// a candidate space (sub_torus.hpp).
#include "routing/generators/balanced/sub_torus.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "angara/torus.hpp"
#include "routing/common/parallel.hpp"

namespace angara::balanced {

namespace {

// The sign of a tied dimension `dim` (delta_D = d/2), as sub_torus_choice()
// describes it: +D iff the displacement's other components m are even;
// `split` marks the pure displacement (m = 0) of an odd number of them,
// split by source.
struct TiedSign {
  bool positive;
  bool split;
};
TiedSign tied_sign(const Torus& torus, const std::array<bool, kMaxDims>& spanned,
                   const std::array<int, kMaxDims>& delta, int dim) {
  std::size_t m = 0, classes = 1;
  for (int other = 0; other < kMaxDims; ++other) {
    if (other == dim || !spanned[other]) continue;
    m = m * static_cast<std::size_t>(torus.size(other)) + static_cast<std::size_t>(delta[other]);
    classes *= static_cast<std::size_t>(torus.size(other));
  }
  return {m % 2 == 0, m == 0 && classes % 2 == 1 && torus.size(dim) >= 4};
}

}  // namespace

std::uint32_t candidate_space_bound(const CandidateSet& set) {
  std::array<std::uint64_t, kMaxDims> hops{};
  std::array<std::uint64_t, kMaxDims> channels{};
  for (std::size_t p = 0; p < set.pair_count(); ++p) {
    if (set.variants(p) == 0) continue;
    std::array<std::uint64_t, kMaxDims> fewest;
    fewest.fill(~std::uint64_t{0});
    // Minimal routes of a pair all take its ring distance in every
    // dimension: when its candidates are minimal and of one length, the
    // first one tells (most pairs of a First/Last Step set, tens of
    // millions of channels otherwise walked).
    bool one_length = set.minimal(p);
    for (std::size_t v = 1; one_length && v < set.variants(p); ++v)
      one_length = set.channels(p, v).size() == set.channels(p, 0).size();
    for (std::size_t v = 0; v < (one_length ? 1 : set.variants(p)); ++v) {
      std::array<std::uint64_t, kMaxDims> count{};
      for (ChannelId c : set.channels(p, v)) ++count[Torus::channel_direction(c).dim()];
      for (int dim = 0; dim < kMaxDims; ++dim) fewest[dim] = std::min(fewest[dim], count[dim]);
    }
    for (int dim = 0; dim < kMaxDims; ++dim) hops[dim] += fewest[dim];
  }
  for (ChannelId c : set.used_channels()) ++channels[Torus::channel_direction(c).dim()];
  std::uint64_t bound = 0;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (channels[dim]) bound = std::max(bound, (hops[dim] + channels[dim] - 1) / channels[dim]);
  return static_cast<std::uint32_t>(bound);
}

bool sub_torus_choice(const Network& network, const CandidateSet& set, std::vector<std::uint32_t>* choice) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = set.nodes();
  if (nodes.size() < 2) return false;
  const Coord first = torus.coord(nodes.front());
  std::array<bool, kMaxDims> spanned{};
  std::size_t expected = 1;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    bool varies = false;
    for (NodeId node : nodes) varies = varies || torus.coord(node)[dim] != first[dim];
    spanned[dim] = varies;
    if (varies) expected *= static_cast<std::size_t>(torus.size(dim));
  }
  if (expected != nodes.size()) return false;  // sorted and distinct, so this means "all of them"
  for (NodeId node : nodes)
    for (int rank = 0; rank < kDirectionCount; ++rank) {
      const Direction d(rank);
      if (spanned[d.dim()] && torus.cabled(node, d) && !network.channel_alive(node, d)) return false;
    }

  choice->assign(set.pair_count(), 0);
  std::vector<Direction> hops;
  for (std::size_t s = 0; s < nodes.size(); ++s) {
    const Coord from = torus.coord(nodes[s]);
    for (std::size_t t = 0; t < nodes.size(); ++t) {
      if (s == t) continue;
      const Coord to = torus.coord(nodes[t]);
      std::array<int, kMaxDims> delta{};
      for (int dim = 0; dim < kMaxDims; ++dim)
        delta[dim] = ((to[dim] - from[dim]) % torus.size(dim) + torus.size(dim)) % torus.size(dim);
      std::array<int, kDirectionCount> counts{};
      for (int dim = 0; dim < kMaxDims; ++dim) {
        const int size = torus.size(dim);
        const int forward = delta[dim];
        if (forward == 0) continue;
        bool positive = forward < size - forward;
        if (torus.single_cabled(dim)) {
          positive = from[dim] == 0;  // the only cabled port of the pair
        } else if (forward == size - forward) {
          const TiedSign tied = tied_sign(torus, spanned, delta, dim);
          positive = tied.split ? from[dim] % 2 == 0 : tied.positive;
        }
        counts[Direction::make(dim, !positive).rank()] = positive ? forward : size - forward;
      }
      hops.clear();
      for (int rank = 0; rank < kDirectionCount; ++rank)
        for (int k = 0; k < counts[rank]; ++k) hops.push_back(Direction(rank));
      const std::size_t p = set.pair(s, t);
      const std::size_t v = set.find(p, hops);
      if (v == CandidateSet::npos) return false;
      (*choice)[p] = static_cast<std::uint32_t>(v);
    }
  }
  return true;
}

namespace {

// The construction of sub_torus_table() over `nodes`, by displacement class
// (mixed radix of the spanned dimensions, X fastest); nothing when `nodes`
// is not a whole fault-free sub-torus or the construction's loads are not
// uniform.
std::optional<Construction> construction_of(const Network& network, const std::vector<NodeId>& nodes) {
  const Torus& torus = network.torus();
  if (nodes.size() < 2) return std::nullopt;
  Construction made;
  const Coord first = torus.coord(nodes.front());
  std::size_t expected = 1;
  for (NodeId node : nodes) {
    const Coord c = torus.coord(node);
    for (int dim = 0; dim < kMaxDims; ++dim) made.spanned[dim] = made.spanned[dim] || c[dim] != first[dim];
  }
  for (int dim = 0; dim < kMaxDims; ++dim) {
    made.weight[dim] = expected;
    if (made.spanned[dim]) expected *= static_cast<std::size_t>(torus.size(dim));
  }
  if (expected != nodes.size()) return std::nullopt;
  for (NodeId node : nodes) {
    const Coord c = torus.coord(node);
    for (int dim = 0; dim < kMaxDims; ++dim)
      if (!made.spanned[dim] && c[dim] != first[dim]) return std::nullopt;
    for (int rank = 0; rank < kDirectionCount; ++rank) {
      const Direction d(rank);
      if (made.spanned[d.dim()] && !network.channel_alive(node, d)) return std::nullopt;
    }
  }

  // The route of every displacement class, as sub_torus_choice() picks it;
  // split_dim[class] >= 0 marks the class split by the source's parity.
  const std::size_t classes_total = nodes.size();
  made.even_route.resize(classes_total);
  made.odd_route.resize(classes_total);
  made.split_dim.assign(classes_total, -1);
  std::array<std::uint64_t, kDirectionCount> uniform{};  // load of every channel from the other classes
  std::array<std::vector<std::uint64_t>, kDirectionCount> split_load;  // by ring position
  std::vector<Direction> hops;
  for (std::size_t index = 0; index < classes_total; ++index) {
    std::array<int, kMaxDims> delta{};
    for (int dim = 0; dim < kMaxDims; ++dim)
      if (made.spanned[dim])
        delta[dim] = static_cast<int>(index / made.weight[dim] % static_cast<std::size_t>(torus.size(dim)));
    std::array<std::array<int, kDirectionCount>, 2> counts{};  // [odd source]
    for (int dim = 0; dim < kMaxDims; ++dim) {
      const int size = torus.size(dim);
      const int forward = delta[dim];
      if (forward == 0) continue;
      bool positive = forward < size - forward;
      bool split = false;
      if (forward == size - forward) {
        const TiedSign tied = tied_sign(torus, made.spanned, delta, dim);
        positive = tied.positive;
        split = tied.split;
      }
      if (split) {
        made.split_dim[index] = dim;
        counts[0][Direction::make(dim, false).rank()] = forward;
        counts[1][Direction::make(dim, true).rank()] = forward;
      } else {
        for (auto& side : counts) side[Direction::make(dim, !positive).rank()] = positive ? forward : size - forward;
      }
    }
    for (int odd = 0; odd <= 1; ++odd) {
      hops.clear();
      for (int rank = 0; rank < kDirectionCount; ++rank) hops.insert(hops.end(), counts[odd][rank], Direction(rank));
      const std::optional<PackedRoute> packed = RouteTable::pack(Route{hops});
      if (!packed) return std::nullopt;
      (odd ? made.odd_route : made.even_route)[index] = *packed;
    }
    if (made.split_dim[index] < 0) {
      for (int rank = 0; rank < kDirectionCount; ++rank) uniform[rank] += static_cast<std::uint64_t>(counts[0][rank]);
      continue;
    }
    // The split class: sources at even positions of the ring go +D, odd ones
    // -D, half the ring each; count the channels by ring position.
    const int dim = made.split_dim[index], size = torus.size(dim), half = size / 2;
    for (int negative = 0; negative <= 1; ++negative) {
      std::vector<std::uint64_t>& load = split_load[Direction::make(dim, negative != 0).rank()];
      load.assign(static_cast<std::size_t>(size), 0);
      for (int source = negative; source < size; source += 2)
        for (int k = 0; k < half; ++k) ++load[static_cast<std::size_t>(((negative ? source - k : source + k) % size + size) % size)];
    }
  }
  // Uniform loads, +D equal to -D, in every spanned dimension?
  for (int dim = 0; dim < kMaxDims; ++dim) {
    if (!made.spanned[dim]) continue;
    std::array<std::uint64_t, 2> level{};
    for (int negative = 0; negative <= 1; ++negative) {
      const int rank = Direction::make(dim, negative != 0).rank();
      level[negative] = uniform[rank];
      const std::vector<std::uint64_t>& load = split_load[rank];
      if (load.empty()) continue;
      for (std::uint64_t value : load)
        if (value != load.front()) return std::nullopt;
      level[negative] += load.front();
    }
    if (level[0] != level[1]) return std::nullopt;
  }
  return made;
}

}  // namespace

bool sub_torus_table(const Network& network, RouteTable& table) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = table.nodes();
  const std::optional<Construction> found = construction_of(network, nodes);
  if (!found) return false;
  const Construction& made = *found;
  const std::array<std::size_t, kMaxDims>& weight = made.weight;

  // Rows: the class of (s, t) is the displacement t - s per spanned
  // dimension; allocation indices are the sub-torus's mixed radix too.
  std::vector<int> span_dims;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (made.spanned[dim]) span_dims.push_back(dim);
  run_parallel(nodes.size(), [&](std::size_t, std::size_t begin, std::size_t end) {
    std::array<std::vector<std::size_t>, kMaxDims> shift;  // per dimension: target coordinate -> class offset
    std::array<int, kMaxDims> sizes{};
    for (int k = 0; k < kMaxDims; ++k) sizes[k] = 1;
    for (std::size_t k = 0; k < span_dims.size(); ++k) sizes[k] = torus.size(span_dims[k]);
    for (std::size_t s = begin; s < end; ++s) {
      std::array<int, kMaxDims> own{};
      for (std::size_t k = 0; k < span_dims.size(); ++k)
        own[k] = static_cast<int>(s / weight[span_dims[k]] % static_cast<std::size_t>(sizes[k]));
      for (int k = 0; k < kMaxDims; ++k) {
        shift[k].resize(static_cast<std::size_t>(sizes[k]));
        const std::size_t w = k < static_cast<int>(span_dims.size()) ? weight[span_dims[k]] : 0;
        for (int t = 0; t < sizes[k]; ++t)
          shift[k][static_cast<std::size_t>(t)] = static_cast<std::size_t>((t - own[k] + sizes[k]) % sizes[k]) * w;
      }
      std::size_t t = 0;
      for (int t3 = 0; t3 < sizes[3]; ++t3)
        for (int t2 = 0; t2 < sizes[2]; ++t2)
          for (int t1 = 0; t1 < sizes[1]; ++t1) {
            const std::size_t outer = shift[3][t3] + shift[2][t2] + shift[1][t1];
            for (int t0 = 0; t0 < sizes[0]; ++t0, ++t) {
              const std::size_t index = outer + shift[0][static_cast<std::size_t>(t0)];
              table.set_route(s, t, made.even_route[index]);
            }
          }
      // The split classes: by the parity of the source's coordinate.
      for (std::size_t k = 0; k < span_dims.size(); ++k) {
        const int dim = span_dims[k];
        const std::size_t index = static_cast<std::size_t>(sizes[k] / 2) * weight[dim];
        if (made.split_dim[index] != dim) continue;
        const int to = (own[k] + sizes[k] / 2) % sizes[k];
        const std::size_t target = s + static_cast<std::size_t>(to - own[k]) * weight[dim];
        table.set_route(s, target, own[k] % 2 == 0 ? made.even_route[index] : made.odd_route[index]);
      }
    }
  });
  return true;
}

std::optional<DisplacementRoutes> DisplacementRoutes::of_whole(const Torus& torus) {
  const Network healthy(torus);
  std::vector<NodeId> every(torus.node_count());
  for (NodeId node = 0; node < torus.node_count(); ++node) every[node] = node;
  std::optional<Construction> made = construction_of(healthy, every);
  if (!made) return std::nullopt;
  return DisplacementRoutes(torus, std::move(*made));
}

PackedRoute DisplacementRoutes::word(const Coord& from, const Coord& to) const {
  std::size_t index = 0;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (made_.spanned[dim]) {
      const int size = torus_.size(dim);
      index += static_cast<std::size_t>(((to[dim] - from[dim]) % size + size) % size) * made_.weight[dim];
    }
  const int split = made_.split_dim[index];
  return split >= 0 && from[split] % 2 != 0 ? made_.odd_route[index] : made_.even_route[index];
}

void DisplacementRoutes::write(RouteTable& table) const {
  const std::vector<NodeId>& nodes = table.nodes();
  const std::size_t n = nodes.size();
  // Per dimension, the class offset of each target coordinate is the
  // source's row of a small table: index = the sum over dimensions.
  std::array<std::vector<std::uint16_t>, kMaxDims> coord;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    coord[dim].resize(n);
    for (std::size_t k = 0; k < n; ++k) coord[dim][k] = static_cast<std::uint16_t>(torus_.coord(nodes[k])[dim]);
  }
  // The targets as runs that differ in X alone: Y, Z and W's share of the
  // index is summed once a run, not once a target.
  std::vector<std::size_t> run_start;
  for (std::size_t t = 0; t < n; ++t)
    if (t == 0 || coord[1][t] != coord[1][t - 1] || coord[2][t] != coord[2][t - 1] || coord[3][t] != coord[3][t - 1])
      run_start.push_back(t);
  run_start.push_back(n);
  // A run that holds the whole X ring in order (every router of the line
  // allocated) takes its words from its line rotated by the source's X: two
  // copies.  Where X's class offsets are not consecutive (X not spanned, or
  // not the fastest index) every run goes target by target.
  const int ring = torus_.size(0);
  const bool whole_lines = made_.spanned[0] && made_.weight[0] == 1;
  std::vector<char> whole_run(run_start.size(), 0);
  for (std::size_t r = 0; whole_lines && r + 1 < run_start.size(); ++r) {
    const std::size_t first = run_start[r];
    bool whole = run_start[r + 1] - first == static_cast<std::size_t>(ring);
    for (int k = 0; whole && k < ring; ++k) whole = coord[0][first + static_cast<std::size_t>(k)] == k;
    whole_run[r] = whole;
  }
  run_parallel(n, [&](std::size_t, std::size_t begin, std::size_t end) {
    std::array<std::vector<std::uint32_t>, kMaxDims> offset;
    for (std::size_t s = begin; s < end; ++s) {
      for (int dim = 0; dim < kMaxDims; ++dim) {
        const int size = torus_.size(dim), own = coord[dim][s];
        offset[dim].assign(static_cast<std::size_t>(size), 0);
        if (!made_.spanned[dim]) continue;
        for (int t = 0; t < size; ++t)
          offset[dim][static_cast<std::size_t>(t)] =
              static_cast<std::uint32_t>(static_cast<std::size_t>((t - own + size) % size) * made_.weight[dim]);
      }
      const std::uint32_t *x = offset[0].data(), *y = offset[1].data(), *z = offset[2].data(), *w = offset[3].data();
      const std::uint16_t *cx = coord[0].data(), *cy = coord[1].data(), *cz = coord[2].data(), *cw = coord[3].data();
      for (std::size_t r = 0; r + 1 < run_start.size(); ++r) {
        const std::size_t first = run_start[r];
        const PackedRoute* const line = made_.even_route.data() + y[cy[first]] + z[cz[first]] + w[cw[first]];
        if (whole_run[r]) {
          // Target X = t holds class offset (t - own) mod ring.
          const std::size_t own = coord[0][s], rest = static_cast<std::size_t>(ring) - own;
          table.set_routes(s, first, line + rest, own);
          table.set_routes(s, first + own, line, rest);
          continue;
        }
        for (std::size_t t = first; t < run_start[r + 1]; ++t) table.set_route(s, t, line[x[cx[t]]]);
      }
      // The split classes (pure displacements half a ring long): by the
      // parity of the source's coordinate, where the target is allocated.
      const Coord from = torus_.coord(nodes[s]);
      for (int dim = 0; dim < kMaxDims; ++dim) {
        if (!made_.spanned[dim] || from[dim] % 2 == 0) continue;
        const int size = torus_.size(dim);
        const std::size_t index = static_cast<std::size_t>(size / 2) * made_.weight[dim];
        if (made_.split_dim[index] != dim) continue;
        Coord to = from;
        to[dim] = (from[dim] + size / 2) % size;
        const std::size_t target = table.index_of(torus_.id(to));
        if (target != RouteTable::npos) table.set_route(s, target, made_.odd_route[index]);
      }
    }
  });
}

}  // namespace angara::balanced
