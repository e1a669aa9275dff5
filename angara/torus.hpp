// The Angara torus: coordinates, directions and channels exactly as in
// doc/model.md ("Topology").  Geometry only; faults live in Network.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace angara {

constexpr int kMaxDims = 4;
constexpr int kDirectionCount = 2 * kMaxDims;  // +X +Y +Z +K -X -Y -Z -K

using NodeId = std::uint32_t;
using ChannelId = std::uint32_t;
constexpr NodeId kNoNode = 0xFFFFFFFFu;

using Coord = std::array<int, kMaxDims>;

// A direction is identified by its rank in the Angara direction order
// +X < +Y < +Z < +K < -X < -Y < -Z < -K (ANSU paper, section 2.1), so
// comparing ranks compares directions in DOR.
class Direction {
 public:
  constexpr Direction() = default;
  constexpr explicit Direction(int rank) : rank_(static_cast<std::uint8_t>(rank)) {}
  static constexpr Direction make(int dim, bool negative) {
    return Direction(dim + (negative ? kMaxDims : 0));
  }
  // Parses "+X", "-K", ...; nullopt for anything else.
  static std::optional<Direction> parse(std::string_view token);

  constexpr int rank() const { return rank_; }
  constexpr int dim() const { return rank_ % kMaxDims; }
  constexpr bool negative() const { return rank_ >= kMaxDims; }
  constexpr bool positive() const { return !negative(); }
  constexpr int step() const { return negative() ? -1 : +1; }
  constexpr Direction opposite() const { return make(dim(), !negative()); }
  std::string token() const;  // "+X"

  friend constexpr bool operator==(Direction a, Direction b) { return a.rank_ == b.rank_; }
  friend constexpr bool operator!=(Direction a, Direction b) { return a.rank_ != b.rank_; }
  friend constexpr bool operator<(Direction a, Direction b) { return a.rank_ < b.rank_; }
  friend constexpr bool operator<=(Direction a, Direction b) { return a.rank_ <= b.rank_; }
  friend constexpr bool operator>(Direction a, Direction b) { return a.rank_ > b.rank_; }

 private:
  std::uint8_t rank_ = 0;
};

char dimension_letter(int dim);  // 'X', 'Y', 'Z', 'K'

// Bit `dim` of a dimension mask (single-cabled dimensions).
constexpr std::uint8_t dimension_bit(int dim) { return static_cast<std::uint8_t>(1u << dim); }

// Sizes of a 1- to 4-dimensional torus, and its cabling.  A size of 1 means
// the dimension is absent; sizes >= 3 are rings; a size of 2 has two parallel
// cables, unless it is single-cabled (doc/model.md, "Channels and cabling"):
// then only the +D port of the node at coordinate 0 and the -D port of the
// node at 1 have a cable, and the other two ports of the pair have none.
class Torus {
 public:
  // Throws std::invalid_argument for fewer than 1 or more than 4 sizes, a
  // size below 1, or no dimension of size >= 2.
  explicit Torus(std::array<int, kMaxDims> sizes, int declared_dims = kMaxDims);
  // Parses "4x2x2x2".  Throws std::invalid_argument with what was expected.
  static Torus parse(std::string_view text);

  int size(int dim) const { return sizes_[dim]; }
  const std::array<int, kMaxDims>& sizes() const { return sizes_; }
  // Number of dimensions written in the machine's description (2 for "4x4"):
  // coordinates are printed with this many components.
  int declared_dims() const { return declared_dims_; }
  // Dimensions with size >= 2: the n of the routing graph.
  int present_dims() const { return present_dims_; }
  bool dim_present(int dim) const { return sizes_[dim] >= 2; }
  bool direction_present(Direction d) const { return dim_present(d.dim()); }

  // ---- cabling ----------------------------------------------------------
  // The single-cabled dimensions as a mask of dimension_bit(dim); 0 when
  // every size-2 dimension has its two cables (the default).
  std::uint8_t single_cable_mask() const { return single_cable_; }
  bool single_cabled(int dim) const { return (single_cable_ & dimension_bit(dim)) != 0; }
  // This torus with exactly the dimensions of `mask` single-cabled.  Throws
  // std::invalid_argument naming a dimension that is absent or not of size 2.
  Torus with_single_cable(std::uint8_t mask) const;
  // "YZK" for a mask (letters in dimension order), "" for none.
  static std::string dimension_letters(std::uint8_t mask);
  // Parses letters like "YZK" (any order) into a mask; "" and "none" are 0.
  // Throws std::invalid_argument for another character or a repeated letter.
  static std::uint8_t parse_dimension_letters(std::string_view text);
  // Whether the port `d` of `node` has a cable: its dimension is present
  // and, when single-cabled, d is +D at coordinate 0 or -D at coordinate 1.
  // Channel slots without a cable are never live (Network).
  bool cabled(NodeId node, Direction d) const {
    if (!direction_present(d)) return false;
    if (!single_cabled(d.dim())) return true;
    return static_cast<int>((node / stride_[d.dim()]) % 2) == (d.negative() ? 1 : 0);
  }
  bool channel_cabled(ChannelId c) const { return cabled(channel_node(c), channel_direction(c)); }
  // Channels of the intact machine: 2 * present_dims * |N| less the two
  // missing ports of every single-cabled pair.
  std::size_t cabled_channel_count() const;
  // Why a port without a cable cannot be used, for error messages:
  // "port +Y of 0,1,0,0 has no cable (Y is single-cabled: only +Y at Y=0 and
  // -Y at Y=1 are cabled)"; for an absent dimension it says so.
  std::string missing_cable_text(NodeId node, Direction d) const;
  // The first hop of a walk from `node` that leaves through a port without a
  // cable (its index), or hops.size() when every port is cabled.
  std::size_t first_uncabled_hop(NodeId node, const std::vector<Direction>& hops, NodeId* at = nullptr) const;

  NodeId node_count() const { return node_count_; }
  // id, coord and neighbor are in the header: hot loops of every generator
  // and of select call them per channel.
  NodeId id(const Coord& c) const {
    NodeId node = 0;
    for (int dim = 0; dim < kMaxDims; ++dim) node += static_cast<NodeId>(c[dim]) * stride_[dim];
    return node;
  }
  Coord coord(NodeId node) const {
    Coord c{};
    for (int dim = 0; dim < kMaxDims; ++dim) c[dim] = static_cast<int>((node / stride_[dim]) % sizes_[dim]);
    return c;
  }
  bool valid(const Coord& c) const;
  NodeId neighbor(NodeId node, Direction d) const {
    const int dim = d.dim();
    const int size = sizes_[dim];
    const int here = static_cast<int>((node / stride_[dim]) % size);
    const int there = (here + d.step() + size) % size;
    return node + static_cast<NodeId>(there - here) * stride_[dim];
  }
  // A walk that keeps its coordinates, so that a hop costs no division
  // (neighbor() divides to find the coordinate it leaves): for the loops
  // that walk a hundred thousand routes hop by hop.
  class Cursor {
   public:
    Cursor(const Torus& torus, NodeId node) : Cursor(torus, node, torus.coord(node)) {}
    // With the node's coordinates known already.
    Cursor(const Torus& torus, NodeId node, const Coord& coord) : torus_(&torus), node_(node), coord_(coord) {}
    NodeId node() const { return node_; }
    const Coord& coord() const { return coord_; }
    // To neighbor(node(), d); d's dimension must be present.
    void step(Direction d) {
      const int dim = d.dim();
      const int last = torus_->sizes_[dim] - 1;
      const NodeId stride = torus_->stride_[dim];
      int& at = coord_[dim];
      if (d.positive()) {
        if (at == last) {
          at = 0;
          node_ -= static_cast<NodeId>(last) * stride;
        } else {
          ++at;
          node_ += stride;
        }
      } else if (at == 0) {
        at = last;
        node_ += static_cast<NodeId>(last) * stride;
      } else {
        --at;
        node_ -= stride;
      }
    }

   private:
    const Torus* torus_;
    NodeId node_;
    Coord coord_;
  };

  // Every (node, direction) slot has an id; slots of absent dimensions exist
  // but are never live.  ChannelId = node * 8 + direction rank.
  ChannelId channel_slots() const { return node_count_ * kDirectionCount; }
  static ChannelId channel(NodeId node, Direction d) {
    return node * kDirectionCount + static_cast<ChannelId>(d.rank());
  }
  static NodeId channel_node(ChannelId c) { return c / kDirectionCount; }
  static Direction channel_direction(ChannelId c) { return Direction(static_cast<int>(c % kDirectionCount)); }
  // The channel at the other end of the same cable, travelling back.
  ChannelId reverse_channel(ChannelId c) const;

  // Hops along one dimension between two coordinates on a shortest arc.
  int ring_distance(int dim, int from, int to) const;
  // Sum of ring distances over all dimensions: the minimal route length.
  int distance(NodeId a, NodeId b) const;

  std::string format_coord(const Coord& c) const;  // "1,0,0,0"
  std::string format_coord(NodeId node) const { return format_coord(coord(node)); }
  // Parses "1,0,0,0" (declared_dims components). Throws std::invalid_argument.
  Coord parse_coord(std::string_view text) const;
  std::string to_string() const;  // "4x2x2x2" (sizes only)
  // Sizes and cabling for people: "4x2x2x2" or "4x2x2x2 single_cable=YZK".
  std::string description() const;

  friend bool operator==(const Torus& a, const Torus& b) {
    return a.sizes_ == b.sizes_ && a.declared_dims_ == b.declared_dims_ && a.single_cable_ == b.single_cable_;
  }
  friend bool operator!=(const Torus& a, const Torus& b) { return !(a == b); }

 private:
  std::array<int, kMaxDims> sizes_{};
  std::array<NodeId, kMaxDims> stride_{};
  int declared_dims_ = 0;
  int present_dims_ = 0;
  NodeId node_count_ = 0;
  std::uint8_t single_cable_ = 0;
};

}  // namespace angara
