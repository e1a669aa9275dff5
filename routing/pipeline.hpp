// compute -> verify -> write: the one path from a configuration and a job's
// nodes to verified per-router table files.  The admin tool and the SPANK
// plugin both call this; neither contains routing logic of its own.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "angara/config.hpp"
#include "angara/network.hpp"
#include "angara/route.hpp"
#include "angara/table_file.hpp"
#include "angara/table_set.hpp"
#include "routing/chain.hpp"
#include "routing/generator.hpp"
#include "routing/memory.hpp"
#include "routing/check/multipath_verifier.hpp"
#include "routing/check/verifier.hpp"

namespace angara {

// A table failed the independent verifier; nothing was written.
class VerificationError : public std::runtime_error {
 public:
  explicit VerificationError(const VerifyReport& report);
  const VerifyReport& report() const { return report_; }

 private:
  VerifyReport report_;
};

// Angara table files were asked for from a table made under rules general;
// nothing was written.
class GeneralRulesError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct JobRequest {
  std::string job = "default";          // Slurm job id, or "default" for the whole machine
  std::vector<std::string> node_names;  // the allocation; empty = every live node
  std::string algorithm;                // empty = the configuration's
  // Nodes that count as failed routers for this computation on top of the
  // configuration's (Slurm DOWN/DRAINED nodes).
  std::vector<std::string> down_nodes;
  std::string cache_dir;                // empty = no cache
  bool write_cache = true;              // false (dry runs): read the cache, never store in it
  // For the memory estimate (routing/memory.hpp): the caller writes a route
  // dump, or its report computes the LP bound.
  bool route_dump = false;
  bool lp_bound = false;
  // Tables of the allocation the caller holds beside the new one (a
  // rebuild's installed table and a live switch's intermediate ones).
  int extra_tables = 0;
  // Overrides routing.time_budget (generate --time-budget); negative: the
  // configuration's.
  double time_budget = -1;
};

struct JobResult {
  Network network;
  RouteTable table;
  VerifyReport report;
  std::string job;
  std::string algorithm;
  std::string fingerprint;  // hash of machine, faults, allocation, algorithm, version
  double seconds = 0;       // generation time (0 when served from the cache)
  bool from_cache = false;
  // The configured generator or chain ("balanced,nue"); `algorithm` is the
  // member whose table won, `passed_over` the members before it that failed.
  std::string chain;
  std::vector<PassedOver> passed_over;
  MemoryEstimate memory;    // estimated before the computation (routing/memory.hpp)
  // The optional stages the time budget cut (routing.time_budget), in order.
  std::vector<std::string> budget_cut;
  std::uint64_t budget_steps = 0;       // work the optional stages took (routing/common/work_budget.hpp)
  std::uint64_t budget_limit_steps = 0; // 0: no limit
  // routing.confine: whether every route stays on the allocation's own
  // routers, and when not, why (no table exists on them alone).
  bool confined = false;
  std::string confine_note = {};

  // The same result with an empty table over no nodes, without copying the
  // table (N^2 routes) first: the shell a live switch fills with each
  // intermediate table.  A field added above belongs here too.
  JobResult without_table() const {
    JobResult shell{network, RouteTable(std::vector<NodeId>{}), report, job, algorithm, fingerprint, seconds,
                    from_cache, chain, passed_over, memory, budget_cut, budget_steps, budget_limit_steps,
                    confined, confine_note};
    return shell;
  }
};

// A request resolved: the network with its failures, the sorted allocation,
// the generator and its options, and the fingerprint of all of them.
struct PreparedJob {
  Network network;
  std::vector<NodeId> allocation;
  AlgorithmChain chain;   // the generator or fallback chain asked for ("balanced,nue")
  GeneratorOptions options;
  std::string fingerprint;  // hash of machine, faults, allocation, algorithm, options, version
};
// The seconds of optional work a computation may take: the request's
// override, else routing.time_budget (0: no limit).
double effective_time_budget(const Config& config, const JobRequest& request);

// The first half of compute_job_routes(), cheap: no route is computed.
// Throws what compute_job_routes() throws for bad input.
PreparedJob prepare_job(const Config& config, const JobRequest& request);

// The generator and verifier settings of a configuration (seed, virtual
// channels, generator options), as compute_job_routes uses them.
GeneratorOptions generator_options_of(const Config& config);
VerifyOptions verify_options_of(const Config& config);

// The memory the request needs with `generator` (empty: the first member of
// the chain), estimated before anything large is allocated; throws
// MemoryLimitError when it exceeds config.memory_limit.
MemoryEstimate check_job_memory(const Config& config, const JobRequest& request, const PreparedJob& prepared,
                                const std::string& generator = "");

// Whether every route of the table crosses only routers of its own nodes.
bool routes_stay_on_own_routers(const Torus& torus, const RouteTable& table);

// Resolves names, applies failures, runs the generator and the verifier.
// With routing.confine, the generator runs first on the allocation's own
// routers alone (every other router counted as failed), and on the live
// network only when no table exists there; the table is verified on the
// live network either way.
// Throws ConfigError/std::invalid_argument for bad input (unknown node name,
// allocated node down), RoutingError when no table exists, VerificationError
// when the generator's table breaks a rule, MemoryLimitError (before any
// route is computed) when the estimate exceeds the memory limit.
JobResult compute_job_routes(const Config& config, const JobRequest& request);

// The multi-path routing function behind a table made by a multi-path
// generator (mp-lash, a-lash: Generator::generate_multipath), recomputed for
// the table's nodes with the configuration's options (the generators are
// deterministic) and checked by verify_multipath(); nullopt when the table's
// algorithm makes none.  Throws RoutingError when the recomputed function's
// alternative 0 is not the table (made under another configuration).
struct JobMultiPath {
  MultiPathTable function;
  MultiPathReport report;
};
std::optional<JobMultiPath> recompute_multipath(const Config& config, const Network& network,
                                                const RouteTable& table);

// Writes the tables of the given allocated nodes (all when `only` is empty)
// into `directory` as one table set of the job, committed with one rename
// (angara/table_set.hpp); one node alone (a prologue) is one file replaced
// atomically.  Every table is formatted and every name checked first.
// Throws GeneralRulesError, before writing anything, for a table made under
// rules general.
void write_job_tables(const Config& config, const JobResult& result, const std::string& directory,
                      const std::vector<std::string>& only = {}, const TableSetOptions& set_options = {});

// Re-reads every table file of `directory` (one job's tables), checks they
// belong together (same machine, job, fingerprint, node set) and verifies them
// as a whole.  Before reading, the memory it needs (with the report's LP bound
// when config.lp_bound_time > 0) is estimated from the files' sizes and held
// to config.memory_limit (MemoryLimitError).  The result's report says whether they pass; throws
// TableFileError for an unreadable, torn or inconsistent set.
JobResult verify_table_directory(const Config& config, const std::string& directory);
// Throws MemoryLimitError when reading table files of `size` back and
// verifying them would exceed the configured memory limit.
void check_table_read_memory(const Config& config, const TableFilesSize& size);
// The same for table files already read (one job's, from a directory that
// holds other jobs' too); `directory` names them in errors.
JobResult verify_node_tables(const Config& config, const std::vector<NodeTable>& files, const std::string& directory);

}  // namespace angara
