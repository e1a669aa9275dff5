// The admin tool's subcommands (angara-route(8)), each given its own argv
// (argv[0] is the subcommand's name).  They parse, call the core library and
// report; main() (angara_route.cpp) maps what they throw to exit statuses.
#pragma once

#include <string>

#include "angara/config.hpp"
#include "slurm/slurm_query.hpp"

namespace angara::cli {

// spank-angara's plugstack arguments, configuration, table directory and
// Slurm settings; one line per finding, exit 3 when something is wrong.
int check_command(int argc, char** argv);
// Which routing a running job uses (its table files and their verdict).
int show_command(int argc, char** argv);
// verify --job: a running job's installed tables, verified as a whole.
int verify_job_command(const Config& config, const std::string& job_id, const std::string& table_dir,
                       slurm::FailedStates failed_states, int timeout_seconds, bool json);
// Prints the chosen nodes of a job as one hostlist (or JSON).
int select_command(int argc, char** argv);
// Prints slurm.conf node lines in nested-block order and writes
// topology.conf.
int slurm_conf_command(int argc, char** argv);
// Writes the node-states file that select --node-states reads (for
// job_submit.lua): slurmctld's failed and unavailable nodes, with the time.
int node_states_command(int argc, char** argv);
// Writes the default (whole-machine, job "default") tables of the given
// nodes (default: every live node of the machine), verified, as an epilogue
// writes its node's; refuses to replace a job's table.
int install_defaults_command(int argc, char** argv);
// Rewrites the tables of running jobs (and, on request, the default tables
// of idle nodes) after Slurm nodes went down.  Prints one line per job to
// stdout, problems to stderr.  Throws the core's exceptions for a single
// --job, so main() maps them to exit statuses; with --all-running it goes on
// after a failed job and returns that job's status.
int rebuild_command(int argc, char** argv);

// Traffic patterns on a job's routing in the flow simulator (SimGrid), beside
// plain DOR and the physical limit; optionally the job as an SMPI platform.
int simulate_command(int argc, char** argv);

}  // namespace angara::cli
