#include "spank/job_tables.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>

#include <sys/stat.h>
#include <unistd.h>

#include "angara/hostlist.hpp"
#include "angara/printable.hpp"
#include "angara/table_file.hpp"
#include "angara/table_set.hpp"
#include "slurm/job_nodes.hpp"
#include "spank/shared_tables.hpp"
#include "routing/chain.hpp"
#include "routing/generator.hpp"
#include "routing/pipeline.hpp"
#include "routing/report.hpp"

#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif

namespace angara::spank {

namespace {

const char* const kValidKeys =
    "config=FILE, algorithm=NAME, allow=NAME[,NAME...], tables=DIR, cache=DIR, shared=DIR, shared_key=FILE, "
    "owner=USER, dryrun, on_failure=drain|cancel, failed=down|down,drained|none, epilog=default|keep, "
    "timeout=SECONDS, shared_wait=SECONDS";

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

bool parse_switch(const std::string& key, const std::string& value) {
  if (value.empty() || value == "yes" || value == "true" || value == "1") return true;
  if (value == "no" || value == "false" || value == "0") return false;
  throw std::invalid_argument("plugstack argument '" + key + "=" + value + "': expected yes or no");
}

std::string table_dir_of(const Config& config, const std::string& override_dir) {
  return override_dir.empty() ? config.table_dir : override_dir;
}

// Writes `node`'s table unless in dry run; says what happened for the log.
std::string write_own_table(const PluginSettings& settings, const Config& config, const JobResult& result,
                            const std::string& node) {
  if (settings.dry_run) return node + " dry run, nothing written";
  const std::string directory = table_dir_of(config, settings.table_dir);
  write_job_tables(config, result, directory, {node});
  return node + " written to " + directory;
}

}  // namespace

PluginSettings parse_plugin_arguments(const std::vector<std::string>& arguments) {
  PluginSettings settings;
  for (const std::string& word : arguments) {
    const std::size_t eq = word.find('=');
    const std::string key = word.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : word.substr(eq + 1);
    const auto need_value = [&] {
      if (value.empty()) throw std::invalid_argument("plugstack argument '" + key + "' needs a value: " + key + "=...");
    };
    if (key == "config") {
      need_value();
      settings.config_path = value;
    } else if (key == "algorithm") {
      need_value();
      // One generator or a fallback chain ("balanced,nue", routing/chain.hpp).
      try {
        settings.algorithm = format_algorithm_chain(parse_algorithm_chain(value));
      } catch (const std::invalid_argument& e) {
        if (value.find(',') == std::string::npos)
          throw std::invalid_argument("plugstack argument algorithm=" + value + ": unknown algorithm (valid: " +
                                      generator_names() + ")");
        throw std::invalid_argument("plugstack argument algorithm=" + value + ": " + e.what());
      }
    } else if (key == "allow") {
      need_value();
      for (const std::string& name : split_commas(value)) {
        if (!make_generator(name))
          throw std::invalid_argument("plugstack argument allow=" + value + ": unknown algorithm '" + name +
                                      "' (valid: " + generator_names() + ")");
        settings.allowed.push_back(name);
      }
    } else if (key == "tables") {
      need_value();
      settings.table_dir = value;
    } else if (key == "cache") {
      need_value();
      settings.cache_dir = value;
    } else if (key == "shared") {
      need_value();
      settings.shared_dir = value;
    } else if (key == "shared_key") {
      need_value();
      settings.shared_key = value;
    } else if (key == "owner") {
      need_value();
      TrustedOwners::with(value);  // an unknown user is an error at load
      settings.owner = value;
    } else if (key == "dryrun" || key == "dry_run" || key == "dry-run") {
      settings.dry_run = parse_switch(key, value);
    } else if (key == "on_failure") {
      if (value == "drain")
        settings.on_failure = FailurePolicy::Drain;
      else if (value == "cancel")
        settings.on_failure = FailurePolicy::Cancel;
      else
        throw std::invalid_argument("plugstack argument on_failure=" + value + ": expected drain or cancel");
    } else if (key == "failed") {
      try {
        settings.failed_states = slurm::parse_failed_states(value);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("plugstack argument failed=" + value + ": " + e.what());
      }
    } else if (key == "epilog") {
      if (value == "default")
        settings.restore_default = true;
      else if (value == "keep")
        settings.restore_default = false;
      else
        throw std::invalid_argument("plugstack argument epilog=" + value + ": expected default or keep");
    } else if (key == "timeout" || key == "shared_wait") {
      // A shared wait of 0 takes the lock only if it is free at once.
      const long lowest = key == "timeout" ? 1 : 0;
      char* end = nullptr;
      errno = 0;
      const long seconds = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || errno != 0 || seconds < lowest || seconds > 3600)
        throw std::invalid_argument("plugstack argument " + key + "=" + value + ": expected seconds from " +
                                    std::to_string(lowest) + " to 3600");
      (key == "timeout" ? settings.query_timeout : settings.shared_wait) = static_cast<int>(seconds);
    } else {
      throw std::invalid_argument("unknown plugstack argument '" + word + "' (valid: " + kValidKeys + ")");
    }
  }
  if (!settings.algorithm.empty() && !settings.allowed.empty())
    for (const std::string& member : parse_algorithm_chain(settings.algorithm))
      if (std::find(settings.allowed.begin(), settings.allowed.end(), member) == settings.allowed.end())
        throw std::invalid_argument("plugstack argument algorithm=" + settings.algorithm +
                                    (member == settings.algorithm ? "" : ": '" + member + "'") + " is not in allow=");
  return settings;
}

std::string shared_key_path(const PluginSettings& settings) {
  return settings.shared_key.empty() ? std::string(SYSCONFDIR) + "/angara/shared.key" : settings.shared_key;
}

TrustedOwners plugin_owners(const PluginSettings& settings) { return TrustedOwners::with(settings.owner); }

Config load_plugin_config(const PluginSettings& settings) {
  // The prologue's environment is slurmd's, not the job's: a
  // $ANGARA_CONFIG there is the administrator's.  (A missing file is
  // load_config()'s error to report.)
  const std::string path = config_file_to_read(settings.config_path);
  if (!path.empty() && ::access(path.c_str(), F_OK) == 0) check_trusted_path(path, PathKind::file, plugin_owners(settings));
  return path.empty() ? desmos_default_config() : load_config(path);
}

std::vector<PluginPath> plugin_paths(const PluginSettings& settings, const Config& config) {
  std::vector<PluginPath> paths;
  if (config.source != desmos_default_config().source) {
    paths.push_back({"configuration directory", directory_of(config.source), PathKind::directory, false, false, false});
    paths.push_back({"configuration", config.source, PathKind::file, false, false, true});
  }
  if (!settings.dry_run)
    paths.push_back({"table directory", table_dir_of(config, settings.table_dir), PathKind::directory, true, false,
                     false});
  // Read in a dry run too (only its writes are left out).
  if (!settings.cache_dir.empty())
    paths.push_back({"cache directory", settings.cache_dir, PathKind::directory, true, false, false});
  if (!settings.shared_dir.empty() && !settings.dry_run) {
    paths.push_back({"shared directory", settings.shared_dir, PathKind::directory, true, false, false});
    paths.push_back({"shared key", shared_key_path(settings), PathKind::file, false, true, false});
  }
  return paths;
}

void check_plugin_path(const PluginPath& entry, const TrustedOwners& owners) {
  if (entry.created_when_missing)
    check_trusted_or_creatable(entry.path, entry.kind, owners);
  else
    check_trusted_path(entry.path, entry.kind, owners, entry.private_file);
}

void check_plugin_paths(const PluginSettings& settings, const Config& config) {
  const TrustedOwners owners = plugin_owners(settings);
  for (const PluginPath& entry : plugin_paths(settings, config)) check_plugin_path(entry, owners);
}

std::vector<std::string> selectable_algorithms(const PluginSettings& settings) {
  std::vector<std::string> names;
  for (const GeneratorInfo& info : generators()) {
    const std::string name(info.name);
    if (settings.allowed.empty() ||
        std::find(settings.allowed.begin(), settings.allowed.end(), name) != settings.allowed.end())
      names.push_back(name);
  }
  return names;
}

std::string check_algorithm_choice(const PluginSettings& settings, std::string_view name) {
  const std::vector<std::string> names = selectable_algorithms(settings);
  if (std::find(names.begin(), names.end(), name) != names.end()) return "";
  // A chain ("balanced,nue") is fine when it parses and every member is.
  if (name.find(',') != std::string_view::npos) {
    std::vector<std::string> chain;
    try {
      chain = parse_algorithm_chain(name);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    for (const std::string& member : chain)
      if (const std::string problem = check_algorithm_choice(settings, member); !problem.empty()) return problem;
    return "";
  }
  std::string list;
  for (const std::string& valid : names) list += (list.empty() ? "" : ", ") + valid;
  const bool exists = make_generator(name) != nullptr;
  return std::string(exists ? "routing algorithm '" : "unknown routing algorithm '") + printable(name) + "'" +
         (exists ? " is not enabled on this cluster" : "") + "; valid names: " + list;
}

namespace {

// install_job_table() with shared=: under the job's lock, this node's row
// of the published result, or the computation and its publication.
// `what` names the table in the log line: "table" or "default table".
TableOutcome install_shared_table(const PluginSettings& settings, const Config& config, const std::string& this_node,
                                  const JobRequest& request, const std::string& what) {
  const PreparedJob prepared = prepare_job(config, request);
  // Reading the shared result holds this node's row only, but the node
  // computes the whole table when there is no result yet or it is rejected:
  // the computation's limit, checked before either.
  check_job_memory(config, request, prepared);
  const std::string& directory_shared = settings.shared_dir;
  const std::string base = directory_shared + "/" + prepared.fingerprint;
  const TrustedOwners owners = plugin_owners(settings);
  const SharedKey key = load_shared_key(shared_key_path(settings), owners);
  // The directory was checked (check_plugin_paths); the lock and the result
  // are opened in it without following links.  Sharing saves work and is
  // never a condition: a shared directory that is missing or refuses the
  // lock (EACCES, EROFS, a stale mount) leaves the node to compute alone.
  // Only a path someone else could change refuses the job.
  std::optional<FileLock> lock;
  std::string unusable;
  try {
    if (const std::string problem = ensure_directory(directory_shared, false); !problem.empty())
      throw TableFileError(problem);
    lock.emplace(directory_shared, prepared.fingerprint + ".lock", std::chrono::seconds(settings.shared_wait), owners);
  } catch (const UntrustedPathError&) {
    throw;
  } catch (const TableFileError& e) {
    unusable = e.what();
  }
  const bool locked = lock && lock->locked();
  const NodeId node = *config.node_by_name(this_node);
  std::string rejected;
  if (locked) {
    std::optional<SharedRow> row;
    try {
      row = read_shared_row(directory_shared, prepared.fingerprint + ".shared", prepared, node, key, owners);
    } catch (const std::runtime_error& e) {
      // Damaged, foreign or forged (no valid authenticator), or not a plain
      // file: computed here, verified, and published anew.
      rejected = std::string("; shared result ") + base + ".shared rejected (" + e.what() + "), computed locally";
    }
    if (row) {
      // The member of the chain that computed the published table; no routes
      // (an empty table, not one of N x N empty routes: 4 GiB at 32768 nodes).
      TableOutcome outcome{"",
                           JobResult{prepared.network, RouteTable(std::vector<NodeId>{}), {}, request.job,
                                     row->table.algorithm, prepared.fingerprint, 0, false, prepared.chain.text(), {}, {}, {}},
                           base + ".shared"};
      row->table.node_name = this_node;
      row->table.chain = recorded_chain(prepared.chain.text());
      row->table.job = request.job;
      const std::string directory = table_dir_of(config, settings.table_dir);
      write_node_table(directory, row->table);
      outcome.message = "job " + request.job + ": " + row->summary + ", shared result " + outcome.shared_file +
                        " (authenticated); " + slurm::failed_routers_note(request.down_nodes) + "; " + what + " of " +
                        this_node + " written to " + directory;
      return outcome;
    }
  }
  // First (or the wait ran out): compute, verify, publish while holding the lock.
  TableOutcome outcome{"", compute_job_routes(config, request), ""};
  std::string published = "; not shared (a route has no compact word)";
  if (!unusable.empty()) {
    published = "; not shared (cannot use the shared directory: " + unusable + ")";
  } else if (!locked) {
    published = "; not shared (another node held " + base + ".lock longer than shared_wait=" +
                std::to_string(settings.shared_wait) + " s)";
  } else if (const std::optional<std::string> contents = format_shared_tables(outcome.result, key)) {
    // Publishing is a saving, not a condition: a result that cannot be
    // written (a link or a directory in its place) leaves the job's own
    // verified table to install, and the other nodes compute theirs.
    try {
      write_file_atomically(base + ".shared", *contents);
      published = "; shared as " + base + ".shared";
    } catch (const TableFileError& e) {
      published = std::string("; not shared (") + e.what() + ")";
    }
  }
  outcome.message = format_report_line(outcome.result) + rejected + published + "; " +
                    slurm::failed_routers_note(request.down_nodes) + "; " + what + " of " +
                    write_own_table(settings, config, outcome.result, this_node);
  return outcome;
}

}  // namespace

TableOutcome install_job_table(const PluginSettings& settings, const Config& config, const JobContext& job) {
  // Before anything is read or written: every path is root's (or owner='s).
  check_plugin_paths(settings, config);
  if (job.node_list.empty()) throw std::invalid_argument("job " + job.job_id + ": no node list in the environment");
  if (job.this_node.empty()) throw std::invalid_argument("job " + job.job_id + ": this node's name is unknown");
  JobRequest request;
  request.job = job.job_id;
  request.node_names = expand_hostlist(job.node_list);
  if (!job.requested_algorithm.empty()) {
    // Checked at submission too; the prologue trusts nothing from the job's environment.
    if (const std::string problem = check_algorithm_choice(settings, job.requested_algorithm); !problem.empty())
      throw JobRefusal(problem);
    request.algorithm = job.requested_algorithm;
  } else {
    request.algorithm = settings.algorithm;
  }
  request.down_nodes = slurm::machine_nodes_among(config, job.failed_nodes);
  request.cache_dir = settings.cache_dir;
  request.write_cache = !settings.dry_run;
  if (!config.node_by_name(job.this_node))
    throw std::invalid_argument("this node '" + job.this_node + "' is not a node of the machine described by " +
                                config.source);

  if (!settings.shared_dir.empty() && !settings.dry_run)
    return install_shared_table(settings, config, job.this_node, request, "table");
  TableOutcome outcome{"", compute_job_routes(config, request), ""};
  outcome.message = format_report_line(outcome.result) + "; " + slurm::failed_routers_note(request.down_nodes) + "; table of " +
                    write_own_table(settings, config, outcome.result, job.this_node);
  return outcome;
}

std::string routing_note(const PluginSettings& settings, const Config& config, const JobResult& result) {
  return slurm::routing_note(result.algorithm, result.fingerprint,
                             settings.dry_run ? std::string("dry run, no table written")
                                              : "tables " + table_dir_of(config, settings.table_dir),
                             result.report.ok());
}

std::string step_table_problem(const PluginSettings& settings, const Config& config, const std::string& job_id,
                               const std::string& this_node) {
  if (settings.dry_run || !config.node_by_name(this_node)) return "";
  NodeTable probe;
  probe.node_name = this_node;
  const std::string path = table_dir_of(config, settings.table_dir) + "/" + table_file_name(probe);
  NodeTable table;
  try {
    table = read_node_table(path);
  } catch (const std::exception& e) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0 && errno != ENOENT) return "";  // not ours to judge (EACCES, ...)
    return std::string("its table cannot be read: ") + e.what();
  }
  if (table.job != "default") return "";
  return "it holds the default table " + path + " (fingerprint " + table.fingerprint + "), not job " + job_id +
         "'s: the job's prologue did not complete on " + this_node;
}

TableOutcome restore_default_table(const PluginSettings& settings, const Config& config, const std::string& this_node,
                                   const std::vector<std::string>& failed_nodes) {
  check_plugin_paths(settings, config);
  if (!config.node_by_name(this_node))
    throw std::invalid_argument("this node '" + this_node + "' is not a node of the machine described by " +
                                config.source);
  JobRequest request;
  request.job = "default";
  request.algorithm = settings.algorithm;
  for (const std::string& name : slurm::machine_nodes_among(config, failed_nodes))
    if (name != this_node) request.down_nodes.push_back(name);
  request.cache_dir = settings.cache_dir;
  request.write_cache = !settings.dry_run;
  if (!settings.shared_dir.empty() && !settings.dry_run)
    return install_shared_table(settings, config, this_node, request, "default table");

  TableOutcome outcome{"", compute_job_routes(config, request), ""};
  outcome.message = format_report_line(outcome.result) + "; " + slurm::failed_routers_note(request.down_nodes) +
                    "; default table of " + write_own_table(settings, config, outcome.result, this_node);
  return outcome;
}

}  // namespace angara::spank
