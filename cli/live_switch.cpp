// Safe live switches of a running job's tables (live_switch.hpp).
#include "cli/live_switch.hpp"

#include <chrono>
#include <set>
#include <thread>

#include "angara/table_file.hpp"
#include "routing/check/verifier.hpp"

namespace angara::cli {

std::string SwitchOutcome::summary() const {
  if (!checked) return "live switch not checked (job quiesced)";
  std::string text = std::string("live switch ") + transition_kind_name(kind);
  if (kind == TransitionKind::staged) text += " through " + std::to_string(steps) + " intermediate table set(s)";
  return text + " (installed tables of " + std::to_string(installed_nodes) + " node(s) compared)";
}

RouteTable installed_job_table(const Config& config, const std::string& directory, const std::string& job_id,
                               const std::vector<std::string>& nodes) {
  std::vector<NodeTable> files;
  std::set<NodeId> members;
  for (const std::string& name : nodes) {
    NodeTable probe;
    probe.node_name = name;
    try {
      NodeTable table = read_node_table(directory + "/" + table_file_name(probe));
      if (table.job != job_id || table.torus != config.torus) continue;
      members.insert(table.node);
      for (const TableEntry& entry : table.entries) members.insert(entry.destination);
      files.push_back(std::move(table));
    } catch (const std::exception&) {
      // Missing or unreadable: that router has no installed route of the job.
    }
  }
  RouteTable installed(std::vector<NodeId>(members.begin(), members.end()));
  for (const NodeTable& file : files) {
    const std::size_t src = installed.index_of(file.node);
    for (const TableEntry& entry : file.entries)
      if (entry.destination != file.node) installed.set_route(src, installed.index_of(entry.destination), entry.route);
    installed.algorithm = file.algorithm;
  }
  return installed;
}

TransitionPlan check_switch(const JobResult& result, const RouteTable& installed, SwitchOutcome& outcome) {
  outcome.installed_nodes = 0;
  for (std::size_t s = 0; s < installed.size(); ++s) {
    bool any = false;
    for (std::size_t d = 0; d < installed.size() && !any; ++d) any = installed.has_route(s, d);
    outcome.installed_nodes += any ? 1 : 0;
  }
  TransitionPlan plan = plan_transition(result.network, installed, result.table, result.table.flow_control);
  outcome.kind = plan.kind;
  outcome.steps = plan.steps.size();
  return plan;
}

SwitchOutcome switch_job_tables(const Config& config, const JobResult& result, const RouteTable& installed,
                                const std::string& directory, const std::vector<std::string>& targets,
                                const TableSetOptions& set_options, const SwitchOptions& options) {
  SwitchOutcome outcome;
  if (options.quiesced) {
    outcome.checked = false;
    write_job_tables(config, result, directory, targets, set_options);
    return outcome;
  }
  TransitionPlan plan = check_switch(result, installed, outcome);
  if (plan.kind == TransitionKind::quiesce)
    throw UnsafeSwitchError("switching job " + result.job + "'s routes live is not safe: " + plan.reason +
                            "; nothing was written.  Quiesce the job first (scontrol suspend " + result.job +
                            ", then rebuild with --quiesced, then scontrol resume " + result.job +
                            "): angara-route(8), LIVE SWITCHES");
  // Every intermediate table passes the verifier before anything is written.
  VerifyOptions verify_options;
  verify_options.max_virtual_channels = config.virtual_channels;
  verify_options.rules = result.table.rules;
  verify_options.flow_control = result.table.flow_control;
  verify_options.adaptive = config.adaptive;
  // The stages take the plan's tables over (moved, not copied): with the
  // installed and the new table that is at most ten tables of the job at
  // once, as the memory estimate counts them (MemoryWork::extra_tables).
  const JobResult shell = result.without_table();
  std::vector<JobResult> stages;
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    JobResult stage = shell;
    stage.table = std::move(plan.steps[k]);
    stage.fingerprint = result.fingerprint + "+step" + std::to_string(k + 1) + "of" + std::to_string(plan.steps.size());
    stage.report = verify(stage.network, stage.table, verify_options);
    if (!stage.report.ok()) throw VerificationError(stage.report);
    stages.push_back(std::move(stage));
  }
  TableSetOptions first = set_options, later = set_options;
  later.remove.clear();  // gone with the first set
  for (std::size_t k = 0; k < stages.size(); ++k) {
    write_job_tables(config, stages[k], directory, targets, k == 0 ? first : later);
    std::this_thread::sleep_for(std::chrono::duration<double>(options.step_wait));
  }
  write_job_tables(config, result, directory, targets, stages.empty() ? first : later);
  return outcome;
}

}  // namespace angara::cli
