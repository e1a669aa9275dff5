// angara-route show --job and verify --job: what a running job has installed.
#include <getopt.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <vector>

#include "angara/hostlist.hpp"
#include "cli/cli_support.hpp"
#include "cli/commands.hpp"
#include "cli/exit_status.hpp"
#include "routing/pipeline.hpp"
#include "routing/report.hpp"
#include "cli/job_tables.hpp"
#include "slurm/job_nodes.hpp"

namespace angara::cli {

namespace {

std::string hostlist_or_none(const std::vector<std::string>& names) {
  return names.empty() ? "none" : compress_hostlist(names);
}

// The job's installed tables, with the nodes Slurm counts as failed left out
// (a rebuild leaves their old tables behind).
InstalledJobTables job_tables_of(const Config& config, const slurm::JobInfo& job, const std::string& table_dir,
                                 slurm::FailedStates failed_states, int timeout) {
  if (job.nodes.empty()) throw std::invalid_argument("job " + job.id + " (" + job.state + ") has no nodes allocated");
  std::vector<std::string> failed;
  if (failed_states != slurm::FailedStates::None)
    failed = slurm::failed_node_names(slurm::query_node_states(timeout), failed_states);
  return read_installed_job_tables(config, job, table_dir, failed);
}

InstalledJobTables job_tables_from_slurm(const Config& config, const std::string& job_id,
                                         const std::string& table_dir, slurm::FailedStates failed_states, int timeout) {
  return job_tables_of(config, slurm::query_job(job_id, timeout), table_dir, failed_states, timeout);
}

// show --job of a job that ended: its epilogues put back the default table
// (or a later job's prologue its own), so what its nodes hold now is the
// answer, not a missing table.  Exit 0 when every node's table could be
// read; a node still holding the ended job's table is named (its epilogue
// has not run yet, or the plugin runs with epilog=keep).
int show_ended_job(const Config& config, const slurm::JobInfo& job, const std::string& directory, bool json) {
  const std::vector<std::string> nodes = slurm::machine_nodes_among(config, job.nodes);
  const TableOwners now = installed_table_owners(directory, nodes);
  std::vector<std::string> still_the_jobs;
  std::vector<std::string> installed;  // "job default on desmos[00-07] (8 nodes)"
  for (const auto& [owner, owner_nodes] : now.owners) {
    if (owner == job.id) still_the_jobs = owner_nodes;
    installed.push_back("job " + owner + " on " + compress_hostlist(owner_nodes) + " (" +
                        std::to_string(owner_nodes.size()) + (owner_nodes.size() == 1 ? " node)" : " nodes)"));
  }
  std::string verdict;
  if (still_the_jobs.empty())
    verdict = "the job ended (" + job.state + "); its nodes' tables were restored";
  else if (still_the_jobs.size() == nodes.size())
    verdict = "the job ended (" + job.state + "); its tables are still installed (its epilogues have not run, "
              "or the plugin runs with epilog=keep)";
  else
    verdict = "the job ended (" + job.state + "); its nodes' tables were restored except on " +
              compress_hostlist(still_the_jobs) + " (their epilogues have not run, or failed)";
  const bool ok = now.unreadable.empty();
  if (json) {
    std::cout << "{\"job\":" << json_quote(job.id) << ",\"state\":" << json_quote(job.state)
              << ",\"nodes\":" << json_quote(job.node_list) << ",\"ended\":true,\"tables\":" << json_quote(directory)
              << ",\"installed_now\":[";
    for (std::size_t i = 0; i < now.owners.size(); ++i)
      std::cout << (i ? "," : "") << "{\"job\":" << json_quote(now.owners[i].first)
                << ",\"nodes\":" << json_quote(compress_hostlist(now.owners[i].second))
                << ",\"count\":" << now.owners[i].second.size() << "}";
    std::cout << "],\"restored\":" << (still_the_jobs.empty() ? "true" : "false")
              << ",\"verdict\":" << json_quote(verdict) << ",\"problems\":" << json_string_list(now.unreadable)
              << ",\"admin_comment\":" << json_quote(job.admin_comment) << "}\n";
  } else {
    std::cout << "job " << job.id << " (" << job.state << ") on " << job.node_list << "\n";
    std::cout << "  ended        " << verdict << "\n";
    std::cout << "  tables       " << directory << ": ";
    for (std::size_t i = 0; i < installed.size(); ++i) std::cout << (i ? ", " : "") << installed[i];
    if (installed.empty()) std::cout << "none readable";
    std::cout << "\n";
    for (const std::string& problem : now.unreadable) std::cout << "    " << problem << "\n";
    if (!job.admin_comment.empty()) std::cout << "  slurm        AdminComment " << job.admin_comment << "\n";
  }
  return ok ? kExitOk : kExitRejected;
}

}  // namespace

int show_command(int argc, char** argv) {
  std::string config_path, job_id, tables, failed_text = "down";
  bool json = false;
  int timeout = 30;
  static const option long_options[] = {{"job", required_argument, nullptr, 'J'},
                                        {"config", required_argument, nullptr, 'c'},
                                        {"tables", required_argument, nullptr, 't'},
                                        {"failed", required_argument, nullptr, 'f'},
                                        {"timeout", required_argument, nullptr, 'T'},
                                        {"json", no_argument, nullptr, 'j'},
                                        {nullptr, 0, nullptr, 0}};
  optind = 1;
  int opt;
  while ((opt = getopt_long(argc, argv, "J:c:t:j", long_options, nullptr)) != -1) {
    switch (opt) {
      case 'J': job_id = optarg; break;
      case 'c': config_path = optarg; break;
      case 't': tables = optarg; break;
      case 'f': failed_text = optarg; break;
      case 'j': json = true; break;
      case 'T':
        if (!parse_timeout(optarg, timeout))
          return usage_error("show", std::string("--timeout ") + optarg + ": expected seconds from 1 to 3600");
        break;
      default: return usage_error("show", "unknown option");
    }
  }
  if (optind != argc) return usage_error("show", std::string("unexpected argument '") + argv[optind] + "'");
  if (job_id.empty()) return usage_error("show", "--job JOBID is required");
  slurm::FailedStates failed_states;
  try {
    failed_states = slurm::parse_failed_states(failed_text);
  } catch (const std::invalid_argument& e) {
    return usage_error("show", "--failed " + failed_text + ": " + e.what());
  }
  const Config config = load_config_announced(config_path);
  const std::string directory = tables.empty() ? config.table_dir : tables;
  const slurm::JobInfo job = slurm::query_job(job_id, timeout);
  if (slurm::job_has_ended(job) && !job.nodes.empty()) return show_ended_job(config, job, directory, json);
  const InstalledJobTables installed = job_tables_of(config, job, directory, failed_states, timeout);

  // One routing when every live node has the job's table with one fingerprint.
  std::vector<std::string> problems = installed.problems;
  const NodeTable* first = installed.tables.empty() ? nullptr : &installed.tables.front();
  for (const NodeTable& table : installed.tables)
    if (table.fingerprint != first->fingerprint || table.algorithm != first->algorithm)
      problems.push_back(table.node_name + ": " + table.algorithm + " " + table.fingerprint + ", but " +
                         first->node_name + " has " + first->algorithm + " " + first->fingerprint);
  // The AdminComment the prologue (or the last rebuild) wrote names the
  // tables it installed: other tables now mean a rebuild that could not say so.
  const std::string noted = slurm::routing_note_fingerprint(installed.job.admin_comment);
  const bool note_differs = first && !noted.empty() && noted != first->fingerprint;
  if (note_differs)
    problems.push_back("AdminComment names fingerprint " + noted + ", the installed tables have " +
                       first->fingerprint + " (a rebuild that could not update it? see its log)");
  std::string verdict;
  bool verified = false;
  if (!first) {
    verdict = "no table of job " + installed.job.id + " in " + directory;
  } else if (!problems.empty()) {
    verdict = note_differs && problems.size() == 1 ? "the installed tables are not those the job's AdminComment names"
                                                   : "the job's tables are incomplete or disagree";
  } else {
    const JobResult result = verify_node_tables(config, installed.tables, directory);
    verified = result.report.ok();
    verdict = verified ? "OK (max gamma " + std::to_string(result.report.metrics.max_gamma) + ", bound " +
                             std::to_string(result.report.metrics.lower_bound) + ")"
                       : "FAILED: " + std::string(rule_name(result.report.violations.front().rule)) + ": " +
                             result.report.violations.front().message;
  }
  std::vector<std::string> with_table;
  for (const NodeTable& table : installed.tables) with_table.push_back(table.node_name);

  if (json) {
    std::cout << "{\"job\":" << json_quote(installed.job.id) << ",\"state\":" << json_quote(installed.job.state)
              << ",\"nodes\":" << json_quote(installed.job.node_list) << ",\"live_nodes\":" << installed.live_nodes.size()
              << ",\"failed_nodes\":" << json_string_list(installed.failed_nodes) << ",\"tables\":" << json_quote(directory)
              << ",\"installed\":" << installed.tables.size()
              << ",\"algorithm\":" << json_quote(first ? first->algorithm : "")
              << ",\"fingerprint\":" << json_quote(first ? first->fingerprint : "")
              << ",\"verified\":" << (verified ? "true" : "false") << ",\"verdict\":" << json_quote(verdict)
              << ",\"problems\":" << json_string_list(problems)
              << ",\"admin_comment\":" << json_quote(installed.job.admin_comment)
              << ",\"admin_comment_fingerprint\":" << json_quote(noted) << "}\n";
  } else {
    std::cout << "job " << installed.job.id << " (" << installed.job.state << ") on " << installed.job.node_list
              << "\n";
    if (first)
      std::cout << "  algorithm    " << first->algorithm << "\n  fingerprint  " << first->fingerprint << "\n";
    std::cout << "  tables       " << directory << ": the job's on " << hostlist_or_none(with_table) << " ("
              << installed.tables.size() << " of " << installed.live_nodes.size() << " live nodes)\n";
    std::cout << "  failed       " << hostlist_or_none(installed.failed_nodes) << "\n";
    std::cout << "  verdict      " << verdict << "\n";
    for (const std::string& problem : problems) std::cout << "    " << problem << "\n";
    if (!installed.job.admin_comment.empty())
      std::cout << "  slurm        AdminComment " << installed.job.admin_comment << "\n";
  }
  return verified ? kExitOk : kExitRejected;
}

int verify_job_command(const Config& config, const std::string& job_id, const std::string& table_dir,
                       slurm::FailedStates failed_states, int timeout_seconds, bool json) {
  const InstalledJobTables installed =
      job_tables_from_slurm(config, job_id, table_dir, failed_states, timeout_seconds);
  if (!installed.problems.empty() || installed.tables.empty()) {
    std::cerr << kProgramName << ": verify: job " << installed.job.id << " (" << installed.job.node_list
              << "): its tables in " << table_dir << " are not one routing:\n";
    for (const std::string& problem : installed.problems) std::cerr << "  " << problem << "\n";
    if (installed.problems.empty()) std::cerr << "  no live node of the job\n";
    return kExitRejected;
  }
  const JobResult result = verify_node_tables(config, installed.tables, table_dir);
  ReportContext context;
  context.command = "verify";
  std::vector<std::string> names;
  for (const NodeTable& table : installed.tables) names.push_back(table.node_name);
  context.tables_note = "job " + installed.job.id + "'s, read from " + table_dir + " (" + compress_hostlist(names) +
                        ", " + std::to_string(names.size()) + " files" +
                        (installed.failed_nodes.empty() ? "" : "; failed " + compress_hostlist(installed.failed_nodes) +
                                                                   " left out") + ")";
  std::cout << (json ? format_report_json(config, result, context) : format_report_text(config, result, context));
  return result.report.ok() ? kExitOk : kExitRejected;
}

}  // namespace angara::cli
