// `angara-route slurm-conf`: Slurm's node order and topology.conf along the
// torus (placement/slurm_order.hpp, nested_blocks), so that Slurm's own
// placement hands out compact blocks.
//
// Why the order: select/linear and select/cons_tres take a job's nodes from
// the lowest node indices that fit, preferring a consecutive run of free
// nodes that fits best, and Slurm numbers nodes in the order of the
// NodeName lines.  Along the nested blocks every aligned run is a sub-torus
// or a half of one.  Why topology/tree: it first chooses the lowest switch
// whose nodes can hold the job, so with one switch per nested block a job
// stays inside the smallest block that has room.  Weight= is not written:
// distinct weights would make Slurm fill nodes in weight order before any
// best fit, and equal weights change nothing.
#include <getopt.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "angara/config.hpp"
#include "angara/hostlist.hpp"
#include "cli/exit_status.hpp"
#include "cli/commands.hpp"
#include "placement/blocks.hpp"
#include "placement/slurm_order.hpp"

namespace angara::cli {

namespace {

const char* const kSlurmConfUsage =
    "Usage: angara-route slurm-conf [--config F] [--from SLURM.CONF | --node-params 'CPUs=.. RealMemory=..']\n"
    "         [--topology FILE] [--leaf-size N]\n";

int slurm_conf_usage_error(const std::string& message) {
  std::cerr << "angara-route: slurm-conf: " << message << "\n" << kSlurmConfUsage;
  return kExitUsage;
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// A NodeName line of slurm.conf: its names and the rest of the line.
struct NodeLine {
  std::vector<std::string> names;
  std::string params;  // everything after the NodeName=... word, trimmed
};

// "NodeName=desmos[00-03] CPUs=1 ..." -> names and params; nullopt when the
// line is not a NodeName line.  A value list of NodeAddr, NodeHostname or
// Port on a line of several names pairs values with names by position, which
// a reorder would break: that is an error naming the line.
std::optional<NodeLine> parse_node_line(const std::string& line, const std::string& where) {
  std::size_t start = line.find_first_not_of(" \t");
  if (start == std::string::npos || lower(line.substr(start, 9)) != "nodename=") return std::nullopt;
  const std::size_t value_end = line.find_first_of(" \t", start);
  const std::string value = line.substr(start + 9, value_end == std::string::npos ? std::string::npos
                                                                                  : value_end - start - 9);
  NodeLine node_line;
  if (value_end != std::string::npos) {
    const std::size_t params = line.find_first_not_of(" \t", value_end);
    if (params != std::string::npos) node_line.params = line.substr(params);
    while (!node_line.params.empty() && (node_line.params.back() == ' ' || node_line.params.back() == '\t'))
      node_line.params.pop_back();
  }
  if (lower(value) == "default") return node_line;  // no names: kept in place
  node_line.names = expand_hostlist(value);
  if (node_line.names.size() > 1) {
    std::istringstream words(node_line.params);
    std::string word;
    while (words >> word) {
      const std::size_t eq = word.find('=');
      const std::string key = lower(word.substr(0, eq));
      if ((key == "nodeaddr" || key == "nodehostname" || key == "port") && eq != std::string::npos &&
          word.find_first_of(",[", eq) != std::string::npos)
        throw std::invalid_argument(where + ": " + word.substr(0, eq) +
                                    " lists one value per node; give these nodes one NodeName line each");
    }
  }
  return node_line;
}

std::string node_line_text(const std::string& name, const std::string& params) {
  return "NodeName=" + name + (params.empty() ? "" : " " + params);
}

// The rewritten slurm.conf: every line as it was, except that the NodeName
// lines of the machine's nodes go, and the machine's nodes come back, one
// line each in nested-block order, where the first of them was.
std::string reorder_slurm_conf(const Config& config, const NestedBlocks& blocks, const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open the slurm.conf to reorder");
  std::vector<std::string> lines;
  std::map<std::string, std::string> params_of;  // machine node -> its params
  std::size_t insert_at = std::string::npos;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const std::optional<NodeLine> node_line = parse_node_line(line, path + ":" + std::to_string(number));
    if (!node_line || node_line->names.empty()) {
      lines.push_back(line);
      continue;
    }
    std::vector<std::string> others;
    for (const std::string& name : node_line->names) {
      if (!config.node_by_name(name)) {
        others.push_back(name);
        continue;
      }
      if (!params_of.emplace(name, node_line->params).second)
        throw std::invalid_argument(path + ":" + std::to_string(number) + ": node " + name +
                                    " has a second NodeName line");
      if (insert_at == std::string::npos) insert_at = lines.size();
    }
    if (!others.empty()) lines.push_back(node_line_text(compress_hostlist(others), node_line->params));
  }
  for (NodeId node = 0; node < config.torus.node_count(); ++node)
    if (!params_of.count(config.node_name(node)))
      throw std::invalid_argument(path + ": node " + config.node_name(node) + " of the " + config.torus.to_string() +
                                  " machine (" + config.source + ") has no NodeName line");
  std::ostringstream out;
  for (std::size_t i = 0; i <= lines.size(); ++i) {
    if (i == insert_at) {
      out << "# angara-route slurm-conf: the " << config.torus.to_string()
          << " torus's nodes in nested-block order (angara-route(8))\n";
      for (NodeId node : blocks.order)
        out << node_line_text(config.node_name(node), params_of.at(config.node_name(node))) << "\n";
    }
    if (i < lines.size()) out << lines[i] << "\n";
  }
  return out.str();
}

std::string node_lines(const Config& config, const NestedBlocks& blocks, const std::string& params) {
  std::ostringstream out;
  out << "# angara-route slurm-conf: the " << config.torus.to_string() << " torus's nodes (" << config.source
      << ") in nested-block order; keep this order in slurm.conf\n";
  for (NodeId node : blocks.order) out << node_line_text(config.node_name(node), params) << "\n";
  return out.str();
}

// topology.conf for topology/tree: one switch per nested block of at least
// two nodes; blocks of `leaf_size` nodes or fewer are leaf switches.
std::string topology_conf(const Config& config, const NestedBlocks& blocks, std::size_t leaf_size) {
  const Torus& torus = config.torus;
  std::ostringstream out;
  out << "# angara-route slurm-conf: topology/tree switches as nested blocks of the " << torus.to_string()
      << " torus (" << config.source << ").\n# A switch is not a router: it tells Slurm which nodes are close.\n";
  const auto name = [](const NestedBlock& block) { return "angara" + block.path; };
  const auto is_leaf = [&](const NestedBlock& block) { return block.count <= leaf_size || block.children.empty(); };
  // Children first, as Slurm reads the file top down.
  std::vector<std::size_t> order;
  std::vector<std::pair<std::size_t, bool>> stack{{0, false}};
  while (!stack.empty()) {
    auto [index, expanded] = stack.back();
    stack.pop_back();
    const NestedBlock& block = blocks.blocks[index];
    if (expanded || is_leaf(block)) {
      order.push_back(index);
      continue;
    }
    stack.push_back({index, true});
    for (auto child = block.children.rbegin(); child != block.children.rend(); ++child) stack.push_back({*child, false});
  }
  for (std::size_t index : order) {
    const NestedBlock& block = blocks.blocks[index];
    out << "SwitchName=" << name(block);
    if (is_leaf(block)) {
      std::vector<std::string> names;
      for (std::size_t i = block.first; i < block.first + block.count; ++i)
        names.push_back(config.node_name(blocks.order[i]));
      out << " Nodes=" << compress_hostlist(names);
    } else {
      out << " Switches=";
      for (std::size_t c = 0; c < block.children.size(); ++c)
        out << (c ? "," : "") << name(blocks.blocks[block.children[c]]);
    }
    out << "  # " << format_shape(torus, block.shape) << " at " << torus.format_coord(block.origin) << "\n";
  }
  return out.str();
}

}  // namespace

int slurm_conf_command(int argc, char** argv) {
  std::string config_path, from, topology_path, params = "State=UNKNOWN";
  long leaf_size = 8;
  bool have_params = false;
  static const option long_options[] = {{"config", required_argument, nullptr, 'c'},
                                        {"from", required_argument, nullptr, 'f'},
                                        {"node-params", required_argument, nullptr, 'p'},
                                        {"topology", required_argument, nullptr, 't'},
                                        {"leaf-size", required_argument, nullptr, 'l'},
                                        {"help", no_argument, nullptr, 'h'},
                                        {nullptr, 0, nullptr, 0}};
  optind = 1;
  int opt;
  while ((opt = getopt_long(argc, argv, "c:h", long_options, nullptr)) != -1) {
    switch (opt) {
      case 'c': config_path = optarg; break;
      case 'f': from = optarg; break;
      case 'p':
        params = optarg;
        have_params = true;
        break;
      case 't': topology_path = optarg; break;
      case 'l': {
        char* end = nullptr;
        leaf_size = std::strtol(optarg, &end, 10);
        if (*optarg == '\0' || *end != '\0' || leaf_size < 1 || leaf_size > (1L << 20))
          return slurm_conf_usage_error(std::string("--leaf-size expects a positive number of nodes, got '") +
                                        optarg + "'");
        break;
      }
      case 'h': std::cout << kSlurmConfUsage; return kExitOk;
      default: std::cerr << kSlurmConfUsage; return kExitUsage;
    }
  }
  if (optind != argc) return slurm_conf_usage_error(std::string("unexpected argument '") + argv[optind] + "'");
  if (!from.empty() && have_params)
    return slurm_conf_usage_error("--from keeps each node's own parameters; drop --node-params");

  const Config config = find_config(config_path);
  const NestedBlocks blocks = nested_blocks(config.torus);
  const std::string conf = from.empty() ? node_lines(config, blocks, params) : reorder_slurm_conf(config, blocks, from);
  if (!topology_path.empty()) {
    // Written whole or not at all: a half-written topology.conf would
    // strand nodes outside every switch.
    const std::string temporary = topology_path + ".tmp";
    {
      std::ofstream out(temporary, std::ios::trunc);
      out << topology_conf(config, blocks, static_cast<std::size_t>(leaf_size));
      if (!out.flush()) throw std::runtime_error(temporary + ": cannot write the topology file");
    }
    if (std::rename(temporary.c_str(), topology_path.c_str()) != 0) {
      std::remove(temporary.c_str());
      throw std::runtime_error(topology_path + ": cannot write the topology file");
    }
  }
  std::cout << conf;
  return kExitOk;
}

}  // namespace angara::cli
