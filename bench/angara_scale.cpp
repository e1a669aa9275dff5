// angara-scale: the scale benchmark, a program (not a test).
//
// For whole fault-free machines of 512, 1024, 4096 and 8192 nodes (a 3D and
// a 4D torus each) and every generator asked for, it measures generation
// time, verification time, peak memory and bytes per route of this build,
// each case in a child process of its own (so the peak memory is the case's,
// from wait4) under a CPU-time limit.  With --baseline PATH it runs an older
// angara-route binary ("generate --dry-run") on the same machines in the
// same run and prints the ratios of its CPU time and peak memory to this
// build's, where it finishes within the limit.
//
// Times are CPU seconds (user + system) of one thread unless --threads says
// otherwise: the machine this runs on is shared, wall time is not a measure.
//
// --cases latency is a second mode: what a job's prologue waits for.  A
// fixed, seeded set of allocation cases (blocks inside larger tori, random
// and linear sets, whole machines with failed routers, a 32x32x32 machine),
// each computed as "angara-route generate --dry-run --lp-time 0" computes it:
// compute_job_routes() (routing/pipeline.hpp) with the default chain
// (balanced,nue,exact), the verifier included, on one worker
// (ANGARA_THREADS=1), in a forked child of its own that is killed (SIGKILL)
// after --case-limit seconds of CPU time (three times that in wall time
// stops it regardless: the machine is shared).  It prints a markdown table: CPU
// seconds of the computation, the child's peak RSS and its growth during the
// computation, max load, the per-dimension lower bound, their ratio and the
// outcome; then the command line that produced it.
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <random>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "angara/config.hpp"
#include "angara/network.hpp"
#include "routing/generator.hpp"
#include "routing/memory.hpp"
#include "routing/pipeline.hpp"
#include "routing/check/verifier.hpp"

namespace {

using namespace angara;

struct Options {
  std::vector<std::string> tori = {"8x8x8",  "8x4x4x4", "16x8x8",   "8x8x4x4",
                                   "16x16x16", "8x8x8x8", "32x16x16", "16x8x8x8"};
  std::vector<std::string> algorithms = {"bfs", "sssp", "balanced", "nue"};
  std::string baseline;             // an older angara-route, or none
  std::size_t baseline_max_nodes = 1024;
  int limit = 15;                   // CPU seconds a case may take
  int threads = 1;
};

// What a child reports back through its pipe.
struct Measured {
  double generation = 0, verification = 0;
  double bytes_per_route = 0;
  std::uint64_t max_gamma = 0, lower_bound = 0;
  int ok = 0;
};

struct Outcome {
  bool finished = false;
  std::string why;          // when not finished
  double cpu = 0;           // user + system of the child, s
  long max_rss_kb = 0;
  Measured measured;
};

double cpu_seconds(const rusage& usage) {
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

// Runs `child` in a process of its own under the CPU limit; its result is
// what it writes to the pipe.
template <class Child>
Outcome run_case(const Options& options, Child child) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    const rlimit cpu{static_cast<rlim_t>(options.limit), static_cast<rlim_t>(options.limit) + 1};
    ::setrlimit(RLIMIT_CPU, &cpu);
    ::_exit(child(fds[1]));
  }
  ::close(fds[1]);
  std::string text;
  char buffer[4096];
  ssize_t got;
  while ((got = ::read(fds[0], buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(got));
  ::close(fds[0]);
  int status = 0;
  rusage usage{};
  ::wait4(pid, &status, 0, &usage);
  Outcome outcome;
  outcome.cpu = cpu_seconds(usage);
  outcome.max_rss_kb = usage.ru_maxrss;
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    outcome.why = signal == SIGXCPU || signal == SIGKILL ? "> " + std::to_string(options.limit) + " s"
                                                         : std::string("killed by ") + strsignal(signal);
    return outcome;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    outcome.why = "failed (exit " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")";
    return outcome;
  }
  std::istringstream in(text);
  Measured& m = outcome.measured;
  in >> m.generation >> m.verification >> m.bytes_per_route >> m.max_gamma >> m.lower_bound >> m.ok;
  outcome.finished = true;
  return outcome;
}

// This build: generate, verify, report.
Outcome measure_current(const Options& options, const Torus& torus, const std::string& algorithm) {
  return run_case(options, [&](int fd) {
    setenv("ANGARA_THREADS", std::to_string(options.threads).c_str(), 1);
    const Network network(torus);
    std::vector<NodeId> allocation(torus.node_count());
    for (NodeId node = 0; node < torus.node_count(); ++node) allocation[node] = node;
    const std::unique_ptr<Generator> generator = make_generator(algorithm);
    if (!generator) return 2;
    const auto cpu_now = [] {
      rusage usage{};
      ::getrusage(RUSAGE_SELF, &usage);
      return cpu_seconds(usage);
    };
    try {
      const double t0 = cpu_now();
      const RouteTable table = generator->generate(network, allocation, GeneratorOptions{});
      const double t1 = cpu_now();
      const VerifyReport report = verify(network, table, VerifyOptions{});
      const double t2 = cpu_now();
      const double routes = static_cast<double>(table.size()) * static_cast<double>(table.size() - 1);
      char line[256];
      const int length = std::snprintf(line, sizeof line, "%.4f %.4f %.3f %llu %llu %d\n", t1 - t0, t2 - t1,
                                       static_cast<double>(table.route_bytes()) / routes,
                                       static_cast<unsigned long long>(report.metrics.max_gamma),
                                       static_cast<unsigned long long>(report.metrics.lower_bound), report.ok() ? 1 : 0);
      if (::write(fd, line, static_cast<std::size_t>(length)) != length) return 3;
      return 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s on %s: %s\n", algorithm.c_str(), torus.to_string().c_str(), e.what());
      return 1;
    }
  });
}

// The older binary on the same machine: its whole "generate --dry-run".
Outcome measure_baseline(const Options& options, const Torus& torus, const std::string& algorithm) {
  char path[] = "/tmp/angara-scale-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  ::close(fd);
  {
    std::ofstream config(path);
    const NodeId last = torus.node_count() - 1;
    config << "machine:\n  torus: " << torus.to_string() << "\n  nodes: n[00000-" << std::string(5 - std::to_string(last).size(), '0')
           << last << "]\n";
  }
  Outcome outcome = run_case(options, [&](int) {
    if (!std::freopen("/dev/null", "w", stdout) || !std::freopen("/dev/null", "w", stderr)) return 4;
    ::execl(options.baseline.c_str(), options.baseline.c_str(), "generate", "--dry-run", "--algorithm",
            algorithm.c_str(), "--config", path, static_cast<char*>(nullptr));
    return 5;
  });
  ::unlink(path);
  return outcome;
}

std::string fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ','))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

// ---- --cases latency: what a job's prologue waits for --------------------

struct LatencyOptions {
  std::vector<std::string> only;  // case names; empty: all
  int case_limit = 60;            // CPU seconds a case may take (3x in wall time)
  std::uint64_t seed = 1;
  MemoryLimit memory_limit = MemoryLimit{true, 0, 0.5};  // "none": the memory is what is measured
  std::string memory_limit_text = "none";
  double time_budget = -1;        // --time-budget: routing.time_budget; negative: the default
  bool reference = false;         // --reference: each case again without a budget, for the ratio
  int repeat = 1;                 // --repeat: runs of each budgeted case; the row is the least CPU's
  bool list = false;
};

// One case: a machine, its failed routers and an allocation (empty: every
// live node, as generate without --nodes).
struct LatencyCase {
  std::string name;
  std::string machine;       // torus
  std::string allocation;    // what the allocation is, for the table
  std::vector<NodeId> failed;
  std::vector<NodeId> nodes; // sorted; empty = whole machine
  std::size_t node_count = 0;
};

// The seeded draws: one generator per case, seeded from the run's seed and
// the case's index, so --only draws the same allocations as the full set.
// Fisher-Yates with rng() % n, not std::shuffle, whose algorithm the
// standard leaves to the library.
std::vector<NodeId> shuffled(std::vector<NodeId> nodes, std::mt19937_64& rng) {
  for (std::size_t i = nodes.size(); i > 1; --i) std::swap(nodes[i - 1], nodes[rng() % i]);
  return nodes;
}

std::vector<NodeId> all_nodes(const Torus& torus) {
  std::vector<NodeId> nodes(torus.node_count());
  for (NodeId node = 0; node < torus.node_count(); ++node) nodes[node] = node;
  return nodes;
}

std::string coord_text(const Coord& c, int dims) {
  std::string text;
  for (int d = 0; d < dims; ++d) text += (d ? "," : "") + std::to_string(c[d]);
  return text;
}

// A block of `block` sizes at a seeded offset (wrapping) inside `machine`.
LatencyCase block_case(const std::string& name, const std::string& machine, const std::string& block, std::mt19937_64& rng) {
  const Torus torus = Torus::parse(machine);
  const Torus shape = Torus::parse(block);
  Coord offset{};
  for (int d = 0; d < kMaxDims; ++d) offset[d] = static_cast<int>(rng() % static_cast<std::uint64_t>(torus.size(d)));
  LatencyCase c{name, machine, block + " block at " + coord_text(offset, torus.declared_dims()), {}, {}, 0};
  for (NodeId i = 0; i < shape.node_count(); ++i) {
    const Coord in = shape.coord(i);
    Coord at{};
    for (int d = 0; d < kMaxDims; ++d) at[d] = (offset[d] + in[d]) % torus.size(d);
    c.nodes.push_back(torus.id(at));
  }
  std::sort(c.nodes.begin(), c.nodes.end());
  c.node_count = c.nodes.size();
  return c;
}

LatencyCase random_case(const std::string& name, const std::string& machine, int percent, std::mt19937_64& rng) {
  const Torus torus = Torus::parse(machine);
  std::vector<NodeId> nodes = shuffled(all_nodes(torus), rng);
  nodes.resize(torus.node_count() * static_cast<std::size_t>(percent) / 100);
  std::sort(nodes.begin(), nodes.end());
  LatencyCase c{name, machine, "random " + std::to_string(percent) + "%", {}, std::move(nodes), 0};
  c.node_count = c.nodes.size();
  return c;
}

// A random half of the machine is busy; the job gets the first `count` free
// nodes in node-id order (what a linear placement hands out).
LatencyCase linear_case(const std::string& name, const std::string& machine, std::size_t count, std::mt19937_64& rng) {
  const Torus torus = Torus::parse(machine);
  std::vector<NodeId> order = shuffled(all_nodes(torus), rng);
  std::vector<char> busy(torus.node_count(), 0);
  for (std::size_t i = 0; i < order.size() / 2; ++i) busy[order[i]] = 1;
  LatencyCase c{name, machine, "first " + std::to_string(count) + " free (half busy)", {}, {}, 0};
  for (NodeId node = 0; node < torus.node_count() && c.nodes.size() < count; ++node)
    if (!busy[node]) c.nodes.push_back(node);
  c.node_count = c.nodes.size();
  return c;
}

// `failures` random routers fail, and the job is `percent` of the others,
// at random: a scattered job beside failures outside it.
LatencyCase random_failed_case(const std::string& name, const std::string& machine, int percent, std::size_t failures,
                               std::mt19937_64& rng) {
  const Torus torus = Torus::parse(machine);
  std::vector<NodeId> order = shuffled(all_nodes(torus), rng);
  std::vector<NodeId> failed(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(failures));
  std::sort(failed.begin(), failed.end());
  std::vector<NodeId> nodes(order.begin() + static_cast<std::ptrdiff_t>(failures), order.end());
  nodes.resize(torus.node_count() * static_cast<std::size_t>(percent) / 100);
  std::sort(nodes.begin(), nodes.end());
  std::string where;
  for (NodeId node : failed) where += (where.empty() ? "" : " ") + coord_text(torus.coord(node), torus.declared_dims());
  LatencyCase c{name, machine, "random " + std::to_string(percent) + "%, failed " + where, failed, std::move(nodes), 0};
  c.node_count = c.nodes.size();
  return c;
}

LatencyCase failed_case(const std::string& name, const std::string& machine, std::size_t failures, std::mt19937_64& rng) {
  const Torus torus = Torus::parse(machine);
  std::vector<NodeId> order = shuffled(all_nodes(torus), rng);
  order.resize(failures);
  std::sort(order.begin(), order.end());
  std::string where;
  for (NodeId node : order) where += (where.empty() ? "" : " ") + coord_text(torus.coord(node), torus.declared_dims());
  LatencyCase c{name, machine, "whole, failed " + where, order, {}, torus.node_count() - failures};
  return c;
}

LatencyCase whole_case(const std::string& name, const std::string& machine) {
  const Torus torus = Torus::parse(machine);
  return LatencyCase{name, machine, "whole", {}, {}, torus.node_count()};
}

// The fixed set, in order.
std::vector<LatencyCase> latency_cases(std::uint64_t seed) {
  // The generator of draw `index`; the two linear cases share draw 6, so they
  // see the same busy half.
  const auto rng = [seed](std::uint64_t index) { return std::mt19937_64(seed * 1000003u + index); };
  std::vector<LatencyCase> cases;
  { auto r = rng(0); cases.push_back(block_case("block-8x8x4x4-in-8x8x8x8", "8x8x8x8", "8x8x4x4", r)); }
  { auto r = rng(1); cases.push_back(block_case("block-8x8x8-in-16x16x8", "16x16x8", "8x8x8", r)); }
  { auto r = rng(2); cases.push_back(block_case("block-8x8x8-in-16x16x16", "16x16x16", "8x8x8", r)); }
  { auto r = rng(3); cases.push_back(random_case("random25-8x8x4x4", "8x8x4x4", 25, r)); }
  { auto r = rng(4); cases.push_back(random_case("random50-8x8x4x4", "8x8x4x4", 50, r)); }
  { auto r = rng(5); cases.push_back(random_case("random50-8x8x8x8", "8x8x8x8", 50, r)); }
  { auto r = rng(6); cases.push_back(linear_case("linear256-8x8x8x8", "8x8x8x8", 256, r)); }
  { auto r = rng(6); cases.push_back(linear_case("linear1024-8x8x8x8", "8x8x8x8", 1024, r)); }
  { auto r = rng(7); cases.push_back(failed_case("fail1-8x8x4x4", "8x8x4x4", 1, r)); }
  { auto r = rng(8); cases.push_back(failed_case("fail3-8x8x4x4", "8x8x4x4", 3, r)); }
  cases.push_back(whole_case("whole-32x32x32", "32x32x32"));
  // The large end: a 4096-node block of a 16384-node machine, whole
  // machines of 4096 and 8192 nodes with failed routers.
  { auto r = rng(9); cases.push_back(block_case("block-8x8x8x8-in-16x16x8x8", "16x16x8x8", "8x8x8x8", r)); }
  { auto r = rng(10); cases.push_back(failed_case("fail1-8x8x8x8", "8x8x8x8", 1, r)); }
  { auto r = rng(11); cases.push_back(failed_case("fail2-16x8x8x8", "16x8x8x8", 2, r)); }
  // A scattered 4096 nodes of the same 16384-node machine: where the
  // scattered sets' costs (every route walked, the bound's channels on
  // rings without an allocated node) are largest.
  { auto r = rng(12); cases.push_back(random_case("random25-16x16x8x8", "16x16x8x8", 25, r)); }
  // Scattered jobs beside failed routers they do not hold.
  { auto r = rng(13); cases.push_back(random_failed_case("random50-fail1-8x8x8x8", "8x8x8x8", 50, 1, r)); }
  { auto r = rng(14); cases.push_back(random_failed_case("random25-fail2-16x16x8x8", "16x16x8x8", 25, 2, r)); }
  return cases;
}

std::string node_name(NodeId node) {
  char name[16];
  std::snprintf(name, sizeof name, "n%05u", static_cast<unsigned>(node));
  return name;
}

// One line for a markdown cell.
std::string cell(std::string text) {
  for (char& ch : text)
    if (ch == '\n' || ch == '\r' || ch == '\t') ch = ' ';
  std::string out;
  for (char ch : text) {
    if (ch == '|') out += '\\';
    out += ch;
  }
  return out;
}

double process_cpu_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

long peak_rss_kb() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// In the child: the configuration and request "generate --dry-run --lp-time
// 0 --memory-limit ... [--nodes ...]" would build, compute_job_routes(), and
// one line back through the pipe:
//   ok <cpu> <rss before kB> <rss after kB> <estimate bytes> <max gamma> <bound> <winner> <passed over...>
//   refused <cpu> <rss before kB> <rss after kB> <reason>
int latency_child(const LatencyOptions& options, const LatencyCase& c, int fd) {
  setenv("ANGARA_THREADS", "1", 1);
  const auto send = [fd](const std::string& line) {
    std::size_t done = 0;
    while (done < line.size()) {
      const ssize_t wrote = ::write(fd, line.data() + done, line.size() - done);
      if (wrote <= 0) return 3;
      done += static_cast<std::size_t>(wrote);
    }
    return 0;
  };
  Config config;
  config.source = "angara-scale case " + c.name;
  config.torus = Torus::parse(c.machine);
  config.node_names.reserve(config.torus.node_count());
  for (NodeId node = 0; node < config.torus.node_count(); ++node) config.node_names.push_back(node_name(node));
  config.index_node_names();  // as the parser does: a job's names are looked up by hash
  config.failed_nodes = c.failed;
  config.algorithm.clear();  // the default chain
  config.seed = 1;
  config.lp_bound_time = 0;  // --lp-time 0
  config.memory_limit = options.memory_limit;
  JobRequest request;
  request.job = "scale-" + c.name;
  for (NodeId node : c.nodes) request.node_names.push_back(node_name(node));
  request.write_cache = false;  // --dry-run
  request.lp_bound = false;
  request.time_budget = options.time_budget;  // generate --time-budget

  const long rss_before = peak_rss_kb();
  const double t0 = process_cpu_seconds();
  try {
    const JobResult result = compute_job_routes(config, request);
    const double t1 = process_cpu_seconds();
    std::string passed;
    for (const PassedOver& p : result.passed_over) passed += (passed.empty() ? "" : "; ") + p.algorithm + ": " + p.reason;
    std::string cut;
    for (const std::string& stage : result.budget_cut) cut += (cut.empty() ? "" : ", ") + stage;
    if (!cut.empty()) passed += (passed.empty() ? "" : "; ") + std::string("budget cut: ") + cut;
    char head[256];
    std::snprintf(head, sizeof head, "ok %.4f %ld %ld %llu %llu %llu %s ", t1 - t0, rss_before, peak_rss_kb(),
                  static_cast<unsigned long long>(result.memory.total),
                  static_cast<unsigned long long>(result.report.metrics.max_gamma),
                  static_cast<unsigned long long>(result.report.metrics.lower_bound), result.algorithm.c_str());
    return send(head + cell(passed) + "\n");
  } catch (const MemoryLimitError& e) {
    const double t1 = process_cpu_seconds();
    return send("refused " + fixed(t1 - t0, 4) + " " + std::to_string(rss_before) + " " + std::to_string(peak_rss_kb()) +
                " memory limit: " + cell(e.what()) + "\n");
  } catch (const std::exception& e) {
    const double t1 = process_cpu_seconds();
    return send("refused " + fixed(t1 - t0, 4) + " " + std::to_string(rss_before) + " " + std::to_string(peak_rss_kb()) +
                " " + cell(e.what()) + "\n");
  }
}

struct LatencyOutcome {
  std::string line;      // what the child reported
  bool killed = false;   // over the limit
  bool wall_killed = false;  // by the wall-time backstop, not the CPU limit
  double wall = 0;
  std::string failure;   // the child died otherwise
  double child_cpu = 0;  // the whole child, from wait4
  long max_rss_kb = 0;
};

// The line a finished child sent (latency_child): "ok CPU RSS_BEFORE
// RSS_AFTER ESTIMATE GAMMA BOUND WINNER [PASSED OVER...]" or "refused CPU
// RSS_BEFORE RSS_AFTER REASON".
struct ChildLine {
  std::string kind;
  double cpu = 0;
  long rss_before = 0, rss_after = 0;
  unsigned long long estimate = 0, gamma = 0, bound = 0;  // "ok"
  std::string winner, passed;                             // "ok"
  std::string reason;                                     // "refused"
};

ChildLine parse_child_line(const std::string& line) {
  ChildLine parsed;
  std::istringstream in(line);
  in >> parsed.kind >> parsed.cpu >> parsed.rss_before >> parsed.rss_after;
  if (parsed.kind == "ok") {
    in >> parsed.estimate >> parsed.gamma >> parsed.bound >> parsed.winner;
    std::getline(in >> std::ws, parsed.passed);
  } else {
    std::getline(in >> std::ws, parsed.reason);
    if (!parsed.reason.empty() && parsed.reason.back() == '\n') parsed.reason.pop_back();
  }
  return parsed;
}

double now_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// Forks, runs the case, reads its line; SIGKILL after case_limit CPU seconds
// (or three times as many wall seconds).
LatencyOutcome run_latency_case(const LatencyOptions& options, const LatencyCase& c) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    int code = 1;
    try {
      code = latency_child(options, c, fds[1]);
    } catch (...) {
      code = 1;
    }
    ::_exit(code);
  }
  ::close(fds[1]);
  LatencyOutcome outcome;
  // The limit is on the child's CPU time (the figure measured), read from its
  // CPU clock every 100 ms; on this shared machine its wall time can be much
  // longer.  Three times the limit in wall time stops it regardless.
  clockid_t child_clock{};
  const bool have_clock = ::clock_getcpuclockid(pid, &child_clock) == 0;
  const double start = now_seconds();
  const double wall_deadline = start + 3.0 * options.case_limit;
  char buffer[4096];
  for (;;) {
    timespec used{};
    const double cpu = have_clock && ::clock_gettime(child_clock, &used) == 0
                           ? static_cast<double>(used.tv_sec) + static_cast<double>(used.tv_nsec) * 1e-9
                           : now_seconds() - start;
    if (cpu >= options.case_limit || now_seconds() >= wall_deadline) {
      ::kill(pid, SIGKILL);
      outcome.killed = true;
      outcome.wall_killed = cpu < options.case_limit;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, 100);
    if (ready <= 0) continue;
    const ssize_t got = ::read(fds[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // end of file: the child is done
    outcome.line.append(buffer, static_cast<std::size_t>(got));
  }
  outcome.wall = now_seconds() - start;
  ::close(fds[0]);
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  outcome.child_cpu = cpu_seconds(usage);
  outcome.max_rss_kb = usage.ru_maxrss;
  if (!outcome.killed) {
    if (WIFSIGNALED(status))
      outcome.failure = std::string("killed by ") + strsignal(WTERMSIG(status));
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || outcome.line.empty())
      outcome.failure = "failed (exit " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")";
  }
  return outcome;
}

int latency_usage(FILE* out, int code) {
  std::fprintf(out,
               "usage: angara-scale --cases latency [--only NAME,NAME,...] [--case-limit SECONDS] [--seed S]\n"
               "                    [--memory-limit SIZE|none] [--time-budget SECONDS] [--reference] [--repeat N]\n"
               "                    [--list]\n"
               "  Each case as 'angara-route generate --dry-run --lp-time 0' computes it (default chain\n"
               "  balanced,nue,exact, verifier included), one worker (ANGARA_THREADS=1), in a forked child\n"
               "  killed with SIGKILL after --case-limit CPU seconds (default 60; three times as many wall\n"
               "  seconds stop it regardless).  --memory-limit defaults\n"
               "  to none: the peak RSS is what is measured.  --time-budget is generate's (routing.time_budget,\n"
               "  default 2; the outcome names the stages it cut).  --reference computes each case a second\n"
               "  time without a budget (--time-budget 0, the same --case-limit) and adds its max load and the\n"
               "  ratio of the budgeted one to it.  --repeat N computes each case N times (default 1) and\n"
               "  shows the run of least CPU: the computation is deterministic (the budget counts steps, not\n"
               "  seconds), so on a shared machine the least is its cost and the rest is the neighbours'.\n"
               "  --list prints the cases and their allocations.\n");
  return code;
}

int run_latency(int argc, char** argv) {
  LatencyOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--cases" && has_value) {
      if (std::string(argv[++i]) != "latency") return latency_usage(stderr, 2);
    } else if (arg == "--only" && has_value) {
      options.only = split_commas(argv[++i]);
    } else if (arg == "--case-limit" && has_value) {
      options.case_limit = std::atoi(argv[++i]);
    } else if (arg == "--seed" && has_value) {
      options.seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--memory-limit" && has_value) {
      const auto limit = parse_memory_limit(argv[++i]);
      if (!limit) return latency_usage(stderr, 2);
      options.memory_limit = *limit;
      options.memory_limit_text = argv[i];
    } else if (arg == "--time-budget" && has_value) {
      char* end = nullptr;
      options.time_budget = std::strtod(argv[++i], &end);
      if (!end || *end != '\0' || options.time_budget < 0) return latency_usage(stderr, 2);
    } else if (arg == "--reference") {
      options.reference = true;
    } else if (arg == "--repeat" && has_value) {
      options.repeat = std::atoi(argv[++i]);
    } else if (arg == "--list") {
      options.list = true;
    } else if (arg == "--help" || arg == "-h") {
      return latency_usage(stdout, 0);
    } else {
      return latency_usage(stderr, 2);
    }
  }
  if (options.case_limit < 1 || options.repeat < 1) return latency_usage(stderr, 2);
  std::vector<LatencyCase> cases = latency_cases(options.seed);
  for (const std::string& name : options.only) {
    if (std::none_of(cases.begin(), cases.end(), [&](const LatencyCase& c) { return c.name == name; })) {
      std::string valid;
      for (const LatencyCase& c : cases) valid += (valid.empty() ? "" : ", ") + c.name;
      std::fprintf(stderr, "angara-scale: unknown case '%s' (valid: %s)\n", name.c_str(), valid.c_str());
      return 2;
    }
  }
  if (!options.only.empty())
    cases.erase(std::remove_if(cases.begin(), cases.end(),
                               [&](const LatencyCase& c) {
                                 return std::find(options.only.begin(), options.only.end(), c.name) == options.only.end();
                               }),
                cases.end());
  if (options.list) {
    for (const LatencyCase& c : cases) {
      std::printf("%s: %s, %s, %zu nodes:", c.name.c_str(), c.machine.c_str(), c.allocation.c_str(), c.node_count);
      for (NodeId node : c.nodes) std::printf(" %u", static_cast<unsigned>(node));
      std::printf("\n");
    }
    return 0;
  }

  std::printf("angara-scale --cases latency: what a prologue waits for.  Each case is computed as 'angara-route generate\n"
              "--dry-run --lp-time 0' computes it (compute_job_routes, default chain %s, verifier included),\n"
              "seed %llu, memory limit %s, time budget %s, on ONE core (ANGARA_THREADS=1), each in a forked child killed with SIGKILL\n"
              "after %d s of CPU time (or 3x that in wall time).  CPU s: CLOCK_PROCESS_CPUTIME_ID around the computation.  Peak RSS: the\n"
              "child's (wait4); growth: its peak after the computation less its peak before.  Estimate: the\n"
              "pipeline's memory estimate (routing/memory.hpp) for the member that won.  Runs per case: %d (the\n"
              "row is the one of least CPU; the computation is deterministic).\n\n",
              default_algorithm_chain().c_str(), static_cast<unsigned long long>(options.seed),
              options.memory_limit_text.c_str(),
              options.time_budget < 0 ? "default (routing.time_budget)" : (fixed(options.time_budget, 2) + " s").c_str(),
              options.case_limit, options.repeat);
  if (options.reference)
    std::printf("Unbudgeted: the max load of the same computation without a time budget (--time-budget 0, same\n"
                "CPU limit), and load/unb. the budgeted max load over it.\n\n");
  std::printf("| case | machine | allocation | nodes | CPU s | peak RSS MB | growth MB | estimate MB | max load | bound | "
              "load/bound | %soutcome |\n",
              options.reference ? "unbudgeted | load/unb. | " : "");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|%s---|\n", options.reference ? "---:|---:|" : "");
  std::fflush(stdout);
  LatencyOptions unbudgeted = options;
  unbudgeted.time_budget = 0;
  // The run of least CPU among --repeat runs that finished (the same table
  // each time: the budget counts steps).
  const auto cpu_of = [](const LatencyOutcome& run) {
    if (run.killed || !run.failure.empty()) return -1.0;
    return parse_child_line(run.line).cpu;
  };
  for (const LatencyCase& c : cases) {
    LatencyOutcome o = run_latency_case(options, c);
    for (int again = 1; again < options.repeat && cpu_of(o) >= 0; ++again) {
      LatencyOutcome next = run_latency_case(options, c);
      if (cpu_of(next) >= 0 && cpu_of(next) < cpu_of(o)) o = std::move(next);
    }
    // The reference run first, so that the row is printed whole.
    std::string reference_cells;
    if (options.reference) {
      const LatencyOutcome r = run_latency_case(unbudgeted, c);
      const auto gamma_of = [](const LatencyOutcome& run) -> unsigned long long {
        if (run.killed || !run.failure.empty()) return 0;
        const ChildLine parsed = parse_child_line(run.line);
        return parsed.kind == "ok" ? parsed.gamma : 0;
      };
      const unsigned long long reference = gamma_of(r), gamma = gamma_of(o);
      if (reference == 0)
        reference_cells = (r.killed ? "over " + std::to_string(options.case_limit) + " s" : std::string("-")) + " | - | ";
      else
        reference_cells = std::to_string(reference) + " | " +
                          (gamma ? fixed(static_cast<double>(gamma) / static_cast<double>(reference), 3) : "-") + " | ";
    }
    std::printf("| %s | %s | %s | %zu | ", c.name.c_str(), c.machine.c_str(), cell(c.allocation).c_str(), c.node_count);
    const std::string peak = fixed(o.max_rss_kb / 1024.0, 0);
    if (o.killed) {
      if (o.wall_killed)
        std::printf("over %d s wall | %s | | | | | | %sover %d s wall (SIGKILL at %.1f s CPU) |\n", 3 * options.case_limit,
                    peak.c_str(), reference_cells.c_str(), 3 * options.case_limit, o.child_cpu);
      else
        std::printf("over %d s | %s | | | | | | %sover %d s (SIGKILL; %.0f s wall) |\n", options.case_limit, peak.c_str(),
                    reference_cells.c_str(), options.case_limit, o.wall);
    } else if (!o.failure.empty()) {
      std::printf("%.2f | %s | | | | | | %s%s |\n", o.child_cpu, peak.c_str(), reference_cells.c_str(), o.failure.c_str());
    } else {
      const ChildLine line = parse_child_line(o.line);
      const std::string growth = fixed(static_cast<double>(line.rss_after - line.rss_before) / 1024.0, 0);
      if (line.kind == "ok") {
        std::string outcome = "verified (" + line.winner + ")";
        if (!line.passed.empty())
          outcome += (line.passed.rfind("budget cut: ", 0) == 0 ? "; " : "; passed over ") + line.passed;
        std::printf("%.3f | %s | %s | %s | %llu | %llu | %s | %s%s |\n", line.cpu, peak.c_str(), growth.c_str(),
                    fixed(static_cast<double>(line.estimate) / (1024.0 * 1024.0), 0).c_str(), line.gamma, line.bound,
                    line.bound ? fixed(static_cast<double>(line.gamma) / static_cast<double>(line.bound), 2).c_str() : "-",
                    reference_cells.c_str(), outcome.c_str());
      } else {
        std::printf("%.3f | %s | %s | | | | | %srefused: %s |\n", line.cpu, peak.c_str(), growth.c_str(),
                    reference_cells.c_str(), line.reason.c_str());
      }
    }
    std::fflush(stdout);
  }
  std::string command = "angara-scale";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  std::printf("\ncommand: %s\n", command.c_str());
  return 0;
}

int usage() {
  std::fprintf(stderr,
               "usage: angara-scale [--tori T1,T2,...] [--algorithms A1,...] [--limit CPU_SECONDS]\n"
               "                    [--threads N] [--baseline OLD_ANGARA_ROUTE] [--baseline-max-nodes N]\n"
               "       angara-scale --cases latency [--only NAME,...] [--case-limit SECONDS] [--seed S]\n"
               "                    [--memory-limit SIZE|none] [--time-budget S] [--reference] [--list]\n"
               "                    (--cases latency --help for more)\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--cases") return run_latency(argc, argv);
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--tori" && has_value) options.tori = split_commas(argv[++i]);
    else if (arg == "--algorithms" && has_value) options.algorithms = split_commas(argv[++i]);
    else if (arg == "--limit" && has_value) options.limit = std::atoi(argv[++i]);
    else if (arg == "--threads" && has_value) options.threads = std::atoi(argv[++i]);
    else if (arg == "--baseline" && has_value) options.baseline = argv[++i];
    else if (arg == "--baseline-max-nodes" && has_value) options.baseline_max_nodes = std::strtoul(argv[++i], nullptr, 10);
    else return usage();
  }
  if (options.limit < 1 || options.threads < 1) return usage();
  for (const std::string& algorithm : options.algorithms)
    if (!make_generator(algorithm)) {
      std::fprintf(stderr, "angara-scale: unknown algorithm '%s' (valid: %s)\n", algorithm.c_str(),
                   generator_names().c_str());
      return 2;
    }

  std::printf("# angara-scale: whole fault-free machines, CPU seconds on %d thread(s), limit %d s a case\n",
              options.threads, options.limit);
  std::printf("# %-9s %5s %-8s %9s %9s %9s %8s %6s %11s %5s", "torus", "nodes", "algo", "gen s", "verify s",
              "total s", "peak MB", "B/rt", "gamma/bound", "ok");
  if (!options.baseline.empty()) std::printf(" | %9s %8s %7s %7s", "old s", "old MB", "x time", "x mem");
  std::printf("\n");
  for (const std::string& dims : options.tori) {
    const Torus torus = Torus::parse(dims);
    for (const std::string& algorithm : options.algorithms) {
      const Outcome now = measure_current(options, torus, algorithm);
      std::printf("  %-9s %5u %-8s ", dims.c_str(), torus.node_count(), algorithm.c_str());
      if (now.finished) {
        const Measured& m = now.measured;
        std::printf("%9s %9s %9s %8s %6s %11s %5s", fixed(m.generation, 3).c_str(), fixed(m.verification, 3).c_str(),
                    fixed(m.generation + m.verification, 3).c_str(), fixed(now.max_rss_kb / 1024.0, 0).c_str(),
                    fixed(m.bytes_per_route, 2).c_str(),
                    (std::to_string(m.max_gamma) + "/" + std::to_string(m.lower_bound)).c_str(), m.ok ? "yes" : "NO");
      } else {
        std::printf("%-62s", now.why.c_str());
      }
      if (!options.baseline.empty()) {
        if (torus.node_count() > options.baseline_max_nodes) {
          std::printf(" | not run (above --baseline-max-nodes)");
        } else {
          const Outcome old = measure_baseline(options, torus, algorithm);
          if (!old.finished) {
            std::printf(" | %s", old.why.c_str());
          } else {
            std::printf(" | %9s %8s", fixed(old.cpu, 3).c_str(), fixed(old.max_rss_kb / 1024.0, 0).c_str());
            if (now.finished)
              std::printf(" %7s %7s", fixed(old.cpu / std::max(1e-3, now.cpu), 1).c_str(),
                          fixed(static_cast<double>(old.max_rss_kb) / static_cast<double>(now.max_rss_kb), 1).c_str());
          }
        }
      }
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  return 0;
}
