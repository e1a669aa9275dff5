// Routes and the routing table of one allocation.  A route is a source route:
// the hop directions in order, plus the virtual channel (layer) it uses.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

// Angara encodability (shared model, "Routing rules"): the hops split as
// [FS] middle [LS], FS one positive hop, LS one negative hop, middle obeying
// DOR and the direction-bit rule.
bool is_angara_encodable(const std::vector<Direction>& hops);
// Pure DOR + direction-bit route (no FS/LS needed).
bool is_dor_route(const std::vector<Direction>& hops);

// The routes of every ordered pair of distinct allocated nodes.
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
  // only, so the storage behind them can change (a compact encoding) without
  // touching the generators.
  void set_route(std::size_t src, std::size_t dst, Route route) {
    routes_[src * nodes_.size() + dst] = std::move(route);
  }
  const Route& route(std::size_t src, std::size_t dst) const {
    return routes_[src * nodes_.size() + dst];
  }
  bool has_route(std::size_t src, std::size_t dst) const {
    return src != dst && !route(src, dst).hops.empty();
  }
  std::size_t virtual_channels() const;  // 1 + highest layer used

  std::string algorithm;  // name of the generator that produced it

 private:
  std::vector<NodeId> nodes_;
  std::vector<std::size_t> index_;  // NodeId -> index, npos if absent
  std::vector<Route> routes_;
};

}  // namespace angara
