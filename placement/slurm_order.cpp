#include "placement/slurm_order.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace angara {

namespace {

// Which dimension a block is halved along (NestedBlocks, slurm_order.hpp),
// -1 for a single node.
int split_dimension(const Torus& torus, const Shape& shape) {
  for (int dim = kMaxDims - 1; dim >= 0; --dim)
    if (torus.size(dim) == 2 && shape[dim] == 2) return dim;
  int best = -1;
  for (int dim = kMaxDims - 1; dim >= 0; --dim)
    if (shape[dim] >= 2 && (best < 0 || shape[dim] > shape[best])) best = dim;
  return best;
}

void add_nested_block(const Torus& torus, const Shape& shape, const Coord& origin, int level, std::string path,
                      NestedBlocks& out) {
  const std::size_t index = out.blocks.size();
  out.blocks.emplace_back();
  {
    NestedBlock& block = out.blocks.back();
    block.shape = shape;
    block.origin = origin;
    block.first = out.order.size();
    block.count = shape_volume(shape);
    block.level = level;
    block.path = path;
  }
  const int dim = split_dimension(torus, shape);
  if (dim < 0) {
    out.order.push_back(torus.id(origin));
    return;
  }
  Shape lower = shape, upper = shape;
  lower[dim] = (shape[dim] + 1) / 2;
  upper[dim] = shape[dim] - lower[dim];
  Coord upper_origin = origin;
  upper_origin[dim] = (origin[dim] + lower[dim]) % torus.size(dim);
  out.blocks[index].children.push_back(out.blocks.size());
  add_nested_block(torus, lower, origin, level + 1, path + '0', out);
  out.blocks[index].children.push_back(out.blocks.size());
  add_nested_block(torus, upper, upper_origin, level + 1, path + '1', out);
}

}  // namespace

NestedBlocks nested_blocks(const Torus& torus) {
  NestedBlocks out;
  out.order.reserve(torus.node_count());
  out.blocks.reserve(2 * torus.node_count());
  add_nested_block(torus, torus.sizes(), Coord{}, 0, "", out);
  return out;
}

std::vector<NodeId> best_fit_run(const std::vector<NodeId>& order, const std::vector<unsigned char>& free,
                                 std::size_t count) {
  std::vector<std::pair<std::size_t, std::size_t>> runs;  // (start, length) along order
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j < order.size() && free[order[j]]) ++j;
    if (j > i) runs.emplace_back(i, j - i);
    i = j + 1;
  }
  std::vector<NodeId> nodes;
  const auto fit = std::min_element(runs.begin(), runs.end(), [count](const auto& a, const auto& b) {
    const bool a_fits = a.second >= count, b_fits = b.second >= count;
    if (a_fits != b_fits) return a_fits;
    return a_fits ? a.second < b.second : a.second > b.second;
  });
  if (fit != runs.end() && fit->second >= count) {
    for (std::size_t i = 0; i < count; ++i) nodes.push_back(order[fit->first + i]);
  } else {
    std::stable_sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& run : runs)
      for (std::size_t i = 0; i < run.second && nodes.size() < count; ++i) nodes.push_back(order[run.first + i]);
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

std::vector<NodeId> tree_best_fit(const NestedBlocks& blocks, const std::vector<unsigned char>& free,
                                  std::size_t count, std::size_t leaf_size) {
  const std::size_t block_count = blocks.blocks.size();
  const auto is_leaf = [&](const NestedBlock& block) { return block.count <= leaf_size || block.children.empty(); };
  // The switches (blocks[0] down to the leaves), their levels (leaves 0)
  // and free nodes; parents come before children, so one pass backwards.
  std::vector<unsigned char> is_switch(block_count, 0);
  is_switch[0] = 1;
  for (std::size_t i = 0; i < block_count; ++i)
    if (is_switch[i] && !is_leaf(blocks.blocks[i]))
      for (std::size_t child : blocks.blocks[i].children) is_switch[child] = 1;
  std::vector<int> level(block_count, 0);
  std::vector<std::size_t> free_nodes(block_count, 0);
  for (std::size_t i = block_count; i-- > 0;) {
    if (!is_switch[i]) continue;
    const NestedBlock& block = blocks.blocks[i];
    if (is_leaf(block)) {
      for (std::size_t k = block.first; k < block.first + block.count; ++k) free_nodes[i] += free[blocks.order[k]] != 0;
      continue;
    }
    for (std::size_t child : block.children) {
      level[i] = std::max(level[i], level[child] + 1);
      free_nodes[i] += free_nodes[child];
    }
  }
  std::vector<NodeId> nodes;
  if (count == 0 || free_nodes[0] < count) return nodes;
  std::size_t top = 0;
  for (std::size_t i = 0; i < block_count; ++i) {
    if (!is_switch[i] || free_nodes[i] < count) continue;
    if (level[i] < level[top] || (level[i] == level[top] && free_nodes[i] < free_nodes[top])) top = i;
  }
  std::vector<std::size_t> leaves;
  std::vector<std::size_t> stack{top};
  while (!stack.empty()) {
    const std::size_t i = stack.back();
    stack.pop_back();
    if (is_leaf(blocks.blocks[i])) {
      if (free_nodes[i] > 0) leaves.push_back(i);
    } else {
      for (auto child = blocks.blocks[i].children.rbegin(); child != blocks.blocks[i].children.rend(); ++child)
        stack.push_back(*child);
    }
  }
  std::vector<unsigned char> used(leaves.size(), 0);
  while (nodes.size() < count) {
    const std::size_t rest = count - nodes.size();
    std::size_t pick = leaves.size();
    for (std::size_t l = 0; l < leaves.size(); ++l) {
      if (used[l]) continue;
      const std::size_t have = free_nodes[leaves[l]];
      if (pick == leaves.size()) {
        pick = l;
        continue;
      }
      const std::size_t best = free_nodes[leaves[pick]];
      const bool fits = have >= rest, best_fits = best >= rest;
      if (fits != best_fits ? fits : (fits ? have < best : have > best)) pick = l;
    }
    if (pick == leaves.size()) break;
    used[pick] = 1;
    const NestedBlock& leaf = blocks.blocks[leaves[pick]];
    for (std::size_t k = leaf.first; k < leaf.first + leaf.count && nodes.size() < count; ++k)
      if (free[blocks.order[k]]) nodes.push_back(blocks.order[k]);
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

}  // namespace angara
