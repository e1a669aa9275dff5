#include "routing/common/generator_support.hpp"

namespace angara {

RoutingError::RoutingError(const std::string& message, RouteTable partial, std::string headline)
    : std::runtime_error(message),
      partial_(std::make_shared<const RouteTable>(std::move(partial))),
      unrouted_(pairs_without_route(*partial_)),
      headline_(std::move(headline)) {}

std::vector<NodePair> pairs_without_route(const RouteTable& table) {
  std::vector<NodePair> pairs;
  for (std::size_t s = 0; s < table.size(); ++s)
    for (std::size_t d = 0; d < table.size(); ++d)
      if (s != d && !table.has_route(s, d)) pairs.emplace_back(table.nodes()[s], table.nodes()[d]);
  return pairs;
}

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
