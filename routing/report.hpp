// Human and JSON renderings of a job's routing result, shared by the admin
// tool and the SPANK plugin's log lines.
#pragma once

#include <exception>

#include <optional>
#include <string>
#include <vector>

#include "angara/config.hpp"
#include "routing/check/lp_bound.hpp"
#include "routing/pipeline.hpp"
#include "routing/refusal.hpp"

namespace angara {

struct ReportContext {
  std::string command;        // "generate", "verify"
  std::string tables_note;    // "written to DIR (N files)" / "dry run: nothing written"
  std::string algorithm_source;  // where the algorithm came from when not obvious ("" = not shown)
  std::optional<LpBound> lp_bound;  // the LP lower bound, when it was asked for
};

// "26 (optimum 25.333, 0.018 s)", ">= 63 (...)" or "not computed: why".
std::string lp_bound_text(const LpBound& bound);

std::string format_report_text(const Config& config, const JobResult& result, const ReportContext& context);
std::string format_report_json(const Config& config, const JobResult& result, const ReportContext& context);
// One line for logs: "job 12: bfs on 8 nodes, max gamma 6 (bound 4), verified in 0.01 s".
// "time budget cut: First/Last Step refinement (stopped early), long-way
// routes (routing.time_budget)", for a result whose budget cut stages.
std::string budget_cut_text(const JobResult& result);
std::string format_report_line(const JobResult& result);
// routing.confine: "confined to its own routers (routing.confine)", or why
// not; empty when confinement was not asked for.
std::string confine_text(const JobResult& result);
// Its middle: "bfs on 4 nodes, max gamma 2 (bound 2), diameter 2, verified".
std::string format_report_summary(const JobResult& result);
// For a chain of several members, what the line adds: "; chain balanced,nue;
// passed over balanced: REASON" (one part per member passed over); "" for one
// generator.
std::string format_chain_note(const JobResult& result);
// The members a chain passed over, as a JSON array of {algorithm, reason, seconds}.
std::string passed_over_json(const std::vector<PassedOver>& passed_over);
// A refusal (routing/refusal.hpp) as a JSON object: its summary, chain,
// failures, each generator's reason and every pair.
std::string refusal_json(const Refusal& refusal);

// JSON string literal with escapes.
std::string json_quote(const std::string& text);

// what() of the exception, with "no valid routing: " before a RoutingError's
// and "memory limit: " before a MemoryLimitError's; a RefusalError's summary
// ("refused: ...", routing/refusal.hpp) as it is.
std::string message_of(const std::exception_ptr& error);
// The message for std::bad_alloc (its what() says nothing useful).
std::string out_of_memory_message();

}  // namespace angara
