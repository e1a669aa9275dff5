#include "angara/route.hpp"

#include <algorithm>
#include <stdexcept>

namespace angara {

std::string Route::to_string() const {
  std::string out;
  for (std::size_t i = 0; i < hops.size(); ++i) {
    if (i) out += ' ';
    out += hops[i].token();
  }
  return out;
}

std::vector<Direction> parse_hops(std::string_view text) {
  std::vector<Direction> hops;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] == ' ' || text[pos] == '\t') {
      ++pos;
      continue;
    }
    std::size_t end = text.find_first_of(" \t", pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view token = text.substr(pos, end - pos);
    const auto d = Direction::parse(token);
    if (!d)
      throw std::invalid_argument("expected a hop like +X or -K, got '" + std::string(token) + "'");
    hops.push_back(*d);
    pos = end;
  }
  return hops;
}

bool is_dor_route(const std::vector<Direction>& hops) {
  bool used[kDirectionCount] = {};
  for (std::size_t i = 0; i < hops.size(); ++i) {
    if (i && hops[i] < hops[i - 1]) return false;        // direction order
    if (used[hops[i].opposite().rank()]) return false;  // direction bit
    used[hops[i].rank()] = true;
  }
  return true;
}

bool is_angara_encodable(const std::vector<Direction>& hops) {
  // Try every way to peel off an optional positive first step and an optional
  // negative last step; the rest must be a DOR route.
  const std::size_t n = hops.size();
  for (int fs = 0; fs <= 1; ++fs) {
    if (fs && (n < 1 || !hops.front().positive())) continue;
    for (int ls = 0; ls <= 1; ++ls) {
      if (ls && (n < static_cast<std::size_t>(fs + 1) || !hops.back().negative())) continue;
      std::vector<Direction> middle(hops.begin() + fs, hops.end() - ls);
      if (is_dor_route(middle)) return true;
    }
  }
  return false;
}

RouteTable::RouteTable(std::vector<NodeId> nodes) : nodes_(std::move(nodes)) {
  std::sort(nodes_.begin(), nodes_.end());
  nodes_.erase(std::unique(nodes_.begin(), nodes_.end()), nodes_.end());
  const NodeId top = nodes_.empty() ? 0 : nodes_.back() + 1;
  index_.assign(top, npos);
  for (std::size_t i = 0; i < nodes_.size(); ++i) index_[nodes_[i]] = i;
  routes_.resize(nodes_.size() * nodes_.size());
}

std::size_t RouteTable::index_of(NodeId node) const {
  return node < index_.size() ? index_[node] : npos;
}

std::size_t RouteTable::virtual_channels() const {
  std::size_t layers = 1;
  for (const Route& r : routes_) layers = std::max<std::size_t>(layers, r.layer + 1u);
  return layers;
}

}  // namespace angara
