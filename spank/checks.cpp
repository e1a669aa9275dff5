#include "spank/checks.hpp"
#include "routing/pipeline.hpp"
#include "routing/generator.hpp"
#include "angara/trusted_path.hpp"

#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>

#include "angara/hostlist.hpp"
#include "config.h"
#include "slurm/slurm_query.hpp"

namespace angara::spank {

namespace {

std::string errno_text(int error) { return std::strerror(error); }

std::string joined(const std::vector<std::string>& words, const char* separator = ", ") {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : separator) + word;
  return text;
}

std::string parent_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// A table or cache directory, judged as the writer running this code.
Finding directory_finding(const std::string& subject, const std::string& directory) {
  const std::string problem = directory_problem(directory);
  if (problem.empty()) {
    struct stat info;
    const bool exists = ::stat(directory.c_str(), &info) == 0;
    return {Severity::Ok, subject, directory + (exists ? ": writable" : ": does not exist yet, will be created")};
  }
  if (::geteuid() != 0)
    return {Severity::Warning, subject,
            directory + ": " + problem + " for uid " + std::to_string(::geteuid()) +
                "; slurmd writes as root: run the check as root to judge"};
  return {Severity::Error, subject, directory + ": " + problem};
}

std::string trimmed(const std::string& text) {
  const std::size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t\r") - begin + 1);
}

void read_plugstack(const std::string& path, int depth, std::vector<PlugstackEntry>& entries,
                    std::vector<Finding>& findings) {
  std::ifstream in(path);
  if (!in) {
    findings.push_back({Severity::Error, "plugstack", path + ": cannot read: " + errno_text(errno)});
    return;
  }
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    text = text.substr(0, text.find('#'));
    std::istringstream words(text);
    std::string kind, plugin;
    if (!(words >> kind)) continue;
    if (!(words >> plugin)) continue;
    if (kind == "include") {
      if (depth > 8) {
        findings.push_back({Severity::Error, "plugstack", path + ":" + std::to_string(number) + ": includes nest too deep"});
        continue;
      }
      const std::string pattern = plugin.front() == '/' ? plugin : parent_of(path) + "/" + plugin;
      glob_t matches{};
      if (::glob(pattern.c_str(), 0, nullptr, &matches) == 0)
        for (std::size_t i = 0; i < matches.gl_pathc; ++i) read_plugstack(matches.gl_pathv[i], depth + 1, entries, findings);
      ::globfree(&matches);
      continue;
    }
    const std::size_t slash = plugin.find_last_of('/');
    const std::string base = slash == std::string::npos ? plugin : plugin.substr(slash + 1);
    if (base.rfind("spank-angara", 0) != 0) continue;
    PlugstackEntry entry;
    entry.file = path;
    entry.line = number;
    entry.required = kind == "required";
    entry.plugin = plugin;
    for (std::string word; words >> word;) entry.arguments.push_back(word);
    entries.push_back(std::move(entry));
  }
}

}  // namespace

const char* severity_name(Severity severity) {
  switch (severity) {
    case Severity::Ok: return "ok";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "?";
}

std::string format_finding(const Finding& finding) {
  std::string head = severity_name(finding.severity);
  head.resize(8, ' ');
  return head + finding.subject + ": " + finding.text;
}

bool has_errors(const std::vector<Finding>& findings) {
  return std::any_of(findings.begin(), findings.end(),
                     [](const Finding& finding) { return finding.severity == Severity::Error; });
}

std::string directory_problem(const std::string& directory) {
  if (directory.empty()) return "no directory given";
  struct stat info;
  if (::stat(directory.c_str(), &info) == 0) {
    if (!S_ISDIR(info.st_mode)) return "not a directory";
    if (::access(directory.c_str(), W_OK | X_OK) != 0) return "not writable (" + errno_text(errno) + ")";
    return "";
  }
  if (errno != ENOENT && errno != ENOTDIR) return "cannot be examined (" + errno_text(errno) + ")";
  // write_job_tables creates it (mkdir -p): the nearest existing ancestor must allow that.
  std::string ancestor = parent_of(directory);
  while (::stat(ancestor.c_str(), &info) != 0 && ancestor != "/" && ancestor != ".") ancestor = parent_of(ancestor);
  if (!S_ISDIR(info.st_mode)) return "does not exist, and " + ancestor + " is not a directory";
  if (::access(ancestor.c_str(), W_OK | X_OK) != 0)
    return "does not exist, and " + ancestor + " is not writable to create it (" + errno_text(errno) + ")";
  return "";
}

namespace {

// Every path the plugin reads or writes as root, named one by one when
// someone other than root (or owner=) could change it (doc/security.md).
void add_trust_findings(const PluginSettings& settings, PluginCheck& check) {
  TrustedOwners owners;
  try {
    owners = plugin_owners(settings);
  } catch (const std::exception& e) {
    check.findings.push_back({Severity::Error, "trust", e.what()});
    return;
  }
  if (!check.config) return;
  for (const PluginPath& entry : plugin_paths(settings, *check.config)) {
    try {
      check_plugin_path(entry, owners);
      check.findings.push_back({Severity::Ok, "trust", entry.what + " " + entry.path + ": only " + owners.names() +
                                                           " can change it"});
    } catch (const UntrustedPathError& e) {
      // A file after its directory: the directory's line named a bad
      // ancestor already, so only the file's own state is added.
      std::string text = entry.what + " " + e.what();
      if (entry.after_its_directory && e.path() != entry.path) {
        const std::string rule = untrusted_object_rule(entry.path, owners, entry.private_file);
        if (rule.empty()) continue;
        text = entry.what + " untrusted " + entry.path + ": " + rule;
      }
      check.findings.push_back({Severity::Error, "trust", text + " (jobs are refused while it is so)"});
    } catch (const std::exception& e) {
      check.findings.push_back({Severity::Error, "trust", entry.what + " " + e.what() +
                                                              " (jobs are refused while it is so)"});
    }
  }
  // Reported, not judged: the plugin follows no link it has not checked
  // whatever the setting; the setting protects everything else on the node.
  const std::string links = protected_symlinks_setting();
  check.findings.push_back(
      {Severity::Ok, "trust",
       "fs.protected_symlinks = " + (links.empty() ? std::string("unknown") : links) +
           (links == "1" || links == "2"
                ? ": links in sticky world-writable directories are not followed across owners"
                : ": the kernel follows links in /tmp-like directories across owners (the plugin opens nothing "
                  "through a link itself; 1 protects the node's other programs)")});
}

}  // namespace

namespace {

// routing.adaptive on: whether the whole machine's table is a safe escape
// for the adaptive channel (doc/model.md, "The adaptive channel"); a table
// that is not is refused, so every job would be.
Finding adaptive_escape_finding(const Config& config) {
  const std::string prefix = "routing.adaptive on: ";
  try {
    JobRequest request;
    request.write_cache = false;
    const JobResult result = compute_job_routes(config, request);
    if (result.report.ok() && result.report.adaptive_checked)
      return {Severity::Ok, "adaptive",
              prefix + "the whole machine's table (" + result.algorithm + ") is a safe escape for the adaptive "
                       "channel (" + std::to_string(result.report.indirect_dependencies) + " indirect dependencies)"};
    return {Severity::Error, "adaptive",
            prefix + "the whole machine's table is refused: " +
                (result.report.ok() ? std::string("not checked") : result.report.violations.front().message)};
  } catch (const std::exception& e) {
    return {Severity::Error, "adaptive", prefix + "the whole machine gets no table: " + e.what()};
  }
}

}  // namespace

PluginCheck check_plugin_setup(const std::vector<std::string>& arguments, const std::string& config_override) {
  PluginCheck check;
  PluginSettings settings;
  try {
    settings = parse_plugin_arguments(arguments);
    check.settings = settings;
    if (!arguments.empty())
      check.findings.push_back({Severity::Ok, "plugstack", "arguments '" + joined(arguments, " ") + "'"});
  } catch (const std::exception& e) {
    check.findings.push_back({Severity::Error, "plugstack", e.what()});
  }
  if (!config_override.empty()) {
    if (!settings.config_path.empty() && settings.config_path != config_override)
      check.findings.push_back({Severity::Warning, "config",
                                "plugstack has config=" + settings.config_path + ", checking " + config_override +
                                    " as asked; the plugin reads the plugstack's"});
    settings.config_path = config_override;
  }
  try {
    Config config;
    try {
      config = load_plugin_config(settings);
    } catch (const UntrustedPathError& e) {
      // Named here, and the file read anyway so that every other finding
      // (each bad path among them) still shows.
      check.findings.push_back({Severity::Error, "config", std::string(e.what()) + " (jobs are refused while it is so)"});
      config = find_config(settings.config_path);
    }
    if (config.source == desmos_default_config().source)
      check.findings.push_back({Severity::Warning, "config",
                                "no config= argument and no " + system_config_path() +
                                    ": the built-in Desmos machine (4x2x2x2, desmos[00-31]) is used; give "
                                    "config=FILE in plugstack.conf"});
    else
      check.findings.push_back({Severity::Ok, "config",
                                config.source + ": " + config.torus.to_string() + " torus, " +
                                    std::to_string(config.node_names.size()) + " nodes " +
                                    compress_hostlist(config.node_names) + ", algorithm " +
                                    (config.algorithm.empty() ? default_algorithm_chain() : config.algorithm)});
    check.config = std::move(config);
  } catch (const std::exception& e) {
    check.findings.push_back({Severity::Error, "config", e.what()});
  }
  if (check.config && check.config->adaptive) check.findings.push_back(adaptive_escape_finding(*check.config));
  if (check.config) {
    const std::string tables = settings.table_dir.empty() ? check.config->table_dir : settings.table_dir;
    if (settings.dry_run)
      check.findings.push_back({Severity::Ok, "tables", tables + ": not written (dryrun)"});
    else
      check.findings.push_back(directory_finding("tables", tables));
  }
  if (!settings.cache_dir.empty() && !settings.dry_run) check.findings.push_back(directory_finding("cache", settings.cache_dir));
  add_trust_findings(settings, check);
  return check;
}

std::string plugin_settings_line(const PluginSettings& settings, const Config& config) {
  const char* failed = settings.failed_states == slurm::FailedStates::None     ? "none"
                       : settings.failed_states == slurm::FailedStates::Down ? "down"
                                                                             : "down,drained";
  return std::string("spank-angara ") + PACKAGE_VERSION + ": config " + config.source + " (" +
         config.torus.to_string() + ", " + std::to_string(config.node_names.size()) + " nodes), tables " +
         (settings.table_dir.empty() ? config.table_dir : settings.table_dir) +
         (settings.cache_dir.empty() ? "" : ", cache " + settings.cache_dir) + ", default algorithm " +
         (!settings.algorithm.empty() ? settings.algorithm
          : !config.algorithm.empty() ? config.algorithm
                                      : default_algorithm_chain()) +
         ", users may choose " +
         joined(selectable_algorithms(settings)) + "; on_failure=" +
         (settings.on_failure == FailurePolicy::Drain ? "drain" : "cancel") + ", failed=" + failed +
         ", epilog=" + (settings.restore_default ? "default" : "keep") +
         ", timeout=" + std::to_string(settings.query_timeout) + (settings.dry_run ? ", dryrun" : "");
}

std::vector<PlugstackEntry> find_plugstack_entries(const std::string& plugstack_path, std::vector<Finding>& findings) {
  std::vector<PlugstackEntry> entries;
  read_plugstack(plugstack_path, 0, entries, findings);
  return entries;
}

std::string slurm_config_value(const std::string& show_config, const std::string& key) {
  std::istringstream in(show_config);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos || trimmed(line.substr(0, eq)) != key) continue;
    return trimmed(line.substr(eq + 1));
  }
  return "";
}

Finding check_slurmd_started_after(const std::vector<std::string>& files) {
  std::time_t changed = 0;
  std::string newest;
  for (const std::string& file : files) {
    struct stat info;
    if (::stat(file.c_str(), &info) == 0 && info.st_mtime > changed) {
      changed = info.st_mtime;
      newest = file;
    }
  }
  // Process start = boot time (/proc/stat btime) + starttime ticks (/proc/PID/stat, field 22).
  long long boot = 0;
  {
    std::ifstream stat_file("/proc/stat");
    for (std::string key; stat_file >> key;)
      if (key == "btime") {
        stat_file >> boot;
        break;
      }
  }
  const long ticks = ::sysconf(_SC_CLK_TCK);
  std::size_t count = 0;
  std::vector<std::string> stale;
  glob_t processes{};
  if (::glob("/proc/[0-9]*/comm", 0, nullptr, &processes) == 0) {
    for (std::size_t i = 0; i < processes.gl_pathc; ++i) {
      std::string comm;
      if (!std::getline(std::ifstream(processes.gl_pathv[i]), comm) || comm != "slurmd") continue;
      const std::string dir = parent_of(processes.gl_pathv[i]);
      std::string stat_text;
      std::getline(std::ifstream(dir + "/stat"), stat_text);
      // Fields after the command name, which is in parentheses and may hold spaces.
      std::istringstream fields(stat_text.substr(stat_text.rfind(')') + 1));
      std::string field;
      for (int number = 3; number <= 22 && fields >> field; ++number) {}
      if (field.empty() || ticks <= 0 || boot == 0) continue;
      ++count;
      const long long started = boot + std::stoll(field) / ticks;
      // One second of slack: btime is whole seconds.
      if (changed > started + 1) stale.push_back(dir.substr(dir.find_last_of('/') + 1));
    }
  }
  ::globfree(&processes);
  if (count == 0) return {Severity::Ok, "slurmd", "no slurmd runs on this host (check every node's after a restart)"};
  if (stale.empty())
    return {Severity::Ok, "slurmd", std::to_string(count) + " slurmd process(es) on this host started after " + newest +
                                        " last changed"};
  return {Severity::Warning, "slurmd",
          std::to_string(stale.size()) + " of " + std::to_string(count) + " slurmd process(es) on this host (pid " +
              stale.front() + (stale.size() > 1 ? ", ..." : "") + ") started before " + newest +
              " last changed: slurmd loads plugins only when it starts; restart it if the spank-angara line is new "
              "(argument changes reach the next job without a restart)"};
}

Finding check_node_names(const Config& config, const std::vector<std::string>& slurm_nodes) {
  const std::set<std::string> known(slurm_nodes.begin(), slurm_nodes.end());
  std::vector<std::string> unknown;
  for (const std::string& name : config.node_names)
    if (!known.count(name)) unknown.push_back(name);
  if (unknown.size() == config.node_names.size())
    return {Severity::Error, "nodes",
            "no node of the machine (" + compress_hostlist(config.node_names) + ", " + config.source +
                ") is a Slurm node: the configuration describes another machine"};
  if (!unknown.empty())
    return {Severity::Warning, "nodes",
            compress_hostlist(unknown) + " of the machine are not Slurm nodes (check machine.nodes in " +
                config.source + ")"};
  return {Severity::Ok, "nodes", "all " + std::to_string(config.node_names.size()) + " nodes of the machine are Slurm nodes"};
}

std::vector<Finding> check_slurm_settings(const std::string& show_config, const std::string& show_partitions,
                                          const Config& config, const PluginSettings* settings) {
  std::vector<Finding> findings;
  const std::string prolog_flags = slurm_config_value(show_config, "PrologFlags");
  std::vector<std::string> flags;
  std::istringstream flag_words(prolog_flags);
  for (std::string flag; std::getline(flag_words, flag, ',');) flags.push_back(trimmed(flag));
  if (std::find(flags.begin(), flags.end(), "Alloc") != flags.end())
    findings.push_back({Severity::Ok, "slurm", "PrologFlags=" + prolog_flags + ": every node's table is written at allocation"});
  else
    findings.push_back({Severity::Warning, "slurm",
                        "PrologFlags=" + (prolog_flags.empty() ? std::string("(none)") : prolog_flags) +
                            " lacks Alloc: a node other than the batch host gets its table only at its first "
                            "job step; set PrologFlags=Alloc in slurm.conf"});

  if (settings && !settings->shared_dir.empty()) {
    // Unset, scontrol prints 65534 (NO_VAL16): Slurm waits for the prologue.
    const std::string timeout_text = slurm_config_value(show_config, "PrologEpilogTimeout");
    char* end = nullptr;
    const long timeout = std::strtol(timeout_text.c_str(), &end, 10);
    if (!timeout_text.empty() && *end == '\0' && timeout > 0 && timeout < 65534 && settings->shared_wait >= timeout)
      findings.push_back({Severity::Warning, "shared",
                          "shared_wait=" + std::to_string(settings->shared_wait) + " is not below PrologEpilogTimeout=" +
                              timeout_text + ": a node stuck holding a job's shared= lock lets the other prologues "
                              "time out and drains their nodes; set shared_wait= well below it"});
  }

  const std::string select_type = slurm_config_value(show_config, "SelectType");
  // select/linear gives whole nodes unless OverSubscribe=YES/FORCE; the
  // consumable-resource selectors share nodes unless OverSubscribe=EXCLUSIVE.
  const bool whole_nodes_by_default = select_type == "select/linear";
  std::istringstream partitions(show_partitions);
  for (std::string line; std::getline(partitions, line);) {
    auto fields = slurm::parse_record(line);
    if (!fields.count("PartitionName")) continue;
    const std::string name = fields["PartitionName"];
    const std::string nodes = fields["Nodes"];
    bool ours = nodes == "ALL";
    if (!ours && !nodes.empty() && nodes != "(null)") {
      try {
        for (const std::string& node : expand_hostlist(nodes))
          if (config.node_by_name(node)) ours = true;
      } catch (const std::invalid_argument&) {
        findings.push_back({Severity::Warning, "partition " + name, "cannot read its Nodes=" + nodes});
      }
    }
    if (!ours) continue;
    const std::string over = fields["OverSubscribe"];
    const std::string mode = over.substr(0, over.find(':'));
    if (mode == "EXCLUSIVE" || (mode == "NO" && whole_nodes_by_default))
      findings.push_back({Severity::Ok, "partition " + name, "OverSubscribe=" + over + " with " + select_type +
                                                                 ": one job per node"});
    else
      findings.push_back({Severity::Error, "partition " + name,
                          "OverSubscribe=" + over + " with " + select_type +
                              " lets jobs share nodes, but a router has one table: a job's epilogue would put "
                              "back the default table under another running job; set OverSubscribe=EXCLUSIVE"});
  }
  return findings;
}

}  // namespace angara::spank
