// dfsssp: deadlock-free single-source-shortest-path routing (DFSSSP paper,
// Domke, Hoefler, Nagel).  Section II: balanced shortest paths
// (routing/common/shortest_paths.hpp; `passes: 2` re-routes every tree once more
// against the final weights of the others).  Section IV, Algorithm 2, the
// offline variant: every path starts on layer 0; a cycle search in each
// layer's channel dependency graph returns a forbidden cycle, the weakest
// dependency of the cycle (the one induced by the fewest paths, the paper's
// best heuristic) is cut by moving every path that induces it to the next
// layer, and the search goes on until the layer is clean; then the next
// layer.  With `spread: 1` the paths are finally spread over the layers left
// empty (the paper's balancing); by default a table keeps the fewest layers,
// which is what the report then shows.
//
// The deadlock rule is doc/model.md's (options.flow_control): under
// bubble flow control a cycle around one ring in one direction is harmless,
// so only cycles with a turn are cut.  On a torus that is where the layers
// are saved: the ring cycles that every shortest-path routing of a torus
// induces cost other implementations a layer each.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "angara/routing_graph.hpp"
#include "routing/generator.hpp"
#include "routing/common/layering.hpp"
#include "routing/common/shortest_paths.hpp"

namespace angara {

namespace {

// The paths of a PathSet indexed by the dependencies they induce, with one
// dependency count array per layer.
class LayeredDependencies {
 public:
  LayeredDependencies(const Torus& torus, const PathSet& paths, FlowControl rule)
      : torus_(torus), paths_(paths), rule_(rule), slots_(std::size_t(torus.channel_slots()) * kDirectionCount) {
    head_.resize(torus.channel_slots(), kNoNode);
    for (NodeId node = 0; node < torus.node_count(); ++node)
      for (int rank = 0; rank < kDirectionCount; ++rank)
        if (torus.direction_present(Direction(rank)))
          head_[Torus::channel(node, Direction(rank))] = torus.neighbor(node, Direction(rank));
    // Dependency -> paths, in CSR form.
    first_.assign(slots_ + 1, 0);
    for (std::size_t p = 0; p < paths.pair_count(); ++p)
      for (const ChannelId* c = paths.begin(p) + 1; c < paths.end(p); ++c) ++first_[dependency_slot(c[-1], c[0]) + 1];
    for (std::size_t s = 0; s < slots_; ++s) first_[s + 1] += first_[s];
    users_.resize(first_[slots_]);
    std::vector<std::size_t> fill(first_.begin(), first_.end() - 1);
    for (std::size_t p = 0; p < paths.pair_count(); ++p)
      for (const ChannelId* c = paths.begin(p) + 1; c < paths.end(p); ++c)
        users_[fill[dependency_slot(c[-1], c[0])]++] = static_cast<std::uint32_t>(p);
    layer_.assign(paths.pair_count(), 0);
    counts_.emplace_back(slots_, 0);
    for (std::size_t s = 0; s < slots_; ++s) counts_[0][s] = static_cast<std::uint32_t>(first_[s + 1] - first_[s]);
  }

  std::vector<std::uint8_t>& layers() { return layer_; }
  int layer_count() const { return static_cast<int>(counts_.size()); }

  // Cuts forbidden cycles of `layer` until none is left, moving paths to
  // layer + 1 (opened on demand).
  void clean(int layer) {
    while (true) {
      const std::vector<std::int32_t> component = components(layer);
      bool cut = false;
      // One cycle per offending component per round, then the components
      // are recomputed (a cut may split or dissolve them).
      std::vector<unsigned char> done(component_count_, 0);
      for (ChannelId c = 0; c < head_.size(); ++c) {
        if (head_[c] == kNoNode || component[c] < 0 || done[component[c]]) continue;
        for (int rank = 0; rank < kDirectionCount; ++rank) {
          const std::size_t s = std::size_t(c) * kDirectionCount + rank;
          if (counts_[layer][s] == 0) continue;
          const ChannelId next = target(c, rank);
          if (component[next] != component[c]) continue;
          if (rule_ == FlowControl::bubble && Torus::channel_direction(c).rank() == rank) continue;
          // A forbidden dependency c -> next on a cycle: close it through the
          // component and cut the cycle's weakest dependency.  An earlier cut
          // of this round may have moved paths out of this component too (a
          // path crosses several), so the cycle can be gone already: the
          // component is looked at again with the next round's components.
          const std::vector<std::size_t> cycle = cycle_through(layer, component, c, next);
          done[component[c]] = 1;
          if (cycle.empty()) break;
          cut_weakest(layer, cycle);
          cut = true;
          break;
        }
      }
      if (!cut) return;
    }
  }

  bool layer_empty(int layer) const {
    return layer >= layer_count() ||
           std::all_of(counts_[layer].begin(), counts_[layer].end(), [](std::uint32_t v) { return v == 0; });
  }

 private:
  ChannelId target(ChannelId c, int rank) const { return head_[c] * kDirectionCount + static_cast<ChannelId>(rank); }

  // Strongly connected components of the layer's dependency graph (Tarjan,
  // iterative).  Channels without dependencies get -1.
  std::vector<std::int32_t> components(int layer) {
    const std::size_t channels = head_.size();
    const std::vector<std::uint32_t>& count = counts_[layer];
    std::vector<std::int32_t> component(channels, -1), index(channels, -1), low(channels, 0);
    std::vector<unsigned char> on_stack(channels, 0);
    std::vector<ChannelId> stack;
    std::vector<std::pair<ChannelId, int>> call;  // channel, next rank to look at
    std::int32_t counter = 0;
    component_count_ = 0;
    for (ChannelId root = 0; root < channels; ++root) {
      if (head_[root] == kNoNode || index[root] >= 0) continue;
      call.emplace_back(root, 0);
      index[root] = low[root] = counter++;
      stack.push_back(root);
      on_stack[root] = 1;
      while (!call.empty()) {
        auto& [c, rank] = call.back();
        bool descended = false;
        while (rank < kDirectionCount) {
          const int r = rank++;
          if (count[std::size_t(c) * kDirectionCount + r] == 0) continue;
          const ChannelId next = target(c, r);
          if (index[next] < 0) {
            index[next] = low[next] = counter++;
            stack.push_back(next);
            on_stack[next] = 1;
            call.emplace_back(next, 0);
            descended = true;
            break;
          }
          if (on_stack[next]) low[c] = std::min(low[c], index[next]);
        }
        if (descended) continue;
        const ChannelId done = c;
        call.pop_back();
        if (!call.empty()) low[call.back().first] = std::min(low[call.back().first], low[done]);
        if (low[done] == index[done]) {
          ChannelId member;
          do {
            member = stack.back();
            stack.pop_back();
            on_stack[member] = 0;
            component[member] = component_count_;
          } while (member != done);
          ++component_count_;
        }
      }
    }
    return component;
  }

  // The dependencies (slots) of a cycle that runs from -> to and back inside
  // to's component: breadth-first from `to` to `from`; empty when `from`
  // cannot be reached any more.
  std::vector<std::size_t> cycle_through(int layer, const std::vector<std::int32_t>& component, ChannelId from,
                                         ChannelId to) {
    parent_.assign(head_.size(), kNoChannel);
    std::vector<ChannelId> queue{to};
    parent_[to] = to;
    for (std::size_t i = 0; i < queue.size() && parent_[from] == kNoChannel; ++i) {
      const ChannelId c = queue[i];
      for (int rank = 0; rank < kDirectionCount; ++rank) {
        if (counts_[layer][std::size_t(c) * kDirectionCount + rank] == 0) continue;
        const ChannelId next = target(c, rank);
        if (component[next] != component[to] || parent_[next] != kNoChannel) continue;
        parent_[next] = c;
        queue.push_back(next);
      }
    }
    if (parent_[from] == kNoChannel) return {};  // no longer on a cycle (see clean())
    std::vector<std::size_t> cycle{dependency_slot(from, to)};
    for (ChannelId c = from; c != to; c = parent_[c]) cycle.push_back(dependency_slot(parent_[c], c));
    return cycle;
  }

  // Moves every path of `layer` that induces the cycle's weakest dependency
  // to layer + 1.
  void cut_weakest(int layer, const std::vector<std::size_t>& cycle) {
    std::size_t weakest = cycle.front();
    for (std::size_t s : cycle)
      if (counts_[layer][s] < counts_[layer][weakest]) weakest = s;
    if (layer + 1 >= layer_count()) counts_.emplace_back(slots_, 0);
    for (std::size_t i = first_[weakest]; i < first_[weakest + 1]; ++i) {
      const std::uint32_t p = users_[i];
      if (layer_[p] != layer) continue;
      layer_[p] = static_cast<std::uint8_t>(layer + 1);
      for (const ChannelId* c = paths_.begin(p) + 1; c < paths_.end(p); ++c) {
        const std::size_t s = dependency_slot(c[-1], c[0]);
        --counts_[layer][s];
        ++counts_[layer + 1][s];
      }
    }
  }

  const Torus& torus_;
  const PathSet& paths_;
  FlowControl rule_;
  std::size_t slots_;
  std::vector<NodeId> head_;
  std::vector<std::size_t> first_;
  std::vector<std::uint32_t> users_;
  std::vector<std::uint8_t> layer_;
  std::vector<std::vector<std::uint32_t>> counts_;
  std::vector<ChannelId> parent_;
  std::int32_t component_count_ = 0;
};

class DfssspGenerator final : public Generator {
 public:
  std::string_view name() const override { return "dfsssp"; }
  std::vector<OptionSpec> option_specs() const override { return layered_option_specs(); }
  double peak_bytes(const MemoryContext& context, const GeneratorOptions&) const override {
    return layered_peak_bytes(context);
  }
  RouteTable generate(const Network& network, const std::vector<NodeId>& allocation,
                      const GeneratorOptions& options) const override {
    return layered_table(name(), network, allocation, options, dfsssp_layers);
  }
};

}  // namespace

LayerAssignment dfsssp_layers(const Torus& torus, const PathSet& paths, FlowControl rule) {
  LayeredDependencies layered(torus, paths, rule);
  LayerAssignment result;
  for (int layer = 0; layer < kSearchLayers && !layered.layer_empty(layer); ++layer) {
    layered.clean(layer);
    result.used = layer + 1;
  }
  result.exhausted = !layered.layer_empty(kSearchLayers);
  result.layer = std::move(layered.layers());
  return result;
}

std::unique_ptr<Generator> create_dfsssp_generator() { return std::make_unique<DfssspGenerator>(); }

}  // namespace angara
