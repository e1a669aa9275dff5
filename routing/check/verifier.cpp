// The independent verifier.  It reads only the torus, the failures and the
// table: no generator and no routing graph, so a generator bug cannot hide
// behind a shared helper.  Rules from doc/model.md ("Routing rules",
// "Deadlock rule").
#include "routing/check/verifier.hpp"

#include "routing/check/adaptive_escape.hpp"

#include "angara/direction_order_loads.hpp"

#include "routing/check/components.hpp"
#include "routing/common/parallel.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <cstdlib>
#include <stdexcept>

namespace angara {

const char* rule_name(Rule rule) {
  switch (rule) {
    case Rule::MissingRoute: return "missing-route";
    case Rule::DeadNode: return "dead-node";
    case Rule::DeadChannel: return "dead-channel";
    case Rule::WrongDestination: return "wrong-destination";
    case Rule::NotEncodable: return "not-encodable";
    case Rule::Deadlock: return "deadlock";
    case Rule::BadLayer: return "bad-layer";
    case Rule::UnsafeEscape: return "unsafe-escape";
  }
  return "unknown";
}

namespace {

constexpr int kRuleCount = static_cast<int>(Rule::UnsafeEscape) + 1;

std::string describe_route(const Torus& torus, NodeId src, NodeId dst, const Route& route) {
  return "route " + torus.format_coord(src) + " -> " + torus.format_coord(dst) + " (" + route.to_string() + ")";
}

std::string channel_name(const Torus& torus, ChannelId c) {
  return torus.format_coord(Torus::channel_node(c)) + " " + Torus::channel_direction(c).token();
}

// Counts every violation and keeps the first message of each rule.  Messages
// are built lazily: a broken table can have thousands of violations.
class ViolationLog {
 public:
  template <class MakeMessage>
  void add(Rule rule, MakeMessage make_message, std::size_t count = 1) {
    count_ += count;
    auto& example = examples_[static_cast<int>(rule)];
    if (!example) example = make_message();
  }
  // Appends another log's violations found later in the verifier's order:
  // its examples count only for rules without one yet.
  void merge(ViolationLog&& later) {
    count_ += later.count_;
    for (int r = 0; r < kRuleCount; ++r)
      if (!examples_[r]) examples_[r] = std::move(later.examples_[r]);
  }
  std::size_t count() const { return count_; }
  void fill(VerifyReport& report) const {
    report.violation_count = count_;
    for (int r = 0; r < kRuleCount; ++r)
      if (examples_[r]) report.violations.push_back({static_cast<Rule>(r), *examples_[r]});
  }

 private:
  std::size_t count_ = 0;
  std::array<std::optional<std::string>, kRuleCount> examples_;
};

struct LayerDeadlocks {
  std::size_t cyclic_components = 0;  // strongly connected components holding a turn
  std::string example;                // names the first such turn and a route using it
};

// Calls visit(src_index, dst_index, src_node, route) for every route of `layer`.
// Decodes every route: only for the example of a deadlock.
template <class Visit>
void for_each_layer_route(const Torus& torus, const RouteTable& table, int layer, Visit visit) {
  const std::vector<NodeId>& nodes = table.nodes();
  for (std::size_t s = 0; s < nodes.size(); ++s) {
    if (nodes[s] >= torus.node_count()) continue;
    for (std::size_t d = 0; d < nodes.size(); ++d)
      if (table.has_route(s, d) && table.layer(s, d) == layer) visit(s, d, nodes[s], table.route(s, d));
  }
}

// ---------------------------------------------------------------------------
// Walking routes run by run.  A route is a few runs of equal hops (at most
// ten for an Angara route); a run of k hops in direction D is a straight arc
// on one ring of dimension D, so its channels form an interval of positions
// on that ring.  Loads and the ring-step dependencies of a run are added to
// difference arrays per ring in O(1), and one prefix pass over every ring
// turns them into the exact per-channel figures.  Liveness is checked hop by
// hop only on rings that hold a failed channel or router; on the others no
// hop can break a rule.  So every route is walked completely, at the cost of
// its runs rather than its hops.

// One run of a route: `count` hops in `direction`.
struct Run {
  Direction direction;
  int count = 0;
};

// Coordinates of every node and the clean rings of every direction.
class RingGeometry {
 public:
  explicit RingGeometry(const Network& network) : torus_(network.torus()) {
    const Torus& torus = network.torus();
    NodeId stride = 1;
    for (int dim = 0; dim < kMaxDims; ++dim) {
      stride_[dim] = stride;
      stride *= static_cast<NodeId>(torus.size(dim));
    }
    coords_.resize(std::size_t(torus.node_count()) * kMaxDims);
    for (NodeId node = 0; node < torus.node_count(); ++node) {
      const Coord c = torus.coord(node);
      for (int dim = 0; dim < kMaxDims; ++dim) coords_[std::size_t(node) * kMaxDims + dim] = static_cast<std::uint16_t>(c[dim]);
    }
    // A ring direction is clean when all its channels and routers are alive.
    clean_.assign(torus.channel_slots(), 1);
    for (NodeId node = 0; node < torus.node_count(); ++node)
      for (int rank = 0; rank < kDirectionCount; ++rank) {
        const Direction d(rank);
        if (!torus.direction_present(d)) continue;
        if (!network.node_alive(node) || !network.channel_alive(node, d))
          clean_[Torus::channel(ring_base(node, d.dim()), d)] = 0;
        if (!network.node_alive(node))  // both senses of every ring through it
          clean_[Torus::channel(ring_base(node, d.dim()), d.opposite())] = 0;
      }
    all_clean_ = std::all_of(clean_.begin(), clean_.end(), [](unsigned char c) { return c != 0; });
  }

  int coord(NodeId node, int dim) const { return coords_[std::size_t(node) * kMaxDims + dim]; }
  // The node of the ring of dimension `dim` through `node` at coordinate 0.
  NodeId ring_base(NodeId node, int dim) const { return node - static_cast<NodeId>(coord(node, dim)) * stride_[dim]; }
  // No failed channel or router anywhere.
  bool all_clean() const { return all_clean_; }
  bool clean(NodeId node, Direction d) const { return clean_[Torus::channel(ring_base(node, d.dim()), d)] != 0; }
  // x mod size, without a division in the common case.
  static int wrap(int x, int size) {
    if (x >= 0 && x < size) return x;
    if (x >= size && x < 2 * size) return x - size;
    if (x < 0 && x >= -size) return x + size;
    return (x % size + size) % size;
  }
  // The node at `position` on the ring of `dim` based at `base`.
  NodeId on_ring(NodeId base, int dim, int position) const { return base + static_cast<NodeId>(position) * stride_[dim]; }
  int distance(NodeId a, NodeId b) const {
    int total = 0;
    for (int dim = 0; dim < kMaxDims; ++dim) {
      const int diff = std::abs(coord(a, dim) - coord(b, dim));
      total += std::min(diff, torus_.size(dim) - diff);
    }
    return total;
  }
  // Adds `weight` to `diff` for the channels of direction d at ring
  // positions lo, lo+1, ..., lo+length-1 (mod size) of the ring based at `base`.
  void add_interval(std::vector<std::int64_t>& diff, NodeId base, Direction d, int lo, int length,
                    std::int64_t weight = 1) const {
    const int size = torus_.size(d.dim());
    const NodeId stride = stride_[d.dim()];
    const auto at = [&](int position) { return Torus::channel(base + static_cast<NodeId>(position) * stride, d); };
    int rest = length;
    if (length >= size) {
      diff[at(0)] += weight * (length / size);  // whole laps
      rest = length % size;
    }
    if (rest == 0) return;
    diff[at(lo)] += weight;
    const int end = lo + rest;
    if (end < size) {
      diff[at(end)] -= weight;
    } else if (end > size) {
      diff[at(0)] += weight;
      diff[at(end - size)] -= weight;
    }
  }
  // Where a run of `count` hops in direction d from `at` lies on its ring.
  struct RunPlace {
    NodeId base;     // the ring's node at position 0
    int lowest;      // the lowest position of its channels (mod size)
    ChannelId last;  // its last hop's channel
    NodeId next;     // the node it ends at
  };
  RunPlace place_run(NodeId at, Direction d, int count) const {
    // The run's channels are the ring positions c, c+1, ..., c+count-1 (+D)
    // or c-count+1, ..., c (-D).
    const int dim = d.dim(), size = torus_.size(dim);
    RunPlace place;
    place.base = ring_base(at, dim);
    const int c = coord(at, dim);
    place.lowest = d.positive() ? c : wrap(c - count + 1, size);
    const int last = d.positive() ? wrap(c + count - 1, size) : place.lowest;
    place.last = Torus::channel(on_ring(place.base, dim, last), d);
    place.next = on_ring(place.base, dim, wrap(d.positive() ? last + 1 : last - 1, size));
    return place;
  }
  // The node at the coordinates of `a` plus (minus) those of `b`, mod the sizes.
  NodeId shifted(NodeId a, NodeId b, bool subtract) const {
    NodeId node = 0;
    for (int dim = 0; dim < kMaxDims; ++dim) {
      const int size = torus_.size(dim);
      const int c = subtract ? coord(a, dim) - coord(b, dim) : coord(a, dim) + coord(b, dim);
      node += static_cast<NodeId>(wrap(c, size)) * stride_[dim];
    }
    return node;
  }
  // Turns the difference arrays into per-channel values, ring by ring.
  template <class Store>
  void prefix_sums(const std::vector<std::int64_t>& diff, Store store) const {
    for (NodeId node = 0; node < torus_.node_count(); ++node)
      for (int dim = 0; dim < kMaxDims; ++dim) {
        if (coord(node, dim) != 0) continue;  // absent dimensions too: a route may use their slots
        for (int negative = 0; negative <= 1; ++negative) {
          const Direction d = Direction::make(dim, negative != 0);
          std::int64_t running = 0;
          for (int position = 0; position < torus_.size(dim); ++position) {
            const ChannelId c = Torus::channel(node + static_cast<NodeId>(position) * stride_[dim], d);
            running += diff[c];
            store(c, running);
          }
        }
      }
  }

 private:
  const Torus& torus_;
  std::array<NodeId, kMaxDims> stride_{};
  std::vector<std::uint16_t> coords_;
  std::vector<unsigned char> clean_;  // by the channel slot of the ring's base node
  bool all_clean_ = true;
};

// DOR + direction bit over runs, with the first and/or last hop left out.
bool runs_dor(const std::vector<Run>& runs, bool skip_first, bool skip_last) {
  unsigned used = 0;
  int previous = -1;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const int count = runs[i].count - (skip_first && i == 0 ? 1 : 0) - (skip_last && i + 1 == runs.size() ? 1 : 0);
    if (count <= 0) continue;
    const Direction d = runs[i].direction;
    if (d.rank() < previous || (used >> d.opposite().rank()) & 1u) return false;
    used |= 1u << d.rank();
    previous = d.rank();
  }
  return true;
}

// is_angara_encodable() over runs: [FS] DOR+direction-bit [LS].
bool runs_encodable(const std::vector<Run>& runs, std::size_t hops) {
  if (runs_dor(runs, false, false)) return true;
  const bool fs = hops >= 1 && runs.front().direction.positive();
  const bool ls = hops >= 1 && runs.back().direction.negative();
  return (fs && runs_dor(runs, true, false)) || (ls && runs_dor(runs, false, true)) ||
         (fs && ls && hops >= 2 && runs_dor(runs, true, true));
}

struct RunEnds {
  std::uint32_t count = 0;     // runs whose last hop is this channel
  std::uint8_t successors = 0; // directions taken after them (turns and run joins)
};

// What one thread gathers over its sources; merged in source order.
struct PartialCheck {
  ViolationLog log;
  std::size_t routes = 0, non_minimal = 0, fs_ls_routes = 0, walked = 0;
  RouteLengths lengths;
  // Per layer, by channel slot: the loads as ring difference arrays, and
  // the runs ending on the channel with the directions taken after them.
  // A channel's ring-step dependencies (on to the same direction) number its
  // load minus the runs ending on it.
  std::vector<std::vector<std::int64_t>> load_diff;
  std::vector<std::vector<RunEnds>> ends;
};

std::string allowed_layers(int max_virtual_channels) {
  if (max_virtual_channels <= 0) return "no virtual channel is allowed";
  if (max_virtual_channels == 1) return "only virtual channel 0 is allowed";
  return "only virtual channels 0 to " + std::to_string(max_virtual_channels - 1) + " are allowed";
}

// The nodes a row check needs to know about.
struct Allocation {
  std::vector<unsigned char> inside, walkable;
};

// One route, run by run from `src` (inside the torus): its loads and
// channel dependencies always; with `checks` (destination inside the torus)
// its layer, encodability, minimality and, when both ends are alive, its walk
// over live channels and routers to the destination.
void check_route(const Network& network, const RingGeometry& rings, const RouteTable& table,
                 const VerifyOptions& options, std::size_t s, std::size_t d, const std::vector<Run>& runs,
                 std::size_t hops, std::uint8_t layer, bool checks, bool walkable, PartialCheck& part) {
  const Torus& torus = network.torus();
  const NodeId src = table.nodes()[s], dst = table.nodes()[d];
  const auto described = [&] { return describe_route(torus, src, dst, table.route(s, d)); };
  std::vector<std::int64_t>& load_diff = part.load_diff[layer];
  std::vector<RunEnds>& ends = part.ends[layer];
  bool live = checks && walkable;  // still to be checked hop by hop
  NodeId at = src;
  std::size_t hop_index = 0;
  ChannelId previous = 0;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const Direction direction = runs[r].direction;
    const int count = runs[r].count, dim = direction.dim();
    if (r) ends[previous].successors |= static_cast<std::uint8_t>(1u << direction.rank());
    if (live) {
      if (!torus.direction_present(direction)) {
        part.log.add(Rule::DeadChannel, [&] {
          return described() + " uses channel " + torus.format_coord(at) + " " + direction.token() +
                 " of the absent dimension " + dimension_letter(dim) + " at hop " + std::to_string(hop_index + 1);
        });
        live = false;
      } else if (!rings.all_clean() && !rings.clean(at, direction)) {  // a failed channel or router on this ring
        NodeId here = at;
        for (int k = 0; k < count && live; ++k) {
          const auto hop_number = [&] { return std::to_string(hop_index + static_cast<std::size_t>(k) + 1); };
          if (!torus.cabled(here, direction)) {  // single cabling: uncabled ports make the ring unclean
            part.log.add(Rule::DeadChannel, [&] {
              return described() + " leaves through a port without a cable at hop " + hop_number() + ": " +
                     torus.missing_cable_text(here, direction);
            });
            live = false;
            break;
          }
          const NodeId next = torus.neighbor(here, direction);
          if (!network.node_alive(next)) {
            part.log.add(Rule::DeadNode, [&] {
              return described() + " passes through failed node " + torus.format_coord(next) + " at hop " +
                     hop_number();
            });
            live = false;
          } else if (!network.channel_alive(here, direction)) {
            part.log.add(Rule::DeadChannel, [&] {
              return described() + " uses failed channel " + torus.format_coord(here) + " " + direction.token() +
                     " at hop " + hop_number();
            });
            live = false;
          }
          here = next;
        }
      }
    }
    const RingGeometry::RunPlace place = rings.place_run(at, direction, count);
    rings.add_interval(load_diff, place.base, direction, place.lowest, count);
    previous = place.last;
    ++ends[previous].count;
    at = place.next;
    hop_index += static_cast<std::size_t>(count);
  }
  if (!checks) return;
  if (layer >= options.max_virtual_channels)
    part.log.add(Rule::BadLayer, [&] {
      return described() + " uses virtual channel " + std::to_string(layer) + ", but " +
             allowed_layers(options.max_virtual_channels);
    });
  if (!runs_dor(runs, false, false)) {  // the cheap test first: most routes are plain DOR
    if (runs_encodable(runs, hops))
      ++part.fs_ls_routes;
    else if (options.rules == RuleSet::angara)  // general: any path over live channels
      part.log.add(Rule::NotEncodable,
                   [&] { return described() + " is not Angara-encodable as [FS] DOR+direction-bit [LS]"; });
  }
  if (hops > static_cast<std::size_t>(rings.distance(src, dst))) ++part.non_minimal;
  if (live && at != dst)
    part.log.add(Rule::WrongDestination, [&] { return described() + " ends at " + torus.format_coord(at); });
}

// The pair (s, d), s != d: its route's loads and dependencies (from a
// source inside the torus), and with `checks` every rule.  `runs` is scratch.
void check_pair(const Network& network, const RingGeometry& rings, const RouteTable& table,
                const VerifyOptions& options, const Allocation& allocation, bool checks, std::size_t s,
                std::size_t d, std::vector<Run>& runs, PartialCheck& part) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = table.nodes();
  ++part.walked;
  if (!table.has_route(s, d)) {
    if (checks)
      part.log.add(Rule::MissingRoute, [&] {
        const auto name = [&](NodeId node) {
          return node < torus.node_count() ? torus.format_coord(node) : "id " + std::to_string(node);
        };
        return "no route from " + name(nodes[s]) + " to " + name(nodes[d]);
      });
    return;
  }
  ++part.routes;
  runs.clear();
  std::size_t hops = 0;
  table.for_each_run(s, d, [&](Direction direction, int count) {
    // Field by field: a Run built whole and copied in is two narrow
    // stores read back as one wide load, which the store buffer cannot
    // forward (a sixth of the verifier's time on 8x8x8x8).
    Run& run = runs.emplace_back();
    run.direction = direction;
    run.count = count;
    hops += static_cast<std::size_t>(count);
  });
  part.lengths.hops += hops;
  part.lengths.max_hops = std::max(part.lengths.max_hops, static_cast<int>(hops));
  const std::uint8_t layer = table.layer(s, d);
  if (layer >= part.load_diff.size()) {  // the first route of a new layer
    part.load_diff.resize(layer + 1u, std::vector<std::int64_t>(torus.channel_slots(), 0));
    part.ends.resize(layer + 1u, std::vector<RunEnds>(torus.channel_slots()));
  }
  if (!allocation.inside[s]) return;
  check_route(network, rings, table, options, s, d, runs, hops, layer, checks && allocation.inside[d],
              allocation.walkable[s] && allocation.walkable[d], part);
}

// Sources [begin, end): loads and dependencies of every route (from a
// source inside the torus), and with `checks` every rule of every route.
void check_rows(const Network& network, const RingGeometry& rings, const RouteTable& table,
                const VerifyOptions& options, const Allocation& allocation, bool checks, std::size_t begin,
                std::size_t end, PartialCheck& part) {
  const std::size_t n = table.size();
  std::vector<Run> runs;
  runs.reserve(64);
  for (std::size_t s = begin; s < end; ++s)
    for (std::size_t d = 0; d < n; ++d)
      if (s != d) check_pair(network, rings, table, options, allocation, checks, s, d, runs, part);
}

// ---------------------------------------------------------------------------
// A box: an allocation that is, per dimension, a whole ring of the machine
// or a contiguous arc of one (a block of a larger torus, or every live
// router of the machine).  Most of its table is one route per key, the
// displacement from source to destination (signed along an arc, modulo the
// ring along a ring) and the parity of the source's coordinate on each ring
// of even size (where ties are split by it), translated: the route from s
// to its destination is the same hop sequence for most sources of a key.
// The verifier then checks each key's common route once (where it ends,
// that it stays on the box's arcs, its encodability, its length, its
// layer), counts the loads and dependencies of its translates from every
// source of the key at once (a box of sources: one count per coordinate
// along the arcs and per parity along the split rings), and walks one by
// one only the pairs whose route differs from it and those whose common
// route meets a failed router or channel (only on a whole machine: a
// smaller box must hold none).  The translates the table does not have
// (from or to a failed router, and the pairs walked) are taken off again,
// walked with weight -1.  Same figures and violations as walking every
// route, in a comparison a pair plus the walks of the few routes that
// differ.

// On a box of fewer routers every route is walked: the saving is small.
constexpr std::size_t kMinTranslateNodes = 256;

// A node's index in the allocation where it has none.
constexpr std::uint32_t kNone = 0xFFFFFFFFu;

class Box {
 public:
  // The box the allocation fills, or nothing: not a box, a failed router or
  // channel between two of its routers (but on a whole machine), a router
  // not walkable, single cabling, or too few nodes for the saving.
  static std::optional<Box> of(const Network& network, const RingGeometry& rings, const RouteTable& table,
                               const Allocation& allocation);

  bool whole() const { return whole_; }
  std::size_t keys() const { return keys_; }
  std::size_t classes() const { return classes_; }
  std::size_t cells() const { return padded_cells_; }
  bool arc(int dim) const { return !ring_[dim]; }
  int extent(int dim) const { return extent_[dim]; }
  // The node's coordinate in the box (-1 outside).
  int local(NodeId node, int dim) const { return local_coord(dim, rings_->coord(node, dim)); }
  int local_coord(int dim, int coord) const { return local_[dim][static_cast<std::size_t>(coord)]; }
  // The node at the box's coordinates `at`.
  NodeId node_at(const Coord& at) const {
    NodeId node = 0;
    for (int dim = 0; dim < kMaxDims; ++dim)
      node += static_cast<NodeId>((origin_[dim] + at[dim]) % size_[dim]) * machine_stride_[dim];
    return node;
  }
  // A key's displacement per dimension and the parity class of its sources.
  Coord displacement(std::size_t key) const {
    Coord delta{};
    for (int dim = 0; dim < kMaxDims; ++dim) {
      const int digit = static_cast<int>(key / key_stride_[dim] % radix_[dim]);
      delta[dim] = ring_[dim] ? digit : digit - (extent_[dim] - 1);
    }
    return delta;
  }
  std::size_t class_of_key(std::size_t key) const { return key % classes_; }
  // The parity along each split ring of a box coordinate, as a class.
  std::size_t class_of(const Coord& at) const {
    std::size_t cls = 0;
    for (int dim = 0; dim < kMaxDims; ++dim)
      if (split_[dim]) cls |= std::size_t(at[dim] & 1) << class_bit_[dim];
    return cls;
  }
  // The class of a router of the box, as a source.
  std::size_t class_of(NodeId node) const {
    Coord at{};
    for (int dim = 0; dim < kMaxDims; ++dim) at[dim] = local(node, dim);
    return class_of(at);
  }
  int class_parity(std::size_t cls, int dim) const { return static_cast<int>(cls >> class_bit_[dim]) & 1; }
  bool split(int dim) const { return split_[dim] != 0; }
  std::size_t key_stride(int dim) const { return key_stride_[dim]; }
  // The digit of dimension `dim` for box coordinates `from` -> `to`.
  std::size_t digit(int dim, int from, int to) const {
    const int e = extent_[dim];
    return static_cast<std::size_t>(ring_[dim] ? (to - from + e) % e : to - from + e - 1);
  }
  std::size_t key(NodeId source, NodeId destination) const {
    std::size_t key = class_of(source);
    for (int dim = 0; dim < kMaxDims; ++dim)
      key += digit(dim, local(source, dim), local(destination, dim)) * key_stride_[dim];
    return key;
  }
  // The translate grid: per dimension a cell per coordinate along an arc
  // (one more for the difference arrays), per parity along a split ring,
  // one along any other ring.
  int padded(int dim) const { return padded_[dim]; }
  std::size_t cell_stride(int dim) const { return cell_stride_[dim]; }
  // A router's cell (-1 outside the box).
  std::int32_t cell_of(NodeId node) const {
    std::size_t cell = 0;
    for (int dim = 0; dim < kMaxDims; ++dim) {
      const int at = local(node, dim);
      if (at < 0) return -1;
      cell += std::size_t(reduced(dim, at)) * cell_stride_[dim];
    }
    return static_cast<std::int32_t>(cell);
  }
  int reduced(int dim, int at) const { return ring_[dim] ? (split_[dim] ? (at & 1) : 0) : at; }

 private:
  const RingGeometry* rings_ = nullptr;
  std::array<int, kMaxDims> origin_{}, extent_{}, size_{}, class_bit_{}, padded_{};
  std::array<unsigned char, kMaxDims> ring_{}, split_{};
  std::array<std::size_t, kMaxDims> radix_{}, key_stride_{}, cell_stride_{};
  std::array<NodeId, kMaxDims> machine_stride_{};
  std::array<std::vector<int>, kMaxDims> local_;
  std::size_t classes_ = 1, keys_ = 1, padded_cells_ = 1;
  bool whole_ = false;
};

std::optional<Box> Box::of(const Network& network, const RingGeometry& rings, const RouteTable& table,
                           const Allocation& allocation) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = table.nodes();
  const std::size_t n = nodes.size();
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (torus.single_cabled(dim)) return std::nullopt;
  for (std::size_t i = 0; i < n; ++i)
    if (!allocation.walkable[i]) return std::nullopt;
  Box box;
  box.rings_ = &rings;
  std::array<std::vector<unsigned char>, kMaxDims> used;
  for (int dim = 0; dim < kMaxDims; ++dim) used[dim].assign(static_cast<std::size_t>(torus.size(dim)), 0);
  for (const NodeId node : nodes)
    for (int dim = 0; dim < kMaxDims; ++dim) used[dim][static_cast<std::size_t>(rings.coord(node, dim))] = 1;
  NodeId stride = 1;
  std::size_t volume = 1;
  bool whole = true;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    const int size = torus.size(dim);
    const int extent = static_cast<int>(std::count(used[dim].begin(), used[dim].end(), 1));
    int origin = 0;
    if (extent < size) {  // an arc: it starts after a coordinate it lacks
      while (used[dim][static_cast<std::size_t>(origin)]) ++origin;
      while (!used[dim][static_cast<std::size_t>(origin)]) origin = (origin + 1) % size;
      for (int k = 0; k < extent; ++k)
        if (!used[dim][static_cast<std::size_t>((origin + k) % size)]) return std::nullopt;
      whole = false;
    }
    box.origin_[dim] = origin;
    box.extent_[dim] = extent;
    box.size_[dim] = size;
    box.ring_[dim] = extent == size ? 1 : 0;
    box.split_[dim] = extent == size && size % 2 == 0 ? 1 : 0;
    box.machine_stride_[dim] = stride;
    stride *= static_cast<NodeId>(size);
    volume *= static_cast<std::size_t>(extent);
    box.local_[dim].assign(static_cast<std::size_t>(size), -1);
    for (int k = 0; k < extent; ++k) box.local_[dim][static_cast<std::size_t>((origin + k) % size)] = k;
  }
  box.whole_ = whole;
  if (volume < kMinTranslateNodes) return std::nullopt;
  if (whole) {  // every live router
    std::size_t alive = 0;
    for (NodeId node = 0; node < torus.node_count(); ++node) alive += network.node_alive(node) ? 1 : 0;
    if (alive != n) return std::nullopt;
  } else {  // every router of the box, and every channel between two of them, alive
    if (volume != n) return std::nullopt;
    for (const NodeId node : nodes)
      for (int rank = 0; rank < kDirectionCount; ++rank) {
        const Direction d(rank);
        if (!torus.direction_present(d)) continue;
        if (box.local(torus.neighbor(node, d), d.dim()) < 0) continue;  // leaves the arc
        if (!network.channel_alive(node, d)) return std::nullopt;
      }
  }
  int bit = 0;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (box.split_[dim]) box.class_bit_[dim] = bit++;
  box.classes_ = std::size_t(1) << bit;
  std::size_t key_stride = box.classes_, cell_stride = 1;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    const int e = box.extent_[dim];
    box.radix_[dim] = static_cast<std::size_t>(box.ring_[dim] ? e : 2 * e - 1);
    box.key_stride_[dim] = key_stride;
    key_stride *= box.radix_[dim];
    const int cells = box.ring_[dim] ? (box.split_[dim] ? 2 : 1) : e;
    box.padded_[dim] = cells + (box.ring_[dim] || e == 1 ? 0 : 1);
    box.cell_stride_[dim] = cell_stride;
    cell_stride *= static_cast<std::size_t>(box.padded_[dim]);
  }
  box.keys_ = key_stride;
  box.padded_cells_ = cell_stride;
  return box;
}

// The translates' share of layer 0 on the box's grid of cells (Box::cell_of),
// and the corrections by channel slot.
struct TranslateCounts {
  std::vector<std::int32_t> cell_of;                  // by router
  std::size_t cells = 0;
  std::vector<std::int64_t> load, ends;               // by rank * cells + cell
  std::vector<std::int64_t> turns;                    // by (rank * kDirectionCount + next rank) * cells + cell
  std::vector<std::int64_t> end_count;                // by channel slot
  std::vector<std::int64_t> turn_count;               // by channel slot * kDirectionCount + next rank
  // A scattered set's direction-order routes (walk_scattered_dor): the
  // loads by channel slot, no cells.
  std::vector<std::int64_t> load_count;
  std::int64_t load_at(int rank, std::int32_t cell) const {
    return cell < 0 ? 0 : load[std::size_t(rank) * cells + std::size_t(cell)];
  }
  // Takes a route counted here (its runs from `source`) off again: its
  // loads into `load_diff` (layer 0's difference arrays) with weight -1,
  // its run ends and turns off the corrections.
  void take_off(const RingGeometry& rings, std::vector<std::int64_t>& load_diff, NodeId source, const Run* runs,
                std::size_t run_count) {
    NodeId at = source;
    ChannelId previous = 0;
    for (std::size_t r = 0; r < run_count; ++r) {
      const Run& run = runs[r];
      const RingGeometry::RunPlace place = rings.place_run(at, run.direction, run.count);
      rings.add_interval(load_diff, place.base, run.direction, place.lowest, run.count, -1);
      if (r) --turn_count[std::size_t(previous) * kDirectionCount + run.direction.rank()];
      --end_count[place.last];
      previous = place.last;
      at = place.next;
    }
  }
  std::int64_t ends_at(int rank, std::int32_t cell) const {
    return cell < 0 ? 0 : ends[std::size_t(rank) * cells + std::size_t(cell)];
  }
  std::int64_t turns_at(int rank, int next, std::int32_t cell) const {
    return cell < 0 ? 0 : turns[(std::size_t(rank) * kDirectionCount + std::size_t(next)) * cells + std::size_t(cell)];
  }
};

// The common routes of the keys and how each was checked.
struct CommonRoutes {
  std::vector<std::uint32_t> word;               // 0: none (the zero displacement)
  std::vector<std::uint32_t> first_run, run_count;
  std::vector<Run> runs;
  std::vector<std::uint32_t> hops;
  std::vector<unsigned char> minimal, fs_ls;
};

// The keys from one source to every destination, built dimension by
// dimension (the pass over every pair makes no division).
class KeysFrom {
 public:
  KeysFrom(const Box& box, const Torus& torus) : box_(box), torus_(torus) {
    NodeId stride = 1;
    for (int dim = 0; dim < kMaxDims; ++dim) {
      stride_[dim] = stride;
      stride *= static_cast<NodeId>(torus.size(dim));
      for (int c = 0; c < torus.size(dim); ++c)
        if (box.local_coord(dim, c) >= 0) coords_[dim].push_back(c);
    }
  }
  void from(NodeId source) {
    Coord at{};
    for (int dim = 0; dim < kMaxDims; ++dim) {
      at[dim] = box_.local(source, dim);
      const int size = torus_.size(dim);
      share_[dim].assign(static_cast<std::size_t>(size), 0);
      for (int to = 0; to < size; ++to) {
        const int local = box_.local_coord(dim, to);
        if (local >= 0) share_[dim][static_cast<std::size_t>(to)] = box_.digit(dim, at[dim], local) * box_.key_stride(dim);
      }
    }
    class_ = box_.class_of(at);
    source_line_ = source - static_cast<NodeId>(torus_.coord(source)[0]);
    // The pieces of a line: the X coordinates whose key parts rise by one
    // X step each (a ring's digits wrap once, an arc past the machine's
    // end starts again).
    pieces_.clear();
    const std::vector<int>& xs = coords_[0];
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const std::size_t share = share_[0][static_cast<std::size_t>(xs[i])];
      if (!pieces_.empty()) {
        Piece& last = pieces_.back();
        if (share == last.share + last.length * box_.key_stride(0)) {
          ++last.length;
          continue;
        }
      }
      pieces_.push_back(Piece{i, 1, share});
    }
  }
  // A line's run of X coordinates: positions [first, first + length) of
  // the box's X coordinates, the first's key part `share`.
  struct Piece {
    std::size_t first, length, share;
  };
  // Every allocated router of the box in allocation order, a line (the
  // routers that differ in X alone) at a time: line(d, key) with the first
  // router's allocation index and the key of the line's X coordinate 0
  // (its pieces add their share), for a line whose every router is
  // allocated (`holed`, by node id / X size: not so) and that does not hold
  // the source; visit(d, key) for every router of the others (the source
  // included), as each_destination().
  template <class Line, class Visit>
  void each_line(const std::vector<std::uint32_t>& index_of, const std::vector<unsigned char>& holed, Line line,
                 Visit visit) const {
    const NodeId size_x = static_cast<NodeId>(torus_.size(0));
    const std::size_t width = coords_[0].size();
    const std::size_t* const share_x = share_[0].data();
    std::size_t d = 0;
    each_line_start([&](std::size_t key_y, NodeId node_y) {
      if (node_y != source_line_ && !holed[node_y / size_x]) {
        line(d, key_y);
        d += width;
        return;
      }
      for (const int x : coords_[0]) {
        if (index_of[node_y + static_cast<NodeId>(x)] == kNone) continue;
        visit(d++, key_y + share_x[x]);
      }
    });
  }
  const std::vector<Piece>& pieces() const { return pieces_; }
  // Every allocated router of the box in allocation order (ascending node
  // id), with its key from the source of from(): visit(d, key) for d = 0,
  // 1, ... (the source included).  The key is built dimension by dimension
  // as the loops go, so a pair costs one look-up.  `skip` (a whole machine
  // with failed routers): the routers of the box that `index_of` lacks.
  template <class Visit>
  void each_destination(const std::vector<std::uint32_t>& index_of, bool skip, Visit visit) const {
    const std::size_t* const share_x = share_[0].data();
    std::size_t d = 0;
    each_line_start([&](std::size_t key_y, NodeId node_y) {
      for (const int x : coords_[0]) {
        if (skip && index_of[node_y + static_cast<NodeId>(x)] == kNone) continue;
        visit(d++, key_y + share_x[x]);
      }
    });
  }

 private:
  // at_line(key, node) for every line of the box (the routers that differ
  // in X alone) in allocation order: the key and node id its X coordinate
  // 0 would have.  The key is built dimension by dimension as the loops go.
  template <class AtLine>
  void each_line_start(AtLine at_line) const {
    for (const int w : coords_[3]) {
      const std::size_t key_w = class_ + share_[3][static_cast<std::size_t>(w)];
      const NodeId node_w = static_cast<NodeId>(w) * stride_[3];
      for (const int z : coords_[2]) {
        const std::size_t key_z = key_w + share_[2][static_cast<std::size_t>(z)];
        const NodeId node_z = node_w + static_cast<NodeId>(z) * stride_[2];
        for (const int y : coords_[1])
          at_line(key_z + share_[1][static_cast<std::size_t>(y)], node_z + static_cast<NodeId>(y) * stride_[1]);
      }
    }
  }

  const Box& box_;
  const Torus& torus_;
  std::size_t class_ = 0;
  NodeId source_line_ = 0;  // the node of the source's line at X coordinate 0
  std::vector<Piece> pieces_;
  std::array<std::vector<std::size_t>, kMaxDims> share_;  // by destination coordinate: its part of the key
  std::array<std::vector<int>, kMaxDims> coords_;         // the box's coordinates, ascending
  std::array<NodeId, kMaxDims> stride_{};
};

// The table's word of a pair; a route in the overflow store reads as
// kOverflowWord, which no compact word equals (RouteTable keeps X's field
// 32 for overflow words), so it is never taken for a common route.
constexpr std::uint32_t kOverflowWord = 32;
inline std::uint32_t word_of(const RouteTable& table, std::size_t s, std::size_t d) {
  const std::optional<PackedRoute> packed = table.packed_route(s, d);
  return packed ? packed->code : kOverflowWord;
}

std::optional<CommonRoutes> common_routes(const Network& network, const RouteTable& table, const VerifyOptions& options,
                                          bool checks, const Box& box, const std::vector<std::uint32_t>& index_of) {
  const Torus& torus = network.torus();
  const std::size_t keys = box.keys();
  CommonRoutes common;
  common.word.assign(keys, 0);
  common.first_run.assign(keys, 0);
  common.run_count.assign(keys, 0);
  common.hops.assign(keys, 0);
  common.minimal.assign(keys, 1);
  common.fs_ls.assign(keys, 0);
  for (std::size_t key = 0; key < keys; ++key) {
    const Coord delta = box.displacement(key);
    const std::size_t cls = box.class_of_key(key);
    if (std::all_of(delta.begin(), delta.end(), [](int x) { return x == 0; })) continue;
    // The word most of three sources spread over the key's sources store:
    // along each dimension the low end, the middle and the high end of its
    // range, in a different order per dimension (on a ring of 4 a class
    // has 2 coordinates: the three still differ).
    std::uint32_t words[3];
    std::size_t pair[3][2];
    int found = 0;
    for (int j = 0; j < 3; ++j) {
      Coord from{}, to{};
      for (int dim = 0; dim < kMaxDims; ++dim) {
        const int e = box.extent(dim);
        const int spread = (j + dim) % 3;
        if (box.arc(dim)) {
          const int lo = std::max(0, -delta[dim]), hi = e - 1 - std::max(0, delta[dim]);
          from[dim] = lo + (hi - lo) * spread / 2;
          to[dim] = from[dim] + delta[dim];
        } else {
          from[dim] = box.split(dim) ? box.class_parity(cls, dim) + 2 * ((e / 2 - 1) * spread / 2) : (e - 1) * spread / 2;
          to[dim] = (from[dim] + delta[dim]) % e;
        }
      }
      const std::uint32_t s = index_of[box.node_at(from)], d = index_of[box.node_at(to)];
      if (s == kNone || d == kNone) continue;
      const std::uint32_t word = word_of(table, s, d);
      if (word == kOverflowWord || word == 0) continue;  // an overflow or missing route is nobody's common route
      words[found] = word;
      pair[found][0] = s;
      pair[found][1] = d;
      ++found;
    }
    if (found == 0) return std::nullopt;
    int pick = 0;
    if (found == 3 && words[0] != words[1] && words[0] != words[2] && words[1] == words[2]) pick = 1;
    common.word[key] = words[pick];
    // Its runs as for_each_run gives them for a pair storing it.
    common.first_run[key] = static_cast<std::uint32_t>(common.runs.size());
    Coord position{};
    std::uint32_t hops = 0;
    bool usable = true;
    table.for_each_run(pair[pick][0], pair[pick][1], [&](Direction direction, int count) {
      Run& run = common.runs.emplace_back();
      run.direction = direction;
      run.count = count;
      if (count <= 0 || !torus.direction_present(direction)) usable = false;
      const int dim = direction.dim();
      const int step = direction.positive() ? count : -count;
      // Along an arc every hop goes the displacement's way, so every
      // translate stays inside the box.
      if (box.arc(dim) && (delta[dim] == 0 || (step > 0) != (delta[dim] > 0))) usable = false;
      position[dim] += step;
      hops += static_cast<std::uint32_t>(count);
    });
    common.run_count[key] = static_cast<std::uint32_t>(common.runs.size()) - common.first_run[key];
    int distance = 0;
    for (int dim = 0; dim < kMaxDims && usable; ++dim) {
      const int e = box.extent(dim), size = torus.size(dim);
      if (box.arc(dim)) {
        usable = position[dim] == delta[dim];
        distance += std::min(std::abs(delta[dim]), size - std::abs(delta[dim]));
      } else {
        usable = RingGeometry::wrap(position[dim], e) == delta[dim];
        distance += std::min(delta[dim], e - delta[dim]);
      }
    }
    // A common route that breaks a rule breaks it for most pairs: those
    // tables are walked route by route, which reports them as always.
    if (!usable) return std::nullopt;
    if (table.layer(pair[pick][0], pair[pick][1]) != 0 || options.max_virtual_channels < 1) return std::nullopt;
    const std::vector<Run> runs(common.runs.begin() + common.first_run[key], common.runs.end());
    if (!runs_dor(runs, false, false)) {
      if (runs_encodable(runs, hops))
        common.fs_ls[key] = 1;
      else if (checks && options.rules == RuleSet::angara)
        return std::nullopt;
    }
    common.hops[key] = hops;
    common.minimal[key] = hops <= static_cast<std::uint32_t>(distance) ? 1 : 0;
  }
  return common;
}

// The loads, run ends and turns of every translate of every common route,
// from every source of its key, on the box's grid of cells: a hop from the
// key's sources (a box of cells) loads once each router of the cells of that
// box shifted by the hop's offset (the translation maps the key's sources
// one to one onto them).  Difference arrays along the arcs, one pass of
// prefix sums after.
TranslateCounts count_translates(const Box& box, const Torus& torus, const CommonRoutes& common) {
  TranslateCounts counts;
  const std::size_t cells = box.cells();
  counts.cells = cells;
  counts.load.assign(kDirectionCount * cells, 0);
  counts.ends.assign(kDirectionCount * cells, 0);
  counts.turns.assign(kDirectionCount * kDirectionCount * cells, 0);
  std::array<int, kMaxDims> arcs{};
  int arc_count = 0;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (box.arc(dim) && box.extent(dim) > 1) arcs[arc_count++] = dim;
  // Adds `value` to the cells lo..hi (inclusive along the arcs; lo alone
  // along the rings) of `grid`, by its 2^arcs corners.
  const auto add_box = [&](std::int64_t* grid, const Coord& lo, const Coord& hi, std::int64_t value) {
    std::size_t base = 0;
    for (int dim = 0; dim < kMaxDims; ++dim) base += std::size_t(lo[dim]) * box.cell_stride(dim);
    for (unsigned corner = 0; corner < (1u << arc_count); ++corner) {
      std::size_t at = base;
      bool negative = false;
      for (int a = 0; a < arc_count; ++a)
        if ((corner >> a) & 1u) {
          const int dim = arcs[a];
          at += std::size_t(hi[dim] + 1 - lo[dim]) * box.cell_stride(dim);
          negative = !negative;
        }
      grid[at] += negative ? -value : value;
    }
  };
  for (std::size_t key = 0; key < common.word.size(); ++key) {
    if (common.run_count[key] == 0) continue;
    const Coord delta = box.displacement(key);
    const std::size_t cls = box.class_of_key(key);
    // The key's sources as cells, and the offset of the router a hop leaves.
    Coord lo{}, hi{}, offset{};
    for (int dim = 0; dim < kMaxDims; ++dim) {
      if (box.arc(dim)) {
        lo[dim] = std::max(0, -delta[dim]);
        hi[dim] = box.extent(dim) - 1 - std::max(0, delta[dim]);
      } else {
        lo[dim] = hi[dim] = box.split(dim) ? box.class_parity(cls, dim) : 0;
      }
    }
    const auto shifted = [&](Coord& from, Coord& to) {
      for (int dim = 0; dim < kMaxDims; ++dim) {
        if (box.arc(dim)) {
          from[dim] = lo[dim] + offset[dim];
          to[dim] = hi[dim] + offset[dim];
        } else {
          from[dim] = to[dim] = box.split(dim) ? (lo[dim] + offset[dim]) & 1 : 0;
        }
      }
    };
    Coord from{}, to{};
    const Run* const runs = common.runs.data() + common.first_run[key];
    for (std::uint32_t r = 0; r < common.run_count[key]; ++r) {
      const Direction direction = runs[r].direction;
      const int rank = direction.rank(), dim = direction.dim(), count = runs[r].count;
      const int step = direction.positive() ? 1 : -1;
      std::int64_t* load = counts.load.data() + std::size_t(rank) * cells;
      if (box.arc(dim)) {
        for (int k = 0; k < count; ++k) {
          shifted(from, to);
          add_box(load, from, to, 1);
          offset[dim] += step;
        }
      } else if (box.split(dim)) {  // the hops alternate between the two parities
        shifted(from, to);
        add_box(load, from, to, (count + 1) / 2);
        if (count > 1) {
          offset[dim] += step;
          shifted(from, to);
          add_box(load, from, to, count / 2);
          offset[dim] -= step;
        }
        offset[dim] += step * count;
      } else {
        shifted(from, to);
        add_box(load, from, to, count);
        offset[dim] += step * count;
      }
      offset[dim] -= step;  // the router the run's last hop leaves
      shifted(from, to);
      offset[dim] += step;
      add_box(counts.ends.data() + std::size_t(rank) * cells, from, to, 1);
      if (r + 1 < common.run_count[key]) {
        const int next = runs[r + 1].direction.rank();
        add_box(counts.turns.data() + (std::size_t(rank) * kDirectionCount + std::size_t(next)) * cells, from, to,
                1);
      }
    }
  }
  // Prefix sums along the arcs turn the corners into per-cell counts.
  const auto prefix = [&](std::int64_t* grid) {
    for (int a = 0; a < arc_count; ++a) {
      const int dim = arcs[a];
      const std::size_t stride = box.cell_stride(dim), span = stride * std::size_t(box.padded(dim));
      for (std::size_t cell = 0; cell < cells; ++cell)
        if (cell % span >= stride) grid[cell] += grid[cell - stride];
    }
  };
  for (std::size_t g = 0; g < counts.load.size(); g += cells) {
    prefix(counts.load.data() + g);
    prefix(counts.ends.data() + g);
  }
  for (std::size_t g = 0; g < counts.turns.size(); g += cells) prefix(counts.turns.data() + g);
  counts.cell_of.resize(torus.node_count());
  for (NodeId node = 0; node < torus.node_count(); ++node) counts.cell_of[node] = box.cell_of(node);
  counts.end_count.assign(torus.channel_slots(), 0);
  counts.turn_count.assign(torus.channel_slots() * kDirectionCount, 0);
  return counts;
}

// The pairs one part of a comparison pass leaves to walk: kept up to
// kKeptPerSlot a channel slot over all parts (the memory estimate's share,
// routing/memory.cpp); beyond that only counted, and the rows that hold any
// are compared again.
using Pair = std::pair<std::uint32_t, std::uint32_t>;
constexpr std::size_t kKeptPerSlot = 4;
class PairsToWalk {
 public:
  PairsToWalk(const Torus& torus, std::size_t parts) : keep_at_most_(kKeptPerSlot * torus.channel_slots() / parts + 1) {}
  void add(std::size_t s, std::size_t d) {
    ++count_;
    if (!all_kept_) return;
    if (kept_.size() < keep_at_most_) {
      kept_.emplace_back(static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(d));
    } else {
      all_kept_ = false;
      std::vector<Pair>().swap(kept_);
    }
  }
  std::size_t count() const { return count_; }
  bool all_kept() const { return all_kept_; }
  const std::vector<Pair>& kept() const { return kept_; }

 private:
  std::size_t keep_at_most_, count_ = 0;
  std::vector<Pair> kept_;
  bool all_kept_ = true;
};

std::optional<TranslateCounts> walk_translates(const Network& network, const RingGeometry& rings,
                                               const RouteTable& table, const VerifyOptions& options,
                                               const Allocation& allocation, bool checks, PartialCheck& part) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = table.nodes();
  const std::size_t n = nodes.size();
  const NodeId machine = torus.node_count();
  if (options.walk_every_route) return std::nullopt;
  const std::optional<Box> found_box = Box::of(network, rings, table, allocation);
  if (!found_box) return std::nullopt;
  const Box& box = *found_box;
  const std::size_t keys = box.keys();
  std::vector<std::uint32_t> index_of(machine, kNone);
  for (std::size_t i = 0; i < n; ++i) index_of[nodes[i]] = static_cast<std::uint32_t>(i);
  const std::optional<CommonRoutes> found = common_routes(network, table, options, checks, box, index_of);
  if (!found) return std::nullopt;
  const CommonRoutes& common = *found;
  const Run* const runs_of = common.runs.data();

  // Takes the translate of the key's common route from `source` off again.
  TranslateCounts counts;
  const auto take_off = [&](NodeId source, std::size_t key) {
    // part.load_diff[0]: check_pair may add layers
    counts.take_off(rings, part.load_diff[0], source, runs_of + common.first_run[key], common.run_count[key]);
  };

  // Each pair against its key's common route, sources split over the
  // threads: the pairs that keep it are counted by key, those that differ
  // only counted here and walked below.  When more than a quarter of the
  // pairs differ, walking every route is cheaper.
  // The pairs that differ are kept to walk (PairsToWalk).
  struct Compared {
    std::vector<std::uint32_t> uses;  // by key
    // The pieces that equal their common words, as a difference array over
    // the words by class (a piece's keys are consecutive there): two
    // updates a piece instead of one a pair.
    std::vector<std::int32_t> piece_uses;
    PairsToWalk differ;
  };
  std::vector<Compared> compared(parallel_parts(n), Compared{{}, {}, PairsToWalk(torus, parallel_parts(n))});
  std::vector<unsigned char> row_differs(n, 0);  // by source: some pair of its row differs
  const bool skip_unallocated = n != static_cast<std::size_t>(machine) && box.whole();
  // A line of routers (the same but for X) is compared a piece at a time
  // with the common words of its keys, which the X steps of a piece make
  // consecutive by class: the words by class, then key / classes.  A table
  // word equal to a common (compact) word is that route (an overflow
  // word's X field equals no compact word's); a piece that differs
  // anywhere is compared pair by pair.
  const std::size_t classes = box.classes(), per_class = keys / classes;
  std::vector<std::uint32_t> word_by_class(keys);
  for (std::size_t key = 0; key < keys; ++key) word_by_class[key % classes * per_class + key / classes] = common.word[key];
  const NodeId size_x = static_cast<NodeId>(torus.size(0));
  std::vector<unsigned char> holed(machine / size_x, 0);  // by node id / X size: a router of the line is not allocated
  if (skip_unallocated)
    for (NodeId node = 0; node < machine; ++node)
      if (index_of[node] == kNone) holed[node / size_x] = 1;
  run_parallel(n, [&](std::size_t p, std::size_t begin, std::size_t end) {
    Compared& mine = compared[p];
    mine.uses.assign(keys, 0);
    mine.piece_uses.assign(keys + 1, 0);
    KeysFrom key_of(box, torus);
    for (std::size_t s = begin; s < end; ++s) {
      key_of.from(nodes[s]);
      const std::size_t before = mine.differ.count();
      const auto pair = [&](std::size_t d, std::size_t key) {
        if (d == s) return;
        if (word_of(table, s, d) == common.word[key])
          ++mine.uses[key];
        else
          mine.differ.add(s, d);
      };
      const std::uint32_t* const row = table.row_words(s);
      key_of.each_line(
          index_of, holed,
          [&](std::size_t first, std::size_t key_line) {
            for (const KeysFrom::Piece& piece : key_of.pieces()) {
              const std::size_t key = key_line + piece.share;
              const std::size_t by_class = key % classes * per_class + key / classes;
              const std::uint32_t* const expected = word_by_class.data() + by_class;
              const std::uint32_t* const actual = row + first + piece.first;
              if (std::equal(actual, actual + piece.length, expected)) {
                ++mine.piece_uses[by_class];
                --mine.piece_uses[by_class + piece.length];
              } else {
                for (std::size_t k = 0; k < piece.length; ++k) pair(first + piece.first + k, key + k * classes);
              }
            }
          },
          pair);
      row_differs[s] = mine.differ.count() != before ? 1 : 0;
    }
  });
  std::vector<std::uint32_t> uses = std::move(compared[0].uses);
  std::vector<std::int32_t> piece_uses = std::move(compared[0].piece_uses);
  std::size_t differ = compared[0].differ.count();
  bool all_kept = compared[0].differ.all_kept();
  for (std::size_t p = 1; p < compared.size(); ++p) {
    for (std::size_t key = 0; key < keys; ++key) uses[key] += compared[p].uses[key];
    for (std::size_t i = 0; i <= keys; ++i) piece_uses[i] += compared[p].piece_uses[i];
    std::vector<std::uint32_t>().swap(compared[p].uses);
    std::vector<std::int32_t>().swap(compared[p].piece_uses);
    differ += compared[p].differ.count();
    all_kept = all_kept && compared[p].differ.all_kept();
  }
  std::int64_t running = 0;
  for (std::size_t i = 0; i < keys; ++i) {
    running += piece_uses[i];
    uses[i % per_class * classes + i / per_class] += static_cast<std::uint32_t>(running);
  }
  std::vector<std::int32_t>().swap(piece_uses);
  if (differ > n * (n - 1) / 4) return std::nullopt;
  counts = count_translates(box, torus, common);

  // Common routes that meet a failed router or channel, where the table has
  // them: walked too (each is a violation).  Only a whole machine holds
  // failures (Box::of).
  std::vector<NodeId> failed_nodes;
  std::vector<std::pair<NodeId, Direction>> failed_channels;
  if (box.whole())
    for (NodeId node = 0; node < machine; ++node) {
      if (!network.node_alive(node)) {
        failed_nodes.push_back(node);
        continue;
      }
      for (int rank = 0; rank < kDirectionCount; ++rank) {
        const Direction d(rank);
        if (torus.direction_present(d) && network.node_alive(torus.neighbor(node, d)) &&
            !network.channel_alive(node, d))
          failed_channels.emplace_back(node, d);
      }
    }
  // On a whole machine a key is a displacement t (a node's id) and a class.
  std::vector<Pair> touched;
  const auto meets = [&](NodeId source, std::size_t key) {
    if (box.class_of(source) != box.class_of_key(key)) return;  // another class's route
    const std::uint32_t s = index_of[source], d = index_of[rings.shifted(source, NodeId(key / classes), false)];
    if (s == kNone || d == kNone) return;  // not in the table
    if (word_of(table, s, d) != common.word[key]) return;  // differs: walked already
    touched.emplace_back(s, d);
  };
  // The source a failure puts on the route, failure - offset, is of the
  // key's class only where the parities of failure and offset along the
  // split (even) rings differ by it: that is tested first, on the offset's
  // coordinates kept along the walk.
  std::vector<std::size_t> failed_node_class, failed_channel_class;
  for (const NodeId failed : failed_nodes) failed_node_class.push_back(box.class_of(failed));
  for (const auto& failed : failed_channels) failed_channel_class.push_back(box.class_of(failed.first));
  if (!failed_nodes.empty() || !failed_channels.empty())
    for (std::size_t key = classes; key < keys; ++key) {
      const std::size_t key_class = box.class_of_key(key);
      Torus::Cursor at(torus, 0);  // the route from the origin: `at` is its offset from the source
      std::size_t at_class = box.class_of(at.coord());
      for (std::uint32_t r = 0; r < common.run_count[key]; ++r) {
        const Run& run = runs_of[common.first_run[key] + r];
        for (int k = 0; k < run.count; ++k) {
          for (std::size_t f = 0; f < failed_channels.size(); ++f)
            if (failed_channels[f].second == run.direction && (failed_channel_class[f] ^ at_class) == key_class)
              meets(rings.shifted(failed_channels[f].first, at.node(), true), key);
          at.step(run.direction);
          at_class = box.class_of(at.coord());
          for (std::size_t f = 0; f < failed_nodes.size(); ++f)
            if ((failed_node_class[f] ^ at_class) == key_class)
              meets(rings.shifted(failed_nodes[f], at.node(), true), key);
        }
      }
    }
  // A route may meet several failures: each pair once.
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  for (const auto& [s, d] : touched) --uses[box.key(nodes[s], nodes[d])];

  // Off again: the translates from and to failed routers, and those of the
  // pairs walked (which add their own routes).
  for (const NodeId failed : failed_nodes)
    for (NodeId t = 1; t < machine; ++t) {
      take_off(failed, std::size_t(t) * classes + box.class_of(failed));
      const NodeId source = rings.shifted(failed, t, true);
      if (network.node_alive(source)) take_off(source, std::size_t(t) * classes + box.class_of(source));
    }
  // The pairs that differ and those touched, in the order walking every
  // route takes them (the first example of each rule is the same).
  std::vector<Run> runs;
  runs.reserve(64);
  const auto walk = [&](std::size_t s, std::size_t d, std::size_t key) {
    take_off(nodes[s], key);
    check_pair(network, rings, table, options, allocation, checks, s, d, runs, part);
  };
  if (all_kept) {  // the kept pairs (each part's in source order, the parts in order) and the touched, merged
    auto next_touched = touched.begin();
    const auto walk_pair = [&](const Pair& pair) {
      walk(pair.first, pair.second, box.key(nodes[pair.first], nodes[pair.second]));
    };
    for (const Compared& mine : compared)
      for (const Pair& pair : mine.differ.kept()) {
        for (; next_touched != touched.end() && *next_touched < pair; ++next_touched) walk_pair(*next_touched);
        walk_pair(pair);
      }
    for (; next_touched != touched.end(); ++next_touched) walk_pair(*next_touched);
  } else {  // compared again, in the rows that hold any
    KeysFrom key_of(box, torus);
    auto next_touched = touched.begin();
    for (std::size_t s = 0; s < n; ++s) {
      if (!row_differs[s] && (next_touched == touched.end() || next_touched->first != s)) continue;
      key_of.from(nodes[s]);
      key_of.each_destination(index_of, skip_unallocated, [&](std::size_t d, std::size_t key) {
        if (d == s) return;
        const bool meets_failure = next_touched != touched.end() && *next_touched == Pair(s, d);
        if (meets_failure) ++next_touched;
        if (meets_failure || word_of(table, s, d) != common.word[key]) walk(s, d, key);
      });
    }
  }
  // The pairs that keep their common route.
  for (std::size_t key = 0; key < keys; ++key) {
    if (uses[key] == 0) continue;
    part.routes += uses[key];
    part.lengths.hops += std::uint64_t(uses[key]) * common.hops[key];
    part.lengths.max_hops = std::max(part.lengths.max_hops, static_cast<int>(common.hops[key]));
    if (!checks) continue;
    if (!common.minimal[key]) part.non_minimal += uses[key];
    if (common.fs_ls[key]) part.fs_ls_routes += uses[key];
  }
  return counts;
}

// ---------------------------------------------------------------------------
// A scattered set (no box).  The tables a job gets under a tight budget
// are mostly direction-order: per dimension the shorter way round, a ring
// tie the way the source's parity picks, so a pair's word is the sum of one
// field per dimension, each a function of the pair's two coordinates in that
// dimension.  The verifier compares each pair's word with that sum (a
// look-up per dimension) and walks only the pairs that differ, and those
// whose direction-order route meets a failed router or channel's tail (a
// mask of failures per dimension and pair of coordinates for the box of
// the route's arcs, then the route's runs in their order: on a random
// quarter of 16x16x8x8 with two failed routers the box holds 8% of the
// pairs, the routes 0.13%).  The loads, run ends and
// turns of the direction-order routes of every pair come from the
// allocation's counts (angara/direction_order_loads.hpp), in work that grows
// with the machine, not with the pairs; the walked pairs' direction-order
// routes are taken off again, as on a box.

// The direction-order ways the table follows and, per dimension, the word
// field of each way's run (by DirectionOrderWays::at).
struct DorFunction {
  DirectionOrderWays ways;
  std::array<std::vector<std::uint32_t>, kMaxDims> field;
};

// The single-run word of `count` hops in `direction`; 0 when not compact.
std::uint32_t run_word(Direction direction, int count) {
  Route route;
  route.hops.assign(static_cast<std::size_t>(count), direction);
  const std::optional<PackedRoute> packed = RouteTable::pack(route);
  return packed ? packed->code : 0;
}

// The direction-order function the table follows: the shorter way round,
// and per even ring and source parity the way most sampled ties take
// (dimension_order_ways with those ties).  Nothing when a word of the table
// is not the sum of its dimensions' fields (a ring too long for a compact
// run).
std::optional<DorFunction> dor_function_of(const Torus& torus, const RingGeometry& rings, const RouteTable& table) {
  const std::vector<NodeId>& nodes = table.nodes();
  RingTies ties;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    const int n = torus.size(dim);
    if (n % 2 != 0) continue;
    // A few pairs half the ring apart in `dim`, per source parity.
    for (int parity = 0; parity <= 1; ++parity) {
      int plus = 0, minus = 0, sources = 0;
      for (std::size_t s = 0; s < nodes.size() && plus + minus < 3 && sources < 64; ++s) {
        const int from = rings.coord(nodes[s], dim);
        if ((from & 1) != parity) continue;
        ++sources;
        const int to = (from + n / 2) % n;
        for (std::size_t d = 0; d < nodes.size(); ++d) {
          if (d == s || rings.coord(nodes[d], dim) != to) continue;
          table.for_each_run(s, d, [&](Direction direction, int count) {
            if (direction.dim() == dim && count == n / 2) ++(direction.positive() ? plus : minus);
          });
          break;
        }
      }
      ties.negative[static_cast<std::size_t>(dim)][static_cast<std::size_t>(parity)] = minus > plus;
    }
  }
  DorFunction dor{dimension_order_ways(torus, ties), {}};
  const DirectionOrderWays& ways = dor.ways;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    const int n = ways.size[dim];
    dor.field[dim].assign(std::size_t(n) * std::size_t(n), 0);
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        const std::size_t at = ways.at(dim, a, b);
        if (ways.sign[dim][at] == 0) continue;
        dor.field[dim][at] = run_word(Direction::make(dim, ways.sign[dim][at] < 0), ways.hops[dim][at]);
        if (dor.field[dim][at] == 0) return std::nullopt;
      }
  }
  // The word of a route over every dimension must be the sum of the fields.
  Route longest;
  std::uint32_t sum = 0;
  for (int negative = 0; negative <= 1; ++negative)
    for (int dim = 0; dim < kMaxDims; ++dim) {
      const int n = ways.size[dim];
      if (n < 2 || (dim % 2) != negative) continue;
      const int count = n / 2;
      longest.hops.insert(longest.hops.end(), static_cast<std::size_t>(count), Direction::make(dim, negative != 0));
      sum += run_word(Direction::make(dim, negative != 0), count);
    }
  const std::optional<PackedRoute> packed = RouteTable::pack(longest);
  if (!packed || packed->code != sum || RouteTable::unpack(*packed).hops != longest.hops) return std::nullopt;
  return dor;
}

// The loads by counts against walking every pair: a pair walked costs
// about 64 units of direction_order_loads_work (70 ns against 1.2e9 units
// a second, on 16x16x8x8 and 8x8x8x8).
bool dor_counts_pay(const Torus& torus, std::size_t n) {
  return std::uint64_t(n) * (n - 1) * 64 > direction_order_loads_work(torus);
}

// At most this many failure points (failed routers, and the routers that
// failed channels leave) for the check by counts: a bit each per pair of
// coordinates.
constexpr std::size_t kMaxFailurePoints = 32;

std::optional<TranslateCounts> walk_scattered_dor(const Network& network, const RingGeometry& rings,
                                                  const RouteTable& table, const VerifyOptions& options,
                                                  const Allocation& allocation, bool checks, PartialCheck& part) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = table.nodes();
  const std::size_t n = nodes.size();
  if (options.walk_every_route || options.max_virtual_channels < 1 || n < kMinTranslateNodes ||
      !dor_counts_pay(torus, n))
    return std::nullopt;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (torus.single_cabled(dim)) return std::nullopt;
  for (std::size_t i = 0; i < n; ++i)
    if (!allocation.inside[i] || !allocation.walkable[i]) return std::nullopt;
  // The failures a direction-order route may meet: the failed routers and
  // the tails of failed channels between live routers (a route taking one
  // passes its tail; a route taking a channel into a failed router passes
  // that router).
  std::vector<Coord> points;
  for (NodeId node = 0; node < torus.node_count(); ++node) {
    bool point = !network.node_alive(node);
    for (int rank = 0; rank < kDirectionCount && !point; ++rank) {
      const Direction d(rank);
      point = torus.direction_present(d) && !network.channel_alive(node, d) &&
              network.node_alive(torus.neighbor(node, d));
    }
    if (point) points.push_back(torus.coord(node));
  }
  if (points.size() > kMaxFailurePoints) return std::nullopt;
  const std::optional<DorFunction> found = dor_function_of(torus, rings, table);
  if (!found) return std::nullopt;
  const DorFunction& dor = *found;
  const DirectionOrderWays& ways = dor.ways;
  // Per dimension and pair of coordinates a -> b: the failure points whose
  // coordinate lies on the run's arc (its ends included; a itself without a
  // run).
  std::array<std::vector<std::uint32_t>, kMaxDims> meets;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    const int size = ways.size[dim];
    meets[dim].assign(std::size_t(size) * std::size_t(size), 0);
    for (int a = 0; a < size; ++a)
      for (int b = 0; b < size; ++b) {
        const std::size_t at = ways.at(dim, a, b);
        const int sign = ways.sign[dim][at], hops = ways.hops[dim][at];
        for (std::size_t p = 0; p < points.size(); ++p) {
          const int ahead = RingGeometry::wrap(sign >= 0 ? points[p][dim] - a : a - points[p][dim], size);
          if (ahead <= hops) meets[dim][at] |= 1u << p;
        }
      }
  }
  // Per dimension and coordinate: the failure points with that coordinate.
  std::array<std::vector<std::uint32_t>, kMaxDims> level;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    level[dim].assign(static_cast<std::size_t>(ways.size[dim]), 0);
    for (std::size_t p = 0; p < points.size(); ++p) level[dim][static_cast<std::size_t>(points[p][dim])] |= 1u << p;
  }
  // The coordinates of the allocation's routers, by index.
  std::array<std::vector<std::uint16_t>, kMaxDims> coord;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    coord[dim].resize(n);
    for (std::size_t i = 0; i < n; ++i) coord[dim][i] = static_cast<std::uint16_t>(rings.coord(nodes[i], dim));
  }
  // Each pair's word against the direction-order word, sources split over
  // the threads: the pairs that differ or may meet a failure are kept to
  // walk below (PairsToWalk).
  struct Compared {
    PairsToWalk walked;
    std::size_t same = 0;
    std::uint64_t hops = 0;
    int max_hops = 0;
  };
  std::vector<Compared> compared(parallel_parts(n), Compared{PairsToWalk(torus, parallel_parts(n))});
  std::vector<unsigned char> row_walked(n, 0);
  // Whether the direction-order route s -> d meets one of the points in
  // `boxed` (those on its arc in every dimension).  The route passes a
  // point on the run of some dimension k when every dimension whose run
  // comes before k's has the destination's coordinate there and every
  // other one the source's; a dimension without a run has both, wherever
  // it is put, so it goes with the negative ones.
  const auto route_meets = [&](std::size_t s, std::size_t d, std::uint32_t boxed) {
    std::array<int, kMaxDims> order;
    std::size_t runs = 0;
    for (int negative = 0; negative <= 1; ++negative)
      for (int dim = 0; dim < kMaxDims; ++dim)
        if ((ways.sign[dim][ways.at(dim, coord[dim][s], coord[dim][d])] > 0) != (negative != 0)) order[runs++] = dim;
    std::array<std::uint32_t, kMaxDims + 1> source_side;  // by position: the later dimensions at the source's
    source_side[kMaxDims] = boxed;
    for (std::size_t r = kMaxDims; r-- > 0;) source_side[r] = source_side[r + 1] & level[order[r]][coord[order[r]][s]];
    std::uint32_t destination_side = boxed, met = 0;
    for (std::size_t r = 0; r < kMaxDims; ++r) {
      const int dim = order[r];
      met |= destination_side & meets[dim][ways.at(dim, coord[dim][s], coord[dim][d])] & source_side[r + 1];
      destination_side &= level[dim][coord[dim][d]];
    }
    return met != 0;
  };
  // One row: visit(d, whether the pair is walked, the direction-order
  // route's hops) for every d != s.
  const auto each_in_row = [&](std::size_t s, auto visit) {
    std::array<const std::uint32_t*, kMaxDims> field, meet;
    std::array<const std::uint8_t*, kMaxDims> hops;
    for (int dim = 0; dim < kMaxDims; ++dim) {
      const std::size_t row = ways.at(dim, coord[dim][s], 0);
      field[dim] = dor.field[dim].data() + row;
      meet[dim] = meets[dim].data() + row;
      hops[dim] = ways.hops[dim].data() + row;
    }
    const std::uint16_t *x = coord[0].data(), *y = coord[1].data(), *z = coord[2].data(), *w = coord[3].data();
    for (std::size_t d = 0; d < n; ++d) {
      if (d == s) continue;
      const std::uint32_t word = field[0][x[d]] + field[1][y[d]] + field[2][z[d]] + field[3][w[d]];
      const std::uint32_t boxed = meet[0][x[d]] & meet[1][y[d]] & meet[2][z[d]] & meet[3][w[d]];
      const bool may_meet = boxed != 0 && route_meets(s, d, boxed);
      visit(d, may_meet || word_of(table, s, d) != word, hops[0][x[d]] + hops[1][y[d]] + hops[2][z[d]] + hops[3][w[d]]);
    }
  };
  // A sample of rows first: a table that is not direction-order is walked
  // at once.
  {
    std::size_t sampled = 0, walked = 0;
    for (std::size_t s = 0; s < n; s += std::max<std::size_t>(1, n / 8)) {
      each_in_row(s, [&](std::size_t, bool walk, int) { walked += walk ? 1 : 0; });
      sampled += n - 1;
    }
    if (walked * 4 > sampled) return std::nullopt;
  }
  run_parallel(n, [&](std::size_t p, std::size_t begin, std::size_t end) {
    Compared& mine = compared[p];
    for (std::size_t s = begin; s < end; ++s) {
      const std::size_t before = mine.walked.count();
      each_in_row(s, [&](std::size_t d, bool walk, int hops) {
        if (walk) {
          mine.walked.add(s, d);
          return;
        }
        ++mine.same;
        mine.hops += static_cast<std::uint64_t>(hops);
        mine.max_hops = std::max(mine.max_hops, hops);
      });
      row_walked[s] = mine.walked.count() != before ? 1 : 0;
    }
  });
  std::size_t walked = 0;
  bool all_kept = true;
  for (const Compared& mine : compared) {
    walked += mine.walked.count();
    all_kept = all_kept && mine.walked.all_kept();
  }
  if (walked > n * (n - 1) / 4) return std::nullopt;

  DirectionOrderCounts every = direction_order_counts(torus, ways, nodes, true);
  TranslateCounts counts;
  counts.load_count = std::move(every.loads);
  counts.end_count = std::move(every.ends);
  counts.turn_count = std::move(every.turns);
  counts.cell_of.assign(torus.node_count(), -1);  // no grid of cells

  // The pairs walked: their direction-order route off the counts, and their
  // own route walked, in source order.
  std::vector<Run> runs;
  runs.reserve(64);
  const auto walk = [&](std::size_t s, std::size_t d) {
    std::array<Run, kDirectionCount> order;  // the direction-order route: positive runs first
    std::size_t count = 0;
    for (int negative = 0; negative <= 1; ++negative)
      for (int dim = 0; dim < kMaxDims; ++dim) {
        const std::size_t cell = ways.at(dim, coord[dim][s], coord[dim][d]);
        if (ways.sign[dim][cell] != (negative ? -1 : 1)) continue;
        order[count].direction = Direction::make(dim, negative != 0);
        order[count++].count = ways.hops[dim][cell];
      }
    counts.take_off(rings, part.load_diff[0], nodes[s], order.data(), count);
    check_pair(network, rings, table, options, allocation, checks, s, d, runs, part);
  };
  if (all_kept) {
    for (const Compared& mine : compared)
      for (const Pair& pair : mine.walked.kept()) walk(pair.first, pair.second);
  } else {
    for (std::size_t s = 0; s < n; ++s) {
      if (!row_walked[s]) continue;
      each_in_row(s, [&](std::size_t d, bool walk_it, int) {
        if (walk_it) walk(s, d);
      });
    }
  }
  for (const Compared& mine : compared) {
    part.routes += mine.same;
    part.lengths.hops += mine.hops;
    part.lengths.max_hops = std::max(part.lengths.max_hops, mine.max_hops);
  }
  return counts;
}

// Every route's loads and channel dependencies (and with `checks`, every
// rule), the sources split over the threads and merged in source order.
struct TableWalk {
  PartialCheck total;
  std::size_t layers = 1;                        // 1 + the highest layer of a walked route
  std::vector<std::uint64_t> loads;              // by channel slot
  std::vector<ChannelDependencyGraph> graphs;    // per layer
};

TableWalk walk_table(const Network& network, const RouteTable& table, const VerifyOptions& options,
                     const Allocation& allocation, bool checks) {
  const Torus& torus = network.torus();
  const RingGeometry rings(network);
  const std::size_t slots = torus.channel_slots();
  const auto fresh = [&] {  // layer 0 always; others when a route uses them
    PartialCheck part;
    part.load_diff.assign(1, std::vector<std::int64_t>(slots, 0));
    part.ends.assign(1, std::vector<RunEnds>(slots));
    return part;
  };
  std::vector<PartialCheck> parts;
  parts.push_back(fresh());
  std::optional<TranslateCounts> translates =
      walk_translates(network, rings, table, options, allocation, checks, parts[0]);
  if (!translates) translates = walk_scattered_dor(network, rings, table, options, allocation, checks, parts[0]);
  if (!translates) {
    parts.clear();
    for (std::size_t p = 0; p < parallel_parts(table.size()); ++p) parts.push_back(fresh());
    run_parallel(table.size(), [&](std::size_t part, std::size_t begin, std::size_t end) {
      check_rows(network, rings, table, options, allocation, checks, begin, end, parts[part]);
    });
  }

  TableWalk walk;
  for (const PartialCheck& part : parts) walk.layers = std::max(walk.layers, part.load_diff.size());
  const std::size_t layers = walk.layers;
  for (PartialCheck& part : parts) {
    part.load_diff.resize(layers, std::vector<std::int64_t>(slots, 0));
    part.ends.resize(layers, std::vector<RunEnds>(slots));
  }
  PartialCheck& total = walk.total;
  total = std::move(parts[0]);
  for (std::size_t p = 1; p < parts.size(); ++p) {
    PartialCheck& part = parts[p];
    total.log.merge(std::move(part.log));
    total.routes += part.routes;
    total.walked += part.walked;
    total.lengths.hops += part.lengths.hops;
    total.lengths.max_hops = std::max(total.lengths.max_hops, part.lengths.max_hops);
    total.non_minimal += part.non_minimal;
    total.fs_ls_routes += part.fs_ls_routes;
    for (std::size_t layer = 0; layer < layers; ++layer)
      for (std::size_t c = 0; c < slots; ++c) {
        total.load_diff[layer][c] += part.load_diff[layer][c];
        total.ends[layer][c].count += part.ends[layer][c].count;
        total.ends[layer][c].successors |= part.ends[layer][c].successors;
      }
  }
  walk.loads.assign(slots, 0);
  for (std::size_t layer = 0; layer < layers; ++layer) {
    const std::vector<RunEnds>& ends = total.ends[layer];
    walk.graphs.emplace_back(torus);
    ChannelDependencyGraph& graph = walk.graphs.back();
    const TranslateCounts* shares = layer == 0 && translates ? &*translates : nullptr;
    rings.prefix_sums(total.load_diff[layer], [&](ChannelId c, std::int64_t value) {
      std::int64_t load = value, ended = ends[c].count;
      std::uint8_t next = ends[c].successors;
      const int rank = Torus::channel_direction(c).rank();
      if (shares) {  // the translates' share (walk_translates, walk_scattered_dor)
        if (!shares->load_count.empty()) load += shares->load_count[c];
        const std::int32_t cell = shares->cell_of[Torus::channel_node(c)];
        load += shares->load_at(rank, cell);
        ended += shares->ends_at(rank, cell) + shares->end_count[c];
        for (int to = 0; to < kDirectionCount; ++to)
          if (shares->turns_at(rank, to, cell) + shares->turn_count[std::size_t(c) * kDirectionCount + to] > 0)
            next |= static_cast<std::uint8_t>(1u << to);
      }
      walk.loads[c] += static_cast<std::uint64_t>(load);
      if (load > ended) next |= static_cast<std::uint8_t>(1u << rank);  // a ring step leaves c
      if (next) graph.add_mask(c, next);
    });
  }
  return walk;
}

Allocation allocation_of(const Network& network, const RouteTable& table, ViolationLog* log) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = table.nodes();
  Allocation allocation;
  allocation.inside.assign(nodes.size(), 0);
  allocation.walkable.assign(nodes.size(), 0);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i] >= torus.node_count()) {
      if (log)
        log->add(Rule::DeadNode, [&] {
          return "allocated node id " + std::to_string(nodes[i]) + " is outside the " + torus.to_string() + " torus";
        });
      continue;
    }
    allocation.inside[i] = 1;
    if (network.node_alive(nodes[i]))
      allocation.walkable[i] = 1;
    else if (log)
      log->add(Rule::DeadNode, [&] { return "allocated node " + torus.format_coord(nodes[i]) + " is failed"; });
  }
  return allocation;
}

// A dependency inside a strongly connected component lies on a cycle.  Under
// bubble flow control only turns (a change of dimension or sign) make such a
// cycle a deadlock; without it every such dependency does.
bool forbidden_on_cycle(FlowControl flow, ChannelId from, int next_rank) {
  return flow == FlowControl::none || Direction(next_rank) != Torus::channel_direction(from);
}

// The forbidden dependencies on cycles of one layer's graph, with an example route.
LayerDeadlocks find_layer_deadlocks(const Network& network, const RouteTable& table, int layer,
                                    const ChannelDependencyGraph& graph, FlowControl flow) {
  const Torus& torus = network.torus();
  const std::vector<std::int32_t> component = graph.components();

  LayerDeadlocks result;
  std::vector<unsigned char> flagged;
  std::optional<std::pair<ChannelId, int>> first_turn;
  for (ChannelId c = 0; c < graph.slots(); ++c) {
    const std::uint8_t mask = graph.successors(c);
    for (int rank = 0; mask && rank < kDirectionCount; ++rank) {
      if (!((mask >> rank) & 1u) || !forbidden_on_cycle(flow, c, rank)) continue;
      const ChannelId w = graph.target(c, rank);
      if (component[w] != component[c]) continue;
      // A turn inside a strongly connected component: it lies on a cycle.
      const auto id = static_cast<std::size_t>(component[c]);
      if (flagged.size() <= id) flagged.resize(id + 1, 0);
      if (!flagged[id]) {
        flagged[id] = 1;
        ++result.cyclic_components;
      }
      if (!first_turn) first_turn = std::make_pair(c, rank);
    }
  }
  if (!first_turn) return result;

  const auto [turn_from, turn_rank] = *first_turn;
  result.example = "virtual channel " + std::to_string(layer) + ": " +
                   (Direction(turn_rank) == Torus::channel_direction(turn_from) ? "dependency " : "turn ") +
                   channel_name(torus, turn_from) +
                   " -> " + channel_name(torus, graph.target(turn_from, turn_rank)) +
                   " lies on a channel dependency cycle";
  bool found = false;
  for_each_layer_route(torus, table, layer, [&](std::size_t, std::size_t d, NodeId src, const Route& route) {
    if (found) return;
    NodeId at = src;
    for (std::size_t k = 0; k + 1 < route.hops.size(); ++k) {
      if (Torus::channel(at, route.hops[k]) == turn_from && route.hops[k + 1].rank() == turn_rank) {
        result.example += "; " + describe_route(torus, src, table.nodes()[d], route) + " takes it after hop " +
                          std::to_string(k + 1);
        found = true;
        return;
      }
      at = torus.neighbor(at, route.hops[k]);
    }
  });
  return result;
}

}  // namespace

RouteWalkFigures walk_routes(const Network& network, const RouteTable& table) {
  TableWalk walk = walk_table(network, table, {}, allocation_of(network, table, nullptr), false);
  return {std::move(walk.loads), std::move(walk.graphs)};
}

bool layer_deadlock_free(const Network& network, const RouteTable& table, int layer, std::string* example,
                         FlowControl flow) {
  const TableWalk walk = walk_table(network, table, {}, allocation_of(network, table, nullptr), false);
  if (layer < 0 || static_cast<std::size_t>(layer) >= walk.layers) return true;
  LayerDeadlocks deadlocks = find_layer_deadlocks(network, table, layer, walk.graphs[layer], flow);
  if (deadlocks.cyclic_components == 0) return true;
  if (example) *example = std::move(deadlocks.example);
  return false;
}

VerifyReport verify(const Network& network, const RouteTable& table, const VerifyOptions& options) {
  VerifyReport report;
  // Allocated nodes must exist and be alive; routes from or to a failed one
  // are not walked, its failure is the one violation to fix.
  ViolationLog log;
  const Allocation allocation = allocation_of(network, table, &log);

  TableWalk walk = walk_table(network, table, options, allocation, true);
  log.merge(std::move(walk.total.log));
  report.routes = walk.total.routes;
  report.pairs_walked = walk.total.walked;
  report.non_minimal = walk.total.non_minimal;
  report.fs_ls_routes = walk.total.fs_ls_routes;

  report.rules = options.rules;
  report.flow_control = options.flow_control;
  report.virtual_channels = static_cast<int>(walk.layers);
  for (int layer = 0; layer < report.virtual_channels; ++layer) {
    LayerDeadlocks deadlocks = find_layer_deadlocks(network, table, layer, walk.graphs[layer], options.flow_control);
    if (deadlocks.cyclic_components)
      log.add(Rule::Deadlock, [&] { return std::move(deadlocks.example); }, deadlocks.cyclic_components);
  }
  // Duato's condition only for a table that is a valid escape otherwise:
  // connected (every pair routed over live channels) and deadlock-free.
  if (options.adaptive && log.count() == 0) {
    SuccessorMasks direct(walk.graphs.size());
    for (std::size_t layer = 0; layer < direct.size(); ++layer)
      for (ChannelId c = 0; c < walk.graphs[layer].slots(); ++c)
        direct[layer].push_back(walk.graphs[layer].successors(c));
    EscapeCheck escape = check_adaptive_escape(network, table, direct, options.flow_control);
    report.adaptive_checked = true;
    report.indirect_dependencies = escape.indirect_dependencies;
    if (escape.cyclic_components)
      log.add(Rule::UnsafeEscape, [&] { return "adaptive channel: " + std::move(escape.example); },
              escape.cyclic_components);
  }

  log.fill(report);
  walk.total.lengths.routes = walk.total.routes;
  walk.total.lengths.non_minimal = walk.total.non_minimal;
  report.metrics = compute_metrics(network, table, walk.loads, &walk.total.lengths);
  return report;
}

ChannelDependencyGraph::ChannelDependencyGraph(const Torus& torus)
    : torus_(&torus), successors_(torus.channel_slots(), 0) {}

void ChannelDependencyGraph::add(ChannelId from, ChannelId to) {
  if (Torus::channel_node(to) != torus_->neighbor(Torus::channel_node(from), Torus::channel_direction(from)))
    throw std::invalid_argument("a channel dependency must lead to a channel leaving the first channel's head node");
  add(from, Torus::channel_direction(to));
}

ChannelId ChannelDependencyGraph::target(ChannelId c, int rank) const {
  return Torus::channel(torus_->neighbor(Torus::channel_node(c), Torus::channel_direction(c)), Direction(rank));
}

namespace {

// The dependency graph as strongly_connected_components() walks it: a
// channel's successors are the set bits of its direction mask.
struct DependencyWalk {
  const ChannelDependencyGraph& graph;
  struct Cursor {
    ChannelId channel;
    int next_rank;
  };
  std::size_t vertices() const { return graph.slots(); }
  Cursor cursor(std::int32_t v) const { return {static_cast<ChannelId>(v), 0}; }
  bool next(Cursor& c, std::int32_t& w) const {
    while (c.next_rank < kDirectionCount) {
      const int rank = c.next_rank++;
      if ((graph.successors(c.channel) >> rank) & 1u) {
        w = static_cast<std::int32_t>(graph.target(c.channel, rank));
        return true;
      }
    }
    return false;
  }
};

}  // namespace

std::vector<std::int32_t> ChannelDependencyGraph::components() const {
  // A channel without successors is on no cycle: it starts no search.
  return strongly_connected_components(DependencyWalk{*this},
                                       [this](std::int32_t c) { return successors_[static_cast<ChannelId>(c)] != 0; });
}

std::size_t ChannelDependencyGraph::turns_on_cycles(FlowControl flow) const {
  const std::vector<std::int32_t> component = components();
  std::size_t turns = 0;
  for (ChannelId c = 0; c < slots(); ++c)
    for (int rank = 0; successors_[c] && rank < kDirectionCount; ++rank)
      if (((successors_[c] >> rank) & 1u) && forbidden_on_cycle(flow, c, rank) &&
          component[target(c, rank)] == component[c])
        ++turns;
  return turns;
}

}  // namespace angara
