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
std::unique_ptr<Generator> create_mroots_generator();
std::unique_ptr<Generator> create_mp_lash_generator();
std::unique_ptr<Generator> create_a_lash_generator();
std::unique_ptr<Generator> create_hiry_generator();

const std::vector<GeneratorInfo>& generators() {
  static const std::vector<GeneratorInfo> all = {
      {"bfs", "breadth-first search in the routing graph (ANSU paper, Algorithms 1-2)",
       &create_bfs_generator},
      {"sssp", "single-source shortest paths in the routing graph (ANSU paper, Algorithms 3-4)",
       &create_sssp_generator},
      {"balanced", "minimal routes balanced to the per-dimension lower bound (greedy + local search)",
       &create_balanced_generator, /*start_from=*/"sssp", /*in_default_chain=*/true},
      {"genetic", "genetic search over route variants, fitness sigma(4) (ANSU paper, section 4.2)",
       &create_genetic_generator},
      {"nue", "Nue: routing in the complete channel dependency graph, k virtual channels (Domke et al., HPDC'16)",
       &create_nue_generator, /*start_from=*/"", /*in_default_chain=*/true},
      {"dfsssp", "balanced shortest paths on the fewest virtual channels (DFSSSP paper, Algorithms 1-2)",
       &create_dfsssp_generator},
      {"lash", "shortest paths, pairs on the first virtual channel that stays deadlock-free (LASH, section 5)",
       &create_lash_generator},
      {"exact", "one virtual channel decided by an SMT solver (Z3) over every encodable route; above 100 nodes it repairs balanced's partial table",
       &create_exact_generator, /*start_from=*/"balanced", /*in_default_chain=*/true},
      {"mroots", "D-MROOTS: UpDown routing with one root per virtual channel, roots spread apart (layered routing, section 4)",
       &create_mroots_generator, /*start_from=*/"", /*in_default_chain=*/false, /*minimal_routes=*/false,
       /*complete_under=*/RuleSet::general},
      {"mp-lash", "MP-LASH: up to paths_per_pair shortest paths per pair, each on a virtual channel that stays deadlock-free; source-adaptive (layered routing, section 6)",
       &create_mp_lash_generator},
      {"a-lash", "A-LASH: a pair's shortest paths together on one virtual channel that stays deadlock-free; switch-adaptive (layered routing, section 7)",
       &create_a_lash_generator},
      {"hiry", "HiRy: regions of channel directions in the torus's own space, ordered partitions per virtual channel; the shortest permitted paths, adaptive (Kawano et al., section IV)",
       &create_hiry_generator, /*start_from=*/"", /*in_default_chain=*/false, /*minimal_routes=*/false,
       /*complete_under=*/RuleSet::general},
  };
  return all;
}

std::unique_ptr<Generator> make_generator(std::string_view name) {
  for (const GeneratorInfo& info : generators()) {
    if (info.name != name) continue;
    std::unique_ptr<Generator> generator = info.create();
    if (!info.start_from.empty())
      generator->set_starting_table([from = info.start_from](const Network& network,
                                                             const std::vector<NodeId>& allocation,
                                                             const GeneratorOptions& options) {
        return make_generator(from)->generate(network, allocation, options);
      });
    return generator;
  }
  return nullptr;
}

const GeneratorInfo* find_generator(std::string_view name) {
  for (const GeneratorInfo& info : generators())
    if (info.name == name) return &info;
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
// allocation (doc/benchmarks.md).  nue (virtual channels, the complete
// dependency graph) and exact (the SMT solver) route what it cannot.
std::string_view default_generator_name() {
  for (const GeneratorInfo& info : generators())
    if (info.in_default_chain) return info.name;
  return generators().front().name;
}

std::string default_algorithm_chain() {
  std::string chain;
  for (const GeneratorInfo& info : generators())
    if (info.in_default_chain) chain += (chain.empty() ? "" : ",") + std::string(info.name);
  return chain;
}

}  // namespace angara
