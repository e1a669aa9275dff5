#include "routing/common/oracle.hpp"

#include <algorithm>

namespace angara {

RoutabilityOracle::RoutabilityOracle(const Network& network)
    : network_(network), rules_(network, TurnRules::Mode::all_turns), heads_(live_channel_heads(network)) {}

const ShortestRouteSearch& RoutabilityOracle::search(NodeId src) const {
  if (cached_source_ != src || !cached_) {
    cached_ = std::make_unique<ShortestRouteSearch>(network_, rules_, src, std::vector<NodeId>{}, &heads_);
    cached_source_ = src;
    ++searches_;
  }
  return *cached_;
}

int RoutabilityOracle::shortest(NodeId src, NodeId dst) const {
  if (src == dst) return 0;
  return search(src).length(dst);
}

std::vector<std::vector<Direction>> RoutabilityOracle::shortest_routes(NodeId src, NodeId dst,
                                                                       std::size_t cap) const {
  if (src == dst) return {};
  return search(src).routes(dst, cap);
}

AllocationRoutability assess_routability(const Network& network, std::vector<NodeId> allocation) {
  std::sort(allocation.begin(), allocation.end());
  allocation.erase(std::unique(allocation.begin(), allocation.end()), allocation.end());
  AllocationRoutability result;
  result.nodes = std::move(allocation);
  const std::size_t n = result.nodes.size();
  result.shortest.assign(n * n, 0);
  const RoutabilityOracle oracle(network);
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      if (s == d) continue;
      const int hops = oracle.shortest(result.nodes[s], result.nodes[d]);
      result.shortest[s * n + d] = hops;
      if (hops < 0) ++result.cut_off_pairs;
    }
  return result;
}

namespace {

std::string router_name(const Torus& torus, NodeId node) { return "router " + torus.format_coord(node); }

std::string cable_name(const Torus& torus, ChannelId c) {
  return "cable " + torus.format_coord(Torus::channel_node(c)) + " " + Torus::channel_direction(c).token();
}

constexpr std::size_t kNoFailure = static_cast<std::size_t>(-1);

// The failure that makes the hop from `at` in direction `d` impossible, as
// an index of failure_names() order, or kNoFailure when the hop is live.
std::size_t hop_blocker(const Network& network, NodeId at, Direction d) {
  const Torus& torus = network.torus();
  const NodeId next = torus.neighbor(at, d);
  const auto& routers = network.failed_nodes();
  if (!network.node_alive(next))
    return static_cast<std::size_t>(std::lower_bound(routers.begin(), routers.end(), next) - routers.begin());
  const ChannelId c = Torus::channel(at, d);
  if (network.channel_alive(c)) return kNoFailure;
  const ChannelId back = torus.reverse_channel(c);
  const auto& cables = network.failed_links();
  for (std::size_t i = 0; i < cables.size(); ++i)
    if (cables[i] == c || cables[i] == back) return routers.size() + i;
  return kNoFailure;  // not reached: `at` is alive, so a dead channel is a failed cable
}

// The network with every failure but one (index into failure_names order:
// routers first, then cables).
Network without_failure(const Network& network, std::size_t skipped) {
  Network copy(network.torus());
  std::size_t index = 0;
  for (NodeId node : network.failed_nodes())
    if (index++ != skipped) copy.fail_node(node);
  for (ChannelId c : network.failed_links())
    if (index++ != skipped) copy.fail_link(Torus::channel_node(c), Torus::channel_direction(c));
  return copy;
}

void add_unique(std::vector<std::size_t>& indices, std::size_t index) {
  if (index != kNoFailure && std::find(indices.begin(), indices.end(), index) == indices.end())
    indices.push_back(index);
}

// The first failure on each minimal encodable route of the fault-free torus.
std::vector<std::size_t> minimal_route_blockers(const Network& network, const Network& intact,
                                                const TurnRules& every_turn, NodeId src, NodeId dst) {
  std::vector<std::size_t> indices;
  for (const auto& hops : minimal_routes(intact, every_turn, src, dst, 64)) {
    NodeId at = src;
    for (Direction d : hops) {
      const std::size_t blocker = hop_blocker(network, at, d);
      if (blocker != kNoFailure) {
        add_unique(indices, blocker);
        break;
      }
      at = network.torus().neighbor(at, d);
    }
  }
  return indices;
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

std::vector<std::string> failure_names(const Network& network) {
  std::vector<std::string> names;
  for (NodeId node : network.failed_nodes()) names.push_back(router_name(network.torus(), node));
  for (ChannelId c : network.failed_links()) names.push_back(cable_name(network.torus(), c));
  return names;
}

std::vector<PairDiagnosis> diagnose_pairs(const Network& network, const std::vector<NodePair>& pairs) {
  const std::size_t failures = network.failed_nodes().size() + network.failed_links().size();
  const RoutabilityOracle oracle(network);
  // One network (and oracle) per failure repaired, made when first needed;
  // each oracle keeps its last source's search, so pairs grouped by source
  // cost one search per source and failure.
  std::vector<std::unique_ptr<Network>> repaired(failures);
  std::vector<std::unique_ptr<RoutabilityOracle>> repaired_oracle(failures);
  const Network intact(network.torus());
  const TurnRules every_turn(intact, TurnRules::Mode::all_turns);
  std::vector<PairDiagnosis> out;
  out.reserve(pairs.size());
  for (const auto& [src, dst] : pairs) {
    PairDiagnosis diagnosis;
    diagnosis.shortest = oracle.shortest(src, dst);
    if (diagnosis.shortest < 0) {
      for (std::size_t f = 0; f < failures; ++f) {
        if (!repaired_oracle[f]) {
          repaired[f] = std::make_unique<Network>(without_failure(network, f));
          repaired_oracle[f] = std::make_unique<RoutabilityOracle>(*repaired[f]);
        }
        if (repaired_oracle[f]->shortest(src, dst) >= 0) diagnosis.blockers.push_back(f);
      }
      diagnosis.each_repair_reopens = !diagnosis.blockers.empty();
    }
    if (diagnosis.blockers.empty()) diagnosis.blockers = minimal_route_blockers(network, intact, every_turn, src, dst);
    out.push_back(std::move(diagnosis));
  }
  return out;
}

std::vector<std::string> blocking_failures(const Network& network, NodeId src, NodeId dst) {
  const std::vector<std::string> all = failure_names(network);
  std::vector<std::string> names;
  const std::vector<PairDiagnosis> diagnosis = diagnose_pairs(network, {{src, dst}});
  for (std::size_t f : diagnosis.front().blockers) names.push_back(all[f]);
  return names;
}

std::vector<std::pair<std::size_t, std::size_t>> unrouted_pairs(const RouteTable& table) {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t s = 0; s < table.size(); ++s)
    for (std::size_t d = 0; d < table.size(); ++d)
      if (s != d && !table.has_route(s, d)) pairs.emplace_back(s, d);
  return pairs;
}

std::string unrouted_pairs_headline(std::string_view generator, const RouteTable& table) {
  const std::size_t total = table.size() * (table.size() - 1);
  return std::string(generator) + ": cannot route " + std::to_string(unrouted_pairs(table).size()) + " of " +
         std::to_string(total) + " ordered pairs deadlock-free on one virtual channel";
}

std::string describe_unrouted_pairs(std::string_view generator, const Network& network, const RouteTable& table,
                                    std::size_t shown) {
  const Torus& torus = network.torus();
  const auto pairs = unrouted_pairs(table);
  std::string out = unrouted_pairs_headline(generator, table);
  std::vector<NodePair> explained;
  for (std::size_t k = 0; k < pairs.size() && k < shown; ++k)
    explained.emplace_back(table.nodes()[pairs[k].first], table.nodes()[pairs[k].second]);
  const std::vector<std::string> names = failure_names(network);
  const std::vector<PairDiagnosis> diagnoses = diagnose_pairs(network, explained);
  for (std::size_t k = 0; k < explained.size(); ++k) {
    const auto [src, dst] = explained[k];
    out += (k == 0 ? ": " : "; ") + torus.format_coord(src) + " -> " + torus.format_coord(dst) + ": ";
    std::vector<std::string> blockers;
    for (std::size_t f : diagnoses[k].blockers) blockers.push_back(names[f]);
    if (diagnoses[k].shortest < 0) {
      out += "no Angara-encodable route avoids the failures";
      if (!blockers.empty()) out += " (cut off by " + join(blockers) + ")";
    } else {
      out += "an encodable route of " + std::to_string(diagnoses[k].shortest) +
             " hops exists, but every route tried closes a deadlock cycle with the other routes";
      if (!blockers.empty()) out += " (its minimal routes are blocked by " + join(blockers) + ")";
    }
  }
  if (pairs.size() > shown) out += "; and " + std::to_string(pairs.size() - shown) + " more";
  return out;
}

RoutingError unrouted_pairs_error(std::string_view generator, const Network& network, const RouteTable& table,
                                  bool keep_partial) {
  std::string message = describe_unrouted_pairs(generator, network, table);
  std::string headline = unrouted_pairs_headline(generator, table);
  if (keep_partial) return RoutingError(message, table, std::move(headline));
  return RoutingError(message, pairs_without_route(table), std::move(headline));
}

}  // namespace angara
