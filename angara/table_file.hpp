// Per-router table files: one file per node holding that router's route to
// every destination of the job.  Written atomically (temporary file, fsync,
// rename, fsync of the directory) with a format version and a checksum so a
// reader rejects a torn or foreign file.  Format: angara-tables(5).
#pragma once

#include <functional>
#include <ostream>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "angara/file_io.hpp"
#include "angara/route.hpp"
#include "angara/route_code.hpp"

namespace angara {

struct TableEntry {
  NodeId destination = kNoNode;
  Route route;
};

struct NodeTable {
  Torus torus{{2, 1, 1, 1}, 1};
  NodeId node = kNoNode;            // the router this table is for
  std::string node_name;            // Slurm name
  std::string algorithm;            // the generator that computed the routes
  // The fallback chain asked for ("balanced,nue") when it has several
  // members; empty for one generator.  A rebuild reruns the whole chain.
  std::string chain;
  std::string job;                  // job id or "default"
  std::string fingerprint;          // key of the inputs (see pipeline)
  // Virtual channels (layers) the job's routes use, the same in every
  // table of the job; 0 when not recorded (files of earlier versions).
  int virtual_channels = 0;
  std::vector<TableEntry> entries;  // one per destination, ascending NodeId
};

// The tables of one allocation, one NodeTable per allocated node: the table
// of allocation index `src_index`, one entry per other allocated node.  Sets
// torus, node, algorithm (from the RouteTable) and entries; the caller fills
// in node_name, job and fingerprint.  Throws std::invalid_argument for a
// missing route.
NodeTable node_table_from(const RouteTable& table, std::size_t src_index, const Torus& torus);

// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, as zlib's crc32) that
// closes every table file.
std::uint32_t crc32(std::string_view bytes);

// Serialises / parses the file format.  parse throws TableFileError saying
// what is wrong (bad magic, version, checksum, truncated, line N: ...),
// prefixed by "SOURCE_NAME: ".  format throws std::invalid_argument for a
// table it cannot write faithfully (a route that is not encodable or does not
// lead to its destination, destinations out of order, a name with spaces).
std::string format_node_table(const NodeTable& table);
NodeTable parse_node_table(const std::string& text, const std::string& source_name);

// Atomic write: DIR/.NAME.tmp.PID, fsync, rename to DIR/NAME, fsync DIR, mode
// 0644 whatever the umask.  Refuses a PATH that exists and is not a regular
// file (a device, a FIFO, a symbolic link) and a missing DIR.  Throws
// TableFileError with the path and the reason.
void write_file_atomically(const std::string& path, const std::string& contents);
// The same, the contents streamed by `write` (replace_file_atomically).
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);
// File name of a node's table inside the table directory: "<node_name>.rt".
std::string table_file_name(const NodeTable& table);
// One node's table alone, replaced atomically under the directory's lock
// (angara/table_set.hpp); creates DIR when its parent exists.
void write_node_table(const std::string& directory, const NodeTable& table);
// A regular file of at most kMaxTableFileBytes, parsed.
NodeTable read_node_table(const std::string& path);
// Throws TableFileError unless the file at `path` is named for the node its
// table is for (table_file_name): a swapped file is another router's routes.
void check_table_file_name(const NodeTable& table, const std::string& path);
// Reads every visible *.rt file of a directory (sorted by name) as one
// consistent snapshot (read_table_files), each checked against its name.
std::vector<NodeTable> read_table_directory(const std::string& directory);

}  // namespace angara
