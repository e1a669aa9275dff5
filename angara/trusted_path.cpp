#include "angara/trusted_path.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>

namespace angara {

namespace {

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

std::string user_name(uid_t uid) {
  if (const passwd* entry = ::getpwuid(uid)) return entry->pw_name;
  return "uid " + std::to_string(uid);
}

// The rule an object's status breaks, or "".  `last`: the object itself
// (no sticky excuse for it).
std::string broken_rule(const struct stat& info, const TrustedOwners& owners, bool last, bool private_file) {
  if (!owners.trusts(info.st_uid))
    return "owned by " + user_name(info.st_uid) + ", not by " + owners.names();
  const bool others_write = (info.st_mode & (S_IWGRP | S_IWOTH)) != 0;
  if (others_write && (last || !(info.st_mode & S_ISVTX)))
    return std::string(S_ISDIR(info.st_mode) ? "a directory" : "a file") + " writable by group or others (mode " +
           octal_mode(info.st_mode) + ")";
  if (last && private_file && (info.st_mode & (S_IRWXG | S_IRWXO)))
    return "readable by group or others (mode " + octal_mode(info.st_mode) + "; a key must be 0600 or 0400)";
  return "";
}

// Walks the canonical `path` from "/" with O_NOFOLLOW, checking each level.
void walk(const std::string& canonical, const std::string& shown, PathKind kind, const TrustedOwners& owners,
          bool private_file) {
  FileDescriptor current(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!current) throw TableFileError("cannot open /: " + std::string(std::strerror(errno)));
  struct stat info {};
  std::string sofar = "/";
  std::size_t start = 1;
  bool last = canonical == "/";
  if (::fstat(current.get(), &info) != 0) throw TableFileError("cannot stat /: " + std::string(std::strerror(errno)));
  if (const std::string rule = broken_rule(info, owners, last, false); !rule.empty())
    throw UntrustedPathError(last ? shown : "/", rule);
  while (start < canonical.size()) {
    const std::size_t slash = canonical.find('/', start);
    const std::string name = canonical.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    start = slash == std::string::npos ? canonical.size() : slash + 1;
    if (name.empty()) continue;
    last = start >= canonical.size();
    sofar += (sofar.size() > 1 ? "/" : "") + name;
    FileDescriptor next(::openat(current.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!next) {
      const int error = errno;
      throw TableFileError("cannot open " + sofar + ": " + std::strerror(error));
    }
    if (::fstat(next.get(), &info) != 0)
      throw TableFileError("cannot stat " + sofar + ": " + std::string(std::strerror(errno)));
    if (S_ISLNK(info.st_mode)) throw UntrustedPathError(sofar, "a symbolic link (it changed while being checked)");
    if (!last && !S_ISDIR(info.st_mode)) throw TableFileError(sofar + " is not a directory");
    if (const std::string rule = broken_rule(info, owners, last, private_file && last); !rule.empty())
      throw UntrustedPathError(last ? shown : sofar, rule);
    current = std::move(next);
  }
  if (kind == PathKind::directory && !S_ISDIR(info.st_mode))
    throw TableFileError(shown + " is not a directory (it is " + file_type_name(info.st_mode) + ")");
  if (kind == PathKind::file && !S_ISREG(info.st_mode))
    throw TableFileError(shown + " is not a regular file (it is " + file_type_name(info.st_mode) + ")");
}

std::string canonical_path(const std::string& path) {
  std::unique_ptr<char, decltype(&std::free)> resolved(::realpath(path.c_str(), nullptr), &std::free);
  if (!resolved) {
    const int error = errno;
    throw TableFileError("cannot resolve " + path + ": " + std::strerror(error));
  }
  return resolved.get();
}

}  // namespace

TrustedOwners TrustedOwners::with(const std::string& extra) {
  TrustedOwners owners;
  owners.uids.push_back(0);
  if (::geteuid() != 0) owners.uids.push_back(::geteuid());
  if (!extra.empty()) {
    const passwd* entry = ::getpwnam(extra.c_str());
    if (!entry) throw std::invalid_argument("owner=" + extra + ": no such user");
    owners.uids.push_back(entry->pw_uid);
  }
  return owners;
}

bool TrustedOwners::trusts(uid_t uid) const {
  for (uid_t trusted : uids)
    if (trusted == uid) return true;
  return false;
}

std::string TrustedOwners::names() const {
  std::string text;
  for (std::size_t i = 0; i < uids.size(); ++i)
    text += (i == 0 ? "" : i + 1 == uids.size() ? " or " : ", ") + user_name(uids[i]);
  return text;
}

void check_trusted_path(const std::string& path, PathKind kind, const TrustedOwners& owners, bool private_file) {
  walk(canonical_path(path), path, kind, owners, private_file);
}

std::string untrusted_object_rule(const std::string& path, const TrustedOwners& owners, bool private_file) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return "";
  if (S_ISLNK(info.st_mode) && ::stat(path.c_str(), &info) != 0) return "";
  return broken_rule(info, owners, true, private_file);
}

void check_trusted_or_creatable(const std::string& path, PathKind kind, const TrustedOwners& owners) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0) {
    check_trusted_path(path, kind, owners);
    return;
  }
  std::string ancestor = directory_of(path);
  while (::stat(ancestor.c_str(), &info) != 0 && ancestor != "/" && ancestor != ".")
    ancestor = directory_of(ancestor);
  check_trusted_path(ancestor, PathKind::directory, owners);
}

FileDescriptor open_trusted_file(const std::string& directory, const std::string& name, int flags,
                                 const TrustedOwners& owners, mode_t mode) {
  const std::string path = directory + "/" + name;
  FileDescriptor dir(::open(directory.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!dir) throw TableFileError("cannot open " + directory + ": " + std::string(std::strerror(errno)));
  FileDescriptor file(::openat(dir.get(), name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode));
  if (!file) {
    const int error = errno;
    if (error == ELOOP) throw UntrustedPathError(path, "a symbolic link (not followed)");
    if (error == ENOENT && !(flags & O_CREAT)) return FileDescriptor();
    throw TableFileError("cannot open " + path + ": " + std::strerror(error));
  }
  struct stat info {};
  if (::fstat(file.get(), &info) != 0)
    throw TableFileError("cannot stat " + path + ": " + std::string(std::strerror(errno)));
  if (!S_ISREG(info.st_mode))
    throw UntrustedPathError(path, "not a regular file (it is " + file_type_name(info.st_mode) + ")");
  if (const std::string rule = broken_rule(info, owners, true, false); !rule.empty())
    throw UntrustedPathError(path, rule);
  // Blocking reads from here on (O_NONBLOCK only kept a FIFO from hanging the open).
  const int status = ::fcntl(file.get(), F_GETFL);
  if (status >= 0) ::fcntl(file.get(), F_SETFL, status & ~O_NONBLOCK);
  return file;
}

std::string protected_symlinks_setting() {
  std::ifstream in("/proc/sys/fs/protected_symlinks");
  std::string value;
  if (!(in >> value)) return "";
  return value;
}

}  // namespace angara
