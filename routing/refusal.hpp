// A refusal around failures in an administrator's words: nodes by their
// Slurm names, cables as the configuration names them, each pair without a
// route once (with every generator that refused it), and a one-line summary
// to act on.  The summary goes to stderr and the slurmd log's error level;
// the detail (every pair, every generator's reason) to --verbose, --json and
// the log's info level.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "angara/config.hpp"
#include "angara/network.hpp"
#include "routing/chain.hpp"

namespace angara {

// The pairs a refusal describes one by one at most.
constexpr std::size_t kRefusalDetailPairs = 1000;

struct RefusedPair {
  std::string source, destination;  // node names
  // Hops of the shortest Angara-encodable route around the failures; -1: the
  // failures cut the pair off.
  int shortest = -1;
  // The failures behind it (refusal_failure_names()): for a pair cut off,
  // those whose repair alone would open a route; else those that block its
  // minimal routes.
  std::vector<std::string> blockers;
  bool each_repair_reopens = false;     // cut off, and repairing any one blocker opens a route
  std::vector<std::string> refused_by;  // the generators that named it, in chain order
};

struct Refusal {
  std::string chain;            // the generator, or the chain ("balanced,nue,exact")
  std::size_t node_count = 0;   // of the allocation
  std::vector<PassedOver> members;  // each generator's reason, in chain order
  // Each pair once, first those cut off, then the others, in allocation
  // order: the first kRefusalDetailPairs of them (pair_count in all; a
  // detail per pair of a whole machine's refusal was tens of MiB that no
  // memory estimate counted, and no administrator reads).
  std::vector<RefusedPair> pairs;
  std::size_t pair_count = 0;       // the pairs named, listed or not
  std::size_t cut_off = 0;          // how many of them have no route at all (they come first)
  // The failures whose repair alone reopens every pair cut off, in order;
  // none when a pair needs more than one repair.
  std::vector<std::string> reopening_repairs;
  // The failures behind the pairs (those cut off when there are any), or
  // every failure of the network when no generator named a pair.
  std::vector<std::string> failures;
  // A node every pair cut off involves (source or destination), "" if none.
  std::string common_node;
  std::string summary;  // one line, without what to run for the detail
};

// Each failure of `network` by name, in failure_names() order (routers, then
// cables): "router desmos05 (failed)" for a router the configuration lists,
// "router desmos05 (down)" for one only the request marks down (Slurm),
// "cable desmos03 -Y" from the end and in the direction it was declared.
std::vector<std::string> refusal_failure_names(const Config& config, const Network& network);

// The refusal of `members` (one generator, or every member of a chain that
// failed) on `node_count` nodes of `network`.
Refusal describe_refusal(const Config& config, const Network& network, std::size_t node_count,
                         const std::string& chain, std::vector<PassedOver> members);

// The detail, one line each: every generator's reason, then every pair
// with its diagnosis and the generators that refused it; after `max_pairs`
// pairs, one line says how many more there are.
std::vector<std::string> refusal_detail(const Refusal& refusal, std::size_t max_pairs = SIZE_MAX);
// A generator's reason as a refusal gives it: a refusal about pairs without
// its list of them (in coordinates), since the refusal lists each pair
// once, by name.
const std::string& member_reason(const PassedOver& member);

// compute_job_routes()'s refusal when the generators name pairs or a chain
// fails: what() is the summary; refusal() the rest.
class RefusalError : public RoutingError {
 public:
  explicit RefusalError(Refusal refusal) : RoutingError(refusal.summary), refusal_(std::move(refusal)) {}
  const Refusal& refusal() const { return refusal_; }

 private:
  Refusal refusal_;
};

}  // namespace angara
