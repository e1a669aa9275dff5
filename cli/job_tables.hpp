// The admin tool's view of jobs' tables: what a job has installed (show,
// verify --job), what it would get now (generate --job), and its rebuild
// after routers failed (rebuild, with the live switch of live_switch.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "angara/config.hpp"
#include "angara/table_file.hpp"
#include "cli/live_switch.hpp"
#include "routing/pipeline.hpp"
#include "slurm/slurm_query.hpp"

namespace angara::cli {

// A job's tables recomputed after nodes failed (`angara-route rebuild`).
// A job with id "default" stands for the whole machine: its nodes are the
// ones whose default tables are rewritten.
struct RebuildRequest {
  slurm::JobInfo job;
  std::vector<std::string> failed_nodes;  // Slurm names counted as failed
  // "" = what the job's tables record was asked for (the whole chain, not
  // only the member that won), else the configuration's
  std::string algorithm;
  std::string table_dir;   // "" = the configuration's
  std::string cache_dir;
  std::vector<std::string> only;  // write only these nodes' tables ("" = every live node of the job)
  bool dry_run = false;
  SwitchOptions live_switch;      // how the running job's routers switch (live_switch.hpp)
};

struct RebuildOutcome {
  std::string message;
  std::vector<std::string> written;  // node names whose tables were written
  std::vector<std::string> dropped;  // allocated nodes left out because they failed
  std::vector<std::string> live;     // the nodes routed (the job's live ones)
  std::string algorithm;             // of the new tables ("" when nothing was routed)
  std::string chain;                 // what was run: one generator or a chain ("balanced,nue")
  std::vector<PassedOver> passed_over;  // the chain's members before `algorithm`, and why
  std::string fingerprint;
  std::uint64_t max_gamma = 0;
  std::uint64_t lower_bound = 0;
  bool verified = false;
  SwitchOutcome live_switch;         // how the installed tables were (or would be) replaced
};

// Routes the job's live nodes around every failed one and rewrites their
// tables.  The algorithm defaults to what the job's existing table files
// record was asked for, so a rebuild keeps what the user chose, and a chain
// ("balanced,nue") is run whole again, not only the member that won before.
RebuildOutcome rebuild_job_tables(const Config& config, const RebuildRequest& request);

// The routing a job's prologue installed, as recorded in the job's table
// files: the first of `nodes` whose file in `table_dir` belongs to `job_id`.
struct InstalledRouting {
  std::string algorithm;  // the generator that computed them
  std::string chain;      // the chain asked for, when it had several members (NodeTable::chain)
  std::string fingerprint;
  std::string path;  // the table file it was read from
};
std::optional<InstalledRouting> installed_routing(const std::string& table_dir, const std::string& job_id,
                                                  const std::vector<std::string>& nodes);

// A running job's table files as installed in `table_dir`, for `angara-route
// show --job` and `verify --job`: the job's live nodes (those Slurm does not
// count as failed) and, for each, its table file if it is the job's.
struct InstalledJobTables {
  slurm::JobInfo job;
  std::string directory;
  std::vector<std::string> live_nodes;    // machine nodes of the job, failed ones left out
  std::vector<std::string> failed_nodes;  // the job's nodes Slurm counts as failed
  std::vector<NodeTable> tables;          // the job's tables, in live_nodes order
  std::vector<std::string> problems;      // "desmos13: DIR/desmos13.rt belongs to job default"
};
InstalledJobTables read_installed_job_tables(const Config& config, const slurm::JobInfo& job,
                                             const std::string& table_dir,
                                             const std::vector<std::string>& failed_nodes);

// Who owns each node's table now: for `show --job` of a job that ended,
// whose epilogue put back the default table (or a later job's prologue its
// own).  Owners in the order first met, each with its nodes; a node whose
// file is missing or unreadable is under `unreadable` with the reason.
struct TableOwners {
  std::vector<std::pair<std::string, std::vector<std::string>>> owners;  // job id -> nodes
  std::vector<std::string> unreadable;  // "desmos13: cannot open ..."
};
TableOwners installed_table_owners(const std::string& table_dir, const std::vector<std::string>& nodes);

// What `angara-route generate --job JOBID` computes: the job's nodes that
// are alive, routed around the failed routers Slurm reports (scontrol).
// Throws slurm::SlurmQueryError, or std::invalid_argument for a job without
// nodes (pending, finished).
JobRequest job_request_from_slurm(const Config& config, const std::string& job_id, slurm::FailedStates failed_states,
                                  int timeout_seconds = 30);

}  // namespace angara::cli
