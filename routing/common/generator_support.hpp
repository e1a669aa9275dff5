// What every generator and every shared routing stage works with: the
// options a generator is given, the error it throws when it cannot route,
// and the empty table it fills.  Depends on the Angara model only, so that
// the shared stages (routing/common) need nothing of the manager.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "angara/rules.hpp"
#include "routing/common/work_budget.hpp"

namespace angara {

struct GeneratorOptions {
  std::uint64_t seed = 1;       // for randomised generators (genetic)
  int virtual_channels = 1;     // layers a generator may use
  RuleSet rules = RuleSet::angara;                // which paths are allowed
  FlowControl flow_control = FlowControl::bubble; // which CDG cycles are deadlocks
  // Generator-specific settings from the configuration ("population: 100").
  std::map<std::string, std::string> extra;
  // The deadlock-free routes an earlier member of a chain found before it
  // gave up (RoutingError::partial()), for exact's repair of large machines
  // (routing/generators/exact/repair.cpp); the other generators ignore it.
  std::shared_ptr<const RouteTable> partial;
  // The budget of the optional refinement stages (routing.time_budget);
  // nullptr: unlimited.  Shared by the members of a chain; a generator notes
  // there which stages it cut.
  std::shared_ptr<WorkBudget> budget;
};

// What a generator's memory model is told about a computation
// (routing/memory.cpp sums the parts; each generator states its own peak).
struct MemoryContext {
  std::size_t allocation_size = 0;
  std::size_t live_nodes = 0;        // of the machine
  bool faults = false;               // failed routers or cables anywhere
  bool whole_intact_torus = false;   // every node of a fault-free torus
  bool every_port_live = false;      // every port of the machine cabled and live (no failure, no single cable)
  double pairs = 0;                  // ordered pairs of the allocation (n^2)
  double mean_hops = 0;              // minimal hop count, mean over the torus
  double channel_slots = 0;
  double layers = 1;                 // virtual channels
  int dims = 1;                      // dimensions of the torus of size above 1
  // The peak of the generator this one starts from (GeneratorInfo::start_from),
  // 0 when it starts from none.
  double start_peak_bytes = 0;
};

// An ordered pair of routers (source, destination).
using NodePair = std::pair<NodeId, NodeId>;

// Thrown when a generator cannot route the allocation (e.g. the faults
// disconnect it, or no deadlock-free route exists under the Angara rules).
// A refusal about pairs names them (unrouted()): every pair left without a
// route, or the one the generator stopped at; its headline() is the message
// without its list of pairs, so a report can list each pair once however
// many generators refused it (routing/refusal.hpp).
class RoutingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  RoutingError(const std::string& message, std::vector<NodePair> unrouted, std::string headline = "")
      : std::runtime_error(message), unrouted_(std::move(unrouted)), headline_(std::move(headline)) {}
  // With the routes found before giving up; the pairs it leaves out are the
  // unrouted ones.
  RoutingError(const std::string& message, RouteTable partial, std::string headline = "");
  // The routes found before giving up, free of forbidden cycles among
  // themselves, the pairs left out without a route (the checked-turn stage
  // keeps them: routing/common/checked_turns.hpp); nullptr when none were kept.
  const std::shared_ptr<const RouteTable>& partial() const { return partial_; }
  const std::vector<NodePair>& unrouted() const { return unrouted_; }
  std::string headline() const { return headline_.empty() ? what() : headline_; }

 private:
  std::shared_ptr<const RouteTable> partial_;
  std::vector<NodePair> unrouted_;
  std::string headline_;
};

// The ordered pairs of `table` without a route, as node ids.
std::vector<NodePair> pairs_without_route(const RouteTable& table);

// The empty table a generator fills: the allocation checked (every node
// inside the torus and alive, else RoutingError "NAME: ...") and the
// generator's name recorded.
RouteTable start_route_table(std::string_view generator, const Network& network, const std::vector<NodeId>& allocation);

}  // namespace angara
