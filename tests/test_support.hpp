// Shared glue for the Check test programs.
#pragma once

#include <check.h>

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "routing/generator.hpp"
#include "routing/check/verifier.hpp"

namespace angara_test {

// Runs one suite with Check's normal runner (CK_NORMAL prints the summary line
// "100%: Checks: N, Failures: 0, Errors: 0") and returns the exit status.
inline int run_suite(Suite* suite) {
  SRunner* runner = srunner_create(suite);
  srunner_run_all(runner, CK_NORMAL);
  const int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

inline std::string data_path(const std::string& name) { return std::string(TEST_DATA_DIR) + "/" + name; }

// ---------------------------------------------------------------------------
// Machines and allocations

// The node at "x,y,..." (coordinates as the torus prints them).
inline angara::NodeId node_at(const angara::Torus& torus, const char* coord) {
  return torus.id(torus.parse_coord(coord));
}

// Every node of the torus, failed or not.
inline std::vector<angara::NodeId> all_nodes(const angara::Torus& torus) {
  std::vector<angara::NodeId> nodes(torus.node_count());
  for (angara::NodeId node = 0; node < torus.node_count(); ++node) nodes[node] = node;
  return nodes;
}

// Every node whose router is alive: the whole machine minus its failures.
inline std::vector<angara::NodeId> live_nodes(const angara::Network& network) {
  std::vector<angara::NodeId> nodes;
  for (angara::NodeId node = 0; node < network.torus().node_count(); ++node)
    if (network.node_alive(node)) nodes.push_back(node);
  return nodes;
}

// The nodes of the block [0, extent) of the machine, in id order.
inline std::vector<angara::NodeId> block(const angara::Torus& torus, const angara::Coord& extent) {
  std::vector<angara::NodeId> nodes;
  for (angara::NodeId node = 0; node < torus.node_count(); ++node) {
    const angara::Coord c = torus.coord(node);
    bool inside = true;
    for (int dim = 0; dim < angara::kMaxDims; ++dim) inside = inside && c[dim] < extent[dim];
    if (inside) nodes.push_back(node);
  }
  return nodes;
}

// ---------------------------------------------------------------------------
// Tables

// Plain dimension-order routes (angara::dimension_order_table): in each
// dimension the shorter way round (+ on a tie), positive hops first, then
// negative ones.  On 3x3, 0,0 -> 2,1 is "+Y -X".
inline angara::RouteTable dor_table(const angara::Torus& torus, const std::vector<angara::NodeId>& allocation) {
  return angara::dimension_order_table(torus, allocation);
}

// The route between two allocated nodes given by coordinates (a copy).
inline angara::Route route_between(const angara::RouteTable& table, const angara::Torus& torus, const char* from,
                                   const char* to) {
  return table.route(table.index_of(node_at(torus, from)), table.index_of(node_at(torus, to)));
}

// Moves the route between two allocated nodes to virtual channel `layer`.
inline void set_layer(angara::RouteTable& table, const angara::Torus& torus, const char* from, const char* to,
                      int layer) {
  angara::Route route = route_between(table, torus, from, to);
  route.layer = static_cast<std::uint8_t>(layer);
  table.set_route(table.index_of(node_at(torus, from)), table.index_of(node_at(torus, to)), std::move(route));
}

// Writes a route by hand: hops as text ("+X -Y"), on virtual channel `layer`.
inline void set_route(angara::RouteTable& table, const angara::Torus& torus, const char* from, const char* to,
                      const char* hops, int layer = 0) {
  table.set_route(table.index_of(node_at(torus, from)), table.index_of(node_at(torus, to)),
                  angara::Route{angara::parse_hops(hops), static_cast<std::uint8_t>(layer)});
}

// A route's hops as text ("+X -Y"), for exact comparison.
inline std::string route_text(const angara::Network& network, const angara::RouteTable& table, const char* from,
                              const char* to) {
  const angara::Torus& torus = network.torus();
  return table.route(table.index_of(node_at(torus, from)), table.index_of(node_at(torus, to))).to_string();
}

// One expected route: between the nodes at `from` and `to`, exactly `hops`.
struct ExpectedRoute {
  const char* from;
  const char* to;
  const char* hops;
};

// Asserts every expected route of the table, naming the pair on failure.
inline void expect_routes(const angara::Network& network, const angara::RouteTable& table,
                          std::initializer_list<ExpectedRoute> expected) {
  for (const ExpectedRoute& row : expected) {
    const std::string actual = route_text(network, table, row.from, row.to);
    ck_assert_msg(actual == row.hops, "route %s -> %s is '%s', expected '%s'", row.from, row.to, actual.c_str(),
                  row.hops);
  }
}

// Same allocation and the same route for every ordered pair.
inline bool same_routes(const angara::RouteTable& a, const angara::RouteTable& b) {
  if (a.nodes() != b.nodes()) return false;
  for (std::size_t s = 0; s < a.size(); ++s)
    for (std::size_t d = 0; d < a.size(); ++d)
      if (!(a.route(s, d) == b.route(s, d))) return false;
  return true;
}

// ---------------------------------------------------------------------------
// Generators

// The registered generator of that name (the test fails if there is none).
inline std::unique_ptr<angara::Generator> generator_named(std::string_view name) {
  std::unique_ptr<angara::Generator> generator = angara::make_generator(name);
  ck_assert_msg(generator != nullptr, "no generator named '%s'", std::string(name).c_str());
  return generator;
}

// The generator's table over `nodes`, labelled with the generator's name.
inline angara::RouteTable generate(std::string_view name, const angara::Network& network,
                                   const std::vector<angara::NodeId>& nodes,
                                   const angara::GeneratorOptions& options = {}) {
  angara::RouteTable table = generator_named(name)->generate(network, nodes, options);
  // A named string: Check's macro keeps the pointer past the statement, so
  // the .c_str() of a temporary would dangle (ASan: stack-use-after-scope).
  const std::string expected(name);
  ck_assert_str_eq(table.algorithm.c_str(), expected.c_str());
  return table;
}

// The generator's table over every live node of the machine.
inline angara::RouteTable route_all(std::string_view name, const angara::Network& network,
                                    const angara::GeneratorOptions& options = {}) {
  return generate(name, network, live_nodes(network), options);
}

// The independent verifier's report on a table that must pass it, with a
// route for every ordered pair.
inline angara::VerifyReport verified(const angara::Network& network, const angara::RouteTable& table) {
  const angara::VerifyReport report = angara::verify(network, table);
  ck_assert_msg(report.ok(), "%s", report.ok() ? "" : report.violations.front().message.c_str());
  ck_assert_uint_eq(report.routes, table.size() * (table.size() - 1));
  return report;
}

// What `action` throws as `Error` (RoutingError unless told), or "no error"
// when it returns normally; other exceptions propagate and fail the test.
template <class Error = angara::RoutingError, class Action>
std::string error_message(Action&& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace angara_test

// ck_assert_str_eq with std::string arguments (copied once, so temporaries
// outlive the comparison and the failure message).
#define ck_assert_std_str_eq(a, b)            \
  do {                                        \
    const std::string ck_std_left_ = (a);     \
    const std::string ck_std_right_ = (b);    \
    ck_assert_str_eq(ck_std_left_.c_str(), ck_std_right_.c_str()); \
  } while (0)
