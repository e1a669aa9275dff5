// exact: whether one virtual channel can carry a deadlock-free table of
// Angara-encodable routes at all, decided by an SMT solver (Z3), for the
// small allocations where the heuristic generators give up although the
// routability oracle joins every pair (the pairs the heuristics miss in the
// fault campaign, doc/benchmarks.md, "Fault campaign").  It is the last
// member of the default chain.
//
// Its searches, tried in this order:
//   whole.cpp        allocations of at most kMaxNodes nodes: one question
//                    over every pair and its candidates, a table or a proof;
//   repair.cpp       larger ones: the repair of a partial table (the chain's
//                    earlier member's, or that of the generator it starts
//                    from) by large neighbourhood search;
//   rank_search.cpp  when the repair stays undecided: the rank search with
//                    one rank per intact ring direction, then with ranks per
//                    channel.
// shared.hpp holds what they share: the limits, the candidates, the model.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "angara/network.hpp"
#include "routing/common/checked_turns.hpp"
#include "routing/generator.hpp"
#include "routing/generators/exact/exact.hpp"
#include "routing/generators/exact/shared.hpp"

namespace angara {

namespace exact {

class ExactGenerator : public Generator {
 public:
  std::string_view name() const override { return "exact"; }
  RouteTable generate(const Network& network, const std::vector<NodeId>& allocation,
                      const GeneratorOptions& options) const override;
  // Z3 itself once loaded: 27-30 MiB over the program whatever the size
  // (peaks of 35 MiB on a 3x3 and 4 nodes of one), its heap at start
  // (kSolverStartBytes) included.  Its heap is capped per
  // question (SolverMemoryCap, shared.hpp): above kMaxNodes around failures
  // the repair's and the rank search's cap beside the starting table's
  // peak, and 128 MiB of their own candidates (the repair holds a million
  // candidate hops at most); up to kMaxNodes the whole question's cap, per
  // pair, which holds its candidates too.
  double peak_bytes(const MemoryContext& context, const GeneratorOptions& options) const override {
    constexpr double kSolverBytes = 32.0 * (1 << 20);
    if (context.faults && context.allocation_size > kMaxNodes)
      return kSolverBytes + context.start_peak_bytes + static_cast<double>(kLargeQuestionSolverBytes) +
             128.0 * (1 << 20);
    if (context.allocation_size <= kMaxNodes)
      return kSolverBytes + static_cast<double>(kSolverStartBytes) +
             context.pairs * whole_question_kib_per_pair(context.faults, options.flow_control, context.dims) * 1024 +
             context.channel_slots * context.layers * 16;
    return kSolverBytes + Generator::peak_bytes(context, options);
  }
};

RouteTable ExactGenerator::generate(const Network& network, const std::vector<NodeId>& allocation,
                                    const GeneratorOptions& options) const {
  RouteTable table = start_route_table(name(), network, allocation);
  const std::size_t n = table.size();
  if (options.rules != RuleSet::angara)
    throw RoutingError("exact: it searches Angara-encodable routes only (routing.rules: angara)");
  if (n < 2) return table;
  if (n <= kMaxNodes) return decide_whole(network, std::move(table), options.flow_control);

  // Larger: repair the partial table of an earlier member of the chain, or
  // balanced's (whose table it is when balanced routes every pair).
  std::shared_ptr<const RouteTable> partial = options.partial;
  if (!partial || partial->nodes() != table.nodes()) {
    std::optional<RouteTable> whole;
    try {
      if (!has_starting_table()) throw RoutingError("exact: no table to start the repair from");
      whole = starting_table(network, allocation, options);
    } catch (const RoutingError& e) {
      if (!e.partial()) throw RoutingError("exact: " + std::to_string(n) + " nodes, more than the " +
                                           std::to_string(kMaxNodes) + " it decides at once, and the generator it starts " +
                                           "from left no partial table to repair: " + e.what());
      partial = e.partial();
    }
    if (whole) {
      // balanced keeps direction-order routes under flow control none, a
      // cycle around every ring: its whole table is taken as is only under
      // bubble (bench/angara-sweep found exact returning it on a 6x6x6).
      if (options.flow_control != FlowControl::bubble)
        throw RoutingError("exact: " + std::to_string(n) + " nodes, more than the " + std::to_string(kMaxNodes) +
                           " it decides at once, and under flow control none the whole table it starts from is not "
                           "deadlock-free (it repairs partial tables only)");
      whole->algorithm = name();
      return std::move(*whole);
    }
  }
  try {
    RouteTable repaired = repair_with_solver(network, *partial, options.flow_control);
    repaired.algorithm = name();
    return repaired;
  } catch (const UndecidedError& repair) {
    // The repair's neighbourhoods did not converge (every core a cycle
    // through an intact ring, fed by thousands of pairs: whole 16x32
    // machines): the rank search over the whole allocation.
    try {
      RouteTable ranked = rank_search(network, std::move(table), options.flow_control, true, -1);
      // Its routes are the shortest the ranks admit; the checked-turn stage
      // shortens those it can without a forbidden cycle.
      complete_with_checked_turns(name(), network, ranked, options);
      ranked.algorithm = name();
      return ranked;
    } catch (const UndecidedError& ranks) {
      // Ranks per channel and every candidate: a proof when the pairs that
      // direction order leaves out, and those their ranks leave out, admit
      // no ranks (0.2 s for 390 such pairs on a faulty machine of the fault
      // campaign); one question's budget.
      try {
        RouteTable ranked = rank_search_with_budget(network, start_route_table(name(), network, allocation),
                                                    options.flow_control, false, -1, kResourceLimit);
        complete_with_checked_turns(name(), network, ranked, options);
        ranked.algorithm = name();
        return ranked;
      } catch (const UndecidedError& channel_ranks) {
        // Both rank searches often end the same way: said once, so that the
        // refusal stays one short line.
        const std::string searches = ranks.why() == channel_ranks.why()
                                         ? "then, with ranks per route and per channel alike, " + ranks.why()
                                         : "then " + ranks.why() + "; then with ranks per channel, " +
                                               channel_ranks.why();
        throw RoutingError(std::string(repair.what()) + "; " + searches);
      }
    }
  }
}

}  // namespace exact

std::unique_ptr<Generator> create_exact_generator() { return std::make_unique<exact::ExactGenerator>(); }

}  // namespace angara
