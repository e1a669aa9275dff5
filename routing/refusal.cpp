#include "routing/refusal.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
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

// The node every pair involves; kNoNode when none, or when both ends of
// every pair do (two nodes: no telling which one to leave out).
NodeId common_node_of(const std::vector<NodePair>& pairs) {
  if (pairs.size() < 2) return kNoNode;
  std::vector<NodeId> common;
  for (const NodeId candidate : {pairs.front().first, pairs.front().second}) {
    if (std::all_of(pairs.begin(), pairs.end(),
                    [&](const NodePair& p) { return p.first == candidate || p.second == candidate; }))
      common.push_back(candidate);
  }
  return common.size() == 1 ? common.front() : kNoNode;
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
    const std::vector<std::string>& repairs = refusal.reopening_repairs;
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
    out += plural(refusal.pair_count, "pair") + nodes + " left without a deadlock-free route" + around;
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
  // Each pair once (8 bytes a pair: a whole machine's refusal names
  // hundreds of thousands).
  std::vector<NodePair> pairs;
  std::vector<std::vector<NodePair>> named_by;  // per member, its pairs sorted
  for (const PassedOver& member : members) {
    named_by.push_back(member.unrouted);
    std::sort(named_by.back().begin(), named_by.back().end());
    pairs.insert(pairs.end(), member.unrouted.begin(), member.unrouted.end());
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  refusal.members = std::move(members);
  refusal.pair_count = pairs.size();

  const std::vector<std::string> names = refusal_failure_names(config, network);
  const std::vector<PairDiagnosis> diagnoses = diagnose_pairs(network, pairs);
  std::vector<std::size_t> cut_off, routable;  // indices into pairs
  std::vector<std::size_t> behind_cut, behind_all;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    (diagnoses[i].shortest < 0 ? cut_off : routable).push_back(i);
    for (std::size_t f : diagnoses[i].blockers) (diagnoses[i].shortest < 0 ? behind_cut : behind_all).push_back(f);
  }
  refusal.cut_off = cut_off.size();
  const auto detail = [&](std::size_t i) {
    RefusedPair pair;
    pair.source = config.node_name(pairs[i].first);
    pair.destination = config.node_name(pairs[i].second);
    pair.shortest = diagnoses[i].shortest;
    pair.each_repair_reopens = diagnoses[i].each_repair_reopens;
    for (std::size_t f : diagnoses[i].blockers) pair.blockers.push_back(names[f]);
    for (std::size_t m = 0; m < named_by.size(); ++m)
      if (std::binary_search(named_by[m].begin(), named_by[m].end(), pairs[i]) &&
          std::find(pair.refused_by.begin(), pair.refused_by.end(), refusal.members[m].algorithm) ==
              pair.refused_by.end())
        pair.refused_by.push_back(refusal.members[m].algorithm);
    refusal.pairs.push_back(std::move(pair));
  };
  for (std::size_t i : cut_off)
    if (refusal.pairs.size() < kRefusalDetailPairs) detail(i);
  for (std::size_t i : routable)
    if (refusal.pairs.size() < kRefusalDetailPairs) detail(i);

  // The repairs that reopen every pair cut off, and the node they all involve.
  std::vector<NodePair> cut_pairs;
  bool each_reopens = true;
  std::vector<std::size_t> reopening;
  for (std::size_t k = 0; k < cut_off.size(); ++k) {
    const PairDiagnosis& diagnosis = diagnoses[cut_off[k]];
    cut_pairs.push_back(pairs[cut_off[k]]);
    if (!diagnosis.each_repair_reopens) each_reopens = false;
    if (!each_reopens) continue;
    std::vector<std::size_t> blockers = diagnosis.blockers;
    std::sort(blockers.begin(), blockers.end());
    if (k == 0) {
      reopening = blockers;
    } else {
      std::vector<std::size_t> both;
      std::set_intersection(reopening.begin(), reopening.end(), blockers.begin(), blockers.end(),
                            std::back_inserter(both));
      reopening.swap(both);
    }
  }
  const NodeId common = common_node_of(cut_pairs);
  cut_pairs = {};

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
  refusal.common_node = common == kNoNode ? std::string() : config.node_name(common);
  if (each_reopens)
    for (std::size_t f : reopening) refusal.reopening_repairs.push_back(names[f]);

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
      lines.push_back("and " + plural(refusal.pair_count - i, "more pair") +
                      " (angara-route generate --verbose or --json lists " +
                      (refusal.pairs.size() < refusal.pair_count
                           ? "the first " + std::to_string(kRefusalDetailPairs)
                           : std::string("them all")) +
                      ")");
      break;
    }
    const RefusedPair& pair = refusal.pairs[i];
    if (i == refusal.cut_off)
      lines.push_back(plural(refusal.pair_count - refusal.cut_off, "pair") +
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
  if (refusal.pairs.size() < refusal.pair_count && max_pairs > refusal.pairs.size())
    lines.push_back("and " + plural(refusal.pair_count - refusal.pairs.size(), "more pair") + " (a refusal lists the first " +
                    std::to_string(kRefusalDetailPairs) + ")");
  return lines;
}

}  // namespace angara
