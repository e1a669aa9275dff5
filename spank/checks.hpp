// The preconditions of spank-angara(8), checked before the first prologue
// needs them: by slurmd when it loads the plugin (a bad setting stops slurmd,
// as pyxis does) and by `angara-route check` (one line per finding).  The
// Slurm side is judged from scontrol's text, so that it is tested on
// recorded output like slurm/slurm_query.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "angara/config.hpp"
#include "spank/job_tables.hpp"

namespace angara::spank {

enum class Severity { Ok, Warning, Error };

struct Finding {
  Severity severity = Severity::Ok;
  std::string subject;  // "plugstack", "config", "tables", "cache", "slurm", "partition NAME"
  std::string text;
};

// "error    tables: /var/lib/angara/routes: not writable (...)": the
// severity padded to one column, so that findings line up.
std::string format_finding(const Finding& finding);
const char* severity_name(Severity severity);  // "ok", "warning", "error"
bool has_errors(const std::vector<Finding>& findings);

// What the plugin would run with: its plugstack arguments parsed, the
// configuration they point at loaded, the table (and cache) directory
// writable by this process (slurmd runs as root), or creatable under a
// writable parent.  settings/config are set when they could be read.
struct PluginCheck {
  std::optional<PluginSettings> settings;
  std::optional<Config> config;
  std::vector<Finding> findings;
};
PluginCheck check_plugin_setup(const std::vector<std::string>& arguments, const std::string& config_override = "");

// The directory a table file would be written to: "" when it can be, else
// why not ("does not exist and /var/lib is not writable").
std::string directory_problem(const std::string& directory);

// The version line slurmd logs when it loads the plugin:
// "spank-angara 0.1.0: config F (4x2x2x2, 32 nodes), tables DIR, default
// algorithm bfs, users may choose bfs, sssp; on_failure=drain, failed=down, epilog=default".
std::string plugin_settings_line(const PluginSettings& settings, const Config& config);

// One line of a plugstack.conf (or a file it includes) that loads spank-angara.
struct PlugstackEntry {
  std::string file;
  int line = 0;
  bool required = true;
  std::string plugin;                  // the path as written
  std::vector<std::string> arguments;  // the words after it
};
// Follows "include" lines (globs, relative to the including file) like
// Slurm's spank.c; `entries` get every line naming a plugin whose file name
// starts with "spank-angara".  Unreadable included files become findings.
std::vector<PlugstackEntry> find_plugstack_entries(const std::string& plugstack_path, std::vector<Finding>& findings);

// Slurm's settings that the plugin relies on, from "scontrol show config"
// ("Key = Value" lines) and "scontrol show partition -o": PrologFlags=Alloc
// (every node's table before the job starts) and partitions that give each
// job whole nodes (one table per router: a shared node would get the
// default table back under a running job).  With the plugin's settings,
// also that shared_wait= stays below PrologEpilogTimeout when shared= is set
// (a stuck node holding a job's lock must not time the other prologues out).
std::vector<Finding> check_slurm_settings(const std::string& show_config, const std::string& show_partitions,
                                          const Config& config, const PluginSettings* settings = nullptr);
// The machine's node names against Slurm's ("scontrol show node"): none in
// common is an error (angara.yaml describes another machine), machine nodes
// Slurm does not know are a warning (a typo in machine.nodes).
Finding check_node_names(const Config& config, const std::vector<std::string>& slurm_nodes);
// slurmd loads plugins only when it starts: the slurmd processes of this
// host that started before one of `files` (plugstack.conf, the file with the
// spank-angara line) last changed are a warning; none on this host is said.
Finding check_slurmd_started_after(const std::vector<std::string>& files);
// "PlugStackConfig" and the like, from "scontrol show config" output; "" if absent.
std::string slurm_config_value(const std::string& show_config, const std::string& key);

}  // namespace angara::spank
