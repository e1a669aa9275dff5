// The route dump format (angara/route_dump.hpp): exact output, round trip,
// and every reader error with its exact text.
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "angara/route.hpp"
#include "angara/route_dump.hpp"
#include "tests/test_support.hpp"

using namespace angara;

namespace {

NodeId at(const Torus& torus, const char* coord) { return torus.id(torus.parse_coord(coord)); }

// Two nodes of a 4x2 torus, one route on each virtual channel.
RouteTable two_node_table(const Torus& torus) {
  RouteTable table({at(torus, "3,1"), at(torus, "0,0")});
  table.algorithm = "sssp";
  table.set_route(0, 1, Route{parse_hops("+Y -X")});
  table.set_route(1, 0, Route{parse_hops("+X -Y"), 1});
  return table;
}

std::string dump(const Torus& torus, const RouteTable& table) {
  std::ostringstream out;
  write_route_dump(out, torus, table);
  return out.str();
}

RouteTable read(const std::string& text, const Torus& torus) {
  std::istringstream in(text);
  return read_route_dump(in, torus, "dump.txt");
}

// The reader's error for `text` on a 4x2 torus, or "" when it reads fine.
std::string read_error(const std::string& text) {
  try {
    read(text, Torus::parse("4x2"));
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

const std::string kHeader = "# angara-routes v1 dims=4x2 algorithm=sssp\n";

}  // namespace

START_TEST(test_write_exact_text) {
  const Torus torus = Torus::parse("4x2");
  // 0,0 is node 0 and 3,1 node 7: 0,0's line comes first.
  ck_assert_std_str_eq(dump(torus, two_node_table(torus)),
                       "# angara-routes v1 dims=4x2 algorithm=sssp rules=angara flow_control=bubble virtual_channels=2\n"
                       "0,0 3,1 0 +Y -X\n"
                       "3,1 0,0 1 +X -Y\n");
  // Four-dimensional coordinates, and a missing route left out.
  const Torus desmos = Torus::parse("4x2x2x2");
  RouteTable table({0, 1});
  table.set_route(0, 1, Route{parse_hops("+X")});
  ck_assert_std_str_eq(dump(desmos, table),
                       "# angara-routes v1 dims=4x2x2x2 algorithm=unknown rules=angara flow_control=bubble "
                       "virtual_channels=1\n"
                       "0,0,0,0 1,0,0,0 0 +X\n");
}
END_TEST

// Sources ascending, then destinations ascending, on a full 3x3 table; the
// text read back gives the same nodes, routes, layers and algorithm.
START_TEST(test_round_trip) {
  const Torus torus = Torus::parse("3x3");
  std::vector<NodeId> nodes;
  for (NodeId n = 0; n < torus.node_count(); ++n) nodes.push_back(n);
  RouteTable table(nodes);
  table.algorithm = "hand";
  for (std::size_t s = 0; s < table.size(); ++s)
    for (std::size_t d = 0; d < table.size(); ++d) {
      if (s == d) continue;
      // Not meant to be routable: just distinct content per pair.
      const Direction hop = Direction::make(static_cast<int>((s + d) % 2), (s * d) % 3 == 0);
      table.set_route(s, d, Route{std::vector<Direction>(1 + (s + 2 * d) % 3, hop),
                                  static_cast<std::uint8_t>((s + d) % 4)});
    }
  const std::string text = dump(torus, table);
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);
  ck_assert_std_str_eq(line,
                       "# angara-routes v1 dims=3x3 algorithm=hand rules=angara flow_control=bubble virtual_channels=4");
  std::getline(lines, line);
  ck_assert_std_str_eq(line, "0,0 1,0 1 -Y -Y -Y");  // s=0, d=1: Y, 0*1 % 3 == 0 so -, 3 hops, layer 1
  std::getline(lines, line);
  ck_assert_std_str_eq(line, "0,0 2,0 2 -X -X");  // s=0, d=2: X, -, 1 + 4 % 3 = 2 hops, layer 2
  // ... and the last line is s=8 (2,2), d=7 (1,2): Y, 56 % 3 != 0 so +, 1 + 22 % 3 = 2 hops, layer 3.
  ck_assert(text.size() > 20);
  ck_assert_std_str_eq(text.substr(text.rfind('\n', text.size() - 2) + 1), "2,2 1,2 3 +Y +Y\n");

  const RouteTable back = read(text, torus);
  ck_assert_std_str_eq(back.algorithm, "hand");
  ck_assert(back.nodes() == table.nodes());
  for (std::size_t s = 0; s < table.size(); ++s)
    for (std::size_t d = 0; d < table.size(); ++d)
      if (s != d) ck_assert(back.route(s, d) == table.route(s, d));
  ck_assert_std_str_eq(dump(torus, back), text);
}
END_TEST

// Comments and blank lines may follow the header; the table's nodes are the
// sources and destinations named, so a partial dump gives a partial table.
START_TEST(test_comments_and_node_set) {
  const Torus torus = Torus::parse("4x2");
  const RouteTable table = read(kHeader +
                                    "\n"
                                    "# a comment\n"
                                    "   \n"
                                    "0,0 1,0 0 +X\r\n"
                                    "  # indented comment\n"
                                    "2,1\t1,0  0 -X -Y\n",
                                torus);
  ck_assert_uint_eq(table.size(), 3);
  ck_assert_uint_eq(table.nodes()[0], at(torus, "0,0"));
  ck_assert_uint_eq(table.nodes()[1], at(torus, "1,0"));
  ck_assert_uint_eq(table.nodes()[2], at(torus, "2,1"));
  ck_assert_std_str_eq(table.route(0, 1).to_string(), "+X");
  ck_assert_std_str_eq(table.route(2, 1).to_string(), "-X -Y");
  ck_assert(!table.has_route(1, 0));
  ck_assert(!table.has_route(0, 2));
}
END_TEST

START_TEST(test_header_errors) {
  ck_assert_std_str_eq(read_error(""),
                       "dump.txt:1: expected the header '# angara-routes v1 dims=4x2 algorithm=NAME', "
                       "got an empty file");
  ck_assert_std_str_eq(read_error("0,0 1,0 0 +X\n"),
                       "dump.txt:1: expected the header '# angara-routes v1 dims=4x2 algorithm=NAME', "
                       "got '0,0 1,0 0 +X'");
  ck_assert_std_str_eq(read_error("# angara-routes v1 dims=4x2\n"),
                       "dump.txt:1: expected the header '# angara-routes v1 dims=4x2 algorithm=NAME', "
                       "got '# angara-routes v1 dims=4x2'");
  ck_assert_std_str_eq(read_error("# angara-routes v2 dims=4x2 algorithm=sssp\n"),
                       "dump.txt:1: expected format version v1, got 'v2'");
  ck_assert_std_str_eq(read_error("# angara-routes v1 dims=4x4 algorithm=sssp\n"),
                       "dump.txt:1: expected dims=4x2 (the configured torus), got dims=4x4");
  ck_assert_std_str_eq(read_error("# angara-routes v1 dims=4x2 algorithm=\n"),
                       "dump.txt:1: expected an algorithm name after 'algorithm='");
  // A header alone is a valid, empty dump.
  ck_assert_std_str_eq(read_error(kHeader), "");
}
END_TEST

// The header's rules= and flow_control= words travel with the table; other
// key=value words are ignored; a known word with a bad value is an error.
START_TEST(test_rules_words) {
  const Torus torus = Torus::parse("4x2");
  RouteTable table = two_node_table(torus);
  table.rules = RuleSet::general;
  table.flow_control = FlowControl::none;
  const std::string text = dump(torus, table);
  ck_assert_std_str_eq(text.substr(0, text.find('\n')),
                       "# angara-routes v1 dims=4x2 algorithm=sssp rules=general flow_control=none virtual_channels=2");
  const RouteTable back = read(text, torus);
  ck_assert(back.rules == RuleSet::general);
  ck_assert(back.flow_control == FlowControl::none);
  // Without the words: angara and bubble; unknown words are skipped.
  const RouteTable plain = read("# angara-routes v1 dims=4x2 algorithm=sssp future=YZK\n0,0 1,0 0 +X\n", torus);
  ck_assert(plain.rules == RuleSet::angara);
  ck_assert(plain.flow_control == FlowControl::bubble);
  ck_assert_std_str_eq(plain.route(0, 1).to_string(), "+X");
  ck_assert_std_str_eq(read_error("# angara-routes v1 dims=4x2 algorithm=sssp rules=nue\n"),
                       "dump.txt:1: expected rules=angara or rules=general, got rules=nue");
  ck_assert_std_str_eq(read_error("# angara-routes v1 dims=4x2 algorithm=sssp flow_control=\n"),
                       "dump.txt:1: expected flow_control=bubble or flow_control=none, got flow_control=");
}
END_TEST

// The cabling in the header: written when some dimension is single-cabled,
// required to match the configured torus, and routes through a port without
// a cable rejected with the line.
START_TEST(test_single_cable) {
  const Torus torus = Torus::parse("4x2").with_single_cable(dimension_bit(1));
  // 3,1 has only -Y, 0,0 only +Y: the two routes of two_node_table fit.
  const std::string text = dump(torus, two_node_table(torus));
  ck_assert_std_str_eq(text,
                       "# angara-routes v1 dims=4x2 algorithm=sssp rules=angara flow_control=bubble virtual_channels=2 "
                       "single_cable=Y\n"
                       "0,0 3,1 0 +Y -X\n"
                       "3,1 0,0 1 +X -Y\n");
  ck_assert(angara_test::same_routes(read(text, torus), two_node_table(torus)));
  // Unknown words are ignored, in any order around single_cable.
  ck_assert_uint_eq(read("# angara-routes v1 dims=4x2 algorithm=sssp x=1 single_cable=Y extra\n", torus).size(), 0u);
  const auto error = [&](const std::string& dump_text, const Torus& expected) {
    try {
      read(dump_text, expected);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  ck_assert_std_str_eq(error(text, Torus::parse("4x2")),
                       "dump.txt:1: expected no single_cable word (the configured cabling), got single_cable=Y");
  ck_assert_std_str_eq(error(kHeader, torus),
                       "dump.txt:1: expected single_cable=Y (the configured cabling), got no single_cable word");
  ck_assert_std_str_eq(error("# angara-routes v1 dims=4x2 algorithm=sssp single_cable=YQ\n", torus),
                       "dump.txt:1: bad single_cable=YQ: 'Q' is not a dimension (expected X, Y, Z or K)");
  ck_assert_std_str_eq(error("# angara-routes v1 dims=4x2 algorithm=sssp single_cable=Y\n0,0 3,1 0 -X -Y\n", torus),
                       "dump.txt:2: the route -X -Y from 0,0 leaves at hop 2 through a port without a cable: port -Y "
                       "of 3,0 has no cable (Y is single-cabled: only +Y at Y=0 and -Y at Y=1 are cabled)");
}
END_TEST

START_TEST(test_line_errors) {
  ck_assert_std_str_eq(read_error(kHeader + "# fine\n0,0 1,0 0\n"),
                       "dump.txt:3: expected 'SOURCE DESTINATION VIRTUAL_CHANNEL HOP...', got '0,0 1,0 0'");
  ck_assert_std_str_eq(read_error(kHeader + "4,0 1,0 0 +X\n"),
                       "dump.txt:2: expected a source coordinate like 0,0, got '4,0' "
                       "(coordinate X=4 is outside the 4x2 torus)");
  ck_assert_std_str_eq(read_error(kHeader + "0,0 1 0 +X\n"),
                       "dump.txt:2: expected a destination coordinate like 0,0, got '1' "
                       "(expected 2 comma-separated coordinates for a 4x2 torus, got '1')");
  ck_assert_std_str_eq(read_error(kHeader + "0,0 1,0 x +X\n"),
                       "dump.txt:2: expected a virtual channel number from 0 to 255, got 'x'");
  ck_assert_std_str_eq(read_error(kHeader + "0,0 1,0 256 +X\n"),
                       "dump.txt:2: expected a virtual channel number from 0 to 255, got '256'");
  // A long number must not overflow while it is read (UBSan; fuzz finding
  // tests/fuzz/regressions/route_dump/layer-overflow).
  ck_assert_std_str_eq(read_error(kHeader + "0,0 1,0 99999999999999 +X\n"),
                       "dump.txt:2: expected a virtual channel number from 0 to 255, got '99999999999999'");
  ck_assert_std_str_eq(read_error(kHeader + "0,0 1,0 0 +X +Q\n"),
                       "dump.txt:2: expected a hop like +X or -K, got '+Q'");
  ck_assert_std_str_eq(read_error(kHeader + "1,1 1,1 0 +X\n"),
                       "dump.txt:2: expected a destination other than the source, got 1,1 twice");
  ck_assert_std_str_eq(read_error(kHeader + "0,0 1,0 0 +X\n# again:\n0,0 1,0 1 -X -X -X\n"),
                       "dump.txt:4: expected one route per pair, but 0,0 -> 1,0 was already given on line 2");
  // The reverse pair is a different pair.
  ck_assert_std_str_eq(read_error(kHeader + "0,0 1,0 0 +X\n1,0 0,0 0 -X\n"), "");
}
END_TEST

int main() {
  Suite* s = suite_create("route_dump");
  TCase* tc = tcase_create("core");
  tcase_add_test(tc, test_write_exact_text);
  tcase_add_test(tc, test_round_trip);
  tcase_add_test(tc, test_comments_and_node_set);
  tcase_add_test(tc, test_header_errors);
  tcase_add_test(tc, test_rules_words);
  tcase_add_test(tc, test_line_errors);
  tcase_add_test(tc, test_single_cable);
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
