#include "routing/check/lp_bound.hpp"

#include <glpk.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>

#include "routing/common/generator_support.hpp"
#include "routing/check/metrics.hpp"

namespace angara {

namespace {

using Clock = std::chrono::steady_clock;

// Hedge steps of the starting point (RouteLp::start), at most, and the
// share of the time limit they may take.
constexpr int kStartSteps = 200;
constexpr double kStartShare = 0.3;
// Routes whose weight is within this fraction of a pair's cheapest start in
// the LP with it.
constexpr double kNearTie = 0.01;
// Weight of the best certified duals in the smoothed pricing weights.
constexpr double kSmoothing = 0.5;
// Integral pairs are retired from the LP (RouteLp::retire) once the active
// pairs outnumber the channel rows this many times.
constexpr std::size_t kRetireFactor = 2;
// A route some pair took as best response in this share of the start's
// steps enters the LP with it.
constexpr double kOftenShare = 0.1;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct ProblemDeleter {
  void operator()(glp_prob* problem) const { glp_delete_prob(problem); }
};
using Problem = std::unique_ptr<glp_prob, ProblemDeleter>;

// The restricted master problem of the column generation:
//   minimise z
//   subject to  const_c + sum_{routes r through c} x_r - z <= 0   (channel rows)
//               sum_{routes r of p} x_r = 1                       (pair rows)
//               x, z >= 0
// Pairs with a single candidate are constants.  A pair with a choice is
// *fixed* (one route, counted in the constants, no row) until pricing finds
// a cheaper route for it; then it becomes *active*: its row and its columns
// enter the LP.  Active pairs whose solution is integral go back to fixed
// when they outnumber the channel rows (retire()), so the LP stays a
// fraction of the full one.
class RouteLp {
 public:
  RouteLp(const CandidateSet& set, const std::vector<std::size_t>& pairs) : set_(set) {
    ChannelId top = 0;
    for (std::size_t p : pairs)
      for (std::size_t v = 0; v < set_.variants(p); ++v)
        for (ChannelId c : set_.channels(p, v)) top = std::max(top, c + 1);
    row_of_channel_.assign(top, 0);
    constant_.assign(top, 0.0);
    fixed_load_.assign(top, 0.0);
    for (std::size_t p : pairs)
      for (std::size_t v = 0; v < set_.variants(p); ++v)
        for (ChannelId c : set_.channels(p, v)) row_of_channel_[c] = 1;
    for (ChannelId c = 0; c < top; ++c)
      if (row_of_channel_[c]) {
        channels_.push_back(c);
        row_of_channel_[c] = static_cast<int>(channels_.size());  // GLPK rows count from 1
      }
    for (std::size_t p : pairs) {
      if (set_.variants(p) == 1) {
        for (ChannelId c : set_.channels(p, 0)) constant_[c] += 1.0;
      } else {
        choice_pairs_.push_back(p);
      }
    }
    fixed_.assign(choice_pairs_.size(), kActive);
    pair_row_.assign(choice_pairs_.size(), 0);
    in_lp_.resize(choice_pairs_.size());
    lp_columns_.resize(choice_pairs_.size());
    for (std::size_t k = 0; k < choice_pairs_.size(); ++k) in_lp_[k].assign(set_.variants(choice_pairs_[k]), 0);

    problem_.reset(glp_create_prob());
    glp_set_obj_dir(problem_.get(), GLP_MIN);
    glp_add_rows(problem_.get(), static_cast<int>(channels_.size()));
    // Column 1: z, in every channel row with -1.
    glp_add_cols(problem_.get(), 1);
    glp_set_col_bnds(problem_.get(), 1, GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(problem_.get(), 1, 1.0);
    std::vector<int> index(channels_.size() + 1);
    std::vector<double> value(channels_.size() + 1, -1.0);
    for (std::size_t r = 0; r < channels_.size(); ++r) index[r + 1] = static_cast<int>(r + 1);
    glp_set_mat_col(problem_.get(), 1, static_cast<int>(channels_.size()), index.data(), value.data());
  }

  std::size_t choice_pairs() const { return choice_pairs_.size(); }
  std::size_t columns() const { return columns_.size(); }
  std::size_t active_pairs() const { return active_; }
  const std::vector<unsigned char>& priced() const { return priced_; }
  std::size_t channel_rows() const { return channels_.size(); }

  // The starting point, from channel weights found without the LP: Hedge
  // (multiplicative weights) over the channels against pairs that take
  // their cheapest route, from a greedy integer routing.  The best weights
  // seen give a certified bound already, and the running average of the
  // best responses is a fractional routing near the optimum: a pair that
  // always answered with one route is fixed on it; one that split enters
  // the LP with its most frequent answer (basic), every route it took in at
  // least kOftenShare of the steps and the near-cheapest routes under the
  // best weights.  (Fixing every pair on its cheapest route under the best
  // weights alone piles symmetric blocks onto one side: 206 against 120 on
  // a 5x4x6 block, and a thousand rounds to undo.)  Column generation then
  // corrects whatever these guesses got wrong.  Returns the certified bound
  // of the best weights.
  // all_columns: every candidate of every choice pair enters the first
  // restricted problem, which is then the full LP.
  double start(int steps, Clock::time_point deadline, bool all_columns) {
    std::vector<double> load(constant_);
    std::vector<std::uint32_t> choice(choice_pairs_.size());
    for (std::size_t k = 0; k < choice_pairs_.size(); ++k) {
      const std::size_t p = choice_pairs_[k];
      std::uint32_t best = 0;
      double best_peak = std::numeric_limits<double>::infinity(), best_sum = 0;
      for (std::uint32_t v = 0; v < set_.variants(p); ++v) {
        double peak = 0, sum = 0;
        for (ChannelId c : set_.channels(p, v)) {
          peak = std::max(peak, load[c] + 1);
          sum += load[c];
        }
        if (peak < best_peak || (peak == best_peak && sum < best_sum)) {
          best = v;
          best_peak = peak;
          best_sum = sum;
        }
      }
      for (ChannelId c : set_.channels(p, best)) load[c] += 1.0;
      choice[k] = best;
    }
    // Hedge: log-weights grow by load / max load each step; the loads are
    // those of the running average of the pairs' best responses.
    std::vector<double> log_weight(load.size(), 0.0), weight(load.size(), 0.0), best_weight;
    std::vector<double> response(load.size(), 0.0);
    // Per pair and route, how many steps took it as best response: the
    // running average is a fractional routing near the optimum.
    std::vector<std::size_t> response_first(choice_pairs_.size() + 1, 0);
    for (std::size_t k = 0; k < choice_pairs_.size(); ++k)
      response_first[k + 1] = response_first[k] + set_.variants(choice_pairs_[k]);
    std::vector<std::uint32_t> responses(response_first.back(), 0);
    int steps_done = 0;
    double best_bound = -1;
    for (int step = 0; step < steps && Clock::now() < deadline; ++step) {
      double peak = 0;
      for (ChannelId c : channels_) peak = std::max(peak, load[c]);
      if (peak <= 0) break;
      double top = -std::numeric_limits<double>::infinity();
      for (ChannelId c : channels_) {
        log_weight[c] += load[c] / peak;
        top = std::max(top, log_weight[c]);
      }
      double total = 0;
      for (ChannelId c : channels_) total += weight[c] = std::exp(log_weight[c] - top);
      for (ChannelId c : channels_) weight[c] /= total;
      double bound = 0;
      for (ChannelId c : channels_) bound += weight[c] * constant_[c];
      std::copy(constant_.begin(), constant_.end(), response.begin());
      for (std::size_t k = 0; k < choice_pairs_.size(); ++k) {
        double cost = 0;
        const std::uint32_t v = cheapest(k, weight, &cost);
        ++responses[response_first[k] + v];
        bound += cost;
        for (ChannelId c : set_.channels(choice_pairs_[k], v)) response[c] += 1.0;
      }
      ++steps_done;
      if (bound > best_bound) {
        best_bound = bound;
        best_weight = weight;
      }
      const double gamma = 1.0 / (step + 2.0);
      for (ChannelId c : channels_) load[c] = (1.0 - gamma) * load[c] + gamma * response[c];
      if (peak - best_bound < 1e-4 * peak) break;
    }
    std::vector<std::uint32_t> main(choice);
    std::vector<std::vector<std::uint32_t>> near(choice_pairs_.size());
    if (!best_weight.empty()) set_centre(best_weight, best_bound);
    if (!best_weight.empty()) {
      const double unit = 1.0 / static_cast<double>(channels_.size());
      std::vector<double> cost;
      for (std::size_t k = 0; k < choice_pairs_.size(); ++k) {
        const std::size_t p = choice_pairs_[k];
        cost.resize(set_.variants(p));
        for (std::uint32_t v = 0; v < set_.variants(p); ++v) cost[v] = route_weight(k, v, best_weight);
        main[k] = static_cast<std::uint32_t>(std::min_element(cost.begin(), cost.end()) - cost.begin());
        const double limit = cost[main[k]] + kNearTie * (cost[main[k]] + unit);
        // The pair's most frequent response leads; the others taken often
        // enough and the near ties under the best weights come along.
        const std::uint32_t* count = responses.data() + response_first[k];
        const std::uint32_t weight_best = main[k];
        main[k] = static_cast<std::uint32_t>(std::max_element(count, count + set_.variants(p)) - count);
        if (count[main[k]] == 0) main[k] = weight_best;
        const double often = kOftenShare * steps_done;
        for (std::uint32_t v = 0; v < set_.variants(p); ++v)
          if (v != main[k] && (cost[v] <= limit || (count[v] > 0 && count[v] >= often))) near[k].push_back(v);
      }
    }
    if (all_columns)
      for (std::size_t k = 0; k < choice_pairs_.size(); ++k) {
        near[k].clear();
        for (std::uint32_t v = 0; v < set_.variants(choice_pairs_[k]); ++v)
          if (v != main[k]) near[k].push_back(v);
      }
    // Fixed pairs go into the constants first, so that the channel rows get
    // their bounds once.
    for (std::size_t k = 0; k < choice_pairs_.size(); ++k)
      if (near[k].empty()) fix(k, main[k]);
    for (std::size_t r = 0; r < channels_.size(); ++r) set_channel_bound(r);
    for (std::size_t k = 0; k < choice_pairs_.size(); ++k) {
      if (fixed_[k] != kActive) continue;
      open_row(k);
      add_column(k, main[k], GLP_BS);
      for (std::uint32_t v : near[k]) add_column(k, v, GLP_NL);
    }
    // A feasible first basis, so that the simplex needs no phase 1: the main
    // columns and z basic, every pair row at its fixed value, every channel
    // row slack but the most loaded one, which sets z.  It is triangular,
    // hence a basis.
    std::vector<double> integer_load(fixed_load_);
    for (std::size_t k = 0; k < choice_pairs_.size(); ++k)
      if (fixed_[k] == kActive)
        for (ChannelId c : set_.channels(choice_pairs_[k], main[k])) integer_load[c] += 1.0;
    std::size_t top = 0;
    for (std::size_t r = 0; r < channels_.size(); ++r) {
      const ChannelId c = channels_[r], t = channels_[top];
      if (constant_[c] + integer_load[c] > constant_[t] + integer_load[t]) top = r;
    }
    for (std::size_t r = 0; r < channels_.size(); ++r)
      glp_set_row_stat(problem_.get(), static_cast<int>(r + 1), r == top ? GLP_NU : GLP_BS);
    glp_set_col_stat(problem_.get(), 1, GLP_BS);
    return std::max(best_bound, 0.0);
  }

  // One simplex solve before `deadline`; false if GLPK did not reach the
  // optimum of the restricted problem (out of time included).
  bool solve(Clock::time_point deadline) {
    glp_smcp parameters;
    glp_init_smcp(&parameters);
    parameters.msg_lev = GLP_MSG_OFF;
    parameters.meth = GLP_PRIMAL;  // new columns keep the basis primal feasible
    parameters.presolve = GLP_OFF;
    auto limit = [&] {
      const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
      parameters.tm_lim = static_cast<int>(std::max(1.0, left * 1000.0));
      return left > 0;
    };
    if (!limit()) return false;
    int code = glp_simplex(problem_.get(), &parameters);
    if (code == GLP_EBADB || code == GLP_ESING || code == GLP_ECOND) {
      // A singular warm basis: start over from the standard one, once, in
      // the time that is left (not on a time-out: that is final).
      glp_std_basis(problem_.get());
      if (!limit()) return false;
      code = glp_simplex(problem_.get(), &parameters);
    }
    return code == 0 && glp_get_status(problem_.get()) == GLP_OPT;
  }

  // Active pairs whose solution is one route at 1, basic, the others
  // nonbasic, and which pricing left alone this round go back to the
  // constants: their row and columns leave the LP.  A basic solution splits
  // at most as many pairs as there are channel rows, so this keeps the
  // restricted problem near that size however many pairs were ever active.
  // The basis stays a basis (the deleted row held only the deleted basic
  // column) and the solution stays feasible (the route's load moves into
  // the channel rows' bounds).
  void retire(const std::vector<unsigned char>& priced) {
    std::vector<int> rows{0}, cols{0};
    std::vector<unsigned char> gone(columns_.size(), 0);
    std::vector<std::vector<std::size_t>> of_pair(choice_pairs_.size());
    for (std::size_t j = 0; j < columns_.size(); ++j) of_pair[columns_[j].first].push_back(j);
    for (std::size_t k = 0; k < choice_pairs_.size(); ++k) {
      if (fixed_[k] != kActive || priced[k]) continue;
      std::size_t basic = 0, at_one = columns_.size();
      for (std::size_t j : of_pair[k]) {
        const int column = static_cast<int>(j + 2);
        if (glp_get_col_stat(problem_.get(), column) == GLP_BS) ++basic;
        if (glp_get_col_prim(problem_.get(), column) > 1.0 - 1e-9) at_one = j;
      }
      if (basic != 1 || at_one == columns_.size() ||
          glp_get_col_stat(problem_.get(), static_cast<int>(at_one + 2)) != GLP_BS)
        continue;
      rows.push_back(pair_row_[k]);
      for (std::size_t j : of_pair[k]) {
        cols.push_back(static_cast<int>(j + 2));
        gone[j] = 1;
      }
      const std::uint32_t v = columns_[at_one].second;
      for (std::uint32_t u : lp_columns_[k]) in_lp_[k][u] = 0;
      pair_row_[k] = 0;
      --active_;
      fix(k, v);
      for (ChannelId c : set_.channels(choice_pairs_[k], v)) set_channel_bound(static_cast<std::size_t>(row_of_channel_[c] - 1));
    }
    if (rows.size() == 1) return;
    glp_del_rows(problem_.get(), static_cast<int>(rows.size() - 1), rows.data());
    glp_del_cols(problem_.get(), static_cast<int>(cols.size() - 1), cols.data());
    // GLPK renumbers what is left in order: so do the maps.
    std::vector<int> deleted(rows.begin() + 1, rows.end());
    std::sort(deleted.begin(), deleted.end());
    for (std::size_t k = 0; k < choice_pairs_.size(); ++k)
      if (pair_row_[k] > 0)
        pair_row_[k] -= static_cast<int>(std::lower_bound(deleted.begin(), deleted.end(), pair_row_[k]) - deleted.begin());
    std::size_t kept = 0;
    for (std::size_t j = 0; j < columns_.size(); ++j)
      if (!gone[j]) columns_[kept++] = columns_[j];
    columns_.resize(kept);
  }

  // Prices every candidate against the current duals and brings in the
  // cheapest route of each pair whose reduced cost is negative (activating
  // fixed pairs); returns how many routes came in.  `certified` receives
  // the Lagrangian bound of these duals.
  std::size_t price(double* certified) {
    // Channel weights w_c = -dual (>= 0 for a minimisation with <= rows),
    // normalised so that they sum to 1 (they do at an optimum).
    std::vector<double> weight(constant_.size(), 0.0);
    double total = 0;
    for (std::size_t r = 0; r < channels_.size(); ++r) {
      const double w = std::max(0.0, -glp_get_row_dual(problem_.get(), static_cast<int>(r + 1)));
      weight[channels_[r]] = w;
      total += w;
    }
    if (total <= 0) {
      *certified = 0;
      return 0;
    }
    for (ChannelId c : channels_) weight[c] /= total;
    std::vector<std::uint32_t> best(choice_pairs_.size());
    std::vector<double> best_cost(choice_pairs_.size());
    double bound = 0;
    for (ChannelId c : channels_) bound += weight[c] * constant_[c];
    for (std::size_t k = 0; k < choice_pairs_.size(); ++k) {
      best[k] = cheapest(k, weight, &best_cost[k]);
      bound += best_cost[k];
    }
    *certified = bound;
    if (bound > best_bound_) {
      best_bound_ = bound;
      best_weight_ = weight;
    }
    // Stabilised pricing first (Wentges smoothing): weights between the
    // best certified ones and the LP's duals bring in many useful routes per
    // round where the LP's degenerate duals name only a few channels.
    std::vector<std::pair<std::size_t, std::uint32_t>> incoming;
    if (!best_weight_.empty()) {
      std::vector<double> smooth(constant_.size(), 0.0);
      for (ChannelId c : channels_) smooth[c] = kSmoothing * best_weight_[c] + (1.0 - kSmoothing) * weight[c];
      for (std::size_t k = 0; k < choice_pairs_.size(); ++k) {
        double cost = 0;
        const std::uint32_t v = cheapest(k, smooth, &cost);
        if (in_lp_[k][v]) continue;
        double current = std::numeric_limits<double>::infinity();
        for (std::uint32_t u : lp_columns_[k]) current = std::min(current, route_weight(k, u, smooth));
        if (cost < current - 1e-12) incoming.emplace_back(k, v);
      }
    }
    if (incoming.empty()) {
      for (std::size_t k = 0; k < choice_pairs_.size(); ++k) {
        if (in_lp_[k][best[k]]) continue;
        // Reduced cost: the route's weight minus the pair's dual, which for
        // a fixed pair is the weight of its route (basic at 1 if it had a row).
        const double dual = fixed_[k] == kActive
                                ? glp_get_row_dual(problem_.get(), pair_row_[k]) / total
                                : route_weight(k, static_cast<std::uint32_t>(fixed_[k]), weight);
        if (best_cost[k] - dual < -1e-9 * std::max(1.0 / static_cast<double>(channels_.size()), std::fabs(dual)))
          incoming.emplace_back(k, best[k]);
      }
    }
    priced_.assign(choice_pairs_.size(), 0);
    for (const auto& [k, v] : incoming) {
      if (fixed_[k] != kActive) activate(k);
      add_column(k, v, GLP_NL);
      priced_[k] = 1;
    }
    return incoming.size();
  }

  // Hedge's best weights, as the first stabilisation centre.
  void set_centre(std::vector<double> weight, double bound) {
    best_weight_ = std::move(weight);
    best_bound_ = bound;
  }

  double objective() const { return glp_get_obj_val(problem_.get()); }

  // Shares of every pair's candidates in the current solution.
  std::vector<std::vector<std::pair<std::uint32_t, double>>> shares(const std::vector<std::size_t>& pairs) const {
    std::vector<std::vector<std::pair<std::uint32_t, double>>> out(set_.pair_count());
    for (std::size_t p : pairs)
      if (set_.variants(p) == 1) out[p].emplace_back(0, 1.0);
    for (std::size_t k = 0; k < choice_pairs_.size(); ++k)
      if (fixed_[k] != kActive) out[choice_pairs_[k]].emplace_back(static_cast<std::uint32_t>(fixed_[k]), 1.0);
    for (std::size_t j = 0; j < columns_.size(); ++j) {
      const double x = glp_get_col_prim(problem_.get(), static_cast<int>(j + 2));
      if (x > 1e-9) out[choice_pairs_[columns_[j].first]].emplace_back(columns_[j].second, x);
    }
    return out;
  }

 private:
  static constexpr std::int64_t kActive = -1;

  double route_weight(std::size_t k, std::uint32_t v, const std::vector<double>& weight) const {
    double cost = 0;
    for (ChannelId c : set_.channels(choice_pairs_[k], v)) cost += weight[c];
    return cost;
  }

  std::uint32_t cheapest(std::size_t k, const std::vector<double>& weight, double* cost) const {
    std::uint32_t best = 0;
    double best_cost = std::numeric_limits<double>::infinity();
    for (std::uint32_t v = 0; v < set_.variants(choice_pairs_[k]); ++v) {
      const double c = route_weight(k, v, weight);
      if (c < best_cost) {
        best_cost = c;
        best = v;
      }
    }
    if (cost) *cost = best_cost;
    return best;
  }

  void set_channel_bound(std::size_t r) {
    const ChannelId c = channels_[r];
    glp_set_row_bnds(problem_.get(), static_cast<int>(r + 1), GLP_UP, 0.0, -(constant_[c] + fixed_load_[c]));
  }

  void fix(std::size_t k, std::uint32_t v) {
    fixed_[k] = v;
    in_lp_[k][v] = 1;
    lp_columns_[k].assign(1, v);
    for (ChannelId c : set_.channels(choice_pairs_[k], v)) fixed_load_[c] += 1.0;
  }

  void open_row(std::size_t k) {
    pair_row_[k] = glp_add_rows(problem_.get(), 1);
    glp_set_row_bnds(problem_.get(), pair_row_[k], GLP_FX, 1.0, 1.0);
    glp_set_row_stat(problem_.get(), pair_row_[k], GLP_NS);
    ++active_;
  }

  // A fixed pair gets its row; its route becomes a basic column at 1 and
  // leaves the constants, so the basis stays primal feasible.
  void activate(std::size_t k) {
    const auto v = static_cast<std::uint32_t>(fixed_[k]);
    fixed_[k] = kActive;
    for (ChannelId c : set_.channels(choice_pairs_[k], v)) {
      fixed_load_[c] -= 1.0;
      set_channel_bound(static_cast<std::size_t>(row_of_channel_[c] - 1));
    }
    open_row(k);
    in_lp_[k][v] = 0;
    lp_columns_[k].clear();
    add_column(k, v, GLP_BS);
  }

  void add_column(std::size_t k, std::uint32_t v, int status) {
    const std::size_t p = choice_pairs_[k];
    in_lp_[k][v] = 1;
    lp_columns_[k].push_back(v);
    columns_.emplace_back(k, v);
    const int column = glp_add_cols(problem_.get(), 1);
    glp_set_col_bnds(problem_.get(), column, GLP_LO, 0.0, 0.0);
    index_.assign(1, 0);
    value_.assign(1, 0.0);
    // A route may cross a channel once only (minimal routes never repeat
    // one), but add up repeats anyway so the matrix stays well formed.
    for (ChannelId c : set_.channels(p, v)) {
      const int row = row_of_channel_[c];
      const auto at = std::find(index_.begin() + 1, index_.end(), row);
      if (at != index_.end()) {
        value_[static_cast<std::size_t>(at - index_.begin())] += 1.0;
      } else {
        index_.push_back(row);
        value_.push_back(1.0);
      }
    }
    index_.push_back(pair_row_[k]);
    value_.push_back(1.0);
    glp_set_mat_col(problem_.get(), column, static_cast<int>(index_.size() - 1), index_.data(), value_.data());
    glp_set_col_stat(problem_.get(), column, status);
  }

  const CandidateSet& set_;
  std::vector<std::size_t> choice_pairs_;  // pairs with more than one candidate
  std::vector<std::int64_t> fixed_;        // per choice pair: its fixed variant, or kActive
  std::vector<int> pair_row_;              // per choice pair: GLPK row when active
  std::size_t active_ = 0;
  std::vector<ChannelId> channels_;        // row r + 1 <-> channels_[r]
  std::vector<int> row_of_channel_;        // channel slot -> GLPK row, 0 if none
  std::vector<double> constant_;           // load of the single-route pairs
  std::vector<double> fixed_load_;         // load of the fixed pairs
  std::vector<std::vector<unsigned char>> in_lp_;
  std::vector<std::vector<std::uint32_t>> lp_columns_;  // per choice pair: its routes in the LP (or fixed)
  std::vector<double> best_weight_;
  double best_bound_ = -1;
  std::vector<std::pair<std::size_t, std::uint32_t>> columns_;  // column j + 2 <-> (choice pair, variant)
  std::vector<int> index_;
  std::vector<double> value_;
  std::vector<unsigned char> priced_;  // per choice pair: a column came in at the last pricing

  Problem problem_;
};

// The per-dimension bound of the LP's own route space: every minimal route
// of a pair spends the same hops in each dimension, so the load of a
// dimension is fixed, and spread at best evenly over the channels of that
// dimension that some candidate uses.  A lower bound of the LP; when the
// restricted problem's objective meets it, that is the optimum.
double candidate_dimension_bound(const CandidateSet& set, const std::vector<std::size_t>& pairs) {
  std::array<double, kMaxDims> hops{};
  std::vector<unsigned char> used;
  for (std::size_t p : pairs) {
    for (ChannelId c : set.channels(p, 0)) hops[Torus::channel_direction(c).dim()] += 1.0;
    for (std::size_t v = 0; v < set.variants(p); ++v)
      for (ChannelId c : set.channels(p, v)) {
        if (c >= used.size()) used.resize(std::size_t{c} + 1, 0);
        used[c] = 1;
      }
  }
  std::array<double, kMaxDims> channels{};
  for (ChannelId c = 0; c < used.size(); ++c)
    if (used[c]) channels[Torus::channel_direction(c).dim()] += 1.0;
  double bound = 0;
  for (int dim = 0; dim < kMaxDims; ++dim)
    if (channels[dim] > 0) bound = std::max(bound, hops[dim] / channels[dim]);
  return bound;
}

}  // namespace

std::uint64_t LpBound::rounded() const {
  return static_cast<std::uint64_t>(std::ceil(value - 1e-6));
}

const char* lp_status_name(LpBound::Status status) {
  switch (status) {
    case LpBound::Status::solved: return "solved";
    case LpBound::Status::disabled: return "disabled";
    case LpBound::Status::not_applicable: return "not applicable";
    case LpBound::Status::too_large: return "too large";
    case LpBound::Status::timed_out: return "timed out";
    case LpBound::Status::failed: return "failed";
  }
  return "unknown";
}

LpSolution solve_route_lp(const CandidateSet& set, double time_limit, bool all_columns) {
  const auto start = Clock::now();
  LpSolution solution;
  LpBound& bound = solution.bound;
  std::vector<std::size_t> pairs;
  for (std::size_t p = 0; p < set.pair_count(); ++p) {
    if (set.variants(p) == 0) continue;
    if (!set.minimal(p)) {
      ++bound.pairs_left_out;
      continue;
    }
    pairs.push_back(p);
    bound.routes += set.variants(p);
  }
  bound.pairs = pairs.size();
  if (pairs.empty()) {
    // One node, or no pair with a minimal route: nothing loads a channel
    // (and GLPK refuses a problem without rows).
    bound.status = LpBound::Status::solved;
    bound.seconds = seconds_since(start);
    return solution;
  }
  glp_term_out(GLP_OFF);
  RouteLp lp(set, pairs);
  const double dimension_bound = candidate_dimension_bound(set, pairs);
  double best = lp.start(kStartSteps,
                         start + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(kStartShare * time_limit)),
                         all_columns);
  while (true) {
    const double left = time_limit - seconds_since(start);
    if (left <= 0) break;
    ++bound.rounds;
    if (!lp.solve(start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(time_limit))))
      break;
    if (lp.objective() <= dimension_bound * (1 + 1e-12) + 1e-12) {
      // At the per-dimension bound of the same routes: optimal.
      bound.status = LpBound::Status::solved;
      bound.value = dimension_bound;
      break;
    }
    double certified = 0;
    const std::size_t added = lp.price(&certified);
    if (added > 0 && lp.active_pairs() > kRetireFactor * lp.channel_rows()) lp.retire(lp.priced());
    best = std::max(best, certified);
    if (added == 0) {
      // Optimal: no column prices out, and the certified bound meets the
      // objective (up to rounding).
      bound.status = LpBound::Status::solved;
      bound.value = std::max(best, 0.0);
      if (std::fabs(lp.objective() - best) > 1e-6 * std::max(1.0, best)) bound.value = std::min(best, lp.objective());
      break;
    }
  }
  bound.columns = lp.columns() + (pairs.size() - lp.choice_pairs());
  bound.seconds = seconds_since(start);
  if (bound.status == LpBound::Status::solved) {
    solution.shares = lp.shares(pairs);
  } else if (bound.seconds >= time_limit) {
    // Not optimal, but every dual solution certifies a bound: keep the best.
    bound.status = LpBound::Status::timed_out;
    bound.value = std::max(best, 0.0);
    char text[96];
    std::snprintf(text, sizeof text, "not solved within %g s", time_limit);
    bound.note = text;
  } else {
    bound.status = LpBound::Status::failed;
    bound.note = "GLPK's simplex did not reach an optimum";
  }
  return solution;
}

LpBound lp_lower_bound(const Network& network, const std::vector<NodeId>& allocation, const LpBoundOptions& options) {
  LpBound bound;
  if (options.time_limit <= 0) {
    bound.note = "disabled";
    return bound;
  }
  std::vector<NodeId> nodes(allocation);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  if (nodes.size() > options.max_nodes) {
    bound.status = LpBound::Status::too_large;
    bound.note = std::to_string(nodes.size()) + " nodes, more than the " + std::to_string(options.max_nodes) +
                 " the LP is tried for";
    return bound;
  }
  const auto start = Clock::now();
  const Torus& torus = network.torus();
  if (options.use_symmetry && nodes.size() == torus.node_count() && torus.single_cable_mask() == 0 &&
      network.live_channel_count() == torus.cabled_channel_count()) {
    // Whole fault-free torus, two cables: the LP is at least the
    // per-dimension bound (an average over the channels every fractional
    // routing loads too), and at most it: DOR routes with every tied
    // dimension split half + and half - load all channels of a dimension
    // alike (translation) and both signs alike (reflection), each with
    // exactly hops / channels of that dimension.
    const auto bounds = dimension_lower_bounds(network, nodes);
    bound.value = *std::max_element(bounds.begin(), bounds.end());
    bound.status = LpBound::Status::solved;
    bound.by_symmetry = true;
    bound.seconds = seconds_since(start);
    return bound;
  }
  const TurnRules rules(network, TurnRules::Mode::all_turns);
  try {
    const CandidateSet set(network, rules, nodes, 64);
    const double left = options.time_limit - seconds_since(start);
    bound = solve_route_lp(set, left, options.all_columns).bound;
  } catch (const RoutingError& e) {
    bound.status = LpBound::Status::failed;
    bound.note = e.what();
  }
  bound.seconds = seconds_since(start);
  if (bound.status == LpBound::Status::timed_out) {
    char text[96];
    std::snprintf(text, sizeof text, "not solved within %g s", options.time_limit);
    bound.note = text;
  }
  return bound;
}

LpBound table_lp_bound(const Network& network, const RouteTable& table, double time_limit) {
  if (table.rules != RuleSet::angara) {
    LpBound bound;
    bound.status = LpBound::Status::not_applicable;
    bound.note = "rules general: the LP covers Angara-encodable routes only";
    return bound;
  }
  LpBoundOptions options;
  options.time_limit = time_limit;
  return lp_lower_bound(network, table.nodes(), options);
}

}  // namespace angara
