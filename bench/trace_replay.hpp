// The trace replay of angara-placement-bench (doc/benchmarks.md, "Trace
// replay"): a job trace through an FCFS + EASY-backfill scheduler model on
// one machine, each started job placed by one policy, routed with balanced
// on the live network, and measured against the jobs running beside it.
//
// The scheduler counts nodes, as Slurm's backfill does for a job without
// --switches or a block request: the queue's head starts when enough nodes
// are free, else it gets a reservation at the earliest estimated end that
// frees enough (its shadow time), and a later job starts now when it fits
// the free nodes and either ends (by its estimate) before the shadow time
// or fits the nodes the head leaves spare then (EASY: Lifka 1995, as
// Mu'alem and Feitelson 2001 describe it).  Event-driven: the state changes
// only at a submission or an end.  Every policy can place any job on any
// free nodes (angara falls back to linear best fit, as select/angara falls
// back to the wrapped plugin), so the schedule does not depend on the
// policy except through jobs that cannot be routed (dropped, counted).
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "bench/workload.hpp"

namespace angara::bench {

// angara: placement/block_choice.hpp's choose_free_block (select/angara);
// linear: Slurm's best fit along node order (select/linear, cons_tres);
// tree: Slurm's topology/tree over slurm-conf's switches (tree_best_fit);
// select: angara-route select (routed candidates; slow on long traces).
enum class ReplayPolicy { angara, linear, tree, select };
const char* replay_policy_name(ReplayPolicy policy);
// False for an unknown name.
bool parse_replay_policy(const std::string& name, ReplayPolicy& policy);

struct ReplayOptions {
  ReplayPolicy policy = ReplayPolicy::angara;
  std::size_t leaf_size = 8;             // tree: nodes of a leaf switch at most (slurm-conf --leaf-size)
  std::vector<std::size_t> simulate;     // indices into the trace: jobs whose all-to-all is simulated
  double slowdown_threshold = 10;        // s, of the bounded slowdown
  std::FILE* per_job = nullptr;          // one line per started job, when set
  std::string machine_label;             // for the per-job lines
  // Route with balanced in direction order (its turns option off: what
  // node selection scores candidates with, milliseconds a job) instead of
  // as configured (seconds for a job of hundreds of nodes).
  bool route_in_direction_order = false;
  // angara: a job placed in a box (a subset of a free isolated box larger
  // than the job) holds the box's other routers while it runs: no other
  // job of 2+ nodes is given them (1-node jobs, which route nothing, take
  // them first), so its minimal routes, which stay inside the isolated box,
  // cross no other job's routers (select/angara's HoldBoxSpares).
  bool hold_box_spares = false;
  // angara: a job of 2+ nodes that finds no free block (or box) waits for
  // one up to this many seconds after its submission before it takes what
  // linear best fit gives it (0: it never waits).  Backfill goes on behind it.
  double block_wait = 0;
  // angara: routing.confine.  The block choice offers blocks of every
  // shape, a box's staircase and free staircases (placement/block_choice.hpp),
  // and every job is routed on its own routers alone when a table exists
  // there, else on the live network, as the pipeline does.  No box router
  // is held: a job in a box takes its staircase, routed inside it.
  bool confine = false;
};

struct ReplayResult {
  std::size_t jobs = 0;        // in the trace
  std::size_t too_large = 0;   // more nodes than the machine's live ones: skipped
  std::size_t started = 0;
  std::size_t unroutable = 0;  // placed, but balanced found no valid routing: dropped
  std::size_t routed = 0;      // started jobs of 2+ nodes
  std::size_t isolated = 0;    // of those, whose routes cross no router outside their nodes (and their held box routers)
  std::size_t own_only = 0;    // of those, whose routes cross no router outside their nodes at all
  std::size_t sharing = 0;     // of those, that share a channel with a job running at their start
  double shared_channels = 0;  // mean over routed jobs: channels also used by running jobs' routes
  double shared_load = 0;      // mean over routed jobs: running jobs' routes on the channels it uses
  double utilisation = 0;      // node-seconds of started jobs / (live nodes x (last end - first submit))
  double mean_wait = 0;        // s, over started jobs
  double mean_bounded_slowdown = 0;
  // angara: how jobs were placed.
  std::size_t exact_blocks = 0, boxes = 0, open_blocks = 0, fallbacks = 0;
  std::size_t block_waits = 0;  // block_wait: started jobs that waited for a block at least once
  std::size_t staircases = 0;   // confine: jobs placed on a free staircase (counted apart from fallbacks)
  std::size_t confined = 0;     // confine: jobs of 2+ nodes routed on their own routers alone
  // --simulate: jobs simulated, and their mean flow bandwidth (bytes/s) in
  // an all-to-all beside the running jobs' all-to-alls.
  std::size_t simulated = 0;
  double mean_bandwidth = 0;
  double simulate_seconds = 0;  // wall
  double place_ms = 0, place_worst_ms = 0;  // wall, choosing the nodes (routing not counted)
  double route_seconds = 0;                 // wall, routing and verifying the jobs
  double seconds = 0;                       // wall, the whole replay
};

// Throws std::invalid_argument for a simulated job index out of range.
ReplayResult replay_trace(const Network& network, const std::vector<TraceJob>& trace, const ReplayOptions& options);

}  // namespace angara::bench
