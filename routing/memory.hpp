// Bounded memory: what a computation will need, estimated before
// anything large is allocated, and the limit it is held to (limits.memory in
// angara.yaml(5), --memory-limit in angara-route(8)).  The estimate is a
// model calibrated against measured peak RSS (doc/benchmarks.md, "Memory
// estimate"): the route table (4 bytes an ordered pair, angara/route.hpp),
// the per-pair state of the generator, the verifier (and the adaptive
// channel's escape check), the LP bound and a route dump, whichever of them
// is alive at the peak.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "angara/config.hpp"
#include "angara/network.hpp"
#include "routing/generator.hpp"

namespace angara {

struct MemoryPart {
  std::string what;  // "route table", "generator nue", "verifier", ...
  std::uint64_t bytes = 0;
};

struct MemoryEstimate {
  std::uint64_t total = 0;
  std::vector<MemoryPart> parts;  // what the total is made of
  // "8.1 GiB (route table 4.0 GiB, generator balanced 4.0 GiB, ...)".
  std::string text() const;
};

// What else the computation will do besides generating and verifying.
struct MemoryWork {
  bool route_dump = false;    // a route dump (--dump-routes or a cache entry) is written or read
  bool lp_bound = false;      // the report computes the LP lower bound
  int threads = 1;            // worker threads of the verifier
  bool adaptive_escape = false;  // the verifier checks the table as the adaptive channel's escape
  // Route tables of the allocation held beside the new one: a rebuild reads
  // the installed table, and a live switch keeps its intermediate tables
  // (at most 8, routing/check/transition.hpp) until they are written.
  int extra_tables = 0;
};

// The estimate for routing `allocation_size` nodes of `network` with one
// generator (a fallback chain checks each member before it runs).
MemoryEstimate estimate_job_memory(const Network& network, std::size_t allocation_size, const std::string& generator,
                                   const GeneratorOptions& options, const MemoryWork& work);

// The estimate for reading a job's table files back and verifying them
// (verify --tables, analyze --tables): `files` tables of `file_bytes` in all,
// held as text and as parsed routes, then one route table, the verifier and
// the report's LP bound (work.lp_bound).
MemoryEstimate estimate_table_read_memory(const Network& network, std::size_t files, std::uint64_t file_bytes,
                                          const MemoryWork& work);

// The estimate for parsing a route dump and verifying it (analyze --dump):
// the dump's `text_bytes` held twice (the text and the parser's stream), a
// parsed entry for each of at most `lines` routes, the route table and the
// verifier.
MemoryEstimate estimate_dump_read_memory(const Network& network, std::uint64_t text_bytes, std::uint64_t lines,
                                         const MemoryWork& work);

// The memory this process may use: the node's MemTotal (/proc/meminfo), or
// its control group's limit when that is lower (cgroup v2 memory.max, v1
// memory.limit_in_bytes); 0 when neither is known.  (hwloc's figure moves
// between runs on some virtual machines, so it is not used here.)
std::uint64_t node_memory_bytes();

// The limit in bytes (0: none): a fraction of node_memory_bytes(), or the
// configured size.
std::uint64_t memory_limit_bytes(const MemoryLimit& limit);

// A computation was refused before it started: its estimate exceeds the
// memory limit.  Nothing was computed or written.
class MemoryLimitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws MemoryLimitError naming the estimate (with its parts), the limit
// and where the limit comes from, when the estimate exceeds it.
void check_memory_limit(const MemoryEstimate& estimate, const MemoryLimit& limit, const std::string& config_source);

}  // namespace angara
