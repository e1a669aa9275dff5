// The "genetic" generator of ANSU paper section 4.2.
//
// A chromosome holds one gene per ordered pair: the index of the route
// variant it uses among the pair's candidates (routing/common/candidates.hpp, capped
// at `variants` per pair).  Pairs with a single candidate are fixed and left
// out of the chromosome.  The paper's operators:
//  - initial population of `population` (100) random chromosomes;
//  - two-point crossover, parents drawn uniformly at random (panmixia), each
//    crossover giving two children, `population` children per generation;
//  - mutation: each child gene is replaced, with probability `mutation`
//    (2%), by another variant drawn uniformly;
//  - fitness sigma(4) of the channel loads, lower is better, ties broken by
//    the max load;
//  - elitist selection: the best `population` of parents and children.
// Stopping rule.  The paper stops "after 30 consecutive iteration or if the
// fitness value of next best solution less then 0.05 of fitness value of
// global best solution".  We read the first part as 30 (`stall`) consecutive
// generations that do not improve the best chromosome, and the second as a
// convergence threshold relative to the start: stop once the best fitness
// has fallen below 0.05 (`converge`) times the best fitness of the initial
// random population, i.e. the search has removed 95% of the imbalance of a
// random table (a fitness of 0, a perfectly even load, also stops it).  A
// hard cap of `generations` (2000) generations makes it always end.
//
// Loads are kept per chromosome and updated by the genes a child takes from
// its second parent or from mutation, so a generation costs
// O(population * changed genes * route length), not a full recount.
// Randomness comes from one std::mt19937_64 seeded with GeneratorOptions::seed
// (and portable bounded draws), so a seed reproduces a table exactly.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "routing/common/candidates.hpp"
#include "routing/common/checked_turns.hpp"
#include "routing/generator.hpp"

namespace angara {

namespace {

struct GeneticSettings {
  std::size_t population = 100;
  double mutation = 0.02;
  long generations = 2000;
  long stall = 30;
  double converge = 0.05;
  std::size_t variants = 16;
};

const OptionSpec kPopulationOption{"population", OptionSpec::Kind::integer, "100", {}, 2, 100000,
                                    "chromosomes in a generation"};
const OptionSpec kMutationOption{"mutation", OptionSpec::Kind::number, "0.02", {}, 0, 1,
                                 "probability that a gene mutates; the seed is routing.seed"};
const OptionSpec kGenerationsOption{"generations", OptionSpec::Kind::integer, "2000", {}, 0, 100000000,
                                    "generations at most (a hard cap)"};
const OptionSpec kStallOption{"stall", OptionSpec::Kind::integer, "30", {}, 1, 100000000,
                              "generations without improvement before the search stops"};
const OptionSpec kConvergeOption{"converge", OptionSpec::Kind::number, "0.05", {}, 0, 1,
                                 "relative spread of fitness at which the population counts as converged"};
const OptionSpec kVariantsOption{"variants", OptionSpec::Kind::integer, "16", {}, 1, 255,
                                 "route variants per pair"};

GeneticSettings read_settings(const GeneratorOptions& options) {
  GeneticSettings s;
  s.population = static_cast<std::size_t>(option_integer("genetic", kPopulationOption, options));
  s.mutation = option_number("genetic", kMutationOption, options);
  s.generations = option_integer("genetic", kGenerationsOption, options);
  s.stall = option_integer("genetic", kStallOption, options);
  s.converge = option_number("genetic", kConvergeOption, options);
  s.variants = static_cast<std::size_t>(option_integer("genetic", kVariantsOption, options));
  return s;
}

// Portable draws (the standard distributions differ between libraries).
class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}
  // Uniform in [0, n), n >= 1.
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() -
                                std::numeric_limits<std::uint64_t>::max() % n;
    std::uint64_t x;
    do x = engine_();
    while (x >= limit);
    return x % n;
  }
  // Uniform in [0, 1).
  double unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

 private:
  std::mt19937_64 engine_;
};

struct Fitness {
  double sigma4 = 0;
  std::uint32_t max_load = 0;
  bool operator<(const Fitness& o) const {
    return sigma4 < o.sigma4 || (sigma4 == o.sigma4 && max_load < o.max_load);
  }
};

struct Chromosome {
  std::vector<std::uint8_t> genes;   // variant per free pair
  std::vector<std::uint32_t> loads;  // per channel slot
  Fitness fitness;
};

class GeneticSearch {
 public:
  GeneticSearch(const Network& network, const CandidateSet& set, const GeneticSettings& settings,
                std::uint64_t seed)
      : set_(set), settings_(settings), random_(seed) {
    const Torus& torus = network.torus();
    for (std::size_t p = 0; p < set.pair_count(); ++p)
      if (set.variants(p) > 1) free_pairs_.push_back(p);

    // Channels the fitness is taken over, as in routing/check/metrics.hpp: every
    // live channel between two allocated nodes always, any other channel
    // while some route crosses it.
    std::vector<unsigned char> allocated(torus.node_count(), 0);
    for (NodeId node : set.nodes()) allocated[node] = 1;
    std::vector<unsigned char> listed(torus.channel_slots(), 0);
    for (ChannelId c = 0; c < torus.channel_slots(); ++c) {
      if (!network.channel_alive(c)) continue;
      const NodeId from = Torus::channel_node(c);
      if (allocated[from] && allocated[torus.neighbor(from, Torus::channel_direction(c))]) {
        listed[c] = 1;
        base_channels_.push_back(c);
      }
    }
    for (ChannelId c : set.used_channels())
      if (!listed[c]) extra_channels_.push_back(c);

    fixed_loads_.assign(torus.channel_slots(), 0);
    for (std::size_t p = 0; p < set.pair_count(); ++p)
      if (set.variants(p) == 1)
        for (ChannelId c : set.channels(p, 0)) ++fixed_loads_[c];
  }

  // Runs the search; returns the best variant choice for every pair.
  std::vector<std::uint32_t> run() {
    const std::size_t size = settings_.population;
    pool_.resize(2 * size);
    for (std::size_t i = 0; i < size; ++i) randomize(pool_[i]);
    std::vector<std::size_t> population(size), spare(size);
    std::iota(population.begin(), population.end(), 0);
    std::iota(spare.begin(), spare.end(), size);
    sort_by_fitness(population);

    Fitness best = pool_[population.front()].fitness;
    const double target = best.sigma4 * settings_.converge;
    long stalled = 0;
    std::vector<std::size_t> everyone;
    for (long generation = 0; generation < settings_.generations; ++generation) {
      if (best.sigma4 == 0.0 || best.sigma4 < target || free_pairs_.empty()) break;
      // Children into the spare slots.
      for (std::size_t k = 0; k < size; k += 2) {
        const std::size_t a = population[random_.below(size)];
        std::size_t b = population[random_.below(size)];
        if (size > 1)
          while (b == a) b = population[random_.below(size)];
        const std::size_t cut1 = random_.below(free_pairs_.size() + 1);
        const std::size_t cut2 = random_.below(free_pairs_.size() + 1);
        const std::size_t low = std::min(cut1, cut2), high = std::max(cut1, cut2);
        cross(pool_[a], pool_[b], low, high, pool_[spare[k]]);
        if (k + 1 < size) cross(pool_[b], pool_[a], low, high, pool_[spare[k + 1]]);
      }
      for (std::size_t k = 0; k < size; ++k) {
        mutate(pool_[spare[k]]);
        evaluate(pool_[spare[k]]);
      }
      // Elitist selection of the best `size` of parents and children.
      everyone = population;
      everyone.insert(everyone.end(), spare.begin(), spare.end());
      sort_by_fitness(everyone);
      population.assign(everyone.begin(), everyone.begin() + static_cast<std::ptrdiff_t>(size));
      spare.assign(everyone.begin() + static_cast<std::ptrdiff_t>(size), everyone.end());

      const Fitness& leader = pool_[population.front()].fitness;
      if (leader < best) {
        best = leader;
        stalled = 0;
      } else if (++stalled >= settings_.stall) {
        break;
      }
    }

    std::vector<std::uint32_t> choice(set_.pair_count(), 0);
    const Chromosome& winner = pool_[population.front()];
    for (std::size_t g = 0; g < free_pairs_.size(); ++g) choice[free_pairs_[g]] = winner.genes[g];
    return choice;
  }

 private:
  void move_route(Chromosome& c, std::size_t gene, std::uint8_t to) {
    const std::size_t p = free_pairs_[gene];
    for (ChannelId ch : set_.channels(p, c.genes[gene])) --c.loads[ch];
    for (ChannelId ch : set_.channels(p, to)) ++c.loads[ch];
    c.genes[gene] = to;
  }

  void randomize(Chromosome& c) {
    c.genes.resize(free_pairs_.size());
    c.loads = fixed_loads_;
    for (std::size_t g = 0; g < free_pairs_.size(); ++g) {
      const std::size_t p = free_pairs_[g];
      c.genes[g] = static_cast<std::uint8_t>(random_.below(set_.variants(p)));
      for (ChannelId ch : set_.channels(p, c.genes[g])) ++c.loads[ch];
    }
    evaluate(c);
  }

  // child = first with genes [low, high) of second.  Starts from whichever
  // parent shares more genes with the child, then moves the rest.
  void cross(const Chromosome& first, const Chromosome& second, std::size_t low, std::size_t high,
             Chromosome& child) {
    const std::size_t genes = free_pairs_.size();
    const bool from_second = (high - low) * 2 > genes;
    const Chromosome& start = from_second ? second : first;
    const Chromosome& other = from_second ? first : second;
    child.genes = start.genes;
    child.loads = start.loads;
    auto take = [&](std::size_t g) {
      if (child.genes[g] != other.genes[g]) move_route(child, g, other.genes[g]);
    };
    if (from_second) {
      for (std::size_t g = 0; g < low; ++g) take(g);
      for (std::size_t g = high; g < genes; ++g) take(g);
    } else {
      for (std::size_t g = low; g < high; ++g) take(g);
    }
  }

  // Each gene mutates with probability p: the gaps between mutated genes are
  // geometric, so only the mutated genes cost anything.
  void mutate(Chromosome& c) {
    const double p = settings_.mutation;
    if (p <= 0.0) return;
    const double log_keep = std::log1p(-std::min(p, 1.0 - 1e-12));
    const std::size_t genes = free_pairs_.size();
    std::size_t g = 0;
    while (true) {
      if (p < 1.0) {
        const double gap = std::floor(std::log1p(-random_.unit()) / log_keep);
        if (gap >= static_cast<double>(genes - g)) break;
        g += static_cast<std::size_t>(gap);
      }
      if (g >= genes) break;
      const std::size_t count = set_.variants(free_pairs_[g]);
      // Another variant, uniformly: draw among count - 1 and skip the current.
      std::uint8_t to = static_cast<std::uint8_t>(random_.below(count - 1));
      if (to >= c.genes[g]) ++to;
      move_route(c, g, to);
      ++g;
    }
  }

  void evaluate(Chromosome& c) const {
    std::uint64_t total = 0, counted = 0;
    std::uint32_t peak = 0;
    for (ChannelId ch : base_channels_) {
      total += c.loads[ch];
      peak = std::max(peak, c.loads[ch]);
    }
    counted = base_channels_.size();
    for (ChannelId ch : extra_channels_)
      if (c.loads[ch]) {
        total += c.loads[ch];
        ++counted;
        peak = std::max(peak, c.loads[ch]);
      }
    double fourth = 0;
    const double mean = counted ? static_cast<double>(total) / static_cast<double>(counted) : 0.0;
    auto add = [&](std::uint32_t load) {
      const double dev = static_cast<double>(load) - mean;
      fourth += dev * dev * dev * dev;
    };
    for (ChannelId ch : base_channels_) add(c.loads[ch]);
    for (ChannelId ch : extra_channels_)
      if (c.loads[ch]) add(c.loads[ch]);
    c.fitness.sigma4 = counted ? std::pow(fourth / static_cast<double>(counted), 0.25) : 0.0;
    c.fitness.max_load = peak;
  }

  // Best first; equal fitness keeps the earlier slot, so the order is fixed.
  void sort_by_fitness(std::vector<std::size_t>& slots) const {
    std::stable_sort(slots.begin(), slots.end(),
                     [&](std::size_t a, std::size_t b) { return pool_[a].fitness < pool_[b].fitness; });
  }

  const CandidateSet& set_;
  GeneticSettings settings_;
  Random random_;
  std::vector<std::size_t> free_pairs_;
  std::vector<ChannelId> base_channels_;
  std::vector<ChannelId> extra_channels_;
  std::vector<std::uint32_t> fixed_loads_;
  std::vector<Chromosome> pool_;
};

class GeneticGenerator : public Generator {
 public:
  std::string_view name() const override { return "genetic"; }
  std::vector<OptionSpec> option_specs() const override {
    return {kPopulationOption, kMutationOption, kGenerationsOption, kStallOption, kConvergeOption, kVariantsOption};
  }
  // Candidate routes (up to `variants` a pair, channels of 4 bytes) and a
  // gene a pair for each of 2 * population chromosomes.
  double peak_bytes(const MemoryContext& context, const GeneratorOptions& options) const override {
    const GeneticSettings settings = read_settings(options);
    const std::uint64_t population = settings.population, variants = settings.variants;
    const double fixed = 16 + 2.0 * static_cast<double>(population);
    const double per_hop = 4.0 * static_cast<double>(std::min<std::uint64_t>(variants, 4));
    return context.pairs * (fixed + per_hop * context.mean_hops) + context.channel_slots * context.layers * 16;
  }

  RouteTable generate(const Network& network, const std::vector<NodeId>& allocation,
                      const GeneratorOptions& options) const override {
    // The shared allocation check: "NAME: allocated node ... has failed".
    start_route_table(name(), network, allocation);
    const GeneticSettings settings = read_settings(options);
    const TurnRules rules(network);
    // Pairs without a candidate are routed (or refused, with the reason) by
    // the checked-turn stage (routing/common/checked_turns.hpp), as are detours it
    // can shorten.
    const CandidateSet set(network, rules, allocation, settings.variants, /*allow_unroutable=*/true);
    GeneticSearch search(network, set, settings, options.seed);
    RouteTable table = set.make_table(search.run(), "genetic");
    complete_with_checked_turns(name(), network, table, options);
    return table;
  }
};

}  // namespace

std::unique_ptr<Generator> create_genetic_generator() { return std::make_unique<GeneticGenerator>(); }

}  // namespace angara
