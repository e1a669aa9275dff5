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

}  // namespace angara
