// Routes and the routing table of one allocation.  A route is a source route:
// the hop directions in order, plus the virtual channel (layer) it uses.
#pragma once

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "angara/rules.hpp"
#include "angara/torus.hpp"

namespace angara {

struct Route {
  std::vector<Direction> hops;
  std::uint8_t layer = 0;  // virtual channel

  std::string to_string() const;  // "+Y +X +X -Z" ("" for no hops)
  friend bool operator==(const Route& a, const Route& b) {
    return a.hops == b.hops && a.layer == b.layer;
  }
};

// Parses "+Y +X -Z".  Throws std::invalid_argument naming the bad token.
std::vector<Direction> parse_hops(std::string_view text);

// Angara encodability (doc/model.md, "Routing rules"): the hops split as
// [FS] middle [LS], FS one positive hop, LS one negative hop, middle obeying
// DOR and the direction-bit rule.
bool is_angara_encodable(const std::vector<Direction>& hops);
// Pure DOR + direction-bit route (no FS/LS needed).
bool is_dor_route(const std::vector<Direction>& hops);

// A route as the compact store keeps it: one 32-bit word holding the
// Angara header's fields, [FS] DOR middle [LS] (doc/model.md, "Routing
// rules"): an optional First Step (positive), per dimension the sign and hop
// count of the middle, an optional Last Step (negative) and the layer.  Made
// by RouteTable::pack(); 0 is the empty (missing) route.
struct PackedRoute {
  std::uint32_t code = 0;
};

// A large table's words (kHugeFrom bytes or more) in a mapping of its own,
// aligned to 2 MiB and marked for transparent huge pages: a 256 MiB table
// faults in 128 times instead of 65536 (each fault a page's zeroing and its
// cgroup charge).  The mapping's pages are zero until written.
constexpr std::size_t kHugeFrom = std::size_t(8) << 20;
void* huge_zeroed(std::size_t bytes);
void huge_release(void* memory, std::size_t bytes) noexcept;

// Zeroed storage for a table's words, which start as 0 ("no route"): fresh
// pages are zero already (a mapping of its own for a large table, calloc()
// for the others), so a table of n^2 words (256 MiB on 16x8x8x8) costs no
// pass of its own before its routes are written.  Elements made without a
// value are left as they were given.
template <class T>
struct ZeroedAllocator {
  using value_type = T;
  ZeroedAllocator() = default;
  template <class U>
  ZeroedAllocator(const ZeroedAllocator<U>&) noexcept {}
  T* allocate(std::size_t count) {
    if (count * sizeof(T) >= kHugeFrom) return static_cast<T*>(huge_zeroed(count * sizeof(T)));
    void* memory = std::calloc(count == 0 ? 1 : count, sizeof(T));
    if (!memory) throw std::bad_alloc();
    return static_cast<T*>(memory);
  }
  void deallocate(T* memory, std::size_t count) noexcept {
    if (count * sizeof(T) >= kHugeFrom)
      huge_release(memory, count * sizeof(T));
    else
      std::free(memory);
  }
  template <class U>
  void construct(U*) noexcept {}  // zero already
  template <class U, class... Args>
  void construct(U* at, Args&&... args) {
    ::new (static_cast<void*>(at)) U(std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const ZeroedAllocator<U>&) const noexcept { return true; }
  template <class U>
  bool operator!=(const ZeroedAllocator<U>&) const noexcept { return false; }
};

// The routes of every ordered pair of distinct allocated nodes.
//
// Storage: one PackedRoute word per ordered pair, 4 bytes a route (a
// vector of hops would take several times that); an Angara-encodable route with at most 31 hops
// per dimension in the middle always fits.  Anything else (the arbitrary
// paths of the `general` rule set, layers above 7, long detours) goes to an
// overflow store of hop sequences, and its word holds the overflow index, so
// the class serves every generator.  Readers that walk many routes use
// for_each_run() / hop_count() / layer(), which decode without allocating.
class RouteTable {
 public:
  RouteTable() = default;
  // `nodes` is the allocation; it is sorted and deduplicated.
  explicit RouteTable(std::vector<NodeId> nodes);

  const std::vector<NodeId>& nodes() const { return nodes_; }
  std::size_t size() const { return nodes_.size(); }
  // Position of a node in nodes(), or npos if it is not allocated.
  std::size_t index_of(NodeId node) const;
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  // Routes by allocation index (src != dst).  A route with no hops and src !=
  // dst means "missing": has_route() is false for it.
  // Writers go through set_route() and readers through the const route()
  // only.  set_route() may be called from several threads at once for
  // distinct pairs.
  void set_route(std::size_t src, std::size_t dst, const Route& route);
  // The fast writer: a word from pack(), shared by many pairs.
  void set_route(std::size_t src, std::size_t dst, PackedRoute packed) { codes_[src * nodes_.size() + dst] = packed.code; }
  // Words for the `count` targets from `first_dst` on, in order (a closed
  // form's run of targets: a copy, not a look-up a target).
  void set_routes(std::size_t src, std::size_t first_dst, const PackedRoute* packed, std::size_t count) {
    static_assert(sizeof(PackedRoute) == sizeof(std::uint32_t) && std::is_trivially_copyable_v<PackedRoute>);
    // A block copy: the compiler does not vectorize a loop whose ends may alias.
    std::memcpy(codes_.data() + src * nodes_.size() + first_dst, packed, count * sizeof(std::uint32_t));
  }
  // The compact word of `route`, or nullopt when it needs the overflow store
  // (not Angara-encodable, a middle count above 31, a layer above 7).
  static std::optional<PackedRoute> pack(const Route& route);
  // The route of a word from pack().  Throws std::invalid_argument for a
  // word that is not a compact route (an overflow word).
  static Route unpack(PackedRoute packed);
  // The compact word of a stored route, nullopt if it lives in the overflow store.
  std::optional<PackedRoute> packed_route(std::size_t src, std::size_t dst) const {
    const std::uint32_t word = code(src, dst);
    if (is_overflow(word)) return std::nullopt;
    return PackedRoute{word};
  }

  // The decoded route (a copy).
  Route route(std::size_t src, std::size_t dst) const;
  bool has_route(std::size_t src, std::size_t dst) const { return src != dst && code(src, dst) != 0; }
  std::uint8_t layer(std::size_t src, std::size_t dst) const;
  std::size_t hop_count(std::size_t src, std::size_t dst) const;
  // Calls run(Direction, count) for the route's runs of equal hops, in
  // order, without allocating (adjacent runs may share a direction).
  template <class Run>
  void for_each_run(std::size_t src, std::size_t dst, Run run) const;
  // The same for a compact word from pack().
  template <class Run>
  static void for_each_packed_run(PackedRoute packed, Run run) {
    for_each_compact_run(packed.code, run);
  }
  // Calls hop(NodeId at, Direction d) for every hop of the route in order,
  // `at` the router the hop leaves (its channel: Torus::channel(at, d)), and
  // returns the node the route ends at.
  template <class Hop>
  NodeId walk(std::size_t src, std::size_t dst, const Torus& torus, Hop hop) const;

  // This table's routes among `nodes` (each one of nodes()), as a table
  // over them, its words copied a row segment at a time: what a caller
  // that computed the routes of a larger set keeps of them.  Throws
  // std::invalid_argument for a node this table does not hold.
  RouteTable restricted_to(std::vector<NodeId> nodes) const;

  // The words of row `src` (destinations in allocation order), for a
  // comparison of whole rows with a compact word each: a word equals a
  // compact word w exactly when the pair's route is w's (an overflow word
  // has X field 32, which no compact word has).
  const std::uint32_t* row_words(std::size_t src) const { return codes_.data() + src * nodes_.size(); }

  std::size_t virtual_channels() const;  // 1 + highest layer used
  // Bytes held by the routes (words and overflow store), for the reports.
  std::size_t route_bytes() const;
  std::size_t overflow_routes() const { return overflow_.size(); }

  std::string algorithm;  // name of the generator that produced it
  // The rule set and deadlock rule the table was made (and is verified) under.
  RuleSet rules = RuleSet::angara;
  FlowControl flow_control = FlowControl::bubble;

 private:
  // Word layout: bits 6d..6d+5 dimension d's middle (count 0..31 for +D,
  // 32 + count for -D); bits 24..28 FS * 5 + LS (0 none, 1 + dimension);
  // bits 29..31 the layer.  X's field 32 ("-X, no hops") never occurs in a
  // compact word and marks an overflow word: the index is in bits 6..31.
  static constexpr std::uint32_t kEscape = 32;
  static bool is_overflow(std::uint32_t code) { return (code & 63u) == kEscape; }
  template <class Run>
  static void for_each_compact_run(std::uint32_t word, Run run);
  std::uint32_t code(std::size_t src, std::size_t dst) const { return codes_[src * nodes_.size() + dst]; }
  struct Overflow {
    std::uint32_t first = 0;     // in overflow_hops_
    std::uint32_t length = 0;
    std::uint32_t capacity = 0;  // a rewrite that fits reuses the slot
    std::uint8_t layer = 0;
  };
  const Overflow& overflow(std::uint32_t code) const { return overflow_[code >> 6]; }

  std::vector<NodeId> nodes_;
  std::vector<std::size_t> index_;  // NodeId -> index, npos if absent
  std::vector<std::uint32_t, ZeroedAllocator<std::uint32_t>> codes_;
  std::vector<Overflow> overflow_;
  std::vector<Direction> overflow_hops_;
  // Guards the overflow store; every table object keeps a mutex of its own.
  struct Lock {
    std::unique_ptr<std::mutex> mutex = std::make_unique<std::mutex>();
    Lock() = default;
    Lock(const Lock&) : Lock() {}
    Lock(Lock&&) : Lock() {}
    Lock& operator=(const Lock&) { return *this; }
    Lock& operator=(Lock&&) { return *this; }
  };
  Lock overflow_lock_;
};

template <class Run>
void RouteTable::for_each_run(std::size_t src, std::size_t dst, Run run) const {
  const std::uint32_t word = code(src, dst);
  if (word == 0) return;
  if (is_overflow(word)) {
    const Overflow& entry = overflow(word);
    const Direction* hops = overflow_hops_.data() + entry.first;
    for (std::uint32_t i = 0; i < entry.length;) {
      std::uint32_t j = i + 1;
      while (j < entry.length && hops[j] == hops[i]) ++j;
      run(hops[i], static_cast<int>(j - i));
      i = j;
    }
    return;
  }
  for_each_compact_run(word, run);
}

template <class Hop>
NodeId RouteTable::walk(std::size_t src, std::size_t dst, const Torus& torus, Hop hop) const {
  NodeId here = nodes_[src];
  for_each_run(src, dst, [&](Direction direction, int count) {
    for (int i = 0; i < count; ++i) {
      hop(here, direction);
      here = torus.neighbor(here, direction);
    }
  });
  return here;
}

template <class Run>
void RouteTable::for_each_compact_run(std::uint32_t word, Run run) {
  const unsigned steps = (word >> 24) & 31u;
  if (steps / 5) run(Direction::make(static_cast<int>(steps / 5 - 1), false), 1);
  for (int negative = 0; negative <= 1; ++negative)
    for (int dim = 0; dim < kMaxDims; ++dim) {
      const unsigned field = (word >> (6 * dim)) & 63u;
      if (field && (field >= kEscape) == (negative != 0))
        run(Direction::make(dim, negative != 0), static_cast<int>(field & 31u));
    }
  if (steps % 5) run(Direction::make(static_cast<int>(steps % 5 - 1), true), 1);
}

// The plain dimension-order table of an allocation, the routing every
// Angara router can do without a generator (doc/model.md, "Routing rules")
// and the baseline the simulator and benchmarks compare against (what
// OpenSM's DOR engine would install): in each dimension the shorter way
// round, + on a tie, positive hops first, then negative ones (the
// direction-bit order).  A single-cabled size-2 dimension is crossed through
// its one cable (+ from coordinate 0, - from 1).  Failures are not looked at:
// a route may cross a failed router or cable (the verifier says so).
// `split_ties`: a ring tie (half an even ring's size away) goes the negative
// way from an odd coordinate and the positive way from an even one, instead
// of always the positive way.
RouteTable dimension_order_table(const Torus& torus, std::vector<NodeId> allocation, bool split_ties = false);

// The way a direction-order table takes a ring tie (half an even ring's
// size away), per dimension and parity of the source's coordinate: the
// negative way or the positive one.
struct RingTies {
  std::array<std::array<bool, 2>, kMaxDims> negative{};  // [dim][source coordinate & 1]
  static RingTies positive() { return {}; }
  static RingTies split() {  // the negative way from an odd coordinate
    RingTies ties;
    for (auto& way : ties.negative) way = {false, true};
    return ties;
  }
  friend bool operator==(const RingTies& a, const RingTies& b) { return a.negative == b.negative; }
};
// The same table with the ties of `ties`.
RouteTable dimension_order_table(const Torus& torus, std::vector<NodeId> allocation, const RingTies& ties);

// Whether that table's route goes the negative way in dimension `dim`, from
// coordinate `from` to the one `forward` (1 to size - 1) hops ahead the
// positive way.
inline bool dimension_order_negative(const Torus& torus, int dim, int from, int forward, const RingTies& ties) {
  const int size = torus.size(dim);
  if (size == 2 && torus.single_cabled(dim)) return from == 1;
  if (2 * forward == size) return ties.negative[static_cast<std::size_t>(dim)][static_cast<std::size_t>(from & 1)];
  return 2 * forward > size;
}
inline bool dimension_order_negative(const Torus& torus, int dim, int from, int forward, bool split_ties) {
  const int size = torus.size(dim);
  if (size == 2 && torus.single_cabled(dim)) return from == 1;
  if (split_ties && 2 * forward == size) return (from & 1) != 0;
  return 2 * forward > size;
}

}  // namespace angara
