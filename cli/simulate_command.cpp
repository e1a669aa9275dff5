// angara-route simulate: traffic patterns on a job's routing table in the
// flow simulator (simulation/), beside plain DOR and the physical limit.
#include <getopt.h>
#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "angara/file_io.hpp"
#include "angara/hostlist.hpp"
#include "angara/printable.hpp"
#include "angara/table_file.hpp"
#include "cli/cli_support.hpp"
#include "cli/commands.hpp"
#include "cli/exit_status.hpp"
#include "cli/table_input.hpp"
#include "routing/check/load_picture.hpp"
#include "routing/check/patterns.hpp"
#include "routing/pipeline.hpp"
#include "routing/report.hpp"
#include "simulation/platform_export.hpp"
#include "simulation/simulate.hpp"

namespace angara::cli {

namespace {

using simulation::PatternResult;
using simulation::SimulationReport;
using simulation::SimulationRequest;

constexpr const char* kCommand = "simulate";

// "1048576", "64K", "1M", "1G" (binary), "1kB", "1MB", "1GB" (decimal):
// bytes from 1 to 1 TiB; nullopt for anything else.
std::optional<double> parse_message_size(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 13) return std::nullopt;
  const double number = std::strtod(text.substr(0, digits).c_str(), nullptr);
  const std::string unit = text.substr(digits);
  double scale = 0;
  if (unit.empty()) scale = 1;
  else if (unit == "K") scale = 1024.0;
  else if (unit == "M") scale = 1024.0 * 1024;
  else if (unit == "G") scale = 1024.0 * 1024 * 1024;
  else if (unit == "kB") scale = 1e3;
  else if (unit == "MB") scale = 1e6;
  else if (unit == "GB") scale = 1e9;
  else return std::nullopt;
  const double bytes = number * scale;
  if (bytes < 1 || bytes > 1024.0 * 1024 * 1024 * 1024) return std::nullopt;
  return bytes;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

// "80.0 ms", "1.52 s", "950 us"
std::string format_seconds(double seconds) {
  char text[32];
  if (seconds >= 1) std::snprintf(text, sizeof text, "%.3f s", seconds);
  else if (seconds >= 1e-3) std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
  else std::snprintf(text, sizeof text, "%.3f us", seconds * 1e6);
  return text;
}

std::string format_rate(double bytes_per_second) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f GB/s", bytes_per_second / 1e9);
  return text;
}

const PatternResult* find_result(const std::vector<PatternResult>& results, const std::string& pattern) {
  for (const PatternResult& result : results)
    if (result.pattern == pattern) return &result;
  return nullptr;
}

// A flow-level estimate (the adaptive channel's, a multi-path function's
// split) as a JSON array, one object a pattern.
void print_json_estimates(const std::vector<simulation::AdaptiveResult>& estimates) {
  std::cout << "[";
  for (std::size_t i = 0; i < estimates.size(); ++i) {
    const simulation::AdaptiveResult& a = estimates[i];
    char numbers[160];
    std::snprintf(numbers, sizeof numbers, "\"seconds\":%.9g,\"throughput\":%.9g,\"max_load\":%.9g", a.seconds,
                  a.throughput, a.max_load);
    std::cout << (i ? "," : "") << "{\"pattern\":" << json_quote(a.pattern) << "," << numbers << "}";
  }
  std::cout << "]";
}

// The rows of a flow-level estimate (the adaptive channel's, a multi-path
// function's split) against the simulated table's times.
void print_estimates(const std::vector<PatternResult>& table, const std::vector<simulation::AdaptiveResult>& estimates) {
  std::cout << "  pattern                  time  throughput  busiest channel   vs table\n";
  for (const simulation::AdaptiveResult& a : estimates) {
    const PatternResult* deterministic = find_result(table, a.pattern);
    char versus[16] = "-";
    if (deterministic && a.seconds > 0) std::snprintf(versus, sizeof versus, "%.2fx", deterministic->seconds / a.seconds);
    char line[200];
    std::snprintf(line, sizeof line, "  %-18s %10s %11s  %9.2f flows  %9s\n", a.pattern.c_str(),
                  format_seconds(a.seconds).c_str(), format_rate(a.throughput).c_str(), a.max_load, versus);
    std::cout << line;
  }
}

void print_json_result(std::ostream& out, const PatternResult& r) {
  char numbers[512];
  std::snprintf(numbers, sizeof numbers,
                "\"phases\":%zu,\"flows\":%zu,\"seconds\":%.9g,\"throughput\":%.9g,\"min_flow_bandwidth\":%.9g,"
                "\"mean_flow_bandwidth\":%.9g,\"max_flow_bandwidth\":%.9g,\"fluid_seconds\":%.9g,"
                "\"fluid_error\":%.6g,\"validated\":%s,\"limit_seconds\":%.9g,\"max_load\":%llu",
                r.phases, r.flows, r.seconds, r.throughput, r.min_bandwidth, r.mean_bandwidth, r.max_bandwidth,
                r.fluid_seconds, r.fluid_error, r.validated ? "true" : "false", r.limit_seconds,
                static_cast<unsigned long long>(r.max_load));
  out << "{\"pattern\":" << json_quote(r.pattern) << ",\"table\":" << json_quote(r.table) << "," << numbers << "}";
}

void print_json(const std::string& source, const RouteTable& table, const SimulationRequest& request,
                const SimulationReport& report) {
  std::cout << "{\"source\":" << json_quote(source) << ",\"nodes\":" << table.size()
            << ",\"algorithm\":" << json_quote(table.algorithm);
  char model[256];
  std::snprintf(model, sizeof model,
                ",\"message_bytes\":%.9g,\"link_bandwidth\":%.9g,\"node_latency\":%.9g,\"hop_latency\":%.9g",
                request.bytes, request.model.bandwidth, request.model.node_latency, request.model.hop_latency);
  std::cout << model << ",\"beside\":" << request.beside.size() << ",\"results\":[";
  for (std::size_t i = 0; i < report.table.size(); ++i) {
    if (i) std::cout << ",";
    print_json_result(std::cout, report.table[i]);
  }
  std::cout << "],\"baseline\":[";
  for (std::size_t i = 0; i < report.baseline.size(); ++i) {
    if (i) std::cout << ",";
    print_json_result(std::cout, report.baseline[i]);
  }
  std::cout << "]";
  if (request.adaptive) {
    std::cout << ",\"adaptive\":";
    print_json_estimates(report.adaptive);
  }
  if (request.multipath) {
    std::cout << ",\"multipath\":{\"adaptivity\":" << json_quote(adaptivity_name(request.multipath->adaptivity))
              << ",\"alternatives\":" << request.multipath->alternatives.size()
              << ",\"virtual_channels\":" << request.multipath->virtual_channels() << ",\"split\":";
    print_json_estimates(report.split);
    std::cout << "}";
  }
  if (!report.baseline_note.empty()) std::cout << ",\"baseline_note\":" << json_quote(report.baseline_note);
  if (const PatternResult* bisection = find_result(report.table, "bisection")) {
    char ebb[64];
    std::snprintf(ebb, sizeof ebb, "%.9g", simulation::effective_bisection_bandwidth(*bisection));
    std::cout << ",\"effective_bisection_bandwidth\":" << ebb;
  }
  std::cout << "}\n";
}

void print_text(const std::string& source, const RouteTable& table, const SimulationRequest& request,
                const SimulationReport& report) {
  std::cout << "simulation of " << source << " (" << table.size() << " nodes, "
            << (table.algorithm.empty() ? std::string("table") : table.algorithm) << "): messages of "
            << static_cast<unsigned long long>(request.bytes) << " bytes, links " << format_rate(request.model.bandwidth)
            << ", latency " << request.model.node_latency * 1e9 << " ns + " << request.model.hop_latency * 1e9
            << " ns a further hop\n";
  if (!request.beside.empty())
    std::cout << "  beside " << request.beside.size() << " other job(s) running the same patterns at the same time\n";
  std::cout << "  pattern            phases       time  throughput   flow GB/s min/mean/max   fluid check      "
               "vs dor  vs limit\n";
  for (const PatternResult& r : report.table) {
    const PatternResult* dor = find_result(report.baseline, r.pattern);
    char line[320];
    char versus_dor[16] = "-";
    if (dor && r.seconds > 0) std::snprintf(versus_dor, sizeof versus_dor, "%.2fx", dor->seconds / r.seconds);
    char versus_limit[16] = "-";
    if (r.limit_seconds > 0) std::snprintf(versus_limit, sizeof versus_limit, "%.2fx", r.seconds / r.limit_seconds);
    std::snprintf(line, sizeof line, "  %-18s %6zu %10s %11s  %6.2f/%6.2f/%6.2f  %s %+6.2f%%  %7s  %8s\n",
                  r.pattern.c_str(), r.phases, format_seconds(r.seconds).c_str(), format_rate(r.throughput).c_str(),
                  r.min_bandwidth / 1e9, r.mean_bandwidth / 1e9, r.max_bandwidth / 1e9,
                  r.validated ? "ok     " : "MISSED ", r.fluid_error * 100, versus_dor, versus_limit);
    std::cout << line;
  }
  if (const PatternResult* bisection = find_result(report.table, "bisection")) {
    const double ebb = simulation::effective_bisection_bandwidth(*bisection);
    std::cout << "  effective bisection bandwidth " << format_rate(ebb) << " a flow ("
              << static_cast<int>(std::lround(100 * ebb / request.model.bandwidth)) << "% of a link)";
    if (const PatternResult* dor = find_result(report.baseline, "bisection"))
      std::cout << "; plain DOR " << format_rate(simulation::effective_bisection_bandwidth(*dor));
    std::cout << "\n";
  }
  if (!report.baseline_note.empty()) std::cout << "  no DOR baseline: " << report.baseline_note << "\n";
  if (request.adaptive) {
    // routing.adaptive on: the flow-level estimate of the adaptive channel.
    std::cout << "  adaptive channel (estimate: flows split evenly over minimal hops, the table as escape)\n";
    print_estimates(report.table, report.adaptive);
  }
  if (request.multipath) {
    // A multi-path function (mp-lash, a-lash): the flow-level estimate of its even split.
    std::cout << "  " << adaptivity_name(request.multipath->adaptivity) << " function of "
              << request.multipath->alternatives.size() << " alternatives on " << request.multipath->virtual_channels()
              << " virtual channels (estimate: every flow split evenly over its pair's allowed paths)\n";
    print_estimates(report.table, report.split);
  }
  std::cout << "  vs dor: plain DOR's time over this table's (above 1: this table is faster); vs limit: time over "
               "the physical limit\n";
}

}  // namespace

int simulate_command(int argc, char** argv) {
  std::string config_path, tables, dump, nodes, algorithm, platform, hostfile, svg_path;
  bool json = false;
  SimulationRequest request;
  std::string patterns_text;
  std::vector<std::string> beside_paths;
  static const option long_options[] = {{"config", required_argument, nullptr, 'c'},
                                        {"tables", required_argument, nullptr, 't'},
                                        {"dump", required_argument, nullptr, 'D'},
                                        {"nodes", required_argument, nullptr, 'n'},
                                        {"algorithm", required_argument, nullptr, 'a'},
                                        {"pattern", required_argument, nullptr, 'p'},
                                        {"size", required_argument, nullptr, 's'},
                                        {"samples", required_argument, nullptr, 'N'},
                                        {"seed", required_argument, nullptr, 'S'},
                                        {"no-baseline", no_argument, nullptr, 'B'},
                                        {"platform", required_argument, nullptr, 'P'},
                                        {"hostfile", required_argument, nullptr, 'H'},
                                        {"svg", required_argument, nullptr, 'V'},
                                        {"beside", required_argument, nullptr, 'W'},
                                        {"json", no_argument, nullptr, 'j'},
                                        {nullptr, 0, nullptr, 0}};
  int opt;
  optind = 1;
  while ((opt = getopt_long(argc, argv, "c:t:D:n:a:p:j", long_options, nullptr)) != -1) {
    switch (opt) {
      case 'c':
        if (*optarg == '\0') return usage_error(kCommand, "--config needs a file name");
        config_path = optarg;
        break;
      case 't': tables = optarg; break;
      case 'D': dump = optarg; break;
      case 'n': nodes = optarg; break;
      case 'a': algorithm = optarg; break;
      case 'p': patterns_text = optarg; break;
      case 's': {
        const std::optional<double> bytes = parse_message_size(optarg);
        if (!bytes) return usage_error(kCommand, std::string("--size: '") + optarg + "' is not a message size (bytes, or with K, M, G, kB, MB, GB; 1 byte to 1 TiB)");
        request.bytes = *bytes;
        break;
      }
      case 'N': {
        char* end = nullptr;
        errno = 0;
        const unsigned long samples = std::strtoul(optarg, &end, 10);
        if (errno || end == optarg || *end || samples < 1 || samples > 100000)
          return usage_error(kCommand, std::string("--samples: '") + optarg + "' is not a number from 1 to 100000");
        request.pattern_options.samples = samples;
        break;
      }
      case 'S': {
        char* end = nullptr;
        errno = 0;
        const unsigned long long seed = std::strtoull(optarg, &end, 10);
        if (errno || end == optarg || *end) return usage_error(kCommand, std::string("--seed: '") + optarg + "' is not a number");
        request.pattern_options.seed = seed;
        break;
      }
      case 'B': request.baseline = false; break;
      case 'P':
        if (*optarg == '\0') return usage_error(kCommand, "--platform needs a file name");
        platform = optarg;
        break;
      case 'H':
        if (*optarg == '\0') return usage_error(kCommand, "--hostfile needs a file name");
        hostfile = optarg;
        break;
      case 'V':
        if (*optarg == '\0') return usage_error(kCommand, "--svg needs a file name");
        svg_path = optarg;
        break;
      case 'W':
        if (*optarg == '\0') return usage_error(kCommand, "--beside needs a table directory or a route dump");
        beside_paths.push_back(optarg);
        break;
      case 'j': json = true; break;
      default: return usage_error(kCommand, "unknown option");
    }
  }
  if (optind != argc) return usage_error(kCommand, std::string("unexpected argument '") + argv[optind] + "'");
  if (!tables.empty() && !dump.empty()) return usage_error(kCommand, "give at most one of --tables DIR and --dump FILE");
  if ((!tables.empty() || !dump.empty()) && (!nodes.empty() || !algorithm.empty()))
    return usage_error(kCommand, "--nodes and --algorithm compute a table: not with --tables or --dump");
  if (!hostfile.empty() && platform.empty()) return usage_error(kCommand, "--hostfile goes with --platform");
  set_json_errors(json);

  // Output files are checked before anything is read or computed.
  for (const std::string* path : {&svg_path, &platform, &hostfile})
    if (!path->empty())
      if (const std::string problem = check_output_file(*path); !problem.empty())
        throw TableFileError("cannot write " + *path + ": " + problem);
  const Config config = load_config_announced(config_path);
  request.model = simulation::link_model_of(config);
  request.adaptive = config.adaptive;
  RouteTable table;
  Network network = config.network();
  std::string source;
  if (!tables.empty() || !dump.empty()) {
    TableInput input = read_table_input(config, tables, dump);
    table = std::move(input.table);
    source = input.source;
  } else {
    JobRequest job;
    job.algorithm = algorithm;
    if (!nodes.empty()) job.node_names = expand_hostlist(nodes);
    JobResult result = compute_job_routes(config, job);
    if (!result.report.ok()) throw VerificationError(result.report);
    table = std::move(result.table);
    network = std::move(result.network);
    source = nodes.empty() ? "the whole machine" : nodes;
  }

  // A table of a multi-path generator: its function, for the split.
  std::optional<JobMultiPath> multipath;
  try {
    multipath = recompute_multipath(config, network, table);
  } catch (const RoutingError& e) {
    std::cerr << "angara-route: simulate: no multi-path function: " << e.what() << "\n";
  }
  if (multipath) {
    if (!multipath->report.ok())
      throw RoutingError(table.algorithm + ": the multi-path function fails verification: " +
                         multipath->report.violations.front().message);
    request.multipath = &multipath->function;
  }

  // A job mix: other jobs' tables (a directory) or dumps (a file).
  std::vector<RouteTable> beside;
  beside.reserve(beside_paths.size());
  for (const std::string& path : beside_paths) {
    struct stat info {};
    const bool directory = ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
    beside.push_back(read_table_input(config, directory ? path : "", directory ? "" : path).table);
    request.beside.push_back(&beside.back());
  }
  if (patterns_text.empty())
    request.patterns = {table.size() <= 256 ? "alltoall" : "alltoall-pairwise", "bisection"};
  else
    request.patterns = split_list(patterns_text);
  if (request.patterns.empty()) return usage_error(kCommand, "--pattern needs at least one pattern name");
  for (const std::string& name : request.patterns)
    if (!is_simulation_pattern(name)) {
      std::string known;
      for (const PatternInfo& info : simulation_patterns()) known += std::string(known.empty() ? "" : ", ") + info.name;
      return usage_error(kCommand, "unknown pattern '" + name + "' (expected one of " + known + ")");
    }

  // The SMPI platform is written before the simulation, so that an MPI
  // program can run over the job's routes even when the patterns are
  // expensive; both files are complete or absent (atomic writes).
  if (!platform.empty()) {
    simulation::write_platform(config, network, table, request.model, platform);
    if (!hostfile.empty()) simulation::write_hostfile(config, table, hostfile);
  }
  request.channel_bytes = !svg_path.empty();
  const SimulationReport report = simulation::run_simulation(network, table, request);
  if (!svg_path.empty()) {
    // The first pattern's utilisation of every channel: the bytes it carried
    // over the time the pattern took at link bandwidth.
    const PatternResult& first = report.table.front();
    std::vector<double> utilisation(first.channel_bytes.size(), 0.0);
    for (std::size_t c = 0; c < utilisation.size(); ++c)
      if (first.seconds > 0) utilisation[c] = 100 * first.channel_bytes[c] / (first.seconds * request.model.bandwidth);
    PictureOptions picture;
    picture.title = first.pattern + " on " + source + " (" + first.table + "): channel utilisation";
    picture.value_name = "utilisation";
    picture.unit = "%";
    picture.scale_max = 100;
    picture.job_nodes = table.nodes();
    picture.node_names = config.node_names;
    mark_failures(picture, network);
    write_file_atomically(svg_path, load_svg(network.torus(), utilisation, picture));
  }
  if (json) print_json(source, table, request, report);
  else print_text(source, table, request, report);
  return kExitOk;
}

}  // namespace angara::cli
