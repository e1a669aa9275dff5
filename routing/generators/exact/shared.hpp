// What the exact generator's searches share (namespace angara::exact): the
// limits, the enumeration of encodable candidates, and the solver's model
// (one satisfiability question over some pairs and their candidates, defined
// in whole.cpp), which the whole allocation, the repair (repair.cpp) and the
// rank search's proof (rank_search.cpp) all ask.
#pragma once

#include <z3++.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "angara/rules.hpp"
#include "routing/common/generator_support.hpp"

namespace angara::exact {

// Larger allocations are refused at once: the model grows with the pairs
// times their candidates, and the heuristics route those machines.
constexpr std::size_t kMaxNodes = 100;
// Z3's deterministic resource budget for each satisfiability check: about
// 20 s here (Z3 counts some 4-5 million units a second); the scenarios of the
// fault campaign need at most a few million.
constexpr unsigned kResourceLimit = 80'000'000;
// Pairs a proof's message names at most.
constexpr std::size_t kPairsShown = 4;

// Z3's own heap at most while a question is asked: Z3's process-wide
// memory_max_size, set for the question and cleared after it.  Past it an
// allocation fails and the answer is unknown ("its memory bound"), so the
// generator's estimate (exact.cpp) holds by construction; without it a
// rank search over 2867 pairs of a faulty 6x6x6 under flow control none
// grew Z3 to 1.4 GiB, and one on a faulty 8x8x8 past 6 GiB
// (bench/angara-sweep).  Z3's heap as Z3 counts it before any question (a
// context, its tables; 24 MiB was too little for a 3-node question, whose
// solver then answered "out of memory"): every cap is on top of it.
constexpr std::uint64_t kSolverStartBytes = std::uint64_t{64} << 20;
// The repair's and the rank search's questions:
constexpr std::uint64_t kLargeQuestionSolverBytes = kSolverStartBytes + (std::uint64_t{832} << 20);
// The question over every pair of an allocation of at most kMaxNodes: KiB a
// pair, measured on whole allocations (peaks over the program and Z3's
// start): around failures up to 113 KiB (10x10 with two failed routers and a
// cable: 1055 MiB under either flow control; 9x9 and 10x10 with three failed
// routers and a cable: 545 and 705 MB); fault-free under flow control none
// 32 KiB (a whole 8x8: 165 MB), under bubble 8 KiB a pair and dimension, at
// least 16 (a whole 3x3x3x3: 195 MB).
double whole_question_kib_per_pair(bool faults, FlowControl flow, int dims);

class SolverMemoryCap {
 public:
  explicit SolverMemoryCap(std::uint64_t bytes);
  ~SolverMemoryCap();
  SolverMemoryCap(const SolverMemoryCap&) = delete;
  SolverMemoryCap& operator=(const SolverMemoryCap&) = delete;
};

// True for the exception Z3 throws when its heap reached the cap.
bool is_out_of_memory(const z3::exception& error);

using Hops = std::vector<Direction>;

// An undecided search (limits reached, neither a table nor a proof): the
// generator then tries its next search.
class UndecidedError : public RoutingError {
 public:
  UndecidedError(const std::string& message, std::string why) : RoutingError(message), why_(std::move(why)) {}
  const std::string& why() const { return why_; }

 private:
  std::string why_;
};

// A route without First or Last Step: directions in order, one sign per
// dimension (the routes every generator uses where nothing has failed).
bool dor_only(const Hops& hops);

// Every encodable route from src to each allocated node over live channels
// and routers whose straight runs are at most one ring long and which reach
// their destination only at their end, each hop sequence once, shortest
// first, and among equally short ones those without First/Last Step first.
// `index_of` maps a node to its allocation index (npos: not allocated).
// `walked`, when given, counts the hops the search takes.
std::vector<std::vector<Hops>> encodable_routes_from(const Network& network, NodeId src,
                                                     const std::vector<std::size_t>& index_of, std::size_t n,
                                                     std::uint64_t* walked = nullptr);

// Calls visit(p, routes) for each pair p = s * n + d of `pairs` (sorted),
// with every encodable route of the pair (encodable_routes_from), one search
// per source.
template <typename Visit>
void for_each_pair_routes(const Network& network, const std::vector<NodeId>& nodes,
                          const std::vector<std::size_t>& pairs, Visit visit, std::uint64_t* walked = nullptr) {
  const std::size_t n = nodes.size();
  std::vector<std::size_t> index_of(network.torus().node_count(), RouteTable::npos);
  for (std::size_t k = 0; k < pairs.size();) {
    const std::size_t s = pairs[k] / n;
    std::vector<std::size_t> destinations;
    for (; k < pairs.size() && pairs[k] / n == s; ++k) destinations.push_back(pairs[k] % n);
    for (std::size_t d : destinations) index_of[nodes[d]] = d;
    std::vector<std::vector<Hops>> from = encodable_routes_from(network, nodes[s], index_of, n, walked);
    for (std::size_t d : destinations) {
      index_of[nodes[d]] = RouteTable::npos;
      visit(s * n + d, std::move(from[d]));
    }
  }
}

// Which candidates a check takes: the shortest routes without First/Last
// Step (enough on a fault-free torus, where they are the DOR routes), or those
// up to the shortest plus `slack` hops, or all.
struct Stage {
  bool dor_only = false;
  int slack = -1;  // -1: any length
};

using Dependency = std::pair<ChannelId, ChannelId>;

// One satisfiability question: some pairs (allocation index pair p = s * n +
// d, with their candidates), and dependencies present anyway (the routes of
// the pairs outside the question), each passed to the solver as an
// assumption so that an unsatisfiable answer names those it needed.
struct Question {
  std::size_t n = 0;
  std::vector<std::size_t> pairs;
  std::vector<const std::vector<Hops>*> routes;  // per listed pair
  std::vector<Dependency> fixed;
  Stage stage;
  unsigned resource_limit = kResourceLimit;
  std::uint64_t memory_limit = kLargeQuestionSolverBytes;  // Z3's heap at most (SolverMemoryCap)
};

struct Answer {
  z3::check_result result = z3::unknown;
  std::vector<std::size_t> choice;  // per listed pair, its route's index
  std::vector<std::size_t> core;    // unsat: indices into Question::fixed it needed
  std::string reason;               // unknown: why
  std::uint64_t resources = 0;      // Z3's resource units spent
};

// Z3's resource units spent by a check.
std::uint64_t resources_spent(const z3::stats& statistics);

// Asks the question: a boolean per candidate route and per dependency, an
// integer level per channel (whole.cpp describes the model).
Answer solve(const Network& network, const Question& question, FlowControl flow, const std::vector<NodeId>& nodes);

// Writes the answer's routes of the question's pairs into `table` and
// improves them among the routes the table holds already.
void apply(const Network& network, const Question& question, std::vector<std::size_t> choice, FlowControl flow,
           RouteTable& table);

// The message of a proof that no deadlock-free table exists; `which` says
// over which routes (" of K pairs, which alone admit no choice: ...").
std::string no_table_exists(std::size_t nodes, const std::string& which);

// The searches the generator (exact.cpp) chains besides the repair and the
// rank search of exact.hpp.
// Every allocation of at most kMaxNodes nodes: one question over every pair
// and its candidates (whole.cpp).
RouteTable decide_whole(const Network& network, RouteTable table, FlowControl flow);
// rank_search without a log, with `budget` resource units for all of the
// solver's questions (rank_search.cpp).
RouteTable rank_search_with_budget(const Network& network, RouteTable table, FlowControl flow, bool collapse,
                                   int slack, std::uint64_t budget);

}  // namespace angara::exact
