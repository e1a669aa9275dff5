// The independent verifier: knows nothing about any generator.  Every table
// passes through it before anything is written.
#pragma once

#include <string>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "routing/metrics.hpp"

namespace angara {

enum class Rule {
  MissingRoute,     // an ordered pair of the allocation has no route
  DeadNode,         // allocated node or a router on the way is failed
  DeadChannel,      // a hop uses a failed or absent channel
  WrongDestination, // the walk does not end at the destination
  NotEncodable,     // violates [FS] DOR+dirbit [LS]
  Deadlock,         // a turn inside a cycle of one virtual channel's CDG
  BadLayer,         // layer beyond the allowed virtual channels
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
  std::size_t non_minimal = 0;        // routes longer than the torus distance
  std::size_t fs_ls_routes = 0;       // routes that need a First or Last Step
  int virtual_channels = 1;
  Metrics metrics;
};

struct VerifyOptions {
  int max_virtual_channels = 1;
};

// Checks, without any generator or the routing graph: every ordered pair of
// distinct allocated nodes has a route; allocated nodes are alive; each route
// walks over live channels and live routers (the first bad hop is reported)
// and ends at its destination; it is Angara-encodable; its layer is below
// options.max_virtual_channels; each layer's CDG is deadlock-free.  Routes
// from or to a failed allocated node are not walked (the node is reported).
// Also counts non-minimal and FS/LS routes and computes the metrics.
VerifyReport verify(const Network& network, const RouteTable& table, const VerifyOptions& options = {});

// Deadlock check alone, exposed for tests: true when no strongly connected
// component of the CDG of `layer` contains a turn (two channels that differ in
// dimension or sign).  On failure `example` names a turn on a cycle.
bool layer_deadlock_free(const Network& network, const RouteTable& table, int layer,
                         std::string* example);

}  // namespace angara
