// The independent verifier: knows nothing about any generator.  Every table
// passes through it before anything is written.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "angara/rules.hpp"
#include "routing/check/metrics.hpp"

namespace angara {

enum class Rule {
  MissingRoute,     // an ordered pair of the allocation has no route
  DeadNode,         // allocated node or a router on the way is failed
  DeadChannel,      // a hop uses a failed or absent channel, or a port without a cable
  WrongDestination, // the walk does not end at the destination
  NotEncodable,     // violates [FS] DOR+dirbit [LS] (rules angara only)
  Deadlock,         // a turn (under flow control none: any dependency) inside
                    // a cycle of one virtual channel's CDG
  BadLayer,         // layer beyond the allowed virtual channels
  UnsafeEscape,     // routing.adaptive on: the table is no safe escape for the
                    // adaptive channel (a forbidden cycle of the extended CDG)
};
const char* rule_name(Rule rule);

struct Violation {
  Rule rule;
  std::string message;  // what broke, with an example route "SRC -> DST: +X -Y"
};

struct VerifyReport {
  bool ok() const { return violations.empty(); }
  // At most one example per rule, the first found, in the order of Rule.
  std::vector<Violation> violations;
  // All violations, not only the examples: one per failed allocated node, per
  // missing pair, per route breaking a rule (a route is counted once per rule
  // it breaks), and one per strongly connected component that holds a turn.
  std::size_t violation_count = 0;
  std::size_t routes = 0;
  // Pairs walked one by one: all of them, but on a box (every live router,
  // or a block of a larger torus), where only those whose route differs
  // from their key's common route or meets a failure are
  // (VerifyOptions::walk_every_route).
  std::size_t pairs_walked = 0;
  std::size_t non_minimal = 0;        // routes longer than the torus distance
  std::size_t fs_ls_routes = 0;       // routes that need a First or Last Step
  int virtual_channels = 1;           // used by the table: 1 + highest layer
  RuleSet rules = RuleSet::angara;    // the rules it was checked under
  FlowControl flow_control = FlowControl::bubble;
  // routing.adaptive: the table was checked as the adaptive channel's escape
  // (only when it passed every other rule), with this many distinct indirect
  // dependencies between escape channels.
  bool adaptive_checked = false;
  std::size_t indirect_dependencies = 0;
  Metrics metrics;
};

struct VerifyOptions {
  int max_virtual_channels = 1;
  RuleSet rules = RuleSet::angara;                // general: encodability is not required
  FlowControl flow_control = FlowControl::bubble; // none: every CDG cycle is a deadlock
  // routing.adaptive: also check Duato's condition for the table as the
  // escape of the adaptive channel (routing/check/adaptive_escape.hpp).
  bool adaptive = false;
  // Walk every route one by one even on a box (every live router, or a
  // block), where the verifier otherwise checks each key's (displacement
  // and source parity's) common route once and walks only
  // the routes that differ from it or meet a failure (the same report;
  // tests compare the two).
  bool walk_every_route = false;
};

// Checks, without any generator or the routing graph: every ordered pair of
// distinct allocated nodes has a route; allocated nodes are alive; each route
// walks over live channels and live routers (the first bad hop is reported)
// and ends at its destination; it is Angara-encodable (under rules angara;
// rules general allow any path); its layer is below
// options.max_virtual_channels; each layer's CDG is deadlock-free under
// options.flow_control (bubble: no turn on a cycle; none: no cycle at all).  Routes
// from or to a failed allocated node are not walked (the node is reported).
// With options.adaptive, a table that passes all of these is also checked
// as the adaptive channel's escape (Rule::UnsafeEscape; doc/model.md, "The
// adaptive channel").  Also counts non-minimal and FS/LS routes and computes
// the metrics.
VerifyReport verify(const Network& network, const RouteTable& table, const VerifyOptions& options = {});

// A channel dependency graph.  A dependency c1 -> c2 always leads to a
// channel leaving c1's head node, so it is named by c2's direction: one 8-bit
// successor mask per channel slot.  The verifier builds one per virtual
// channel; tests use it to check other channel graphs by the same rule.
class ChannelDependencyGraph {
 public:
  explicit ChannelDependencyGraph(const Torus& torus);
  void add(ChannelId from, Direction next) { successors_[from] |= static_cast<std::uint8_t>(1u << next.rank()); }
  // Adds the successors named by a mask of direction bits at once.
  void add_mask(ChannelId from, std::uint8_t next) { successors_[from] |= next; }
  // Throws std::invalid_argument when `to` does not leave from's head node.
  void add(ChannelId from, ChannelId to);

  ChannelId slots() const { return static_cast<ChannelId>(successors_.size()); }
  std::uint8_t successors(ChannelId c) const { return successors_[c]; }
  ChannelId target(ChannelId c, int rank) const;
  // Tarjan's strongly connected components, iterative (a recursion could be
  // as deep as the number of channels).  Returns the component of each slot.
  std::vector<std::int32_t> components() const;
  // Dependencies that lie inside one strongly connected component and make
  // it a deadlock: under bubble those between channels of different direction
  // (turns), under none all of them.  0 means deadlock-free under the shared
  // model's rule.
  std::size_t turns_on_cycles(FlowControl flow = FlowControl::bubble) const;

 private:
  const Torus* torus_;
  std::vector<std::uint8_t> successors_;
};

// What verify() gathers from walking every route (of a source inside the
// torus) run by run: the load of every channel slot and the channel
// dependency graph of every layer.  Exposed for tests, which check it against
// a hop-by-hop walk.
struct RouteWalkFigures {
  std::vector<std::uint64_t> loads;
  std::vector<ChannelDependencyGraph> graphs;  // per virtual channel
};
RouteWalkFigures walk_routes(const Network& network, const RouteTable& table);

// Deadlock check alone, exposed for tests: true when no strongly connected
// component of the CDG of `layer` contains a turn (two channels that differ in
// dimension or sign; under flow control none: any dependency).  On failure
// `example` names a dependency on a cycle.
bool layer_deadlock_free(const Network& network, const RouteTable& table, int layer, std::string* example,
                         FlowControl flow = FlowControl::bubble);

}  // namespace angara
