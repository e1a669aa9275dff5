// The verifier of multi-path routing functions (angara/multipath.hpp;
// issue 27): knows nothing about any generator.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "angara/multipath.hpp"
#include "angara/network.hpp"
#include "routing/check/verifier.hpp"

namespace angara {

struct MultiPathReport {
  bool ok() const { return violations.empty(); }
  // At most one example per rule and alternative ("alternative K: ..."),
  // then the union's deadlock ("allowed paths: ...").
  std::vector<Violation> violations;
  std::size_t violation_count = 0;
  std::size_t paths = 0;            // allowed paths over all ordered pairs
  std::size_t adaptive_pairs = 0;   // pairs with more than one allowed path
  int virtual_channels = 1;
  // Forbidden dependencies on cycles of the union, over the layers.
  std::size_t union_forbidden = 0;
  VerifyReport installed;  // alternative 0, the table that is installed
};

// Checks: every alternative is a table that verify() accepts (every pair
// routed, walkable over live channels to its destination, encodable under
// rules angara, layers within the budget, each alone deadlock-free; the
// adaptive channel's escape only for alternative 0, the installed table);
// all alternatives are over the same nodes; and per virtual channel the
// union of the dependencies of every allowed path is free of forbidden
// cycles under options.flow_control (bubble: no turn on a cycle; none: no
// cycle).  Under Adaptivity::switch_hops a pair's dependencies also include
// every (channel into v, channel out of v) of its allowed paths of one
// layer, since a switch may move a packet from one to another where they meet.
MultiPathReport verify_multipath(const Network& network, const MultiPathTable& function,
                                 const VerifyOptions& options = {});

// The channel dependency graphs of the union, one per virtual channel
// (exposed for tests and for analyze's report).
std::vector<ChannelDependencyGraph> multipath_dependency_graphs(const Network& network,
                                                                 const MultiPathTable& function);

// A source-adaptive function's traffic split evenly over each pair's allowed
// paths: the load of every channel slot, in flows (fractions), of `flows`
// (rank pairs; every pair must have a path).  `max_hops` (optional) gets
// the longest allowed path any flow uses.  A switch-adaptive function is
// measured the same way (an approximation: the switches' choices at the
// paths' meeting points are taken as an even choice among whole paths).
std::vector<double> multipath_split_loads(const Network& network, const MultiPathTable& function,
                                          const std::vector<std::pair<std::size_t, std::size_t>>& flows,
                                          std::size_t* max_hops = nullptr);

}  // namespace angara
