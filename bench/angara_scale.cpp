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
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

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

#include "angara/network.hpp"
#include "routing/generator.hpp"
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

int usage() {
  std::fprintf(stderr,
               "usage: angara-scale [--tori T1,T2,...] [--algorithms A1,...] [--limit CPU_SECONDS]\n"
               "                    [--threads N] [--baseline OLD_ANGARA_ROUTE] [--baseline-max-nodes N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
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
