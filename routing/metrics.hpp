// Quality metrics of a routing table (shared/angara-model.md, "Metrics"; ANSU
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
};

// Number of routes crossing each channel slot (index = ChannelId).
std::vector<std::uint64_t> channel_loads(const Network& network, const RouteTable& table);

// The channels a table's loads are measured over: every live channel between
// two allocated nodes, plus every channel some route uses.  For a whole
// machine this is every live channel.
std::vector<ChannelId> measured_channels(const Network& network, const RouteTable& table,
                                         const std::vector<std::uint64_t>& loads);

Metrics compute_metrics(const Network& network, const RouteTable& table);

// Per-dimension lower bound on max gamma for minimal routing of `allocation`:
// for each dimension, the sum over ordered pairs of their ring distance in
// that dimension, divided by the live channels of that dimension that lie on
// some minimal path of some pair.
std::array<double, kMaxDims> dimension_lower_bounds(const Network& network,
                                                    const std::vector<NodeId>& allocation);

}  // namespace angara
