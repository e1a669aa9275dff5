#include "bench/workload.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

namespace angara::bench {

namespace {

constexpr int kSwfFields = 18;
const char* const kSwfFieldNames[kSwfFields] = {
    "job number",     "submit time",      "wait time",      "run time",    "allocated processors", "average CPU time",
    "used memory",    "requested processors", "requested time", "requested memory", "status", "user",
    "group",          "executable",       "queue",          "partition",   "preceding job",        "think time"};

std::string where(const std::string& path, std::size_t line) { return path + ":" + std::to_string(line) + ": "; }

}  // namespace

Trace read_swf(const std::string& path, std::size_t cores_per_node) {
  if (cores_per_node == 0) throw std::invalid_argument("cores per node must be positive");
  std::ifstream in(path);
  if (!in) throw TraceIoError(path + ": cannot open the trace (" + std::strerror(errno) + ")");
  Trace trace;
  std::string text;
  std::size_t line_number = 0;
  while (std::getline(in, text)) {
    ++line_number;
    const std::size_t first = text.find_first_not_of(" \t\r");
    if (first == std::string::npos || text[first] == ';') continue;  // blank, or the header's comments
    std::istringstream fields(text);
    std::array<double, kSwfFields> value{};
    std::string token;
    int count = 0;
    while (fields >> token) {
      if (count < kSwfFields) {
        char* end = nullptr;
        errno = 0;
        const double number = std::strtod(token.c_str(), &end);
        if (end == token.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(number))
          throw TraceFormatError(where(path, line_number) + "field " + std::to_string(count + 1) + " (" +
                                 kSwfFieldNames[count] + "): expected a number (-1: unknown), got '" + token + "'");
        value[static_cast<std::size_t>(count)] = number;
      }
      ++count;
    }
    if (count != kSwfFields)
      throw TraceFormatError(where(path, line_number) + "expected " + std::to_string(kSwfFields) +
                             " whitespace-separated fields (a Standard Workload Format job line) or a ';' comment, got " +
                             std::to_string(count));
    const double submit = value[1], runtime = value[3], allocated = value[4], requested = value[7];
    if (submit < 0)
      throw TraceFormatError(where(path, line_number) + "field 2 (submit time): expected seconds >= 0, got '" +
                             std::to_string(static_cast<long long>(submit)) + "'");
    const double processors = allocated > 0 ? allocated : requested;
    if (runtime < 0 || processors <= 0) {
      ++trace.unusable;
      continue;
    }
    TraceJob job;
    job.id = static_cast<long>(value[0]);
    job.submit = submit;
    job.runtime = runtime;
    job.requested_time = value[8] > 0 ? value[8] : -1;
    job.nodes = static_cast<std::size_t>(std::ceil(processors / static_cast<double>(cores_per_node)));
    trace.jobs.push_back(job);
  }
  if (in.bad()) throw TraceIoError(path + ": cannot read the trace");
  std::stable_sort(trace.jobs.begin(), trace.jobs.end(),
                   [](const TraceJob& a, const TraceJob& b) { return a.submit < b.submit; });
  return trace;
}

void write_swf(std::ostream& out, const std::vector<TraceJob>& jobs, const std::vector<std::string>& header) {
  for (const std::string& line : header) out << "; " << line << "\n";
  for (const TraceJob& job : jobs) {
    // Fields 1-18; status 1 (completed); requested processors = allocated.
    out << job.id << ' ' << std::llround(job.submit) << " -1 " << std::llround(job.runtime) << ' ' << job.nodes
        << " -1 -1 " << job.nodes << ' ' << (job.requested_time > 0 ? std::llround(job.requested_time) : -1)
        << " -1 1 -1 -1 -1 -1 -1 -1 -1\n";
  }
}

double offered_load(const std::vector<TraceJob>& jobs, std::size_t machine_nodes) {
  if (jobs.empty() || machine_nodes == 0) return 0;
  double work = 0, first = jobs.front().submit, last = first;
  for (const TraceJob& job : jobs) {
    work += static_cast<double>(job.nodes) * job.runtime;
    first = std::min(first, job.submit);
    last = std::max(last, job.submit);
  }
  return last > first ? work / (static_cast<double>(machine_nodes) * (last - first)) : 0;
}

namespace {

// The regularised lower incomplete gamma function P(a, x) by its series
// (converges for every x; the arguments here are below 20).
double gamma_cdf(double x, double shape, double scale) {
  if (x <= 0) return 0;
  const double z = x / scale;
  double term = 1.0 / shape, sum = term;
  for (int n = 1; n < 2000 && term > sum * 1e-16; ++n) {
    term *= z / (shape + n);
    sum += term;
  }
  return std::min(1.0, sum * std::exp(-z + shape * std::log(z) - std::lgamma(shape)));
}

constexpr int kBuckets = 48;               // half hours of the day
constexpr double kBucketSeconds = 1800.0;

// The daily cycle (the paper's arrival model): bucket b's share of the
// arrivals is the mass of gamma(anum, bnum) over [x - 0.5, x + 0.5] at its
// position x on the model's day, which starts at bucket `day_start`
// (x = b + 1, or b + 1 + 48 for the buckets before the day start); the
// weights are normalised to a mean of 1, so a bucket of weight w passes w
// seconds of the rush-hour process per second.
std::array<double, kBuckets> day_weights(const LublinParameters& p) {
  std::array<double, kBuckets> weight{};
  double sum = 0;
  for (int b = 0; b < kBuckets; ++b) {
    double x = b + 1;
    if (x < p.day_start_bucket) x += kBuckets;
    weight[static_cast<std::size_t>(b)] = gamma_cdf(x + 0.5, p.anum, p.bnum) - gamma_cdf(x - 0.5, p.anum, p.bnum);
    sum += weight[static_cast<std::size_t>(b)];
  }
  for (double& w : weight) w = std::max(w * kBuckets / sum, 1e-9);
  return weight;
}

// Size and run time of every job (the arrival-independent part).
struct SizedJob {
  std::size_t nodes;
  double runtime;
};

std::vector<SizedJob> sized_jobs(const LublinRequest& request) {
  const LublinParameters& p = request.parameters;
  std::mt19937_64 random(request.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double u_high = std::log2(static_cast<double>(request.machine_nodes));
  const double u_med = std::max(p.u_low, u_high - p.u_med_below_high);
  std::gamma_distribution<double> short_runs(p.a1, p.b1), long_runs(p.a2, p.b2);
  std::vector<SizedJob> jobs;
  for (std::size_t i = 0; i < request.jobs; ++i) {
    // Job size: serial, or 2^(two-stage uniform), a power of two for a share.
    std::size_t nodes = 1;
    const double u = unit(random);
    if (u > p.serial_probability) {
      double log_size = unit(random) <= p.u_probability ? p.u_low + (u_med - p.u_low) * unit(random)
                                                        : u_med + (u_high - u_med) * unit(random);
      if (u <= p.serial_probability + p.power_of_two_probability) log_size = std::round(log_size);
      nodes = static_cast<std::size_t>(std::llround(std::exp2(log_size)));
      nodes = std::clamp<std::size_t>(nodes, 1, request.machine_nodes);
    }
    // Run time: hyper-gamma of ln(runtime), the short gamma less likely for
    // larger jobs (p = pa * nodes + pb, pa < 0).
    const double short_share = std::clamp(p.pa * static_cast<double>(nodes) + p.pb, 0.0, 1.0);
    double log_runtime;
    do {
      log_runtime = unit(random) <= short_share ? short_runs(random) : long_runs(random);
    } while (log_runtime > p.max_log_runtime);
    jobs.push_back({nodes, std::max(1.0, std::round(std::exp(log_runtime)))});
  }
  return jobs;
}

// Submit times: each job's rush-hour inter-arrival exp(gamma(aarr * arar,
// barr)), times `scale`, spent through the day's buckets at their weights.
std::vector<double> arrivals(const LublinRequest& request, double scale) {
  const LublinParameters& p = request.parameters;
  const std::array<double, kBuckets> weight = day_weights(p);
  std::mt19937_64 random(request.seed ^ 0x9e3779b97f4a7c15ULL);
  std::gamma_distribution<double> interarrival(p.aarr * p.arar, p.barr);
  std::vector<double> times;
  double now = 0;  // midnight
  for (std::size_t i = 0; i < request.jobs; ++i) {
    times.push_back(std::floor(now));
    double log_gap;
    do log_gap = interarrival(random);
    while (log_gap > p.max_log_interarrival);
    double work = scale * std::exp(log_gap);
    for (;;) {
      const double bucket_end = (std::floor(now / kBucketSeconds) + 1) * kBucketSeconds;
      const double w = weight[static_cast<std::size_t>(static_cast<long long>(now / kBucketSeconds) % kBuckets)];
      if (work <= (bucket_end - now) * w) {
        now += work / w;
        break;
      }
      work -= (bucket_end - now) * w;
      now = bucket_end;
    }
  }
  return times;
}

}  // namespace

LublinTrace lublin_trace(const LublinRequest& request) {
  if (request.jobs < 2 || request.machine_nodes < 2)
    throw std::invalid_argument("the Lublin model needs 2+ jobs and a machine of 2+ nodes");
  if (!(request.load > 0)) throw std::invalid_argument("the offered load must be positive");
  const std::vector<SizedJob> sized = sized_jobs(request);
  LublinTrace trace;
  const auto build = [&](double scale) {
    const std::vector<double> submit = arrivals(request, scale);
    LublinTrace candidate;
    candidate.arrival_scale = scale;
    for (std::size_t i = 0; i < sized.size(); ++i) {
      TraceJob job;
      job.id = static_cast<long>(i + 1);
      job.submit = submit[i];
      job.runtime = sized[i].runtime;
      job.nodes = sized[i].nodes;
      candidate.jobs.push_back(job);
    }
    candidate.load = offered_load(candidate.jobs, request.machine_nodes);
    return candidate;
  };
  // The load falls as the scale grows (about as its inverse: the weights
  // average 1 over a day, but the daily cycle makes it step), so bisect
  // on the scale's logarithm and keep the closest.
  double low = -12, high = 12;  // log2 of the scale
  trace = build(1);
  for (int step = 0; step < 60 && std::fabs(trace.load / request.load - 1) >= 0.005; ++step) {
    const double middle = 0.5 * (low + high);
    LublinTrace candidate = build(std::exp2(middle));
    (candidate.load > request.load ? low : high) = middle;
    if (std::fabs(candidate.load / request.load - 1) < std::fabs(trace.load / request.load - 1))
      trace = std::move(candidate);
  }
  return trace;
}

}  // namespace angara::bench
