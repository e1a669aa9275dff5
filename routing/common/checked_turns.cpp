#include "routing/common/checked_turns.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>

#include "routing/common/oracle.hpp"

namespace angara {

namespace {

using encodable::kBegin;
using encodable::kLastStep;
using encodable::kStages;
constexpr std::uint32_t kNone = 0xFFFFFFFFu;

Direction highest(unsigned mask) {
  int rank = kDirectionCount - 1;
  while (!((mask >> rank) & 1u)) --rank;
  return Direction(rank);
}

// The channel that entered `node` with the hop `last_hop`.
ChannelId entry_channel(const Torus& torus, NodeId node, Direction last_hop) {
  return Torus::channel(torus.neighbor(node, last_hop.opposite()), last_hop);
}

}  // namespace

// Route states as in ShortestRouteSearch (routing/common/candidates.hpp): at the
// source; after a First Step P; inside the DOR middle with the used-direction
// mask (directions in rank order, never both signs of a dimension); after a
// Last Step, which is negative and not the reverse of the middle's last hop.
int encodable::next_stages(int stage, Direction d, int targets[2]) {
  int count = 0;
  if (stage == kBegin) {
    targets[count++] = kMiddle + direction_bit(d);
    if (d.positive()) targets[count++] = kFirstStep + d.rank();
  } else if (stage < kMiddle) {
    if (d != Direction(stage - kFirstStep).opposite()) targets[count++] = kMiddle + direction_bit(d);
  } else if (stage < kLastStep) {
    const unsigned mask = static_cast<unsigned>(stage - kMiddle);
    const Direction last = highest(mask);
    if (last <= d && !(mask & direction_bit(d.opposite())))
      targets[count++] = kMiddle + static_cast<int>(mask | direction_bit(d));
    else if (d.negative() && d != last.opposite())
      targets[count++] = kLastStep;
  }
  return count;
}

void DependencyMemo::forget() {
  epoch_ += 1;
  if (epoch_ > 0x7FFFFFFFu) {  // the stamps would wrap: start over
    std::fill(stamps_.begin(), stamps_.end(), 0);
    epoch_ = 1;
  }
}

bool DependencyMemo::allowed(const IncrementalDependencyGraph& graph, ChannelId from, ChannelId to) {
  std::uint32_t& stamp = stamps_[static_cast<std::size_t>(from) * kDirectionCount +
                                 static_cast<std::size_t>(Torus::channel_direction(to).rank())];
  if ((stamp >> 1) != epoch_) stamp = epoch_ << 1 | (graph.has_edge(from, to) || !graph.closes_cycle(from, to) ? 1 : 0);
  return stamp & 1u;
}

void CheckedRouteScratch::prepare(std::size_t nodes) {
  const std::size_t states = nodes * kStages;
  if (depth.size() != states) {
    parent.assign(states, kNone);
    hop.assign(states, 0);
    depth.assign(states, kUnreached);
    touched.clear();
  }
}

void CheckedRouteScratch::reset() {
  for (const std::uint32_t t : touched) depth[t] = kUnreached;
  touched.clear();
}

std::optional<std::vector<Direction>> find_checked_route(const Network& network,
                                                         const IncrementalDependencyGraph& graph, NodeId src,
                                                         NodeId dst, std::size_t max_hops, DependencyMemo* memo,
                                                         std::uint64_t* expanded, CheckedRouteScratch* scratch) {
  const Torus& torus = network.torus();
  if (src == dst) return std::vector<Direction>{};
  std::optional<CheckedRouteScratch> own_scratch;
  if (!scratch) scratch = &own_scratch.emplace();
  scratch->prepare(torus.node_count());
  std::vector<std::uint32_t>& parent = scratch->parent;
  std::vector<std::uint8_t>& hop = scratch->hop;
  // Best hop count known per state (kUnreached: none); parent and hop are
  // meaningful only where it is set.
  constexpr std::uint16_t kUnreached = CheckedRouteScratch::kUnreached;
  std::vector<std::uint16_t>& depth = scratch->depth;
  std::vector<std::uint32_t>& touched = scratch->touched;
  // The cycle test per dependency (channel, next direction), asked once: the
  // graph does not change during the search.
  std::optional<DependencyMemo> own;
  if (!memo) memo = &own.emplace(torus);
  auto dependency_ok = [&](ChannelId from, ChannelId to) { return memo->allowed(graph, from, to); };

  // A* over the states, hops so far plus the torus distance left (a lower
  // bound on any route's remaining hops, and consistent: it changes by at
  // most one a hop), in buckets of that sum, the newest state of the
  // lowest bucket first.  It finds a shortest admissible route like a
  // breadth-first search would, but looks only at states that could lie
  // on one: around one failed router of 8x8x8x8, where every search asks
  // the cycle test about the dependencies it meets, a breadth-first search
  // met the whole machine.  The entry channel of a state is a function of
  // its stage (the First Step's direction, the middle's highest direction),
  // so reaching a state again by a shorter way changes nothing else.
  auto state = [](NodeId node, int stage) { return static_cast<std::uint32_t>(node) * kStages + stage; };
  const auto estimate = [&](NodeId node) { return static_cast<std::size_t>(torus.distance(node, dst)); };
  std::vector<std::vector<std::uint32_t>> buckets(estimate(src) + 1);
  const std::uint32_t start = state(src, kBegin);
  depth[start] = 0;
  parent[start] = kNone;
  touched.push_back(start);
  buckets.back().push_back(start);
  std::uint32_t goal = kNone;
  for (std::size_t f = estimate(src); f < buckets.size() && goal == kNone; ++f) {
    while (!buckets[f].empty() && goal == kNone) {
      const std::uint32_t s = buckets[f].back();
      buckets[f].pop_back();
      const NodeId node = s / kStages;
      const int stage = static_cast<int>(s % kStages);
      if (stage == kLastStep || depth[s] + estimate(node) != f) continue;  // done, or reached again shorter
      if (expanded) ++*expanded;
      const std::size_t next_depth = static_cast<std::size_t>(depth[s]) + 1;
      if (max_hops != 0 && next_depth > max_hops) continue;
      const bool has_entry = stage != kBegin;
      const ChannelId in = has_entry ? entry_channel(torus, node, Direction(hop[s])) : 0;
      std::array<std::pair<std::uint32_t, std::size_t>, 2 * kDirectionCount> pending;
      std::size_t pending_count = 0;
      for (int rank = 0; rank < kDirectionCount && goal == kNone; ++rank) {
        const Direction d(rank);
        if (!torus.direction_present(d)) continue;
        const ChannelId out = Torus::channel(node, d);
        if (!network.channel_alive(out)) continue;
        int targets[2];
        const int count = encodable::next_stages(stage, d, targets);
        if (count == 0) continue;
        const NodeId to = torus.neighbor(node, d);
        const std::size_t bound = next_depth + estimate(to);
        if (max_hops != 0 && bound > max_hops) continue;  // no route of that length from there
        if (has_entry && !dependency_ok(in, out)) continue;
        for (int k = 0; k < count; ++k) {
          const std::uint32_t t = state(to, targets[k]);
          if (depth[t] <= next_depth) continue;
          if (depth[t] == kUnreached) touched.push_back(t);
          depth[t] = static_cast<std::uint16_t>(next_depth);
          parent[t] = s;
          hop[t] = static_cast<std::uint8_t>(rank);
          if (to == dst) {  // its bucket is f: nothing shorter is left
            goal = t;
            break;
          }
          pending[pending_count++] = {t, bound};
        }
      }
      // Pushed in reverse, so that the lowest direction is looked at first,
      // as the breadth-first search did: among routes of one length the
      // direction-order ones.
      while (pending_count > 0) {
        const auto [t, bound] = pending[--pending_count];
        if (bound >= buckets.size()) buckets.resize(bound + 1);
        buckets[bound].push_back(t);
      }
    }
  }
  if (goal == kNone) {
    scratch->reset();
    return std::nullopt;
  }
  std::vector<Direction> hops;
  for (std::uint32_t s = goal; s != start; s = parent[s]) hops.push_back(Direction(hop[s]));
  std::reverse(hops.begin(), hops.end());
  scratch->reset();
  return hops;
}

std::string detours_left_cut(std::size_t left, std::size_t detours) {
  return "shortening of detours (" + std::to_string(left) + " of " + std::to_string(detours) + " left)";
}

RouteDependencies walk_route_dependencies(const Torus& torus, const RouteTable& table) {
  RouteDependencies counted;
  counted.edge_counts.assign(static_cast<std::size_t>(torus.channel_slots()) * kDirectionCount, 0);
  counted.loads.assign(torus.channel_slots(), 0);
  const std::size_t n = table.size();
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      if (!table.has_route(s, d)) continue;
      walk_dependencies(
          torus, table, s, d, [&](ChannelId c) { ++counted.loads[c]; },
          [&](ChannelId c, Direction hop) {
            ++counted.edge_counts[static_cast<std::size_t>(c) * kDirectionCount + static_cast<std::size_t>(hop.rank())];
          });
    }
  return counted;
}

namespace {

constexpr std::size_t kShortestCandidates = 32;
// Attempts of the rip-up loop below.
constexpr int kAttempts = 6;

using Pair = std::pair<std::size_t, std::size_t>;  // allocation indices

// One attempt of the stage: builds the dependency graph and the routes from
// scratch, `first` pairs before everything else, on a copy of the table;
// or, `in_place`, on the table itself, logging what it changes: finish()
// then puts the table back as it was and keeps the attempt's routes, and
// apply() writes them again.  In place is for a stage that changes few
// routes of a large table (around failures: a copy per attempt was 268 MB
// on 16x8x8x8); where most routes may change (flow control none), a logged
// route costs ten times its word in the table.
class CheckedTurnAttempt {
 public:
  CheckedTurnAttempt(const Network& network, RouteTable& table, const RoutabilityOracle& oracle, FlowControl rule,
                     bool in_place)
      : network_(network),
        torus_(network.torus()),
        oracle_(oracle),
        caller_(table),
        own_(in_place ? nullptr : std::make_unique<RouteTable>(table)),
        table_(own_ ? *own_ : table),
        graph_(torus_, rule),
        memo_(torus_),
        loads_(torus_.channel_slots(), 0) {}

  // Routes the pairs of `first` (their shortest admissible routes), then
  // takes the generator's routes of the others where they close no
  // forbidden cycle (rerouting those that do), then fills the pairs the
  // generator left out and shortens its detours.  Returns the pairs left
  // without a route.
  std::vector<Pair> run(const std::vector<Pair>& first, const std::vector<Pair>& work) {
    const std::size_t n = table_.size();
    // Routes known to be free of forbidden cycles among themselves go in
    // unchecked while nothing else is in the graph yet; counted already
    // when the caller knows their dependencies (then no pass over every
    // pair, and no n^2 marks: 67 MB on 16x8x8x8).
    const bool unchecked = trusted_ && first.empty();
    const bool counted = unchecked && known_;
    std::vector<unsigned char> done(counted ? 0 : n * n, 0);
    std::vector<Pair> failed;
    for (const Pair& p : first) {
      done[p.first * n + p.second] = 1;
      if (!route(p, 0)) failed.push_back(p);
    }
    if (counted) {
      graph_.add_counts(known_->edge_counts);
      loads_ = known_->loads;
    }
    std::vector<ChannelId> channels;
    for (std::size_t s = 0; s < n && !counted; ++s)
      for (std::size_t d = 0; d < n; ++d) {
        if (s == d || done[s * n + d] || !original_has(s, d)) continue;
        channels.clear();
        table_.walk(s, d, torus_, [&](NodeId at, Direction hop) { channels.push_back(Torus::channel(at, hop)); });
        if (unchecked) {
          graph_.add_path(channels);
        } else if (!graph_.try_add_path(channels)) {
          continue;
        }
        for (ChannelId c : channels) ++loads_[c];
        done[s * n + d] = 1;
      }
    memo_.forget();
    for (std::size_t s = 0; s < n && !counted; ++s)
      for (std::size_t d = 0; d < n; ++d)
        if (s != d && !done[s * n + d] && original_has(s, d)) {  // refused above
          done[s * n + d] = 1;
          if (!route({s, d}, 0)) failed.push_back({s, d});
        }
    // The pairs routed first or refused already (a few): sorted keys.
    std::vector<std::size_t> claimed;
    for (const Pair& p : first) claimed.push_back(p.first * n + p.second);
    for (const Pair& p : failed) claimed.push_back(p.first * n + p.second);
    std::sort(claimed.begin(), claimed.end());
    for (const Pair& p : work) {
      if (std::binary_search(claimed.begin(), claimed.end(), p.first * n + p.second)) continue;
      if (!table_.has_route(p.first, p.second)) {
        if (!route(p, 0)) failed.push_back(p);
        continue;
      }
      // A detour: replace it only by something shorter, while the work
      // the detours have cost stays within the allowance.  The shorter
      // routes are checked alongside the detour (its dependencies stay
      // while they are), so a failed try leaves the graph as it was and the
      // searches of every pair share one memo of the cycle test.
      if (allowance_ && detour_work_ >= *allowance_) {
        ++detours_left_;
        continue;
      }
      const std::uint64_t before = measured_work();
      shorten_detour(p);
      detour_work_ += measured_work() - before;
    }
    for (const Pair& p : failed) change(p, Route{});
    return failed;
  }

  // Keeps the routes this attempt changed and puts the table back as it was.
  void finish() {
    if (own_) return;  // the caller's table was not touched
    std::vector<std::size_t> seen;
    for (const Change& c : log_) seen.push_back(c.pair.first * table_.size() + c.pair.second);
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    for (std::size_t key : seen) {
      const Pair p{key / table_.size(), key % table_.size()};
      routes_.push_back({p, table_.route(p.first, p.second)});
    }
    for (auto c = log_.rbegin(); c != log_.rend(); ++c) table_.set_route(c->pair.first, c->pair.second, c->route);
    log_.clear();
  }
  // Writes the attempt's routes into the caller's table.
  void apply() {
    if (own_) {
      caller_ = std::move(*own_);
      return;
    }
    for (const Change& c : routes_) table_.set_route(c.pair.first, c.pair.second, c.route);
  }

  // At most `allowance` steps (nullopt: any) for shortening detours.
  void limit_detour_work(std::optional<std::uint64_t> allowance) { allowance_ = allowance; }
  std::uint64_t detour_work() const { return detour_work_; }
  std::size_t detours_left() const { return detours_left_; }
  const CheckedTurnStats& stats() const { return stats_; }
  void mark_original(const RouteTable& original) { original_ = &original; }
  // The original routes close no forbidden cycle among themselves.
  void trust_original() { trusted_ = true; }
  // Their dependencies and loads, counted by the caller.
  void know_original(const RouteDependencies* known) { known_ = known; }

 private:
  bool original_has(std::size_t s, std::size_t d) const { return original_->has_route(s, d); }

  // The searches' work so far, in budget steps (checked_turns.hpp).
  std::uint64_t measured_work() const {
    return graph_.search_work() + expanded_ * kExpandedStateWork +
           oracle_.searches() * torus_.node_count() * kOracleWorkPerNode;
  }

  void shorten_detour(const Pair& p) {
    const std::vector<NodeId>& nodes = table_.nodes();
    const std::size_t length = table_.hop_count(p.first, p.second);
    if (length <= static_cast<std::size_t>(oracle_.shortest(nodes[p.first], nodes[p.second]))) return;
    const std::vector<ChannelId> old = route_channels(torus_, nodes[p.first], table_.route(p.first, p.second).hops);
    if (route(p, old.size() - 1)) {
      graph_.remove_path(old);
      memo_.forget();
      for (ChannelId c : old) --loads_[c];
      ++stats_.shortened;
    }
  }

  // The shortest encodable routes of the pair, least loaded first (highest
  // channel load on the route, then the summed load; ties keep the oracle's
  // order), the first that closes no forbidden cycle; failing that, the
  // checked search, at most `max_hops` long (0: any).  True when routed.
  bool route(const Pair& p, std::size_t max_hops) {
    const NodeId src = table_.nodes()[p.first], dst = table_.nodes()[p.second];
    const int best = oracle_.shortest(src, dst);
    if (best < 0 || (max_hops && static_cast<std::size_t>(best) > max_hops)) return false;
    const std::vector<std::vector<Direction>> candidates = oracle_.shortest_routes(src, dst, kShortestCandidates);
    std::vector<std::pair<std::uint64_t, std::size_t>> order;
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      std::uint64_t peak = 0, sum = 0;
      for (ChannelId c : route_channels(torus_, src, candidates[k])) {
        peak = std::max<std::uint64_t>(peak, loads_[c]);
        sum += loads_[c];
      }
      order.emplace_back((peak << 32) | std::min<std::uint64_t>(sum, 0xFFFFFFFFu), k);
    }
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [cost, k] : order)
      if (admit(p, candidates[k])) return true;
    // The checked search stays within twice the shortest length (plus a
    // little): longer detours are rarely admissible where short ones are not,
    // and the search is the expensive part of this stage.
    const std::size_t limit = max_hops ? max_hops : 2 * static_cast<std::size_t>(best) + 4;
    const std::optional<std::vector<Direction>> found =
        find_checked_route(network_, graph_, src, dst, limit, &memo_, &expanded_, &scratch_);
    return found && admit(p, *found);
  }

  bool admit(const Pair& p, const std::vector<Direction>& hops) {
    const std::vector<ChannelId> channels = route_channels(torus_, table_.nodes()[p.first], hops);
    if (!graph_.try_add_path(channels)) return false;  // the graph is as it was
    memo_.forget();
    for (ChannelId c : channels) ++loads_[c];
    if (!original_->has_route(p.first, p.second)) ++stats_.filled;
    change(p, Route{hops});
    return true;
  }

  struct Change {
    Pair pair;
    Route route;
  };
  // Sets a pair's route, logging the one it replaces when in place.
  void change(const Pair& p, Route route) {
    if (!own_) log_.push_back({p, table_.route(p.first, p.second)});
    table_.set_route(p.first, p.second, route);
  }

  const Network& network_;
  const Torus& torus_;
  const RoutabilityOracle& oracle_;
  const RouteTable* original_ = nullptr;
  bool trusted_ = false;
  const RouteDependencies* known_ = nullptr;
  RouteTable& caller_;
  std::unique_ptr<RouteTable> own_;  // the copy worked on, unless in place
  RouteTable& table_;                // *own_ or caller_
  std::vector<Change> log_;     // the routes changed, as they were, in order
  std::vector<Change> routes_;  // the changed pairs' routes at the attempt's end
  IncrementalDependencyGraph graph_;
  DependencyMemo memo_;  // valid for graph_ as it is; forgotten when its edges change
  CheckedRouteScratch scratch_;
  std::vector<std::uint32_t> loads_;
  CheckedTurnStats stats_;
  std::uint64_t expanded_ = 0;  // states the checked searches expanded
  std::optional<std::uint64_t> allowance_;
  std::uint64_t detour_work_ = 0;
  std::size_t detours_left_ = 0;
};

}  // namespace

// The first attempt keeps every route of the generator (they are safe among
// themselves: static turns only) and routes the rest around them.  Pairs
// that stay unrouted go first in the next attempt, before the generator's
// routes claim their dependencies (rip-up and reroute), until every pair is
// routed, an attempt does no better than the best before it, or kAttempts
// attempts are spent; the best attempt is kept.
namespace {

// The stage on `table`: `missing` pairs (must be routed), then `detours` (on
// the budget); `trusted`: the table's routes close no forbidden cycle among
// themselves.
CheckedTurnStats run_checked_turns(std::string_view generator, const Network& network, RouteTable& table,
                                   std::vector<Pair> work, std::vector<Pair> detours, const GeneratorOptions& options,
                                   bool trusted, const RouteDependencies* known) {
  const std::vector<NodeId>& nodes = table.nodes();
  if (work.empty() && detours.empty()) return {};
  // Shortening a detour is optional work (the pair has a route): on the
  // budget (routing.time_budget), in the order found, each charged what its
  // searches cost, until the budget's steps are spent.  (A detour costs
  // about 1 ms on 8x8x4x4, 20 ms on 16x8x8x8: the cycle test's searches grow
  // with the machine.)
  WorkBudget* budget = options.budget.get();
  std::optional<std::uint64_t> allowance;
  if (budget && !budget->unlimited()) allowance = budget->left();
  const std::size_t detour_count = detours.size();
  if (work.empty() && allowance && *allowance == 0) {
    // Nothing must be routed and the budget pays for no detour: no graph.
    budget->note_cut(detours_left_cut(detour_count, detour_count));
    return {};
  }
  work.insert(work.end(), detours.begin(), detours.end());

  const RoutabilityOracle oracle(network);
  std::vector<Pair> first;
  std::optional<CheckedTurnAttempt> best;
  std::size_t best_failed = 0;
  std::uint64_t spent = 0;  // by the attempts' detours
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    CheckedTurnAttempt current(network, table, oracle, options.flow_control, /*in_place=*/known != nullptr);
    current.mark_original(table);
    if (trusted) current.trust_original();
    current.know_original(known);
    if (allowance) current.limit_detour_work(*allowance > spent ? *allowance - spent : 0);
    const std::vector<Pair> failed = current.run(first, work);
    current.finish();
    spent += current.detour_work();
    // An attempt that does no better than the best one ends the loop: going
    // first helps some pairs and hurts others, and it seldom turns around.
    if (best && failed.size() >= best_failed) break;
    if (!best || failed.size() < best_failed) {
      best.emplace(std::move(current));
      best->mark_original(table);
      best_failed = failed.size();
    }
    if (failed.empty()) break;
    // Cut-off pairs cannot be helped by going first.
    // The newest failures go before the older ones.
    std::vector<Pair> next;
    for (const Pair& p : failed)
      if (oracle.shortest(nodes[p.first], nodes[p.second]) >= 0) next.push_back(p);
    if (next.empty()) break;
    for (const Pair& p : first)
      if (std::find(next.begin(), next.end(), p) == next.end()) next.push_back(p);
    first.swap(next);
  }
  if (budget) {
    budget->spend(spent);
    if (best->detours_left() > 0)
      budget->note_cut(detours_left_cut(best->detours_left(), detour_count));
  }
  best->apply();
  if (!unrouted_pairs(table).empty())
    throw unrouted_pairs_error(generator, network, table, true);
  return best->stats();
}

bool has_failures(const Network& network) {
  return !network.failed_nodes().empty() || !network.failed_links().empty();
}

}  // namespace

namespace {

CheckedTurnStats complete_every_pair(std::string_view generator, const Network& network, RouteTable& table,
                                     const GeneratorOptions& options, bool trusted) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = table.nodes();
  const std::size_t n = nodes.size();
  if (n < 2 || !has_failures(network)) {
    if (!unrouted_pairs(table).empty()) throw unrouted_pairs_error(generator, network, table);
    return {};
  }

  // Missing pairs first (they must be routed), then the detours.
  std::vector<Pair> work, detours;
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      if (s == d) continue;
      if (!table.has_route(s, d))
        work.emplace_back(s, d);
      else if (table.route(s, d).hops.size() > static_cast<std::size_t>(torus.distance(nodes[s], nodes[d])))
        detours.emplace_back(s, d);
    }
  return run_checked_turns(generator, network, table, std::move(work), std::move(detours), options, trusted, nullptr);
}

}  // namespace

CheckedTurnStats complete_with_checked_turns(std::string_view generator, const Network& network, RouteTable& table,
                                             const GeneratorOptions& options) {
  return complete_every_pair(generator, network, table, options, false);
}

CheckedTurnStats complete_trusted_with_checked_turns(std::string_view generator, const Network& network,
                                                     RouteTable& table, const GeneratorOptions& options) {
  return complete_every_pair(generator, network, table, options, true);
}

CheckedTurnStats complete_listed_pairs_with_checked_turns(std::string_view generator, const Network& network,
                                                          RouteTable& table, const std::vector<Pair>& pairs,
                                                          const GeneratorOptions& options,
                                                          const RouteDependencies* known) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = table.nodes();
  if (nodes.size() < 2 || !has_failures(network)) return complete_with_checked_turns(generator, network, table, options);
  std::vector<Pair> work, detours;
  for (const Pair& p : pairs) {
    if (p.first == p.second) continue;
    if (!table.has_route(p.first, p.second))
      work.push_back(p);
    else if (table.hop_count(p.first, p.second) > static_cast<std::size_t>(torus.distance(nodes[p.first], nodes[p.second])))
      detours.push_back(p);
  }
  return run_checked_turns(generator, network, table, std::move(work), std::move(detours), options, true, known);
}

}  // namespace angara
