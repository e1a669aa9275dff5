// angara.yaml(5): the built-in default, the shipped conf/angara.yaml, node
// placement, failures and every kind of error with its exact position.
#include <string>

#include "angara/config.hpp"
#include "tests/test_support.hpp"

using namespace angara;

namespace {

const Direction kPlusX = Direction::make(0, false);
const Direction kMinusX = Direction::make(0, true);
const Direction kPlusY = Direction::make(1, false);
const Direction kMinusY = Direction::make(1, true);
const Direction kPlusZ = Direction::make(2, false);
const Direction kMinusZ = Direction::make(2, true);

const std::string kDesmosMachine =
    "machine:\n"
    "  torus: 4x2x2x2\n"
    "  nodes: desmos[00-31]\n";

// what() of the ConfigError that parsing `text` throws.
std::string parse_error(const std::string& text) {
  try {
    parse_config(text, "test.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

// what() of the ConfigError that loading the fixture throws, with the
// fixture's path replaced by its bare name.
std::string fixture_error(const std::string& fixture) {
  const std::string path = angara_test::data_path(fixture);
  try {
    load_config(path);
  } catch (const ConfigError& e) {
    std::string what = e.what();
    if (what.compare(0, path.size(), path) == 0) what.replace(0, path.size(), fixture);
    return what;
  }
  return "(no error)";
}

}  // namespace

START_TEST(test_desmos_default) {
  const Config config = desmos_default_config();
  ck_assert_std_str_eq(config.source, "<built-in Desmos default>");
  ck_assert_std_str_eq(config.torus.to_string(), "4x2x2x2");
  ck_assert_uint_eq(config.node_names.size(), 32u);
  ck_assert_std_str_eq(config.node_name(0), "desmos00");
  ck_assert_std_str_eq(config.node_name(5), "desmos05");
  // X varies fastest: desmos05 is x=1, y=1.
  ck_assert_std_str_eq(config.torus.format_coord(5), "1,1,0,0");
  ck_assert_int_eq(*config.node_by_name("desmos31"), 31);
  ck_assert(!config.node_by_name("desmos32"));
  // The index answers for the names as they were indexed; a name changed
  // afterwards is found where it now is, and the old one no longer.
  Config renamed = config;
  renamed.node_names[7] = "spare07";
  renamed.node_names[8] = "desmos07";
  ck_assert_int_eq(*renamed.node_by_name("spare07"), 7);
  ck_assert_int_eq(*renamed.node_by_name("desmos07"), 8);
  ck_assert(!renamed.node_by_name("desmos08"));
  ck_assert_int_eq(*config.node_by_name("desmos07"), 7);
  ck_assert(config.failed_nodes.empty());
  ck_assert(config.failed_links.empty());
  ck_assert_std_str_eq(config.algorithm, "");  // the default chain (routing/chain.hpp)
  ck_assert_uint_eq(config.seed, 1u);
  ck_assert_int_eq(config.virtual_channels, 1);
  ck_assert(config.rules == RuleSet::angara);
  ck_assert(config.flow_control == FlowControl::bubble);
  ck_assert(!config.adaptive);
  ck_assert(!config.confine);
  ck_assert(config.algorithm_options.empty());
  ck_assert(config.lp_bound_time == 2.0);
  ck_assert_std_str_eq(config.table_dir, "/var/lib/angara/routes");
  // One cable in each of Y, Z and K: 2 X channels and one each of Y, Z, K.
  ck_assert_std_str_eq(config.torus.description(), "4x2x2x2 single_cable=YZK");
  ck_assert_uint_eq(config.network().live_channel_count(), (2u + 3u) * 32u);
}
END_TEST

START_TEST(test_shipped_configuration) {
  // conf/angara.yaml describes the same machine as the built-in default.
  const std::string path = std::string(TEST_DATA_DIR) + "/../../conf/angara.yaml";
  const Config config = load_config(path);
  const Config builtin = desmos_default_config();
  ck_assert_std_str_eq(config.source, path);
  ck_assert(config.torus == builtin.torus);
  ck_assert(config.node_names == builtin.node_names);
  ck_assert(config.failed_nodes.empty());
  ck_assert(config.failed_links.empty());
  ck_assert_std_str_eq(config.algorithm, builtin.algorithm);
  ck_assert_uint_eq(config.seed, builtin.seed);
  ck_assert_int_eq(config.virtual_channels, builtin.virtual_channels);
  ck_assert(config.algorithm_options.empty());
  ck_assert_std_str_eq(config.table_dir, builtin.table_dir);
}
END_TEST

START_TEST(test_every_key) {
  const Config config = parse_config(kDesmosMachine +
                                         "  order: xyzk\n"
                                         "routing:\n"
                                         "  algorithm: sssp\n"
                                         "  seed: 18446744073709551615\n"
                                         "  virtual_channels: 8\n"
                                         "  rules: general\n"
                                         "  flow_control: none\n"
                                         "  adaptive: on\n"
                                         "  confine: on\n"
                                         "  lp_bound_time: 0.25\n"
                                         "  options: {population: 100, mutation: '0.5', empty: }\n"
                                         "tables:\n"
                                         "  directory: /tmp/routes\n",
                                     "inline");
  ck_assert_std_str_eq(config.source, "inline");
  ck_assert_std_str_eq(config.algorithm, "sssp");
  ck_assert(config.seed == 18446744073709551615ull);
  ck_assert_int_eq(config.virtual_channels, 8);
  ck_assert(config.rules == RuleSet::general);
  ck_assert(config.flow_control == FlowControl::none);
  ck_assert(config.adaptive);
  ck_assert(config.confine);
  ck_assert(config.lp_bound_time == 0.25);
  ck_assert_uint_eq(config.algorithm_options.size(), 3u);
  ck_assert_std_str_eq(config.algorithm_options.at("population"), "100");
  ck_assert_std_str_eq(config.algorithm_options.at("mutation"), "0.5");
  ck_assert_std_str_eq(config.algorithm_options.at("empty"), "");
  ck_assert_std_str_eq(config.table_dir, "/tmp/routes");
}
END_TEST

START_TEST(test_torus_4x4) {
  // Failures by hostlist and by name; n05 and n06 are X neighbours.
  const Config config = parse_config(
      "machine:\n"
      "  torus: 4x4\n"
      "  nodes: n[00-15]\n"
      "failures:\n"
      "  nodes: n[05-06]\n"
      "  links: [n00 +Y]\n",
      "4x4");
  ck_assert_int_eq(config.torus.declared_dims(), 2);
  ck_assert_std_str_eq(config.node_name(config.torus.id({1, 2, 0, 0})), "n09");
  ck_assert_uint_eq(config.failed_nodes.size(), 2u);
  ck_assert_int_eq(config.failed_nodes[0], 5);
  ck_assert_int_eq(config.failed_nodes[1], 6);
  const Network network = config.network();
  // 64 channels; n05 takes its 4 + 4, n06 4 + 4 minus the 2 shared with n05;
  // the n00 +Y cable 2 more: 64 - 8 - 6 - 2 = 48.
  ck_assert_uint_eq(network.live_channel_count(), 48u);
  ck_assert(!network.channel_alive(4, kMinusY));
  ck_assert(network.channel_alive(0, kMinusY));
}
END_TEST

START_TEST(test_torus_3x3x3) {
  const Config config = parse_config(
      "machine:\n"
      "  torus: 3x3x3\n"
      "  nodes: c[0-26]\n"
      "failures:\n"
      "  nodes: [\"1,1,1\"]\n"
      "  links:\n"
      "    - 0,0,0 +Z\n"
      "    - 1,1,0 +Z\n",
      "3x3x3");
  ck_assert_uint_eq(config.torus.node_count(), 27u);
  ck_assert_int_eq(*config.node_by_name("c13"), 13);
  ck_assert_std_str_eq(config.torus.format_coord(*config.node_by_name("c13")), "1,1,1");
  ck_assert_uint_eq(config.failed_nodes.size(), 1u);
  ck_assert_int_eq(config.failed_nodes[0], 13);
  ck_assert_uint_eq(config.failed_links.size(), 2u);
  ck_assert_int_eq(config.failed_links[0].first, 0);
  ck_assert(config.failed_links[0].second == kPlusZ);
  const Network network = config.network();
  // 2 * 3 * 27 = 162; the centre node 6 + 6; the 0,0,0 +Z cable 2; the
  // 1,1,0 +Z cable leads into the failed centre and is already dead.
  ck_assert_uint_eq(network.live_channel_count(), 162u - 12u - 2u);
  ck_assert(!network.channel_alive(config.torus.id({0, 0, 1, 0}), kMinusZ));
}
END_TEST

START_TEST(test_order_kzyx) {
  const Config config = parse_config(kDesmosMachine + "  order: kzyx\n", "kzyx");
  // K varies fastest: desmos05 = 0b0101 -> x=0, y=1, z=0, k=1.
  const NodeId node = *config.node_by_name("desmos05");
  ck_assert_std_str_eq(config.torus.format_coord(node), "0,1,0,1");
  ck_assert_int_eq(node, 20);
  // desmos08 = 0b1000 -> x=1: the +X neighbour of desmos00.
  ck_assert_std_str_eq(config.node_name(1), "desmos08");
  ck_assert_std_str_eq(config.node_name(0), "desmos00");
  ck_assert_std_str_eq(config.node_name(31), "desmos31");
}
END_TEST

START_TEST(test_overrides) {
  // A three-way rotation: 00 -> 31's place, 31 -> 01's, 01 -> 00's.
  const Config config = parse_config(kDesmosMachine +
                                         "  overrides:\n"
                                         "    desmos00: 3,1,1,1\n"
                                         "    desmos31: 1,0,0,0\n"
                                         "    desmos01: 0,0,0,0\n",
                                     "overrides");
  ck_assert_std_str_eq(config.node_name(0), "desmos01");
  ck_assert_std_str_eq(config.node_name(1), "desmos31");
  ck_assert_std_str_eq(config.node_name(31), "desmos00");
  ck_assert_std_str_eq(config.node_name(2), "desmos02");
  // Failures name the node at its new place.
  const Config failed = parse_config(kDesmosMachine +
                                         "  overrides: {desmos00: '1,0,0,0', desmos01: '0,0,0,0'}\n"
                                         "failures:\n"
                                         "  nodes: [desmos00]\n",
                                     "overrides");
  ck_assert_int_eq(failed.failed_nodes.at(0), 1);
}
END_TEST

START_TEST(test_override_errors) {
  ck_assert_std_str_eq(fixture_error("config_override_collision.yaml"),
                       "config_override_collision.yaml:6:15: override moves 'desmos31' to 0,0,0,0, where "
                       "'desmos00' already is; override 'desmos00' as well");
  ck_assert_std_str_eq(parse_error(kDesmosMachine +
                                   "  overrides:\n"
                                   "    desmos00: 1,0,0,0\n"
                                   "    desmos02: 1,0,0,0\n"),
                       "test.yaml:6:15: coordinate 1,0,0,0 is given to both 'desmos00' and 'desmos02'");
  ck_assert_std_str_eq(parse_error(kDesmosMachine +
                                   "  overrides:\n"
                                   "    desmos40: 1,0,0,0\n"),
                       "test.yaml:5:5: machine.overrides: 'desmos40' is not one of machine.nodes");
  ck_assert_std_str_eq(parse_error(kDesmosMachine +
                                   "  overrides:\n"
                                   "    desmos01: 1,0,2,0\n"),
                       "test.yaml:5:15: bad coordinate '1,0,2,0': coordinate Z=2 is outside the 4x2x2x2 torus");
}
END_TEST

START_TEST(test_desmos_failures) {
  const Config config = parse_config(kDesmosMachine +
                                         "failures:\n"
                                         "  nodes: [desmos07, \"1,0,0,0\", desmos07]\n"
                                         "  links:\n"
                                         "    - 0,0,0,0 +Y\n"
                                         "    - desmos03 -X\n",
                                     "failures");
  ck_assert_uint_eq(config.failed_nodes.size(), 2u);  // the repeat is dropped
  ck_assert_int_eq(config.failed_nodes[0], 7);
  ck_assert_int_eq(config.failed_nodes[1], 1);
  ck_assert_uint_eq(config.failed_links.size(), 2u);
  ck_assert_int_eq(config.failed_links[0].first, 0);
  ck_assert(config.failed_links[0].second == kPlusY);
  ck_assert_int_eq(config.failed_links[1].first, 3);
  ck_assert(config.failed_links[1].second == kMinusX);
  const Network network = config.network();
  // 256 channels.  desmos07 = 3,1,0,0 and 1,0,0,0 are not neighbours: 16
  // each.  0,0,0,0 +Y (to node 4) and 3,0,0,0 -X (to node 2) touch neither:
  // 2 each.  256 - 32 - 4 = 220.
  ck_assert_uint_eq(network.live_channel_count(), 220u);
  ck_assert(!network.node_alive(7));
  ck_assert(!network.node_alive(1));
  ck_assert(!network.channel_alive(4, kMinusY));
  ck_assert(network.channel_alive(0, kMinusY));  // the other cable of the Y pair
  ck_assert(!network.channel_alive(2, kPlusX));
  ck_assert(!network.channel_alive(0, kPlusX));  // leads into the failed node 1
}
END_TEST

// machine.single_cable: a list of letters or one word of them.
START_TEST(test_single_cable) {
  const Config listed = parse_config(kDesmosMachine + "  single_cable: [Y, Z, K]\n", "listed");
  ck_assert_uint_eq(listed.torus.single_cable_mask(), 0xEu);
  ck_assert_uint_eq(listed.network().live_channel_count(), 160u);
  ck_assert(!listed.network().channel_alive(listed.torus.id({0, 1, 0, 0}), kPlusY));
  ck_assert_uint_eq(parse_config(kDesmosMachine + "  single_cable: KY\n", "word").torus.single_cable_mask(), 0xAu);
  ck_assert_uint_eq(parse_config(kDesmosMachine + "  single_cable: []\n", "empty").torus.single_cable_mask(), 0u);
  ck_assert_uint_eq(parse_config(kDesmosMachine + "  single_cable: none\n", "none").torus.single_cable_mask(), 0u);
  ck_assert_uint_eq(parse_config(kDesmosMachine, "default").torus.single_cable_mask(), 0u);
  // A failed cable named by its cabled end; the port without a cable is an error.
  const Config failed = parse_config(kDesmosMachine + "  single_cable: [Y]\nfailures:\n  links: ['0,1,0,0 -Y']\n", "f");
  ck_assert_uint_eq(failed.network().live_channel_count(), 224u - 2u);
}
END_TEST

START_TEST(test_single_cable_errors) {
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "  single_cable: [Y, X]\n"),
                       "test.yaml:4:21: machine.single_cable: X has size 4 in the 4x2x2x2 torus; only a dimension of "
                       "size 2 can be single-cabled");
  ck_assert_std_str_eq(parse_error("machine:\n  torus: 4x2x2\n  nodes: n[0-15]\n  single_cable: YK\n"),
                       "test.yaml:4:18: machine.single_cable: K is not a dimension of the 4x2x2 torus, so it cannot "
                       "be single-cabled");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "  single_cable: [Y, W]\n"),
                       "test.yaml:4:21: machine.single_cable: 'W' is not a dimension (expected X, Y, Z or K)");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "  single_cable: \"ZYZ\"\n"),
                       "test.yaml:4:20: machine.single_cable: Z is given twice");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "  single_cable: {Y: 1}\n"),
                       "test.yaml:4:17: machine.single_cable: expected a list of dimension letters like Y or YZK, got "
                       "a mapping");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "  single_cable: [Y]\nfailures:\n  links: ['0,1,0,0 +Y']\n"),
                       "test.yaml:6:20: failures.links: port +Y of 0,1,0,0 has no cable (Y is single-cabled: only +Y "
                       "at Y=0 and -Y at Y=1 are cabled); name the cable by the port that has it");
}
END_TEST

START_TEST(test_error_fixtures) {
  ck_assert_std_str_eq(fixture_error("config_unknown_key.yaml"),
                       "config_unknown_key.yaml:6:3: unknown key 'algoritm' in 'routing' (expected one of: "
                       "algorithm, seed, virtual_channels, rules, flow_control, adaptive, confine, lp_bound_time, time_budget, "
                       "options)");
  ck_assert_std_str_eq(fixture_error("config_bad_torus.yaml"),
                       "config_bad_torus.yaml:3:10: machine.torus: expected 1 to 4 sizes like 4x2x2x2, got "
                       "'4x2x2x2x2'");
  ck_assert_std_str_eq(fixture_error("config_hostlist_count.yaml"),
                       "config_hostlist_count.yaml:4:10: machine.nodes: the hostlist has 31 names but the "
                       "4x2x2x2 torus has 32 nodes");
  ck_assert_std_str_eq(fixture_error("config_bad_direction.yaml"),
                       "config_bad_direction.yaml:8:17: failures.links: bad direction '+W' for the 4x2x2x2 "
                       "torus (expected one of: +X, +Y, +Z, +K, -X, -Y, -Z, -K)");
  ck_assert_std_str_eq(fixture_error("config_bad_coordinate.yaml"),
                       "config_bad_coordinate.yaml:6:21: bad coordinate '4,0,0,0': coordinate X=4 is outside "
                       "the 4x2x2x2 torus");
  ck_assert_std_str_eq(fixture_error("config_syntax_error.yaml"),
                       "config_syntax_error.yaml:4:16: YAML syntax error: mapping values are not allowed in "
                       "this context");
}
END_TEST

START_TEST(test_error_accessors) {
  const std::string path = angara_test::data_path("config_unknown_key.yaml");
  bool threw = false;
  try {
    load_config(path);
  } catch (const ConfigError& e) {
    threw = true;
    ck_assert_std_str_eq(e.file(), path);
    ck_assert_int_eq(e.line(), 6);
    ck_assert_int_eq(e.column(), 3);
    ck_assert_std_str_eq(e.message(), "unknown key 'algoritm' in 'routing' (expected one of: algorithm, seed, "
                                      "virtual_channels, rules, flow_control, adaptive, confine, lp_bound_time, time_budget, "
                                      "options)");
  }
  ck_assert(threw);
}
END_TEST

START_TEST(test_missing_file) {
  const std::string path = angara_test::data_path("no_such_config.yaml");
  bool threw = false;
  try {
    load_config(path);
  } catch (const ConfigError& e) {
    threw = true;
    ck_assert_std_str_eq(e.message(), "cannot open " + path + ": No such file or directory");
    ck_assert_int_eq(e.line(), 0);
    ck_assert_std_str_eq(e.what(), path + ": cannot open " + path + ": No such file or directory");
  }
  ck_assert(threw);
}
END_TEST

// The flow simulator's figures: defaults, values, and errors naming the key.
START_TEST(test_hardware_section) {
  const Config defaults = parse_config(kDesmosMachine, "test.yaml");
  ck_assert(defaults.hardware.link_bandwidth_gbit == 75);
  ck_assert(defaults.hardware.node_latency_ns == 850);
  ck_assert(defaults.hardware.hop_latency_ns == 100);
  const Config set = parse_config(kDesmosMachine + "hardware:\n  link_bandwidth: 56\n  node_latency: 1000\n"
                                                   "  hop_latency: 0\n", "test.yaml");
  ck_assert(set.hardware.link_bandwidth_gbit == 56);
  ck_assert(set.hardware.node_latency_ns == 1000);
  ck_assert(set.hardware.hop_latency_ns == 0);
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "hardware:\n  link_bandwidth: 0\n"),
                       "test.yaml:5:19: hardware.link_bandwidth: expected Gbit/s as a plain decimal number from "
                       "0.001 to 100000, got '0'");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "hardware:\n  hop_latency: 10us\n"),
                       "test.yaml:5:16: hardware.hop_latency: expected nanoseconds as a plain decimal number from 0 "
                       "to 1e+09, got '10us'");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "hardware:\n  latency: 5\n"),
                       "test.yaml:5:3: unknown key 'latency' in 'hardware' (expected one of: link_bandwidth, node_latency, "
                       "hop_latency)");
}
END_TEST

START_TEST(test_structure_errors) {
  ck_assert_std_str_eq(parse_error(""),
                       "test.yaml:1:1: the configuration is empty (machine.torus and machine.nodes are required)");
  ck_assert_std_str_eq(parse_error("# only a comment\n"),
                       "test.yaml:1:1: the configuration is empty (machine.torus and machine.nodes are required)");
  ck_assert_std_str_eq(parse_error("- machine\n"), "test.yaml:1:1: top level: expected a mapping, got a list");
  ck_assert_std_str_eq(parse_error("routing: {}\n"),
                       "test.yaml:1:1: missing section 'machine' (machine.torus and machine.nodes are required)");
  ck_assert_std_str_eq(parse_error("machine:\n  nodes: n[0-3]\n"), "test.yaml:2:3: missing key 'torus' in 'machine'");
  ck_assert_std_str_eq(parse_error("machine:\n  torus: 4\n"), "test.yaml:2:3: missing key 'nodes' in 'machine'");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "routing: bfs\n"),
                       "test.yaml:4:10: routing: expected a mapping, got 'bfs'");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "routing:\n  virtual_channels: x\n"),
                       "test.yaml:5:21: routing.virtual_channels: expected an integer from 1 to 8, got 'x'");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "routing:\n  virtual_channels: 9\n"),
                       "test.yaml:5:21: routing.virtual_channels: expected an integer from 1 to 8, got '9'");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "routing:\n  rules: nue\n"),
                       "test.yaml:5:10: routing.rules: expected 'angara' or 'general', got 'nue'");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "routing:\n  rules: [angara]\n"),
                       "test.yaml:5:10: routing.rules: expected 'angara' or 'general', got a list");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "routing:\n  flow_control:\n"),
                       "test.yaml:5:16: routing.flow_control: expected 'bubble' or 'none', got an empty value");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "routing:\n  flow_control: credit\n"),
                       "test.yaml:5:17: routing.flow_control: expected 'bubble' or 'none', got 'credit'");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "routing:\n  adaptive: yes\n"),
                       "test.yaml:5:13: routing.adaptive: expected 'on' or 'off', got 'yes'");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "routing:\n  adaptive: [on]\n"),
                       "test.yaml:5:13: routing.adaptive: expected 'on' or 'off', got a list");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "routing:\n  confine: box\n"),
                       "test.yaml:5:12: routing.confine: expected 'on' or 'off', got 'box'");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "routing:\n  lp_bound_time: -1\n"),
                       "test.yaml:5:18: routing.lp_bound_time: expected a number of seconds from 0 to 3600, got '-1'");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "routing:\n  lp_bound_time: 4000\n"),
                       "test.yaml:5:18: routing.lp_bound_time: expected a number of seconds from 0 to 3600, got '4000'");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "routing:\n  seed: -1\n"),
                       "test.yaml:5:9: routing.seed: expected a non-negative integer, got '-1'");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "routing:\n  algorithm:\n"),
                       "test.yaml:5:13: routing.algorithm: expected a generator name or a comma-separated chain of them, got an empty value");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "routing:\n  options: {a: [1]}\n"),
                       "test.yaml:5:16: routing.options: expected a single value for option 'a', got a list");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "  torus: 4x4\n"),
                       "test.yaml:4:3: duplicate key 'torus' in 'machine'");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "  order: xzyk\n"),
                       "test.yaml:4:10: machine.order: expected 'xyzk' or 'kzyx', got 'xzyk'");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "tables:\n  dir: /tmp\n"),
                       "test.yaml:5:3: unknown key 'dir' in 'tables' (expected one of: directory)");
  ck_assert_std_str_eq(parse_error("machine:\n\ttorus: 4x2x2x2\n"),
                       "test.yaml:2:1: YAML syntax error: found character that cannot start any token (while "
                       "scanning for the next token that starts at line 2, column 1); YAML does not allow tabs "
                       "for indentation");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "---\n" + kDesmosMachine),
                       "test.yaml:5:1: only one YAML document is allowed");
}
END_TEST

START_TEST(test_node_errors) {
  ck_assert_std_str_eq(parse_error("machine:\n  torus: 4x2x2x2\n  nodes: desmos[00-15,15-30]\n"),
                       "test.yaml:3:10: machine.nodes: 'desmos15' appears more than once");
  ck_assert_std_str_eq(parse_error("machine:\n  torus: 4x2\n  nodes: n[0-7\n"),
                       "test.yaml:3:10: machine.nodes: unbalanced '[' at position 1 in 'n[0-7'");
  // A list of hostlists is one machine.
  const Config split = parse_config("machine:\n  torus: 4x2\n  nodes:\n    - a[0-3]\n    - b[0-3]\n", "split");
  ck_assert_std_str_eq(split.node_name(4), "b0");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "failures:\n  nodes: [desmos32]\n"),
                       "test.yaml:5:11: failures.nodes: 'desmos32' is neither a node of machine.nodes nor a "
                       "coordinate");
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "failures:\n  nodes: 'desmos[30-32]'\n"),
                       "test.yaml:5:10: failures.nodes: 'desmos32' (from 'desmos[30-32]') is not one of "
                       "machine.nodes");
  // Long lists of hostlists are refused by count before they are expanded
  // in full (a fuzzer's finding: thousands of them took minutes).
  std::string long_list = "machine:\n  torus: 4x2\n  nodes:\n";
  for (int i = 0; i < 200; ++i) long_list += "    - x" + std::to_string(i) + "[0000000-1048574]\n";
  ck_assert_std_str_eq(parse_error(long_list),
                       "test.yaml:4:7: machine.nodes: the hostlist has more than 8 names but the 4x2 torus has 8 "
                       "nodes");
  ck_assert_std_str_eq(parse_error("machine:\n  torus: 4x2\n  nodes:\n    - a[0-3]\n    - b[0-4]\n"),
                       "test.yaml:4:5: machine.nodes: the hostlist has 9 names but the 4x2 torus has 8 nodes");
  ck_assert_std_str_eq(parse_error("machine:\n  torus: 4x2\n  nodes:\n    - a[0-3]\n    - b[0-5]\n"),
                       "test.yaml:5:7: machine.nodes: the hostlist has more than 8 names but the 4x2 torus has 8 "
                       "nodes");
  std::string repeated_failures = kDesmosMachine + "failures:\n  nodes:\n";
  for (int i = 0; i < 200; ++i) repeated_failures += "    - 'desmos[00-31,00-31,00-31]'\n";
  ck_assert_std_str_eq(parse_error(repeated_failures),
                       "test.yaml:6:7: failures.nodes: the hostlists name more than the machine's 32 nodes, repeats "
                       "counted");
  const Config overlapping =
      parse_config(kDesmosMachine + "failures:\n  nodes: ['desmos[00-15]', 'desmos[08-23]']\n", "overlap");
  ck_assert_uint_eq(overlapping.failed_nodes.size(), 24);
  ck_assert_std_str_eq(parse_error(kDesmosMachine + "failures:\n  links: ['0,0,0,0']\n"),
                       "test.yaml:5:11: failures.links: expected 'COORDINATE DIRECTION' or 'NODE DIRECTION' "
                       "like '0,0,0,0 +Y', got '0,0,0,0'");
  // +Z exists on 4x2x2x2 but not on 4x4; the position is the direction's.
  ck_assert_std_str_eq(parse_error("machine:\n  torus: 4x4\n  nodes: n[0-15]\n"
                                   "failures:\n  links: ['0,0 +Z']\n"),
                       "test.yaml:5:16: failures.links: bad direction '+Z' for the 4x4 torus (expected one of: "
                       "+X, +Y, -X, -Y)");
}
END_TEST

int main() {
  Suite* suite = suite_create("config");
  TCase* tc = tcase_create("core");
  tcase_add_test(tc, test_desmos_default);
  tcase_add_test(tc, test_shipped_configuration);
  tcase_add_test(tc, test_every_key);
  tcase_add_test(tc, test_torus_4x4);
  tcase_add_test(tc, test_torus_3x3x3);
  tcase_add_test(tc, test_order_kzyx);
  tcase_add_test(tc, test_overrides);
  tcase_add_test(tc, test_override_errors);
  tcase_add_test(tc, test_desmos_failures);
  tcase_add_test(tc, test_single_cable);
  tcase_add_test(tc, test_single_cable_errors);
  tcase_add_test(tc, test_error_fixtures);
  tcase_add_test(tc, test_error_accessors);
  tcase_add_test(tc, test_missing_file);
  tcase_add_test(tc, test_structure_errors);
  tcase_add_test(tc, test_hardware_section);
  tcase_add_test(tc, test_node_errors);
  suite_add_tcase(suite, tc);
  return angara_test::run_suite(suite);
}
