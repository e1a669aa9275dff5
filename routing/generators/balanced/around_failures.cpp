// Stage 0 of the balanced generator for a whole torus with a few failures
// (around_failures.hpp).
#include "routing/generators/balanced/around_failures.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "routing/common/candidates.hpp"
#include "routing/common/checked_turns.hpp"
#include "routing/generators/balanced/balancer.hpp"
#include "routing/generators/balanced/sub_torus.hpp"

namespace angara::balanced {

namespace {

// Stage 1 for the pairs without a route yet (choice kUnset): most
// constrained first, each taking the candidate of the lowest (peak load it
// would create, added load^4), as Balancer::assign_greedy() does for all.
constexpr std::uint32_t kUnset = 0xFFFFFFFFu;

// The budget's steps (routing/common/work_budget.hpp) the search over every
// pair costs a pair before it starts: its candidates, the start and the
// balancer's index (0.45 s for the 1M pairs of 8x8x4x4 with one failed
// router, at WorkBudget::kStepsPerSecond).
constexpr std::uint64_t kSetUpWorkPerPair = 13;

// Of `count` options (option k's channels: channels_of(k)), the one whose
// routing adds least: the lowest peak load it would create, then the least
// growth of the summed fourth powers of the loads.
template <typename ChannelsOf, typename Load>
std::size_t least_loaded_option(std::size_t count, ChannelsOf&& channels_of, const std::vector<Load>& loads) {
  const auto fourth = [](std::uint64_t x) { return x * x * x * x; };
  std::size_t best = 0;
  std::uint64_t best_peak = 0, best_spread = 0;
  for (std::size_t v = 0; v < count; ++v) {
    std::uint64_t peak = 0, spread = 0;
    bool beaten = false;  // its peak is above the best one's already: it cannot win
    for (ChannelId c : channels_of(v)) {
      const std::uint64_t load = loads[c];
      peak = std::max(peak, load + 1);
      if (v > 0 && peak > best_peak) {
        beaten = true;
        break;
      }
      spread += fourth(load + 1) - fourth(load);
    }
    if (beaten) continue;
    if (v == 0 || peak < best_peak || (peak == best_peak && spread < best_spread)) {
      best = v;
      best_peak = peak;
      best_spread = spread;
    }
  }
  return best;
}

void assign_greedy_remaining(const CandidateSet& set, std::vector<std::uint32_t>& choice,
                             std::vector<std::uint64_t>& loads) {
  // Sorted by (fewest candidates, longest first route, pair) as one key.
  std::vector<std::pair<std::uint64_t, std::size_t>> keyed;
  for (std::size_t p = 0; p < set.pair_count(); ++p)
    if (choice[p] == kUnset && set.variants(p) > 0)
      keyed.emplace_back(static_cast<std::uint64_t>(set.variants(p)) << 32 |
                             (0xFFFFFFFFu - static_cast<std::uint32_t>(set.channels(p, 0).size())),
                         p);
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::size_t> order(keyed.size());
  for (std::size_t k = 0; k < keyed.size(); ++k) order[k] = keyed[k].second;
  keyed = {};
  for (std::size_t p : order) {
    const auto best = static_cast<std::uint32_t>(least_loaded_option(
        set.variants(p), [&](std::size_t v) { return set.channels(p, static_cast<std::uint32_t>(v)); }, loads));
    choice[p] = best;
    for (ChannelId c : set.channels(p, best)) ++loads[c];
  }
}

// Every node within `radius` hops of a failed router or of an end of a
// failed cable (over the torus's cables, failed or not).
std::vector<unsigned char> near_failures(const Network& network, int radius) {
  const Torus& torus = network.torus();
  std::vector<unsigned char> near(torus.node_count(), 0);
  std::vector<NodeId> frontier, next;
  const auto mark = [&](NodeId node) {
    if (near[node]) return;
    near[node] = 1;
    frontier.push_back(node);
  };
  for (NodeId node : network.failed_nodes()) mark(node);
  for (ChannelId c : network.failed_links()) {
    mark(Torus::channel_node(c));
    mark(torus.neighbor(Torus::channel_node(c), Torus::channel_direction(c)));
  }
  for (int step = 0; step < radius; ++step) {
    next.clear();
    for (NodeId node : frontier)
      for (int rank = 0; rank < kDirectionCount; ++rank) {
        const Direction d(rank);
        if (!torus.direction_present(d)) continue;
        const NodeId to = torus.neighbor(node, d);
        if (!near[to]) {
          near[to] = 1;
          next.push_back(to);
        }
      }
    frontier.swap(next);
  }
  return near;
}

using Pair = std::pair<std::size_t, std::size_t>;  // allocation indices

// Stages 1-3 over every pair from the closed form: the start keeps every
// closed-form route that stays clear of the failures' neighbourhood (always
// a candidate: a minimal direction-order route) and assigns the others (cut
// by a failure, or passing next to one) greedily around them; the search
// balances every pair on half of what the budget has left.  Writes
// every route into `result` and lists the pairs the checked-turn stage is
// for (no candidate, or a detour).
void search_every_pair(const Network& network, const DisplacementRoutes& closed, const GeneratorOptions& options,
                       RouteTable& result, std::vector<Pair>& listed) {
  const Torus& torus = network.torus();
  const std::vector<NodeId>& nodes = result.nodes();
  const std::size_t n = nodes.size();
  const TurnRules rules(network);
  const CandidateSet set(network, rules, nodes, kCandidateCap, /*allow_unroutable=*/true);

  const std::vector<unsigned char> near = near_failures(network, kAroundFailuresRadius);
  std::vector<std::uint32_t> choice(set.pair_count(), kUnset), kept(set.pair_count(), kUnset);
  std::vector<std::uint64_t> loads(torus.channel_slots(), 0);
  std::vector<ChannelId> walk;
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      const std::size_t p = set.pair(s, d);
      if (s == d || set.variants(p) == 0) continue;
      walk.clear();
      bool alive = true, touches = near[nodes[s]] || near[nodes[d]];
      closed.walk(nodes[s], nodes[d], [&](NodeId at, Direction hop) {
        walk.push_back(Torus::channel(at, hop));
        alive = alive && network.channel_alive(at, hop);
        touches = touches || near[at];
      });
      if (!alive) continue;
      for (std::uint32_t v = 0; v < set.variants(p); ++v) {
        const ChannelSpan span = set.channels(p, v);
        if (span.size() == walk.size() && std::equal(span.begin(), span.end(), walk.begin())) {
          kept[p] = v;
          if (touches) break;  // assigned greedily below
          choice[p] = v;
          for (ChannelId c : walk) ++loads[c];
          break;
        }
      }
    }
  assign_greedy_remaining(set, choice, loads);
  for (std::uint32_t& v : choice)
    if (v == kUnset) v = 0;  // pairs without candidates: no route

  Balancer balancer(set, torus.channel_slots());
  balancer.assign(choice);
  WorkBudget* budget = options.budget.get();
  if (!budget || budget->unlimited()) {
    balancer.limit_work(budget);
    search(balancer, candidate_space_bound(set));
  } else {
    WorkBudget share(budget->left() / 2 + 1);
    balancer.limit_work(&share);
    search(balancer, candidate_space_bound(set));
    balancer.limit_work(nullptr);
    budget->spend(share.used());
    if (share.exhausted()) budget->note_cut("load balancing (stopped early)");
  }

  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      const std::size_t p = set.pair(s, d);
      if (s == d) continue;
      if (set.variants(p) == 0 || !set.minimal(p)) listed.emplace_back(s, d);
      if (set.variants(p) == 0) continue;
      const std::uint32_t v = balancer.choice()[p];
      if (v == kept[p])
        result.set_route(s, d, closed.word(nodes[s], nodes[d]));
      else
        result.set_route(s, d, Route{set.hops(p, v)});
    }
}

// The direction-order routes of every sign choice, the long way round
// rings included, that are alive, the shortest ones only: like every
// direction-order route they close no forbidden cycle with the others.
// Appended as append_minimal_route_channels() appends its routes; returns
// how many.
std::size_t append_shortest_live_dor_channels(const Network& network, NodeId src, NodeId dst,
                                              std::vector<ChannelId>& channels, std::vector<std::size_t>& bounds) {
  const Torus& torus = network.torus();
  const Coord from = torus.coord(src), to = torus.coord(dst);
  // Every sign choice's hop counts and length first, then the walks length
  // by length from the shortest, so only the choices that can be the
  // answer are walked (a failure cuts tens of thousands of pairs on a
  // whole 16x8x8x8).
  struct Choice {
    std::array<int, kDirectionCount> counts{};
    int length = 0;
  };
  std::array<int, kMaxDims> forwards{};  // the hops round each ring the positive way
  for (int dim = 0; dim < kMaxDims; ++dim) {
    const int size = torus.size(dim);
    forwards[static_cast<std::size_t>(dim)] = ((to[dim] - from[dim]) % size + size) % size;
  }
  std::array<Choice, 1u << kMaxDims> choices;
  std::size_t count = 0;
  for (unsigned signs = 0; signs < (1u << kMaxDims); ++signs) {
    Choice choice;
    bool valid = true;
    for (int dim = 0; dim < kMaxDims && valid; ++dim) {
      const int size = torus.size(dim);
      const int forward = forwards[static_cast<std::size_t>(dim)];
      const bool minus = (signs >> dim) & 1u;
      if (forward == 0) {
        valid = !minus;
        continue;
      }
      const int hops = minus ? size - forward : forward;
      choice.counts[Direction::make(dim, minus).rank()] = hops;
      choice.length += hops;
    }
    if (valid) choices[count++] = choice;
  }
  std::size_t added = 0;
  std::array<bool, 1u << kMaxDims> walked{};  // no allocation: this runs for every pair a failure cuts
  while (added == 0) {
    int length = -1;  // the shortest choice not walked yet
    for (std::size_t k = 0; k < count; ++k)
      if (!walked[k] && (length < 0 || choices[k].length < length)) length = choices[k].length;
    if (length < 0) break;
    for (std::size_t k = 0; k < count; ++k) {  // in sign order, as the routes are listed
      if (walked[k] || choices[k].length != length) continue;
      walked[k] = true;
      const std::size_t start = channels.size();
      Torus::Cursor at(torus, src);
      bool alive = true;
      for (int rank = 0; rank < kDirectionCount && alive; ++rank)
        for (int step = 0; step < choices[k].counts[rank] && alive; ++step) {
          const Direction hop(rank);
          alive = torus.direction_present(hop) && network.channel_alive(at.node(), hop);
          if (!alive) break;
          channels.push_back(Torus::channel(at.node(), hop));
          at.step(hop);
        }
      if (!alive) {
        channels.resize(start);
        continue;
      }
      bounds.push_back(channels.size());
      ++added;
    }
  }
  return added;
}

// The closed form's route of a pair depends on its displacement alone,
// and for the one class sub_torus_table() splits by source on the
// parity of the source's coordinate in that (even-sized) dimension.  So
// the pairs whose sources agree in the parity of every even-sized
// coordinate take the same route shapes, translated: the rows of one
// source per such parity class show every route there is.  The pairs a
// failure cuts, the channels' loads and the dependency counts of the
// whole table follow from those few rows (16 on 8x8x8x8, against 4096)
// instead of from a walk over every pair's route.
class ParityClasses {
 public:
  explicit ParityClasses(const Torus& torus) : torus_(torus) {
    for (int dim = 0; dim < kMaxDims; ++dim)
      if (torus.dim_present(dim) && torus.size(dim) % 2 == 0) even_ |= 1u << dim;
  }
  unsigned of(const Coord& c) const {
    unsigned q = 0;
    for (int dim = 0; dim < kMaxDims; ++dim)
      if ((even_ >> dim) & 1u) q |= static_cast<unsigned>(c[dim] & 1) << dim;
    return q;
  }
  unsigned of(NodeId node) const { return of(torus_.coord(node)); }
  bool even(int dim) const { return ((even_ >> dim) & 1u) != 0; }
  // Every class: the subsets of the even-sized dimensions.
  std::vector<unsigned> all() const {
    std::vector<unsigned> classes;
    for (unsigned q = 0; q < (1u << kMaxDims); ++q)
      if ((q & ~even_) == 0) classes.push_back(q);
    return classes;
  }
  NodeId representative(unsigned q) const {
    Coord c{};
    for (int dim = 0; dim < kMaxDims; ++dim) c[dim] = static_cast<int>((q >> dim) & 1u);
    return torus_.id(c);
  }
  // a - b + c, coordinate-wise around the rings.
  Coord shifted(const Coord& a, const Coord& b, const Coord& c) const {
    Coord r{};
    for (int dim = 0; dim < kMaxDims; ++dim) {
      const int size = torus_.size(dim);
      r[dim] = ((a[dim] - b[dim] + c[dim]) % size + size) % size;
    }
    return r;
  }

 private:
  const Torus& torus_;
  unsigned even_ = 0;
};

// walk_dependencies() over the closed form's route from -> to.
template <typename OnChannel, typename OnDependency>
void walk_closed_dependencies(const DisplacementRoutes& closed, NodeId from, NodeId to, OnChannel&& on_channel,
                              OnDependency&& on_dependency) {
  hop_dependencies([&](auto&& hop) { closed.walk(from, to, hop); }, on_channel, on_dependency);
}

// The closed form's routes of every pair of the allocation (every live
// node) whose route the failures leave alive, written into `result` (a
// table over `nodes`, every word 0), their channel loads and, with
// `with_dependencies`, dependency counts as walk_route_dependencies() would
// count them (else edge_counts stays empty), and the pairs the failures
// cut, in (source, target) order.
std::vector<Pair> closed_form_start(const Network& network, const DisplacementRoutes& closed, const std::vector<NodeId>& nodes,
                                    RouteTable& result, RouteDependencies& counted, bool with_dependencies) {
  const Torus& torus = network.torus();
  const std::size_t n = nodes.size();
  const ParityClasses parity(torus);
  const std::vector<unsigned> classes = parity.all();
  constexpr std::uint32_t kAbsent = 0xFFFFFFFFu;
  std::vector<std::uint32_t> index(torus.node_count(), kAbsent);
  for (std::size_t k = 0; k < n; ++k) index[nodes[k]] = static_cast<std::uint32_t>(k);
  // The dead channels (failed cables, the ports of failed routers), by
  // direction: the tail of each, and its parity class.
  struct Tail {
    Coord at;
    unsigned parity;
  };
  std::array<std::vector<Tail>, kDirectionCount> dead;
  for (NodeId node = 0; node < torus.node_count(); ++node)
    for (int rank = 0; rank < kDirectionCount; ++rank)
      if (torus.direction_present(Direction(rank)) && !network.channel_alive(node, Direction(rank)))
        dead[static_cast<std::size_t>(rank)].push_back(Tail{torus.coord(node), parity.of(node)});

  // Per class of a channel's tail node: the load of each direction and the
  // count of each dependency (in direction, out direction) at it, over
  // every pair of the fault-free machine; and the cut pairs.  A route from
  // the representative of class q, translated to a source of class q,
  // crosses a node of the class of the one it crosses from there.
  const std::size_t class_slots = std::size_t{1} << kMaxDims;
  std::vector<std::array<std::uint32_t, kDirectionCount>> class_load(class_slots);
  std::vector<std::array<std::uint32_t, kDirectionCount * kDirectionCount>> class_edges(class_slots);
  std::vector<std::uint64_t> cut_keys;
  // The walk follows each route's runs with its coordinate and class in
  // hand: per hop, an index into the counts and, where a dead channel of
  // the hop's direction lies in the same class, its translate.
  for (unsigned q : classes) {
    const NodeId source = parity.representative(q);
    const Coord from = torus.coord(source);
    for (NodeId target = 0; target < torus.node_count(); ++target) {
      if (target == source) continue;
      const Coord to = torus.coord(target);
      Torus::Cursor here(torus, source, from);
      unsigned here_class = q;
      int previous = -1;  // the rank of the hop before, whose head is `here`
      RouteTable::for_each_packed_run(closed.word(from, to), [&](Direction hop, int count) {
        const int rank = hop.rank();
        const unsigned flip = parity.even(hop.dim()) ? 1u << hop.dim() : 0u;
        for (int k = 0; k < count; ++k) {
          if (previous >= 0) ++class_edges[here_class][static_cast<std::size_t>(previous * kDirectionCount + rank)];
          ++class_load[here_class][static_cast<std::size_t>(rank)];
          for (const Tail& tail : dead[static_cast<std::size_t>(rank)]) {
            // The translate tail - here + from is of class q (from's)
            // when tail and here agree in parity.
            if (tail.parity != here_class) continue;
            const Coord cut_source = parity.shifted(tail.at, here.coord(), from);
            const std::uint32_t s = index[torus.id(cut_source)];
            const std::uint32_t d = index[torus.id(parity.shifted(to, from, cut_source))];
            if (s != kAbsent && d != kAbsent) cut_keys.push_back(static_cast<std::uint64_t>(s) * n + d);
          }
          here.step(hop);
          here_class ^= flip;
          previous = rank;
        }
      });
    }
  }
  std::sort(cut_keys.begin(), cut_keys.end());
  cut_keys.erase(std::unique(cut_keys.begin(), cut_keys.end()), cut_keys.end());

  counted.loads.assign(torus.channel_slots(), 0);
  counted.edge_counts.clear();
  if (with_dependencies) counted.edge_counts.assign(static_cast<std::size_t>(torus.channel_slots()) * kDirectionCount, 0);
  for (NodeId node = 0; node < torus.node_count(); ++node) {
    const unsigned c = parity.of(node);
    for (int out = 0; out < kDirectionCount; ++out) {
      if (!torus.direction_present(Direction(out))) continue;
      counted.loads[Torus::channel(node, Direction(out))] = class_load[c][static_cast<std::size_t>(out)];
      for (int in = 0; in < kDirectionCount && with_dependencies; ++in) {
        const std::uint32_t edges = class_edges[c][static_cast<std::size_t>(in * kDirectionCount + out)];
        if (edges == 0) continue;
        const ChannelId entering = Torus::channel(torus.neighbor(node, Direction(in).opposite()), Direction(in));
        counted.edge_counts[static_cast<std::size_t>(entering) * kDirectionCount + static_cast<std::size_t>(out)] =
            edges;
      }
    }
  }
  // Less the routes the allocation does not hold: those from or to a
  // failed router, and the cut ones.
  const auto forget = [&](NodeId source, NodeId target) {
    if (!with_dependencies) {
      closed.walk(source, target, [&](NodeId at, Direction hop) { --counted.loads[Torus::channel(at, hop)]; });
      return;
    }
    walk_closed_dependencies(
        closed, source, target, [&](ChannelId c) { --counted.loads[c]; },
        [&](ChannelId c, Direction hop) {
          --counted.edge_counts[static_cast<std::size_t>(c) * kDirectionCount + static_cast<std::size_t>(hop.rank())];
        });
  };
  for (NodeId failed : network.failed_nodes())
    for (NodeId other = 0; other < torus.node_count(); ++other) {
      if (other == failed) continue;
      forget(failed, other);
      if (network.node_alive(other)) forget(other, failed);
    }
  for (std::uint64_t key : cut_keys) forget(nodes[key / n], nodes[key % n]);

  // The closed form's routes of the live routers (`result`'s nodes), less
  // the cut ones.
  closed.write(result);
  std::vector<Pair> cut;
  cut.reserve(cut_keys.size());
  for (std::uint64_t key : cut_keys) {
    cut.emplace_back(key / n, key % n);
    result.set_route(key / n, key % n, PackedRoute{0});
  }
  return cut;
}

// What every table needs, when the budget cannot pay for the search over
// every pair: the closed form wherever the failures leave it alive, and the
// pairs they cut on candidates chosen greedily (assign_cut_pairs).  The
// pairs still without a route, and the detours, are listed for the
// checked-turn stage, with the table's loads and, `with_dependencies`,
// dependency counts.
void route_cut_pairs(const Network& network, const DisplacementRoutes& closed, const std::vector<NodeId>& nodes,
                     RouteTable& result, std::vector<Pair>& listed, RouteDependencies& counted,
                     bool with_dependencies) {
  std::vector<Pair> cut = closed_form_start(network, closed, nodes, result, counted, with_dependencies);
  assign_cut_pairs(network, cut, result, counted);
  listed = std::move(cut);
}


}  // namespace

void assign_cut_pairs(const Network& network, const std::vector<Pair>& cut, RouteTable& result,
                      RouteDependencies& counted) {
  const std::vector<NodeId>& nodes = result.nodes();
  const std::vector<std::uint32_t>& loads = counted.loads;
  const TurnRules rules(network);
  // Every pair's candidates as channels, flat (a hundred thousand pairs
  // around two failed routers of 16x8x8x8): pair k's are the routes
  // first[k] .. first[k + 1] - 1, route r the channels bounds[r] ..
  // bounds[r + 1] - 1.
  std::vector<ChannelId> channels;
  std::vector<std::size_t> bounds{0};
  std::vector<std::size_t> first(cut.size() + 1, 0);
  for (std::size_t k = 0; k < cut.size(); ++k) {
    first[k] = bounds.size() - 1;
    const NodeId src = nodes[cut[k].first], dst = nodes[cut[k].second];
    if (append_minimal_route_channels(network, rules, src, dst, kCandidateCap, channels, bounds) == 0)
      append_shortest_live_dor_channels(network, src, dst, channels, bounds);
  }
  first[cut.size()] = bounds.size() - 1;
  const auto count = [&](std::size_t k) { return first[k + 1] - first[k]; };
  const auto route_of = [&](std::size_t r) {
    return ChannelSpan{channels.data() + bounds[r], channels.data() + bounds[r + 1]};
  };
  std::vector<std::size_t> order(cut.size());
  for (std::size_t k = 0; k < cut.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (count(a) != count(b)) return count(a) < count(b);
    return count(a) > 0 && route_of(first[a]).size() > route_of(first[b]).size();
  });
  Route route;  // one, its hops' storage reused pair after pair
  for (std::size_t k : order) {
    if (count(k) == 0) continue;  // the checked-turn stage routes it
    const std::size_t best =
        first[k] + least_loaded_option(count(k), [&](std::size_t v) { return route_of(first[k] + v); }, loads);
    route.hops.clear();
    const ChannelSpan chosen = route_of(best);
    for (std::size_t h = 0; h < chosen.size(); ++h) {
      ++counted.loads[chosen.first[h]];
      if (h > 0 && !counted.edge_counts.empty())
        ++counted.edge_counts[static_cast<std::size_t>(chosen.first[h - 1]) * kDirectionCount +
                              static_cast<std::size_t>(Torus::channel_direction(chosen.first[h]).rank())];
      route.hops.push_back(Torus::channel_direction(chosen.first[h]));
    }
    result.set_route(cut[k].first, cut[k].second, route);
  }
}

std::optional<CutPairsStart> cut_pairs_start(const Network& network, const std::vector<NodeId>& nodes) {
  const std::optional<DisplacementRoutes> closed = DisplacementRoutes::of_whole(network.torus());
  if (!closed) return std::nullopt;
  CutPairsStart start{RouteTable(nodes), {}, {}};
  route_cut_pairs(network, *closed, nodes, start.table, start.listed, start.dependencies, /*with_dependencies=*/true);
  return start;
}

bool routes_around_failures(bool faults, std::size_t nodes, std::size_t live_nodes, FlowControl rule) {
  return faults && rule == FlowControl::bubble && nodes >= 2 && nodes == live_nodes;
}

bool search_every_pair_affordable(const WorkBudget* budget, std::size_t nodes) {
  const std::uint64_t set_up = static_cast<std::uint64_t>(nodes) * nodes * kSetUpWorkPerPair;
  return !budget || budget->affords(2 * set_up);
}

bool around_failures_table(const Network& network, RouteTable& table, const GeneratorOptions& options) {
  const Torus& torus = network.torus();
  const std::size_t n = table.size();
  const bool faults = !network.failed_nodes().empty() || !network.failed_links().empty();
  // (The allocation's nodes are live and distinct: as many as the live
  // routers is all of them.)
  if (!routes_around_failures(faults, n, torus.node_count() - network.failed_nodes().size(), options.flow_control))
    return false;

  const std::optional<DisplacementRoutes> closed = DisplacementRoutes::of_whole(torus);
  if (!closed) return false;

  // The allocation's table, every word still 0 (start_route_table), is
  // written by the path taken: a second table of n^2 words (256 MiB on
  // 16x8x8x8) is not made.
  RouteTable result = std::move(table);
  const std::vector<NodeId>& nodes = result.nodes();
  std::vector<Pair> listed;
  RouteDependencies counted;
  // The search over every pair is optional work: its set-up is paid from
  // the budget like the search, and runs only when at least as much again
  // is left for the search itself.
  WorkBudget* budget = options.budget.get();
  if (search_every_pair_affordable(budget, n)) {
    if (budget) budget->spend(static_cast<std::uint64_t>(n) * n * kSetUpWorkPerPair);
    search_every_pair(network, *closed, options, result, listed);
  } else {
    budget->note_cut("load balancing (not run)");
    // The dependency counts serve the checked-turn stage's graph: a budget
    // already spent pays for no detour, and unless the candidates leave a
    // pair without a route the stage returns before it builds one, so they
    // are not counted then (on 16x8x8x8 with two failed routers, the walks
    // of 147 thousand cut pairs and of the failed routers' rows, and a
    // scattered update a hop of the cut pairs' routes); where such a pair
    // is left, the stage counts the table itself.
    route_cut_pairs(network, *closed, nodes, result, listed, counted, /*with_dependencies=*/budget->left() > 0);
  }
  try {
    complete_listed_pairs_with_checked_turns(result.algorithm, network, result, listed, options,
                                             counted.edge_counts.empty() ? nullptr : &counted);
  } catch (const RoutingError&) {
    // Untouched for the stages that follow: the allocation, no route.
    table = RouteTable(nodes);
    table.algorithm = result.algorithm;
    table.rules = result.rules;
    table.flow_control = result.flow_control;
    return false;
  }
  table = std::move(result);
  return true;
}

}  // namespace angara::balanced
