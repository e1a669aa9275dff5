// Job traces for the trace replay of angara-placement-bench
// (doc/benchmarks.md, "Trace replay"): the Standard Workload Format of the
// Parallel Workloads Archive, read and written, and a seeded synthetic
// trace from the Lublin-Feitelson model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace angara::bench {

struct TraceJob {
  long id = 0;                 // SWF field 1
  double submit = 0;           // s, field 2
  double runtime = 0;          // s, field 4
  double requested_time = -1;  // s, field 9; -1: unknown (the run time is the estimate)
  std::size_t nodes = 0;       // from field 5 (allocated processors), else 8 (requested)
};

struct Trace {
  std::vector<TraceJob> jobs;  // in submit order
  std::size_t unusable = 0;    // lines without a run time or a processor count (-1)
};

// A line of a trace file that is not SWF: the message names the file, the
// line and what was expected ("FILE:LINE: ...").
class TraceFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// The file cannot be opened or read.
class TraceIoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads an SWF file: ';' comment lines (the header), blank lines, and job
// lines of 18 whitespace-separated numbers (-1: unknown).  Processors become
// nodes, `cores_per_node` to a node (rounded up).
Trace read_swf(const std::string& path, std::size_t cores_per_node = 1);

// Writes jobs as SWF job lines (one processor a node) after `header`
// comment lines (each written with a leading "; ").
void write_swf(std::ostream& out, const std::vector<TraceJob>& jobs, const std::vector<std::string>& header);

// sum(nodes * runtime) / (machine_nodes * (last submit - first submit)):
// the load the trace offers a machine of that many nodes.
double offered_load(const std::vector<TraceJob>& jobs, std::size_t machine_nodes);

// The Lublin-Feitelson model (Lublin & Feitelson 2003, "The workload on
// parallel supercomputers: modeling the characteristics of rigid jobs",
// J. Parallel Distrib. Comput. 63(11)), its parameters for the whole sample
// (batch and interactive jobs together) as the authors' generator
// lublin99.c in the Parallel Workloads Archive sets them; UHi (log2 of the
// largest job) is the machine's, UMed = UHi - 2.5 as the model suggests.
// Cited by the paper's models (job size, run time, arrival process), not by
// section number: no copy of the paper was at hand, only the generator.
struct LublinParameters {
  // Job size: serial jobs, then log2(size) from a two-stage uniform
  // (ULow..UMed with probability UProb, else UMed..UHi), rounded to an
  // integer (a power of two) for a share of the jobs.
  double serial_probability = 0.244, power_of_two_probability = 0.576;
  double u_low = 0.8, u_med_below_high = 2.5, u_probability = 0.86;
  // Run time: ln(runtime) from a hyper-gamma, gamma(a1, b1) with
  // probability p = pa * nodes + pb (clamped to [0, 1]), else gamma(a2, b2):
  // longer runs for larger jobs.
  double a1 = 4.2, b1 = 0.94, a2 = 312, b2 = 0.03, pa = -0.0054, pb = 0.78;
  double max_log_runtime = 12;  // ln: redrawn above it (about 45 hours)
  // Arrivals: ln(inter-arrival) of the rush hours from gamma(aarr * arar,
  // barr), spread over the day by half-hour weights from the cdf of
  // gamma(anum, bnum) over the buckets, the day starting at bucket 11.
  double aarr = 10.2303, barr = 0.4871, arar = 1.0225, anum = 8.1737, bnum = 3.9631;
  double max_log_interarrival = 13;
  int day_start_bucket = 11;
};

struct LublinRequest {
  std::size_t jobs = 500;
  std::size_t machine_nodes = 512;  // UHi = log2 of it; no job is larger
  double load = 0.85;               // offered load aimed at (offered_load over machine_nodes)
  std::uint64_t seed = 1;
  LublinParameters parameters;
};

struct LublinTrace {
  std::vector<TraceJob> jobs;
  double arrival_scale = 1;  // the model's inter-arrival times were multiplied by this
  double load = 0;           // offered_load of the jobs
};

// The sizes and run times depend on the seed only; the arrival process is
// then stretched (every inter-arrival time of the model, before the daily
// cycle spreads it) until the offered load is the asked one within 0.5%
// (or as near as the trace allows).
LublinTrace lublin_trace(const LublinRequest& request);

}  // namespace angara::bench
