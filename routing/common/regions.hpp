// The HiRy theory (Kawano et al., "HiRy: An Advanced Theory on Design of
// Deadlock-free Adaptive Routing for Arbitrary Topologies", Sec. III): the
// direction of a channel in an n-dimensional space as a region, partitions
// of regions, their order, and the theorem's condition under which routing
// that follows the order is deadlock-free; and the partitions of one virtual
// channel that the routing method of Sec. IV builds (Alg. 2).
//
// Nothing here knows a network: a generator maps each channel to the region
// of its displacement and each (channel, virtual channel) to a partition.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace angara {

// Sec. III-B: per axis the sign of a direction's coordinate, -1, 0 or +1,
// not all 0.  An n-sphere splits into 3^n - 1 regions (the Lemma).
struct Region {
  std::vector<int> signs;

  Region opposite() const;  // every sign flipped: a 180-degree turn's other end
  int nonzero_axes() const;
  std::string to_string() const;  // "{X-, Y0}"; axes named X, Y, Z, K, then A4...
  friend bool operator==(const Region& a, const Region& b) { return a.signs == b.signs; }
  friend bool operator!=(const Region& a, const Region& b) { return !(a == b); }
  friend bool operator<(const Region& a, const Region& b) { return a.signs < b.signs; }
};

// The region of a displacement vector (its signs); throws
// std::invalid_argument for the zero vector.
Region region_of(const std::vector<int>& displacement);
// All 3^n - 1 regions of an n-dimensional space, in a fixed order.
std::vector<Region> all_regions(int n);
// The position of `region` in all_regions(n) (a base-3 number).
std::size_t region_index(const Region& region);

// Sec. III-B: regions whose channels packets of one virtual channel use
// arbitrarily and repeatedly, except 180-degree turns.  Lemma 2: along the
// complete axis the channels may be used in a strict order; `first_sign`
// (-1 or +1; 0: none) is the sign used first, and the 180-degree turn from
// it to the other sign is then permitted (West-First's S -> N).
struct Partition {
  std::vector<Region> regions;
  int virtual_channel = 0;
  int complete_axis = -1;  // Lemma 2's axis, -1: not stated
  int first_sign = 0;

  bool contains(const Region& region) const;
  std::string to_string() const;  // "VC0 {X-, Y0} {X0, Y+}"
};

// Lemma 1: the axes whose positive and negative coordinates both occur among
// the partition's regions (at most one for the lemma to hold).
std::vector<int> axes_with_both_signs(const Partition& partition);

// The theorem (Sec. III-C) for partitions in their order: no region in two
// partitions of one virtual channel, each partition within Lemma 1, and a
// 180-degree turn inside a partition only along its complete axis from
// `first_sign` (Lemma 2).  "" when it holds, otherwise the reason.
std::string hiry_condition_violation(const std::vector<Partition>& ordered);

// Ordered partitions: which turns between channels they permit.  Channels
// are named by region and virtual channel; a channel whose region is in no
// partition of its virtual channel is not used at all.
class PartitionOrder {
 public:
  explicit PartitionOrder(std::vector<Partition> ordered);
  const std::vector<Partition>& partitions() const { return ordered_; }
  // The position of the partition holding (region, vc), -1 when none.
  int rank(const Region& region, int virtual_channel) const;
  // A packet on `from` may go on to `to`: a later partition, or the same
  // one without a 180-degree turn (but for Lemma 2's ordered one).
  bool turn_permitted(const Region& from, int from_vc, const Region& to, int to_vc) const;

 private:
  std::vector<Partition> ordered_;
};

// Alg. 2 (Sec. IV-B): the partitions of virtual channel `vc` in an
// n-dimensional space with complete axis `complete_axis`: one per orthant
// of the other n-1 axes (2^(n-1)) holding (1) its orthant regions with any
// sign on the complete axis, (2) each boundary region between orthants in
// one partition next to it, and (3) the two directions of the complete
// axis in two different partitions, so that no partition has a 180-degree
// turn.  `choose(k)` picks one of k candidates (the paper picks at random),
// in the order: boundary regions, then the partition of the positive and
// of the negative direction.  For n = 1 (a ring) the two directions are
// two partitions.  Every region is in exactly one partition.
std::vector<Partition> vc_partitions(int n, int complete_axis, int vc,
                                     const std::function<std::size_t(std::size_t)>& choose);

}  // namespace angara
