// angara-route install-defaults: the default (whole-machine, job "default")
// tables of some nodes, computed, verified and written as an epilogue writes
// its node's, for a machine's first start or a node's new table directory.
#include <getopt.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "angara/config.hpp"
#include "angara/hostlist.hpp"
#include "angara/table_file.hpp"
#include "angara/table_set.hpp"
#include "cli/cli_support.hpp"
#include "cli/commands.hpp"
#include "cli/exit_status.hpp"
#include "cli/job_tables.hpp"
#include "routing/chain.hpp"
#include "routing/pipeline.hpp"
#include "routing/report.hpp"
#include "slurm/job_nodes.hpp"

namespace angara::cli {

int install_defaults_command(int argc, char** argv) {
  std::string config_path, tables, node_text, down_text, algorithm;
  bool dry_run = false;
  static const option long_options[] = {{"config", required_argument, nullptr, 'c'},
                                        {"tables", required_argument, nullptr, 't'},
                                        {"node", required_argument, nullptr, 'n'},
                                        {"down", required_argument, nullptr, 'd'},
                                        {"algorithm", required_argument, nullptr, 'a'},
                                        {"dry-run", no_argument, nullptr, 'D'},
                                        {nullptr, 0, nullptr, 0}};
  optind = 1;
  int opt;
  while ((opt = getopt_long(argc, argv, "c:t:n:a:", long_options, nullptr)) != -1) {
    switch (opt) {
      case 'c': config_path = optarg; break;
      case 't': tables = optarg; break;
      case 'n': node_text = optarg; break;
      case 'd': down_text = optarg; break;
      case 'a': algorithm = optarg; break;
      case 'D': dry_run = true; break;
      default: return usage_error("install-defaults", "unknown option");
    }
  }
  if (optind != argc)
    return usage_error("install-defaults", std::string("unexpected argument '") + argv[optind] + "'");
  if (!algorithm.empty()) parse_algorithm_chain(algorithm);  // std::invalid_argument: exit 3

  const Config config = load_config_announced(config_path);
  const std::string directory = tables.empty() ? config.table_dir : tables;
  if (config.source == desmos_default_config().source && tables.empty() && !dry_run)
    throw std::invalid_argument("no configuration found (no --config, no $ANGARA_CONFIG, no " + system_config_path() +
                                "); refusing to write tables of the built-in Desmos machine into " + directory +
                                ". Give --config FILE (or --tables DIR, or --dry-run to try)");

  JobRequest request;
  request.job = "default";
  request.algorithm = algorithm;
  request.write_cache = false;
  if (!down_text.empty()) request.down_nodes = expand_hostlist(down_text);
  for (const std::string& name : request.down_nodes)
    if (!config.node_by_name(name))
      throw std::invalid_argument("--down: '" + name + "' is not a node of the machine (" + config.source + ")");
  const std::set<std::string> down(request.down_nodes.begin(), request.down_nodes.end());
  std::vector<std::string> targets;
  if (node_text.empty()) {
    for (const std::string& name : config.node_names)
      if (!down.count(name)) targets.push_back(name);
  } else {
    targets = expand_hostlist(node_text);
    for (const std::string& name : targets) {
      if (!config.node_by_name(name))
        throw std::invalid_argument("--node: '" + name + "' is not a node of the machine (" + config.source + ")");
      if (down.count(name))
        throw std::invalid_argument("--node: '" + name + "' is also given as --down; a failed router gets no table");
    }
  }
  // A running job's table is never replaced by the default one: its routes
  // would change under it (rebuild switches running jobs safely).
  const TableOwners owners = installed_table_owners(directory, targets);
  std::vector<std::string> busy;
  for (const auto& [owner, nodes] : owners.owners)
    if (owner != "default")
      for (const std::string& name : nodes) busy.push_back(name + " (job " + owner + ")");
  if (!busy.empty()) {
    std::string list;
    for (const std::string& entry : busy) list += (list.empty() ? "" : ", ") + entry;
    throw std::invalid_argument("the tables in " + directory + " of " + list +
                                " are a job's; its epilogue restores the default table when it ends. "
                                "Leave these nodes out (--node), or wait for the job to end");
  }

  const JobResult result = compute_job_routes(config, request);  // verified, or it throws
  std::string message = format_report_line(result) + "; " + slurm::failed_routers_note(request.down_nodes) + "; ";
  if (dry_run) {
    message += "dry run: default tables of " + compress_hostlist(targets) + " not written";
  } else {
    TableSetOptions options;
    options.keep_others = !node_text.empty();  // the other nodes' default tables stay
    options.create_parents = true;
    write_job_tables(config, result, directory, targets, options);
    message += "default tables of " + compress_hostlist(targets) + " (" + std::to_string(targets.size()) +
               " nodes) written to " + directory;
  }
  std::cout << message << "\n";
  return kExitOk;
}

}  // namespace angara::cli
