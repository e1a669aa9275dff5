#include "angara/multipath.hpp"

#include <algorithm>

namespace angara {

const char* adaptivity_name(Adaptivity adaptivity) {
  return adaptivity == Adaptivity::source ? "source-adaptive" : "switch-adaptive";
}

std::vector<Route> MultiPathTable::allowed(std::size_t src, std::size_t dst) const {
  std::vector<Route> result;
  if (src == dst) return result;
  for (const RouteTable& table : alternatives) {
    if (!table.has_route(src, dst)) continue;
    Route route = table.route(src, dst);
    if (std::find(result.begin(), result.end(), route) == result.end()) result.push_back(std::move(route));
  }
  return result;
}

std::size_t MultiPathTable::virtual_channels() const {
  std::size_t result = 1;
  for (const RouteTable& table : alternatives) result = std::max(result, table.virtual_channels());
  return result;
}

}  // namespace angara
