#include "cli/commands.hpp"

#include <getopt.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <optional>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "angara/config.hpp"
#include "angara/hostlist.hpp"
#include "angara/table_file.hpp"
#include "angara/trusted_path.hpp"
#include "cli/exit_status.hpp"
#include "slurm/job_nodes.hpp"
#include "cli/cli_support.hpp"
#include "slurm/slurm_query.hpp"
#include "routing/chain.hpp"
#include "routing/pipeline.hpp"
#include "placement/block_choice.hpp"
#include "placement/blocks.hpp"
#include "routing/check/load_picture.hpp"
#include "placement/placement.hpp"
#include "routing/report.hpp"

namespace angara::cli {

namespace {

const char* const kSelectUsage =
    "Usage: angara-route select -N|--nodes|--count N | --shape AxBx.. [--config F] [--free HOSTLIST]\n"
    "         [--busy HOSTLIST]... [--down HOSTLIST] [--slurm [--failed STATES] [--timeout S]]\n"
    "         [--node-states FILE [--max-age S]] [--foreign-ok]\n"
    "         [--algorithm NAME] [--candidates K] [--cache DIR] [--json] [--map FILE.svg] [--quiet]\n";
const char* const kNodeStatesUsage =
    "Usage: angara-route node-states --output FILE [--failed STATES] [--timeout S] [HOSTLIST...]\n";
const char* const kNodeStatesMagic = "# angara-route node-states v1";

// The node-states file: what Slurm 22.05's job_submit/lua cannot learn from
// inside slurmctld (it sees the jobs, slurm.jobs, but not the nodes, and a
// query to slurmctld from there waits on the lock the script runs under).
struct NodeStatesFile {
  long long time = 0;                    // when slurmctld was asked (seconds since the epoch)
  std::vector<std::string> down;         // routers that count as failed
  std::vector<std::string> unavailable;  // alive, but no job may get them (drained, reserved, ...)
};

NodeStatesFile read_node_states(const std::string& path) {
  // Written by root's cron (node-states), read under slurmctld: only root,
  // or the user running this, may be able to change what it says.
  check_trusted_path(path, PathKind::file, TrustedOwners::with());
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read the node states " + path);
  NodeStatesFile file;
  bool have_time = false;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto bad = [&](const std::string& what) {
      return std::invalid_argument(path + ":" + std::to_string(number) + ": " + what);
    };
    if (number == 1) {
      if (line != kNodeStatesMagic) throw bad(std::string("expected '") + kNodeStatesMagic + "'");
      continue;
    }
    const std::size_t eq = line.find('=');
    const std::string key = line.substr(0, eq), value = eq == std::string::npos ? "" : line.substr(eq + 1);
    if (eq == std::string::npos || (key != "time" && key != "down" && key != "unavailable"))
      throw bad("expected time=SECONDS, down=HOSTLIST or unavailable=HOSTLIST, got '" + line + "'");
    if (key == "time") {
      char* end = nullptr;
      file.time = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || file.time <= 0) throw bad("time: expected seconds since the epoch, got '" + value + "'");
      have_time = true;
    } else {
      try {
        for (std::string& name : expand_hostlist(value)) (key == "down" ? file.down : file.unavailable).push_back(std::move(name));
      } catch (const std::invalid_argument& e) {
        throw bad(key + ": " + e.what());
      }
    }
  }
  if (!have_time) throw std::invalid_argument(path + ": no time= line (written by angara-route node-states)");
  return file;
}

int select_usage_error(const std::string& message) {
  std::cerr << "angara-route: select: " << message << "\n" << kSelectUsage;
  return kExitUsage;
}

// A positive integer option, or 0 when `text` is not one (at most `limit`).
long positive(const char* text, long limit) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || value < 1 || value > limit) return 0;
  return value;
}

std::string coord_text(const Torus& torus, const Coord& c) { return torus.format_coord(c); }

std::string hostlist_of(const Config& config, const std::vector<NodeId>& nodes) {
  std::vector<std::string> names;
  names.reserve(nodes.size());
  for (NodeId node : nodes) names.push_back(config.node_name(node));
  return compress_hostlist(names);
}

// Why the set won, in the objective's order (placement/block_choice.hpp),
// for the administrator at a terminal (standard error: scripts read the
// hostlist alone from standard output).
std::string explain_choice(const Config& config, const Network& network, const PlacementResult& result,
                           const std::optional<FreeBlock>& largest_left) {
  const Torus& torus = config.torus;
  const Candidate& w = result.compared[result.winner];
  std::ostringstream out;
  char hops[32];
  std::snprintf(hops, sizeof hops, "%.2f", w.average_hops);
  out << "select: " << hostlist_of(config, result.nodes) << ": " << candidate_kind_name(w.kind) << " "
      << format_shape(torus, w.shape);
  if (w.kind == CandidateKind::block) out << " at " << torus.format_coord(w.origin);
  out << " of the " << torus.to_string() << " machine\n";
  if (w.foreign_routers == 0 && w.confined && w.closed_form)
    out << "  isolation: isolated, routing.confine: the prologue routes it on its own " << result.nodes.size()
        << " routers alone (a block or a staircase; not routed here)\n";
  else if (w.foreign_routers == 0 && w.confined)
    out << "  isolation: isolated, routed on its own " << result.nodes.size() << " routers alone (routing.confine)\n";
  else if (w.foreign_routers == 0)
    out << "  isolation: isolated, every route stays on its own " << result.nodes.size() << " routers\n";
  else if (w.closed_form)
    out << "  isolation: its minimal routes may cross up to " << w.foreign_routers
        << " routers it does not own (no free isolated block of this size; not routed)\n";
  else
    out << "  isolation: its routes cross " << w.foreign_routers
        << " routers it does not own (no free set of this size keeps them inside)\n";
  out << "  shared with running jobs: " << (w.closed_form && w.foreign_routers ? "up to " : "") << w.shared_channels
      << " channels\n";
  out << "  left for later jobs: ";
  if (largest_left)
    out << "largest free block " << format_shape(torus, largest_left->shape) << " (" << largest_left->nodes.size()
        << " nodes)";
  else
    out << "no free block";
  out << "; leans on " << w.contact << " taken or failed routers\n";
  if (w.closed_form)
    out << "  own max load: lower bound " << w.lower_bound << " routes on a channel, mean distance " << hops
        << " hops (scored in closed form, not routed: the job's prologue computes its table)\n";
  else
    out << "  own max load: " << w.max_gamma << " routes on a channel (lower bound " << w.lower_bound
        << "), mean route " << hops << " hops\n";
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.0f", result.seconds * 1000);
  out << "  compared " << result.compared.size() << (result.routed ? " routed" : " closed-form") << " sets of "
      << result.considered << " scored in " << ms
      << " ms" << (network.failed_nodes().empty() && network.failed_links().empty() ? "" : ", around the failures")
      << "\n";
  return out.str();
}

std::string format_json(const Config& config, const PlacementResult& result, const std::string& algorithm,
                        const std::optional<FreeBlock>& largest_left) {
  const Torus& torus = config.torus;
  const Candidate& winner = result.compared[result.winner];
  std::ostringstream out;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.6f", result.seconds);
  out << "{\"nodes\":" << json_quote(hostlist_of(config, result.nodes)) << ",\"count\":" << result.nodes.size()
      << ",\"machine\":" << json_quote(torus.to_string()) << ",\"algorithm\":" << json_quote(algorithm)
      << ",\"kind\":" << json_quote(candidate_kind_name(winner.kind))
      << ",\"shape\":" << json_quote(format_shape(torus, winner.shape)) << ",\"max_gamma\":" << winner.max_gamma
      << ",\"lower_bound\":" << winner.lower_bound << ",\"shared_channels\":" << winner.shared_channels
      << ",\"isolated\":" << (winner.foreign_routers == 0 ? "true" : "false")
      << ",\"confined\":" << (winner.confined ? "true" : "false")
      << ",\"largest_free_block_left\":" << (largest_left ? largest_left->nodes.size() : 0)
      << ",\"considered\":" << result.considered << ",\"seconds\":" << seconds << ",\"winner\":" << result.winner
      << ",\"candidates\":[";
  for (std::size_t i = 0; i < result.compared.size(); ++i) {
    const Candidate& c = result.compared[i];
    char distance[32], hops[32];
    std::snprintf(distance, sizeof distance, "%.4f", c.average_distance);
    std::snprintf(hops, sizeof hops, "%.4f", c.average_hops);
    out << (i ? "," : "") << "{\"kind\":" << json_quote(candidate_kind_name(c.kind))
        << ",\"shape\":" << json_quote(format_shape(torus, c.shape))
        << ",\"origin\":" << json_quote(coord_text(torus, c.origin))
        << ",\"nodes\":" << json_quote(hostlist_of(config, c.nodes)) << ",\"lower_bound\":" << c.lower_bound
        << ",\"average_distance\":" << distance << ",\"busy_ports\":" << c.busy_ports
        << ",\"contact\":" << c.contact << ",\"routable\":" << (c.routable ? "true" : "false");
    if (c.routable) {
      out << ",\"max_gamma\":" << c.max_gamma << ",\"shared_channels\":" << c.shared_channels
          << ",\"foreign_routers\":" << c.foreign_routers << ",\"confined\":" << (c.confined ? "true" : "false")
          << ",\"average_hops\":" << hops
          << ",\"routed\":" << json_quote(c.closed_form ? "closed form" : c.estimate ? "scoring" : "as configured");
      if (c.estimated_gamma) out << ",\"scoring_max_gamma\":" << c.estimated_gamma;
    } else
      out << ",\"failure\":" << json_quote(c.failure);
    out << "}";
  }
  out << "]}\n";
  return out.str();
}

}  // namespace

int select_command(int argc, char** argv) {
  std::string config_path, algorithm, cache_dir, shape_text;
  std::vector<std::string> free_names, down_names;
  std::vector<std::vector<std::string>> busy_jobs;
  bool have_free = false, from_slurm = false, json = false, foreign_ok = false, quiet = false;
  std::string map_path;
  long count = 0, candidates = 4, timeout = 30, max_age = 300;
  std::string node_states_path;
  slurm::FailedStates failed_states = slurm::FailedStates::Down;
  static const option long_options[] = {
      {"count", required_argument, nullptr, 'n'},     {"nodes", required_argument, nullptr, 'n'},
      {"shape", required_argument, nullptr, 's'},     {"map", required_argument, nullptr, 'M'},
      {"quiet", no_argument, nullptr, 'q'},
      {"config", required_argument, nullptr, 'c'},    {"free", required_argument, nullptr, 'F'},
      {"busy", required_argument, nullptr, 'b'},      {"down", required_argument, nullptr, 'x'},
      {"slurm", no_argument, nullptr, 'S'},           {"failed", required_argument, nullptr, 'f'},
      {"timeout", required_argument, nullptr, 'T'},   {"algorithm", required_argument, nullptr, 'a'},
      {"candidates", required_argument, nullptr, 'k'}, {"cache", required_argument, nullptr, 'C'},
      {"json", no_argument, nullptr, 'j'},            {"help", no_argument, nullptr, 'h'},
      {"node-states", required_argument, nullptr, 'E'}, {"max-age", required_argument, nullptr, 'A'},
      {"foreign-ok", no_argument, nullptr, 'o'},      {nullptr, 0, nullptr, 0}};
  optind = 1;
  int opt;
  while ((opt = getopt_long(argc, argv, "n:N:s:c:a:jqh", long_options, nullptr)) != -1) {
    switch (opt) {
      case 'n':
      case 'N':
        if (!(count = positive(optarg, 1L << 20)))
          return select_usage_error(std::string("--count (-N, --nodes) expects a positive number of nodes, got '") +
                                    optarg + "'");
        break;
      case 'M': map_path = optarg; break;
      case 'q': quiet = true; break;
      case 's': shape_text = optarg; break;
      case 'c': config_path = optarg; break;
      case 'F':
        have_free = true;
        for (std::string& name : expand_hostlist(optarg)) free_names.push_back(std::move(name));
        break;
      case 'b': busy_jobs.push_back(expand_hostlist(optarg)); break;
      case 'x':
        for (std::string& name : expand_hostlist(optarg)) down_names.push_back(std::move(name));
        break;
      case 'S': from_slurm = true; break;
      case 'f':
        try {
          failed_states = slurm::parse_failed_states(optarg);
        } catch (const std::invalid_argument& e) {
          return select_usage_error(std::string("--failed ") + optarg + ": " + e.what());
        }
        break;
      case 'T':
        if (!(timeout = positive(optarg, 3600)))
          return select_usage_error(std::string("--timeout expects seconds from 1 to 3600, got '") + optarg + "'");
        break;
      case 'a': algorithm = optarg; break;
      case 'k':
        if (!(candidates = positive(optarg, 64)))
          return select_usage_error(std::string("--candidates expects 1 to 64, got '") + optarg + "'");
        break;
      case 'C': cache_dir = optarg; break;
      case 'j': json = true; break;
      case 'E': node_states_path = optarg; break;
      case 'A':
        if (!(max_age = positive(optarg, 86400)))
          return select_usage_error(std::string("--max-age expects seconds from 1 to 86400, got '") + optarg + "'");
        break;
      case 'o': foreign_ok = true; break;
      case 'h': std::cout << kSelectUsage; return kExitOk;
      default: std::cerr << kSelectUsage; return kExitUsage;
    }
  }
  if (optind != argc) return select_usage_error(std::string("unexpected argument '") + argv[optind] + "'");
  if (count == 0 && shape_text.empty()) return select_usage_error("give --count N or --shape AxB..");
  if (from_slurm && (have_free || !busy_jobs.empty()))
    return select_usage_error("--slurm reads the free nodes and running jobs itself; drop --free and --busy");
  if (from_slurm && !node_states_path.empty())
    return select_usage_error("--slurm asks slurmctld for the node states; drop --node-states");

  const Config config = find_config(config_path);
  PlacementRequest request;
  request.node_count = static_cast<std::size_t>(count);
  if (!shape_text.empty()) request.shape = parse_shape(config.torus, shape_text);
  // Candidates are compared under the first generator of the configured
  // chain ("balanced,nue" -> balanced): the one that routes jobs whenever it can.
  request.algorithm = parse_algorithm_chain(!algorithm.empty()          ? algorithm
                                            : !config.algorithm.empty() ? config.algorithm
                                                                        : default_algorithm_chain())
                          .front();
  request.generator_options = generator_options_of(config);
  request.verify_options = verify_options_of(config);
  request.route_limit = static_cast<std::size_t>(candidates);
  request.confine = config.confine;

  if (from_slurm) {
    const std::vector<slurm::NodeState> states = slurm::query_node_states(static_cast<int>(timeout));
    for (const slurm::NodeState& node : states)
      if (slurm::node_is_free(node)) free_names.push_back(node.name);
    free_names = slurm::machine_nodes_among(config, free_names);
    have_free = true;
    for (const std::string& name :
         slurm::machine_nodes_among(config, slurm::failed_node_names(states, failed_states)))
      down_names.push_back(name);
    for (const slurm::JobInfo& job : slurm::query_active_jobs(static_cast<int>(timeout)))
      busy_jobs.push_back(slurm::machine_nodes_among(config, job.nodes));
  }

  std::vector<std::string> unavailable;
  if (!node_states_path.empty()) {
    const NodeStatesFile states = read_node_states(node_states_path);
    const long long age = static_cast<long long>(std::time(nullptr)) - states.time;
    if (age > max_age)
      throw slurm::SlurmQueryError("the node states in " + node_states_path + " are " + std::to_string(age) +
                                   " s old (limit " + std::to_string(max_age) +
                                   " s); refresh them with angara-route node-states");
    for (const std::string& name : slurm::machine_nodes_among(config, states.down)) down_names.push_back(name);
    unavailable = slurm::machine_nodes_among(config, states.unavailable);
  }
  // Jobs of other partitions run on nodes that are not the torus's.
  if (foreign_ok) {
    down_names = slurm::machine_nodes_among(config, down_names);
    for (std::vector<std::string>& job : busy_jobs) job = slurm::machine_nodes_among(config, job);
  }

  Network network = config.network();
  for (NodeId node : config.nodes_by_names(down_names)) network.fail_node(node);
  request.free.assign(config.torus.node_count(), have_free ? 0 : 1);
  for (NodeId node : config.nodes_by_names(free_names)) request.free[node] = 1;
  for (NodeId node : config.nodes_by_names(unavailable)) request.free[node] = 0;
  // Running jobs: their nodes are taken, and their routes (the generator is
  // deterministic, so these are the tables they run on) load channels.  On
  // machines where candidates are scored in closed form, a running job's
  // channels are those of its route region (exact for an isolated block, a
  // superset otherwise): routing a 2048-node job would take a minute.
  const bool closed_forms = scores_in_closed_form(config.torus);
  for (const std::vector<std::string>& job : busy_jobs) {
    if (job.empty()) continue;
    const std::vector<NodeId> job_nodes = config.nodes_by_names(job);
    for (NodeId node : job_nodes) request.free[node] = 0;
    if (closed_forms) {
      add_region_channels(network, job_nodes, request.busy);
      continue;
    }
    JobRequest busy;
    busy.job = "running";
    busy.node_names = job;
    busy.down_nodes = down_names;
    busy.cache_dir = cache_dir;
    try {
      add_busy_channels(network, compute_job_routes(config, busy).table, request.busy);
    } catch (const std::exception& e) {
      std::cerr << "angara-route: select: routes of running job on " << compress_hostlist(job)
                << " not counted: " << e.what() << "\n";
    }
  }

  const PlacementResult result = select_nodes(network, request);
  // What the pick leaves, for the explanation and the JSON only: a script
  // asking with --quiet (job_submit.lua) does not wait for it.
  std::optional<FreeBlock> largest_left;
  if (json || !quiet) {
    std::vector<unsigned char> left = request.free;
    for (NodeId node : result.nodes) left[node] = 0;
    largest_left = largest_free_block(network, left);
  }
  if (json)
    std::cout << format_json(config, result, request.algorithm, largest_left);
  else
    std::cout << hostlist_of(config, result.nodes) << "\n";
  if (!quiet) std::cerr << explain_choice(config, network, result, largest_left);
  if (!map_path.empty()) {
    PictureOptions picture;
    picture.title = "angara-route select: " + hostlist_of(config, result.nodes) + " on " + config.torus.to_string();
    picture.job_nodes = result.nodes;
    for (const std::vector<std::string>& job : busy_jobs) {
      if (job.empty()) continue;
      picture.other_jobs.push_back(config.nodes_by_names(job));
      picture.other_job_names.push_back("running " + compress_hostlist(job));
    }
    mark_failures(picture, network);
    picture.node_names = config.node_names;
    std::vector<std::uint64_t> loads = request.busy;
    add_busy_channels(network, result.table, loads);
    write_file_atomically(map_path, load_svg(config.torus, channel_values(loads), picture));
  }
  return kExitOk;
}

int node_states_command(int argc, char** argv) {
  std::string output;
  long timeout = 30;
  slurm::FailedStates failed_states = slurm::FailedStates::Down;
  static const option long_options[] = {{"output", required_argument, nullptr, 'o'},
                                        {"failed", required_argument, nullptr, 'f'},
                                        {"timeout", required_argument, nullptr, 'T'},
                                        {"help", no_argument, nullptr, 'h'},
                                        {nullptr, 0, nullptr, 0}};
  const auto usage_error = [](const std::string& message) {
    std::cerr << "angara-route: node-states: " << message << "\n" << kNodeStatesUsage;
    return kExitUsage;
  };
  optind = 1;
  int opt;
  while ((opt = getopt_long(argc, argv, "o:h", long_options, nullptr)) != -1) {
    switch (opt) {
      case 'o': output = optarg; break;
      case 'f':
        try {
          failed_states = slurm::parse_failed_states(optarg);
        } catch (const std::invalid_argument& e) {
          return usage_error(std::string("--failed ") + optarg + ": " + e.what());
        }
        break;
      case 'T':
        if (!(timeout = positive(optarg, 3600)))
          return usage_error(std::string("--timeout expects seconds from 1 to 3600, got '") + optarg + "'");
        break;
      case 'h': std::cout << kNodeStatesUsage; return kExitOk;
      default: std::cerr << kNodeStatesUsage; return kExitUsage;
    }
  }
  // strigger appends the nodes of its event; the states are slurmctld's
  // anyway, so the names are only checked to be hostlists.
  for (int i = optind; i < argc; ++i) {
    try {
      expand_hostlist(argv[i]);
    } catch (const std::exception&) {
      return usage_error(std::string("unexpected argument '") + argv[i] + "' (not a hostlist)");
    }
  }
  if (output.empty()) return usage_error("give --output FILE");
  const long long now = static_cast<long long>(std::time(nullptr));
  const std::vector<slurm::NodeState> states = slurm::query_node_states(static_cast<int>(timeout));
  std::vector<std::string> unavailable;
  for (const slurm::NodeState& node : states)
    if (!slurm::counts_as_failed(node, failed_states) && !slurm::takes_jobs(node)) unavailable.push_back(node.name);
  std::ostringstream text;
  text << kNodeStatesMagic << "\ntime=" << now << "\ndown="
       << compress_hostlist(slurm::failed_node_names(states, failed_states))
       << "\nunavailable=" << compress_hostlist(unavailable) << "\n";
  write_file_atomically(output, text.str());
  return kExitOk;
}

}  // namespace angara::cli
