// Stage 0 of the balanced generator for a whole torus with a few failures
// (around_failures.hpp).
#include "routing/generators/balanced/around_failures.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "routing/common/candidates.hpp"
#include "routing/common/checked_turns.hpp"
#include "routing/generators/balanced/balancer.hpp"
#include "routing/generators/balanced/sub_torus.hpp"

namespace angara::balanced {

namespace {

// Stage 1 for the pairs without a route yet (choice kUnset): most
// constrained first, each taking the candidate of the lowest (peak load it
// would create, added load^4), as Balancer::assign_greedy() does for all.
constexpr std::uint32_t kUnset = 0xFFFFFFFFu;

// The budget's steps (routing/common/work_budget.hpp) the search over every
// pair costs a pair before it starts: its candidates, the start and the
// balancer's index (0.45 s for the 1M pairs of 8x8x4x4 with one failed
// router, at WorkBudget::kStepsPerSecond).
constexpr std::uint64_t kSetUpWorkPerPair = 13;

// Of `count` options (option k's channels: channels_of(k)), the one whose
// routing adds least: the lowest peak load it would create, then the least
// growth of the summed fourth powers of the loads.
template <typename ChannelsOf>
std::size_t least_loaded_option(std::size_t count, ChannelsOf&& channels_of, const std::vector<std::uint64_t>& loads) {
  const auto fourth = [](std::uint64_t x) { return x * x * x * x; };
  std::size_t best = 0;
  std::uint64_t best_peak = 0, best_spread = 0;
  for (std::size_t v = 0; v < count; ++v) {
    std::uint64_t peak = 0, spread = 0;
    for (ChannelId c : channels_of(v)) {
      peak = std::max(peak, loads[c] + 1);
      spread += fourth(loads[c] + 1) - fourth(loads[c]);
    }
    if (v == 0 || peak < best_peak || (peak == best_peak && spread < best_spread)) {
      best = v;
      best_peak = peak;
      best_spread = spread;
    }
  }
  return best;
}

void assign_greedy_remaining(const CandidateSet& set, std::vector<std::uint32_t>& choice,
                             std::vector<std::uint64_t>& loads) {
  // Sorted by (fewest candidates, longest first route, pair) as one key.
  std::vector<std::pair<std::uint64_t, std::size_t>> keyed;
  for (std::size_t p = 0; p < set.pair_count(); ++p)
    if (choice[p] == kUnset && set.variants(p) > 0)
      keyed.emplace_back(static_cast<std::uint64_t>(set.variants(p)) << 32 |
                             (0xFFFFFFFFu - static_cast<std::uint32_t>(set.channels(p, 0).size())),
                         p);
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::size_t> order(keyed.size());
  for (std::size_t k = 0; k < keyed.size(); ++k) order[k] = keyed[k].second;
  keyed = {};
  for (std::size_t p : order) {
    const auto best = static_cast<std::uint32_t>(least_loaded_option(
        set.variants(p), [&](std::size_t v) { return set.channels(p, static_cast<std::uint32_t>(v)); }, loads));
    choice[p] = best;
    for (ChannelId c : set.channels(p, best)) ++loads[c];
  }
}

// Every node within `radius` hops of a failed router or of an end of a
// failed cable (over the torus's cables, failed or not).
std::vector<unsigned char> near_failures(const Network& network, int radius) {
  const Torus& torus = network.torus();
  std::vector<unsigned char> near(torus.node_count(), 0);
  std::vector<NodeId> frontier, next;
  const auto mark = [&](NodeId node) {
    if (near[node]) return;
    near[node] = 1;
    frontier.push_back(node);
  };
  for (NodeId node : network.failed_nodes()) mark(node);
  for (ChannelId c : network.failed_links()) {
    mark(Torus::channel_node(c));
    mark(torus.neighbor(Torus::channel_node(c), Torus::channel_direction(c)));
  }
  for (int step = 0; step < radius; ++step) {
    next.clear();
    for (NodeId node : frontier)
      for (int rank = 0; rank < kDirectionCount; ++rank) {
        const Direction d(rank);
        if (!torus.direction_present(d)) continue;
        const NodeId to = torus.neighbor(node, d);
        if (!near[to]) {
          near[to] = 1;
          next.push_back(to);
        }
      }
    frontier.swap(next);
  }
  return near;
}

using Pair = std::pair<std::size_t, std::size_t>;  // allocation indices

// Stages 1-3 over every pair from the closed form: the start keeps every
// closed-form route that stays clear of the failures' neighbourhood (always
// a candidate: a minimal direction-order route) and assigns the others (cut
// by a failure, or passing next to one) greedily around them; the search
// balances every pair on half of what the budget has left.  Writes
// every route into `result` and lists the pairs the checked-turn stage is
// for (no candidate, or a detour).
void search_every_pair(const Network& network, const RouteTable& closed, const GeneratorOptions& options,
                       RouteTable& result, std::vector<Pair>& listed) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = result.nodes();
  const std::size_t n = nodes.size();
  const TurnRules rules(network);
  const CandidateSet set(network, rules, nodes, kCandidateCap, /*allow_unroutable=*/true);

  const std::vector<unsigned char> near = near_failures(network, kAroundFailuresRadius);
  std::vector<std::uint32_t> choice(set.pair_count(), kUnset), kept(set.pair_count(), kUnset);
  std::vector<std::uint64_t> loads(torus.channel_slots(), 0);
  std::vector<ChannelId> walk;
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      const std::size_t p = set.pair(s, d);
      if (s == d || set.variants(p) == 0) continue;
      walk.clear();
      bool alive = true, touches = near[nodes[s]] || near[nodes[d]];
      closed.walk(nodes[s], nodes[d], torus, [&](NodeId at, Direction hop) {
        walk.push_back(Torus::channel(at, hop));
        alive = alive && network.channel_alive(at, hop);
        touches = touches || near[at];
      });
      if (!alive) continue;
      for (std::uint32_t v = 0; v < set.variants(p); ++v) {
        const ChannelSpan span = set.channels(p, v);
        if (span.size() == walk.size() && std::equal(span.begin(), span.end(), walk.begin())) {
          kept[p] = v;
          if (touches) break;  // assigned greedily below
          choice[p] = v;
          for (ChannelId c : walk) ++loads[c];
          break;
        }
      }
    }
  assign_greedy_remaining(set, choice, loads);
  for (std::uint32_t& v : choice)
    if (v == kUnset) v = 0;  // pairs without candidates: no route

  Balancer balancer(set, torus.channel_slots());
  balancer.assign(choice);
  WorkBudget* budget = options.budget.get();
  if (!budget || budget->unlimited()) {
    balancer.limit_work(budget);
    search(balancer, candidate_space_bound(set));
  } else {
    WorkBudget share(budget->exhausted() ? 1 : (budget->limit() - budget->used()) / 2 + 1);
    balancer.limit_work(&share);
    search(balancer, candidate_space_bound(set));
    balancer.limit_work(nullptr);
    budget->spend(share.used());
    if (share.exhausted()) budget->note_cut("load balancing (stopped early)");
  }

  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      const std::size_t p = set.pair(s, d);
      if (s == d) continue;
      if (set.variants(p) == 0 || !set.minimal(p)) listed.emplace_back(s, d);
      if (set.variants(p) == 0) continue;
      const std::uint32_t v = balancer.choice()[p];
      if (v == kept[p])
        result.set_route(s, d, *closed.packed_route(nodes[s], nodes[d]));
      else
        result.set_route(s, d, Route{set.hops(p, v)});
    }
}

// The direction-order routes of every sign choice, the long way round
// rings included, that are alive, the shortest ones only: like every
// direction-order route they close no forbidden cycle with the others.
std::vector<std::vector<Direction>> shortest_live_dor_routes(const Network& network, NodeId src, NodeId dst) {
  const Torus& torus = network.torus();
  const Coord from = torus.coord(src), to = torus.coord(dst);
  std::vector<std::vector<Direction>> best;
  std::size_t best_length = 0;
  for (unsigned signs = 0; signs < (1u << kMaxDims); ++signs) {
    std::array<int, kDirectionCount> counts{};
    bool valid = true;
    for (int dim = 0; dim < kMaxDims && valid; ++dim) {
      const int size = torus.size(dim);
      const int forward = ((to[dim] - from[dim]) % size + size) % size;
      const bool minus = (signs >> dim) & 1u;
      if (forward == 0) {
        valid = !minus;
        continue;
      }
      counts[Direction::make(dim, minus).rank()] = minus ? size - forward : forward;
    }
    if (!valid) continue;
    std::vector<Direction> hops;
    for (int rank = 0; rank < kDirectionCount; ++rank) hops.insert(hops.end(), counts[rank], Direction(rank));
    if (!best.empty() && hops.size() > best_length) continue;
    NodeId at = src;
    bool alive = true;
    for (Direction hop : hops) {
      alive = alive && torus.direction_present(hop) && network.channel_alive(at, hop);
      if (!alive) break;
      at = torus.neighbor(at, hop);
    }
    if (!alive) continue;
    if (best.empty() || hops.size() < best_length) best.clear();
    best_length = hops.size();
    best.push_back(std::move(hops));
  }
  return best;
}

// What every table needs, when the budget cannot pay for the search over
// every pair: the closed form wherever the failures leave it alive, and for
// each pair they cut (most constrained first) the least loaded of its
// candidates (the augmented rules' minimal routes, else the shortest live
// direction-order routes), chosen greedily.  The pairs still without a
// route, and the detours, are listed for the checked-turn stage.
void route_cut_pairs(const Network& network, const RouteTable& closed, RouteTable& result, std::vector<Pair>& listed) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = result.nodes();
  const std::size_t n = nodes.size();
  std::vector<std::uint64_t> loads(torus.channel_slots(), 0);
  std::vector<Pair> cut;
  std::vector<ChannelId> walk;
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      if (s == d) continue;
      walk.clear();
      bool alive = true;
      closed.walk(nodes[s], nodes[d], torus, [&](NodeId at, Direction hop) {
        walk.push_back(Torus::channel(at, hop));
        alive = alive && network.channel_alive(at, hop);
      });
      if (!alive) {
        cut.emplace_back(s, d);
        continue;
      }
      result.set_route(s, d, *closed.packed_route(nodes[s], nodes[d]));
      for (ChannelId c : walk) ++loads[c];
    }

  const TurnRules rules(network);
  std::vector<std::vector<std::vector<ChannelId>>> candidates(cut.size());
  for (std::size_t k = 0; k < cut.size(); ++k) {
    const NodeId src = nodes[cut[k].first], dst = nodes[cut[k].second];
    std::vector<std::vector<Direction>> routes = minimal_routes(network, rules, src, dst, kCandidateCap);
    if (routes.empty()) routes = shortest_live_dor_routes(network, src, dst);
    for (const auto& hops : routes) candidates[k].push_back(route_channels(torus, src, hops));
  }
  std::vector<std::size_t> order(cut.size());
  for (std::size_t k = 0; k < cut.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (candidates[a].size() != candidates[b].size()) return candidates[a].size() < candidates[b].size();
    return !candidates[a].empty() && candidates[a][0].size() > candidates[b][0].size();
  });
  for (std::size_t k : order) {
    const std::vector<std::vector<ChannelId>>& options = candidates[k];
    if (options.empty()) continue;  // the checked-turn stage routes it
    const std::size_t best =
        least_loaded_option(options.size(), [&](std::size_t v) -> const std::vector<ChannelId>& { return options[v]; }, loads);
    Route route;
    for (ChannelId c : options[best]) {
      ++loads[c];
      route.hops.push_back(Torus::channel_direction(c));
    }
    result.set_route(cut[k].first, cut[k].second, route);
  }
  listed = std::move(cut);
}

}  // namespace

bool routes_around_failures(bool faults, std::size_t nodes, std::size_t live_nodes, FlowControl rule) {
  return faults && rule == FlowControl::bubble && nodes >= 2 && nodes == live_nodes;
}

bool search_every_pair_affordable(const WorkBudget* budget, std::size_t nodes) {
  const std::uint64_t set_up = static_cast<std::uint64_t>(nodes) * nodes * kSetUpWorkPerPair;
  return !budget || budget->unlimited() || (!budget->exhausted() && budget->limit() - budget->used() >= 2 * set_up);
}

bool around_failures_table(const Network& network, RouteTable& table, const GeneratorOptions& options) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = table.nodes();
  const std::size_t n = nodes.size();
  const bool faults = !network.failed_nodes().empty() || !network.failed_links().empty();
  // (The allocation's nodes are live and distinct: as many as the live
  // routers is all of them.)
  if (!routes_around_failures(faults, n, torus.node_count() - network.failed_nodes().size(), options.flow_control))
    return false;

  // The closed form of the fault-free machine, indexed by node id.
  const Network healthy(torus);
  std::vector<NodeId> every(torus.node_count());
  for (NodeId node = 0; node < torus.node_count(); ++node) every[node] = node;
  RouteTable closed(std::move(every));
  if (!sub_torus_table(healthy, closed)) return false;

  RouteTable result(nodes);
  result.algorithm = table.algorithm;
  result.rules = table.rules;
  result.flow_control = table.flow_control;
  std::vector<Pair> listed;
  // The search over every pair is optional work: its set-up is paid from
  // the budget like the search, and runs only when at least as much again
  // is left for the search itself.
  WorkBudget* budget = options.budget.get();
  if (search_every_pair_affordable(budget, n)) {
    if (budget) budget->spend(static_cast<std::uint64_t>(n) * n * kSetUpWorkPerPair);
    search_every_pair(network, closed, options, result, listed);
  } else {
    budget->note_cut("load balancing (not run)");
    route_cut_pairs(network, closed, result, listed);
  }
  try {
    complete_listed_pairs_with_checked_turns(table.algorithm, network, result, listed, options);
  } catch (const RoutingError&) {
    return false;
  }
  table = std::move(result);
  return true;
}

}  // namespace angara::balanced
