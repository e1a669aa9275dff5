// The exact generator's repair of large allocations and its rank search
// (repair.cpp, rank_search.cpp), exposed for its tests: the generator calls
// them above the allocation size it decides with one question over every
// pair (exact.cpp).
#pragma once

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "angara/rules.hpp"

#include <string>

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

// The rank search, the generator's next try when the repair stays undecided
// (whole 16x32 machines): ranks per channel under which every pair has an
// admissible route (one whose rank climbs over every turn and never falls),
// asked of the solver for a growing set of pairs with their candidates (those
// up to `slack` hops over the pair's shortest encodable route, all at -1);
// every pair then takes its shortest admissible route, and pairs without one
// join the set.  With `collapse` (bubble flow control only) every channel of
// an intact ring direction shares one rank.  Returns the complete table, the
// ranks its certificate; throws RoutingError: "exact: undecided ..." when its
// rounds, its search steps (400 million) or the solver's budget run out or
// the set's pairs admit no ranks
// (under `collapse` or a slack that is no proof); the proof ("exact: no
// deadlock-free table ... (the solver proved it over every route of K pairs,
// which alone admit no choice: ...)") with ranks per channel and every
// candidate, once exact's original model over the same pairs agrees.  `log`, when given, receives a line per round.
RouteTable rank_search(const Network& network, RouteTable table, FlowControl flow, bool collapse, int slack,
                       std::string* log = nullptr);

}  // namespace angara
