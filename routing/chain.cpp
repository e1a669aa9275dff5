#include "routing/chain.hpp"

#include "angara/printable.hpp"

#include "routing/memory.hpp"
#include "routing/common/oracle.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace angara {

namespace {

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return "";
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::vector<std::string> parse_algorithm_chain(std::string_view text) {
  std::vector<std::string> chain;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    chain.push_back(trimmed(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  // The text may be a user's (--angara-routing): echoed escaped and capped.
  const std::string where = chain.size() > 1 ? " in chain '" + printable(text) + "'" : "";
  for (std::size_t i = 0; i < chain.size(); ++i) {
    if (chain[i].empty())
      throw std::invalid_argument("empty routing algorithm name" + (where.empty() ? std::string() : where) +
                                  " (valid: " + generator_names() + ")");
    if (!make_generator(chain[i]))
      throw std::invalid_argument("unknown routing algorithm '" + printable(chain[i]) + "'" + where + " (valid: " +
                                  generator_names() + ")");
    if (std::find(chain.begin(), chain.begin() + static_cast<long>(i), chain[i]) != chain.begin() + static_cast<long>(i))
      throw std::invalid_argument("routing algorithm '" + printable(chain[i]) + "' appears twice" + where);
  }
  return chain;
}

std::string format_algorithm_chain(const std::vector<std::string>& chain) {
  std::string out;
  for (const std::string& name : chain) out += (out.empty() ? "" : ",") + name;
  return out;
}

std::string without_generator_name(const std::string& name, std::string reason) {
  if (reason.rfind(name + ": ", 0) == 0) reason.erase(0, name.size() + 2);
  return reason;
}

bool AlgorithmChain::contains(std::string_view name) const {
  return std::find(members.begin(), members.end(), name) != members.end();
}

std::string recorded_chain(const std::string& chain) {
  return chain.find(',') == std::string::npos ? std::string() : chain;
}

ChainOutcome run_algorithm_chain(const std::vector<std::string>& chain, const Network& network,
                                 const std::vector<NodeId>& allocation, const GeneratorOptions& options,
                                 const VerifyOptions& verify_options,
                                 const std::function<void(const std::string&)>& before_member) {
  if (chain.empty()) throw std::invalid_argument("empty routing algorithm chain");
  ChainOutcome outcome;
  bool over_memory_limit = false;
  // The later members see the fullest partial table of the earlier ones
  // (exact repairs it on large machines).
  GeneratorOptions member_options = options;
  std::size_t partial_missing = 0;
  for (std::size_t i = 0; i < chain.size(); ++i) {
    const std::string& name = chain[i];
    const std::unique_ptr<Generator> generator = make_generator(name);
    if (!generator)
      throw std::invalid_argument("unknown routing algorithm '" + printable(name) + "' (valid: " + generator_names() + ")");
    if (before_member) {
      try {
        before_member(name);
      } catch (const MemoryLimitError& e) {
        if (chain.size() == 1) throw;
        outcome.passed_over.push_back({name, e.what(), 0, "", {}});
        over_memory_limit = true;
        continue;
      }
    }
    const bool last = i + 1 == chain.size();
    const auto start = std::chrono::steady_clock::now();
    RouteTable table;
    try {
      table = generator->generate(network, allocation, member_options);
    } catch (const RoutingError& e) {
      if (e.partial()) {
        const std::size_t missing = unrouted_pairs(*e.partial()).size();
        if (!member_options.partial || missing < partial_missing) {
          member_options.partial = e.partial();
          partial_missing = missing;
        }
      }
      const double seconds = seconds_since(start);
      outcome.seconds += seconds;
      if (chain.size() == 1) throw;
      // The generators start their refusals with their name; the report
      // names the member itself.
      outcome.passed_over.push_back({name, without_generator_name(name, e.what()), seconds,
                                     without_generator_name(name, e.headline()),
                                     e.unrouted()});
      continue;
    }
    const double seconds = seconds_since(start);
    outcome.seconds += seconds;
    table.algorithm = name;
    table.rules = options.rules;
    table.flow_control = options.flow_control;
    VerifyReport report = verify(network, table, verify_options);
    if (report.ok() || (chain.size() == 1 && last)) {
      outcome.table = std::move(table);
      outcome.report = std::move(report);
      outcome.algorithm = name;
      return outcome;
    }
    const Violation& first = report.violations.front();
    outcome.passed_over.push_back({name,
                                   "table rejected by the verifier (" + std::to_string(report.violation_count) +
                                       " violation(s)); " + rule_name(first.rule) + ": " + first.message,
                                   seconds, "", {}});
  }
  std::string message = "no generator of the chain " + format_algorithm_chain(chain) + " found a valid table";
  for (const PassedOver& p : outcome.passed_over) message += "; " + p.algorithm + ": " + p.reason;
  if (over_memory_limit) throw MemoryLimitError(message);
  throw ChainRoutingError(message, std::move(outcome.passed_over));
}

}  // namespace angara
