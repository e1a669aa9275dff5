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

// The extended graph in compressed rows, with a flag per edge: forbidden
// on a cycle (a turn under bubble, anything under none), indirect or direct.
struct ExtendedGraph {
  std::vector<std::uint32_t> begin;  // vertex -> first edge; size vertices + 1
  std::vector<std::int32_t> target;
  std::vector<unsigned char> forbidden, indirect;
};

// Tarjan's strongly connected components, iterative.
std::vector<std::int32_t> components_of(const ExtendedGraph& graph) {
  const std::size_t n = graph.begin.size() - 1;
  std::vector<std::int32_t> index(n, -1), low(n, 0), component(n, -1);
  std::vector<unsigned char> on_stack(n, 0);
  std::vector<std::int32_t> stack;
  std::vector<std::pair<std::int32_t, std::uint32_t>> calls;  // vertex, next edge
  std::int32_t counter = 0, count = 0;
  for (std::size_t root = 0; root < n; ++root) {
    if (index[root] >= 0) continue;
    const auto open = [&](std::int32_t v) {
      index[v] = low[v] = counter++;
      stack.push_back(v);
      on_stack[v] = 1;
      calls.emplace_back(v, graph.begin[v]);
    };
    open(static_cast<std::int32_t>(root));
    while (!calls.empty()) {
      const std::int32_t v = calls.back().first;
      bool descended = false;
      while (calls.back().second < graph.begin[v + 1]) {
        const std::int32_t w = graph.target[calls.back().second++];
        if (index[w] < 0) {
          open(w);
          descended = true;
          break;
        }
        if (on_stack[w]) low[v] = std::min(low[v], index[w]);
      }
      if (descended) continue;
      if (low[v] == index[v]) {
        std::int32_t w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = 0;
          component[w] = count;
        } while (w != v);
        ++count;
      }
      calls.pop_back();
      if (!calls.empty()) low[calls.back().first] = std::min(low[calls.back().first], low[v]);
    }
  }
  return component;
}

// The shortest cycle through the edge `first` (from -> graph.target[first]),
// inside one component, written "A -> B ~> C -> A" ("~>" an indirect
// dependency); long cycles are cut in the middle.
std::string cycle_text(const ExtendedGraph& graph, const std::vector<std::int32_t>& component, std::int32_t from,
                       std::uint32_t first, const std::function<std::string(std::int32_t)>& name) {
  const std::size_t n = graph.begin.size() - 1;
  std::vector<std::int64_t> parent_edge(n, -1);
  std::vector<std::int32_t> queue{graph.target[first]};
  std::vector<unsigned char> visited(n, 0);
  visited[static_cast<std::size_t>(graph.target[first])] = 1;
  for (std::size_t head = 0; head < queue.size() && !visited[static_cast<std::size_t>(from)]; ++head) {
    const std::int32_t v = queue[head];
    for (std::uint32_t e = graph.begin[v]; e < graph.begin[v + 1]; ++e) {
      const std::int32_t w = graph.target[e];
      if (visited[w] || component[w] != component[from]) continue;
      visited[w] = 1;
      parent_edge[w] = e;
      queue.push_back(w);
    }
  }
  // Edges of the path back, then the first edge: a closed walk from `from`.
  std::vector<std::uint32_t> edges;
  for (std::int32_t v = from; v != graph.target[first] && parent_edge[v] >= 0;) {
    const auto e = static_cast<std::uint32_t>(parent_edge[v]);
    edges.push_back(e);
    // The edge's source: the vertex whose range holds it.
    const auto source = static_cast<std::int32_t>(
        std::upper_bound(graph.begin.begin(), graph.begin.end(), e) - graph.begin.begin() - 1);
    v = source;
  }
  edges.push_back(first);
  std::reverse(edges.begin(), edges.end());
  std::string text = name(from);
  for (std::size_t k = 0; k < edges.size(); ++k) {
    if (edges.size() > 12 && k == 6) {
      text += " ... (" + std::to_string(edges.size() - 10) + " more)";
      k = edges.size() - 4;
    }
    text += std::string(graph.indirect[edges[k]] ? " ~> " : " -> ") + name(graph.target[edges[k]]);
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

  // Direct and indirect dependencies in one graph.
  EscapeCheck result;
  ExtendedGraph graph;
  graph.begin.reserve(count + 1);
  for (std::size_t u = 0; u < count; ++u) {
    graph.begin.push_back(static_cast<std::uint32_t>(graph.target.size()));
    const auto v = static_cast<std::int32_t>(u);
    const std::size_t layer = vertices.layer(v);
    const ChannelId c = vertices.channel(v);
    if (layer < direct.size() && c < direct[layer].size())
      for (int rank = 0; rank < kDirectionCount; ++rank) {
        if (!((direct[layer][c] >> rank) & 1u)) continue;
        const std::int32_t w = vertices.of(layer, target(c, rank));
        if (w == kNone) continue;
        graph.target.push_back(w);
        graph.forbidden.push_back(forbidden(v, w));
        graph.indirect.push_back(0);
      }
    for (std::size_t i = 0; i < words; ++i) {
      Word bits = rows[u * words + i];
      while (bits) {
        const auto w = static_cast<std::int32_t>(i * 64 + static_cast<std::size_t>(__builtin_ctzll(bits)));
        bits &= bits - 1;
        graph.target.push_back(w);
        graph.forbidden.push_back(forbidden(v, w));
        graph.indirect.push_back(1);
        ++result.indirect_dependencies;
      }
    }
  }
  graph.begin.push_back(static_cast<std::uint32_t>(graph.target.size()));

  const std::vector<std::int32_t> component = components_of(graph);
  std::vector<unsigned char> flagged(count, 0);
  std::optional<std::pair<std::int32_t, std::uint32_t>> example_direct, example_indirect;
  for (std::size_t u = 0; u < count; ++u)
    for (std::uint32_t e = graph.begin[u]; e < graph.begin[u + 1]; ++e) {
      if (!graph.forbidden[e] || component[graph.target[e]] != component[u]) continue;
      const auto id = static_cast<std::size_t>(component[u]);
      if (!flagged[id]) {
        flagged[id] = 1;
        ++result.cyclic_components;
      }
      auto& example = graph.indirect[e] ? example_indirect : example_direct;
      if (!example) example = std::make_pair(static_cast<std::int32_t>(u), e);
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
    const auto [from, e] = *example_indirect;
    const std::int32_t to = graph.target[e];
    result.example = "indirect dependency " + name(from) + " -> " + name(to) +
                     " lies on a cycle of the extended channel dependency graph";
    const std::string why = explain_indirect(network, table, vertices, usable, from, to);
    if (!why.empty()) result.example += ": " + why;
    result.example += "; cycle " + cycle_text(graph, component, from, e, short_name);
  } else {
    const auto [from, e] = *example_direct;
    result.example = "dependency " + name(from) + " -> " + name(graph.target[e]) +
                     " lies on a cycle that indirect dependencies through the adaptive channel close; cycle " +
                     cycle_text(graph, component, from, e, short_name);
  }
  return result;
}

}  // namespace angara
