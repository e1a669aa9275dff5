// Fallback chains of generators, as OpenSM chains its routing engines: a
// list such as "balanced,nue" (routing.algorithm, --algorithm, the plugstack
// default) runs its members in order, and the first whose table passes the
// independent verifier wins.  The members passed over are kept with the
// reason, for the report.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "routing/generator.hpp"
#include "routing/check/verifier.hpp"

namespace angara {

// "balanced,nue" -> {"balanced", "nue"} (spaces around names ignored).
// Throws std::invalid_argument for an empty list, an empty member, a name
// given twice, or an unknown name, naming the valid ones:
// "unknown routing algorithm 'x' (valid: bfs, sssp, ...)", with " in chain
// 'a,x'" after the name when the list has several members.
std::vector<std::string> parse_algorithm_chain(std::string_view text);
std::string format_algorithm_chain(const std::vector<std::string>& chain);  // "balanced,nue"
// One generator or a fallback chain, parsed and checked once (a request's
// text becomes this in prepare_job(), and everything after works on it).
struct AlgorithmChain {
  std::vector<std::string> members;  // never empty once parsed

  // parse_algorithm_chain() as a chain.
  static AlgorithmChain parse(std::string_view text) { return AlgorithmChain{parse_algorithm_chain(text)}; }
  std::string text() const { return format_algorithm_chain(members); }  // "balanced,nue"
  const std::string& first() const { return members.front(); }
  bool contains(std::string_view name) const;
};

// What a table file records of the chain asked for (NodeTable::chain): the
// list when it has several members, "" for one generator.
std::string recorded_chain(const std::string& chain);

// A generator's refusal without the "NAME: " it starts with (a report names
// the member itself).
std::string without_generator_name(const std::string& name, std::string reason);

struct PassedOver {
  std::string algorithm;
  std::string reason;  // the refusal (without the generator's name), or the verifier's first violation
  double seconds = 0;
  // A refusal about pairs (RoutingError::unrouted()): the reason without its
  // list of pairs, and the pairs; empty for other reasons.
  std::string headline;
  std::vector<NodePair> unrouted;
};

// Thrown by a chain of several members when every member failed: what()
// names each member's reason; members() keeps them, with the pairs each
// refused, for a report that names each pair once (routing/refusal.hpp).
class ChainRoutingError : public RoutingError {
 public:
  ChainRoutingError(const std::string& message, std::vector<PassedOver> members)
      : RoutingError(message), members_(std::move(members)) {}
  const std::vector<PassedOver>& members() const { return members_; }

 private:
  std::vector<PassedOver> members_;
};

struct ChainOutcome {
  RouteTable table;
  VerifyReport report;        // of the winning table
  std::string algorithm;      // the member that won
  std::vector<PassedOver> passed_over;
  double seconds = 0;         // every member's generation time, summed
};

// Runs the chain.  When every member fails: a one-member chain behaves as
// that generator alone (its RoutingError propagates; a table the verifier
// rejects is returned with its report, for the caller to refuse); a longer
// chain throws ChainRoutingError "no generator of the chain A,B found a valid
// table: A: ...; B: ...".
// `before_member`, when given, is called with a member's name before it
// runs; a MemoryLimitError it throws (routing/memory.hpp) passes the member
// over with that reason, and when no member then succeeds the chain throws
// MemoryLimitError instead of RoutingError.
ChainOutcome run_algorithm_chain(const std::vector<std::string>& chain, const Network& network,
                                 const std::vector<NodeId>& allocation, const GeneratorOptions& options,
                                 const VerifyOptions& verify_options,
                                 const std::function<void(const std::string&)>& before_member = {});

}  // namespace angara
