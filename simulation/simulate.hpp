// What `angara-route simulate` measures: traffic patterns run on a job's
// routing table in the flow simulator (simulation/flow_simulator.hpp), side
// by side with the plain dimension-order table of the same nodes, against
// the physical limit of the allocation, each checked against the fluid
// bound the flow model must reach.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "angara/multipath.hpp"
#include "angara/network.hpp"
#include "angara/route.hpp"
#include "routing/check/patterns.hpp"
#include "simulation/flow_simulator.hpp"

namespace angara::simulation {

struct SimulationRequest {
  std::vector<std::string> patterns;  // simulation_patterns() names
  double bytes = 1 << 20;             // message size of every flow
  PatternOptions pattern_options;     // seed, random samples
  bool baseline = true;               // also run the plain DOR table
  LinkModel model;
  bool channel_bytes = false;         // keep the bytes each channel carried (pictures)
  // A job mix: other jobs' tables (on other nodes) whose own ranks run the
  // same pattern at the same time, phase i of the job beside phase i (mod
  // their count) of each; the report is the job's, with their traffic on the
  // channels it shares with them.
  std::vector<const RouteTable*> beside;
  // Also estimate each pattern on the adaptive channel (routing.adaptive
  // on): the flow-level approximation of simulation/adaptive_flow.hpp, with
  // the table as the escape; the other jobs of a mix load their own routes.
  bool adaptive = false;
  // A multi-path routing function whose alternative 0 is the table
  // (mp-lash, a-lash): also estimate each pattern with every flow split
  // evenly over its pair's allowed paths (flow level, like the adaptive
  // channel: SimGrid's routes depend on their two hosts only).
  const MultiPathTable* multipath = nullptr;
};

// One pattern on the adaptive channel: an estimate, not a simulation.
struct AdaptiveResult {
  std::string pattern;
  double seconds = 0;     // per phase the busiest channel's bytes / bandwidth + latency, summed
  double throughput = 0;  // bytes of all flows / seconds
  double max_load = 0;    // most flows (in fractions) on one channel in one phase
};

// One pattern on one table.
struct PatternResult {
  std::string pattern;
  std::string table;             // the generator's name, or "dor"
  std::size_t phases = 0, flows = 0;
  double seconds = 0;            // simulated, the phases one after another
  double throughput = 0;         // bytes of all flows / seconds
  double min_bandwidth = 0, mean_bandwidth = 0, max_bandwidth = 0;  // bytes/s of one flow
  // The flow model's bottleneck: per phase max channel load x bytes /
  // bandwidth plus the longest route's latency, summed.  A phase whose flows
  // start together under max-min sharing ends exactly then, so the simulated
  // time must agree (within 5%: validated).  In a mix, the phase's last flow
  // of any job is held to the load of all of them.
  double fluid_seconds = 0;
  double fluid_error = 0;        // (seconds - fluid_seconds) / fluid_seconds
  bool validated = false;
  // No routing can do better: per phase, the most bytes one node injects or
  // receives over its live channels, or one dimension's minimal hop-bytes
  // over its live channels, at link bandwidth; summed.
  double limit_seconds = 0;
  std::uint64_t max_load = 0;    // most flows on one channel in one phase (other jobs' too, in a mix)
  std::vector<double> channel_bytes;  // by ChannelId, when asked for
};

struct SimulationReport {
  std::vector<PatternResult> table;     // per pattern, the job's table
  std::vector<PatternResult> baseline;  // the same patterns on plain DOR (empty: not run)
  std::vector<AdaptiveResult> adaptive; // the same patterns on the adaptive channel (empty: not asked)
  std::vector<AdaptiveResult> split;    // the same patterns split over the multi-path function (empty: none)
  // Why the baseline did not run ("" when it did or was not asked for).
  std::string baseline_note;
};

// Throws std::invalid_argument for an unknown pattern, a missing route or a
// route over a dead channel (nothing is simulated then), std::logic_error
// when a simulation already ran in this process.
SimulationReport run_simulation(const Network& network, const RouteTable& table, const SimulationRequest& request);

// The effective bisection bandwidth of a `bisection` result: the mean
// bandwidth of one flow (bytes/s).
inline double effective_bisection_bandwidth(const PatternResult& result) { return result.mean_bandwidth; }

}  // namespace angara::simulation
