// The exact generator's repair of a partial table on allocations of more
// than kMaxNodes nodes (repair_with_solver, exact.hpp): a large
// neighbourhood search that asks the model of whole.cpp about the freed
// pairs, the other routes' dependencies its assumptions.
#include <z3++.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "angara/network.hpp"
#include "routing/common/dependency_graph.hpp"
#include "routing/common/oracle.hpp"
#include "routing/generators/exact/exact.hpp"
#include "routing/generators/exact/shared.hpp"

namespace angara {

namespace exact {

// The repair of large allocations: questions asked at most, the hops of the
// freed pairs' candidates at most (the solver's memory grows with them, by
// under 1 KB a hop: 677 MB of peak on a 16x16 at 800000),
// pairs freed per round (beyond the first dependency's holders), and the
// solver's resource budget for all its questions (about 80 s here, as the
// four questions over a whole allocation at most; each question has at most
// kResourceLimit of it).  A faulty 16x16 with 253 allocated nodes (fault
// campaign, doc/benchmarks.md) needs 22 rounds and 4445 freed pairs.
constexpr int kRepairRounds = 60;
constexpr std::size_t kRepairMaxHops = 1'000'000;
constexpr std::size_t kRepairFreePerRound = 400;
constexpr std::uint64_t kRepairBudget = 4 * std::uint64_t{kResourceLimit};

// Large allocations: the repair of a partial table (large neighbourhood
// search).  The routes of most pairs stay as the heuristic chose them; the
// pairs it left out are freed, with every one of their candidates, and the
// other routes' dependencies enter the question as assumptions.  When the
// solver finds no choice, the assumptions it needed (its unsat core) name
// dependencies; the pairs whose routes hold them are freed too, those of
// the dependencies held by fewest pairs first, and the question is asked
// again.  A satisfiable answer is a table.  An unsatisfiable answer that
// needs no assumption is a proof: the freed pairs alone, each with every
// encodable route, admit no deadlock-free choice, so neither does the whole
// allocation.
class Repair {
 public:
  Repair(const Network& network, RouteTable table, FlowControl flow)
      : network_(network), torus_(network.torus()), table_(std::move(table)), flow_(flow) {
    const std::size_t n = table_.size();
    freed_.assign(n * n, 0);
    question_.n = n;
    missing_ = unrouted_pairs(table_).size();
  }

  RouteTable run() {
    const std::vector<NodeId>& nodes = table_.nodes();
    const std::size_t n = table_.size();
    const std::vector<std::pair<std::size_t, std::size_t>> missing = unrouted_pairs(table_);
    std::vector<std::size_t> first;
    for (const auto& [s, d] : missing) first.push_back(s * n + d);
    free_pairs(first);
    for (const auto& [s, d] : missing)
      if (candidates_.at(s * n + d).empty())  // cut off: the oracle's refusal
        throw unrouted_pairs_error("exact", network_, table_);
    std::uint64_t budget = kRepairBudget;
    for (int round = 0;; ++round) {
      collect_fixed();
      question_.resource_limit = static_cast<unsigned>(std::min<std::uint64_t>(kResourceLimit, budget));
      const Answer answer = solve(network_, question_, flow_, nodes);
      budget -= std::min(budget, answer.resources);
      if (answer.result == z3::unknown || (answer.result == z3::unsat && budget == 0))
        throw undecided(answer.reason.rfind("its memory bound", 0) == 0
                            ? "the solver reached " + answer.reason
                            : "the solver spent its resource budget (" +
                                  (answer.reason.empty() ? std::string("exhausted") : answer.reason) + ")");
      if (answer.result == z3::sat) {
        apply(network_, question_, answer.choice, flow_, table_);
        return std::move(table_);
      }
      if (answer.core.empty()) {
        // The proof, asked once more as it reads: the freed pairs alone.
        Question alone = question_;
        alone.fixed.clear();
        alone.resource_limit = kResourceLimit;
        if (solve(network_, alone, flow_, nodes).result == z3::unsat) throw RoutingError(proof());
        throw undecided("the solver's answers disagree");
      }
      if (round + 1 == kRepairRounds)
        throw undecided("no choice fits the other routes after " + std::to_string(kRepairRounds) +
                                     " rounds");
      const std::vector<std::size_t> holders = holders_of(answer.core);
      if (holders.empty()) throw undecided("no choice fits the other routes");
      free_pairs(holders);
      if (model_hops_ > kRepairMaxHops)
        throw undecided("no choice fits the other routes, and the next question, with " +
                                     std::to_string(question_.pairs.size()) + " pairs, would exceed its limit of " +
                                     std::to_string(kRepairMaxHops) + " candidate route hops");
    }
  }

 private:
  // Frees the pairs (their candidates, shortest first, as the question's
  // routes), one search per source.
  void free_pairs(std::vector<std::size_t> pairs) {
    std::sort(pairs.begin(), pairs.end());
    for_each_pair_routes(network_, table_.nodes(), pairs, [&](std::size_t p, std::vector<Hops> routes) {
      freed_[p] = 1;
      for (const Hops& hops : routes) model_hops_ += hops.size();
      candidates_[p] = std::move(routes);
    });
    // The question lists the freed pairs in index order (deterministic).
    question_.pairs.clear();
    question_.routes.clear();
    for (const auto& [p, routes] : candidates_) {
      question_.pairs.push_back(p);
      question_.routes.push_back(&routes);
    }
  }

  // The dependencies of the routes of the pairs not freed.
  void collect_fixed() {
    std::set<Dependency> fixed;
    for_each_fixed_route([&](std::size_t, const std::vector<ChannelId>& channels) {
      for (std::size_t k = 1; k < channels.size(); ++k) fixed.emplace(channels[k - 1], channels[k]);
    });
    question_.fixed.assign(fixed.begin(), fixed.end());
  }

  template <typename Visit>
  void for_each_fixed_route(Visit visit) const {
    const std::size_t n = table_.size();
    for (std::size_t s = 0; s < n; ++s)
      for (std::size_t d = 0; d < n; ++d)
        if (s != d && !freed_[s * n + d] && table_.has_route(s, d))
          visit(s * n + d, route_channels(torus_, table_.nodes()[s], table_.route(s, d).hops));
  }

  // The pairs to free after an unsatisfiable answer: the holders of the
  // core's dependencies, those held by fewest pairs first, at least one
  // dependency's and at most kRepairFreePerRound pairs beyond that.
  std::vector<std::size_t> holders_of(const std::vector<std::size_t>& core) const {
    std::map<Dependency, std::vector<std::size_t>> holders;
    for (std::size_t k : core) holders[question_.fixed[k]];
    for_each_fixed_route([&](std::size_t p, const std::vector<ChannelId>& channels) {
      for (std::size_t k = 1; k < channels.size(); ++k) {
        const auto it = holders.find({channels[k - 1], channels[k]});
        if (it != holders.end() && (it->second.empty() || it->second.back() != p)) it->second.push_back(p);
      }
    });
    std::vector<std::pair<std::size_t, Dependency>> order;  // (holders, dependency)
    for (const auto& [dependency, pairs] : holders) order.emplace_back(pairs.size(), dependency);
    std::sort(order.begin(), order.end());
    std::set<std::size_t> chosen;
    for (const auto& [count, dependency] : order) {
      if (!chosen.empty() && chosen.size() + count > kRepairFreePerRound) break;
      const std::vector<std::size_t>& pairs = holders.at(dependency);
      chosen.insert(pairs.begin(), pairs.end());
    }
    return {chosen.begin(), chosen.end()};
  }

  std::string pair_list() const {
    const std::size_t n = table_.size();
    std::string out;
    std::size_t shown = 0;
    for (std::size_t p : question_.pairs) {
      if (shown++ == kPairsShown) break;
      out += (out.empty() ? "" : ", ") + torus_.format_coord(table_.nodes()[p / n]) + " -> " +
             torus_.format_coord(table_.nodes()[p % n]);
    }
    if (question_.pairs.size() > kPairsShown)
      out += " and " + std::to_string(question_.pairs.size() - kPairsShown) + " more";
    return out;
  }

  std::string proof() const {
    return no_table_exists(table_.size(), " of " + std::to_string(question_.pairs.size()) +
                                              " pairs, which alone admit no choice: " + pair_list());
  }

  UndecidedError undecided(const std::string& why) const {
    const std::string what = "the repair of " +
                             (table_.algorithm.empty() ? std::string("the partial table") : table_.algorithm + "'s table") +
                             ", which left " + std::to_string(missing_) + " pairs without a route, freed " +
                             std::to_string(question_.pairs.size()) + " pairs; " + why;
    return UndecidedError("exact: undecided for these " + std::to_string(table_.size()) + " nodes: " + what, what);
  }

  const Network& network_;
  const Torus& torus_;
  RouteTable table_;
  FlowControl flow_;
  std::size_t missing_ = 0;
  std::vector<unsigned char> freed_;
  std::map<std::size_t, std::vector<Hops>> candidates_;  // of the freed pairs
  std::size_t model_hops_ = 0;                           // their hops, all candidates
  Question question_;
};

}  // namespace exact

RouteTable repair_with_solver(const Network& network, RouteTable partial, FlowControl flow) {
  return exact::Repair(network, std::move(partial), flow).run();
}

}  // namespace angara
