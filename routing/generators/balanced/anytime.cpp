// The balanced generator's first table under a short time budget (anytime.hpp).
#include "routing/generators/balanced/anytime.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>
#include <utility>

#include "angara/torus.hpp"
#include "routing/generators/balanced/block.hpp"

namespace angara::balanced {

namespace {

// Whether a limited budget holds less than `per_pair` steps for each ordered
// pair of `nodes` allocated nodes.
bool left_below(const WorkBudget* budget, std::size_t nodes, std::uint64_t per_pair) {
  if (!budget || budget->unlimited()) return false;
  const std::uint64_t pairs = static_cast<std::uint64_t>(nodes) * nodes;
  const std::uint64_t left = budget->exhausted() ? 0 : budget->limit() - budget->used();
  return left < per_pair * pairs;
}

// Whether the direction-order table with ring ties split by the source's
// parity (dimension_order_table) has a lower max load than the one with every
// tie the positive way: both tables' loads, counted over every pair's route.
// Neither wins everywhere, and the max sits on channels next to a few
// sources (a source sends about half its routes out on +X), which a sample
// of sources misses: on a random half of 8x8x8x8 the split gives 2118
// against 2622, on the first 1024 free nodes of a half-busy one 1613
// against 1330.
bool split_ties_lower(const Torus& torus, const std::vector<NodeId>& nodes) {
  // Per dimension: its size and node-id stride; and whether the two tables
  // differ at all (some dimension has a tie they send different ways).
  std::array<int, kMaxDims> size{};
  std::array<NodeId, kMaxDims> stride{};
  bool any_tie_dimension = false;
  NodeId step = 1;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    size[dim] = torus.size(dim);
    stride[dim] = step;
    step *= static_cast<NodeId>(size[dim]);
    const int half = size[dim] / 2;  // a tie from an odd coordinate
    const bool ties_differ = size[dim] % 2 == 0 && dimension_order_negative(torus, dim, 1, half, true) !=
                                                       dimension_order_negative(torus, dim, 1, half, false);
    any_tie_dimension = any_tie_dimension || ties_differ;
  }
  if (!any_tie_dimension) return false;
  std::vector<Coord> coords;
  coords.reserve(nodes.size());
  for (NodeId node : nodes) coords.push_back(torus.coord(node));
  // The routes the two tables share are counted once.
  std::vector<std::uint64_t> common(torus.channel_slots(), 0), positive(common), split(common);
  std::array<int, kMaxDims> forward{};
  std::array<bool, kMaxDims> positive_negative{}, split_negative{};  // per table, the way of each dimension
  // One route as dimension_order_table builds it: the positive runs in
  // dimension order first, then the negative ones, a hop at a time.
  const auto walk = [&](std::size_t s, const std::array<bool, kMaxDims>& negative, std::vector<std::uint64_t>& load) {
    NodeId at = nodes[s];
    for (const bool negative_pass : {false, true})
      for (int dim = 0; dim < kMaxDims; ++dim) {
        if (forward[dim] == 0 || negative[dim] != negative_pass) continue;
        const int n = size[dim];
        const auto rank = static_cast<ChannelId>(Direction::make(dim, negative[dim]).rank());
        int position = coords[s][dim];
        for (int k = negative[dim] ? n - forward[dim] : forward[dim]; k > 0; --k) {
          ++load[at * kDirectionCount + rank];
          if (negative[dim]) {
            at = position == 0 ? at + static_cast<NodeId>(n - 1) * stride[dim] : at - stride[dim];
            position = position == 0 ? n - 1 : position - 1;
          } else {
            at = position == n - 1 ? at - static_cast<NodeId>(n - 1) * stride[dim] : at + stride[dim];
            position = position == n - 1 ? 0 : position + 1;
          }
        }
      }
  };
  for (std::size_t s = 0; s < nodes.size(); ++s) {
    const Coord& from = coords[s];
    for (std::size_t d = 0; d < nodes.size(); ++d) {
      if (d == s) continue;
      bool differs = false;  // a tie the split table sends the other way
      for (int dim = 0; dim < kMaxDims; ++dim) {
        const int f = coords[d][dim] - from[dim];
        forward[dim] = f < 0 ? f + size[dim] : f;
        if (forward[dim] == 0) continue;  // no run: its way is never asked
        positive_negative[dim] = dimension_order_negative(torus, dim, from[dim], forward[dim], false);
        split_negative[dim] = dimension_order_negative(torus, dim, from[dim], forward[dim], true);
        differs = differs || positive_negative[dim] != split_negative[dim];
      }
      if (!differs) {
        walk(s, positive_negative, common);
        continue;
      }
      walk(s, positive_negative, positive);
      walk(s, split_negative, split);
    }
  }
  std::uint64_t positive_peak = 0, split_peak = 0;
  for (std::size_t c = 0; c < common.size(); ++c) {
    positive_peak = std::max(positive_peak, common[c] + positive[c]);
    split_peak = std::max(split_peak, common[c] + split[c]);
  }
  return split_peak < positive_peak;
}

}  // namespace

bool budget_below_fixed_stages(const WorkBudget* budget, std::size_t nodes) {
  return left_below(budget, nodes, kFixedWorkPerPair);
}

bool budget_binds(const WorkBudget* budget, std::size_t nodes) {
  return left_below(budget, nodes, kBindingShare * kFixedWorkPerPair);
}

bool budget_cuts_refinement(const WorkBudget* budget, std::size_t nodes) {
  return left_below(budget, nodes, kFullRefinementWorkPerPair);
}

bool budget_below_turn_set(const WorkBudget* budget, std::size_t nodes) {
  return left_below(budget, nodes, kTurnSetWorkPerPair);
}

bool direction_order_start(const Network& network, RouteTable& table, FlowControl rule, WorkBudget* budget) {
  if (block_table(network, table, rule)) return true;
  const Torus& torus = network.torus();
  if (rule != FlowControl::bubble || !network.every_port_live()) return false;
  std::string algorithm = table.algorithm;
  bool split = false;
  if (!left_below(budget, table.size(), kTieChoiceWorkPerPair)) {
    split = split_ties_lower(torus, table.nodes());
    if (budget) budget->spend(kTieChoiceWorkPerPair * table.size() * table.size());
  } else if (budget) {
    budget->note_cut("choice of the ring ties");
  }
  table = dimension_order_table(torus, table.nodes(), split);
  table.algorithm = std::move(algorithm);
  return true;
}

}  // namespace angara::balanced
