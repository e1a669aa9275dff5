// Candidate routes shared by the load-balancing generators (balanced,
// genetic): for an ordered pair, the minimal Angara-encodable routes over the
// live part of the network whose turns are deadlock-safe, in a fixed order.
//
// Deadlock safety uses one fixed set of allowed turns: the acyclic
// augmentation of the DOR channel dependency graph of ANSU paper section 3.2
// (Theorem 2), as built by ChannelDependencies (angara/routing_graph.hpp) for
// the routing graph too.  Every route made only of DOR moves and allowed turns
// keeps the CDG free of cycles other than same-direction ring cycles
// (harmless under bubble flow control), so any mix of candidates is
// deadlock-free on one virtual channel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "angara/routing_graph.hpp"

namespace angara {

// The steps a route may take on one virtual channel, over the augmented
// channel dependency graph of angara/routing_graph.hpp.  A step from channel
// `from` (direction Di) on to direction Dj at its head is:
//   Dj == Di                  a ring step, always allowed;
//   Dj == opposite(Di)        a U-turn, never taken (it only lengthens a route);
//   Dj >  Di                  a DOR move, always allowed;
//   Dj <  Di                  a turn, allowed iff the augmentation added it
//                             (First Step turns positive -> lower positive,
//                             Last Step turns negative -> lower negative).
// Every allowed step is an edge of that acyclic-except-rings CDG, so any mix
// of routes built from allowed steps is deadlock-free.
//
// With Mode::all_turns every turn is allowed (U-turns still are not): the
// steps of every Angara-encodable route, deadlock ignored.  The routability
// oracle searches with it, and routes built with it must be admitted through
// an IncrementalDependencyGraph (routing/common/dependency_graph.hpp).
class TurnRules {
 public:
  enum class Mode { augmented, all_turns };
  // The augmentation walks the whole machine, so it is built only where it
  // can admit a turn: under all_turns it is not consulted, and on a network
  // whose every port is cabled and live it admits none (from any channel a
  // DOR move reaches every higher direction at the next node, so Theorem 2
  // refuses every turn).  That keeps routing a small allocation of a large
  // healthy machine proportional to the allocation.
  explicit TurnRules(const Network& network, Mode mode = Mode::augmented) : all_turns_(mode == Mode::all_turns) {
    if (!all_turns_ && !network.every_port_live()) dependencies_.emplace(network);
  }

  bool step_allowed(ChannelId from, Direction next) const {
    return step_allowed_after(Torus::channel_direction(from), next, [from] { return from; });
  }
  // The same for a step after a hop in direction `in`, whose channel
  // `arriving()` gives only when the augmentation decides the turn: most
  // steps are allowed or refused by their directions alone, and finding
  // the channel a route arrived on costs a neighbour's divisions.
  template <class Arriving>
  bool step_allowed_after(Direction in, Direction next, Arriving&& arriving) const {
    if (next == in) return true;
    if (next == in.opposite()) return false;
    if (in < next || all_turns_) return true;
    return turn_allowed(arriving(), next);
  }
  // Whether the augmentation added the turn from -> next.
  bool turn_allowed(ChannelId from, Direction next) const {
    return dependencies_ && dependencies_->turn_allowed(from, next);
  }
  // Number of turns the augmentation added (0 on a fault-free torus).
  std::size_t turn_count() const {
    return dependencies_ ? dependencies_->first_step_turns() + dependencies_->last_step_turns() : 0;
  }
  // Whether any route may take a First/Last Step turn.
  bool turns_possible() const { return all_turns_ || turn_count() > 0; }
  bool all_turns() const { return all_turns_; }

 private:
  std::optional<ChannelDependencies> dependencies_;
  bool all_turns_ = false;
};

// Whether a route may take `hop` over channel `c` (the router it is at and
// `hop`) after the channel `previous` (nullptr for its first hop): the
// dimension present, the channel live and the step one `rules` allow.
inline bool hop_usable(const Network& network, const TurnRules& rules, ChannelId c, Direction hop,
                       const ChannelId* previous) {
  return network.torus().direction_present(hop) && network.channel_alive(c) &&
         (!previous || rules.step_allowed(*previous, hop));
}

// True if `hops` walks from `src` over live channels and every consecutive
// pair of hops is a step `rules` allows.  `channels` (optional) receives the
// channels in order.
bool route_is_usable(const Network& network, const TurnRules& rules, NodeId src,
                     const std::vector<Direction>& hops, std::vector<ChannelId>* channels = nullptr);

// Every minimal Angara-encodable route from `src` to `dst` (src != dst) that
// is usable under `rules`, at most `cap` of them.  Order: the pure DOR +
// direction-bit routes, then routes with a First Step, then with a Last Step,
// then with both; inside each group the sign choices of the tied dimensions
// (ring distance d/2 on an even ring, the two cables of a size-2 dimension)
// in lexicographic order X..K with + before -, then FS/LS directions in
// direction order.  Minimal routes use one sign per dimension, so the only
// encodable orders of a sign choice are DOR, or DOR with one positive hop
// moved to the front (FS) and/or one negative hop moved to the end (LS).
std::vector<std::vector<Direction>> minimal_routes(const Network& network, const TurnRules& rules,
                                                   NodeId src, NodeId dst, std::size_t cap);

// The same routes, in the same order, as channels stored flat: route k of
// those appended occupies channels [bounds[b + k], bounds[b + k + 1]) for
// b = bounds.size() - 1 on entry (`bounds` starts as {0}); no vector per
// route, and each route walked once.  Returns how many it appended.
std::size_t append_minimal_route_channels(const Network& network, const TurnRules& rules, NodeId src, NodeId dst,
                                          std::size_t cap, std::vector<ChannelId>& channels,
                                          std::vector<std::size_t>& bounds);

// Per channel slot, the router a live channel leads to; kNoNode for a dead
// or absent one: route walks and searches look hops up here instead of
// checking the channel and computing the neighbour's coordinates each time.
std::vector<NodeId> live_channel_heads(const Network& network);

// The shortest usable Angara-encodable routes from `src` to every node, for
// the pairs that faults leave without a minimal route: a breadth-first search
// over (node, route state) states, where the state records the First Step or
// the directions used so far in the DOR middle, and a Last Step ends a route.
class ShortestRouteSearch {
 public:
  // With `targets`, the search stops after the first layer by which every
  // target is reached (the answers for the targets are the same; other
  // nodes may be left unreached): around a compact allocation of a large
  // machine it explores a ball instead of the machine.
  // The hops are looked up in `heads` (live_channel_heads(network)), not
  // checked and computed per state: a caller that searches from many
  // sources builds it once; without it the search builds its own.
  ShortestRouteSearch(const Network& network, const TurnRules& rules, NodeId src,
                      const std::vector<NodeId>& targets = {}, const std::vector<NodeId>* heads = nullptr);
  // Hops of the shortest encodable route to `dst`, or -1 if none exists.
  int length(NodeId dst) const;
  // Up to `cap` distinct shortest routes to `dst`, in a fixed order.
  std::vector<std::vector<Direction>> routes(NodeId dst, std::size_t cap) const;

 private:
  // Begin, FS(P), DOR middle by used-direction mask: a mask never holds both
  // signs of a dimension, so the 3^4 valid masks are numbered (in ascending
  // mask order, which keeps the routes' order) and the search fills a third
  // of what a slot per mask would take.
  static constexpr int kStages = 1 + 4 + 81;
  std::size_t state(NodeId node, int stage) const { return std::size_t(node) * kStages + std::size_t(stage); }
  bool transition(NodeId node, int stage, Direction d, int* next_stage, bool* last_step) const;
  void collect(NodeId node, int stage, std::vector<Direction>& suffix,
               std::vector<std::vector<Direction>>& out, std::size_t limit) const;

  const Network& network_;
  const TurnRules& rules_;
  NodeId src_;
  // Hop counts (at most a few times the diameter: 16 bits, a quarter of the
  // memory the search fills per source), -1 = unreached.
  std::vector<std::int16_t> dist_;     // per state
  std::vector<std::int16_t> reached_;  // per node, its first state past the source's: the shortest route there
  std::vector<std::int16_t> ls_dist_;  // per node, length of the shortest route ending with a Last Step there
};

// A view of the channels of one candidate route.
struct ChannelSpan {
  const ChannelId* first = nullptr;
  const ChannelId* last = nullptr;
  const ChannelId* begin() const { return first; }
  const ChannelId* end() const { return last; }
  std::size_t size() const { return static_cast<std::size_t>(last - first); }
};

// The candidate routes of every ordered pair of an allocation, stored flat as
// channel sequences.  Pair p = src_index * n + dst_index over the sorted,
// deduplicated allocation (the order of RouteTable); diagonal pairs are empty.
// A pair gets its minimal routes; only when faults leave it none, its
// shortest encodable routes.  Throws RoutingError when a pair has no route,
// unless `allow_unroutable`: then the pair has no variants, is listed by
// unroutable(), and make_table() leaves it without a route.
class CandidateSet {
 public:
  CandidateSet(const Network& network, const TurnRules& rules, std::vector<NodeId> allocation,
               std::size_t cap_per_pair, bool allow_unroutable = false);

  const std::vector<NodeId>& nodes() const { return nodes_; }
  std::size_t node_count() const { return nodes_.size(); }
  std::size_t pair_count() const { return nodes_.size() * nodes_.size(); }
  std::size_t pair(std::size_t src, std::size_t dst) const { return src * nodes_.size() + dst; }
  std::size_t pair_source(std::size_t pair) const { return pair / nodes_.size(); }
  std::size_t pair_destination(std::size_t pair) const { return pair % nodes_.size(); }

  std::size_t variants(std::size_t pair) const { return pair_first_[pair + 1] - pair_first_[pair]; }
  ChannelSpan channels(std::size_t pair, std::size_t variant) const {
    const std::size_t r = pair_first_[pair] + variant;
    return {channels_.data() + route_first_[r], channels_.data() + route_first_[r + 1]};
  }
  std::vector<Direction> hops(std::size_t pair, std::size_t variant) const;
  // Whether the pair's candidates are minimal (false: shortest detours).
  bool minimal(std::size_t pair) const { return minimal_[pair] != 0; }
  // Index of the variant with exactly these hops, or npos.
  std::size_t find(std::size_t pair, const std::vector<Direction>& hops) const;
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  // Pairs without any candidate (only with allow_unroutable).
  const std::vector<std::size_t>& unroutable() const { return unroutable_; }

  // Candidate routes of all pairs together.
  std::size_t route_count() const { return route_first_.size() - 1; }
  // Channels of every candidate route together (a route crossing a channel
  // twice counts it twice).
  std::size_t channel_count() const { return route_first_.back(); }

  // Channel slots any candidate uses (sorted).
  std::vector<ChannelId> used_channels() const;

  // The table that takes variant choice[p] for every pair p.
  RouteTable make_table(const std::vector<std::uint32_t>& choice, const std::string& algorithm) const;

  // The candidates of `base` (same variant indices) and, after them, for
  // every pair whose candidates are minimal, the pure DOR + direction-bit
  // routes of its other sign choices that are at most `extra_hops` longer:
  // the long way round one or more rings.  They are not minimal, but like
  // every DOR route they close no forbidden cycle with other DOR routes;
  // balanced tries them where the minimal routes stay above the bound
  // (routing/generators/balanced/refinement.cpp).
  static CandidateSet with_long_way_dor(const Network& network, const CandidateSet& base, int extra_hops);
  // The same in two steps, for a caller that widens two sets of one
  // allocation with the same minimal pairs (a scattered job's
  // direction-order set, then its First/Last Step set): the long-way
  // routes are found once.
  struct LongWayRoutes {
    std::vector<ChannelId> channels;
    std::vector<std::size_t> end;        // route k: channels [end[k - 1], end[k])
    std::vector<std::uint8_t> of_pair;   // how many of them each pair has, in pair order
  };
  static LongWayRoutes long_way_dor_routes(const Network& network, const CandidateSet& base, int extra_hops);
  static CandidateSet with_routes_after(const CandidateSet& base, const LongWayRoutes& routes);

  // The candidates of a complete `table` of `base`'s allocation, widened
  // to every minimal Angara-encodable route (TurnRules::Mode::all_turns,
  // deadlock ignored: balanced admits them through a dependency graph):
  // for every pair whose candidates in `base` are minimal, at most
  // `cap_per_pair` of them, plus the table's route if the cap left it out;
  // every other pair (a detour around failures, or a pair `base` could not
  // route) gets the table's route as its only candidate.  On a machine
  // without failures this is CandidateSet(network, all-turn rules,
  // base.nodes(), cap_per_pair).  `table_choice` (optional) receives the
  // variant index of the table's route of every pair (0 for pairs without
  // one), or is left empty when a route is on a layer other than 0.
  static CandidateSet with_all_turns(const Network& network, const CandidateSet& base, const RouteTable& table,
                                     std::size_t cap_per_pair, std::vector<std::uint32_t>* table_choice = nullptr);
  // The same on a network whose every port is cabled and live, without a
  // base set (there every pair has minimal candidates): a block's closed
  // form goes straight to its First/Last Step candidates.  `table` may have
  // no routes (a pair's choice is then 0); `dor_prefix` (optional) receives
  // per pair how many of its first candidates are its direction-order
  // routes, the candidates of the augmented set (one per sign choice).
  static CandidateSet with_all_turns_of_intact(const Network& network, const RouteTable& table,
                                               std::size_t cap_per_pair, std::vector<std::uint32_t>* table_choice,
                                               std::vector<std::uint32_t>* dor_prefix = nullptr);

 private:
  CandidateSet() = default;
  void add_route(const std::vector<ChannelId>& channels);
  // with_all_turns() on a network whose every port is cabled and live.
  void write_intact_all_turns(const Network& network, const RouteTable& table, std::size_t cap_per_pair,
                              std::vector<std::uint32_t>* table_choice, std::vector<std::uint32_t>* dor_prefix);

  std::vector<NodeId> nodes_;
  std::vector<ChannelId> channels_;
  std::vector<std::size_t> route_first_{0};  // route r: channels_[route_first_[r], route_first_[r+1])
  std::vector<std::size_t> pair_first_{0};   // pair p: routes [pair_first_[p], pair_first_[p+1])
  std::vector<std::uint8_t> minimal_;
  std::vector<std::size_t> unroutable_;
};

}  // namespace angara
