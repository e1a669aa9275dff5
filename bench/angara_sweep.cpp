// angara-sweep: the configuration-space sweep (issue 25), a benchmark and,
// with --quick, a test (tests/test_sweep.sh; under ASan and UBSan in
// tools/setup.sh).
//
// Every registered generator and the default chain, x routing.rules (angara,
// general) x routing.flow_control (bubble, none) x routing.virtual_channels
// 1..8, x a fixed set of machines: 2D to 4D, odd, even and size-2 rings,
// single and double cables, whole machines, compact blocks and scattered
// halves, 0-3 failed routers and 0-3 failed cables (seeded, so every run draws
// the same cases).  Each case is an angara.yaml text, parsed by parse_config()
// and computed by compute_job_routes() (routing/pipeline.hpp): what
// `angara-route generate --dry-run` and the prologue run, the verifier
// included.  It runs in a forked child of its own under a wall-time limit, so
// a crash or a hang is reported and the sweep goes on; the child's peak RSS
// comes from wait4().
//
// A case passes with a verified table, or with a documented refusal: a
// RoutingError (exit status 4), a configuration or input error (3) or the
// memory limit (9), as angara-route maps them (cli/exit_status.hpp), or the
// verifier's rejection (1) where angara.yaml(5) says it happens (a
// direction-order generator under flow_control none), whose message is one
// non-empty line of at most --max-message bytes.  Anything
// else is a finding, one line each: a crash (signal), a hang (time limit), a
// sanitizer report, an exception of another type, a table the verifier
// rejected, a bad message, or (not under a sanitizer) a peak RSS above the
// memory estimate (routing/memory.hpp) by more than --memory-slack (0 by
// default: an estimate is an upper bound).  The
// exit status is 1 when there is any finding.
#include <fcntl.h>
#include <poll.h>
#include <regex.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cxxabi.h>
#include <malloc.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

#include "angara/config.hpp"
#include "angara/network.hpp"
#include "cli/exit_status.hpp"
#include "routing/generator.hpp"
#include "routing/memory.hpp"
#include "routing/pipeline.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define SWEEP_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SWEEP_SANITIZED 1
#endif
#endif
#ifndef SWEEP_SANITIZED
#define SWEEP_SANITIZED 0
#endif

namespace {

using namespace angara;

struct Options {
  bool quick = false;
  std::string only;            // POSIX extended regex searched in the case name
  int jobs = 2;
  double time_limit = 0;       // wall seconds a case may take; 0: the mode's default
  std::size_t max_message = 400;
  double memory_slack = 0;  // a peak above estimate * (1 + slack) is a finding: an estimate is an upper bound
  bool list = false;
  bool verbose = false;
  std::string show;            // print this case's angara.yaml and command
  std::string inject;          // tests the sweep itself: every child does this instead
};

// ---------------------------------------------------------------- the cases

struct Machine {
  const char* torus;
  const char* single_cable;  // dimension letters with one cable ("" for none)
  bool quick;                // in the --quick subset
};

// 2D to 4D; odd, even and size-2 rings; size-2 dimensions double- and
// single-cabled.  Up to 512 nodes (the dfsssp crash of issue 25 was 8x8x8).
const Machine kMachines[] = {
    {"2x2", "", true},         {"2x2", "XY", true},       {"3x3", "", true},         {"4x4", "", true},
    {"5x5", "", true},         {"2x5", "", true},         {"3x4", "", false},        {"6x6", "", false},
    {"7x5", "", false},        {"8x8", "", false},        {"10x10", "", false},      {"2x2x2", "", true},
    {"2x2x2", "XYZ", true},    {"3x3x3", "", true},       {"4x2x2", "YZ", false},    {"4x4x4", "", false},
    {"5x4x3", "", false},      {"6x6x6", "", false},      {"8x8x8", "", false},      {"2x2x2x2", "", false},
    {"2x2x2x2", "XYZK", true}, {"4x2x2x2", "YZK", false}, {"3x3x2x2", "", false},    {"3x3x3x3", "", false},
    {"4x4x4x4", "", false},
};

enum class Allocation { whole, block, half };
const char* allocation_name(Allocation a) {
  return a == Allocation::whole ? "whole" : a == Allocation::block ? "block" : "half";
}

// One machine with its failures and a job's nodes; `yaml` is everything but
// the routing section.
struct Scenario {
  std::string name;  // "4x2x2x2sYZK/block/r1c2"
  std::string yaml;
  std::vector<NodeId> allocation;  // empty: the whole machine
  NodeId nodes = 0;
  // What runs on it: every value of routing.virtual_channels on up to 64
  // nodes; above, 1, 2 and 8 (1 and 8 at 512), and genetic up to 128 nodes
  // (50 s a case at 512): the full sweep stays within about half an hour.
  std::vector<int> virtual_channels = {1, 2, 3, 4, 5, 6, 7, 8};
  bool genetic = true;
};

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

// The failures and allocation of one scenario, drawn from a generator seeded
// by its name: the same in every run and with any --only.
Scenario make_scenario(const Machine& machine, Allocation kind, int routers, int cables) {
  Torus torus = Torus::parse(machine.torus);
  if (*machine.single_cable) torus = torus.with_single_cable(Torus::parse_dimension_letters(machine.single_cable));
  Scenario s;
  s.name = std::string(machine.torus) + (*machine.single_cable ? std::string("s") + machine.single_cable : "") + "/" +
           allocation_name(kind) + "/r" + std::to_string(routers) + "c" + std::to_string(cables);
  std::mt19937_64 rng(fnv1a(s.name));
  const NodeId count = torus.node_count();
  s.nodes = count;
  if (count > 64) s.virtual_channels = count > 256 ? std::vector<int>{1, 8} : std::vector<int>{1, 2, 8};
  s.genetic = count <= 128;
  Network network(torus);
  routers = std::min<int>(routers, static_cast<int>(count) - 1);
  while (static_cast<int>(network.failed_nodes().size()) < routers) {
    const NodeId node = static_cast<NodeId>(rng() % count);
    if (network.node_alive(node)) network.fail_node(node);
  }
  std::vector<std::string> links;
  for (int tries = 0; static_cast<int>(links.size()) < cables && tries < 1000; ++tries) {
    const NodeId node = static_cast<NodeId>(rng() % count);
    const Direction d(static_cast<int>(rng() % kDirectionCount));
    if (!torus.direction_present(d) || !torus.cabled(node, d) || !network.node_alive(node) ||
        !network.channel_alive(node, d))
      continue;
    network.fail_link(node, d);
    links.push_back(torus.format_coord(node) + " " + d.token());
  }

  const int width = static_cast<int>(std::to_string(count - 1).size());
  std::ostringstream yaml;
  yaml << "machine:\n  torus: " << machine.torus << "\n  nodes: n[" << std::string(width - 1, '0') << "0-"
       << (count - 1) << "]\n";
  if (*machine.single_cable) {
    yaml << "  single_cable: [";
    for (const char* c = machine.single_cable; *c; ++c) yaml << (c == machine.single_cable ? "" : ", ") << *c;
    yaml << "]\n";
  }
  if (!network.failed_nodes().empty() || !links.empty()) {
    yaml << "failures:\n";
    if (!network.failed_nodes().empty()) {
      yaml << "  nodes: [";
      for (std::size_t i = 0; i < network.failed_nodes().size(); ++i)
        yaml << (i ? ", " : "") << '"' << torus.format_coord(network.failed_nodes()[i]) << '"';
      yaml << "]\n";
    }
    if (!links.empty()) {
      yaml << "  links: [";
      for (std::size_t i = 0; i < links.size(); ++i) yaml << (i ? ", " : "") << '"' << links[i] << '"';
      yaml << "]\n";
    }
  }
  s.yaml = yaml.str();

  if (kind == Allocation::block) {
    // Half of the largest dimension (rounded up) at a seeded offset, with
    // every coordinate of the others: a compact block, wrapping round.
    int largest = 0;
    for (int dim = 1; dim < kMaxDims; ++dim)
      if (torus.size(dim) > torus.size(largest)) largest = dim;
    const int size = torus.size(largest), extent = (size + 1) / 2;
    const int offset = static_cast<int>(rng() % static_cast<std::uint64_t>(size));
    for (NodeId node = 0; node < count; ++node)
      if (network.node_alive(node) && ((torus.coord(node)[largest] - offset + size) % size) < extent)
        s.allocation.push_back(node);
  } else if (kind == Allocation::half) {
    for (NodeId node = 0; node < count; ++node)
      if (network.node_alive(node) && rng() % 2) s.allocation.push_back(node);
    if (s.allocation.empty())
      for (NodeId node = 0; node < count; ++node)
        if (network.node_alive(node)) s.allocation.push_back(node);
  }
  return s;
}

// The scenarios of a machine: fault-free and faulty, whole and parts.  The
// larger machines get fewer (their cases take seconds each).
std::vector<Scenario> scenarios_of(const Machine& machine, bool quick) {
  const NodeId nodes = Torus::parse(machine.torus).node_count();
  std::vector<Scenario> out;
  out.push_back(make_scenario(machine, Allocation::whole, 0, 0));
  out.push_back(make_scenario(machine, Allocation::whole, nodes <= 4 ? 1 : 2, 1));
  if (quick) {
    if (nodes >= 8) out.push_back(make_scenario(machine, Allocation::half, 1, 2));
    return out;
  }
  if (nodes > 256) return out;
  if (nodes <= 32) out.push_back(make_scenario(machine, Allocation::whole, 0, 3));
  if (nodes <= 64) out.push_back(make_scenario(machine, Allocation::whole, 3, 2));
  if (nodes < 8) return out;
  out.push_back(make_scenario(machine, Allocation::block, 1, 1));
  out.push_back(make_scenario(machine, Allocation::half, 0, 0));
  if (nodes <= 32) out.push_back(make_scenario(machine, Allocation::block, 0, 0));
  if (nodes <= 64) out.push_back(make_scenario(machine, Allocation::half, 2, 3));
  return out;
}

std::string generator_label(const std::string& algorithm);

// One case, small: the sweep holds tens of thousands, and each child's peak
// RSS (what is measured) starts from the parent's.
struct Case {
  const Scenario* scenario = nullptr;
  const std::string* algorithm = nullptr;  // a generator, or the default chain
  const char* rules = "";
  const char* flow_control = "";
  int virtual_channels = 1;
  std::string name() const {  // scenario/algorithm/rules-flow-vcK
    return scenario->name + "/" + generator_label(*algorithm) + "/" + rules + "-" + flow_control + "-vc" +
           std::to_string(virtual_channels);
  }
  std::string yaml() const {
    return scenario->yaml + "routing:\n  algorithm: " + *algorithm + "\n  virtual_channels: " +
           std::to_string(virtual_channels) + "\n  rules: " + rules + "\n  flow_control: " + flow_control +
           "\n  lp_bound_time: 0\n";
  }
};

std::string generator_label(const std::string& algorithm) {
  return algorithm.find(',') != std::string::npos ? "chain" : algorithm;
}

// --------------------------------------------------------------- the child

// What a child reports through its pipe: "KIND STATUS ESTIMATE LENGTH\n"
// and LENGTH bytes of message (the refusal, or the exception's what()).
enum class Kind { verified, refused, rejected, out_of_memory, other_exception };
const char* kind_token(Kind k) {
  switch (k) {
    case Kind::verified: return "verified";
    case Kind::refused: return "refused";
    case Kind::rejected: return "rejected";
    case Kind::out_of_memory: return "bad_alloc";
    case Kind::other_exception: return "exception";
  }
  return "?";
}

std::string current_exception_type() {
  const std::type_info* type = abi::__cxa_current_exception_type();
  if (!type) return "unknown";
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(type->name(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? name.get() : type->name();
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// The largest estimate of the chain's members (each is held to the limit
// before it runs), which the child's peak is compared with.
std::uint64_t chain_estimate(const Config& config, const JobRequest& request) {
  const PreparedJob prepared = prepare_job(config, request);
  std::uint64_t most = 0;
  MemoryWork work;
  for (const std::string& member : prepared.chain.members)
    most = std::max(most, estimate_job_memory(prepared.network, prepared.allocation.size(), member, prepared.options,
                                              work).total);
  return most;
}

// --inject KIND: the faults the sweep must report, for its own test
// (tests/test_sweep.sh).
void inject(const std::string& what) {
  if (what == "segv") std::raise(SIGSEGV);
  if (what == "hang")
    for (;;) ::pause();
  if (what == "exception") throw std::logic_error("injected");
  if (what == "multiline") throw RoutingError("injected: a refusal\nof two lines");
  if (what == "memory") {
    // 256 MiB touched, far above any quick case's estimate.
    static std::vector<char> held(std::size_t{256} << 20, 1);
    throw RoutingError(std::string("injected: ") + std::to_string(held.size()) + " bytes held");
  }
}

[[noreturn]] void run_child(const Case& c, int fd, const std::string& injected) {
  Kind kind = Kind::verified;
  int status = 0;
  std::uint64_t estimate = 0;
  std::string message;
  try {
    const Config config = parse_config(c.yaml(), c.name() + ".yaml");
    JobRequest request;
    for (NodeId node : c.scenario->allocation) request.node_names.push_back(config.node_name(node));
    try {
      estimate = chain_estimate(config, request);
    } catch (...) {
      // compute_job_routes() meets the same error below and reports it.
    }
    if (!injected.empty()) inject(injected);
    const JobResult result = compute_job_routes(config, request);
    if (!result.report.ok()) {
      kind = Kind::rejected;
      message = "compute_job_routes returned a table the verifier rejected";
    } else {
      message = result.algorithm;
      // A multi-path generator's function (mp-lash, a-lash) passes its own
      // verifier too: every allowed path, and the union of their dependencies.
      try {
        const std::optional<JobMultiPath> multipath = recompute_multipath(config, result.network, result.table);
        if (multipath && !multipath->report.ok()) {
          kind = Kind::rejected;
          message = "multi-path function: " + multipath->report.violations.front().message;
        }
      } catch (const RoutingError& e) {
        kind = Kind::rejected;
        message = std::string("multi-path function: ") + e.what();
      }
    }
  } catch (...) {
    const std::exception_ptr error = std::current_exception();
    status = cli::exit_status_of(error);
    try {
      std::rethrow_exception(error);
    } catch (const VerificationError& e) {
      kind = Kind::rejected;
      message = e.what();
    } catch (const std::bad_alloc& e) {
      kind = Kind::out_of_memory;
      message = e.what();
    } catch (const RoutingError& e) {
      message = e.what();
    } catch (const MemoryLimitError& e) {
      message = e.what();
    } catch (const ConfigError& e) {
      message = e.what();
    } catch (const std::invalid_argument& e) {
      message = e.what();
    } catch (const std::exception& e) {
      kind = Kind::other_exception;
      message = current_exception_type() + ": " + e.what();
    } catch (...) {
      kind = Kind::other_exception;
      message = current_exception_type();
    }
    if (kind == Kind::verified) kind = Kind::refused;
  }
  write_all(fd, std::string(kind_token(kind)) + " " + std::to_string(status) + " " + std::to_string(estimate) + " " +
                    std::to_string(message.size()) + "\n" + message);
  ::close(fd);
  // exit(), not _exit(): LeakSanitizer's check runs at exit.
  std::exit(0);
}

// -------------------------------------------------------------- the parent

struct Running {
  const Case* c = nullptr;
  pid_t pid = -1;
  int out = -1, err = -1;  // the report pipe and the child's stderr
  std::string report, stderr_text;
  std::chrono::steady_clock::time_point started;
  bool killed = false;
  // What the sweep had grown by when it forked (its case list, buffers): a
  // child starts with it resident, angara-route would not.
  std::uint64_t inherited = 0;
};

struct Outcome {
  std::string kind;      // verified, refused, finding
  int status = 0;        // the documented exit status of a refusal
  std::string algorithm; // the member that won (verified)
  std::string message;   // the refusal, or what the finding is
  std::string finding;   // its kind: crash, timeout, sanitizer, exception, rejected, message, memory, ...
  double seconds = 0;
  std::uint64_t peak = 0, estimate = 0;
};

const char* status_name(int status) {
  switch (status) {
    case cli::kExitRejected: return "rejected";
    case cli::kExitInput: return "input";
    case cli::kExitNoRoute: return "no route";
    case cli::kExitMemory: return "memory limit";
    default: return "other";
  }
}

// angara.yaml(5), routing.flow_control: under none "a plain
// direction-order table on a ring of 4 or more nodes is rejected" (by the
// verifier, exit status 1): the generators that keep one virtual channel
// and direction-order routes do not take the setting into account.
bool documented_rejection(const Case& c) {
  const std::string& a = *c.algorithm;
  return std::strcmp(c.flow_control, "none") == 0 &&
         (a == "bfs" || a == "sssp" || a == "balanced" || a == "genetic");
}

// The first line of a sanitizer's report in a child's stderr, or "".
std::string sanitizer_line(const std::string& text) {
  for (const char* marker : {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "SUMMARY: "}) {
    const std::size_t at = text.find(marker);
    if (at == std::string::npos) continue;
    const std::size_t begin = text.rfind('\n', at), end = text.find('\n', at);
    return text.substr(begin == std::string::npos ? 0 : begin + 1,
                       (end == std::string::npos ? text.size() : end) - (begin == std::string::npos ? 0 : begin + 1));
  }
  return "";
}

std::string one_line(std::string text, std::size_t most = 300) {
  for (char& ch : text)
    if (ch == '\n' || ch == '\r') ch = '|';
  if (text.size() > most) text = text.substr(0, most) + "...";
  return text;
}

std::string mib(std::uint64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return buffer;
}

Outcome judge(const Running& r, int wait_status, const rusage& usage, const Options& options, double seconds) {
  Outcome o;
  o.seconds = seconds;
  o.peak = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
  o.peak -= std::min(o.peak, r.inherited);
  const auto finding = [&](const std::string& what, const std::string& detail) {
    o.kind = "finding";
    o.finding = what;
    o.message = detail;
    return o;
  };
  const std::string sanitizer = sanitizer_line(r.stderr_text);
  if (r.killed) {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", options.time_limit);
    return finding("timeout", std::string("no result within the limit of ") + limit + " s");
  }
  if (WIFSIGNALED(wait_status))
    return finding("crash", std::string("killed by signal ") + std::to_string(WTERMSIG(wait_status)) + " (" +
                                strsignal(WTERMSIG(wait_status)) + ")" +
                                (sanitizer.empty() ? "" : ": " + sanitizer));
  if (!sanitizer.empty()) return finding("sanitizer", sanitizer);
  const int exit_code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
  // The report: a header line, then the message.
  const std::size_t newline = r.report.find('\n');
  if (newline == std::string::npos)
    return finding("crash", "exit status " + std::to_string(exit_code) + " without a result" +
                                (r.stderr_text.empty() ? "" : ": " + one_line(r.stderr_text, 200)));
  std::istringstream header(r.report.substr(0, newline));
  std::string kind;
  std::size_t length = 0;
  header >> kind >> o.status >> o.estimate >> length;
  const std::string message = r.report.substr(newline + 1);
  if (message.size() != length) return finding("crash", "truncated result (" + r.report.substr(0, newline) + ")");
  if (exit_code != 0) return finding("exit", "exit status " + std::to_string(exit_code) + " after its result");
  if (kind == "rejected" && !documented_rejection(*r.c)) return finding("rejected", one_line(message));
  if (kind == "bad_alloc") return finding("bad_alloc", "std::bad_alloc: " + one_line(message));
  if (kind == "exception") return finding("exception", one_line(message));
  if (!SWEEP_SANITIZED && o.estimate > 0 &&
      static_cast<double>(o.peak) > static_cast<double>(o.estimate) * (1 + options.memory_slack))
    return finding("memory", "peak " + mib(o.peak) + " over the estimate " + mib(o.estimate) + " (" +
                                 (kind == "verified" ? "verified by " + message : "refused") + ")");
  if (kind == "verified") {
    o.kind = "verified";
    o.algorithm = message;
    return o;
  }
  if (kind != "refused" && kind != "rejected")
    return finding("crash", "unreadable result " + r.report.substr(0, newline));
  if (o.status != cli::kExitNoRoute && o.status != cli::kExitInput && o.status != cli::kExitMemory &&
      !(kind == "rejected" && o.status == cli::kExitRejected))
    return finding("status", "refused with exit status " + std::to_string(o.status) + ": " + one_line(message));
  if (message.empty()) return finding("message", "empty refusal (exit status " + std::to_string(o.status) + ")");
  if (message.find('\n') != std::string::npos)
    return finding("message", "refusal of several lines: " + one_line(message, 200));
  if (message.size() > options.max_message)
    return finding("message", "refusal of " + std::to_string(message.size()) + " bytes: " + one_line(message, 160));
  o.kind = "refused";
  o.message = message;
  return o;
}

void drain(int& fd, std::string& into, std::size_t most) {
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      if (into.size() < most) into.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EINTR)) continue;
    if (n < 0 && errno == EAGAIN) return;
    ::close(fd);
    fd = -1;
    return;
  }
}

// This process's resident bytes now (/proc/self/statm), 0 when unknown.
std::uint64_t resident_bytes() {
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (!statm) return 0;
  unsigned long long size = 0, resident = 0;
  const bool read = std::fscanf(statm, "%llu %llu", &size, &resident) == 2;
  std::fclose(statm);
  return read ? resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

Running start(const Case& c, const std::vector<Running>& running, const std::string& injected,
              std::uint64_t program_resident) {
  const std::uint64_t resident = resident_bytes();
  int out[2], err[2];
  if (::pipe(out) != 0 || ::pipe(err) != 0) {
    std::perror("angara-sweep: pipe");
    std::exit(2);
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::perror("angara-sweep: fork");
    std::exit(2);
  }
  if (pid == 0) {
    // A sweep that is stopped takes its running cases with it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (const Running& other : running) {
      if (other.out >= 0) ::close(other.out);
      if (other.err >= 0) ::close(other.err);
    }
    ::close(out[0]);
    ::close(err[0]);
    ::dup2(err[1], STDERR_FILENO);
    ::close(err[1]);
    run_child(c, out[1], injected);
  }
  ::close(out[1]);
  ::close(err[1]);
  for (int fd : {out[0], err[0]}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  Running r;
  r.c = &c;
  r.pid = pid;
  r.out = out[0];
  r.err = err[0];
  r.started = std::chrono::steady_clock::now();
  r.inherited = resident > program_resident ? resident - program_resident : 0;
  return r;
}

// ---------------------------------------------------------------- summary

struct Tally {
  int cases = 0, verified = 0, refused = 0, findings = 0;
  double seconds = 0;
};

void usage(const char* program) {
  std::fprintf(stderr,
               "usage: %s [--quick | --full] [--only REGEX] [--jobs N] [--time-limit S] [--max-message BYTES]\n"
               "          [--memory-slack FRACTION] [--list] [--show CASE] [--verbose] [--inject FAULT]\n",
               program);
}

bool parse_options(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> const char* {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    const auto number = [&](double low, double high) {
      const std::string text = value();
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end || !(v >= low && v <= high))
        throw std::invalid_argument(arg + " " + text + ": expected a number from " + std::to_string(low) + " to " +
                                    std::to_string(high));
      return v;
    };
    if (arg == "--quick") options.quick = true;
    else if (arg == "--full") options.quick = false;
    else if (arg == "--only") options.only = value();
    else if (arg == "--jobs") options.jobs = static_cast<int>(number(1, 256));
    else if (arg == "--time-limit") options.time_limit = number(1, 86400);
    else if (arg == "--max-message") options.max_message = static_cast<std::size_t>(number(1, 1e6));
    else if (arg == "--memory-slack") options.memory_slack = number(0, 100);
    else if (arg == "--list") options.list = true;
    else if (arg == "--show") options.show = value();
    else if (arg == "--verbose") options.verbose = true;
    else if (arg == "--inject") {
      options.inject = value();
      if (options.inject != "segv" && options.inject != "hang" && options.inject != "exception" &&
          options.inject != "multiline" && options.inject != "memory")
        throw std::invalid_argument("--inject " + options.inject + ": expected segv, hang, exception, multiline or memory");
    }
    else throw std::invalid_argument("unknown option " + arg);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  try {
    parse_options(argc, argv, options);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "angara-sweep: %s\n", e.what());
    usage(argv[0]);
    return 2;
  }
  if (options.time_limit == 0) options.time_limit = options.quick ? 60 : 300;
  // POSIX's regex (GCC 12's <regex> trips -Werror under the sanitizers).
  regex_t only;
  if (const int error = ::regcomp(&only, options.only.empty() ? "." : options.only.c_str(), REG_EXTENDED | REG_NOSUB)) {
    char text[256];
    ::regerror(error, &only, text, sizeof text);
    std::fprintf(stderr, "angara-sweep: --only %s: not a regular expression (%s)\n", options.only.c_str(), text);
    return 2;
  }
  const std::unique_ptr<regex_t, void (*)(regex_t*)> only_owner(&only, ::regfree);
  // The program as angara-route has it too: libraries loaded, nothing built.
  const std::uint64_t program_resident = resident_bytes();
  // One worker a case: the children run side by side (--jobs), and a case's
  // outcome does not depend on the machine's cores.
  ::setenv("ANGARA_THREADS", "1", 0);

  std::vector<Scenario> scenarios;
  for (const Machine& machine : kMachines) {
    if (options.quick && !machine.quick) continue;
    for (Scenario& s : scenarios_of(machine, options.quick)) scenarios.push_back(std::move(s));
  }
  std::vector<std::string> algorithms;
  for (const GeneratorInfo& info : generators()) algorithms.emplace_back(info.name);
  algorithms.push_back(default_algorithm_chain());
  std::vector<Case> cases;
  for (const Scenario& s : scenarios)
    for (const std::string& algorithm : algorithms)
      for (const char* rules : {"angara", "general"})
        for (const char* flow : {"bubble", "none"})
          for (int vc : s.virtual_channels) {
            if (algorithm == "genetic" && !s.genetic) continue;
            const Case c{&s, &algorithm, rules, flow, vc};
            if (::regexec(&only, c.name().c_str(), 0, nullptr, 0) == 0) cases.push_back(c);
          }
  cases.shrink_to_fit();
  ::malloc_trim(0);  // the names built for --only: not in the children's peaks
  if (options.list) {
    for (const Case& c : cases) std::printf("%s\n", c.name().c_str());
    return 0;
  }
  if (!options.show.empty()) {
    for (const Case& c : cases) {
      if (c.name() != options.show) continue;
      std::printf("cat > sweep.yaml <<'EOF'\n%sEOF\nangara-route generate --dry-run -c sweep.yaml%s\n", c.yaml().c_str(),
                  c.scenario->allocation.empty() ? "" : " --nodes '<the allocation>'");
      if (!c.scenario->allocation.empty()) {
        std::printf("# the allocation (node indices):");
        for (NodeId node : c.scenario->allocation) std::printf(" %u", static_cast<unsigned>(node));
        std::printf("\n");
      }
      return 0;
    }
    std::fprintf(stderr, "angara-sweep: no case named %s (--list names them)\n", options.show.c_str());
    return 2;
  }

  std::printf("angara-sweep: %zu cases (%s, %zu scenarios, %zu algorithms x 2 rules x 2 flow controls x 1-8 virtual "
              "channels), %d jobs, %.0f s a case%s\n",
              cases.size(), options.quick ? "quick" : "full", scenarios.size(), algorithms.size(), options.jobs,
              options.time_limit, SWEEP_SANITIZED ? ", sanitizer build: memory not compared" : "");
  const auto begun = std::chrono::steady_clock::now();
  std::map<std::string, Tally> per_generator;
  std::map<int, int> refused_by_status;
  std::map<std::string, int> findings_by_kind;
  std::map<std::pair<std::string, std::string>, int> findings_by_kind_and_generator;
  Tally total;
  std::vector<Running> running;
  std::size_t next = 0;

  const auto finish = [&](Running& r, int wait_status, const rusage& usage) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - r.started).count();
    for (int* fd : {&r.out, &r.err})
      if (*fd >= 0) drain(*fd, *fd == r.out ? r.report : r.stderr_text, 1 << 20);
    const Outcome o = judge(r, wait_status, usage, options, seconds);
    Tally& g = per_generator[generator_label(*r.c->algorithm)];
    for (Tally* t : {&g, &total}) {
      ++t->cases;
      t->seconds += seconds;
      if (o.kind == "verified") ++t->verified;
      else if (o.kind == "refused") ++t->refused;
      else ++t->findings;
    }
    if (o.kind == "refused") ++refused_by_status[o.status];
    if (total.cases % 1000 == 0)
      std::fprintf(stderr, "angara-sweep: %d of %zu cases, %d findings, %.0f s\n", total.cases, cases.size(),
                   total.findings, std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count());
    if (o.kind == "finding") {
      ++findings_by_kind[o.finding];
      ++findings_by_kind_and_generator[{o.finding, generator_label(*r.c->algorithm)}];
      std::printf("FINDING %s %s: %s\n", o.finding.c_str(), r.c->name().c_str(), o.message.c_str());
      if (options.verbose && !r.stderr_text.empty())
        std::printf("  stderr: %s\n", one_line(r.stderr_text, 2000).c_str());
    } else if (options.verbose) {
      std::printf("%s %s %.2f s peak %s estimate %s: %s\n", o.kind.c_str(), r.c->name().c_str(), seconds,
                  mib(o.peak).c_str(), mib(o.estimate).c_str(),
                  o.kind == "verified" ? o.algorithm.c_str() : one_line(o.message, 200).c_str());
    }
    std::fflush(stdout);
  };

  while (next < cases.size() || !running.empty()) {
    while (next < cases.size() && static_cast<int>(running.size()) < options.jobs)
      running.push_back(start(cases[next++], running, options.inject, program_resident));
    std::vector<pollfd> fds;
    for (const Running& r : running)
      for (int fd : {r.out, r.err})
        if (fd >= 0) fds.push_back({fd, POLLIN, 0});
    if (!fds.empty()) ::poll(fds.data(), fds.size(), 20);
    else ::usleep(5000);
    for (std::size_t i = 0; i < running.size();) {
      Running& r = running[i];
      if (r.out >= 0) drain(r.out, r.report, 1 << 20);
      if (r.err >= 0) drain(r.err, r.stderr_text, 1 << 16);
      int wait_status = 0;
      rusage usage{};
      pid_t done = ::wait4(r.pid, &wait_status, WNOHANG, &usage);
      if (done == 0 && std::chrono::steady_clock::now() - r.started > std::chrono::duration<double>(options.time_limit)) {
        ::kill(r.pid, SIGKILL);
        r.killed = true;
        done = ::wait4(r.pid, &wait_status, 0, &usage);
      }
      if (done == r.pid) {
        finish(r, wait_status, usage);
        for (int fd : {r.out, r.err})
          if (fd >= 0) ::close(fd);
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      ++i;
    }
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count();

  std::printf("\n| generator | cases | verified | refused | findings | case s (sum) |\n|---|---|---|---|---|---|\n");
  const auto row = [](const std::string& name, const Tally& t) {
    std::printf("| %s | %d | %d | %d | %d | %.0f |\n", name.c_str(), t.cases, t.verified, t.refused, t.findings,
                t.seconds);
  };
  for (const std::string& algorithm : algorithms) {
    const auto found = per_generator.find(generator_label(algorithm));
    if (found != per_generator.end()) row(found->first, found->second);
  }
  row("all", total);
  std::printf("\nrefused by reason:");
  if (refused_by_status.empty()) std::printf(" none");
  for (const auto& [status, count] : refused_by_status)
    std::printf(" %d (exit %d, %s)", count, status, status_name(status));
  std::printf("\nfindings by kind:");
  if (findings_by_kind.empty()) std::printf(" none");
  for (const auto& [kind, count] : findings_by_kind) std::printf(" %d %s", count, kind.c_str());
  if (!findings_by_kind.empty()) {
    std::printf("\n\n| finding |");
    for (const std::string& algorithm : algorithms) std::printf(" %s |", generator_label(algorithm).c_str());
    std::printf("\n|---|");
    for (std::size_t i = 0; i < algorithms.size(); ++i) std::printf("---|");
    for (const auto& [kind, count] : findings_by_kind) {
      std::printf("\n| %s |", kind.c_str());
      for (const std::string& algorithm : algorithms) {
        const auto found = findings_by_kind_and_generator.find({kind, generator_label(algorithm)});
        std::printf(" %d |", found == findings_by_kind_and_generator.end() ? 0 : found->second);
      }
    }
  }
  std::printf("\nangara-sweep: %d cases, %d verified, %d refused, %d findings in %.0f s wall (%d jobs)\n", total.cases,
              total.verified, total.refused, total.findings, wall, options.jobs);
  return total.findings == 0 ? 0 : 1;
}
