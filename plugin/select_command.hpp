// `angara-route select` (the nodes a job should get) and `angara-route
// slurm-conf` (slurm.conf node lines and topology.conf along the torus).
// They gather their inputs (configuration, slurmctld's node states and
// running jobs) and print; the choice itself is routing/placement.hpp's.
#pragma once

#include <string>
#include <vector>

#include "plugin/slurm_query.hpp"

namespace angara {

// argv[0] is "select".  Prints the chosen nodes as one hostlist (or JSON).
int select_command(int argc, char** argv);
// argv[0] is "slurm-conf".  Prints slurm.conf node lines in nested-block
// order and writes topology.conf (plugin/slurm_conf_command.cpp).
int slurm_conf_command(int argc, char** argv);
// argv[0] is "node-states".  Writes the node-states file that select
// --node-states reads (for job_submit.lua): slurmctld's failed and
// unavailable nodes, with the time they were asked.
int node_states_command(int argc, char** argv);

namespace slurm {
// A node Slurm may give to a new job right now: state exactly IDLE (no
// DRAIN, RESERVED, NOT_RESPONDING or other flag).
bool node_is_free(const NodeState& node);
}  // namespace slurm

}  // namespace angara
