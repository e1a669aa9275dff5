// Live switches under failures: a job runs on every live node of a
// machine that already has some failures; one more router or cable fails; the
// job's tables are rebuilt with the same generator.  How often is the switch
// from the installed to the new routes safe directly, through intermediate
// tables, or only after quiescing the job (routing/check/transition.hpp)?
//
//   angara-transition-bench [--machine 4x4x4] [--algorithm bfs] [--trials 100]
//                           [--before 1] [--seed 1]
// Results and the commands used: doc/benchmarks.md, "Live switches".
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include "angara/network.hpp"
#include "routing/generator.hpp"
#include "routing/check/transition.hpp"

using namespace angara;

namespace {

std::vector<NodeId> live_nodes(const Network& network) {
  std::vector<NodeId> nodes;
  for (NodeId node = 0; node < network.torus().node_count(); ++node)
    if (network.node_alive(node)) nodes.push_back(node);
  return nodes;
}

// A router or (every other time) a cable of a live router fails.
void fail_one(Network& network, std::mt19937& random, bool router) {
  const Torus& torus = network.torus();
  NodeId node = static_cast<NodeId>(random() % torus.node_count());
  while (!network.node_alive(node)) node = static_cast<NodeId>(random() % torus.node_count());
  if (router) {
    network.fail_node(node);
  } else {
    const Direction d = Direction::make(static_cast<int>(random() % torus.present_dims()), random() % 2 != 0);
    if (torus.cabled(node, d)) network.fail_link(node, d);
  }
}

int usage() {
  std::cerr << "usage: angara-transition-bench [--machine DIMS] [--algorithm NAME] [--trials N] [--before N] "
               "[--seed N]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string machine = "4x4x4", algorithm = "bfs";
  int trials = 100, before_failures = 1;
  unsigned seed = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return usage();
    const std::string value = argv[++i];
    if (arg == "--machine") machine = value;
    else if (arg == "--algorithm") algorithm = value;
    else if (arg == "--trials") trials = std::atoi(value.c_str());
    else if (arg == "--before") before_failures = std::atoi(value.c_str());
    else if (arg == "--seed") seed = static_cast<unsigned>(std::atoi(value.c_str()));
    else return usage();
  }
  const auto generator = make_generator(algorithm);
  if (!generator) return usage();
  std::mt19937 random(seed);
  int direct = 0, staged = 0, quiesce = 0, unroutable = 0, quiesce_broken = 0;
  std::size_t steps = 0;
  for (int trial = 0; trial < trials; ++trial) {
    Network before(Torus::parse(machine));
    for (int f = 0; f < before_failures; ++f) fail_one(before, random, random() % 2 == 0);
    Network after = before;
    fail_one(after, random, trial % 2 == 0);
    GeneratorOptions options;
    RouteTable installed, next;
    try {
      installed = generator->generate(before, live_nodes(before), options);
      next = generator->generate(after, live_nodes(after), options);
    } catch (const std::exception&) {
      ++unroutable;  // no table before or after: nothing to switch
      continue;
    }
    const TransitionPlan plan = plan_transition(after, installed, next, FlowControl::bubble);
    switch (plan.kind) {
      case TransitionKind::direct: ++direct; break;
      case TransitionKind::staged:
        ++staged;
        steps += plan.steps.size();
        break;
      case TransitionKind::quiesce:
        ++quiesce;
        if (plan.reason.rfind("the installed route of", 0) == 0) ++quiesce_broken;
        break;
    }
  }
  std::cout << machine << " " << algorithm << ", " << before_failures << " failure(s) before, one more under the job, "
            << trials << " trials (seed " << seed << "): " << direct << " direct, " << staged << " staged ("
            << steps << " intermediate tables), " << quiesce << " quiesce (" << quiesce_broken
            << " because a broken route's new route closes a cycle), " << unroutable << " unroutable\n";
  return 0;
}
