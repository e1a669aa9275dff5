// HiRy's evaluation (Kawano et al., Sec. V-A and V-B, Fig. 12-15) on this
// product's tori: for each machine, whole and with 1-3 failed routers, over
// 10 instances (random failed routers that leave the machine connected;
// the routing seed is the instance number), the virtual channels hiry
// needs for every pair to be reachable (Alg. 4: the fewest of 1..8 it
// routes with), and at a fixed number of virtual channels (2, as the
// paper's Fig. 14-15) the permitted path lengths against the minimal ones:
// the maximum path length and the average one, each divided by the
// minimal's, and the stretch factor, the largest ratio over the pairs.
// Rules general (every live path allowed), the paper's setting.
//
//   angara-hiry-bench [--machines 8x8,4x4x4,...] [--failures 0,1,2,3]
//                     [--instances 10] [--vcs 2] [--seed 1] [--cables 0]
// (--cables: that many random cables failed besides, in every instance)
// prints a Markdown table (doc/benchmarks.md, "HiRy on tori").
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "routing/generator.hpp"

using namespace angara;

namespace {

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// Hop distances from `from` over live channels (-1: cut off).
std::vector<int> hop_distances(const Network& network, NodeId from) {
  const Torus& torus = network.torus();
  std::vector<int> distance(torus.node_count(), -1);
  std::vector<NodeId> queue{from};
  distance[from] = 0;
  for (std::size_t i = 0; i < queue.size(); ++i) {
    const NodeId node = queue[i];
    for (int rank = 0; rank < kDirectionCount; ++rank) {
      const Direction d(rank);
      if (!torus.direction_present(d) || !network.channel_alive(node, d)) continue;
      const NodeId next = torus.neighbor(node, d);
      if (distance[next] >= 0 || !network.node_alive(next)) continue;
      distance[next] = distance[node] + 1;
      queue.push_back(next);
    }
  }
  return distance;
}

std::vector<NodeId> live_nodes(const Network& network) {
  std::vector<NodeId> nodes;
  for (NodeId v = 0; v < network.torus().node_count(); ++v)
    if (network.node_alive(v)) nodes.push_back(v);
  return nodes;
}

bool connected(const Network& network) {
  const std::vector<NodeId> nodes = live_nodes(network);
  const std::vector<int> distance = hop_distances(network, nodes.front());
  return std::all_of(nodes.begin(), nodes.end(), [&](NodeId v) { return distance[v] >= 0; });
}

// `failures` random routers failed, the machine left connected.
// With `cables` failed cables besides.
Network instance(const Torus& torus, int failures, int cables, std::mt19937_64& random) {
  for (int tries = 0;; ++tries) {
    if (tries == 10000) {
      std::cerr << "angara-hiry-bench: no connected " << torus.to_string() << " with " << failures << " failed routers and "
                << cables << " failed cables in 10000 draws\n";
      std::exit(1);
    }
    Network network(torus);
    while (static_cast<int>(network.failed_nodes().size()) < failures) {
      const NodeId node = static_cast<NodeId>(random() % torus.node_count());
      if (network.node_alive(node)) network.fail_node(node);
    }
    for (int failed = 0; failed < cables;) {
      const NodeId node = static_cast<NodeId>(random() % torus.node_count());
      const Direction d(static_cast<int>(random() % kDirectionCount));
      if (!torus.direction_present(d) || !torus.cabled(node, d) || !network.node_alive(node) ||
          !network.channel_alive(node, d))
        continue;
      network.fail_link(node, d);
      ++failed;
    }
    if (connected(network)) return network;
  }
}

struct Stretch {
  double max_ratio = 0, average_ratio = 0, factor = 0;
};

Stretch stretch(const Network& network, const MultiPathTable& function) {
  const RouteTable& table = function.alternatives.front();
  const std::vector<NodeId>& nodes = table.nodes();
  double hops = 0, minimal = 0, pairs = 0;
  std::size_t longest = 0;
  int longest_minimal = 0;
  Stretch result;
  for (std::size_t s = 0; s < nodes.size(); ++s) {
    const std::vector<int> distance = hop_distances(network, nodes[s]);
    for (std::size_t d = 0; d < nodes.size(); ++d) {
      if (s == d) continue;
      const std::size_t length = table.hop_count(s, d);
      const int shortest = distance[nodes[d]];
      hops += static_cast<double>(length);
      minimal += shortest;
      pairs += 1;
      longest = std::max(longest, length);
      longest_minimal = std::max(longest_minimal, shortest);
      result.factor = std::max(result.factor, static_cast<double>(length) / shortest);
    }
  }
  result.max_ratio = static_cast<double>(longest) / longest_minimal;
  result.average_ratio = hops / minimal;
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> machines = {"8x8", "4x4x4", "16x16", "8x8x4", "4x4x4x4"};
  std::vector<int> failure_counts = {0, 1, 2, 3};
  int instances = 10, fixed_vcs = 2, cables = 0;
  std::uint64_t seed = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "angara-hiry-bench: " << arg << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--machines") machines = split(value());
    else if (arg == "--failures") {
      failure_counts.clear();
      for (const std::string& f : split(value())) failure_counts.push_back(std::stoi(f));
    } else if (arg == "--instances") instances = std::stoi(value());
    else if (arg == "--vcs") fixed_vcs = std::stoi(value());
    else if (arg == "--seed") seed = std::stoull(value());
    else if (arg == "--cables") cables = std::stoi(value());
    else {
      std::cerr << "usage: angara-hiry-bench [--machines LIST] [--failures LIST] [--instances N] [--vcs V] [--seed S] [--cables N]\n";
      return 2;
    }
  }
  const std::unique_ptr<Generator> hiry = make_generator("hiry");
  std::printf("| machine | failed routers | VCs needed min / avg / max | at %d VCs: max length / minimal's | "
              "average length / minimal's | stretch factor | refused | seconds |\n",
              fixed_vcs);
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const std::string& machine : machines)
    for (int failures : failure_counts) {
      const Torus torus = Torus::parse(machine);
      std::mt19937_64 random(seed * 1000003 + static_cast<std::uint64_t>(failures));
      int vc_min = 99, vc_max = 0, vc_sum = 0, measured = 0, refused = 0;
      Stretch sum;
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < instances; ++i) {
        const Network network = instance(torus, failures, cables, random);
        const std::vector<NodeId> nodes = live_nodes(network);
        GeneratorOptions options;
        options.rules = RuleSet::general;
        options.seed = seed + static_cast<std::uint64_t>(i);
        int needed = 9;  // beyond 8
        for (int v = 1; v <= 8 && needed > 8; ++v) {
          options.virtual_channels = v;
          try {
            hiry->generate_multipath(network, nodes, options);
            needed = v;
          } catch (const RoutingError&) {
          }
        }
        vc_min = std::min(vc_min, needed);
        vc_max = std::max(vc_max, needed);
        vc_sum += needed;
        options.virtual_channels = fixed_vcs;
        try {
          const Stretch one = stretch(network, *hiry->generate_multipath(network, nodes, options));
          sum.max_ratio += one.max_ratio;
          sum.average_ratio += one.average_ratio;
          sum.factor += one.factor;
          ++measured;
        } catch (const RoutingError&) {
          ++refused;
        }
      }
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const auto vcs = [](int v) { return v > 8 ? std::string(">8") : std::to_string(v); };
      const double m = std::max(measured, 1);
      std::printf("| %s | %d | %s / %.1f / %s | %.3f | %.3f | %.3f | %d of %d | %.1f |\n", machine.c_str(), failures,
                  vcs(vc_min).c_str(), static_cast<double>(vc_sum) / instances, vcs(vc_max).c_str(),
                  sum.max_ratio / m, sum.average_ratio / m, sum.factor / m, refused, instances, seconds);
      std::fflush(stdout);
    }
  return 0;
}
