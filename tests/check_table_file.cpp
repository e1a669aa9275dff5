// Per-router table files (angara-tables(5)): exact text, round trip, and
// rejection of torn, modified, foreign and future-version files; the atomic
// write protocol and the table directory reader.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "angara/route.hpp"
#include "angara/table_file.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using angara_test::error_message;
namespace fs = std::filesystem;

namespace {

// The 2x2 table of node (0,0) below, as written; its CRC-32 was computed
// independently (python3 zlib.crc32 of the lines before "checksum").
const char* const kTinyBody =
    "# angara-table v1\n"
    "machine 2x2\n"
    "node 0,0 n00\n"
    "job 1234\n"
    "algorithm bfs\n"
    "fingerprint 0123abcd\n"
    "entries 3\n"
    "1,0 a0000000000000010000000000008100 0 -X\n"
    "0,1 a0000000000001000000000000010000 0 +Y\n"
    "1,1 a0000000000001010000010000010100 1 +X +Y\n";
const char* const kTinyChecksum = "checksum crc32 26f97c3d\n";

std::string tiny_text() { return std::string(kTinyBody) + kTinyChecksum; }

Route make_route(const std::string& hops, int layer = 0) {
  Route r;
  r.hops = parse_hops(hops);
  r.layer = static_cast<std::uint8_t>(layer);
  return r;
}

NodeTable tiny_table() {
  const Torus t = Torus::parse("2x2");
  RouteTable routes({0, 1, 2, 3});
  routes.algorithm = "bfs";
  routes.set_route(0, 1, make_route("-X"));
  routes.set_route(0, 2, make_route("+Y"));
  routes.set_route(0, 3, make_route("+X +Y", 1));
  NodeTable table = node_table_from(routes, 0, t);
  table.node_name = "n00";
  table.job = "1234";
  table.fingerprint = "0123abcd";
  table.virtual_channels = 0;  // as files without the virtual_channels line
  return table;
}

// Appends a correct checksum line, as a careful forger would.
std::string reseal(const std::string& body) {
  char digits[9];
  std::snprintf(digits, sizeof digits, "%08x", crc32(body));
  return body + "checksum crc32 " + digits + "\n";
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const std::size_t pos = text.find(from);
  ck_assert_msg(pos != std::string::npos, "'%s' not in the text", from.c_str());
  return text.replace(pos, from.size(), to);
}

// The TableFileError message `action` throws, "" if none.
std::string table_error(const std::function<void()>& action) {
  try {
    action();
  } catch (const TableFileError& e) {
    return e.what();
  }
  return "";
}

std::string parse_error(const std::string& text) {
  return table_error([&] { parse_node_table(text, "t.rt"); });
}

// The reader's message for the tiny table with `from` replaced by `to` and the
// checksum recomputed, so that only the redundancy inside the file can tell.
std::string resealed_edit_error(const std::string& from, const std::string& to) {
  return parse_error(reseal(replace_once(kTinyBody, from, to)));
}

void assert_same(const NodeTable& a, const NodeTable& b) {
  ck_assert(a.torus == b.torus);
  ck_assert_uint_eq(a.node, b.node);
  ck_assert_std_str_eq(a.node_name, b.node_name);
  ck_assert_std_str_eq(a.algorithm, b.algorithm);
  ck_assert_std_str_eq(a.job, b.job);
  ck_assert_std_str_eq(a.fingerprint, b.fingerprint);
  ck_assert_uint_eq(a.entries.size(), b.entries.size());
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    ck_assert_uint_eq(a.entries[i].destination, b.entries[i].destination);
    ck_assert(a.entries[i].route == b.entries[i].route);
  }
}

// A fresh directory under /tmp, removed with everything in it at scope exit.
class ScratchDir {
 public:
  ScratchDir() {
    char pattern[] = "/tmp/check_table_file.XXXXXX";
    ck_assert(::mkdtemp(pattern) != nullptr);
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  // .angara holds the table sets and the writers' lock (angara-tables(5)).
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename() != ".angara") names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Minimal dimension-order route from a to b (positive first on a tie).
Route dor_route(const Torus& t, NodeId a, NodeId b, int layer) {
  Route r;
  r.layer = static_cast<std::uint8_t>(layer);
  const Coord ca = t.coord(a), cb = t.coord(b);
  std::vector<Direction> negative;
  for (int dim = 0; dim < kMaxDims; ++dim) {
    const int size = t.size(dim);
    const int forward = ((cb[dim] - ca[dim]) % size + size) % size;
    if (forward == 0) continue;
    if (forward <= size - forward) r.hops.insert(r.hops.end(), forward, Direction::make(dim, false));
    else negative.insert(negative.end(), size - forward, Direction::make(dim, true));
  }
  r.hops.insert(r.hops.end(), negative.begin(), negative.end());
  return r;
}

}  // namespace

START_TEST(test_crc32_reference_value) {
  ck_assert_uint_eq(crc32("123456789"), 0xcbf43926u);
  ck_assert_uint_eq(crc32(""), 0u);
  ck_assert_uint_eq(crc32(kTinyBody), 0x26f97c3du);
}
END_TEST

START_TEST(test_exact_text) {
  ck_assert_std_str_eq(format_node_table(tiny_table()), tiny_text());
  ck_assert_std_str_eq(table_file_name(tiny_table()), "n00.rt");
}
END_TEST

// The virtual_channels line: written when known, read back, optional, and
// an entry on a layer at or above it is refused.  The text is the example of
// angara-tables(5), checksum included.
START_TEST(test_virtual_channels_line) {
  NodeTable with_layers = tiny_table();
  with_layers.virtual_channels = 2;
  const std::string text = format_node_table(with_layers);
  ck_assert_std_str_eq(text, replace_once(replace_once(tiny_text(), "entries 3\n", "virtual_channels 2\nentries 3\n"),
                                          "checksum crc32 26f97c3d", "checksum crc32 db6ad42f"));
  ck_assert_int_eq(parse_node_table(text, "t.rt").virtual_channels, 2);
  ck_assert_int_eq(parse_node_table(tiny_text(), "t.rt").virtual_channels, 0);
  // From a RouteTable: 1 + its highest layer.
  RouteTable routes({0, 1});
  routes.set_route(0, 1, make_route("-X", 3));
  routes.set_route(1, 0, make_route("+X"));
  ck_assert_int_eq(node_table_from(routes, 0, Torus::parse("2x2")).virtual_channels, 4);
  ck_assert_std_str_eq(resealed_edit_error("entries 3\n", "virtual_channels 1\nentries 3\n"),
                       "t.rt: line 11: layer 1 is not below the file's virtual_channels 1");
  ck_assert_std_str_eq(resealed_edit_error("entries 3\n", "virtual_channels 9\nentries 3\n"),
                       "t.rt: line 7: expected 'virtual_channels <1 to 8>', got 'virtual_channels 9'");
}
END_TEST

// The chain line: the chain asked for, written when it has several members
// (a rebuild reruns it whole), read back, optional.  Checksum from python3
// zlib.crc32 of the lines above it.
START_TEST(test_chain_line) {
  NodeTable chained = tiny_table();
  chained.chain = "balanced,bfs";
  const std::string text = format_node_table(chained);
  const std::string expected =
      replace_once(replace_once(tiny_text(), "algorithm bfs\n", "algorithm bfs\nchain balanced,bfs\n"),
                   "checksum crc32 26f97c3d", "checksum crc32 70c0efcf");
  ck_assert_std_str_eq(text, expected);
  ck_assert_std_str_eq(parse_node_table(text, "t.rt").chain, "balanced,bfs");
  ck_assert_std_str_eq(parse_node_table(text, "t.rt").algorithm, "bfs");
  ck_assert_std_str_eq(parse_node_table(tiny_text(), "t.rt").chain, "");
  ck_assert_std_str_eq(resealed_edit_error("algorithm bfs\n", "algorithm bfs\nchain \n"),
                       "t.rt: line 6: expected 'chain <name,name,...>', got 'chain '");
}
END_TEST

START_TEST(test_parse_exact) {
  const NodeTable t = parse_node_table(tiny_text(), "t.rt");
  ck_assert_std_str_eq(t.torus.to_string(), "2x2");
  ck_assert_uint_eq(t.node, 0u);
  ck_assert_std_str_eq(t.node_name, "n00");
  ck_assert_std_str_eq(t.job, "1234");
  ck_assert_std_str_eq(t.algorithm, "bfs");
  ck_assert_std_str_eq(t.fingerprint, "0123abcd");
  ck_assert_uint_eq(t.entries.size(), 3u);
  ck_assert_uint_eq(t.entries[2].destination, 3u);
  ck_assert_std_str_eq(t.entries[2].route.to_string(), "+X +Y");
  ck_assert_int_eq(t.entries[2].route.layer, 1);
  assert_same(t, tiny_table());
}
END_TEST

START_TEST(test_round_trip_desmos) {
  const Torus t = Torus::parse("4x2x2x2");
  // Allocation of every other node; source 5 with routes on layers 0..2 and
  // one FS/LS route, so the header's special steps go through the file too.
  std::vector<NodeId> nodes;
  for (NodeId n = 1; n < t.node_count(); n += 2) nodes.push_back(n);
  RouteTable routes(nodes);
  routes.algorithm = "sssp";
  const std::size_t src = routes.index_of(5);
  for (std::size_t dst = 0; dst < routes.size(); ++dst)
    if (dst != src) routes.set_route(src, dst, dor_route(t, 5, nodes[dst], static_cast<int>(dst % 3)));
  // 5 = (1,1,0,0) to 7 = (3,1,0,0): FS=+Y then a DOR middle +X +X -Y;
  // to 1 = (1,0,0,0): FS=+Y, middle +X, LS=-X.
  routes.set_route(src, routes.index_of(7), make_route("+Y +X +X -Y", 2));
  routes.set_route(src, routes.index_of(1), make_route("+Y +X -X", 2));
  NodeTable table = node_table_from(routes, src, t);
  ck_assert_uint_eq(table.entries.size(), 15u);
  ck_assert_uint_eq(table.entries.front().destination, 1u);
  ck_assert_uint_eq(table.entries.back().destination, 31u);
  ck_assert_std_str_eq(table.algorithm, "sssp");
  table.node_name = "desmos05";
  table.job = "default";
  const std::string text = format_node_table(table);
  ck_assert(text.find("\n3,1,0,0 a0000000000001030000020000810203 2 +Y +X +X -Y\n") != std::string::npos);
  ck_assert(text.find("\n1,0,0,0 a000000000000001000002000000010b 2 +Y +X -X\n") != std::string::npos);
  assert_same(parse_node_table(text, "x"), table);
  // Empty fields are written as "-" and read back empty.
  table.fingerprint.clear();
  table.node_name.clear();
  const std::string blank = format_node_table(table);
  ck_assert(blank.find("\nnode 1,1,0,0 -\n") != std::string::npos);
  ck_assert(blank.find("\nfingerprint -\n") != std::string::npos);
  assert_same(parse_node_table(blank, "x"), table);
  ck_assert_std_str_eq(table_file_name(table), "1_1_0_0.rt");
}
END_TEST

START_TEST(test_node_table_from_missing_route) {
  const Torus t = Torus::parse("2x2");
  RouteTable routes({0, 1, 3});
  routes.set_route(1, 0, make_route("+X"));
  ck_assert_std_str_eq(error_message<std::invalid_argument>([&] { node_table_from(routes, 1, t); }),
                       "no route from 1,0 to 1,1");
}
END_TEST

START_TEST(test_format_rejects_bad_tables) {
  NodeTable table = tiny_table();
  table.entries[0].route = make_route("+Y");  // does not reach (1,0)
  ck_assert_std_str_eq(error_message<std::invalid_argument>([&] { format_node_table(table); }),
                       "the route '+Y' from 0,0 ends at 0,1, not at 1,0");
  table = tiny_table();
  table.node_name = "two words";
  ck_assert_std_str_eq(error_message<std::invalid_argument>([&] { format_node_table(table); }),
                       "node name 'two words' must be one word of printable ASCII other than '-'");
  table = tiny_table();
  std::swap(table.entries[0], table.entries[1]);
  ck_assert_std_str_eq(error_message<std::invalid_argument>([&] { format_node_table(table); }),
                       "table entries must be other nodes of the torus in ascending order");
}
END_TEST

// The cabling travels in the machine line and is checked on read and write:
// no entry may leave through a port without a cable.
START_TEST(test_single_cable) {
  NodeTable table = tiny_table();
  table.torus = table.torus.with_single_cable(dimension_bit(1));  // Y: 0,0 has +Y only, which it uses
  const std::string text = format_node_table(table);
  ck_assert(text.find("\nmachine 2x2 single_cable=Y\n") != std::string::npos);
  const NodeTable back = parse_node_table(text, "t.rt");
  ck_assert_uint_eq(back.torus.single_cable_mask(), dimension_bit(1));
  assert_same(back, table);
  // X single-cabled: 0,0 has no -X cable, and its first entry is "-X".
  table.torus = Torus::parse("2x2").with_single_cable(dimension_bit(0));
  ck_assert_std_str_eq(error_message<std::invalid_argument>([&] { format_node_table(table); }),
                       "the route '-X' from 0,0 leaves at hop 1 through a port without a cable: port -X of 0,0 has "
                       "no cable (X is single-cabled: only +X at X=0 and -X at X=1 are cabled)");
  ck_assert_std_str_eq(resealed_edit_error("machine 2x2", "machine 2x2 single_cable=X"),
                       "t.rt: line 8: the route '-X' from 0,0 leaves at hop 1 through a port without a cable: port -X "
                       "of 0,0 has no cable (X is single-cabled: only +X at X=0 and -X at X=1 are cabled)");
  ck_assert_std_str_eq(resealed_edit_error("machine 2x2", "machine 2x2 single_cable=W"),
                       "t.rt: line 2: 'W' is not a dimension (expected X, Y, Z or K)");
  ck_assert_std_str_eq(resealed_edit_error("machine 2x2", "machine 2x2 single_cable=Z"),
                       "t.rt: line 2: Z is not a dimension of the 2x2 torus, so it cannot be single-cabled");
  ck_assert_std_str_eq(resealed_edit_error("machine 2x2", "machine 2x2 double_cable=Y"),
                       "t.rt: line 2: expected 'machine <sizes like 4x2x2x2> [single_cable=<letters like YZK>]', got "
                       "'machine 2x2 double_cable=Y'");
}
END_TEST

START_TEST(test_every_prefix_rejected) {
  const std::string text = tiny_text();
  for (std::size_t len = 0; len < text.size(); ++len)
    ck_assert_msg(!parse_error(text.substr(0, len)).empty(), "prefix of %zu bytes accepted", len);
  // Cut after a whole line: the checksum line is missing.
  const std::size_t cut = text.find("0,1 ");
  ck_assert_std_str_eq(parse_error(text.substr(0, cut)), "t.rt: truncated file: no checksum line");
  ck_assert_std_str_eq(parse_error(text.substr(0, cut + 5)), "t.rt: truncated file: no checksum line");
  ck_assert_std_str_eq(parse_error(""), "t.rt: empty file: not an angara table file");
}
END_TEST

START_TEST(test_every_flipped_byte_rejected) {
  const std::string text = tiny_text();
  for (std::size_t pos = 0; pos < text.size(); ++pos)
    for (unsigned char mask : {0x01, 0x20, 0x80}) {
      std::string bad = text;
      bad[pos] = static_cast<char>(static_cast<unsigned char>(bad[pos]) ^ mask);
      ck_assert_msg(!parse_error(bad).empty(), "flip %#x at byte %zu accepted", mask, pos);
    }
  std::string bad = text;
  bad[text.find("+Y")] = '-';
  ck_assert_std_str_eq(parse_error(bad), "t.rt: checksum mismatch: file is torn or was modified");
  bad = text;
  bad[text.size() - 2] = bad[text.size() - 2] == '0' ? '1' : '0';  // last checksum digit
  ck_assert_std_str_eq(parse_error(bad), "t.rt: checksum mismatch: file is torn or was modified");
}
END_TEST

START_TEST(test_foreign_and_future_files) {
  ck_assert_std_str_eq(parse_error("hello\n"),
                       "t.rt: not an angara table file (the first line is not '# angara-table v1')");
  ck_assert_std_str_eq(parse_error("# angara-routes v1 dims=2x2\n0,0 1,0 0 +X\n"),
                       "t.rt: not an angara table file (the first line is not '# angara-table v1')");
  ck_assert_std_str_eq(resealed_edit_error("# angara-table v1", "# angara-table v2"),
                       "t.rt: unsupported angara-table format version '2' (this reader understands v1)");
  const std::string other_sum = replace_once(tiny_text(), "checksum crc32 ", "checksum sha1 ");
  ck_assert_std_str_eq(parse_error(other_sum),
                       "t.rt: the last line must read 'checksum crc32 <8 lowercase hex digits>', got "
                       "'checksum sha1 26f97c3d'");
}
END_TEST

// Edits with a recomputed checksum: the redundancy inside the file still
// catches them, and the message names the line.
START_TEST(test_resealed_edits_rejected) {
  ck_assert_std_str_eq(resealed_edit_error("1 +X +Y", "1 +Y +X"),
                       "t.rt: line 10: hops '+Y +X' disagree with the header flit, which encodes '+X +Y'");
  ck_assert_std_str_eq(resealed_edit_error("1 +X +Y", "0 +X +Y"),
                       "t.rt: line 10: layer 0 disagrees with the header flit's virtual channel 1");
  ck_assert_std_str_eq(resealed_edit_error("1,1 a0", "0,1 a0"),
                       "t.rt: line 10: the header flit is addressed to 1,1, not to 0,1");
  ck_assert_std_str_eq(resealed_edit_error("entries 3", "entries 4"),
                       "t.rt: the entries line says 4 but the file has 3 entry lines");
  ck_assert_std_str_eq(resealed_edit_error("machine 2x2", "machin 2x2"),
                       "t.rt: line 2: expected 'machine <sizes like 4x2x2x2> [single_cable=<letters like YZK>]', got 'machin 2x2'");
  ck_assert_std_str_eq(resealed_edit_error("machine 2x2", "machine 2x2x0"),
                       "t.rt: line 2: torus sizes must be at least 1");
  ck_assert_std_str_eq(resealed_edit_error("node 0,0 n00", "node 0,0"),
                       "t.rt: line 3: expected 'node <coordinate> <name>', got 'node 0,0'");
  ck_assert_std_str_eq(resealed_edit_error("job 1234", "job 12 34"),
                       "t.rt: line 4: expected 'job <job id or default>', got 'job 12 34'");
  ck_assert_std_str_eq(resealed_edit_error(" 0 +Y", "0 +Y"),
                       "t.rt: line 9: expected '<destination> <32 hex digit header> <layer> <hops>', got "
                       "'0,1 a00000000000010000000000000100000 +Y'");
  ck_assert_std_str_eq(resealed_edit_error("a0000000000001000000000000010000", "a000"),
                       "t.rt: line 9: expected a header flit of 32 hex digits, got 'a000'");
  ck_assert_std_str_eq(
      resealed_edit_error("a0000000000001000000000000010000", "b0000000000001000000000000010000"),
      "t.rt: line 9: malformed header flit: format tag is 0xb, expected 0xa");
  // Entries swapped: each line is self-consistent, the order is not.
  ck_assert_std_str_eq(
      resealed_edit_error(
          "1,0 a0000000000000010000000000008100 0 -X\n0,1 a0000000000001000000000000010000 0 +Y\n",
          "0,1 a0000000000001000000000000010000 0 +Y\n1,0 a0000000000000010000000000008100 0 -X\n"),
      "t.rt: line 9: destinations must be in ascending node order without repeats");
  // Consistent entry that starts at the wrong node: node line says (1,0).
  ck_assert_std_str_eq(resealed_edit_error("node 0,0", "node 1,1"),
                       "t.rt: line 8: the route '-X' from 1,1 ends at 0,1");
  // A consistent entry for the node itself: "+X -X" goes out and back.
  ck_assert_std_str_eq(resealed_edit_error("1,0 a0000000000000010000000000008100 0 -X",
                                           "0,0 a0000000000000000000000000008101 0 +X -X"),
                       "t.rt: line 8: an entry for the table's own node");
}
END_TEST

START_TEST(test_atomic_write_creates_and_replaces) {
  ScratchDir scratch;
  // The directory is created on demand, its missing parents are an error.
  const std::string dir = scratch.path() + "/tables/job1";
  ck_assert_std_str_eq(table_error([&] { write_node_table(dir, tiny_table()); }),
                       "cannot write tables in " + dir + ": directory " + scratch.path() +
                           "/tables does not exist (create it first, or ask for missing parents to be created)");
  ck_assert(!fs::exists(scratch.path() + "/tables"));
  fs::create_directory(scratch.path() + "/tables");
  write_node_table(dir, tiny_table());
  ck_assert(list_dir(dir) == std::vector<std::string>{"n00.rt"});
  ck_assert_std_str_eq(slurp(dir + "/n00.rt"), tiny_text());
  const fs::perms mode = fs::status(dir + "/n00.rt").permissions();
  ck_assert((mode & fs::perms::owner_write) != fs::perms::none);
  ck_assert((mode & fs::perms::others_write) == fs::perms::none);
  assert_same(read_node_table(dir + "/n00.rt"), tiny_table());

  // Replace the existing file; a stale temporary of this pid is taken over.
  const std::string stale = dir + "/.n00.rt.tmp." + std::to_string(::getpid());
  std::ofstream(stale) << "stale";
  NodeTable changed = tiny_table();
  changed.job = "5678";
  write_node_table(dir, changed);
  ck_assert(list_dir(dir) == std::vector<std::string>{"n00.rt"});
  ck_assert_std_str_eq(read_node_table(dir + "/n00.rt").job, "5678");

  write_file_atomically(dir + "/plain", "abc");
  ck_assert_std_str_eq(slurp(dir + "/plain"), "abc");
  ck_assert(list_dir(dir) == (std::vector<std::string>{"n00.rt", "plain"}));
}
END_TEST

START_TEST(test_unwritable_path) {
  ScratchDir scratch;
  const std::string file = scratch.path() + "/not-a-dir";
  std::ofstream(file) << "x";
  // A regular file where a directory is needed fails even for root.
  const std::string target = file + "/sub/n00.rt";
  ck_assert_std_str_eq(table_error([&] { write_file_atomically(target, "abc"); }),
                       "cannot write " + target + ": cannot use " + target + ": Not a directory");
  ck_assert_std_str_eq(table_error([&] { write_node_table(file, tiny_table()); }),
                       "cannot write tables in " + file + ": " + file +
                           " exists and is not a directory (it is a regular file)");
  // Renaming onto a non-empty directory fails after the temporary exists: it
  // must be removed again.
  fs::create_directories(scratch.path() + "/busy/n00.rt/inside");
  ck_assert_std_str_eq(table_error([&] { write_node_table(scratch.path() + "/busy", tiny_table()); }),
                       "untrusted " + scratch.path() +
                           "/busy/n00.rt: it exists and is not a regular file (it is a directory); refusing to replace it");
  ck_assert(list_dir(scratch.path() + "/busy") == std::vector<std::string>{"n00.rt"});
  const std::string missing = scratch.path() + "/missing.rt";
  ck_assert_std_str_eq(table_error([&] { read_node_table(missing); }),
                       "cannot read " + missing + ": No such file or directory");
}
END_TEST

// A streamed write (a route dump, a cache entry) that runs out of room
// fails with the reason, leaves the old file as it was and no temporary:
// RLIMIT_FSIZE stands in for a full file system (EFBIG where ENOSPC would
// be), in a child so the limit does not outlive the test.
START_TEST(test_streamed_write_failure_keeps_old_file) {
  ScratchDir scratch;
  const std::string path = scratch.path() + "/routes.dump";
  const std::string line(99, 'r');
  write_file_atomically(path, [&](std::ostream& out) {
    for (int k = 0; k < 1000; ++k) out << line << '\n';
  });
  ck_assert_int_eq(fs::file_size(path), 100000);
  const pid_t child = ::fork();
  ck_assert_int_ge(child, 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit small{200000, 200000};
    ::setrlimit(RLIMIT_FSIZE, &small);
    try {
      write_file_atomically(path, [&](std::ostream& out) {
        for (int k = 0; k < 100000; ++k) out << line << '\n';  // 10 MB
      });
    } catch (const TableFileError& e) {
      const std::string expected = "cannot write " + path + ": File too large";
      ::_exit(std::string(e.what()) == expected ? 0 : 2);
    }
    ::_exit(1);
  }
  int status = 0;
  ck_assert_int_eq(::waitpid(child, &status, 0), child);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
  ck_assert_int_eq(fs::file_size(path), 100000);
  ck_assert(list_dir(scratch.path()) == std::vector<std::string>{"routes.dump"});
}
END_TEST

START_TEST(test_read_table_directory) {
  ScratchDir scratch;
  const std::string dir = scratch.path();
  NodeTable first = tiny_table();
  RouteTable routes({0, 1, 2, 3});
  routes.set_route(2, 0, make_route("-Y"));
  routes.set_route(2, 1, make_route("+X -Y"));
  routes.set_route(2, 3, make_route("+X"));
  NodeTable second = node_table_from(routes, 2, first.torus);
  second.node_name = "m02";
  write_node_table(dir, second);
  write_node_table(dir, first);
  // Temporaries and other files are not tables.
  std::ofstream(dir + "/.n01.rt.tmp.99") << "half a file";
  std::ofstream(dir + "/.hidden.rt") << "junk";
  std::ofstream(dir + "/README") << "junk";
  const std::vector<NodeTable> tables = read_table_directory(dir);
  ck_assert_uint_eq(tables.size(), 2u);
  ck_assert_std_str_eq(tables[0].node_name, "m02");  // sorted by file name
  ck_assert_std_str_eq(tables[0].entries[1].route.to_string(), "+X -Y");
  assert_same(tables[1], first);
  // A torn table in the directory is an error naming the file.
  std::ofstream(dir + "/z.rt") << std::string(kTinyBody);
  ck_assert_std_str_eq(table_error([&] { read_table_directory(dir); }),
                       dir + "/z.rt: truncated file: no checksum line");
  ck_assert_std_str_eq(table_error([&] { read_table_directory(dir + "/nope"); }),
                       "cannot read directory " + dir + "/nope: No such file or directory");
}
END_TEST

int main() {
  Suite* s = suite_create("table_file");
  TCase* format = tcase_create("format");
  tcase_add_test(format, test_crc32_reference_value);
  tcase_add_test(format, test_exact_text);
  tcase_add_test(format, test_virtual_channels_line);
  tcase_add_test(format, test_chain_line);
  tcase_add_test(format, test_parse_exact);
  tcase_add_test(format, test_round_trip_desmos);
  tcase_add_test(format, test_node_table_from_missing_route);
  tcase_add_test(format, test_format_rejects_bad_tables);
  tcase_add_test(format, test_single_cable);
  suite_add_tcase(s, format);
  TCase* reject = tcase_create("reject");
  tcase_add_test(reject, test_every_prefix_rejected);
  tcase_add_test(reject, test_every_flipped_byte_rejected);
  tcase_add_test(reject, test_foreign_and_future_files);
  tcase_add_test(reject, test_resealed_edits_rejected);
  suite_add_tcase(s, reject);
  TCase* files = tcase_create("files");
  tcase_add_test(files, test_atomic_write_creates_and_replaces);
  tcase_add_test(files, test_unwritable_path);
  tcase_add_test(files, test_read_table_directory);
  tcase_add_test(files, test_streamed_write_failure_keeps_old_file);
  suite_add_tcase(s, files);
  return angara_test::run_suite(s);
}
