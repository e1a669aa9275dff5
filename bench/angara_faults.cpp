// angara-faults: the fault campaign, a program (not a test).
//
// Seeded scenarios over 2D, 3D and 4D tori up to 512 nodes: failed routers,
// failed cables and mixes, on the whole machine and on sub-allocations (a
// compact block, a random half).  For each scenario the routability oracle
// (routing/common/oracle.hpp) says whether every allocated pair has an encodable
// route at all; then every generator runs and its table goes through the
// independent verifier.  Per generator and for the default chain: scenarios
// routed, scenarios the oracle calls routable but no table came out,
// deadlocks the verifier found (must be 0), route stretch against the
// shortest encodable route and against the fault-free torus distance, max
// gamma against the fault-free balanced table of the same allocation, and
// time (CPU seconds of the process, every thread counted: stable on a
// loaded machine; ANGARA_THREADS=1 makes it one core's time).  Every table
// is verified on one virtual channel, as the pipeline does with the default
// routing.virtual_channels.  The chain's outcome is the first member whose
// table verified, its time the sum of its members' times up to that one
// (what the pipeline does: routing/chain.hpp); a member after the winner is
// not run for the chain.  Single generators that no chain needs run only on
// allocations up to --singles-max-nodes (the whole campaign with every
// generator takes hours at 512 nodes).  Every scenario the chain misses
// although the oracle finds routes is listed with each member's reason.
// Every verified table is also checked as the escape of the adaptive
// channel (routing.adaptive, doc/model.md "The adaptive channel"); the
// "safe esc" column counts the routed tables that are safe escapes
// (--no-escape leaves the check out).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "routing/chain.hpp"
#include "routing/generator.hpp"
#include "routing/common/oracle.hpp"
#include "routing/check/verifier.hpp"

namespace {

using namespace angara;

struct Options {
  int scenarios = 1080;
  std::uint64_t seed = 1;
  NodeId max_nodes = 512;
  NodeId genetic_max_nodes = 64;
  NodeId singles_max_nodes = 0;  // 0: no limit
  std::string chain;  // empty: the library default (routing/chain.hpp)
  bool small_set = false;
  int from = 0;  // scenarios before this id are drawn (same seeds) but not run
  std::vector<std::string> extra_chains;  // more chains to score from the same runs
  std::vector<std::string> algorithms;
  std::string csv_path;
  bool verbose = false;
  bool escape = true;  // check every verified table as the adaptive channel's escape
};

bool check_escapes = true;  // Options::escape, for run_generator

// The machines, a mix of 2D, 3D and 4D up to 512 nodes.
const char* const kMachines[] = {"4x4",     "6x6",     "8x8",     "12x12",   "16x16", "16x32",
                                 "4x4x4",   "4x4x8",   "6x6x6",   "8x8x4",   "8x8x8", "4x2x2x2",
                                 "3x3x3x3", "4x4x4x4", "4x4x4x8"};

enum class FaultKind { routers, cables, mixed };
enum class AllocationKind { whole, block, random_half };
const char* fault_kind_name(FaultKind k) {
  return k == FaultKind::routers ? "routers" : k == FaultKind::cables ? "cables" : "mixed";
}
const char* allocation_kind_name(AllocationKind k) {
  return k == AllocationKind::whole ? "whole" : k == AllocationKind::block ? "block" : "random-half";
}

struct Scenario {
  int id = 0;
  std::string machine;
  FaultKind faults = FaultKind::routers;
  AllocationKind allocation_kind = AllocationKind::whole;
  Network network{Torus::parse("2x2")};
  std::vector<NodeId> allocation;
  std::string description;  // failures, for the miss list
};

Scenario make_scenario(int id, const std::string& machine, std::mt19937_64& rng, bool small_set) {
  Scenario s;
  s.id = id;
  s.machine = machine;
  s.faults = small_set ? FaultKind::mixed : static_cast<FaultKind>(id % 3);
  s.allocation_kind = small_set ? AllocationKind::whole : static_cast<AllocationKind>((id / 3) % 3);
  const Torus torus = Torus::parse(machine);
  s.network = Network(torus);
  auto pick = [&](int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<std::uint64_t>(hi - lo + 1)); };
  int routers = 0, cables = 0;
  switch (s.faults) {
    case FaultKind::routers: routers = pick(1, 8); break;
    case FaultKind::cables: cables = pick(1, 16); break;
    case FaultKind::mixed: routers = pick(1, 4); cables = pick(1, 8); break;
  }
  // The small set: 2-5 failed routers and up to 6 failed cables, whole machines.
  if (small_set) {
    routers = pick(2, 5);
    cables = pick(0, 6);
  }
  routers = std::min<int>(routers, static_cast<int>(torus.node_count()) / 4);
  routers = std::max(routers, s.faults == FaultKind::cables ? 0 : 1);
  std::vector<Direction> present;
  for (int rank = 0; rank < kDirectionCount; ++rank)
    if (torus.direction_present(Direction(rank))) present.push_back(Direction(rank));
  while (static_cast<int>(s.network.failed_nodes().size()) < routers) {
    const NodeId node = static_cast<NodeId>(rng() % torus.node_count());
    if (s.network.node_alive(node)) s.network.fail_node(node);
  }
  for (int tries = 0; static_cast<int>(s.network.failed_links().size()) < cables && tries < 1000; ++tries) {
    const NodeId node = static_cast<NodeId>(rng() % torus.node_count());
    const Direction d = present[rng() % present.size()];
    if (s.network.node_alive(node) && s.network.channel_alive(node, d)) s.network.fail_link(node, d);
  }
  for (const std::string& name : failure_names(s.network)) s.description += (s.description.empty() ? "" : ", ") + name;

  // The allocation, live nodes only.
  std::vector<NodeId> candidates;
  if (s.allocation_kind == AllocationKind::block) {
    // A block of about half the machine: ceil(d/2) of the largest
    // dimension, at a random offset (wrapping), all of the others.
    int largest = 0;
    for (int dim = 1; dim < kMaxDims; ++dim)
      if (torus.size(dim) > torus.size(largest)) largest = dim;
    const int extent = (torus.size(largest) + 1) / 2;
    const int offset = pick(0, torus.size(largest) - 1);
    for (NodeId node = 0; node < torus.node_count(); ++node) {
      const int c = torus.coord(node)[largest];
      if (((c - offset) % torus.size(largest) + torus.size(largest)) % torus.size(largest) < extent)
        candidates.push_back(node);
    }
  } else {
    for (NodeId node = 0; node < torus.node_count(); ++node) candidates.push_back(node);
  }
  for (NodeId node : candidates) {
    if (!s.network.node_alive(node)) continue;
    if (s.allocation_kind == AllocationKind::random_half && rng() % 2) continue;
    s.allocation.push_back(node);
  }
  return s;
}

// The allocation's coordinates for a sub-allocation (to reproduce a miss),
// nothing for the whole machine.
std::string allocation_text(const Scenario& s) {
  if (s.allocation_kind == AllocationKind::whole) return "";
  std::string out;
  for (NodeId node : s.allocation) out += (out.empty() ? ": " : " ") + s.network.torus().format_coord(node);
  return out;
}

struct Outcome {
  bool ran = false, ok = false, deadlock = false;
  bool safe_escape = false;  // verified and a safe escape for the adaptive channel
  double seconds = 0;
  std::uint64_t max_gamma = 0;
  double stretch_sum = 0, max_stretch = 0;
  double detour_sum = 0, max_detour = 0;  // hops over the fault-free torus distance
  std::size_t pairs = 0, stretched = 0;
  std::string why;  // error or first violation when !ok
  std::shared_ptr<const RouteTable> partial;  // a refusal's partial table (RoutingError::partial())
};

// CPU seconds of the process so far, every thread counted.
double cpu_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// `partial`: an earlier chain member's partial table, as the chain passes it
// on (routing/chain.hpp; exact repairs it on large allocations).
Outcome run_generator(const std::string& name, const Scenario& s, const AllocationRoutability& oracle,
                      std::shared_ptr<const RouteTable> partial) {
  Outcome out;
  out.ran = true;
  const std::unique_ptr<Generator> generator = make_generator(name);
  GeneratorOptions options;
  options.partial = std::move(partial);
  const double start = cpu_seconds();
  RouteTable table;
  try {
    table = generator->generate(s.network, s.allocation, options);
  } catch (const RoutingError& e) {
    out.seconds = cpu_seconds() - start;
    out.why = e.what();
    out.partial = e.partial();
    return out;
  } catch (const std::exception& e) {
    out.seconds = cpu_seconds() - start;
    out.why = e.what();
    return out;
  }
  out.seconds = cpu_seconds() - start;
  VerifyOptions verify_options;
  verify_options.max_virtual_channels = options.virtual_channels;
  verify_options.adaptive = check_escapes;
  const VerifyReport report = verify(s.network, table, verify_options);
  for (const Violation& v : report.violations) out.deadlock = out.deadlock || v.rule == Rule::Deadlock;
  // The escape check runs only on a table that passes every other rule: a
  // table refused by it alone is a verified table, just no safe escape.
  const bool unsafe_escape_only = report.violations.size() == 1 && report.violations[0].rule == Rule::UnsafeEscape;
  out.safe_escape = report.ok() && report.adaptive_checked;
  if (!report.ok() && !unsafe_escape_only) {
    out.why = std::string("verifier: ") + rule_name(report.violations.front().rule) + ": " +
              report.violations.front().message;
    return out;
  }
  out.ok = true;
  out.max_gamma = report.metrics.max_gamma;
  const std::size_t n = table.size();
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) {
      if (a == b) continue;
      const int best = oracle.at(a, b);
      if (best <= 0) continue;  // cannot happen in a verified Angara table
      const double hops = static_cast<double>(table.route(a, b).hops.size());
      const double stretch = hops / best;
      const double detour = hops / s.network.torus().distance(table.nodes()[a], table.nodes()[b]);
      out.detour_sum += detour;
      out.max_detour = std::max(out.max_detour, detour);
      out.stretch_sum += stretch;
      out.max_stretch = std::max(out.max_stretch, stretch);
      out.stretched += stretch > 1.0 ? 1 : 0;
      ++out.pairs;
    }
  return out;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  for (char ch : text + ",") {
    if (ch == ',') {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else if (ch != ' ') {
      item += ch;
    }
  }
  return out;
}

struct Summary {
  std::size_t scenarios = 0, ran = 0, routed = 0, missed = 0, deadlocks = 0, safe_escapes = 0;
  double stretch_sum = 0, max_stretch = 0, detour_sum = 0, max_detour = 0;
  std::size_t pairs = 0, stretched = 0;
  double gamma_ratio_sum = 0, max_gamma_ratio = 0;
  std::size_t gamma_ratios = 0;
  double seconds_sum = 0, max_seconds = 0;

  void add(const Outcome& o, bool oracle_all, std::uint64_t reference_gamma) {
    ++scenarios;
    if (!o.ran) return;
    ++ran;
    seconds_sum += o.seconds;
    max_seconds = std::max(max_seconds, o.seconds);
    deadlocks += o.deadlock ? 1 : 0;
    if (!o.ok) {
      missed += oracle_all ? 1 : 0;
      return;
    }
    ++routed;
    safe_escapes += o.safe_escape ? 1 : 0;
    stretch_sum += o.stretch_sum;
    pairs += o.pairs;
    stretched += o.stretched;
    max_stretch = std::max(max_stretch, o.max_stretch);
    detour_sum += o.detour_sum;
    max_detour = std::max(max_detour, o.max_detour);
    if (reference_gamma > 0) {
      const double ratio = static_cast<double>(o.max_gamma) / static_cast<double>(reference_gamma);
      gamma_ratio_sum += ratio;
      max_gamma_ratio = std::max(max_gamma_ratio, ratio);
      ++gamma_ratios;
    }
  }
};

void print_summary_header() {
  std::printf("%-4s %-20s %5s %5s %6s %6s %5s %8s %8s %7s %7s %8s %7s %8s %8s %8s %8s\n", "dims", "algorithm",
              "scen", "ran", "routed", "missed", "dlock", "safe esc", "stretch", "max str", "str>1 %", "detour", "max det", "gamma/ff",
              "max g/ff", "mean s", "max s");
}

void print_summary(const std::string& dims, const std::string& name, const Summary& s) {
  std::printf("%-4s %-20s %5zu %5zu %6zu %6zu %5zu %8zu %8.4f %7.3f %7.3f %8.4f %7.3f %8.3f %8.3f %8.4f %8.3f\n",
              dims.c_str(), name.c_str(), s.scenarios, s.ran, s.routed, s.missed, s.deadlocks, s.safe_escapes,
              s.pairs ? s.stretch_sum / static_cast<double>(s.pairs) : 0.0, s.max_stretch,
              s.pairs ? 100.0 * static_cast<double>(s.stretched) / static_cast<double>(s.pairs) : 0.0,
              s.pairs ? s.detour_sum / static_cast<double>(s.pairs) : 0.0, s.max_detour,
              s.gamma_ratios ? s.gamma_ratio_sum / static_cast<double>(s.gamma_ratios) : 0.0, s.max_gamma_ratio,
              s.ran ? s.seconds_sum / static_cast<double>(s.ran) : 0.0, s.max_seconds);
}

int usage(const char* program) {
  std::fprintf(stderr,
               "usage: %s [--scenarios N] [--seed S] [--max-nodes N] [--genetic-max-nodes N]\n"
               "          [--chain LIST] [--also-chain LIST]... [--algorithms LIST] [--csv FILE] [--verbose]\n"
               "          [--small-set] [--from ID] [--singles-max-nodes N] [--no-escape]\n"
               "--no-escape: verified tables are not checked as the adaptive channel's escape.\n"
               "--singles-max-nodes N: generators run for themselves (not for a chain) only on\n"
               "allocations of at most N nodes.\n"
               "--small-set: a small set instead of the campaign: whole 8x8 and 4x4x4\n"
               "machines, 2-5 failed routers and 0-6 failed cables each.\n",
               program);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) std::exit(usage(argv[0]));
      return argv[++i];
    };
    if (arg == "--scenarios") options.scenarios = std::atoi(value().c_str());
    else if (arg == "--seed") options.seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (arg == "--max-nodes") options.max_nodes = static_cast<NodeId>(std::atoi(value().c_str()));
    else if (arg == "--genetic-max-nodes") options.genetic_max_nodes = static_cast<NodeId>(std::atoi(value().c_str()));
    else if (arg == "--singles-max-nodes") options.singles_max_nodes = static_cast<NodeId>(std::atoi(value().c_str()));
    else if (arg == "--chain") options.chain = value();
    else if (arg == "--algorithms") options.algorithms = split_list(value());
    else if (arg == "--csv") options.csv_path = value();
    else if (arg == "--verbose") options.verbose = true;
    else if (arg == "--small-set") options.small_set = true;
    else if (arg == "--from") options.from = std::atoi(value().c_str());
    else if (arg == "--also-chain") options.extra_chains.push_back(value());
    else if (arg == "--no-escape") options.escape = false;
    else return usage(argv[0]);
  }
  check_escapes = options.escape;
  if (options.algorithms.empty())
    for (const GeneratorInfo& info : generators()) options.algorithms.push_back(std::string(info.name));
  for (const std::string& name : options.algorithms)
    if (!make_generator(name)) {
      std::fprintf(stderr, "unknown algorithm '%s' (valid: %s)\n", name.c_str(), generator_names().c_str());
      return 2;
    }
  // The chain under test first (its misses are listed), then the others
  // scored from the same generator runs.
  std::vector<std::vector<std::string>> chains{
      split_list(options.chain.empty() ? default_algorithm_chain() : options.chain)};
  for (const std::string& text : options.extra_chains) chains.push_back(split_list(text));
  std::vector<std::string> chain_names;
  for (const std::vector<std::string>& chain : chains) {
    std::string chain_name;
    for (const std::string& name : chain) {
      if (std::find(options.algorithms.begin(), options.algorithms.end(), name) == options.algorithms.end()) {
        std::fprintf(stderr, "chain member '%s' is not among the algorithms run\n", name.c_str());
        return 2;
      }
      chain_name += (chain_name.empty() ? "" : ",") + name;
    }
    chain_names.push_back("chain " + chain_name);
  }

  std::vector<std::string> machines;
  if (options.small_set) {
    machines = {"8x8", "4x4x4"};
  } else {
    for (const char* m : kMachines)
      if (Torus::parse(m).node_count() <= options.max_nodes) machines.emplace_back(m);
  }

  std::FILE* csv = options.csv_path.empty() ? nullptr : std::fopen(options.csv_path.c_str(), "w");
  if (csv)
    std::fprintf(csv, "scenario,machine,faults,allocation,nodes,oracle_all,cut_off_pairs,algorithm,ok,deadlock,"
                      "seconds,max_gamma,ff_gamma,mean_stretch,max_stretch,mean_detour,max_detour,safe_escape\n");

  std::mt19937_64 rng(options.seed);
  std::map<std::string, std::map<std::string, Summary>> by_dims;  // dims -> algorithm -> summary
  std::size_t oracle_all_count = 0, scenarios_run = 0;
  double oracle_seconds = 0;
  std::vector<std::string> misses;
  const auto campaign_start = std::chrono::steady_clock::now();
  for (int id = 0; id < options.scenarios; ++id) {
    const std::size_t machine = options.small_set ? static_cast<std::size_t>(id) % machines.size()
                                                  : static_cast<std::size_t>(id / 9) % machines.size();
    const Scenario s = make_scenario(id, machines[machine], rng, options.small_set);
    if (s.allocation.size() < 2 || id < options.from) continue;
    ++scenarios_run;
    const auto oracle_start = std::chrono::steady_clock::now();
    const AllocationRoutability oracle = assess_routability(s.network, s.allocation);
    oracle_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - oracle_start).count();
    oracle_all_count += oracle.all_routable() ? 1 : 0;

    // The fault-free reference: balanced on the same allocation, nothing failed.
    std::uint64_t reference = 0;
    {
      const Network intact(s.network.torus());
      const RouteTable table = make_generator("balanced")->generate(intact, s.allocation, GeneratorOptions{});
      reference = verify(intact, table).metrics.max_gamma;
    }

    const std::string dims = std::to_string(s.network.torus().present_dims()) + "D";
    std::map<std::string, Outcome> outcomes;
    // Each generator runs at most once per scenario, when a chain or its own
    // row needs it.
    // exact is handed balanced's partial table when balanced ran and left
    // one (the chains put balanced first), as a chain would hand it on.
    auto outcome_of = [&](const std::string& name) -> const Outcome& {
      if (!outcomes.count(name)) {
        std::shared_ptr<const RouteTable> partial;
        if (name == "exact" && outcomes.count("balanced")) partial = outcomes["balanced"].partial;
        outcomes[name] = name == "genetic" && s.allocation.size() > options.genetic_max_nodes
                             ? Outcome{}
                             : run_generator(name, s, oracle, partial);
      }
      return outcomes[name];
    };
    std::map<std::string, Outcome> rows;  // what the summaries count: chains and single generators
    bool chain_ok = false;
    for (std::size_t c = 0; c < chains.size(); ++c) {
      Outcome chained;
      chained.ran = true;
      std::string reasons;
      // A member's deadlocked table is counted against the chain too, though
      // the chain's verifier refuses it and goes on to the next member.
      bool member_deadlock = false;
      for (const std::string& name : chains[c]) {
        const Outcome& o = outcome_of(name);
        chained.seconds += o.seconds;
        member_deadlock = member_deadlock || o.deadlock;
        if (o.ok) {
          const double seconds = chained.seconds;
          chained = o;
          chained.seconds = seconds;
          break;
        }
        reasons += "\n    " + name + ": " + (o.ran ? o.why : std::string("not run"));
      }
      chained.deadlock = member_deadlock;
      if (c == 0 && !chained.ok && oracle.all_routable())
        misses.push_back("scenario " + std::to_string(s.id) + " " + s.machine + " " +
                         allocation_kind_name(s.allocation_kind) + " (" + std::to_string(s.allocation.size()) +
                         " nodes" + allocation_text(s) + "), failed: " + s.description + reasons);
      if (c == 0) chain_ok = chained.ok;
      rows[chain_names[c]] = chained;
    }
    // A generator's own row counts it only where it runs for itself, so a
    // chain member run for the chain above the limit does not bias its row.
    for (const std::string& name : options.algorithms)
      rows[name] = options.singles_max_nodes && s.allocation.size() > options.singles_max_nodes ? Outcome{}
                                                                                                 : outcome_of(name);

    for (const auto& [name, o] : rows) {
      for (const std::string& key : {dims, std::string("all")}) by_dims[key][name].add(o, oracle.all_routable(), reference);
      if (csv && o.ran)
        std::fprintf(csv, "%d,%s,%s,%s,%zu,%d,%zu,%s,%d,%d,%.6f,%llu,%llu,%.6f,%.4f,%.6f,%.4f,%d\n", s.id, s.machine.c_str(),
                     fault_kind_name(s.faults), allocation_kind_name(s.allocation_kind), s.allocation.size(),
                     oracle.all_routable() ? 1 : 0, oracle.cut_off_pairs, name.c_str(), o.ok ? 1 : 0,
                     o.deadlock ? 1 : 0, o.seconds, static_cast<unsigned long long>(o.max_gamma),
                     static_cast<unsigned long long>(reference), o.pairs ? o.stretch_sum / double(o.pairs) : 0.0,
                     o.max_stretch, o.pairs ? o.detour_sum / double(o.pairs) : 0.0, o.max_detour,
                     o.safe_escape ? 1 : 0);
    }
    if (options.verbose) {
      std::string times;
      for (const auto& [name, o] : rows)
        if (o.ran) times += " " + name + " " + std::to_string(o.seconds);
      std::fprintf(stderr, "scenario %d %s %s %s %zu nodes (failed: %s): oracle %s (%.2f s), chain %s;%s\n",
                   s.id, s.machine.c_str(), fault_kind_name(s.faults), allocation_kind_name(s.allocation_kind),
                   s.allocation.size(), s.description.c_str(), oracle.all_routable() ? "all" : "cut",
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - oracle_start).count(),
                   chain_ok ? "ok" : "MISS", times.c_str());
    }
  }
  if (csv) std::fclose(csv);
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - campaign_start).count();

  std::printf("fault campaign: %zu scenarios (seed %llu), oracle finds encodable routes for every pair in %zu; "
              "oracle time %.1f s, total %.1f s\n\n",
              scenarios_run, static_cast<unsigned long long>(options.seed), oracle_all_count, oracle_seconds, total);
  std::printf("routed: table verified; missed: the oracle joins every pair but no table came out; dlock: tables\n"
              "the verifier found a deadlock in (a chain: any member's, refused before the next member ran); safe esc: routed\n"
              "tables that are a safe escape for the adaptive channel (routing.adaptive on; %s); stretch: mean over routed pairs of hops / shortest encodable\n"
              "route; str>1: share of pairs longer than that; detour: mean (and max) hops / fault-free torus\n"
              "distance; gamma/ff: max gamma over the fault-free balanced\n"
              "table of the same allocation (mean, max); CPU seconds per table.\n\n",
              check_escapes ? "checked" : "not checked: --no-escape");
  print_summary_header();
  for (const std::string& dims : {std::string("2D"), std::string("3D"), std::string("4D"), std::string("all")}) {
    if (!by_dims.count(dims)) continue;
    for (const auto& [name, summary] : by_dims[dims]) print_summary(dims, name, summary);
  }
  if (check_escapes && by_dims.count("all"))
    for (const std::string& name : chain_names) {
      const Summary& chain = by_dims["all"][name];
      std::printf("\n%s: %zu of its %zu routed tables are safe escapes for the adaptive channel", name.c_str(),
                  chain.safe_escapes, chain.routed);
    }
  std::printf("\n%s misses %zu scenario(s) in which the oracle joins every pair%s\n", chain_names.front().c_str(),
              misses.size(),
              misses.empty() ? "." : ":");
  for (const std::string& m : misses) std::printf("  %s\n", m.c_str());
  return 0;
}
