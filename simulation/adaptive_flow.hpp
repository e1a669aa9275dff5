// A flow-level approximation of the Angara router's adaptive virtual
// channel (ANSU paper, Sec. 2; doc/model.md, "The adaptive channel";
// doc/simulation.md, "The adaptive channel"): every flow splits evenly,
// router by router, over its minimal next hops (live channels to live
// routers of the job one hop nearer its destination, the hops the adaptive
// channel may take), and where none is left it follows the escape, the
// table's route from that router, to its end.
//
// The result is the load of every channel as a fraction of flows.  Flows
// that start together share a channel evenly, so a phase then takes its
// busiest channel's bytes over the bandwidth plus its longest path's
// latency: the fluid bound the flow simulator is validated against.  It is
// not run in SimGrid, whose routes depend on their two hosts only: one
// path a pair.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"

namespace angara::simulation {

struct AdaptiveLoads {
  std::vector<double> load;  // by ChannelId: flows, in fractions
  std::size_t max_hops = 0;  // the longest path any part of a flow takes
};

// `flows` are rank pairs of `escape` (the job's table); every flow must
// have a route there.
AdaptiveLoads adaptive_channel_loads(const Network& network, const RouteTable& escape,
                                     const std::vector<std::pair<std::size_t, std::size_t>>& flows);

}  // namespace angara::simulation
