#include "plugin/admin_commands.hpp"

#include <getopt.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <vector>

#include "angara/hostlist.hpp"
#include "plugin/checks.hpp"
#include "plugin/exit_status.hpp"
#include "plugin/job_tables.hpp"
#include "routing/pipeline.hpp"
#include "routing/report.hpp"

#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif

namespace angara {

namespace {

const char* const kProgram = "angara-route";

int usage(const std::string& command, const std::string& message) {
  std::cerr << kProgram << ": " << command << ": " << message << "\nTry '" << kProgram << " " << command
            << " --help'.\n";
  return kExitUsage;
}

std::string hostlist_or_none(const std::vector<std::string>& names) {
  return names.empty() ? "none" : compress_hostlist(names);
}

// The job's installed tables, with the nodes Slurm counts as failed left out
// (a rebuild leaves their old tables behind).
spank::InstalledJobTables job_tables_from_slurm(const Config& config, const std::string& job_id,
                                                const std::string& table_dir, slurm::FailedStates failed_states,
                                                int timeout) {
  const slurm::JobInfo job = slurm::query_job(job_id, timeout);
  if (job.nodes.empty()) throw std::invalid_argument("job " + job.id + " (" + job.state + ") has no nodes allocated");
  std::vector<std::string> failed;
  if (failed_states != slurm::FailedStates::None)
    failed = slurm::failed_node_names(slurm::query_node_states(timeout), failed_states);
  return spank::read_installed_job_tables(config, job, table_dir, failed);
}

}  // namespace

std::string json_string_list(const std::vector<std::string>& items) {
  std::string text = "[";
  for (std::size_t i = 0; i < items.size(); ++i) text += (i ? "," : "") + json_quote(items[i]);
  return text + "]";
}

bool parse_timeout(const char* text, int& seconds) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || errno != 0 || value < 1 || value > 3600) return false;
  seconds = static_cast<int>(value);
  return true;
}

std::string memory_limit_error(const char* value) {
  return "--memory-limit expects a size (4G, 512M, bytes; at least 1M), a percentage of the node's "
         "memory (50%) or 'none', got '" + std::string(value) + "'";
}

Config load_config_announced(const std::string& path) {
  Config config = find_config(path);
  if (config.source == desmos_default_config().source)
    std::cerr << kProgram << ": note: no --config, no $ANGARA_CONFIG and no " << system_config_path()
              << ": using the built-in Desmos machine (4x2x2x2, one cable in Y, Z and K, desmos[00-31])\n";
  return config;
}

int check_command(int argc, char** argv) {
  std::string config_path, plugstack;
  bool json = false, ask_slurm = true;
  int timeout = 30;
  static const option long_options[] = {{"config", required_argument, nullptr, 'c'},
                                        {"plugstack", required_argument, nullptr, 'p'},
                                        {"no-slurm", no_argument, nullptr, 'n'},
                                        {"timeout", required_argument, nullptr, 'T'},
                                        {"json", no_argument, nullptr, 'j'},
                                        {nullptr, 0, nullptr, 0}};
  optind = 1;
  int opt;
  while ((opt = getopt_long(argc, argv, "c:j", long_options, nullptr)) != -1) {
    switch (opt) {
      case 'c': config_path = optarg; break;
      case 'p': plugstack = optarg; break;
      case 'n': ask_slurm = false; break;
      case 'j': json = true; break;
      case 'T':
        if (!parse_timeout(optarg, timeout))
          return usage("check", std::string("--timeout ") + optarg + ": expected seconds from 1 to 3600");
        break;
      default: return usage("check", "unknown option");
    }
  }
  if (optind != argc) return usage("check", std::string("unexpected argument '") + argv[optind] + "'");

  std::vector<spank::Finding> findings;
  std::string show_config;
  if (ask_slurm) {
    try {
      show_config = slurm::show_config_text(timeout);
      findings.push_back({spank::Severity::Ok, "slurm",
                          "slurmctld answers (" + slurm::scontrol_program() + " show config), Slurm " +
                              spank::slurm_config_value(show_config, "SLURM_VERSION")});
    } catch (const slurm::SlurmQueryError& e) {
      findings.push_back({spank::Severity::Warning, "slurm",
                          std::string("cannot ask slurmctld, Slurm's settings are not checked: ") + e.what()});
    }
  }
  if (plugstack.empty()) plugstack = spank::slurm_config_value(show_config, "PlugStackConfig");
  std::vector<std::string> arguments;
  if (plugstack.empty()) {
    findings.push_back({spank::Severity::Warning, "plugstack",
                        "not checked: give --plugstack FILE (or let slurmctld name its PlugStackConfig)"});
  } else {
    const std::vector<spank::PlugstackEntry> entries = spank::find_plugstack_entries(plugstack, findings);
    if (entries.empty()) {
      findings.push_back({spank::Severity::Error, "plugstack",
                          plugstack + " (and what it includes) loads no spank-angara.so: jobs get no routing tables"});
    } else {
      const spank::PlugstackEntry& entry = entries.front();
      const std::string where = entry.file + ":" + std::to_string(entry.line);
      if (!entry.required)
        findings.push_back({spank::Severity::Warning, "plugstack",
                            where + ": 'optional': if the plugin fails to load, jobs run without their tables; "
                                    "use 'required'"});
      else
        findings.push_back({spank::Severity::Ok, "plugstack", where + ": required " + entry.plugin});
      if (entry.plugin.front() == '/' && ::access(entry.plugin.c_str(), R_OK) != 0)
        findings.push_back({spank::Severity::Error, "plugstack", where + ": " + entry.plugin + " does not exist"});
      if (entries.size() > 1)
        findings.push_back({spank::Severity::Warning, "plugstack",
                            entries[1].file + ":" + std::to_string(entries[1].line) +
                                ": a second spank-angara line; Slurm loads the plugin once, with the first line's "
                                "arguments"});
      arguments = entry.arguments;
      if (ask_slurm) findings.push_back(spank::check_slurmd_started_after({plugstack, entry.file}));
    }
  }
  const spank::PluginCheck plugin = spank::check_plugin_setup(arguments, config_path);
  findings.insert(findings.end(), plugin.findings.begin(), plugin.findings.end());
  if (!show_config.empty() && plugin.config) {
    try {
      const std::vector<spank::Finding> slurm_findings =
          spank::check_slurm_settings(show_config, slurm::show_partitions_text(timeout), *plugin.config);
      findings.insert(findings.end(), slurm_findings.begin(), slurm_findings.end());
      std::vector<std::string> slurm_nodes;
      for (const slurm::NodeState& node : slurm::query_node_states(timeout)) slurm_nodes.push_back(node.name);
      findings.push_back(spank::check_node_names(*plugin.config, slurm_nodes));
    } catch (const slurm::SlurmQueryError& e) {
      findings.push_back({spank::Severity::Warning, "slurm", std::string("partitions not checked: ") + e.what()});
    }
  }

  std::size_t errors = 0, warnings = 0;
  for (const spank::Finding& finding : findings) {
    if (finding.severity == spank::Severity::Error) ++errors;
    if (finding.severity == spank::Severity::Warning) ++warnings;
  }
  if (json) {
    std::cout << "{\"ok\":" << (errors ? "false" : "true") << ",\"errors\":" << errors << ",\"warnings\":" << warnings
              << ",\"findings\":[";
    for (std::size_t i = 0; i < findings.size(); ++i)
      std::cout << (i ? "," : "") << "{\"severity\":" << json_quote(spank::severity_name(findings[i].severity))
                << ",\"subject\":" << json_quote(findings[i].subject) << ",\"text\":" << json_quote(findings[i].text)
                << "}";
    std::cout << "]}\n";
  } else {
    for (const spank::Finding& finding : findings) std::cout << spank::format_finding(finding) << "\n";
    std::cout << errors << " error(s), " << warnings << " warning(s)"
              << (errors ? ": slurmd would refuse to load spank-angara or jobs would not get their tables" : "")
              << "\n";
  }
  return errors ? kExitInput : kExitOk;
}

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
          return usage("show", std::string("--timeout ") + optarg + ": expected seconds from 1 to 3600");
        break;
      default: return usage("show", "unknown option");
    }
  }
  if (optind != argc) return usage("show", std::string("unexpected argument '") + argv[optind] + "'");
  if (job_id.empty()) return usage("show", "--job JOBID is required");
  slurm::FailedStates failed_states;
  try {
    failed_states = spank::parse_failed_states(failed_text);
  } catch (const std::invalid_argument& e) {
    return usage("show", "--failed " + failed_text + ": " + e.what());
  }
  const Config config = load_config_announced(config_path);
  const std::string directory = tables.empty() ? config.table_dir : tables;
  const spank::InstalledJobTables installed =
      job_tables_from_slurm(config, job_id, directory, failed_states, timeout);

  // One routing when every live node has the job's table with one fingerprint.
  std::vector<std::string> problems = installed.problems;
  const NodeTable* first = installed.tables.empty() ? nullptr : &installed.tables.front();
  for (const NodeTable& table : installed.tables)
    if (table.fingerprint != first->fingerprint || table.algorithm != first->algorithm)
      problems.push_back(table.node_name + ": " + table.algorithm + " " + table.fingerprint + ", but " +
                         first->node_name + " has " + first->algorithm + " " + first->fingerprint);
  std::string verdict;
  bool verified = false;
  if (!first) {
    verdict = "no table of job " + installed.job.id + " in " + directory;
  } else if (!problems.empty()) {
    verdict = "the job's tables are incomplete or disagree";
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
              << ",\"admin_comment\":" << json_quote(installed.job.admin_comment) << "}\n";
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
  const spank::InstalledJobTables installed =
      job_tables_from_slurm(config, job_id, table_dir, failed_states, timeout_seconds);
  if (!installed.problems.empty() || installed.tables.empty()) {
    std::cerr << kProgram << ": verify: job " << installed.job.id << " (" << installed.job.node_list
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

}  // namespace angara
