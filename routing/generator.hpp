// The common interface of the routing table generators, after OpenSM's
// routing engines: one file per generator, a registry by name, and one shared
// verification pass (routing/verifier.hpp) that every table goes through.
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
  // (routing/exact.cpp); the other generators ignore it.
  std::shared_ptr<const RouteTable> partial;
};

// Thrown when a generator cannot route the allocation (e.g. the faults
// disconnect it, or no deadlock-free route exists under the Angara rules).
class RoutingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  RoutingError(const std::string& message, RouteTable partial)
      : std::runtime_error(message), partial_(std::make_shared<const RouteTable>(std::move(partial))) {}
  // The routes found before giving up, free of forbidden cycles among
  // themselves, the pairs left out without a route (the checked-turn stage
  // keeps them: routing/checked_turns.hpp); nullptr when none were kept.
  const std::shared_ptr<const RouteTable>& partial() const { return partial_; }

 private:
  std::shared_ptr<const RouteTable> partial_;
};

class Generator {
 public:
  virtual ~Generator() = default;
  virtual std::string_view name() const = 0;
  // Routes every ordered pair of distinct nodes of `allocation` (all alive)
  // over the live part of `network`.  Must be deterministic for given inputs.
  virtual RouteTable generate(const Network& network, const std::vector<NodeId>& allocation,
                              const GeneratorOptions& options) const = 0;
  // The routing.options keys this generator reads (angara.yaml(5)).
  virtual std::vector<std::string_view> option_keys() const { return {}; }
};

struct GeneratorInfo {
  std::string_view name;
  std::string_view summary;  // one line, for --help and errors
  std::unique_ptr<Generator> (*create)();
};

// All generators, in a fixed order (routing/registry.cpp).
const std::vector<GeneratorInfo>& generators();
// nullptr when the name is unknown.
std::unique_ptr<Generator> make_generator(std::string_view name);
// "bfs, sssp, ..." for error messages.
std::string generator_names();
// The empty table a generator fills: the allocation checked (every node
// inside the torus and alive, else RoutingError "NAME: ...") and the
// generator's name recorded.
RouteTable start_route_table(std::string_view generator, const Network& network, const std::vector<NodeId>& allocation);

// Throws std::invalid_argument for a routing.options key no registered
// generator reads, naming the valid keys and their generators: a misspelt
// option must not be ignored silently.
void check_generator_options(const std::map<std::string, std::string>& options);

// The generator used when nothing else is configured.
std::string_view default_generator_name();

}  // namespace angara
