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
// The result proves itself: it ends with an HMAC-SHA-256 of everything
// before it under the key in shared_key= (a file only root can read, the
// same on every node: angara-route shared-key makes one).  Only a root
// process holding the key, which publishes verified tables alone, can
// write a result a reader accepts; a reader streams the whole file through
// the HMAC, keeps only its own row, and computes locally when anything is
// off (doc/security.md).
//
// The file (angara-tables(5), "Shared job tables"): text header lines
//   angara-shared-tables 2
//   fingerprint F
//   algorithm NAME
//   virtual_channels K      (the layers the routes use)
//   summary TEXT            (the verifier's one-line verdict, for the logs)
//   nodes N ID0 ID1 ...     (the allocation, ascending node ids)
//   rows
// then N rows of N+1 little-endian 32-bit words: the packed route word of
// every destination (RouteTable's compact word, 0 for the node itself) and
// the CRC-32 of those N words; then the 32-byte HMAC.
#pragma once

#include <array>
#include <chrono>
#include <optional>
#include <string>

#include "angara/config.hpp"
#include "angara/table_file.hpp"
#include "angara/trusted_path.hpp"
#include "routing/pipeline.hpp"
#include "routing/report.hpp"

namespace angara::spank {

// The key of shared results: 32 random bytes, stored as 64 hexadecimal
// digits and a newline in a file only root may read.
struct SharedKey {
  std::array<unsigned char, 32> bytes{};
};
// Reads the key file (a trusted private file: UntrustedPathError otherwise;
// TableFileError when it is missing or malformed).
SharedKey load_shared_key(const std::string& path, const TrustedOwners& owners);
// A new random key in the file format above.
std::string new_shared_key_text();

// The contents of DIR/<fingerprint>.shared for a verified result, or nullopt
// when a route has no compact word (such tables are not shared: every node
// computes its own).
std::optional<std::string> format_shared_tables(const JobResult& result, const SharedKey& key);

// One node's row read back from a shared file.
struct SharedRow {
  std::string summary;  // as published
  NodeTable table;      // node, torus, algorithm, fingerprint, entries; node_name and job left to the caller
};
// Reads the row of `node` from DIRECTORY/NAME (opened without following a
// link; a trusted regular file), after checking the HMAC of the whole file.
// nullopt when the file does not exist; throws TableFileError naming the
// file for a damaged, forged or foreign one (bad authenticator, other
// fingerprint or allocation, bad checksum, truncated), UntrustedPathError
// for a link or a file someone else owns.
std::optional<SharedRow> read_shared_row(const std::string& directory, const std::string& name,
                                         const PreparedJob& job, NodeId node, const SharedKey& key,
                                         const TrustedOwners& owners);

// An exclusive lock on DIRECTORY/NAME (flock), released by the destructor.
class FileLock {
 public:
  // Waits for the lock at most `timeout`; locked() says whether it was got.
  // Creates the file (mode 0600) if needed, never through a symbolic link;
  // throws UntrustedPathError for a link or a file someone else owns,
  // TableFileError when it cannot open it.
  FileLock(const std::string& directory, const std::string& name, std::chrono::milliseconds timeout,
           const TrustedOwners& owners);
  bool locked() const { return locked_; }

 private:
  FileDescriptor file_;  // closing releases the lock
  bool locked_ = false;
};

}  // namespace angara::spank
