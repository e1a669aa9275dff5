// The SSSP routing table generator (ANSU paper, section 4.3, Algorithms 3-4),
// and its route counting stage, exposed for tests.
#pragma once

#include <cstdint>
#include <memory>

#include "angara/network.hpp"
#include "routing/generator.hpp"

namespace angara {

std::unique_ptr<Generator> create_sssp_generator();

struct ShortestRoutes {
  std::uint32_t hops = 0;   // length of the shortest Angara routes
  std::uint32_t count = 0;  // distinct routes (hop sequences) of that length, saturating; 0 = no route
};

// Stage 1 of Algorithm 3 for one pair of live nodes over the live part of
// `network`: routes are counted as hop sequences, not as routing graph paths.
ShortestRoutes count_shortest_routes(const Network& network, NodeId source, NodeId destination);

}  // namespace angara
