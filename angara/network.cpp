#include "angara/network.hpp"

#include <algorithm>

namespace angara {

Network::Network(Torus torus)
    : torus_(torus),
      node_alive_(torus.node_count(), 1),
      channel_alive_(torus.channel_slots(), 0) {
  for (NodeId node = 0; node < torus_.node_count(); ++node)
    for (int rank = 0; rank < kDirectionCount; ++rank)
      if (torus_.cabled(node, Direction(rank))) channel_alive_[Torus::channel(node, Direction(rank))] = 1;
}

void Network::fail_node(NodeId node) {
  if (!node_alive_[node]) return;
  node_alive_[node] = 0;
  // Kept sorted by insertion, not by sorting the list again per failure
  // (quadratic in the failures: a configuration failing 100000 routers took
  // minutes); failures given in ascending order append.
  failed_nodes_.insert(std::upper_bound(failed_nodes_.begin(), failed_nodes_.end(), node), node);
  for (int rank = 0; rank < kDirectionCount; ++rank) {
    const Direction d(rank);
    if (!torus_.direction_present(d)) continue;
    const ChannelId out = Torus::channel(node, d);
    channel_alive_[out] = 0;
    channel_alive_[torus_.reverse_channel(out)] = 0;
  }
}

void Network::fail_link(NodeId node, Direction d) {
  if (!torus_.cabled(node, d)) return;  // no cable there to fail (absent dimension, single cabling)
  const ChannelId out = Torus::channel(node, d);
  const ChannelId back = torus_.reverse_channel(out);
  // Kept as declared (reports name the cable as the configuration does);
  // the same cable named from its other end is not a second failure.
  if (!std::binary_search(failed_links_.begin(), failed_links_.end(), out) &&
      !std::binary_search(failed_links_.begin(), failed_links_.end(), back))
    failed_links_.insert(std::upper_bound(failed_links_.begin(), failed_links_.end(), out), out);
  channel_alive_[out] = 0;
  channel_alive_[back] = 0;
}

std::size_t Network::live_channel_count() const {
  return static_cast<std::size_t>(std::count(channel_alive_.begin(), channel_alive_.end(), 1));
}

std::string Network::fault_signature() const {
  std::string out = "nodes=";
  for (std::size_t i = 0; i < failed_nodes_.size(); ++i) {
    if (i) out += ';';
    out += torus_.format_coord(failed_nodes_[i]);
  }
  out += " links=";
  // Each cable by its lower channel id, whichever end declared it: the same
  // failures give the same signature (cache keys).
  std::vector<ChannelId> cables;
  for (ChannelId c : failed_links_) cables.push_back(std::min(c, torus_.reverse_channel(c)));
  std::sort(cables.begin(), cables.end());
  for (std::size_t i = 0; i < cables.size(); ++i) {
    if (i) out += ';';
    out += torus_.format_coord(Torus::channel_node(cables[i])) + ' ' + Torus::channel_direction(cables[i]).token();
  }
  return out;
}

Network confined_to(const Network& network, const std::vector<NodeId>& nodes) {
  Network own = network;
  std::vector<unsigned char> member(network.torus().node_count(), 0);
  for (NodeId node : nodes) member.at(node) = 1;
  for (NodeId node = 0; node < network.torus().node_count(); ++node)
    if (!member[node] && network.node_alive(node)) own.fail_node(node);
  return own;
}

}  // namespace angara
