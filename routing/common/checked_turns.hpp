// CDG-checked First/Last Steps: the last stage of bfs, sssp,
// balanced and genetic on a faulty network.
//
// The generators search with the static section-3.2 augmentation of the ANSU
// paper (angara/routing_graph.hpp), which on a torus admits almost no turn:
// around a few failures they either find no route for a pair or take a long
// detour.  This stage asks the real question instead: does the turn close a
// forbidden cycle in the channel dependency graph that the table's routes
// induce (routing/common/dependency_graph.hpp)?  Every route of the table goes into
// an IncrementalDependencyGraph; then, pairs without a route first, each
// pair whose route is missing or longer than the shortest encodable route
// (routing/common/oracle.hpp) tries the shortest encodable routes, least loaded
// first, and keeps the first one that closes no forbidden cycle; failing
// that, a breadth-first search over the encodable routes that steps only
// over dependencies closing no forbidden cycle.  Pairs still without a route
// go first in a fresh attempt, before the generator's routes claim their
// dependencies (rip-up and reroute, a few attempts; the best one is kept).
// The table stays
// deadlock-free under `flow_control` by construction; the verifier checks it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "routing/common/dependency_graph.hpp"
#include "routing/common/generator_support.hpp"

namespace angara {

struct CheckedTurnStats {
  std::size_t filled = 0;     // pairs the generator left without a route, now routed
  std::size_t shortened = 0;  // detours replaced by shorter encodable routes
};

// A detour's shortening is charged to options.budget what its searches
// cost, in the budget's steps (routing/common/work_budget.hpp): a channel
// the cycle test expands is one (26-30 ns on the reference machine), a
// state of the checked search kExpandedStateWork, and a search of the
// routability oracle (from each new source, over the whole machine, about
// 2 us a router) kOracleWorkPerNode a router.  Detours past what the budget
// has left keep their routes (the stage then notes its cut); pairs without
// a route are always routed.
constexpr std::uint64_t kExpandedStateWork = 10;
// The budget's cut note for `left` of `detours` detours not shortened.
std::string detours_left_cut(std::size_t left, std::size_t detours);
constexpr std::uint64_t kOracleWorkPerNode = 66;

// Runs the stage on `table` (layer 0 routes) and throws RoutingError with
// describe_unrouted_pairs() (routing/common/oracle.hpp) when pairs stay without a
// route.  Does nothing on a network without failures, so fault-free tables
// are exactly the generator's own.
CheckedTurnStats complete_with_checked_turns(std::string_view generator, const Network& network, RouteTable& table,
                                             const GeneratorOptions& options);

// The same for a table whose routes close no forbidden cycle among
// themselves (direction-order routes and the section-3.2 augmentation's
// turns only, under bubble flow control: a candidate-set table): the first
// attempt's graph takes them unchecked instead of testing every new
// dependency for a cycle (a scattered 4096 nodes of 16x16x8x8 with two
// failed routers: 90 s of cycle tests otherwise).
CheckedTurnStats complete_trusted_with_checked_turns(std::string_view generator, const Network& network,
                                                     RouteTable& table, const GeneratorOptions& options);

// What the stage's dependency graph and channel loads hold after taking
// every route of a table: the count of each dependency (indexed like
// IncrementalDependencyGraph::add_counts()) and the routes crossing each
// channel slot.
struct RouteDependencies {
  std::vector<std::uint32_t> edge_counts;
  std::vector<std::uint32_t> loads;
};

// The dependencies of every route of `table`, by walking them hop by hop.
RouteDependencies walk_route_dependencies(const Torus& torus, const RouteTable& table);

// The same for any route: walk(hop) calls hop(at, direction) for each of
// its hops in order.
template <typename Walk, typename OnChannel, typename OnDependency>
void hop_dependencies(Walk&& walk, OnChannel&& on_channel, OnDependency&& on_dependency) {
  std::optional<ChannelId> previous;
  walk([&](NodeId at, Direction hop) {
    const ChannelId c = Torus::channel(at, hop);
    on_channel(c);
    if (previous) on_dependency(*previous, hop);
    previous = c;
  });
}

// Calls on_channel(c) for every channel the route of (s, d) (allocation
// indices) crosses, and on_dependency(c, hop) for every dependency on it:
// the channel c and the direction the route takes after it.
template <typename OnChannel, typename OnDependency>
void walk_dependencies(const Torus& torus, const RouteTable& table, std::size_t s, std::size_t d,
                       OnChannel&& on_channel, OnDependency&& on_dependency) {
  hop_dependencies([&](auto&& hop) { table.walk(s, d, torus, hop); }, on_channel, on_dependency);
}

// The stage on the listed pairs of `table` only (allocation indices; the
// others must have routes), for a table whose routes close no forbidden
// cycle among themselves (static turns only, doc/model.md "Deadlock rule"):
// the graph takes them unchecked in one pass, and only the listed pairs
// without a route, or longer than their shortest encodable route, are
// routed (shortened, on the budget) around them.  On a whole torus with a
// few failures the pairs whose routes the failures touch are a few thousand
// of a million (routing/generators/balanced/around_failures.hpp), and the
// oracle then searches from their sources only.  Throws like
// complete_with_checked_turns().  `known`, when given, is what
// walk_route_dependencies() would return for `table`, counted by a caller
// that knows it in closed form: the first attempt then takes it instead of
// walking every route (on a whole 8x8x8x8 that walk is 2.3 s of 6).
CheckedTurnStats complete_listed_pairs_with_checked_turns(std::string_view generator, const Network& network,
                                                          RouteTable& table,
                                                          const std::vector<std::pair<std::size_t, std::size_t>>& pairs,
                                                          const GeneratorOptions& options,
                                                          const RouteDependencies* known = nullptr);

// The automaton of Angara-encodable routes (the routing graph of the ANSU
// paper, section 3.1, with every First/Last Step turn): a route is in a stage
// at each node; it may take direction d from there into the stages
// next_stages() returns.
namespace encodable {
constexpr int kBegin = 0;                       // at the source
constexpr int kFirstStep = 1;                   // + rank of the positive First Step
constexpr int kMiddle = 5;                      // + the used-direction mask of the DOR middle
constexpr int kLastStep = kMiddle + 256;        // after the negative Last Step: nothing follows
constexpr int kStages = kLastStep + 1;
// Writes the stages hop d leads to from `stage` into targets (at most two:
// from the source a positive hop may be the First Step or the middle's
// first) and returns how many.
int next_stages(int stage, Direction d, int targets[2]);
}  // namespace encodable

// The answers of the per-dependency cycle test (present, or closes no
// forbidden cycle) on one graph, shared by searches while the graph's edges
// stay as they are: the caller calls forget() whenever they change.  (On a
// faulty 8x8x8 thousands of searches ask about the same dependencies.)
class DependencyMemo {
 public:
  explicit DependencyMemo(const Torus& torus)
      : stamps_(static_cast<std::size_t>(torus.channel_slots()) * kDirectionCount, 0) {}
  void forget();
  // Whether from -> to may be used in `graph`, from the memo or asked.
  bool allowed(const IncrementalDependencyGraph& graph, ChannelId from, ChannelId to);

 private:
  std::vector<std::uint32_t> stamps_;  // slot -> epoch * 2 + allowed, when of the current epoch
  std::uint32_t epoch_ = 1;
};

// The per-state arrays of find_checked_route(), kept between searches: a
// search touches a few hundred of the machine's states (nodes x kStages,
// 1.9 MB on 1024 nodes), so it resets those it touched instead of filling
// the arrays anew (the fill cost a faulty 8x8x4x4 a fifth of its CPU,
// outside what the budget counts per expanded state).
class CheckedRouteScratch {
 public:
  // Ready for a search on a machine of `nodes` routers.
  void prepare(std::size_t nodes);
  // Every state touched back to unreached.
  void reset();

  static constexpr std::uint16_t kUnreached = 0xFFFF;
  std::vector<std::uint32_t> parent;
  std::vector<std::uint8_t> hop;
  std::vector<std::uint16_t> depth;  // best hop count known per state
  std::vector<std::uint32_t> touched;
};

// The shortest Angara-encodable route from src to dst each of whose
// dependencies is present in `graph` or closes no forbidden cycle there, at
// most `max_hops` long (0: any length); nullopt when there is none.  The
// route as a whole may still close a cycle through several new
// dependencies: admit it with try_add_path().  `memo`, when given, holds
// answers about this graph as it is now (and receives the new ones).
// `expanded`, when given, grows by the states the search expanded.
// `scratch`, when given, is reused (one per thread).
std::optional<std::vector<Direction>> find_checked_route(const Network& network,
                                                         const IncrementalDependencyGraph& graph, NodeId src,
                                                         NodeId dst, std::size_t max_hops = 0,
                                                         DependencyMemo* memo = nullptr,
                                                         std::uint64_t* expanded = nullptr,
                                                         CheckedRouteScratch* scratch = nullptr);

}  // namespace angara
