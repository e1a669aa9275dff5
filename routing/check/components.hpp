// Strongly connected components (Tarjan), iterative: a recursion could be as
// deep as the graph has vertices (every channel of a large torus).  Shared by
// the verifier's channel dependency graph and the adaptive channel's extended
// dependency graph.  The generators' IncrementalDependencyGraph
// (routing/common) keeps its own, which orders components and reuses its
// scratch between refreshes; the checks share nothing with the generators.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace angara {

// `Graph` provides:
//   std::size_t vertices() const;
//   Cursor cursor(std::int32_t v) const;           // a walk over v's successors
//   bool next(Cursor& c, std::int32_t& w) const;   // the next successor, false at the end
// Only vertices for which `is_root(v)` holds start a search (what they reach
// is visited too); every other vertex keeps component -1.  Returns the
// component of each vertex; components are numbered sinks first.
template <class Graph, class IsRoot>
std::vector<std::int32_t> strongly_connected_components(const Graph& graph, IsRoot is_root) {
  using Cursor = decltype(graph.cursor(0));
  struct Frame {
    std::int32_t vertex;
    Cursor cursor;
  };
  const std::size_t n = graph.vertices();
  std::vector<std::int32_t> index(n, -1), low(n, 0), component(n, -1);
  std::vector<unsigned char> on_stack(n, 0);
  std::vector<std::int32_t> stack;
  std::vector<Frame> calls;
  std::int32_t counter = 0, count = 0;
  const auto open = [&](std::int32_t v) {
    index[v] = low[v] = counter++;
    stack.push_back(v);
    on_stack[v] = 1;
    calls.push_back({v, graph.cursor(v)});
  };
  for (std::size_t root = 0; root < n; ++root) {
    if (index[root] >= 0 || !is_root(static_cast<std::int32_t>(root))) continue;
    open(static_cast<std::int32_t>(root));
    while (!calls.empty()) {
      const std::int32_t v = calls.back().vertex;
      bool descended = false;
      std::int32_t w = 0;
      while (graph.next(calls.back().cursor, w)) {
        if (index[w] < 0) {
          open(w);
          descended = true;
          break;
        }
        if (on_stack[w]) low[v] = std::min(low[v], index[w]);
      }
      if (descended) continue;
      if (low[v] == index[v]) {
        std::int32_t u;
        do {
          u = stack.back();
          stack.pop_back();
          on_stack[u] = 0;
          component[u] = count;
        } while (u != v);
        ++count;
      }
      calls.pop_back();
      if (!calls.empty()) low[calls.back().vertex] = std::min(low[calls.back().vertex], low[v]);
    }
  }
  return component;
}

}  // namespace angara
