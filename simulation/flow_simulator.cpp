#include "simulation/flow_simulator.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <unordered_map>

namespace angara::simulation {

namespace {

namespace s4u = simgrid::s4u;
namespace kernel = simgrid::kernel;

// Where a host sends from in the current phase: its job's table and its
// rank in it.
struct HostRole {
  const RouteTable* table = nullptr;
  std::size_t rank = 0;
};

// The machine as a SimGrid network zone: routes are not stored but read from
// the tables of the jobs of the running phase, hop by hop, when a flow starts.
class AngaraZone final : public kernel::routing::NetZoneImpl {
 public:
  AngaraZone(const Network& network, const LinkModel& model)
      : NetZoneImpl("angara"), network_(network), model_(model) {}

  void add_channel_link(ChannelId channel, kernel::resource::StandardLinkImpl* link) { links_[channel] = link; }
  void add_host_netpoint(const kernel::routing::NetPoint* point, std::size_t host) {
    if (point->id() >= host_of_point_.size()) host_of_point_.resize(point->id() + 1, kNoHost);
    host_of_point_[point->id()] = host;
  }
  void set_roles(std::vector<HostRole> roles) { roles_ = std::move(roles); }
  void reserve_links(std::size_t slots) { links_.assign(slots, nullptr); }

  void get_local_route(const kernel::routing::NetPoint* src, const kernel::routing::NetPoint* dst,
                       kernel::routing::Route* into, double* latency) override {
    const HostRole& from = roles_.at(host_of_point_.at(src->id()));
    const HostRole& to = roles_.at(host_of_point_.at(dst->id()));
    const RouteTable& table = *from.table;
    table.walk(from.rank, to.rank, network_.torus(), [&](NodeId at, Direction direction) {
      into->link_list_.push_back(links_[Torus::channel(at, direction)]);
    });
    // No latency for SimGrid: its CM02 model weights a flow's share of a
    // link by the route's latency (TCP's round-trip unfairness), which
    // Angara's credit-based links do not have.  simulate_phases adds each
    // route's latency to its flow instead.
    (void)latency;
  }

 private:
  static constexpr std::size_t kNoHost = static_cast<std::size_t>(-1);
  const Network& network_;
  LinkModel model_;
  std::vector<kernel::resource::StandardLinkImpl*> links_;  // by ChannelId; null for dead slots
  std::vector<std::size_t> host_of_point_;                   // NetPoint id -> host
  std::vector<HostRole> roles_;                              // by host
};

// One flow as the actors see it: the receiving host and where its time goes.
struct OutgoingFlow {
  std::size_t to_host;
  double bytes;
  double latency;  // of its route
  double* seconds;
};

}  // namespace

// A route that is missing or crosses a channel that is not live is an error
// in the input, not something SimGrid should discover.
void check_routes(const Network& network, const JobFlows& job) {
  const RouteTable& table = *job.table;
  const Torus& torus = network.torus();
  for (const auto& [src, dst] : *job.flows) {
    if (src >= table.size() || dst >= table.size() || src == dst)
      throw std::invalid_argument("flow " + std::to_string(src) + " -> " + std::to_string(dst) +
                                  " is not a pair of distinct ranks of a " + std::to_string(table.size()) +
                                  "-node table");
    const std::string pair = torus.format_coord(table.nodes()[src]) + " -> " + torus.format_coord(table.nodes()[dst]);
    if (!table.has_route(src, dst)) throw std::invalid_argument("the table has no route " + pair);
    std::optional<NodeId> dead_from;  // the router the first dead channel leaves
    const NodeId end = table.walk(src, dst, torus, [&](NodeId at, Direction direction) {
      if (!dead_from && !network.channel_alive(at, direction)) dead_from = at;
    });
    if (dead_from)
      throw std::invalid_argument("the route " + pair + " leaves " + torus.format_coord(*dead_from) +
                                  " over a channel that is not live (failed router or cable, or no cable)");
    if (end != table.nodes()[dst]) throw std::invalid_argument("the route " + pair + " ends elsewhere");
  }
}

LinkModel link_model_of(const Config& config) {
  LinkModel model;
  model.bandwidth = config.hardware.link_bandwidth_gbit * 1e9 / 8;
  model.node_latency = config.hardware.node_latency_ns * 1e-9;
  model.hop_latency = config.hardware.hop_latency_ns * 1e-9;
  return model;
}

std::vector<PhaseResult> simulate_phases(const Network& network, const LinkModel& model,
                                         const std::vector<Phase>& phases, double time_precision) {
  static std::atomic<bool> engine_used{false};
  if (engine_used.exchange(true)) throw std::logic_error("one flow simulation per process (SimGrid's engine is a singleton)");

  // Hosts: every node some phase sends from or to, each in one job.
  const Torus& torus = network.torus();
  std::unordered_map<NodeId, std::size_t> host_of_node;
  std::vector<NodeId> host_nodes;
  std::vector<PhaseResult> results(phases.size());
  for (std::size_t p = 0; p < phases.size(); ++p) {
    std::unordered_map<NodeId, const RouteTable*> owner;
    results[p].flow_seconds.resize(phases[p].jobs.size());
    for (std::size_t j = 0; j < phases[p].jobs.size(); ++j) {
      const JobFlows& job = phases[p].jobs[j];
      check_routes(network, job);
      results[p].flow_seconds[j].assign(job.flows->size(), 0.0);
      for (NodeId node : job.table->nodes()) {
        if (!owner.emplace(node, job.table).second && owner[node] != job.table)
          throw std::invalid_argument("two jobs of one phase share node " + torus.format_coord(node));
        if (host_of_node.emplace(node, host_nodes.size()).second) host_nodes.push_back(node);
      }
    }
  }

  if (host_nodes.empty()) return results;

  // SimGrid's own messages stay out of the tool's output: warnings only.
  xbt_log_control_set("root.thresh:warning");
  int argc = 1;
  char program[] = "angara-route";
  char* argv[] = {program, nullptr};
  s4u::Engine engine(&argc, argv);
  engine.set_config("network/model:CM02");  // plain max-min, no TCP bandwidth/latency factors
  engine.set_config("network/crosstraffic:0");
  engine.set_config("network/TCP-gamma:0");
  engine.set_config("contexts/stack-size:128");  // KiB; two actors a host
  if (time_precision > 0) {
    char setting[64];
    std::snprintf(setting, sizeof setting, "surf/precision:%.9g", time_precision);
    engine.set_config(setting);
  }

  // The zone belongs to SimGrid from here on: it becomes the engine's root
  // netzone (the first one made) and the engine deletes it.
  auto* zone = new AngaraZone(network, model);
  zone->reserve_links(torus.channel_slots());
  for (ChannelId channel = 0; channel < torus.channel_slots(); ++channel) {
    if (!network.channel_alive(channel)) continue;
    s4u::Link* link = zone->create_link("c" + std::to_string(channel), {model.bandwidth});
    link->set_latency(0);  // the route's latency is added once, in get_local_route
    link->seal();
    zone->add_channel_link(channel, link->get_impl());
  }
  std::vector<s4u::Host*> hosts;
  for (std::size_t h = 0; h < host_nodes.size(); ++h) {
    s4u::Host* host = zone->create_host("n" + std::to_string(host_nodes[h]), {1e9});
    zone->add_host_netpoint(host->get_netpoint(), h);
    hosts.push_back(host);
  }
  zone->seal();

  // Per phase and host: what it sends and how many flows it receives.
  std::vector<std::vector<std::vector<OutgoingFlow>>> outgoing(phases.size(),
                                                               std::vector<std::vector<OutgoingFlow>>(hosts.size()));
  std::vector<std::vector<std::size_t>> incoming(phases.size(), std::vector<std::size_t>(hosts.size(), 0));
  std::vector<std::vector<HostRole>> roles(phases.size(), std::vector<HostRole>(hosts.size()));
  for (std::size_t p = 0; p < phases.size(); ++p)
    for (std::size_t j = 0; j < phases[p].jobs.size(); ++j) {
      const JobFlows& job = phases[p].jobs[j];
      for (std::size_t rank = 0; rank < job.table->size(); ++rank)
        roles[p][host_of_node.at(job.table->nodes()[rank])] = {job.table, rank};
      for (std::size_t f = 0; f < job.flows->size(); ++f) {
        const auto& [src, dst] = (*job.flows)[f];
        const std::size_t from = host_of_node.at(job.table->nodes()[src]);
        const std::size_t to = host_of_node.at(job.table->nodes()[dst]);
        const std::size_t hops = job.table->hop_count(src, dst);
        const double latency = model.node_latency + model.hop_latency * double(hops > 0 ? hops - 1 : 0);
        outgoing[p][from].push_back({to, job.bytes, latency, &results[p].flow_seconds[j][f]});
        ++incoming[p][to];
      }
    }

  // Every host runs a sender and a receiver (one actor per host and side
  // keeps SimGrid's per-actor activity lists short); a coordinator opens
  // each phase after the last one ended, on a barrier all of them share.
  s4u::BarrierPtr barrier = s4u::Barrier::create(static_cast<unsigned>(2 * hosts.size() + 1));
  static char payload = 0;
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    s4u::Actor::create("send" + std::to_string(h), hosts[h], [&, h] {
      for (std::size_t p = 0; p < phases.size(); ++p) {
        barrier->wait();
        const double start = s4u::Engine::get_clock();
        std::vector<s4u::CommPtr> comms;
        comms.reserve(outgoing[p][h].size());
        for (const OutgoingFlow& flow : outgoing[p][h])
          comms.push_back(s4u::Mailbox::by_name("m" + std::to_string(flow.to_host))
                              ->put_async(&payload, static_cast<std::uint64_t>(flow.bytes)));
        s4u::Comm::wait_all(comms);
        for (std::size_t i = 0; i < comms.size(); ++i)
          *outgoing[p][h][i].seconds = comms[i]->get_finish_time() - start + outgoing[p][h][i].latency;
        barrier->wait();
      }
    });
    s4u::Actor::create("receive" + std::to_string(h), hosts[h], [&, h] {
      s4u::Mailbox* mailbox = s4u::Mailbox::by_name("m" + std::to_string(h));
      for (std::size_t p = 0; p < phases.size(); ++p) {
        barrier->wait();
        std::vector<void*> sink(incoming[p][h]);
        std::vector<s4u::CommPtr> comms;
        comms.reserve(sink.size());
        for (void*& data : sink) comms.push_back(mailbox->get_async<void>(&data));
        s4u::Comm::wait_all(comms);
        barrier->wait();
      }
    });
  }
  s4u::Actor::create("phases", hosts.front(), [&] {
    for (std::size_t p = 0; p < phases.size(); ++p) {
      zone->set_roles(roles[p]);
      barrier->wait();
      barrier->wait();
    }
  });
  engine.run();
  // A phase ends with its last flow, latency included.
  for (PhaseResult& result : results)
    for (const std::vector<double>& job : result.flow_seconds)
      for (double seconds : job) result.seconds = std::max(result.seconds, seconds);
  return results;
}

}  // namespace angara::simulation
