#include "routing/refusal.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

#include "angara/hostlist.hpp"
#include "routing/common/oracle.hpp"

namespace angara {

namespace {

// A stderr line stays short enough to read: with "angara-route: " before
// it and how to see the rest after, under 300 bytes.
constexpr std::size_t kSummaryBytes = 250;
// Failures named in the summary before "and N more".
constexpr std::size_t kSummaryFailures = 4;
// Repairs the summary's advice may name; more are "any one of N of them".
constexpr std::size_t kSummaryRepairs = 4;

// "a", "a and b", "a, b and c"; with `shown` of them and "N more" after.
std::string listed(const std::vector<std::string>& names, std::size_t shown, const char* last = " and ") {
  std::vector<std::string> items(names.begin(), names.begin() + static_cast<long>(std::min(shown, names.size())));
  if (names.size() > items.size()) items.push_back(std::to_string(names.size() - items.size()) + " more");
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? last : ", ") + items[i];
  return out;
}

std::string comma_joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::string plural(std::size_t count, const std::string& word) {
  return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}

std::string seconds_text(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f s", seconds);
  return buffer;
}

// The node every pair in [first, last) involves; "" when none, or when both
// ends of every pair do (two nodes: no telling which one to leave out).
std::string common_node_of(std::vector<RefusedPair>::const_iterator first,
                           std::vector<RefusedPair>::const_iterator last) {
  if (last - first < 2) return "";
  std::vector<std::string> common;
  for (const std::string& candidate : {first->source, first->destination}) {
    if (std::all_of(first, last,
                    [&](const RefusedPair& p) { return p.source == candidate || p.destination == candidate; }))
      common.push_back(candidate);
  }
  return common.size() == 1 ? common.front() : "";
}

// The failures whose repair alone reopens every pair cut off, in order;
// none when a pair needs more than one repair.
std::vector<std::string> repairs_reopening_all(const Refusal& refusal) {
  std::vector<std::string> common = refusal.failures;
  for (std::size_t i = 0; i < refusal.cut_off; ++i) {
    const RefusedPair& pair = refusal.pairs[i];
    if (!pair.each_repair_reopens) return {};
    common.erase(std::remove_if(common.begin(), common.end(),
                                [&](const std::string& name) {
                                  return std::find(pair.blockers.begin(), pair.blockers.end(), name) ==
                                         pair.blockers.end();
                                }),
                 common.end());
  }
  return common;
}

// The summary; `failures`: the refusal's failures with routers of a kind
// grouped ("routers desmos[01,03] (failed)"), of which `failures_shown`
// are named; `name_repairs`: the advice names the repairs that reopen every
// pair (else it counts them).
std::string make_summary(const Refusal& refusal, const std::vector<std::string>& failures,
                         std::size_t failures_shown, bool name_repairs) {
  const std::string nodes = " of " + plural(refusal.node_count, "node");
  const std::string around = failures.empty() ? std::string() : " around " + listed(failures, failures_shown);
  std::string out = "refused: ";
  if (refusal.pairs.empty()) {
    out += (refusal.members.size() > 1 ? "no generator of the chain " + refusal.chain : refusal.chain) +
           " found a valid table for " + plural(refusal.node_count, "node") + around;
    return out;
  }
  const RefusedPair& first = refusal.pairs.front();
  if (refusal.cut_off) {
    out += plural(refusal.cut_off, "pair") + nodes + (refusal.cut_off == 1 ? " has" : " have") + " no route" + around;
    // What to do: leave out the node every pair involves, or repair a
    // failure whose repair alone reopens every pair.
    const std::vector<std::string> repairs = repairs_reopening_all(refusal);
    std::string repair;
    if (repairs.size() > 1 && repairs.size() == refusal.failures.size())
      repair = "repair any one of them";
    else if (repairs.size() == 1 || (!repairs.empty() && name_repairs && repairs.size() <= kSummaryRepairs))
      repair = "repair " + listed(repairs, repairs.size(), " or ");
    else if (!repairs.empty())
      repair = "repair any one of " + std::to_string(repairs.size()) + " of them";
    if (!refusal.common_node.empty())
      out += "; all involve " + refusal.common_node + ": leave it out of the job" +
             (repair.empty() ? "" : " or " + repair);
    else if (!repair.empty())
      out += "; " + repair + (refusal.cut_off == 1 ? " to reopen it" : " to reopen them all");
  } else {
    out += plural(refusal.pairs.size(), "pair") + nodes + " left without a deadlock-free route" + around;
  }
  return out + "; first: " + first.source + " -> " + first.destination;
}

// A failed router the configuration lists (the others the request marks
// down: Slurm's DOWN nodes, --down).
bool listed_as_failed(const Config& config, NodeId node) {
  return std::find(config.failed_nodes.begin(), config.failed_nodes.end(), node) != config.failed_nodes.end();
}

}  // namespace

const std::string& member_reason(const PassedOver& member) {
  return member.unrouted.empty() ? member.reason : member.headline;
}

std::vector<std::string> refusal_failure_names(const Config& config, const Network& network) {
  std::vector<std::string> names;
  for (NodeId node : network.failed_nodes())
    names.push_back("router " + config.node_name(node) + (listed_as_failed(config, node) ? " (failed)" : " (down)"));
  for (ChannelId c : network.failed_links())
    names.push_back("cable " + config.node_name(Torus::channel_node(c)) + " " + Torus::channel_direction(c).token());
  return names;
}

Refusal describe_refusal(const Config& config, const Network& network, std::size_t node_count,
                         const std::string& chain, std::vector<PassedOver> members) {
  Refusal refusal;
  refusal.chain = chain;
  refusal.node_count = node_count;
  // Each pair once, with the members that named it.
  std::vector<NodePair> pairs;
  std::map<NodePair, std::vector<std::string>> refused_by;
  for (const PassedOver& member : members)
    for (const NodePair& pair : member.unrouted) {
      std::vector<std::string>& by = refused_by[pair];
      if (by.empty()) pairs.push_back(pair);
      if (std::find(by.begin(), by.end(), member.algorithm) == by.end()) by.push_back(member.algorithm);
    }
  std::sort(pairs.begin(), pairs.end());
  refusal.members = std::move(members);

  const std::vector<std::string> names = refusal_failure_names(config, network);
  const std::vector<PairDiagnosis> diagnoses = diagnose_pairs(network, pairs);
  std::vector<RefusedPair> cut_off, routable;
  std::vector<std::size_t> behind_cut, behind_all;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    RefusedPair pair;
    pair.source = config.node_name(pairs[i].first);
    pair.destination = config.node_name(pairs[i].second);
    pair.shortest = diagnoses[i].shortest;
    pair.each_repair_reopens = diagnoses[i].each_repair_reopens;
    for (std::size_t f : diagnoses[i].blockers) {
      pair.blockers.push_back(names[f]);
      (pair.shortest < 0 ? behind_cut : behind_all).push_back(f);
    }
    pair.refused_by = std::move(refused_by[pairs[i]]);
    (pair.shortest < 0 ? cut_off : routable).push_back(std::move(pair));
  }
  refusal.cut_off = cut_off.size();
  refusal.pairs = std::move(cut_off);
  refusal.pairs.insert(refusal.pairs.end(), std::make_move_iterator(routable.begin()),
                       std::make_move_iterator(routable.end()));

  // The failures to name: behind the pairs cut off, else behind every pair,
  // else (no pair named) all of them; in the network's order.
  std::vector<std::size_t> behind = refusal.cut_off ? behind_cut : behind_all;
  if (pairs.empty())
    for (std::size_t f = 0; f < names.size(); ++f) behind.push_back(f);
  std::sort(behind.begin(), behind.end());
  behind.erase(std::unique(behind.begin(), behind.end()), behind.end());
  for (std::size_t f : behind) refusal.failures.push_back(names[f]);
  // For the summary, routers by hostlist: those the configuration lists
  // failed, those only marked down, then each cable.
  const std::size_t routers = network.failed_nodes().size();
  std::vector<std::string> listed_failed, down, grouped;
  for (std::size_t f : behind) {
    if (f >= routers) continue;
    const NodeId node = network.failed_nodes()[f];
    (listed_as_failed(config, node) ? listed_failed : down).push_back(config.node_name(node));
  }
  auto add_routers = [&](const std::vector<std::string>& group, const char* state) {
    if (!group.empty())
      grouped.push_back((group.size() == 1 ? "router " : "routers ") + compress_hostlist(group) + " " + state);
  };
  add_routers(listed_failed, "(failed)");
  add_routers(down, "(down)");
  for (std::size_t f : behind)
    if (f >= routers) grouped.push_back(names[f]);
  refusal.common_node =
      common_node_of(refusal.pairs.begin(), refusal.pairs.begin() + static_cast<long>(refusal.cut_off));

  // Fewer failures by name until the line is short enough, the repairs to
  // make named as long as possible.
  for (const bool name_repairs : {true, false}) {
    for (std::size_t shown = kSummaryFailures; shown >= 1; --shown) {
      refusal.summary = make_summary(refusal, grouped, shown, name_repairs);
      if (refusal.summary.size() <= kSummaryBytes) return refusal;
    }
  }
  return refusal;
}

std::vector<std::string> refusal_detail(const Refusal& refusal, std::size_t max_pairs) {
  std::vector<std::string> lines;
  auto reason_line = [](const PassedOver& member) {
    return member.algorithm + " (" + seconds_text(member.seconds) + "): " + member_reason(member);
  };
  if (refusal.members.size() == 1) {
    lines.push_back("generator " + reason_line(refusal.members.front()));
  } else {
    lines.push_back("chain " + refusal.chain + ", each generator's reason:");
    for (const PassedOver& member : refusal.members) lines.push_back("  " + reason_line(member));
  }
  if (refusal.cut_off)
    lines.push_back(plural(refusal.cut_off, "pair") + " of " + plural(refusal.node_count, "node") +
                    " without any route around the failures:");
  for (std::size_t i = 0; i < refusal.pairs.size(); ++i) {
    if (i == max_pairs) {
      lines.push_back("and " + plural(refusal.pairs.size() - i, "more pair") +
                      " (angara-route generate --verbose or --json lists them all)");
      break;
    }
    const RefusedPair& pair = refusal.pairs[i];
    if (i == refusal.cut_off)
      lines.push_back(plural(refusal.pairs.size() - refusal.cut_off, "pair") +
                      " with a route around the failures, left without one (deadlock-free with the others):");
    std::string line = "  " + pair.source + " -> " + pair.destination + ": ";
    if (pair.shortest < 0) {
      line += "cut off";
      if (!pair.blockers.empty())
        line += " by " + comma_joined(pair.blockers) +
                (pair.each_repair_reopens && pair.blockers.size() > 1 ? " (repairing any one reopens it)" : "");
    } else {
      line += "shortest route " + plural(static_cast<std::size_t>(pair.shortest), "hop");
      if (!pair.blockers.empty()) line += ", its minimal routes blocked by " + comma_joined(pair.blockers);
    }
    lines.push_back(line + "; refused by " + comma_joined(pair.refused_by));
  }
  return lines;
}

}  // namespace angara
