// Stage 0 of the balanced generator for a whole torus with a few failures
// (around_failures.hpp).
#include "routing/generators/balanced/around_failures.hpp"

#include <algorithm>
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

void assign_greedy_remaining(const CandidateSet& set, std::vector<std::uint32_t>& choice,
                             std::vector<std::uint64_t>& loads) {
  std::vector<std::size_t> order;
  for (std::size_t p = 0; p < set.pair_count(); ++p)
    if (choice[p] == kUnset && set.variants(p) > 0) order.push_back(p);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (set.variants(a) != set.variants(b)) return set.variants(a) < set.variants(b);
    return set.channels(a, 0).size() > set.channels(b, 0).size();
  });
  const auto fourth = [](std::uint64_t x) { return x * x * x * x; };
  for (std::size_t p : order) {
    std::uint32_t best = 0;
    std::uint64_t best_peak = 0, best_spread = 0;
    for (std::uint32_t v = 0; v < set.variants(p); ++v) {
      std::uint64_t peak = 0, spread = 0;
      for (ChannelId c : set.channels(p, v)) {
        peak = std::max(peak, loads[c] + 1);
        spread += fourth(loads[c] + 1) - fourth(loads[c]);
      }
      if (v == 0 || peak < best_peak || (peak == best_peak && spread < best_spread)) {
        best = v;
        best_peak = peak;
        best_spread = spread;
      }
    }
    choice[p] = best;
    for (ChannelId c : set.channels(p, best)) ++loads[c];
  }
}

}  // namespace

bool around_failures_table(const Network& network, RouteTable& table, const GeneratorOptions& options) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = table.nodes();
  const std::size_t n = nodes.size();
  if (options.flow_control != FlowControl::bubble || n < 2) return false;
  if (network.failed_nodes().empty() && network.failed_links().empty()) return false;
  if (n != torus.node_count() - network.failed_nodes().size()) return false;  // nodes are live and distinct

  // The closed form of the fault-free machine, indexed by node id.
  const Network healthy(torus);
  std::vector<NodeId> every(torus.node_count());
  for (NodeId node = 0; node < torus.node_count(); ++node) every[node] = node;
  RouteTable closed(std::move(every));
  if (!sub_torus_table(healthy, closed)) return false;

  const TurnRules rules(network);
  const CandidateSet set(network, rules, nodes, kCandidateCap, /*allow_unroutable=*/true);

  // The start: every closed-form route the failures leave alone (always a
  // candidate: a minimal direction-order route), the others greedily around them.
  std::vector<std::uint32_t> choice(set.pair_count(), kUnset), kept(set.pair_count(), kUnset);
  std::vector<std::uint64_t> loads(torus.channel_slots(), 0);
  std::vector<ChannelId> walk;
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      const std::size_t p = set.pair(s, d);
      if (s == d || set.variants(p) == 0) continue;
      walk.clear();
      bool alive = true;
      closed.walk(nodes[s], nodes[d], torus, [&](NodeId at, Direction hop) {
        walk.push_back(Torus::channel(at, hop));
        alive = alive && network.channel_alive(at, hop);
      });
      if (!alive) continue;
      for (std::uint32_t v = 0; v < set.variants(p); ++v) {
        const ChannelSpan span = set.channels(p, v);
        if (span.size() == walk.size() && std::equal(span.begin(), span.end(), walk.begin())) {
          kept[p] = choice[p] = v;
          for (ChannelId c : walk) ++loads[c];
          break;
        }
      }
    }
  assign_greedy_remaining(set, choice, loads);
  for (std::uint32_t& v : choice)
    if (v == kUnset) v = 0;  // pairs without candidates: no route

  // Stages 2 and 3 on half of what the budget has left, as for the search
  // from the greedy start.
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

  RouteTable result(nodes);
  result.algorithm = table.algorithm;
  result.rules = table.rules;
  result.flow_control = table.flow_control;
  std::vector<std::pair<std::size_t, std::size_t>> listed;
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
  try {
    complete_listed_pairs_with_checked_turns(table.algorithm, network, result, listed, options);
  } catch (const RoutingError&) {
    return false;
  }
  table = std::move(result);
  return true;
}

}  // namespace angara::balanced
