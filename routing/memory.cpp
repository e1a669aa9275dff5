#include "routing/memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

#include "routing/common/parallel.hpp"

namespace angara {

namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

// The mean minimal hop count between two nodes of the torus: per dimension
// the mean ring distance (floor(k^2/4)/k; 1/2 for two nodes).
double mean_hops(const Torus& torus) {
  double hops = 0;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    if (!torus.dim_present(dim)) continue;
    const double k = torus.size(dim);
    hops += std::floor(k * k / 4) / k;
  }
  return hops;
}

// GLPK's problem and the candidate routes of every pair (routing/check/lp_bound.hpp
// skips allocations above 512 nodes, and solves a whole fault-free
// double-cabled torus by symmetry, without the LP).  Measured over the program's 8 MiB:
// 1.5 KiB a pair at 3 mean hops (40 nodes of a faulty 4x4x4), 1.5-2.3 KiB
// at 4.5 (128 and 200 nodes of 6x6x6), 1.3-1.9 KiB at 6 (256 and 299 nodes
// of 8x8x8).
bool has_failures(const Network& network) {
  return !network.failed_nodes().empty() || !network.failed_links().empty();
}

// The parts every estimate has: the program, its libraries and the
// machine's names and channels; the result, one 32-bit word an ordered pair
// (angara/route.hpp); and the verifier, per thread and layer loads and run
// ends by channel slot, and one channel dependency graph per layer.
//
// The program is what the process holds already, read from /proc/self/statm
// rather than assumed: the command-line tool links SimGrid (and through it
// ns-3) for `simulate`, which alone makes 35 MiB resident at start, while
// the SPANK plugin's process holds far less.  8 MiB when /proc cannot say.
double resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  double size_pages = 0, resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return 0;
  return resident_pages * static_cast<double>(::sysconf(_SC_PAGESIZE));
}
double program_bytes(const Torus& torus) {
  return std::max(8.0 * kMiB, resident_bytes()) + 128.0 * torus.node_count();
}
double route_table_bytes(double nodes) { return 4 * nodes * nodes + 16 * nodes; }
// Besides, on an allocation that is not every live router, its
// per-dimension load bound (routing/check/metrics.cpp, dimension_bound_terms)
// holds, one dimension at a time, each distinct class of pairs (at most the
// pairs, at most the coordinate intervals of the torus): its key and, per
// sign, a pattern of 16 bytes (the key and its coverage), with a sorted
// copy of one list; it lists them only for the channels its direct check
// leaves.  The check by displacement (an allocation that fills a box: every
// live router, or a block) holds its corrections' run ends and turns by
// channel slot (72 bytes a slot), up to 4 differing pairs a slot (32
// bytes), a node's index and cell by router (8 bytes), and per key (at
// most 2^dims keys a router of the box: a displacement per dimension and
// a source parity per even ring) a common route (about 100 bytes with its
// runs) and per thread a count; its grid of translate counts is 640 bytes
// a cell, at most 1.5^dims cells a router of a block (a coordinate along
// each arc) and 2^dims on a whole machine (a parity per ring).  The check
// by counts (any other allocation) holds the direction-order routes' loads,
// run ends and turns by channel slot (80 bytes a slot), the same differing
// pairs, and the allocation's counts transformed along some dimensions (4
// bytes a router each, at most 2 + 3^d + 3^(d-1) of them for d dimensions
// with a ring: 86 measured on 16x16x8x8).  `nodes`: the allocation's size.
double verifier_bytes(const Network& network, double layers, int threads, double nodes) {
  const Torus& torus = network.torus();
  const double machine = static_cast<double>(torus.node_count());
  const double live = machine - static_cast<double>(network.failed_nodes().size());
  const double partial = nodes < live ? nodes : 0;  // every live router: no pair classes
  double intervals = 1, key_factor = 1, cell_factor = 1, powers_of_3 = 1;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    intervals *= static_cast<double>(torus.size(dim)) * torus.size(dim);
    if (torus.size(dim) > 1) {
      key_factor *= 2;
      cell_factor *= 1.5;
      powers_of_3 *= 3;
    }
  }
  const double classes = std::min(partial * std::max(0.0, partial - 1), intervals);
  const double box = partial > 0 ? partial : machine;
  const double by_displacement = 104.0 * static_cast<double>(torus.channel_slots()) + 8.0 * machine +
                                 key_factor * box * (100.0 + 4.0 * std::max(1, threads)) +
                                 640.0 * (partial > 0 ? cell_factor * box : key_factor);
  const double by_counts = partial > 0 ? 112.0 * static_cast<double>(torus.channel_slots()) +
                                             4.0 * machine * (2 + powers_of_3 + powers_of_3 / 3)
                                       : 0;
  return static_cast<double>(torus.channel_slots()) * layers * (16.0 * std::max(1, threads) + 64) +
         classes * (16 + 3 * 16) + std::max(by_displacement, by_counts);
}

// The adaptive channel's escape check (routing/check/adaptive_escape.hpp),
// after the verifier's walk: per thread a bit row per escape channel (the
// used (virtual channel, channel) pairs, at most the live channels of each
// layer) and a row per allocated router; the rows are then the extended
// graph's indirect part, read in place, beside its direct part and Tarjan's
// arrays (40 bytes an escape channel).
double escape_check_bytes(const Network& network, double nodes, double layers, int threads) {
  const double vertices = static_cast<double>(network.live_channel_count()) * layers;
  const double row = 8 * std::ceil(vertices / 64);
  return std::max(1, threads) * (vertices + nodes) * row + 40 * vertices;
}

// The checks after a table is made: the verifier, and the escape check
// when the adaptive channel is on.
double checks_bytes(const Network& network, double layers, const MemoryWork& work, double nodes) {
  return verifier_bytes(network, layers, work.threads, nodes) +
         (work.adaptive_escape ? escape_check_bytes(network, nodes, layers, work.threads) : 0);
}
const char* checks_name(const MemoryWork& work) {
  return work.adaptive_escape ? "verifier and escape check" : "verifier";
}

double lp_bound_bytes(const Network& network, std::size_t allocation_size) {
  const Torus& torus = network.torus();
  const bool by_symmetry = allocation_size == static_cast<std::size_t>(torus.node_count()) &&
                           torus.single_cable_mask() == 0 && !has_failures(network);
  const double pairs = static_cast<double>(allocation_size) * static_cast<double>(allocation_size);
  return allocation_size <= 512 && !by_symmetry ? pairs * (1024 + 400 * mean_hops(torus)) : 0;
}

std::uint64_t saturated(double bytes) {
  return bytes >= 1.8e19 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(bytes);
}

// Adds a part to the estimate, the total saturating at the largest value.
void add_part(MemoryEstimate& estimate, const std::string& what, double bytes) {
  const std::uint64_t value = saturated(bytes);
  estimate.parts.push_back({what, value});
  estimate.total = value > ~std::uint64_t{0} - estimate.total ? ~std::uint64_t{0} : estimate.total + value;
}

// What the model's parts leave out: the allocator's free lists and arenas,
// the configuration's and the report's own structures, a thread's stack.
// bench/angara-sweep found peaks of up to 2 MiB over the parts alone on
// small allocations (a 10x10 with two failed routers: 14.8 MiB against
// 13.6); an estimate is an upper bound, so it carries 4 MiB and an eighth.
void add_margin(MemoryEstimate& estimate) {
  add_part(estimate, "allocator and working margin", 4.0 * kMiB + static_cast<double>(estimate.total) / 8);
}

}  // namespace

std::string MemoryEstimate::text() const {
  std::string out = format_bytes(total) + " (";
  for (std::size_t i = 0; i < parts.size(); ++i)
    out += (i ? ", " : "") + parts[i].what + " " + format_bytes(parts[i].bytes);
  return out + ")";
}

MemoryEstimate estimate_job_memory(const Network& network, std::size_t allocation_size, const std::string& generator,
                                   const GeneratorOptions& options, const MemoryWork& work) {
  const Torus& torus = network.torus();
  const double nodes = static_cast<double>(allocation_size);
  const double pairs = nodes * nodes;
  const double hops = mean_hops(torus);
  const double slots = static_cast<double>(torus.channel_slots());
  const double layers = std::max(1, options.virtual_channels);

  MemoryEstimate estimate;
  add_part(estimate, "program and machine", program_bytes(torus));
  add_part(estimate, "route table", route_table_bytes(nodes));
  if (work.extra_tables > 0)
    add_part(estimate, "installed and intermediate tables", work.extra_tables * route_table_bytes(nodes));

  // The phases after it run one at a time: the largest counts.
  std::string peak_what;
  double peak = 0;
  const auto phase = [&](const std::string& what, double bytes) {
    if (bytes > peak) {
      peak = bytes;
      peak_what = what;
    }
  };
  // Each generator states its own peak (Generator::peak_bytes); one that
  // starts from another's table is told that one's.
  MemoryContext context;
  context.allocation_size = allocation_size;
  context.faults = has_failures(network);
  context.live_nodes = static_cast<std::size_t>(torus.node_count()) - network.failed_nodes().size();
  context.whole_intact_torus = !context.faults && allocation_size == static_cast<std::size_t>(torus.node_count());
  context.every_port_live = network.every_port_live();
  context.pairs = pairs;
  context.mean_hops = hops;
  context.channel_slots = slots;
  context.layers = layers;
  context.dims = std::max(1, torus.present_dims());
  const std::unique_ptr<Generator> engine = make_generator(generator);
  if (const GeneratorInfo* info = find_generator(generator); info && !info->start_from.empty())
    context.start_peak_bytes = make_generator(info->start_from)->peak_bytes(context, options);
  phase("generator " + generator,
        engine ? engine->peak_bytes(context, options) : Generator::default_peak_bytes(context));
  phase(checks_name(work), checks_bytes(network, layers, work, nodes));
  // The dump is streamed to its file through a 64 KiB buffer, a line at a
  // time (replace_file_atomically): nothing of the size of the table.
  if (work.route_dump) phase("route dump", 128 * 1024);
  if (work.lp_bound) phase("LP bound", lp_bound_bytes(network, allocation_size));
  add_part(estimate, peak_what, peak);
  add_margin(estimate);
  return estimate;
}

MemoryEstimate estimate_table_read_memory(const Network& network, std::size_t files, std::uint64_t file_bytes,
                                          const MemoryWork& work) {
  const Torus& torus = network.torus();
  const double nodes = static_cast<double>(files);
  const double routes = nodes * std::max(0.0, nodes - 1);
  MemoryEstimate estimate;
  add_part(estimate, "program and machine", program_bytes(torus));
  // Every file's text is read before any is parsed (one consistent snapshot,
  // angara/table_set.hpp); a parsed route is a destination and a hop vector
  // (32 bytes and a heap block).  Measured: 8x8x8, 17 MiB of files, peak
  // 41 MiB (doc/benchmarks.md, "Memory estimate").
  add_part(estimate, "table files", static_cast<double>(file_bytes));
  add_part(estimate, "parsed tables", 72 * routes);
  add_part(estimate, "route table", route_table_bytes(nodes));
  // The verifier (one layer), then the report's LP bound, one after the other.
  const double verifier = checks_bytes(network, 1, work, nodes);
  const double lp = work.lp_bound ? lp_bound_bytes(network, files) : 0;
  if (lp > verifier)
    add_part(estimate, "LP bound", lp);
  else
    add_part(estimate, checks_name(work), verifier);
  add_margin(estimate);
  return estimate;
}

MemoryEstimate estimate_dump_read_memory(const Network& network, std::uint64_t text_bytes, std::uint64_t lines,
                                         const MemoryWork& work) {
  const Torus& torus = network.torus();
  const double routes = static_cast<double>(lines);
  // n (n - 1) routes of n nodes: n is at most 1 + sqrt(routes) + 1.
  const double nodes = std::ceil(std::sqrt(routes)) + 2;
  MemoryEstimate estimate;
  add_part(estimate, "program and machine", program_bytes(torus));
  add_part(estimate, "route dump text", 2 * static_cast<double>(text_bytes));
  // A parsed line is a pair, a hop vector (a heap block) and the duplicate
  // check's hash entry.  Measured: 16x16x8 whole, 4.2 M routes in 191 MB,
  // peak 902 MB, so 122 bytes a route besides the text (doc/benchmarks.md,
  // "Memory estimate").
  add_part(estimate, "parsed routes", 128 * routes);
  add_part(estimate, "route table", route_table_bytes(nodes));
  add_part(estimate, checks_name(work), checks_bytes(network, 1, work, nodes));
  add_margin(estimate);
  return estimate;
}

namespace {

// A number of bytes in a one-line file ("max" or unreadable: 0, no limit).
std::uint64_t bytes_in_file(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return 0;
  return std::strtoull(text.c_str(), nullptr, 10);
}

// The memory limit of this process's control group (cgroup v2 memory.max,
// or v1 memory.limit_in_bytes), 0 when none is set or none can be read.
std::uint64_t cgroup_memory_limit() {
  std::ifstream cgroups("/proc/self/cgroup");
  std::string line;
  std::uint64_t limit = 0;
  const auto take = [&limit](std::uint64_t bytes) {
    // v1 writes "no limit" as a huge page-rounded number.
    if (bytes > 0 && bytes < (std::uint64_t{1} << 60) && (limit == 0 || bytes < limit)) limit = bytes;
  };
  while (std::getline(cgroups, line)) {
    const std::size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1), path = line.substr(second + 1);
    if (controllers.empty()) {
      take(bytes_in_file("/sys/fs/cgroup" + path + "/memory.max"));
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
      take(bytes_in_file("/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes"));
      take(bytes_in_file("/sys/fs/cgroup/memory/memory.limit_in_bytes"));  // a namespace's own root
    }
  }
  return limit;
}

// MemTotal of /proc/meminfo, else the kernel's physical page count.
std::uint64_t physical_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemTotal:") return kib * 1024;
    meminfo.ignore(256, '\n');
  }
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page_size > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size) : 0;
}

}  // namespace

std::uint64_t node_memory_bytes() {
  const std::uint64_t physical = physical_memory(), limit = cgroup_memory_limit();
  return limit != 0 && (physical == 0 || limit < physical) ? limit : physical;
}

std::uint64_t memory_limit_bytes(const MemoryLimit& limit) {
  if (limit.unlimited) return 0;
  if (limit.bytes) return limit.bytes;
  return saturated(static_cast<double>(node_memory_bytes()) * limit.node_fraction);
}

void check_memory_limit(const MemoryEstimate& estimate, const MemoryLimit& limit, const std::string& config_source) {
  const std::uint64_t bytes = memory_limit_bytes(limit);
  if (bytes == 0 || estimate.total <= bytes) return;
  std::string limit_text = format_bytes(bytes);
  if (!limit.bytes) limit_text += " (" + memory_limit_text(limit) + ", " + format_bytes(node_memory_bytes()) + ")";
  throw MemoryLimitError("the computation needs an estimated " + estimate.text() + ", more than the memory limit of " +
                         limit_text + " (limits.memory in " + config_source +
                         ", or --memory-limit); nothing was computed or written");
}

}  // namespace angara
