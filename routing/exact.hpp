// The exact generator's repair of large allocations (routing/exact.cpp),
// exposed for its tests: the generator calls it above the allocation size it
// decides with one question over every pair.
#pragma once

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "angara/rules.hpp"

namespace angara {

// Completes `partial` (routes free of forbidden cycles among themselves,
// some pairs without a route; RoutingError::partial()) by large
// neighbourhood search with the solver: the pairs without a route are freed
// with every encodable route of theirs, the other routes' dependencies are
// assumptions, and the holders of the dependencies an unsatisfiable answer
// needed are freed in turn.  Returns the completed table (the routes not
// freed unchanged), or throws RoutingError: the oracle's refusal for a pair
// no encodable route joins; a proof when the freed pairs alone admit no
// deadlock-free choice ("exact: no deadlock-free table ... exists ... (the
// solver proved it over every route of K pairs, which alone admit no
// choice: A -> B, ...)"); "exact: undecided ..." when its rounds, its limit
// of freed pairs or the solver's resource limit run out.
RouteTable repair_with_solver(const Network& network, RouteTable partial, FlowControl flow);

}  // namespace angara
