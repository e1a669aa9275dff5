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
#include "routing/checked_turns.hpp"
#include "routing/dependency_graph.hpp"
#include "routing/generator.hpp"
#include "routing/oracle.hpp"

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

using Hops = std::vector<Direction>;

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
std::vector<std::vector<Hops>> encodable_routes_from(const Network& network, NodeId src,
                                                     const std::vector<std::size_t>& index_of, std::size_t n) {
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

class ExactGenerator : public Generator {
 public:
  std::string_view name() const override { return "exact"; }
  RouteTable generate(const Network& network, const std::vector<NodeId>& allocation,
                      const GeneratorOptions& options) const override;
};

// The pairs' candidates, allocation index pair p = s * n + d.
struct Candidates {
  std::size_t n = 0;
  std::vector<std::vector<Hops>> routes;
};

// Which candidates a check takes: the shortest routes without First/Last
// Step (enough on a fault-free torus, where they are the DOR routes), or those
// up to the shortest plus `slack` hops, or all.
struct Stage {
  bool dor_only = false;
  int slack = -1;  // -1: any length
};

// One satisfiability check with the stage's candidates: the chosen route
// index per pair, or nothing.
std::optional<std::vector<std::size_t>> solve(const Network& network, const Candidates& candidates, Stage stage,
                                              FlowControl flow, const std::vector<NodeId>& nodes) {
  const Torus& torus = network.torus();
  z3::context context;
  z3::solver solver(context);
  z3::params params(context);
  params.set("rlimit", kResourceLimit);
  solver.set(params);
  std::map<std::pair<ChannelId, ChannelId>, z3::expr> dependencies;
  std::map<ChannelId, z3::expr> levels;
  const auto level = [&](ChannelId c) {
    auto it = levels.find(c);
    if (it == levels.end()) it = levels.emplace(c, context.int_const(("l" + std::to_string(c)).c_str())).first;
    return it->second;
  };
  const std::size_t n = candidates.n;
  std::vector<std::vector<z3::expr>> chosen(n * n);
  std::size_t variables = 0;
  for (std::size_t p = 0; p < n * n; ++p) {
    const std::vector<Hops>& routes = candidates.routes[p];
    if (routes.empty()) continue;
    z3::expr_vector any(context);
    for (const Hops& hops : routes) {
      if (stage.slack >= 0 && hops.size() > routes.front().size() + static_cast<std::size_t>(stage.slack)) break;
      if (stage.dor_only && (hops.size() > routes.front().size() || !dor_only(hops))) break;
      const z3::expr x = context.bool_const(("x" + std::to_string(variables++)).c_str());
      const std::vector<ChannelId> channels = route_channels(torus, nodes[p / n], hops);
      for (std::size_t k = 1; k < channels.size(); ++k) {
        const auto key = std::make_pair(channels[k - 1], channels[k]);
        auto it = dependencies.find(key);
        if (it == dependencies.end()) {
          const z3::expr y = context.bool_const(
              ("y" + std::to_string(channels[k - 1]) + "_" + std::to_string(channels[k])).c_str());
          const bool turn = Torus::channel_direction(channels[k - 1]) != Torus::channel_direction(channels[k]);
          const int climb = turn || flow == FlowControl::none ? 1 : 0;
          solver.add(z3::implies(y, level(channels[k]) >= level(channels[k - 1]) + climb));
          it = dependencies.emplace(key, y).first;
        }
        solver.add(z3::implies(x, it->second));
      }
      any.push_back(x);
      chosen[p].push_back(x);
    }
    if (any.empty()) return std::nullopt;  // (dor_only: the pair needs a First/Last Step)
    solver.add(z3::mk_or(any));
  }
  const z3::check_result result = solver.check();
  if (result == z3::unsat) return std::nullopt;
  if (result != z3::sat)
    throw RoutingError("exact: the solver reached its resource limit without an answer for these " +
                       std::to_string(nodes.size()) + " nodes (" + std::string(solver.reason_unknown()) + ")");
  const z3::model model = solver.get_model();
  std::vector<std::size_t> choice(n * n, 0);
  for (std::size_t p = 0; p < n * n; ++p)
    for (std::size_t k = 0; k < chosen[p].size(); ++k)
      if (model.eval(chosen[p][k], true).is_true()) {
        choice[p] = k;
        break;
      }
  return choice;
}

// The improvement pass: each pair in turn takes its shortest, least loaded
// candidate that closes no forbidden cycle with the other routes.
void improve(const Network& network, const Candidates& candidates, FlowControl flow,
             const std::vector<NodeId>& nodes, std::vector<std::size_t>& choice) {
  const Torus& torus = network.torus();
  const std::size_t n = candidates.n;
  const bool faulty = !network.failed_nodes().empty() || !network.failed_links().empty();
  IncrementalDependencyGraph graph(torus, flow);
  std::vector<std::uint32_t> load(torus.channel_slots(), 0);
  const auto channels_of = [&](std::size_t p, std::size_t k) {
    return route_channels(torus, nodes[p / n], candidates.routes[p][k]);
  };
  for (std::size_t p = 0; p < n * n; ++p) {
    if (candidates.routes[p].empty()) continue;
    const std::vector<ChannelId> channels = channels_of(p, choice[p]);
    graph.add_path(channels);
    for (ChannelId c : channels) ++load[c];
  }
  for (int pass = 0; pass < kImprovementPasses; ++pass)
  for (std::size_t p = 0; p < n * n; ++p) {
    if (candidates.routes[p].empty()) continue;
    const std::vector<ChannelId> current = channels_of(p, choice[p]);
    graph.remove_path(current);
    for (ChannelId c : current) --load[c];
    // (length, peak load, First/Last Step, summed load), candidate index
    std::vector<std::pair<std::array<std::uint64_t, 4>, std::size_t>> order;
    // The first candidates, and the solver's route, which fits again at worst.
    const std::size_t tries = std::min(candidates.routes[p].size(), kImprovementTries);
    for (std::size_t k = 0; k < candidates.routes[p].size(); ++k) {
      if (k >= tries && k != choice[p]) continue;
      std::uint64_t peak = 0, sum = 0;
      for (ChannelId c : channels_of(p, k)) {
        peak = std::max<std::uint64_t>(peak, load[c]);
        sum += load[c];
      }
      const Hops& hops = candidates.routes[p][k];
      const bool special = !dor_only(hops);
      if (special && !faulty && k != choice[p]) continue;  // nothing to bypass: DOR routes only
      order.push_back({{hops.size(), peak, special ? 1u : 0u, sum}, k});
    }
    std::sort(order.begin(), order.end());
    for (const auto& entry : order)
      if (graph.try_add_path(channels_of(p, entry.second))) {
        choice[p] = entry.second;
        break;
      }
    for (ChannelId c : channels_of(p, choice[p])) ++load[c];
  }
}

RouteTable ExactGenerator::generate(const Network& network, const std::vector<NodeId>& allocation,
                                    const GeneratorOptions& options) const {
  RouteTable table = start_route_table(name(), network, allocation);
  const std::vector<NodeId>& nodes = table.nodes();
  const std::size_t n = nodes.size();
  if (options.rules != RuleSet::angara)
    throw RoutingError("exact: it searches Angara-encodable routes only (routing.rules: angara)");
  if (n > kMaxNodes)
    throw RoutingError("exact: " + std::to_string(n) + " nodes, more than the " + std::to_string(kMaxNodes) +
                       " it decides (the model grows with the pairs times their routes)");
  if (n < 2) return table;

  Candidates candidates{n, std::vector<std::vector<Hops>>(n * n)};
  std::vector<std::size_t> index_of(network.torus().node_count(), RouteTable::npos);
  for (std::size_t i = 0; i < n; ++i) index_of[nodes[i]] = i;
  bool cut_off = false;
  for (std::size_t s = 0; s < n; ++s) {
    std::vector<std::vector<Hops>> from = encodable_routes_from(network, nodes[s], index_of, n);
    for (std::size_t d = 0; d < n; ++d) {
      if (s == d) continue;
      candidates.routes[s * n + d] = std::move(from[d]);
      if (candidates.routes[s * n + d].empty()) cut_off = true;
      else table.set_route(s, d, Route{candidates.routes[s * n + d].front()});
    }
  }
  // Pairs without any encodable route: the oracle's refusal, naming the
  // failures that cut them off.
  if (cut_off) throw RoutingError(describe_unrouted_pairs(name(), network, table));

  std::optional<std::vector<std::size_t>> choice = solve(network, candidates, {true, 0}, options.flow_control, nodes);
  for (int slack : kSlacks)
    if (!choice) choice = solve(network, candidates, {false, slack}, options.flow_control, nodes);
  if (!choice) choice = solve(network, candidates, {false, -1}, options.flow_control, nodes);
  if (!choice)
    throw RoutingError("exact: no deadlock-free table of Angara-encodable routes exists on one virtual channel "
                       "for these " + std::to_string(n) + " nodes and failures (the solver proved it over every "
                       "route); more virtual channels (routing.virtual_channels) with nue, or repairs, are needed");
  improve(network, candidates, options.flow_control, nodes, *choice);
  for (std::size_t p = 0; p < n * n; ++p)
    if (!candidates.routes[p].empty()) table.set_route(p / n, p % n, Route{candidates.routes[p][(*choice)[p]]});
  return table;
}

}  // namespace

std::unique_ptr<Generator> create_exact_generator() { return std::make_unique<ExactGenerator>(); }

}  // namespace angara
