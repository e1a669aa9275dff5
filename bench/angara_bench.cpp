// angara-bench: the quality benchmark, a program (not a test).
// It sweeps the ANSU paper's machine set (section 5.1), routes whole-machine,
// half-block and random-half allocations with every generator, verifies every
// table, and prints figures and ratios to BFS measured in the same run, the
// Desmos table next to the paper's Table 2, and the congestion of the
// paper's traffic patterns (section 5.2).
#include <hwloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "angara/network.hpp"
#include "routing/generator.hpp"
#include "routing/check/lp_bound.hpp"
#include "routing/common/oracle.hpp"
#include "routing/check/patterns.hpp"
#include "routing/check/verifier.hpp"

namespace {

using namespace angara;

struct Options {
  std::vector<int> dims = {2, 3, 4};
  int min_size = 2, max_size = 8;
  NodeId max_nodes = 432;
  NodeId genetic_max_nodes = 64;  // the paper: genetic is too slow for practice
  std::vector<std::string> algorithms;
  bool desmos = true, sweep = true;
  std::string csv_path;
  std::uint64_t seed = 1;
  // The LP lower bound of every allocation up to lp_max_nodes nodes, within
  // lp_time seconds each (0: none).  Longer than the product's 2 s
  // (routing.lp_bound_time): the benchmark wants the bound of every
  // allocation, and random halves of 4D machines with even rings take up to
  // ~20 s CPU in GLPK's simplex (doc/benchmarks.md, "Quality").
  double lp_time = 120.0;
  NodeId lp_max_nodes = 128;
  // --lp-all-columns: the full LP at once instead of column generation
  // (LpBoundOptions::all_columns); without it, an LP whose column generation
  // times out is tried once more that way.
  bool lp_all_columns = false;
  std::vector<std::string> allocations;  // --allocations: these kinds only (empty: all)
  std::vector<std::string> machines;     // --machines: these tori only (empty: the whole set)
  bool lp_verbose = false;               // --lp-verbose: every LP's figures on stderr
  std::map<std::string, std::string> generator_extra;  // --option key=value (routing.options)
  // --nue: Nue under both rule sets on fixed tori and virtual channel counts.
  bool nue = false;
  std::vector<std::string> nue_tori = {"4x4x4", "8x8", "6x6x6", "4x4x4x4", "8x8x8"};
  std::vector<int> nue_channels = {1, 4, 8};
  std::vector<RuleSet> nue_rules = {RuleSet::general, RuleSet::angara};
  FlowControl nue_flow = FlowControl::bubble;
};

// The allocation kinds of the sweep, and "all" for the summaries.
const std::vector<std::string> kAllocationKinds = {"whole", "half-block", "random-half", "slurm-linear", "all"};

struct Row {
  std::string machine, allocation, algorithm;
  int dims = 0;
  std::size_t nodes = 0;
  bool ran = false, ok = false;
  std::uint64_t max_gamma = 0, min_gamma = 0, bound = 0;
  double sigma4 = 0, seconds = 0;
  int max_hops = 0;
  std::size_t non_minimal = 0;
  std::string error;
  LpBound lp;  // of the allocation (the same for every algorithm)
};

LpBound allocation_lp_bound(const Network& network, const std::vector<NodeId>& nodes, const Options& options) {
  LpBoundOptions lp_options;
  lp_options.time_limit = options.lp_time;
  lp_options.max_nodes = options.lp_max_nodes;
  lp_options.all_columns = options.lp_all_columns;
  LpBound bound = lp_lower_bound(network, nodes, lp_options);
  if (bound.status == LpBound::Status::timed_out && !lp_options.all_columns) {
    // Where the column generation tails off (one column a round), the full
    // LP at once still ends (the 2x8x7x2 random half: 10-60 s).
    lp_options.all_columns = true;
    LpBound full = lp_lower_bound(network, nodes, lp_options);
    if (full.solved()) {
      full.seconds += bound.seconds;
      bound = full;
    }
  }
  return bound;
}

// "25.33" (solved), ">=62.19" (timed out: the certified part), "-".
std::string lp_cell(const LpBound& lp) {
  char buffer[32];
  if (lp.solved())
    std::snprintf(buffer, sizeof buffer, "%.2f", lp.value);
  else if (lp.has_value())
    std::snprintf(buffer, sizeof buffer, ">=%.2f", lp.value);
  else
    return "-";
  return buffer;
}

void print_host() {
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) != 0 || hwloc_topology_load(topology) != 0) return;
  const int cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
  const int pus = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU);
  const char* cpu = hwloc_obj_get_info_by_name(hwloc_get_obj_by_type(topology, HWLOC_OBJ_PACKAGE, 0), "CPUModel");
  const double memory = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  std::printf("host: %s, %d cores, %d hardware threads (hwloc), %.1f GiB\n", cpu ? cpu : "unknown CPU", cores, pus,
              memory / (1024.0 * 1024.0 * 1024.0));
  hwloc_topology_destroy(topology);
}

std::vector<NodeId> block(const Torus& torus, const std::array<int, kMaxDims>& extent) {
  std::vector<NodeId> nodes;
  for (NodeId node = 0; node < torus.node_count(); ++node) {
    const Coord c = torus.coord(node);
    bool inside = true;
    for (int dim = 0; dim < kMaxDims; ++dim) inside = inside && c[dim] < extent[dim];
    if (inside) nodes.push_back(node);
  }
  return nodes;
}

std::vector<NodeId> whole(const Torus& torus) { return block(torus, torus.sizes()); }

// About half the machine as one compact block: the largest dimension cut to
// ceil(d/2).
std::vector<NodeId> half_block(const Torus& torus) {
  auto extent = torus.sizes();
  int largest = 0;
  for (int dim = 1; dim < kMaxDims; ++dim)
    if (extent[dim] > extent[largest]) largest = dim;
  extent[largest] = (extent[largest] + 1) / 2;
  return block(torus, extent);
}

std::vector<NodeId> random_half(const Torus& torus, std::uint64_t seed) {
  std::vector<NodeId> nodes = whole(torus);
  std::mt19937_64 rng(seed ^ (static_cast<std::uint64_t>(torus.node_count()) * 0x9E3779B97F4A7C15ull) ^
                      std::hash<std::string>{}(torus.to_string()));
  std::shuffle(nodes.begin(), nodes.end(), rng);
  nodes.resize(std::max<std::size_t>(2, nodes.size() / 2));
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

// The node set Slurm's select/linear gives a job on a partly busy machine:
// earlier jobs hold runs of consecutive nodes (node index order, which is
// the slurm.conf order of conf/ and of the cluster test), each run 1 to n/8
// nodes long and busy with probability 0.4 (seeded).  The job asks for half
// of the free nodes; linear best fit takes the smallest run of consecutive
// free nodes that holds it, and when none does, the largest runs first.
std::vector<NodeId> slurm_linear(const Torus& torus, std::uint64_t seed) {
  const NodeId n = torus.node_count();
  std::mt19937_64 rng(seed * 0xD1B54A32D192ED03ull ^ std::hash<std::string>{}(torus.to_string()));
  std::vector<std::pair<NodeId, NodeId>> runs;  // free runs: first node, length
  const NodeId longest = std::max<NodeId>(1, n / 8);
  NodeId free_nodes = 0;
  for (NodeId node = 0; node < n;) {
    const NodeId length = std::min<NodeId>(n - node, 1 + static_cast<NodeId>(rng() % longest));
    const bool busy = rng() % 10 < 4;
    if (!busy) {
      if (!runs.empty() && runs.back().first + runs.back().second == node)
        runs.back().second += length;
      else
        runs.emplace_back(node, length);
      free_nodes += length;
    }
    node += length;
  }
  NodeId wanted = std::max<NodeId>(2, free_nodes / 2);
  if (free_nodes < wanted) return whole(torus);  // a tiny machine, all busy: take it whole
  std::vector<NodeId> nodes;
  while (wanted > 0) {
    // Best fit: the smallest run that suffices, else the largest (first of equals).
    std::size_t pick = runs.size();
    for (std::size_t r = 0; r < runs.size(); ++r) {
      if (runs[r].second == 0) continue;
      if (pick == runs.size()) {
        pick = r;
        continue;
      }
      const bool fits = runs[r].second >= wanted, pick_fits = runs[pick].second >= wanted;
      if (fits && (!pick_fits || runs[r].second < runs[pick].second)) pick = r;
      if (!fits && !pick_fits && runs[r].second > runs[pick].second) pick = r;
    }
    const NodeId take = std::min(wanted, runs[pick].second);
    for (NodeId k = 0; k < take; ++k) nodes.push_back(runs[pick].first + k);
    runs[pick].second = 0;
    wanted -= take;
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

Row run_one(const Network& network, const std::vector<NodeId>& allocation, const std::string& algorithm,
            const std::string& allocation_name, const Options& options, RouteTable* keep = nullptr) {
  Row row;
  row.machine = network.torus().to_string();
  row.dims = network.torus().present_dims();
  row.allocation = allocation_name;
  row.algorithm = algorithm;
  row.nodes = allocation.size();
  if (algorithm == "genetic" && allocation.size() > options.genetic_max_nodes) return row;
  GeneratorOptions generator_options;
  generator_options.seed = options.seed;
  generator_options.extra = options.generator_extra;
  try {
    const auto generator = make_generator(algorithm);
    const auto start = std::chrono::steady_clock::now();
    RouteTable table = generator->generate(network, allocation, generator_options);
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const VerifyReport report = verify(network, table);
    row.ran = true;
    row.ok = report.ok();
    row.max_gamma = report.metrics.max_gamma;
    row.min_gamma = report.metrics.min_gamma;
    row.bound = report.metrics.lower_bound;
    row.sigma4 = report.metrics.sigma4;
    row.max_hops = report.metrics.max_hops;
    row.non_minimal = report.non_minimal;
    if (!report.ok()) row.error = report.violations.front().message;
    if (keep) *keep = std::move(table);
  } catch (const std::exception& e) {
    row.ran = true;
    row.error = e.what();
  }
  return row;
}

// `single_cable`: Y, Z and K cabled once, as the paper's Desmos is (see
// doc/benchmarks.md, "Desmos against the paper's Table 2"); otherwise two
// cables, the default (doc/model.md, "Channels and cabling").
void desmos_table(const Options& options, bool single_cable) {
  const Network network(single_cable ? Torus::parse("4x2x2x2").with_single_cable(Torus::parse_dimension_letters("YZK"))
                                     : Torus::parse("4x2x2x2"));
  const Torus& torus = network.torus();
  struct Paper { int max_gamma, min_gamma; double sigma4; int max_d; };
  const std::map<std::string, std::vector<Paper>> paper = {
      {"bfs", {{1, 1, 0, 1}, {2, 2, 0, 2}, {6, 2, 1.429, 3}, {18, 3, 4.341, 4}, {48, 3, 12.254, 5}}},
      {"genetic", {{1, 1, 0, 1}, {2, 2, 0, 2}, {4, 4, 0, 3}, {11, 5, 1.745, 4}, {27, 8, 6.274, 5}}},
      {"sssp", {{1, 1, 0, 1}, {2, 2, 0, 2}, {5, 3, 0.707, 3}, {12, 3, 2.319, 4}, {28, 8, 6.298, 5}}},
  };
  const std::vector<std::pair<std::string, std::array<int, kMaxDims>>> blocks = {
      {"2 (2 along X)", {2, 1, 1, 1}}, {"4 (X ring)", {4, 1, 1, 1}}, {"8 (4x2)", {4, 2, 1, 1}},
      {"16 (4x2x2)", {4, 2, 2, 1}},    {"32 (whole)", {4, 2, 2, 2}}};
  std::printf("\n== Desmos %s: every generator against the ANSU paper's Table 2 ==\n",
              single_cable ? "4x2x2x2, one cable in Y, Z and K (the paper's cabling)" : "4x2x2x2, two cables");
  std::printf("%-10s %-14s %5s %5s %8s %4s %6s %7s %9s | %-24s\n", "algorithm", "nodes", "maxG", "minG", "sigma4",
              "maxD", "bound", "LP", "seconds", "paper maxG/minG/sigma4/D");
  std::vector<LpBound> lp;
  for (const auto& entry : blocks) lp.push_back(allocation_lp_bound(network, block(torus, entry.second), options));
  std::map<std::string, RouteTable> whole_tables;
  for (const std::string& algorithm : options.algorithms) {
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      RouteTable table;
      const Row row = run_one(network, block(torus, blocks[b].second), algorithm, blocks[b].first, options, &table);
      if (!row.ran) continue;
      std::string reference = "-";
      if (auto it = paper.find(algorithm); it != paper.end()) {
        const Paper& p = it->second[b];
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%d/%d/%.3f/%d", p.max_gamma, p.min_gamma, p.sigma4, p.max_d);
        reference = buffer;
      }
      std::printf("%-10s %-14s %5llu %5llu %8.3f %4d %6llu %7s %9.4f | %-24s %s\n", algorithm.c_str(),
                  blocks[b].first.c_str(), static_cast<unsigned long long>(row.max_gamma),
                  static_cast<unsigned long long>(row.min_gamma), row.sigma4, row.max_hops,
                  static_cast<unsigned long long>(row.bound), lp_cell(lp[b]).c_str(), row.seconds, reference.c_str(),
                  row.ok ? "" : ("REJECTED " + row.error).c_str());
      if (b + 1 == blocks.size() && row.ok) whole_tables[algorithm] = std::move(table);
    }
  }
  if (whole_tables.empty()) return;
  std::printf("\n== Desmos 32 nodes (%s): most flows sharing one channel per traffic pattern ==\n",
              single_cable ? "one cable in Y, Z, K" : "two cables");
  std::printf("%-10s", "algorithm");
  const auto names = standard_patterns(torus, whole_tables.begin()->second);
  for (const TrafficPattern& p : names) std::printf(" %10s", p.name.c_str());
  std::printf("\n");
  for (const auto& [algorithm, table] : whole_tables) {
    std::printf("%-10s", algorithm.c_str());
    for (const TrafficPattern& pattern : standard_patterns(torus, table))
      std::printf(" %10llu",
                  static_cast<unsigned long long>(measure_congestion(torus, table, pattern).max_flows_per_channel));
    std::printf("\n");
  }
}

std::vector<Torus> machine_set(const Options& options) {
  std::vector<Torus> set;
  for (int dims : options.dims) {
    std::array<int, kMaxDims> sizes{1, 1, 1, 1};
    for (int d = 0; d < dims; ++d) sizes[d] = options.min_size;
    while (true) {
      NodeId nodes = 1;
      for (int d = 0; d < dims; ++d) nodes *= static_cast<NodeId>(sizes[d]);
      if (nodes <= options.max_nodes) {
        Torus torus(sizes, dims);
        if (options.machines.empty() ||
            std::find(options.machines.begin(), options.machines.end(), torus.to_string()) != options.machines.end())
          set.push_back(std::move(torus));
      }
      int d = dims - 1;
      while (d >= 0 && sizes[d] == options.max_size) sizes[d--] = options.min_size;
      if (d < 0) break;
      ++sizes[d];
    }
  }
  return set;
}

// Max gamma against the LP bound, per dimension count and allocation kind:
// over the allocations where the LP was solved, summed max gamma / summed
// rounded-up LP, tables at it, and the worst allocation.
void lp_summary(const Options& options, const std::vector<Row>& rows) {
  if (options.lp_time <= 0) return;
  std::printf("\n-- the LP lower bound (allocations up to %u nodes, %g s each) --\n", options.lp_max_nodes,
              options.lp_time);
  std::printf("%-4s %-12s %-10s %7s %7s %7s %8s | %9s %7s | %s\n", "dims", "allocation", "algorithm", "solved",
              "timeout", "tried", "max LP s", "sum/LP", "at LP", "worst max gamma / LP (allocation)");
  // Per dimension count, then over all of them (0, printed "all").
  std::vector<int> dims_and_all = options.dims;
  dims_and_all.push_back(0);
  for (const std::string& allocation : kAllocationKinds)
    for (int dims : dims_and_all)
      for (const std::string& algorithm : options.algorithms) {
        std::size_t solved = 0, timed_out = 0, tried = 0, at_lp = 0;
        double sum_gamma = 0, sum_lp = 0, worst = 0, lp_seconds = 0;
        std::string worst_name;
        for (const Row& row : rows) {
          if ((dims && row.dims != dims) || row.algorithm != algorithm || !row.ran || !row.ok) continue;
          if (allocation != "all" && row.allocation != allocation) continue;
          if (row.lp.status == LpBound::Status::too_large || row.lp.status == LpBound::Status::disabled) continue;
          ++tried;
          lp_seconds = std::max(lp_seconds, row.lp.seconds);
          if (!row.lp.solved()) {
            timed_out += row.lp.status == LpBound::Status::timed_out;
            continue;
          }
          ++solved;
          const double rounded = static_cast<double>(row.lp.rounded()), gamma = static_cast<double>(row.max_gamma);
          sum_gamma += gamma;
          sum_lp += rounded;
          if (gamma <= rounded) ++at_lp;
          if (rounded > 0 && gamma / rounded > worst) {
            worst = gamma / rounded;
            worst_name = std::to_string(row.max_gamma) + " / " + lp_cell(row.lp) + " (" + row.machine + " " +
                         row.allocation + ", " + std::to_string(row.nodes) + " nodes)";
          }
        }
        if (!tried) continue;
        std::printf("%-4s %-12s %-10s %7zu %7zu %7zu %8.3f | %9.3f %7zu | %.3f: %s\n",
                    dims ? std::to_string(dims).c_str() : "all", allocation.c_str(),
                    algorithm.c_str(), solved, timed_out, tried, lp_seconds, sum_lp > 0 ? sum_gamma / sum_lp : 0.0,
                    at_lp, worst, worst_name.c_str());
      }
}

void sweep(const Options& options) {
  const std::vector<Torus> set = machine_set(options);
  std::printf("\n== Machine set (ANSU section 5.1): %zu machines, sizes %d..%d, <= %u nodes ==\n", set.size(),
              options.min_size, options.max_size, options.max_nodes);
  std::FILE* csv = options.csv_path.empty() ? nullptr : std::fopen(options.csv_path.c_str(), "w");
  if (csv)
    std::fprintf(csv, "machine,dims,allocation,nodes,algorithm,ok,max_gamma,min_gamma,bound,sigma4,max_hops,"
                      "non_minimal,seconds,error,lp_status,lp_value,lp_rounded,lp_seconds\n");
  std::vector<Row> rows;
  const auto start = std::chrono::steady_clock::now();
  std::size_t done = 0;
  for (const Torus& torus : set) {
    const Network network(torus);
    const std::vector<std::pair<std::string, std::vector<NodeId>>> allocations = {
        {"whole", whole(torus)},
        {"half-block", half_block(torus)},
        {"random-half", random_half(torus, options.seed)},
        {"slurm-linear", slurm_linear(torus, options.seed)}};
    for (const auto& [name, nodes] : allocations) {
      if (nodes.size() < 2) continue;
      if (!options.allocations.empty() &&
          std::find(options.allocations.begin(), options.allocations.end(), name) == options.allocations.end())
        continue;
      const LpBound lp = allocation_lp_bound(network, nodes, options);
      if (options.lp_verbose)
        std::fprintf(stderr, "LP %s %s %zu nodes: %s %.4f in %.3f s, %zu pairs, %zu routes, %zu columns, %d rounds\n",
                     torus.to_string().c_str(), name.c_str(), nodes.size(), lp_status_name(lp.status), lp.value,
                     lp.seconds, lp.pairs, lp.routes, lp.columns, lp.rounds);
      for (const std::string& algorithm : options.algorithms) {
        Row row = run_one(network, nodes, algorithm, name, options);
        row.lp = lp;
        if (csv && row.ran)
          std::fprintf(csv, "%s,%d,%s,%zu,%s,%d,%llu,%llu,%llu,%.4f,%d,%zu,%.6f,\"%s\",%s,%.4f,%llu,%.4f\n",
                       row.machine.c_str(), row.dims, name.c_str(), row.nodes, algorithm.c_str(), row.ok ? 1 : 0,
                       static_cast<unsigned long long>(row.max_gamma), static_cast<unsigned long long>(row.min_gamma),
                       static_cast<unsigned long long>(row.bound), row.sigma4, row.max_hops, row.non_minimal,
                       row.seconds, row.error.c_str(), lp_status_name(lp.status), lp.value,
                       static_cast<unsigned long long>(lp.has_value() ? lp.rounded() : 0), lp.seconds);
        rows.push_back(std::move(row));
      }
    }
    if (++done % 100 == 0)
      std::fprintf(stderr, "  %zu/%zu machines, %.0f s\n", done, set.size(),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  if (csv) std::fclose(csv);

  // Index rows by (machine, allocation, algorithm) to compare with BFS.
  std::map<std::tuple<std::string, std::string, std::string>, const Row*> index;
  for (const Row& row : rows) index[{row.machine, row.allocation, row.algorithm}] = &row;

  for (const std::string& allocation : kAllocationKinds) {
    std::printf("\n-- allocations: %s --\n", allocation.c_str());
    std::printf("%-4s %-10s %7s %7s | %6s %6s %6s | %8s %8s %8s | %9s %9s %7s %7s %9s %9s\n", "dims", "algorithm",
                "tables", "failed", "better", "equal", "worse", "r.better", "r.equal", "r.worse", "sum/bfs",
                "mean/LB", "at LB", "beaten", "mean s", "max s");
    for (int dims : options.dims) {
      for (const std::string& algorithm : options.algorithms) {
        std::size_t tables = 0, failed = 0, at_bound = 0, beaten = 0;
        std::size_t count[3] = {0, 0, 0};
        double sum_gen[3] = {0, 0, 0}, sum_bfs[3] = {0, 0, 0};
        double total_gen = 0, total_bfs = 0, ratio_to_bound = 0, seconds = 0, max_seconds = 0;
        for (const Row& row : rows) {
          if (row.dims != dims || row.algorithm != algorithm || !row.ran) continue;
          if (allocation != "all" && row.allocation != allocation) continue;
          ++tables;
          if (!row.ok) {
            ++failed;
            continue;
          }
          seconds += row.seconds;
          max_seconds = std::max(max_seconds, row.seconds);
          ratio_to_bound += row.bound ? static_cast<double>(row.max_gamma) / static_cast<double>(row.bound) : 1.0;
          if (row.max_gamma <= row.bound) ++at_bound;
          for (const std::string& other : options.algorithms) {
            auto rival = index.find({row.machine, row.allocation, other});
            if (rival != index.end() && rival->second->ok && rival->second->max_gamma < row.max_gamma) {
              ++beaten;
              break;
            }
          }
          auto it = index.find({row.machine, row.allocation, "bfs"});
          if (it == index.end() || !it->second->ok) continue;
          const double g = static_cast<double>(row.max_gamma), b = static_cast<double>(it->second->max_gamma);
          const int group = g < b ? 0 : (g == b ? 1 : 2);
          ++count[group];
          sum_gen[group] += g;
          sum_bfs[group] += b;
          total_gen += g;
          total_bfs += b;
        }
        if (!tables) continue;
        const std::size_t good = tables - failed;
        auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
        std::printf("%-4d %-10s %7zu %7zu | %6zu %6zu %6zu | %8.3f %8.3f %8.3f | %9.3f %9.3f %7zu %7zu %9.4f %9.4f\n",
                    dims, algorithm.c_str(), tables, failed, count[0], count[1], count[2], ratio(sum_gen[0], sum_bfs[0]),
                    ratio(sum_gen[1], sum_bfs[1]), ratio(sum_gen[2], sum_bfs[2]), ratio(total_gen, total_bfs),
                    good ? ratio_to_bound / static_cast<double>(good) : 0.0, at_bound, beaten,
                    good ? seconds / static_cast<double>(good) : 0.0, max_seconds);
      }
    }
  }
  lp_summary(options, rows);
  std::printf("\ncolumns: better/equal/worse = tables whose max gamma is below/equal/above BFS's on the same\n"
              "allocation; r.* = summed max gamma of that group / BFS's (the paper's Figure 5 ratios);\n"
              "sum/bfs = over all tables; mean/LB = mean of max gamma / per-dimension lower bound;\n"
              "at LB = tables that reach the bound; beaten = tables where another generator that ran on\n"
              "the same allocation has a lower max gamma; seconds = generation time (verification not included).\n");
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The Nue figures: for each torus, rule set and virtual channel count,
// max gamma against the per-dimension lower bound, the virtual channels the
// table uses, non-minimal routes and the time; then faulty machines (an 8x8
// with routers 1,0, 2,1 and 4,0 failed, whose pairs from 2,0 to 0,0 and the
// nodes behind 4,0 no encodable route joins, and seeded failed routers and
// cables), with the routability
// oracle's count of pairs no encodable route joins.  Every table is verified
// under the rules and flow control it was made with.
void nue_row(const Network& network, const std::string& label, RuleSet rules, FlowControl flow, int channels) {
  GeneratorOptions generator_options;
  generator_options.rules = rules;
  generator_options.flow_control = flow;
  generator_options.virtual_channels = channels;
  std::vector<NodeId> allocation;
  for (NodeId node = 0; node < network.torus().node_count(); ++node)
    if (network.node_alive(node)) allocation.push_back(node);
  std::printf("%-30s %-7s %3d ", label.c_str(), std::string(rule_set_name(rules)).c_str(), channels);
  try {
    const auto start = std::chrono::steady_clock::now();
    const RouteTable table = make_generator("nue")->generate(network, allocation, generator_options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    VerifyOptions verify_options;
    verify_options.rules = rules;
    verify_options.flow_control = flow;
    verify_options.max_virtual_channels = channels;
    const VerifyReport report = verify(network, table, verify_options);
    const Metrics& m = report.metrics;
    std::printf("%4d %9llu %9llu %6.3f %9zu %8.2f %s\n", report.virtual_channels,
                static_cast<unsigned long long>(m.max_gamma), static_cast<unsigned long long>(m.lower_bound),
                m.lower_bound ? static_cast<double>(m.max_gamma) / static_cast<double>(m.lower_bound) : 0.0,
                report.non_minimal, seconds, report.ok() ? "verified" : rule_name(report.violations.front().rule));
  } catch (const RoutingError& e) {
    std::printf("no table: %s\n", e.what());
  }
  std::fflush(stdout);
}

void nue_table(const Options& options) {
  const std::string flow(flow_control_name(options.nue_flow));
  std::printf("\n-- nue: whole fault-free machines, flow control %s --\n", flow.c_str());
  std::printf("%-30s %-7s %3s %4s %9s %9s %6s %9s %8s %s\n", "machine", "rules", "vc", "used", "max_gamma",
              "bound", "ratio", "non-min", "seconds", "verdict");
  for (RuleSet rules : options.nue_rules)
    for (const std::string& dims : options.nue_tori)
      for (int channels : options.nue_channels)
        nue_row(Network(Torus::parse(dims)), dims, rules, options.nue_flow, channels);

  std::printf("\n-- nue: faulty machines (seed %llu), flow control %s --\n",
              static_cast<unsigned long long>(options.seed), flow.c_str());
  struct Faulty {
    std::string label;
    Network network;
  };
  std::vector<Faulty> faulty;
  {
    Network cut(Torus::parse("8x8"));  // routers 1,0, 2,1 and 4,0 failed: 4 pairs cut off
    for (const char* dead : {"1,0", "2,1", "4,0"}) cut.fail_node(cut.torus().id(cut.torus().parse_coord(dead)));
    faulty.push_back({"8x8 cut", std::move(cut)});  // label as in doc/benchmarks.md
  }
  const std::vector<std::tuple<std::string, int, int>> seeded = {
      {"4x4x4", 1, 2}, {"4x4x4", 3, 4}, {"8x8", 2, 3}, {"8x8", 3, 6}, {"6x6x6", 4, 8}, {"4x4x4x4", 4, 8}};
  for (const auto& [dims, routers, cables] : seeded) {
    Network network(Torus::parse(dims));
    const Torus& torus = network.torus();
    std::uint64_t mix = options.seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(routers * 131 + cables);
    for (char c : dims) mix = mix * 1099511628211ull ^ static_cast<unsigned char>(c);
    std::mt19937_64 rng(mix);
    for (int i = 0; i < routers; ++i) network.fail_node(static_cast<NodeId>(rng() % torus.node_count()));
    for (int i = 0; i < cables; ++i) {
      const Direction d(static_cast<int>(rng() % kDirectionCount));
      if (torus.direction_present(d)) network.fail_link(static_cast<NodeId>(rng() % torus.node_count()), d);
    }
    faulty.push_back({dims + " r" + std::to_string(routers) + " c" + std::to_string(cables), std::move(network)});
  }
  for (const Faulty& f : faulty) {
    std::vector<NodeId> live;
    for (NodeId node = 0; node < f.network.torus().node_count(); ++node)
      if (f.network.node_alive(node)) live.push_back(node);
    std::string names;
    for (const std::string& name : failure_names(f.network)) names += (names.empty() ? "" : "; ") + name;
    std::printf("%s: %s; oracle: %zu ordered pairs without an encodable route\n", f.label.c_str(), names.c_str(),
                assess_routability(f.network, live).cut_off_pairs);
    for (RuleSet rules : options.nue_rules)
      for (int channels : options.nue_channels) nue_row(f.network, f.label, rules, options.nue_flow, channels);
  }
}

int usage() {
  std::fprintf(stderr,
               "usage: angara-bench [--dims 2,3,4] [--max-size N] [--max-nodes N] [--algorithms a,b]\n"
               "                    [--genetic-max-nodes N] [--desmos-only | --sweep-only] [--csv FILE] [--seed N]\n"
               "                    [--lp-time S] [--lp-max-nodes N] [--lp-all-columns] [--allocations whole,half-block,...]\n"
               "                    [--machines 4x4x4,8x8,...] [--lp-verbose] [--option key=value]\n"
               "       angara-bench --nue [--tori 4x4x4,8x8,...] [--virtual-channels 1,4,8] [--rules general,angara]\n"
               "                    [--flow-control bubble|none] [--seed N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (const GeneratorInfo& info : generators()) options.algorithms.emplace_back(info.name);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--dims") {
      options.dims.clear();
      for (const std::string& d : split(value())) options.dims.push_back(std::stoi(d));
    } else if (arg == "--max-size") {
      options.max_size = std::stoi(value());
    } else if (arg == "--max-nodes") {
      options.max_nodes = static_cast<NodeId>(std::stoul(value()));
    } else if (arg == "--genetic-max-nodes") {
      options.genetic_max_nodes = static_cast<NodeId>(std::stoul(value()));
    } else if (arg == "--algorithms") {
      options.algorithms = split(value());
    } else if (arg == "--desmos-only") {
      options.sweep = false;
    } else if (arg == "--sweep-only") {
      options.desmos = false;
    } else if (arg == "--lp-time") {
      options.lp_time = std::stod(value());
    } else if (arg == "--lp-all-columns") {
      options.lp_all_columns = true;
    } else if (arg == "--lp-max-nodes") {
      options.lp_max_nodes = static_cast<NodeId>(std::stoul(value()));
    } else if (arg == "--machines") {
      options.machines = split(value());
    } else if (arg == "--option") {
      const std::string pair = value();
      const std::size_t equals = pair.find('=');
      if (equals == std::string::npos) return usage();
      options.generator_extra[pair.substr(0, equals)] = pair.substr(equals + 1);
    } else if (arg == "--lp-verbose") {
      options.lp_verbose = true;
    } else if (arg == "--allocations") {
      options.allocations = split(value());
    } else if (arg == "--csv") {
      options.csv_path = value();
    } else if (arg == "--seed") {
      options.seed = std::stoull(value());
    } else if (arg == "--nue") {
      options.nue = true;
    } else if (arg == "--tori") {
      options.nue_tori = split(value());
    } else if (arg == "--virtual-channels") {
      options.nue_channels.clear();
      for (const std::string& k : split(value())) options.nue_channels.push_back(std::stoi(k));
    } else if (arg == "--rules") {
      options.nue_rules.clear();
      for (const std::string& name : split(value())) {
        const auto rules = parse_rule_set(name);
        if (!rules) return usage();
        options.nue_rules.push_back(*rules);
      }
    } else if (arg == "--flow-control") {
      const auto flow = parse_flow_control(value());
      if (!flow) return usage();
      options.nue_flow = *flow;
    } else {
      return usage();
    }
  }
  for (const std::string& algorithm : options.algorithms)
    if (!make_generator(algorithm)) {
      std::fprintf(stderr, "angara-bench: unknown algorithm '%s' (valid: %s)\n", algorithm.c_str(),
                   generator_names().c_str());
      return 2;
    }
  if (std::find(options.algorithms.begin(), options.algorithms.end(), "bfs") == options.algorithms.end())
    options.algorithms.insert(options.algorithms.begin(), "bfs");  // the baseline of every ratio
  print_host();
  if (options.nue) {
    nue_table(options);
    return 0;
  }
  if (options.desmos) {
    desmos_table(options, true);
    desmos_table(options, false);
  }
  if (options.sweep) sweep(options);
  return 0;
}
