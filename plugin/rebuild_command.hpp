// `angara-route rebuild`: rewrite the tables of running jobs (and, on
// request, the default tables of idle nodes) after Slurm nodes went down.
// Kept out of angara_route.cpp so the admin tool's table gains one line.
#pragma once

namespace angara {

// argv[0] is "rebuild".  Prints one line per job to stdout, problems to
// stderr.  Throws the core's exceptions (ConfigError, RoutingError, ...) for
// a single --job, so the tool's common handler maps them to exit codes; with
// --all-running it goes on after a failed job and returns that job's status.
int rebuild_command(int argc, char** argv);

}  // namespace angara
