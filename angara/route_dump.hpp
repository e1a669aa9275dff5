// The shared route dump format (shared/angara-model.md, "Route dump format").
#pragma once

#include <iosfwd>
#include <string>

#include "angara/network.hpp"
#include "angara/route.hpp"

namespace angara {

// Header "# angara-routes v1 dims=4x2x2x2 algorithm=NAME rules=angara
// flow_control=bubble" ("unknown" when the table has no algorithm name), then "SRC DST LAYER HOPS..." for every pair
// that has a route, sources then destinations in ascending node order.
void write_route_dump(std::ostream& out, const Torus& torus, const RouteTable& table);
// Reads a dump back into a table whose nodes are the sources and destinations
// it names, with the header's rules= and flow_control= (angara and bubble
// when absent; other key=value words are ignored).  The header's dims must be the given torus; comment (#) and blank
// lines may follow it; a pair may appear once.  Throws std::runtime_error
// "FILE:LINE: expected ...".
RouteTable read_route_dump(std::istream& in, const Torus& torus, const std::string& source_name);

}  // namespace angara
