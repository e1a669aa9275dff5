// exact: whether one virtual channel can carry a deadlock-free table of
// Angara-encodable routes at all, decided by an SMT solver (Z3), for the
// small allocations where the heuristic generators give up although the
// routability oracle joins every pair (the fault campaign's misses, issue 7;
// doc/benchmarks.md).  It is the last member of the default chain.
//
// The model: a boolean per candidate route, one per dependency that some
// candidate uses, and an integer level per channel.  A route implies its
// dependencies; a dependency u -> v implies level(v) >= level(u) + 1 when it
// turns (or under flow control none, always) and level(v) >= level(u) when it
// goes straight on.  Such levels exist iff no cycle of the dependency graph
// holds a turn (the shared deadlock rule, shared/angara-model.md): a cycle
// with a turn would have to climb and come back; without one, the straight
// ring cycles are the graph's only strongly connected parts and the levels
// of a topological order of the rest will do.  Every pair needs one route.
//
// The candidates are every encodable route whose straight runs are at most
// one ring long: a longer run has a twin one ring shorter with the same
// turns and a subset of the straight dependencies, so nothing is lost.  So
// an unsatisfiable model with all of them proves that no deadlock-free
// single-channel table exists.  The model is first tried with the shortest
// routes without First/Last Step (the DOR routes of a fault-free torus), then
// with the routes up to the pair's shortest plus a slack of 0 and 2 hops, so
// that the routes stay short; the first satisfiable one wins.  Its routes then pass through
// an improvement pass: pair by pair, the shortest and least loaded candidate
// that keeps the graph free of forbidden cycles replaces the solver's choice
// (the solver's own route fits again at worst; where nothing has failed,
// only routes without First/Last Step are taken).
//
// Deterministic: Z3 runs with its fixed default seed and a resource limit
// (not a time limit), on an allocation of at most kMaxNodes nodes.
#include <z3++.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "angara/network.hpp"
#include "routing/common/checked_turns.hpp"
#include "routing/generators/exact.hpp"
#include "routing/common/dependency_graph.hpp"
#include "routing/generator.hpp"
#include "routing/common/oracle.hpp"

namespace angara {

namespace {

// Larger allocations are refused at once: the model grows with the pairs
// times their candidates, and the heuristics route those machines.
constexpr std::size_t kMaxNodes = 100;
// Z3's deterministic resource budget for each satisfiability check: about
// 20 s here (Z3 counts some 4-5 million units a second); the scenarios of the
// fault campaign need at most a few million.
constexpr unsigned kResourceLimit = 80'000'000;
// Slacks tried before all candidates (hops over the pair's shortest route).
constexpr int kSlacks[] = {0, 2};
// Candidates tried per pair in the improvement pass, shortest first.
constexpr std::size_t kImprovementTries = 48;
constexpr int kImprovementPasses = 3;
// The repair of large allocations: questions asked at most, the hops of the
// freed pairs' candidates at most (the solver's memory grows with them, by
// under 1 KB a hop: 677 MB of peak on a 16x16 at 800000),
// pairs freed per round (beyond the first dependency's holders), and the
// solver's resource budget for all its questions (about 80 s here, as the
// four questions over a whole allocation at most; each question has at most
// kResourceLimit of it).  Scenario 173 of the fault campaign (16x16, 253
// nodes) needs 22 rounds and 4445 freed pairs.
constexpr int kRepairRounds = 60;
constexpr std::size_t kRepairMaxHops = 1'000'000;
constexpr std::size_t kRepairFreePerRound = 400;
constexpr std::uint64_t kRepairBudget = 4 * std::uint64_t{kResourceLimit};
constexpr std::size_t kPairsShown = 4;

using Hops = std::vector<Direction>;

// An undecided search (limits reached, neither a table nor a proof): the
// generator then tries its next search.
class UndecidedError : public RoutingError {
 public:
  UndecidedError(const std::string& message, std::string why) : RoutingError(message), why_(std::move(why)) {}
  const std::string& why() const { return why_; }

 private:
  std::string why_;
};

// A route without First or Last Step: directions in order, one sign per
// dimension (the routes every generator uses where nothing has failed).
bool dor_only(const Hops& hops) {
  for (std::size_t k = 1; k < hops.size(); ++k)
    if (hops[k] < hops[k - 1]) return false;
  for (const Direction d : hops)
    if (std::find(hops.begin(), hops.end(), d.opposite()) != hops.end()) return false;
  return true;
}

// Every encodable route from src to each allocated node over live channels
// and routers whose straight runs are at most one ring long and which reach
// their destination only at their end, each hop sequence once, shortest
// first, and among equally short ones those without First/Last Step first.
// `index_of` maps a node to its allocation index (npos: not allocated).
// `walked`, when given, counts the hops the search takes.
std::vector<std::vector<Hops>> encodable_routes_from(const Network& network, NodeId src,
                                                     const std::vector<std::size_t>& index_of, std::size_t n,
                                                     std::uint64_t* walked = nullptr) {
  const Torus& torus = network.torus();
  std::vector<std::set<std::tuple<std::size_t, bool, Hops>>> found(n);  // (length, with FS/LS, hops)
  std::vector<unsigned> on_path(torus.node_count(), 0);
  Hops hops;
  const auto walk = [&](const auto& self, NodeId node, int stage, int run) -> void {
    for (int rank = 0; rank < kDirectionCount; ++rank) {
      const Direction d(rank);
      if (!torus.direction_present(d) || !network.channel_alive(node, d)) continue;
      const NodeId to = torus.neighbor(node, d);
      if (!network.node_alive(to)) continue;
      const int length = !hops.empty() && hops.back() == d ? run + 1 : 1;
      if (length > torus.size(d.dim())) continue;
      int targets[2];
      const int count = encodable::next_stages(stage, d, targets);
      for (int k = 0; k < count; ++k) {
        hops.push_back(d);
        if (walked) ++*walked;
        const std::size_t dst = index_of[to];
        if (dst != RouteTable::npos && to != src && on_path[to] == 0)
          found[dst].emplace(hops.size(), !dor_only(hops), hops);
        ++on_path[to];
        self(self, to, targets[k], length);
        --on_path[to];
        hops.pop_back();
      }
    }
  };
  walk(walk, src, encodable::kBegin, 0);
  std::vector<std::vector<Hops>> routes(n);
  for (std::size_t d = 0; d < n; ++d)
    for (const auto& entry : found[d]) routes[d].push_back(std::get<2>(entry));
  return routes;
}

// Calls visit(p, routes) for each pair p = s * n + d of `pairs` (sorted),
// with every encodable route of the pair (encodable_routes_from), one search
// per source.
template <typename Visit>
void for_each_pair_routes(const Network& network, const std::vector<NodeId>& nodes,
                          const std::vector<std::size_t>& pairs, Visit visit, std::uint64_t* walked = nullptr) {
  const std::size_t n = nodes.size();
  std::vector<std::size_t> index_of(network.torus().node_count(), RouteTable::npos);
  for (std::size_t k = 0; k < pairs.size();) {
    const std::size_t s = pairs[k] / n;
    std::vector<std::size_t> destinations;
    for (; k < pairs.size() && pairs[k] / n == s; ++k) destinations.push_back(pairs[k] % n);
    for (std::size_t d : destinations) index_of[nodes[d]] = d;
    std::vector<std::vector<Hops>> from = encodable_routes_from(network, nodes[s], index_of, n, walked);
    for (std::size_t d : destinations) {
      index_of[nodes[d]] = RouteTable::npos;
      visit(s * n + d, std::move(from[d]));
    }
  }
}

class ExactGenerator : public Generator {
 public:
  std::string_view name() const override { return "exact"; }
  RouteTable generate(const Network& network, const std::vector<NodeId>& allocation,
                      const GeneratorOptions& options) const override;
  // Above kMaxNodes around failures: the starting table's peak and the
  // repair's solver model, held to a million candidate hops of under 1 KB
  // each (677 MB of peak measured at 800000).  The rank search after an
  // undecided repair needs far less (doc/benchmarks.md, "Memory estimate").
  double peak_bytes(const MemoryContext& context, const GeneratorOptions& options) const override {
    if (context.faults && context.allocation_size > kMaxNodes)
      return context.start_peak_bytes + 1000.0 * (1 << 20);
    return Generator::peak_bytes(context, options);
  }
};

// Which candidates a check takes: the shortest routes without First/Last
// Step (enough on a fault-free torus, where they are the DOR routes), or those
// up to the shortest plus `slack` hops, or all.
struct Stage {
  bool dor_only = false;
  int slack = -1;  // -1: any length
};

using Dependency = std::pair<ChannelId, ChannelId>;

// One satisfiability question: some pairs (allocation index pair p = s * n +
// d, with their candidates), and dependencies present anyway (the routes of
// the pairs outside the question), each passed to the solver as an
// assumption so that an unsatisfiable answer names those it needed.
struct Question {
  std::size_t n = 0;
  std::vector<std::size_t> pairs;
  std::vector<const std::vector<Hops>*> routes;  // per listed pair
  std::vector<Dependency> fixed;
  Stage stage;
  unsigned resource_limit = kResourceLimit;
};

struct Answer {
  z3::check_result result = z3::unknown;
  std::vector<std::size_t> choice;  // per listed pair, its route's index
  std::vector<std::size_t> core;    // unsat: indices into Question::fixed it needed
  std::string reason;               // unknown: why
  std::uint64_t resources = 0;      // Z3's resource units spent
};

// Z3's resource units spent by a check.
std::uint64_t resources_spent(const z3::stats& statistics) {
  for (unsigned k = 0; k < statistics.size(); ++k)
    if (statistics.key(k) == "rlimit count")
      return statistics.is_uint(k) ? statistics.uint_value(k) : static_cast<std::uint64_t>(statistics.double_value(k));
  return 0;
}

Answer solve(const Network& network, const Question& question, FlowControl flow, const std::vector<NodeId>& nodes) {
  const Torus& torus = network.torus();
  z3::context context;
  z3::solver solver(context);
  z3::params params(context);
  params.set("rlimit", question.resource_limit);
  solver.set(params);
  std::map<Dependency, z3::expr> dependencies;
  std::map<ChannelId, z3::expr> levels;
  const auto level = [&](ChannelId c) {
    auto it = levels.find(c);
    if (it == levels.end()) it = levels.emplace(c, context.int_const(("l" + std::to_string(c)).c_str())).first;
    return it->second;
  };
  // The variable of a dependency, with its level constraint.
  const auto dependency = [&](ChannelId from, ChannelId to) {
    const Dependency key{from, to};
    auto it = dependencies.find(key);
    if (it == dependencies.end()) {
      const z3::expr y = context.bool_const(("y" + std::to_string(from) + "_" + std::to_string(to)).c_str());
      const bool turn = Torus::channel_direction(from) != Torus::channel_direction(to);
      const int climb = turn || flow == FlowControl::none ? 1 : 0;
      solver.add(z3::implies(y, level(to) >= level(from) + climb));
      it = dependencies.emplace(key, y).first;
    }
    return it->second;
  };
  Answer answer;
  const std::size_t n = question.n;
  std::vector<std::vector<z3::expr>> chosen(question.pairs.size());
  std::size_t variables = 0;
  for (std::size_t i = 0; i < question.pairs.size(); ++i) {
    const std::size_t p = question.pairs[i];
    const std::vector<Hops>& routes = *question.routes[i];
    z3::expr_vector any(context);
    for (const Hops& hops : routes) {
      const Stage& stage = question.stage;
      if (stage.slack >= 0 && hops.size() > routes.front().size() + static_cast<std::size_t>(stage.slack)) break;
      if (stage.dor_only && (hops.size() > routes.front().size() || !dor_only(hops))) break;
      const z3::expr x = context.bool_const(("x" + std::to_string(variables++)).c_str());
      const std::vector<ChannelId> channels = route_channels(torus, nodes[p / n], hops);
      for (std::size_t k = 1; k < channels.size(); ++k) solver.add(z3::implies(x, dependency(channels[k - 1], channels[k])));
      any.push_back(x);
      chosen[i].push_back(x);
    }
    if (any.empty()) {  // (dor_only: the pair needs a First/Last Step)
      answer.result = z3::unsat;
      return answer;
    }
    solver.add(z3::mk_or(any));
  }
  z3::expr_vector assumptions(context);
  std::map<unsigned, std::size_t> assumption_index;  // Z3 expression id -> index into fixed
  for (std::size_t k = 0; k < question.fixed.size(); ++k) {
    const z3::expr y = dependency(question.fixed[k].first, question.fixed[k].second);
    assumptions.push_back(y);
    assumption_index.emplace(y.id(), k);
  }
  answer.result = solver.check(assumptions);
  answer.resources = resources_spent(solver.statistics());
  if (answer.result == z3::unknown) {
    answer.reason = solver.reason_unknown();
  } else if (answer.result == z3::unsat) {
    const z3::expr_vector core = solver.unsat_core();
    for (unsigned k = 0; k < core.size(); ++k) answer.core.push_back(assumption_index.at(core[k].id()));
    std::sort(answer.core.begin(), answer.core.end());
  } else {
    const z3::model model = solver.get_model();
    answer.choice.assign(question.pairs.size(), 0);
    for (std::size_t i = 0; i < question.pairs.size(); ++i)
      for (std::size_t k = 0; k < chosen[i].size(); ++k)
        if (model.eval(chosen[i][k], true).is_true()) {
          answer.choice[i] = k;
          break;
        }
  }
  return answer;
}

// The improvement pass: each listed pair in turn takes its shortest, least
// loaded candidate that closes no forbidden cycle with the other routes,
// which `graph` and `load` hold already (the listed pairs' routes included).
void improve(const Network& network, const Question& question, const std::vector<NodeId>& nodes,
             IncrementalDependencyGraph& graph, std::vector<std::uint32_t>& load, std::vector<std::size_t>& choice) {
  const Torus& torus = network.torus();
  const std::size_t n = question.n;
  const bool faulty = !network.failed_nodes().empty() || !network.failed_links().empty();
  const auto channels_of = [&](std::size_t i, std::size_t k) {
    return route_channels(torus, nodes[question.pairs[i] / n], (*question.routes[i])[k]);
  };
  for (int pass = 0; pass < kImprovementPasses; ++pass)
  for (std::size_t i = 0; i < question.pairs.size(); ++i) {
    const std::vector<Hops>& routes = *question.routes[i];
    const std::vector<ChannelId> current = channels_of(i, choice[i]);
    graph.remove_path(current);
    for (ChannelId c : current) --load[c];
    // (length, peak load, First/Last Step, summed load), candidate index
    std::vector<std::pair<std::array<std::uint64_t, 4>, std::size_t>> order;
    // The first candidates, and the solver's route, which fits again at worst.
    const std::size_t tries = std::min(routes.size(), kImprovementTries);
    for (std::size_t k = 0; k < routes.size(); ++k) {
      if (k >= tries && k != choice[i]) continue;
      std::uint64_t peak = 0, sum = 0;
      for (ChannelId c : channels_of(i, k)) {
        peak = std::max<std::uint64_t>(peak, load[c]);
        sum += load[c];
      }
      const bool special = !dor_only(routes[k]);
      if (special && !faulty && k != choice[i]) continue;  // nothing to bypass: DOR routes only
      order.push_back({{routes[k].size(), peak, special ? 1u : 0u, sum}, k});
    }
    std::sort(order.begin(), order.end());
    for (const auto& entry : order)
      if (graph.try_add_path(channels_of(i, entry.second))) {
        choice[i] = entry.second;
        break;
      }
    for (ChannelId c : channels_of(i, choice[i])) ++load[c];
  }
}

// Writes the answer's routes of the question's pairs into `table` and
// improves them among the routes the table holds already.
void apply(const Network& network, const Question& question, std::vector<std::size_t> choice, FlowControl flow,
           RouteTable& table) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = table.nodes();
  const std::size_t n = question.n;
  for (std::size_t i = 0; i < question.pairs.size(); ++i)
    table.set_route(question.pairs[i] / n, question.pairs[i] % n, Route{(*question.routes[i])[choice[i]]});
  IncrementalDependencyGraph graph(torus, flow);
  std::vector<std::uint32_t> load(torus.channel_slots(), 0);
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      if (s == d || !table.has_route(s, d)) continue;
      const std::vector<ChannelId> channels = route_channels(torus, nodes[s], table.route(s, d).hops);
      graph.add_path(channels);
      for (ChannelId c : channels) ++load[c];
    }
  improve(network, question, nodes, graph, load, choice);
  for (std::size_t i = 0; i < question.pairs.size(); ++i)
    table.set_route(question.pairs[i] / n, question.pairs[i] % n, Route{(*question.routes[i])[choice[i]]});
}

std::string no_table_exists(std::size_t nodes, const std::string& which) {
  return "exact: no deadlock-free table of Angara-encodable routes exists on one virtual channel for these " +
         std::to_string(nodes) + " nodes and failures (the solver proved it over every route" + which +
         "); more virtual channels (routing.virtual_channels) with nue, or repairs, are needed";
}

// Every allocation: one question over every pair and its candidates.
RouteTable decide_whole(const Network& network, RouteTable table, FlowControl flow) {
  const std::vector<NodeId>& nodes = table.nodes();
  const std::size_t n = nodes.size();
  std::vector<std::vector<Hops>> candidates(n * n);
  std::vector<std::size_t> index_of(network.torus().node_count(), RouteTable::npos);
  for (std::size_t i = 0; i < n; ++i) index_of[nodes[i]] = i;
  bool cut_off = false;
  Question question;
  question.n = n;
  for (std::size_t s = 0; s < n; ++s) {
    std::vector<std::vector<Hops>> from = encodable_routes_from(network, nodes[s], index_of, n);
    for (std::size_t d = 0; d < n; ++d) {
      if (s == d) continue;
      candidates[s * n + d] = std::move(from[d]);
      if (candidates[s * n + d].empty()) {
        cut_off = true;
        continue;
      }
      table.set_route(s, d, Route{candidates[s * n + d].front()});
      question.pairs.push_back(s * n + d);
      question.routes.push_back(&candidates[s * n + d]);
    }
  }
  // Pairs without any encodable route: the oracle's refusal, naming the
  // failures that cut them off.
  if (cut_off) throw RoutingError(describe_unrouted_pairs("exact", network, table));

  Answer answer;
  for (const Stage stage : {Stage{true, 0}, Stage{false, kSlacks[0]}, Stage{false, kSlacks[1]}, Stage{false, -1}}) {
    question.stage = stage;
    answer = solve(network, question, flow, nodes);
    if (answer.result != z3::unsat) break;
  }
  if (answer.result == z3::unknown)
    throw RoutingError("exact: the solver reached its resource limit without an answer for these " +
                       std::to_string(n) + " nodes (" + answer.reason + ")");
  if (answer.result == z3::unsat) throw RoutingError(no_table_exists(n, ""));
  apply(network, question, std::move(answer.choice), flow, table);
  return table;
}
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
        throw RoutingError(describe_unrouted_pairs("exact", network_, table_));
    std::uint64_t budget = kRepairBudget;
    for (int round = 0;; ++round) {
      collect_fixed();
      question_.resource_limit = static_cast<unsigned>(std::min<std::uint64_t>(kResourceLimit, budget));
      const Answer answer = solve(network_, question_, flow_, nodes);
      budget -= std::min(budget, answer.resources);
      if (answer.result == z3::unknown || (answer.result == z3::unsat && budget == 0))
        throw undecided("the solver spent its resource budget (" +
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

// The rank search (large allocations, after an undecided repair).  A
// channel dependency graph has no cycle with a turn iff some integer rank
// per channel climbs strictly over every turn dependency and does not fall
// over any straight one (ranks: the topological index of the condensation;
// conversely a cycle keeps its rank constant, so it cannot turn).  So a
// table exists iff ranks exist under which every pair has an admissible
// route (one that climbs so), and the shortest admissible route of every
// pair, given ranks, is a table that the ranks certify.  Direction order
// (+X < +Y < ... < -X < ...) admits every DOR route; around failures some
// pairs need a turn against it.  The search: a small set of pairs, each with
// its candidates, asks the solver for ranks under which each of them has an
// admissible candidate, with as few turns against direction order as it can
// (soft constraints: each such turn breaks the DOR routes through it); the
// ranks then keep direction order wherever those turns allow, every pair is
// routed by a breadth-first search over admissible hops, the pairs left
// without a route join the set, and the question is asked again.  The
// repair's cores (a cycle through an intact ring, fed by thousands of pairs)
// do not arise: the ranks decide every pair at once.  With `collapse` all
// channels of an intact ring direction share one rank (a restriction, for
// routing: a 16x32 has 96 ring directions, so the question stays small);
// without it the ranks are per channel and, with every candidate, an
// unsatisfiable answer is a proof over the set's pairs (the question is
// exact's model over them, no assumption).
struct ChannelGroups {
  std::vector<std::int32_t> of;  // channel -> group, -1: dead or absent
  std::vector<int> direction;    // group -> direction rank
};

ChannelGroups channel_groups(const Network& network, bool collapse) {
  const Torus& torus = network.torus();
  ChannelGroups groups;
  groups.of.assign(torus.channel_slots(), -1);
  for (ChannelId c = 0; c < torus.channel_slots(); ++c) {
    const Direction d = Torus::channel_direction(c);
    if (groups.of[c] >= 0 || !torus.direction_present(d) || !network.channel_alive(c)) continue;
    std::vector<ChannelId> ring{c};
    bool intact = collapse;
    for (NodeId node = torus.neighbor(Torus::channel_node(c), d); intact && node != Torus::channel_node(c);
         node = torus.neighbor(node, d)) {
      const ChannelId next = Torus::channel(node, d);
      if (!network.node_alive(node) || !network.channel_alive(next)) intact = false;
      ring.push_back(next);
    }
    const auto group = static_cast<std::int32_t>(groups.direction.size());
    groups.direction.push_back(d.rank());
    if (intact)
      for (ChannelId r : ring) groups.of[r] = group;
    else
      groups.of[c] = group;
  }
  return groups;
}

// Shortest admissible routes from one source to every node under given
// channel ranks: a breadth-first search over (node, encoding stage); a
// state's entry channel follows from its stage, so ranks see one channel.
class RankedSearch {
 public:
  RankedSearch(const Network& network, FlowControl flow)
      : network_(network), torus_(network.torus()), flow_(flow) {
    const std::size_t states = static_cast<std::size_t>(torus_.node_count()) * encodable::kStages;
    stamp_.assign(states, 0);
    parent_.assign(states, 0);
    hop_.assign(states, 0);
    first_.assign(torus_.node_count(), 0);
    first_stamp_.assign(torus_.node_count(), 0);
    depth_.assign(torus_.node_count(), 0);
  }

  bool admissible(ChannelId in, ChannelId out, const std::vector<std::int64_t>& rank) const {
    const bool straight = flow_ == FlowControl::bubble && Torus::channel_direction(in) == Torus::channel_direction(out);
    return straight ? rank[in] <= rank[out] : rank[in] < rank[out];
  }

  void search(NodeId src, const std::vector<std::int64_t>& rank) {
    using encodable::kStages;
    if (++epoch_ == 0) {
      std::fill(stamp_.begin(), stamp_.end(), 0);
      std::fill(first_stamp_.begin(), first_stamp_.end(), 0);
      epoch_ = 1;
    }
    const auto state = [](NodeId node, int stage) { return static_cast<std::uint32_t>(node) * kStages + stage; };
    std::vector<std::uint32_t> frontier{state(src, encodable::kBegin)}, next;
    stamp_[frontier[0]] = epoch_;
    first_stamp_[src] = epoch_;
    first_[src] = frontier[0];
    depth_[src] = 0;
    for (std::uint32_t level = 1; !frontier.empty(); ++level) {
      next.clear();
      work_ += frontier.size();
      for (const std::uint32_t s : frontier) {
        const NodeId node = s / kStages;
        const int stage = static_cast<int>(s % kStages);
        if (stage == encodable::kLastStep) continue;
        const bool has_entry = stage != encodable::kBegin;
        const ChannelId in =
            has_entry ? Torus::channel(torus_.neighbor(node, Direction(hop_[s]).opposite()), Direction(hop_[s])) : 0;
        for (int r = 0; r < kDirectionCount; ++r) {
          const Direction d(r);
          if (!torus_.direction_present(d)) continue;
          const ChannelId out = Torus::channel(node, d);
          if (!network_.channel_alive(out)) continue;
          if (has_entry && !admissible(in, out, rank)) continue;
          int targets[2];
          const int count = encodable::next_stages(stage, d, targets);
          const NodeId to = torus_.neighbor(node, d);
          for (int k = 0; k < count; ++k) {
            const std::uint32_t t = state(to, targets[k]);
            if (stamp_[t] == epoch_) continue;
            stamp_[t] = epoch_;
            parent_[t] = s;
            hop_[t] = static_cast<std::uint8_t>(r);
            if (first_stamp_[to] != epoch_) {
              first_stamp_[to] = epoch_;
              first_[to] = t;
              depth_[to] = level;
            }
            next.push_back(t);
          }
        }
      }
      frontier.swap(next);
    }
    src_ = src;
  }

  bool reached(NodeId dst) const { return first_stamp_[dst] == epoch_; }
  std::size_t depth(NodeId dst) const { return depth_[dst]; }
  // States expanded by all searches so far.
  std::uint64_t work() const { return work_; }

  Hops route(NodeId dst) const {
    Hops hops;
    for (std::uint32_t s = first_[dst]; s / encodable::kStages != src_ || s % encodable::kStages != encodable::kBegin;
         s = parent_[s])
      hops.push_back(Direction(hop_[s]));
    std::reverse(hops.begin(), hops.end());
    return hops;
  }

 private:
  const Network& network_;
  const Torus& torus_;
  FlowControl flow_;
  std::vector<std::uint32_t> stamp_, parent_, first_, first_stamp_, depth_;
  std::vector<std::uint8_t> hop_;
  std::uint32_t epoch_ = 0;
  NodeId src_ = 0;
  std::uint64_t work_ = 0;
};

class RankSearch {
 public:
  struct Edge {
    std::int32_t from, to;
    int strict;
    bool operator<(const Edge& o) const { return std::tie(from, to, strict) < std::tie(o.from, o.to, o.strict); }
  };

  // `budget`: the solver's resource units for all questions.
  RankSearch(const Network& network, RouteTable table, FlowControl flow, bool collapse, int slack,
             std::uint64_t budget = kRankBudget)
      : network_(network), torus_(network.torus()), table_(std::move(table)), flow_(flow),
        groups_(channel_groups(network, collapse && flow == FlowControl::bubble)), slack_(slack),
        proves_(slack < 0 && !(collapse && flow == FlowControl::bubble)), budget_(budget),
        search_(network, flow) {}

  // Routes every pair, or throws RoutingError (undecided, or with every
  // candidate and ranks per channel, the proof).
  RouteTable run(std::string* log) {
    const std::size_t n = table_.size();
    const std::vector<NodeId>& nodes = table_.nodes();
    std::vector<std::int64_t> direction_order(groups_.direction.begin(), groups_.direction.end());
    std::uint64_t budget = budget_;
    for (int round = 0;; ++round) {
      // Round 0: direction order (the DOR routes' ranks); then the best of the
      // solver's alternatives (fewest pairs left out, then fewest hops).
      std::vector<std::int64_t> rank;
      std::size_t hops = 0;
      std::vector<std::size_t> failing;
      for (std::size_t k = 0; k < std::max<std::size_t>(1, alternatives_.size()); ++k) {
        std::vector<std::int64_t> other = channel_ranks(alternatives_.empty() ? direction_order : alternatives_[k]);
        std::size_t other_hops = 0;
        std::vector<std::size_t> other_failing = failing_pairs(other, other_hops);
        if (k == 0 || std::make_pair(other_failing.size(), other_hops) < std::make_pair(failing.size(), hops)) {
          rank.swap(other);
          failing.swap(other_failing);
          hops = other_hops;
        }
      }
      if (log)
        *log += "round " + std::to_string(round) + ": " + std::to_string(failing.size()) +
                " pairs without an admissible route, " + std::to_string(pairs_.size()) + " in the question\n";
      if (log && failing.empty()) *log += "steps: " + std::to_string(search_.work() + walked_) + "\n";
      if (failing.empty()) {
        for (std::size_t s = 0; s < n; ++s) {
          search_.search(nodes[s], rank);
          for (std::size_t d = 0; d < n; ++d)
            if (d != s) table_.set_route(s, d, Route{search_.route(nodes[d])});
        }
        return std::move(table_);
      }
      if (round + 1 >= kRankRounds) throw undecided("no ranks after " + std::to_string(kRankRounds) + " rounds");
      add_pairs(failing);
      const auto [result, resources] = solve(std::min<std::uint64_t>(kResourceLimit, budget));
      budget -= std::min(budget, resources);
      if (log)
        *log += "  solver: " + std::string(result == z3::sat ? "sat" : result == z3::unsat ? "unsat" : "unknown") +
                ", " + std::to_string(resources) + " units\n";
      if (result == z3::unknown || (result == z3::sat && budget == 0))
        throw undecided("the solver spent its resource budget");
      if (result == z3::unsat && proves_) {
        // The proof, asked once more in exact's own model (routes, their
        // dependencies, levels) over the same pairs and every route of theirs.
        Question again;
        again.n = n;
        std::vector<std::vector<Hops>> routes(pairs_.size());
        std::vector<std::size_t> sorted = pairs_;
        std::sort(sorted.begin(), sorted.end());
        std::size_t k = 0;
        for_each_pair_routes(network_, nodes, sorted, [&](std::size_t p, std::vector<Hops> found) {
          again.pairs.push_back(p);
          routes[k] = std::move(found);
          again.routes.push_back(&routes[k++]);
        });
        if (angara::solve(network_, again, flow_, nodes).result == z3::unsat) throw RoutingError(proof());
        throw undecided("the solver's answers disagree");
      }
      if (result == z3::unsat) throw undecided("no ranks for the question's pairs");
    }
  }

 private:
  static constexpr int kRankRounds = 40;
  static constexpr std::uint64_t kRankBudget = 4 * std::uint64_t{kResourceLimit};
  static constexpr std::size_t kAddPerRound = 3000;
  // The breadth-first searches' expanded states and the candidates' walked
  // hops at most, together (the solver has its budget; this bounds the rest,
  // about a minute here: scenario 47 of the fault campaign, a whole 16x32,
  // takes 13 million).
  static constexpr std::uint64_t kRankWork = 400'000'000;
  // The ranks of successive directions apart (room for the constraints' steps).
  static constexpr std::int64_t kRankSpacing = std::int64_t{1} << 24;

  // The pairs without an admissible route; `hops`: the routes' hops of the others.
  std::vector<std::size_t> failing_pairs(const std::vector<std::int64_t>& rank, std::size_t& hops) {
    const std::size_t n = table_.size();
    const std::vector<NodeId>& nodes = table_.nodes();
    std::vector<std::size_t> failing;
    for (std::size_t s = 0; s < n; ++s) {
      if (search_.work() + walked_ > kRankWork)
        throw undecided("its searches reached their limit of " + std::to_string(kRankWork) + " steps");
      search_.search(nodes[s], rank);
      for (std::size_t d = 0; d < n; ++d)
        if (d != s && !search_.reached(nodes[d]))
          failing.push_back(s * n + d);
        else
          hops += search_.depth(nodes[d]);
    }
    return failing;
  }

  std::vector<std::int64_t> channel_ranks(const std::vector<std::int64_t>& group_rank) const {
    std::vector<std::int64_t> rank(torus_.channel_slots(), 0);
    for (ChannelId c = 0; c < rank.size(); ++c)
      if (groups_.of[c] >= 0) rank[c] = group_rank[groups_.of[c]];
    return rank;
  }

  // Adds up to kAddPerRound of the failing pairs (spread evenly) with their
  // candidates as sets of rank constraints.
  void add_pairs(const std::vector<std::size_t>& failing) {
    const std::size_t n = table_.size();
    const std::vector<NodeId>& nodes = table_.nodes();
    std::vector<std::size_t> chosen;
    const std::size_t step = std::max<std::size_t>(1, (failing.size() + kAddPerRound - 1) / kAddPerRound);
    for (std::size_t k = 0; k < failing.size(); k += step) chosen.push_back(failing[k]);
    for_each_pair_routes(
        network_, nodes, chosen,
        [&](std::size_t p, const std::vector<Hops>& routes) {
      std::set<std::vector<std::int32_t>> sets;
      for (const Hops& hops : routes) {
        if (slack_ >= 0 && hops.size() > routes.front().size() + static_cast<std::size_t>(slack_)) break;
        const std::vector<ChannelId> channels = route_channels(torus_, nodes[p / n], hops);
        std::vector<std::int32_t> set;
        bool possible = true;
        for (std::size_t k = 1; k < channels.size() && possible; ++k) {
          const std::int32_t a = groups_.of[channels[k - 1]], b = groups_.of[channels[k]];
          const bool straight = flow_ == FlowControl::bubble &&
                                Torus::channel_direction(channels[k - 1]) == Torus::channel_direction(channels[k]);
          if (a == b) {
            possible = straight;
            continue;
          }
          const Edge e{a, b, straight ? 0 : 1};
          auto it = edge_index_.find(e);
          if (it == edge_index_.end()) {
            it = edge_index_.emplace(e, static_cast<std::int32_t>(edges_.size())).first;
            edges_.push_back(e);
          }
          set.push_back(it->second);
        }
        if (!possible) continue;
        std::sort(set.begin(), set.end());
        set.erase(std::unique(set.begin(), set.end()), set.end());
        sets.insert(std::move(set));
      }
      if (sets.empty())  // (no candidate at all: ranks never make one impossible)
        throw RoutingError("exact: " + torus_.format_coord(nodes[p / n]) + " -> " + torus_.format_coord(nodes[p % n]) +
                           ": no Angara-encodable route avoids the failures");
      pairs_.push_back(p);
      candidates_.emplace_back(sets.begin(), sets.end());
        },
        &walked_);
  }

  // The question over the pairs so far; on sat, the new group ranks.
  std::pair<z3::check_result, std::uint64_t> solve(std::uint64_t limit) {
    z3::context context;
    z3::optimize solver(context);
    z3::params params(context);
    params.set("rlimit", static_cast<unsigned>(limit));
    solver.set(params);
    std::map<std::int32_t, z3::expr> ranks;
    const auto rank_of = [&](std::int32_t g) {
      auto it = ranks.find(g);
      if (it == ranks.end()) it = ranks.emplace(g, context.int_const(("r" + std::to_string(g)).c_str())).first;
      return it->second;
    };
    std::vector<std::optional<z3::expr>> edge_var(edges_.size());
    const auto edge = [&](std::int32_t k) {
      if (!edge_var[k]) {
        const Edge& e = edges_[k];
        edge_var[k] = context.bool_const(("e" + std::to_string(k)).c_str());
        solver.add(z3::implies(*edge_var[k], rank_of(e.to) >= rank_of(e.from) + e.strict));
        // Turns against direction order are what breaks other pairs' DOR routes: as few as may be.
        if (e.strict && groups_.direction[e.from] > groups_.direction[e.to]) solver.add_soft(!*edge_var[k], 1);
      }
      return *edge_var[k];
    };
    std::vector<std::vector<z3::expr>> chosen(pairs_.size());
    std::size_t variables = 0;
    for (std::size_t i = 0; i < pairs_.size(); ++i) {
      z3::expr_vector any(context);
      bool free = false;
      for (const auto& set : candidates_[i]) {
        if (set.empty()) free = true;
        const z3::expr x = context.bool_const(("x" + std::to_string(variables++)).c_str());
        for (std::int32_t k : set) solver.add(z3::implies(x, edge(k)));
        any.push_back(x);
        chosen[i].push_back(x);
      }
      if (free) continue;
      if (any.empty()) return {z3::unsat, 0};
      solver.add(z3::mk_or(any));
    }
    const z3::check_result result = solver.check();
    const std::uint64_t resources = resources_spent(solver.statistics());
    if (result != z3::sat) return {result, resources};
    // The constraints of the chosen candidates; the new ranks keep direction
    // order where they can: rank = kDirectionCount * level + direction, with
    // the least levels (0 unless constrained) that satisfy them.
    const z3::model model = solver.get_model();
    std::vector<Edge> needed;
    for (std::size_t i = 0; i < pairs_.size(); ++i)
      for (std::size_t k = 0; k < chosen[i].size(); ++k)
        if (model.eval(chosen[i][k], true).is_true()) {
          for (std::int32_t e : candidates_[i][k]) needed.push_back(edges_[e]);
          break;
        }
    // Two ways to keep direction order where the chosen constraints allow:
    // lift (each group at least its direction's base, raised over what must
    // lie below it) and lower (at most the base, pushed under what must lie
    // above it).  Each satisfies the constraints, and so does their sum,
    // which moves both ends of an inverted turn halfway, so that the
    // inversion breaks no other turn of those two groups.
    const std::size_t groups = groups_.direction.size();
    std::vector<std::int64_t> up(groups), down(groups);
    for (std::size_t g = 0; g < groups; ++g) up[g] = down[g] = kRankSpacing * groups_.direction[g];
    for (std::size_t pass = 0; pass <= groups; ++pass) {
      bool changed = false;
      for (const Edge& e : needed) {
        if (up[e.to] < up[e.from] + e.strict) {
          up[e.to] = up[e.from] + e.strict;
          changed = true;
        }
        if (down[e.from] > down[e.to] - e.strict) {
          down[e.from] = down[e.to] - e.strict;
          changed = true;
        }
      }
      if (!changed) break;
    }
    alternatives_.assign(2, std::vector<std::int64_t>(groups));
    for (std::size_t g = 0; g < groups; ++g) {
      alternatives_[0][g] = up[g] + down[g];
      alternatives_[1][g] = 2 * up[g];
    }
    return {result, resources};
  }

  // Ranks per channel and every candidate: the question is exact's model
  // over the pairs asked about, without assumptions, so unsat is a proof.
  std::string proof() const {
    const std::size_t n = table_.size();
    std::string list;
    for (std::size_t k = 0; k < pairs_.size() && k < kPairsShown; ++k)
      list += (k ? ", " : "") + torus_.format_coord(table_.nodes()[pairs_[k] / n]) + " -> " +
              torus_.format_coord(table_.nodes()[pairs_[k] % n]);
    if (pairs_.size() > kPairsShown) list += " and " + std::to_string(pairs_.size() - kPairsShown) + " more";
    return no_table_exists(n, " of " + std::to_string(pairs_.size()) + " pairs, which alone admit no choice: " + list);
  }

  UndecidedError undecided(const std::string& why) const {
    const std::string what = "the rank search asked about " + std::to_string(pairs_.size()) + " pairs; " + why;
    return UndecidedError("exact: undecided for these " + std::to_string(table_.size()) + " nodes: " + what, what);
  }

  const Network& network_;
  const Torus& torus_;
  RouteTable table_;
  FlowControl flow_;
  ChannelGroups groups_;
  int slack_;
  bool proves_;
  std::uint64_t budget_;
  RankedSearch search_;
  std::vector<Edge> edges_;
  std::map<Edge, std::int32_t> edge_index_;
  std::vector<std::size_t> pairs_;
  std::uint64_t walked_ = 0;  // hops walked by the candidates' enumeration
  std::vector<std::vector<std::int64_t>> alternatives_;  // ranks per group after a satisfiable answer
  std::vector<std::vector<std::vector<std::int32_t>>> candidates_;  // per pair: constraint sets (edge indices)
};

RouteTable ExactGenerator::generate(const Network& network, const std::vector<NodeId>& allocation,
                                    const GeneratorOptions& options) const {
  RouteTable table = start_route_table(name(), network, allocation);
  const std::size_t n = table.size();
  if (options.rules != RuleSet::angara)
    throw RoutingError("exact: it searches Angara-encodable routes only (routing.rules: angara)");
  if (n < 2) return table;
  if (n <= kMaxNodes) return decide_whole(network, std::move(table), options.flow_control);

  // Larger: repair the partial table of an earlier member of the chain, or
  // balanced's (whose table it is when balanced routes every pair).
  std::shared_ptr<const RouteTable> partial = options.partial;
  if (!partial || partial->nodes() != table.nodes()) {
    try {
      if (!has_starting_table()) throw RoutingError("exact: no table to start the repair from");
      RouteTable whole = starting_table(network, allocation, options);
      whole.algorithm = name();
      return whole;
    } catch (const RoutingError& e) {
      if (!e.partial()) throw RoutingError("exact: " + std::to_string(n) + " nodes, more than the " +
                                           std::to_string(kMaxNodes) + " it decides at once, and the generator it starts " +
                                           "from left no partial table to repair: " + e.what());
      partial = e.partial();
    }
  }
  try {
    RouteTable repaired = repair_with_solver(network, *partial, options.flow_control);
    repaired.algorithm = name();
    return repaired;
  } catch (const UndecidedError& repair) {
    // The repair's neighbourhoods did not converge (every core a cycle
    // through an intact ring, fed by thousands of pairs: whole 16x32
    // machines): the rank search over the whole allocation.
    try {
      RouteTable ranked = rank_search(network, std::move(table), options.flow_control, true, -1);
      // Its routes are the shortest the ranks admit; the checked-turn stage
      // shortens those it can without a forbidden cycle.
      complete_with_checked_turns(name(), network, ranked, options);
      ranked.algorithm = name();
      return ranked;
    } catch (const UndecidedError& ranks) {
      // Ranks per channel and every candidate: a proof when the pairs that
      // direction order leaves out, and those their ranks leave out, admit
      // no ranks (scenario 45 of the fault campaign: 390 pairs, 0.2 s); one
      // question's budget.
      try {
        RouteTable ranked = RankSearch(network, start_route_table(name(), network, allocation), options.flow_control,
                                       false, -1, kResourceLimit)
                                .run(nullptr);
        complete_with_checked_turns(name(), network, ranked, options);
        ranked.algorithm = name();
        return ranked;
      } catch (const UndecidedError& channel_ranks) {
        throw RoutingError(std::string(repair.what()) + "; then " + ranks.why() + "; then with ranks per channel, " +
                           channel_ranks.why());
      }
    }
  }
}

}  // namespace

RouteTable rank_search(const Network& network, RouteTable table, FlowControl flow, bool collapse, int slack,
                       std::string* log) {
  return RankSearch(network, std::move(table), flow, collapse, slack).run(log);
}

RouteTable repair_with_solver(const Network& network, RouteTable partial, FlowControl flow) {
  return Repair(network, std::move(partial), flow).run();
}

namespace {

}  // namespace

std::unique_ptr<Generator> create_exact_generator() { return std::make_unique<ExactGenerator>(); }

}  // namespace angara
