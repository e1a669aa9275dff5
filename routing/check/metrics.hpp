// Quality metrics of a routing table (doc/model.md, "Metrics"; ANSU
// paper section 1.1): channel loads, edge forwarding index, sigma(4),
// diameter, and the per-dimension lower bound on max gamma.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"

namespace angara {

struct Metrics {
  std::uint64_t max_gamma = 0;      // edge forwarding index
  std::uint64_t min_gamma = 0;
  double avg_gamma = 0;             // = gamma_perfect
  double sigma4 = 0;
  int max_hops = 0;                 // diameter of the table
  double avg_hops = 0;
  std::size_t channels = 0;         // channels the loads are taken over
  // Per-dimension lower bound for minimal routing; lower_bound = max over dims
  // (rounded up to an integer, since loads are integers).
  std::array<double, kMaxDims> dim_bound{};
  std::uint64_t lower_bound = 0;
  // False when the table has a non-minimal route: the bound is then taken
  // over every live channel of each dimension (valid for any routing), not
  // over the channels of minimal paths (valid for minimal routings only).
  bool bound_for_minimal_routing = true;
};

// Number of routes crossing each channel slot (index = ChannelId).
std::vector<std::uint64_t> channel_loads(const Network& network, const RouteTable& table);

// The channels a table's loads are measured over: every live channel between
// two allocated nodes, plus every channel some route uses.  Why this set: the
// papers' gamma_perfect and sigma(4) average over "the network's channels"
// (ANSU paper, section 1.1).  For a whole machine that is every live channel.
// For a block allocation it is the block's own channels (plus any outside
// channel a route borrows), which is how the ANSU paper's Table 2 reads: on
// Desmos the 8-node 4x2 block is measured over its 32 channels, not over the
// machine's 256, most of which no route of the job can ever load.  Sorted by
// ChannelId.
std::vector<ChannelId> measured_channels(const Network& network, const RouteTable& table,
                                         const std::vector<std::uint64_t>& loads);

// Max, min and average load over measured_channels(), sigma(4) around that
// average, route lengths, and the lower bound of the table's allocation.
Metrics compute_metrics(const Network& network, const RouteTable& table);
// Route count and lengths of a table (routes with hops).
struct RouteLengths {
  std::uint64_t routes = 0, hops = 0;
  std::uint64_t non_minimal = 0;  // routes longer than their torus distance
  int max_hops = 0;
};
// The same with the loads (and the lengths, unless null) already known: the
// verifier walks every route once and passes them on.
Metrics compute_metrics(const Network& network, const RouteTable& table, const std::vector<std::uint64_t>& loads,
                        const RouteLengths* lengths = nullptr);

// The two integers behind one dimension's lower bound, kept exact so that the
// rounded bound is an integer ceiling, not a floating-point one.
struct DimensionBoundTerms {
  std::uint64_t hops = 0;      // sum over ordered pairs of the ring distance in this dimension
  std::uint64_t channels = 0;  // live channels of this dimension on some minimal path of some pair
};

// Per-dimension terms of the lower bound below.  A channel (u, D) of dimension
// i lies on a minimal path of (s, t) iff every other coordinate u_j lies on a
// shortest arc between s_j and t_j (both arcs when equidistant) and the hop
// u_i -> u_i +- 1 lies on a shortest arc from s_i to t_i running in D's sense.
// The channels that no pair with an end on their own ring decides are
// checked one by one, source by source (`direct`), or through the distinct
// pair classes, a pass over every pair however few channels are left
// (`pair_classes`).  `automatic` checks them directly up to |allocation|^2 / 16
// (channel, source) checks a dimension, about what the pass costs, and lists
// the pair classes for those still undecided; the tests force either way.
enum class LeftoverChannels { automatic, direct, pair_classes };
std::array<DimensionBoundTerms, kMaxDims> dimension_bound_terms(
    const Network& network, const std::vector<NodeId>& allocation,
    LeftoverChannels leftover = LeftoverChannels::automatic);

// max over dimensions of ceil(hops / channels), in integers; a dimension with
// no traffic contributes 0, and so does one with traffic but no live minimal
// channel (no minimal routing exists, so the bound does not apply).
std::uint64_t integer_lower_bound(const std::array<DimensionBoundTerms, kMaxDims>& terms);

// Per-dimension lower bound on max gamma for minimal routing of `allocation`:
// for each dimension, the sum over ordered pairs of their ring distance in
// that dimension, divided by the live channels of that dimension that lie on
// some minimal path of some pair (see dimension_bound_terms); 0 for a
// dimension without traffic or without such channels.
std::array<double, kMaxDims> dimension_lower_bounds(const Network& network,
                                                    const std::vector<NodeId>& allocation);

}  // namespace angara
