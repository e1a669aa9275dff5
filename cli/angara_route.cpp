// angara-route(8): the administrator's tool.  It parses the command line,
// calls the core library (routing/pipeline.hpp) and reports; no routing logic
// lives here.
#include <getopt.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <optional>
#include <string>
#include <vector>

#include "angara/config.hpp"
#include "angara/file_io.hpp"
#include "angara/hostlist.hpp"
#include "spank/shared_tables.hpp"
#include "angara/printable.hpp"
#include "angara/route_dump.hpp"
#include "angara/table_file.hpp"
#include "config.h"
#include "routing/generator.hpp"
#include "routing/common/parallel.hpp"
#include "routing/check/load_picture.hpp"
#include "routing/check/metrics.hpp"
#include "routing/check/patterns.hpp"
#include "routing/pipeline.hpp"
#include "routing/report.hpp"
#include "cli/commands.hpp"
#include "cli/cli_support.hpp"
#include "cli/exit_status.hpp"
#include "cli/job_tables.hpp"
#include "cli/table_input.hpp"
#include "slurm/job_nodes.hpp"
#include "slurm/slurm_query.hpp"

namespace {

using namespace angara;
using namespace angara::cli;

const char* const kProgram = "angara-route";

struct CommonOptions {
  std::string config_path;
  bool json = false;
};

int usage_error(const std::string& message) {
  print_error(message, kExitUsage);
  std::cerr << "Try '" << kProgram << " --help'.\n";
  return kExitUsage;
}

std::string lp_time_error(const std::string& command, const char* value) {
  return command + ": --lp-time expects seconds from 0 to 3600 (0: no LP bound), got '" + value + "'";
}

// --rules / --flow-control: override routing.rules / routing.flow_control.
struct RulesOptions {
  std::optional<RuleSet> rules;
  std::optional<FlowControl> flow_control;

  // Takes the value of --rules ('R') or --flow-control ('F'); returns "" or the usage error.
  std::string take(const std::string& command, int opt, const char* value) {
    if (opt == 'R') {
      rules = parse_rule_set(value);
      if (!rules) return command + ": --rules expects 'angara' or 'general', got '" + value + "'";
    } else {
      flow_control = parse_flow_control(value);
      if (!flow_control) return command + ": --flow-control expects 'bubble' or 'none', got '" + value + "'";
    }
    return "";
  }
  void apply(Config& config) const {
    if (rules) config.rules = *rules;
    if (flow_control) config.flow_control = *flow_control;
  }
};

// The report with the LP lower bound beside the per-dimension one, unless
// routing.lp_bound_time (or --lp-time) is 0.
void print_result(const Config& config, const JobResult& result, ReportContext context, bool json) {
  if (config.lp_bound_time > 0) {
    context.lp_bound = table_lp_bound(result.network, result.table, config.lp_bound_time);
  } else {
    context.lp_bound = LpBound{};
    context.lp_bound->note = "routing.lp_bound_time is 0";
  }
  std::cout << (json ? format_report_json(config, result, context) : format_report_text(config, result, context));
}

int cmd_generate(int argc, char** argv) {
  CommonOptions common;
  JobRequest request;
  std::string nodes, dump_path, output_dir;
  bool dry_run = false, verbose = false;
  static const option long_options[] = {
      {"config", required_argument, nullptr, 'c'},    {"nodes", required_argument, nullptr, 'n'},
      {"algorithm", required_argument, nullptr, 'a'}, {"dry-run", no_argument, nullptr, 'd'},
      {"dump-routes", required_argument, nullptr, 'D'}, {"json", no_argument, nullptr, 'j'},
      {"output", required_argument, nullptr, 'o'},    {"job-name", required_argument, nullptr, 'J'},
      {"down", required_argument, nullptr, 'x'},      {"cache", required_argument, nullptr, 'C'},
      {"job", required_argument, nullptr, 'k'},       {"failed", required_argument, nullptr, 'f'},
      {"seed", required_argument, nullptr, 's'},      {"rules", required_argument, nullptr, 'R'},
      {"flow-control", required_argument, nullptr, 'F'}, {"single-cable", required_argument, nullptr, 'S'},
      {"timeout", required_argument, nullptr, 'T'},     {"lp-time", required_argument, nullptr, 'L'},
      {"parents", no_argument, nullptr, 'P'},          {"memory-limit", required_argument, nullptr, 'M'},
      {"time-budget", required_argument, nullptr, 'B'}, {"verbose", no_argument, nullptr, 'v'},
      {nullptr, 0, nullptr, 0}};
  int timeout = 30;
  std::optional<double> lp_time, time_budget;
  std::optional<MemoryLimit> memory_limit;
  bool nodes_given = false, create_parents = false;
  std::optional<std::uint64_t> seed;
  RulesOptions rules;
  std::optional<std::string> single_cable;
  std::string slurm_job;
  slurm::FailedStates failed_states = slurm::FailedStates::Down;
  std::vector<std::string> extra_down;
  int opt;
  while ((opt = getopt_long(argc, argv, "c:n:a:dD:jo:v", long_options, nullptr)) != -1) {
    switch (opt) {
      case 'v': verbose = true; break;
      case 'c':
        if (*optarg == '\0') return usage_error("generate: --config needs a file name (an empty one is not the built-in machine)");
        common.config_path = optarg;
        break;
      case 'n':
        if (*optarg == '\0') return usage_error("generate: --nodes needs a hostlist (leave it out for the whole machine)");
        nodes = optarg;
        nodes_given = true;
        break;
      case 'a': request.algorithm = optarg; break;
      case 'd': dry_run = true; break;
      case 'D':
        if (*optarg == '\0') return usage_error("generate: --dump-routes needs a file name");
        dump_path = optarg;
        break;
      case 'j': common.json = true; break;
      case 'o':
        if (*optarg == '\0') return usage_error("generate: --output needs a directory");
        output_dir = optarg;
        break;
      case 'P': create_parents = true; break;
      case 'J': request.job = optarg; break;
      case 'x': {
        for (std::string& name : expand_hostlist(optarg)) extra_down.push_back(std::move(name));
        break;
      }
      case 'C': request.cache_dir = optarg; break;
      case 'k': slurm_job = optarg; break;
      case 's': {
        char* end = nullptr;
        errno = 0;
        const unsigned long long value = std::strtoull(optarg, &end, 10);
        if (*optarg == '\0' || *optarg == '-' || *end != '\0' || errno == ERANGE)
          return usage_error(std::string("generate: --seed expects a non-negative integer, got '") + optarg + "'");
        seed = value;
        break;
      }
      case 'f':
        try {
          failed_states = slurm::parse_failed_states(optarg);
        } catch (const std::invalid_argument& e) {
          return usage_error(std::string("generate: --failed ") + optarg + ": " + e.what());
        }
        break;
      case 'T':
        if (!parse_timeout(optarg, timeout))
          return usage_error(std::string("generate: --timeout ") + optarg + ": expected seconds from 1 to 3600");
        break;
      case 'R':
      case 'F':
        if (const std::string error = rules.take("generate", opt, optarg); !error.empty()) return usage_error(error);
        break;
      case 'S': single_cable = optarg; break;
      case 'L':
        lp_time = parse_seconds(optarg);
        if (!lp_time) return usage_error(lp_time_error("generate", optarg));
        break;
      case 'B':
        time_budget = parse_seconds(optarg);
        if (!time_budget)
          return usage_error("generate: --time-budget expects seconds from 0 to 3600 (0: no limit), got '" +
                             printable(optarg) + "'");
        break;
      case 'M':
        memory_limit = parse_memory_limit(optarg);
        if (!memory_limit) return usage_error("generate: " + memory_limit_error(optarg));
        break;
      default: return usage_error("generate: unknown option");
    }
  }
  if (optind != argc) return usage_error(std::string("generate: unexpected argument '") + argv[optind] + "'");

  if (!slurm_job.empty() && nodes_given) return usage_error("generate: --job and --nodes exclude each other");

  if (single_cable && (!dry_run || !output_dir.empty()))
    return usage_error("generate: --single-cable is for experiments and needs --dry-run; set machine.single_cable "
                       "in angara.yaml to write tables");
  Config config = load_config_announced(common.config_path);
  if (seed) config.seed = *seed;  // randomised generators (genetic): same seed, same tables
  if (lp_time) config.lp_bound_time = *lp_time;
  if (memory_limit) config.memory_limit = *memory_limit;
  rules.apply(config);
  if (config.rules != RuleSet::angara && !dry_run)
    throw GeneralRulesError(
        "generate: routing.rules is 'general': its routes need not be Angara-encodable, so no Angara table files "
        "can be written; use --dry-run (with --dump-routes to keep the routes) or routing.rules: angara");
  if (single_cable) {
    // Replaces the configuration's cabling: "YZK", or "none" for all double.
    try {
      config.torus = config.torus.with_single_cable(Torus::parse_dimension_letters(*single_cable));
    } catch (const std::invalid_argument& e) {
      return usage_error(std::string("generate: --single-cable ") + *single_cable + ": " + e.what());
    }
    for (const auto& [node, direction] : config.failed_links)
      if (!config.torus.cabled(node, direction))
        return usage_error("generate: --single-cable " + *single_cable + ": the configured failed link " +
                           config.torus.missing_cable_text(node, direction));
  }
  const std::string directory = output_dir.empty() ? config.table_dir : output_dir;
  std::string algorithm_source;
  if (!slurm_job.empty()) {
    // The job's live nodes and the routers Slurm reports failed, from slurmctld.
    std::cerr << kProgram << ": asking slurmctld for job " << slurm_job << "'s nodes and the node states ("
              << slurm::scontrol_program() << ", at most " << timeout << " s each)\n";
    JobRequest from_slurm = job_request_from_slurm(config, slurm_job, failed_states, timeout);
    request.job = from_slurm.job;
    request.node_names = std::move(from_slurm.node_names);
    request.down_nodes = std::move(from_slurm.down_nodes);
    // What the prologue installed: the algorithm the job chose (--angara-routing),
    // recorded in its table files, unless --algorithm asks for another.
    if (request.algorithm.empty()) {
      if (const auto installed = installed_routing(directory, request.job, request.node_names)) {
        request.algorithm = installed->algorithm;
        algorithm_source = "as installed for the job: " + installed->path;
      } else {
        algorithm_source = "no table of job " + request.job + " in " + directory + ": the configured default";
      }
    }
  }
  if (!nodes.empty()) request.node_names = expand_hostlist(nodes);
  request.down_nodes.insert(request.down_nodes.end(), extra_down.begin(), extra_down.end());
  request.write_cache = !dry_run;  // a dry run writes nothing, the cache included
  request.route_dump = !dump_path.empty();
  request.lp_bound = config.lp_bound_time > 0;
  if (time_budget) request.time_budget = *time_budget;
  // Where the results go is checked before anything is computed or written.
  if (!dump_path.empty()) {
    if (create_parents) {
      if (const std::string problem = ensure_directory(directory_of(dump_path), true); !problem.empty())
        throw TableFileError("cannot write " + dump_path + ": " + problem);
    }
    if (const std::string problem = check_output_file(dump_path); !problem.empty())
      throw TableFileError("cannot write " + dump_path + ": " + problem);
  }
  std::optional<JobResult> computed;
  try {
    computed.emplace(compute_job_routes(config, request));
  } catch (const RefusalError& e) {
    const int status = print_refusal(e.refusal(), verbose);
    if (!dry_run && !common.json) std::cerr << "Nothing was written.\n";
    return status;
  }
  const JobResult& result = *computed;

  if (!dump_path.empty()) {
    write_file_atomically(dump_path,
                          [&](std::ostream& out) { write_route_dump(out, result.network.torus(), result.table); });
  }
  ReportContext context;
  context.command = "generate";
  context.algorithm_source = algorithm_source;
  if (dry_run) {
    context.tables_note = "dry run: nothing written (table directory " + directory + ")";
  } else {
    // An --output directory holds this computation alone: every other table
    // leaves it with the same switch.  The configured directory is shared by
    // jobs: only this job's set is replaced there.
    TableSetOptions set_options;
    set_options.replace_directory = !output_dir.empty();
    set_options.create_parents = create_parents;
    write_job_tables(config, result, directory, {}, set_options);
    context.tables_note = "written to " + directory + " (" + std::to_string(result.table.size()) + " files)";
  }
  if (!dump_path.empty()) context.tables_note += "; route dump in " + dump_path;
  print_result(config, result, context, common.json);
  return kExitOk;
}

int cmd_verify(int argc, char** argv) {
  CommonOptions common;
  std::string tables, job_id;
  slurm::FailedStates failed_states = slurm::FailedStates::Down;
  int timeout = 30;
  static const option long_options[] = {{"config", required_argument, nullptr, 'c'},
                                        {"tables", required_argument, nullptr, 't'},
                                        {"job", required_argument, nullptr, 'k'},
                                        {"failed", required_argument, nullptr, 'f'},
                                        {"timeout", required_argument, nullptr, 'T'},
                                        {"json", no_argument, nullptr, 'j'},
                                        {"lp-time", required_argument, nullptr, 'L'},
                                        {"memory-limit", required_argument, nullptr, 'M'},
                                        {nullptr, 0, nullptr, 0}};
  std::optional<double> lp_time;
  std::optional<MemoryLimit> memory_limit;
  int opt;
  while ((opt = getopt_long(argc, argv, "c:t:j", long_options, nullptr)) != -1) {
    switch (opt) {
      case 'c':
        if (*optarg == '\0') return usage_error("verify: --config needs a file name");
        common.config_path = optarg;
        break;
      case 't': tables = optarg; break;
      case 'k': job_id = optarg; break;
      case 'f':
        try {
          failed_states = slurm::parse_failed_states(optarg);
        } catch (const std::invalid_argument& e) {
          return usage_error(std::string("verify: --failed ") + optarg + ": " + e.what());
        }
        break;
      case 'T':
        if (!parse_timeout(optarg, timeout))
          return usage_error(std::string("verify: --timeout ") + optarg + ": expected seconds from 1 to 3600");
        break;
      case 'j': common.json = true; break;
      case 'L':
        lp_time = parse_seconds(optarg);
        if (!lp_time) return usage_error(lp_time_error("verify", optarg));
        break;
      case 'M':
        memory_limit = parse_memory_limit(optarg);
        if (!memory_limit) return usage_error("verify: " + memory_limit_error(optarg));
        break;
      default: return usage_error("verify: unknown option");
    }
  }
  if (optind != argc) return usage_error(std::string("verify: unexpected argument '") + argv[optind] + "'");
  if (tables.empty() && job_id.empty()) return usage_error("verify: give --tables DIR, --job JOBID or both");
  Config config = load_config_announced(common.config_path);
  if (lp_time) config.lp_bound_time = *lp_time;
  if (memory_limit) config.memory_limit = *memory_limit;
  // A live table directory holds every running job's tables and the idle
  // nodes' default ones: --job picks one job's out of it.
  if (!job_id.empty())
    return verify_job_command(config, job_id, tables.empty() ? config.table_dir : tables, failed_states, timeout,
                              common.json);
  const JobResult result = verify_table_directory(config, tables);
  ReportContext context;
  context.command = "verify";
  context.tables_note = "read from " + tables;
  print_result(config, result, context, common.json);
  return result.report.ok() ? kExitOk : kExitRejected;
}

// Congestion of the ANSU paper's traffic patterns under installed tables or a
// route dump: for each pattern, the most flows that share one channel; with
// --svg, the picture of every channel's all-to-all load.
int cmd_analyze(int argc, char** argv) {
  CommonOptions common;
  std::string tables, dump;
  static const option long_options[] = {{"config", required_argument, nullptr, 'c'},
                                        {"tables", required_argument, nullptr, 't'},
                                        {"dump", required_argument, nullptr, 'D'},
                                        {"json", no_argument, nullptr, 'j'},
                                        {"rules", required_argument, nullptr, 'R'},
                                        {"flow-control", required_argument, nullptr, 'F'},
                                        {"memory-limit", required_argument, nullptr, 'M'},
                                        {"svg", required_argument, nullptr, 'S'},
                                        {nullptr, 0, nullptr, 0}};
  RulesOptions rules;
  std::optional<MemoryLimit> memory_limit;
  std::string svg_path;
  int opt;
  while ((opt = getopt_long(argc, argv, "c:t:D:j", long_options, nullptr)) != -1) {
    switch (opt) {
      case 'c':
        if (*optarg == '\0') return usage_error("analyze: --config needs a file name");
        common.config_path = optarg;
        break;
      case 't': tables = optarg; break;
      case 'D': dump = optarg; break;
      case 'j': common.json = true; break;
      case 'R':
      case 'F':
        if (const std::string error = rules.take("analyze", opt, optarg); !error.empty()) return usage_error(error);
        break;
      case 'M':
        memory_limit = parse_memory_limit(optarg);
        if (!memory_limit) return usage_error("analyze: " + memory_limit_error(optarg));
        break;
      case 'S':
        if (*optarg == '\0') return usage_error("analyze: --svg needs a file name");
        svg_path = optarg;
        break;
      default: return usage_error("analyze: unknown option");
    }
  }
  if (optind != argc) return usage_error(std::string("analyze: unexpected argument '") + argv[optind] + "'");
  if (tables.empty() == dump.empty()) return usage_error("analyze: give exactly one of --tables DIR or --dump FILE");
  Config config = load_config_announced(common.config_path);
  if (memory_limit) config.memory_limit = *memory_limit;
  config.lp_bound_time = 0;  // no LP bound here: the memory estimate leaves it out
  // The picture's file is checked before anything is read or computed.
  if (!svg_path.empty())
    if (const std::string problem = check_output_file(svg_path); !problem.empty())
      throw TableFileError("cannot write " + svg_path + ": " + problem);
  TableInput input = read_table_input(config, tables, dump);
  RouteTable& table = input.table;
  const std::string& source = input.source;
  // The rules the table is judged by: the command line's, else the dump
  // header's (table files: angara and the configuration's flow control).
  if (rules.rules) table.rules = *rules.rules;
  if (rules.flow_control) table.flow_control = *rules.flow_control;
  VerifyOptions verify_options;
  verify_options.max_virtual_channels = config.virtual_channels;
  verify_options.rules = table.rules;
  verify_options.flow_control = table.flow_control;
  verify_options.adaptive = config.adaptive;
  const VerifyReport report = verify(config.network(), table, verify_options);
  const std::string verdict = report.ok() ? "OK" : std::string("FAILED: ") + rule_name(report.violations.front().rule);

  const Torus& torus = config.torus;
  std::vector<Congestion> results;
  for (const TrafficPattern& pattern : standard_patterns(torus, table))
    results.push_back(measure_congestion(torus, table, pattern));
  // A table of a multi-path generator (mp-lash, a-lash): its function, and
  // each pattern's busiest channel with every flow split evenly over its
  // pair's allowed paths.
  std::optional<JobMultiPath> multipath;
  std::string multipath_note;  // why a multi-path generator's function could not be recomputed
  try {
    multipath = recompute_multipath(config, config.network(), table);
  } catch (const RoutingError& e) {
    multipath_note = e.what();
  }
  std::vector<double> split_max;
  if (multipath)
    for (const TrafficPattern& pattern : standard_patterns(torus, table)) {
      const std::vector<double> load = multipath_split_loads(config.network(), multipath->function, pattern.flows);
      split_max.push_back(load.empty() ? 0.0 : *std::max_element(load.begin(), load.end()));
    }
  const std::string multipath_verdict =
      !multipath ? "" : multipath->report.ok() ? "OK"
                                               : std::string("FAILED: ") + multipath->report.violations.front().message;
  if (!svg_path.empty()) {
    // The all-to-all's load: every ordered pair's route, the edge forwarding index.
    const Network network = config.network();
    PictureOptions picture;
    picture.title = "all-to-all load of " + source;
    picture.job_nodes = table.nodes();
    picture.node_names = config.node_names;
    mark_failures(picture, network);
    write_file_atomically(svg_path, load_svg(torus, channel_values(channel_loads(network, table)), picture));
  }
  if (common.json) {
    std::cout << "{\"source\":" << json_quote(source) << ",\"nodes\":" << table.size()
              << ",\"rules\":" << json_quote(std::string(rule_set_name(table.rules)))
              << ",\"flow_control\":" << json_quote(std::string(flow_control_name(table.flow_control)))
              << ",\"virtual_channels\":" << report.virtual_channels << ",\"ok\":" << (report.ok() ? "true" : "false")
              << ",\"verdict\":" << json_quote(verdict) << ",\"adaptive\":" << (config.adaptive ? "true" : "false")
              << ",\"safe_escape\":" << (report.adaptive_checked && report.ok() ? "true" : "false")
              << ",\"patterns\":[";
    for (std::size_t i = 0; i < results.size(); ++i)
      std::cout << (i ? "," : "") << "{\"name\":" << json_quote(results[i].pattern) << ",\"flows\":"
                << results[i].flows << ",\"max_flows_per_channel\":" << results[i].max_flows_per_channel
                << ",\"busiest_channel\":" << json_quote(results[i].busiest_channel) << "}";
    std::cout << "]";
    if (multipath) {
      const MultiPathTable& function = multipath->function;
      std::cout << ",\"multipath\":{\"adaptivity\":" << json_quote(adaptivity_name(function.adaptivity))
                << ",\"alternatives\":" << function.alternatives.size() << ",\"paths\":" << multipath->report.paths
                << ",\"adaptive_pairs\":" << multipath->report.adaptive_pairs
                << ",\"virtual_channels\":" << multipath->report.virtual_channels
                << ",\"dropped_paths\":" << function.dropped_paths
                << ",\"layers_for_all_paths\":" << function.layers_for_all_paths
                << ",\"ok\":" << (multipath->report.ok() ? "true" : "false")
                << ",\"verdict\":" << json_quote(multipath_verdict) << ",\"max_split_load\":[";
      for (std::size_t i = 0; i < split_max.size(); ++i) {
        char number[32];
        std::snprintf(number, sizeof number, "%.9g", split_max[i]);
        std::cout << (i ? "," : "") << "{\"name\":" << json_quote(results[i].pattern) << ",\"max_flows_per_channel\":"
                  << number << "}";
      }
      std::cout << "]}";
    }
    if (!multipath_note.empty()) std::cout << ",\"multipath_note\":" << json_quote(multipath_note);
    if (!svg_path.empty()) std::cout << ",\"svg\":" << json_quote(svg_path);
    std::cout << "}\n";
  } else {
    std::cout << "congestion of " << source << " (" << table.size() << " nodes, " << torus.to_string() << ")\n";
    std::cout << "  rules " << rule_set_name(table.rules) << ", flow control " << flow_control_name(table.flow_control)
              << ", virtual channels " << report.virtual_channels << "; verifier: " << verdict
              << (report.ok() && report.adaptive_checked
                      ? ", a safe escape for the adaptive channel (" + std::to_string(report.indirect_dependencies) +
                            " indirect dependencies)"
                      : std::string())
              << "\n";
    std::cout << "  pattern     flows  max flows/channel  busiest channel\n";
    for (const Congestion& c : results) {
      char line[160];
      std::snprintf(line, sizeof line, "  %-10s %6zu %18llu  %s\n", c.pattern.c_str(), c.flows,
                    static_cast<unsigned long long>(c.max_flows_per_channel), c.busiest_channel.c_str());
      std::cout << line;
    }
    if (multipath) {
      const MultiPathTable& function = multipath->function;
      std::cout << "  " << adaptivity_name(function.adaptivity) << " function: " << multipath->report.paths
                << " allowed paths in " << function.alternatives.size() << " alternatives, "
                << multipath->report.adaptive_pairs << " pairs with several, virtual channels "
                << multipath->report.virtual_channels << " (" << function.dropped_paths
                << " paths left out for want of virtual channels"
                << (function.dropped_paths == 0 || function.layers_for_all_paths == 0 ? std::string()
                    : function.layers_for_all_paths < 0
                        ? ", all would need more than " + std::to_string(-function.layers_for_all_paths)
                        : ", all would need " + std::to_string(function.layers_for_all_paths))
                << "); verifier: " << multipath_verdict << "\n";
      std::cout << "  pattern     max flows/channel, split evenly over the allowed paths\n";
      for (std::size_t i = 0; i < split_max.size(); ++i) {
        char line[96];
        std::snprintf(line, sizeof line, "  %-10s %9.2f\n", results[i].pattern.c_str(), split_max[i]);
        std::cout << line;
      }
    }
    if (!multipath_note.empty()) std::cout << "  no multi-path function: " << multipath_note << "\n";
    if (!svg_path.empty()) std::cout << "  picture of the alltoall load per channel written to " << svg_path << "\n";
  }
  return kExitOk;
}

struct Subcommand {
  const char* name;
  const char* synopsis;
  const char* summary;
  int (*run)(int argc, char** argv);
};

// angara-route shared-key --output FILE [--force]: a new key for shared=
// results (spank-angara(8)), readable by root alone.
int cmd_shared_key(int argc, char** argv) {
  std::string output;
  bool force = false;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--output" && i + 1 < argc)
      output = argv[++i];
    else if (word == "--force")
      force = true;
    else
      return usage_error("shared-key: unexpected argument '" + printable(word) + "'");
  }
  if (output.empty()) return usage_error("shared-key: --output FILE is required");
  const std::string text = angara::spank::new_shared_key_text();
  const std::string temporary = force ? directory_of(output) + "/." + base_name(output) + ".tmp" : output;
  FileDescriptor file(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!file)
    throw TableFileError("cannot create " + temporary + ": " + std::strerror(errno) +
                         (errno == EEXIST && !force ? " (--force replaces an existing key)" : ""));
  if (::fchmod(file.get(), 0600) != 0 || ::write(file.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()) ||
      ::fsync(file.get()) != 0 || file.close() != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    throw TableFileError("cannot write " + temporary + ": " + std::strerror(error));
  }
  if (force && ::rename(temporary.c_str(), output.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    throw TableFileError("cannot replace " + output + ": " + std::strerror(error));
  }
  std::cout << "shared key written to " << output << " (mode 0600): copy it to the same path on every node, "
            << "readable by root alone\n";
  return kExitOk;
}

// angara-route options [--man]: the generators' routing.options.
int cmd_options(int argc, char** argv) {
  bool man = false;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--man")
      man = true;
    else
      return usage_error(std::string("options: unexpected argument '") + argv[i] + "'");
  }
  std::cout << describe_generator_options(man ? OptionsFormat::troff : OptionsFormat::text);
  return kExitOk;
}

const Subcommand kSubcommands[] = {
    {"generate",
     "generate [--config F] [--nodes HOSTLIST] [--algorithm NAME] [--dry-run]\n"
     "                    [--dump-routes FILE] [--json] [--output DIR] [--down HOSTLIST]\n"
     "                    [--job-name NAME] [--cache DIR] [--seed N] [--single-cable DIMS] [--parents]\n"
     "                    [--rules angara|general] [--flow-control bubble|none] [--lp-time S] [--time-budget S]\n"
     "                    [--memory-limit SIZE|PERCENT%|none] [--verbose]\n"
     "         generate --job JOBID [--failed down|down,drained|none] [--timeout S] [...]",
     "Computes and verifies the routes of a set of nodes (default: the whole machine) or of a\n"
     "Slurm job (--job), prints the report and, unless --dry-run, writes the tables.",
     &cmd_generate},
    {"verify",
     "verify --tables DIR [--config F] [--json] [--lp-time S] [--memory-limit SIZE]\n"
     "         verify --job JOBID [--tables DIR] [--failed STATES] [--timeout S] [--config F] [--json]",
     "Re-reads one job's table files and verifies them as a whole: all of DIR, or the files\n"
     "of a running job's live nodes in its (shared) table directory.",
     &cmd_verify},
    {"show", "show --job JOBID [--config F] [--tables DIR] [--failed STATES] [--timeout S] [--json]",
     "Which routing a running job uses: algorithm, fingerprint, table files and verdict.", &show_command},
    {"check", "check [--config F] [--plugstack FILE] [--no-slurm] [--timeout S] [--json]",
     "Checks spank-angara's plugstack arguments, configuration, table directory and the Slurm\n"
     "settings it relies on; one line per finding, exit 3 when something is wrong.",
     &check_command},
    {"rebuild",
     "rebuild --job JOBID | --all-running [--idle] [--node HOSTLIST] [--config F]\n"
     "                    [--tables DIR] [--cache DIR] [--algorithm NAME] [--failed STATES]\n"
     "                    [--down HOSTLIST] [--timeout S] [--dry-run] [--json] [--log FILE]\n"
     "                    [--quiesced] [--step-wait S] [DOWN-HOSTLIST...]",
     "Rewrites the tables of running jobs (and idle nodes) around the routers Slurm reports failed;\n"
     "a running job's switch is checked deadlock-free (angara-route(8), LIVE SWITCHES).",
     &angara::cli::rebuild_command},
    {"install-defaults",
     "install-defaults [--config F] [--tables DIR] [--node HOSTLIST] [--down HOSTLIST]\n"
     "                    [--algorithm NAME] [--dry-run]",
     "Writes the default (whole-machine, job \"default\") tables of the nodes (default: every\n"
     "node of the machine), verified, as an epilogue writes its node's: before the first job.",
     &angara::cli::install_defaults_command},
    {"analyze",
     "analyze --tables DIR | --dump FILE [--config F] [--json] [--memory-limit SIZE]\n"
     "                    [--rules angara|general] [--flow-control bubble|none] [--svg FILE]",
     "Congestion of the transpose, neighbor, tornado and alltoall patterns under a routing;\n"
     "--svg draws the torus with every channel coloured by its all-to-all load.",
     &cmd_analyze},
    {"simulate",
     "simulate --tables DIR | --dump FILE | [--nodes HOSTLIST] [--algorithm NAME]\n"
     "                    [--config F] [--pattern LIST] [--size BYTES] [--samples N] [--seed N]\n"
     "                    [--no-baseline] [--beside DIR|FILE]... [--svg FILE]\n"
     "                    [--platform FILE.xml [--hostfile FILE]] [--json]",
     "Time and bandwidth of traffic patterns on a routing (SimGrid flow model), beside plain DOR;\n"
     "--svg draws each channel's utilisation, --platform writes the job as an SMPI platform.",
     &angara::cli::simulate_command},
    {"select",
     "select --count N | --shape AxBx.. [--config F] [--free HOSTLIST] [--busy HOSTLIST]...\n"
     "                    [--down HOSTLIST] [--slurm [--failed STATES]] [--node-states FILE\n"
     "                    [--max-age S]] [--foreign-ok] [--algorithm NAME] [--candidates K]\n"
     "                    [--cache DIR] [--json]",
     "Chooses a compact, routable node set for a job that shares few channels with running jobs.",
     &angara::cli::select_command},
    {"slurm-conf",
     "slurm-conf [--config F] [--from SLURM.CONF | --node-params PARAMS] [--topology FILE]\n"
     "                    [--leaf-size N]",
     "Prints slurm.conf node lines along the torus's nested blocks and writes topology.conf.",
     &angara::cli::slurm_conf_command},
    {"shared-key", "shared-key --output FILE [--force]",
     "Writes a new random key for shared= results (mode 0600); the same file goes to every node\n"
     "(plugstack shared_key=, spank-angara(8)).",
     &cmd_shared_key},
    {"options", "options [--man]",
     "The routing.options of every generator (angara.yaml(5)): values, defaults and meaning;\n"
     "--man prints the list as angara.yaml(5) has it.",
     &cmd_options},
    {"node-states", "node-states --output FILE [--failed STATES] [--timeout S] [HOSTLIST...]",
     "Writes slurmctld's failed and unavailable nodes, with the time, for select --node-states\n"
     "(job_submit.lua reads jobs itself but cannot ask slurmctld for node states).",
     &angara::cli::node_states_command},
};

bool asks_for_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") break;
    if (word == "--help" || word == "-h") return true;
  }
  return false;
}

bool asks_for_json(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") break;
    if (word == "--json") return true;
  }
  return false;
}

void print_command_help(const Subcommand& sub) {
  std::cout << "Usage: " << kProgram << " " << sub.synopsis << "\n\n" << sub.summary << "\n";
  if (std::string_view(sub.name) == "generate")
    std::cout << "\nrouting.options of the generators (angara.yaml(5)):\n"
              << describe_generator_options(OptionsFormat::text);
  std::cout << "Exit status and every option: angara-route(8).\n";
}

void print_help() {
  std::cout << "Usage: " << kProgram << " COMMAND [OPTIONS]\n\n"
            << "Computes, verifies and installs the routing tables of an Angara torus.\n\nCommands:\n";
  for (const Subcommand& sub : kSubcommands) std::cout << "  " << sub.synopsis << "\n";
  std::cout << "\nAlgorithms:\n";
  for (const GeneratorInfo& info : generators())
    std::cout << "  " << info.name << (info.name == default_generator_name() ? " (default)" : "") << ": "
              << info.summary << "\n";
  std::cout << "A comma-separated list (--algorithm balanced,genetic) is a fallback chain: the first\n"
            << "generator whose table passes the verifier wins.  Default: " << default_algorithm_chain() << ".\n";
  std::cout << "\nWithout --config the tool reads $ANGARA_CONFIG, then " << SYSCONFDIR
            << "/angara/angara.yaml,\nand falls back to the built-in Desmos machine (4x2x2x2, one cable in Y, Z\nand K, desmos[00-31]).\n"
            << "Exit status: 0 ok, 1 table rejected by the verifier, 2 usage error,\n"
            << "3 bad configuration or input, 4 no valid routing exists, 5 table file I/O error,\n"
            << "6 slurmctld could not be queried, 7 table files asked for under routing.rules: general,\n"
            << "8 a running job's routes cannot be switched live safely (quiesce it; see LIVE SWITCHES),\n"
            << "9 over the memory limit (refused before computing) or out of memory,\n"
            << "10 a rebuild's record reached neither its log file nor syslog.\n"
            << "See angara-route(8), angara.yaml(5), angara-tables(5).\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage_error("missing command");
  const std::string command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    print_help();
    return kExitOk;
  }
  if (command == "--version" || command == "-V") {
    std::cout << kProgram << " " << PACKAGE_VERSION << "\n";
    return kExitOk;
  }
  for (const Subcommand& sub : kSubcommands) {
    if (command != sub.name) continue;
    if (asks_for_help(argc - 1, argv + 1)) {
      print_command_help(sub);
      return kExitOk;
    }
    set_json_errors(asks_for_json(argc - 1, argv + 1));
    try {
      return sub.run(argc - 1, argv + 1);
    } catch (...) {
      const std::exception_ptr error = std::current_exception();
      const int status = exit_status_of(error);
      print_error(message_of(error), status);
      if (status == kExitRejected || status == kExitNoRoute || status == kExitGeneralRules)
        std::cerr << "Nothing was written.\n";
      return status;
    }
  }
  return usage_error("unknown command '" + command + "'");
}
