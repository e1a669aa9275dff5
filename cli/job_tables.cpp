#include "cli/job_tables.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "angara/hostlist.hpp"
#include "angara/table_set.hpp"
#include "routing/generator.hpp"
#include "routing/report.hpp"
#include "slurm/job_nodes.hpp"

namespace angara::cli {

namespace {

std::string table_dir_of(const Config& config, const std::string& override_dir) {
  return override_dir.empty() ? config.table_dir : override_dir;
}

// The table file names of some nodes of the machine.
std::vector<std::string> table_names_of(const Config& config, const std::vector<std::string>& nodes) {
  std::vector<std::string> names;
  for (const std::string& node : nodes) {
    NodeTable probe;
    probe.torus = config.torus;
    probe.node = *config.node_by_name(node);
    probe.node_name = node;
    names.push_back(table_file_name(probe));
  }
  return names;
}

// A rebuild of some of a job's nodes (--node) must not leave tables of the
// same job with the old routes in the same directory: in a shared table
// directory the job's tables would disagree.  --node is for node-local
// directories, where each node rebuilds its own.
void refuse_partial_rebuild(const std::string& job_id, const std::string& directory,
                            const std::vector<std::string>& live, const std::vector<std::string>& targets) {
  std::vector<std::string> stale;
  for (const std::string& name : live)
    if (std::find(targets.begin(), targets.end(), name) == targets.end() &&
        installed_routing(directory, job_id, {name}))
      stale.push_back(name);
  if (stale.empty()) return;
  throw std::invalid_argument("--node " + compress_hostlist(targets) + " would leave the tables of " +
                              compress_hostlist(stale) + " (job " + job_id + ", in " + directory +
                              ") on the old routes, so the job's tables would disagree; rebuild the whole job "
                              "(without --node), or use --node only with node-local table directories");
}

// DIR/NODE.rt: where a node's table file lives in a table directory.
std::string table_path(const std::string& table_dir, const std::string& node) {
  NodeTable probe;
  probe.node_name = node;
  return table_dir + "/" + table_file_name(probe);
}

}  // namespace

std::optional<InstalledRouting> installed_routing(const std::string& table_dir, const std::string& job_id,
                                                  const std::vector<std::string>& nodes) {
  for (const std::string& node : nodes) {
    const std::string path = table_path(table_dir, node);
    try {
      const NodeTable table = read_node_table(path);
      if (table.job == job_id && make_generator(table.algorithm))
        return InstalledRouting{table.algorithm, table.chain, table.fingerprint, path};
    } catch (const std::exception&) {
      // Missing or unreadable: try the job's next node.
    }
  }
  return std::nullopt;
}

InstalledJobTables read_installed_job_tables(const Config& config, const slurm::JobInfo& job,
                                             const std::string& table_dir,
                                             const std::vector<std::string>& failed_nodes) {
  InstalledJobTables installed;
  installed.job = job;
  installed.directory = table_dir;
  const std::set<std::string> failed(failed_nodes.begin(), failed_nodes.end());
  std::vector<std::string> paths;
  for (const std::string& name : job.nodes) {
    if (!config.node_by_name(name)) {
      installed.problems.push_back(name + ": not a node of the machine (" + config.source + ")");
      continue;
    }
    if (failed.count(name)) {
      installed.failed_nodes.push_back(name);
      continue;
    }
    installed.live_nodes.push_back(name);
    paths.push_back(table_path(table_dir, name));
  }
  // Refused before anything is read when the job's files would not fit
  // (verify --job, show --job), as for a whole directory.
  check_table_read_memory(config, measure_table_files(paths));
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const std::string& name = installed.live_nodes[i];
    const std::string& path = paths[i];
    try {
      NodeTable table = read_node_table(path);
      if (table.job == job.id)
        installed.tables.push_back(std::move(table));
      else
        installed.problems.push_back(name + ": " + path + " belongs to job " + table.job + ", not to job " + job.id);
    } catch (const std::exception& e) {
      installed.problems.push_back(name + ": " + e.what());
    }
  }
  return installed;
}

TableOwners installed_table_owners(const std::string& table_dir, const std::vector<std::string>& nodes) {
  TableOwners found;
  for (const std::string& node : nodes) {
    const std::string path = table_path(table_dir, node);
    try {
      const NodeTable table = read_node_table(path);
      auto owner = std::find_if(found.owners.begin(), found.owners.end(),
                                [&](const auto& entry) { return entry.first == table.job; });
      if (owner == found.owners.end()) owner = found.owners.insert(found.owners.end(), {table.job, {}});
      owner->second.push_back(node);
    } catch (const std::exception& e) {
      found.unreadable.push_back(node + ": " + e.what());
    }
  }
  return found;
}

JobRequest job_request_from_slurm(const Config& config, const std::string& job_id, slurm::FailedStates failed_states,
                                  int timeout_seconds) {
  const slurm::JobInfo job = slurm::query_job(job_id, timeout_seconds);
  if (job.nodes.empty())
    throw std::invalid_argument("job " + job.id + " (" + job.state + ") has no nodes allocated");
  JobRequest request;
  request.job = job.id;
  if (failed_states != slurm::FailedStates::None)
    request.down_nodes =
        slurm::machine_nodes_among(config, slurm::failed_node_names(slurm::query_node_states(timeout_seconds), failed_states));
  const std::set<std::string> failed(request.down_nodes.begin(), request.down_nodes.end());
  for (const std::string& name : job.nodes)
    if (!failed.count(name)) request.node_names.push_back(name);
  return request;
}

RebuildOutcome rebuild_job_tables(const Config& config, const RebuildRequest& request) {
  const bool whole_machine = request.job.id == "default";
  const std::vector<std::string> failed = slurm::machine_nodes_among(config, request.failed_nodes);
  const std::set<std::string> failed_set(failed.begin(), failed.end());

  RebuildOutcome outcome;
  std::vector<std::string> live;  // the job's nodes whose routers still work
  for (const std::string& name : slurm::machine_nodes_among(config, request.job.nodes)) {
    if (failed_set.count(name))
      outcome.dropped.push_back(name);
    else
      live.push_back(name);
  }
  for (const std::string& name : request.job.nodes)
    if (!config.node_by_name(name))
      throw std::invalid_argument("job " + request.job.id + ": node '" + name + "' is not a node of the machine (" +
                                  config.source + ")");

  const std::string directory = table_dir_of(config, request.table_dir);
  JobRequest job;
  job.job = request.job.id;
  if (!whole_machine) job.node_names = live;
  job.down_nodes = failed;
  job.cache_dir = request.cache_dir;
  job.write_cache = !request.dry_run;
  job.algorithm = request.algorithm;
  // Held beside the new table: the installed one, and for a live switch up
  // to 8 intermediate tables and one transient copy (live_switch.cpp).
  job.extra_tables = request.live_switch.quiesced ? 1 : 10;
  if (job.algorithm.empty() && !whole_machine)
    // What the prologue asked for: the whole chain ("balanced,nue"), not only
    // the member that won, so the chain falls back again after new failures
    // and its first member gets its turn back after a repair.
    if (const auto installed = installed_routing(directory, request.job.id, live))
      job.algorithm = installed->chain.empty() ? installed->algorithm : installed->chain;

  std::vector<std::string> targets = request.only.empty() ? live : request.only;
  for (const std::string& name : targets)
    if (std::find(live.begin(), live.end(), name) == live.end())
      throw std::invalid_argument("node '" + name + "' is not a live node of job " + request.job.id);
  if (!request.only.empty() && !whole_machine) refuse_partial_rebuild(request.job.id, directory, live, targets);
  if (live.empty()) {
    outcome.message = "job " + request.job.id + ": no live node left, nothing to rebuild";
    return outcome;
  }
  const JobResult result = compute_job_routes(config, job);
  outcome.live = live;
  outcome.algorithm = result.algorithm;
  outcome.chain = result.chain;
  outcome.passed_over = result.passed_over;
  outcome.fingerprint = result.fingerprint;
  outcome.max_gamma = result.report.metrics.max_gamma;
  outcome.lower_bound = result.report.metrics.lower_bound;
  outcome.verified = result.report.ok();
  // The running job's routers switch one by one: the union of what is
  // installed and the new routes must be deadlock-free (live_switch.hpp).
  const RouteTable installed = installed_job_table(config, directory, request.job.id,
                                                   whole_machine ? config.node_names : request.job.nodes);
  if (request.dry_run) {
    if (!request.live_switch.quiesced) check_switch(result, installed, outcome.live_switch);
    else outcome.live_switch.checked = false;
  } else {
    // One switch: the rewritten nodes change together, and the failed ones
    // leave the job's set with them (a subset rewrite keeps the others).
    TableSetOptions set_options;
    if (request.only.empty())
      set_options.remove = table_names_of(config, outcome.dropped);
    else
      set_options.keep_others = true;
    outcome.live_switch =
        switch_job_tables(config, result, installed, directory, targets, set_options, request.live_switch);
    outcome.written = targets;
  }
  // The switch's kind before the rest: the log's readers look for the line's
  // end ("written to DIR").
  outcome.message = format_report_line(result) + "; " + outcome.live_switch.summary() + "; " + slurm::failed_routers_note(failed);
  if (!outcome.dropped.empty() && !whole_machine)
    outcome.message += "; left out failed job nodes " + compress_hostlist(outcome.dropped);
  outcome.message += request.dry_run ? "; dry run, nothing written"
                                     : "; tables of " + compress_hostlist(targets) + " written to " + directory;
  return outcome;
}

}  // namespace angara::cli
