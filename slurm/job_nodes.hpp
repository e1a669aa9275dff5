// What the plugin and the admin tool both need to know of a job's nodes as
// Slurm reports them: which node states count as failed, which names are
// nodes of the machine, and how failed routers read in a log line.
#pragma once

#include <string>
#include <vector>

#include "angara/config.hpp"
#include "slurm/slurm_query.hpp"

namespace angara::slurm {

// "down" | "down,drained" | "none" (plugstack "failed=", rebuild --failed).
// Throws std::invalid_argument "expected down, down,drained or none".
FailedStates parse_failed_states(const std::string& text);

// Names in `names` that are nodes of the machine, in order, without
// duplicates (Slurm also reports login and service nodes).
std::vector<std::string> machine_nodes_among(const Config& config, const std::vector<std::string>& names);

// "no failed routers" or "failed routers desmos[03,05]", for log lines.
std::string failed_routers_note(const std::vector<std::string>& failed);

}  // namespace angara::slurm
