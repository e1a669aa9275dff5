// The balanced generator's first table under a short time budget (anytime.hpp).
#include "routing/generators/balanced/anytime.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>
#include <utility>

#include "angara/direction_order_loads.hpp"
#include "angara/torus.hpp"
#include "routing/common/checked_turns.hpp"
#include "routing/generators/balanced/around_failures.hpp"
#include "routing/generators/balanced/block.hpp"
#include "routing/generators/balanced/ring_ways.hpp"

namespace angara::balanced {

namespace {

// Whether a limited budget holds less than `per_pair` steps for each ordered
// pair of `nodes` allocated nodes.
bool left_below(const WorkBudget* budget, std::size_t nodes, std::uint64_t per_pair) {
  if (!budget || budget->unlimited()) return false;
  const std::uint64_t pairs = static_cast<std::uint64_t>(nodes) * nodes;
  return budget->left() < per_pair * pairs;
}

// The steps of one table's loads by counts: about 40 units of
// direction_order_loads_work a step.
std::uint64_t count_work(const Torus& torus) { return direction_order_loads_work(torus) / 40; }

}  // namespace

std::uint64_t tie_choice_work(const Torus& torus) { return 2 * count_work(torus); }

std::uint64_t count_around_cut_work(const Torus& torus, std::size_t cut_pairs) {
  return 2 * count_work(torus) + 20 * static_cast<std::uint64_t>(cut_pairs);
}

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

// The verifier checks a direction-order table by its words, a look-up a
// pair, and its routes' loads and dependencies from the allocation's counts
// (routing/check/verifier.cpp, up to 32 failed routers or channels, whose
// routes' pairs it walks, a few in a hundred), not by walking every route:
// what the budget charged for that walk is partly given back, for the
// choice of the ring ties and, around failures, the counts.
void give_back_check_work(const Torus& torus, std::uint64_t n, WorkBudget* budget) {
  if (!budget) return;
  const std::uint64_t walk = n * n * WorkBudget::kCheckWorkPerPair;
  const std::uint64_t by_counts = n * n / 4 + direction_order_loads_work(torus) / 20;
  if (walk > by_counts) budget->refund(walk - by_counts);
}

// The ring ties of the direction-order table of `nodes` with the lowest max
// load the budget finds, each table's loads counted over every pair's route
// (from the allocation's counts, angara/direction_order_loads.hpp; a
// table's max sits on channels next to a few sources, a source sending
// about half its routes out on +X, which a sample of sources misses).
// First every tie the positive way against every tie split by the source's
// parity (the negative way from an odd coordinate): on a random half of
// 8x8x8x8 the split gives 2118 against 2622, on the first 1024 free nodes
// of a half-busy one 1613 against 1330.  Then, while the budget pays for
// one more table, dimension by dimension the other ways of its ties
// (positive, negative, split either way), the rest kept: on a random
// quarter of 16x16x8x8 the ties of X the negative way give 7074 against
// 7817 split.  Positive when the budget cannot pay for the first two.
RingTies chosen_ring_ties(const Torus& torus, const std::vector<NodeId>& nodes, WorkBudget* budget) {
  std::vector<int> tied;  // dimensions with a tie a table may send either way
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (torus.size(dim) % 2 == 0 && !(torus.size(dim) == 2 && torus.single_cabled(dim))) tied.push_back(dim);
  const auto affords = [&](std::uint64_t work) { return !budget || budget->affords(work); };
  if (tied.empty()) return RingTies::positive();
  if (!affords(tie_choice_work(torus))) {
    budget->note_cut("choice of the ring ties");
    return RingTies::positive();
  }
  const auto peak = [&](const RingTies& ties) {
    if (budget) budget->spend(count_work(torus));
    const std::vector<std::int64_t> loads = direction_order_loads(torus, dimension_order_ways(torus, ties), nodes);
    return *std::max_element(loads.begin(), loads.end());
  };
  RingTies best = RingTies::positive();
  std::int64_t lowest = peak(best);
  if (const std::int64_t split = peak(RingTies::split()); split < lowest) {
    best = RingTies::split();
    lowest = split;
  }
  for (const int dim : tied)
    for (const std::array<bool, 2> way : {std::array<bool, 2>{false, false}, {true, true}, {false, true}, {true, false}}) {
      if (best.negative[static_cast<std::size_t>(dim)] == way) continue;
      if (!affords(count_work(torus))) {
        budget->note_cut("choice of the ring ties (stopped early)");
        return best;
      }
      RingTies other = best;
      other.negative[static_cast<std::size_t>(dim)] = way;
      if (const std::int64_t load = peak(other); load < lowest) {
        best = other;
        lowest = load;
      }
    }
  return best;
}

// The direction-order table of `nodes` with the ring ties of
// chosen_ring_ties(), which it stores in `chosen`.
RouteTable tie_chosen_direction_order(const Torus& torus, const std::vector<NodeId>& nodes, WorkBudget* budget,
                                      RingTies* chosen = nullptr) {
  // Making the table: about 4 ns a pair (an eighth of a step).
  if (budget) budget->spend(static_cast<std::uint64_t>(nodes.size()) * nodes.size() / 8);
  const RingTies ties = chosen_ring_ties(torus, nodes, budget);
  if (chosen) *chosen = ties;
  return dimension_order_table(torus, nodes, ties);
}

// Which direction-order routes (of `ways`) may pass a failure point, a bit
// per point.  First a box test: in every dimension the point's coordinate
// on the run's arc (ends included; a dimension without a run, the source's
// coordinate).  Then the route itself, run by run in its order (positive
// runs in dimension order, then negative ones): the points a run passes
// have its arc in the run's dimension and, in every other, the coordinate
// the route is at.  On a random quarter of 16x16x8x8 with two failed
// routers the box alone keeps 8% of the pairs, the runs 0.13%.
class FailureFilter {
 public:
  FailureFilter(const Torus& torus, const DirectionOrderWays& ways, const std::vector<NodeId>& points)
      : ways_(ways) {
    for (int dim = 0; dim < kMaxDims; ++dim) {
      const int size = torus.size(dim);
      on_arc_[dim].assign(static_cast<std::size_t>(size) * static_cast<std::size_t>(size), 0);
      at_value_[dim].assign(static_cast<std::size_t>(size), 0);
    }
    for (std::size_t p = 0; p < points.size(); ++p) {
      const Coord point = torus.coord(points[p]);
      const std::uint64_t bit = std::uint64_t{1} << p;
      for (int dim = 0; dim < kMaxDims; ++dim) {
        const int size = torus.size(dim);
        at_value_[dim][static_cast<std::size_t>(point[dim])] |= bit;
        for (int a = 0; a < size; ++a)
          for (int b = 0; b < size; ++b) {
            const std::size_t way = ways_.at(dim, a, b);
            const int sign = ways_.sign[dim][way];
            const int ahead = ((sign < 0 ? a - point[dim] : point[dim] - a) % size + size) % size;
            if (ahead <= ways_.hops[dim][way]) on_arc_[dim][way] |= bit;
          }
      }
    }
  }
  // The rows of a source's coordinates for meets().
  using Rows = std::array<const std::uint64_t*, kMaxDims>;
  Rows rows(const Coord& from) const {
    Rows rows;
    for (int dim = 0; dim < kMaxDims; ++dim) rows[dim] = on_arc_[dim].data() + ways_.at(dim, from[dim], 0);
    return rows;
  }
  // Whether the route from -> to may pass a failure point.
  bool meets(const Rows& rows, const Coord& from, const Coord& to) const {
    if ((rows[0][to[0]] & rows[1][to[1]] & rows[2][to[2]] & rows[3][to[3]]) == 0) return false;
    Coord at = from;
    for (const bool negative : {false, true})
      for (int dim = 0; dim < kMaxDims; ++dim) {
        const int sign = ways_.sign[dim][ways_.at(dim, from[dim], to[dim])];
        if (sign == 0 || (sign < 0) != negative) continue;
        std::uint64_t passed = rows[dim][to[dim]];
        for (int other = 0; other < kMaxDims; ++other)
          if (other != dim) passed &= at_value_[other][static_cast<std::size_t>(at[other])];
        if (passed != 0) return true;
        at[dim] = to[dim];
      }
    return false;
  }

 private:
  const DirectionOrderWays& ways_;
  std::array<std::vector<std::uint64_t>, kMaxDims> on_arc_;    // per dimension, by ways_.at(a, b)
  std::array<std::vector<std::uint64_t>, kMaxDims> at_value_;  // per dimension, by coordinate
};

}  // namespace

RouteDependencies count_around_cut(const Torus& torus, const RouteTable& table, const RingTies& ties,
                                   const std::vector<std::pair<std::size_t, std::size_t>>& cut,
                                   const std::vector<Route>& cut_routes, bool with_dependencies) {
  DirectionOrderCounts every =
      direction_order_counts(torus, dimension_order_ways(torus, ties), table.nodes(), with_dependencies);
  RouteDependencies counted;
  const std::size_t slots = torus.channel_slots();
  counted.loads.resize(slots);
  for (std::size_t c = 0; c < slots; ++c) counted.loads[c] = static_cast<std::uint32_t>(every.loads[c]);
  if (with_dependencies) {
    counted.edge_counts.assign(slots * kDirectionCount, 0);
    for (std::size_t c = 0; c < slots; ++c)
      for (int next = 0; next < kDirectionCount; ++next) {
        const std::size_t at = c * kDirectionCount + static_cast<std::size_t>(next);
        const bool straight = next == Torus::channel_direction(static_cast<ChannelId>(c)).rank();
        counted.edge_counts[at] = static_cast<std::uint32_t>(straight ? every.loads[c] - every.ends[c] : every.turns[at]);
      }
  }
  for (std::size_t i = 0; i < cut.size(); ++i) {  // off: the direction-order route
    const std::vector<Direction>& hops = cut_routes[i].hops;
    NodeId at = table.nodes()[cut[i].first];
    for (std::size_t h = 0; h < hops.size(); ++h) {
      const ChannelId c = Torus::channel(at, hops[h]);
      --counted.loads[c];
      if (with_dependencies && h + 1 < hops.size())
        --counted.edge_counts[std::size_t(c) * kDirectionCount + static_cast<std::size_t>(hops[h + 1].rank())];
      at = torus.neighbor(at, hops[h]);
    }
    if (!table.has_route(cut[i].first, cut[i].second)) continue;
    walk_dependencies(  // on: the table's route
        torus, table, cut[i].first, cut[i].second, [&](ChannelId c) { ++counted.loads[c]; },
        [&](ChannelId c, Direction hop) {
          if (with_dependencies) ++counted.edge_counts[std::size_t(c) * kDirectionCount + static_cast<std::size_t>(hop.rank())];
        });
  }
  return counted;
}

bool direction_order_start(const Network& network, RouteTable& table, FlowControl rule, WorkBudget* budget,
                           int long_way, RingWaysOutcome* balanced) {
  if (balanced) *balanced = RingWaysOutcome::not_run;
  const Torus& torus = network.torus();
  const bool intact = rule == FlowControl::bubble && network.every_port_live();
  // A block's closed form splits its ring ties evenly, but its negative
  // runs come after the positive ones and pile up where the arcs end: on
  // the 8x8x4x4 block of 8x8x8x8 the -X channels at the far corner of its
  // two arcs carry (7/4)^2 of the mean, 3136 (bound 1024).  Where the
  // budget pays for their start, the ring ways take such pairs the other
  // way round, the long way only round the rings the block spans whole, so
  // that every route stays inside it: 2118 under 0.5 s, 1853 under 1.5 s.
  const std::optional<unsigned> block_rings =
      intact ? block_ring_dimensions(torus, table.nodes()) : std::optional<unsigned>();
  const bool block_ways = block_rings && ring_ways_can_start(torus, table.size(), budget, tie_choice_work(torus));
  if (!block_ways && block_table(network, table, rule)) return true;
  if (!intact) return false;
  give_back_check_work(torus, table.size(), budget);
  std::string algorithm = table.algorithm;
  RingTies ties;
  table = tie_chosen_direction_order(torus, table.nodes(), budget, &ties);
  table.algorithm = std::move(algorithm);
  const RingWaysOutcome outcome =
      balance_ring_ways(torus, dimension_order_ways(torus, ties), long_way, table, budget,
                        block_rings ? *block_rings : kEveryDimension);
  if (balanced) *balanced = outcome;
  return true;
}

bool direction_order_around_failures(const Network& network, RouteTable& table, const GeneratorOptions& options,
                                     int long_way, RingWaysOutcome* balanced) {
  if (balanced) *balanced = RingWaysOutcome::not_run;
  const Torus& torus = network.torus();
  if (options.flow_control != FlowControl::bubble || table.size() < 2) return false;
  std::vector<NodeId> points = network.failed_nodes();  // a route meeting a failure passes one of them
  for (ChannelId link : network.failed_links()) points.push_back(Torus::channel_node(link));
  if (points.empty()) return false;
  if (points.size() <= 32) give_back_check_work(torus, table.size(), options.budget.get());
  // The pass over every pair for the routes the failures cut, below: about
  // 5 ns a pair (4.5 on a random quarter of 16x16x8x8, 3.4 on a random half
  // of 8x8x8x8).
  if (options.budget) options.budget->spend(static_cast<std::uint64_t>(table.size()) * table.size() / 6);

  RingTies ties;
  RouteTable result = tie_chosen_direction_order(torus, table.nodes(), options.budget.get(), &ties);
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
  const DirectionOrderWays ways = dimension_order_ways(torus, ties);
  const FailureFilter filter(torus, ways, filtered ? points : std::vector<NodeId>{});
  std::vector<std::pair<std::size_t, std::size_t>> cut;
  std::vector<Route> cut_routes;  // their direction-order routes
  for (std::size_t s = 0; s < n; ++s) {
    const FailureFilter::Rows rows = filter.rows(coords[s]);
    for (std::size_t d = 0; d < n; ++d) {
      if (s == d || (filtered && !filter.meets(rows, coords[s], coords[d]))) continue;
      bool alive = true;
      result.walk(s, d, torus, [&](NodeId at, Direction hop) { alive = alive && network.channel_alive(at, hop); });
      if (alive) continue;
      cut_routes.push_back(result.route(s, d));
      result.set_route(s, d, Route{});
      cut.emplace_back(s, d);
    }
  }
  // The cut pairs take candidates greedily, as around the failures of a
  // whole machine: against the other routes' loads when the budget pays
  // for counting them (by the allocation's counts, count_around_cut), else
  // against each other's alone.  The checked-turn stage then routes the
  // pairs left without a candidate, and shortens detours when the budget
  // holds kShorteningWorkPerPair steps a pair more; the other routes close
  // no forbidden cycle among themselves, so it takes their dependency
  // counts untested.  A pair it cannot route is refused (RoutingError): the
  // searched stages this budget cannot pay for are not tried instead.
  WorkBudget* budget = options.budget.get();
  RouteDependencies counted;
  std::uint64_t count_work = count_around_cut_work(torus, cut.size());
  // The pairs whose route differs from the direction-order one by the end:
  // the cut ones, and those the ring ways move, with that route.
  std::vector<std::pair<std::size_t, std::size_t>> changed = cut;
  std::vector<Route> changed_routes = cut_routes;
  const bool count_others = !budget || budget->affords(count_work);
  if (count_others) {
    if (budget) budget->spend(count_work);
    counted = count_around_cut(torus, result, ties, cut, cut_routes, /*with_dependencies=*/false);
  } else {
    counted.loads.assign(torus.channel_slots(), 0);
  }
  assign_cut_pairs(network, cut, result, counted);
  // Then the other pairs go other ways round their rings off the busiest
  // channels (ring_ways.hpp), the detours' loads among the others', on
  // seven eighths of what is left once the counts the checked-turn stage
  // needs are paid for.  Balanced before the detours were placed, the
  // random half of 8x8x8x8 beside a failed router went from 1796 to 1928
  // as they took their candidates; balanced with them, it ends at 1797.
  if (count_others && (!budget || budget->affords(2 * count_work))) {
    WorkBudget share(budget ? (budget->left() - count_work) * 7 / 8 + 1 : 0);
    std::vector<std::int64_t> loads(counted.loads.begin(), counted.loads.end());
    std::vector<MovedPair> moved;
    const RingWaysOutcome outcome =
        balance_ring_ways_around(network, ways, long_way, cut, loads, result, budget ? &share : nullptr, moved);
    if (budget) budget->spend(share.used());
    if (balanced) *balanced = outcome;
    for (std::size_t c = 0; c < loads.size(); ++c) counted.loads[c] = static_cast<std::uint32_t>(loads[c]);
    for (MovedPair& pair : moved) {
      changed.emplace_back(pair.source, pair.target);
      changed_routes.push_back(std::move(pair.direction_order));
    }
    count_work = count_around_cut_work(torus, changed.size());
  }
  const bool shorten = !budget || budget->affords(count_work + kShorteningWorkPerPair * n * n);
  std::vector<std::pair<std::size_t, std::size_t>> listed;
  std::size_t detours = 0;
  for (const auto& [s, d] : cut) {
    if (!result.has_route(s, d))
      listed.emplace_back(s, d);
    else if (result.hop_count(s, d) > static_cast<std::size_t>(torus.distance(nodes[s], nodes[d])))
      ++detours;
  }
  if (shorten) {
    if (budget) budget->spend(count_work);
    listed = cut;
  } else if (detours > 0) {
    budget->note_cut(detours_left_cut(detours, detours));
  }
  if (!listed.empty()) {
    counted = count_around_cut(torus, result, ties, changed, changed_routes, /*with_dependencies=*/true);
    complete_listed_pairs_with_checked_turns(result.algorithm, network, result, listed, options, &counted);
  }
  table = std::move(result);
  return true;
}

}  // namespace angara::balanced
