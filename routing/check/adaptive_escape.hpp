// Duato's condition for the adaptive virtual channel with the installed
// table as its escape (doc/model.md, "The adaptive channel"; ANSU paper,
// Sec. 2; J. Duato, IEEE TPDS 1993 and 1995, as restated by Lysne et al.,
// Sec. 7, Definitions 14-15 and Theorem 4; HiRy, Sec. V, evaluates it as
// "Duato's protocol").
//
// The escape routing must be connected (the verifier's other rules: every
// pair routed over live channels) and its *extended* channel dependency
// graph free of forbidden cycles under the deadlock rule: the direct
// dependencies of the escape routes plus the indirect ones that a packet
// creates when it leaves an escape channel for the adaptive channel, takes
// one or more minimal hops and drops back into the escape channel at the
// router it has reached, on that router's own route to the destination.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "angara/route.hpp"
#include "angara/rules.hpp"

namespace angara {

// The table's own channel dependency graph: per virtual channel, per channel
// slot, the directions taken next (bit r: the channel of direction rank r
// leaving the slot's head node), as ChannelDependencyGraph keeps them.
using SuccessorMasks = std::vector<std::vector<std::uint8_t>>;

struct EscapeCheck {
  // Strongly connected components of the extended graph that hold a
  // forbidden dependency (bubble: a turn or an indirect dependency that
  // leaves its ring; none: any dependency).  0: the table is a safe escape.
  std::size_t cyclic_components = 0;
  std::size_t indirect_dependencies = 0;  // distinct ones, between escape channels
  std::string example;                    // the first forbidden dependency, with the routes that make it
};

// `direct` is the table's channel dependency graph (the verifier's).
// Expects a table that passed every other rule of the verifier: routes are
// walked without liveness checks.
EscapeCheck check_adaptive_escape(const Network& network, const RouteTable& table, const SuccessorMasks& direct,
                                  FlowControl flow);

}  // namespace angara
