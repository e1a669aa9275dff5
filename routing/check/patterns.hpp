// Synthetic traffic patterns of the ANSU paper's Desmos measurements
// (section 5.2, after Dally & Towles ch. 3): transpose, neighbor, tornado and
// alltoall, and the congestion they see under a routing table: the most flows
// that share one channel.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"

namespace angara {

struct TrafficPattern {
  std::string name;
  // Flows as (source, destination) allocation indices; src != dst.
  std::vector<std::pair<std::size_t, std::size_t>> flows;
};

// Ranks are the allocation's nodes in ascending NodeId order (block
// placement), as MPI ranks are placed one per node.
//  - transpose: with 2^b ranks, the rank's bits rotated by floor(b/2); with a
//    non-power-of-two count, row-major (r / c, r % c) -> (r % c, r / c) on the
//    largest square that fits, the remaining ranks idle.
//  - neighbor: rank r sends to r + 1 (mod n).
//  - tornado: rank r sends to r + ceil(n/2) - 1 (mod n); for a whole-machine
//    allocation this is the torus tornado, x_i -> x_i + ceil(d_i/2) - 1 in every
//    dimension.
//  - alltoall: every ordered pair.
std::vector<TrafficPattern> standard_patterns(const Torus& torus, const RouteTable& table);

struct Congestion {
  std::string pattern;
  std::size_t flows = 0;
  std::uint64_t max_flows_per_channel = 0;
  std::string busiest_channel;  // "1,0,0,0 +X"
};

Congestion measure_congestion(const Torus& torus, const RouteTable& table, const TrafficPattern& pattern);

}  // namespace angara
