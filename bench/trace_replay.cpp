#include "bench/trace_replay.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>

#include "placement/block_choice.hpp"
#include "placement/placement.hpp"
#include "placement/slurm_order.hpp"
#include "routing/check/metrics.hpp"
#include "routing/check/verifier.hpp"
#include "routing/generator.hpp"
#include "simulation/simulate.hpp"

namespace angara::bench {

const char* replay_policy_name(ReplayPolicy policy) {
  switch (policy) {
    case ReplayPolicy::angara: return "angara";
    case ReplayPolicy::linear: return "linear";
    case ReplayPolicy::tree: return "tree";
    case ReplayPolicy::select: return "select";
  }
  return "?";
}

bool parse_replay_policy(const std::string& name, ReplayPolicy& policy) {
  for (ReplayPolicy p : {ReplayPolicy::angara, ReplayPolicy::linear, ReplayPolicy::tree, ReplayPolicy::select})
    if (name == replay_policy_name(p)) {
      policy = p;
      return true;
    }
  return false;
}

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

struct RunningJob {
  std::size_t index = 0;  // into the trace
  double end = 0, estimated_end = 0;
  std::vector<NodeId> nodes;
  std::shared_ptr<const RouteTable> table;  // null for a single node
  std::vector<std::uint64_t> loads;         // channel loads of its routes; empty for a single node
  std::vector<NodeId> held;                 // hold_box_spares: the other routers of its box
};

// A job to simulate: its table and those of the jobs running at its start.
struct Snapshot {
  std::shared_ptr<const RouteTable> table;
  std::vector<std::shared_ptr<const RouteTable>> beside;
  std::size_t per_job_line = static_cast<std::size_t>(-1);  // its line of --per-job, if any
};

class Replay {
 public:
  Replay(const Network& network, const std::vector<TraceJob>& trace, const ReplayOptions& options)
      : network_(network),
        torus_(network.torus()),
        trace_(trace),
        options_(options),
        free_(torus_.node_count(), 0),
        held_(torus_.node_count(), 0),
        busy_(torus_.channel_slots(), 0),
        balanced_(make_generator("balanced")),
        route_options_(options.route_in_direction_order
                           ? balanced_->scoring_options(GeneratorOptions{}).value_or(GeneratorOptions{})
                           : GeneratorOptions{}) {
    for (NodeId node = 0; node < torus_.node_count(); ++node) alive_ += free_[node] = network.node_alive(node);
    free_count_ = alive_;
    linear_order_.resize(torus_.node_count());
    for (NodeId node = 0; node < torus_.node_count(); ++node) linear_order_[node] = node;
    if (options.policy == ReplayPolicy::tree) nested_ = nested_blocks(torus_);
    simulate_.assign(trace.size(), 0);
    waiting_.assign(trace.size(), 0);
    waited_.assign(trace.size(), 0);
    for (std::size_t index : options.simulate) {
      if (index >= trace.size()) throw std::invalid_argument("a simulated job is not in the trace");
      simulate_[index] = 1;
    }
  }

  ReplayResult run() {
    const Clock::time_point started = Clock::now();
    result_.jobs = trace_.size();
    std::size_t next = 0;
    double first_submit = trace_.empty() ? 0 : trace_.front().submit, last_end = first_submit;
    while (next < trace_.size() || !queue_.empty() || !running_.empty()) {
      double now = std::numeric_limits<double>::infinity();
      if (next < trace_.size()) now = trace_[next].submit;
      for (const RunningJob& job : running_) now = std::min(now, job.end);
      // A job that waits for a block is scheduled again when its wait ends.
      for (std::size_t index : queue_)
        if (waiting_[index] && trace_[index].submit + options_.block_wait > last_event_)
          now = std::min(now, trace_[index].submit + options_.block_wait);
      last_event_ = now;
      finish_until(now);
      for (; next < trace_.size() && trace_[next].submit <= now; ++next) {
        if (trace_[next].nodes > alive_) {
          ++result_.too_large;
          continue;
        }
        queue_.push_back(next);
      }
      schedule(now);
      last_end = std::max(last_end, now);
    }
    const double started_jobs = result_.started ? static_cast<double>(result_.started) : 1.0;
    result_.utilisation = last_end > first_submit ? work_ / (static_cast<double>(alive_) * (last_end - first_submit)) : 0;
    result_.mean_wait = wait_sum_ / started_jobs;
    result_.mean_bounded_slowdown = slowdown_sum_ / started_jobs;
    result_.shared_channels = result_.routed ? shared_sum_ / static_cast<double>(result_.routed) : 0;
    result_.shared_load = result_.routed ? shared_load_sum_ / static_cast<double>(result_.routed) : 0;
    result_.place_ms = place_count_ ? 1000 * place_seconds_ / static_cast<double>(place_count_) : 0;
    simulate_snapshots();
    // The per-job lines wait for the simulated jobs' bandwidths.
    for (std::size_t line = 0; line < per_job_lines_.size(); ++line) {
      const auto bandwidth = bandwidths_.find(line);
      if (bandwidth == bandwidths_.end())
        std::fprintf(options_.per_job, "%s -\n", per_job_lines_[line].c_str());
      else
        std::fprintf(options_.per_job, "%s %.3f\n", per_job_lines_[line].c_str(), bandwidth->second / 1e9);
    }
    result_.seconds = seconds_since(started);
    return result_;
  }

 private:
  double estimate(const TraceJob& job) const {
    return job.requested_time > 0 ? std::max(job.requested_time, job.runtime) : job.runtime;
  }

  void finish_until(double now) {
    for (std::size_t i = 0; i < running_.size();) {
      RunningJob& job = running_[i];
      if (job.end > now) {
        ++i;
        continue;
      }
      for (NodeId node : job.nodes) free_[node] = 1;
      for (NodeId node : job.held) held_[node] = 0;
      free_count_ += job.nodes.size();
      for (std::size_t c = 0; c < job.loads.size(); ++c) busy_[c] -= job.loads[c];
      running_[i] = std::move(running_.back());
      running_.pop_back();
    }
  }

  // FCFS, then EASY backfill behind the head's reservation.
  void schedule(double now) {
    while (!queue_.empty() && trace_[queue_.front()].nodes <= free_count_ && !must_wait(queue_.front(), now)) {
      start(queue_.front(), now);
      queue_.pop_front();
    }
    if (queue_.empty()) return;
    const std::size_t need = trace_[queue_.front()].nodes;
    std::vector<std::pair<double, std::size_t>> ends;  // (estimated end, nodes)
    for (const RunningJob& job : running_) ends.emplace_back(job.estimated_end, job.nodes.size());
    std::sort(ends.begin(), ends.end());
    std::size_t available = free_count_;
    double shadow = std::numeric_limits<double>::infinity();
    for (const auto& [end, nodes] : ends) {
      available += nodes;
      if (available >= need) {
        shadow = end;
        break;
      }
    }
    std::size_t extra = available >= need ? available - need : 0;
    for (auto it = std::next(queue_.begin()); it != queue_.end() && free_count_ > 0;) {
      const TraceJob& job = trace_[*it];
      const bool fits = job.nodes <= free_count_;
      const bool before_shadow = now + estimate(job) <= shadow;
      if (fits && (before_shadow || job.nodes <= extra) && !must_wait(*it, now)) {
        if (!before_shadow) extra -= job.nodes;
        start(*it, now);
        it = queue_.erase(it);
      } else {
        ++it;
      }
    }
  }

  // The free routers a job may be given (held box routers are not offered
  // to jobs of 2+ nodes), and the best free block of its size among them.
  BlockChoice choose_block(const TraceJob& job, std::vector<unsigned char>& offered) {
    offered = free_;
    if (options_.hold_box_spares && job.nodes > 1)
      for (NodeId node = 0; node < torus_.node_count(); ++node) offered[node] = free_[node] && !held_[node];
    BlockChoiceRequest request;
    request.node_count = job.nodes;
    request.free = offered;
    request.busy_ports.assign(torus_.node_count(), 0);
    for (ChannelId c = 0; c < busy_.size(); ++c)
      if (busy_[c]) ++request.busy_ports[Torus::channel_node(c)];
    request.bound_cache = &bounds_;
    request.confined = options_.confine;
    return choose_free_block(network_, request);
  }

  // Whether a block of `count` nodes is free on the idle machine (its
  // failures stay the same through the replay): a job that no block could
  // hold never waits for one, as with select/angara's BlockWait.
  bool block_possible(std::size_t count) {
    const auto [known, inserted] = block_possible_.try_emplace(count, false);
    if (inserted) {
      BlockChoiceRequest request;
      request.node_count = count;
      request.bound_cache = &bounds_;
      request.confined = options_.confine;
      known->second = !choose_free_block(network_, request).blocks.empty();
    }
    return known->second;
  }

  // block_wait: the job finds no block now and may still wait for one.
  bool must_wait(std::size_t index, double now) {
    const TraceJob& job = trace_[index];
    if (options_.policy != ReplayPolicy::angara || options_.block_wait <= 0 || job.nodes < 2 ||
        now >= job.submit + options_.block_wait || !block_possible(job.nodes))
      return false;
    std::vector<unsigned char> offered;
    const bool wait = choose_block(job, offered).blocks.empty();
    waiting_[index] = wait;
    if (wait) waited_[index] = 1;
    return wait;
  }

  RouteTable route_on(const Network& network, const std::vector<NodeId>& nodes, bool& routed) {
    try {
      RouteTable table = balanced_->generate(network, nodes, route_options_);
      table.algorithm = "balanced";
      routed = verify(network_, table, VerifyOptions{}).ok();
      return table;
    } catch (const RoutingError&) {
      routed = false;
      return RouteTable();
    }
  }

  // confine: on the job's own routers alone when a table exists there (the
  // pipeline's routing.confine), else on the live network.
  RouteTable route_job(const std::vector<NodeId>& nodes, bool& routed) {
    if (options_.confine && options_.policy == ReplayPolicy::angara && nodes.size() < alive_) {
      RouteTable table = route_on(confined_to(network_, nodes), nodes, routed);
      if (routed) {
        ++result_.confined;
        return table;
      }
    }
    return route_on(network_, nodes, routed);
  }

  // `held`: hold_box_spares, the routers of a box the job does not get.
  std::vector<NodeId> place(const TraceJob& job, std::string& kind, RouteTable& table, bool& routed_by_select,
                            std::vector<NodeId>& held) {
    const Clock::time_point began = Clock::now();
    std::vector<NodeId> nodes;
    kind = replay_policy_name(options_.policy);
    switch (options_.policy) {
      case ReplayPolicy::linear: nodes = best_fit_run(linear_order_, free_, job.nodes); break;
      case ReplayPolicy::tree: nodes = tree_best_fit(nested_, free_, job.nodes, options_.leaf_size); break;
      case ReplayPolicy::angara: {
        // A 1-node job takes a held box router first (it routes nothing
        // through the box).
        if (options_.hold_box_spares && job.nodes == 1)
          for (NodeId node = 0; node < torus_.node_count(); ++node)
            if (free_[node] && held_[node]) {
              ++result_.exact_blocks;
              kind = "block";
              nodes = {node};
              break;
            }
        if (!nodes.empty()) break;
        std::vector<unsigned char> offered;
        const BlockChoice choice = choose_block(job, offered);
        if (choice.blocks.empty()) {
          ++result_.fallbacks;
          kind = "fallback";
          nodes = best_fit_run(linear_order_, offered, job.nodes);
          if (nodes.size() != job.nodes) nodes = best_fit_run(linear_order_, free_, job.nodes);
        } else if (choice.staircase) {
          ++result_.staircases;
          kind = "staircase";
          nodes = choice.blocks.front().nodes;
        } else {
          const FreeBlock& block = choice.blocks.front();
          nodes.assign(block.nodes.begin(), block.nodes.begin() + static_cast<std::ptrdiff_t>(job.nodes));
          if (!choice.exact) {
            ++result_.boxes;
            kind = "box";
            if (options_.hold_box_spares) held.assign(block.nodes.begin() + static_cast<std::ptrdiff_t>(job.nodes), block.nodes.end());
          } else if (block.isolated) {
            ++result_.exact_blocks;
            kind = "block";
          } else {
            ++result_.open_blocks;
            kind = "open-block";
          }
        }
        break;
      }
      case ReplayPolicy::select: {
        PlacementRequest request;
        request.node_count = job.nodes;
        request.free = free_;
        request.busy = busy_;
        try {
          PlacementResult placed = select_nodes(network_, request);
          nodes = placed.nodes;
          table = std::move(placed.table);
          kind = candidate_kind_name(placed.compared[placed.winner].kind);
          routed_by_select = true;
        } catch (const RoutingError&) {
          routed_by_select = false;
        }
        break;
      }
    }
    const double seconds = seconds_since(began);
    place_seconds_ += seconds;
    ++place_count_;
    result_.place_worst_ms = std::max(result_.place_worst_ms, 1000 * seconds);
    return nodes;
  }

  void start(std::size_t index, double now) {
    const TraceJob& job = trace_[index];
    std::string kind;
    RouteTable table;
    bool routed = true;
    std::vector<NodeId> held;
    std::vector<NodeId> nodes = place(job, kind, table, routed, held);
    std::optional<std::size_t> snapshot;  // into snapshots_, when the job is simulated
    if (options_.policy != ReplayPolicy::select && nodes.size() > 1) {
      const Clock::time_point began = Clock::now();
      table = route_job(nodes, routed);
      result_.route_seconds += seconds_since(began);
    }
    if (!routed || nodes.size() != job.nodes) {
      ++result_.unroutable;
      return;
    }
    RunningJob run;
    run.index = index;
    run.end = now + job.runtime;
    run.estimated_end = now + estimate(job);
    run.nodes = nodes;
    run.held = held;
    std::size_t foreign = 0, foreign_held = 0, shared = 0;
    std::uint64_t shared_load = 0;
    if (nodes.size() > 1) {
      run.loads = channel_loads(network_, table);
      // Routers outside the job's nodes that its routes cross (none: the
      // set is isolated), and channels running jobs' routes use too.
      std::vector<unsigned char> member(torus_.node_count(), 0), counted(torus_.node_count(), 0);
      for (NodeId node : nodes) member[node] = 1;
      for (NodeId node : held) member[node] = 2;  // its own box's routers, held from other jobs
      for (ChannelId c = 0; c < run.loads.size(); ++c) {
        if (!run.loads[c]) continue;
        shared += busy_[c] != 0;
        shared_load += busy_[c];
        const NodeId from = Torus::channel_node(c);
        for (NodeId end : {from, torus_.neighbor(from, Torus::channel_direction(c))})
          if (member[end] != 1 && !counted[end]) {
            counted[end] = 1;
            ++(member[end] == 2 ? foreign_held : foreign);
          }
      }
      ++result_.routed;
      result_.isolated += foreign == 0;
      result_.own_only += foreign == 0 && foreign_held == 0;
      result_.sharing += shared > 0;
      shared_sum_ += static_cast<double>(shared);
      shared_load_sum_ += static_cast<double>(shared_load);
      run.table = std::make_shared<const RouteTable>(std::move(table));
      if (simulate_[index]) {
        Snapshot taken;
        taken.table = run.table;
        for (const RunningJob& other : running_)
          if (other.table) taken.beside.push_back(other.table);
        snapshot = snapshots_.size();
        snapshots_.push_back(std::move(taken));
      }
      for (std::size_t c = 0; c < run.loads.size(); ++c) busy_[c] += run.loads[c];
    }
    result_.block_waits += waited_[index];
    waiting_[index] = 0;
    // The most nodes any set of the job's own routers could have had.
    const std::size_t free_component = options_.per_job ? largest_free_component(network_, free_) : 0;
    for (NodeId node : nodes) free_[node] = 0;
    for (NodeId node : held) held_[node] = 1;
    free_count_ -= nodes.size();
    ++result_.started;
    const double wait = now - job.submit;
    wait_sum_ += wait;
    slowdown_sum_ += std::max(1.0, (wait + job.runtime) / std::max(job.runtime, options_.slowdown_threshold));
    work_ += static_cast<double>(nodes.size()) * job.runtime;
    if (options_.per_job) {
      char line[256];
      std::snprintf(line, sizeof line, "%s %s %ld %zu %s %.0f %zu %zu %s %zu", options_.machine_label.c_str(),
                    replay_policy_name(options_.policy), job.id, nodes.size(), kind.c_str(), wait, foreign, shared,
                    nodes.size() > 1 ? (foreign != 0 ? "open" : foreign_held ? "isolated-in-box" : "isolated") : "single",
                    free_component);
      if (snapshot) snapshots_[*snapshot].per_job_line = per_job_lines_.size();
      per_job_lines_.emplace_back(line);
    }
    running_.push_back(std::move(run));
  }

  // Each sampled job's all-to-all (1 MiB a flow) beside the running jobs'
  // all-to-alls, in the flow simulator (a child process each).
  void simulate_snapshots() {
    if (snapshots_.empty()) return;
    const Clock::time_point began = Clock::now();
    double sum = 0;
    for (const Snapshot& snapshot : snapshots_) {
      simulation::SimulationRequest request;
      request.patterns = {"alltoall"};
      request.baseline = false;
      for (const auto& other : snapshot.beside) request.beside.push_back(other.get());
      const simulation::SimulationReport report = simulation::run_simulation(network_, *snapshot.table, request);
      sum += report.table.front().mean_bandwidth;
      ++result_.simulated;
      if (snapshot.per_job_line < per_job_lines_.size())
        bandwidths_[snapshot.per_job_line] = report.table.front().mean_bandwidth;
    }
    result_.mean_bandwidth = sum / static_cast<double>(result_.simulated);
    result_.simulate_seconds = seconds_since(began);
  }

  const Network& network_;
  const Torus& torus_;
  const std::vector<TraceJob>& trace_;
  const ReplayOptions& options_;
  std::vector<unsigned char> free_;
  std::map<ShapeClassKey, IntactBound> bounds_;  // choose_free_block's, kept across jobs
  std::vector<unsigned char> held_;  // hold_box_spares: routers of a running job's box it does not use
  std::vector<unsigned char> waiting_, waited_;  // block_wait, per trace job: waits now, has waited
  std::map<std::size_t, bool> block_possible_;   // block_wait, by node count: a block on the idle machine
  double last_event_ = -std::numeric_limits<double>::infinity();
  std::size_t alive_ = 0, free_count_ = 0;
  std::vector<std::uint64_t> busy_;  // per channel slot: running jobs' routes
  std::unique_ptr<Generator> balanced_;
  GeneratorOptions route_options_;
  std::vector<NodeId> linear_order_;
  NestedBlocks nested_;
  std::vector<unsigned char> simulate_;
  std::deque<std::size_t> queue_;
  std::vector<RunningJob> running_;
  std::vector<Snapshot> snapshots_;
  std::vector<std::string> per_job_lines_;       // written at the end, with
  std::map<std::size_t, double> bandwidths_;     // the simulated ones' bandwidth (B/s)
  ReplayResult result_;
  double work_ = 0, wait_sum_ = 0, slowdown_sum_ = 0, shared_sum_ = 0, shared_load_sum_ = 0, place_seconds_ = 0;
  std::size_t place_count_ = 0;
};

}  // namespace

ReplayResult replay_trace(const Network& network, const std::vector<TraceJob>& trace, const ReplayOptions& options) {
  return Replay(network, trace, options).run();
}

}  // namespace angara::bench
