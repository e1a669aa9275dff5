// hiry: deadlock-free adaptive routing by the HiRy theorem (Kawano et al.,
// "HiRy: An Advanced Theory on Design of Deadlock-free Adaptive Routing for
// Arbitrary Topologies", Sec. IV) on the torus embedded in its own
// n-dimensional space: each router at its coordinates, n the present
// dimensions, a channel's direction the region of its displacement
// (routing/common/regions.hpp), so a wrap-around channel points the other
// way from the rest of its ring.
//
// Alg. 1: per virtual channel a complete axis, drawn without replacement
// from the axes and drawn again once all are used; Alg. 2: the 2^(n-1)
// orthant partitions of that VC (regions holding no live channel left
// out); Alg. 3: the best-first search over partition orders, each step
// inserting one partition at the head, most reachable pairs first, then the
// smallest average permitted path length, at most 1000 steps (and 4e8
// states visited, so that a draw that reaches not every pair is given up
// within seconds).  The random
// choices come from routing.seed; `attempts` draws are tried before the
// virtual channels are declared too few (Alg. 4 counts how many would do).
//
// Angara's header carries one virtual channel per route (doc/model.md), so
// a path keeps its VC: it follows the order of that VC's partitions, which
// is a subset of what the theorem permits, and a pair is reachable when one
// VC's order admits a path.  The routing function (Sec. IV-D) takes, per
// pair, the shortest permitted paths on every VC where they are shortest
// (up to `paths_per_pair`; under rules angara only the encodable ones), as
// a multi-path function (angara/multipath.hpp) analysed as an even split;
// alternative 0, installed, is one of them per pair, chosen in two passes
// against the channel load of all others.  Every permitted turn follows the
// order, so the union of all paths of a VC has an acyclic channel
// dependency graph (the theorem), whatever the flow control.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "routing/common/layering.hpp"
#include "routing/common/option_spec.hpp"
#include "routing/common/regions.hpp"
#include "routing/generator.hpp"

namespace angara {

namespace {

const OptionSpec kPathsPerPairOption{"paths_per_pair", OptionSpec::Kind::integer, "4", {}, 1, 64,
                                     "hiry: the shortest permitted paths per pair its adaptive function keeps at "
                                     "most (the installed one is the one of them that balances the channel load)"};
const OptionSpec kAttemptsOption{"attempts", OptionSpec::Kind::integer, "4", {}, 1, 64,
                                 "hiry: random draws of the partitions (Alg. 1-2, from routing.seed) tried before "
                                 "more virtual channels are asked for"};

constexpr std::uint16_t kFar = std::numeric_limits<std::uint16_t>::max();
constexpr int kMaxIterations = 1000;     // Alg. 3's MAX_ITERATION
constexpr double kMaxSearchWork = 4e9;   // states times steps: beyond, minutes
// States one order search (Alg. 3) may visit in all: a search that does not
// reach every pair would otherwise go on for its 1000 steps, minutes on 256
// routers; it stops there and counts as not found.
constexpr std::size_t kOrderSearchStates = 400'000'000;
constexpr std::size_t kEncodableScan = 256;  // shortest permitted paths scanned per VC for encodable ones

// The torus as a set of points in its own space.
class Space {
 public:
  explicit Space(const Network& network) : network_(network) {
    const Torus& torus = network.torus();
    for (int dim = 0; dim < kMaxDims; ++dim)
      if (torus.dim_present(dim)) axes_.push_back(dim);
    region_of_channel_.assign(torus.channel_slots(), -1);
    incoming_.resize(torus.node_count());
    outgoing_.resize(torus.node_count());
    for (NodeId u = 0; u < torus.node_count(); ++u) {
      if (!network.node_alive(u)) continue;
      for (int rank = 0; rank < kDirectionCount; ++rank) {
        const Direction d(rank);
        if (!torus.direction_present(d) || !torus.cabled(u, d) || !network.channel_alive(u, d)) continue;
        const NodeId w = torus.neighbor(u, d);
        if (w == u || !network.node_alive(w)) continue;
        const Coord from = torus.coord(u), to = torus.coord(w);
        std::vector<int> displacement;
        for (int dim : axes_) displacement.push_back(to[dim] - from[dim]);
        const ChannelId c = Torus::channel(u, d);
        region_of_channel_[c] = static_cast<int>(region_index(region_of(displacement)));
        outgoing_[u].push_back(c);
        incoming_[w].push_back(c);
      }
    }
  }
  int dimensions() const { return static_cast<int>(axes_.size()); }
  int region(ChannelId c) const { return region_of_channel_[c]; }
  const std::vector<ChannelId>& out(NodeId u) const { return outgoing_[u]; }
  const std::vector<ChannelId>& in(NodeId w) const { return incoming_[w]; }
  NodeId head(ChannelId c) const {
    return network_.torus().neighbor(Torus::channel_node(c), Torus::channel_direction(c));
  }
  NodeId node_count() const { return network_.torus().node_count(); }
  std::vector<bool> used_regions() const {
    std::vector<bool> used(all_regions(dimensions()).size(), false);
    for (int r : region_of_channel_)
      if (r >= 0) used[static_cast<std::size_t>(r)] = true;
    return used;
  }

 private:
  const Network& network_;
  std::vector<int> axes_;
  std::vector<int> region_of_channel_;  // -1: no live channel
  std::vector<std::vector<ChannelId>> outgoing_, incoming_;
};

// One VC's partitions in their order: the rank of each region (-1: none).
struct VcOrder {
  std::vector<int> rank_of_region;
  int ranks = 0;
};

// Breadth-first search over (node, rank of the last channel's partition)
// from one source: the shortest permitted paths on one VC.
class PermittedSearch {
 public:
  explicit PermittedSearch(const Space& space) : space_(space) {}
  const std::vector<std::uint16_t>& run(NodeId source, const VcOrder& order) {
    const std::size_t ranks = static_cast<std::size_t>(std::max(1, order.ranks));
    distance_.assign(space_.node_count() * ranks, kFar);
    queue_.clear();
    distance_[source * ranks] = 0;
    queue_.push_back(static_cast<std::uint32_t>(source * ranks));
    for (std::size_t i = 0; i < queue_.size(); ++i) {
      const std::uint32_t state = queue_[i];
      const NodeId u = static_cast<NodeId>(state / ranks);
      const int r = static_cast<int>(state % ranks);
      for (ChannelId c : space_.out(u)) {
        const int next_rank = order.rank_of_region[static_cast<std::size_t>(space_.region(c))];
        if (next_rank < r) continue;  // -1 (no partition) or an earlier partition
        const std::size_t next = space_.head(c) * ranks + static_cast<std::size_t>(next_rank);
        if (distance_[next] != kFar) continue;
        distance_[next] = static_cast<std::uint16_t>(distance_[state] + 1);
        queue_.push_back(static_cast<std::uint32_t>(next));
      }
    }
    ranks_ = ranks;
    visited_ += queue_.size();
    return distance_;
  }
  std::size_t visited() const { return visited_; }
  std::uint16_t distance_to(NodeId node) const {
    std::uint16_t best = kFar;
    for (std::size_t r = 0; r < ranks_; ++r) best = std::min(best, distance_[node * ranks_ + r]);
    return best;
  }
  // The shortest permitted paths to `destination` (after run()), at most
  // `cap`, as channel sequences.
  void paths_to(NodeId destination, const VcOrder& order, std::size_t cap, std::vector<std::vector<ChannelId>>& out) {
    const std::uint16_t length = distance_to(destination);
    if (length == kFar || length == 0) return;
    suffix_.clear();
    for (std::size_t r = 0; r < ranks_ && out.size() < cap; ++r)
      if (distance_[destination * ranks_ + r] == length) walk_back(destination, r, order, cap, out);
  }

 private:
  void walk_back(NodeId at, std::size_t r, const VcOrder& order, std::size_t cap,
                 std::vector<std::vector<ChannelId>>& out) {
    const std::uint16_t here = distance_[at * ranks_ + r];
    if (here == 0) {
      out.emplace_back(suffix_.rbegin(), suffix_.rend());
      return;
    }
    for (ChannelId c : space_.in(at)) {
      if (order.rank_of_region[static_cast<std::size_t>(space_.region(c))] != static_cast<int>(r)) continue;
      const NodeId from = Torus::channel_node(c);
      for (std::size_t r0 = 0; r0 <= r && out.size() < cap; ++r0) {
        if (distance_[from * ranks_ + r0] != here - 1) continue;
        suffix_.push_back(c);
        walk_back(from, r0, order, cap, out);
        suffix_.pop_back();
      }
      if (out.size() >= cap) return;
    }
  }

  const Space& space_;
  std::vector<std::uint16_t> distance_;
  std::vector<std::uint32_t> queue_;
  std::vector<ChannelId> suffix_;
  std::size_t ranks_ = 1;
  std::size_t visited_ = 0;  // states over all runs
};

// The partitions of one draw (Alg. 1-2), those without a live channel left out.
std::vector<Partition> draw_partitions(const Space& space, int virtual_channels, std::uint64_t seed, int attempt) {
  std::seed_seq sequence{seed, static_cast<std::uint64_t>(virtual_channels), static_cast<std::uint64_t>(attempt)};
  std::mt19937_64 random(sequence);
  const auto choose = [&](std::size_t k) { return static_cast<std::size_t>(random() % std::max<std::size_t>(k, 1)); };
  const int n = space.dimensions();
  const std::vector<bool> used = space.used_regions();
  std::vector<int> axes_left;
  std::vector<Partition> result;
  for (int vc = 0; vc < virtual_channels; ++vc) {
    if (axes_left.empty())
      for (int axis = 0; axis < n; ++axis) axes_left.push_back(axis);
    const std::size_t pick = choose(axes_left.size());
    const int complete_axis = axes_left[pick];
    axes_left.erase(axes_left.begin() + static_cast<long>(pick));
    for (Partition& partition : vc_partitions(n, complete_axis, vc, choose)) {
      const bool live = std::any_of(partition.regions.begin(), partition.regions.end(),
                                    [&](const Region& r) { return used[region_index(r)]; });
      if (live) result.push_back(std::move(partition));
    }
  }
  return result;
}

// Alg. 3 over one draw: the order of the partitions (their indices) that
// reaches every pair of `nodes`, or empty.
class OrderSearch {
 public:
  OrderSearch(const Space& space, const std::vector<NodeId>& nodes, const std::vector<Partition>& partitions,
              int virtual_channels)
      : space_(space), nodes_(nodes), partitions_(partitions), vcs_(virtual_channels), search_(space) {
    for (const Partition& p : partitions_) {
      std::vector<int> ids;
      for (const Region& r : p.regions) ids.push_back(static_cast<int>(region_index(r)));
      region_ids_.push_back(std::move(ids));
    }
    regions_ = all_regions(space.dimensions()).size();
  }

  std::vector<int> run() {
    const std::size_t n = nodes_.size();
    const std::size_t all_pairs = n * (n - 1);
    std::priority_queue<Candidate> open;
    open.push(Candidate{0, 0, 0, {}});
    std::uint64_t serial = 1;
    std::vector<std::vector<std::uint16_t>> matrices(static_cast<std::size_t>(vcs_));
    std::vector<std::uint16_t> child_matrix;
    for (int iteration = 0; !open.empty() && iteration < kMaxIterations && search_.visited() < kOrderSearchStates;
         ++iteration) {
      const Candidate best = open.top();
      open.pop();
      if (best.order.size() == partitions_.size()) {
        if (best.reachable == all_pairs) return best.order;
        continue;  // complete but some pair unreachable: back to another vertex
      }
      for (int vc = 0; vc < vcs_; ++vc) distances(vc_order(best.order, vc), matrices[static_cast<std::size_t>(vc)]);
      for (std::size_t p = 0; p < partitions_.size(); ++p) {
        if (std::find(best.order.begin(), best.order.end(), static_cast<int>(p)) != best.order.end()) continue;
        Candidate child{0, 0, serial++, best.order};
        child.order.insert(child.order.begin(), static_cast<int>(p));
        const int vc = partitions_[p].virtual_channel;
        distances(vc_order(child.order, vc), child_matrix);
        for (std::size_t i = 0; i < n * n; ++i) {
          std::uint16_t shortest = child_matrix[i];
          for (int other = 0; other < vcs_; ++other)
            if (other != vc) shortest = std::min(shortest, matrices[static_cast<std::size_t>(other)][i]);
          if (shortest == kFar || shortest == 0) continue;
          ++child.reachable;
          child.total += shortest;
        }
        open.push(std::move(child));
      }
    }
    return {};
  }

  // The ranks of VC `vc`'s partitions in `order`.
  VcOrder vc_order(const std::vector<int>& order, int vc) const {
    VcOrder result;
    result.rank_of_region.assign(regions_, -1);
    for (int p : order) {
      if (partitions_[static_cast<std::size_t>(p)].virtual_channel != vc) continue;
      for (int region : region_ids_[static_cast<std::size_t>(p)])
        result.rank_of_region[static_cast<std::size_t>(region)] = result.ranks;
      ++result.ranks;
    }
    return result;
  }

 private:
  struct Candidate {
    std::size_t reachable = 0;
    std::uint64_t total = 0;  // permitted hops over the reachable pairs
    std::uint64_t serial = 0;
    std::vector<int> order;
    // The priority queue's "less": the top has the most reachable pairs,
    // then the smallest average length, then the longest order, then the oldest.
    friend bool operator<(const Candidate& a, const Candidate& b) {
      if (a.reachable != b.reachable) return a.reachable < b.reachable;
      const double left = static_cast<double>(a.total) * static_cast<double>(b.reachable);
      const double right = static_cast<double>(b.total) * static_cast<double>(a.reachable);
      if (left != right) return left > right;
      if (a.order.size() != b.order.size()) return a.order.size() < b.order.size();
      return a.serial > b.serial;
    }
  };

  void distances(const VcOrder& order, std::vector<std::uint16_t>& matrix) {
    const std::size_t n = nodes_.size();
    matrix.assign(n * n, kFar);
    if (order.ranks == 0) return;
    for (std::size_t s = 0; s < n; ++s) {
      search_.run(nodes_[s], order);
      for (std::size_t d = 0; d < n; ++d) matrix[s * n + d] = s == d ? 0 : search_.distance_to(nodes_[d]);
    }
  }

  const Space& space_;
  const std::vector<NodeId>& nodes_;
  const std::vector<Partition>& partitions_;
  int vcs_;
  std::vector<std::vector<int>> region_ids_;
  std::size_t regions_ = 0;
  PermittedSearch search_;
};

// The first order of `attempts` draws with `virtual_channels` VCs that
// reaches every pair: its partitions, and the order as indices.
struct FoundOrder {
  std::vector<Partition> partitions;
  std::vector<int> order;
  bool found() const { return !order.empty(); }
};

FoundOrder find_order(const Space& space, const std::vector<NodeId>& nodes, int virtual_channels,
                      std::uint64_t seed, int attempts) {
  for (int attempt = 0; attempt < attempts; ++attempt) {
    FoundOrder result;
    result.partitions = draw_partitions(space, virtual_channels, seed, attempt);
    OrderSearch search(space, nodes, result.partitions, virtual_channels);
    result.order = search.run();
    if (result.found()) return result;
  }
  return {};
}

// The search's cost in states visited, for its greedy descent (about
// |P|^2 / 2 single-VC evaluations of all sources).
double search_work(const Space& space, std::size_t sources, int virtual_channels) {
  const int n = space.dimensions();
  const double per_vc = n <= 1 ? 2.0 : static_cast<double>(std::size_t{1} << (n - 1));
  const double partitions = per_vc * virtual_channels;
  return static_cast<double>(sources) * static_cast<double>(space.node_count()) * per_vc * 2.0 * n *
         partitions * (partitions + 1) / 2;
}

class HiryGenerator final : public Generator {
 public:
  std::string_view name() const override { return "hiry"; }
  std::vector<OptionSpec> option_specs() const override { return {kPathsPerPairOption, kAttemptsOption}; }
  double peak_bytes(const MemoryContext& context, const GeneratorOptions& options) const override {
    const auto cap = static_cast<double>(option_integer(name(), kPathsPerPairOption, options));
    // Per pair two vectors, and per path a route (its object and its hops'
    // heap block) and the same path as channels (a vector and 4 bytes a
    // hop), with the allocator's 16 bytes a block; the searches' distance
    // matrices per virtual channel.  Measured peaks: a whole 8x8x8, 138 MiB
    // on one virtual channel and 189 on eight; a whole 4x4x4x4, 41 MiB on two
    // (bench/angara-sweep).
    return context.pairs * (64 + cap * (112 + 6 * context.mean_hops) + 2.0 * (context.layers + 2)) +
           context.live_nodes * 8.0 * 16;
  }
  RouteTable generate(const Network& network, const std::vector<NodeId>& allocation,
                      const GeneratorOptions& options) const override {
    return std::move(generate_multipath(network, allocation, options)->alternatives.front());
  }
  std::optional<MultiPathTable> generate_multipath(const Network& network, const std::vector<NodeId>& allocation,
                                                   const GeneratorOptions& options) const override;
};

std::optional<MultiPathTable> HiryGenerator::generate_multipath(const Network& network,
                                                                const std::vector<NodeId>& allocation,
                                                                const GeneratorOptions& options) const {
  const std::string generator(name());
  RouteTable empty = start_route_table(generator, network, allocation);  // checks the allocation
  empty.rules = options.rules;
  empty.flow_control = options.flow_control;
  const std::vector<NodeId> nodes = empty.nodes();
  const std::size_t n = nodes.size();
  const auto cap = static_cast<std::size_t>(option_integer(generator, kPathsPerPairOption, options));
  const int attempts = static_cast<int>(option_integer(generator, kAttemptsOption, options));
  const int allowed = std::clamp(options.virtual_channels, 1, kMaxLayers);
  MultiPathTable function;
  function.adaptivity = Adaptivity::source;
  function.algorithm = generator;
  if (n < 2) {
    function.alternatives.push_back(std::move(empty));
    return function;
  }
  const Torus& torus = network.torus();
  const Space space(network);

  // Pairs no path joins at all are no question of virtual channels.
  {
    PermittedSearch plain(space);
    VcOrder everything;
    everything.rank_of_region.assign(all_regions(space.dimensions()).size(), 0);
    everything.ranks = 1;
    std::vector<NodePair> cut;
    for (std::size_t s = 0; s < n; ++s) {
      plain.run(nodes[s], everything);
      for (std::size_t d = 0; d < n; ++d)
        if (d != s && plain.distance_to(nodes[d]) == kFar) cut.emplace_back(nodes[s], nodes[d]);
    }
    if (!cut.empty())
      throw RoutingError(generator + ": no live path from " + torus.format_coord(cut.front().first) + " to " +
                             torus.format_coord(cut.front().second) +
                             (cut.size() > 1 ? " (and " + std::to_string(cut.size() - 1) + " more pairs)" : ""),
                         cut, generator + ": no live path");
  }

  const double work = search_work(space, n, allowed);
  if (work > kMaxSearchWork)
    throw RoutingError(generator + ": ordering the partitions of " + std::to_string(allowed) +
                       " virtual channels for " + std::to_string(n) + " nodes of the " + torus.to_string() +
                       " machine would visit about " + std::to_string(static_cast<long long>(work)) +
                       " states, more than its limit of " + std::to_string(static_cast<long long>(kMaxSearchWork)) +
                       "; fewer virtual channels search less");
  FoundOrder found = find_order(space, nodes, allowed, options.seed, attempts);
  if (!found.found()) {
    // Alg. 4: how many virtual channels would make every pair reachable
    // (counted up to the format's 8, or as far as the search may go).
    int tried = allowed;
    for (int more = allowed + 1; more <= kMaxLayers; ++more) {
      if (search_work(space, n, more) > kMaxSearchWork) break;
      tried = more;
      if (find_order(space, nodes, more, options.seed, attempts).found())
        too_many_layers(generator, more, allowed, false);
    }
    too_many_layers(generator, tried, allowed, true);
  }
  std::vector<Partition> ordered;
  for (int p : found.order) ordered.push_back(found.partitions[static_cast<std::size_t>(p)]);
  const PartitionOrder theorem(ordered);  // throws if the theorem's condition failed
  (void)theorem;
  OrderSearch orders(space, nodes, found.partitions, allowed);
  std::vector<VcOrder> vc_orders;
  for (int vc = 0; vc < allowed; ++vc) vc_orders.push_back(orders.vc_order(found.order, vc));

  // Sec. IV-D: every pair's shortest permitted paths, on every VC where they are shortest.
  std::vector<std::vector<Route>> paths(n * n);
  std::vector<std::vector<std::vector<ChannelId>>> pair_channels(n * n);
  std::vector<NodePair> unencodable;
  std::vector<PermittedSearch> searches(static_cast<std::size_t>(allowed), PermittedSearch(space));
  std::vector<std::vector<ChannelId>> found_paths;
  for (std::size_t s = 0; s < n; ++s) {
    for (int vc = 0; vc < allowed; ++vc) searches[static_cast<std::size_t>(vc)].run(nodes[s], vc_orders[static_cast<std::size_t>(vc)]);
    for (std::size_t d = 0; d < n; ++d) {
      if (d == s) continue;
      std::uint16_t shortest = kFar;
      for (const PermittedSearch& search : searches) shortest = std::min(shortest, search.distance_to(nodes[d]));
      std::vector<Route>& routes = paths[s * n + d];
      for (int vc = 0; vc < allowed && routes.size() < cap; ++vc) {
        PermittedSearch& search = searches[static_cast<std::size_t>(vc)];
        if (search.distance_to(nodes[d]) != shortest) continue;
        found_paths.clear();
        const std::size_t scan = options.rules == RuleSet::angara ? std::max(cap, kEncodableScan) : cap;
        search.paths_to(nodes[d], vc_orders[static_cast<std::size_t>(vc)], scan, found_paths);
        for (const std::vector<ChannelId>& path : found_paths) {
          if (routes.size() >= cap) break;
          Route route;
          for (ChannelId c : path) route.hops.push_back(Torus::channel_direction(c));
          route.layer = static_cast<std::uint8_t>(vc);
          if (options.rules == RuleSet::angara && !is_angara_encodable(route.hops)) continue;
          routes.push_back(std::move(route));
          pair_channels[s * n + d].push_back(path);
        }
      }
      if (routes.empty()) unencodable.emplace_back(nodes[s], nodes[d]);
    }
  }
  if (!unencodable.empty())
    throw RoutingError(generator + ": no Angara-encodable path among the shortest permitted ones from " +
                           torus.format_coord(unencodable.front().first) + " to " +
                           torus.format_coord(unencodable.front().second) +
                           (unencodable.size() > 1 ? " (and " + std::to_string(unencodable.size() - 1) + " more pairs)" : "") +
                           "; routing.rules: general routes them",
                       unencodable, generator + ": no Angara-encodable permitted path");

  // Alternative 0: per pair the path whose channels carry the least load
  // (largest, then total), two passes over all pairs.
  std::vector<std::uint32_t> load(torus.channel_slots(), 0);
  std::vector<std::size_t> chosen(n * n, 0);
  const auto choose = [&](std::size_t p) {
    std::size_t best = 0;
    std::uint64_t best_max = std::numeric_limits<std::uint64_t>::max(), best_sum = best_max;
    for (std::size_t i = 0; i < pair_channels[p].size(); ++i) {
      std::uint64_t largest = 0, sum = 0;
      for (ChannelId c : pair_channels[p][i]) {
        largest = std::max<std::uint64_t>(largest, load[c]);
        sum += load[c];
      }
      if (largest < best_max || (largest == best_max && sum < best_sum)) {
        best = i;
        best_max = largest;
        best_sum = sum;
      }
    }
    chosen[p] = best;
    for (ChannelId c : pair_channels[p][best]) ++load[c];
  };
  for (std::size_t p = 0; p < n * n; ++p)
    if (!pair_channels[p].empty()) choose(p);
  for (std::size_t p = 0; p < n * n; ++p) {
    if (pair_channels[p].empty()) continue;
    for (ChannelId c : pair_channels[p][chosen[p]]) --load[c];
    choose(p);
  }

  std::size_t alternatives = 1;
  for (const std::vector<Route>& routes : paths) alternatives = std::max(alternatives, routes.size());
  for (std::size_t k = 0; k < alternatives; ++k) {
    RouteTable table = empty;
    for (std::size_t p = 0; p < n * n; ++p) {
      const std::vector<Route>& routes = paths[p];
      if (routes.empty()) continue;
      // The chosen path first, then the others in order.
      std::size_t i = k % routes.size();
      if (i == 0) i = chosen[p];
      else if (i <= chosen[p]) i -= 1;
      table.set_route(p / n, p % n, routes[i]);
    }
    function.alternatives.push_back(std::move(table));
  }
  return function;
}

}  // namespace

std::unique_ptr<Generator> create_hiry_generator() { return std::make_unique<HiryGenerator>(); }

}  // namespace angara
