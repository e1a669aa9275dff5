#include "routing/check/patterns.hpp"

#include <cmath>
#include <stdexcept>
#include <unordered_map>

namespace angara {

namespace {

bool whole_machine(const Torus& torus, const RouteTable& table) {
  return table.size() == torus.node_count();
}

std::vector<std::pair<std::size_t, std::size_t>> transpose_flows(std::size_t n) {
  std::vector<std::pair<std::size_t, std::size_t>> flows;
  if (n < 2) return flows;
  if ((n & (n - 1)) == 0) {
    int bits = 0;
    while ((std::size_t{1} << bits) < n) ++bits;
    const int shift = bits / 2;
    for (std::size_t r = 0; r < n; ++r) {
      const std::size_t d = ((r << shift) | (r >> (bits - shift))) & (n - 1);
      if (d != r) flows.emplace_back(r, d);
    }
    return flows;
  }
  std::size_t side = static_cast<std::size_t>(std::sqrt(static_cast<double>(n)));
  while (side * side > n) --side;
  for (std::size_t r = 0; r < side * side; ++r) {
    const std::size_t d = (r % side) * side + r / side;
    if (d != r) flows.emplace_back(r, d);
  }
  return flows;
}

}  // namespace

std::vector<TrafficPattern> standard_patterns(const Torus& torus, const RouteTable& table) {
  const std::size_t n = table.size();
  std::vector<TrafficPattern> patterns;
  patterns.push_back({"transpose", transpose_flows(n)});

  TrafficPattern neighbor{"neighbor", {}};
  if (n >= 2)
    for (std::size_t r = 0; r < n; ++r) neighbor.flows.emplace_back(r, (r + 1) % n);
  patterns.push_back(std::move(neighbor));

  TrafficPattern tornado{"tornado", {}};
  if (whole_machine(torus, table)) {
    for (std::size_t r = 0; r < n; ++r) {
      Coord c = torus.coord(table.nodes()[r]);
      for (int dim = 0; dim < kMaxDims; ++dim) {
        const int size = torus.size(dim);
        c[dim] = (c[dim] + (size + 1) / 2 - 1) % size;
      }
      const std::size_t d = table.index_of(torus.id(c));
      if (d != r) tornado.flows.emplace_back(r, d);
    }
  } else if (n >= 3) {
    const std::size_t offset = (n + 1) / 2 - 1;
    for (std::size_t r = 0; r < n; ++r) tornado.flows.emplace_back(r, (r + offset) % n);
  }
  patterns.push_back(std::move(tornado));

  TrafficPattern alltoall{"alltoall", {}};
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d)
      if (s != d) alltoall.flows.emplace_back(s, d);
  patterns.push_back(std::move(alltoall));
  return patterns;
}

Congestion measure_congestion(const Torus& torus, const RouteTable& table, const TrafficPattern& pattern) {
  std::unordered_map<ChannelId, std::uint64_t> flows_on;
  Congestion result{pattern.name, pattern.flows.size(), 0, "-"};
  for (const auto& [src, dst] : pattern.flows) {
    NodeId here = table.nodes()[src];
    for (Direction hop : table.route(src, dst).hops) {
      // A flow cannot leave through a port without a cable (single cabling).
      if (!torus.cabled(here, hop))
        throw std::invalid_argument(pattern.name + ": the route from " + torus.format_coord(table.nodes()[src]) +
                                    " to " + torus.format_coord(table.nodes()[dst]) + " cannot be taken: " +
                                    torus.missing_cable_text(here, hop));
      const ChannelId channel = Torus::channel(here, hop);
      const std::uint64_t count = ++flows_on[channel];
      if (count > result.max_flows_per_channel ||
          (count == result.max_flows_per_channel && result.busiest_channel == "-")) {
        result.max_flows_per_channel = count;
        result.busiest_channel = torus.format_coord(here) + " " + hop.token();
      }
      here = torus.neighbor(here, hop);
    }
  }
  return result;
}

}  // namespace angara
