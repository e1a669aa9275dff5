// Multi-path routing functions (issue 27; Lysne et al., Layered Routing in
// Irregular Networks, sections 6 and 7): for every ordered pair a set of
// allowed paths, each with its virtual channel (layer).
//
// Stored as K complete RouteTables over the same nodes (the compact route
// store, 4 bytes a route): alternative k gives every pair one path and its
// layer, and a pair's allowed paths are the distinct (route, layer) among
// its K alternatives.  A pair with fewer than K paths repeats one of them,
// so every alternative is a complete table the verifier can walk.
// Alternative 0 is the deterministic table that is installed (the hardware
// takes one route per pair and virtual channel).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "angara/route.hpp"

namespace angara {

// Who chooses among a pair's allowed paths.
enum class Adaptivity {
  source,  // the source picks a path per packet (MP-LASH, section 6)
  // the switches pick, hop by hop, any output channel that lies on one of
  // the pair's allowed paths (A-LASH, section 7): a packet may leave one
  // allowed path for another where they meet, so the dependencies of a pair
  // include every (channel into v, channel out of v) of its allowed paths.
  // All allowed paths of a pair are shortest and on one layer.
  switch_hops,
};
const char* adaptivity_name(Adaptivity adaptivity);

struct MultiPathTable {
  std::vector<RouteTable> alternatives;  // at least one, all over the same nodes
  Adaptivity adaptivity = Adaptivity::source;
  std::string algorithm;
  // Paths the generator left out for want of virtual channels, and the
  // layers all of them would have needed (0: not counted; -N: more than N).
  std::size_t dropped_paths = 0;
  int layers_for_all_paths = 0;

  const std::vector<NodeId>& nodes() const { return alternatives.front().nodes(); }
  std::size_t size() const { return alternatives.empty() ? 0 : alternatives.front().size(); }
  // The distinct (route, layer) of the pair over the alternatives, in
  // alternative order.
  std::vector<Route> allowed(std::size_t src, std::size_t dst) const;
  std::size_t virtual_channels() const;  // 1 + highest layer of any alternative
};

}  // namespace angara
