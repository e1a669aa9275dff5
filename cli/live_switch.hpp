// Rewriting a running job's tables safely: the routers switch from
// the installed to the new table one by one, so the network carries both.
// The switch goes ahead directly when their union is deadlock-free, through
// intermediate table sets when the transition planner finds such a sequence
// (routing/check/transition.hpp), and is refused otherwise unless the operator has
// quiesced the job (angara-route(8), LIVE SWITCHES).
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "angara/config.hpp"
#include "angara/table_set.hpp"
#include "routing/pipeline.hpp"
#include "routing/check/transition.hpp"

namespace angara::cli {

// No safe live switch exists: the job must be quiesced (exit status 8).
class UnsafeSwitchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SwitchOptions {
  bool quiesced = false;     // the operator stopped the job's traffic: no check
  double step_wait = 2.0;    // seconds between two table sets of a staged switch
};

struct SwitchOutcome {
  TransitionKind kind = TransitionKind::direct;
  std::size_t steps = 0;            // intermediate table sets written
  std::size_t installed_nodes = 0;  // nodes whose installed table of the job was found
  bool checked = true;              // false: quiesced, nothing compared
  std::string summary() const;      // "live switch direct (installed tables of 31 nodes)"
};

// The job's routes as installed in `directory`: the tables of `nodes` there
// that belong to `job_id` (other files, missing or unreadable ones are left
// out, so a node without one contributes no route).
RouteTable installed_job_table(const Config& config, const std::string& directory, const std::string& job_id,
                               const std::vector<std::string>& nodes);

// How the switch from `installed` to result's table would go (sets
// outcome's kind, steps and installed_nodes); writes nothing.
TransitionPlan check_switch(const JobResult& result, const RouteTable& installed, SwitchOutcome& outcome);

// Writes `result` (of the job's nodes `targets`) into `directory` like
// write_job_tables, after checking the switch from `installed`.  A staged
// switch writes each intermediate table (verified first) as a set of its own
// and waits options.step_wait seconds after each; `set_options` apply to the
// first set written.  Throws UnsafeSwitchError, before writing anything, when
// no safe switch exists and the job is not quiesced.
SwitchOutcome switch_job_tables(const Config& config, const JobResult& result, const RouteTable& installed,
                                const std::string& directory, const std::vector<std::string>& targets,
                                const TableSetOptions& set_options, const SwitchOptions& options);

}  // namespace angara::cli
