#include "plugin/rebuild_command.hpp"

#include <getopt.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "angara/config.hpp"
#include "angara/hostlist.hpp"
#include "angara/table_file.hpp"
#include "plugin/exit_status.hpp"
#include "plugin/job_tables.hpp"
#include "plugin/slurm_query.hpp"
#include "routing/generator.hpp"
#include "routing/pipeline.hpp"

namespace angara {

namespace {

const char* const kUsage =
    "Usage: angara-route rebuild --job JOBID | --all-running [--idle] [--node HOSTLIST]\n"
    "         [--config F] [--tables DIR] [--cache DIR] [--algorithm NAME]\n"
    "         [--failed down|down,drained|none] [--down HOSTLIST] [--timeout S] [--dry-run]\n"
    "         [DOWN-HOSTLIST...]   (as strigger --node --down passes them)\n";

struct Options {
  std::string job_id;
  bool all_running = false;
  bool idle = false;
  std::vector<std::string> only;
  std::string config_path;
  std::string table_dir;
  std::string cache_dir;
  std::string algorithm;
  slurm::FailedStates failed_states = slurm::FailedStates::Down;
  std::vector<std::string> extra_down;
  int timeout = 30;
  bool dry_run = false;
};

// Only the nodes of `job_nodes` the operator asked for (all when none asked).
std::vector<std::string> selected(const std::vector<std::string>& only, const std::vector<std::string>& job_nodes) {
  if (only.empty()) return {};
  std::vector<std::string> chosen;
  for (const std::string& name : job_nodes)
    if (std::find(only.begin(), only.end(), name) != only.end()) chosen.push_back(name);
  return chosen;
}

}  // namespace

int rebuild_command(int argc, char** argv) {
  Options options;
  static const option long_options[] = {
      {"job", required_argument, nullptr, 'J'},      {"all-running", no_argument, nullptr, 'A'},
      {"idle", no_argument, nullptr, 'I'},           {"node", required_argument, nullptr, 'N'},
      {"config", required_argument, nullptr, 'c'},   {"tables", required_argument, nullptr, 't'},
      {"cache", required_argument, nullptr, 'C'},    {"algorithm", required_argument, nullptr, 'a'},
      {"failed", required_argument, nullptr, 'f'},   {"down", required_argument, nullptr, 'x'},
      {"timeout", required_argument, nullptr, 'T'},  {"dry-run", no_argument, nullptr, 'd'},
      {"help", no_argument, nullptr, 'h'},           {nullptr, 0, nullptr, 0}};
  optind = 1;
  int opt;
  while ((opt = getopt_long(argc, argv, "J:c:t:a:dh", long_options, nullptr)) != -1) {
    switch (opt) {
      case 'J': options.job_id = optarg; break;
      case 'A': options.all_running = true; break;
      case 'I': options.idle = true; break;
      case 'N':
        for (std::string& name : expand_hostlist(optarg)) options.only.push_back(std::move(name));
        break;
      case 'c': options.config_path = optarg; break;
      case 't': options.table_dir = optarg; break;
      case 'C': options.cache_dir = optarg; break;
      case 'a': options.algorithm = optarg; break;
      case 'f':
        try {
          options.failed_states = spank::parse_failed_states(optarg);
        } catch (const std::invalid_argument& e) {
          std::cerr << "angara-route: rebuild: --failed " << optarg << ": " << e.what() << "\n";
          return kExitUsage;
        }
        break;
      case 'x':
        for (std::string& name : expand_hostlist(optarg)) options.extra_down.push_back(std::move(name));
        break;
      case 'T': {
        char* end = nullptr;
        const long seconds = std::strtol(optarg, &end, 10);
        if (*optarg == '\0' || *end != '\0' || seconds < 1 || seconds > 3600) {
          std::cerr << "angara-route: rebuild: --timeout " << optarg << ": expected seconds from 1 to 3600\n";
          return kExitUsage;
        }
        options.timeout = static_cast<int>(seconds);
        break;
      }
      case 'd': options.dry_run = true; break;
      case 'h': std::cout << kUsage; return kExitOk;
      default: std::cerr << kUsage; return kExitUsage;
    }
  }
  // strigger(1) appends the nodes that went down to the program's arguments.
  for (int i = optind; i < argc; ++i)
    for (std::string& name : expand_hostlist(argv[i])) options.extra_down.push_back(std::move(name));
  if (options.job_id.empty() == !options.all_running) {
    std::cerr << "angara-route: rebuild: give exactly one of --job JOBID and --all-running\n" << kUsage;
    return kExitUsage;
  }
  if (options.idle && !options.all_running) {
    std::cerr << "angara-route: rebuild: --idle goes with --all-running\n" << kUsage;
    return kExitUsage;
  }
  if (!options.algorithm.empty() && !make_generator(options.algorithm)) {
    std::cerr << "angara-route: rebuild: unknown algorithm '" << options.algorithm << "' (valid: " << generator_names()
              << ")\n";
    return kExitInput;
  }

  const Config config = find_config(options.config_path);
  const std::string directory = options.table_dir.empty() ? config.table_dir : options.table_dir;
  if (config.source == desmos_default_config().source && !options.dry_run) {
    // A strigger rebuild on a host without the configuration would write the
    // demonstration machine's tables into the real table directory.
    std::cerr << "angara-route: rebuild: no configuration found (no --config, no $ANGARA_CONFIG, no "
              << system_config_path() << "); refusing to write tables of the built-in Desmos machine into "
              << directory << ". Give --config FILE (or --dry-run to try)\n";
    return kExitInput;
  }
  std::vector<std::string> failed;
  try {
    failed = slurm::failed_node_names(slurm::query_node_states(options.timeout), options.failed_states);
  } catch (const slurm::SlurmQueryError& e) {
    std::cerr << "angara-route: rebuild: cannot read node states: " << e.what() << "\n";
    return kExitSlurmQuery;
  }
  failed.insert(failed.end(), options.extra_down.begin(), options.extra_down.end());

  std::vector<slurm::JobInfo> jobs;
  try {
    if (options.all_running) {
      jobs = slurm::query_active_jobs(options.timeout);
    } else {
      slurm::JobInfo job = slurm::query_job(options.job_id, options.timeout);
      if (!slurm::job_is_active(job)) {
        std::cerr << "angara-route: rebuild: job " << job.id << " is " << job.state
                  << ", not running: it has no tables to rebuild\n";
        return kExitInput;
      }
      jobs.push_back(std::move(job));
    }
  } catch (const slurm::SlurmQueryError& e) {
    std::cerr << "angara-route: rebuild: cannot read jobs: " << e.what() << "\n";
    return kExitSlurmQuery;
  }
  if (options.idle) {
    // Every node without an active job keeps the whole-machine default table.
    std::set<std::string> busy;
    for (const slurm::JobInfo& job : jobs) busy.insert(job.nodes.begin(), job.nodes.end());
    slurm::JobInfo idle;
    idle.id = "default";
    idle.state = "IDLE";
    for (const std::string& name : config.node_names)
      if (!busy.count(name)) idle.nodes.push_back(name);
    if (!idle.nodes.empty()) jobs.push_back(std::move(idle));
  }

  // --node names nodes of the selected jobs, and live ones: a typo or a node
  // that went down must not turn into a rebuild that silently does nothing.
  {
    std::set<std::string> known;
    for (const slurm::JobInfo& job : jobs) known.insert(job.nodes.begin(), job.nodes.end());
    const std::set<std::string> failed_set(failed.begin(), failed.end());
    std::vector<std::string> outside, down;
    for (const std::string& name : options.only) {
      if (!known.count(name)) outside.push_back(name);
      else if (failed_set.count(name)) down.push_back(name);
    }
    const std::string scope = options.all_running ? (options.idle ? "any running job or idle node" : "any running job")
                                                  : "job " + options.job_id + " (" + jobs.front().node_list + ")";
    if (!outside.empty()) {
      std::cerr << "angara-route: rebuild: --node " << compress_hostlist(outside) << ": not a node of " << scope
                << "; nothing was written\n";
      return kExitInput;
    }
    if (!down.empty()) {
      std::cerr << "angara-route: rebuild: --node " << compress_hostlist(down)
                << ": counted as failed (Slurm state or arguments), so it gets no table; name the nodes that "
                   "went down as arguments (rebuild --job ID NODE...), and --node only for live nodes that "
                   "rewrite their own table\n";
      return kExitInput;
    }
  }
  const std::vector<std::string> machine_failed = spank::machine_nodes_among(config, failed);
  std::cout << "rebuild: config " << config.source << ", tables " << directory << ", failed routers "
            << (machine_failed.empty() ? "none" : compress_hostlist(machine_failed)) << ", "
            << (options.dry_run ? "dry run" : "writing") << "\n";

  int status = 0;
  for (const slurm::JobInfo& job : jobs) {
    spank::RebuildRequest request;
    request.job = job;
    request.failed_nodes = failed;
    request.algorithm = options.algorithm;
    request.table_dir = options.table_dir;
    request.cache_dir = options.cache_dir;
    request.dry_run = options.dry_run;
    if (!options.only.empty()) {
      request.only = selected(options.only, job.nodes);
      const std::set<std::string> failed_set(failed.begin(), failed.end());
      request.only.erase(std::remove_if(request.only.begin(), request.only.end(),
                                        [&](const std::string& name) { return failed_set.count(name) > 0; }),
                         request.only.end());
      if (request.only.empty()) continue;  // none of this job's nodes was asked for
    }
    if (options.all_running) {
      try {
        std::cout << spank::rebuild_job_tables(config, request).message << "\n";
      } catch (...) {
        const std::exception_ptr error = std::current_exception();
        std::cerr << "angara-route: rebuild: job " << job.id << ": " << message_of(error) << "\n";
        if (status == 0) status = exit_status_of(error);
      }
    } else {
      std::cout << spank::rebuild_job_tables(config, request).message << "\n";
    }
  }
  if (jobs.empty()) std::cout << "no running job\n";
  return status;
}

}  // namespace angara
