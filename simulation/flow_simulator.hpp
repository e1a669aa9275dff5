// Flow-level simulation of a job's traffic over its routing tables, on
// SimGrid's fluid network model (max-min fair sharing of every channel
// among the flows that cross it, plus latency): what a user feels of a
// table, time and bandwidth, where the metrics give congestion counts.
//
// Each live channel of the machine is one SimGrid link of its own direction;
// every allocated node is a host; the route of a flow is read from the
// job's RouteTable when the flow starts (a network zone of our own over the
// compact route store), so memory stays that of the tables.  SimGrid's
// TCP-era corrections (bandwidth and latency factors, window limit, reverse
// ack traffic, shares weighted by round-trip time) are left out: Angara
// links are credit-based and share a channel evenly among the flows on it,
// so the simulated time of an all-to-all is max load x size / bandwidth.
// A route's latency (node latency, plus the hop latency for every router
// past the first) is added to its flow's transfer time.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "angara/config.hpp"
#include "angara/network.hpp"
#include "angara/route.hpp"

namespace angara::simulation {

// The hardware figures of the simulation (angara.yaml's `hardware`
// section; angara.yaml(5) gives the defaults and where they come from).
struct LinkModel {
  double bandwidth = HardwareFigures{}.link_bandwidth_gbit * 1e9 / 8;  // bytes/s of one channel
  double node_latency = HardwareFigures{}.node_latency_ns * 1e-9;      // s, between neighbours
  double hop_latency = HardwareFigures{}.hop_latency_ns * 1e-9;        // s, each further router
};
LinkModel link_model_of(const Config& config);

// One job's flows in a phase: rank pairs (indices into table->nodes()), each
// `bytes` long, routed by `table`.
struct JobFlows {
  const RouteTable* table = nullptr;
  const std::vector<std::pair<std::size_t, std::size_t>>* flows = nullptr;
  double bytes = 0;
};

// Flows that start together; the next phase starts when the last one ends.
struct Phase {
  std::vector<JobFlows> jobs;
};

struct PhaseResult {
  double seconds = 0;                            // from the phase's start to its last flow's end
  std::vector<std::vector<double>> flow_seconds;  // [job][flow]: each flow's own duration
};

// Throws std::invalid_argument when a flow of `job` has no route, or its
// route leaves the table's nodes wrongly or crosses a channel that is not live.
void check_routes(const Network& network, const JobFlows& job);

// Runs the phases in order and returns each one's times.  Throws
// std::invalid_argument, before simulating, for a flow without a route, a
// route over a channel that is not live, or two jobs sharing a node; and
// std::logic_error when called a second time in one process (SimGrid's
// engine is a process-wide singleton).
// `time_precision` (seconds, 0: SimGrid's default) lets flows whose ends
// lie that close together end in one step of the solver: every flow's
// recomputation of the shares costs a solve over all flows, and an
// all-to-all of a scattered allocation has as many distinct ends as flows.
std::vector<PhaseResult> simulate_phases(const Network& network, const LinkModel& model,
                                         const std::vector<Phase>& phases, double time_precision = 0);

}  // namespace angara::simulation
