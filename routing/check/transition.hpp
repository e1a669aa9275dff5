// Safe live transitions: while a running job's routers switch from the
// installed table to a new one, one by one, the network carries routes of
// both.  Routes are source routes (doc/model.md, "Deadlock rule"), so every packet
// follows one table's route whole, and the switch is deadlock-free iff the
// union of the two tables' channel dependency graphs is, per virtual channel,
// under the verifier's rule.
//
// When the union is not, a sequence of intermediate tables may be: each one
// keeps the installed route of some pairs and takes the new route of the
// others, so that every consecutive union is deadlock-free.  The planner
// builds it greedily: starting from the installed routes' dependencies, a
// pair switches to its new route when that adds no forbidden cycle; the next
// step starts from the table so obtained (the switched pairs' old routes are
// gone from the network by then), until every pair has its new route, or no
// pair can switch any more (the job must be quiesced).
#pragma once
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "angara/rules.hpp"

namespace angara {

enum class TransitionKind {
  direct,   // installed and new routes together are deadlock-free
  staged,   // through intermediate tables, each union deadlock-free
  quiesce,  // no safe sequence found: the job's traffic must stop first
};
const char* transition_kind_name(TransitionKind kind);

struct TransitionPlan {
  TransitionKind kind = TransitionKind::direct;
  // The intermediate tables, in the order they must be installed (staged
  // only); each over the new table's nodes, routes taken from the installed
  // or the new table.  The new table itself is not in the list.
  std::vector<RouteTable> steps;
  // Why a quiesce is needed (an example of a pair that cannot switch).
  std::string reason;
};

// Dependencies that lie on forbidden cycles of the union of `a` and `b` (per
// virtual channel, under `flow`, as the verifier counts them).  Route
// segments on failed channels or routers are left out: they carry nothing.
// Routes are matched by node, so the tables may hold different nodes.
std::size_t union_turns_on_cycles(const Network& network, const RouteTable& a, const RouteTable& b,
                                  FlowControl flow);

// Plans the switch from `installed` to `next` (verified, over the live part of
// `network`).  Pairs of `installed` that `next` no longer holds leave with
// the first step; pairs whose installed route crosses a failed channel or
// router must take their new route in the first step.  At most `max_steps`
// intermediate tables.
TransitionPlan plan_transition(const Network& network, const RouteTable& installed, const RouteTable& next,
                               FlowControl flow, std::size_t max_steps = 8);

}  // namespace angara
