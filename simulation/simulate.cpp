#include "simulation/simulate.hpp"

#include "routing/common/parallel.hpp"
#include "routing/check/multipath_verifier.hpp"
#include "simulation/adaptive_flow.hpp"

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <cmath>
#include <stdexcept>

namespace angara::simulation {

namespace {

using Flows = std::vector<std::pair<std::size_t, std::size_t>>;

// The static side of one phase: its most loaded channel, the longest route,
// the physical limit, and the bytes on each channel.
struct PhaseFigures {
  std::uint64_t max_load = 0;
  std::size_t max_hops = 0;
  double limit_seconds = 0;
};

// Other jobs' flows of a phase: they load channels, nothing else.
using OtherFlows = std::vector<std::pair<const RouteTable*, const Flows*>>;

// Adds the channel loads of `flows` to `load`, noting first-touched channels.
void add_loads(const Torus& torus, const RouteTable& table, const Flows& flows, std::vector<std::uint64_t>& load,
               std::vector<ChannelId>& touched) {
  for (const auto& [src, dst] : flows)
    table.walk(src, dst, torus, [&](NodeId at, Direction direction) {
      const ChannelId channel = Torus::channel(at, direction);
      if (load[channel]++ == 0) touched.push_back(channel);
    });
}

PhaseFigures phase_figures(const Network& network, const RouteTable& table, const Flows& flows, double bytes,
                           const LinkModel& model, std::vector<std::uint64_t>& load,
                           std::vector<double>* channel_bytes, const OtherFlows& others = {}) {
  const Torus& torus = network.torus();
  PhaseFigures figures;
  std::vector<ChannelId> touched;
  std::vector<double> sent(table.size(), 0), received(table.size(), 0);
  std::array<double, kMaxDims> dimension_hop_bytes{};
  for (const auto& [src, dst] : flows) {
    std::size_t hops = 0;
    table.walk(src, dst, torus, [&](NodeId at, Direction direction) {
      const ChannelId channel = Torus::channel(at, direction);
      if (load[channel]++ == 0) touched.push_back(channel);
      if (channel_bytes) (*channel_bytes)[channel] += bytes;
      ++hops;
    });
    figures.max_hops = std::max(figures.max_hops, hops);
    sent[src] += bytes;
    received[dst] += bytes;
    const Coord from = torus.coord(table.nodes()[src]), to = torus.coord(table.nodes()[dst]);
    for (int dim = 0; dim < kMaxDims; ++dim)
      dimension_hop_bytes[dim] += bytes * torus.ring_distance(dim, from[dim], to[dim]);
  }
  for (const auto& [other, other_flows] : others) add_loads(torus, *other, *other_flows, load, touched);
  for (ChannelId channel : touched) {
    figures.max_load = std::max<std::uint64_t>(figures.max_load, load[channel]);
    load[channel] = 0;
  }
  // Any route from s to t takes at least the ring distance in every
  // dimension, so a dimension's hop-bytes must cross its live channels; a
  // node's bytes leave (and arrive) over its own live channels.
  std::array<std::size_t, kMaxDims> live_channels{};
  for (ChannelId channel = 0; channel < torus.channel_slots(); ++channel)
    if (network.channel_alive(channel)) ++live_channels[Torus::channel_direction(channel).dim()];
  double limit = 0;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (live_channels[dim] > 0) limit = std::max(limit, dimension_hop_bytes[dim] / (live_channels[dim] * model.bandwidth));
  for (std::size_t rank = 0; rank < table.size(); ++rank) {
    std::size_t ports = 0, in_ports = 0;
    const NodeId node = table.nodes()[rank];
    for (int d = 0; d < kDirectionCount; ++d) {
      const Direction direction(d);
      if (network.channel_alive(node, direction)) ++ports;
      if (torus.direction_present(direction) && network.channel_alive(torus.neighbor(node, direction), direction.opposite()))
        ++in_ports;
    }
    if (ports) limit = std::max(limit, sent[rank] / (ports * model.bandwidth));
    if (in_ports) limit = std::max(limit, received[rank] / (in_ports * model.bandwidth));
  }
  figures.limit_seconds = limit;
  return figures;
}

struct PlannedPattern {
  std::string pattern;
  const RouteTable* table = nullptr;
  std::vector<TrafficPattern> phases;
  // The other jobs of a mix and their phases of the same pattern.
  std::vector<std::pair<const RouteTable*, std::vector<TrafficPattern>>> beside;

  // The static side of every phase (loads with the other jobs', limit) and
  // the bytes each channel carries over the pattern (when asked for):
  // measured once, before the simulation (measure_plan).
  std::vector<PhaseFigures> figures;
  std::vector<double> channel_bytes;

  // Phase p's flows of the other jobs (phase p mod their count).
  OtherFlows others(std::size_t p) const {
    OtherFlows flows;
    for (const auto& [table, phases] : beside)
      if (!phases.empty()) flows.emplace_back(table, &phases[p % phases.size()].flows);
    return flows;
  }
};

// The flow model's bottleneck of a phase without latency: its busiest
// channel's flows one after another.
double transfer_seconds(const PhaseFigures& figures, const SimulationRequest& request) {
  return double(figures.max_load) * request.bytes / request.model.bandwidth;
}

void measure_plan(const Network& network, PlannedPattern& plan, const SimulationRequest& request) {
  if (request.channel_bytes) plan.channel_bytes.assign(network.torus().channel_slots(), 0.0);
  std::vector<std::uint64_t> load(network.torus().channel_slots(), 0);
  for (std::size_t p = 0; p < plan.phases.size(); ++p)
    plan.figures.push_back(phase_figures(network, *plan.table, plan.phases[p].flows, request.bytes, request.model, load,
                                         request.channel_bytes ? &plan.channel_bytes : nullptr, plan.others(p)));
}

PatternResult summarise(const PlannedPattern& plan, const std::vector<PhaseResult>& results,
                        const SimulationRequest& request) {
  PatternResult out;
  out.pattern = plan.pattern;
  out.table = plan.table->algorithm.empty() ? "table" : plan.table->algorithm;
  out.phases = plan.phases.size();
  out.channel_bytes = plan.channel_bytes;
  double bandwidth_sum = 0;
  out.min_bandwidth = INFINITY;
  out.validated = true;
  for (std::size_t p = 0; p < plan.phases.size(); ++p) {
    const Flows& flows = plan.phases[p].flows;
    const PhaseResult& result = results[p];
    const PhaseFigures& figures = plan.figures[p];
    out.max_load = std::max(out.max_load, figures.max_load);
    out.limit_seconds += figures.limit_seconds;
    double job_seconds = 0;
    for (double seconds : result.flow_seconds.front()) job_seconds = std::max(job_seconds, seconds);
    out.seconds += job_seconds;
    if (!flows.empty()) {
      const double latency =
          request.model.node_latency + request.model.hop_latency * double(figures.max_hops > 0 ? figures.max_hops - 1 : 0);
      const double fluid = transfer_seconds(figures, request) + latency;
      out.fluid_seconds += fluid;
      // The check is on the phase's last flow of any job (result.seconds).
      if (std::fabs(result.seconds - fluid) > 0.05 * fluid) out.validated = false;
    }
    for (double seconds : result.flow_seconds.front()) {
      const double bandwidth = seconds > 0 ? request.bytes / seconds : 0;
      out.min_bandwidth = std::min(out.min_bandwidth, bandwidth);
      out.max_bandwidth = std::max(out.max_bandwidth, bandwidth);
      bandwidth_sum += bandwidth;
    }
    out.flows += flows.size();
  }
  if (out.flows == 0) out.min_bandwidth = 0;
  out.mean_bandwidth = out.flows ? bandwidth_sum / double(out.flows) : 0;
  out.throughput = out.seconds > 0 ? double(out.flows) * request.bytes / out.seconds : 0;
  double all_seconds = 0;
  for (const PhaseResult& result : results) all_seconds += result.seconds;
  out.fluid_error = out.fluid_seconds > 0 ? (all_seconds - out.fluid_seconds) / out.fluid_seconds : 0;
  return out;
}

// The solver's time step of a plan: flows that end within 0.4% of the
// shortest phase's fluid time of each other end together.  Exact ends cost
// one solve over every flow per flow (an all-to-all of 256 scattered nodes:
// 8 minutes); this step keeps every phase within 1% of its exact time
// (doc/benchmarks.md, "Simulated throughput").
double time_precision_of(const PlannedPattern& plan, const SimulationRequest& request) {
  double shortest = 0;
  for (std::size_t p = 0; p < plan.phases.size(); ++p) {
    if (plan.phases[p].flows.empty()) continue;
    const double transfer = transfer_seconds(plan.figures[p], request);
    if (shortest == 0 || transfer < shortest) shortest = transfer;
  }
  return 0.004 * shortest;
}

void write_all(int fd, const void* data, std::size_t bytes) {
  const char* at = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t written = ::write(fd, at, bytes);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) _exit(3);
    at += written;
    bytes -= static_cast<std::size_t>(written);
  }
}

std::string read_all(int fd) {
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
  }
  return text;
}

// A plan simulated in a child process: SimGrid's engine is one a process
// and its time step one setting, so each plan gets a process of its own;
// they run side by side on the node's cores.  The child sends its phase
// times through a pipe as doubles, or "E" and an error message.
struct Child {
  pid_t pid = -1;
  int fd = -1;
};

Child start_child(const Network& network, const SimulationRequest& request, const PlannedPattern& plan) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("simulate: pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("simulate: fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    try {
      std::vector<Phase> phases;
      for (std::size_t p = 0; p < plan.phases.size(); ++p) {
        Phase phase{{JobFlows{plan.table, &plan.phases[p].flows, request.bytes}}};
        for (const auto& [other, flows] : plan.others(p)) phase.jobs.push_back(JobFlows{other, flows, request.bytes});
        phases.push_back(std::move(phase));
      }
      const std::vector<PhaseResult> results =
          simulate_phases(network, request.model, phases, time_precision_of(plan, request));
      write_all(fds[1], "R", 1);
      for (const PhaseResult& result : results) {
        write_all(fds[1], &result.seconds, sizeof(double));
        const std::vector<double>& flows = result.flow_seconds.front();
        write_all(fds[1], flows.data(), flows.size() * sizeof(double));
      }
    } catch (const std::exception& e) {
      write_all(fds[1], "E", 1);
      write_all(fds[1], e.what(), std::strlen(e.what()));
    }
    ::close(fds[1]);
    _exit(0);  // no atexit handlers, no flush of the parent's buffers
  }
  ::close(fds[1]);
  return Child{pid, fds[0]};
}

std::vector<PhaseResult> finish_child(Child child, const PlannedPattern& plan) {
  const std::string data = read_all(child.fd);
  ::close(child.fd);
  int status = 0;
  while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string what = "the simulation of " + plan.pattern + " on " +
                           (plan.table->algorithm.empty() ? std::string("the table") : plan.table->algorithm);
  if (!data.empty() && data[0] == 'E') throw std::runtime_error(what + " failed: " + data.substr(1));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || data.empty() || data[0] != 'R')
    throw std::runtime_error(what + " died (" +
                             (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                                  : "exit status " + std::to_string(WEXITSTATUS(status))) +
                             ")");
  std::vector<PhaseResult> results(plan.phases.size());
  std::size_t at = 1;
  const auto take = [&](double* into, std::size_t count) {
    if (data.size() < at + count * sizeof(double)) throw std::runtime_error(what + " sent a short result");
    std::memcpy(into, data.data() + at, count * sizeof(double));
    at += count * sizeof(double);
  };
  for (std::size_t p = 0; p < plan.phases.size(); ++p) {
    take(&results[p].seconds, 1);
    results[p].flow_seconds.assign(1, std::vector<double>(plan.phases[p].flows.size()));
    take(results[p].flow_seconds[0].data(), plan.phases[p].flows.size());
  }
  return results;
}

// Every plan's routes are checked here, so bad input is an error of this
// process (std::invalid_argument), not a child's.
void run_in_children(const Network& network, const SimulationRequest& request, const std::vector<PlannedPattern>& plans,
                     std::vector<std::vector<PhaseResult>>& results) {
  for (const PlannedPattern& plan : plans) {
    for (const TrafficPattern& phase : plan.phases) check_routes(network, JobFlows{plan.table, &phase.flows, request.bytes});
    for (const auto& [other, phases] : plan.beside)
      for (const TrafficPattern& phase : phases) check_routes(network, JobFlows{other, &phase.flows, request.bytes});
  }
  const std::size_t parallel = static_cast<std::size_t>(std::max(1, worker_count()));
  std::vector<Child> running;
  std::size_t next = 0, done = 0;
  try {
    while (done < plans.size()) {
      while (next < plans.size() && running.size() < parallel) running.push_back(start_child(network, request, plans[next++]));
      results[done] = finish_child(running.front(), plans[done]);
      running.erase(running.begin());
      ++done;
    }
  } catch (...) {
    for (const Child& child : running) {
      ::kill(child.pid, SIGKILL);
      ::close(child.fd);
      ::waitpid(child.pid, nullptr, 0);
    }
    throw;
  }
}

}  // namespace

SimulationReport run_simulation(const Network& network, const RouteTable& table, const SimulationRequest& request) {
  if (!(request.bytes > 0)) throw std::invalid_argument("the message size must be positive");
  for (const std::string& name : request.patterns)
    if (!is_simulation_pattern(name)) pattern_phases(name, network.torus(), {}, request.pattern_options);  // throws

  // A mix's jobs run on nodes of their own.
  std::vector<unsigned char> taken(network.torus().node_count(), 0);
  for (const RouteTable* job : [&] {
         std::vector<const RouteTable*> jobs{&table};
         jobs.insert(jobs.end(), request.beside.begin(), request.beside.end());
         return jobs;
       }())
    for (NodeId node : job->nodes()) {
      if (taken[node]) throw std::invalid_argument("the jobs of a mix share node " + network.torus().format_coord(node));
      taken[node] = 1;
    }

  SimulationReport report;
  // The baseline runs only where plain DOR is a routing of this machine:
  // around failures its routes may cross dead channels.
  RouteTable dor;
  if (request.baseline) {
    dor = dimension_order_table(network.torus(), table.nodes());
    Flows every_pair;
    for (std::size_t s = 0; s < dor.size(); ++s)
      for (std::size_t d = 0; d < dor.size(); ++d)
        if (s != d) every_pair.emplace_back(s, d);
    try {
      check_routes(network, JobFlows{&dor, &every_pair, request.bytes});
    } catch (const std::invalid_argument& e) {
      report.baseline_note = std::string("plain DOR is not a routing of this machine: ") + e.what();
    }
  }
  const bool with_baseline = request.baseline && report.baseline_note.empty();

  std::vector<PlannedPattern> plans;
  for (const RouteTable* routes : {&table, static_cast<const RouteTable*>(&dor)}) {
    if (routes == &dor && !with_baseline) continue;
    for (const std::string& name : request.patterns) {
      PlannedPattern plan;
      plan.pattern = name;
      plan.table = routes;
      plan.phases = pattern_phases(name, network.torus(), routes->nodes(), request.pattern_options);
      for (const RouteTable* other : request.beside)
        plan.beside.emplace_back(other, pattern_phases(name, network.torus(), other->nodes(), request.pattern_options));
      measure_plan(network, plan, request);
      plans.push_back(std::move(plan));
    }
  }
  // The fluid bound of a phase whose channel loads (flows, in fractions)
  // are `load`, plus the loads of the other jobs of a mix.
  const auto estimate_plan = [&](const PlannedPattern& plan, auto&& phase_loads) {
    AdaptiveResult estimate;
    estimate.pattern = plan.pattern;
    double bytes = 0;
    for (std::size_t p = 0; p < plan.phases.size(); ++p) {
      const Flows& flows = plan.phases[p].flows;
      if (flows.empty()) continue;
      std::size_t max_hops = 0;
      std::vector<double> load = phase_loads(flows, max_hops);
      for (const auto& [other, other_flows] : plan.others(p))
        for (const auto& [src, dst] : *other_flows)
          other->walk(src, dst, network.torus(), [&](NodeId at, Direction d) { load[Torus::channel(at, d)] += 1.0; });
      const double busiest = *std::max_element(load.begin(), load.end());
      estimate.max_load = std::max(estimate.max_load, busiest);
      const double latency =
          request.model.node_latency + request.model.hop_latency * static_cast<double>(max_hops > 0 ? max_hops - 1 : 0);
      estimate.seconds += busiest * request.bytes / request.model.bandwidth + latency;
      bytes += request.bytes * static_cast<double>(flows.size());
    }
    estimate.throughput = estimate.seconds > 0 ? bytes / estimate.seconds : 0;
    return estimate;
  };
  if (request.multipath)
    for (const PlannedPattern& plan : plans)
      if (plan.table == &table)
        report.split.push_back(estimate_plan(plan, [&](const Flows& flows, std::size_t& max_hops) {
          return multipath_split_loads(network, *request.multipath, flows, &max_hops);
        }));
  if (request.adaptive)
    for (const PlannedPattern& plan : plans)
      if (plan.table == &table)
        report.adaptive.push_back(estimate_plan(plan, [&](const Flows& flows, std::size_t& max_hops) {
          AdaptiveLoads loads = adaptive_channel_loads(network, table, flows);
          max_hops = loads.max_hops;
          return std::move(loads.load);
        }));
  std::vector<std::vector<PhaseResult>> results(plans.size());
  run_in_children(network, request, plans, results);
  for (std::size_t i = 0; i < plans.size(); ++i)
    (plans[i].table == &table ? report.table : report.baseline).push_back(summarise(plans[i], results[i], request));
  return report;
}

}  // namespace angara::simulation
