// A torus with its failures: which routers and cables are alive.
// Failure semantics follow doc/model.md, "Failures": a failed link kills both
// directions of one cable; a failed node kills its router and all its cables.
#pragma once

#include <string>
#include <vector>

#include "angara/torus.hpp"

namespace angara {

class Network {
 public:
  explicit Network(Torus torus);

  const Torus& torus() const { return torus_; }

  void fail_node(NodeId node);
  // Fails the cable leaving `node` in direction `d` (and its reverse).  A
  // port without a cable (absent dimension, single cabling) has nothing to
  // fail: no change.
  void fail_link(NodeId node, Direction d);

  bool node_alive(NodeId node) const { return node_alive_[node] != 0; }
  // A channel is live when it has a cable (its dimension exists, and the
  // port is cabled when the dimension is single-cabled: Torus::cabled), both
  // routers are alive and its cable has not failed.
  bool channel_alive(ChannelId c) const { return channel_alive_[c] != 0; }
  bool channel_alive(NodeId node, Direction d) const {
    return channel_alive(Torus::channel(node, d));
  }
  std::size_t live_channel_count() const;
  // Every port of every router cabled and live: no failure, no single cable.
  bool every_port_live() const {
    return live_channel_count() == 2u * static_cast<std::size_t>(torus_.present_dims()) * torus_.node_count();
  }
  const std::vector<NodeId>& failed_nodes() const { return failed_nodes_; }
  // Failed cables, each named once by the channel it was declared with (the
  // end and direction the configuration names), in channel id order.
  const std::vector<ChannelId>& failed_links() const { return failed_links_; }
  // A stable text of the failures ("nodes=..;links=..") for cache keys and
  // reports; a cable by its lower channel id, whichever end declared it.
  std::string fault_signature() const;

 private:
  Torus torus_;
  std::vector<unsigned char> node_alive_;
  std::vector<unsigned char> channel_alive_;
  std::vector<NodeId> failed_nodes_;
  std::vector<ChannelId> failed_links_;
};

// The network with every live router outside `nodes` failed: what a job's
// routes may use when they are kept on its own routers (routing.confine).
Network confined_to(const Network& network, const std::vector<NodeId>& nodes);

}  // namespace angara
