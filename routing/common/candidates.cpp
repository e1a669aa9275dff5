#include "routing/common/candidates.hpp"

#include <algorithm>
#include <stdexcept>
#include <cstdlib>
#include <array>
#include <memory>
#include <string>

#include "routing/common/dependency_graph.hpp"
#include "routing/common/generator_support.hpp"

namespace angara {

namespace {

constexpr std::uint8_t bit(Direction d) { return direction_bit(d); }

// The channel that arrives at `node` travelling in direction `d`.
ChannelId arriving_channel(const Torus& torus, NodeId node, Direction d) {
  return Torus::channel(torus.neighbor(node, d.opposite()), d);
}

// Highest direction in a non-empty mask: the last hop of a DOR middle.
Direction last_direction(unsigned mask) {
  int rank = kDirectionCount - 1;
  while (!((mask >> rank) & 1u)) --rank;
  return Direction(rank);
}

}  // namespace

bool route_is_usable(const Network& network, const TurnRules& rules, NodeId src,
                     const std::vector<Direction>& hops, std::vector<ChannelId>* channels) {
  const Torus& torus = network.torus();
  if (channels) channels->clear();
  NodeId at = src;
  ChannelId previous = 0;
  for (std::size_t i = 0; i < hops.size(); ++i) {
    const ChannelId c = Torus::channel(at, hops[i]);
    if (!hop_usable(network, rules, c, hops[i], i > 0 ? &previous : nullptr)) return false;
    if (channels) channels->push_back(c);
    previous = c;
    at = torus.neighbor(at, hops[i]);
  }
  return true;
}

// ---------------------------------------------------------------------------
// Minimal routes.

namespace {

using HopCounts = std::array<int, kDirectionCount>;

// Sign choices of a pair, lexicographic over X..K with + before -: at most
// two per dimension, so at most 16.
struct SignChoices {
  std::array<HopCounts, 1u << kMaxDims> counts;
  std::size_t size = 0;
};

void sign_choices(const Torus& torus, const Coord& from, const Coord& to, SignChoices& out) {
  std::array<std::array<std::pair<int, int>, 2>, kMaxDims> options{};  // (rank, count)
  std::array<int, kMaxDims> option_count{};
  for (int dim = 0; dim < kMaxDims; ++dim) {
    const int size = torus.size(dim);
    const int forward = ((to[dim] - from[dim]) % size + size) % size;
    if (forward == 0) continue;
    const int backward = size - forward;
    if (forward <= backward)
      options[dim][option_count[dim]++] = {Direction::make(dim, false).rank(), forward};
    if (backward <= forward)
      options[dim][option_count[dim]++] = {Direction::make(dim, true).rank(), backward};
  }
  out.size = 0;
  std::array<int, kMaxDims> pick{};
  while (true) {
    HopCounts& counts = out.counts[out.size++];
    counts.fill(0);
    for (int dim = 0; dim < kMaxDims; ++dim)
      if (option_count[dim]) counts[options[dim][pick[dim]].first] = options[dim][pick[dim]].second;
    // Odometer with K the fastest digit, so X varies slowest.
    int dim = kMaxDims - 1;
    for (; dim >= 0; --dim) {
      if (option_count[dim] > 1 && pick[dim] + 1 < option_count[dim]) {
        ++pick[dim];
        break;
      }
      pick[dim] = 0;
    }
    if (dim < 0) break;
  }
}

int first_rank(const HopCounts& counts) {
  for (int rank = 0; rank < kDirectionCount; ++rank)
    if (counts[rank]) return rank;
  return -1;
}

int last_rank(const HopCounts& counts) {
  for (int rank = kDirectionCount - 1; rank >= 0; --rank)
    if (counts[rank]) return rank;
  return -1;
}

// Every minimal Angara-encodable order of a pair's hops, in the order
// minimal_routes() offers them: the DOR route of each sign choice, then
// with a First Step P (one positive hop moved before a lower direction),
// with a Last Step M (one negative hop moved after a higher direction),
// and with both.  visit(p, rest, m) gets the First Step's rank (-1: none),
// the DOR middle's counts and the Last Step's rank (-1: none), and returns
// false to stop; without `turns` only the DOR routes are visited.
template <class Visit>
void for_each_minimal_order(const SignChoices& signs, bool turns, Visit visit) {
  for (std::size_t k = 0; k < signs.size; ++k)
    if (!visit(-1, signs.counts[k], -1)) return;
  if (!turns) return;
  for (std::size_t k = 0; k < signs.size; ++k)
    for (int p = 0; p < kMaxDims; ++p) {
      const HopCounts& counts = signs.counts[k];
      if (!counts[p] || p == first_rank(counts)) continue;
      HopCounts rest = counts;
      --rest[p];
      if (!visit(p, rest, -1)) return;
    }
  for (std::size_t k = 0; k < signs.size; ++k)
    for (int m = kMaxDims; m < kDirectionCount; ++m) {
      const HopCounts& counts = signs.counts[k];
      if (!counts[m] || m == last_rank(counts)) continue;
      HopCounts rest = counts;
      --rest[m];
      if (!visit(-1, rest, m)) return;
    }
  for (std::size_t k = 0; k < signs.size; ++k)
    for (int p = 0; p < kMaxDims; ++p) {
      const HopCounts& counts = signs.counts[k];
      if (!counts[p] || p == first_rank(counts)) continue;
      for (int m = kMaxDims; m < kDirectionCount; ++m) {
        if (!counts[m] || m == last_rank(counts)) continue;
        HopCounts rest = counts;
        --rest[p];
        --rest[m];
        if (!visit(p, rest, m)) return;
      }
    }
}

}  // namespace

std::size_t append_minimal_route_channels(const Network& network, const TurnRules& rules, NodeId src, NodeId dst,
                                          std::size_t cap, std::vector<ChannelId>& channels,
                                          std::vector<std::size_t>& bounds) {
  if (src == dst || cap == 0) return 0;
  const Torus& torus = network.torus();
  const Coord from = torus.coord(src);
  SignChoices signs;
  sign_choices(torus, from, torus.coord(dst), signs);
  const std::size_t first_bound = bounds.size() - 1;  // this pair's first route starts at bounds[first_bound]
  std::size_t added = 0;

  // Walks the order's route (First Step p, the direction-order runs of
  // `rest`, Last Step m; -1 for none) onto the end of `channels`, straight
  // from the counts; keeps it when it is usable and not one of this pair's
  // routes already.
  const auto offer = [&](int p, const HopCounts& rest, int m) {
    const std::size_t start = channels.size();
    Torus::Cursor at(torus, src, from);
    bool usable = true;
    const auto step = [&](Direction hop) {
      const ChannelId c = Torus::channel(at.node(), hop);
      if (!hop_usable(network, rules, c, hop, channels.size() > start ? &channels.back() : nullptr)) {
        usable = false;
        return;
      }
      channels.push_back(c);
      at.step(hop);
    };
    if (p >= 0) step(Direction(p));
    for (int rank = 0; rank < kDirectionCount && usable; ++rank)
      for (int k = 0; k < rest[static_cast<std::size_t>(rank)] && usable; ++k) step(Direction(rank));
    if (m >= 0 && usable) step(Direction(m));
    if (!usable) {
      channels.resize(start);
      return;
    }
    const std::size_t length = channels.size() - start;
    for (std::size_t k = first_bound; k + 1 < bounds.size(); ++k)
      if (bounds[k + 1] - bounds[k] == length &&
          std::equal(channels.begin() + static_cast<std::ptrdiff_t>(bounds[k]),
                     channels.begin() + static_cast<std::ptrdiff_t>(bounds[k + 1]),
                     channels.begin() + static_cast<std::ptrdiff_t>(start))) {
        channels.resize(start);
        return;
      }
    bounds.push_back(channels.size());
    ++added;
  };

  // Without any allowed turn an FS/LS order is either the DOR order itself
  // or needs a turn, so only the DOR routes exist.
  for_each_minimal_order(signs, rules.turns_possible(), [&](int p, const HopCounts& rest, int m) {
    offer(p, rest, m);
    return added < cap;
  });
  return added;
}

std::vector<std::vector<Direction>> minimal_routes(const Network& network, const TurnRules& rules,
                                                   NodeId src, NodeId dst, std::size_t cap) {
  std::vector<ChannelId> channels;
  std::vector<std::size_t> bounds{0};
  const std::size_t count = append_minimal_route_channels(network, rules, src, dst, cap, channels, bounds);
  std::vector<std::vector<Direction>> out(count);
  for (std::size_t k = 0; k < count; ++k)
    for (std::size_t h = bounds[k]; h < bounds[k + 1]; ++h) out[k].push_back(Torus::channel_direction(channels[h]));
  return out;
}

// ---------------------------------------------------------------------------
// Shortest encodable routes by BFS over (node, route state).
//
// Stages: 0 = at the source, nothing sent; 1 + P = after a First Step P;
// 5 + mask = inside the DOR middle having used the directions in `mask`
// (its highest direction is the last hop).  A Last Step ends the route and is
// recorded per node (ls_dist_).

namespace {
constexpr int kBegin = 0;
constexpr int kFirstStep = 1;
constexpr int kMiddle = 5;

// The numbering of the DOR middle's masks (ShortestRouteSearch::kStages):
// the valid masks, 3^4 (no dimension with both signs), in ascending order.
constexpr int kMiddleMasks = 81;
struct MiddleNumbering {
  std::array<std::int16_t, 256> stage{};  // by mask: kMiddle + its number, -1 if both signs of a dimension
  std::array<std::uint8_t, kMiddleMasks> mask{};  // by number
  MiddleNumbering() {
    int next = 0;
    for (unsigned m = 0; m < 256; ++m) {
      bool valid = true;
      for (int rank = 0; rank < kDirectionCount; ++rank)
        if ((m & bit(Direction(rank))) && (m & bit(Direction(rank).opposite()))) valid = false;
      stage[m] = static_cast<std::int16_t>(valid ? kMiddle + next : -1);
      if (valid) mask[static_cast<std::size_t>(next++)] = static_cast<std::uint8_t>(m);
    }
  }
};
const MiddleNumbering& middle_numbering() {
  static const MiddleNumbering numbering;
  return numbering;
}
int middle_stage(unsigned mask) { return middle_numbering().stage[mask]; }
unsigned middle_mask(int stage) { return middle_numbering().mask[static_cast<std::size_t>(stage - kMiddle)]; }

// The moves of a DOR middle, by its stage: the directions that continue it
// (no lower than its last, not the reverse of one used) into the stage
// `next`, and the negative ones that may end it as a Last Step (the
// others, when the turn after `last` is allowed).
struct MiddleMoves {
  std::uint8_t continuing = 0, last_steps = 0;
  Direction last;
  std::array<std::int16_t, kDirectionCount> next{};
};
const MiddleMoves& middle_moves(int stage) {
  static const auto moves = [] {
    std::array<MiddleMoves, kMiddle + kMiddleMasks> table{};
    for (int at = kMiddle + 1; at < kMiddle + kMiddleMasks; ++at) {
      const unsigned mask = middle_mask(at);
      MiddleMoves& m = table[static_cast<std::size_t>(at)];
      m.last = last_direction(mask);
      for (int rank = 0; rank < kDirectionCount; ++rank) {
        const Direction d(rank);
        if (m.last <= d && !(mask & bit(d.opposite()))) {
          m.continuing |= bit(d);
          m.next[static_cast<std::size_t>(rank)] = static_cast<std::int16_t>(middle_stage(mask | bit(d)));
        } else if (d.negative()) {
          m.last_steps |= bit(d);
        }
      }
    }
    return table;
  }();
  return moves[static_cast<std::size_t>(stage)];
}

struct Successor {
  int stage;
  bool last_step;
};

// Fills up to two successors of (node, stage) for a hop in direction d over
// a live channel; returns how many.
int successors(const Torus& torus, const TurnRules& rules, NodeId node, int stage, Direction d,
                      Successor out[2]) {
  int n = 0;
  if (stage == kBegin) {
    out[n++] = {middle_stage(bit(d)), false};
    if (d.positive()) out[n++] = {kFirstStep + d.rank(), false};
    return n;
  }
  const auto arriving = [&](Direction in) { return [&torus, node, in] { return arriving_channel(torus, node, in); }; };
  if (stage < kMiddle) {
    const Direction first(stage - kFirstStep);
    if (rules.step_allowed_after(first, d, arriving(first))) out[n++] = {middle_stage(bit(d)), false};
    return n;
  }
  const MiddleMoves& moves = middle_moves(stage);
  if (moves.continuing & bit(d))
    out[n++] = {moves.next[static_cast<std::size_t>(d.rank())], false};
  else if ((moves.last_steps & bit(d)) && rules.step_allowed_after(moves.last, d, arriving(moves.last)))
    out[n++] = {-1, true};
  return n;
}

}  // namespace

std::vector<NodeId> live_channel_heads(const Network& network) {
  const Torus& torus = network.torus();
  std::vector<NodeId> head(torus.channel_slots(), kNoNode);
  for (ChannelId c = 0; c < torus.channel_slots(); ++c)
    if (network.channel_alive(c)) head[c] = torus.neighbor(Torus::channel_node(c), Torus::channel_direction(c));
  return head;
}

ShortestRouteSearch::ShortestRouteSearch(const Network& network, const TurnRules& rules, NodeId src,
                                         const std::vector<NodeId>& targets, const std::vector<NodeId>* heads)
    : network_(network),
      rules_(rules),
      src_(src),
      dist_(std::size_t(network.torus().node_count()) * kStages, -1),
      reached_(network.torus().node_count(), -1),
      ls_dist_(network.torus().node_count(), -1) {
  const Torus& torus = network.torus();
  std::vector<NodeId> own_heads;
  if (!heads) {
    own_heads = live_channel_heads(network);
    heads = &own_heads;
  }
  // The router a hop from `node` in d reaches over a live channel, or kNoNode.
  const auto hop_to = [heads](NodeId node, Direction d) { return (*heads)[Torus::channel(node, d)]; };

  std::vector<std::pair<NodeId, int>> frontier{{src, kBegin}}, next;
  dist_[state(src, kBegin)] = 0;
  for (int depth = 0; !frontier.empty(); ++depth) {
    next.clear();
    const auto hops = static_cast<std::int16_t>(depth + 1);
    const auto reach = [&](NodeId to, int stage) {
      std::int16_t& slot = dist_[state(to, stage)];
      if (slot >= 0) return;
      slot = hops;
      if (reached_[to] < 0) reached_[to] = hops;  // layer by layer: the first is the shortest
      next.emplace_back(to, stage);
    };
    for (const auto& [node, stage] : frontier) {
      if (stage == kBegin) {
        for (int rank = 0; rank < kDirectionCount; ++rank) {
          const Direction d(rank);
          const NodeId to = hop_to(node, d);
          if (to == kNoNode) continue;
          reach(to, middle_stage(bit(d)));
          if (d.positive()) reach(to, kFirstStep + d.rank());
        }
      } else {
        // After a First Step or a DOR middle: the hops its last direction
        // allows (the channel it arrived on found once, and only for the
        // turns the augmentation decides).
        const bool first_step = stage < kMiddle;
        const MiddleMoves* moves = first_step ? nullptr : &middle_moves(stage);
        const Direction in = first_step ? Direction(stage - kFirstStep) : moves->last;
        std::optional<ChannelId> arriving;
        const auto allowed = [&](Direction d) {
          return rules.step_allowed_after(in, d, [&] {
            if (!arriving) arriving = arriving_channel(torus, node, in);
            return *arriving;
          });
        };
        for (int rank = 0; rank < kDirectionCount; ++rank) {
          const Direction d(rank);
          if (!first_step && !((moves->continuing | moves->last_steps) & bit(d))) continue;
          const NodeId to = hop_to(node, d);
          if (to == kNoNode) continue;
          if (first_step) {
            if (allowed(d)) reach(to, middle_stage(bit(d)));
          } else if (moves->continuing & bit(d)) {
            reach(to, moves->next[static_cast<std::size_t>(rank)]);
          } else if (allowed(d)) {  // a Last Step
            if (ls_dist_[to] < 0) ls_dist_[to] = hops;
          }
        }
      }
    }
    frontier.swap(next);
    // Every layer up to depth + 1 is complete: stop once each target is in one.
    if (!targets.empty() &&
        std::all_of(targets.begin(), targets.end(), [&](NodeId t) { return t == src || length(t) >= 0; }))
      break;
  }
}

int ShortestRouteSearch::length(NodeId dst) const {
  if (dst == src_) return 0;
  const int reached = reached_[dst], last_step = ls_dist_[dst];
  if (reached < 0 || last_step < 0) return std::max(reached, last_step);
  return std::min(reached, last_step);
}

bool ShortestRouteSearch::transition(NodeId node, int stage, Direction d, int* next_stage, bool* last_step) const {
  Successor succ[2];
  const int count = successors(network_.torus(), rules_, node, stage, d, succ);
  for (int k = 0; k < count; ++k)
    if (succ[k].last_step == *last_step && (*last_step || succ[k].stage == *next_stage)) return true;
  return false;
}

// Walks the BFS layers backwards from (node, stage) to the source; `suffix`
// holds the hops after this state, last hop first.
void ShortestRouteSearch::collect(NodeId node, int stage, std::vector<Direction>& suffix,
                                  std::vector<std::vector<Direction>>& out, std::size_t limit) const {
  if (out.size() >= limit) return;
  const int depth = stage < 0 ? ls_dist_[node] : dist_[state(node, stage)];
  if (depth == 0) {
    out.emplace_back(suffix.rbegin(), suffix.rend());
    return;
  }
  const Torus& torus = network_.torus();
  for (int rank = 0; rank < kDirectionCount && out.size() < limit; ++rank) {
    const Direction d(rank);
    if (!torus.direction_present(d)) continue;
    const ChannelId into = arriving_channel(torus, node, d);
    if (!network_.channel_alive(into)) continue;
    const NodeId from = Torus::channel_node(into);
    // Only these stages can lead into `stage` with hop d (transition()
    // accepts no other), in ascending order: a Last Step follows a DOR
    // middle; a middle with mask M follows the source or a First Step
    // (M == {d}), or the middle without d or with it; a First Step follows
    // the source.
    int candidates[kStages];
    int count = 0;
    if (stage < 0) {
      for (int before = kMiddle; before < kStages; ++before) candidates[count++] = before;
    } else if (stage < kMiddle) {
      candidates[count++] = kBegin;
    } else {
      const unsigned mask = middle_mask(stage);
      if (mask & bit(d)) {
        if (mask == bit(d))
          for (int before = kBegin; before < kMiddle; ++before) candidates[count++] = before;
        else
          candidates[count++] = middle_stage(mask & ~static_cast<unsigned>(bit(d)));
        candidates[count++] = stage;
      }
    }
    for (int k = 0; k < count && out.size() < limit; ++k) {
      const int before = candidates[k];
      if (dist_[state(from, before)] != depth - 1) continue;
      int next_stage = stage;
      bool last_step = stage < 0;
      if (!transition(from, before, d, &next_stage, &last_step)) continue;
      suffix.push_back(d);
      collect(from, before, suffix, out, limit);
      suffix.pop_back();
    }
  }
}

std::vector<std::vector<Direction>> ShortestRouteSearch::routes(NodeId dst, std::size_t cap) const {
  std::vector<std::vector<Direction>> raw, out;
  const int best = length(dst);
  if (best <= 0 || cap == 0) return out;
  // Several stage paths spell the same hops (a first hop is both a First
  // Step and a DOR hop), so gather more than needed before deduplicating.
  const std::size_t limit = cap * 4;
  std::vector<Direction> suffix;
  for (int stage = 1; stage < kStages && raw.size() < limit; ++stage)
    if (dist_[state(dst, stage)] == best) collect(dst, stage, suffix, raw, limit);
  if (ls_dist_[dst] == best) collect(dst, -1, suffix, raw, limit);
  for (auto& hops : raw) {
    if (out.size() >= cap) break;
    if (std::find(out.begin(), out.end(), hops) == out.end()) out.push_back(std::move(hops));
  }
  return out;
}

// ---------------------------------------------------------------------------
// CandidateSet.

CandidateSet::CandidateSet(const Network& network, const TurnRules& rules, std::vector<NodeId> allocation,
                           std::size_t cap_per_pair, bool allow_unroutable)
    : nodes_(std::move(allocation)) {
  std::sort(nodes_.begin(), nodes_.end());
  nodes_.erase(std::unique(nodes_.begin(), nodes_.end()), nodes_.end());
  const Torus& torus = network.torus();
  const std::size_t n = nodes_.size();
  minimal_.assign(n * n, 1);
  pair_first_.reserve(n * n + 1);
  std::vector<ChannelId> walk;
  std::vector<Direction> hops;
  SignChoices signs;
  // Head node of every live channel, so the fast path below walks routes
  // without coordinate arithmetic (kNoNode: dead or absent).
  const std::vector<NodeId> head = live_channel_heads(network);
  std::vector<Coord> coords(n);
  for (std::size_t i = 0; i < n; ++i) coords[i] = torus.coord(nodes_[i]);
  // Where the rules admit a turn at all: a First Step variant needs one
  // right after the source's first hop, a Last Step variant one right
  // before the destination's last hop.  Every other pair has only its DOR
  // routes (minimal_routes would find no more), so it takes the fast path
  // below: on a large machine with a few failures, nearly every pair.
  std::vector<unsigned char> turn_after(torus.node_count(), 0), turn_before(torus.node_count(), 0);
  if (rules.turns_possible())
    for (NodeId node = 0; node < torus.node_count(); ++node)
      for (int rank = 0; rank < kDirectionCount; ++rank) {
        const Direction first(rank);
        if (!torus.direction_present(first)) continue;
        if (first.positive())
          for (int lower = 0; lower < rank; ++lower)
            if (rules.all_turns() || rules.turn_allowed(Torus::channel(node, first), Direction(lower)))
              turn_after[node] = 1;
        if (first.negative()) {
          const NodeId before = torus.neighbor(node, first.opposite());
          for (int higher = rank + 1; higher < kDirectionCount; ++higher)
            if (torus.direction_present(Direction(higher)) &&
                (rules.all_turns() || rules.turn_allowed(arriving_channel(torus, before, Direction(higher)), first)))
              turn_before[node] = 1;
        }
      }
  // Whether a pair has a minimal candidate (else it takes a detour).
  const auto has_minimal = [&](std::size_t s, std::size_t d) {
    if (turn_after[nodes_[s]] || turn_before[nodes_[d]])
      return !minimal_routes(network, rules, nodes_[s], nodes_[d], 1).empty();
    SignChoices choices;
    sign_choices(torus, coords[s], coords[d], choices);
    for (std::size_t k = 0; k < choices.size; ++k) {
      NodeId at = nodes_[s];
      for (int rank = 0; rank < kDirectionCount && at != kNoNode; ++rank)
        for (int step = 0; step < choices.counts[k][rank] && at != kNoNode; ++step)
          at = head[Torus::channel(at, Direction(rank))];
      if (at != kNoNode) return true;
    }
    return false;
  };
  for (std::size_t s = 0; s < n; ++s) {
    std::unique_ptr<ShortestRouteSearch> search;  // built only if some pair needs a detour
    for (std::size_t d = 0; d < n; ++d) {
      if (s != d && !turn_after[nodes_[s]] && !turn_before[nodes_[d]]) {
        // Fast path without turns: only the DOR route of each sign choice
        // (see minimal_routes), written straight into the flat arrays.
        sign_choices(torus, coords[s], coords[d], signs);
        std::size_t added = 0;
        for (std::size_t k = 0; k < signs.size && added < cap_per_pair; ++k) {
          const std::size_t mark = channels_.size();
          NodeId at = nodes_[s];
          for (int rank = 0; rank < kDirectionCount && at != kNoNode; ++rank)
            for (int step = 0; step < signs.counts[k][rank] && at != kNoNode; ++step) {
              const ChannelId c = Torus::channel(at, Direction(rank));
              channels_.push_back(c);
              at = head[c];
            }
          if (at == kNoNode) {
            channels_.resize(mark);
            continue;
          }
          route_first_.push_back(channels_.size());
          ++added;
        }
        if (added > 0) {
          pair_first_.push_back(route_first_.size() - 1);
          continue;
        }
      }
      if (s != d) {
        std::vector<std::vector<Direction>> routes = minimal_routes(network, rules, nodes_[s], nodes_[d], cap_per_pair);
        if (routes.empty()) {
          if (!search) {
            // One search for every detour of this source, which stops once
            // it has reached them all.
            std::vector<NodeId> targets{nodes_[d]};
            for (std::size_t later = d + 1; later < n; ++later)
              if (later != s && !has_minimal(s, later)) targets.push_back(nodes_[later]);
            search = std::make_unique<ShortestRouteSearch>(network, rules, nodes_[s], targets, &head);
          }
          routes = search->routes(nodes_[d], cap_per_pair);
          minimal_[s * n + d] = 0;
        }
        if (routes.empty() && allow_unroutable) unroutable_.push_back(s * n + d);
        if (routes.empty() && !allow_unroutable)
          throw RoutingError("no deadlock-free Angara-encodable route from " + torus.format_coord(nodes_[s]) +
                                 " to " + torus.format_coord(nodes_[d]),
                             std::vector<NodePair>{{nodes_[s], nodes_[d]}}, "no deadlock-free Angara-encodable route");
        for (const auto& hops : routes) {
          route_is_usable(network, rules, nodes_[s], hops, &walk);
          add_route(walk);
        }
      }
      pair_first_.push_back(route_first_.size() - 1);
    }
  }
}

CandidateSet CandidateSet::with_long_way_dor(const Network& network, const CandidateSet& base, int extra_hops) {
  return with_routes_after(base, long_way_dor_routes(network, base, extra_hops));
}

CandidateSet::LongWayRoutes CandidateSet::long_way_dor_routes(const Network& network, const CandidateSet& base,
                                                              int extra_hops) {
  const Torus& torus = network.torus();
  const std::size_t n = base.nodes_.size(), pairs = base.pair_count();
  std::vector<Coord> coord_of(n);
  for (std::size_t k = 0; k < n; ++k) coord_of[k] = torus.coord(base.nodes_[k]);
  LongWayRoutes routes;
  std::vector<ChannelId>& extra_channels = routes.channels;
  std::vector<std::size_t>& extra_end = routes.end;
  std::vector<std::uint8_t>& extra_of = routes.of_pair;
  extra_of.assign(pairs, 0);
  for (std::size_t p = 0; p < pairs; ++p) {
    const std::size_t s = p / n, d = p % n;
    if (s == d || base.variants(p) == 0 || !base.minimal(p)) continue;
    // Per dimension the + and - hop counts; a choice is minimal iff every
    // dimension takes its shorter way (both when tied): those are in base.
    // A sign choice (bit dim set: the - way) as masks: the dimensions that
    // move, those not tied, and the bit of each one's longer way.
    const Coord& from = coord_of[s];
    const Coord& to = coord_of[d];
    std::array<std::array<int, 2>, kMaxDims> count{};  // [dim][0: +, 1: -]
    std::array<int, kMaxDims> longer_by{};
    unsigned moving = 0, untied = 0, long_minus = 0;
    for (int dim = 0; dim < kMaxDims; ++dim) {
      const int size = torus.size(dim);
      const int forward = to[dim] >= from[dim] ? to[dim] - from[dim] : to[dim] - from[dim] + size;
      count[dim] = {forward, size - forward};
      if (forward == 0) continue;
      moving |= 1u << dim;
      if (2 * forward == size) continue;
      untied |= 1u << dim;
      if (2 * forward < size) long_minus |= 1u << dim;
      longer_by[dim] = std::abs(size - 2 * forward);
    }
    for (unsigned signs = 0; signs < (1u << kMaxDims); ++signs) {
      if (signs & ~moving) continue;  // one pattern for a dimension that does not move
      const unsigned long_ways = ~(signs ^ long_minus) & untied;
      if (long_ways == 0) continue;  // minimal: in base
      int extra = 0;
      for (int dim = 0; dim < kMaxDims; ++dim)
        if (long_ways >> dim & 1u) extra += longer_by[dim];
      if (extra > extra_hops) continue;
      HopCounts counts{};
      for (int dim = 0; dim < kMaxDims; ++dim) {
        const int minus = (signs >> dim) & 1u;
        counts[Direction::make(dim, minus != 0).rank()] = count[dim][minus];
      }
      const std::size_t begin = extra_channels.size();
      Torus::Cursor at(torus, base.nodes_[s], from);
      bool live = true;
      for (int rank = 0; rank < kDirectionCount && live; ++rank) {
        const Direction direction(rank);
        if (counts[rank] > 0 && !torus.direction_present(direction)) live = false;
        for (int step = 0; step < counts[rank] && live; ++step) {
          const ChannelId c = Torus::channel(at.node(), direction);
          if (!network.channel_alive(c)) {
            live = false;
            break;
          }
          extra_channels.push_back(c);
          at.step(direction);
        }
      }
      if (live && at.node() == base.nodes_[d]) {
        extra_end.push_back(extra_channels.size());
        ++extra_of[p];
      } else {
        extra_channels.resize(begin);
      }
    }
  }

  return routes;
}

CandidateSet CandidateSet::with_routes_after(const CandidateSet& base, const LongWayRoutes& routes) {
  const std::size_t pairs = base.pair_count();
  if (routes.of_pair.size() != pairs) throw std::logic_error("long-way routes of another allocation");
  const std::vector<ChannelId>& extra_channels = routes.channels;
  const std::vector<std::size_t>& extra_end = routes.end;
  const std::vector<std::uint8_t>& extra_of = routes.of_pair;
  // Written once at its final size: base's routes of a pair are one block
  // of channels, copied whole, then the pair's long-way routes.
  CandidateSet set;
  set.nodes_ = base.nodes_;
  set.minimal_ = base.minimal_;
  set.unroutable_ = base.unroutable_;
  set.channels_.reserve(base.channels_.size() + extra_channels.size());
  set.route_first_.reserve(base.route_first_.size() + extra_end.size());
  set.pair_first_.reserve(pairs + 1);
  std::size_t extra_route = 0;
  for (std::size_t p = 0; p < pairs; ++p) {
    const std::size_t first = base.pair_first_[p], last = base.pair_first_[p + 1];
    const std::size_t from = base.route_first_[first], to = base.route_first_[last];
    const std::size_t shift = set.channels_.size() - from;
    set.channels_.insert(set.channels_.end(), base.channels_.begin() + static_cast<std::ptrdiff_t>(from),
                         base.channels_.begin() + static_cast<std::ptrdiff_t>(to));
    for (std::size_t r = first; r < last; ++r) set.route_first_.push_back(base.route_first_[r + 1] + shift);
    for (std::uint8_t k = 0; k < extra_of[p]; ++k, ++extra_route) {
      const std::size_t begin = extra_route == 0 ? 0 : extra_end[extra_route - 1];
      set.channels_.insert(set.channels_.end(), extra_channels.begin() + static_cast<std::ptrdiff_t>(begin),
                           extra_channels.begin() + static_cast<std::ptrdiff_t>(extra_end[extra_route]));
      set.route_first_.push_back(set.channels_.size());
    }
    set.pair_first_.push_back(set.route_first_.size() - 1);
  }
  return set;
}

namespace {

// The minimal Angara-encodable routes of one pair on a network whose every
// port is cabled and live, in minimal_routes()' order, as rank sequences:
// there every channel is live and a minimal route (one sign per dimension)
// takes no U-turn, so under TurnRules::Mode::all_turns each of them is
// usable, and no two of them coincide (a route is told apart by its hop
// counts, i.e. its sign choice, its first hop, i.e. its First Step, and its
// last hop, i.e. its Last Step), so minimal_routes()' checks are all true.
class IntactMinimalRoutes {
 public:
  static constexpr int kMaxHops = 4 * 128;
  // Calls emit(hops, length) for each route, at most `cap`; emit returns
  // false to stop.
  template <class Emit>
  static void each(const SignChoices& signs, std::size_t cap, Emit emit) {
    std::array<Direction, kMaxHops> hops{};
    std::size_t emitted = 0;
    const auto offer = [&](int length) {
      if (emitted >= cap) return false;
      ++emitted;
      return emit(hops.data(), length);
    };
    const auto write = [&](const HopCounts& counts, int at) {
      for (int rank = 0; rank < kDirectionCount; ++rank)
        for (int k = 0; k < counts[rank]; ++k) hops[static_cast<std::size_t>(at++)] = Direction(rank);
      return at;
    };
    for_each_minimal_order(signs, true, [&](int p, const HopCounts& rest, int m) {
      if (p >= 0) hops[0] = Direction(p);
      int length = write(rest, p >= 0 ? 1 : 0);
      if (m >= 0) hops[static_cast<std::size_t>(length++)] = Direction(m);
      return offer(length);
    });
  }
};

}  // namespace

CandidateSet CandidateSet::with_all_turns(const Network& network, const CandidateSet& base, const RouteTable& table,
                                          std::size_t cap_per_pair, std::vector<std::uint32_t>* table_choice) {
  const TurnRules rules(network, TurnRules::Mode::all_turns);
  const Torus& torus = network.torus();
  CandidateSet set;
  set.nodes_ = base.nodes_;
  set.minimal_ = base.minimal_;
  set.pair_first_.reserve(base.pair_count() + 1);
  if (table_choice) table_choice->assign(base.pair_count(), 0);
  if (network.every_port_live()) {
    // Every port cabled and live (a block or a scattered job of a healthy
    // machine): the base set routes every pair minimally.
    set.channels_.reserve(base.channels_.size() * 4);
    set.route_first_.reserve(base.route_first_.size() * 4);
    set.write_intact_all_turns(network, table, cap_per_pair, table_choice, nullptr);
    return set;
  }
  std::vector<ChannelId> walk;
  for (std::size_t p = 0; p < base.pair_count(); ++p) {
    const std::size_t s = base.pair_source(p), d = base.pair_destination(p);
    std::vector<std::vector<Direction>> routes;
    if (s != d && base.variants(p) > 0 && base.minimal(p))
      routes = minimal_routes(network, rules, set.nodes_[s], set.nodes_[d], cap_per_pair);
    for (const auto& hops : routes) {
      route_is_usable(network, rules, set.nodes_[s], hops, &walk);
      set.add_route(walk);
    }
    if (table.has_route(s, d)) {
      const Route own = table.route(s, d);
      const auto found = std::find(routes.begin(), routes.end(), own.hops);
      if (found == routes.end()) set.add_route(route_channels(torus, set.nodes_[s], own.hops));
      if (table_choice && own.layer != 0) {
        table_choice->clear();
        table_choice = nullptr;
      }
      if (table_choice) (*table_choice)[p] = static_cast<std::uint32_t>(found - routes.begin());
    } else if (s != d) {
      set.unroutable_.push_back(p);
    }
    set.pair_first_.push_back(set.route_first_.size() - 1);
  }
  return set;
}

CandidateSet CandidateSet::with_all_turns_of_intact(const Network& network, const RouteTable& table,
                                                    std::size_t cap_per_pair, std::vector<std::uint32_t>* table_choice,
                                                    std::vector<std::uint32_t>* dor_prefix) {
  CandidateSet set;
  set.nodes_ = table.nodes();
  set.minimal_.assign(set.nodes_.size() * set.nodes_.size(), 1);
  set.pair_first_.reserve(set.minimal_.size() + 1);
  if (table_choice) table_choice->assign(set.minimal_.size(), 0);
  // Room for four candidates of the table's length a pair, as in
  // with_all_turns() (growing tens of millions of channels by doubling
  // costs a third of the time).
  // Every pair's minimal length is its torus distance: per dimension the
  // ring distances of the coordinates' histogram.
  const Torus& torus = network.torus();
  std::size_t hops = 0;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    std::vector<std::size_t> histogram(static_cast<std::size_t>(torus.size(dim)), 0);
    for (NodeId node : set.nodes_) ++histogram[static_cast<std::size_t>(torus.coord(node)[dim])];
    for (int a = 0; a < torus.size(dim); ++a)
      for (int b = 0; b < torus.size(dim); ++b)
        hops += histogram[static_cast<std::size_t>(a)] * histogram[static_cast<std::size_t>(b)] *
                static_cast<std::size_t>(torus.ring_distance(dim, a, b));
  }
  set.channels_.reserve(hops * 4);
  set.route_first_.reserve(set.minimal_.size() * 4);
  set.write_intact_all_turns(network, table, cap_per_pair, table_choice, dor_prefix);
  return set;
}

void CandidateSet::write_intact_all_turns(const Network& network, const RouteTable& table, std::size_t cap_per_pair,
                                          std::vector<std::uint32_t>* table_choice,
                                          std::vector<std::uint32_t>* dor_prefix) {
  // The routes are written straight into the flat arrays, the table's
  // route found among them by its hops on the way, instead of
  // minimal_routes()' vectors, usability checks and searches (1.4 s of
  // the 1.9 s this took on an 8x8x4x4 block of 8x8x8x8).
  CandidateSet& set = *this;
  const Torus& torus = network.torus();
  const std::size_t n = set.nodes_.size();
  const std::vector<NodeId> head = live_channel_heads(network);
  std::vector<Coord> coords(n);
  for (std::size_t i = 0; i < n; ++i) coords[i] = torus.coord(set.nodes_[i]);
  SignChoices signs;
  std::vector<Direction> own;
  if (dor_prefix) dor_prefix->assign(n * n, 0);
  for (std::size_t p = 0; p < n * n; ++p) {
    const std::size_t s = p / n, d = p % n;
    own.clear();
    const bool routed = table.has_route(s, d);
    if (routed) table.for_each_run(s, d, [&](Direction hop, int count) { own.insert(own.end(), count, hop); });
    if (routed && table.layer(s, d) != 0 && table_choice) {
      table_choice->clear();  // not a choice of these candidates (balanced's tables have one layer)
      table_choice = nullptr;
    }
    std::size_t own_index = npos, added = 0;
    if (s != d) {
      sign_choices(torus, coords[s], coords[d], signs);
      if (dor_prefix) (*dor_prefix)[p] = static_cast<std::uint32_t>(std::min(signs.size, cap_per_pair));
      IntactMinimalRoutes::each(signs, cap_per_pair, [&](const Direction* hops, int length) {
        NodeId at = set.nodes_[s];
        for (int i = 0; i < length; ++i) {
          const ChannelId c = Torus::channel(at, hops[i]);
          set.channels_.push_back(c);
          at = head[c];
        }
        set.route_first_.push_back(set.channels_.size());
        if (own_index == npos && own.size() == static_cast<std::size_t>(length) &&
            std::equal(own.begin(), own.end(), hops))
          own_index = added;
        ++added;
        return true;
      });
    }
    if (routed && own_index == npos) {
      own_index = added;
      set.add_route(route_channels(torus, set.nodes_[s], own));
    } else if (!routed && s != d && added == 0) {
      set.unroutable_.push_back(p);
    }
    if (table_choice && own_index != npos) (*table_choice)[p] = static_cast<std::uint32_t>(own_index);
    set.pair_first_.push_back(set.route_first_.size() - 1);
  }
}

void CandidateSet::add_route(const std::vector<ChannelId>& channels) {
  channels_.insert(channels_.end(), channels.begin(), channels.end());
  route_first_.push_back(channels_.size());
}

std::vector<Direction> CandidateSet::hops(std::size_t pair, std::size_t variant) const {
  std::vector<Direction> out;
  for (ChannelId c : channels(pair, variant)) out.push_back(Torus::channel_direction(c));
  return out;
}

std::size_t CandidateSet::find(std::size_t pair, const std::vector<Direction>& wanted) const {
  for (std::size_t v = 0; v < variants(pair); ++v) {
    const ChannelSpan span = channels(pair, v);
    if (span.size() != wanted.size()) continue;
    if (std::equal(span.begin(), span.end(), wanted.begin(),
                   [](ChannelId c, Direction d) { return Torus::channel_direction(c) == d; }))
      return v;
  }
  return npos;
}

std::vector<ChannelId> CandidateSet::used_channels() const {
  // One pass over the (tens of millions of) channels of the routes.
  std::vector<unsigned char> seen;
  for (ChannelId c : channels_) {
    if (c >= seen.size()) seen.resize(std::max<std::size_t>(c + 1, seen.size() * 2), 0);
    seen[c] = 1;
  }
  std::vector<ChannelId> used;
  for (ChannelId c = 0; c < seen.size(); ++c)
    if (seen[c]) used.push_back(c);
  return used;
}

RouteTable CandidateSet::make_table(const std::vector<std::uint32_t>& choice, const std::string& algorithm) const {
  RouteTable table(nodes_);
  const std::size_t n = nodes_.size();
  Route route;  // one buffer for every pair: a million routes are a million allocations otherwise
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      const std::size_t p = pair(s, d);
      if (s == d || variants(p) == 0) continue;
      route.hops.clear();
      for (ChannelId c : channels(p, choice[p])) route.hops.push_back(Torus::channel_direction(c));
      table.set_route(s, d, route);
    }
  table.algorithm = algorithm;
  return table;
}

}  // namespace angara
