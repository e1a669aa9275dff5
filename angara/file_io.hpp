// Careful file access shared by every reader and writer of the project:
// inputs must be regular files of bounded size (a FIFO or /dev/zero given as
// a configuration must not hang or exhaust memory), outputs replace only
// regular files, and directories are created only when asked for.
#pragma once

#include <functional>
#include <ostream>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace angara {

// A table file, a table directory or a route dump could not be read or
// written (or holds what it must not): the I/O error of every file the
// product reads or writes.
class TableFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Size limits of the readers (angara.yaml(5), angara-tables(5)).
constexpr std::size_t kMaxConfigBytes = std::size_t{4} << 20;      // 4 MiB
constexpr std::size_t kMaxTableFileBytes = std::size_t{64} << 20;  // 64 MiB
constexpr std::size_t kMaxRouteDumpBytes = std::size_t{4} << 30;   // 4 GiB

// Owns a file descriptor; close() reports the error a destructor cannot.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd = -1) : fd_(fd) {}
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor();
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  // Returns 0 or the errno of a failed close.
  int close();

 private:
  int fd_;
};

// Result of read_regular_file: `error` is empty on success, else a complete
// sentence naming the path, e.g. "/dev/zero is not a regular file (a
// character device)" or "big.yaml is larger than the limit of 4194304 bytes".
struct FileContents {
  std::string text;
  std::string error;
  int error_number = 0;  // errno when the system refused, else 0
  unsigned long long device = 0, inode = 0;  // of the file read
};

// Reads a whole regular file of at most `limit` bytes.  Opens without
// blocking (O_NONBLOCK), so a FIFO is refused instead of waited on.
FileContents read_regular_file(const std::string& path, std::size_t limit);

// "a FIFO", "a directory", "a character device", ... for an st_mode.
std::string file_type_name(unsigned mode);

// Makes `directory` exist: creates it (mode 0755, whatever the umask) when its
// parent exists, and the missing parents too only when `parents` is true.
// Returns "" or the error sentence ("directory /a/b does not exist (...)").
std::string ensure_directory(const std::string& directory, bool parents);

// "" when `path` may be replaced by a new regular file: it is absent or a
// regular file, and its directory exists.  Else the error sentence, e.g.
// "/dev/full exists and is not a regular file (a character device)".
std::string check_output_file(const std::string& path);

// The directory part and the last component of a path ("." for a bare name).
std::string directory_of(const std::string& path);
std::string base_name(std::string_view path);

// Replaces `path` with a new regular file holding `contents`, mode 0644
// whatever the umask: DIR/.NAME.tmp.PID, fsync, rename(2), fsync of DIR.
// No checks of what `path` is now (see check_output_file).  Returns "" or
// the error sentence "cannot write PATH: reason".
std::string replace_file_atomically(const std::string& path, std::string_view contents);
// The same, with the contents streamed: `write` writes them to the stream
// through a small buffer, so a large file (a route dump of millions of
// routes) is never held in memory whole.  A write error (ENOSPC) is the
// error sentence, and the old file stays.
std::string replace_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

// FNV-1a, 64 bit, as 16 hex digits: a stable, dependency-free fingerprint
// (the cache key, a configuration's bytes).  Not a security boundary.
std::string fnv1a_hex(std::string_view bytes);

// Write helpers returning 0 or errno.
int write_all(int fd, std::string_view bytes);
int fsync_retrying(int fd);
int fsync_directory(const std::string& directory);

}  // namespace angara
