// spank-angara(8): the SPANK entry points.  They gather the job's inputs
// from Slurm (plugstack arguments, the --angara-routing option, the prologue
// environment, node states) and hand them to spank/job_tables.hpp; no
// routing logic lives here.  Every exception stops at this boundary: it is
// logged with the "spank-angara:" prefix and turned into a failed prologue
// (or a cancelled job, as configured) so that no job starts on wrong routes.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <string>
#include <vector>

extern "C" {
#include <slurm/spank.h>
}

#include "config.h"
#include "angara/hostlist.hpp"
#include "angara/printable.hpp"
#include "angara/trusted_path.hpp"
#include "angara/table_file.hpp"
#include "spank/checks.hpp"
#include "spank/job_tables.hpp"
#include "routing/refusal.hpp"
#include "routing/report.hpp"
#include "slurm/slurm_query.hpp"

// The symbols Slurm's plugin loader looks for.  SPANK_PLUGIN() cannot be
// used from C++: its const arrays would get internal linkage.
extern "C" {
extern const char plugin_name[] = "angara";
extern const char plugin_type[] = "spank";
extern const unsigned int plugin_version = SLURM_VERSION_NUMBER;
extern const unsigned int spank_plugin_version = 1;
}

namespace {

using angara::spank::FailurePolicy;
using angara::spank::PluginSettings;

// The plugstack.conf arguments, parsed again by every entry point from the
// arguments Slurm passes it: the prologue and epilogue run in a process of
// their own (slurmstepd) where slurm_spank_init is not called.
PluginSettings settings;

void load_settings(int argc, char** argv) {
  settings = angara::spank::parse_plugin_arguments(std::vector<std::string>(argv, argv + argc));
}

char option_name[] = "angara-routing";
char option_arginfo[] = "NAME";
const char* const kUsage = "Angara routing algorithm for the job's routing tables";
std::string option_usage = kUsage;

int check_routing_option(int, const char* value, int) {
  try {
    const std::string problem = angara::spank::check_algorithm_choice(settings, value ? value : "");
    if (problem.empty()) {
      // srun inside an allocation starts a step: the routing was chosen with
      // the job (sbatch/salloc/srun outside a job) and its tables are in place.
      const char* job = std::getenv("SLURM_JOB_ID");
      // The job's own choice reaches every srun inside it through the job's
      // environment (SPANK's SLURM_SPANK_<option variable>): the same value
      // is the job's routing, and nothing needs saying.
      const char* inherited = std::getenv("SLURM_SPANK__SLURM_SPANK_OPTION_angara_angara_routing");
      const bool same_as_job = inherited && value && std::string(inherited) == value;
      if (spank_context() == S_CTX_LOCAL && job && *job && !same_as_job)
        slurm_error("spank-angara: --angara-routing=%s ignored: job %s already runs on its routing tables, chosen "
                    "when the job was submitted (sbatch/salloc --angara-routing)",
                    angara::printable(value ? value : "").c_str(), angara::printable(job).c_str());
      return 0;
    }
    slurm_error("spank-angara: --angara-routing: %s", problem.c_str());
    // sbatch, salloc and srun would echo the whole value raw after a failed
    // option ("Invalid --angara-routing argument: ..."): the message above
    // (escaped, capped) is the refusal, and the submission stops here.
    if (spank_context() == S_CTX_LOCAL || spank_context() == S_CTX_ALLOCATOR) std::exit(1);
  } catch (const std::exception& e) {
    slurm_error("spank-angara: --angara-routing: %s", e.what());
  } catch (...) {
    slurm_error("spank-angara: --angara-routing: unexpected error");
  }
  return -1;
}

// Not the name "spank_options": Slurm would load a table of that name by
// itself in srun and collide with the registration below, which is the only
// way to reach sbatch and salloc (22.05).
spank_option routing_option = {option_name, option_arginfo, option_usage.data(), 1, 0, &check_routing_option};

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::string this_node_name() {
  // slurmd sets SLURMD_NODENAME in the prologue environment, and slurmstepd
  // in its own; it is the NodeName, which differs from the host name when
  // several slurmd share a host.  Never the job's environment: the user's.
  std::string name = environment("SLURMD_NODENAME");
  if (!name.empty()) return name;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) name = host;
  return name.substr(0, name.find('.'));
}

std::string job_node_list() {
  // Newer releases set SLURM_JOB_NODELIST in the prologue; 22.05 only SLURM_NODELIST.
  std::string list = environment("SLURM_JOB_NODELIST");
  return list.empty() ? environment("SLURM_NODELIST") : list;
}

double process_cpu_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

double wall_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

std::vector<std::string> failed_nodes_from_slurm() {
  if (settings.failed_states == angara::slurm::FailedStates::None) return {};
  return angara::slurm::failed_node_names(angara::slurm::query_node_states(settings.query_timeout),
                                          settings.failed_states);
}

// At most `limit` characters of a message for Slurm's one-line fields.
std::string shortened(const std::string& text, std::size_t limit) {
  return text.size() <= limit ? text : text.substr(0, limit - 3) + "...";
}

// Says on the job (AdminComment, shown by scontrol show job) what happened;
// a failure to do so is logged and changes nothing else.
void note_on_job(const std::string& job_id, const std::string& text) {
  if (job_id.empty() || job_id == "unknown") return;
  try {
    angara::slurm::set_admin_comment(job_id, text, settings.query_timeout);
  } catch (const std::exception& e) {
    slurm_error("spank-angara: job %s: cannot set its AdminComment: %s", job_id.c_str(), e.what());
  }
}

// Logs why the job's table was not installed (`what`: "routing table not
// installed", ...) and says it on the job; true when the job may start
// anyway (dryrun).
bool say_not_installed(const std::string& job_id, const std::string& node, const std::string& what,
                       const std::string& reason, const std::string& note) {
  slurm_error("spank-angara: job %s on %s: %s: %s", job_id.c_str(), node.c_str(), what.c_str(), reason.c_str());
  if (settings.dry_run) {
    slurm_error("spank-angara: job %s: dry run, the job is allowed to start", job_id.c_str());
    return true;
  }
  note_on_job(job_id, shortened(note, 400));
  return false;
}

// The policy for a prologue that could not install the job's table.  The
// cause goes where administrators and users look: the node's drain reason
// (sinfo -R; Slurm's own "Prolog error" does not replace a reason already
// set) and the job's AdminComment, besides the slurmd log.
int prologue_failed(const std::string& job_id, const std::string& node, const std::string& reason) {
  if (say_not_installed(job_id, node, "routing table not installed", reason,
                        "angara: routing table not installed on " + node + ": " + reason))
    return 0;
  if (settings.on_failure == FailurePolicy::Cancel && !job_id.empty()) {
    try {
      angara::slurm::cancel_job(job_id, settings.query_timeout);
      slurm_error("spank-angara: job %s cancelled (on_failure=cancel), node %s stays in service", job_id.c_str(),
                  node.c_str());
      return 0;
    } catch (const std::exception& e) {
      slurm_error("spank-angara: job %s: cancelling failed, failing the prologue instead: %s", job_id.c_str(),
                  e.what());
    }
  }
  if (!node.empty()) {
    try {
      angara::slurm::drain_node(node, shortened("angara: " + reason, 120), settings.query_timeout);
    } catch (const std::exception& e) {
      slurm_error("spank-angara: %s: cannot set the drain reason (Slurm drains with 'Prolog error'): %s",
                  node.c_str(), e.what());
    }
  }
  return -1;
}

// A job refused for what its user controls or for a path someone other than
// root could change (doc/security.md): nothing is installed, the job goes
// back to the queue held (a batch job) or is cancelled (an interactive one),
// with the reason in its AdminComment, and the node stays in service.  The
// prologue succeeds, so Slurm drains nothing for it.
int job_refused(const std::string& job_id, const std::string& node, const std::string& reason) {
  if (say_not_installed(job_id, node, "refused, routing table not installed", reason,
                        "angara: refused on " + node + ", requeued held: " + reason))
    return 0;
  if (job_id.empty() || job_id == "unknown") return -1;
  try {
    angara::slurm::requeue_hold_job(job_id, settings.query_timeout);
    slurm_error("spank-angara: job %s requeued and held, node %s stays in service", job_id.c_str(), node.c_str());
    return 0;
  } catch (const std::exception& requeue) {
    // Every node of the job refuses it at once: the first requeue wins, and
    // the others find the job pending already.
    if (std::string(requeue.what()).find("pending") != std::string::npos) {
      slurm_error("spank-angara: job %s already requeued by another node, node %s stays in service", job_id.c_str(),
                  node.c_str());
      return 0;
    }
    try {
      angara::slurm::cancel_job(job_id, settings.query_timeout);
      slurm_error("spank-angara: job %s cancelled (it cannot be requeued: %s), node %s stays in service",
                  job_id.c_str(), requeue.what(), node.c_str());
      return 0;
    } catch (const std::exception& cancel) {
      slurm_error("spank-angara: job %s: neither requeued (%s) nor cancelled (%s): failing the prologue",
                  job_id.c_str(), requeue.what(), cancel.what());
    }
  }
  return -1;
}

// What slurmd checks when it loads the plugin: a setting that would fail
// every prologue stops slurmd here, with the reason in its log.
int check_at_load(int argc, char** argv) {
  const angara::spank::PluginCheck check =
      angara::spank::check_plugin_setup(std::vector<std::string>(argv, argv + argc));
  for (const angara::spank::Finding& finding : check.findings)
    if (finding.severity != angara::spank::Severity::Ok)
      slurm_error("spank-angara: %s", angara::spank::format_finding(finding).c_str());
  if (angara::spank::has_errors(check.findings) || !check.settings || !check.config) {
    slurm_error("spank-angara %s: refusing to load: fix the error(s) above ('angara-route check' shows them), then "
                "restart slurmd",
                PACKAGE_VERSION);
    return -1;
  }
  slurm_info("%s", angara::spank::plugin_settings_line(*check.settings, *check.config).c_str());
  return 0;
}

}  // namespace

extern "C" {

int slurm_spank_init(spank_t spank, int argc, char** argv) {
  try {
    if (spank_context() == S_CTX_SLURMD) return check_at_load(argc, argv);
    load_settings(argc, argv);
    std::string names;
    for (const std::string& name : angara::spank::selectable_algorithms(settings))
      names += (names.empty() ? "" : ", ") + name;
    option_usage = kUsage + (": " + names) + (settings.algorithm.empty() ? "" : " (default " + settings.algorithm + ")");
    routing_option.usage = option_usage.data();
    const spank_err_t rc = spank_option_register(spank, &routing_option);
    if (rc != ESPANK_SUCCESS) {
      slurm_error("spank-angara: cannot register --%s: %s", option_name, spank_strerror(rc));
      return -1;
    }
    return 0;
  } catch (const std::exception& e) {
    slurm_error("spank-angara: bad plugstack.conf arguments: %s", e.what());
  } catch (...) {
    slurm_error("spank-angara: unexpected error while loading");
  }
  return -1;
}

int slurm_spank_job_prolog(spank_t spank, int argc, char** argv) {
  const double cpu_start = process_cpu_seconds();
  const double wall_start = wall_seconds();
  const std::string job_id = environment("SLURM_JOB_ID");
  std::string node;
  try {
    node = this_node_name();
    load_settings(argc, argv);
    angara::spank::JobContext job;
    job.job_id = job_id.empty() ? "unknown" : job_id;
    job.node_list = job_node_list();
    job.this_node = node;
    char* value = nullptr;
    if (spank_option_getopt(spank, &routing_option, &value) == ESPANK_SUCCESS && value) job.requested_algorithm = value;
    job.failed_nodes = failed_nodes_from_slurm();
    const angara::Config config = angara::spank::load_plugin_config(settings);
    const angara::spank::TableOutcome outcome = angara::spank::install_job_table(settings, config, job);
    // The CPU this prologue spent (its own process; the scontrol children not
    // counted), so a job's total over its nodes can be summed from the logs.
    // Its wall time too (waits on slurmctld and on a shared= lock included):
    // the time a job's start waits for this node.
    char cpu[96];
    std::snprintf(cpu, sizeof cpu, "; prologue cpu %.4f s, wall %.4f s", process_cpu_seconds() - cpu_start,
                  wall_seconds() - wall_start);
    // The configuration's fingerprint and the failures it lists: a shortened
    // or replaced file shows in the log.
    slurm_info("spank-angara: %s; config %s%s", outcome.message.c_str(), angara::config_summary(config).c_str(), cpu);
    // One node per job says on the job which routing it got.
    if (angara::expand_hostlist(job.node_list).front() == node)
      note_on_job(job_id, angara::spank::routing_note(settings, config, outcome.result));
    return 0;
  } catch (const angara::UntrustedPathError& e) {
    return job_refused(job_id, node, e.what());
  } catch (const angara::spank::JobRefusal& e) {
    return job_refused(job_id, node, e.what());
  } catch (const angara::RefusalError& e) {
    // The summary goes to the error level (and the drain reason, the job's
    // AdminComment); every generator's reason and the pairs to info, at
    // most kLoggedPairs of them on each node of the job.
    const int status = prologue_failed(job_id, node, e.what());
    constexpr std::size_t kLoggedPairs = 64;
    for (const std::string& line : angara::refusal_detail(e.refusal(), kLoggedPairs))
      slurm_info("spank-angara: job %s: %s", job_id.c_str(), line.c_str());
    return status;
  } catch (...) {
    // The admin tool's words: "memory limit: the computation needs an
    // estimated ...", "out of memory (std::bad_alloc) ...".
    return prologue_failed(job_id, node, angara::message_of(std::current_exception()));
  }
}

// Every step's tasks learn the routing of their node (ANGARA_ROUTING_*), read
// back from the table file the prologue wrote.
int slurm_spank_user_init(spank_t spank, int argc, char** argv) {
  try {
    load_settings(argc, argv);
    // slurmstepd's own environment is not the job's: ask SPANK.
    std::uint32_t job_number = 0;
    if (spank_get_item(spank, S_JOB_ID, &job_number) != ESPANK_SUCCESS) return 0;
    const std::string job_id = std::to_string(job_number);
    // slurmstepd's own SLURMD_NODENAME (set by slurmstepd), not the job's:
    // a step started inside a batch script carries the batch host's name
    // in its environment until its tasks are set up.
    const std::string node = this_node_name();
    const angara::Config config = angara::spank::load_plugin_config(settings);
    angara::NodeTable probe;
    probe.node_name = node;
    const std::string path =
        (settings.table_dir.empty() ? config.table_dir : settings.table_dir) + "/" + angara::table_file_name(probe);
    const angara::NodeTable table = angara::read_node_table(path);
    if (table.job != job_id) return 0;
    spank_setenv(spank, "ANGARA_ROUTING_ALGORITHM", table.algorithm.c_str(), 1);
    spank_setenv(spank, "ANGARA_ROUTING_FINGERPRINT", table.fingerprint.c_str(), 1);
    spank_setenv(spank, "ANGARA_ROUTING_TABLE", path.c_str(), 1);
  } catch (const std::exception&) {
    // No table of this job here (dry run, node outside the machine): nothing to say.
  }
  return 0;
}

// Before a task starts (as root): the node must hold the job's table.  A
// node whose prologue never completed (slurmd killed during it and
// restarted; spank/job_tables.hpp, step_table_problem) refuses the step and
// requeues the job, whose prologues then run again (doc/faults.md).
int slurm_spank_task_init_privileged(spank_t spank, int argc, char** argv) {
  std::string job_id;
  std::string node;
  std::string problem;
  try {
    load_settings(argc, argv);
    std::uint32_t job_number = 0;
    if (spank_get_item(spank, S_JOB_ID, &job_number) != ESPANK_SUCCESS) return 0;
    job_id = std::to_string(job_number);
    node = this_node_name();
    problem = angara::spank::step_table_problem(settings, angara::spank::load_plugin_config(settings), job_id, node);
  } catch (const std::exception&) {
    // A configuration the prologue could not read either: its refusal stands.
    return 0;
  }
  if (problem.empty()) return 0;
  slurm_error("spank-angara: job %s on %s: step refused: %s", job_id.c_str(), node.c_str(), problem.c_str());
  try {
    angara::slurm::requeue_job(job_id, settings.query_timeout);
    slurm_error("spank-angara: job %s requeued: its prologues run again", job_id.c_str());
  } catch (const std::exception& e) {
    // Interactive, or requeued already by another task: the step fails.
    slurm_error("spank-angara: job %s not requeued: %s", job_id.c_str(), e.what());
  }
  return -1;
}

int slurm_spank_job_epilog(spank_t, int argc, char** argv) {
  const std::string job_id = environment("SLURM_JOB_ID");
  std::string node;
  std::string reason;
  try {
    node = this_node_name();
    load_settings(argc, argv);
    if (!settings.restore_default) return 0;
    const angara::Config config = angara::spank::load_plugin_config(settings);
    std::vector<angara::slurm::NodeState> states;
    try {
      states = angara::slurm::query_node_states(settings.query_timeout);
    } catch (const angara::slurm::SlurmQueryError& e) {
      if (settings.failed_states != angara::slurm::FailedStates::None) throw;
      slurm_error("spank-angara: after job %s: node states unknown, restoring without the shared-node check: %s",
                  job_id.c_str(), e.what());
    }
    // A node shared by jobs (angara-route check warns about such partitions)
    // must not get the default table under a job that still runs there.
    for (const angara::slurm::NodeState& state : states)
      if (state.name == node && angara::slurm::runs_jobs(state)) {
        slurm_error("spank-angara: after job %s: another job still runs on %s (%s): its routing table stays; "
                    "partitions need OverSubscribe=EXCLUSIVE",
                    job_id.c_str(), node.c_str(), state.state.c_str());
        return 0;
      }
    const angara::spank::TableOutcome outcome = angara::spank::restore_default_table(
        settings, config, node, angara::slurm::failed_node_names(states, settings.failed_states));
    slurm_info("spank-angara: after job %s: %s; config %s", job_id.c_str(), outcome.message.c_str(),
               angara::config_summary(config).c_str());
    return 0;
  } catch (const angara::UntrustedPathError& e) {
    // Someone other than root could change a path: nothing written, and the
    // node is not drained for it (the next prologue refuses its job too).
    slurm_error("spank-angara: after job %s on %s: default routing table not restored, refused: %s",
                job_id.c_str(), node.c_str(), e.what());
    return 0;
  } catch (const std::exception& e) {
    reason = e.what();
  } catch (...) {
    reason = "unexpected error";
  }
  slurm_error("spank-angara: after job %s on %s: default routing table not restored: %s", job_id.c_str(),
              node.c_str(), reason.c_str());
  // A failed epilogue drains the node: its table is still the finished job's.
  return settings.on_failure == FailurePolicy::Drain && !settings.dry_run ? -1 : 0;
}

}  // extern "C"
