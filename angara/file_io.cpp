#include "angara/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <streambuf>

namespace angara {

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

int FileDescriptor::close() {
  const int fd = fd_;
  fd_ = -1;
  return ::close(fd) == 0 ? 0 : errno;
}

std::string file_type_name(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFIFO: return "a FIFO";
    case S_IFSOCK: return "a socket";
    case S_IFLNK: return "a symbolic link";
    default: return "not a regular file";
  }
}

FileContents read_regular_file(const std::string& path, std::size_t limit) {
  FileContents out;
  const auto fail = [&](const std::string& message, int error = 0) {
    out.text.clear();
    out.error = message;
    out.error_number = error;
    return out;
  };
  FileDescriptor file(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!file) return fail("cannot open " + path + ": " + std::strerror(errno), errno);
  struct stat info {};
  if (::fstat(file.get(), &info) != 0) return fail("cannot read " + path + ": " + std::strerror(errno), errno);
  out.device = info.st_dev;
  out.inode = info.st_ino;
  if (!S_ISREG(info.st_mode))
    return fail(path + " is not a regular file (it is " + file_type_name(info.st_mode) + ")");
  if (static_cast<unsigned long long>(info.st_size) > limit)
    return fail(path + " is larger than the limit of " + std::to_string(limit) + " bytes (" +
                std::to_string(static_cast<long long>(info.st_size)) + " bytes)");
  out.text.reserve(static_cast<std::size_t>(info.st_size));
  char buffer[16384];
  while (true) {
    const ssize_t got = ::read(file.get(), buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      return fail("cannot read " + path + ": " + std::strerror(errno), errno);
    }
    if (got == 0) break;
    // The file may grow while it is read.
    if (out.text.size() + static_cast<std::size_t>(got) > limit)
      return fail(path + " is larger than the limit of " + std::to_string(limit) + " bytes");
    out.text.append(buffer, static_cast<std::size_t>(got));
  }
  return out;
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_name(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string ensure_directory(const std::string& directory, bool parents) {
  struct stat info {};
  if (::stat(directory.c_str(), &info) == 0)
    return S_ISDIR(info.st_mode) ? "" : directory + " exists and is not a directory (it is " +
                                            file_type_name(info.st_mode) + ")";
  if (errno != ENOENT) return "cannot use directory " + directory + ": " + std::strerror(errno);
  std::string trimmed = directory;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  const std::string parent = directory_of(trimmed);
  if (::stat(parent.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    if (!parents)
      return "directory " + parent + " does not exist (create it first, or ask for missing parents to be created)";
    if (std::string error = ensure_directory(parent, true); !error.empty()) return error;
  }
  if (::mkdir(trimmed.c_str(), 0755) != 0 && errno != EEXIST)
    return "cannot create directory " + trimmed + ": " + std::strerror(errno);
  // The documented mode holds whatever the umask.
  ::chmod(trimmed.c_str(), 0755);
  return "";
}

std::string check_output_file(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0) {
    if (!S_ISREG(info.st_mode))
      return path + " exists and is not a regular file (it is " + file_type_name(info.st_mode) +
             "); refusing to replace it";
  } else if (errno != ENOENT) {
    return "cannot use " + path + ": " + std::strerror(errno);
  }
  const std::string directory = directory_of(path);
  if (::stat(directory.c_str(), &info) != 0)
    return "directory " + directory + " of " + path + " does not exist";
  if (!S_ISDIR(info.st_mode)) return directory + " is not a directory";
  return "";
}

namespace {

// Unlinks the temporary file unless the rename made it permanent.
class TemporaryFileGuard {
 public:
  explicit TemporaryFileGuard(std::string path) : path_(std::move(path)) {}
  TemporaryFileGuard(const TemporaryFileGuard&) = delete;
  TemporaryFileGuard& operator=(const TemporaryFileGuard&) = delete;
  ~TemporaryFileGuard() {
    if (armed_) ::unlink(path_.c_str());
  }
  void release() { armed_ = false; }

 private:
  std::string path_;
  bool armed_ = true;
};

}  // namespace

namespace {

// An output stream buffer over a file descriptor; the first write error
// stops it and is kept (errno), so the caller can name it.
class DescriptorBuffer : public std::streambuf {
 public:
  explicit DescriptorBuffer(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  int error() const { return error_; }
  int flush_all() {
    sync();
    return error_;
  }

 protected:
  int_type overflow(int_type ch) override {
    if (sync() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override {
    if (error_ == 0 && pptr() > pbase()) error_ = write_all(fd_, std::string_view(pbase(), static_cast<std::size_t>(pptr() - pbase())));
    setp(buffer_, buffer_ + sizeof buffer_);
    return error_ == 0 ? 0 : -1;
  }

 private:
  int fd_;
  int error_ = 0;
  char buffer_[64 * 1024];
};

}  // namespace

std::string replace_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const auto fail = [&path](int error) { return "cannot write " + path + ": " + std::strerror(error); };
  const std::string directory = directory_of(path);
  const std::string name = base_name(path);
  if (name.empty() || name == "." || name == "..") return fail(EISDIR);
  const std::string temporary = directory + "/." + name + ".tmp." + std::to_string(::getpid());
  const int flags = O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW;
  int fd = ::open(temporary.c_str(), flags, 0644);
  if (fd < 0 && errno == EEXIST) {
    // Same pid, so it is the leftover of a dead process: nobody else owns it.
    ::unlink(temporary.c_str());
    fd = ::open(temporary.c_str(), flags, 0644);
  }
  if (fd < 0) return fail(errno);
  TemporaryFileGuard guard(temporary);
  FileDescriptor file(fd);
  if (::fchmod(file.get(), 0644) != 0) return fail(errno);
  {
    auto buffer = std::make_unique<DescriptorBuffer>(file.get());
    std::ostream out(buffer.get());
    write(out);
    if (const int error = buffer->flush_all()) return fail(error);
  }
  if (const int error = fsync_retrying(file.get())) return fail(error);
  if (const int error = file.close()) return fail(error);
  if (::rename(temporary.c_str(), path.c_str()) != 0) return fail(errno);
  guard.release();
  // Make the rename itself durable.
  if (const int error = fsync_directory(directory)) return fail(error);
  return "";
}

std::string replace_file_atomically(const std::string& path, std::string_view contents) {
  return replace_file_atomically(path, [contents](std::ostream& out) { out.write(contents.data(), static_cast<std::streamsize>(contents.size())); });
}

std::string fnv1a_hex(std::string_view bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char ch : bytes) {
    hash ^= ch;
    hash *= 0x100000001b3ull;
  }
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash));
  return buffer;
}

int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    bytes.remove_prefix(static_cast<std::size_t>(written));
  }
  return 0;
}

int fsync_retrying(int fd) {
  while (::fsync(fd) != 0) {
    if (errno != EINTR) return errno;
  }
  return 0;
}

int fsync_directory(const std::string& directory) {
  FileDescriptor dir(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) return errno;
  if (const int error = fsync_retrying(dir.get())) return error;
  return dir.close();
}

}  // namespace angara
