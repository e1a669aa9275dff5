// The "balanced" generator: minimal, Angara-encodable, deadlock-free routes
// chosen to bring the edge forwarding index (max channel load) down to the
// per-dimension lower bound of doc/model.md ("Metrics").
//
// Every pair picks one of its candidate routes (routing/common/candidates.hpp:
// the sign choices of tied dimensions, the two cables of size-2 dimensions and
// the deadlock-safe FS/LS orders), so every table is minimal where faults
// allow, encodable and deadlock-free by construction.  The choice:
//  0. whole sub-tori (the whole machine, Desmos-like blocks) without faults
//     get an exact construction by displacement (sub_torus_choice), and
//     blocks of a larger torus (whole rings and short arcs, meshes) one in
//     closed form (block_table); a whole large machine with failures starts
//     the stages below from that construction, and only the pairs whose
//     routes the failures cut are assigned and checked anew
//     (around_failures_table); under a time budget too short for the
//     stages below that every searched table needs (candidate sets, greedy
//     start, deadlock guard), a block or any job of a healthy machine keeps
//     its direction-order table, verified by construction (anytime.hpp),
//     whose pairs on a healthy machine then go the other way round rings
//     off the busiest channels while the budget lasts (ring_ways.hpp; a
//     block's routes the long way only round the rings it spans whole);
//  1. otherwise greedy: pairs in a fixed order, most constrained first, each
//     taking the candidate that least raises the loads it crosses;
//  2. local search: a route crossing a channel at the max load moves to
//     another candidate when that lowers the objective (max load, number of
//     channels at the max, sum of load^4), compared lexicographically; when
//     no such move exists, a pass over all pairs takes any move lowering it;
//  3. negotiated congestion (rip-up and reroute with history costs) tries to
//     bring the max one lower, and stage 2 resumes after each success;
//  4. on a machine with failures, the checked-turn stage routes the pairs
//     the candidates leave out and shortens detours
//     (routing/common/checked_turns.hpp);
//  5. unless the allocation is a whole fault-free sub-torus, stages 2 and 3
//     again over every minimal encodable route (First/Last Steps) under a
//     deadlock guard, and where that stays above the unguarded search, pure
//     DOR routes the long way round rings (refine_with_turns); on a healthy
//     machine under a budget that binds, stages 2 and 3 run only here: a
//     block's from its closed form, any other job's, when the budget cannot
//     pay for the whole refinement, from the better of two starts over its
//     direction-order and long-way DOR routes (refine_scattered_intact).
// Everything is deterministic.  The search stops at the lower bound of the
// candidate space (no table of these candidates can do better).
//
// This file holds the generator, its options and the order of the stages;
// the stages themselves are in routing/generators/balanced/: stage 0 in
// sub_torus.hpp, block.hpp, around_failures.hpp and anytime.hpp, stages 1-3 in
// balancer.hpp (over the direction-order routes alone: ring_ways.hpp),
// stage 5 in refinement.hpp
// (stage 4 is routing/common/checked_turns.hpp).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "routing/common/candidates.hpp"
#include "routing/common/checked_turns.hpp"
#include "routing/generator.hpp"
#include "routing/generators/balanced/around_failures.hpp"
#include "routing/generators/balanced/anytime.hpp"
#include "routing/generators/balanced/balancer.hpp"
#include "routing/generators/balanced/block.hpp"
#include "routing/generators/balanced/refinement.hpp"
#include "routing/generators/balanced/sub_torus.hpp"

namespace angara {

namespace {

// Where the search starts (option `start`):
//   greedy  stage 1 (the default);
//   sssp    the SSSP generator's table, when all its routes are candidates
//           (otherwise greedy);
//   best    both, each searched, and the better result kept.
// On the benchmark set the greedy start alone is never worse than SSSP
// (doc/benchmarks.md), and SSSP costs several times the rest, hence the
// default.
enum class Start { greedy, sssp, best };

const OptionSpec kStartOption{"start", OptionSpec::Kind::word, "greedy", {"greedy", "sssp", "best"}, 0, 0,
                               "start the local search from the greedy assignment, from the SSSP table, or from "
                               "whichever of the two is better"};

Start read_start(const GeneratorOptions& options) {
  const std::string start = option_text("balanced", kStartOption, options);
  return start == "sssp" ? Start::sssp : start == "best" ? Start::best : Start::greedy;
}

// Option `construction`: direct (the default) writes whole fault-free
// sub-tori straight from their displacement classes (sub_torus_table) and
// fault-free blocks of a larger torus in closed form (block_table);
// candidates always goes through the candidate set, for comparison.
const OptionSpec kConstructionOption{"construction", OptionSpec::Kind::word, "direct", {"direct", "candidates"}, 0, 0,
                                      "a whole fault-free machine or sub-torus is written straight from its displacement "
                                      "classes (the same table in a fraction of the time and memory), a fault-free "
                                      "block of a larger torus (whole rings and short arcs) in closed form, and a whole "
                                      "machine of 1000 nodes or more with failures starts from the fault-free closed "
                                      "form wherever the failures leave it alive; or always through the candidate set, "
                                      "for comparison"};

bool read_construction(const GeneratorOptions& options) {
  return option_text("balanced", kConstructionOption, options) == "direct";
}

// Option `turns`: on (the default) lets allocations that are not whole
// fault-free sub-tori use First/Last Step orders as extra path diversity
// (stage 5, refine_with_turns; on a machine with failures, the pairs that
// keep a minimal route);
// off keeps the routes of the augmented candidate set, for comparison.
const OptionSpec kTurnsOption{"turns", OptionSpec::Kind::word, "on", {"on", "off"}, 0, 0,
                               "an allocation that is not a whole fault-free sub-torus (a block, a scattered job) "
                               "may also use First and Last Step orders of its minimal routes, each admitted only "
                               "when it closes no forbidden cycle in the channel dependency graph; on a machine "
                               "with failures this applies to the pairs that keep a minimal route; off keeps the "
                               "direction-order routes, for comparison"};

bool read_turns(const GeneratorOptions& options) { return option_text("balanced", kTurnsOption, options) == "on"; }

// Extra hops a long-way DOR route may take by default (option long_way).
constexpr int kLongWayHops = 2;

// Option `long_way`: how many hops longer than minimal a route of a
// sub-allocation may be, as a pure DOR route the long way round
// rings, where the minimal routes stay above the bound (stage 5,
// refine_with_turns).  Default 2; 0 (or off) keeps every such route minimal.
const OptionSpec kLongWayOption{"long_way", OptionSpec::Kind::integer, "2", {"off"}, 0, 99,
                                 "where those minimal routes stay above what the same search reaches without the "
                                 "deadlock rule (scattered jobs on long rings), routes may go the long way round "
                                 "rings as direction-order routes at most this many hops longer than minimal; they "
                                 "close no forbidden cycle; a scattered job whose time budget cannot pay for the whole "
                                 "refinement starts from them; 0 or off keeps every route minimal"};

int read_long_way(const GeneratorOptions& options) {
  return static_cast<int>(option_integer("balanced", kLongWayOption, options));
}

class BalancedGenerator : public Generator {
 public:
  std::string_view name() const override { return "balanced"; }
  std::vector<OptionSpec> option_specs() const override {
    return {kStartOption, kConstructionOption, kTurnsOption, kLongWayOption};
  }
  // On a whole fault-free torus it fills the table directly; elsewhere it
  // keeps the candidate routes of every pair.  Its First/Last Step
  // refinement holds every minimal encodable route of a pair, the long-way
  // routes and several balancers at once: 0.55-1.1 KiB a pair at 4-6 mean
  // hops, 0.8 KiB at 10 (random subsets of 128 to 1024 nodes,
  // doc/benchmarks.md, "Memory estimate").
  double peak_bytes(const MemoryContext& context, const GeneratorOptions& options) const override {
    // A budget below the fixed stages' work on a machine whose every port
    // is live: the direction-order table alone (anytime.hpp), besides the
    // one start_route_table made.
    if (!context.whole_intact_torus && context.every_port_live && options.flow_control == FlowControl::bubble &&
        read_construction(options) &&
        balanced::budget_below_fixed_stages(options.budget.get(), context.allocation_size))
      return context.pairs * 9 + context.channel_slots * context.layers * 16;  // the ring ways' byte a pair
    // A whole machine with failures whose budget leaves out the search over
    // every pair: the closed form, the result and the detours' checked-turn
    // stage (around_failures.hpp).
    if (read_construction(options) && context.allocation_size >= balanced::kAroundFailuresMinNodes &&
        balanced::routes_around_failures(context.faults, context.allocation_size, context.live_nodes,
                                         options.flow_control) &&
        !balanced::search_every_pair_affordable(options.budget.get(), context.allocation_size))
      return context.pairs * balanced::kAroundFailuresBytesPerPair + context.channel_slots * context.layers * 16;
    // Any other job of a machine with failures whose budget is below the
    // fixed stages' work: the direction-order table around them
    // (anytime.hpp) with its ring ways' byte a pair and moved pairs, and
    // where the checked-turn stage runs its dependency counts, graph and
    // per-router search state (a scattered 4096 nodes of 16x16x8x8 with
    // two failed routers: 160 MB of growth).
    const bool whole_around_failures =
        context.allocation_size >= balanced::kAroundFailuresMinNodes &&
        balanced::routes_around_failures(context.faults, context.allocation_size, context.live_nodes,
                                         options.flow_control);
    if (!whole_around_failures && context.faults && options.flow_control == FlowControl::bubble &&
        read_construction(options) &&
        balanced::budget_below_fixed_stages(options.budget.get(), context.allocation_size))
      return context.pairs * 9 + context.channel_slots * (context.layers * 16 + 160) +
             static_cast<double>(context.live_nodes) * 1024;
    const auto turns = options.extra.find(std::string(kTurnsOption.key));
    const bool refined = !context.whole_intact_torus && (turns == options.extra.end() || turns->second != "off") &&
                         (!context.faults || (context.allocation_size <= balanced::kFaultyRefinementMaxNodes &&
                                              context.allocation_size < context.live_nodes));
    // Around failures without the refinement, the checked-turn stage's
    // search state besides (whole 8x8x4x4 with one or three failed routers:
    // 136-138 MB of growth).
    const double fixed = context.whole_intact_torus ? 0.25 : refined ? 900 : context.faults ? 70 : 40;
    // (A balancer's per-channel lists hold 8 bytes a hop of the chosen
    // routes: the pair and its move count, balancer.hpp.)
    const double per_hop = context.whole_intact_torus ? 0 : refined ? 104 : context.faults ? 18 : 14;
    return context.pairs * (fixed + per_hop * context.mean_hops) + context.channel_slots * context.layers * 16;
  }
  // Node selection scores many candidate sets: in direction order (turns:
  // off, a few milliseconds each) unless turns is configured.
  std::optional<GeneratorOptions> scoring_options(const GeneratorOptions& configured) const override {
    if (configured.extra.count(std::string(kTurnsOption.key))) return std::nullopt;
    GeneratorOptions scoring = configured;
    scoring.extra[std::string(kTurnsOption.key)] = "off";
    return scoring;
  }

  RouteTable generate(const Network& network, const std::vector<NodeId>& allocation,
                      const GeneratorOptions& options) const override {
    // The shared allocation check: "NAME: allocated node ... has failed".
    RouteTable direct = start_route_table(name(), network, allocation);
    const Start start = read_start(options);
    const int long_way = read_long_way(options);
    if (read_construction(options) && balanced::sub_torus_table(network, direct)) return direct;
    // A whole large torus with a few failures: the closed form wherever the
    // failures leave it alone, the stages below only around them.
    if (read_construction(options) && direct.size() >= balanced::kAroundFailuresMinNodes &&
        balanced::around_failures_table(network, direct, options))
      return direct;
    // A budget too short for the stages every searched table needs gets the
    // direction-order table, verified by construction (anytime.hpp).
    balanced::RingWaysOutcome ring_ways = balanced::RingWaysOutcome::not_run;
    if (read_construction(options) && balanced::budget_below_fixed_stages(options.budget.get(), direct.size()) &&
        (balanced::direction_order_start(network, direct, options.flow_control, options.budget.get(), long_way,
                                         &ring_ways) ||
         balanced::direction_order_around_failures(network, direct, options, long_way, &ring_ways))) {
      options.budget->note_cut(ring_ways == balanced::RingWaysOutcome::not_run ? "load balancing"
                               : ring_ways == balanced::RingWaysOutcome::stopped
                                   ? "load balancing (ring ways only, stopped early)"
                                   : "load balancing (ring ways only)");
      if (read_turns(options)) options.budget->note_cut("First/Last Step refinement");
      return direct;
    }
    // A block's direction-order table in closed form (block_table): the
    // start of the search below when all its routes are candidates.
    const bool block = read_construction(options) && balanced::block_table(network, direct, options.flow_control);
    // On a healthy machine the First/Last Step refinement searches a set
    // that holds the direction-order candidates too, and a budget that will
    // cut the searches of a block goes to it whole, straight from the
    // block's closed form: its steps lower the max load, the same steps over
    // direction order barely do.  The augmented set, its search and its table are not built
    // (refinement.hpp).
    const bool refined_later = read_turns(options) && options.rules == RuleSet::angara &&
                               options.flow_control == FlowControl::bubble && network.every_port_live();
    if (refined_later && read_construction(options) && block &&
        balanced::budget_binds(options.budget.get(), direct.size())) {
      balanced::refine_intact_with_turns(network, options, long_way, direct);
      return direct;
    }
    // Any other job of such a machine whose budget cannot pay for the
    // whole refinement goes the short way: the direction-order and long-way
    // routes greedily, then the First/Last Step search from there
    // (refine_scattered_intact).
    if (refined_later && read_construction(options) && !block &&
        balanced::budget_cuts_refinement(options.budget.get(), direct.size())) {
      balanced::refine_scattered_intact(network, options, long_way, direct);
      return direct;
    }
    const TurnRules rules(network);
    // Pairs without a candidate are routed (or refused, with the reason) by
    // the checked-turn stage, as are detours it can shorten.
    const CandidateSet set(network, rules, allocation, balanced::kCandidateCap, /*allow_unroutable=*/true);
    std::vector<std::uint32_t> block_seed;
    if (block && !balanced::choice_of_table(set, direct, &block_seed)) block_seed.clear();
    direct = RouteTable();  // its words, n^2 of them, are not needed any more
    RouteTable table = balance(network, set, start, options, block_seed);
    // The set's routes are direction-order ones and the augmentation's
    // turns (ANSU paper, section 3.2, Theorem 2): under bubble flow control
    // they close no forbidden cycle among themselves.
    if (options.flow_control == FlowControl::bubble)
      complete_trusted_with_checked_turns(name(), network, table, options);
    else
      complete_with_checked_turns(name(), network, table, options);
    if (read_turns(options)) balanced::refine_with_turns(network, set, options, long_way, table);
    return table;
  }

 private:
  // `block_seed`: a block's closed form as a choice of candidates (empty:
  // none), searched from instead of the greedy start.
  RouteTable balance(const Network& network, const CandidateSet& set, Start start, const GeneratorOptions& options,
                     const std::vector<std::uint32_t>& block_seed) const {
    const std::uint32_t bound = balanced::candidate_space_bound(set);
    const std::size_t slots = network.torus().channel_slots();

    // Stages 2 and 3 run on the budget too (routing.time_budget): the
    // greedy start, or a block's closed form, is already a table.
    // A limited budget gives them half of what is left (an eighth from a
    // block's closed form, where the First/Last Step refinement is what
    // lowers the max load: 1766 against 2155 with half on the 8x8x4x4
    // block of 8x8x8x8), so that the stages after them (detours around
    // failures, the refinement) get the rest.
    WorkBudget* budget = options.budget.get();
    const auto searched = [&](balanced::Balancer& searching) {
      if (!budget || budget->unlimited()) {
        searching.limit_work(budget);
        balanced::search(searching, bound);
        return;
      }
      WorkBudget share(budget->left() / (block_seed.empty() ? 2 : 8) + 1);
      searching.limit_work(&share);
      balanced::search(searching, bound);
      searching.limit_work(nullptr);
      budget->spend(share.used());
      if (share.exhausted()) budget->note_cut("load balancing (stopped early)");
    };
    balanced::Balancer balancer(set, slots);
    std::vector<std::uint32_t> seed;
    if (!block_seed.empty()) {
      balancer.assign(block_seed);
      searched(balancer);
      return set.make_table(balancer.choice(), "balanced");
    }
    if (balanced::sub_torus_choice(network, set, &seed)) {
      balancer.assign(seed);
      balanced::search(balancer, bound);
      return set.make_table(balancer.choice(), "balanced");
    }
    bool from_sssp = false;
    if (start != Start::greedy && has_starting_table()) {
      GeneratorOptions plain;  // the starting generator's own defaults, not our options
      plain.seed = options.seed;
      try {
        if (balanced::choice_of_table(set, starting_table(network, set.nodes(), plain), &seed)) {
          balancer.assign(seed);
          from_sssp = true;
        }
      } catch (const RoutingError&) {
        // SSSP refused: the greedy start below still routes what it can.
      }
    }
    if (!from_sssp) balancer.assign_greedy();
    searched(balancer);
    if (start == Start::best && from_sssp && balancer.max_load() > bound) {
      balanced::Balancer greedy(set, slots);
      greedy.assign_greedy();
      searched(greedy);
      if (greedy.better_than(balancer)) return set.make_table(greedy.choice(), "balanced");
    }
    return set.make_table(balancer.choice(), "balanced");
  }
};

}  // namespace

std::unique_ptr<Generator> create_balanced_generator() { return std::make_unique<BalancedGenerator>(); }

}  // namespace angara
