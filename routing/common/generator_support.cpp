#include "routing/common/generator_support.hpp"

namespace angara {

RouteTable start_route_table(std::string_view generator, const Network& network, const std::vector<NodeId>& allocation) {
  const Torus& torus = network.torus();
  RouteTable table(allocation);
  table.algorithm = std::string(generator);
  for (NodeId node : table.nodes()) {
    if (node >= torus.node_count())
      throw RoutingError(table.algorithm + ": allocated node id " + std::to_string(node) + " is outside the " +
                         torus.to_string() + " torus");
    if (!network.node_alive(node))
      throw RoutingError(table.algorithm + ": allocated node " + torus.format_coord(node) + " has failed");
  }
  return table;
}

}  // namespace angara
