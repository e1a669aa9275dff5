// What angara-route and spank-angara ask slurmctld: the nodes of a job and
// the state of every node.  The questions go through scontrol's one-line
// output ("scontrol show node -o", "scontrol show job -o"), which is stable
// across Slurm releases and needs no link against libslurm, whose symbols
// would clash with the copy already inside slurmd and slurmstepd when the
// SPANK plugin is loaded there.  Parsing is separate from running so that it
// is tested on recorded output.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace angara::slurm {

// scontrol could not be run, timed out, or said no.
class SlurmQueryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The job id is malformed, or slurmctld does not know the job: bad input
// (exit 3), not a failure to reach slurmctld.
class UnknownJobError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct CommandResult {
  int exit_status = 0;  // as from a shell: the exit code
  std::string out;
  std::string err;
};

// Runs a program (argv[0], searched in PATH, else in /usr/bin:/bin) with no
// input, capturing both outputs.  Kills it after `timeout_seconds`.  Throws
// SlurmQueryError if it cannot start, times out or dies of a signal.
CommandResult run_command(const std::vector<std::string>& argv, int timeout_seconds);

// The scontrol program to run: $ANGARA_SCONTROL if set, else the one of the
// Slurm the project was configured with, else "scontrol" from PATH.
std::string scontrol_program();

// One record of scontrol's one-line output: "Key=Value Key=Value ...".
// A word without '=' continues the previous value ("Reason=Prolog error
// [root@...]" keeps its spaces).
std::map<std::string, std::string> parse_record(const std::string& line);

struct NodeState {
  std::string name;
  std::string state;   // as printed: "IDLE", "DOWN+NOT_RESPONDING", "IDLE+DRAIN"
  std::string reason;  // "" when none
};

// Which Slurm node states count as failed routers (spank-angara(8),
// "failed_states"): DOWN, FUTURE and POWERED_DOWN nodes always; DRAINED
// nodes (drain flag, no job left) only when `count_drained`.  A draining node
// still runs jobs, so its router is in use and never counts as failed.
enum class FailedStates { None, Down, DownAndDrained };

// Parses "scontrol show node -o" output, one node per line.
std::vector<NodeState> parse_node_states(const std::string& text);
bool counts_as_failed(const NodeState& node, FailedStates policy);
std::vector<std::string> failed_node_names(const std::vector<NodeState>& nodes, FailedStates policy);
// A job still runs on the node (ALLOCATED or MIXED; a node whose only job
// is finishing is IDLE+COMPLETING).
bool runs_jobs(const NodeState& node);
// Slurm may give the node to a job now or when its jobs end: IDLE,
// ALLOCATED, MIXED or COMPLETING with no flag but COMPLETING (not drained,
// reserved, in maintenance, not responding, rebooting, ...).
bool takes_jobs(const NodeState& node);

struct JobInfo {
  std::string id;
  std::string state;               // "RUNNING", "CONFIGURING", "PENDING", ...
  std::string node_list;           // hostlist as printed, "" when none
  std::vector<std::string> nodes;  // node_list expanded
  std::string admin_comment;       // AdminComment, "" when none (spank-angara writes its note there)
};

// Parses "scontrol show job -o" output, one job per line.  Throws
// SlurmQueryError for a line without JobId or with a malformed NodeList.
std::vector<JobInfo> parse_jobs(const std::string& text);
// A job whose nodes have (or are getting) its routing tables.
bool job_is_active(const JobInfo& job);
// A job that ran and ended (COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL,
// ...), or is ending (COMPLETING: its epilogues run).  Its nodes' tables are
// no longer its own once its epilogues have run.
bool job_has_ended(const JobInfo& job);

// The queries themselves (scontrol, with a time limit).
std::vector<NodeState> query_node_states(int timeout_seconds = 30);
// Throws UnknownJobError for a malformed or unknown id.
JobInfo query_job(const std::string& job_id, int timeout_seconds = 30);
// Every RUNNING or CONFIGURING job, by ascending job id.
std::vector<JobInfo> query_active_jobs(int timeout_seconds = 30);
// "scancel JOBID".  Throws SlurmQueryError when scancel fails.
void cancel_job(const std::string& job_id, int timeout_seconds = 30);
// "scontrol requeue JOBID": the job goes back to the queue and starts
// again, its prologues with it (batch jobs only; SlurmQueryError otherwise).
void requeue_job(const std::string& job_id, int timeout_seconds = 30);
// "scontrol requeuehold JOBID": the job goes back to the queue, held until
// an administrator releases it (batch jobs only; SlurmQueryError otherwise).
void requeue_hold_job(const std::string& job_id, int timeout_seconds = 30);

// "scontrol show config" and "scontrol show partition -o", as printed.
std::string show_config_text(int timeout_seconds = 30);
std::string show_partitions_text(int timeout_seconds = 30);
// "scontrol update nodename=NODE state=drain reason=REASON": the drain
// reason an administrator sees in sinfo -R.
void drain_node(const std::string& node, const std::string& reason, int timeout_seconds = 30);
// "scontrol update jobid=ID admincomment=TEXT" (shown by scontrol show job).
// TEXT must not contain '=': scontrol's one-line output could not be read back.
void set_admin_comment(const std::string& job_id, const std::string& text, int timeout_seconds = 30);

// The note spank-angara's prologue and every rebuild put in a job's
// AdminComment: "angara: ALGORITHM, fingerprint FP, WHERE, verified" (WHERE:
// "tables DIR", or "dry run, no table written"), with "; AFTER" when given
// ("rebuilt around failed routers desmos03").  show --job compares its
// fingerprint with the installed tables'.
std::string routing_note(const std::string& algorithm, const std::string& fingerprint, const std::string& where,
                         bool verified, const std::string& after = "");
// The fingerprint a routing note names; "" when the text is not one (no
// note, a refusal, another comment).
std::string routing_note_fingerprint(const std::string& admin_comment);

// A node Slurm may give to a new job right now: state exactly IDLE (no
// DRAIN, RESERVED, NOT_RESPONDING or other flag).
bool node_is_free(const NodeState& node);

}  // namespace angara::slurm
