// The registry of routing table generators, after OpenSM's routing_modules
// table: adding a generator is one file plus one line here.
#include "routing/generator.hpp"

namespace angara {

std::unique_ptr<Generator> create_bfs_generator();
std::unique_ptr<Generator> create_sssp_generator();
std::unique_ptr<Generator> create_balanced_generator();
std::unique_ptr<Generator> create_genetic_generator();
std::unique_ptr<Generator> create_nue_generator();
std::unique_ptr<Generator> create_dfsssp_generator();
std::unique_ptr<Generator> create_lash_generator();
std::unique_ptr<Generator> create_exact_generator();

const std::vector<GeneratorInfo>& generators() {
  static const std::vector<GeneratorInfo> all = {
      {"bfs", "breadth-first search in the routing graph (ANSU paper, Algorithms 1-2)",
       &create_bfs_generator},
      {"sssp", "single-source shortest paths in the routing graph (ANSU paper, Algorithms 3-4)",
       &create_sssp_generator},
      {"balanced", "minimal routes balanced to the per-dimension lower bound (greedy + local search)",
       &create_balanced_generator},
      {"genetic", "genetic search over route variants, fitness sigma(4) (ANSU paper, section 4.2)",
       &create_genetic_generator},
      {"nue", "Nue: routing in the complete channel dependency graph, k virtual channels (Domke et al., HPDC'16)",
       &create_nue_generator},
      {"dfsssp", "balanced shortest paths on the fewest virtual channels (DFSSSP paper, Algorithms 1-2)",
       &create_dfsssp_generator},
      {"lash", "shortest paths, pairs on the first virtual channel that stays deadlock-free (LASH, section 5)",
       &create_lash_generator},
      {"exact", "one virtual channel decided by an SMT solver (Z3) over every encodable route; above 100 nodes it repairs balanced's partial table",
       &create_exact_generator},
  };
  return all;
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

std::unique_ptr<Generator> make_generator(std::string_view name) {
  for (const GeneratorInfo& info : generators())
    if (info.name == name) return info.create();
  return nullptr;
}

std::string generator_names() {
  std::string out;
  for (const GeneratorInfo& info : generators()) {
    if (!out.empty()) out += ", ";
    out += info.name;
  }
  return out;
}

// balanced is the default: on the ANSU machine set it reaches the lower
// bound on every whole machine and no other generator beats it on any
// allocation (doc/benchmarks.md).
std::string_view default_generator_name() { return "balanced"; }

}  // namespace angara
