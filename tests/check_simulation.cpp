// The flow simulator (simulation/) against times computed by hand on small
// tori, and the simulator's traffic patterns.  SimGrid's engine runs once
// per process: every test runs in a child of its own (CK_FORK, forced).
#include <check.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "simulation/adaptive_flow.hpp"
#include "simulation/flow_simulator.hpp"
#include "simulation/platform_export.hpp"
#include "simulation/simulate.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using namespace angara::simulation;
using angara_test::all_nodes;

namespace {

// 1 GB/s links, no latency: a flow of 1 MB alone on its channels takes 1 ms.
LinkModel plain_model() {
  LinkModel model;
  model.bandwidth = 1e9;
  model.node_latency = 0;
  model.hop_latency = 0;
  return model;
}

bool near(double value, double expected, double tolerance = 1e-6) {
  return std::fabs(value - expected) <= tolerance * std::max(1.0, std::fabs(expected));
}

using Flows = std::vector<std::pair<std::size_t, std::size_t>>;

}  // namespace

// A ring of 4 under DOR: +X carries (i -> i+1), (i -> i+2) and (i-1 -> i+1),
// 3 flows; -X only (i -> i-1).  Every flow at once: 3 x 1 MB / 1 GB/s.
START_TEST(test_alltoall_on_a_ring_is_its_max_load) {
  const Torus ring = Torus::parse("4");
  const Network network(ring);
  const RouteTable table = dimension_order_table(ring, all_nodes(ring));
  Flows all;
  for (std::size_t s = 0; s < 4; ++s)
    for (std::size_t d = 0; d < 4; ++d)
      if (s != d) all.emplace_back(s, d);
  const std::vector<PhaseResult> results =
      simulate_phases(network, plain_model(), {Phase{{JobFlows{&table, &all, 1e6}}}});
  ck_assert_msg(near(results[0].seconds, 3e-3), "all-to-all took %g s, expected 0.003", results[0].seconds);
  // The -X flows share nothing among themselves but meet +X flows nowhere:
  // they run at full rate, 1 ms.
  std::size_t full_rate = 0;
  for (std::size_t f = 0; f < all.size(); ++f) {
    const auto [s, d] = all[f];
    if ((s + 4 - d) % 4 == 1) {
      ck_assert(near(results[0].flow_seconds[0][f], 1e-3));
      ++full_rate;
    }
  }
  ck_assert_int_eq(full_rate, 4);
}
END_TEST

// Pairwise on the same ring: round 1 one flow a +X channel (1 ms), round 2
// two (i -> i+2 and i-1 -> i+1 share i -> i+1: 2 ms), round 3 the -X hops
// (1 ms): 4 ms in all, and each round its own max load.
START_TEST(test_pairwise_rounds_add_up) {
  const Torus ring = Torus::parse("4");
  const Network network(ring);
  const RouteTable table = dimension_order_table(ring, all_nodes(ring));
  SimulationRequest request;
  request.patterns = {"alltoall-pairwise"};
  request.bytes = 1e6;
  request.model = plain_model();
  request.baseline = false;
  const SimulationReport report = run_simulation(network, table, request);
  ck_assert_int_eq(report.table.size(), 1);
  const PatternResult& r = report.table[0];
  ck_assert_int_eq(r.phases, 3);
  ck_assert_int_eq(r.flows, 12);
  ck_assert_msg(near(r.seconds, 4e-3), "pairwise took %g s, expected 0.004", r.seconds);
  ck_assert(near(r.fluid_seconds, 4e-3));
  ck_assert(r.validated);
  ck_assert_int_eq(r.max_load, 2);
  ck_assert(near(r.max_bandwidth, 1e9));
  ck_assert(near(r.min_bandwidth, 0.5e9));
}
END_TEST

// A permutation whose flows share no channel gets the full link bandwidth,
// and the latency is the node latency plus the hop latency past the first.
START_TEST(test_disjoint_flows_get_full_bandwidth_and_latency) {
  const Torus torus = Torus::parse("4x4");
  const Network network(torus);
  const RouteTable table = dimension_order_table(torus, all_nodes(torus));
  Flows shift;  // every node to its +X neighbour: one channel each
  for (std::size_t r = 0; r < table.size(); ++r) {
    Coord c = torus.coord(table.nodes()[r]);
    c[0] = (c[0] + 1) % 4;
    shift.emplace_back(r, table.index_of(torus.id(c)));
  }
  LinkModel model = plain_model();
  model.node_latency = 850e-9;
  model.hop_latency = 100e-9;
  Flows far;  // 0,0 -> 2,2: four hops
  far.emplace_back(table.index_of(torus.id({0, 0, 0, 0})), table.index_of(torus.id({2, 2, 0, 0})));
  const std::vector<PhaseResult> results = simulate_phases(
      network, model, {Phase{{JobFlows{&table, &shift, 1e6}}}, Phase{{JobFlows{&table, &far, 1e6}}}});
  for (double seconds : results[0].flow_seconds[0])
    ck_assert_msg(near(seconds, 1e-3 + 850e-9, 1e-9), "a lone flow took %.9f s", seconds);
  ck_assert_msg(near(results[1].seconds, 1e-3 + 850e-9 + 3 * 100e-9, 1e-9), "four hops took %.9f s",
                results[1].seconds);
}
END_TEST

// Two jobs on alternate nodes of a ring of 4, each alone on no shared
// channel, meet on (1,+X) and (3,+X) when they run together: each pair of
// flows shares a channel, so both take 2 ms instead of 1.
START_TEST(test_job_mix_shares_channels) {
  const Torus ring = Torus::parse("4");
  const Network network(ring);
  const RouteTable even = dimension_order_table(ring, {0, 2});
  const RouteTable odd = dimension_order_table(ring, {1, 3});
  const Flows both_ways{{0, 1}, {1, 0}};
  const std::vector<PhaseResult> results = simulate_phases(
      network, plain_model(),
      {Phase{{JobFlows{&even, &both_ways, 1e6}}},
       Phase{{JobFlows{&even, &both_ways, 1e6}, JobFlows{&odd, &both_ways, 1e6}}}});
  ck_assert(near(results[0].seconds, 1e-3));
  ck_assert(near(results[1].seconds, 2e-3));
  for (const auto& job : results[1].flow_seconds)
    for (double seconds : job) ck_assert(near(seconds, 2e-3));
}
END_TEST

// The same through the report: the job {0,2} alone takes 1 ms, beside the
// job {1,3} (a mix) 2 ms, its busiest channel carrying one flow of each.
START_TEST(test_report_of_a_mix) {
  const Torus ring = Torus::parse("4");
  const Network network(ring);
  const RouteTable even = dimension_order_table(ring, {0, 2});
  const RouteTable odd = dimension_order_table(ring, {1, 3});
  SimulationRequest request;
  request.patterns = {"alltoall"};
  request.bytes = 1e6;
  request.model = plain_model();
  request.beside = {&odd};
  const SimulationReport report = run_simulation(network, even, request);
  ck_assert_msg(near(report.table[0].seconds, 2e-3), "the mix took %g s", report.table[0].seconds);
  ck_assert_int_eq(report.table[0].max_load, 2);
  ck_assert(report.table[0].validated);
  ck_assert(near(report.baseline[0].seconds, 2e-3));
  // Jobs of a mix on one node are refused before anything runs.
  const RouteTable overlapping = dimension_order_table(ring, {2, 3});
  request.beside = {&overlapping};
  try {
    run_simulation(network, even, request);
    ck_abort_msg("a mix sharing a node was simulated");
  } catch (const std::invalid_argument& e) {
    ck_assert_str_eq(e.what(), "the jobs of a mix share node 2");
  }
}
END_TEST

START_TEST(test_bad_routes_are_refused_before_simulating) {
  const Torus torus = Torus::parse("4x4");
  Network network(torus);
  RouteTable table = dimension_order_table(torus, all_nodes(torus));
  const Flows one{{0, 2}};  // 0,0 -> 2,0: +X +X through 1,0
  network.fail_node(torus.id({1, 0, 0, 0}));
  try {
    simulate_phases(network, plain_model(), {Phase{{JobFlows{&table, &one, 1e6}}}});
    ck_abort_msg("a route through a failed router was simulated");
  } catch (const std::invalid_argument& e) {
    ck_assert_msg(std::string(e.what()).find("not live") != std::string::npos, "%s", e.what());
  }
}
END_TEST

START_TEST(test_missing_route_is_refused) {
  const Torus torus = Torus::parse("4x4");
  const Network network(torus);
  RouteTable table(all_nodes(torus));  // no routes at all
  const Flows one{{0, 2}};
  try {
    simulate_phases(network, plain_model(), {Phase{{JobFlows{&table, &one, 1e6}}}});
    ck_abort_msg("a missing route was simulated");
  } catch (const std::invalid_argument& e) {
    ck_assert_str_eq(e.what(), "the table has no route 0,0 -> 2,0");
  }
}
END_TEST

// The report: DOR as the baseline, and the bisection's eBB as the mean flow
// bandwidth; the 8x8 all-to-all is 80 flows on its busiest channel.
START_TEST(test_report_against_dor) {
  const Torus torus = Torus::parse("8x8");
  const Network network(torus);
  RouteTable table = dimension_order_table(torus, all_nodes(torus));
  table.algorithm = "same-as-dor";
  SimulationRequest request;
  request.patterns = {"alltoall", "bisection"};
  request.bytes = 1e6;
  request.model = plain_model();
  request.pattern_options.samples = 5;
  const SimulationReport report = run_simulation(network, table, request);
  ck_assert_int_eq(report.table.size(), 2);
  ck_assert_int_eq(report.baseline.size(), 2);
  ck_assert_str_eq(report.baseline[0].table.c_str(), "dor");
  ck_assert_msg(near(report.table[0].seconds, 0.080), "8x8 all-to-all took %g s", report.table[0].seconds);
  ck_assert(report.table[0].validated);
  ck_assert_int_eq(report.table[0].max_load, 80);
  ck_assert(near(report.table[0].seconds, report.baseline[0].seconds));
  ck_assert(near(effective_bisection_bandwidth(report.table[1]), effective_bisection_bandwidth(report.baseline[1])));
  ck_assert(report.table[1].mean_bandwidth > 0 && report.table[1].mean_bandwidth <= 1e9 * (1 + 1e-9));
  // The physical limit: 64 x 64 pairs, 1,024 X hops each way among 64
  // sources of a column (sum of ring distances 0+1+2+3+4+3+2+1 = 16 per
  // source and row: 64 x 8 x 16 = 8,192 hop-MB) over 128 X channels at 1 GB/s
  // = 64 ms.
  ck_assert_msg(near(report.table[0].limit_seconds, 0.064), "limit %g s", report.table[0].limit_seconds);
}
END_TEST

// The adaptive channel's estimate (simulation/adaptive_flow.hpp).  On the
// ring of 4 the flows of distance 2 split over both ways: every channel
// carries its neighbour flow and two halves, 2 flows, 2 ms where the DOR
// table takes 3.  On the whole 8x8 the even split loads every channel of a
// dimension alike (the torus looks the same from every node and both ways),
// so the all-to-all reaches the physical limit, 64 flows = 64 ms, where
// DOR's busiest channel has 80.
START_TEST(test_adaptive_estimate) {
  for (const char* shape : {"4", "8x8"}) {
    const Torus torus = Torus::parse(shape);
    const Network network(torus);
    const RouteTable table = dimension_order_table(torus, all_nodes(torus));
    SimulationRequest request;
    request.patterns = {"alltoall"};
    request.bytes = 1e6;
    request.model = plain_model();
    request.baseline = false;
    request.adaptive = true;
    const SimulationReport report = run_simulation(network, table, request);
    ck_assert_int_eq(report.adaptive.size(), 1);
    const bool ring = std::string(shape) == "4";
    const AdaptiveResult& a = report.adaptive[0];
    ck_assert_msg(near(a.max_load, ring ? 2 : 64), "%s: busiest channel %g flows", shape, a.max_load);
    ck_assert_msg(near(a.seconds, ring ? 2e-3 : 0.064), "%s: %g s", shape, a.seconds);
    ck_assert(near(report.table[0].seconds, ring ? 3e-3 : 0.080));
    ck_assert(near(a.seconds, report.table[0].limit_seconds));
  }
}
END_TEST

// Where no minimal hop is left the flow takes the escape: on a ring of 5
// with the cable 0 -- 1 failed, 0 -> 1 has no minimal hop and goes the long
// way round on its table route, all of it on each of those 4 channels.
START_TEST(test_adaptive_falls_back_to_the_escape) {
  const Torus ring = Torus::parse("5");
  Network network(ring);
  network.fail_link(0, Direction::make(0, false));
  const RouteTable table = angara_test::route_all("bfs", network);
  const std::string route = angara_test::route_text(network, table, "0", "1");
  ck_assert_std_str_eq(route, "-X -X -X -X");
  const AdaptiveLoads loads = adaptive_channel_loads(network, table, {{0, 1}});
  for (NodeId node = 0; node < 5; ++node) {
    const double minus = loads.load[Torus::channel(node, Direction::make(0, true))];
    ck_assert_msg(near(minus, node == 1 ? 0.0 : 1.0), "channel %u -X: %g", node, minus);
    ck_assert(near(loads.load[Torus::channel(node, Direction::make(0, false))], 0.0));
  }
  ck_assert_uint_eq(loads.max_hops, 4);
}
END_TEST

START_TEST(test_pattern_shapes) {
  const Torus torus = Torus::parse("4x4x2");
  const std::vector<NodeId> nodes = all_nodes(torus);
  PatternOptions options;
  options.samples = 3;
  // Bisection: every rank in exactly one pair, both directions.
  for (const TrafficPattern& phase : pattern_phases("bisection", torus, nodes, options)) {
    ck_assert_int_eq(phase.flows.size(), nodes.size());
    std::multiset<std::size_t> sources, targets;
    for (const auto& [s, d] : phase.flows) sources.insert(s), targets.insert(d);
    for (std::size_t r = 0; r < nodes.size(); ++r) {
      ck_assert_int_eq(sources.count(r), 1);
      ck_assert_int_eq(targets.count(r), 1);
    }
  }
  ck_assert_int_eq(pattern_phases("alltoall-pairwise", torus, nodes, options).size(), nodes.size() - 1);
  // Hot spot: one flow a rank, never to itself, and one rank receives far
  // more than its share (32 ranks, 3 phases: about 8 flows a phase to it
  // against 0.75 to any other).
  for (const TrafficPattern& phase : pattern_phases("hotspot", torus, nodes, options)) {
    ck_assert_int_eq(phase.flows.size(), nodes.size());
    std::vector<std::size_t> received(nodes.size(), 0);
    for (std::size_t k = 0; k < phase.flows.size(); ++k) {
      ck_assert_int_eq(phase.flows[k].first, k);
      ck_assert_int_ne(phase.flows[k].second, k);
      ++received[phase.flows[k].second];
    }
    ck_assert_int_ge(*std::max_element(received.begin(), received.end()), 4);
  }
  // 32 ranks: the bit complement of 5 (00101) is 26 (11010).
  bool found = false;
  const std::vector<TrafficPattern> complement = pattern_phases("bit-complement", torus, nodes, options);
  for (const auto& [s, d] : complement[0].flows)
    if (s == 5) found = d == 26;
  ck_assert(found);
  // The halo of a whole 4x4x2 runs on its own grid: 6 neighbours a rank
  // (two in Z, the same node both ways).
  const std::array<int, kMaxDims> grid = halo_grid(torus, nodes);
  ck_assert_int_eq(grid[0], 4);
  ck_assert_int_eq(grid[1], 4);
  ck_assert_int_eq(grid[2], 2);
  ck_assert_int_eq(pattern_phases("halo", torus, nodes, options)[0].flows.size(), 6 * nodes.size());
  // 12 scattered nodes: MPI_Dims_create(12, 3) = 3 x 2 x 2.
  std::vector<NodeId> scattered;
  for (NodeId n = 0; n < 24; n += 2) scattered.push_back(n);
  const std::array<int, kMaxDims> factors = halo_grid(torus, scattered);
  ck_assert_int_eq(factors[0], 3);
  ck_assert_int_eq(factors[1], 2);
  ck_assert_int_eq(factors[2], 2);
  // Same seed, same pattern; an unknown name is refused with the list.
  ck_assert(pattern_phases("permutation", torus, nodes, options)[2].flows ==
            pattern_phases("permutation", torus, nodes, options)[2].flows);
  try {
    pattern_phases("shuffle", torus, nodes, options);
    ck_abort_msg("an unknown pattern was accepted");
  } catch (const std::invalid_argument& e) {
    ck_assert(std::string(e.what()).rfind("unknown pattern 'shuffle' (expected one of alltoall, ", 0) == 0);
  }
}
END_TEST

// The SMPI platform holds the table's routes link by link.
START_TEST(test_platform_routes) {
  const Config config = desmos_default_config();
  const Network network = config.network();
  const RouteTable table = dimension_order_table(config.torus, {0, 1, 2, 3});
  const std::string xml = platform_xml(config, network, table, plain_model());
  ck_assert(xml.find("<host id=\"desmos00\"") != std::string::npos);
  ck_assert(xml.find("<host id=\"desmos04\"") == std::string::npos);
  std::size_t routes = 0;
  for (std::size_t at = xml.find("<route "); at != std::string::npos; at = xml.find("<route ", at + 1)) ++routes;
  ck_assert_int_eq(routes, 12);
  // desmos00 -> desmos02 is +X +X: through the NIC, 00+X and 01+X.
  ck_assert_msg(xml.find("<route src=\"desmos00\" dst=\"desmos02\" symmetrical=\"NO\"><link_ctn id=\"desmos00-nic\"/>"
                         "<link_ctn id=\"desmos00+X\"/><link_ctn id=\"desmos01+X\"/></route>") != std::string::npos,
                "%s", xml.c_str());
  const std::string hostfile = hostfile_text(config, table);
  ck_assert_str_eq(hostfile.c_str(), "desmos00\ndesmos01\ndesmos02\ndesmos03\n");
}
END_TEST

int main() {
  Suite* s = suite_create("simulation");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_alltoall_on_a_ring_is_its_max_load);
  tcase_add_test(tc, test_pairwise_rounds_add_up);
  tcase_add_test(tc, test_disjoint_flows_get_full_bandwidth_and_latency);
  tcase_add_test(tc, test_job_mix_shares_channels);
  tcase_add_test(tc, test_report_of_a_mix);
  tcase_add_test(tc, test_bad_routes_are_refused_before_simulating);
  tcase_add_test(tc, test_missing_route_is_refused);
  tcase_add_test(tc, test_report_against_dor);
  tcase_add_test(tc, test_adaptive_estimate);
  tcase_add_test(tc, test_adaptive_falls_back_to_the_escape);
  tcase_add_test(tc, test_pattern_shapes);
  tcase_add_test(tc, test_platform_routes);
  suite_add_tcase(s, tc);
  SRunner* runner = srunner_create(s);
  srunner_set_fork_status(runner, CK_FORK);  // one SimGrid engine a process
  srunner_run_all(runner, CK_NORMAL);
  const int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? 0 : 1;
}
