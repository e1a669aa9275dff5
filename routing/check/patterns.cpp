#include "routing/check/patterns.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <stdexcept>
#include <unordered_map>

namespace angara {

namespace {

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

using Flows = std::vector<std::pair<std::size_t, std::size_t>>;

Flows shift_flows(std::size_t n, std::size_t offset) {
  Flows flows;
  if (n < 2 || offset % n == 0) return flows;
  for (std::size_t r = 0; r < n; ++r) flows.emplace_back(r, (r + offset) % n);
  return flows;
}

// On a whole machine the torus tornado, x_i -> x_i + ceil(d_i/2) - 1 in every
// dimension; on a part of one the rank tornado r -> r + ceil(n/2) - 1.
Flows tornado_flows(const Torus& torus, const std::vector<NodeId>& nodes) {
  const std::size_t n = nodes.size();
  Flows flows;
  if (n == torus.node_count()) {
    for (std::size_t r = 0; r < n; ++r) {
      Coord c = torus.coord(nodes[r]);
      for (int dim = 0; dim < kMaxDims; ++dim) {
        const int size = torus.size(dim);
        c[dim] = (c[dim] + (size + 1) / 2 - 1) % size;
      }
      const std::size_t d = torus.id(c);  // whole machine: rank = NodeId
      if (d != r) flows.emplace_back(r, d);
    }
    return flows;
  }
  if (n < 3) return flows;
  return shift_flows(n, (n + 1) / 2 - 1);
}

Flows bit_complement_flows(std::size_t n) {
  Flows flows;
  const bool power_of_two = n >= 2 && (n & (n - 1)) == 0;
  for (std::size_t r = 0; r < n; ++r) {
    const std::size_t d = power_of_two ? (r ^ (n - 1)) : n - 1 - r;
    if (d != r) flows.emplace_back(r, d);
  }
  return flows;
}

// Fisher-Yates with the generator's raw output, so a seed gives the same
// pattern with every standard library.
std::vector<std::size_t> shuffled_ranks(std::size_t n, std::mt19937_64& random) {
  std::vector<std::size_t> ranks(n);
  for (std::size_t i = 0; i < n; ++i) ranks[i] = i;
  for (std::size_t i = n; i > 1; --i) std::swap(ranks[i - 1], ranks[random() % i]);
  return ranks;
}

Flows random_permutation_flows(std::size_t n, std::mt19937_64& random) {
  const std::vector<std::size_t> target = shuffled_ranks(n, random);
  Flows flows;
  for (std::size_t r = 0; r < n; ++r)
    if (target[r] != r) flows.emplace_back(r, target[r]);
  return flows;
}

Flows random_bisection_flows(std::size_t n, std::mt19937_64& random) {
  const std::vector<std::size_t> order = shuffled_ranks(n, random);
  Flows flows;
  const std::size_t half = n / 2;
  for (std::size_t i = 0; i < half; ++i) {
    flows.emplace_back(order[i], order[half + i]);
    flows.emplace_back(order[half + i], order[i]);
  }
  return flows;
}

// Hot-spot traffic (Pfister and Norton's hot-spot model, as network studies
// use it): every rank but the phase's hot rank sends one flow, a quarter of
// them (in expectation) to the hot rank, the rest to a uniform random other
// rank; the hot rank sends uniformly.  Routing decides how the channels into
// the hot rank share its load.
Flows hotspot_flows(std::size_t n, std::mt19937_64& random) {
  Flows flows;
  if (n < 2) return flows;
  const std::size_t hot = random() % n;
  for (std::size_t r = 0; r < n; ++r) {
    std::size_t d = hot;
    if (r == hot || random() % 4 != 0) {
      d = random() % (n - 1);  // uniform over the other ranks
      if (d >= r) ++d;
    }
    flows.emplace_back(r, d);
  }
  return flows;
}

// MPI_Dims_create: the most balanced factorisation of n into `dims` factors,
// largest first.
std::array<int, kMaxDims> balanced_factors(std::size_t n, int dims) {
  std::array<int, kMaxDims> extent{1, 1, 1, 1};
  std::vector<std::size_t> primes;
  for (std::size_t p = 2; p * p <= n; ++p)
    while (n % p == 0) primes.push_back(p), n /= p;
  if (n > 1) primes.push_back(n);
  // Largest primes first, each onto the smallest factor so far.
  for (auto it = primes.rbegin(); it != primes.rend(); ++it) {
    int* smallest = std::min_element(extent.begin(), extent.begin() + std::clamp(dims, 1, kMaxDims));
    *smallest *= static_cast<int>(*it);
  }
  std::sort(extent.begin(), extent.end(), std::greater<int>());  // the unused 1s stay last
  return extent;
}

Flows halo_flows(const Torus& torus, const std::vector<NodeId>& nodes) {
  const std::array<int, kMaxDims> grid = halo_grid(torus, nodes);
  Flows flows;
  for (std::size_t r = 0; r < nodes.size(); ++r) {
    // Row-major rank <-> grid position, the first dimension fastest.
    std::array<int, kMaxDims> at{};
    std::size_t rest = r;
    for (int dim = 0; dim < kMaxDims; ++dim) at[dim] = static_cast<int>(rest % grid[dim]), rest /= grid[dim];
    for (int dim = 0; dim < kMaxDims; ++dim) {
      if (grid[dim] < 2) continue;
      for (const int step : {+1, -1}) {
        std::array<int, kMaxDims> there = at;
        there[dim] = (there[dim] + step + grid[dim]) % grid[dim];
        std::size_t d = 0;
        for (int k = kMaxDims - 1; k >= 0; --k) d = d * grid[k] + there[k];
        if (d != r) flows.emplace_back(r, d);
      }
    }
  }
  return flows;
}

}  // namespace

std::array<int, kMaxDims> halo_grid(const Torus& torus, const std::vector<NodeId>& nodes) {
  // A block of the machine (an interval in every dimension, no wrap): its
  // own extents, so that neighbours in the grid are neighbours on the torus.
  std::array<int, kMaxDims> low{}, high{};
  low.fill(1 << 30);
  high.fill(-1);
  for (NodeId node : nodes) {
    const Coord c = torus.coord(node);
    for (int dim = 0; dim < kMaxDims; ++dim) low[dim] = std::min(low[dim], c[dim]), high[dim] = std::max(high[dim], c[dim]);
  }
  std::array<int, kMaxDims> extent{1, 1, 1, 1};
  std::size_t volume = 1;
  for (int dim = 0; dim < kMaxDims && !nodes.empty(); ++dim) extent[dim] = high[dim] - low[dim] + 1, volume *= extent[dim];
  if (!nodes.empty() && volume == nodes.size()) return extent;
  return balanced_factors(nodes.size(), std::max(1, torus.present_dims()));
}

const std::vector<PatternInfo>& simulation_patterns() {
  static const std::vector<PatternInfo> patterns = {
      {"alltoall", "every ordered pair at once (the fluid bound)"},
      {"alltoall-pairwise", "n-1 rounds, round r: rank i -> i+r, as MPI runs it"},
      {"bisection", "random bisections, both directions (effective bisection bandwidth)"},
      {"permutation", "random permutations"},
      {"hotspot", "random destinations, a quarter of them one hot rank a phase"},
      {"transpose", "rank bits rotated by half (matrix transpose)"},
      {"bit-complement", "rank i -> its bit complement (n-1-i when n is not a power of 2)"},
      {"tornado", "half-way round every ring (whole machine), else i -> i+ceil(n/2)-1"},
      {"neighbor", "rank i -> i+1"},
      {"halo", "nearest-neighbour exchange on the job's 2D/3D/4D grid"},
  };
  return patterns;
}

bool is_simulation_pattern(const std::string& name) {
  for (const PatternInfo& info : simulation_patterns())
    if (name == info.name) return true;
  return false;
}

std::vector<TrafficPattern> pattern_phases(const std::string& name, const Torus& torus,
                                           const std::vector<NodeId>& nodes, const PatternOptions& options) {
  const std::size_t n = nodes.size();
  std::vector<TrafficPattern> phases;
  std::mt19937_64 random(options.seed);
  if (name == "alltoall") {
    TrafficPattern all{name, {}};
    all.flows.reserve(n * (n ? n - 1 : 0));
    for (std::size_t s = 0; s < n; ++s)
      for (std::size_t d = 0; d < n; ++d)
        if (s != d) all.flows.emplace_back(s, d);
    phases.push_back(std::move(all));
  } else if (name == "alltoall-pairwise") {
    for (std::size_t r = 1; r < n; ++r) phases.push_back({name, shift_flows(n, r)});
  } else if (name == "permutation") {
    for (std::size_t i = 0; i < options.samples; ++i) phases.push_back({name, random_permutation_flows(n, random)});
  } else if (name == "hotspot") {
    for (std::size_t i = 0; i < options.samples; ++i) phases.push_back({name, hotspot_flows(n, random)});
  } else if (name == "bisection") {
    for (std::size_t i = 0; i < options.samples; ++i) phases.push_back({name, random_bisection_flows(n, random)});
  } else if (name == "transpose") {
    phases.push_back({name, transpose_flows(n)});
  } else if (name == "bit-complement") {
    phases.push_back({name, bit_complement_flows(n)});
  } else if (name == "tornado") {
    phases.push_back({name, tornado_flows(torus, nodes)});
  } else if (name == "neighbor") {
    phases.push_back({name, shift_flows(n, 1)});
  } else if (name == "halo") {
    phases.push_back({name, halo_flows(torus, nodes)});
  } else {
    std::string known;
    for (const PatternInfo& info : simulation_patterns()) known += std::string(known.empty() ? "" : ", ") + info.name;
    throw std::invalid_argument("unknown pattern '" + name + "' (expected one of " + known + ")");
  }
  return phases;
}

std::vector<TrafficPattern> standard_patterns(const Torus& torus, const RouteTable& table) {
  PatternOptions options;
  std::vector<TrafficPattern> patterns;
  for (const char* name : {"transpose", "neighbor", "tornado", "alltoall"})
    patterns.push_back(std::move(pattern_phases(name, torus, table.nodes(), options).front()));
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
