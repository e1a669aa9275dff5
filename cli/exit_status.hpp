// The admin tool's exit statuses (angara-route(8)) and the one mapping from
// the core's exceptions to them, shared by every subcommand.
#pragma once

#include <exception>
#include <string>

#include "routing/refusal.hpp"
#include "routing/report.hpp"

namespace angara::cli {

enum ExitStatus : int {
  kExitOk = 0,
  kExitRejected = 1,     // a table broke a verifier rule
  kExitUsage = 2,        // bad command line
  kExitInput = 3,        // bad configuration, node name, algorithm name
  kExitNoRoute = 4,      // the failures leave no valid routing
  kExitIo = 5,           // a table file could not be written or read
  kExitSlurmQuery = 6,   // slurmctld could not be asked (scontrol failed or timed out)
  kExitGeneralRules = 7, // table files asked for from a rules-general table (nothing written)
  kExitUnsafeSwitch = 8, // a running job's routes cannot be switched live safely (nothing written)
  kExitMemory = 9,       // over the memory limit (refused before computing) or out of memory (std::bad_alloc)
  kExitRecordLost = 10,  // a rebuild that did its work could write its record neither to the log file nor to syslog
};

int exit_status_of(const std::exception_ptr& error);

// Errors go to stderr as "angara-route: MESSAGE" lines, or, when the command
// line asked for --json, to stdout as one object {"error": {"exit_status":
// N, "message": "..."}} so that a JSON reader always gets JSON.
void set_json_errors(bool json);
void print_error(const std::string& message, int exit_status);
// A routing refusal (routing/refusal.hpp): the summary on one line with how
// to see the rest, or with --verbose the detail after it, one pair a line;
// under --json the error object carries it all as "refusal".  Returns
// kExitNoRoute.
int print_refusal(const Refusal& refusal, bool verbose);

}  // namespace angara::cli
