// Incremental channel dependency graph with forbidden-cycle detection; see
// routing/common/dependency_graph.hpp for the rule.
#include "routing/common/dependency_graph.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <stdexcept>
#include <string>

namespace angara {

namespace {

bool is_turn(ChannelId a, ChannelId b) { return Torus::channel_direction(a) != Torus::channel_direction(b); }

// Per-thread scratch for the searches, so that closes_cycle() stays const and
// thread-safe without allocating per call.  A state (channel, turn seen) is
// visited when its stamp equals the current epoch.
struct SearchScratch {
  std::vector<std::uint32_t> stamp;
  std::vector<std::uint32_t> parent;  // per state: the state it was reached from (valid while stamped)
  std::vector<std::pair<ChannelId, bool>> stack;
  std::uint32_t epoch = 0;

  void start(std::size_t states) {
    if (stamp.size() < states) {
      stamp.resize(states, 0);
      parent.resize(states, 0);
    }
    if (++epoch == 0) {  // wrapped: forget every old stamp
      std::fill(stamp.begin(), stamp.end(), 0);
      epoch = 1;
    }
    stack.clear();
  }
  // Marks the state; false when it was visited already.
  bool visit(ChannelId c, bool turn) {
    std::uint32_t& s = stamp[2 * static_cast<std::size_t>(c) + (turn ? 1 : 0)];
    if (s == epoch) return false;
    s = epoch;
    return true;
  }
  bool visited(ChannelId c, bool turn) const { return stamp[2 * static_cast<std::size_t>(c) + (turn ? 1 : 0)] == epoch; }
  static std::uint32_t state(ChannelId c, bool turn) { return 2 * c + (turn ? 1u : 0u); }
};

SearchScratch& scratch() {
  thread_local SearchScratch instance;
  return instance;
}

}  // namespace

namespace {

// The node every channel slot enters (kNoNode for absent directions), shared
// by the graphs of one torus shape: a graph is built per allocation, often
// many times over on one machine, and this table is sized by the machine.
// The last shape's table is kept.
std::shared_ptr<const std::vector<NodeId>> channel_heads(const Torus& torus) {
  static std::mutex mutex;
  static std::array<int, kMaxDims> last_sizes{};
  static std::shared_ptr<const std::vector<NodeId>> last;
  std::array<int, kMaxDims> sizes{};
  for (int dim = 0; dim < kMaxDims; ++dim) sizes[dim] = torus.size(dim);
  const std::lock_guard<std::mutex> lock(mutex);
  if (last && last_sizes == sizes) return last;
  auto heads = std::make_shared<std::vector<NodeId>>(torus.channel_slots(), kNoNode);
  for (NodeId node = 0; node < torus.node_count(); ++node)
    for (int rank = 0; rank < kDirectionCount; ++rank) {
      const Direction d(rank);
      if (torus.direction_present(d)) (*heads)[Torus::channel(node, d)] = torus.neighbor(node, d);
    }
  last = std::move(heads);
  last_sizes = sizes;
  return last;
}

}  // namespace

IncrementalDependencyGraph::IncrementalDependencyGraph(const Torus& torus, FlowControl rule)
    : torus_(torus),
      rule_(rule),
      heads_(channel_heads(torus)),
      head_(heads_->data()),
      slots_(heads_->size()),
      successors_(torus.channel_slots(), 0),
      counts_(static_cast<std::size_t>(torus.channel_slots()) * kDirectionCount, 0),
      order_(torus.channel_slots(), 0),
      listed_(torus.channel_slots(), 0) {
  if (rule_ == FlowControl::none) {
    // Any permutation orders the empty graph.
    std::iota(order_.begin(), order_.end(), 0u);
    order_stale_ = false;
    dynamic_order_ = true;
  }
}

void IncrementalDependencyGraph::clear() {
  for (const ChannelId c : active_) {
    std::fill_n(counts_.begin() + static_cast<std::ptrdiff_t>(c) * kDirectionCount, kDirectionCount, 0u);
    successors_[c] = 0;
    listed_[c] = 0;
  }
  active_.clear();
  lifted_ = 0;
}

std::size_t IncrementalDependencyGraph::slot(ChannelId from, ChannelId to) const {
  if (from >= slots_ || to >= slots_ || head_[from] == kNoNode || head_[to] == kNoNode ||
      Torus::channel_node(to) != head_[from])
    throw std::invalid_argument("channel dependency " + std::to_string(from) + " -> " + std::to_string(to) +
                                ": the second channel does not leave the node the first one enters");
  return static_cast<std::size_t>(from) * kDirectionCount + static_cast<std::size_t>(Torus::channel_direction(to).rank());
}

bool IncrementalDependencyGraph::has_edge(ChannelId from, ChannelId to) const { return counts_[slot(from, to)] != 0; }

std::uint32_t IncrementalDependencyGraph::edge_count(ChannelId from, ChannelId to) const {
  return counts_[slot(from, to)];
}

// A new edge from -> to closes a forbidden cycle iff a walk to ->* from exists
// over present edges (rule none), and under bubble iff moreover the edge or
// that walk holds a turn: every turn on a closed walk lies in one strongly
// connected component, which is exactly the verifier's criterion.  Depth-first
// search over the states (channel, turn seen on the way); a state with a turn
// seen dominates the same channel without one, so each channel is expanded at
// most twice.
bool IncrementalDependencyGraph::closes_cycle(ChannelId from, ChannelId to, std::vector<ChannelId>* walk) const {
  if (counts_[slot(from, to)] != 0) return false;
  const bool need_turn = rule_ == FlowControl::bubble && !is_turn(from, to);
  std::uint32_t limit = 0;
  bool ordered = true;
  {
    const std::lock_guard<std::mutex> lock(*order_mutex_);
    if (order_stale_ && stale_work_ >= active_.size()) refresh_order();
    ordered = !order_stale_;
    limit = order_[from];
  }
  if (ordered && order_[to] > limit) return false;  // every walk from `to` stays after `from`
  std::uint64_t expanded = 0;

  SearchScratch& search = scratch();
  search.start(2 * slots_);
  search.visit(to, !need_turn);
  search.stack.emplace_back(to, !need_turn);
  while (!search.stack.empty()) {
    const auto [c, turn_seen] = search.stack.back();
    search.stack.pop_back();
    if (c == from && turn_seen) {
      if (!ordered) count_stale_work(expanded);
      search_work_->fetch_add(expanded + 1, std::memory_order_relaxed);
      if (walk) {
        walk->clear();
        const std::uint32_t first = SearchScratch::state(to, !need_turn);
        for (std::uint32_t s = SearchScratch::state(c, turn_seen);; s = search.parent[s]) {
          walk->push_back(s / 2);
          if (s == first) break;
        }
        std::reverse(walk->begin(), walk->end());
      }
      return true;
    }
    if (!turn_seen && search.visited(c, true)) continue;  // dominated, explored already
    ++expanded;
    const std::uint8_t mask = successors_[c];
    for (int rank = 0; mask >> rank; ++rank) {
      if (!((mask >> rank) & 1u)) continue;
      const ChannelId next = target(c, rank);
      if (ordered && order_[next] > limit) continue;  // cannot lead back to `from`
      const bool turn = turn_seen || Torus::channel_direction(c).rank() != rank;
      if (!turn && search.visited(next, true)) continue;
      if (search.visit(next, turn)) {
        search.parent[SearchScratch::state(next, turn)] = SearchScratch::state(c, turn_seen);
        search.stack.emplace_back(next, turn);
      }
    }
  }
  if (!ordered) count_stale_work(expanded);
  search_work_->fetch_add(expanded + 1, std::memory_order_relaxed);
  return false;
}

void IncrementalDependencyGraph::count_stale_work(std::uint64_t expanded) const {
  const std::lock_guard<std::mutex> lock(*order_mutex_);
  stale_work_ += expanded;
}

void IncrementalDependencyGraph::increment(ChannelId from, ChannelId to) {
  const std::size_t s = slot(from, to);
  if (counts_[s]++ == 0) {
    if (!listed_[from]) {
      listed_[from] = 1;
      active_.push_back(from);
    }
    successors_[from] |= static_cast<std::uint8_t>(1u << Torus::channel_direction(to).rank());
    if (dynamic_order_) {
      if (order_[from] > order_[to]) reorder_after_insert(from, to);
    } else if (order_[from] > order_[to]) {
      // A channel without successors may move later at will (every edge into
      // it still goes forward); otherwise the order must be recomputed.
      if (successors_[to] == 0)
        order_[to] = order_[from];
      else if (!order_stale_ && !lift_after(from, to))
        order_stale_ = true;
    }
  }
}

bool IncrementalDependencyGraph::order_holds() const {
  const std::lock_guard<std::mutex> lock(*order_mutex_);
  if (order_stale_) return true;
  for (const ChannelId c : active_)
    for (int rank = 0; successors_[c] >> rank; ++rank)
      if (((successors_[c] >> rank) & 1u) && order_[c] > order_[target(c, rank)]) return false;
  return true;
}

void IncrementalDependencyGraph::start_reorder_marks() {
  if (reorder_stamp_.size() < slots_) reorder_stamp_.assign(slots_, 0);
  if (++reorder_epoch_ == 0) {
    std::fill(reorder_stamp_.begin(), reorder_stamp_.end(), 0);
    reorder_epoch_ = 1;
  }
}

bool IncrementalDependencyGraph::mark_reordered(ChannelId c) {
  if (reorder_stamp_[c] == reorder_epoch_) return false;
  reorder_stamp_[c] = reorder_epoch_;
  return true;
}

IncrementalDependencyGraph::Reach IncrementalDependencyGraph::reach_before(ChannelId to, std::uint32_t bound,
                                                                          ChannelId stop, std::size_t limit,
                                                                          std::uint64_t* work) {
  start_reorder_marks();
  reorder_forward_.assign(1, to);
  reorder_stack_.assign(1, to);
  mark_reordered(to);
  while (!reorder_stack_.empty()) {
    const ChannelId c = reorder_stack_.back();
    reorder_stack_.pop_back();
    ++*work;
    const std::uint8_t mask = successors_[c];
    for (int rank = 0; mask >> rank; ++rank) {
      if (!((mask >> rank) & 1u)) continue;
      const ChannelId next = target(c, rank);
      if (next == stop) return Reach::met_stop;
      if (order_[next] < bound && mark_reordered(next)) {
        reorder_forward_.push_back(next);
        reorder_stack_.push_back(next);
        if (reorder_forward_.size() > limit) return Reach::too_many;
      }
    }
  }
  return Reach::done;
}

bool IncrementalDependencyGraph::lift_after(ChannelId from, ChannelId to) {
  const std::uint32_t level = order_[from];
  std::uint64_t work = 0;
  // `from` itself sits at `level`: a walk back to it is a ring, not a stop.
  const Reach reach = reach_before(to, level, kNoChannel, kLiftLimit, &work);
  search_work_->fetch_add(work, std::memory_order_relaxed);
  if (reach != Reach::done) return false;
  for (const ChannelId c : reorder_forward_) order_[c] = level;
  lifted_ += reorder_forward_.size();
  if (lifted_ >= active_.size()) {
    lifted_ = 0;
    return false;
  }
  return true;
}

template <typename Visit>
void IncrementalDependencyGraph::for_each_predecessor(ChannelId c, Visit&& visit) const {
  const NodeId tail = Torus::channel_node(c);
  const int rank = Torus::channel_direction(c).rank();
  for (int r = 0; r < kDirectionCount; ++r) {
    const Direction d(r);
    if (!torus_.direction_present(d)) continue;
    const ChannelId p = Torus::channel(torus_.neighbor(tail, d.opposite()), d);
    if (head_[p] == tail && ((successors_[p] >> rank) & 1u)) visit(p);
  }
}

// Pearce and Kelly's insertion (their Fig. 2): the new edge from -> to goes
// against the order, ord(to) < ord(from).  Forward from `to` over channels
// ordered before `from` (set F), backward from `from` over channels ordered
// after `to` (set B); B's channels then take the lowest of the positions
// both sets held, in their old relative order, and F's the rest.  Nothing
// outside B and F moves, and every edge still climbs.  An insertion that
// closes a cycle (add_path's unchecked routes) cannot be ordered: the graph
// then falls back to the stale order and Tarjan's refresh for good.
void IncrementalDependencyGraph::reorder_after_insert(ChannelId from, ChannelId to) {
  const std::uint32_t lower = order_[to], upper = order_[from];
  std::uint64_t work = 0;
  if (reach_before(to, upper, from, slots_, &work) == Reach::met_stop) {  // a cycle: no order exists
    dynamic_order_ = false;
    order_stale_ = true;
    search_work_->fetch_add(work, std::memory_order_relaxed);
    return;
  }
  reorder_backward_.assign(1, from);
  reorder_stack_.assign(1, from);
  mark_reordered(from);
  while (!reorder_stack_.empty()) {
    const ChannelId c = reorder_stack_.back();
    reorder_stack_.pop_back();
    ++work;
    for_each_predecessor(c, [&](ChannelId p) {
      if (order_[p] > lower && mark_reordered(p)) {
        reorder_backward_.push_back(p);
        reorder_stack_.push_back(p);
      }
    });
  }
  const auto by_order = [this](ChannelId a, ChannelId b) { return order_[a] < order_[b]; };
  std::sort(reorder_backward_.begin(), reorder_backward_.end(), by_order);
  std::sort(reorder_forward_.begin(), reorder_forward_.end(), by_order);
  reorder_pool_.clear();
  for (const ChannelId c : reorder_backward_) reorder_pool_.push_back(order_[c]);
  for (const ChannelId c : reorder_forward_) reorder_pool_.push_back(order_[c]);
  std::sort(reorder_pool_.begin(), reorder_pool_.end());
  std::size_t k = 0;
  for (const ChannelId c : reorder_backward_) order_[c] = reorder_pool_[k++];
  for (const ChannelId c : reorder_forward_) order_[c] = reorder_pool_[k++];
  search_work_->fetch_add(work, std::memory_order_relaxed);
}

// Tarjan's strongly connected components, iteratively.  Components come out
// sinks first; positions count down, so every edge goes to an equal or a
// later position.  Only channels that have had a successor are roots (and
// what they reach is visited): every other channel has no edge at all, so
// its position does not matter.  The work and the scratch it resets are
// thus sized by the routes added, not by the machine (a 32-node allocation
// of a 4096-node torus touches a few hundred of its 32768 channels).
void IncrementalDependencyGraph::refresh_order() const {
  constexpr std::uint32_t kUnvisited = 0xFFFFFFFFu;
  search_work_->fetch_add(active_.size(), std::memory_order_relaxed);
  if (tarjan_index_.empty()) {
    tarjan_index_.assign(slots_, kUnvisited);
    tarjan_low_.assign(slots_, 0);
    tarjan_on_stack_.assign(slots_, 0);
  }
  std::vector<std::uint32_t>& index = tarjan_index_;
  std::vector<std::uint32_t>& low = tarjan_low_;
  std::vector<unsigned char>& on_stack = tarjan_on_stack_;
  std::vector<ChannelId> stack, visited;
  std::vector<std::pair<ChannelId, int>> calls;  // (channel, next successor rank to look at)
  std::uint32_t counter = 0;
  std::uint32_t position = static_cast<std::uint32_t>(slots_);
  for (const ChannelId root : active_) {
    if (index[root] != kUnvisited) continue;
    calls.emplace_back(root, 0);
    index[root] = low[root] = counter++;
    visited.push_back(root);
    stack.push_back(root);
    on_stack[root] = 1;
    while (!calls.empty()) {
      auto& [c, rank] = calls.back();
      const std::uint8_t mask = successors_[c];
      bool descended = false;
      while (rank < kDirectionCount) {
        const int r = rank++;
        if (!((mask >> r) & 1u)) continue;
        const ChannelId next = target(c, r);
        if (index[next] == kUnvisited) {
          index[next] = low[next] = counter++;
          visited.push_back(next);
          stack.push_back(next);
          on_stack[next] = 1;
          calls.emplace_back(next, 0);
          descended = true;
          break;
        }
        if (on_stack[next]) low[c] = std::min(low[c], index[next]);
      }
      if (descended) continue;
      const ChannelId done = c;
      calls.pop_back();
      if (!calls.empty()) low[calls.back().first] = std::min(low[calls.back().first], low[done]);
      if (low[done] != index[done]) continue;
      --position;  // a component is complete: everything it reaches is placed after it
      ChannelId member;
      do {
        member = stack.back();
        stack.pop_back();
        on_stack[member] = 0;
        order_[member] = position;
      } while (member != done);
    }
  }
  for (const ChannelId c : visited) index[c] = kUnvisited;  // ready for the next refresh
  order_stale_ = false;
  stale_work_ = 0;
}

void IncrementalDependencyGraph::decrement(ChannelId from, ChannelId to) {
  const std::size_t s = slot(from, to);
  if (counts_[s] == 0)
    throw std::logic_error("channel dependency " + std::to_string(from) + " -> " + std::to_string(to) +
                           " removed more often than added");
  if (--counts_[s] == 0) successors_[from] &= static_cast<std::uint8_t>(~(1u << Torus::channel_direction(to).rank()));
}

bool IncrementalDependencyGraph::try_add_path(const std::vector<ChannelId>& channels) {
  // Edges are added one by one, each checked against the graph that already
  // holds the earlier ones: a cycle formed by several new edges together is
  // found when its last edge is checked.
  for (std::size_t k = 1; k < channels.size(); ++k) {
    if (closes_cycle(channels[k - 1], channels[k])) {
      for (std::size_t j = 1; j < k; ++j) decrement(channels[j - 1], channels[j]);
      return false;
    }
    increment(channels[k - 1], channels[k]);
  }
  return true;
}

void IncrementalDependencyGraph::add_path(const std::vector<ChannelId>& channels) {
  for (std::size_t k = 1; k < channels.size(); ++k) slot(channels[k - 1], channels[k]);  // validate first
  for (std::size_t k = 1; k < channels.size(); ++k) increment(channels[k - 1], channels[k]);
}

void IncrementalDependencyGraph::add_counts(const std::vector<std::uint32_t>& counts) {
  if (counts.size() != counts_.size())
    throw std::invalid_argument("dependency counts for " + std::to_string(counts.size() / kDirectionCount) +
                                " channel slots, the torus has " + std::to_string(slots_));
  for (std::size_t s = 0; s < counts.size(); ++s) {
    if (counts[s] == 0) continue;
    const auto from = static_cast<ChannelId>(s / kDirectionCount);
    const ChannelId to = target(from, static_cast<int>(s % kDirectionCount));
    slot(from, to);  // validates the pair
    increment(from, to);  // the first: the edge, its order and listing
    counts_[s] += counts[s] - 1;
  }
}

void IncrementalDependencyGraph::remove_path(const std::vector<ChannelId>& channels) {
  for (std::size_t k = 1; k < channels.size(); ++k)
    if (counts_[slot(channels[k - 1], channels[k])] == 0)
      throw std::logic_error("remove_path: the route was not added");
  for (std::size_t k = 1; k < channels.size(); ++k) decrement(channels[k - 1], channels[k]);
}

std::vector<ChannelId> route_channels(const Torus& torus, NodeId source, const std::vector<Direction>& hops) {
  std::vector<ChannelId> channels;
  channels.reserve(hops.size());
  NodeId at = source;
  for (const Direction d : hops) {
    channels.push_back(Torus::channel(at, d));
    at = torus.neighbor(at, d);
  }
  return channels;
}

}  // namespace angara
