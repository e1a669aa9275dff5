// The administrator's views of a live installation (angara-route(8)):
// `check` (is everything in place before the first prologue needs it),
// `show --job` (which routing a running job uses) and `verify --job` (are its
// installed tables one valid routing).  Kept out of angara_route.cpp like
// rebuild_command.hpp.
#pragma once

#include <string>
#include <vector>

#include "angara/config.hpp"
#include "plugin/slurm_query.hpp"

namespace angara {

// argv[0] is the command name.  They print to stdout and return the exit
// status; the core's exceptions go to the tool's common handler.
int check_command(int argc, char** argv);
int show_command(int argc, char** argv);

// verify --job JOBID: the job's live nodes' tables in `table_dir`, as one
// routing.  Exit 1 when a node lacks the job's table or the verifier
// rejects them.
int verify_job_command(const Config& config, const std::string& job_id, const std::string& table_dir,
                       slurm::FailedStates failed_states, int timeout_seconds, bool json);

// find_config(), saying on stderr when nothing was found and the built-in
// demonstration machine is used: tables for the wrong machine never go unnoticed.
Config load_config_announced(const std::string& path);

// "1" to "3600" seconds.
bool parse_timeout(const char* text, int& seconds);

// The usage error for a --memory-limit value parse_memory_limit() refused.
std::string memory_limit_error(const char* value);

// ["a","b"]: a JSON array of strings.
std::string json_string_list(const std::vector<std::string>& items);

}  // namespace angara
