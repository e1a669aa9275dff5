// lash: layered shortest path routing (Layered Routing in Irregular
// Networks, Lysne et al., section 5.1).  Every ordered pair gets one shortest
// path (the balanced paths of routing/common/shortest_paths.hpp, where the paper
// takes an arbitrary one), and the pairs are taken one at a time (Step 2): a
// pair goes to the first existing layer whose dependency graph its path does
// not close a forbidden cycle in (Step 2.2), and to a new layer when none
// fits.  Each layer is an IncrementalDependencyGraph under the shared
// model's rule (options.flow_control), so under bubble flow control the ring
// cycles of the torus never cost a layer.  `spread: 1` runs the balancing
// step (Step 4) restricted to the layers left empty.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "routing/common/dependency_graph.hpp"
#include "routing/generator.hpp"
#include "routing/common/layering.hpp"
#include "routing/common/shortest_paths.hpp"

namespace angara {

namespace {

class LashGenerator final : public Generator {
 public:
  std::string_view name() const override { return "lash"; }
  std::vector<OptionSpec> option_specs() const override { return layered_option_specs(); }
  double peak_bytes(const MemoryContext& context, const GeneratorOptions&) const override {
    return layered_peak_bytes(context);
  }
  RouteTable generate(const Network& network, const std::vector<NodeId>& allocation,
                      const GeneratorOptions& options) const override {
    return layered_table(name(), network, allocation, options, lash_layers);
  }
};

}  // namespace

LayerAssignment lash_layers(const Torus& torus, const PathSet& paths, FlowControl rule) {
  const std::size_t n = paths.node_count();
  std::vector<std::unique_ptr<DependencyLayer>> layers;
  LayerAssignment result;
  result.layer.assign(paths.pair_count(), 0);
  for (std::size_t p = 0; p < paths.pair_count(); ++p) {
    if (p / n == p % n || paths.length(p) < 2) continue;  // no dependency at all
    std::size_t l = 0;
    for (;; ++l) {
      if (l == layers.size()) {
        if (l == kSearchLayers) {
          result.exhausted = true;
          result.used = kSearchLayers;
          return result;
        }
        layers.push_back(std::make_unique<DependencyLayer>(torus, rule));
      }
      if (try_add_path(*layers[l], paths.begin(p), paths.end(p))) break;
    }
    result.layer[p] = static_cast<std::uint8_t>(l);
  }
  result.used = std::max<int>(1, static_cast<int>(layers.size()));
  return result;
}

std::unique_ptr<Generator> create_lash_generator() { return std::make_unique<LashGenerator>(); }

}  // namespace angara
