// One computation per job: the prologues of a job's nodes share
// one computed and verified table through a directory all of them see
// (plugstack "shared=DIR", e.g. on the cluster's parallel file system).
//
// The first prologue to take DIR/<fingerprint>.lock computes the routes,
// verifies them and publishes every node's row in DIR/<fingerprint>.shared
// before it lets the lock go; the others wait for the lock and read only
// their own row.  The fingerprint covers the machine, the failures, the
// allocation, the algorithm and its options, so a prologue that sees other
// failures computes on its own.  If the first prologue dies, the kernel
// releases its lock and the next one computes.
//
// The file (angara-tables(5), "Shared job tables"): text header lines
//   angara-shared-tables 1
//   fingerprint F
//   algorithm NAME
//   virtual_channels K      (the layers the routes use)
//   summary TEXT            (the verifier's one-line verdict, for the logs)
//   nodes N ID0 ID1 ...     (the allocation, ascending node ids)
//   rows
// then N rows of N+1 little-endian 32-bit words: the packed route word of
// every destination (RouteTable's compact word, 0 for the node itself) and
// the CRC-32 of those N words.  4 (N+1) bytes a row, so a reader seeks to its
// row and reads nothing else.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "angara/config.hpp"
#include "angara/table_file.hpp"
#include "routing/pipeline.hpp"
#include "routing/report.hpp"

namespace angara::spank {

// The contents of DIR/<fingerprint>.shared for a verified result, or nullopt
// when a route has no compact word (such tables are not shared: every node
// computes its own).
std::optional<std::string> format_shared_tables(const JobResult& result);

// One node's row read back from a shared file.
struct SharedRow {
  std::string summary;  // as published
  NodeTable table;      // node, torus, algorithm, fingerprint, entries; node_name and job left to the caller
};
// Reads the row of `node` from `path`.  nullopt when the file does not exist;
// throws TableFileError naming the file for a damaged or foreign one (other
// fingerprint, allocation, bad checksum, truncated).
std::optional<SharedRow> read_shared_row(const std::string& path, const PreparedJob& job, NodeId node);

// An exclusive lock on a file (flock), released by the destructor.
class FileLock {
 public:
  // Waits for the lock at most `timeout`; locked() says whether it was got.
  // Creates the file (and one level of directory) if needed; throws
  // TableFileError when it cannot.
  FileLock(const std::string& path, std::chrono::milliseconds timeout);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool locked() const { return locked_; }

 private:
  int fd_ = -1;
  bool locked_ = false;
};

}  // namespace angara::spank
