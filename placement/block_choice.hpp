// The machine-wide placement objective, by geometry alone: which free block
// a job should get so that its routes stay on its own routers and the
// machine stays packable for the jobs after it.  No route is computed, so
// the choice fits inside a Slurm select plugin's job test (a few
// milliseconds on a 4096-node machine) and a trace replay of thousands of
// jobs; `angara-route select` starts from it and confirms it by routing.
//
// The order of the objective (doc/placement.md):
//   1. isolation: a block whose every minimal route between two of its
//      nodes stays inside it (isolated_shape), so no other job's traffic
//      crosses its routers and its traffic crosses no other job's;
//   2. no failed cable inside (a detour around one may leave the block);
//   3. what it leaves for later jobs: the most taken or failed nodes right
//      outside it (it fills a hole or leans on a wall instead of cutting
//      the free space in two);
//   4. the fewest channels of its routers already carrying running jobs'
//      routes (when they are known).  After 3, not before: packing first
//      isolates more later jobs, and those share fewer channels with the
//      jobs around them too (trace replay, doc/benchmarks.md);
//   5. its own max load: the shape's lower bound on the intact machine,
//      then its mean distance;
//   6. the lowest origin (deterministic).
// When no free block has exactly the asked count, the smallest free isolated
// box that holds it is offered instead (`exact` false): the job takes that
// many of its nodes and its routes still stay inside the box.
//
// With routing.confine (BlockChoiceRequest::confined) a job's routes are
// computed on its own routers alone, and a set keeps them there when every
// pair has a route inside it.  Every block has (direction order inside the
// box), whatever its shape; so has every staircase (an order filter: with
// each node, every node between it and the anchor corner in every
// dimension, see box_staircase), as a route in direction order takes its
// positive hops first, to a node above both ends, then its negative ones,
// and stays above the destination.  The choice is then: an exact block of
// any shape, else the staircase of `count` nodes in the smallest free
// isolated box, which leaves the box's other routers free, else the best
// free staircase anywhere (`staircase`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "placement/blocks.hpp"

namespace angara {

// True when every minimal route between two nodes of a block of this shape
// stays inside it: per dimension the block spans 1, the whole ring, or an
// arc whose inside way between any two of its coordinates is strictly
// shorter than the way round (2 * (extent - 1) < ring size).
bool isolated_shape(const Torus& torus, const Shape& shape);

struct FreeBlock {
  Shape shape{};
  Coord origin{};
  // Sorted; the whole box (more than asked when not exact), or with
  // `confined` requests exactly the job's nodes (a box's staircase, or a
  // free staircase whose bounding box `shape` and `origin` give).
  std::vector<NodeId> nodes;
  bool isolated = false;
  // Isolated only because its job's routes are computed inside it
  // (BlockChoiceRequest::confined): its shape is not isolated_shape.
  bool confined = false;
  std::size_t failed_links_inside = 0;  // failed channels between two of its nodes
  std::int64_t busy_ports = 0;          // its routers' channels carrying running jobs' routes
  std::size_t contact = 0;              // taken or failed nodes right outside it
  std::uint64_t lower_bound = 0;        // of the shape on the intact machine
  double average_distance = 0;
};

struct BlockChoiceRequest {
  std::size_t node_count = 0;
  // Per NodeId, nonzero when the node may be given to the job.  Empty:
  // every live node.  Failed nodes are never chosen.
  std::vector<unsigned char> free;
  // Per NodeId, channels leaving it that running jobs' routes use.  Empty:
  // unknown (counted as none).
  std::vector<std::uint32_t> busy_ports;
  // Best blocks kept, best first (fallbacks for a caller that routes them).
  std::size_t keep = 1;
  // The largest box tried when no block of exactly node_count is free, as
  // a multiple of node_count.
  double largest_box_factor = 2.0;
  // The job's routes will be computed inside the block or box it gets
  // (routing.confine: the routers outside it count as absent), so every
  // shape keeps them on its routers, not only isolated_shape ones.
  bool confined = false;
  // The intact-machine bounds of the shape classes met so far, kept across
  // calls by a caller that chooses often on one machine (select/angara's
  // job test): they depend on the torus and the shape alone, and computing
  // them is most of a choice's time on large blocks (about 200 ms for 512
  // nodes of 8x8x8x8).  Null: computed for this call only.  Only for one
  // torus; not shared between threads.
  std::map<ShapeClassKey, IntactBound>* bound_cache = nullptr;
};

struct BlockChoice {
  std::vector<FreeBlock> blocks;  // best first; empty: none
  bool exact = true;              // the boxes have exactly node_count nodes
  bool staircase = false;         // confined: no block or box was free; a free staircase
  std::size_t considered = 0;     // free origins scored
  std::string reason;             // when empty: why no block was found
};

// Every free block of a shape, with its busy ports and contact, by sliding
// sums over the torus (BoxSums): O(dims * nodes) per shape.  Shared by the
// choice below and the selector's candidates (placement.hpp).
class BlockScanner {
 public:
  // `free` per NodeId (nonzero: may be given), `busy_ports` per NodeId or
  // empty.
  BlockScanner(const Network& network, const std::vector<unsigned char>& free,
               const std::vector<std::uint32_t>& busy_ports);
  // Calls visit(origin, busy_ports, contact) for every origin of a free
  // block of `shape` (one origin per distinct block along whole rings).
  void scan(const Shape& shape, const std::function<void(const Coord&, std::int64_t, std::size_t)>& visit);
  std::size_t failed_links_inside(const Shape& shape, const Coord& origin) const;
  // Whether any block of `shape` is free (one pass of sliding sums, cached).
  bool any_free(const Shape& shape);
  std::size_t origins_scanned() const { return scanned_; }

 private:
  const Network& network_;
  const Torus& torus_;
  BoxSums taken_;
  BoxSums busy_;
  bool any_busy_ = false;
  std::size_t scanned_ = 0;
};

// The region a set's minimal routes can take: per dimension the shortest
// cyclic arc that covers its coordinates, or the whole ring when the arc is
// not isolated (2 * (extent - 1) >= ring size: a minimal route between its
// ends may go the way round).  For an isolated block it is the block itself.
struct RouteRegion {
  Shape shape{};
  Coord origin{};
};
RouteRegion route_region(const Torus& torus, const std::vector<NodeId>& nodes);
// The live channels between two routers of the region: those an isolated
// block's routes can use, a superset of any other set's.
std::vector<ChannelId> region_channels(const Network& network, const RouteRegion& region);

// The per-dimension volume bound of a set on the intact machine, in
// O(nodes + ring sizes^2): per dimension, the hops its minimal routes make
// along it (from the histogram of its coordinates) over the channels of
// that dimension in its route region, the largest of these rounded up; and
// its mean distance.  Weaker than intact_bound (which looks at cuts, and
// costs seconds for 256 scattered nodes of 8x8x8x8), but a closed form:
// select ranks scattered sets on large machines with it.
IntactBound region_bound(const Torus& torus, const std::vector<NodeId>& nodes);

// The last `count` nodes of the box in its own order (X fastest from its
// origin): whole rows and planes and the part-filled one at the low end,
// an order filter towards the box's top corner.  Sorted by NodeId.
std::vector<NodeId> box_staircase(const Torus& torus, const Shape& shape, const Coord& origin, std::size_t count);

// The best free staircase of `count` nodes: from an anchor router, the
// nodes reached by negative hops whose every neighbour one hop nearer the
// anchor (in each dimension) is in the set, nearest first, so the set is an
// order filter of its bounding box.  Among anchors: the fewest failed
// cables inside, the most taken or failed nodes around it, the smallest
// sum of distances to the anchor.  On a single-cabled dimension of size 2
// only an anchor at coordinate 1 reaches the other coordinate (its one
// cable goes up from 0).  Stops after `work` node visits (the best so far).
// With `skin`, a node one negative hop below the filter joins too (the
// filter's skin): its routes take a First Step up into the filter and a
// Last Step down from it (doc/model.md, "Routing rules"), which is what the
// hardware has them for; such sets need checked turns (routing.confine
// falls back to the live network when their table is refused).
std::optional<FreeBlock> free_staircase(const Network& network, const std::vector<unsigned char>& free,
                                        std::size_t count, std::size_t work = 4'000'000, bool skin = false);

// Throws PlacementError for a zero count or a mask of the wrong size.
BlockChoice choose_free_block(const Network& network, const BlockChoiceRequest& request);

// The largest free isolated block (what a pick leaves for later jobs),
// or nullopt when no node is free.  A shape has a free block only if every
// shape one allowed extent smaller in one dimension has (a sub-box of a free
// box is free), so the isolated shapes are tried by increasing volume and
// only those whose smaller neighbours all have one are scanned: a few
// milliseconds on a fragmented 4096-node machine.
std::optional<FreeBlock> largest_free_block(const Network& network, const std::vector<unsigned char>& free);

// The most free live nodes that live cables connect to each other: no set
// larger than this has a table on its own routers (routing.confine), since
// its routes could not leave it.  O(nodes).
std::size_t largest_free_component(const Network& network, const std::vector<unsigned char>& free);

// Strict-weak "better" of the objective above (true when a ranks first).
bool better_block(const FreeBlock& a, const FreeBlock& b);

}  // namespace angara
