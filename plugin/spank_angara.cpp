// spank-angara(8): the SPANK entry points.  They gather the job's inputs
// from Slurm (plugstack arguments, the --angara-routing option, the prologue
// environment, node states) and hand them to plugin/job_tables.hpp; no
// routing logic lives here.  Every exception stops at this boundary: it is
// logged with the "spank-angara:" prefix and turned into a failed prologue
// (or a cancelled job, as configured) so that no job starts on wrong routes.
#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

extern "C" {
#include <slurm/spank.h>
}

#include "plugin/job_tables.hpp"
#include "plugin/slurm_query.hpp"

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
    if (problem.empty()) return 0;
    slurm_error("spank-angara: --angara-routing: %s", problem.c_str());
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
  // slurmd sets SLURMD_NODENAME in the prologue environment; it is the
  // NodeName, which differs from the host name when several slurmd share a host.
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

std::vector<std::string> failed_nodes_from_slurm() {
  if (settings.failed_states == angara::slurm::FailedStates::None) return {};
  return angara::slurm::failed_node_names(angara::slurm::query_node_states(settings.query_timeout),
                                          settings.failed_states);
}

// The policy for a prologue that could not install the job's table.
int prologue_failed(const std::string& job_id, const std::string& node, const std::string& reason) {
  slurm_error("spank-angara: job %s on %s: routing table not installed: %s", job_id.c_str(), node.c_str(),
              reason.c_str());
  if (settings.dry_run) {
    slurm_error("spank-angara: job %s: dry run, the job is allowed to start", job_id.c_str());
    return 0;
  }
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
  return -1;
}

}  // namespace

extern "C" {

int slurm_spank_init(spank_t spank, int argc, char** argv) {
  try {
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
  // slurmd itself keeps running (it would not start otherwise); every
  // prologue parses the same arguments and fails with this reason.
  return spank_context() == S_CTX_SLURMD ? 0 : -1;
}

int slurm_spank_job_prolog(spank_t spank, int argc, char** argv) {
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
    slurm_info("spank-angara: %s", outcome.message.c_str());
    return 0;
  } catch (const std::exception& e) {
    return prologue_failed(job_id, node, e.what());
  } catch (...) {
    return prologue_failed(job_id, node, "unexpected error");
  }
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
    const angara::spank::TableOutcome outcome =
        angara::spank::restore_default_table(settings, config, node, failed_nodes_from_slurm());
    slurm_info("spank-angara: after job %s: %s", job_id.c_str(), outcome.message.c_str());
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
