// The route dump (doc/model.md, "Route dump format"): plain text,
// one route per line, so that any tool can check a table independently.
#include "angara/route_dump.hpp"

#include <istream>
#include <ostream>
#include <stdexcept>
#include <unordered_map>

namespace angara {

namespace {

constexpr const char* kMagic = "angara-routes";
constexpr const char* kVersion = "v1";

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t pos = 0;
  while (pos < line.size()) {
    const std::size_t start = line.find_first_not_of(" \t", pos);
    if (start == std::string_view::npos) break;
    std::size_t end = line.find_first_of(" \t", start);
    if (end == std::string_view::npos) end = line.size();
    fields.push_back(line.substr(start, end - start));
    pos = end;
  }
  return fields;
}

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

class DumpReader {
 public:
  DumpReader(std::istream& in, const Torus& torus, const std::string& source_name)
      : in_(in), torus_(torus), source_name_(source_name) {}

  RouteTable read() {
    read_header();
    std::string line;
    while (next_line(line)) {
      const std::size_t first = line.find_first_not_of(" \t");
      if (first == std::string::npos || line[first] == '#') continue;
      read_route(line);
    }
    std::vector<NodeId> nodes;
    nodes.reserve(routes_.size());
    for (const Entry& entry : routes_) {
      nodes.push_back(entry.src);
      nodes.push_back(entry.dst);
    }
    RouteTable table(std::move(nodes));
    table.algorithm = algorithm_;
    table.rules = rules_;
    table.flow_control = flow_control_;
    for (Entry& entry : routes_)
      table.set_route(table.index_of(entry.src), table.index_of(entry.dst), std::move(entry.route));
    return table;
  }

 private:
  struct Entry {
    NodeId src;
    NodeId dst;
    Route route;
  };

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(source_name_ + ":" + std::to_string(line_number_) + ": " + what);
  }

  bool next_line(std::string& line) {
    if (!std::getline(in_, line)) return false;
    ++line_number_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }

  std::string expected_header() const {
    std::string header = std::string("# ") + kMagic + " " + kVersion + " dims=" + torus_.to_string() + " algorithm=NAME";
    if (torus_.single_cable_mask()) header += " single_cable=" + Torus::dimension_letters(torus_.single_cable_mask());
    return header;
  }

  void read_header() {
    std::string line;
    if (!next_line(line)) {
      line_number_ = 1;
      fail("expected the header '" + expected_header() + "', got an empty file");
    }
    const auto fields = split_fields(line);
    if (fields.size() < 5 || fields[0] != "#" || fields[1] != kMagic || !starts_with(fields[3], "dims=") ||
        !starts_with(fields[4], "algorithm="))
      fail("expected the header '" + expected_header() + "', got '" + line + "'");
    if (fields[2] != kVersion)
      fail(std::string("expected format version ") + kVersion + ", got '" + std::string(fields[2]) + "'");
    if (fields[3].substr(5) != torus_.to_string())
      fail("expected dims=" + torus_.to_string() + " (the configured torus), got " + std::string(fields[3]));
    algorithm_ = std::string(fields[4].substr(10));
    if (algorithm_.empty()) fail("expected an algorithm name after 'algorithm='");
    std::uint8_t single_cable = 0;
    // More key=value words may follow; the rule set and the deadlock rule
    // are read, other words are ignored (doc/model.md, "Route dump format").
    for (std::size_t i = 5; i < fields.size(); ++i) {
      if (starts_with(fields[i], "rules=")) {
        const auto rules = parse_rule_set(fields[i].substr(6));
        if (!rules) fail("expected rules=angara or rules=general, got " + std::string(fields[i]));
        rules_ = *rules;
      } else if (starts_with(fields[i], "flow_control=")) {
        const auto flow = parse_flow_control(fields[i].substr(13));
        if (!flow) fail("expected flow_control=bubble or flow_control=none, got " + std::string(fields[i]));
        flow_control_ = *flow;
      } else if (starts_with(fields[i], "single_cable=")) {
        try {
          single_cable = Torus::parse_dimension_letters(fields[i].substr(13));
        } catch (const std::invalid_argument& e) {
          fail("bad " + std::string(fields[i]) + ": " + e.what());
        }
      }
    }
    // The cabling must be the configured one: a table for other cabling
    // may send packets out of ports without a cable.
    if (single_cable != torus_.single_cable_mask()) {
      const auto words = [](std::uint8_t mask) {
        return mask ? "single_cable=" + Torus::dimension_letters(mask) : std::string("no single_cable word");
      };
      fail("expected " + words(torus_.single_cable_mask()) + " (the configured cabling), got " + words(single_cable));
    }
  }

  NodeId read_node(std::string_view field, const char* role) const {
    try {
      return torus_.id(torus_.parse_coord(field));
    } catch (const std::invalid_argument& e) {
      fail(std::string("expected a ") + role + " coordinate like " + torus_.format_coord(Coord{}) + ", got '" +
           std::string(field) + "' (" + e.what() + ")");
    }
  }

  std::uint8_t read_layer(std::string_view field) const {
    int value = 0;
    // At most three digits: a long field must not overflow the sum (fuzz
    // finding, tests/fuzz/regressions/route_dump/).
    bool ok = !field.empty() && field.size() <= 3;
    for (std::size_t i = 0; ok && i < field.size(); ++i) {
      if (field[i] < '0' || field[i] > '9') ok = false;
      value = value * 10 + (field[i] - '0');
    }
    if (!ok || value > 255) fail("expected a virtual channel number from 0 to 255, got '" + std::string(field) + "'");
    return static_cast<std::uint8_t>(value);
  }

  void read_route(const std::string& line) {
    const auto fields = split_fields(line);
    if (fields.size() < 4)
      fail("expected 'SOURCE DESTINATION VIRTUAL_CHANNEL HOP...', got '" + line + "'");
    Entry entry;
    entry.src = read_node(fields[0], "source");
    entry.dst = read_node(fields[1], "destination");
    if (entry.src == entry.dst)
      fail("expected a destination other than the source, got " + std::string(fields[0]) + " twice");
    entry.route.layer = read_layer(fields[2]);
    for (std::size_t k = 3; k < fields.size(); ++k) {
      const auto hop = Direction::parse(fields[k]);
      if (!hop) fail("expected a hop like +X or -K, got '" + std::string(fields[k]) + "'");
      entry.route.hops.push_back(*hop);
    }
    NodeId at = kNoNode;
    const std::size_t uncabled = torus_.first_uncabled_hop(entry.src, entry.route.hops, &at);
    if (uncabled < entry.route.hops.size())
      fail("the route " + entry.route.to_string() + " from " + std::string(fields[0]) + " leaves at hop " +
           std::to_string(uncabled + 1) + " through a port without a cable: " +
           torus_.missing_cable_text(at, entry.route.hops[uncabled]));
    const std::uint64_t key = static_cast<std::uint64_t>(entry.src) * torus_.node_count() + entry.dst;
    const auto [where, inserted] = first_line_of_pair_.emplace(key, line_number_);
    if (!inserted)
      fail("expected one route per pair, but " + torus_.format_coord(entry.src) + " -> " +
           torus_.format_coord(entry.dst) + " was already given on line " + std::to_string(where->second));
    routes_.push_back(std::move(entry));
  }

  std::istream& in_;
  const Torus& torus_;
  const std::string& source_name_;
  std::size_t line_number_ = 0;
  std::string algorithm_;
  RuleSet rules_ = RuleSet::angara;
  FlowControl flow_control_ = FlowControl::bubble;
  std::vector<Entry> routes_;
  std::unordered_map<std::uint64_t, std::size_t> first_line_of_pair_;
};

}  // namespace

void write_route_dump(std::ostream& out, const Torus& torus, const RouteTable& table) {
  out << "# " << kMagic << ' ' << kVersion << " dims=" << torus.to_string()
      << " algorithm=" << (table.algorithm.empty() ? "unknown" : table.algorithm)
      << " rules=" << rule_set_name(table.rules) << " flow_control=" << flow_control_name(table.flow_control)
      << " virtual_channels=" << table.virtual_channels();
  if (torus.single_cable_mask()) out << " single_cable=" << Torus::dimension_letters(torus.single_cable_mask());
  out << '\n';
  // nodes() is sorted by NodeId, so sources and destinations come out in
  // ascending node order (X varies fastest).  Missing routes are left out:
  // a reader's verifier reports them.
  const std::vector<NodeId>& nodes = table.nodes();
  std::string line;
  for (std::size_t s = 0; s < nodes.size(); ++s) {
    const std::string src = torus.format_coord(nodes[s]);
    for (std::size_t d = 0; d < nodes.size(); ++d) {
      if (!table.has_route(s, d)) continue;
      const Route& route = table.route(s, d);
      line = src;
      line += ' ';
      line += torus.format_coord(nodes[d]);
      line += ' ';
      line += std::to_string(route.layer);
      for (Direction hop : route.hops) {
        line += ' ';
        line += hop.token();
      }
      line += '\n';
      out << line;
    }
  }
}

RouteTable read_route_dump(std::istream& in, const Torus& torus, const std::string& source_name) {
  return DumpReader(in, torus, source_name).read();
}

}  // namespace angara
