// The common interface of the routing table generators, after OpenSM's
// routing engines: one file per generator, a registry by name, and one shared
// verification pass (routing/check/verifier.hpp) that every table goes through.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "angara/multipath.hpp"
#include "angara/network.hpp"
#include "angara/route.hpp"
#include "angara/rules.hpp"
#include "routing/common/generator_support.hpp"
#include "routing/common/option_spec.hpp"

namespace angara {

class Generator {
 public:
  // Computes the table a generator starts from (GeneratorInfo::start_from);
  // throws RoutingError as generate() does.
  using StartingTable =
      std::function<RouteTable(const Network&, const std::vector<NodeId>&, const GeneratorOptions&)>;

  virtual ~Generator() = default;
  virtual std::string_view name() const = 0;
  // Routes every ordered pair of distinct nodes of `allocation` (all alive)
  // over the live part of `network`.  Must be deterministic for given inputs.
  virtual RouteTable generate(const Network& network, const std::vector<NodeId>& allocation,
                              const GeneratorOptions& options) const = 0;
  // The routing.options this generator reads, typed, with defaults and help
  // (angara.yaml(5) and --help are written from them).
  virtual std::vector<OptionSpec> option_specs() const { return {}; }
  // What it holds at its peak besides the table it returns, in bytes:
  // calibrated against measured peak RSS (doc/benchmarks.md, "Memory
  // estimate").  The default is the largest per-pair model of any generator.
  virtual double peak_bytes(const MemoryContext& context, const GeneratorOptions& options) const {
    (void)options;
    return default_peak_bytes(context);
  }
  // The largest per-pair model of any generator (the layered backends'
  // around failures), for one without a model of its own.
  static double default_peak_bytes(const MemoryContext& context) {
    return context.pairs * (240 + 40 * context.mean_hops) + context.channel_slots * context.layers * 16;
  }
  // Multi-path generators (mp-lash, a-lash): the whole multi-path routing
  // function (angara/multipath.hpp), whose alternative 0 is what generate()
  // returns; nullopt for a generator of one path per pair.
  virtual std::optional<MultiPathTable> generate_multipath(const Network& network,
                                                           const std::vector<NodeId>& allocation,
                                                           const GeneratorOptions& options) const {
    (void)network, (void)allocation, (void)options;
    return std::nullopt;
  }
  // Cheaper options for scoring many candidate node sets (node selection
  // routes only the best few as configured); nullopt when there are none.
  virtual std::optional<GeneratorOptions> scoring_options(const GeneratorOptions& configured) const {
    (void)configured;
    return std::nullopt;
  }

  // Set by the registry (make_generator) for a generator that starts from
  // another's table; the engine never names that generator itself.
  void set_starting_table(StartingTable starting_table) { starting_table_ = std::move(starting_table); }

 protected:
  bool has_starting_table() const { return static_cast<bool>(starting_table_); }
  RouteTable starting_table(const Network& network, const std::vector<NodeId>& allocation,
                            const GeneratorOptions& options) const {
    return starting_table_(network, allocation, options);
  }

 private:
  StartingTable starting_table_;
};

struct GeneratorInfo {
  std::string_view name;
  std::string_view summary;  // one line, for --help and errors
  std::unique_ptr<Generator> (*create)();
  // The generator whose table this one starts from ("" for none): wired by
  // make_generator(), so that engines never name each other.
  std::string_view start_from = {};
  // Whether it is a member of the default fallback chain, in registry order.
  bool in_default_chain = false;
  // Whether its routes are minimal on a fault-free torus (UpDown's are not).
  bool minimal_routes = true;
  // The rule set under which it routes every connected allocation on one
  // virtual channel.  mroots: general (under the Angara rules few UpDown
  // routes are encodable, and it refuses pairs, naming the virtual channels
  // that would route them).
  RuleSet complete_under = RuleSet::angara;
};

// All generators, in a fixed order (routing/registry.cpp).
const std::vector<GeneratorInfo>& generators();
// nullptr when the name is unknown.  A generator with a start_from gets
// its starting table wired here.
std::unique_ptr<Generator> make_generator(std::string_view name);
// The registry's entry, nullptr when the name is unknown.
const GeneratorInfo* find_generator(std::string_view name);
// "bfs, sssp, ..." for error messages.
std::string generator_names();
// Throws std::invalid_argument for a routing.options key no registered
// generator reads, naming the valid keys and their generators: a misspelt
// option must not be ignored silently.
void check_generator_options(const std::map<std::string, std::string>& options);

// Every generator's routing.options from their declarations, for
// `angara-route options`: plain text, or the troff of angara.yaml(5)'s
// option list (tools/update_man_options.sh puts it into the page, and a test
// checks that the page has it).
enum class OptionsFormat { text, troff };
std::string describe_generator_options(OptionsFormat format);

// The generator used when nothing else is configured: the first member of
// the default chain.
std::string_view default_generator_name();
// The default fallback chain, "balanced,nue,exact": the registered
// generators marked in_default_chain, in registry order.
std::string default_algorithm_chain();

}  // namespace angara
