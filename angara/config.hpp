// The machine configuration (angara.yaml(5)): torus, node names, failures,
// routing settings and the table directory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "angara/network.hpp"
#include "angara/rules.hpp"

namespace angara {

// A configuration error with its position: what() is "FILE:LINE:COLUMN:
// message" with 1-based line and column.  Errors about the file as a whole
// (it cannot be opened or read) have line and column 0 and what() is
// "FILE: message".
class ConfigError : public std::runtime_error {
 public:
  ConfigError(const std::string& file, int line, int column, const std::string& message);
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  int line_;
  int column_;
  std::string message_;
};

// limits.memory (angara.yaml(5)): the most memory one computation may be
// estimated to need before it starts (routing/memory.hpp).  Either a number
// of bytes or a fraction of the memory hwloc reports for the node.
struct MemoryLimit {
  bool unlimited = false;     // "none"
  std::uint64_t bytes = 0;    // "4G", "512M", "123456"; 0: use node_fraction
  double node_fraction = 0.5; // "50%" (the default)
  friend bool operator==(const MemoryLimit& a, const MemoryLimit& b) {
    return a.unlimited == b.unlimited && a.bytes == b.bytes && a.node_fraction == b.node_fraction;
  }
};
// "4G", "4GiB", "1.5T", "512M", "64K", "123456" (bytes; K, M, G, T are powers
// of 1024), "25%" (of the node's memory, 1 to 100) or "none"; nullopt for
// anything else.
std::optional<MemoryLimit> parse_memory_limit(std::string_view text);
// "50% of the node's memory", "4 GiB", "none".
std::string memory_limit_text(const MemoryLimit& limit);
// "4.0 GiB", "512 MiB", "12.3 KiB", "100 bytes".
std::string format_bytes(std::uint64_t bytes);

// The deepest nesting of lists and mappings a configuration may have
// (angara.yaml(5), LIMITS).
constexpr std::size_t kMaxYamlDepth = 32;

// The network's hardware figures for the flow simulator (angara.yaml's
// `hardware` section, angara.yaml(5)).
struct HardwareFigures {
  double link_bandwidth_gbit = 75;  // Gbit/s, one direction of a cable
  double node_latency_ns = 850;     // MPI latency between neighbours (ANSU paper, section 1)
  double hop_latency_ns = 100;      // each further router on the route
};

struct Config {
  std::string source;              // file path, or "<built-in Desmos default>"
  Torus torus{{4, 2, 2, 2}};
  // Slurm node name of each NodeId (index = NodeId), e.g. "desmos05".
  std::vector<std::string> node_names;
  std::vector<NodeId> failed_nodes;
  std::vector<std::pair<NodeId, Direction>> failed_links;
  // A generator name or a fallback chain ("balanced,nue"); empty: the default
  // chain (routing/chain.hpp, default_algorithm_chain()).
  std::string algorithm;
  std::uint64_t seed = 1;
  int virtual_channels = 1;
  RuleSet rules = RuleSet::angara;                 // routing.rules
  FlowControl flow_control = FlowControl::bubble;  // routing.flow_control
  // routing.adaptive: the adaptive virtual channel is in use, so the
  // verifier also checks every table as its escape (doc/model.md, "The
  // adaptive channel").
  bool adaptive = false;
  // routing.confine: a job's routes are computed on its own routers alone
  // (every other router counts as absent) when a table exists that way, so
  // its traffic crosses no other job's routers; else on the live network.
  // Node selection then offers blocks of every shape (doc/placement.md).
  bool confine = false;
  std::map<std::string, std::string> algorithm_options;  // "routing: options:"
  // routing.lp_bound_time: seconds the admin tool's reports may spend on the
  // LP lower bound (routing/check/lp_bound.hpp); 0 leaves it out.
  double lp_bound_time = 2.0;
  // routing.time_budget: seconds of one core the optional refinement stages
  // of a computation may take (routing/common/work_budget.hpp); 0: no limit.
  double time_budget = 2.0;
  std::string table_dir = "/var/lib/angara/routes";
  MemoryLimit memory_limit;  // limits.memory
  HardwareFigures hardware;  // hardware
  // What was read: a short hash of the file's bytes and their number, so a
  // report shows which file it came from (a silently shortened file too).
  std::string fingerprint;
  std::size_t bytes = 0;

  // The network with this configuration's failures applied.
  Network network() const;
  // NodeId of a Slurm node name; nullopt if the name is not in the machine.
  // A hash look-up once index_node_names() has run (a job's prologue looks
  // up every node of its allocation), a scan otherwise.
  std::optional<NodeId> node_by_name(const std::string& name) const;
  // Indexes node_names for node_by_name(); the parser and
  // desmos_default_config() call it when node_names is final.  A name
  // changed later is still found (by the scan).
  void index_node_names();
  const std::string& node_name(NodeId node) const { return node_names.at(node); }
  // NodeIds of many names at once (a job's allocation), in the order given,
  // with one hash index instead of a scan per name.  Throws
  // std::invalid_argument naming the first unknown name.
  std::vector<NodeId> nodes_by_names(const std::vector<std::string>& names) const;

 private:
  // node_names by name, as index_node_names() saw them; shared by copies.
  std::shared_ptr<const std::unordered_map<std::string, NodeId>> name_index_;
};

// A number of seconds from 0 to 3600 written as plain decimals ("2",
// "0.5"); nullopt for anything else (signs, exponents, words).
std::optional<double> parse_seconds(std::string_view text);
// The same grammar up to `max`.
std::optional<double> parse_plain_decimal(std::string_view text, double max);

// "3f2a9c0d1e2b4a5c (2731 bytes), lists 1 failed router (desmos05) and 1
// failed cable (desmos03 -X)": the configuration's fingerprint and the
// failures it lists, one line for reports and logs ("built-in, lists ..."
// for the built-in Desmos).
std::string config_summary(const Config& config);
// The failures alone: "1 failed router (desmos05) and 1 failed cable
// (desmos03 -X)", "no failed routers or cables".
std::string listed_failures(const Config& config);

// Built-in default: the Desmos machine, 4x2x2x2 with one cable in each of
// Y, Z and K (single_cable YZK), nodes desmos[00-31] in X-fastest coordinate
// order, no failures.
Config desmos_default_config();

// Parses a YAML configuration (schema in angara.yaml(5)).  Throws ConfigError
// with file, line, column and what was expected; unknown keys are errors.
// load_config reads the file at `path`; parse_config parses `yaml_text` and
// names it `source_name` in errors and in Config::source.
Config load_config(const std::string& path);

// The search the admin tool and the plugin share: `path` when given, else
// $ANGARA_CONFIG, else SYSCONFDIR/angara/angara.yaml when it exists, else the
// built-in Desmos machine.
Config find_config(const std::string& path);
// The file find_config(path) reads: `path`, else $ANGARA_CONFIG, else the
// system file when it exists; "" for the built-in Desmos machine.
std::string config_file_to_read(const std::string& path);
std::string system_config_path();
Config parse_config(const std::string& yaml_text, const std::string& source_name);

}  // namespace angara
