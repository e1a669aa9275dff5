// mp-lash and a-lash: layered shortest path routing with several shortest
// paths per pair (Layered Routing in Irregular Networks, Lysne et al.,
// section 6, MP-LASH, source-adaptive; section 7, A-LASH, switch-adaptive).
// Both produce a multi-path routing function (angara/multipath.hpp) and,
// for installation, its alternative 0.
//
// Paths: every pair's balanced shortest path (the path step of lash,
// routing/common/shortest_paths.hpp) first, then its other shortest paths,
// at most `paths_per_pair` in all: under rules angara the minimal encodable
// routes (the shortest encodable ones around failures; every First/Last
// Step turn allowed, the layers decide about deadlock), under rules general
// the shortest paths over live channels, in direction order.
//
// Layers, first fit as in LASH (section 5.1, Step 2.2): the first paths of
// all pairs are laid first, so that alternative 0 is LASH's table and a
// budget too small for it is refused naming the virtual channels it needs.
// Then, within options.virtual_channels:
//   mp-lash (Step 2): each further path on its own, on the first layer it
//     keeps acyclic; a path that fits none is dropped (section 6: "all but
//     one ... can be discarded").
//   a-lash (Step 2.1, one group per pair, not per first link): all the
//     pair's paths at once on the first layer that stays acyclic with all
//     their dependencies, including those of a switch moving a packet from
//     one path to another where they meet; the pair's alternative 0 moves
//     to that layer too.  A pair whose group fits no layer keeps its first
//     path only.
// The first fit goes on past the budget (up to the format's 8 layers) only
// to count the layers all paths would need, which the function reports.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "routing/common/candidates.hpp"
#include "routing/common/layering.hpp"
#include "routing/common/option_spec.hpp"
#include "routing/common/shortest_paths.hpp"
#include "routing/generator.hpp"

namespace angara {

namespace {

const OptionSpec kPathsPerPairOption{"paths_per_pair", OptionSpec::Kind::integer, "4", {}, 1, 64,
                                     "mp-lash and a-lash: the shortest paths taken per pair at most (the first is "
                                     "the balanced path of lash)"};

using ChannelPath = std::vector<ChannelId>;

// Shortest paths over live channels from `src` to the node whose hop
// distances `to_destination` holds (-1: cut off), at most `cap`, in
// direction order (rules general).
void live_shortest_paths(const Network& network, const std::vector<int>& to_destination, NodeId src,
                         std::size_t cap, ChannelPath& prefix, std::vector<ChannelPath>& out) {
  if (out.size() >= cap) return;
  if (to_destination[src] == 0) {
    out.push_back(prefix);
    return;
  }
  const Torus& torus = network.torus();
  for (int rank = 0; rank < kDirectionCount && out.size() < cap; ++rank) {
    const Direction d(rank);
    if (!torus.direction_present(d) || !network.channel_alive(src, d)) continue;
    const NodeId next = torus.neighbor(src, d);
    if (!network.node_alive(next) || to_destination[next] != to_destination[src] - 1) continue;
    prefix.push_back(Torus::channel(src, d));
    live_shortest_paths(network, to_destination, next, cap, prefix, out);
    prefix.pop_back();
  }
}

// Every pair's paths: the balanced one first, then other shortest ones.
std::vector<std::vector<ChannelPath>> pair_paths(const Network& network, const PathSet& first,
                                                 const GeneratorOptions& options, std::size_t cap) {
  const std::vector<NodeId>& nodes = first.nodes();
  const std::size_t n = nodes.size();
  std::vector<std::vector<ChannelPath>> result(first.pair_count());
  for (std::size_t p = 0; p < first.pair_count(); ++p)
    if (p / n != p % n) result[p].emplace_back(first.begin(p), first.end(p));
  if (cap <= 1) return result;
  const auto add = [&](std::size_t p, ChannelPath path) {
    std::vector<ChannelPath>& paths = result[p];
    if (paths.size() >= cap || paths.empty() || path.size() != paths.front().size()) return;
    if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(std::move(path));
  };
  if (options.rules == RuleSet::angara) {
    const TurnRules every_turn(network, TurnRules::Mode::all_turns);
    const CandidateSet candidates(network, every_turn, nodes, cap, /*allow_unroutable=*/true);
    for (std::size_t p = 0; p < first.pair_count(); ++p)
      for (std::size_t v = 0; v < candidates.variants(p); ++v) {
        const ChannelSpan span = candidates.channels(p, v);
        add(p, ChannelPath(span.begin(), span.end()));
      }
    return result;
  }
  ChannelPath prefix;
  for (std::size_t d = 0; d < n; ++d) {
    const std::vector<int> distance = hop_distances_to(network, nodes[d]);
    for (std::size_t s = 0; s < n; ++s) {
      if (s == d || distance[nodes[s]] < 0) continue;
      std::vector<ChannelPath> found;
      live_shortest_paths(network, distance, nodes[s], cap, prefix, found);
      for (ChannelPath& path : found) add(first.pair(s, d), std::move(path));
    }
  }
  return result;
}

void add_path_dependencies(const ChannelPath& path, std::vector<Dependency>& out) {
  for (std::size_t i = 1; i < path.size(); ++i) out.emplace_back(path[i - 1], path[i]);
}

// A-LASH's dependencies of a pair: those of every path, and every (channel
// into v, channel out of v) of two of its paths, where a switch may move a
// packet from one path to the other.
std::vector<Dependency> switch_dependencies(const Torus& torus, const std::vector<ChannelPath>& paths) {
  std::vector<Dependency> result;
  std::vector<ChannelId> entering, leaving;
  for (const ChannelPath& path : paths)
    for (std::size_t i = 0; i < path.size(); ++i) {
      if (i > 0) entering.push_back(path[i - 1]);
      leaving.push_back(path[i]);
    }
  for (ChannelId in : entering) {
    const NodeId head = torus.neighbor(Torus::channel_node(in), Torus::channel_direction(in));
    for (ChannelId out : leaving)
      if (Torus::channel_node(out) == head) {
        const Dependency dependency(in, out);
        if (std::find(result.begin(), result.end(), dependency) == result.end()) result.push_back(dependency);
      }
  }
  return result;
}

class LayerStack {
 public:
  LayerStack(const Torus& torus, FlowControl rule, int limit) : torus_(torus), rule_(rule), limit_(limit) {}
  // The first layer below `limit` (at most the constructor's) that takes
  // the dependencies, or -1.
  int first_fit(const std::vector<Dependency>& dependencies, int limit) {
    for (int l = 0; l < std::min(limit, limit_); ++l) {
      if (l == static_cast<int>(layers_.size())) layers_.push_back(std::make_unique<DependencyLayer>(torus_, rule_));
      if (try_add_dependencies(*layers_[static_cast<std::size_t>(l)], dependencies)) return l;
    }
    return -1;
  }
  int used() const { return std::max(1, static_cast<int>(layers_.size())); }

 private:
  const Torus& torus_;
  FlowControl rule_;
  int limit_;
  std::vector<std::unique_ptr<DependencyLayer>> layers_;
};

class MultiPathLashGenerator final : public Generator {
 public:
  explicit MultiPathLashGenerator(Adaptivity adaptivity) : adaptivity_(adaptivity) {}
  std::string_view name() const override { return adaptivity_ == Adaptivity::source ? "mp-lash" : "a-lash"; }
  std::vector<OptionSpec> option_specs() const override {
    std::vector<OptionSpec> specs;
    for (const OptionSpec& spec : layered_option_specs())
      if (spec.key != "spread") specs.push_back(spec);
    specs.push_back(kPathsPerPairOption);
    return specs;
  }
  double peak_bytes(const MemoryContext& context, const GeneratorOptions& options) const override {
    const auto cap = static_cast<double>(option_integer(name(), kPathsPerPairOption, options));
    return layered_peak_bytes(context) * (1 + cap) + context.pairs * 4 * cap;
  }
  RouteTable generate(const Network& network, const std::vector<NodeId>& allocation,
                      const GeneratorOptions& options) const override {
    return std::move(generate_multipath(network, allocation, options)->alternatives.front());
  }
  std::optional<MultiPathTable> generate_multipath(const Network& network, const std::vector<NodeId>& allocation,
                                                   const GeneratorOptions& options) const override;

 private:
  Adaptivity adaptivity_;
};

std::optional<MultiPathTable> MultiPathLashGenerator::generate_multipath(const Network& network,
                                                                         const std::vector<NodeId>& allocation,
                                                                         const GeneratorOptions& options) const {
  const std::string generator(name());
  start_route_table(generator, network, allocation);  // checks the allocation
  const int allowed = std::clamp(options.virtual_channels, 1, kMaxLayers);
  const auto cap = static_cast<std::size_t>(option_integer(generator, kPathsPerPairOption, options));
  const PathSet first =
      balanced_shortest_paths(network, allocation, path_options(generator, options), generator.c_str());
  const std::vector<std::vector<ChannelPath>> paths = pair_paths(network, first, options, cap);
  const Torus& torus = network.torus();
  const std::size_t n = first.node_count();

  // The first paths: LASH's first fit, refused beyond the budget.
  LayerStack layers(torus, options.flow_control, kSearchLayers);
  std::vector<std::vector<int>> layer(paths.size());  // per pair and path, -1: dropped
  std::vector<Dependency> dependencies;
  for (std::size_t p = 0; p < paths.size(); ++p) {
    if (paths[p].empty()) continue;
    layer[p].assign(paths[p].size(), -1);
    dependencies.clear();
    add_path_dependencies(paths[p].front(), dependencies);
    layer[p][0] = layers.first_fit(dependencies, kSearchLayers);
    if (layer[p][0] < 0) too_many_layers(generator, kSearchLayers, allowed, true);
  }
  if (layers.used() > allowed) too_many_layers(generator, layers.used(), allowed, false);

  // The other paths, within the budget; counted up to the format's limit.
  const int count_to = std::max(allowed, kMaxLayers);
  MultiPathTable function;
  function.adaptivity = adaptivity_;
  function.algorithm = generator;
  int needed = layers.used();
  bool beyond = false;
  for (std::size_t p = 0; p < paths.size(); ++p) {
    if (paths[p].size() < 2) continue;
    if (adaptivity_ == Adaptivity::source) {
      for (std::size_t i = 1; i < paths[p].size(); ++i) {
        dependencies.clear();
        add_path_dependencies(paths[p][i], dependencies);
        const int l = layers.first_fit(dependencies, count_to);
        if (l < 0) beyond = true;
        needed = std::max(needed, l + 1);
        if (l >= 0 && l < allowed) layer[p][i] = l;
        else ++function.dropped_paths;
      }
    } else {
      const int l = layers.first_fit(switch_dependencies(torus, paths[p]), count_to);
      if (l < 0) beyond = true;
      needed = std::max(needed, l + 1);
      if (l >= 0 && l < allowed) std::fill(layer[p].begin(), layer[p].end(), l);
      else function.dropped_paths += paths[p].size() - 1;
    }
  }
  function.layers_for_all_paths = beyond ? -count_to : needed;

  // Alternative k gives each pair its k-th kept path (cycling through them).
  std::size_t alternatives = 1;
  std::vector<std::vector<std::size_t>> kept(paths.size());
  for (std::size_t p = 0; p < paths.size(); ++p) {
    for (std::size_t i = 0; i < layer[p].size(); ++i)
      if (layer[p][i] >= 0) kept[p].push_back(i);
    alternatives = std::max(alternatives, kept[p].size());
  }
  for (std::size_t k = 0; k < alternatives; ++k) {
    RouteTable table = start_route_table(generator, network, allocation);
    table.rules = options.rules;
    table.flow_control = options.flow_control;
    for (std::size_t p = 0; p < paths.size(); ++p) {
      if (kept[p].empty()) continue;
      const std::size_t i = kept[p][k % kept[p].size()];
      Route route;
      for (ChannelId c : paths[p][i]) route.hops.push_back(Torus::channel_direction(c));
      route.layer = static_cast<std::uint8_t>(layer[p][i]);
      table.set_route(p / n, p % n, route);
    }
    function.alternatives.push_back(std::move(table));
  }
  return function;
}

}  // namespace

std::unique_ptr<Generator> create_mp_lash_generator() {
  return std::make_unique<MultiPathLashGenerator>(Adaptivity::source);
}
std::unique_ptr<Generator> create_a_lash_generator() {
  return std::make_unique<MultiPathLashGenerator>(Adaptivity::switch_hops);
}

}  // namespace angara
