// angara-route check: spank-angara's plugstack arguments, configuration,
// table directory and the Slurm settings it relies on, one line a finding.
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
#include "spank/checks.hpp"

#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif

namespace angara::cli {

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
          return usage_error("check", std::string("--timeout ") + optarg + ": expected seconds from 1 to 3600");
        break;
      default: return usage_error("check", "unknown option");
    }
  }
  if (optind != argc) return usage_error("check", std::string("unexpected argument '") + argv[optind] + "'");

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
          spank::check_slurm_settings(show_config, slurm::show_partitions_text(timeout), *plugin.config,
                                      plugin.settings ? &*plugin.settings : nullptr);
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

}  // namespace angara::cli
