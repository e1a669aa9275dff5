// Stages 1-3 of the balanced generator (routing/generators/balanced.cpp):
// the load balancer over a candidate set and its deadlock guard, used by
// stage 5 (balancer.hpp).
#include "routing/generators/balanced/balancer.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace angara::balanced {

namespace {

// Safety net on rounds of the local search; each round is one pass, and every
// accepted move strictly lowers the objective, so this is rarely reached.
constexpr int kMaxRounds = 400;
constexpr int kPolishPasses = 4;
// Iterations of one negotiated-congestion attempt.
constexpr int kNegotiationRounds = 40;

// The tie-breaking term of the objective: sum over channels of load^4, the
// sum behind sigma(4) (the total load is the same for every choice of
// minimal routes).  It favours many small reductions near the top.
constexpr std::int64_t spread_of(std::int64_t load) { return load * load * load * load; }

}  // namespace

DeadlockGuard::DeadlockGuard(const CandidateSet& set, const Torus& torus, FlowControl rule)
    : set_(set), torus_(torus), rule_(rule), closing_(torus.channel_slots() * std::size_t{kDirectionCount}, 0) {}

void DeadlockGuard::reset(const std::vector<std::uint32_t>& choice) {
  if (graph_)
    graph_->clear();
  else
    graph_.emplace(torus_, rule_);
  for (std::size_t p = 0; p < set_.pair_count(); ++p)
    if (set_.variants(p) > 0) graph_->add_path(copy(p, choice[p], &old_));
  witness_.clear();
  forget();
}

bool DeadlockGuard::try_move(std::size_t p, std::uint32_t from, std::uint32_t to) {
  if (from == to) return true;
  copy(p, to, &new_);
  // A dependency found closing a cycle keeps closing it until some
  // dependency disappears: no search then.
  for (std::size_t k = 1; k < new_.size(); ++k)
    if (closing_[slot(new_[k - 1], new_[k])] == epoch_ && !graph_->has_edge(new_[k - 1], new_[k])) return false;
  graph_->remove_path(copy(p, from, &old_));
  // A dependency whose last cycle still stands closes it again: no search.
  for (std::size_t k = 1; k < new_.size(); ++k)
    if (!graph_->has_edge(new_[k - 1], new_[k]) && witnessed(slot(new_[k - 1], new_[k]))) {
      graph_->add_path(old_);
      return false;
    }
  std::size_t added = 1;
  for (; added < new_.size(); ++added) {
    const ChannelId a = new_[added - 1], b = new_[added];
    if (graph_->closes_cycle(a, b, &walk_)) {
      // Only a search on the graph as it stands is remembered (not one
      // that saw part of this route already).
      bool fresh = true;
      for (std::size_t k = 1; k < added; ++k) fresh = fresh && graph_->edge_count(new_[k - 1], new_[k]) > 1;
      if (fresh) closing_[slot(a, b)] = epoch_;
      witness_[slot(a, b)] = walk_;
      break;
    }
    edge_[0] = a;
    edge_[1] = b;
    graph_->add_path(edge_);
  }
  if (added == new_.size()) {
    for (std::size_t k = 1; k < old_.size(); ++k)
      if (!graph_->has_edge(old_[k - 1], old_[k])) {
        forget();
        break;
      }
    return true;
  }
  for (std::size_t k = 1; k < added; ++k) {
    edge_[0] = new_[k - 1];
    edge_[1] = new_[k];
    graph_->remove_path(edge_);
  }
  graph_->add_path(old_);
  return false;
}

bool DeadlockGuard::witnessed(std::size_t slot) const {
  const auto found = witness_.find(slot);
  if (found == witness_.end()) return false;
  const std::vector<ChannelId>& walk = found->second;
  for (std::size_t k = 1; k < walk.size(); ++k)
    if (!graph_->has_edge(walk[k - 1], walk[k])) return false;
  return true;
}

std::size_t DeadlockGuard::slot(ChannelId from, ChannelId to) {
  return std::size_t{from} * kDirectionCount + static_cast<std::size_t>(Torus::channel_direction(to).rank());
}

void DeadlockGuard::forget() {
  if (++epoch_ == 0) {
    std::fill(closing_.begin(), closing_.end(), 0);
    epoch_ = 1;
  }
}

const std::vector<ChannelId>& DeadlockGuard::copy(std::size_t p, std::uint32_t v,
                                                  std::vector<ChannelId>* out) const {
  const ChannelSpan span = set_.channels(p, v);
  out->assign(span.begin(), span.end());
  return *out;
}

Balancer::Balancer(const CandidateSet& set, std::size_t channel_slots)
    : set_(set),
      used_(set.used_channels()),
      choice_(set.pair_count(), 0),
      loads_(channel_slots, 0),
      delta_(channel_slots, 0),
      on_route_(channel_slots, 0),
      crossing_(channel_slots),
      stale_(channel_slots, 0) {}

bool Balancer::over_budget() {
  if (!budget_) return false;
  const std::uint64_t guard_work = guard_ ? guard_->work() : 0;
  // A guard whose graph was rebuilt counts from zero again.
  budget_->spend(pending_work_ + (guard_work >= guard_work_seen_ ? guard_work - guard_work_seen_ : guard_work));
  pending_work_ = 0;
  guard_work_seen_ = guard_work;
  return budget_->exhausted();
}

void Balancer::guard_with(DeadlockGuard* guard) {
  guard_ = guard;
  guard_work_seen_ = guard ? guard->work() : 0;
  if (guard_) guard_->reset(choice_);
}

bool Balancer::better_than(const Balancer& other) const {
  if (max_load_ != other.max_load_) return max_load_ < other.max_load_;
  if (at_max_ != other.at_max_) return at_max_ < other.at_max_;
  return spread_ < other.spread_;
}

void Balancer::assign_greedy(bool searched_next) {
  // Fewest candidates first, then the longest routes; ties keep pair order,
  // which walks the sources in turn so that neighbouring sources see each
  // other's choices.  A counting sort over (candidates, length): both are
  // small numbers, and a comparison sort of a million pairs is a tenth of
  // a second.
  std::size_t most_variants = 0, longest = 0;
  for (std::size_t p = 0; p < set_.pair_count(); ++p)
    if (set_.variants(p) > 0) {
      most_variants = std::max(most_variants, set_.variants(p));
      longest = std::max(longest, set_.channels(p, 0).size());
    }
  const auto key = [&](std::size_t p) {
    return set_.variants(p) * (longest + 1) + (longest - set_.channels(p, 0).size());
  };
  std::vector<std::size_t> first((most_variants + 1) * (longest + 1) + 1, 0);
  for (std::size_t p = 0; p < set_.pair_count(); ++p)
    if (set_.variants(p) > 0) ++first[key(p) + 1];
  for (std::size_t k = 1; k < first.size(); ++k) first[k] += first[k - 1];
  std::vector<std::size_t> order(first.back());
  for (std::size_t p = 0; p < set_.pair_count(); ++p)
    if (set_.variants(p) > 0) order[first[key(p)]++] = p;
  for (std::size_t p : order) {
    if (set_.variants(p) == 1) {  // nothing to choose (most pairs without a tie)
      choice_[p] = 0;
      for (ChannelId c : set_.channels(p, 0)) ++loads_[c];
      continue;
    }
    std::uint32_t best = 0;
    std::uint32_t best_peak = 0;
    std::uint64_t best_spread = 0;
    for (std::uint32_t v = 0; v < set_.variants(p); ++v) {
      std::uint32_t peak = 0;
      std::uint64_t spread = 0;
      for (ChannelId c : set_.channels(p, v)) {
        peak = std::max(peak, loads_[c] + 1);
        spread += static_cast<std::uint64_t>(spread_of(loads_[c] + 1) - spread_of(loads_[c]));
      }
      if (v == 0 || peak < best_peak || (peak == best_peak && spread < best_spread)) {
        best = v;
        best_peak = peak;
        best_spread = spread;
      }
    }
    choice_[p] = best;
    for (ChannelId c : set_.channels(p, best)) ++loads_[c];
  }
  if (searched_next) {
    index();
  } else {
    recount_max();
  }
}

void Balancer::assign(const std::vector<std::uint32_t>& choice) {
  std::fill(loads_.begin(), loads_.end(), 0);
  choice_ = choice;
  for (std::size_t p = 0; p < set_.pair_count(); ++p)
    if (set_.variants(p) > 0)
      for (ChannelId c : set_.channels(p, choice_[p])) ++loads_[c];
  index();
  if (guard_) guard_->reset(choice_);
}

bool Balancer::negotiate(std::uint32_t target, int iterations) {
  const std::vector<std::uint32_t> saved = choice_;
  std::vector<double> history(loads_.size(), 0.0);
  double pressure = 0.5;
  for (int iteration = 0; iteration < iterations; ++iteration) {
    if (over_budget()) break;  // rolled back below, as a failed negotiation
    for (std::size_t p = 0; p < set_.pair_count(); ++p) {
      if (set_.variants(p) < 2) continue;
      // An iteration over a million pairs is seconds: the budget is looked
      // at within it, and its end rolls the negotiation back.
      if (budget_ && (p & 1023) == 0 && over_budget()) break;
      pending_work_ += 2 * kEvaluationWork * set_.variants(p);  // costing walks loads and history
      for (ChannelId c : set_.channels(p, choice_[p])) --loads_[c];
      auto cost_of = [&](std::uint32_t v) {
        double cost = 0;
        for (ChannelId c : set_.channels(p, v)) {
          const double over = loads_[c] + 1 > target ? double(loads_[c] + 1 - target) : 0.0;
          cost += (1.0 + history[c]) * (1.0 + pressure * over);
        }
        return cost;
      };
      // The current route wins ties, which keeps the search steady.
      std::uint32_t best = choice_[p];
      if (!guard_) {
        double best_cost = cost_of(best);
        for (std::uint32_t v = 0; v < set_.variants(p); ++v) {
          if (v == choice_[p]) continue;
          const double cost = cost_of(v);
          if (cost < best_cost) {
            best = v;
            best_cost = cost;
          }
        }
      } else {
        // The cheapest route that closes no forbidden cycle.
        ranked_.clear();
        const double current = cost_of(best);
        for (std::uint32_t v = 0; v < set_.variants(p); ++v)
          if (v != choice_[p]) {
            const double cost = cost_of(v);
            if (cost < current) ranked_.emplace_back(cost, v);
          }
        std::sort(ranked_.begin(), ranked_.end());
        for (const auto& [cost, v] : ranked_)
          if (guard_->try_move(p, choice_[p], v)) {
            best = v;
            break;
          }
      }
      choice_[p] = best;
      for (ChannelId c : set_.channels(p, best)) ++loads_[c];
    }
    if (budget_ && budget_->exhausted()) break;
    bool over = false;
    for (ChannelId c : used_)
      if (loads_[c] > target) {
        over = true;
        history[c] += 0.2 * (loads_[c] - target);
      }
    if (!over) {
      index();
      return true;
    }
    pressure *= 1.5;
  }
  assign(saved);
  return false;
}

void Balancer::local_search(std::uint32_t bound, bool polish) {
  for (int round = 0; round < kMaxRounds && max_load_ > bound && !over_budget(); ++round)
    if (!relieve_max_channels() && !lower_spread()) break;
  for (int pass = 0; polish && pass < kPolishPasses && !over_budget(); ++pass)
    if (!lower_spread()) break;
}

void Balancer::index() {
  for (ChannelId c : used_) {
    crossing_[c].clear();
    stale_[c] = 0;
  }
  moves_of_.assign(set_.pair_count(), 0);
  for (ChannelId c : used_) crossing_[c].reserve(loads_[c]);
  for (std::size_t p = 0; p < set_.pair_count(); ++p)
    if (set_.variants(p) > 0)
      for (ChannelId c : set_.channels(p, choice_[p])) crossing_[c].push_back({static_cast<std::uint32_t>(p), 0});
  recount_max();
}

void Balancer::crossing_now(ChannelId c, std::vector<std::uint32_t>* pairs) const {
  pairs->clear();
  for (const Crossing& entry : crossing_[c])
    if (entry.moves == moves_of_[entry.pair]) pairs->push_back(entry.pair);
}

void Balancer::recount_max() {
  max_load_ = 0;
  at_max_ = 0;
  spread_ = 0;
  for (ChannelId c : used_) {
    const std::uint32_t load = loads_[c];
    spread_ += static_cast<std::uint64_t>(spread_of(load));
    if (load > max_load_) {
      max_load_ = load;
      at_max_ = 0;
    }
    if (load == max_load_) ++at_max_;
  }
}

void Balancer::take_off(std::size_t p) {
  // Multiplicities first (a route may cross a channel twice), then each
  // channel's effect once, the channel marked done by a negative count.
  removal_ = MoveDelta{true, 0, 0};
  for (ChannelId c : set_.channels(p, choice_[p])) ++on_route_[c];
  for (ChannelId c : set_.channels(p, choice_[p])) {
    const int k = on_route_[c];
    if (k <= 0) continue;
    on_route_[c] = -k;
    const std::int64_t load = loads_[c], after = load - k;
    removal_.at_max += (after == max_load_) - (load == max_load_);
    removal_.spread += spread_of(after) - spread_of(load);
  }
}

void Balancer::put_back(std::size_t p) {
  for (ChannelId c : set_.channels(p, choice_[p])) on_route_[c] = 0;
}

MoveDelta Balancer::evaluate(std::size_t p, std::uint32_t to) {
  // The current route's removal (take_off) plus the candidate's channels,
  // each corrected where the current route crosses it too: the same sums
  // as scattering both routes' changes, over the candidate's channels only.
  MoveDelta delta = removal_;
  const ChannelSpan channels = set_.channels(p, to);
  for (ChannelId c : channels) ++delta_[c];
  for (ChannelId c : channels) {
    const int added = delta_[c];
    if (added == 0) continue;  // seen already
    delta_[c] = 0;
    const int removed = -on_route_[c];
    const std::int64_t load = loads_[c];
    if (removed > 0) {
      delta.at_max -= (load - removed == max_load_) - (load == max_load_);
      delta.spread -= spread_of(load - removed) - spread_of(load);
      if (added == removed) continue;
    }
    const std::int64_t after = load - removed + added;
    if (after > static_cast<std::int64_t>(max_load_)) delta.valid = false;
    delta.at_max += (after == max_load_) - (load == max_load_);
    delta.spread += spread_of(after) - spread_of(load);
  }
  return delta;
}

void Balancer::apply(std::size_t p, std::uint32_t to) {
  const auto pair_id = static_cast<std::uint32_t>(p);
  for (ChannelId c : set_.channels(p, choice_[p])) {
    if (loads_[c] == max_load_) --at_max_;
    spread_ -= static_cast<std::uint64_t>(spread_of(loads_[c]) - spread_of(loads_[c] - 1));
    --loads_[c];
    // The pair's entry goes stale (its move count changes below) instead of
    // being erased from the middle of a list of thousands; a list is
    // compacted, in order, once most of it is stale.
    if (++stale_[c] > crossing_[c].size() / 2) {
      auto& list = crossing_[c];
      const auto stale = [&](const Crossing& entry) {
        return entry.moves != moves_of_[entry.pair] || entry.pair == pair_id;
      };
      list.erase(std::remove_if(list.begin(), list.end(), stale), list.end());
      stale_[c] = 0;
    }
  }
  const std::uint32_t moves = ++moves_of_[p];
  bool above = false;
  for (ChannelId c : set_.channels(p, to)) {
    spread_ += static_cast<std::uint64_t>(spread_of(loads_[c] + 1) - spread_of(loads_[c]));
    ++loads_[c];
    if (loads_[c] == max_load_) ++at_max_;
    above = above || loads_[c] > max_load_;
    crossing_[c].push_back({pair_id, moves});
  }
  choice_[p] = to;
  if (at_max_ == 0 || above) recount_max();
}

bool Balancer::best_move(std::size_t p, std::uint32_t* to) {
  MoveDelta best;
  moves_.clear();
  pending_work_ += kEvaluationWork * set_.variants(p);
  take_off(p);
  for (std::uint32_t v = 0; v < set_.variants(p); ++v) {
    if (v == choice_[p]) continue;
    const MoveDelta delta = evaluate(p, v);
    if (!delta.improves()) continue;
    if (guard_) moves_.emplace_back(delta, v);
    if (!best.valid || delta.better_than(best)) {
      best = delta;
      *to = v;
    }
  }
  put_back(p);
  if (!guard_ || !best.valid) return best.valid;
  // Under the guard: the best move that closes no forbidden cycle.
  std::stable_sort(moves_.begin(), moves_.end(),
                   [](const auto& a, const auto& b) { return a.first.better_than(b.first); });
  for (const auto& [delta, v] : moves_)
    if (guard_->try_move(p, choice_[p], v)) {
      *to = v;
      return true;
    }
  return false;
}

bool Balancer::relieve_max_channels() {
  bool moved = false;
  std::vector<ChannelId> hottest;
  for (ChannelId c : used_)
    if (loads_[c] == max_load_) hottest.push_back(c);
  const std::uint32_t level = max_load_;
  std::vector<std::uint32_t> pairs;
  for (ChannelId c : hottest) {
    if (max_load_ != level) break;  // the maximum dropped: start a new round
    if (loads_[c] != level) continue;
    crossing_now(c, &pairs);
    for (std::uint32_t p : pairs) {
      if (budget_ && over_budget()) return moved;
      std::uint32_t to = 0;
      if (set_.variants(p) < 2 || !best_move(p, &to)) continue;
      apply(p, to);
      moved = true;
      if (loads_[c] != level) break;
    }
  }
  return moved;
}

bool Balancer::lower_spread() {
  bool moved = false;
  for (std::size_t p = 0; p < set_.pair_count(); ++p) {
    if (budget_ && over_budget()) return moved;
    std::uint32_t to = 0;
    if (set_.variants(p) < 2 || !best_move(p, &to)) continue;
    apply(p, to);
    moved = true;
  }
  return moved;
}

bool choice_of_table(const CandidateSet& set, const RouteTable& table, std::vector<std::uint32_t>* choice) {
  choice->assign(set.pair_count(), 0);
  for (std::size_t s = 0; s < set.node_count(); ++s)
    for (std::size_t d = 0; d < set.node_count(); ++d) {
      if (s == d) continue;
      const std::size_t v = set.find(set.pair(s, d), table.route(s, d).hops);
      if (v == CandidateSet::npos || table.route(s, d).layer != 0) return false;
      (*choice)[set.pair(s, d)] = static_cast<std::uint32_t>(v);
    }
  return true;
}

void search(Balancer& balancer, std::uint32_t bound, bool polish) {
  balancer.local_search(bound, polish);
  while (balancer.max_load() > bound && !balancer.over_budget() &&
         balancer.negotiate(balancer.max_load() - 1, kNegotiationRounds))
    balancer.local_search(bound, polish);
}

}  // namespace angara::balanced
