// The shared route dump format (shared/angara-model.md, "Route dump format").
#pragma once

#include <iosfwd>
#include <string>

#include "angara/network.hpp"
#include "angara/route.hpp"

namespace angara {

void write_route_dump(std::ostream& out, const Torus& torus, const RouteTable& table);
// Reads a dump back into a table.  Throws std::runtime_error "FILE:LINE: ...".
RouteTable read_route_dump(std::istream& in, const Torus& torus, const std::string& source_name);

}  // namespace angara
