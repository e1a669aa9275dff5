// The Slurm side of the product without Slurm's API: the plugstack.conf
// settings of spank-angara(8), and the three things done to a node's table
// (install a job's, restore the default, rebuild after a failure).  The
// SPANK entry points (spank_angara.cpp) and `angara-route rebuild` only
// gather their inputs from Slurm and call these; the routing itself is
// routing/pipeline.hpp's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "angara/config.hpp"
#include "plugin/live_switch.hpp"
#include "plugin/slurm_query.hpp"
#include "routing/pipeline.hpp"

namespace angara::spank {

// What a failing prologue does (plugstack "on_failure=").
enum class FailurePolicy {
  Drain,   // fail the prologue: Slurm drains the node, requeues a batch job held
  Cancel,  // cancel the job through slurmctld and keep the node in service
};

struct PluginSettings {
  std::string config_path;  // "config=": empty means the default search
  std::string algorithm;    // "algorithm=": jobs without --angara-routing; empty = the configuration's
  std::vector<std::string> allowed;  // "allow=a,b": what users may choose; empty = every generator
  std::string table_dir;    // "tables=": empty = the configuration's
  std::string cache_dir;    // "cache=": shared cache, empty = none
  std::string shared_dir;   // "shared=": one computation per job through this directory, empty = none
  bool dry_run = false;     // "dryrun": compute, verify, log; write nothing
  FailurePolicy on_failure = FailurePolicy::Drain;
  slurm::FailedStates failed_states = slurm::FailedStates::Down;  // "failed=down|down,drained|none"
  bool restore_default = true;  // "epilog=default|keep"
  int query_timeout = 30;       // "timeout=": seconds for each scontrol call
};

// "down" | "down,drained" | "none" (plugstack "failed=", rebuild --failed).
// Throws std::invalid_argument "expected down, down,drained or none".
slurm::FailedStates parse_failed_states(const std::string& text);

// Parses the plugin's arguments from plugstack.conf ("key=value" words, and
// the bare word "dryrun").  Throws std::invalid_argument naming the bad word
// and listing the valid keys.
PluginSettings parse_plugin_arguments(const std::vector<std::string>& arguments);

// The configuration the settings point at: config= if given (an unreadable
// file is an error), else SYSCONFDIR/angara/angara.yaml if it exists, else
// the built-in Desmos machine.
Config load_plugin_config(const PluginSettings& settings);

// Algorithms a user may ask for: registered generators, restricted to
// allow= when given, in registry order.
std::vector<std::string> selectable_algorithms(const PluginSettings& settings);
// "" when `name` may be chosen, else the message for the user, e.g.
// "unknown routing algorithm 'foo'; valid names: bfs, sssp".
std::string check_algorithm_choice(const PluginSettings& settings, std::string_view name);

// The inputs of a job's table on one node, as the prologue finds them.
struct JobContext {
  std::string job_id;
  std::string node_list;                // the allocation, a hostlist
  std::string this_node;                // Slurm name of the node being set up
  std::string requested_algorithm;      // --angara-routing, "" if not given
  std::vector<std::string> failed_nodes;  // Slurm names counted as failed (any, filtered here)
};

struct TableOutcome {
  std::string message;  // one line for the log
  // The computed and verified result; when `shared_file` is set, this node
  // read its row from that file (another prologue computed it), and
  // `result` holds the network, names and fingerprint but no routes.
  JobResult result;
  std::string shared_file;
};

// Computes the job's routes for the whole allocation (identical on every
// node for identical inputs), verifies them and writes this node's table
// (nothing in dry-run).  With shared= (and not in dry-run) only the first of
// the job's prologues computes; the others read their row of its result
// (plugin/shared_tables.hpp).  Throws what compute_job_routes/write_job_tables
// throw, or std::invalid_argument for a bad algorithm or node list.
TableOutcome install_job_table(const PluginSettings& settings, const Config& config, const JobContext& job);

// The job's note for Slurm (AdminComment): "angara: sssp, fingerprint F,
// tables DIR, verified" (or "dry run, nothing written").  No '=' in it.
std::string routing_note(const PluginSettings& settings, const Config& config, const JobResult& result);

// Writes this node's default (whole-machine, job "default") table, routing
// around the failed nodes.  The node itself never counts as failed here: it
// is running its epilogue, so its router works.
TableOutcome restore_default_table(const PluginSettings& settings, const Config& config, const std::string& this_node,
                                   const std::vector<std::string>& failed_nodes);

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

// What `angara-route generate --job JOBID` computes: the job's nodes that
// are alive, routed around the failed routers Slurm reports (scontrol).
// Throws slurm::SlurmQueryError, or std::invalid_argument for a job without
// nodes (pending, finished).
JobRequest job_request_from_slurm(const Config& config, const std::string& job_id, slurm::FailedStates failed_states,
                                  int timeout_seconds = 30);

// Names in `names` that are nodes of the machine, in order, without
// duplicates (Slurm also reports login and service nodes).
std::vector<std::string> machine_nodes_among(const Config& config, const std::vector<std::string>& names);

}  // namespace angara::spank
