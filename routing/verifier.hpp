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
  std::vector<Violation> violations;  // at most one example per rule
  std::size_t violation_count = 0;    // all violations, not only the examples
  std::size_t routes = 0;
  std::size_t non_minimal = 0;        // routes longer than the torus distance
  std::size_t fs_ls_routes = 0;       // routes that need a First or Last Step
  int virtual_channels = 1;
  Metrics metrics;
};

struct VerifyOptions {
  int max_virtual_channels = 1;
};

VerifyReport verify(const Network& network, const RouteTable& table, const VerifyOptions& options = {});

// Deadlock check alone, exposed for tests: true when no strongly connected
// component of the CDG of `layer` contains a turn (two channels that differ in
// dimension or sign).  On failure `example` names a turn on a cycle.
bool layer_deadlock_free(const Network& network, const RouteTable& table, int layer,
                         std::string* example);

}  // namespace angara
