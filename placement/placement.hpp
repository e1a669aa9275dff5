// Node selection: which free nodes a job should get so that its routes are
// short, its maximum channel load low and its channels its own (the "Node
// Selection" of the ANSU paper's utility).  Candidates are compact sub-tori
// (blocks) first, then, when no block of the size fits the free nodes, the
// nearest free nodes around a seed; the best few are routed with the
// configured generator and verified, and the winner is the routable one with
// the lowest routed max gamma, then the fewest channels shared with the
// running jobs' routes.  On machines of more than 512 nodes with balanced
// (its option turns not set), every candidate is first scored by balanced in
// direction order (turns: off) and only the best two are routed as
// configured.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "routing/generator.hpp"
#include "routing/check/verifier.hpp"

namespace angara {

// Extent of a block in each dimension (1 for a dimension it does not span).
using Shape = std::array<int, kMaxDims>;

// A request that cannot be met as asked: too few free nodes, a shape that
// does not fit the machine, a count that disagrees with the shape.
class PlacementError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Parses "2x4x4" against the machine: one size per declared dimension or
// fewer (the rest are 1), each between 1 and the machine's size.  Throws
// PlacementError saying what was expected.
Shape parse_shape(const Torus& torus, std::string_view text);
// "2x4x4": the declared dimensions of the machine.
std::string format_shape(const Torus& torus, const Shape& shape);
std::size_t shape_volume(const Shape& shape);
// The nodes of the block of `shape` whose lowest corner is `origin`, taken
// with wrap-around, sorted by NodeId.
std::vector<NodeId> block_nodes(const Torus& torus, const Shape& shape, const Coord& origin);

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
};

// block: a free sub-torus or box; nearest: the free nodes nearest a seed;
// run: Slurm's own best fit along an order (node order, nested blocks).
enum class CandidateKind { block, nearest, run };
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
  double average_hops = 0;
  std::string failure;  // why it could not be routed
  // Routed in the scoring pass only (balanced in direction order, see
  // select_nodes): max_gamma and the rest are that pass's.
  bool estimate = false;
  // Routed as configured after the scoring pass: the scoring pass's max gamma.
  std::uint64_t estimated_gamma = 0;
};

struct PlacementResult {
  std::vector<NodeId> nodes;  // the winner, sorted
  RouteTable table;           // its routes, verified
  VerifyReport report;
  std::vector<Candidate> compared;  // the routed candidates, in the order tried
  std::size_t winner = 0;           // index into compared
  std::size_t considered = 0;       // candidate sets scored (routed or not)
  double seconds = 0;
};

// Chooses the job's nodes.  Throws PlacementError for a request that cannot
// be met (fewer free live nodes than asked, a bad shape, no free block of the
// asked shape), RoutingError when no candidate set can be routed.
PlacementResult select_nodes(const Network& network, const PlacementRequest& request);

// Adds the channel loads of `table` (routes per channel slot) to `busy`,
// sizing it to the torus first.
void add_busy_channels(const Network& network, const RouteTable& table, std::vector<std::uint64_t>& busy);

// The machine cut into nested blocks, halving one dimension per level (the
// space-filling order `angara-route slurm-conf` gives Slurm): a dimension the
// block spans at size 2 of the machine first, highest dimension first (its
// halves are sub-tori: only the pair's cables are cut); otherwise the
// dimension of the largest extent, highest first, into ceil/floor halves.
// On Desmos 4x2x2x2 the levels are 4x2x2 (16 nodes), 4x2 (8), the X ring
// (4), 2 and 1: any run of the order aligned to a level is a block of it.
struct NestedBlock {
  Shape shape{};
  Coord origin{};
  std::size_t first = 0;  // its nodes are order[first, first + count)
  std::size_t count = 0;
  int level = 0;                     // 0: the machine
  std::string path;                  // "" for the machine, then '0'/'1' per level (lower/upper half)
  std::vector<std::size_t> children; // indices into NestedBlocks::blocks; empty for a single node
};
struct NestedBlocks {
  std::vector<NodeId> order;         // every node of the torus, block after block
  std::vector<NestedBlock> blocks;   // blocks[0] is the machine; parents before children
};
NestedBlocks nested_blocks(const Torus& torus);

// Slurm-like best fit along `order` (select/linear over slurm.conf order):
// the first `count` nodes of the smallest run of consecutive free nodes
// that holds them, else of the largest runs first.  Sorted; shorter than
// `count` when fewer nodes are free.
std::vector<NodeId> best_fit_run(const std::vector<NodeId>& order, const std::vector<unsigned char>& free,
                                 std::size_t count);

}  // namespace angara
