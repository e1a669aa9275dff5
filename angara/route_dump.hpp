// The route dump format (doc/model.md, "Route dump format").
#pragma once

#include <iosfwd>
#include <string>

#include "angara/network.hpp"
#include "angara/route.hpp"

namespace angara {

// Header "# angara-routes v1 dims=4x2x2x2 algorithm=NAME rules=angara
// flow_control=bubble" ("unknown" when the table has no algorithm name),
// followed by " single_cable=YZK" when the torus has single-cabled
// dimensions, then "SRC DST LAYER HOPS..." for every pair that has a route,
// sources then destinations in ascending node order.
void write_route_dump(std::ostream& out, const Torus& torus, const RouteTable& table);
// Reads a dump back into a table whose nodes are the sources and destinations
// it names, with the header's rules= and flow_control= (angara and bubble
// when absent; other key=value words are ignored).  The header's dims and
// single_cable must be the given torus's (no single_cable word: every size-2
// dimension double-cabled), and no route may leave through a port without a
// cable.  Comment (#) and blank lines may follow the header; a pair may appear once.  Throws std::runtime_error
// "FILE:LINE: expected ...".
RouteTable read_route_dump(std::istream& in, const Torus& torus, const std::string& source_name);

}  // namespace angara
