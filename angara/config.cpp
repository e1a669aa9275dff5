// angara.yaml(5): read with libyaml's document API, then checked against the
// schema in one pass over the node tree.  The tree keeps every node's mark,
// so errors found late (a coordinate outside the torus, two names on one
// coordinate) still point at the value that caused them.
#include "angara/config.hpp"

#include "angara/file_io.hpp"

#include <sys/stat.h>

#include <cstdlib>

#include <yaml.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <new>
#include <string_view>
#include <unordered_map>

#include "angara/hostlist.hpp"

namespace angara {

namespace {

constexpr const char* kBuiltinSource = "<built-in Desmos default>";
constexpr int kMaxVirtualChannels = 8;

std::string format_what(const std::string& file, int line, int column, const std::string& message) {
  if (line <= 0) return file + ": " + message;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

// Owns a yaml_parser_t reading from a string that outlives it.
class YamlParser {
 public:
  explicit YamlParser(const std::string& text) {
    if (!yaml_parser_initialize(&parser_)) throw std::bad_alloc();
    yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()), text.size());
  }
  ~YamlParser() { yaml_parser_delete(&parser_); }
  YamlParser(const YamlParser&) = delete;
  YamlParser& operator=(const YamlParser&) = delete;

  yaml_parser_t* get() { return &parser_; }
  const yaml_parser_t& state() const { return parser_; }

 private:
  yaml_parser_t parser_{};
};

// Owns one loaded yaml_document_t.
class YamlDocument {
 public:
  YamlDocument() = default;
  ~YamlDocument() { release(); }
  YamlDocument(const YamlDocument&) = delete;
  YamlDocument& operator=(const YamlDocument&) = delete;

  // Loads the parser's next document; false on a syntax error, whose details
  // stay in the parser.  At the end of the stream root() is null.
  bool load(YamlParser& parser) {
    release();
    if (!yaml_parser_load(parser.get(), &document_)) return false;
    loaded_ = true;
    return true;
  }
  const yaml_node_t* root() { return yaml_document_get_root_node(&document_); }
  const yaml_node_t* node(int index) { return yaml_document_get_node(&document_, index); }

 private:
  void release() {
    if (loaded_) yaml_document_delete(&document_);
    loaded_ = false;
  }
  yaml_document_t document_{};
  bool loaded_ = false;
};

// 1-based position of a libyaml mark (libyaml counts from 0).
struct Position {
  int line;
  int column;
};
Position position_of(const yaml_mark_t& mark) {
  return {static_cast<int>(mark.line) + 1, static_cast<int>(mark.column) + 1};
}

[[noreturn]] void throw_syntax_error(const std::string& source, const std::string& text,
                                     const yaml_parser_t& parser) {
  if (parser.error == YAML_MEMORY_ERROR) throw std::bad_alloc();
  const std::string problem = parser.problem ? parser.problem : "unknown problem";
  // Reader errors (bad encoding) carry a byte offset, not a mark; the
  // parser's current mark is where reading stopped.
  const Position at = position_of(parser.error == YAML_READER_ERROR ? parser.mark : parser.problem_mark);
  std::string message = "YAML syntax error: " + problem;
  if (parser.context) {
    const Position context = position_of(parser.context_mark);
    message += std::string(" (") + parser.context + " that starts at line " + std::to_string(context.line) +
               ", column " + std::to_string(context.column) + ")";
  }
  // libyaml's words for a tab in the indentation do not say "tab".
  const std::size_t offset = parser.problem_mark.index;
  if (parser.error == YAML_SCANNER_ERROR && offset < text.size() && text[offset] == '\t')
    message += "; YAML does not allow tabs for indentation";
  throw ConfigError(source, at.line, at.column, message);
}

// Refuses lists and mappings nested deeper than kMaxYamlDepth before the
// document is loaded: libyaml's scanner spends time quadratic in the depth
// (100,000 nested '[' kept every command busy past 30 s), and the schema
// needs three levels.  Syntax errors met on the way are reported as the
// loader would.
void check_nesting(const std::string& source, const std::string& text) {
  YamlParser parser(text);
  std::size_t depth = 0;
  for (;;) {
    yaml_event_t event;
    if (!yaml_parser_parse(parser.get(), &event)) throw_syntax_error(source, text, parser.state());
    const yaml_event_type_t type = event.type;
    const Position at = position_of(event.start_mark);
    yaml_event_delete(&event);
    if (type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) {
      if (++depth > kMaxYamlDepth)
        throw ConfigError(source, at.line, at.column,
                          "lists and mappings nested deeper than " + std::to_string(kMaxYamlDepth) +
                              " levels (the limit; angara.yaml(5) needs 3)");
    } else if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT) {
      --depth;
    } else if (type == YAML_STREAM_END_EVENT) {
      return;
    }
  }
}

// The node order of machine.nodes: which coordinate varies fastest.
enum class NodeOrder { kXFastest, kKFastest };

struct Entry {
  std::string key;
  const yaml_node_t* key_node;
  const yaml_node_t* value;
};
using Entries = std::vector<Entry>;

const yaml_node_t* find(const Entries& entries, std::string_view key) {
  for (const Entry& entry : entries)
    if (entry.key == key) return entry.value;
  return nullptr;
}

// Checks a document against the schema of angara.yaml(5) and builds the Config.
class ConfigReader {
 public:
  ConfigReader(const std::string& source, YamlDocument& document) : source_(source), document_(document) {}

  Config read(const yaml_node_t* root) {
    config_.source = source_;
    const Entries top = mapping(root, "top level", "at the top level", {"machine", "failures", "routing", "tables", "limits", "hardware"});
    const yaml_node_t* machine = find(top, "machine");
    if (!machine) fail(root, "missing section 'machine' (machine.torus and machine.nodes are required)");
    read_machine(machine);
    if (const yaml_node_t* failures = find(top, "failures")) read_failures(failures);
    if (const yaml_node_t* routing = find(top, "routing")) read_routing(routing);
    if (const yaml_node_t* tables = find(top, "tables")) read_tables(tables);
    if (const yaml_node_t* limits = find(top, "limits")) read_limits(limits);
    if (const yaml_node_t* hardware = find(top, "hardware")) read_hardware(hardware);
    config_.index_node_names();
    return std::move(config_);
  }

 private:
  [[noreturn]] void fail(const yaml_node_t* node, const std::string& message) const {
    const Position at = position_of(node->start_mark);
    throw ConfigError(source_, at.line, at.column, message);
  }

  // Fails pointing `offset` characters into a scalar when the scalar sits on
  // one line, so "0,0,0,0 +W" points at "+W".
  [[noreturn]] void fail_inside(const yaml_node_t* node, std::size_t offset, const std::string& message) const {
    Position at = position_of(node->start_mark);
    const auto style = node->data.scalar.style;
    if (offset > 0 && node->start_mark.line == node->end_mark.line) {
      if (style == YAML_PLAIN_SCALAR_STYLE) at.column += static_cast<int>(offset);
      if (style == YAML_SINGLE_QUOTED_SCALAR_STYLE || style == YAML_DOUBLE_QUOTED_SCALAR_STYLE)
        at.column += static_cast<int>(offset) + 1;
    }
    throw ConfigError(source_, at.line, at.column, message);
  }

  static std::string_view text_of(const yaml_node_t* node) {
    return {reinterpret_cast<const char*>(node->data.scalar.value), node->data.scalar.length};
  }

  // "key:" with nothing after it, "~" or "null".
  static bool is_null(const yaml_node_t* node) {
    if (node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return false;
    const std::string_view text = text_of(node);
    return text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL";
  }

  static std::string kind_of(const yaml_node_t* node) {
    if (is_null(node)) return "an empty value";
    switch (node->type) {
      case YAML_MAPPING_NODE: return "a mapping";
      case YAML_SEQUENCE_NODE: return "a list";
      default: return "'" + std::string(text_of(node)) + "'";
    }
  }

  static std::string prefixed(const std::string& path, const std::string& message) {
    return path.empty() ? message : path + ": " + message;
  }

  // The entries of a mapping (an empty value counts as an empty mapping).
  // With `allowed` non-empty, other keys are errors; duplicates always are.
  Entries mapping(const yaml_node_t* node, const std::string& path, const std::string& where,
                  std::initializer_list<const char*> allowed) {
    Entries entries;
    if (is_null(node)) return entries;
    if (node->type != YAML_MAPPING_NODE)
      fail(node, prefixed(path, "expected a mapping, got " + kind_of(node)));
    for (const yaml_node_pair_t* pair = node->data.mapping.pairs.start; pair < node->data.mapping.pairs.top;
         ++pair) {
      const yaml_node_t* key = document_.node(pair->key);
      const yaml_node_t* value = document_.node(pair->value);
      if (key->type != YAML_SCALAR_NODE) fail(key, "expected a plain key " + where + ", got " + kind_of(key));
      std::string name(text_of(key));
      if (allowed.size() != 0) {
        bool known = false;
        std::string expected;
        for (const char* candidate : allowed) {
          known = known || name == candidate;
          expected += (expected.empty() ? "" : ", ") + std::string(candidate);
        }
        if (!known) fail(key, "unknown key '" + name + "' " + where + " (expected one of: " + expected + ")");
      }
      if (find(entries, name)) fail(key, "duplicate key '" + name + "' " + where);
      entries.push_back(Entry{std::move(name), key, value});
    }
    return entries;
  }

  std::string scalar(const yaml_node_t* node, const std::string& path) {
    if (node->type != YAML_SCALAR_NODE) fail(node, path + ": expected a single value, got " + kind_of(node));
    return std::string(text_of(node));
  }

  std::string non_empty_scalar(const yaml_node_t* node, const std::string& path, const std::string& what) {
    if (is_null(node) || node->type != YAML_SCALAR_NODE || text_of(node).empty())
      fail(node, path + ": expected " + what + ", got " + kind_of(node));
    return std::string(text_of(node));
  }

  // The items of a list; a single value counts as a list of one, an empty
  // value as an empty list.
  std::vector<const yaml_node_t*> list(const yaml_node_t* node, const std::string& path, const std::string& what) {
    std::vector<const yaml_node_t*> items;
    if (is_null(node)) return items;
    if (node->type == YAML_MAPPING_NODE) fail(node, path + ": expected a list of " + what + ", got a mapping");
    if (node->type == YAML_SCALAR_NODE) return {node};
    for (const yaml_node_item_t* item = node->data.sequence.items.start; item < node->data.sequence.items.top;
         ++item) {
      const yaml_node_t* child = document_.node(*item);
      if (child->type != YAML_SCALAR_NODE || is_null(child))
        fail(child, path + ": expected " + what + ", got " + kind_of(child));
      items.push_back(child);
    }
    return items;
  }

  // Decimal digits only, up to 2^64 - 1.
  static bool parse_unsigned(std::string_view text, std::uint64_t& value) {
    if (text.empty()) return false;
    constexpr std::uint64_t kMax = ~std::uint64_t{0};
    value = 0;
    for (char c : text) {
      if (c < '0' || c > '9') return false;
      const auto digit = static_cast<std::uint64_t>(c - '0');
      if (value > (kMax - digit) / 10) return false;
      value = value * 10 + digit;
    }
    return true;
  }

  // ---- machine ----------------------------------------------------------

  void read_machine(const yaml_node_t* machine) {
    const Entries entries =
        mapping(machine, "machine", "in 'machine'", {"torus", "nodes", "order", "overrides", "single_cable"});
    const yaml_node_t* torus = find(entries, "torus");
    if (!torus) fail(machine, "missing key 'torus' in 'machine'");
    const yaml_node_t* nodes = find(entries, "nodes");
    if (!nodes) fail(machine, "missing key 'nodes' in 'machine'");

    try {
      config_.torus = Torus::parse(non_empty_scalar(torus, "machine.torus", "sizes like 4x2x2x2"));
    } catch (const std::invalid_argument& e) {
      fail(torus, std::string("machine.torus: ") + e.what());
    }
    if (const yaml_node_t* single_cable = find(entries, "single_cable")) read_single_cable(single_cable);

    NodeOrder order = NodeOrder::kXFastest;
    if (const yaml_node_t* node = find(entries, "order")) {
      const std::string text = scalar(node, "machine.order");
      if (text == "kzyx")
        order = NodeOrder::kKFastest;
      else if (text != "xyzk")
        fail(node, "machine.order: expected 'xyzk' or 'kzyx', got " + kind_of(node));
    }

    const std::vector<std::string> names = read_node_names(nodes);
    const yaml_node_t* overrides = find(entries, "overrides");
    place_nodes(names, order, overrides);
  }

  // machine.single_cable: the size-2 dimensions cabled once, as a list of
  // letters ([Y, Z, K]) or one word of them (YZK); empty or "none" for none.
  void read_single_cable(const yaml_node_t* node) {
    const std::string path = "machine.single_cable";
    std::uint8_t mask = 0;
    for (const yaml_node_t* item : list(node, path, "dimension letters like Y or YZK")) {
      const std::string_view text = text_of(item);
      if (text == "none" && node == item) break;
      for (std::size_t i = 0; i < text.size(); ++i) {
        try {
          const std::uint8_t bit = Torus::parse_dimension_letters(text.substr(i, 1));
          if (mask & bit) throw std::invalid_argument(std::string(1, text[i]) + " is given twice");
          config_.torus.with_single_cable(bit);  // throws for an absent dimension or a size other than 2
          mask |= bit;
        } catch (const std::invalid_argument& e) {
          fail_inside(item, i, path + ": " + e.what());
        }
      }
    }
    config_.torus = config_.torus.with_single_cable(mask);
  }

  std::vector<std::string> read_node_names(const yaml_node_t* nodes) {
    std::vector<std::string> names;
    const NodeId expected = config_.torus.node_count();
    for (const yaml_node_t* item : list(nodes, "machine.nodes", "a hostlist")) {
      try {
        // One name past the torus is enough to refuse the list: a long list
        // of long hostlists must not be expanded in full first.
        std::vector<std::string> expanded = expand_hostlist(text_of(item), expected + 1 - names.size());
        names.insert(names.end(), std::make_move_iterator(expanded.begin()), std::make_move_iterator(expanded.end()));
      } catch (const HostlistTooLong&) {
        fail(item, "machine.nodes: the hostlist has more than " + std::to_string(expected) + " names but the " +
                       config_.torus.to_string() + " torus has " + std::to_string(expected) + " nodes");
      } catch (const std::invalid_argument& e) {
        fail(item, std::string("machine.nodes: ") + e.what());
      }
    }
    if (names.size() != expected)
      fail(nodes, "machine.nodes: the hostlist has " + std::to_string(names.size()) + " names but the " +
                      config_.torus.to_string() + " torus has " + std::to_string(expected) + " nodes");
    name_index_.reserve(names.size());
    for (std::size_t i = 0; i < names.size(); ++i)
      if (!name_index_.emplace(names[i], static_cast<NodeId>(i)).second)
        fail(nodes, "machine.nodes: '" + names[i] + "' appears more than once");
    return names;
  }

  // The coordinate of the i-th name of machine.nodes before overrides.
  NodeId default_place(NodeId i, NodeOrder order) const {
    const Torus& torus = config_.torus;
    if (order == NodeOrder::kXFastest) return i;  // NodeId order is X fastest
    Coord c{};
    for (int dim = kMaxDims - 1; dim >= 0; --dim) {
      c[dim] = static_cast<int>(i % static_cast<NodeId>(torus.size(dim)));
      i /= static_cast<NodeId>(torus.size(dim));
    }
    return torus.id(c);
  }

  // Gives every name its coordinate; on return name_index_ maps names to
  // their final NodeIds.
  void place_nodes(const std::vector<std::string>& names, NodeOrder order, const yaml_node_t* overrides_node) {
    const Torus& torus = config_.torus;
    const NodeId count = torus.node_count();
    // For each name (by list index) its override target, and for each target
    // coordinate the override that claims it.
    std::vector<NodeId> target(count, kNoNode);
    std::vector<const yaml_node_t*> target_value(count, nullptr);
    std::vector<NodeId> claimed_by(count, kNoNode);
    if (overrides_node) {
      for (const Entry& entry :
           mapping(overrides_node, "machine.overrides", "in 'machine.overrides'", {})) {
        const auto named = name_index_.find(entry.key);
        if (named == name_index_.end())
          fail(entry.key_node, "machine.overrides: '" + entry.key + "' is not one of machine.nodes");
        const NodeId place = parse_coordinate(entry.value, "machine.overrides");
        if (claimed_by[place] != kNoNode)
          fail(entry.value, "coordinate " + torus.format_coord(place) + " is given to both '" +
                                names[claimed_by[place]] + "' and '" + entry.key + "'");
        claimed_by[place] = named->second;
        target[named->second] = place;
        target_value[named->second] = entry.value;
      }
    }
    for (NodeId i = 0; i < count; ++i) {
      if (target[i] != kNoNode) continue;
      const NodeId place = default_place(i, order);
      if (claimed_by[place] != kNoNode) {
        const NodeId mover = claimed_by[place];
        fail(target_value[mover], "override moves '" + names[mover] + "' to " + torus.format_coord(place) +
                                      ", where '" + names[i] + "' already is; override '" + names[i] +
                                      "' as well");
      }
      target[i] = place;
    }
    // Targets are now distinct: overrides claim distinct coordinates, the
    // defaults are distinct, and no default lands on a claimed coordinate.
    config_.node_names.assign(count, std::string());
    for (NodeId i = 0; i < count; ++i) {
      config_.node_names[target[i]] = names[i];
      name_index_[names[i]] = target[i];
    }
  }

  NodeId parse_coordinate(const yaml_node_t* node, const std::string& path) {
    const std::string text = non_empty_scalar(node, path, "a coordinate");
    try {
      return config_.torus.id(config_.torus.parse_coord(text));
    } catch (const std::invalid_argument& e) {
      fail(node, "bad coordinate '" + text + "': " + e.what());
    }
  }

  // A node named by its Slurm name or by its coordinate.
  NodeId resolve_node(const yaml_node_t* node, std::string_view text, std::size_t offset, const std::string& path) {
    if (const auto named = name_index_.find(std::string(text)); named != name_index_.end()) return named->second;
    const bool looks_like_coordinate = text.find_first_not_of("0123456789,") == std::string_view::npos;
    if (!looks_like_coordinate)
      fail_inside(node, offset, path + ": '" + std::string(text) + "' is neither a node of machine.nodes nor a coordinate");
    try {
      return config_.torus.id(config_.torus.parse_coord(text));
    } catch (const std::invalid_argument& e) {
      fail_inside(node, offset, "bad coordinate '" + std::string(text) + "': " + e.what());
    }
  }

  // ---- failures ---------------------------------------------------------

  void read_failures(const yaml_node_t* failures) {
    const Entries entries = mapping(failures, "failures", "in 'failures'", {"nodes", "links"});
    if (const yaml_node_t* nodes = find(entries, "nodes")) {
      std::vector<unsigned char> already(config_.torus.node_count(), 0);
      // Every expanded name is looked up, so their number, repeats counted,
      // is held to the machine's: more would only repeat names.
      std::size_t names_left = config_.torus.node_count();
      auto add = [&](NodeId node) {
        if (already[node]) return;
        already[node] = 1;
        config_.failed_nodes.push_back(node);
      };
      for (const yaml_node_t* item : list(nodes, "failures.nodes", "a node name or a coordinate")) {
        const std::string_view text = text_of(item);
        if (text.find('[') == std::string_view::npos || name_index_.count(std::string(text))) {
          add(resolve_node(item, text, 0, "failures.nodes"));
          continue;
        }
        std::vector<std::string> expanded;
        try {
          expanded = expand_hostlist(text, names_left);
          names_left -= expanded.size();
        } catch (const HostlistTooLong&) {
          fail(item, "failures.nodes: the hostlists name more than the machine's " +
                         std::to_string(config_.torus.node_count()) + " nodes, repeats counted");
        } catch (const std::invalid_argument& e) {
          fail(item, std::string("failures.nodes: ") + e.what());
        }
        for (const std::string& name : expanded) {
          const auto named = name_index_.find(name);
          if (named == name_index_.end())
            fail(item, "failures.nodes: '" + name + "' (from '" + std::string(text) + "') is not one of machine.nodes");
          add(named->second);
        }
      }
    }
    if (const yaml_node_t* links = find(entries, "links")) {
      for (const yaml_node_t* item : list(links, "failures.links", "a link like '0,0,0,0 +Y'"))
        config_.failed_links.push_back(read_link(item));
    }
  }

  std::pair<NodeId, Direction> read_link(const yaml_node_t* item) {
    const std::string_view text = text_of(item);
    // Two white-space separated words: the node, then the direction.
    std::vector<std::pair<std::size_t, std::string_view>> words;
    for (std::size_t i = 0; i < text.size();) {
      if (text[i] == ' ' || text[i] == '\t') {
        ++i;
        continue;
      }
      std::size_t end = i;
      while (end < text.size() && text[end] != ' ' && text[end] != '\t') ++end;
      words.emplace_back(i, text.substr(i, end - i));
      i = end;
    }
    if (words.size() != 2)
      fail(item, "failures.links: expected 'COORDINATE DIRECTION' or 'NODE DIRECTION' like '0,0,0,0 +Y', got '" +
                     std::string(text) + "'");
    const NodeId node = resolve_node(item, words[0].second, words[0].first, "failures.links");
    const std::optional<Direction> direction = Direction::parse(words[1].second);
    if (!direction || !config_.torus.direction_present(*direction)) {
      std::string expected;
      for (int rank = 0; rank < kDirectionCount; ++rank)
        if (config_.torus.direction_present(Direction(rank)))
          expected += (expected.empty() ? "" : ", ") + Direction(rank).token();
      fail_inside(item, words[1].first,
                  "failures.links: bad direction '" + std::string(words[1].second) + "' for the " +
                      config_.torus.to_string() + " torus (expected one of: " + expected + ")");
    }
    if (!config_.torus.cabled(node, *direction))
      fail_inside(item, words[1].first,
                  "failures.links: " + config_.torus.missing_cable_text(node, *direction) +
                      "; name the cable by the port that has it");
    return {node, *direction};
  }

  // ---- routing and tables -----------------------------------------------

  bool on_off(const yaml_node_t* node, const std::string& key) {
    const std::string_view text = node->type == YAML_SCALAR_NODE ? text_of(node) : std::string_view();
    if (node->type != YAML_SCALAR_NODE || (text != "on" && text != "off"))
      fail(node, key + ": expected 'on' or 'off', got " + kind_of(node));
    return text == "on";
  }

  void read_routing(const yaml_node_t* routing) {
    const Entries entries =
        mapping(routing, "routing", "in 'routing'",
                {"algorithm", "seed", "virtual_channels", "rules", "flow_control", "adaptive", "confine",
                 "lp_bound_time", "time_budget", "options"});
    if (const yaml_node_t* node = find(entries, "algorithm"))
      config_.algorithm = non_empty_scalar(node, "routing.algorithm", "a generator name or a comma-separated chain of them");
    if (const yaml_node_t* node = find(entries, "seed")) {
      std::uint64_t seed = 0;
      if (node->type != YAML_SCALAR_NODE || !parse_unsigned(text_of(node), seed))
        fail(node, "routing.seed: expected a non-negative integer, got " + kind_of(node));
      config_.seed = seed;
    }
    if (const yaml_node_t* node = find(entries, "virtual_channels")) {
      std::uint64_t count = 0;
      if (node->type != YAML_SCALAR_NODE || !parse_unsigned(text_of(node), count) || count < 1 ||
          count > kMaxVirtualChannels)
        fail(node, "routing.virtual_channels: expected an integer from 1 to " + std::to_string(kMaxVirtualChannels) +
                       ", got " + kind_of(node));
      config_.virtual_channels = static_cast<int>(count);
    }
    if (const yaml_node_t* node = find(entries, "rules")) {
      const auto rules = node->type == YAML_SCALAR_NODE ? parse_rule_set(text_of(node)) : std::nullopt;
      if (!rules) fail(node, "routing.rules: expected 'angara' or 'general', got " + kind_of(node));
      config_.rules = *rules;
    }
    if (const yaml_node_t* node = find(entries, "flow_control")) {
      const auto flow = node->type == YAML_SCALAR_NODE ? parse_flow_control(text_of(node)) : std::nullopt;
      if (!flow) fail(node, "routing.flow_control: expected 'bubble' or 'none', got " + kind_of(node));
      config_.flow_control = *flow;
    }
    if (const yaml_node_t* node = find(entries, "adaptive")) config_.adaptive = on_off(node, "routing.adaptive");
    if (const yaml_node_t* node = find(entries, "confine")) config_.confine = on_off(node, "routing.confine");
    if (const yaml_node_t* node = find(entries, "lp_bound_time")) {
      const auto seconds = node->type == YAML_SCALAR_NODE ? parse_seconds(text_of(node)) : std::nullopt;
      if (!seconds)
        fail(node, "routing.lp_bound_time: expected a number of seconds from 0 to 3600, got " + kind_of(node));
      config_.lp_bound_time = *seconds;
    }
    if (const yaml_node_t* node = find(entries, "time_budget")) {
      const auto seconds = node->type == YAML_SCALAR_NODE ? parse_seconds(text_of(node)) : std::nullopt;
      if (!seconds)
        fail(node, "routing.time_budget: expected a number of seconds from 0 to 3600, got " + kind_of(node));
      config_.time_budget = *seconds;
    }
    if (const yaml_node_t* node = find(entries, "options")) {
      for (const Entry& option : mapping(node, "routing.options", "in 'routing.options'", {})) {
        if (option.value->type != YAML_SCALAR_NODE)
          fail(option.value, "routing.options: expected a single value for option '" + option.key + "', got " +
                                 kind_of(option.value));
        config_.algorithm_options[option.key] = is_null(option.value) ? "" : std::string(text_of(option.value));
      }
    }
  }

  void read_tables(const yaml_node_t* tables) {
    const Entries entries = mapping(tables, "tables", "in 'tables'", {"directory"});
    if (const yaml_node_t* node = find(entries, "directory"))
      config_.table_dir = non_empty_scalar(node, "tables.directory", "a directory");
  }

  void read_limits(const yaml_node_t* limits) {
    const Entries entries = mapping(limits, "limits", "in 'limits'", {"memory"});
    if (const yaml_node_t* node = find(entries, "memory")) {
      const auto limit = node->type == YAML_SCALAR_NODE ? parse_memory_limit(text_of(node)) : std::nullopt;
      if (!limit)
        fail(node, "limits.memory: expected a size (4G, 512M, bytes), a percentage of the node's memory (50%) or "
                   "'none', got " + kind_of(node));
      config_.memory_limit = *limit;
    }
  }

  // The figures the flow simulator models the network with (angara-route
  // simulate); nothing else reads them.
  void read_hardware(const yaml_node_t* hardware) {
    const Entries entries =
        mapping(hardware, "hardware", "in 'hardware'", {"link_bandwidth", "node_latency", "hop_latency"});
    const auto number = [&](const char* key, double low, double high, const char* unit, double& into) {
      const yaml_node_t* node = find(entries, key);
      if (!node) return;
      const auto value = node->type == YAML_SCALAR_NODE ? parse_plain_decimal(text_of(node), high) : std::nullopt;
      if (!value || *value < low)
        fail(node, std::string("hardware.") + key + ": expected " + unit + " as a plain decimal number from " +
                       printable_number(low) + " to " + printable_number(high) + ", got " + kind_of(node));
      into = *value;
    };
    number("link_bandwidth", 0.001, 100000, "Gbit/s", config_.hardware.link_bandwidth_gbit);
    number("node_latency", 0, 1e9, "nanoseconds", config_.hardware.node_latency_ns);
    number("hop_latency", 0, 1e9, "nanoseconds", config_.hardware.hop_latency_ns);
  }

  static std::string printable_number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
  }

  const std::string& source_;
  YamlDocument& document_;
  Config config_;
  // Slurm name -> index in machine.nodes, then -> NodeId once placed.
  std::unordered_map<std::string, NodeId> name_index_;
};

}  // namespace

ConfigError::ConfigError(const std::string& file, int line, int column, const std::string& message)
    : std::runtime_error(format_what(file, line, column, message)),
      file_(file),
      line_(line),
      column_(column),
      message_(message) {}

Network Config::network() const {
  Network network(torus);
  // In ascending order, so that each failure appends to the network's list.
  std::vector<NodeId> ascending = failed_nodes;
  std::sort(ascending.begin(), ascending.end());
  for (NodeId node : ascending) network.fail_node(node);
  for (const auto& [node, direction] : failed_links) network.fail_link(node, direction);
  return network;
}

std::optional<NodeId> Config::node_by_name(const std::string& name) const {
  if (name_index_) {
    const auto found = name_index_->find(name);
    // Trusted only while node_names still says so; otherwise the scan.
    if (found != name_index_->end() && found->second < node_names.size() && node_names[found->second] == name)
      return found->second;
  }
  for (std::size_t i = 0; i < node_names.size(); ++i)
    if (node_names[i] == name) return static_cast<NodeId>(i);
  return std::nullopt;
}

void Config::index_node_names() {
  auto index = std::make_shared<std::unordered_map<std::string, NodeId>>();
  index->reserve(node_names.size());
  for (std::size_t i = 0; i < node_names.size(); ++i) index->emplace(node_names[i], static_cast<NodeId>(i));
  name_index_ = std::move(index);
}

std::vector<NodeId> Config::nodes_by_names(const std::vector<std::string>& names) const {
  std::unordered_map<std::string_view, NodeId> index;
  index.reserve(node_names.size());
  for (std::size_t i = 0; i < node_names.size(); ++i) index.emplace(node_names[i], static_cast<NodeId>(i));
  std::vector<NodeId> nodes;
  nodes.reserve(names.size());
  for (const std::string& name : names) {
    const auto found = index.find(name);
    if (found == index.end())
      throw std::invalid_argument("node '" + name + "' is not in the machine configuration (" + source + ")");
    nodes.push_back(found->second);
  }
  return nodes;
}

std::optional<double> parse_seconds(std::string_view text) { return parse_plain_decimal(text, 3600); }

std::optional<double> parse_plain_decimal(std::string_view text, double max) {
  std::size_t digits = 0, points = 0;
  for (char c : text) {
    if (c >= '0' && c <= '9')
      ++digits;
    else if (c == '.')
      ++points;
    else
      return std::nullopt;
  }
  if (digits == 0 || points > 1 || digits > 12) return std::nullopt;
  const double number = std::stod(std::string(text));
  if (number > max) return std::nullopt;
  return number;
}

std::optional<MemoryLimit> parse_memory_limit(std::string_view text) {
  MemoryLimit limit;
  if (text == "none") {
    limit.unlimited = true;
    return limit;
  }
  // A plain decimal number, then an optional unit.
  std::size_t end = 0, points = 0, digits = 0;
  while (end < text.size() && ((text[end] >= '0' && text[end] <= '9') || text[end] == '.')) {
    (text[end] == '.' ? points : digits)++;
    ++end;
  }
  if (digits == 0 || points > 1 || digits > 15) return std::nullopt;
  const double number = std::stod(std::string(text.substr(0, end)));
  std::string_view unit = text.substr(end);
  if (unit == "%") {
    if (number <= 0 || number > 100) return std::nullopt;
    limit.node_fraction = number / 100;
    return limit;
  }
  double scale = 1;
  if (!unit.empty()) {
    const std::string_view prefixes = "KMGT";
    const std::size_t power = prefixes.find(unit.front());
    if (power == std::string_view::npos) return std::nullopt;
    unit.remove_prefix(1);
    if (!unit.empty() && unit != "B" && unit != "iB") return std::nullopt;
    scale = static_cast<double>(std::uint64_t{1} << (10 * (power + 1)));
  }
  const double bytes = number * scale;
  // At least a mebibyte: nothing smaller can run, and "4" is a missing unit.
  if (bytes < double(1 << 20) || bytes > 1e18) return std::nullopt;
  limit.bytes = static_cast<std::uint64_t>(bytes);
  return limit;
}

std::string format_bytes(std::uint64_t bytes) {
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, value < 100 ? "%.1f %s" : "%.0f %s", value, units[unit]);
  return buffer;
}

std::string memory_limit_text(const MemoryLimit& limit) {
  if (limit.unlimited) return "none";
  if (limit.bytes) return format_bytes(limit.bytes);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g%% of the node's memory", limit.node_fraction * 100);
  return buffer;
}

Config desmos_default_config() {
  Config config;
  config.source = kBuiltinSource;
  // One cable in each size-2 dimension, as Desmos is built (doc/design.md,
  // "Cabling"): 5 cables per adapter instead of 8.
  config.torus = Torus({4, 2, 2, 2}).with_single_cable(Torus::parse_dimension_letters("YZK"));
  config.node_names = expand_hostlist("desmos[00-31]");
  config.index_node_names();
  config.fingerprint = "built-in";
  return config;
}

Config parse_config(const std::string& yaml_text, const std::string& source_name) {
  check_nesting(source_name, yaml_text);
  YamlParser parser(yaml_text);
  YamlDocument document;
  if (!document.load(parser)) throw_syntax_error(source_name, yaml_text, parser.state());
  const yaml_node_t* root = document.root();
  if (!root) throw ConfigError(source_name, 1, 1, "the configuration is empty (machine.torus and machine.nodes are required)");
  Config config = ConfigReader(source_name, document).read(root);
  config.fingerprint = fnv1a_hex(yaml_text);
  config.bytes = yaml_text.size();

  YamlDocument next;
  if (!next.load(parser)) throw_syntax_error(source_name, yaml_text, parser.state());
  if (const yaml_node_t* extra = next.root()) {
    const Position at = position_of(extra->start_mark);
    throw ConfigError(source_name, at.line, at.column, "only one YAML document is allowed");
  }
  return config;
}

Config load_config(const std::string& path) {
  // A regular file of bounded size: a FIFO or /dev/zero must not hang or
  // exhaust memory (angara.yaml(5), LIMITS).
  const FileContents file = read_regular_file(path, kMaxConfigBytes);
  if (!file.error.empty()) throw ConfigError(path, 0, 0, file.error);
  return parse_config(file.text, path);
}

std::string listed_failures(const Config& config) {
  const std::size_t routers = config.failed_nodes.size(), cables = config.failed_links.size();
  if (routers == 0 && cables == 0) return "no failed routers or cables";
  std::string out;
  if (routers) {
    std::vector<std::string> names;
    for (NodeId node : config.failed_nodes) names.push_back(config.node_name(node));
    out = std::to_string(routers) + " failed router" + (routers == 1 ? "" : "s") + " (" + compress_hostlist(names) + ")";
  }
  if (cables) {
    // The first few cables by name; the count says how many there are.
    constexpr std::size_t kShown = 4;
    std::string shown;
    for (std::size_t i = 0; i < cables && i < kShown; ++i)
      shown += (i ? ", " : "") + config.node_name(config.failed_links[i].first) + " " +
               config.failed_links[i].second.token();
    if (cables > kShown) shown += ", ...";
    out += (out.empty() ? "" : " and ") + std::to_string(cables) + " failed cable" + (cables == 1 ? "" : "s") + " (" +
           shown + ")";
  }
  return out;
}

std::string config_summary(const Config& config) {
  const std::string size = config.bytes ? " (" + std::to_string(config.bytes) + " bytes)" : "";
  return config.fingerprint + size + ", lists " + listed_failures(config);
}

std::string system_config_path() { return std::string(SYSCONFDIR) + "/angara/angara.yaml"; }

std::string config_file_to_read(const std::string& path) {
  if (!path.empty()) return path;
  if (const char* env = std::getenv("ANGARA_CONFIG"); env && *env) return env;
  struct stat info {};
  if (::stat(system_config_path().c_str(), &info) == 0) return system_config_path();
  return "";
}

Config find_config(const std::string& path) {
  const std::string file = config_file_to_read(path);
  return file.empty() ? desmos_default_config() : load_config(file);
}

}  // namespace angara
