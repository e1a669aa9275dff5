#include "placement/placement.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "placement/block_choice.hpp"
#include "placement/blocks.hpp"
#include "placement/slurm_order.hpp"
#include "routing/check/metrics.hpp"
#include "routing/common/oracle.hpp"
#include "routing/common/shortest_paths.hpp"

namespace angara {

namespace {

// Routing attempts before giving up when candidates keep failing (failed
// routers around every compact set): each costs one generator run.
constexpr std::size_t kMaxRoutingAttempts = 64;
// Seeds tried for nearest-node sets; above this many free nodes a stride
// sample is taken.
constexpr std::size_t kMaxSeeds = 512;
// On machines scored in closed form, seeds times the count stay below this
// (each seed walks out to `count` free nodes): 256 seeds for 256 nodes, 32
// for 2048, so that select stays within tens of milliseconds.
constexpr std::size_t kClosedFormSeedNodes = 65536;
// Blocks kept per shape class, and nearest-node sets kept: the best of each
// is compared, the others are fallbacks when candidates cannot be routed.
constexpr std::size_t kBlocksKept = 8;
constexpr std::size_t kNearestKept = 4;
// Nearest-node sets that compete with the leading blocks (the others are
// fallbacks): two, as on a fragmented machine they are most of the choice.
constexpr std::size_t kNearestLeading = 2;
// Candidates routed as configured after the scoring pass, and the largest
// machine where every candidate is routed as configured at once (see run()).
constexpr std::size_t kFullyRouted = 2;
constexpr NodeId kOnePassMaxNodes = 512;
// On those machines, candidates scored in closed form are routed only when
// the leading one's routing work (ordered pairs times mean distance, the
// hops balanced lays) is at most this: 4 sets scored and 2 routed as
// configured take about 20 ms for 16 scattered nodes of 8x8x8x8 (work
// 1500), 50 ms for 32 (6000); a 256-node scattered set (600 ms each) is
// chosen in closed form.
constexpr double kClosedFormRoutingWork = 500;
// Candidates listed when the choice is made in closed form.
constexpr std::size_t kClosedFormListed = 8;
// Best-fit runs along row-major orders other than the node order that are
// routed (the lowest intact bounds first).
constexpr std::size_t kOtherRunsRouted = 5;

class Selector {
 public:
  Selector(const Network& network, const PlacementRequest& request);
  PlacementResult run();

 private:
  bool is_free(NodeId node) const { return free_[node] != 0; }

  // Blocks of the shapes of one class, best first, at most kBlocksKept.
  std::vector<Candidate> free_blocks(const std::vector<Shape>& shapes);
  // The first `leaders` are one block of each of the best shape classes;
  // with `isolated_only`, of the isolated shape classes alone (whose bounds
  // are closed forms).
  std::vector<Candidate> block_candidates(std::size_t& leaders, bool isolated_only);
  // Scores a candidate without routing it (Candidate::closed_form).
  void score_closed_form(Candidate& candidate) const;
  // The result of a choice made in closed form among `scored`.
  PlacementResult closed_form_result(std::vector<Candidate> scored,
                                     std::chrono::steady_clock::time_point start) const;
  // Sets of the `count` free nodes nearest to a seed (the smallest cube
  // around it first, then torus distance), for when no block fits or a count
  // has no good block shape.  Kept: the few distinct sets with the least total
  // distance to their seed, least busy and best packed first.
  std::vector<Candidate> nearest_candidates();
  std::vector<Candidate> run_candidates() const;
  // routing.confine: the geometric choice under confinement (an exact block
  // of any shape, a box's staircase, a free staircase), if any.
  std::optional<Candidate> confined_choice();
  // Bounding box, intact bound and mean distance of a candidate that is not
  // a block.
  void measure_set(Candidate& candidate) const;
  // Taken or failed nodes next to a set, one per node and direction
  // (`member` is all zero scratch of one entry per node, left so).
  std::size_t set_contact(const std::vector<NodeId>& nodes, std::vector<unsigned char>& member) const;
  void route(Candidate& candidate, RouteTable& table, const GeneratorOptions& options) const;

  const Network& network_;
  const Torus& torus_;
  const PlacementRequest& request_;
  std::vector<unsigned char> free_;
  std::vector<std::uint32_t> busy_ports_;  // per node: channels leaving it that running jobs use
  std::size_t count_ = 0;
  BlockScanner scanner_;     // free blocks, their busy ports and contact
  std::size_t considered_ = 0;
  bool has_failures_ = false;
  bool closed_forms_ = false;  // scores_in_closed_form: region_bound instead of intact_bound
  std::size_t live_count_ = 0;
};

// "3 of 56 ordered pairs have no encodable route around the failures
// (routability oracle), first 0,1,0,0 -> 2,1,0,0".
std::string cut_off_text(const Torus& torus, const AllocationRoutability& routability) {
  const std::size_t n = routability.nodes.size();
  std::string text = std::to_string(routability.cut_off_pairs) + " of " + std::to_string(n * (n - 1)) +
                     " ordered pairs have no encodable route around the failures (routability oracle)";
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d)
      if (s != d && routability.at(s, d) < 0)
        return text + ", first " + torus.format_coord(routability.nodes[s]) + " -> " +
               torus.format_coord(routability.nodes[d]);
  return text;
}

std::vector<unsigned char> free_mask(const Network& network, const PlacementRequest& request) {
  const Torus& torus = network.torus();
  if (!request.free.empty() && request.free.size() != torus.node_count())
    throw std::invalid_argument("placement: free-node mask has the wrong size");
  std::vector<unsigned char> free(torus.node_count(), 0);
  for (NodeId node = 0; node < torus.node_count(); ++node)
    free[node] = network.node_alive(node) && (request.free.empty() || request.free.at(node) != 0);
  return free;
}

std::vector<std::uint32_t> busy_port_values(const Torus& torus, const PlacementRequest& request) {
  std::vector<std::uint32_t> ports(torus.node_count(), 0);
  if (request.busy.size() == torus.channel_slots())
    for (ChannelId c = 0; c < request.busy.size(); ++c)
      if (request.busy[c]) ++ports[Torus::channel_node(c)];
  return ports;
}

Selector::Selector(const Network& network, const PlacementRequest& request)
    : network_(network),
      torus_(network.torus()),
      request_(request),
      busy_ports_(busy_port_values(torus_, request)),
      scanner_(network, free_mask(network, request), busy_ports_) {
  if (!request.free.empty() && request.free.size() != torus_.node_count())
    throw std::invalid_argument("placement: free-node mask has the wrong size");
  if (!request.busy.empty() && request.busy.size() != torus_.channel_slots())
    throw std::invalid_argument("placement: busy-channel loads have the wrong size");
  has_failures_ = !network.failed_nodes().empty() || !network.failed_links().empty();
  closed_forms_ = scores_in_closed_form(torus_);
  free_.assign(torus_.node_count(), 0);
  for (NodeId node = 0; node < torus_.node_count(); ++node) {
    free_[node] = network.node_alive(node) && (request.free.empty() || request.free[node] != 0);
    live_count_ += network.node_alive(node);
  }
  count_ = request.node_count ? request.node_count : (request.shape ? shape_volume(*request.shape) : 0);
}

std::vector<Candidate> Selector::free_blocks(const std::vector<Shape>& shapes) {
  struct Found {
    std::int64_t busy;
    std::size_t contact;
    Shape shape;
    Coord origin;
  };
  const auto better = [](const Found& a, const Found& b) {
    return a.busy != b.busy ? a.busy < b.busy : a.contact > b.contact;
  };
  std::vector<Found> kept;  // sorted, best first
  for (const Shape& shape : shapes)
    scanner_.scan(shape, [&](const Coord& origin, std::int64_t busy_here, std::size_t contact) {
      if (kept.size() == kBlocksKept && busy_here > kept.back().busy) return;
      const Found found{busy_here, contact, shape, origin};
      if (kept.size() == kBlocksKept && !better(found, kept.back())) return;
      kept.insert(std::upper_bound(kept.begin(), kept.end(), found, better), found);
      if (kept.size() > kBlocksKept) kept.pop_back();
    });
  std::vector<Candidate> out;
  for (const Found& found : kept) {
    Candidate candidate;
    candidate.kind = CandidateKind::block;
    candidate.shape = found.shape;
    candidate.origin = found.origin;
    candidate.nodes = block_nodes(torus_, found.shape, found.origin);
    candidate.busy_ports = static_cast<std::size_t>(found.busy);
    candidate.contact = found.contact;
    out.push_back(std::move(candidate));
  }
  return out;
}

// The blocks to compare: the shape classes by their intact-machine bound,
// then mean distance; in each class its free blocks, least busy and best
// packed first.  One block of each of the first classes leads the list; the
// others follow as fallbacks.
std::vector<Candidate> Selector::block_candidates(std::size_t& leader_count, bool isolated_only) {
  std::vector<Shape> shapes;
  if (request_.shape) {
    shapes.push_back(*request_.shape);
  } else {
    shapes = shapes_of_volume(torus_, count_);
  }
  struct ShapeClass {
    IntactBound bound;
    bool isolated = false;
    std::vector<Shape> shapes;
  };
  const std::array<std::size_t, kMaxDims> channels = channels_per_dimension(Network(torus_));
  std::map<ShapeClassKey, ShapeClass> classes;
  for (const Shape& shape : shapes) {
    if (isolated_only && !isolated_shape(torus_, shape)) continue;
    auto [it, inserted] = classes.try_emplace(class_key(torus_, channels, shape));
    if (inserted) {
      it->second.isolated = isolated_shape(torus_, shape);
      // block_bound is a closed form for isolated shapes only.
      it->second.bound = it->second.isolated || !closed_forms_ ? block_bound(torus_, shape)
                                                               : region_bound(torus_, block_nodes(torus_, shape, Coord{}));
    }
    it->second.shapes.push_back(shape);
  }
  std::vector<const ShapeClass*> ranked;
  for (const auto& entry : classes) ranked.push_back(&entry.second);
  // Isolated shapes (every minimal route stays inside) first, then the
  // intact bound and mean distance.
  std::stable_sort(ranked.begin(), ranked.end(), [](const ShapeClass* a, const ShapeClass* b) {
    return std::make_tuple(!a->isolated, a->bound.bound, a->bound.distance) <
           std::make_tuple(!b->isolated, b->bound.bound, b->bound.distance);
  });

  std::vector<Candidate> leaders, rest;
  for (const ShapeClass* shape_class : ranked) {
    std::vector<Candidate> blocks = free_blocks(shape_class->shapes);
    if (blocks.empty()) continue;
    for (Candidate& block : blocks) {
      block.lower_bound = shape_class->bound.bound;
      block.average_distance = shape_class->bound.distance;
    }
    leaders.push_back(std::move(blocks.front()));
    for (std::size_t i = 1; i < blocks.size(); ++i) rest.push_back(std::move(blocks[i]));
    if (leaders.size() >= request_.route_limit) break;
  }
  leader_count = leaders.size();
  leaders.insert(leaders.end(), std::make_move_iterator(rest.begin()), std::make_move_iterator(rest.end()));
  return leaders;
}

std::size_t Selector::set_contact(const std::vector<NodeId>& nodes, std::vector<unsigned char>& member) const {
  std::size_t contact = 0;
  for (NodeId node : nodes) member[node] = 1;
  for (NodeId node : nodes)
    for (int rank = 0; rank < kDirectionCount; ++rank) {
      const Direction d(rank);
      if (!torus_.direction_present(d)) continue;
      const NodeId next = torus_.neighbor(node, d);
      if (!member[next] && !is_free(next)) ++contact;
    }
  for (NodeId node : nodes) member[node] = 0;
  return contact;
}

std::optional<Candidate> Selector::confined_choice() {
  BlockChoiceRequest request;
  request.node_count = count_;
  request.free = free_;
  request.busy_ports = busy_ports_;
  request.confined = true;
  const BlockChoice choice = choose_free_block(network_, request);
  considered_ += choice.considered;
  if (choice.blocks.empty()) return std::nullopt;
  const FreeBlock& block = choice.blocks.front();
  Candidate candidate;
  candidate.kind = choice.exact && !choice.staircase ? CandidateKind::block : CandidateKind::staircase;
  candidate.origin = block.origin;
  // A confined choice holds exactly the job's nodes (a box's staircase, or
  // a free staircase); an exact block holds them too.
  candidate.nodes = block.nodes;
  candidate.busy_ports = static_cast<std::size_t>(block.busy_ports);
  candidate.contact = block.contact;
  measure_set(candidate);
  if (candidate.kind == CandidateKind::block) candidate.shape = block.shape;
  return candidate;
}

void Selector::measure_set(Candidate& candidate) const {
  std::array<std::vector<char>, kMaxDims> used;
  for (int dim = 0; dim < kMaxDims; ++dim) used[dim].assign(static_cast<std::size_t>(torus_.size(dim)), 0);
  for (NodeId node : candidate.nodes) {
    const Coord c = torus_.coord(node);
    for (int dim = 0; dim < kMaxDims; ++dim) used[dim][c[dim]] = 1;
  }
  for (int dim = 0; dim < kMaxDims; ++dim)
    candidate.shape[dim] = static_cast<int>(std::count(used[dim].begin(), used[dim].end(), 1));
  const IntactBound bound =
      closed_forms_ ? region_bound(torus_, candidate.nodes) : intact_bound(torus_, candidate.nodes);
  candidate.lower_bound = bound.bound;
  candidate.average_distance = bound.distance;
}

// What Slurm itself would give along the node order and along the nested
// blocks (angara-route slurm-conf): routed first, so that select never
// picks a set worse than Slurm's own choice at this moment.
std::vector<Candidate> Selector::run_candidates() const {
  // Node order (X fastest) and the row-major orders of every other
  // permutation of the dimensions: a run of one is whole rings of its
  // fastest dimension, stacked along the next.
  std::vector<int> dims;  // slowest first
  for (int dim = kMaxDims - 1; dim >= 0; --dim)
    if (torus_.dim_present(dim)) dims.push_back(dim);
  std::vector<std::vector<NodeId>> orders;
  do {
    // An odometer over the coordinates, dims.back() fastest.
    std::vector<NodeId> order;
    order.reserve(torus_.node_count());
    Coord c{};
    while (true) {
      order.push_back(torus_.id(c));
      std::size_t i = dims.size();
      while (i > 0 && ++c[dims[i - 1]] == torus_.size(dims[i - 1])) c[dims[--i]] = 0;
      if (i == 0) break;
    }
    orders.push_back(std::move(order));
  } while (std::prev_permutation(dims.begin(), dims.end()));
  // Each distinct set is measured once (on an idle machine many orders give
  // the same block).
  std::vector<std::vector<NodeId>> seen;
  std::vector<unsigned char> member(torus_.node_count(), 0);
  const auto run_along = [&](const std::vector<NodeId>& order) {
    Candidate candidate;
    candidate.kind = CandidateKind::run;
    candidate.nodes = best_fit_run(order, free_, count_);
    if (candidate.nodes.size() != count_ || std::find(seen.begin(), seen.end(), candidate.nodes) != seen.end())
      return std::optional<Candidate>();
    seen.push_back(candidate.nodes);
    candidate.origin = torus_.coord(candidate.nodes.front());
    for (NodeId node : candidate.nodes) candidate.busy_ports += busy_ports_[node];
    candidate.contact = set_contact(candidate.nodes, member);
    measure_set(candidate);
    return std::optional<Candidate>(std::move(candidate));
  };
  // Slurm's own two (node order, nested blocks) are always routed; of the
  // other orders' runs, the few with the lowest intact bound.
  std::vector<Candidate> out, others;
  if (auto linear = run_along(orders.front())) out.push_back(std::move(*linear));
  for (std::size_t i = 1; i < orders.size(); ++i)
    if (auto run = run_along(orders[i])) others.push_back(std::move(*run));
  std::stable_sort(others.begin(), others.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.lower_bound, a.average_distance) < std::tie(b.lower_bound, b.average_distance);
  });
  if (others.size() > kOtherRunsRouted) others.erase(others.begin() + kOtherRunsRouted, others.end());
  out.insert(out.end(), std::make_move_iterator(others.begin()), std::make_move_iterator(others.end()));
  // The nested-block run even when an order above gave the same set: it is
  // Slurm's choice under slurm-conf (the pool drops the second copy).
  seen.clear();
  if (auto curve = run_along(nested_blocks(torus_).order)) out.push_back(std::move(*curve));
  return out;
}

std::vector<Candidate> Selector::nearest_candidates() {
  const NodeId n = torus_.node_count();
  // Offsets from node 0, each coordinate taken the short way round.
  struct Offset {
    int reach;
    int distance;
    Coord delta;
  };
  std::vector<Offset> offsets;
  offsets.reserve(n);
  for (NodeId node = 0; node < n; ++node) {
    const Coord c = torus_.coord(node);
    Offset offset{0, 0, {}};
    for (int dim = 0; dim < kMaxDims; ++dim) {
      const int size = torus_.size(dim);
      offset.delta[dim] = c[dim] <= size / 2 ? c[dim] : c[dim] - size;
      const int length = std::abs(offset.delta[dim]);
      offset.distance += length;
      offset.reach = std::max(offset.reach, length);
    }
    offsets.push_back(offset);
  }
  std::stable_sort(offsets.begin(), offsets.end(), [](const Offset& a, const Offset& b) {
    return std::tie(a.reach, a.distance) < std::tie(b.reach, b.distance);
  });

  std::vector<NodeId> seeds;
  for (NodeId node = 0; node < n; ++node)
    if (is_free(node)) seeds.push_back(node);
  const std::size_t max_seeds =
      closed_forms_ ? std::clamp<std::size_t>(kClosedFormSeedNodes / count_, 16, kMaxSeeds) : kMaxSeeds;
  if (seeds.size() > max_seeds) {
    std::vector<NodeId> sample;
    for (std::size_t i = 0; i < max_seeds; ++i) sample.push_back(seeds[i * seeds.size() / max_seeds]);
    seeds.swap(sample);
  }

  struct Scored {
    std::uint64_t spread;
    std::size_t busy_ports;
    std::size_t contact;
    std::vector<NodeId> nodes;  // sorted
    NodeId seed;
  };
  const auto better = [](const Scored& a, const Scored& b) {
    return std::make_tuple(a.spread, a.busy_ports, b.contact) < std::make_tuple(b.spread, b.busy_ports, a.contact);
  };
  std::vector<Scored> kept;  // best first, distinct sets
  std::vector<unsigned char> member(n, 0);
  for (NodeId seed : seeds) {
    const Coord origin = torus_.coord(seed);
    Scored scored{0, 0, 0, {}, seed};
    for (const Offset& offset : offsets) {
      Coord c;
      for (int dim = 0; dim < kMaxDims; ++dim) {
        const int size = torus_.size(dim);
        c[dim] = ((origin[dim] + offset.delta[dim]) % size + size) % size;
      }
      const NodeId node = torus_.id(c);
      if (!is_free(node)) continue;
      scored.nodes.push_back(node);
      scored.spread += static_cast<std::uint64_t>(offset.distance);
      if (scored.nodes.size() == count_) break;
    }
    ++considered_;
    if (kept.size() == kNearestKept && scored.spread > kept.back().spread) continue;
    for (NodeId node : scored.nodes) scored.busy_ports += busy_ports_[node];
    scored.contact = set_contact(scored.nodes, member);
    std::sort(scored.nodes.begin(), scored.nodes.end());
    if (kept.size() == kNearestKept && !better(scored, kept.back())) continue;
    // The same set from another seed: keep its better score.
    const auto same = std::find_if(kept.begin(), kept.end(), [&](const Scored& k) { return k.nodes == scored.nodes; });
    if (same != kept.end()) {
      if (!better(scored, *same)) continue;
      kept.erase(same);
    }
    kept.insert(std::upper_bound(kept.begin(), kept.end(), scored, better), std::move(scored));
    if (kept.size() > kNearestKept) kept.pop_back();
  }
  std::vector<Candidate> out;
  for (Scored& scored : kept) {
    Candidate candidate;
    candidate.kind = CandidateKind::nearest;
    candidate.origin = torus_.coord(scored.seed);
    candidate.nodes = std::move(scored.nodes);
    candidate.busy_ports = scored.busy_ports;
    candidate.contact = scored.contact;
    measure_set(candidate);
    out.push_back(std::move(candidate));
  }
  // Slurm's own two (node order, nested blocks) are always routed; of the
  // other orders' runs, the few with the lowest intact bound.
  if (out.size() > 2 + kOtherRunsRouted) {
    const auto first_other = out.begin() + 1, last_other = out.end() - 1;
    std::stable_sort(first_other, last_other, [](const Candidate& a, const Candidate& b) {
      return std::tie(a.lower_bound, a.average_distance) < std::tie(b.lower_bound, b.average_distance);
    });
    Candidate curve = std::move(out.back());
    out.erase(first_other + kOtherRunsRouted, out.end());
    out.push_back(std::move(curve));
  }
  return out;
}

void Selector::score_closed_form(Candidate& candidate) const {
  candidate.closed_form = true;
  candidate.routed = false;
  candidate.routable = true;
  candidate.estimate = false;
  candidate.shared_channels = 0;
  if (candidate.confined) {
    // routing.confine's choice: its routes will stay on its own routers and
    // their channels.
    candidate.foreign_routers = 0;
    std::vector<unsigned char> member(torus_.node_count(), 0);
    for (NodeId node : candidate.nodes) member[node] = 1;
    if (!request_.busy.empty())
      for (NodeId node : candidate.nodes)
        for (int rank = 0; rank < kDirectionCount; ++rank) {
          const Direction d(rank);
          if (torus_.direction_present(d) && network_.channel_alive(node, d) && member[torus_.neighbor(node, d)])
            candidate.shared_channels += request_.busy[Torus::channel(node, d)] != 0;
        }
  } else {
    const RouteRegion region = route_region(torus_, candidate.nodes);
    candidate.foreign_routers = shape_volume(region.shape) - candidate.nodes.size();
    if (!request_.busy.empty())
      for (ChannelId c : region_channels(network_, region)) candidate.shared_channels += request_.busy[c] != 0;
  }
  std::vector<unsigned char> scratch(torus_.node_count(), 0);
  candidate.contact = set_contact(candidate.nodes, scratch);
  candidate.max_gamma = candidate.lower_bound;
  candidate.average_hops = candidate.average_distance;
}

// The objective's key (see run()), on routed tables or closed forms.
auto objective_key(const Candidate& k) {
  return std::make_tuple(k.foreign_routers, k.shared_channels, -static_cast<std::int64_t>(k.contact), k.max_gamma,
                         k.average_hops, k.kind);
}

PlacementResult Selector::closed_form_result(std::vector<Candidate> scored,
                                             std::chrono::steady_clock::time_point start) const {
  std::stable_sort(scored.begin(), scored.end(),
                   [](const Candidate& a, const Candidate& b) { return objective_key(a) < objective_key(b); });
  if (scored.size() > kClosedFormListed) scored.resize(kClosedFormListed);
  PlacementResult result;
  result.routed = false;
  result.winner = 0;
  result.nodes = scored.front().nodes;
  result.compared = std::move(scored);
  result.considered = considered_ + scanner_.origins_scanned();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

// Routes a candidate and measures its table; the verifier runs on the
// winner only (run() below), so a losing candidate costs one generator run.
// When the generator cannot route a set on a machine with failures, the
// routability oracle says whether any generator could (a pair cut off by
// the failures); it runs only then, as its searches over the whole machine
// cost more than routing a set that routes.
void Selector::route(Candidate& candidate, RouteTable& table, const GeneratorOptions& options) const {
  candidate.routed = true;
  candidate.routable = false;
  candidate.closed_form = false;
  candidate.confined = false;
  // One measure of contact for every kind, so that blocks, nearest sets and
  // runs compare on it (the block scan's per-layer count only ranks blocks).
  std::vector<unsigned char> scratch(torus_.node_count(), 0);
  candidate.contact = set_contact(candidate.nodes, scratch);
  candidate.max_gamma = 0;
  candidate.shared_channels = 0;
  const std::unique_ptr<Generator> generator = make_generator(request_.algorithm);
  // routing.confine, as the prologue routes (routing/pipeline.cpp): on the
  // set's own routers alone first, when its own cables connect it.
  bool confined = false;
  if (request_.confine && candidate.nodes.size() < live_count_) {
    const Network own = confined_to(network_, candidate.nodes);
    if (connected(own, candidate.nodes)) {
      try {
        table = generator->generate(own, candidate.nodes, options);
        confined = true;
      } catch (const RoutingError&) {
        // No table there: on the live network, as the prologue does.
      }
    }
  }
  if (!confined) {
    try {
      table = generator->generate(network_, candidate.nodes, options);
    } catch (const RoutingError& error) {
      candidate.failure = error.what();
      if (has_failures_) {
        const AllocationRoutability routability = assess_routability(network_, candidate.nodes);
        if (!routability.all_routable()) candidate.failure = cut_off_text(torus_, routability);
      }
      return;
    }
  }
  table.algorithm = request_.algorithm;
  candidate.routable = true;
  candidate.confined = confined;
  const std::vector<std::uint64_t> loads = channel_loads(network_, table);
  // Routers outside the set that its routes cross: where other jobs' traffic
  // meets this job's (zero: the set is isolated).
  std::vector<unsigned char> member(torus_.node_count(), 0), foreign(torus_.node_count(), 0);
  for (NodeId node : candidate.nodes) member[node] = 1;
  candidate.foreign_routers = 0;
  for (ChannelId c = 0; c < loads.size(); ++c) {
    candidate.max_gamma = std::max(candidate.max_gamma, loads[c]);
    if (!loads[c]) continue;
    if (!request_.busy.empty() && request_.busy[c]) ++candidate.shared_channels;
    for (NodeId end : {Torus::channel_node(c), torus_.neighbor(Torus::channel_node(c), Torus::channel_direction(c))})
      if (!member[end] && !foreign[end]) {
        foreign[end] = 1;
        ++candidate.foreign_routers;
      }
  }
  std::uint64_t hops = 0, routes = 0;
  for (std::size_t s = 0; s < table.size(); ++s)
    for (std::size_t d = 0; d < table.size(); ++d)
      if (s != d) {
        hops += table.route(s, d).hops.size();
        ++routes;
      }
  candidate.average_hops = routes ? static_cast<double>(hops) / static_cast<double>(routes) : 0;
}

PlacementResult Selector::run() {
  const auto start = std::chrono::steady_clock::now();
  if (count_ == 0) throw PlacementError("a node count (or a shape) is needed");
  if (!make_generator(request_.algorithm))
    throw PlacementError("unknown routing algorithm '" + request_.algorithm + "' (valid: " + generator_names() + ")");
  if (request_.shape && shape_volume(*request_.shape) != count_)
    throw PlacementError("shape " + format_shape(torus_, *request_.shape) + " has " +
                         std::to_string(shape_volume(*request_.shape)) + " nodes, not " + std::to_string(count_));
  const std::size_t free_count = static_cast<std::size_t>(std::count(free_.begin(), free_.end(), 1));
  if (free_count < count_)
    throw PlacementError(std::to_string(count_) + " nodes asked, only " + std::to_string(free_count) +
                         " free live nodes on the " + torus_.to_string() + " machine");

  // On large machines, an isolated block without a failed cable inside is
  // chosen in closed form: its routes stay on its routers (no other set
  // can do better on the objective's first item), its bound is its shape's,
  // and its shared channels are the busy ones between its routers.
  const bool closed_forms = closed_forms_;
  std::size_t leaders = 0;
  if (closed_forms) {
    std::vector<Candidate> isolated;
    for (Candidate& block : block_candidates(leaders, true))
      if (scanner_.failed_links_inside(block.shape, block.origin) == 0) {
        score_closed_form(block);
        isolated.push_back(std::move(block));
      }
    if (!isolated.empty()) return closed_form_result(std::move(isolated), start);
  }
  std::vector<Candidate> pool = block_candidates(leaders, false);
  if (request_.shape && pool.empty())
    throw PlacementError("no free block of shape " + format_shape(torus_, *request_.shape) + " on the " +
                         torus_.to_string() + " machine");
  // The leading blocks and nearest sets compete on their bound; the
  // remaining blocks and sets stay behind them as fallbacks.
  if (!request_.shape) {
    std::vector<Candidate> nearest = nearest_candidates();
    if (!nearest.empty()) {
      const std::size_t lead = std::min<std::size_t>(kNearestLeading, nearest.size());
      pool.insert(pool.begin() + static_cast<std::ptrdiff_t>(leaders), std::make_move_iterator(nearest.begin()),
                  std::make_move_iterator(nearest.begin() + static_cast<std::ptrdiff_t>(lead)));
      leaders += lead;
      pool.insert(pool.end(), std::make_move_iterator(nearest.begin() + static_cast<std::ptrdiff_t>(lead)),
                  std::make_move_iterator(nearest.end()));
    }
  }
  std::stable_sort(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(leaders),
                   [](const Candidate& a, const Candidate& b) {
                     return std::make_tuple(a.lower_bound, a.kind, a.average_distance, a.busy_ports, b.contact) <
                            std::make_tuple(b.lower_bound, b.kind, b.average_distance, b.busy_ports, a.contact);
                   });
  // routing.confine: the confined choice leads (its routes are computed
  // on its own routers, so it is isolated whatever its shape).
  if (request_.confine && !request_.shape)
    if (std::optional<Candidate> confined = confined_choice()) {
      confined->confined = closed_forms;  // scored as confined (a routed one says so itself)
      pool.insert(pool.begin(), std::move(*confined));
      ++leaders;
    }
  std::size_t runs = 0;
  if (!request_.shape && request_.compare_slurm_runs) {
    std::vector<Candidate> slurm_runs = run_candidates();
    runs = slurm_runs.size();
    pool.insert(pool.begin(), std::make_move_iterator(slurm_runs.begin()), std::make_move_iterator(slurm_runs.end()));
    leaders += runs;
  }
  // A set already in the pool (a nearest set or a run that is a block) goes.
  // A run that is a block keeps its place and takes the block's name.
  std::map<std::vector<NodeId>, std::size_t> seen;  // nodes -> index in unique
  std::vector<Candidate> unique;
  std::size_t unique_leaders = 0;
  for (std::size_t i = 0; i < pool.size(); ++i) {
    const auto [it, inserted] = seen.try_emplace(pool[i].nodes, unique.size());
    if (!inserted) {
      Candidate& kept = unique[it->second];
      if (kept.kind == CandidateKind::run && pool[i].kind == CandidateKind::block) {
        kept.kind = CandidateKind::block;
        kept.shape = pool[i].shape;
        kept.origin = pool[i].origin;
        kept.contact = pool[i].contact;
      }
      continue;
    }
    unique.push_back(std::move(pool[i]));
    if (i < leaders) ++unique_leaders;
  }
  pool.swap(unique);
  // Fallback blocks (more of a class already compared) are routed only
  // while nothing could be.
  std::size_t compare = std::min(unique_leaders, request_.route_limit + runs);
  // Large machines: every candidate scored in closed form, best first; the
  // leading few are routed only when that is cheap, else the closed-form
  // best is the choice.
  if (closed_forms && !pool.empty()) {
    for (Candidate& candidate : pool) score_closed_form(candidate);
    std::stable_sort(pool.begin(), pool.end(),
                     [](const Candidate& a, const Candidate& b) { return objective_key(a) < objective_key(b); });
    const double pairs = static_cast<double>(count_) * static_cast<double>(count_ - 1);
    if (pairs * pool.front().average_distance > kClosedFormRoutingWork) return closed_form_result(std::move(pool), start);
    compare = std::min(pool.size(), kFullyRouted);
  }
  const bool routing_few = closed_forms;

  // Two passes on large machines when the generator has a cheaper setting
  // (Generator::scoring_options: balanced in direction order, a few
  // milliseconds): every candidate is scored with it, and only the
  // kFullyRouted best are routed as configured (balanced's First/Last Step
  // stage costs some 60 ms for a 32-node set of a 4096-node machine); the
  // winner is the best of those.  The scoring pass cannot see what the
  // configured routing gains, so small machines, where routing every
  // candidate as configured is cheap, route once.
  GeneratorOptions scoring = request_.generator_options;
  const std::unique_ptr<Generator> engine = make_generator(request_.algorithm);
  const std::optional<GeneratorOptions> cheaper =
      engine && torus_.node_count() > kOnePassMaxNodes ? engine->scoring_options(scoring) : std::nullopt;
  // The closed-form best two are routed as configured at once.
  const bool two_passes = cheaper.has_value() && !routing_few;
  if (two_passes) scoring = *cheaper;
  // The machine-wide objective (block_choice.hpp), on the routed tables:
  // isolated (no router outside the set on its routes) first, else the
  // fewest such routers, then channels
  // shared with running jobs, then what the set leaves for later jobs (taken
  // or failed nodes right outside it: it fills a hole instead of cutting the
  // free space), then its routed max gamma and shorter mean route; on a tie
  // a block before a nearest set, then the earlier candidate.
  const auto key = [](const Candidate& k) { return objective_key(k); };

  PlacementResult result;
  std::vector<RouteTable> tables;  // of result.compared
  std::size_t next = 0;
  const auto routable_left = [&result] {
    return std::any_of(result.compared.begin(), result.compared.end(), [](const Candidate& c) { return c.routable; });
  };
  while (true) {
    while (next < pool.size() && next < kMaxRoutingAttempts && (next < compare || !routable_left())) {
      tables.emplace_back();
      route(pool[next], tables.back(), scoring);
      pool[next].estimate = two_passes;
      result.compared.push_back(std::move(pool[next++]));
    }
    // The best few scored ones, routed as configured (once each).
    if (two_passes) {
      std::vector<std::size_t> order;
      for (std::size_t i = 0; i < result.compared.size(); ++i)
        if (result.compared[i].routable) order.push_back(i);
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return key(result.compared[a]) < key(result.compared[b]);
      });
      std::size_t final_routed = 0;
      for (std::size_t i : order) {
        if (final_routed == kFullyRouted) break;
        Candidate& c = result.compared[i];
        if (c.estimate) {
          c.estimated_gamma = c.max_gamma;
          route(c, tables[i], request_.generator_options);
          c.estimate = false;
        }
        final_routed += c.routable;
      }
    }
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < result.compared.size(); ++i) {
      const Candidate& c = result.compared[i];
      if (c.routable && !c.estimate && (!best || key(c) < key(result.compared[*best]))) best = i;
    }
    if (!best) {
      if (routable_left()) continue;  // scored ones are left: route the next best as configured
      const std::string reason = result.compared.empty() ? "no candidate" : result.compared.back().failure;
      throw RoutingError("none of the " + std::to_string(result.compared.size()) + " candidate sets of " +
                         std::to_string(count_) + " nodes could be routed (last: " + reason + ")");
    }
    result.report = verify(network_, tables[*best], request_.verify_options);
    if (result.report.ok()) {
      result.winner = *best;
      result.table = std::move(tables[*best]);
      break;
    }
    Candidate& rejected = result.compared[*best];
    rejected.routable = false;
    rejected.failure = std::string("rejected by the verifier: ") + rule_name(result.report.violations.front().rule) +
                       ": " + result.report.violations.front().message;
  }
  result.nodes = result.compared[result.winner].nodes;
  result.considered = considered_ + scanner_.origins_scanned();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace

const char* candidate_kind_name(CandidateKind kind) {
  switch (kind) {
    case CandidateKind::block: return "block";
    case CandidateKind::nearest: return "nearest";
    case CandidateKind::run: return "run";
    case CandidateKind::staircase: return "staircase";
  }
  return "?";
}

bool scores_in_closed_form(const Torus& torus) { return torus.node_count() > kOnePassMaxNodes; }

void add_region_channels(const Network& network, const std::vector<NodeId>& job, std::vector<std::uint64_t>& busy) {
  busy.resize(network.torus().channel_slots(), 0);
  if (job.empty()) return;
  for (ChannelId c : region_channels(network, route_region(network.torus(), job))) ++busy[c];
}

PlacementResult select_nodes(const Network& network, const PlacementRequest& request) {
  return Selector(network, request).run();
}

void add_busy_channels(const Network& network, const RouteTable& table, std::vector<std::uint64_t>& busy) {
  busy.resize(network.torus().channel_slots(), 0);
  const std::vector<std::uint64_t> loads = channel_loads(network, table);
  for (std::size_t c = 0; c < loads.size() && c < busy.size(); ++c) busy[c] += loads[c];
}

}  // namespace angara
