#include "routing/pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include "angara/file_io.hpp"
#include "angara/route_dump.hpp"
#include "angara/table_set.hpp"
#include "routing/chain.hpp"
#include "routing/refusal.hpp"
#include "routing/common/parallel.hpp"
#include "routing/common/shortest_paths.hpp"
#include "config.h"

namespace angara {

namespace {

std::string describe_violations(const VerifyReport& report) {
  std::string out = "routing table rejected by the verifier (" +
                    std::to_string(report.violation_count) + " violation(s))";
  for (const Violation& v : report.violations) out += std::string("; ") + rule_name(v.rule) + ": " + v.message;
  return out;
}

NodeId resolve_node(const Config& config, const std::string& name, const char* what) {
  const auto node = config.node_by_name(name);
  if (!node)
    throw std::invalid_argument(std::string(what) + " '" + name + "' is not a node of the " +
                                config.torus.to_string() + " machine described by " + config.source);
  return *node;
}

std::optional<RouteTable> load_cached(const std::string& path, const Torus& torus) {
  const FileContents file = read_regular_file(path, kMaxRouteDumpBytes);
  if (!file.error.empty()) return std::nullopt;
  std::istringstream in(file.text);
  try {
    return read_route_dump(in, torus, path);
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged cache entry is recomputed, never trusted
  }
}

}  // namespace

VerificationError::VerificationError(const VerifyReport& report)
    : std::runtime_error(describe_violations(report)), report_(report) {}

GeneratorOptions generator_options_of(const Config& config) {
  GeneratorOptions options;
  options.seed = config.seed;
  options.virtual_channels = config.virtual_channels;
  options.rules = config.rules;
  options.flow_control = config.flow_control;
  options.extra = config.algorithm_options;
  return options;
}

VerifyOptions verify_options_of(const Config& config) {
  VerifyOptions options;
  options.max_virtual_channels = config.virtual_channels;
  options.rules = config.rules;
  options.flow_control = config.flow_control;
  options.adaptive = config.adaptive;
  return options;
}

double effective_time_budget(const Config& config, const JobRequest& request) {
  return request.time_budget >= 0 ? request.time_budget : config.time_budget;
}

PreparedJob prepare_job(const Config& config, const JobRequest& request) {
  Network network = config.network();
  for (const std::string& name : request.down_nodes)
    network.fail_node(resolve_node(config, name, "down node"));

  std::vector<NodeId> allocation;
  if (request.node_names.empty()) {
    for (NodeId node = 0; node < network.torus().node_count(); ++node)
      if (network.node_alive(node)) allocation.push_back(node);
  } else {
    for (const std::string& name : request.node_names) {
      const NodeId node = resolve_node(config, name, "allocated node");
      if (!network.node_alive(node))
        throw std::invalid_argument("allocated node '" + name + "' (" + network.torus().format_coord(node) +
                                    ") is marked failed or down; its router cannot take part in routing");
      allocation.push_back(node);
    }
  }
  if (allocation.empty())
    throw std::invalid_argument("every node of the " + network.torus().to_string() +
                                " machine is marked failed or down: there is nothing to route");
  std::sort(allocation.begin(), allocation.end());
  allocation.erase(std::unique(allocation.begin(), allocation.end()), allocation.end());

  // One generator or a fallback chain ("balanced,nue"); none configured: the
  // default chain.
  AlgorithmChain chain = AlgorithmChain::parse(
      !request.algorithm.empty() ? request.algorithm
                                 : !config.algorithm.empty() ? config.algorithm : default_algorithm_chain());

  check_generator_options(config.algorithm_options);
  GeneratorOptions options = generator_options_of(config);

  // Everything the table depends on goes into the fingerprint.
  std::ostringstream key;
  // (The cabling joins the key only when some dimension is single-cabled:
  // description() of a double-cabled torus is its sizes alone, so tables
  // installed for double-cabled machines by versions without single
  // cabling keep their fingerprints.)
  key << PACKAGE_VERSION << '|' << network.torus().description() << '|' << network.fault_signature() << '|'
      << chain.text() << '|' << options.seed << '|' << options.virtual_channels << '|' << rule_set_name(options.rules)
      << '|' << flow_control_name(options.flow_control) << '|';
  // The budget decides where the refinement stops: part of what the table is.
  if (const double seconds = effective_time_budget(config, request); seconds > 0)
    key << "budget=" << WorkBudget::for_seconds(seconds).limit() << '|';
  for (const auto& [name, value] : options.extra) key << name << '=' << value << ';';
  key << '|';
  // The escape check can send the chain on to a later member (only when on,
  // so that fingerprints made without it stay valid).
  if (config.adaptive) key << "adaptive|";
  if (config.confine) key << "confine|";
  for (NodeId node : allocation) key << node << ',';

  const std::string fingerprint = fnv1a_hex(key.str());
  return PreparedJob{std::move(network), std::move(allocation), std::move(chain), std::move(options), fingerprint};
}

MemoryEstimate check_job_memory(const Config& config, const JobRequest& request, const PreparedJob& prepared,
                                const std::string& generator) {
  MemoryWork work;
  work.route_dump = request.route_dump || !request.cache_dir.empty();
  work.lp_bound = request.lp_bound;
  work.threads = worker_count();
  work.adaptive_escape = config.adaptive;
  work.extra_tables = request.extra_tables;
  // The budget decides which stages run, and so what they hold.
  GeneratorOptions options = prepared.options;
  options.budget = std::make_shared<WorkBudget>(
      WorkBudget::for_job(effective_time_budget(config, request), prepared.allocation.size()));
  MemoryEstimate estimate = estimate_job_memory(prepared.network, prepared.allocation.size(),
                                                generator.empty() ? prepared.chain.first() : generator, options, work);
  check_memory_limit(estimate, config.memory_limit, config.source);
  return estimate;
}

bool routes_stay_on_own_routers(const Torus& torus, const RouteTable& table) {
  const std::vector<NodeId>& nodes = table.nodes();
  std::vector<unsigned char> own(torus.node_count(), 0);
  for (NodeId node : nodes) own[node] = 1;
  bool inside = true;
  for (std::size_t src = 0; src < nodes.size() && inside; ++src)
    for (std::size_t dst = 0; dst < nodes.size() && inside; ++dst) {
      if (src == dst || !table.has_route(src, dst)) continue;
      NodeId at = nodes[src];
      table.for_each_run(src, dst, [&](Direction d, int count) {
        for (int hop = 0; hop < count && inside; ++hop) {
          at = torus.neighbor(at, d);
          inside = own[at] != 0;
        }
      });
    }
  return inside;
}

JobResult compute_job_routes(const Config& config, const JobRequest& request) {
  PreparedJob prepared = prepare_job(config, request);
  // Refused here, before the first table or generator state is allocated.
  MemoryEstimate memory = check_job_memory(config, request, prepared);
  const Network& network = prepared.network;
  const std::vector<NodeId>& allocation = prepared.allocation;
  const AlgorithmChain& chain = prepared.chain;
  const GeneratorOptions& options = prepared.options;
  // This computation's budget of optional work, shared by the chain.
  GeneratorOptions member_options = options;
  // (Unlimited, it still counts the work, for the report.)
  member_options.budget =
      std::make_shared<WorkBudget>(WorkBudget::for_job(effective_time_budget(config, request), allocation.size()));
  // The table comes from the cache or the chain: an empty one here, not a
  // second N^2 array that would double the peak memory.
  JobResult result{network,          RouteTable(), {}, request.job, chain.first(), prepared.fingerprint, 0, false,
                   {},               {},           {}, {}};

  const std::string cache_path =
      request.cache_dir.empty() ? std::string() : request.cache_dir + "/" + result.fingerprint + ".routes";
  std::optional<RouteTable> cached;
  if (!cache_path.empty()) cached = load_cached(cache_path, network.torus());
  const VerifyOptions verify_options = verify_options_of(config);
  result.chain = chain.text();
  result.memory = std::move(memory);
  // The fingerprint covers the algorithms and their options; the entry must
  // also say it was computed by a member of the chain asked for (a copied or
  // renamed file is recomputed, never relabelled).
  if (cached && cached->nodes() == allocation && cached->rules == options.rules &&
      cached->flow_control == options.flow_control &&
      chain.contains(cached->algorithm)) {
    result.table = std::move(*cached);
    result.from_cache = true;
    // The member that computed the cached table, as its dump recorded it.
    result.algorithm = result.table.algorithm;
    result.table.algorithm = result.algorithm;
    result.table.rules = options.rules;
    result.table.flow_control = options.flow_control;
    result.report = verify(network, result.table, verify_options);
  } else {
    // Each fallback member is estimated again before it runs.
    const auto start = std::chrono::steady_clock::now();
    ChainOutcome outcome;
    bool have_outcome = false;     // routing.confine: a table on the allocation's own routers
    double confine_seconds = 0;    // the attempt that found none
    if (config.confine && allocation.size() > 1) {
      // The allocation's routers alone: any table found there is also one
      // of the live network, verified on it below.
      const Network own = confined_to(network, allocation);
      if (own.failed_nodes().size() > network.failed_nodes().size()) {
        // Its own budget: a set that has no table there must not leave the
        // live network's computation less refinement than without the option.
        GeneratorOptions own_options = member_options;
        own_options.budget = std::make_shared<WorkBudget>(
            WorkBudget::for_job(effective_time_budget(config, request), allocation.size()));
        // A set its own cables do not connect (a scattered one) is not
        // tried.  The first member only: a fallback member (nue) would
        // spend the prologue's time on a set the live network routes anyway.
        if (!connected(own, allocation)) {
          result.confine_note = "the allocation's own cables do not connect it";
        } else {
          try {
            outcome = run_algorithm_chain({chain.first()}, own, allocation, own_options, verify_options);
            have_outcome = true;
            member_options.budget = own_options.budget;
          } catch (const RoutingError&) {
            result.confine_note = "no table on the allocation's own routers alone";
          }
        }
        if (!have_outcome)
          confine_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
    }
    try {
      if (!have_outcome)
        outcome = run_algorithm_chain(chain.members, network, allocation, member_options, verify_options,
                                      [&](const std::string& member) {
                                        result.memory = check_job_memory(config, request, prepared, member);
                                      });
    } catch (const ChainRoutingError& e) {
      throw RefusalError(describe_refusal(config, network, allocation.size(), chain.text(), e.members()));
    } catch (const RoutingError& e) {
      // One generator: its refusal in the administrator's words when it
      // names pairs; any other (an option it does not support) as it is.
      if (e.unrouted().empty()) throw;
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::vector<PassedOver> members{PassedOver{chain.first(), without_generator_name(chain.first(), e.what()),
                                                 seconds, without_generator_name(chain.first(), e.headline()),
                                                 e.unrouted()}};
      throw RefusalError(describe_refusal(config, network, allocation.size(), chain.text(), std::move(members)));
    }
    result.table = std::move(outcome.table);
    // Verified on the live network (a table of the own routers alone was
    // checked against those only).
    result.report = have_outcome ? verify(network, result.table, verify_options) : std::move(outcome.report);
    result.algorithm = outcome.algorithm;
    result.passed_over = std::move(outcome.passed_over);
    result.seconds = confine_seconds + outcome.seconds;
    result.confined = have_outcome;
    if (member_options.budget) {
      result.budget_cut = member_options.budget->cut();
      result.budget_steps = member_options.budget->used();
      result.budget_limit_steps = member_options.budget->limit();
    }
  }
  if (!result.report.ok()) throw VerificationError(result.report);
  if (config.confine) {
    // Known when the table was computed on the own routers; an allocation
    // of every live router cannot leave it; else (a cached table, one of
    // the live network) its routes are walked.
    const std::size_t live = network.torus().node_count() - network.failed_nodes().size();
    if (!result.confined)
      result.confined = allocation.size() == live || routes_stay_on_own_routers(network.torus(), result.table);
    if (result.confined)
      result.confine_note.clear();
    else if (result.confine_note.empty())
      result.confine_note = "routes cross routers outside the allocation";
  }

  if (!cache_path.empty() && !result.from_cache && request.write_cache) {
    // The parent is the admin's; one level is created.
    if (const std::string problem = ensure_directory(request.cache_dir, false); !problem.empty())
      throw TableFileError("cannot write the cache entry " + cache_path + ": " + problem);
    write_file_atomically(cache_path, [&](std::ostream& out) { write_route_dump(out, network.torus(), result.table); });
  }
  return result;
}

void write_job_tables(const Config& config, const JobResult& result, const std::string& directory,
                      const std::vector<std::string>& only, const TableSetOptions& set_options) {
  const RouteTable& table = result.table;
  // Angara router tables hold [FS] DOR+dirbit [LS] headers only (shared
  // model, "Rule sets of the general backends"): checked before any file.
  if (table.rules != RuleSet::angara)
    throw GeneralRulesError("routing.rules is '" + std::string(rule_set_name(table.rules)) +
                            "': its routes need not be Angara-encodable, so no Angara table files are written "
                            "(use --dry-run, --dump-routes or analyze, or set routing.rules: angara)");
  std::vector<std::size_t> sources;
  if (only.empty()) {
    for (std::size_t i = 0; i < table.size(); ++i) sources.push_back(i);
  } else {
    for (const std::string& name : only) {
      const std::size_t index = table.index_of(resolve_node(config, name, "node"));
      if (index == RouteTable::npos)
        throw std::invalid_argument("node '" + name + "' is not part of the job's allocation");
      sources.push_back(index);
    }
  }
  // Every name is checked, and the first table formatted, before anything is
  // written; the others are formatted one at a time as they are written
  // (a whole machine's files together would not fit in memory).
  const auto node_table_of = [&](std::size_t index) {
    NodeTable node_table = node_table_from(table, index, result.network.torus());
    node_table.node_name = config.node_name(table.nodes()[index]);
    node_table.algorithm = result.algorithm;
    node_table.chain = recorded_chain(result.chain);
    node_table.job = result.job;
    node_table.fingerprint = result.fingerprint;
    return node_table;
  };
  std::vector<std::string> names;
  names.reserve(sources.size());
  for (std::size_t index : sources) {
    NodeTable probe;
    probe.torus = result.network.torus();
    probe.node = table.nodes()[index];
    probe.node_name = config.node_name(probe.node);
    names.push_back(table_file_name(probe));
  }
  if (sources.empty()) return;
  std::string first = format_node_table(node_table_of(sources.front()));
  const bool one_node_alone = sources.size() == 1 && !set_options.keep_others && set_options.remove.empty() &&
                              !set_options.replace_directory;
  if (one_node_alone) {
    publish_table_file(directory, TableFileData{names.front(), std::move(first)}, set_options);
    return;
  }
  publish_table_set(
      directory, result.job, names,
      [&](std::size_t i) { return i == 0 ? std::move(first) : format_node_table(node_table_of(sources[i])); },
      set_options);
}

void check_table_read_memory(const Config& config, const TableFilesSize& size) {
  MemoryWork work;
  work.lp_bound = config.lp_bound_time > 0;
  work.threads = worker_count();
  work.adaptive_escape = config.adaptive;
  check_memory_limit(estimate_table_read_memory(config.network(), size.files, size.bytes, work), config.memory_limit,
                     config.source);
}

JobResult verify_table_directory(const Config& config, const std::string& directory) {
  // Refused before anything is read when it would not fit (limits.memory): a
  // whole large machine's files are far larger than its route table.
  check_table_read_memory(config, measure_table_files(directory));
  const std::vector<NodeTable> files = read_table_directory(directory);
  if (files.empty()) throw TableFileError("no table files (*.rt) in " + directory);
  return verify_node_tables(config, files, directory);
}

JobResult verify_node_tables(const Config& config, const std::vector<NodeTable>& files, const std::string& directory) {
  if (files.empty()) throw TableFileError("no table files (*.rt) in " + directory);
  const NodeTable& first = files.front();
  for (const NodeTable& file : files)
    if (file.torus != config.torus)
      throw TableFileError(directory + "/" + table_file_name(file) + ": the table is for a " + file.torus.description() +
                           " machine, the configuration (" + config.source + ") describes " +
                           config.torus.description());
  std::vector<NodeId> nodes;
  for (const NodeTable& file : files) nodes.push_back(file.node);
  JobResult result{config.network(), RouteTable(nodes), {}, first.job, first.algorithm, first.fingerprint, 0, false,
                   {},               {},                {}, {}};
  RouteTable& table = result.table;
  if (table.size() != files.size())
    throw TableFileError(directory + ": two table files are for the same router");
  for (const NodeTable& file : files) {
    const std::string where = directory + "/" + table_file_name(file);
    if (file.job != first.job || file.fingerprint != first.fingerprint || file.algorithm != first.algorithm)
      throw TableFileError(where + ": belongs to job " + file.job + " (" + file.algorithm + ", " + file.fingerprint +
                           "), not to job " + first.job + " like " + table_file_name(first));
    if (file.entries.size() + 1 != files.size())
      throw TableFileError(where + ": has " + std::to_string(file.entries.size()) + " destinations, expected " +
                           std::to_string(files.size() - 1) + " (one per other table file)");
    const std::size_t src = table.index_of(file.node);
    for (const TableEntry& entry : file.entries) {
      const std::size_t dst = table.index_of(entry.destination);
      if (dst == RouteTable::npos || dst == src)
        throw TableFileError(where + ": route to " + result.network.torus().format_coord(entry.destination) +
                             ", which has no table file of its own");
      table.set_route(src, dst, entry.route);
    }
  }
  table.algorithm = first.algorithm;
  result.chain = first.chain.empty() ? first.algorithm : first.chain;
  // Table files only ever hold Angara-encodable routes (write_job_tables).
  table.flow_control = config.flow_control;
  VerifyOptions options;
  options.max_virtual_channels = config.virtual_channels;
  options.flow_control = config.flow_control;
  options.adaptive = config.adaptive;
  result.report = verify(result.network, table, options);
  return result;
}

}  // namespace angara

namespace angara {

std::optional<JobMultiPath> recompute_multipath(const Config& config, const Network& network,
                                                const RouteTable& table) {
  const std::unique_ptr<Generator> generator = make_generator(table.algorithm);
  if (!generator) return std::nullopt;
  GeneratorOptions options = generator_options_of(config);
  options.rules = table.rules;
  options.flow_control = table.flow_control;
  std::optional<MultiPathTable> function = generator->generate_multipath(network, table.nodes(), options);
  if (!function) return std::nullopt;
  const RouteTable& installed = function->alternatives.front();
  for (std::size_t s = 0; s < table.size(); ++s)
    for (std::size_t d = 0; d < table.size(); ++d)
      if (s != d && !(installed.route(s, d) == table.route(s, d)))
        throw RoutingError(table.algorithm + ": the table is not the first alternative of the multi-path function " +
                           "this configuration gives (" + network.torus().format_coord(table.nodes()[s]) + " -> " +
                           network.torus().format_coord(table.nodes()[d]) + " differs): made under other options?");
  VerifyOptions verify_options = verify_options_of(config);
  verify_options.rules = table.rules;
  verify_options.flow_control = table.flow_control;
  JobMultiPath result{std::move(*function), {}};
  result.report = verify_multipath(network, result.function, verify_options);
  return result;
}

}  // namespace angara
