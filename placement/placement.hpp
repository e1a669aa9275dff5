// Node selection: which free nodes a job should get on a shared machine
// (the "Node Selection" of the ANSU paper's utility), by the machine-wide
// objective of doc/placement.md: a set whose routes stay on its own routers
// first, then the fewest channels shared with the running jobs' routes, then
// the most taken or failed routers next to it (what it leaves for later
// jobs), then its own max gamma.  Candidates are compact sub-tori (blocks,
// isolated shapes first) and, for counts without a block or fragmented
// machines, the nearest free nodes around a seed, and Slurm's own best fit
// along its orders; the best few are routed with the configured generator
// and ranked on their routed tables, and the winner is verified.  On
// machines of more than 512 nodes with balanced (its option turns not set),
// every candidate is first scored by balanced in direction order (turns:
// off) and only the best two are routed as configured.  On those machines
// the candidates are first scored in closed form (score_closed_form): an
// isolated block without a failed cable inside wins without any routing
// (its routes stay inside, its bound is the shape's, its shared channels
// are the busy ones between its routers), and other sets are routed only
// when routing them is cheap (kClosedFormRoutingWork); otherwise the
// closed-form best is the choice and the prologue computes its table.
// `select --count 256` on a half-busy 8x8x8x8 takes a few milliseconds
// instead of seconds (doc/benchmarks.md, "Select latency").  The blocks, their
// shapes and PlacementError are in blocks.hpp; the objective by geometry
// alone (the select plugin's) in block_choice.hpp; Slurm's own order and
// best fit in slurm_order.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "placement/blocks.hpp"
#include "routing/generator.hpp"
#include "routing/check/verifier.hpp"

namespace angara {

struct PlacementRequest {
  std::size_t node_count = 0;  // 0: the shape's volume
  std::optional<Shape> shape;  // only blocks of this shape (in machine dimension order)
  // Per NodeId, nonzero when the node may be given to the job (idle in
  // Slurm).  Empty: every live node.  Failed nodes are never chosen.
  std::vector<unsigned char> free;
  // Per channel slot, the routes of running jobs crossing it (channel_loads
  // of their tables, summed).  Empty: nothing runs.
  std::vector<std::uint64_t> busy;
  std::string algorithm = std::string(default_generator_name());
  GeneratorOptions generator_options;
  VerifyOptions verify_options;
  // Candidate sets routed and compared; more are routed only while none of
  // those could be.
  std::size_t route_limit = 4;
  // Also route what Slurm's best fit would give along the node order and
  // along the nested blocks (CandidateKind::run), so that the choice is never
  // worse than Slurm's own at this moment.
  bool compare_slurm_runs = true;
  // routing.confine: the prologue computes the job's table on its own
  // routers alone when it can, so each candidate is routed that way first,
  // and the geometric choice under confinement (choose_free_block: a box's
  // staircase or a free staircase, CandidateKind::staircase) competes too.
  bool confine = false;
};

// block: a free sub-torus or box; nearest: the free nodes nearest a seed;
// run: Slurm's own best fit along an order (node order, nested blocks);
// staircase: under routing.confine, an order filter of free nodes whose
// routes in direction order stay inside (block_choice.hpp).
enum class CandidateKind { block, nearest, run, staircase };
const char* candidate_kind_name(CandidateKind kind);

struct Candidate {
  CandidateKind kind = CandidateKind::block;
  Shape shape{};   // block: its extent; nearest: its bounding box
  Coord origin{};  // block: its lowest corner; nearest: the seed node
  std::vector<NodeId> nodes;  // sorted
  // Per-dimension bound of these nodes on the intact machine (the live
  // network's, once routed), and their mean torus distance over ordered pairs.
  std::uint64_t lower_bound = 0;
  double average_distance = 0;
  std::size_t busy_ports = 0;  // channels leaving its nodes that running jobs' routes use
  std::size_t contact = 0;     // taken or failed nodes right outside it (packs jobs together)
  // After routing:
  bool routed = false;
  bool routable = false;
  std::uint64_t max_gamma = 0;
  std::size_t shared_channels = 0;  // channels its routes use that running jobs' routes use
  std::size_t foreign_routers = 0;  // routers outside the set its routes cross (0: isolated)
  bool confined = false;            // routing.confine: routed on its own routers alone
  double average_hops = 0;
  std::string failure;  // why it could not be routed
  // Routed in the scoring pass only (balanced in direction order, see
  // select_nodes): max_gamma and the rest are that pass's.
  bool estimate = false;
  // Routed as configured after the scoring pass: the scoring pass's max gamma.
  std::uint64_t estimated_gamma = 0;
  // Scored in closed form, not routed: max_gamma is its intact bound,
  // average_hops its mean distance, foreign_routers the routers of its
  // route region (route_region) it does not own (exact, 0, for an isolated
  // block), shared_channels the busy channels of that region.
  bool closed_form = false;
};

struct PlacementResult {
  std::vector<NodeId> nodes;  // the winner, sorted
  RouteTable table;           // its routes, verified
  VerifyReport report;
  std::vector<Candidate> compared;  // the routed candidates, in the order tried
  std::size_t winner = 0;           // index into compared
  // False when the winner was chosen in closed form: `table` is empty and
  // `report` says nothing (the job's prologue computes and verifies it).
  bool routed = true;
  std::size_t considered = 0;       // candidate sets scored (routed or not)
  double seconds = 0;
};

// Chooses the job's nodes.  Throws PlacementError for a request that cannot
// be met (fewer free live nodes than asked, a bad shape, no free block of the
// asked shape), RoutingError when no candidate set can be routed.
PlacementResult select_nodes(const Network& network, const PlacementRequest& request);

// Whether select_nodes scores candidates in closed form first (machines of
// more than 512 nodes), and whether `angara-route select` estimates running
// jobs' channels instead of routing them (add_region_channels).
bool scores_in_closed_form(const Torus& torus);

// Adds one route to every live channel of the route region of `job`
// (route_region): the channels a running isolated block's routes use, a
// superset for other sets.  Routing a running job of 2048 scattered nodes
// costs a minute; this costs microseconds.
void add_region_channels(const Network& network, const std::vector<NodeId>& job, std::vector<std::uint64_t>& busy);

// Adds the channel loads of `table` (routes per channel slot) to `busy`,
// sizing it to the torus first.
void add_busy_channels(const Network& network, const RouteTable& table, std::vector<std::uint64_t>& busy);

}  // namespace angara
