// The balanced generator's first table under a short time budget (anytime.hpp).
#include "routing/generators/balanced/anytime.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>
#include <utility>

#include "angara/torus.hpp"
#include "routing/common/checked_turns.hpp"
#include "routing/generators/balanced/around_failures.hpp"
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

// x mod n for -n <= x < 2n, without a division.
int wrap_once(int x, int n) { return x < 0 ? x + n : x >= n ? x - n : x; }

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
  // The routes the two tables share are counted once.  A route is counted
  // run by run: a run of k hops on a ring covers an interval of its
  // positions, added to a difference array in O(1); one prefix pass per
  // ring at the end gives every channel's load.
  std::vector<std::int64_t> common(torus.channel_slots(), 0), positive(common), split(common);
  std::array<int, kMaxDims> forward{};
  std::array<bool, kMaxDims> positive_negative{}, split_negative{};  // per table, the way of each dimension
  const auto channel_at = [&](NodeId base, int dim, int position, ChannelId rank) {
    return (base + static_cast<NodeId>(position) * stride[dim]) * kDirectionCount + rank;
  };
  // One route as dimension_order_table builds it: the positive runs in
  // dimension order first, then the negative ones.
  const auto walk = [&](std::size_t s, const std::array<bool, kMaxDims>& negative, std::vector<std::int64_t>& diff) {
    NodeId at = nodes[s];
    Coord position = coords[s];
    for (const bool negative_pass : {false, true})
      for (int dim = 0; dim < kMaxDims; ++dim) {
        if (forward[dim] == 0 || negative[dim] != negative_pass) continue;
        const int n = size[dim];
        const int hops = negative[dim] ? n - forward[dim] : forward[dim];  // 0 < hops < n
        const auto rank = static_cast<ChannelId>(Direction::make(dim, negative[dim]).rank());
        const int p = position[dim];
        const NodeId base = at - static_cast<NodeId>(p) * stride[dim];
        const int lowest = negative[dim] ? wrap_once(p - hops + 1, n) : p;
        const int end = lowest + hops;
        ++diff[channel_at(base, dim, lowest, rank)];
        if (end < n) {
          --diff[channel_at(base, dim, end, rank)];
        } else if (end > n) {
          ++diff[channel_at(base, dim, 0, rank)];
          --diff[channel_at(base, dim, end - n, rank)];
        }
        position[dim] = wrap_once(negative[dim] ? p - hops : p + hops, n);
        at = base + static_cast<NodeId>(position[dim]) * stride[dim];
      }
  };
  // Per source, by dimension and destination coordinate: the forward
  // distance and each table's way.
  struct Way {
    int forward = 0;
    bool positive_negative = false, split_negative = false;
  };
  std::array<std::vector<Way>, kMaxDims> ways;
  for (int dim = 0; dim < kMaxDims; ++dim) ways[dim].resize(static_cast<std::size_t>(size[dim]));
  for (std::size_t s = 0; s < nodes.size(); ++s) {
    const Coord& from = coords[s];
    for (int dim = 0; dim < kMaxDims; ++dim)
      for (int to = 0; to < size[dim]; ++to) {
        Way& way = ways[dim][static_cast<std::size_t>(to)];
        way.forward = (to - from[dim] + size[dim]) % size[dim];
        if (way.forward == 0) continue;  // no run: its way is never asked
        way.positive_negative = dimension_order_negative(torus, dim, from[dim], way.forward, false);
        way.split_negative = dimension_order_negative(torus, dim, from[dim], way.forward, true);
      }
    for (std::size_t d = 0; d < nodes.size(); ++d) {
      if (d == s) continue;
      bool differs = false;  // a tie the split table sends the other way
      for (int dim = 0; dim < kMaxDims; ++dim) {
        const Way& way = ways[dim][static_cast<std::size_t>(coords[d][dim])];
        forward[dim] = way.forward;
        positive_negative[dim] = way.positive_negative;
        split_negative[dim] = way.split_negative;
        differs = differs || (way.forward != 0 && way.positive_negative != way.split_negative);
      }
      if (!differs) {
        walk(s, positive_negative, common);
        continue;
      }
      walk(s, positive_negative, positive);
      walk(s, split_negative, split);
    }
  }
  // Prefix sums along every ring (from its node at position 0), both
  // tables at once.
  std::int64_t positive_peak = 0, split_peak = 0;
  for (NodeId base = 0; base < torus.node_count(); ++base)
    for (int dim = 0; dim < kMaxDims; ++dim) {
      if ((base / stride[dim]) % static_cast<NodeId>(size[dim]) != 0) continue;  // not a ring's base
      for (const bool negative : {false, true}) {
        const auto rank = static_cast<ChannelId>(Direction::make(dim, negative).rank());
        std::int64_t positive_load = 0, split_load = 0;
        for (int position = 0; position < size[dim]; ++position) {
          const ChannelId c = channel_at(base, dim, position, rank);
          positive_load += common[c] + positive[c];
          split_load += common[c] + split[c];
          positive_peak = std::max(positive_peak, positive_load);
          split_peak = std::max(split_peak, split_load);
        }
      }
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

namespace {

// The direction-order table of `nodes`, its ring ties the way of the lower
// max load when the budget pays for counting both tables, else positive.
RouteTable tie_chosen_direction_order(const Torus& torus, const std::vector<NodeId>& nodes, WorkBudget* budget) {
  bool split = false;
  if (!left_below(budget, nodes.size(), kTieChoiceWorkPerPair)) {
    split = split_ties_lower(torus, nodes);
    if (budget) budget->spend(kTieChoiceWorkPerPair * nodes.size() * nodes.size());
  } else if (budget) {
    budget->note_cut("choice of the ring ties");
  }
  return dimension_order_table(torus, nodes, split);
}

// Per failure point and dimension, whether the point's coordinate lies on a
// shortest arc between a source's and a destination's (both arcs on a tie):
// a route that meets the point has it so in every dimension, so the pairs
// without are not walked.  Bits by (source value * size + target value).
class FailureFilter {
 public:
  FailureFilter(const Torus& torus, const std::vector<NodeId>& points) : torus_(torus), points_(points.size()) {
    for (NodeId point : points) {
      const Coord at = torus.coord(point);
      for (int dim = 0; dim < kMaxDims; ++dim) {
        const int size = torus.size(dim);
        std::vector<unsigned char> on(static_cast<std::size_t>(size) * size, 0);
        for (int a = 0; a < size; ++a)
          for (int b = 0; b < size; ++b) {
            const int forward = ((b - a) % size + size) % size, backward = (size - forward) % size;
            const int ahead = ((at[dim] - a) % size + size) % size, behind = (size - ahead) % size;
            on[static_cast<std::size_t>(a) * size + b] =
                (forward <= backward && ahead <= forward) || (backward <= forward && behind <= backward);
          }
        on_arc_.push_back(std::move(on));
      }
    }
  }
  // Whether the pair's route may meet a failure point.
  bool may_meet(const Coord& from, const Coord& to) const {
    for (std::size_t p = 0; p < points_; ++p) {
      bool all = true;
      for (int dim = 0; dim < kMaxDims && all; ++dim)
        all = on_arc_[p * kMaxDims + static_cast<std::size_t>(dim)]
                     [static_cast<std::size_t>(from[dim]) * torus_.size(dim) + static_cast<std::size_t>(to[dim])] != 0;
      if (all) return true;
    }
    return false;
  }

 private:
  const Torus& torus_;
  std::size_t points_;
  std::vector<std::vector<unsigned char>> on_arc_;  // [point * kMaxDims + dim]
};

}  // namespace

bool direction_order_start(const Network& network, RouteTable& table, FlowControl rule, WorkBudget* budget) {
  if (block_table(network, table, rule)) return true;
  const Torus& torus = network.torus();
  if (rule != FlowControl::bubble || !network.every_port_live()) return false;
  std::string algorithm = table.algorithm;
  table = tie_chosen_direction_order(torus, table.nodes(), budget);
  table.algorithm = std::move(algorithm);
  return true;
}

bool direction_order_around_failures(const Network& network, RouteTable& table, const GeneratorOptions& options) {
  const Torus& torus = network.torus();
  if (options.flow_control != FlowControl::bubble || table.size() < 2) return false;
  std::vector<NodeId> points = network.failed_nodes();  // a route meeting a failure passes one of them
  for (ChannelId link : network.failed_links()) points.push_back(Torus::channel_node(link));
  if (points.empty()) return false;

  RouteTable result = tie_chosen_direction_order(torus, table.nodes(), options.budget.get());
  result.algorithm = table.algorithm;
  result.rules = table.rules;
  result.flow_control = table.flow_control;
  // The pairs whose route meets a failure lose it.  Direction-order routes
  // keep to cabled ports (dimension_order_negative), so only the failures
  // cut them; past kFilteredFailures points every route is walked.
  const std::vector<NodeId>& nodes = result.nodes();
  const std::size_t n = nodes.size();
  std::vector<Coord> coords(n);
  for (std::size_t k = 0; k < n; ++k) coords[k] = torus.coord(nodes[k]);
  const bool filtered = points.size() <= kFilteredFailures;
  const FailureFilter filter(torus, filtered ? points : std::vector<NodeId>{});
  std::vector<std::pair<std::size_t, std::size_t>> cut;
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      if (s == d || (filtered && !filter.may_meet(coords[s], coords[d]))) continue;
      bool alive = true;
      result.walk(s, d, torus, [&](NodeId at, Direction hop) { alive = alive && network.channel_alive(at, hop); });
      if (alive) continue;
      result.set_route(s, d, Route{});
      cut.emplace_back(s, d);
    }
  // The cut pairs take candidates greedily, as around the failures of a
  // whole machine: against the other routes' loads when the budget pays
  // for counting them, else against each other's alone (the same max load
  // on a scattered 4096 nodes of 16x16x8x8 with two failed routers: its
  // direction-order ties decide it).  The checked-turn stage then routes
  // the pairs left without a candidate, and shortens detours when the
  // budget pays for counting its graph twice over (a detour's shortening
  // costs more than a thousand pairs' share of it on 16x16x8x8); the other
  // routes close no forbidden cycle among themselves, so it takes them
  // counted run by run, untested.  A pair it cannot route is refused
  // (RoutingError): the searched stages this budget cannot pay for are not
  // tried instead.
  WorkBudget* budget = options.budget.get();
  RouteDependencies counted;
  if (left_below(budget, n, kDependencyCountWorkPerPair)) {
    counted.loads.assign(torus.channel_slots(), 0);
  } else {
    if (budget) budget->spend(kDependencyCountWorkPerPair * n * n);
    counted = count_route_dependencies(torus, result, /*with_dependencies=*/false);
  }
  assign_cut_pairs(network, cut, result, counted);
  const bool shorten = !left_below(budget, n, 2 * kDependencyCountWorkPerPair);
  std::vector<std::pair<std::size_t, std::size_t>> listed;
  std::size_t detours = 0;
  for (const auto& [s, d] : cut) {
    if (!result.has_route(s, d))
      listed.emplace_back(s, d);
    else if (result.hop_count(s, d) > static_cast<std::size_t>(torus.distance(nodes[s], nodes[d])))
      ++detours;
  }
  if (shorten) {
    if (budget) budget->spend(kDependencyCountWorkPerPair * n * n);
    listed = cut;
  } else if (detours > 0) {
    budget->note_cut(detours_left_cut(detours, detours));
  }
  if (!listed.empty()) {
    counted = count_route_dependencies(torus, result);
    complete_listed_pairs_with_checked_turns(result.algorithm, network, result, listed, options, &counted);
  }
  table = std::move(result);
  return true;
}

}  // namespace angara::balanced
