#include "routing/report.hpp"

#include <cstdio>
#include <new>
#include <sstream>
#include <vector>

#include "angara/hostlist.hpp"
#include "config.h"
#include "routing/generator.hpp"
#include "routing/memory.hpp"

namespace angara {

namespace {

std::string json_string_array(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + json_quote(items[i]);
  return out + "]";
}

std::string fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

std::string node_list(const Config& config, const RouteTable& table) {
  std::vector<std::string> names;
  names.reserve(table.size());
  for (NodeId node : table.nodes()) names.push_back(config.node_name(node));
  return compress_hostlist(names);
}

std::string failures_text(const Network& network) {
  if (network.failed_nodes().empty() && network.failed_links().empty()) return "none";
  return std::to_string(network.failed_nodes().size()) + " node(s), " +
         std::to_string(network.failed_links().size()) + " link(s): " + network.fault_signature();
}

std::string verdict_text(const VerifyReport& report) {
  if (!report.ok()) return "FAILED: " + std::string(rule_name(report.violations.front().rule));
  return std::string("OK: complete, walkable, ") +
         (report.rules == RuleSet::angara ? "Angara-encodable, " : "") + "deadlock-free" +
         (report.flow_control == FlowControl::none ? " without bubble flow control" : "") +
         (report.adaptive_checked ? ", a safe escape for the adaptive channel (" +
                                        std::to_string(report.indirect_dependencies) + " indirect dependencies)"
                                  : "");
}

std::string rules_text(const Config& config, const VerifyReport& report) {
  return std::string(rule_set_name(report.rules)) + ", flow control " +
         std::string(flow_control_name(report.flow_control)) + ", virtual channels " +
         std::to_string(report.virtual_channels) + " used of " + std::to_string(config.virtual_channels);
}

// "estimate 12.3 MiB (...), limit 11.8 GiB (50% of the node's memory)".
std::string memory_text(const Config& config, const MemoryEstimate& estimate) {
  const std::uint64_t limit = memory_limit_bytes(config.memory_limit);
  std::string out = "estimate " + estimate.text() + ", limit ";
  if (!limit) return out + "none";
  out += format_bytes(limit);
  if (!config.memory_limit.bytes) out += " (" + memory_limit_text(config.memory_limit) + ")";
  return out;
}

}  // namespace

std::string json_quote(const std::string& text) {
  std::string out = "\"";
  for (unsigned char ch : text) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (ch < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", ch);
          out += buffer;
        } else {
          out += static_cast<char>(ch);
        }
    }
  }
  return out + "\"";
}

namespace {

bool network_has_failures(const Network& network) {
  return network.live_channel_count() != network.torus().cabled_channel_count();
}

// Whether the LP bounds the table: every pair in the LP (those with a
// minimal route; the others detour in any table) is routed minimally.
bool lp_bounds_table(const LpBound& bound, std::size_t non_minimal) { return non_minimal <= bound.pairs_left_out; }

std::string lp_scope_text(const LpBound& bound, std::size_t non_minimal) {
  std::string text = "(over minimal encodable routes only";
  if (bound.pairs_left_out > 0)
    text += ", without the " + std::to_string(bound.pairs_left_out) + " pairs the failures leave no minimal route";
  if (!lp_bounds_table(bound, non_minimal))
    return text + ": not a bound for this table, " + std::to_string(non_minimal - bound.pairs_left_out) +
           " of its routes detour where a minimal route exists)";
  return text + "; this table routes every other pair minimally, so it bounds it)";
}

}  // namespace

std::string lp_bound_text(const LpBound& bound) {
  if (bound.solved() && bound.by_symmetry)
    return std::to_string(bound.rounded()) + " (optimum " + fixed(bound.value, 3) +
           ", the per-dimension bound: whole fault-free torus)";
  if (bound.solved())
    return std::to_string(bound.rounded()) + " (optimum " + fixed(bound.value, 3) + ", " + fixed(bound.seconds, 3) +
           " s)";
  if (bound.has_value())
    return ">= " + std::to_string(bound.rounded()) + " (" + bound.note + "; duals certify " + fixed(bound.value, 3) +
           ")";
  return "not computed: " + (bound.note.empty() ? std::string(lp_status_name(bound.status)) : bound.note);
}

std::string format_report_text(const Config& config, const JobResult& result, const ReportContext& context) {
  const Metrics& m = result.report.metrics;
  const Torus& torus = result.network.torus();
  std::ostringstream out;
  out << "angara-route " << PACKAGE_VERSION << " " << context.command << "\n";
  out << "  machine      " << torus.to_string() << " torus, " << torus.node_count() << " nodes, "
      << result.network.live_channel_count() << " live channels (" << config.source << ")\n";
  if (torus.single_cable_mask())
    out << "  cabling      single cable in " << Torus::dimension_letters(torus.single_cable_mask()) << " ("
        << torus.cabled_channel_count() << " channels when intact)\n";
  out << "  config       " << config_summary(config) << "\n";
  out << "  failures     " << failures_text(result.network) << "\n";
  out << "  job          " << result.job << "\n";
  out << "  nodes        " << node_list(config, result.table) << " (" << result.table.size() << ")\n";
  out << "  algorithm    " << result.algorithm;
  if (result.from_cache)
    out << " (from cache)";
  else if (context.command == "generate")
    out << " (" << fixed(result.seconds, 4) << " s)";
  if (result.chain.find(',') != std::string::npos) out << ", chain " << result.chain;
  if (!context.algorithm_source.empty()) out << "; " << context.algorithm_source;
  out << "\n";
  // Why the chain passed over its earlier members (routing/chain.hpp).
  for (const PassedOver& p : result.passed_over) out << "    passed over " << p.algorithm << ": " << p.reason << "\n";
  if (!result.budget_cut.empty()) out << "  budget       " << budget_cut_text(result) << "\n";
  if (const std::string confine = confine_text(result); !confine.empty()) out << "  confine      " << confine << "\n";
  out << "  rules        " << rules_text(config, result.report) << "\n";
  out << "  routes       " << result.report.routes << " (non-minimal " << result.report.non_minimal << ", FS/LS "
      << result.report.fs_ls_routes << ", virtual channels " << result.report.virtual_channels << ")\n";
  out << "  gamma        max " << m.max_gamma << "  min " << m.min_gamma << "  avg " << fixed(m.avg_gamma, 2)
      << " over " << m.channels << " channels\n";
  out << "  lower bound  " << m.lower_bound << " (";
  bool first = true;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    if (!torus.dim_present(dim)) continue;
    out << (first ? "" : ", ") << dimension_letter(dim) << " " << fixed(m.dim_bound[dim], 2);
    first = false;
  }
  out << ")";
  // With detours the minimal-path bound does not apply (routing/check/metrics.hpp).
  if (!m.bound_for_minimal_routing) out << " over all live channels (non-minimal routes)";
  out << "\n";
  if (context.lp_bound) {
    out << "  LP bound     " << lp_bound_text(*context.lp_bound) << "\n";
    // The LP's routes are the minimal encodable ones: say so where a table
    // may leave them (around failures), and whether this one did.
    if (context.lp_bound->has_value() && (result.report.non_minimal > 0 || network_has_failures(result.network)))
      out << "               " << lp_scope_text(*context.lp_bound, result.report.non_minimal) << "\n";
  }
  out << "  sigma(4)     " << fixed(m.sigma4, 3) << "\n";
  out << "  diameter     " << m.max_hops << " hops (average " << fixed(m.avg_hops, 3) << ")\n";
  out << "  fingerprint  " << result.fingerprint << "\n";
  if (result.memory.total) out << "  memory       " << memory_text(config, result.memory) << "\n";
  out << "  verdict      " << verdict_text(result.report) << "\n";
  for (const Violation& v : result.report.violations)
    out << "    " << rule_name(v.rule) << ": " << v.message << "\n";
  if (!context.tables_note.empty()) out << "  tables       " << context.tables_note << "\n";
  return out.str();
}

std::string format_report_json(const Config& config, const JobResult& result, const ReportContext& context) {
  const Metrics& m = result.report.metrics;
  const Torus& torus = result.network.torus();
  std::ostringstream out;
  out << "{\"version\":" << json_quote(PACKAGE_VERSION) << ",\"command\":" << json_quote(context.command)
      << ",\"config\":" << json_quote(config.source) << ",\"config_fingerprint\":" << json_quote(config.fingerprint)
      << ",\"config_bytes\":" << config.bytes << ",\"config_failures\":" << json_quote(listed_failures(config))
      << ",\"machine\":" << json_quote(torus.to_string())
      << ",\"single_cable\":" << json_quote(Torus::dimension_letters(torus.single_cable_mask()))
      << ",\"machine_nodes\":" << torus.node_count() << ",\"live_channels\":" << result.network.live_channel_count()
      << ",\"failures\":" << json_quote(failures_text(result.network)) << ",\"job\":" << json_quote(result.job)
      << ",\"nodes\":" << json_quote(node_list(config, result.table)) << ",\"node_count\":" << result.table.size()
      << ",\"algorithm\":" << json_quote(result.algorithm) << ",\"chain\":" << json_quote(result.chain)
      << ",\"passed_over\":" << passed_over_json(result.passed_over)
      << ",\"budget_cut\":" << json_string_array(result.budget_cut) << ",\"budget_steps\":" << result.budget_steps
      << ",\"budget_limit_steps\":" << result.budget_limit_steps
      << ",\"confined\":" << (result.confined ? "true" : "false")
      << ",\"confine_note\":" << json_quote(result.confine_note)
      << ",\"algorithm_source\":" << json_quote(context.algorithm_source) << ",\"seconds\":" << fixed(result.seconds, 6)
      << ",\"from_cache\":" << (result.from_cache ? "true" : "false") << ",\"routes\":" << result.report.routes
      << ",\"non_minimal\":" << result.report.non_minimal << ",\"fs_ls_routes\":" << result.report.fs_ls_routes
      << ",\"rules\":" << json_quote(std::string(rule_set_name(result.report.rules)))
      << ",\"flow_control\":" << json_quote(std::string(flow_control_name(result.report.flow_control)))
      << ",\"virtual_channels\":" << result.report.virtual_channels
      << ",\"virtual_channels_allowed\":" << config.virtual_channels
      << ",\"adaptive\":" << (config.adaptive ? "true" : "false")
      << ",\"safe_escape\":" << (result.report.adaptive_checked && result.report.ok() ? "true" : "false")
      << ",\"indirect_dependencies\":" << result.report.indirect_dependencies << ",\"gamma_max\":" << m.max_gamma
      << ",\"gamma_min\":" << m.min_gamma << ",\"gamma_avg\":" << fixed(m.avg_gamma, 4)
      << ",\"channels\":" << m.channels << ",\"sigma4\":" << fixed(m.sigma4, 4) << ",\"max_hops\":" << m.max_hops
      << ",\"avg_hops\":" << fixed(m.avg_hops, 4) << ",\"lower_bound\":" << m.lower_bound
      << ",\"bound_for_minimal_routing\":" << (m.bound_for_minimal_routing ? "true" : "false") << ",\"dim_bounds\":{";
  bool first = true;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    if (!torus.dim_present(dim)) continue;
    out << (first ? "" : ",") << json_quote(std::string(1, dimension_letter(dim))) << ":"
        << fixed(m.dim_bound[dim], 4);
    first = false;
  }
  out << "}";
  if (const auto& lp = context.lp_bound) {
    out << ",\"lp_bound\":{\"status\":" << json_quote(lp_status_name(lp->status));
    if (lp->has_value())
      out << ",\"value\":" << fixed(lp->value, 4) << ",\"rounded\":" << lp->rounded()
          << ",\"by_symmetry\":" << (lp->by_symmetry ? "true" : "false");
    out << ",\"seconds\":" << fixed(lp->seconds, 4) << ",\"note\":" << json_quote(lp->note);
    // Over minimal encodable routes only: not a bound for a table that detours.
    if (lp->has_value())
      out << ",\"minimal_routes_only\":true,\"bounds_this_table\":"
          << (lp_bounds_table(*lp, result.report.non_minimal) ? "true" : "false");
    out << "}";
  }
  if (result.memory.total) {
    out << ",\"memory\":{\"estimate_bytes\":" << result.memory.total
        << ",\"limit_bytes\":" << memory_limit_bytes(config.memory_limit)
        << ",\"limit\":" << json_quote(memory_limit_text(config.memory_limit)) << ",\"parts\":{";
    for (std::size_t i = 0; i < result.memory.parts.size(); ++i)
      out << (i ? "," : "") << json_quote(result.memory.parts[i].what) << ":" << result.memory.parts[i].bytes;
    out << "}}";
  }
  out << ",\"fingerprint\":" << json_quote(result.fingerprint) << ",\"ok\":" << (result.report.ok() ? "true" : "false")
      << ",\"violations\":[";
  for (std::size_t i = 0; i < result.report.violations.size(); ++i) {
    const Violation& v = result.report.violations[i];
    out << (i ? "," : "") << "{\"rule\":" << json_quote(rule_name(v.rule)) << ",\"message\":" << json_quote(v.message)
        << "}";
  }
  out << "],\"tables\":" << json_quote(context.tables_note) << "}\n";
  return out.str();
}

std::string format_report_summary(const JobResult& result) {
  const Metrics& m = result.report.metrics;
  return result.algorithm + " on " + std::to_string(result.table.size()) + " nodes, max gamma " +
         std::to_string(m.max_gamma) + " (bound " + std::to_string(m.lower_bound) + "), diameter " +
         std::to_string(m.max_hops) + ", " + (result.report.ok() ? "verified" : "REJECTED");
}

std::string format_report_line(const JobResult& result) {
  return "job " + result.job + ": " + format_report_summary(result) +
         (result.from_cache ? ", from cache" : ", computed in " + fixed(result.seconds, 3) + " s") +
         format_chain_note(result) + (result.budget_cut.empty() ? "" : "; " + budget_cut_text(result)) +
         (confine_text(result).empty() ? "" : "; " + confine_text(result));
}

std::string confine_text(const JobResult& result) {
  if (result.confined) return "confined to its own routers (routing.confine)";
  if (!result.confine_note.empty()) return "not confined: " + result.confine_note + " (routing.confine)";
  return "";
}

std::string budget_cut_text(const JobResult& result) {
  std::string text = "time budget cut:";
  for (std::size_t i = 0; i < result.budget_cut.size(); ++i) text += (i ? ", " : " ") + result.budget_cut[i];
  return text + " (routing.time_budget)";
}

std::string format_chain_note(const JobResult& result) {
  if (recorded_chain(result.chain).empty()) return "";
  std::string note = "; chain " + result.chain;
  for (const PassedOver& p : result.passed_over) note += "; passed over " + p.algorithm + ": " + p.reason;
  return note;
}

std::string passed_over_json(const std::vector<PassedOver>& passed_over) {
  std::string out = "[";
  for (std::size_t i = 0; i < passed_over.size(); ++i) {
    const PassedOver& p = passed_over[i];
    out += std::string(i ? "," : "") + "{\"algorithm\":" + json_quote(p.algorithm) + ",\"reason\":" +
           json_quote(p.reason) + ",\"seconds\":" + fixed(p.seconds, 6) + "}";
  }
  return out + "]";
}

std::string refusal_json(const Refusal& refusal) {
  auto strings = [](const std::vector<std::string>& items) {
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + json_quote(items[i]);
    return out + "]";
  };
  std::string out = "{\"summary\":" + json_quote(refusal.summary) + ",\"chain\":" + json_quote(refusal.chain) +
                    ",\"node_count\":" + std::to_string(refusal.node_count) +
                    ",\"failures\":" + strings(refusal.failures) +
                    ",\"common_node\":" + json_quote(refusal.common_node) + ",\"generators\":[";
  for (std::size_t i = 0; i < refusal.members.size(); ++i) {
    const PassedOver& m = refusal.members[i];
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.6f", m.seconds);
    out += std::string(i ? "," : "") + "{\"algorithm\":" + json_quote(m.algorithm) +
           ",\"reason\":" + json_quote(member_reason(m)) + ",\"seconds\":" + seconds +
           ",\"pairs\":" + std::to_string(m.unrouted.size()) + "}";
  }
  out += "],\"pair_count\":" + std::to_string(refusal.pair_count) + ",\"cut_off_pairs\":" +
         std::to_string(refusal.cut_off) + ",\"pairs\":[";
  for (std::size_t i = 0; i < refusal.pairs.size(); ++i) {
    const RefusedPair& p = refusal.pairs[i];
    out += std::string(i ? "," : "") + "{\"source\":" + json_quote(p.source) +
           ",\"destination\":" + json_quote(p.destination) + ",\"cut_off\":" + (p.shortest < 0 ? "true" : "false") +
           ",\"shortest_hops\":" + std::to_string(p.shortest) + ",\"blockers\":" + strings(p.blockers) +
           ",\"each_repair_reopens\":" + (p.each_repair_reopens ? "true" : "false") +
           ",\"refused_by\":" + strings(p.refused_by) + "}";
  }
  return out + "]}";
}

std::string message_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const RefusalError& e) {
    return e.what();  // "refused: ...", the summary
  } catch (const RoutingError& e) {
    return std::string("no valid routing: ") + e.what();
  } catch (const MemoryLimitError& e) {
    return std::string("memory limit: ") + e.what();
  } catch (const std::bad_alloc&) {
    return out_of_memory_message();
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unexpected error";
  }
}

std::string out_of_memory_message() {
  return "out of memory (std::bad_alloc): the system refused an allocation; nothing was written.  limits.memory "
         "(angara.yaml(5)) or --memory-limit refuse a computation whose estimate is too large before it starts";
}

}  // namespace angara
