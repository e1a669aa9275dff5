// The exact generator's model, and the whole allocation decided by one
// question over every pair (decide_whole, up to kMaxNodes nodes).
//
// The model: a boolean per candidate route, one per dependency that some
// candidate uses, and an integer level per channel.  A route implies its
// dependencies; a dependency u -> v implies level(v) >= level(u) + 1 when it
// turns (or under flow control none, always) and level(v) >= level(u) when it
// goes straight on.  Such levels exist iff no cycle of the dependency graph
// holds a turn (doc/model.md, "Deadlock rule"): a cycle
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
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "angara/network.hpp"
#include "routing/common/checked_turns.hpp"
#include "routing/common/dependency_graph.hpp"
#include "routing/common/oracle.hpp"
#include "routing/generators/exact/shared.hpp"

namespace angara::exact {

// Slacks tried before all candidates (hops over the pair's shortest route).
constexpr int kSlacks[] = {0, 2};
// Candidates tried per pair in the improvement pass, shortest first.
constexpr std::size_t kImprovementTries = 48;
constexpr int kImprovementPasses = 3;

bool dor_only(const Hops& hops) {
  for (std::size_t k = 1; k < hops.size(); ++k)
    if (hops[k] < hops[k - 1]) return false;
  for (const Direction d : hops)
    if (std::find(hops.begin(), hops.end(), d.opposite()) != hops.end()) return false;
  return true;
}

std::vector<std::vector<Hops>> encodable_routes_from(const Network& network, NodeId src,
                                                     const std::vector<std::size_t>& index_of, std::size_t n,
                                                     std::uint64_t* walked) {
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

std::uint64_t resources_spent(const z3::stats& statistics) {
  for (unsigned k = 0; k < statistics.size(); ++k)
    if (statistics.key(k) == "rlimit count")
      return statistics.is_uint(k) ? statistics.uint_value(k) : static_cast<std::uint64_t>(statistics.double_value(k));
  return 0;
}

double whole_question_kib_per_pair(bool faults, FlowControl flow, int dims) {
  if (faults) return 128.0;
  return flow == FlowControl::none ? 90.0 : std::max(16.0, 8.0 * dims);
}

SolverMemoryCap::SolverMemoryCap(std::uint64_t bytes) {
  const std::uint64_t mib = std::max<std::uint64_t>(1, bytes >> 20);
  z3::set_param("memory_max_size", std::to_string(mib).c_str());
}

SolverMemoryCap::~SolverMemoryCap() { z3::set_param("memory_max_size", "0"); }

bool is_out_of_memory(const z3::exception& error) {
  return std::string_view(error.msg()).find("out of memory") != std::string_view::npos;
}

namespace {

Answer solve_within_memory(const Network& network, const Question& question, FlowControl flow,
                           const std::vector<NodeId>& nodes);

}  // namespace

Answer solve(const Network& network, const Question& question, FlowControl flow, const std::vector<NodeId>& nodes) {
  try {
    const SolverMemoryCap cap(question.memory_limit);
    return solve_within_memory(network, question, flow, nodes);
  } catch (const z3::exception& error) {
    if (!is_out_of_memory(error)) throw;
    Answer answer;
    answer.reason = "its memory bound of " + std::to_string(question.memory_limit >> 20) + " MiB";
    return answer;
  }
}

namespace {

Answer solve_within_memory(const Network& network, const Question& question, FlowControl flow,
                           const std::vector<NodeId>& nodes) {
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

}  // namespace

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
  const bool faults = !network.failed_nodes().empty() || !network.failed_links().empty();
  question.memory_limit = kSolverStartBytes + static_cast<std::uint64_t>(
      static_cast<double>(n) * static_cast<double>(n) *
      whole_question_kib_per_pair(faults, flow, std::max(1, network.torus().present_dims())) * 1024);
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
  if (cut_off) throw unrouted_pairs_error("exact", network, table);

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

}  // namespace angara::exact
