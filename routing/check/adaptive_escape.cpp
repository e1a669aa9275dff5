// Duato's condition for the table as the adaptive channel's escape; the
// definition is in doc/model.md, "The adaptive channel".
//
// The indirect dependencies lead from an escape channel to a channel that
// does not leave its head node, so they do not fit the per-node successor
// masks of ChannelDependencyGraph or IncrementalDependencyGraph: the
// extended graph is built here over the (virtual channel, channel) pairs the
// table uses, its indirect part as one bit row per escape channel.
#include "routing/check/adaptive_escape.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>

#include "routing/check/components.hpp"
#include "routing/common/parallel.hpp"

namespace angara {
namespace {

using Word = std::uint64_t;
constexpr std::int32_t kNone = -1;

std::string channel_name(const Torus& torus, ChannelId c) {
  return torus.format_coord(Torus::channel_node(c)) + " " + Torus::channel_direction(c).token();
}

// The escape vertices: every (virtual channel, channel) a route uses,
// numbered densely so that the bit rows stay as short as the table allows.
class Vertices {
 public:
  explicit Vertices(std::size_t slots) : slots_(slots) {}
  void add(std::size_t layer, ChannelId c) {
    const std::size_t raw = layer * slots_ + c;
    if (raw >= id_.size()) id_.resize(raw + 1, kNone);
    if (id_[raw] == kNone) {
      id_[raw] = static_cast<std::int32_t>(raw_.size());
      raw_.push_back(raw);
    }
  }
  std::int32_t of(std::size_t layer, ChannelId c) const {
    const std::size_t raw = layer * slots_ + c;
    return raw < id_.size() ? id_[raw] : kNone;
  }
  std::size_t count() const { return raw_.size(); }
  std::size_t words() const { return (raw_.size() + 63) / 64; }
  std::size_t layer(std::int32_t v) const { return raw_[static_cast<std::size_t>(v)] / slots_; }
  ChannelId channel(std::int32_t v) const { return static_cast<ChannelId>(raw_[static_cast<std::size_t>(v)] % slots_); }

 private:
  std::size_t slots_;
  std::vector<std::int32_t> id_;
  std::vector<std::size_t> raw_;
};

void set_bit(Word* row, std::int32_t v) { row[v / 64] |= Word{1} << (v % 64); }
bool test_bit(const Word* row, std::int32_t v) { return (row[v / 64] >> (v % 64)) & 1u; }

// One hop of an escape route toward the destination that is not its last:
// the packet is in the escape buffer at `head` and may leave for the
// adaptive channel there.
struct EscapeHop {
  std::size_t source;   // allocation index of the route's source (its drop-in router)
  std::int32_t vertex;  // the escape channel
  NodeId head;          // the router it enters
};

// Everything about one destination: the adaptive channel's minimal hops
// toward it, each router's escape vertex (its own route's first hop), and
// the escape vertices an adaptive packet can drop into after at least one
// hop from each router.
class Destination {
 public:
  Destination(const Network& network, const RouteTable& table, const Vertices& vertices,
              const std::vector<unsigned char>& usable)
      : network_(network), table_(table), vertices_(vertices), usable_(usable), words_(vertices.words()) {
    const std::size_t n = table.size();
    escape_.resize(n);
    distance_.resize(n);
    reach_.resize(n * words_);
  }

  void prepare(std::size_t dst) {
    const Torus& torus = network_.torus();
    const std::vector<NodeId>& nodes = table_.nodes();
    const std::size_t n = nodes.size();
    dst_ = dst;
    std::fill(reach_.begin(), reach_.end(), Word{0});
    int longest = 0;
    for (std::size_t y = 0; y < n; ++y) {
      escape_[y] = kNone;
      distance_[y] = usable_[y] ? torus.distance(nodes[y], nodes[dst]) : -1;
      longest = std::max(longest, distance_[y]);
      if (!usable_[y] || y == dst || !table_.has_route(y, dst)) continue;
      ChannelId first = 0;
      bool found = false;
      table_.for_each_run(y, dst, [&](Direction d, int) {
        if (!found) first = Torus::channel(nodes[y], d);
        found = true;
      });
      escape_[y] = vertices_.of(table_.layer(y, dst), first);
    }
    // Nearer routers first: a router's reach is made of its successors'.
    buckets_.assign(static_cast<std::size_t>(longest) + 1, {});
    for (std::size_t y = 0; y < n; ++y)
      if (distance_[y] > 0) buckets_[static_cast<std::size_t>(distance_[y])].push_back(y);
    for (const std::vector<std::size_t>& bucket : buckets_)
      for (std::size_t y : bucket) reach_from(nodes[y], distance_[y], &reach_[y * words_]);
  }

  // Calls next(direction, allocation index) for every minimal hop of the
  // adaptive channel from `at` (distance `distance` from the destination):
  // over a live channel to a live allocated router one hop nearer.
  template <class Next>
  void minimal_hops(NodeId at, int distance, Next next) const {
    const Torus& torus = network_.torus();
    for (int rank = 0; rank < kDirectionCount; ++rank) {
      const Direction d(rank);
      if (!torus.direction_present(d) || !network_.channel_alive(at, d)) continue;
      const std::size_t w = table_.index_of(torus.neighbor(at, d));
      if (w == RouteTable::npos || !usable_[w] || distance_[w] != distance - 1) continue;
      next(d, w);
    }
  }

  // The escape vertices reachable from `at` over one or more adaptive hops.
  void reach_from(NodeId at, int distance, Word* row) const {
    minimal_hops(at, distance, [&](Direction, std::size_t w) {
      if (w != dst_ && escape_[w] != kNone) set_bit(row, escape_[w]);
      const Word* further = &reach_[w * words_];
      for (std::size_t i = 0; i < words_; ++i) row[i] |= further[i];
    });
  }
  // Adds to `row` the escape vertices reachable from `at` (any router).
  void add_reach_of(NodeId at, Word* row) const {
    const std::size_t v = table_.index_of(at);
    if (v != RouteTable::npos && usable_[v]) {
      const Word* reach = &reach_[v * words_];
      for (std::size_t i = 0; i < words_; ++i) row[i] |= reach[i];
      return;
    }
    reach_from(at, network_.torus().distance(at, table_.nodes()[dst_]), row);
  }

  // Calls visit(hop) for every hop but the last of every route to the destination.
  template <class Visit>
  void for_each_escape_hop(Visit visit) const {
    const Torus& torus = network_.torus();
    for (std::size_t x = 0; x < table_.size(); ++x) {
      if (x == dst_ || !usable_[x] || !table_.has_route(x, dst_)) continue;
      const std::size_t hops = table_.hop_count(x, dst_);
      const std::size_t layer = table_.layer(x, dst_);
      std::size_t k = 0;
      table_.walk(x, dst_, torus, [&](NodeId at, Direction d) {
        if (++k == hops) return;
        visit(EscapeHop{x, vertices_.of(layer, Torus::channel(at, d)), torus.neighbor(at, d)});
      });
    }
  }

  std::size_t words() const { return words_; }

 private:
  const Network& network_;
  const RouteTable& table_;
  const Vertices& vertices_;
  const std::vector<unsigned char>& usable_;
  std::size_t words_;
  std::size_t dst_ = 0;
  std::vector<std::int32_t> escape_;
  std::vector<int> distance_;
  std::vector<std::vector<std::size_t>> buckets_;
  std::vector<Word> reach_;
};

// Adds the indirect dependencies toward `dst` to `rows`: one bit row per
// escape vertex, a bit per escape vertex it leads to.  `seen` marks the
// escape vertices done for this destination (a channel has one head).
void collect_indirect(Destination& context, std::size_t dst, std::vector<std::uint32_t>& seen,
                      std::vector<Word>& rows) {
  const std::size_t words = context.words();
  context.prepare(dst);
  const std::uint32_t stamp = static_cast<std::uint32_t>(dst) + 1;
  context.for_each_escape_hop([&](const EscapeHop& hop) {
    if (hop.vertex == kNone || seen[static_cast<std::size_t>(hop.vertex)] == stamp) return;
    seen[static_cast<std::size_t>(hop.vertex)] = stamp;  // the same channel leads to the same head
    context.add_reach_of(hop.head, &rows[static_cast<std::size_t>(hop.vertex) * words]);
  });
}

// The extended graph: the direct dependencies in compressed rows (at most
// eight a channel), the indirect ones read from their bit rows in place, so
// that the largest part is never copied.
class ExtendedGraph {
 public:
  ExtendedGraph(std::vector<std::uint32_t> direct_begin, std::vector<std::int32_t> direct_target,
                const std::vector<Word>& rows, std::size_t words)
      : direct_begin_(std::move(direct_begin)), direct_target_(std::move(direct_target)), rows_(rows), words_(words) {}

  std::size_t vertices() const { return direct_begin_.size() - 1; }

  // Where the walk over one vertex's dependencies stands.
  struct Cursor {
    std::int32_t vertex;
    std::uint32_t direct;
    std::size_t word;  // the next row word to load
    Word bits;         // what is left of the word loaded last
  };
  Cursor cursor(std::int32_t v) const { return {v, direct_begin_[static_cast<std::size_t>(v)], 0, 0}; }
  bool next(Cursor& c, std::int32_t& to) const {
    bool indirect = false;
    return next(c, to, indirect);
  }
  // The next dependency of the cursor's vertex: false when there is none.
  bool next(Cursor& c, std::int32_t& to, bool& indirect) const {
    if (c.direct < direct_begin_[static_cast<std::size_t>(c.vertex) + 1]) {
      to = direct_target_[c.direct++];
      indirect = false;
      return true;
    }
    while (!c.bits) {
      if (c.word >= words_) return false;
      c.bits = rows_[static_cast<std::size_t>(c.vertex) * words_ + c.word++];
    }
    to = static_cast<std::int32_t>((c.word - 1) * 64 + static_cast<std::size_t>(__builtin_ctzll(c.bits)));
    c.bits &= c.bits - 1;
    indirect = true;
    return true;
  }

 private:
  std::vector<std::uint32_t> direct_begin_;  // vertex -> first direct dependency; size vertices + 1
  std::vector<std::int32_t> direct_target_;
  const std::vector<Word>& rows_;
  std::size_t words_;
};

std::vector<std::int32_t> components_of(const ExtendedGraph& graph) {
  return strongly_connected_components(graph, [](std::int32_t) { return true; });
}

// One dependency of the extended graph.
struct Dependency {
  std::int32_t from = 0, to = 0;
  bool indirect = false;
};

// The shortest cycle through `first`, inside its component, written
// "A -> B ~> C -> A" ("~>" an indirect dependency); long cycles are cut in
// the middle.
std::string cycle_text(const ExtendedGraph& graph, const std::vector<std::int32_t>& component, const Dependency& first,
                       const std::function<std::string(std::int32_t)>& name) {
  const std::size_t n = graph.vertices();
  std::vector<Dependency> parent(n);  // how the search reached each vertex
  std::vector<unsigned char> visited(n, 0);
  std::vector<std::int32_t> queue{first.to};
  visited[static_cast<std::size_t>(first.to)] = 1;
  for (std::size_t head = 0; head < queue.size() && !visited[static_cast<std::size_t>(first.from)]; ++head) {
    const std::int32_t v = queue[head];
    ExtendedGraph::Cursor cursor = graph.cursor(v);
    std::int32_t w = 0;
    bool indirect = false;
    while (graph.next(cursor, w, indirect)) {
      if (visited[static_cast<std::size_t>(w)] || component[w] != component[first.from]) continue;
      visited[static_cast<std::size_t>(w)] = 1;
      parent[static_cast<std::size_t>(w)] = {v, w, indirect};
      queue.push_back(w);
    }
  }
  // The path back to `first.to`, then `first` itself: a closed walk.
  std::vector<Dependency> steps;
  for (std::int32_t v = first.from; v != first.to && visited[static_cast<std::size_t>(v)];) {
    steps.push_back(parent[static_cast<std::size_t>(v)]);
    v = parent[static_cast<std::size_t>(v)].from;
  }
  steps.push_back(first);
  std::reverse(steps.begin(), steps.end());
  std::string text = name(first.from);
  for (std::size_t k = 0; k < steps.size(); ++k) {
    if (steps.size() > 12 && k == 6) {
      text += " ... (" + std::to_string(steps.size() - 10) + " more)";
      k = steps.size() - 4;
    }
    text += std::string(steps[k].indirect ? " ~> " : " -> ") + name(steps[k].to);
  }
  return text;
}

// A route for the messages, "1,0 -> 3,0 (+X +X)".
std::string route_text(const Torus& torus, const RouteTable& table, std::size_t s, std::size_t d) {
  return torus.format_coord(table.nodes()[s]) + " -> " + torus.format_coord(table.nodes()[d]) + " (" +
         table.route(s, d).to_string() + ")";
}

// Finds the routes behind an indirect dependency from -> to, for the message.
std::string explain_indirect(const Network& network, const RouteTable& table, const Vertices& vertices,
                             const std::vector<unsigned char>& usable, std::int32_t from, std::int32_t to) {
  const Torus& torus = network.torus();
  Destination context(network, table, vertices, usable);
  std::vector<Word> row(context.words());
  for (std::size_t dst = 0; dst < table.size(); ++dst) {
    if (!usable[dst]) continue;
    context.prepare(dst);
    std::optional<EscapeHop> witness;
    context.for_each_escape_hop([&](const EscapeHop& hop) {
      if (witness || hop.vertex != from) return;
      std::fill(row.begin(), row.end(), Word{0});
      context.add_reach_of(hop.head, row.data());
      if (test_bit(row.data(), to)) witness = hop;
    });
    if (!witness) continue;
    const std::size_t y = table.index_of(Torus::channel_node(vertices.channel(to)));
    return "a packet for " + torus.format_coord(table.nodes()[dst]) + " on route " +
           route_text(torus, table, witness->source, dst) + " may leave the escape channel at " +
           torus.format_coord(witness->head) + ", take minimal hops on the adaptive channel to " +
           torus.format_coord(table.nodes()[y]) + " and drop into its route " + route_text(torus, table, y, dst);
  }
  return "";
}

}  // namespace

EscapeCheck check_adaptive_escape(const Network& network, const RouteTable& table, const SuccessorMasks& direct,
                                  FlowControl flow) {
  const Torus& torus = network.torus();
  // The channel of direction rank `rank` leaving c's head node.
  const auto target = [&](ChannelId c, int rank) {
    return Torus::channel(torus.neighbor(Torus::channel_node(c), Torus::channel_direction(c)), Direction(rank));
  };
  const std::vector<NodeId>& nodes = table.nodes();
  const std::size_t n = nodes.size();
  std::vector<unsigned char> usable(n, 0);
  for (std::size_t i = 0; i < n; ++i) usable[i] = nodes[i] < torus.node_count() && network.node_alive(nodes[i]);

  // The escape vertices: every hop of every route, and the direct graphs'.
  Vertices vertices(torus.channel_slots());
  for (std::size_t layer = 0; layer < direct.size(); ++layer)
    for (ChannelId c = 0; c < direct[layer].size(); ++c)
      for (int rank = 0; direct[layer][c] && rank < kDirectionCount; ++rank)
        if ((direct[layer][c] >> rank) & 1u) {
          vertices.add(layer, c);
          vertices.add(layer, target(c, rank));
        }
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d)
      if (usable[s] && table.has_route(s, d)) {
        const std::size_t layer = table.layer(s, d);
        table.walk(s, d, torus, [&](NodeId at, Direction dir) { vertices.add(layer, Torus::channel(at, dir)); });
      }
  const std::size_t count = vertices.count(), words = vertices.words();

  // The indirect dependencies, destination by destination over the threads.
  std::vector<std::vector<Word>> parts(parallel_parts(n));
  run_parallel(n, [&](std::size_t part, std::size_t begin, std::size_t end) {
    std::vector<Word>& rows = parts[part];
    rows.assign(count * words, 0);
    Destination context(network, table, vertices, usable);
    std::vector<std::uint32_t> seen(count, 0);
    for (std::size_t dst = begin; dst < end; ++dst)
      if (usable[dst]) collect_indirect(context, dst, seen, rows);
  });
  std::vector<Word>& rows = parts.front();
  for (std::size_t p = 1; p < parts.size(); ++p)
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] |= parts[p][i];

  // The deadlock rule on the extended graph (doc/model.md, "Deadlock rule"):
  // under bubble a dependency is forbidden on a cycle when its two channels
  // differ in dimension or sign, or here also in virtual channel (the packet
  // enters another virtual channel's ring); under none every one is.
  const auto forbidden = [&](std::int32_t from, std::int32_t to) {
    return flow == FlowControl::none || vertices.layer(from) != vertices.layer(to) ||
           Torus::channel_direction(vertices.channel(from)) != Torus::channel_direction(vertices.channel(to));
  };

  // Direct and indirect dependencies in one graph; the other threads' rows
  // are merged and freed.
  parts.resize(1);
  EscapeCheck result;
  for (const Word word : rows) result.indirect_dependencies += static_cast<std::size_t>(__builtin_popcountll(word));
  std::vector<std::uint32_t> direct_begin;
  std::vector<std::int32_t> direct_target;
  direct_begin.reserve(count + 1);
  for (std::size_t u = 0; u < count; ++u) {
    direct_begin.push_back(static_cast<std::uint32_t>(direct_target.size()));
    const auto v = static_cast<std::int32_t>(u);
    const std::size_t layer = vertices.layer(v);
    const ChannelId c = vertices.channel(v);
    if (layer < direct.size() && c < direct[layer].size())
      for (int rank = 0; rank < kDirectionCount; ++rank)
        if ((direct[layer][c] >> rank) & 1u)
          if (const std::int32_t w = vertices.of(layer, target(c, rank)); w != kNone) direct_target.push_back(w);
  }
  direct_begin.push_back(static_cast<std::uint32_t>(direct_target.size()));
  const ExtendedGraph graph(std::move(direct_begin), std::move(direct_target), rows, words);

  const std::vector<std::int32_t> component = components_of(graph);
  std::vector<unsigned char> flagged(count, 0);
  std::optional<Dependency> example_direct, example_indirect;
  for (std::size_t u = 0; u < count; ++u) {
    const auto v = static_cast<std::int32_t>(u);
    ExtendedGraph::Cursor cursor = graph.cursor(v);
    std::int32_t w = 0;
    bool indirect = false;
    while (graph.next(cursor, w, indirect)) {
      if (!forbidden(v, w) || component[w] != component[v]) continue;
      const auto id = static_cast<std::size_t>(component[v]);
      if (!flagged[id]) {
        flagged[id] = 1;
        ++result.cyclic_components;
      }
      std::optional<Dependency>& example = indirect ? example_indirect : example_direct;
      if (!example) example = Dependency{v, w, indirect};
    }
  }
  if (!result.cyclic_components) return result;

  const auto name = [&](std::int32_t v) {
    return channel_name(torus, vertices.channel(v)) + " (virtual channel " + std::to_string(vertices.layer(v)) + ")";
  };
  // In the cycle: the channel alone on a table with one virtual channel.
  const std::function<std::string(std::int32_t)> short_name = [&](std::int32_t v) {
    return channel_name(torus, vertices.channel(v)) +
           (direct.size() > 1 ? "/" + std::to_string(vertices.layer(v)) : std::string());
  };
  if (example_indirect) {
    const Dependency& dependency = *example_indirect;
    result.example = "indirect dependency " + name(dependency.from) + " -> " + name(dependency.to) +
                     " lies on a cycle of the extended channel dependency graph";
    const std::string why = explain_indirect(network, table, vertices, usable, dependency.from, dependency.to);
    if (!why.empty()) result.example += ": " + why;
    result.example += "; cycle " + cycle_text(graph, component, dependency, short_name);
  } else {
    const Dependency& dependency = *example_direct;
    result.example = "dependency " + name(dependency.from) + " -> " + name(dependency.to) +
                     " lies on a cycle that indirect dependencies through the adaptive channel close; cycle " +
                     cycle_text(graph, component, dependency, short_name);
  }
  return result;
}

}  // namespace angara
