// The plugin's side of a node's table without Slurm's API: the
// plugstack.conf settings of spank-angara(8), and the two things a prologue
// or epilogue does to its node's table (install the job's, restore the
// default).  The SPANK entry points (spank_angara.cpp) only gather their
// inputs from Slurm and call these; the routing itself is
// routing/pipeline.hpp's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "angara/config.hpp"
#include "angara/trusted_path.hpp"
#include "slurm/slurm_query.hpp"
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
  std::string shared_key;   // "shared_key=": the key of shared results; empty = SYSCONFDIR/angara/shared.key
  std::string owner;        // "owner=": a user besides root whose files are trusted (doc/security.md)
  bool dry_run = false;     // "dryrun": compute, verify, log; write nothing
  FailurePolicy on_failure = FailurePolicy::Drain;
  slurm::FailedStates failed_states = slurm::FailedStates::Down;  // "failed=down|down,drained|none"
  bool restore_default = true;  // "epilog=default|keep"
  int query_timeout = 30;       // "timeout=": seconds for each scontrol call
  // "shared_wait=": seconds a prologue waits for the node computing the
  // job's shared result before it computes on its own; keep it below
  // Slurm's PrologEpilogTimeout, or a stuck holder drains the waiting nodes.
  int shared_wait = 600;
};

// A job the plugin refuses for what its user controls (an algorithm that
// is not allowed, a file or directory someone else could change): the job
// is requeued held or cancelled, the node stays in service (never drained
// for what a user did).
class JobRefusal : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The key file of shared results the settings name.
std::string shared_key_path(const PluginSettings& settings);
// Whose files the plugin trusts: root and owner= (angara/trusted_path.hpp).
TrustedOwners plugin_owners(const PluginSettings& settings);

// A path the plugin reads or writes as root, and what the trust rule asks
// of it (angara/trusted_path.hpp).
struct PluginPath {
  std::string what;  // "configuration", "table directory", ...
  std::string path;
  PathKind kind = PathKind::directory;
  bool created_when_missing = false;  // then its nearest existing ancestor is checked
  bool private_file = false;          // a key: not readable by group or others either
  bool after_its_directory = false;   // the entry before it is its directory
};
// The plugin's paths for a job, in order: configuration directory and file,
// table directory (unless dryrun), cache= directory, shared= directory and
// its key (unless dryrun).
std::vector<PluginPath> plugin_paths(const PluginSettings& settings, const Config& config);
// Throws UntrustedPathError (or TableFileError) unless `entry` is trusted.
void check_plugin_path(const PluginPath& entry, const TrustedOwners& owners);

// Every file and directory the plugin will read or write as root for a job
// (configuration file and directory, table directory, shared= directory and
// key, cache=): throws UntrustedPathError naming the first that someone
// other than root (or owner=) could change, TableFileError when one cannot
// be examined (a missing key).
void check_plugin_paths(const PluginSettings& settings, const Config& config);

// Parses the plugin's arguments from plugstack.conf ("key=value" words, and
// the bare word "dryrun").  Throws std::invalid_argument naming the bad word
// and listing the valid keys.
PluginSettings parse_plugin_arguments(const std::vector<std::string>& arguments);

// The configuration the settings point at: config= if given (an unreadable
// file is an error), else SYSCONFDIR/angara/angara.yaml if it exists, else
// the built-in Desmos machine.  The file is checked to be trusted (only root
// or owner= can change it) before it is read: UntrustedPathError.
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
// (spank/shared_tables.hpp).  Throws what compute_job_routes/write_job_tables
// throw, or std::invalid_argument for a bad algorithm or node list.
TableOutcome install_job_table(const PluginSettings& settings, const Config& config, const JobContext& job);

// The job's note for Slurm (AdminComment): "angara: sssp, fingerprint F,
// tables DIR, verified" (or "dry run, nothing written").  No '=' in it.
std::string routing_note(const PluginSettings& settings, const Config& config, const JobResult& result);

// Writes this node's default (whole-machine, job "default") table, routing
// around the failed nodes.  The node itself never counts as failed here: it
// is running its epilogue, so its router works.
// Why a step of job `job_id` must not start on `this_node`, or "" when it
// may.  Slurm (22.05, PrologFlags=Alloc) starts a step on a node whose
// slurmd was restarted after the job's prologue request arrived without
// running the prologue again (its credential cache says it ran): the node
// then holds the default table, or none.  Another job's table (a node
// shared against the rules, epilog=keep) and a dry run are let through.
std::string step_table_problem(const PluginSettings& settings, const Config& config, const std::string& job_id,
                               const std::string& this_node);

TableOutcome restore_default_table(const PluginSettings& settings, const Config& config, const std::string& this_node,
                                   const std::vector<std::string>& failed_nodes);

}  // namespace angara::spank
