// The independent verifier.  It reads only the torus, the failures and the
// table: no generator and no routing graph, so a generator bug cannot hide
// behind a shared helper.  Rules from doc/model.md ("Routing rules",
// "Deadlock rule").
#include "routing/check/verifier.hpp"

#include "routing/check/adaptive_escape.hpp"

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
  // Adds 1 to `diff` for the channels of direction d at ring positions
  // lo, lo+1, ..., lo+length-1 (mod size) of the ring based at `base`.
  void add_interval(std::vector<std::int64_t>& diff, NodeId base, Direction d, int lo, int length) const {
    const int size = torus_.size(d.dim());
    const NodeId stride = stride_[d.dim()];
    const auto at = [&](int position) { return Torus::channel(base + static_cast<NodeId>(position) * stride, d); };
    int rest = length;
    if (length >= size) {
      diff[at(0)] += length / size;  // whole laps
      rest = length % size;
    }
    if (rest == 0) return;
    diff[at(lo)] += 1;
    const int end = lo + rest;
    if (end < size) {
      diff[at(end)] -= 1;
    } else if (end > size) {
      diff[at(0)] += 1;
      diff[at(end - size)] -= 1;
    }
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
  std::size_t routes = 0, non_minimal = 0, fs_ls_routes = 0;
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
    const int count = runs[r].count, dim = direction.dim(), size = torus.size(dim);
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
    // The run's channels are the ring positions c, c+1, ..., c+count-1 (+D)
    // or c-count+1, ..., c (-D).
    const NodeId base = rings.ring_base(at, dim);
    const int c = rings.coord(at, dim);
    const int lowest = direction.positive() ? c : RingGeometry::wrap(c - count + 1, size);
    rings.add_interval(load_diff, base, direction, lowest, count);
    const int last = direction.positive() ? RingGeometry::wrap(c + count - 1, size) : lowest;
    previous = Torus::channel(rings.on_ring(base, dim, last), direction);
    ++ends[previous].count;
    at = rings.on_ring(base, dim, RingGeometry::wrap(direction.positive() ? last + 1 : last - 1, size));
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

// Sources [begin, end): loads and dependencies of every route (from a
// source inside the torus), and with `checks` every rule of every route.
void check_rows(const Network& network, const RingGeometry& rings, const RouteTable& table,
                const VerifyOptions& options, const Allocation& allocation, bool checks, std::size_t begin,
                std::size_t end, PartialCheck& part) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = table.nodes();
  const std::size_t n = nodes.size();
  std::vector<Run> runs;
  runs.reserve(64);
  for (std::size_t s = begin; s < end; ++s) {
    for (std::size_t d = 0; d < n; ++d) {
      if (s == d) continue;
      if (!table.has_route(s, d)) {
        if (checks)
          part.log.add(Rule::MissingRoute, [&] {
            const auto name = [&](NodeId node) {
              return node < torus.node_count() ? torus.format_coord(node) : "id " + std::to_string(node);
            };
            return "no route from " + name(nodes[s]) + " to " + name(nodes[d]);
          });
        continue;
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
      if (!allocation.inside[s]) continue;
      check_route(network, rings, table, options, s, d, runs, hops, layer, checks && allocation.inside[d],
                  allocation.walkable[s] && allocation.walkable[d], part);
    }
  }
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
  std::vector<PartialCheck> parts(parallel_parts(table.size()));
  for (PartialCheck& part : parts) {  // layer 0 always; others when a route uses them
    part.load_diff.assign(1, std::vector<std::int64_t>(slots, 0));
    part.ends.assign(1, std::vector<RunEnds>(slots));
  }
  run_parallel(table.size(), [&](std::size_t part, std::size_t begin, std::size_t end) {
    check_rows(network, rings, table, options, allocation, checks, begin, end, parts[part]);
  });

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
    rings.prefix_sums(total.load_diff[layer], [&](ChannelId c, std::int64_t value) {
      walk.loads[c] += static_cast<std::uint64_t>(value);
      std::uint8_t next = ends[c].successors;
      if (value > static_cast<std::int64_t>(ends[c].count))  // a ring step leaves c
        next |= static_cast<std::uint8_t>(1u << Torus::channel_direction(c).rank());
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
