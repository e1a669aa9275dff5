// The channel dependency graph of the routes chosen so far, under incremental
// insertion: the shared layer every generator uses to admit a route only when
// it keeps its virtual channel deadlock-free (doc/model.md,
// "Deadlock rule"; the incremental CDG of the Nue paper, section 4, and of
// DFSSSP, section III).
//
// A dependency c1 -> c2 always goes to a channel leaving c1's head node, so it
// is named by c2's direction: one 8-bit successor mask per channel slot, plus
// a reference count per (channel, next direction) so that routes can be
// removed again.
//
// Cycle rule: under FlowControl::bubble a cycle is forbidden iff it contains a
// turn (two consecutive channels that differ in dimension or sign), so a
// cycle around one ring in one direction is harmless; under FlowControl::none
// every cycle is forbidden.  The graph is kept free of forbidden cycles by
// try_add_path(); add_path() inserts without checking (for routes known to be
// safe, e.g. pure DOR routes, which never close a cycle with a turn among
// themselves).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "angara/route.hpp"
#include "angara/rules.hpp"
#include "angara/torus.hpp"

namespace angara {

class IncrementalDependencyGraph {
 public:
  IncrementalDependencyGraph(const Torus& torus, FlowControl rule);

  const Torus& torus() const { return torus_; }
  FlowControl rule() const { return rule_; }

  // Would adding from->to close a forbidden cycle with the edges present now?
  // False when the edge is present already (adding it changes nothing).
  // Throws std::invalid_argument when `to` does not leave from's head node.
  // Safe to call concurrently on one graph (scratch space is per thread, the
  // order below is refreshed under a lock).
  // `walk`, when given and the answer is true, receives the walk found,
  // to ->* from (channels in order, both ends included): with from -> to
  // it is the forbidden cycle, a witness a caller can keep and look at
  // again (the answer stays true while every dependency of the walk is
  // present).
  bool closes_cycle(ChannelId from, ChannelId to, std::vector<ChannelId>* walk = nullptr) const;
  // Adds the dependencies of a route given as its channel sequence, unless one of
  // them closes a forbidden cycle (then nothing changes and false is returned).
  bool try_add_path(const std::vector<ChannelId>& channels);
  void add_path(const std::vector<ChannelId>& channels);     // unconditionally
  void remove_path(const std::vector<ChannelId>& channels);  // ref-counted removal
  // Adds routes known only by their dependency counts (indexed like
  // edge_count(): channel slot * kDirectionCount + the next direction's
  // rank), unchecked like add_path(): what a caller that counts the
  // dependencies of many routes in closed form hands over instead of the
  // routes.  Throws std::invalid_argument on a count for a dependency no
  // route can have (a channel slot or next hop that does not exist).
  void add_counts(const std::vector<std::uint32_t>& counts);
  bool has_edge(ChannelId from, ChannelId to) const;
  // Removes every edge, in time proportional to the channels that had one
  // (cheaper than a new graph on a large machine).
  void clear();

  // Channels the cycle searches have expanded so far (and the order's
  // recomputations): the deterministic measure of their work.
  std::uint64_t search_work() const { return search_work_->load(std::memory_order_relaxed); }

  // The invariant the queries' pruning rests on: while the order below is
  // not stale, every present edge u -> v has order(u) <= order(v).  For
  // tests; linear in the channels with edges.
  bool order_holds() const;

  // How many routes added so far use the dependency from->to.
  std::uint32_t edge_count(ChannelId from, ChannelId to) const;
  // Successor directions of a channel (bit r: an edge to the channel of rank r
  // leaving the head node).
  std::uint8_t successors(ChannelId c) const { return successors_[c]; }
  // The channel leaving c's head node in the direction of rank `rank`.
  ChannelId target(ChannelId c, int rank) const {
    return head_[c] * kDirectionCount + static_cast<ChannelId>(rank);
  }

 private:
  // Index of the counter of from -> (head(from), rank).
  std::size_t slot(ChannelId from, ChannelId to) const;
  void increment(ChannelId from, ChannelId to);
  void decrement(ChannelId from, ChannelId to);

  // A topological order of the strongly connected components (under bubble:
  // rings whose straight dependencies are all present): every present edge
  // u -> v has order_[u] <= order_[v], so a walk from `to` reaches `from`
  // only through channels ordered between them.  Removals keep it; an
  // insertion against it moves its head later when that channel has no
  // successor, and otherwise marks the order stale: queries then search
  // without it until their work adds up to what recomputing it costs
  // (Tarjan's algorithm, linear in the channels with edges), and the next
  // query recomputes it.  A query with the order answers at once when `to`
  // comes after `from`, and searches only the channels in between: on a
  // large torus most queries ask about dependencies in the order's direction.
  void refresh_order() const;
  void count_stale_work(std::uint64_t expanded) const;
  // Under FlowControl::none the graph is acyclic and order_ is kept a
  // permutation of the channel slots that every edge climbs strictly,
  // repaired at each insertion against it by Pearce and Kelly's dynamic
  // topological sort (J. Exp. Algorithmics 11, 2006): the channels between
  // the two ends that the new edge's head reaches, and those that reach its
  // tail, swap their positions.  Queries then never find the order stale,
  // which under none (every ring a forbidden cycle, so most insertions go
  // against any order) made every query a search of the whole graph.
  void reorder_after_insert(ChannelId from, ChannelId to);
  // Under bubble, an insertion from -> to against the order whose head has
  // successors: the channels `to` reaches through positions before
  // from's (at most kLiftLimit of them) all take from's position, which
  // keeps every edge climbing or level (an edge out of them leads past
  // from's position, one into them comes from at most their old one).
  // False, the order untouched, when there are more: then it goes stale.
  // A level order only prunes less, so the channels lifted are counted,
  // and once they are as many as the channels with edges the order goes
  // stale too, to be recomputed at the next query.
  bool lift_after(ChannelId from, ChannelId to);
  // The forward walk both use: `to` and the channels it reaches through
  // channels ordered before `bound`, into reorder_forward_ (marked in a new
  // epoch of reorder_stamp_); it stops on meeting `stop` or on holding more
  // than `limit` channels.  `work` counts the channels expanded.
  enum class Reach { done, met_stop, too_many };
  Reach reach_before(ChannelId to, std::uint32_t bound, ChannelId stop, std::size_t limit, std::uint64_t* work);
  void start_reorder_marks();
  bool mark_reordered(ChannelId c);  // false when marked in this epoch already
  static constexpr ChannelId kNoChannel = ~ChannelId{0};
  static constexpr std::size_t kLiftLimit = 256;
  std::size_t lifted_ = 0;
  // Calls visit(p) for each channel p entering c's tail node with an edge to c.
  template <typename Visit>
  void for_each_predecessor(ChannelId c, Visit&& visit) const;

  Torus torus_;
  FlowControl rule_;
  std::shared_ptr<const std::vector<NodeId>> heads_;  // channel slot -> the node it enters
  const NodeId* head_;                                 // heads_'s data
  std::size_t slots_;
  std::vector<std::uint8_t> successors_; // channel slot -> successor direction mask
  std::vector<std::uint32_t> counts_;    // channel slot * 8 + rank -> routes using the edge
  mutable std::vector<std::uint32_t> order_;  // channel slot -> position of its component
  std::vector<ChannelId> active_;             // channels that have had a successor, in that order
  std::vector<unsigned char> listed_;         // channel slot -> in active_
  // Scratch of refresh_order(), kept between refreshes (reset where used).
  mutable std::vector<std::uint32_t> tarjan_index_, tarjan_low_;
  mutable std::vector<unsigned char> tarjan_on_stack_;
  mutable bool order_stale_ = true;
  bool dynamic_order_ = false;  // order_ repaired per insertion (rule none): reorder_after_insert
  // Scratch of reorder_after_insert().
  std::vector<std::uint32_t> reorder_stamp_;
  std::uint32_t reorder_epoch_ = 0;
  std::vector<ChannelId> reorder_forward_, reorder_backward_, reorder_stack_;
  std::vector<std::uint32_t> reorder_pool_;
  // Channels expanded by the searches made since the order went stale; at
  // the count of channels with edges the order is recomputed, so a run of
  // queries on a stale order costs at most about twice the cheaper of
  // searching without it and recomputing it.
  mutable std::uint64_t stale_work_ = 0;  // under order_mutex_
  std::unique_ptr<std::mutex> order_mutex_ = std::make_unique<std::mutex>();
  std::unique_ptr<std::atomic<std::uint64_t>> search_work_ = std::make_unique<std::atomic<std::uint64_t>>(0);
};

// The channels a route from `source` crosses, in order.
std::vector<ChannelId> route_channels(const Torus& torus, NodeId source, const std::vector<Direction>& hops);

}  // namespace angara
