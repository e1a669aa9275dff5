// The balanced generator's first table under a short time budget (anytime.hpp).
#include "routing/generators/balanced/anytime.hpp"

#include <string>
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

bool direction_order_start(const Network& network, RouteTable& table, FlowControl rule) {
  if (block_table(network, table, rule)) return true;
  const Torus& torus = network.torus();
  if (rule != FlowControl::bubble || !network.every_port_live()) return false;
  std::string algorithm = table.algorithm;
  table = dimension_order_table(torus, table.nodes());
  table.algorithm = std::move(algorithm);
  return true;
}

}  // namespace angara::balanced
