#include "angara/routing_graph.hpp"

#include <algorithm>
#include <stdexcept>

namespace angara {

namespace {

bool same_sign(Direction a, Direction b) { return a.negative() == b.negative(); }

// The highest direction (in DOR) of a non-empty mask: the last direction of a
// DOR route that used exactly these directions.
Direction last_direction(std::uint8_t used) {
  for (int rank = kDirectionCount - 1; rank >= 0; --rank)
    if (used & (1u << rank)) return Direction(rank);
  throw std::logic_error("last_direction of an empty direction set");
}

}  // namespace

// ---------------------------------------------------------------------------
// ChannelDependencies (section 3.2)

ChannelDependencies::ChannelDependencies(const Network& network)
    : torus_(network.torus()),
      alive_(torus_.channel_slots(), 0),
      neighbor_(torus_.channel_slots(), kNoNode),
      used_(torus_.channel_slots(), 0),
      turns_(torus_.channel_slots(), 0) {
  for (ChannelId c = 0; c < torus_.channel_slots(); ++c) {
    const Direction d = Torus::channel_direction(c);
    if (!torus_.direction_present(d)) continue;
    alive_[c] = network.channel_alive(c) ? 1 : 0;
    neighbor_[c] = torus_.neighbor(Torus::channel_node(c), d);
  }
  compute_base_used_directions();
  add_turns();
}

bool ChannelDependencies::has_edge(ChannelId from, ChannelId to) const {
  if (!alive_[from] || !alive_[to]) return false;
  if (Torus::channel_node(to) != neighbor_[from]) return false;
  const Direction in = Torus::channel_direction(from), out = Torus::channel_direction(to);
  return in <= out || (turns_[from] & direction_bit(out)) != 0;
}

// First stage of section 3.2: B(c) for the pure DOR CDG.  Successors of
// (v, D) are (v + D, Dj) with Dj >= D, so the directions are settled from the
// highest down; within one direction the successor chain runs along a ring,
// which is walked backwards twice so that every channel sees its whole live
// stretch of the ring (or the whole ring when none of it has failed).
void ChannelDependencies::compute_base_used_directions() {
  std::vector<std::uint8_t> own(torus_.channel_slots(), 0);  // B without the ring chain
  std::vector<NodeId> ring;
  for (int rank = kDirectionCount - 1; rank >= 0; --rank) {
    const Direction d(rank);
    if (!torus_.direction_present(d)) continue;
    for (NodeId v = 0; v < torus_.node_count(); ++v) {
      const ChannelId c = Torus::channel(v, d);
      if (!alive_[c]) continue;
      std::uint8_t set = direction_bit(d);
      const NodeId next = neighbor_[c];
      for (int higher = rank + 1; higher < kDirectionCount; ++higher)
        set |= used_[Torus::channel(next, Direction(higher))];  // 0 when dead or absent
      own[c] = set;
    }
    const int size = torus_.size(d.dim());
    for (NodeId start = 0; start < torus_.node_count(); ++start) {
      if (torus_.coord(start)[d.dim()] != 0) continue;
      ring.clear();
      NodeId v = start;
      for (int i = 0; i < size; ++i, v = neighbor_[Torus::channel(v, d)]) ring.push_back(v);
      std::uint8_t reach = 0;  // B of the channel after the current one
      for (int i = 2 * size - 1; i >= 0; --i) {
        const ChannelId c = Torus::channel(ring[static_cast<std::size_t>(i % size)], d);
        reach = alive_[c] ? static_cast<std::uint8_t>(own[c] | reach) : 0;
        used_[c] = reach;
      }
    }
  }
}

// Second stage: greedy Theorem 2 pass over the FS/LS turn candidates, in the
// order documented in the header.
void ChannelDependencies::add_turns() {
  for (ChannelId c = 0; c < torus_.channel_slots(); ++c) {
    if (!alive_[c]) continue;
    const Direction in = Torus::channel_direction(c);
    const NodeId next = neighbor_[c];
    for (int rank = 0; rank < in.rank(); ++rank) {
      const Direction out(rank);
      if (!same_sign(in, out) || !torus_.direction_present(out)) continue;
      const ChannelId target = Torus::channel(next, out);
      if (!alive_[target] || (used_[target] & direction_bit(in))) continue;
      turns_[c] |= direction_bit(out);
      if (in.positive())
        ++first_step_turns_;
      else
        ++last_step_turns_;
      propagate_used_directions(c, used_[target]);
    }
  }
}

// BFS over reversed CDG edges from `start`.  A channel whose B already holds
// `extra` is not expanded: B(p) contains B(x) for every edge p -> x, so all
// channels behind it hold `extra` too.
void ChannelDependencies::propagate_used_directions(ChannelId start, std::uint8_t extra) {
  if ((used_[start] & extra) == extra) return;
  used_[start] |= extra;
  std::vector<ChannelId> queue{start};
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const ChannelId x = queue[head];
    const NodeId here = Torus::channel_node(x);
    const Direction out = Torus::channel_direction(x);
    for (int rank = 0; rank < kDirectionCount; ++rank) {
      const Direction in(rank);
      if (!torus_.direction_present(in)) continue;
      const NodeId previous = neighbor_[Torus::channel(here, in.opposite())];
      const ChannelId p = Torus::channel(previous, in);
      if (!alive_[p] || (used_[p] & extra) == extra) continue;
      if (!(in <= out || (turns_[p] & direction_bit(out)))) continue;
      used_[p] |= extra;
      queue.push_back(p);
    }
  }
}

// ---------------------------------------------------------------------------
// RoutingGraph (section 3.1)
//
// Local vertex layout for n present dimensions (p = present index, DOR order
// of the dimensions):
//   0                    begin
//   1 + p                FS of +dim_p
//   n + code             dirbit, code = sum_p digit_p * 3^p in 1 .. 3^n - 1,
//                        digit 0 = dimension unused, 1 = '+', 2 = '-'
//   n + 3^n + p          LS of -dim_p
//   2n + 3^n             end

std::uint32_t RoutingGraph::vertices_per_node(int present_dims) {
  std::uint32_t power = 1;
  for (int i = 0; i < present_dims; ++i) power *= 3;
  return power + 2u * static_cast<std::uint32_t>(present_dims) + 1u;
}

RoutingGraph::RoutingGraph(const Network& network)
    : dependencies_(network), present_index_(kMaxDims, -1) {
  const Torus& t = torus();
  for (int dim = 0; dim < kMaxDims; ++dim) {
    if (!t.dim_present(dim)) continue;
    present_index_[dim] = static_cast<int>(present_dim_list_.size());
    present_dim_list_.push_back(dim);
  }
  present_dims_ = static_cast<int>(present_dim_list_.size());
  per_node_ = vertices_per_node(present_dims_);
  describe_local_vertices();
  node_alive_.resize(t.node_count());
  for (NodeId node = 0; node < t.node_count(); ++node) node_alive_[node] = network.node_alive(node) ? 1 : 0;
  build_edges();
}

std::uint32_t RoutingGraph::dirbit_local(std::uint8_t used) const {
  std::uint32_t code = 0, power = 1;
  for (int p = 0; p < present_dims_; ++p, power *= 3) {
    const int dim = present_dim_list_[static_cast<std::size_t>(p)];
    if (used & direction_bit(Direction::make(dim, false))) code += power;
    if (used & direction_bit(Direction::make(dim, true))) code += 2 * power;
  }
  return static_cast<std::uint32_t>(present_dims_) + code;
}

void RoutingGraph::describe_local_vertices() {
  const std::uint32_t n = static_cast<std::uint32_t>(present_dims_);
  const std::uint32_t states = per_node_ - 2 * n - 1;  // 3^n
  local_.assign(per_node_, LocalVertex{});
  for (std::uint32_t p = 0; p < n; ++p) {
    const Direction plus = Direction::make(present_dim_list_[p], false);
    const Direction minus = plus.opposite();
    local_[1 + p] = {VertexKind::first_step, true, plus, direction_bit(plus)};
    local_[n + states + p] = {VertexKind::last_step, true, minus, direction_bit(minus)};
  }
  for (std::uint32_t code = 1; code < states; ++code) {
    std::uint8_t used = 0;
    std::uint32_t rest = code;
    for (std::uint32_t p = 0; p < n; ++p, rest /= 3) {
      if (rest % 3 == 0) continue;
      used |= direction_bit(Direction::make(present_dim_list_[p], rest % 3 == 2));
    }
    local_[n + code] = {VertexKind::dirbit, true, last_direction(used), used};
  }
  local_[per_node_ - 1] = {VertexKind::end, false, Direction(), 0};
}

RoutingGraph::VertexId RoutingGraph::first_step_vertex(NodeId node, Direction d) const {
  if (!d.positive() || present_index_[d.dim()] < 0)
    throw std::invalid_argument("no FS vertex for " + d.token());
  return node * per_node_ + 1u + static_cast<std::uint32_t>(present_index_[d.dim()]);
}

RoutingGraph::VertexId RoutingGraph::last_step_vertex(NodeId node, Direction d) const {
  if (!d.negative() || present_index_[d.dim()] < 0)
    throw std::invalid_argument("no LS vertex for " + d.token());
  return node * per_node_ + per_node_ - 1u - static_cast<std::uint32_t>(present_dims_) +
         static_cast<std::uint32_t>(present_index_[d.dim()]);
}

RoutingGraph::VertexId RoutingGraph::dirbit_vertex(NodeId node, std::uint8_t used) const {
  for (int rank = 0; rank < kDirectionCount; ++rank) {
    const Direction d(rank);
    if (!(used & direction_bit(d))) continue;
    if (!torus().direction_present(d) || (used & direction_bit(d.opposite())))
      throw std::invalid_argument("not a dirbit state: " + d.token());
  }
  if (used == 0) throw std::invalid_argument("the empty direction set has no dirbit vertex");
  return node * per_node_ + dirbit_local(used);
}

ChannelId RoutingGraph::incoming_channel(VertexId v) const {
  const LocalVertex& local = local_[local_index(v)];
  if (!local.has_incoming) return kNoChannel;
  const NodeId previous = torus().neighbor(node_of(v), local.incoming.opposite());
  return Torus::channel(previous, local.incoming);
}

// Edges of section 3.1 plus the FS/LS turns of section 3.2.  Each vertex's
// edges are listed as: the edge to end, then by hop direction in DOR (for one
// direction: FS target, dirbit target, LS target).  Generators break ties by
// this order, so it is part of the determinism contract.
void RoutingGraph::build_edges() {
  const Torus& t = torus();
  const ChannelDependencies& cdg = dependencies_;
  const NodeId nodes = t.node_count();
  offsets_.clear();
  offsets_.reserve(static_cast<std::size_t>(nodes) * per_node_ + 1);
  targets_.clear();
  channels_.clear();
  const std::size_t estimate = static_cast<std::size_t>(nodes) * per_node_ * 5;
  targets_.reserve(estimate);
  channels_.reserve(estimate);

  std::vector<Direction> present;  // present directions in DOR
  for (int rank = 0; rank < kDirectionCount; ++rank)
    if (t.direction_present(Direction(rank))) present.push_back(Direction(rank));

  auto add = [&](VertexId target, ChannelId channel) {
    targets_.push_back(target);
    channels_.push_back(channel);
  };

  for (NodeId w = 0; w < nodes; ++w) {
    const VertexId base = w * per_node_;
    const VertexId end = base + per_node_ - 1;
    const bool alive = node_alive_[w] != 0;  // a failed node keeps its vertices but no edges
    for (std::uint32_t l = 0; l < per_node_; ++l) {
      offsets_.push_back(static_cast<EdgeId>(targets_.size()));
      const LocalVertex& me = local_[l];
      if (!alive || me.kind == VertexKind::end) continue;
      add(end, kNoChannel);
      if (me.kind == VertexKind::last_step) continue;

      ChannelId in_channel = kNoChannel;
      if (me.has_incoming) in_channel = Torus::channel(t.neighbor(w, me.incoming.opposite()), me.incoming);

      for (Direction d : present) {
        const ChannelId channel = Torus::channel(w, d);
        if (!cdg.channel_alive(channel)) continue;
        const NodeId next = t.neighbor(w, d);
        const VertexId next_base = next * per_node_;
        switch (me.kind) {
          case VertexKind::begin:
            if (d.positive()) add(next_base + 1u + static_cast<std::uint32_t>(present_index_[d.dim()]), channel);
            add(next_base + dirbit_local(direction_bit(d)), channel);
            break;
          case VertexKind::first_step:
            if (d > me.incoming) {
              add(next_base + dirbit_local(direction_bit(d)), channel);
            } else if (d < me.incoming && d.positive() && cdg.turn_allowed(in_channel, d)) {
              add(next_base + dirbit_local(direction_bit(d)), channel);  // FS turn
              ++first_step_turn_edges_;
            }
            break;
          case VertexKind::dirbit: {
            const Direction last = me.incoming;
            if (last <= d && !(me.used & direction_bit(d.opposite())))
              add(next_base + dirbit_local(static_cast<std::uint8_t>(me.used | direction_bit(d))), channel);
            if (d.negative()) {
              const VertexId ls = next_base + per_node_ - 1u - static_cast<std::uint32_t>(present_dims_) +
                                  static_cast<std::uint32_t>(present_index_[d.dim()]);
              if (d > last) {
                add(ls, channel);
              } else if (d < last && cdg.turn_allowed(in_channel, d)) {
                add(ls, channel);  // LS turn
                ++last_step_turn_edges_;
              }
            }
            break;
          }
          default:
            break;
        }
      }
    }
  }
  offsets_.push_back(static_cast<EdgeId>(targets_.size()));
}

std::vector<Direction> RoutingGraph::path_hops(const std::vector<VertexId>& path) const {
  std::vector<Direction> hops;
  for (VertexId v : path)
    if (has_incoming(v)) hops.push_back(incoming_direction(v));
  return hops;
}

Route RoutingGraph::route_from_parents(const std::vector<VertexId>& parent, NodeId source,
                                       NodeId destination) const {
  const VertexId begin = begin_vertex(source);
  Route route;
  VertexId v = end_vertex(destination);
  for (std::size_t steps = 0; v != begin; ++steps) {
    if (v == kNoVertex || steps > vertex_count())
      throw std::logic_error("route_from_parents: the search tree does not lead back to the source");
    if (has_incoming(v)) route.hops.push_back(incoming_direction(v));
    v = parent[v];
  }
  std::reverse(route.hops.begin(), route.hops.end());
  return route;
}

}  // namespace angara
