// angara-placement-bench: how a job's placement on a shared machine
// decides what its routes get.  Two modes.
//
// The FCFS comparison (the default) replays a seeded job trace on simulated
// machines with a few failed routers under three placements and measures
// what each job's routes get:
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
//
// The trace replay (--trace FILE.swf, or --load L for a seeded
// Lublin-Feitelson trace per machine): FCFS + EASY backfill with the
// policies angara (select/angara's block choice), linear, tree (Slurm's
// topology/tree) and select (bench/trace_replay.hpp, bench/workload.hpp;
// --help lists the options).
#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <map>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "angara/hostlist.hpp"
#include "angara/network.hpp"
#include "routing/generator.hpp"
#include "routing/check/lp_bound.hpp"
#include "routing/check/metrics.hpp"
#include "bench/trace_replay.hpp"
#include "bench/workload.hpp"
#include "cli/exit_status.hpp"
#include "placement/block_choice.hpp"
#include "placement/placement.hpp"
#include "placement/slurm_order.hpp"
#include "routing/check/verifier.hpp"

using namespace angara;
using namespace angara::bench;

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

int fcfs_comparison(int argc, char** argv) {
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
                   "[--per-job FILE]\n       (--help: the trace replay, --trace FILE.swf or --load L)\n");
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

namespace {

const char kReplayUsage[] =
    "usage: angara-placement-bench --trace FILE.swf [--cores-per-node C] [replay options]\n"
    "       angara-placement-bench --load L [--jobs N] [--write-trace FILE] [replay options]\n"
    "       angara-placement-bench [--jobs N] [--seed S] [--machines LIST] [--lp] [--per-job FILE]  (FCFS comparison)\n"
    "       angara-placement-bench --select-latency [--machines M] [--count N]... [--busy-fraction F] [--seed S]\n"
    "                              [--repeat R] [--write-config DIR]  (select's CPU time on a busy machine)\n"
    "Trace replay: FCFS + EASY backfill; every job placed by each policy, routed with balanced.\n"
    "  --trace FILE         a Standard Workload Format trace (Parallel Workloads Archive)\n"
    "  --cores-per-node C   processors of the trace per node (default 1)\n"
    "  --load L             instead of --trace: a seeded Lublin-Feitelson trace per machine\n"
    "                       offering this load of its live nodes (0 < L <= 2; e.g. 0.7-0.95)\n"
    "  --jobs N             jobs of the synthetic trace (default 500)\n"
    "  --write-trace FILE   also write the synthetic trace as SWF (one machine only)\n"
    "  --seed S             the trace's and the failed routers' seed (default 1)\n"
    "  --machines LIST      tori, comma-separated (default 8x8x8,8x8x4x4)\n"
    "  --failed K           failed routers per machine, seeded (default: 1 per 128 nodes, at least 2)\n"
    "  --policies LIST      of angara, linear, tree, select (default angara,linear,tree)\n"
    "  --leaf-size N        tree: nodes of a leaf switch at most (slurm-conf --leaf-size; default 8)\n"
    "  --simulate N         simulate N sampled jobs' all-to-all beside the running jobs' (flow simulator)\n"
    "  --per-job FILE       one line per started job (the largest connected set of free nodes at its\n"
    "                       start, its simulated bandwidth when sampled)\n"
    "  --fast-routing       route with balanced in direction order (turns off), as node selection scores\n"
    "  --hold-box-spares    angara: a job in a box holds the box's other routers from jobs of 2+ nodes\n"
    "  --block-wait S       angara: a job of 2+ nodes without a free block waits for one up to S seconds\n"
    "                       after its submission, then takes linear best fit (default 0: no wait); a job\n"
    "                       that no block holds on the idle machine does not wait (select/angara's BlockWait)\n"
    "  --confine            angara: routing.confine (blocks of every shape, staircases; every job routed\n"
    "                       on its own routers alone when it can be)\n"
    "Exit status: 0 done, 2 bad command line, 3 bad trace line (FILE:LINE: what was expected), 5 unreadable file.\n";

int replay_usage_error(const std::string& message) {
  std::fprintf(stderr, "angara-placement-bench: %s\n%s", message.c_str(), kReplayUsage);
  return cli::kExitUsage;
}

bool parse_count(const char* text, std::size_t& value) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long parsed = std::strtoull(text, &end, 10);
  if (*text == '\0' || *text == '-' || *end != '\0' || errno == ERANGE) return false;
  value = static_cast<std::size_t>(parsed);
  return true;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    parts.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return parts;
}

int trace_replay(int argc, char** argv) {
  std::string trace_path, write_path, per_job_path;
  std::size_t cores_per_node = 1, job_count = 500, leaf_size = 8, simulate = 0, failed = 0, seed = 1;
  bool have_failed = false, direction_order = false, hold_box_spares = false, confine = false;
  double block_wait = 0;
  double load = 0;
  std::vector<std::string> machines = {"8x8x8", "8x8x4x4"};
  std::vector<ReplayPolicy> policies = {ReplayPolicy::angara, ReplayPolicy::linear, ReplayPolicy::tree};
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--help" || option == "-h") {
      std::fputs(kReplayUsage, stdout);
      return cli::kExitOk;
    }
    if (option == "--fast-routing") {
      direction_order = true;
      continue;
    }
    if (option == "--hold-box-spares") {
      hold_box_spares = true;
      continue;
    }
    if (option == "--confine") {
      confine = true;
      continue;
    }
    if (i + 1 >= argc) return replay_usage_error("unknown option or missing value: '" + option + "'");
    const char* value = argv[++i];
    const auto bad = [&](const char* expected) {
      return replay_usage_error(option + " expects " + expected + ", got '" + value + "'");
    };
    if (option == "--trace") trace_path = value;
    else if (option == "--write-trace") write_path = value;
    else if (option == "--per-job") per_job_path = value;
    else if (option == "--cores-per-node") {
      if (!parse_count(value, cores_per_node) || cores_per_node == 0) return bad("a positive number of processors");
    } else if (option == "--jobs") {
      if (!parse_count(value, job_count) || job_count < 2) return bad("2 or more jobs");
    } else if (option == "--leaf-size") {
      if (!parse_count(value, leaf_size) || leaf_size == 0) return bad("a positive number of nodes");
    } else if (option == "--simulate") {
      if (!parse_count(value, simulate)) return bad("a number of jobs");
    } else if (option == "--seed") {
      if (!parse_count(value, seed)) return bad("a non-negative integer");
    } else if (option == "--failed") {
      if (!parse_count(value, failed)) return bad("a number of routers");
      have_failed = true;
    } else if (option == "--load") {
      char* end = nullptr;
      load = std::strtod(value, &end);
      if (*value == '\0' || *end != '\0' || !(load > 0 && load <= 2)) return bad("an offered load in (0, 2]");
    } else if (option == "--block-wait") {
      char* end = nullptr;
      block_wait = std::strtod(value, &end);
      if (*value == '\0' || *end != '\0' || !(block_wait >= 0 && block_wait <= 1e7)) return bad("seconds from 0 to 1e7");
    } else if (option == "--machines") {
      machines = split_commas(value);
    } else if (option == "--policies") {
      policies.clear();
      for (const std::string& name : split_commas(value)) {
        ReplayPolicy policy;
        if (!parse_replay_policy(name, policy)) return bad("policies among angara, linear, tree, select");
        policies.push_back(policy);
      }
    } else {
      return replay_usage_error("unknown option '" + option + "'");
    }
  }
  if (trace_path.empty() == (load == 0)) return replay_usage_error("give either --trace FILE or --load L");
  if (!trace_path.empty() && !write_path.empty())
    return replay_usage_error("--write-trace writes the synthetic trace; it does not go with --trace");
  if (!write_path.empty() && machines.size() != 1)
    return replay_usage_error("--write-trace needs exactly one machine (the trace is sized to it)");
  std::vector<Torus> tori;
  for (const std::string& machine : machines) {
    try {
      tori.push_back(Torus::parse(machine));
    } catch (const std::exception& e) {
      return replay_usage_error("--machines: '" + machine + "': " + e.what());
    }
  }

  std::string command = "angara-placement-bench";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  std::printf("%s\n", command.c_str());

  Trace file_trace;
  if (!trace_path.empty()) {
    try {
      file_trace = read_swf(trace_path, cores_per_node);
    } catch (const TraceFormatError& e) {
      std::fprintf(stderr, "angara-placement-bench: %s\n", e.what());
      return cli::kExitInput;
    } catch (const TraceIoError& e) {
      std::fprintf(stderr, "angara-placement-bench: %s\n", e.what());
      return cli::kExitIo;
    }
  }
  std::FILE* per_job = nullptr;
  if (!per_job_path.empty()) {
    per_job = std::fopen(per_job_path.c_str(), "w");
    if (!per_job) {
      std::fprintf(stderr, "angara-placement-bench: %s: cannot write (%s)\n", per_job_path.c_str(), std::strerror(errno));
      return cli::kExitIo;
    }
    std::fprintf(per_job, "# machine policy job nodes kind wait_s foreign_routers shared_channels isolation "
                           "free_component bw_GB/s\n");
  }

  for (const Torus& torus : tori) {
    Network network(torus);
    std::mt19937_64 random(seed * 7919 + torus.node_count());
    const std::size_t failures =
        std::min<std::size_t>(have_failed ? failed : std::max<std::size_t>(2, torus.node_count() / 128),
                              torus.node_count() - 1);
    std::uniform_int_distribution<NodeId> pick(0, torus.node_count() - 1);
    while (network.failed_nodes().size() < failures) network.fail_node(pick(random));
    const std::size_t alive = torus.node_count() - failures;
    std::string failed_list;
    for (NodeId node : network.failed_nodes()) failed_list += (failed_list.empty() ? "" : " ") + torus.format_coord(node);

    std::vector<TraceJob> jobs;
    std::string source;
    char line[256];
    if (trace_path.empty()) {
      LublinRequest request;
      request.jobs = job_count;
      request.machine_nodes = alive;
      request.load = load;
      request.seed = seed;
      const LublinTrace synthetic = lublin_trace(request);
      jobs = synthetic.jobs;
      std::snprintf(line, sizeof line,
                    "Lublin-Feitelson, seed %zu, %zu jobs, offered load %.3f of %zu live nodes (arrivals x%.3f)", seed,
                    jobs.size(), synthetic.load, alive, synthetic.arrival_scale);
      source = line;
      if (!write_path.empty()) {
        std::ofstream out(write_path);
        write_swf(out,
                  jobs,
                  {"Version: 2", "Generator: " + command, "Computer: the " + torus.to_string() +
                       " Angara torus, " + std::to_string(alive) + " live nodes (one processor a node)",
                   "MaxNodes: " + std::to_string(alive), "MaxProcs: " + std::to_string(alive),
                   "Note: " + source});
        if (!out.flush()) {
          std::fprintf(stderr, "angara-placement-bench: %s: cannot write the trace\n", write_path.c_str());
          return cli::kExitIo;
        }
      }
    } else {
      jobs = file_trace.jobs;
      std::snprintf(line, sizeof line, "%s, %zu jobs (%zu lines without run time or size skipped), offered load %.3f of %zu live nodes",
                    trace_path.c_str(), jobs.size(), file_trace.unusable, offered_load(jobs, alive), alive);
      source = line;
    }
    // The simulated jobs: the same sample of 2+-node jobs for every policy.
    std::vector<std::size_t> sample;
    for (std::size_t i = 0; i < jobs.size(); ++i)
      if (jobs[i].nodes >= 2 && jobs[i].nodes <= alive) sample.push_back(i);
    std::shuffle(sample.begin(), sample.end(), std::mt19937_64(seed));
    sample.resize(std::min(sample.size(), simulate));
    std::sort(sample.begin(), sample.end());

    std::printf("\nmachine %s, %zu failed routers (%s)\ntrace: %s\n", torus.to_string().c_str(), failures,
                failed_list.c_str(), source.c_str());
    std::printf("%-7s %5s %5s %4s %4s %6s %9s %8s %6s %7s %7s %6s %5s %4s %4s %4s %9s %4s %7s %7s %7s %6s\n", "policy", "jobs",
                "start", "skip", "unrt", "util", "wait_s", "bsld", "isol%", "shared", "shload", "shjob%", "block", "box", "open",
                "fb", "bw_GB/s", "sim", "pl_ms", "route_s", "wall_s", "own%");
    if (block_wait > 0) std::printf("(bwait: angara's started jobs that waited for a block, up to %g s)\n", block_wait);
    std::fflush(stdout);
    for (ReplayPolicy policy : policies) {
      ReplayOptions options;
      options.policy = policy;
      options.leaf_size = leaf_size;
      options.simulate = sample;
      options.per_job = per_job;
      options.machine_label = torus.to_string();
      options.route_in_direction_order = direction_order;
      options.hold_box_spares = hold_box_spares;
      options.confine = confine;
      options.block_wait = block_wait;
      const ReplayResult r = replay_trace(network, jobs, options);
      const double routed = r.routed ? static_cast<double>(r.routed) : 1.0;
      char bandwidth[32] = "-";
      if (r.simulated) std::snprintf(bandwidth, sizeof bandwidth, "%.3f", r.mean_bandwidth / 1e9);
      const bool angara_policy = policy == ReplayPolicy::angara;
      std::printf("%-7s %5zu %5zu %4zu %4zu %6.3f %9.0f %8.2f %6.1f %7.1f %7.1f %6.1f %5s %4s %4s %4s %9s %4zu %7.2f %7.1f %7.1f %6.1f\n",
                  replay_policy_name(policy), r.jobs, r.started, r.too_large, r.unroutable, r.utilisation, r.mean_wait,
                  r.mean_bounded_slowdown, 100.0 * static_cast<double>(r.isolated) / routed, r.shared_channels, r.shared_load,
                  100.0 * static_cast<double>(r.sharing) / routed,
                  angara_policy ? std::to_string(r.exact_blocks).c_str() : "-",
                  angara_policy ? std::to_string(r.boxes).c_str() : "-",
                  angara_policy ? std::to_string(r.open_blocks).c_str() : "-",
                  angara_policy ? std::to_string(r.fallbacks).c_str() : "-", bandwidth, r.simulated, r.place_ms,
                  r.route_seconds, r.seconds, 100.0 * static_cast<double>(r.own_only) / routed);
      if (block_wait > 0 && angara_policy) std::printf("bwait %zu\n", r.block_waits);
      if (confine && angara_policy)
        std::printf("confine: %zu free staircases (not in fb), %zu of %zu jobs of 2+ nodes routed on their own routers\n",
                    r.staircases, r.confined, r.routed);
      std::fflush(stdout);
    }
  }
  if (per_job) std::fclose(per_job);
  return cli::kExitOk;
}

}  // namespace

// --select-latency: what `angara-route select --count N --busy HALF` spends
// after reading its input, on a machine with a seeded random share of the
// nodes taken by one running job (drawn as angara-scale's linear cases draw
// their busy half: Fisher-Yates over mt19937_64(seed * 1000003 + 6)): the
// running job's channels (add_region_channels), select_nodes and the largest
// free block left.  --write-config DIR writes DIR/machine.yaml and
// DIR/busy.hostlist for timing the command itself.
// CPU time of this thread: the machine is shared, and wall time moves with
// its load.
double cpu_ms() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

int select_latency(int argc, char** argv) {
  std::string machine = "8x8x8x8", config_dir;
  std::vector<std::size_t> counts;
  double busy_fraction = 0.5;
  std::uint64_t seed = 1;
  int repeat = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    const bool has_value = i + 1 < argc;
    if (option == "--select-latency") continue;
    if (option == "--machines" && has_value) machine = argv[++i];
    else if (option == "--count" && has_value) counts.push_back(std::strtoul(argv[++i], nullptr, 10));
    else if (option == "--busy-fraction" && has_value) busy_fraction = std::atof(argv[++i]);
    else if (option == "--seed" && has_value) seed = std::strtoull(argv[++i], nullptr, 10);
    else if (option == "--repeat" && has_value) repeat = std::max(1, std::atoi(argv[++i]));
    else if (option == "--write-config" && has_value) config_dir = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: angara-placement-bench --select-latency [--machines AxBx..] [--count N]... "
                   "[--busy-fraction F] [--seed S] [--repeat R] [--write-config DIR]\n");
      return cli::kExitUsage;
    }
  }
  if (counts.empty()) counts = {256};
  const Torus torus = Torus::parse(machine);
  const Network network(torus);
  std::vector<NodeId> order(torus.node_count());
  for (NodeId node = 0; node < torus.node_count(); ++node) order[node] = node;
  std::mt19937_64 rng(seed * 1000003u + 6);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  const std::size_t busy_count = static_cast<std::size_t>(busy_fraction * static_cast<double>(torus.node_count()));
  std::vector<NodeId> busy(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(busy_count));
  std::sort(busy.begin(), busy.end());
  const int digits = static_cast<int>(std::to_string(torus.node_count() - 1).size());
  const auto name = [digits](NodeId node) {
    std::string text = std::to_string(node);
    return "n" + std::string(static_cast<std::size_t>(std::max(0, digits - static_cast<int>(text.size()))), '0') + text;
  };
  if (!config_dir.empty()) {
    std::ofstream yaml(config_dir + "/machine.yaml");
    std::vector<std::string> names;
    for (NodeId node = 0; node < torus.node_count(); ++node) names.push_back(name(node));
    yaml << "machine:\n  torus: " << machine << "\n  nodes: " << compress_hostlist(names) << "\n";
    names.clear();
    for (NodeId node : busy) names.push_back(name(node));
    std::ofstream(config_dir + "/busy.hostlist") << compress_hostlist(names) << "\n";
    if (!yaml) throw std::runtime_error("cannot write " + config_dir + "/machine.yaml");
  }
  std::printf("angara-placement-bench --select-latency: %s, %zu of %u nodes busy (one running job, seed %llu), "
              "best of %d, CPU milliseconds\n",
              machine.c_str(), busy.size(), static_cast<unsigned>(torus.node_count()),
              static_cast<unsigned long long>(seed), repeat);
  std::printf("%6s %9s %9s %9s %9s  %-8s %-7s %6s %9s\n", "count", "busy_ch", "select", "largest", "total", "kind",
              "routed", "foreign", "bound");
  for (std::size_t count : counts) {
    double best[3] = {1e30, 1e30, 1e30};
    PlacementResult result;
    for (int r = 0; r < repeat; ++r) {
      double start = cpu_ms();
      PlacementRequest request;
      request.node_count = count;
      request.free.assign(torus.node_count(), 1);
      for (NodeId node : busy) request.free[node] = 0;
      add_region_channels(network, busy, request.busy);
      const double channels_ms =
          cpu_ms() - start;
      start = cpu_ms();
      result = select_nodes(network, request);
      const double select_ms = cpu_ms() - start;
      start = cpu_ms();
      std::vector<unsigned char> left = request.free;
      for (NodeId node : result.nodes) left[node] = 0;
      largest_free_block(network, left);
      const double largest_ms =
          cpu_ms() - start;
      best[0] = std::min(best[0], channels_ms);
      best[1] = std::min(best[1], select_ms);
      best[2] = std::min(best[2], largest_ms);
    }
    const Candidate& w = result.compared[result.winner];
    std::printf("%6zu %9.2f %9.2f %9.2f %9.2f  %-8s %-7s %6zu %9llu\n", count, best[0], best[1], best[2],
                best[0] + best[1] + best[2], candidate_kind_name(w.kind), result.routed ? "yes" : "no",
                w.foreign_routers, static_cast<unsigned long long>(w.routed ? w.max_gamma : w.lower_bound));
  }
  return cli::kExitOk;
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--select-latency") return select_latency(argc, argv);
    if (option == "--trace" || option == "--load" || option == "--write-trace" || option == "--policies" ||
        option == "--simulate" || option == "--failed" || option == "--cores-per-node" || option == "--leaf-size" ||
        option == "--fast-routing" || option == "--hold-box-spares" || option == "--confine" || option == "--help" ||
        option == "-h") {
      try {
        return trace_replay(argc, argv);
      } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "angara-placement-bench: %s\n", e.what());
        return cli::kExitInput;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "angara-placement-bench: %s\n", e.what());
        return cli::kExitRejected;
      }
    }
  }
  return fcfs_comparison(argc, argv);
}
