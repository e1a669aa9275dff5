// What the layered backends (dfsssp, lash) share besides the path step
// (routing/common/shortest_paths.hpp): the per-layer dependency counts of a path
// set, the spreading of a finished assignment over the layers left empty,
// the refusal that names the layers needed, and the option parsing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "routing/common/dependency_graph.hpp"
#include "routing/common/generator_support.hpp"
#include "routing/common/option_spec.hpp"
#include "routing/common/shortest_paths.hpp"

namespace angara {

// Virtual channel (layer) numbers a table may carry at most (the Angara
// header and the dump format allow 8; doc/model.md, "Routing rules").
constexpr int kMaxLayers = 8;

// Layers the searches may open beyond the allowed ones, only to tell the
// administrator how many the routes would need.
constexpr int kSearchLayers = 32;

// A layer per pair of a PathSet (diagonal pairs: 0), the layers used, and
// whether the search gave up at kSearchLayers with paths still left over.
struct LayerAssignment {
  std::vector<std::uint8_t> layer;
  int used = 1;
  bool exhausted = false;
};

// The two assignments, each in its generator's file, exposed for the tests:
// DFSSSP's offline cycle breaking (dfsssp.cpp) and LASH's first fit
// (lash.cpp), both under the deadlock rule `rule`.
LayerAssignment dfsssp_layers(const Torus& torus, const PathSet& paths, FlowControl rule);
LayerAssignment lash_layers(const Torus& torus, const PathSet& paths, FlowControl rule);
// MROOTS (mroots.cpp): the roots of `layers` UpDown layers among the
// allocation (section 4.2, Step 1), and whether channel c is up in the
// UpDown structure rooted at `root` (section 4.1).
std::vector<NodeId> mroots_roots(const Network& network, const std::vector<NodeId>& allocation, int layers);
bool mroots_up_channel(const Network& network, NodeId root, ChannelId c);

// What both layered generators do: the balanced shortest paths of the
// allocation (routing/common/shortest_paths.hpp, options "paths" and "passes"),
// `assign` over them, the refusal when more layers are needed than
// options.virtual_channels allows, "spread: 1", and the table.
RouteTable layered_table(std::string_view generator, const Network& network, const std::vector<NodeId>& allocation,
                         const GeneratorOptions& options,
                         LayerAssignment (*assign)(const Torus&, const PathSet&, FlowControl));

// Dependency slot of consecutive channels a -> b: a * 8 + direction rank of b
// (b always leaves the node a enters), as in IncrementalDependencyGraph.
inline std::size_t dependency_slot(ChannelId a, ChannelId b) {
  return static_cast<std::size_t>(a) * kDirectionCount + static_cast<std::size_t>(Torus::channel_direction(b).rank());
}

// One layer of LASH's first fit (section 5.1, Step 2.2; MP-LASH and
// A-LASH, sections 6-7): its dependency graph, and the dependencies known to
// close a forbidden cycle in it.  The graph only grows, so such a dependency
// stays forbidden and later paths are turned away without a search.
struct DependencyLayer {
  DependencyLayer(const Torus& torus, FlowControl rule)
      : graph(torus, rule), forbidden(std::size_t(torus.channel_slots()) * kDirectionCount, 0) {}
  IncrementalDependencyGraph graph;
  std::vector<unsigned char> forbidden;
};
// A dependency from -> to (`to` leaves the node `from` enters).
using Dependency = std::pair<ChannelId, ChannelId>;
// Adds all the dependencies to the layer unless one of them closes a
// forbidden cycle there; then the layer is left as it was.
bool try_add_dependencies(DependencyLayer& layer, const std::vector<Dependency>& dependencies);
// The same for the dependencies of a path given as its channels.
bool try_add_path(DependencyLayer& layer, const ChannelId* first, const ChannelId* last);

// Balancing of DFSSSP (Algorithm 2, last loop) and LASH (section 5.1, Step
// 4, restricted to layers that are still empty): a subset of an acyclic
// layer is acyclic, so the paths of every used layer may be split over empty
// layers without any cycle search.  The empty layers go to the used layers
// in proportion to their path counts; a layer's paths are dealt out by
// destination, so each destination's tree stays on one layer.  `layer[p]`
// holds the assignment (pairs of the diagonal are ignored); returns the
// layers used afterwards.
int spread_over_empty_layers(const PathSet& paths, std::vector<std::uint8_t>& layer, int used, int allowed);

// Throws RoutingError: "NAME: the routes need N virtual channels, only K
// allowed (routing.virtual_channels)"; `at_least` when the search stopped at
// the format's limit before it found enough.
[[noreturn]] void too_many_layers(std::string_view generator, int needed, int allowed, bool at_least);

// What a layered backend holds at its peak besides the table: every pair's
// path, and around failures several alternatives of it (calibrated against
// measured peak RSS, doc/benchmarks.md, "Memory estimate").
double layered_peak_bytes(const MemoryContext& context);

// The options every layered backend reads (paths, passes, spread): dfsssp
// and lash declare these same ones, since both run this path step.
std::vector<OptionSpec> layered_option_specs();

// The path step's options of the layered backends: "passes: 1|2" and
// "paths: pairs|trees" (trees only under rules: general).
ShortestPathOptions path_options(std::string_view generator, const GeneratorOptions& options);

}  // namespace angara
