// The Angara routing graph (ANSU paper, section 3) and the deadlock-free
// channel dependency graph that augments it (section 3.2, Theorem 2).
//
// The routing graph (RG) keeps, per node, one vertex per "route history
// state": begin, FS_j (after a positive First Step), dirbit_k (the set of
// directions used so far by a DOR + direction-bit route), LS_j (after a
// negative Last Step) and end.  A path begin(s) -> ... -> end(t) is exactly an
// Angara-encodable route from s to t (Theorem 1), so route generators search
// the RG instead of the torus.
//
// The graph is rebuilt for every job, so it is stored compactly: vertex ids
// are computed (node * vertices_per_node() + local index) and edges live in
// CSR arrays.
#pragma once

#include <cstdint>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "angara/torus.hpp"

namespace angara {

constexpr ChannelId kNoChannel = 0xFFFFFFFFu;

// Bit of a direction in an 8-bit direction mask.
constexpr std::uint8_t direction_bit(Direction d) { return static_cast<std::uint8_t>(1u << d.rank()); }

// The channel dependency graph of DOR moves over the live channels, augmented
// greedily with the turns Theorem 2 proves harmless (section 3.2).
//
// Base edges: (v, Di) -> (v + Di, Dj) for Di <= Dj (DOR-compatible; the
// same-direction ring cycles are covered by bubble flow control).  Only turns
// the Angara rules can use are candidates, (u, Di) -> (u + Di, Dj) with
// Dj < Di and both positive (a First Step turn) or both negative (a Last Step
// turn).  A candidate is added iff Di is not in B(u + Di, Dj), where B(c) is
// the set of directions of every channel reachable from c (c included); after
// each addition B grows for every channel that reaches the new edge's source.
// Every added edge therefore lies on no cycle, and the strongly connected
// components stay same-direction rings: no turn is ever inside one.
//
// Candidate order (deterministic): source channels by ChannelId (NodeId
// ascending, then direction rank ascending), and for each the target
// directions Dj in ascending rank.
//
// Note: with few faults no turn is admissible at all, because a DOR route
// from any channel can still reach every higher direction; turns appear only
// where faults cut a channel off from a higher direction.
class ChannelDependencies {
 public:
  explicit ChannelDependencies(const Network& network);

  const Torus& torus() const { return torus_; }
  bool channel_alive(ChannelId c) const { return alive_[c] != 0; }
  // True iff `from -> to` is an edge of the augmented CDG: both channels
  // live, `to` leaves the node `from` enters, and either dir(from) <= dir(to)
  // or the turn was added.
  bool has_edge(ChannelId from, ChannelId to) const;
  // Directions Dj of the turn edges added from channel c (a direction mask).
  std::uint8_t turn_targets(ChannelId c) const { return turns_[c]; }
  bool turn_allowed(ChannelId from, Direction to) const { return (turns_[from] & direction_bit(to)) != 0; }
  // B(c) after augmentation: the directions reachable from c, c included
  // (0 for a dead channel).
  std::uint8_t used_directions(ChannelId c) const { return used_[c]; }
  std::size_t first_step_turns() const { return first_step_turns_; }
  std::size_t last_step_turns() const { return last_step_turns_; }

 private:
  void compute_base_used_directions();
  void add_turns();
  // B |= `extra` for `start` and every channel that reaches it.
  void propagate_used_directions(ChannelId start, std::uint8_t extra);

  Torus torus_;
  std::vector<unsigned char> alive_;
  std::vector<NodeId> neighbor_;       // node * 8 + rank -> neighbour node
  std::vector<std::uint8_t> used_;     // B(c)
  std::vector<std::uint8_t> turns_;    // turn edge targets per channel
  std::size_t first_step_turns_ = 0;
  std::size_t last_step_turns_ = 0;
};

class RoutingGraph {
 public:
  using VertexId = std::uint32_t;
  using EdgeId = std::uint32_t;
  static constexpr VertexId kNoVertex = 0xFFFFFFFFu;

  enum class VertexKind : std::uint8_t { begin, first_step, dirbit, last_step, end };

  // Builds the RG of section 3.1 over the live part of `network` plus the
  // FS/LS turn edges allowed by the augmented CDG (section 3.2).  Edges over
  // dead channels and all edges of dead nodes are absent.
  explicit RoutingGraph(const Network& network);

  // C_V(n) = 3^n + 2n + 1 vertices per node for n present dimensions.
  static std::uint32_t vertices_per_node(int present_dims);

  const Torus& torus() const { return dependencies_.torus(); }
  const ChannelDependencies& dependencies() const { return dependencies_; }
  int present_dims() const { return present_dims_; }
  std::uint32_t vertices_per_node() const { return per_node_; }
  VertexId vertex_count() const { return static_cast<VertexId>(offsets_.size() - 1); }
  EdgeId edge_count() const { return static_cast<EdgeId>(targets_.size()); }

  VertexId begin_vertex(NodeId node) const { return node * per_node_; }
  VertexId end_vertex(NodeId node) const { return node * per_node_ + per_node_ - 1; }
  NodeId node_of(VertexId v) const { return v / per_node_; }
  std::uint32_t local_index(VertexId v) const { return v % per_node_; }
  VertexKind kind(VertexId v) const { return local_[local_index(v)].kind; }
  // FS_j / LS_j vertex of `node` for a positive / negative present direction;
  // dirbit vertex of `node` for a non-empty DOR-legal set of used directions
  // (a direction mask with at most one sign per present dimension).
  VertexId first_step_vertex(NodeId node, Direction d) const;
  VertexId last_step_vertex(NodeId node, Direction d) const;
  VertexId dirbit_vertex(NodeId node, std::uint8_t used) const;
  // Directions used so far in this vertex's state: the dirbit set, or the
  // single FS/LS step; 0 for begin and end.
  std::uint8_t used_directions(VertexId v) const { return local_[local_index(v)].used; }

  // Every FS, dirbit and LS vertex is entered by hops of one direction only
  // (the FS/LS step, or the dirbit list's last direction), hence over one
  // channel.  has_incoming() is false for begin and end.
  bool has_incoming(VertexId v) const { return local_[local_index(v)].has_incoming; }
  Direction incoming_direction(VertexId v) const { return local_[local_index(v)].incoming; }
  ChannelId incoming_channel(VertexId v) const;

  // Out-edges of v are the ids edges_begin(v) .. edges_end(v) - 1.
  EdgeId edges_begin(VertexId v) const { return offsets_[v]; }
  EdgeId edges_end(VertexId v) const { return offsets_[v + 1]; }
  VertexId edge_target(EdgeId e) const { return targets_[e]; }
  // The channel the edge crosses; kNoChannel for the edges into end.
  ChannelId edge_channel(EdgeId e) const { return channels_[e]; }
  // Raw CSR arrays, for hot loops.
  const std::vector<EdgeId>& offsets() const { return offsets_; }
  const std::vector<VertexId>& targets() const { return targets_; }
  const std::vector<ChannelId>& channels() const { return channels_; }

  // The hops of a vertex path begin(s) -> ... -> end(t).
  std::vector<Direction> path_hops(const std::vector<VertexId>& path) const;
  // Follows `parent` (a search tree, parent[v] == kNoVertex at the root) from
  // end(destination) back to begin(source) and returns the route; throws
  // std::logic_error when the tree does not lead there.
  Route route_from_parents(const std::vector<VertexId>& parent, NodeId source, NodeId destination) const;

  std::size_t first_step_turn_edges() const { return first_step_turn_edges_; }
  std::size_t last_step_turn_edges() const { return last_step_turn_edges_; }

 private:
  struct LocalVertex {
    VertexKind kind = VertexKind::begin;
    bool has_incoming = false;
    Direction incoming;
    std::uint8_t used = 0;
  };
  void describe_local_vertices();
  void build_edges();
  std::uint32_t dirbit_local(std::uint8_t used) const;

  ChannelDependencies dependencies_;
  int present_dims_ = 0;
  std::uint32_t per_node_ = 0;
  std::vector<int> present_dim_list_;         // present index -> dimension
  std::vector<int> present_index_;            // dimension -> present index or -1
  std::vector<LocalVertex> local_;            // local index -> description
  std::vector<unsigned char> node_alive_;
  std::vector<EdgeId> offsets_;
  std::vector<VertexId> targets_;
  std::vector<ChannelId> channels_;
  std::size_t first_step_turn_edges_ = 0;
  std::size_t last_step_turn_edges_ = 0;
};

}  // namespace angara
