// angara-placement-bench: replays a seeded job trace on simulated machines
// with a few failed routers under three placements and measures what each
// job's routes get:
//   linear  Slurm-like best fit over the nodes in NodeId order (slurm.conf
//           in name order): the smallest run of consecutive free nodes that
//           fits, else the largest runs first;
//   curve   the same best fit over the nested-block order that
//           `angara-route slurm-conf` writes into slurm.conf;
//   select  angara-route select (placement/placement.hpp) with the free nodes
//           and the running jobs' channel loads.
// Every job of two or more nodes is routed with `balanced` on the live
// network and verified; a job whose nodes cannot be routed is counted and
// dropped (its nodes are not held).  FCFS without backfill, so the three
// placements see the same arrivals; queueing differs only through drops.
//
// With --lp, every job's LP lower bound (routing/check/lp_bound.hpp, 2 s each) is
// computed too: columns `lp` (mean; the per-dimension bound where the LP
// did not finish) and `G/LP`.
//
// With --per-job FILE, one line per routed job: machine, policy, job number,
// nodes, kind (select: the winning candidate's), cyclic extent, max gamma,
// LP bound (0 without --lp), per-dimension bound, channels shared.
//
//   angara-placement-bench [--jobs N] [--seed S] [--machines 4x4x4,8x8x8,8x8x4x4] [--lp] [--per-job FILE]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "routing/generator.hpp"
#include "routing/check/lp_bound.hpp"
#include "routing/check/metrics.hpp"
#include "placement/placement.hpp"
#include "placement/slurm_order.hpp"
#include "routing/check/verifier.hpp"

using namespace angara;

namespace {

struct Job {
  std::size_t size = 0;
  double arrival = 0, runtime = 0;
};

// Sizes 1-64 (half powers of two, half uniform), Poisson arrivals at a rate
// that offers about 95% of the machine, exponential run times (mean 100).
std::vector<Job> make_trace(std::size_t count, std::size_t nodes, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<int> power(0, 6), uniform(1, 64), coin(0, 1);
  std::exponential_distribution<double> runtime(1.0 / 100.0);
  const double mean_size = 0.5 * (127.0 / 7.0) + 0.5 * 32.5;
  std::exponential_distribution<double> gap(0.95 * static_cast<double>(nodes) / (mean_size * 100.0));
  std::vector<Job> jobs;
  double now = 0;
  for (std::size_t i = 0; i < count; ++i) {
    Job job;
    job.size = std::min<std::size_t>(nodes, coin(random) ? (1u << power(random)) : uniform(random));
    now += gap(random);
    job.arrival = now;
    job.runtime = runtime(random);
    jobs.push_back(job);
  }
  return jobs;
}

enum class Policy { linear, curve, select };
const char* policy_name(Policy policy) {
  return policy == Policy::linear ? "linear" : policy == Policy::curve ? "curve" : "select";
}

struct Totals {
  std::size_t jobs = 0, routed = 0, unroutable = 0, single = 0;
  double gamma = 0, bound = 0, ratio = 0, worst_ratio = 0, hops = 0, shared = 0, lp = 0;
  std::size_t lp_solved = 0;
  std::size_t sharing_jobs = 0;
  double busy_node_time = 0, makespan = 0;
  double select_seconds = 0, select_worst = 0;
};

struct Running {
  double end;
  std::vector<NodeId> nodes;
  std::vector<std::uint64_t> loads;  // empty for a single node
  bool operator>(const Running& other) const { return end > other.end; }
};

// The smallest cyclic extent of the nodes per dimension, "4x4x2".
std::string extent(const Torus& torus, const std::vector<NodeId>& nodes) {
  std::string text;
  for (int dim = 0; dim < torus.declared_dims(); ++dim) {
    std::vector<char> used(static_cast<std::size_t>(torus.size(dim)), 0);
    for (NodeId node : nodes) used[static_cast<std::size_t>(torus.coord(node)[dim])] = 1;
    int gap = 0;  // the longest cyclic run of unused coordinates
    for (int first = 0; first < torus.size(dim); ++first) {
      int run = 0;
      while (run < torus.size(dim) && !used[static_cast<std::size_t>((first + run) % torus.size(dim))]) ++run;
      gap = std::max(gap, run);
    }
    text += (dim ? "x" : "") + std::to_string(torus.size(dim) - gap);
  }
  return text;
}

Totals replay(const Network& network, const std::vector<Job>& trace, Policy policy,
              const std::vector<NodeId>& curve, bool with_lp, std::FILE* per_job) {
  const Torus& torus = network.torus();
  std::vector<NodeId> linear(torus.node_count());
  for (NodeId node = 0; node < torus.node_count(); ++node) linear[node] = node;
  std::vector<unsigned char> free(torus.node_count(), 0);
  std::size_t alive = 0;
  for (NodeId node = 0; node < torus.node_count(); ++node) alive += free[node] = network.node_alive(node);
  std::vector<std::uint64_t> busy(torus.channel_slots(), 0);
  std::priority_queue<Running, std::vector<Running>, std::greater<Running>> running;
  const std::unique_ptr<Generator> balanced = make_generator("balanced");

  Totals totals;
  double now = 0;
  std::size_t free_count = alive;
  const auto finish_until = [&](double time) {
    while (!running.empty() && running.top().end <= time) {
      const Running& done = running.top();
      for (NodeId node : done.nodes) free[node] = 1;
      free_count += done.nodes.size();
      for (std::size_t c = 0; c < done.loads.size(); ++c) busy[c] -= done.loads[c];
      running.pop();
    }
  };
  for (const Job& job : trace) {
    now = std::max(now, job.arrival);
    finish_until(now);
    while (free_count < job.size) {  // FCFS: wait for departures
      now = running.top().end;
      finish_until(now);
    }
    ++totals.jobs;
    std::vector<NodeId> nodes;
    RouteTable table;
    bool routed = true;
    std::string kind = policy_name(policy);
    const std::clock_t placed_at = std::clock();  // process CPU time
    if (policy == Policy::select) {
      PlacementRequest request;
      request.node_count = job.size;
      request.free = free;
      request.busy = busy;
      const auto start = std::chrono::steady_clock::now();
      try {
        PlacementResult result = select_nodes(network, request);
        nodes = result.nodes;
        table = std::move(result.table);
        kind = candidate_kind_name(result.compared[result.winner].kind);
      } catch (const RoutingError&) {
        routed = false;
      }
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      totals.select_seconds += seconds;
      totals.select_worst = std::max(totals.select_worst, seconds);
    } else {
      nodes = best_fit_run(policy == Policy::linear ? linear : curve, free, job.size);
      if (nodes.size() > 1) {
        try {
          table = balanced->generate(network, nodes, GeneratorOptions{});
          table.algorithm = "balanced";
          routed = verify(network, table, VerifyOptions{}).ok();
        } catch (const RoutingError&) {
          routed = false;
        }
      }
    }
    // CPU ms of select: choosing and routing the set; of linear, curve:
    // routing it (the sel ms column is wall time, which a loaded host inflates).
    const double job_ms = 1000.0 * static_cast<double>(std::clock() - placed_at) / CLOCKS_PER_SEC;
    if (!routed) {
      ++totals.unroutable;
      continue;
    }
    Running run{now + job.runtime, nodes, {}};
    if (nodes.size() > 1) {
      run.loads = channel_loads(network, table);
      const Metrics metrics = compute_metrics(network, table, run.loads);
      std::size_t shared = 0;
      for (std::size_t c = 0; c < run.loads.size(); ++c) shared += run.loads[c] && busy[c];
      const double ratio = metrics.lower_bound ? static_cast<double>(metrics.max_gamma) /
                                                     static_cast<double>(metrics.lower_bound)
                                               : 1.0;
      ++totals.routed;
      totals.gamma += static_cast<double>(metrics.max_gamma);
      totals.bound += static_cast<double>(metrics.lower_bound);
      std::uint64_t lp_value = 0;
      if (with_lp) {
        LpBoundOptions lp_options;
        lp_options.time_limit = 2.0;
        const LpBound lp = lp_lower_bound(network, nodes, lp_options);
        const bool solved = lp.solved();
        totals.lp_solved += solved;
        lp_value = solved ? std::max(lp.rounded(), metrics.lower_bound) : metrics.lower_bound;
        totals.lp += static_cast<double>(lp_value);
      }
      if (per_job)
        std::fprintf(per_job, "%s %s %zu %zu %s %s %llu %llu %llu %zu %.1f\n", torus.to_string().c_str(),
                     policy_name(policy), totals.jobs, nodes.size(), kind.c_str(), extent(torus, nodes).c_str(),
                     static_cast<unsigned long long>(metrics.max_gamma), static_cast<unsigned long long>(lp_value),
                     static_cast<unsigned long long>(metrics.lower_bound), shared, job_ms);
      totals.ratio += ratio;
      totals.worst_ratio = std::max(totals.worst_ratio, ratio);
      totals.hops += metrics.avg_hops;
      totals.shared += static_cast<double>(shared);
      totals.sharing_jobs += shared > 0;
      for (std::size_t c = 0; c < run.loads.size(); ++c) busy[c] += run.loads[c];
    } else {
      ++totals.single;
    }
    for (NodeId node : nodes) free[node] = 0;
    free_count -= nodes.size();
    totals.busy_node_time += static_cast<double>(nodes.size()) * job.runtime;
    totals.makespan = std::max(totals.makespan, run.end);
    running.push(std::move(run));
  }
  totals.busy_node_time /= static_cast<double>(alive);
  return totals;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t job_count = 300;
  std::uint64_t seed = 1;
  std::string machines = "4x4x4,8x8x8,8x8x4x4";
  bool with_lp = false;
  std::FILE* per_job = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    const bool has_value = i + 1 < argc;
    if (option == "--lp") with_lp = true;
    else if (option == "--jobs" && has_value) job_count = std::strtoul(argv[++i], nullptr, 10);
    else if (option == "--seed" && has_value) seed = std::strtoull(argv[++i], nullptr, 10);
    else if (option == "--machines" && has_value) machines = argv[++i];
    else if (option == "--per-job" && has_value) {
      per_job = std::fopen(argv[++i], "w");
      if (!per_job) {
        std::perror(argv[i]);
        return 2;
      }
      std::fprintf(per_job, "# machine policy job nodes kind extent max_gamma lp(0: no --lp) dim_bound shared cpu_ms\n");
    } else {
      std::fprintf(stderr,
                   "usage: angara-placement-bench [--jobs N] [--seed S] [--machines 4x4x4,8x8x8] [--lp] "
                   "[--per-job FILE]\n");
      return 2;
    }
  }
  std::printf("angara-placement-bench --jobs %zu --seed %llu --machines %s%s\n", job_count,
              static_cast<unsigned long long>(seed), machines.c_str(), with_lp ? " --lp" : "");
  std::printf("%-9s %-7s %5s %6s %5s %7s %7s %6s %7s %7s %7s %6s %6s %7s %6s %5s %9s\n", "machine", "policy",
              "jobs", "routed", "unrt", "gamma", "bound", "G/B", "lp", "G/LP", "g/b", "worst", "hops", "shared", "shjobs",
              "util", "sel ms");
  std::size_t start = 0;
  while (start <= machines.size()) {
    const std::size_t comma = std::min(machines.find(',', start), machines.size());
    const Torus torus = Torus::parse(machines.substr(start, comma - start));
    start = comma + 1;
    // A few failed routers: 1 per 128 nodes, at least 2, seeded.
    Network network(torus);
    std::mt19937_64 random(seed * 7919 + torus.node_count());
    const std::size_t failures = std::max<std::size_t>(2, torus.node_count() / 128);
    std::uniform_int_distribution<NodeId> pick(0, torus.node_count() - 1);
    while (network.failed_nodes().size() < failures) network.fail_node(pick(random));
    const std::vector<Job> trace = make_trace(job_count, torus.node_count() - failures, seed);
    const std::vector<NodeId> curve = nested_blocks(torus).order;
    for (Policy policy : {Policy::linear, Policy::curve, Policy::select}) {
      const Totals t = replay(network, trace, policy, curve, with_lp, per_job);
      const double routed = t.routed ? static_cast<double>(t.routed) : 1.0;
      char lp[16] = "-", g_lp[16] = "-";
      if (with_lp) {
        std::snprintf(lp, sizeof lp, "%.2f", t.lp / routed);
        std::snprintf(g_lp, sizeof g_lp, "%.3f", t.lp > 0 ? t.gamma / t.lp : 1.0);
      }
      std::printf("%-9s %-7s %5zu %6zu %5zu %7.2f %7.2f %6.3f %7s %7s %7.3f %6.2f %6.3f %7.1f %6zu %5.2f %9s\n",
                  torus.to_string().c_str(), policy_name(policy), t.jobs, t.routed, t.unroutable, t.gamma / routed,
                  t.bound / routed, t.bound > 0 ? t.gamma / t.bound : 1.0, lp, g_lp, t.ratio / routed, t.worst_ratio,
                  t.hops / routed, t.shared / routed,
                  t.sharing_jobs, t.busy_node_time / t.makespan,
                  policy == Policy::select
                      ? (std::to_string(static_cast<int>(1000 * t.select_seconds / static_cast<double>(t.jobs))) + "/" +
                         std::to_string(static_cast<int>(1000 * t.select_worst)))
                            .c_str()
                      : "-");
    }
  }
  if (per_job) std::fclose(per_job);
  return 0;
}
