// Slurm's node order along the torus: the machine cut into nested blocks
// (the order of the node lines `angara-route slurm-conf` writes, and the
// switches of its topology.conf), and Slurm's linear best fit along an
// order, which node selection compares its choice with.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "placement/blocks.hpp"

namespace angara {

// The machine cut into nested blocks, halving one dimension per level (the
// space-filling order `angara-route slurm-conf` gives Slurm): a dimension the
// block spans at size 2 of the machine first, highest dimension first (its
// halves are sub-tori: only the pair's cables are cut); otherwise the
// dimension of the largest extent, highest first, into ceil/floor halves.
// On Desmos 4x2x2x2 the levels are 4x2x2 (16 nodes), 4x2 (8), the X ring
// (4), 2 and 1: any run of the order aligned to a level is a block of it.
struct NestedBlock {
  Shape shape{};
  Coord origin{};
  std::size_t first = 0;  // its nodes are order[first, first + count)
  std::size_t count = 0;
  int level = 0;                     // 0: the machine
  std::string path;                  // "" for the machine, then '0'/'1' per level (lower/upper half)
  std::vector<std::size_t> children; // indices into NestedBlocks::blocks; empty for a single node
};
struct NestedBlocks {
  std::vector<NodeId> order;         // every node of the torus, block after block
  std::vector<NestedBlock> blocks;   // blocks[0] is the machine; parents before children
};
NestedBlocks nested_blocks(const Torus& torus);

// Slurm-like best fit along `order` (select/linear over slurm.conf order):
// the first `count` nodes of the smallest run of consecutive free nodes
// that holds them, else of the largest runs first.  Sorted; shorter than
// `count` when fewer nodes are free.
std::vector<NodeId> best_fit_run(const std::vector<NodeId>& order, const std::vector<unsigned char>& free,
                                 std::size_t count);

// Slurm's topology/tree selection (select/cons_tres with topology/tree,
// _eval_nodes_topo in Slurm 22.05) over the switches `angara-route
// slurm-conf --topology` writes: one switch per nested block, blocks of
// `leaf_size` nodes or fewer (or single nodes) being leaf switches.  The
// lowest-level switch with enough free nodes, the fewest free at that level
// (best fit), the first in node order on a tie; inside it, the leaf that
// holds the rest with the fewest free nodes, else the leaf with the most,
// until the job is complete, each leaf's free nodes in node order.  A model
// of Slurm's choice, not its code.  Sorted; empty when fewer than `count`
// nodes are free.
std::vector<NodeId> tree_best_fit(const NestedBlocks& blocks, const std::vector<unsigned char>& free,
                                  std::size_t count, std::size_t leaf_size);

}  // namespace angara
