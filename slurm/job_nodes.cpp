#include "slurm/job_nodes.hpp"

#include <set>
#include <stdexcept>

#include "angara/hostlist.hpp"

namespace angara::slurm {

FailedStates parse_failed_states(const std::string& text) {
  if (text == "down") return FailedStates::Down;
  if (text == "down,drained" || text == "drained,down") return FailedStates::DownAndDrained;
  if (text == "none") return FailedStates::None;
  throw std::invalid_argument("expected down, down,drained or none");
}

std::vector<std::string> machine_nodes_among(const Config& config, const std::vector<std::string>& names) {
  std::vector<std::string> machine;
  std::set<std::string> seen;
  for (const std::string& name : names)
    if (config.node_by_name(name) && seen.insert(name).second) machine.push_back(name);
  return machine;
}

std::string failed_routers_note(const std::vector<std::string>& failed) {
  return failed.empty() ? "no failed routers" : "failed routers " + compress_hostlist(failed);
}

}  // namespace angara::slurm
