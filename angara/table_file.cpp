// Per-router table files, format angara-tables(5).  The file is plain text so
// an administrator can read it, yet every field is checked on reading: the
// checksum line catches torn writes and edits, and the hop tokens repeat the
// header flit so a hand edit of either is caught too.
#include "angara/table_file.hpp"

#include "angara/file_io.hpp"
#include "angara/table_set.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>

namespace angara {

namespace {

constexpr std::string_view kMagic = "# angara-table v1";
constexpr std::string_view kMagicPrefix = "# angara-table v";
constexpr std::string_view kChecksumKeyword = "checksum ";
constexpr std::string_view kChecksumPrefix = "checksum crc32 ";
constexpr std::string_view kTableSuffix = ".rt";

constexpr std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t byte = 0; byte < 256; ++byte) {
    std::uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1u) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
    table[byte] = crc;
  }
  return table;
}
constexpr std::array<std::uint32_t, 256> kCrcTable = make_crc_table();

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::string hex8(std::uint32_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(8, '0');
  for (int i = 0; i < 8; ++i) out[7 - i] = kDigits[(value >> (4 * i)) & 0xF];
  return out;
}

// A header value is one word of printable ASCII; "-" stands for "empty".
bool is_word(std::string_view value) {
  if (value.empty()) return false;
  return std::all_of(value.begin(), value.end(), [](char ch) { return ch > ' ' && ch <= '~'; });
}

std::string value_word(const std::string& value, const char* field) {
  if (value.empty()) return "-";
  if (value == "-" || !is_word(value))
    throw std::invalid_argument(std::string(field) + " '" + value +
                                "' must be one word of printable ASCII other than '-'");
  return value;
}

// "" when every hop of `route` from `from` leaves through a cabled port.
std::string uncabled_hop_problem(const Torus& torus, NodeId from, const Route& route) {
  NodeId at = kNoNode;
  const std::size_t hop = torus.first_uncabled_hop(from, route.hops, &at);
  if (hop == route.hops.size()) return "";
  return "the route '" + route.to_string() + "' from " + torus.format_coord(from) + " leaves at hop " +
         std::to_string(hop + 1) + " through a port without a cable: " + torus.missing_cable_text(at, route.hops[hop]);
}

NodeId walk(const Torus& torus, NodeId from, const std::vector<Direction>& hops) {
  for (Direction d : hops) from = torus.neighbor(from, d);
  return from;
}

// Reads the body of a table file; every method reports "SOURCE: ...".
class TableParser {
 public:
  TableParser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  NodeTable parse() {
    check_magic();
    const std::string_view body = check_checksum();
    split_lines(body);
    NodeTable table;
    std::size_t line = 1;  // the magic line
    parse_machine_line(++line, table);
    parse_node_line(++line, table);
    table.job = word_value(++line, "job", "<job id or default>");
    table.algorithm = word_value(++line, "algorithm", "<name>");
    // "chain a,b", optional (one generator, and files of earlier versions).
    if (line < lines_.size() && starts_with(line_text(line + 1), "chain "))
      table.chain = word_value(++line, "chain", "<name,name,...>");
    table.fingerprint = word_value(++line, "fingerprint", "<hex>");
    if (line < lines_.size() && starts_with(line_text(line + 1), "virtual_channels"))
      table.virtual_channels = parse_virtual_channels(++line);
    const std::size_t declared = parse_count(++line);
    const std::size_t present = lines_.size() - line;
    if (declared != present)
      fail("the entries line says " + std::to_string(declared) + " but the file has " +
           std::to_string(present) + " entry lines");
    table.entries.reserve(declared);
    while (line < lines_.size()) parse_entry(++line, table);
    return table;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { throw TableFileError(source_ + ": " + message); }
  [[noreturn]] void fail_line(std::size_t line, const std::string& message) const {
    fail("line " + std::to_string(line) + ": " + message);
  }
  std::string_view line_text(std::size_t line) const { return lines_[line - 1]; }
  [[noreturn]] void expected(std::size_t line, const std::string& what) const {
    fail_line(line, "expected '" + what + "', got '" + std::string(line_text(line)) + "'");
  }

  void check_magic() const {
    if (text_.empty()) fail("empty file: not an angara table file");
    const std::string_view first = text_.substr(0, text_.find('\n'));
    if (first == kMagic) return;
    if (starts_with(first, kMagicPrefix))
      fail("unsupported angara-table format version '" + std::string(first.substr(kMagicPrefix.size())) +
           "' (this reader understands v1)");
    fail("not an angara table file (the first line is not '" + std::string(kMagic) + "')");
  }

  // Verifies the final checksum line and returns the bytes it covers.
  std::string_view check_checksum() const {
    if (text_.back() != '\n') fail("truncated file: no checksum line");
    const std::size_t previous_newline = text_.rfind('\n', text_.size() - 2);
    const std::size_t start = previous_newline == std::string_view::npos ? 0 : previous_newline + 1;
    const std::string_view last = text_.substr(start, text_.size() - 1 - start);
    if (!starts_with(last, kChecksumKeyword)) fail("truncated file: no checksum line");
    const std::string_view digits = last.substr(std::min(last.size(), kChecksumPrefix.size()));
    const auto is_hex = [](char ch) { return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'); };
    if (!starts_with(last, kChecksumPrefix) || digits.size() != 8 ||
        !std::all_of(digits.begin(), digits.end(), is_hex))
      fail("the last line must read 'checksum crc32 <8 lowercase hex digits>', got '" + std::string(last) + "'");
    const std::string_view body = text_.substr(0, start);
    if (digits != hex8(crc32(body))) fail("checksum mismatch: file is torn or was modified");
    return body;
  }

  void split_lines(std::string_view body) {
    std::size_t pos = 0;
    while (pos < body.size()) {
      const std::size_t end = body.find('\n', pos);  // body ends with '\n'
      lines_.push_back(body.substr(pos, end - pos));
      pos = end + 1;
    }
    if (lines_.size() < 7)
      fail("missing header lines: only " + std::to_string(lines_.size()) + " lines before the checksum");
  }

  // "KEY VALUE" with VALUE one word; returns VALUE.
  std::string_view field(std::size_t line, std::string_view key, const std::string& value_hint) const {
    const std::string_view text = line_text(line);
    const std::string_view value = text.substr(std::min(text.size(), key.size() + 1));
    if (!starts_with(text, key) || text.size() <= key.size() || text[key.size()] != ' ' || !is_word(value))
      expected(line, std::string(key) + " " + value_hint);
    return value;
  }

  std::string word_value(std::size_t line, std::string_view key, const std::string& value_hint) const {
    const std::string_view value = field(line, key, value_hint);
    return value == "-" ? std::string() : std::string(value);
  }

  // "machine 4x2x2x2" or "machine 4x2x2x2 single_cable=YZK".
  void parse_machine_line(std::size_t line, NodeTable& table) const {
    const std::string hint = "machine <sizes like 4x2x2x2> [single_cable=<letters like YZK>]";
    const std::string_view text = line_text(line);
    if (!starts_with(text, "machine ")) expected(line, hint);
    std::string_view sizes = text.substr(8), cabling;
    if (const std::size_t space = sizes.find(' '); space != std::string_view::npos) {
      cabling = sizes.substr(space + 1);
      sizes = sizes.substr(0, space);
      if (!starts_with(cabling, "single_cable=") || !is_word(cabling)) expected(line, hint);
    }
    if (!is_word(sizes)) expected(line, hint);
    try {
      table.torus = Torus::parse(sizes);
      if (!cabling.empty()) table.torus = table.torus.with_single_cable(Torus::parse_dimension_letters(cabling.substr(13)));
    } catch (const std::invalid_argument& e) {
      fail_line(line, e.what());
    }
  }

  void parse_node_line(std::size_t line, NodeTable& table) const {
    const std::string hint = "node <coordinate> <name>";
    const std::string_view text = line_text(line);
    if (!starts_with(text, "node ")) expected(line, hint);
    const std::string_view rest = text.substr(5);
    const std::size_t space = rest.find(' ');
    if (space == std::string_view::npos || !is_word(rest.substr(space + 1))) expected(line, hint);
    try {
      table.node = table.torus.id(table.torus.parse_coord(rest.substr(0, space)));
    } catch (const std::invalid_argument& e) {
      fail_line(line, e.what());
    }
    const std::string_view name = rest.substr(space + 1);
    table.node_name = name == "-" ? std::string() : std::string(name);
  }

  // "virtual_channels N", optional (earlier versions did not write it).
  int parse_virtual_channels(std::size_t line) const {
    const std::string_view value = field(line, "virtual_channels", "<1 to 8>");
    if (value.size() != 1 || value[0] < '1' || value[0] > '8') expected(line, "virtual_channels <1 to 8>");
    return value[0] - '0';
  }

  std::size_t parse_count(std::size_t line) const {
    const std::string_view value = field(line, "entries", "<number of entry lines>");
    std::size_t count = 0;
    for (char ch : value) {
      if (ch < '0' || ch > '9' || count > (1u << 24)) expected(line, "entries <number of entry lines>");
      count = count * 10 + static_cast<std::size_t>(ch - '0');
    }
    return count;
  }

  // "DEST HEADER LAYER HOP...": the hops and layer must agree with the header.
  void parse_entry(std::size_t line, NodeTable& table) const {
    const std::string hint = "<destination> <32 hex digit header> <layer> <hops>";
    std::string_view rest = line_text(line);
    std::string_view tokens[3];
    for (std::string_view& token : tokens) {
      const std::size_t space = rest.find(' ');
      if (space == std::string_view::npos) expected(line, hint);
      token = rest.substr(0, space);
      rest.remove_prefix(space + 1);
    }
    const Torus& torus = table.torus;
    TableEntry entry;
    std::optional<HeaderFlit> header = HeaderFlit::from_hex(std::string(tokens[1]));
    if (!header) fail_line(line, "expected a header flit of 32 hex digits, got '" + std::string(tokens[1]) + "'");
    unsigned layer = 0;
    if (tokens[2].empty() || tokens[2].size() > 3) expected(line, hint);
    for (char ch : tokens[2]) {
      if (ch < '0' || ch > '9') expected(line, hint);
      layer = layer * 10 + static_cast<unsigned>(ch - '0');
    }
    NodeId header_destination = kNoNode;
    try {
      entry.destination = torus.id(torus.parse_coord(tokens[0]));
      entry.route.hops = parse_hops(rest);
      entry.route.layer = static_cast<std::uint8_t>(layer);
      const Route decoded = decode_route(torus, *header, &header_destination);
      if (header_destination != entry.destination)
        fail_line(line, "the header flit is addressed to " + torus.format_coord(header_destination) +
                            ", not to " + torus.format_coord(entry.destination));
      if (decoded.layer != layer)
        fail_line(line, "layer " + std::to_string(layer) + " disagrees with the header flit's virtual channel " +
                            std::to_string(decoded.layer));
      if (table.virtual_channels > 0 && layer >= static_cast<unsigned>(table.virtual_channels))
        fail_line(line, "layer " + std::to_string(layer) + " is not below the file's virtual_channels " +
                            std::to_string(table.virtual_channels));
      if (decoded.hops != entry.route.hops)
        fail_line(line, "hops '" + entry.route.to_string() + "' disagree with the header flit, which encodes '" +
                            decoded.to_string() + "'");
    } catch (const std::invalid_argument& e) {
      fail_line(line, e.what());
    }
    if (entry.destination == table.node) fail_line(line, "an entry for the table's own node");
    if (!table.entries.empty() && entry.destination <= table.entries.back().destination)
      fail_line(line, "destinations must be in ascending node order without repeats");
    if (const std::string problem = uncabled_hop_problem(torus, table.node, entry.route); !problem.empty())
      fail_line(line, problem);
    const NodeId end = walk(torus, table.node, entry.route.hops);
    if (end != entry.destination)
      fail_line(line, "the route '" + entry.route.to_string() + "' from " + torus.format_coord(table.node) +
                          " ends at " + torus.format_coord(end));
    table.entries.push_back(std::move(entry));
  }

  std::string_view text_;
  const std::string& source_;
  std::vector<std::string_view> lines_;
};

}  // namespace

std::uint32_t crc32(std::string_view bytes) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char byte : bytes) crc = kCrcTable[(crc ^ byte) & 0xFFu] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

NodeTable node_table_from(const RouteTable& table, std::size_t src_index, const Torus& torus) {
  if (src_index >= table.size())
    throw std::invalid_argument("allocation index " + std::to_string(src_index) + " is out of range");
  NodeTable out;
  out.torus = torus;
  out.node = table.nodes()[src_index];
  out.algorithm = table.algorithm;
  out.virtual_channels = static_cast<int>(table.virtual_channels());
  out.entries.reserve(table.size() - 1);
  // nodes() is sorted, so the entries come out in ascending NodeId.
  for (std::size_t dst = 0; dst < table.size(); ++dst) {
    if (dst == src_index) continue;
    if (!table.has_route(src_index, dst))
      throw std::invalid_argument("no route from " + torus.format_coord(out.node) + " to " +
                                  torus.format_coord(table.nodes()[dst]));
    out.entries.push_back(TableEntry{table.nodes()[dst], table.route(src_index, dst)});
  }
  return out;
}

std::string format_node_table(const NodeTable& table) {
  const Torus& torus = table.torus;
  if (table.node >= torus.node_count())
    throw std::invalid_argument("table node " + std::to_string(table.node) + " is outside the " +
                                torus.to_string() + " torus");
  std::string out;
  out.reserve(160 + table.entries.size() * (48 + 3 * 4));
  out += kMagic;
  out += "\nmachine " + torus.to_string();
  if (torus.single_cable_mask()) out += " single_cable=" + Torus::dimension_letters(torus.single_cable_mask());
  out += "\nnode " + torus.format_coord(table.node) + ' ' + value_word(table.node_name, "node name");
  out += "\njob " + value_word(table.job, "job");
  out += "\nalgorithm " + value_word(table.algorithm, "algorithm");
  if (!table.chain.empty()) out += "\nchain " + value_word(table.chain, "chain");
  out += "\nfingerprint " + value_word(table.fingerprint, "fingerprint");
  if (table.virtual_channels > 0) out += "\nvirtual_channels " + std::to_string(table.virtual_channels);
  out += "\nentries " + std::to_string(table.entries.size()) + '\n';
  NodeId previous = kNoNode;
  for (const TableEntry& entry : table.entries) {
    if (entry.destination >= torus.node_count() || entry.destination == table.node ||
        (previous != kNoNode && entry.destination <= previous))
      throw std::invalid_argument("table entries must be other nodes of the torus in ascending order");
    previous = entry.destination;
    if (const std::string problem = uncabled_hop_problem(torus, table.node, entry.route); !problem.empty())
      throw std::invalid_argument(problem);
    const NodeId end = walk(torus, table.node, entry.route.hops);
    if (end != entry.destination)
      throw std::invalid_argument("the route '" + entry.route.to_string() + "' from " +
                                  torus.format_coord(table.node) + " ends at " + torus.format_coord(end) +
                                  ", not at " + torus.format_coord(entry.destination));
    out += torus.format_coord(entry.destination);
    out += ' ';
    out += encode_route(torus, entry.route, entry.destination).to_hex();
    out += ' ';
    out += std::to_string(entry.route.layer);
    out += ' ';
    out += entry.route.to_string();
    out += '\n';
  }
  const std::uint32_t checksum = crc32(out);
  out += kChecksumPrefix;
  out += hex8(checksum);
  out += '\n';
  return out;
}

NodeTable parse_node_table(const std::string& text, const std::string& source_name) {
  return TableParser(text, source_name).parse();
}

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  // Never rename over a device, a FIFO or a directory; never create missing
  // directories here (the caller decides, see ensure_directory).
  if (const std::string problem = check_output_file(path); !problem.empty())
    throw TableFileError("cannot write " + path + ": " + problem);
  if (const std::string error = replace_file_atomically(path, write); !error.empty()) throw TableFileError(error);
}

void write_file_atomically(const std::string& path, const std::string& contents) {
  write_file_atomically(path, [&contents](std::ostream& out) { out << contents; });
}

std::string table_file_name(const NodeTable& table) {
  if (table.node_name.empty()) {
    std::string coordinate = table.torus.format_coord(table.node);
    std::replace(coordinate.begin(), coordinate.end(), ',', '_');
    return coordinate + std::string(kTableSuffix);
  }
  // Readers skip dot files (temporaries), so such a name would be lost.
  if (table.node_name.find('/') != std::string::npos || table.node_name.front() == '.')
    throw std::invalid_argument("node name '" + table.node_name + "' cannot be used as a file name");
  return table.node_name + std::string(kTableSuffix);
}

void write_node_table(const std::string& directory, const NodeTable& table) {
  publish_table_file(directory, TableFileData{table_file_name(table), format_node_table(table)});
}

NodeTable read_node_table(const std::string& path) {
  FileContents file = read_regular_file(path, kMaxTableFileBytes);
  if (file.error_number != 0) throw TableFileError("cannot read " + path + ": " + std::strerror(file.error_number));
  if (!file.error.empty()) throw TableFileError(file.error);
  return parse_node_table(file.text, path);
}

void check_table_file_name(const NodeTable& table, const std::string& path) {
  const std::string expected = table_file_name(table);
  const std::string actual = base_name(path);
  if (actual != expected)
    throw TableFileError(path + ": holds the table of node " + (table.node_name.empty() ? "" : table.node_name + " ") +
                         "(" + table.torus.format_coord(table.node) + "), whose file is " + expected +
                         "; a router must never load another node's routes");
}

std::vector<NodeTable> read_table_directory(const std::string& directory) {
  std::vector<NodeTable> tables;
  for (const TableFileData& file : read_table_files(directory)) {
    const std::string path = directory + "/" + file.name;
    tables.push_back(parse_node_table(file.contents, path));
    check_table_file_name(tables.back(), path);
  }
  return tables;
}

}  // namespace angara
