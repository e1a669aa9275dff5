// Channel loads, the papers' balance metrics and the per-dimension lower bound
// (doc/model.md, "Metrics"; ANSU paper, section 1.1).
#include "routing/check/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

namespace angara {

namespace {

bool inside(const Torus& torus, NodeId node) { return node < torus.node_count(); }

// Bit masks over the positions of one ring, for the coordinate values that
// allocated nodes actually take in that dimension (the "occupied" values).
// A mask has ceil(size / 64) words.
class RingMasks {
 public:
  RingMasks(int size, const std::vector<int>& occupied)
      : size_(size), words_((size + 63) / 64), occupied_(occupied.size()) {
    slot_of_.assign(static_cast<std::size_t>(size), -1);
    for (std::size_t k = 0; k < occupied.size(); ++k) slot_of_[occupied[k]] = static_cast<int>(k);
    const std::size_t pairs = occupied_ * occupied_;
    arcs_.assign(pairs * words_, 0);
    hops_[0].assign(pairs * words_, 0);
    hops_[1].assign(pairs * words_, 0);
    for (int a : occupied)
      for (int b : occupied) fill(a, b);
  }

  int words() const { return words_; }
  // Positions on a shortest arc between a and b, both arcs when equidistant.
  const std::uint64_t* arc(int a, int b) const { return &arcs_[offset(a, b)]; }
  // Positions u whose hop u -> u + step lies on a shortest arc from s to t
  // that runs in the direction of `step`.
  const std::uint64_t* hop(bool negative, int s, int t) const { return &hops_[negative][offset(s, t)]; }

  static bool test(const std::uint64_t* mask, int position) {
    return (mask[position >> 6] >> (position & 63)) & 1u;
  }
  int count(const std::uint64_t* mask) const {
    int total = 0;
    for (int w = 0; w < words_; ++w) total += __builtin_popcountll(mask[w]);
    return total;
  }

 private:
  std::size_t offset(int a, int b) const {
    const std::size_t pair =
        static_cast<std::size_t>(slot_of_[a]) * occupied_ + static_cast<std::size_t>(slot_of_[b]);
    return pair * static_cast<std::size_t>(words_);
  }

  void set(std::vector<std::uint64_t>& bits, std::size_t base, int position) {
    bits[base + static_cast<std::size_t>(position >> 6)] |= std::uint64_t{1} << (position & 63);
  }

  void fill(int a, int b) {
    const std::size_t base = offset(a, b);
    const int forward = ((b - a) % size_ + size_) % size_;
    const int backward = (size_ - forward) % size_;
    set(arcs_, base, a);
    if (forward == 0) return;
    if (forward <= backward) {  // the + arc a, a+1, ..., b is shortest
      for (int k = 0; k < forward; ++k) {
        set(hops_[0], base, (a + k) % size_);
        set(arcs_, base, (a + k + 1) % size_);
      }
    }
    if (backward <= forward) {  // the - arc a, a-1, ..., b is shortest
      for (int k = 0; k < backward; ++k) {
        set(hops_[1], base, ((a - k) % size_ + size_) % size_);
        set(arcs_, base, ((a - k - 1) % size_ + size_) % size_);
      }
    }
  }

  int size_;
  int words_;
  std::size_t occupied_;
  std::vector<int> slot_of_;  // position -> index among occupied values, -1 if unoccupied
  std::vector<std::uint64_t> arcs_;
  std::vector<std::uint64_t> hops_[2];  // [negative]
};

// Per dimension an arc of the ring: `length` positions from `start` on,
// wrapping; a product of them is a box of the torus.
struct ArcBox {
  std::array<int, kMaxDims> start{}, length{};

  // The targets t_dim that put the hop from `at` in the sense `step` on a
  // shortest arc from `source` to t_dim running that way: those at
  // distance a + 1 ... size / 2 that way, a being the source's distance
  // to `at` that way.  False when there are none.
  bool hop(const Torus& torus, int dim, int step, int source, int at) {
    const int size = torus.size(dim), half = size / 2;
    const int ahead = (((at - source) * step) % size + size) % size;
    if (ahead + 1 > half) return false;
    length[dim] = half - ahead;
    start[dim] = step > 0 ? (at + 1) % size : ((source - half) % size + size) % size;
    return true;
  }
  // The targets t_j with `at` on a shortest arc between `source` and t_j:
  // the whole ring when at is the source, else the arc from `at` on away
  // from the source, up to half the ring from the source.
  void around(const Torus& torus, int j, int source, int at) {
    const int size = torus.size(j), half = size / 2;
    const int forward = ((at - source) % size + size) % size;
    if (forward == 0) {
      start[j] = 0;
      length[j] = size;
    } else if (forward <= half) {
      start[j] = at;
      length[j] = half - forward + 1;
    } else {
      start[j] = ((source - half) % size + size) % size;
      length[j] = half - (size - forward) + 1;
    }
  }
};

// Allocated nodes per box in 16 look-ups: a prefix count over the torus
// laid out twice along each ring (size 2n, a node at c and at c + n), so
// that an arc across the wrap is one range; a size-1 dimension stays 1.
class AllocatedCounter {
 public:
  AllocatedCounter(const Torus& torus, const std::vector<Coord>& coords) : torus_(torus) {
    std::size_t total = 1;
    for (int j = kMaxDims - 1; j >= 0; --j) {
      stride_[j] = total;
      total *= static_cast<std::size_t>(extent(j)) + 1;
    }
    prefix_.assign(total, 0);
    for (const Coord& c : coords)
      for (int copy = 0; copy < (1 << kMaxDims); ++copy) {
        std::size_t at = 0;
        bool exists = true;
        for (int j = 0; j < kMaxDims && exists; ++j) {
          const bool shifted = (copy >> j) & 1;
          exists = !shifted || torus.dim_present(j);
          at += static_cast<std::size_t>(c[j] + (shifted ? torus.size(j) : 0) + 1) * stride_[j];
        }
        if (exists) ++prefix_[at];
      }
    for (int j = 0; j < kMaxDims; ++j)  // running sums along each dimension in turn
      for (std::size_t at = 0; at < total; ++at)
        if ((at / stride_[j]) % (static_cast<std::size_t>(extent(j)) + 1) != 0) prefix_[at] += prefix_[at - stride_[j]];
  }

  // Whether some allocated node lies in the box: inclusion and exclusion
  // over its 16 corners.
  bool any(const ArcBox& box) const {
    std::array<std::array<std::size_t, 2>, kMaxDims> ends{};  // [dim] = {start, end} times the stride
    for (int j = 0; j < kMaxDims; ++j) {
      const int length = std::min(box.length[j], torus_.size(j));
      ends[j] = {static_cast<std::size_t>(box.start[j]) * stride_[j],
                 static_cast<std::size_t>(box.start[j] + length) * stride_[j]};
    }
    std::int64_t total = 0;
    for (int corner = 0; corner < 16; ++corner) {
      const std::size_t at = ends[0][corner & 1] + ends[1][(corner >> 1) & 1] + ends[2][(corner >> 2) & 1] +
                             ends[3][(corner >> 3) & 1];
      // The sign: minus for an odd number of starts (bits clear).
      const bool odd = ((corner ^ (corner >> 1) ^ (corner >> 2) ^ (corner >> 3)) & 1) != 0;
      total += (odd ? -1 : 1) * static_cast<std::int64_t>(prefix_[at]);
    }
    return total > 0;
  }

 private:
  int extent(int j) const { return torus_.dim_present(j) ? 2 * torus_.size(j) : 1; }

  const Torus& torus_;
  std::array<std::size_t, kMaxDims> stride_{};
  std::vector<std::uint32_t> prefix_;
};

// One class of pairs as seen by the channels of dimension `dim`: its key
// (per dimension the coordinate pair, X in the top 16 bits), whose hop mask
// in `dim` and arc masks in the others are looked up when tested (16 bytes
// a class where the masks' pointers took 48: 16.7 million classes on a
// scattered 4096 nodes of 16x16x8x8).
struct PairPattern {
  std::uint64_t key = 0;
  std::uint64_t coverage = 0;  // channels it covers; broad patterns are tried first
};

// The (low, high) coordinate pair of dimension j in a class key.
std::array<int, 2> key_part(std::uint64_t key, int j) {
  const std::uint64_t part = key >> (16 * (kMaxDims - 1 - j));
  return {static_cast<int>((part >> 8) & 0xFF), static_cast<int>(part & 0xFF)};
}

}  // namespace

std::vector<std::uint64_t> channel_loads(const Network& network, const RouteTable& table) {
  const Torus& torus = network.torus();
  std::vector<std::uint64_t> loads(torus.channel_slots(), 0);
  const std::vector<NodeId>& nodes = table.nodes();
  for (std::size_t s = 0; s < nodes.size(); ++s) {
    if (!inside(torus, nodes[s])) continue;
    for (std::size_t d = 0; d < nodes.size(); ++d) {
      if (!table.has_route(s, d)) continue;
      NodeId at = nodes[s];
      table.for_each_run(s, d, [&](Direction hop, int count) {
        for (int k = 0; k < count; ++k) {
          ++loads[Torus::channel(at, hop)];
          at = torus.neighbor(at, hop);
        }
      });
    }
  }
  return loads;
}

std::vector<ChannelId> measured_channels(const Network& network, const RouteTable& table,
                                         const std::vector<std::uint64_t>& loads) {
  const Torus& torus = network.torus();
  std::vector<ChannelId> measured;
  for (ChannelId c = 0; c < torus.channel_slots(); ++c) {
    bool counted = c < loads.size() && loads[c] > 0;
    if (!counted && network.channel_alive(c)) {
      const NodeId from = Torus::channel_node(c);
      const NodeId to = torus.neighbor(from, Torus::channel_direction(c));
      counted = table.index_of(from) != RouteTable::npos && table.index_of(to) != RouteTable::npos;
    }
    if (counted) measured.push_back(c);
  }
  return measured;
}

std::array<DimensionBoundTerms, kMaxDims> dimension_bound_terms(const Network& network,
                                                                const std::vector<NodeId>& allocation,
                                                                LeftoverChannels leftover) {
  const Torus& torus = network.torus();
  std::array<DimensionBoundTerms, kMaxDims> terms{};

  std::vector<unsigned char> allocated(torus.node_count(), 0);
  std::vector<Coord> coords;
  coords.reserve(allocation.size());
  for (NodeId node : allocation)
    if (inside(torus, node) && !allocated[node]) {
      allocated[node] = 1;
      coords.push_back(torus.coord(node));
    }
  if (coords.size() < 2) return terms;

  // Per-dimension coordinate histograms give the hop sums in O(size^2).
  std::array<std::vector<std::uint64_t>, kMaxDims> histogram;
  std::array<std::vector<int>, kMaxDims> occupied;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    histogram[dim].assign(static_cast<std::size_t>(torus.size(dim)), 0);
    for (const Coord& c : coords) ++histogram[dim][c[dim]];
    for (int v = 0; v < torus.size(dim); ++v)
      if (histogram[dim][v]) occupied[dim].push_back(v);
  }

  std::vector<RingMasks> masks;
  masks.reserve(kMaxDims);
  for (int dim = 0; dim < kMaxDims; ++dim) masks.emplace_back(torus.size(dim), occupied[dim]);

  std::vector<int> present;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (torus.dim_present(dim)) present.push_back(dim);

  // Pair classes as ranks among the occupied coordinates of each dimension:
  // (low, high) per dimension, r_j^2 of them for r_j occupied values.  When
  // that space fits a bitmap of 2^26 bits (8 MiB) the classes are its bits,
  // read back ascending (the sorted distinct keys without sorting the n^2
  // pairs: a scattered 1024 nodes of 8x8x8x8, 2 MB of bits instead of four
  // sorts of a million keys; an 8x8x8x8 block of 16x16x8x8, whose raw
  // coordinates would need 2^28 bits, 2 MB instead of four sorts of 16.7
  // million keys); above, they are sorted.
  constexpr std::uint64_t kClassBitmapLimit = std::uint64_t{1} << 26;
  std::array<std::vector<int>, kMaxDims> rank_of;  // coordinate -> index among occupied values
  std::uint64_t class_space = 1;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    rank_of[dim].assign(static_cast<std::size_t>(torus.size(dim)), -1);
    for (std::size_t k = 0; k < occupied[dim].size(); ++k) rank_of[dim][occupied[dim][k]] = static_cast<int>(k);
    const std::uint64_t values = occupied[dim].size();
    class_space = class_space > kClassBitmapLimit ? class_space : class_space * values * values;
  }
  // An allocation that is the product of its occupied coordinates (a block,
  // whole rings or arcs in every dimension) has every class: its channels
  // are decided dimension by dimension below, without the n^2 pairs.
  std::uint64_t product = 1;
  for (int dim = 0; dim < kMaxDims; ++dim) product *= occupied[dim].size();
  const bool every_class = product == coords.size();
  // Per dimension, the positions on a shortest arc between two occupied
  // values: a channel's other coordinates must lie there for any pair to
  // have it on a minimal path.
  std::array<std::vector<std::uint64_t>, kMaxDims> arcs_union;
  for (int j : present) {
    arcs_union[j].assign(static_cast<std::size_t>(masks[j].words()), 0);
    for (int a : occupied[j])
      for (int b : occupied[j]) {
        const std::uint64_t* mask = masks[j].arc(a, b);
        for (int w = 0; w < masks[j].words(); ++w) arcs_union[j][w] |= mask[w];
      }
  }
  std::vector<std::uint64_t> keys, seen;
  std::vector<std::array<std::uint8_t, kMaxDims>> ranks;
  std::unique_ptr<AllocatedCounter> counter;  // built for the first channel checked directly
  std::array<std::vector<unsigned char>, kMaxDims> around_occupied;  // with it  // per allocated node, when the bitmap is used
  for (int dim : present) {
    DimensionBoundTerms& term = terms[dim];
    for (int a : occupied[dim])
      for (int b : occupied[dim])
        term.hops += histogram[dim][a] * histogram[dim][b] *
                     static_cast<std::uint64_t>(torus.ring_distance(dim, a, b));
    if (term.hops == 0) continue;

    // A channel between two allocated nodes is the whole minimal path of
    // that pair (one hop is a shortest arc on any ring), so it counts at
    // once.  Only channels leaving the allocation need the pair scan below:
    // a whole machine has none and costs O(channels).
    std::vector<ChannelId> undecided;
    for (NodeId node = 0; node < torus.node_count(); ++node)
      for (int negative = 0; negative <= 1; ++negative) {
        const Direction direction = Direction::make(dim, negative != 0);
        if (!network.channel_alive(node, direction)) continue;
        if (allocated[node] && allocated[torus.neighbor(node, direction)])
          ++term.channels;
        else
          undecided.push_back(Torus::channel(node, direction));
      }
    if (undecided.empty()) continue;

    if (every_class) {
      // Every combination of per-dimension pairs occurs, so a channel lies
      // on a minimal path of some pair iff each coordinate does on its own:
      // its hop on a shortest arc in its sense between some two occupied
      // values of `dim`, and every other coordinate on a shortest arc
      // between some two occupied values of that dimension.  (An 8x8x8x8
      // block: the undecided channels once, against 2.6 million classes a
      // dimension.)
      std::array<std::vector<std::uint64_t>, 2> hops_union;  // [negative]
      for (int negative = 0; negative <= 1; ++negative) {
        hops_union[negative].assign(static_cast<std::size_t>(masks[dim].words()), 0);
        for (int a : occupied[dim])
          for (int b : occupied[dim]) {
            const std::uint64_t* mask = masks[dim].hop(negative != 0, a, b);
            for (int w = 0; w < masks[dim].words(); ++w) hops_union[negative][w] |= mask[w];
          }
      }
      for (ChannelId c : undecided) {
        const Coord u = torus.coord(Torus::channel_node(c));
        bool on_path = RingMasks::test(hops_union[Torus::channel_direction(c).negative()].data(), u[dim]);
        for (std::size_t k = 0; on_path && k < present.size(); ++k)
          if (present[k] != dim) on_path = RingMasks::test(arcs_union[present[k]].data(), u[present[k]]);
        if (on_path) ++term.channels;
      }
      continue;
    }

    // A pair with one end on the channel's own ring (that end's other
    // coordinates are the channel's, so each of them lies on its arc)
    // decides most channels at once: the channel counts when some
    // allocated node of its ring, as the source, and some occupied value
    // of `dim` as the target's (or the other way round) put its hop on a
    // shortest arc in its sense.  Only the channels no such pair decides
    // go on to the pair classes (none, on a random half of 8x8x8x8).
    {
      const int size = torus.size(dim), words = masks[dim].words();
      // [negative][position * size + source value]: the occupied target
      // values that put the hop from `position` on an arc of that sense.
      std::array<std::vector<std::uint64_t>, 2> hop_targets;
      // [negative][position]: the sources (targets) that some occupied
      // target (source) value puts that hop on an arc of, read off them.
      std::array<std::vector<std::uint64_t>, 2> sources, targets;
      for (int negative = 0; negative <= 1; ++negative) {
        hop_targets[negative].assign(static_cast<std::size_t>(size) * size * words, 0);
        sources[negative].assign(static_cast<std::size_t>(size) * words, 0);
        targets[negative].assign(static_cast<std::size_t>(size) * words, 0);
        for (int a : occupied[dim])
          for (int b : occupied[dim]) {
            const std::uint64_t* hop = masks[dim].hop(negative != 0, a, b);
            for (int position = 0; position < size; ++position)
              if (RingMasks::test(hop, position))
                hop_targets[negative][(static_cast<std::size_t>(position) * size + a) * words + (b >> 6)] |=
                    std::uint64_t{1} << (b & 63);
          }
        for (int position = 0; position < size; ++position)
          for (int a : occupied[dim])
            for (int w = 0; w < words; ++w) {
              const std::uint64_t bits =
                  hop_targets[negative][(static_cast<std::size_t>(position) * size + a) * words + w];
              if (bits == 0) continue;
              sources[negative][static_cast<std::size_t>(position) * words + (a >> 6)] |= std::uint64_t{1} << (a & 63);
              targets[negative][static_cast<std::size_t>(position) * words + w] |= bits;
            }
      }
      // The allocated positions of each ring of `dim`, by its base node.
      std::vector<std::uint64_t> ring(static_cast<std::size_t>(torus.node_count()) * words, 0);
      for (const Coord& c : coords) {
        Coord base = c;
        base[dim] = 0;
        ring[static_cast<std::size_t>(torus.id(base)) * words + (c[dim] >> 6)] |= std::uint64_t{1} << (c[dim] & 63);
      }
      std::vector<ChannelId> left;
      for (ChannelId c : undecided) {
        Coord u = torus.coord(Torus::channel_node(c));
        const int negative = Torus::channel_direction(c).negative() ? 1 : 0;
        const std::size_t at = static_cast<std::size_t>(u[dim]) * words;
        u[dim] = 0;
        const std::uint64_t* own = &ring[static_cast<std::size_t>(torus.id(u)) * words];
        bool decided = false;
        for (int w = 0; w < words && !decided; ++w)
          decided = (own[w] & (sources[negative][at + w] | targets[negative][at + w])) != 0;
        if (decided)
          ++term.channels;
        else
          left.push_back(c);
      }
      undecided.swap(left);
      if (undecided.empty()) continue;

      // The channels left (on rings without an allocated node): each by the
      // definition, source by source.  Only sources less than half a ring
      // behind the hop can have it on a shortest arc, nearest first, and
      // the targets such a source allows are a box, an arc of each ring
      // (ArcBox), whose allocated nodes a prefix count gives in 16
      // look-ups; the first source with one decides.  A channel no pair
      // crosses costs a check of half the sources, so past the checks
      // `leftover` allows (about the pair classes' cost) the channels not
      // yet decided go to the pair classes below.
      const std::size_t direct_checks =
          leftover == LeftoverChannels::direct         ? std::numeric_limits<std::size_t>::max()
          : leftover == LeftoverChannels::pair_classes ? 0
                                                       : coords.size() * coords.size();
      if (direct_checks > 0) {
        if (!counter) {
          counter = std::make_unique<AllocatedCounter>(torus, coords);
          // Per dimension and (source value, channel value): whether the
          // arc of targets ArcBox::around allows holds an occupied value.
          for (int j : present) {
            const int n = torus.size(j);
            around_occupied[j].assign(static_cast<std::size_t>(n) * n, 0);
            for (int from = 0; from < n; ++from)
              for (int at = 0; at < n; ++at) {
                ArcBox box;
                box.around(torus, j, from, at);
                bool any = false;
                for (int k = 0; k < box.length[j] && !any; ++k) any = histogram[j][(box.start[j] + k) % n] != 0;
                around_occupied[j][static_cast<std::size_t>(from) * n + at] = any;
              }
          }
        }
        std::vector<std::vector<std::uint32_t>> at_value(static_cast<std::size_t>(size));  // sources by coordinate in dim
        for (std::size_t k = 0; k < coords.size(); ++k) at_value[coords[k][dim]].push_back(static_cast<std::uint32_t>(k));
        std::size_t spent = 0, next = 0;
        for (; next < undecided.size() && spent < direct_checks; ++next) {
          const ChannelId c = undecided[next];
          const Coord u = torus.coord(Torus::channel_node(c));
          const int step = Torus::channel_direction(c).step();
          // Each dimension on its own first: some occupied values put the
          // hop on an arc of its sense, and the other coordinates on arcs.
          bool possible = false;
          for (int w = 0; w < words && !possible; ++w)
            possible = sources[step < 0 ? 1 : 0][static_cast<std::size_t>(u[dim]) * words + w] != 0;
          for (std::size_t k = 0; possible && k < present.size(); ++k)
            if (present[k] != dim) possible = RingMasks::test(arcs_union[present[k]].data(), u[present[k]]);
          if (!possible) continue;  // no pair's minimal path crosses it
          bool found = false;
          for (int behind = 0; behind < size / 2 && !found; ++behind) {
            const int value = ((u[dim] - step * behind) % size + size) % size;
            const std::uint64_t* hop_wanted =
                &hop_targets[step < 0 ? 1 : 0][(static_cast<std::size_t>(u[dim]) * size + value) * words];
            bool hop_possible = false;
            for (int w = 0; w < words && !hop_possible; ++w) hop_possible = hop_wanted[w] != 0;
            for (std::size_t n = 0; hop_possible && n < at_value[value].size() && !found; ++n) {
              const Coord& source = coords[at_value[value][n]];
              ++spent;
              // Each other dimension's arc must hold an occupied value
              // before the box is counted.
              bool open = true;
              for (std::size_t k = 0; open && k < present.size(); ++k) {
                const int j = present[k];
                if (j != dim)
                  open = around_occupied[j][static_cast<std::size_t>(source[j]) * torus.size(j) + u[j]] != 0;
              }
              if (!open) continue;
              ArcBox box;
              found = box.hop(torus, dim, step, source[dim], u[dim]);
              for (int j = 0; found && j < kMaxDims; ++j)
                if (j != dim) box.around(torus, j, source[j], u[j]);
              found = found && counter->any(box);
            }
          }
          if (found) ++term.channels;  // else no pair's minimal path crosses it
        }
        undecided.erase(undecided.begin(), undecided.begin() + static_cast<std::ptrdiff_t>(next));
        if (undecided.empty()) continue;
      }
    }

    // Distinct pair classes: (s_dim, t_dim) ordered, and for every other
    // dimension the unordered {s_j, t_j}, since arcs are symmetric.  Each
    // coordinate is below 256, so a class fits in 8 bytes.
    keys.clear();
    if (class_space <= kClassBitmapLimit) {
      seen.assign((class_space + 63) / 64, 0);
      // Per dimension the index's weight of a (low, high) part, and every
      // node's ranks, looked up once.
      std::array<std::uint64_t, kMaxDims> weight{}, values{};
      std::uint64_t below = 1;
      for (int j = kMaxDims - 1; j >= 0; --j) {
        values[j] = occupied[j].size();
        weight[j] = below;
        below *= values[j] * values[j];
      }
      if (ranks.empty())
        for (const Coord& c : coords) {
          std::array<std::uint8_t, kMaxDims> r{};
          for (int j = 0; j < kMaxDims; ++j) r[j] = static_cast<std::uint8_t>(rank_of[j][c[j]]);
          ranks.push_back(r);
        }
      for (const auto& a : ranks)
        for (const auto& b : ranks) {
          if (a[dim] == b[dim]) continue;
          std::uint64_t index = 0;
          for (int j = 0; j < kMaxDims; ++j) {
            const std::uint64_t low = j == dim ? a[j] : std::min(a[j], b[j]);
            const std::uint64_t high = j == dim ? b[j] : std::max(a[j], b[j]);
            index += (low * values[j] + high) * weight[j];
          }
          seen[index / 64] |= std::uint64_t{1} << (index % 64);
        }
      for (std::size_t w = 0; w < seen.size(); ++w)
        for (std::uint64_t bits = seen[w]; bits; bits &= bits - 1) {
          std::uint64_t index = w * 64 + static_cast<std::uint64_t>(__builtin_ctzll(bits)), key = 0;
          std::array<std::uint64_t, kMaxDims> part{};
          for (int j = kMaxDims - 1; j >= 0; --j) {
            const std::uint64_t values = occupied[j].size();
            part[j] = index % (values * values);
            index /= values * values;
          }
          for (int j = 0; j < kMaxDims; ++j) {
            const std::uint64_t values = occupied[j].size();
            const std::uint64_t low = static_cast<std::uint64_t>(occupied[j][part[j] / values]);
            const std::uint64_t high = static_cast<std::uint64_t>(occupied[j][part[j] % values]);
            key = (key << 16) | (low << 8) | high;
          }
          keys.push_back(key);
        }
    } else {
      keys.reserve(coords.size() * coords.size());
      for (const Coord& s : coords)
        for (const Coord& t : coords) {
          if (s[dim] == t[dim]) continue;
          std::uint64_t key = 0;
          for (int j = 0; j < kMaxDims; ++j) {
            const int low = j == dim ? s[j] : std::min(s[j], t[j]);
            const int high = j == dim ? t[j] : std::max(s[j], t[j]);
            key = (key << 16) | (static_cast<std::uint64_t>(low) << 8) | static_cast<std::uint64_t>(high);
          }
          keys.push_back(key);
        }
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    }

    std::array<std::vector<PairPattern>, 2> patterns;  // [negative]
    for (auto& list : patterns) list.reserve(keys.size());  // no doubling: a key at most once each
    for (const std::uint64_t class_key : keys) {
      std::uint64_t key = class_key;
      std::array<int, kMaxDims> low{}, high{};
      for (int j = kMaxDims - 1; j >= 0; --j) {
        high[j] = static_cast<int>(key & 0xFF);
        low[j] = static_cast<int>((key >> 8) & 0xFF);
        key >>= 16;
      }
      for (int negative = 0; negative <= 1; ++negative) {
        PairPattern pattern;
        pattern.key = class_key;
        pattern.coverage = static_cast<std::uint64_t>(masks[dim].count(masks[dim].hop(negative != 0, low[dim], high[dim])));
        if (pattern.coverage == 0) continue;  // the shortest arcs run the other way
        for (int j : present)
          if (j != dim) pattern.coverage *= static_cast<std::uint64_t>(masks[j].count(masks[j].arc(low[j], high[j])));
        patterns[negative].push_back(pattern);
      }
    }
    // Broadest first, ties in key order: a counting sort by coverage (at
    // most the machine's node count), stable like the scan needs.
    for (auto& list : patterns) {
      std::uint64_t widest = 0;
      for (const PairPattern& pattern : list) widest = std::max(widest, pattern.coverage);
      if (widest > torus.node_count()) {
        std::stable_sort(list.begin(), list.end(),
                         [](const PairPattern& x, const PairPattern& y) { return x.coverage > y.coverage; });
        continue;
      }
      std::vector<std::size_t> first(static_cast<std::size_t>(widest) + 2, 0);
      for (const PairPattern& pattern : list) ++first[static_cast<std::size_t>(widest - pattern.coverage) + 1];
      for (std::size_t k = 1; k < first.size(); ++k) first[k] += first[k - 1];
      std::vector<PairPattern> sorted(list.size());
      for (const PairPattern& pattern : list) sorted[first[static_cast<std::size_t>(widest - pattern.coverage)]++] = pattern;
      list.swap(sorted);
    }

    // The union of the patterns per dimension: a channel outside it lies on
    // no pattern, and most channels of a large machine around a compact
    // allocation are, so they skip the scan.
    std::array<std::array<std::vector<std::uint64_t>, kMaxDims>, 2> reach;  // [negative][dimension]
    for (int negative = 0; negative <= 1; ++negative)
      for (int j : present) {
        std::vector<std::uint64_t>& bits = reach[negative][j];
        bits.assign(static_cast<std::size_t>(masks[j].words()), 0);
        for (const PairPattern& pattern : patterns[negative]) {
          const auto [low, high] = key_part(pattern.key, j);
          const std::uint64_t* mask = j == dim ? masks[j].hop(negative != 0, low, high) : masks[j].arc(low, high);
          for (std::size_t w = 0; w < bits.size(); ++w) bits[w] |= mask[w];
        }
      }
    for (ChannelId c : undecided) {
      const Coord u = torus.coord(Torus::channel_node(c));
      const bool negative = Torus::channel_direction(c).negative();
      bool reachable = true;
      for (std::size_t k = 0; reachable && k < present.size(); ++k)
        reachable = RingMasks::test(reach[negative][present[k]].data(), u[present[k]]);
      if (!reachable) continue;
      for (const PairPattern& pattern : patterns[negative]) {
        const auto [low, high] = key_part(pattern.key, dim);
        bool on_path = RingMasks::test(masks[dim].hop(negative, low, high), u[dim]);
        for (std::size_t k = 0; on_path && k < present.size(); ++k) {
          const int j = present[k];
          if (j == dim) continue;
          const auto [arc_low, arc_high] = key_part(pattern.key, j);
          on_path = RingMasks::test(masks[j].arc(arc_low, arc_high), u[j]);
        }
        if (on_path) {
          ++term.channels;
          break;
        }
      }
    }
  }
  return terms;
}

std::array<double, kMaxDims> dimension_lower_bounds(const Network& network,
                                                    const std::vector<NodeId>& allocation) {
  const auto terms = dimension_bound_terms(network, allocation);
  std::array<double, kMaxDims> bounds{};
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (terms[dim].channels > 0)
      bounds[dim] = static_cast<double>(terms[dim].hops) / static_cast<double>(terms[dim].channels);
  return bounds;
}

std::uint64_t integer_lower_bound(const std::array<DimensionBoundTerms, kMaxDims>& terms) {
  std::uint64_t bound = 0;
  for (const DimensionBoundTerms& term : terms)
    if (term.channels > 0) bound = std::max(bound, (term.hops + term.channels - 1) / term.channels);
  return bound;
}

Metrics compute_metrics(const Network& network, const RouteTable& table) {
  return compute_metrics(network, table, channel_loads(network, table));
}

Metrics compute_metrics(const Network& network, const RouteTable& table, const std::vector<std::uint64_t>& loads,
                        const RouteLengths* lengths) {
  Metrics metrics;
  const std::vector<ChannelId> measured = measured_channels(network, table, loads);
  metrics.channels = measured.size();
  if (!measured.empty()) {
    std::uint64_t total = 0;
    metrics.min_gamma = std::numeric_limits<std::uint64_t>::max();
    for (ChannelId c : measured) {
      total += loads[c];
      metrics.max_gamma = std::max(metrics.max_gamma, loads[c]);
      metrics.min_gamma = std::min(metrics.min_gamma, loads[c]);
    }
    metrics.avg_gamma = static_cast<double>(total) / static_cast<double>(measured.size());
    double fourth_moment = 0;
    for (ChannelId c : measured) {
      const double deviation = metrics.avg_gamma - static_cast<double>(loads[c]);
      fourth_moment += deviation * deviation * deviation * deviation;
    }
    metrics.sigma4 = std::pow(fourth_moment / static_cast<double>(measured.size()), 0.25);
  }

  const Torus& torus = network.torus();
  RouteLengths counted;
  if (!lengths) {
    const std::size_t n = table.size();
    for (std::size_t s = 0; s < n; ++s)
      for (std::size_t d = 0; d < n; ++d) {
        if (!table.has_route(s, d)) continue;
        const std::size_t length = table.hop_count(s, d);
        if (length > static_cast<std::size_t>(torus.distance(table.nodes()[s], table.nodes()[d])))
          ++counted.non_minimal;
        ++counted.routes;
        counted.hops += length;
        counted.max_hops = std::max(counted.max_hops, static_cast<int>(length));
      }
    lengths = &counted;
  }
  if (lengths->non_minimal) metrics.bound_for_minimal_routing = false;
  metrics.max_hops = lengths->max_hops;
  if (lengths->routes)
    metrics.avg_hops = static_cast<double>(lengths->hops) / static_cast<double>(lengths->routes);

  auto terms = dimension_bound_terms(network, table.nodes());
  // The per-dimension bound holds for minimal routings only: a detour around
  // a failure may carry a dimension's hops on channels that lie on no minimal
  // path (4 Desmos nodes around a failed +X cable: max gamma 3, "bound" 4).
  // Every route still makes at least its ring distance of hops in each
  // dimension, so over every live channel of the dimension it bounds any
  // routing.
  if (!metrics.bound_for_minimal_routing) {
    for (DimensionBoundTerms& term : terms) term.channels = 0;
    for (ChannelId c = 0; c < torus.channel_slots(); ++c)
      if (network.channel_alive(c) && terms[Torus::channel_direction(c).dim()].hops > 0)
        ++terms[Torus::channel_direction(c).dim()].channels;
  }
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (terms[dim].channels > 0)
      metrics.dim_bound[dim] = static_cast<double>(terms[dim].hops) / static_cast<double>(terms[dim].channels);
  metrics.lower_bound = integer_lower_bound(terms);
  return metrics;
}

}  // namespace angara
