// The budget of a generator's optional stages (routing.time_budget): work
// counted in the searches' own steps (candidate routes evaluated, channels a
// dependency-graph search expands), never in clock time, so that every node
// computing one job stops at the same point and installs the same table.
// The seconds of the configuration are turned into steps by a rate
// calibrated on this project's reference machine (doc/benchmarks.md, "Time
// budget"); a slower node takes longer for the same table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace angara {

class WorkBudget {
 public:
  // Steps of work per CPU second of balanced's search on the reference
  // machine: a step is a channel a dependency-graph search expands (about
  // 20 ns), an evaluated candidate counts 6 (balanced/balancer.hpp,
  // kEvaluationWork; 50-180 ns), a detour's shortening what its
  // searches cost (checked_turns.hpp: about 1 ms on 8x8x4x4, 20 ms on
  // 16x8x8x8).  The rate is the slowest mix measured
  // (bench/angara-scale --cases latency): an 8x8x4x4 with one failed router
  // (evaluations only) takes 36 ns a step, a random half of 8x8x4x4 26 ns,
  // an 8x8x8 block of 16x16x8 18 ns, a random quarter of 8x8x4x4 (mostly
  // dependency-graph search) 14 ns.
  static constexpr double kStepsPerSecond = 30e6;
  // The share of the budget the optional stages get: the stages every
  // table needs and the verifier take the rest.
  static constexpr double kOptionalShare = 0.85;

  // What the pass over every pair's route after the generator costs (the
  // verifier, the metrics: 50-60 ns a route), charged before the optional
  // stages start so that they get what it leaves: the verifier's time is
  // inside the budget.
  static constexpr std::uint64_t kCheckWorkPerPair = 2;

  explicit WorkBudget(std::uint64_t limit = 0) : limit_(limit) {}  // 0: unlimited
  static WorkBudget for_seconds(double seconds) {
    return WorkBudget(seconds > 0 ? static_cast<std::uint64_t>(seconds * kOptionalShare * kStepsPerSecond) + 1 : 0);
  }
  // The budget of one job's computation over `nodes`: for_seconds() less
  // the check of every pair's route.
  static WorkBudget for_job(double seconds, std::size_t nodes) {
    WorkBudget budget = for_seconds(seconds);
    budget.spend(static_cast<std::uint64_t>(nodes) * nodes * kCheckWorkPerPair);
    return budget;
  }

  bool unlimited() const { return limit_ == 0; }
  bool exhausted() const { return limit_ != 0 && used_ >= limit_; }
  void spend(std::uint64_t steps) { used_ += steps; }
  // Gives back steps charged in advance that will not be worked (the check
  // of a table cheaper to check than kCheckWorkPerPair a pair).
  void refund(std::uint64_t steps) { used_ = used_ > steps ? used_ - steps : 0; }
  std::uint64_t used() const { return used_; }
  std::uint64_t limit() const { return limit_; }
  // The steps a limited budget has left (0 once exhausted).
  std::uint64_t left() const { return exhausted() ? 0 : limit_ - used_; }
  // Whether it pays for `steps` more: unlimited, or not exhausted with that
  // many left.
  bool affords(std::uint64_t steps) const { return unlimited() || (!exhausted() && limit_ - used_ >= steps); }

  // A stage that did not run, or stopped early, for the budget: said once.
  void note_cut(const std::string& stage) {
    for (const std::string& known : cut_)
      if (known == stage) return;
    cut_.push_back(stage);
  }
  const std::vector<std::string>& cut() const { return cut_; }

 private:
  std::uint64_t limit_;
  std::uint64_t used_ = 0;
  std::vector<std::string> cut_;
};

}  // namespace angara
