// Synthetic traffic patterns of the ANSU paper's Desmos measurements
// (section 5.2, after Dally & Towles ch. 3): transpose, neighbor, tornado and
// alltoall, and the congestion they see under a routing table: the most flows
// that share one channel.
#pragma once

#include <array>
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

// The workloads of the flow simulator (simulation/), by name.  A workload is
// a list of phases run one after another; the flows of one phase start
// together (MPI's collective algorithms, and the papers' patterns):
//  - alltoall: every ordered pair at once (the fluid bound of an all-to-all);
//  - alltoall-pairwise: n-1 phases, phase r sends rank i -> i + r (mod n),
//    as MPI's pairwise all-to-all runs;
//  - permutation: `samples` random permutations, one a phase;
//  - hotspot: `samples` phases; in each, one seeded hot rank receives about
//    a quarter of the flows, every other flow goes to a uniform random rank
//    (one flow a rank);
//  - bisection: `samples` random bisections: the ranks shuffled, the first
//    half paired with the second, both directions at once (the effective
//    bisection bandwidth of the DFSSSP paper, section 5, after ORCS);
//  - transpose, neighbor, tornado: as standard_patterns();
//  - bit-complement: with 2^b ranks r -> r XOR (2^b - 1), else r -> n-1-r;
//  - halo: each rank to its two neighbours in every dimension of the job's
//    grid (periodic): the allocation's own block when it is one, else the
//    most balanced factorisation of n into the machine's dimensions
//    (MPI_Dims_create), ranks in row-major order.
struct PatternInfo {
  const char* name;
  const char* summary;
};
const std::vector<PatternInfo>& simulation_patterns();
bool is_simulation_pattern(const std::string& name);

struct PatternOptions {
  std::uint64_t seed = 1;
  std::size_t samples = 10;  // permutations, bisections or hot-spot phases
};
// The phases of pattern `name` on the allocation `nodes` (sorted NodeIds;
// ranks are positions in it).  Throws std::invalid_argument for a name that
// is not a pattern.
std::vector<TrafficPattern> pattern_phases(const std::string& name, const Torus& torus,
                                           const std::vector<NodeId>& nodes, const PatternOptions& options);

// The grid a halo exchange runs on (see pattern_phases): extent per
// dimension, 1 for unused ones.
std::array<int, kMaxDims> halo_grid(const Torus& torus, const std::vector<NodeId>& nodes);

}  // namespace angara
