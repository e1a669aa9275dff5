// Table sets switched with one rename (angara-tables(5), "TABLE SETS").  See
// table_set.hpp for the layout; every step below keeps the invariant that a
// reader resolving DIR/NODE.rt sees either the old set or the new one.
#include "angara/table_set.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "angara/file_io.hpp"
#include "angara/trusted_path.hpp"

namespace angara {

namespace {

constexpr std::string_view kMetaDir = ".angara";
constexpr std::string_view kSetLinkPrefix = ".angara/sets/";  // what a node's link starts with
constexpr std::string_view kGenLinkPrefix = "../gens/";       // what a set's link starts with
constexpr std::string_view kTableSuffix = ".rt";

struct Paths {
  explicit Paths(const std::string& directory)
      : dir(directory), meta(directory + "/" + std::string(kMetaDir)), sets(meta + "/sets"), gens(meta + "/gens") {}
  std::string dir, meta, sets, gens;
};

[[noreturn]] void fail_errno(const std::string& what, const std::string& path, int error) {
  throw TableFileError("cannot " + what + " " + path + ": " + std::strerror(error));
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}
bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

bool is_table_name(std::string_view name) {
  return !name.empty() && name.front() != '.' && name.size() > kTableSuffix.size() && ends_with(name, kTableSuffix);
}
// ".NAME.tmp.PID" (a file being written) and ".NAME.lnk.PID" (a link being made).
bool is_temporary_name(std::string_view name) {
  return !name.empty() && name.front() == '.' &&
         (name.find(".tmp.") != std::string_view::npos || name.find(".lnk.") != std::string_view::npos);
}

// Names of a directory's entries (without . and ..); nullopt when it does not exist.
std::optional<std::vector<std::string>> list_directory(const std::string& directory) {
  struct Closer {
    void operator()(DIR* dir) const { ::closedir(dir); }
  };
  const std::unique_ptr<DIR, Closer> dir(::opendir(directory.c_str()));
  if (!dir) {
    if (errno == ENOENT) return std::nullopt;
    fail_errno("read directory", directory, errno);
  }
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* entry = ::readdir(dir.get())) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  if (errno != 0) fail_errno("read directory", directory, errno);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> list_or_empty(const std::string& directory) {
  std::optional<std::vector<std::string>> names = list_directory(directory);
  return names ? std::move(*names) : std::vector<std::string>();
}

std::optional<std::string> read_link(const std::string& path) {
  std::string target(256, '\0');
  while (true) {
    const ssize_t got = ::readlink(path.c_str(), target.data(), target.size());
    if (got < 0) return std::nullopt;
    if (static_cast<std::size_t>(got) < target.size()) {
      target.resize(static_cast<std::size_t>(got));
      return target;
    }
    target.resize(target.size() * 2);
  }
}

// The set a node link points into (".angara/sets/SET/NAME"), if it is one of ours.
std::optional<std::string> set_of_link(const std::string& target, const std::string& name) {
  if (!starts_with(target, kSetLinkPrefix) || !ends_with(target, "/" + name)) return std::nullopt;
  std::string set = target.substr(kSetLinkPrefix.size(), target.size() - kSetLinkPrefix.size() - name.size() - 1);
  if (set.empty() || set.find('/') != std::string::npos) return std::nullopt;
  return set;
}

// The generation a set's link names, "" when the set does not exist.
std::string generation_of(const Paths& paths, const std::string& set) {
  const std::optional<std::string> target = read_link(paths.sets + "/" + set);
  if (!target || !starts_with(*target, kGenLinkPrefix)) return "";
  return target->substr(kGenLinkPrefix.size());
}

// Set names become one path component: letters, digits, '-' and '_' stay,
// everything else (including '.', which separates generation names) is %XX.
std::string encode_set_name(const std::string& name) {
  std::string out;
  for (unsigned char ch : name) {
    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_') {
      out += static_cast<char>(ch);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", ch);
      out += hex;
    }
  }
  return out.empty() ? "%" : out;
}

void make_directory(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0) {
    if (errno != EEXIST) fail_errno("create directory", path, errno);
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
      throw TableFileError("cannot use " + path + ": it exists and is not a directory");
    return;
  }
  ::chmod(path.c_str(), 0755);
}

void sync_directory(const std::string& directory) {
  if (const int error = fsync_directory(directory)) fail_errno("sync directory", directory, error);
}

// Points `link` at `target` with one rename(2) of a fresh link over it.
void replace_symlink(const std::string& link, const std::string& target) {
  const std::string temporary =
      directory_of(link) + "/." + base_name(link) + ".lnk." + std::to_string(::getpid());
  ::unlink(temporary.c_str());
  if (::symlink(target.c_str(), temporary.c_str()) != 0) fail_errno("create link", temporary, errno);
  if (::rename(temporary.c_str(), link.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    fail_errno("replace", link, error);
  }
}

void write_new_file(const std::string& path, const std::string& contents) {
  FileDescriptor file(::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (!file) fail_errno("write", path, errno);
  if (::fchmod(file.get(), 0644) != 0) fail_errno("write", path, errno);
  if (const int error = write_all(file.get(), contents)) fail_errno("write", path, error);
  if (const int error = fsync_retrying(file.get())) fail_errno("write", path, error);
  if (const int error = file.close()) fail_errno("write", path, error);
}

void remove_generation(const std::string& path) {
  for (const std::string& name : list_or_empty(path)) ::unlink((path + "/" + name).c_str());
  ::rmdir(path.c_str());
}

// A new, empty generation directory of `set`; its name is unique among
// writers because only the lock holder creates one.
std::string new_generation(const Paths& paths, const std::string& set) {
  static unsigned counter = 0;
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  char stamp[64];
  std::snprintf(stamp, sizeof stamp, ".%llx.%ld.%u",
                static_cast<unsigned long long>(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count()),
                static_cast<long>(::getpid()), counter++);
  const std::string name = set + stamp;
  make_directory(paths.gens + "/" + name);
  return name;
}

void link_into(const std::string& from, const std::string& to) {
  if (::linkat(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), AT_SYMLINK_FOLLOW) != 0)
    fail_errno("link " + from + " as", to, errno);
}

// The commit: one rename of the set's link.
void switch_set(const Paths& paths, const std::string& set, const std::string& generation) {
  replace_symlink(paths.sets + "/" + set, std::string(kGenLinkPrefix) + generation);
  sync_directory(paths.sets);
}

double default_lock_timeout() {
  if (const char* text = std::getenv("ANGARA_LOCK_TIMEOUT"); text && *text) {
    char* end = nullptr;
    const double seconds = std::strtod(text, &end);
    if (*end == '\0' && seconds >= 0) return seconds;
  }
  return 30;
}

// flock(2) of DIR/.angara/lock, waited for at most `timeout` seconds; the
// holder's pid is written into the file for the message of the next one.
class DirectoryLock {
 public:
  DirectoryLock(const Paths& paths, double timeout) {
    const std::string path = paths.meta + "/lock";
    file_ = FileDescriptor(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644));
    if (!file_) fail_errno("open lock file", path, errno);
    if (timeout < 0) timeout = default_lock_timeout();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
    while (::flock(file_.get(), LOCK_EX | LOCK_NB) != 0) {
      if (errno == EINTR) continue;
      if (errno != EWOULDBLOCK) fail_errno("lock", path, errno);
      if (std::chrono::steady_clock::now() >= deadline) {
        char holder[32] = {0};
        const ssize_t got = ::pread(file_.get(), holder, sizeof holder - 1, 0);
        std::string pid(holder, got > 0 ? static_cast<std::size_t>(got) : 0);
        while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%g", timeout);
        throw TableFileError("cannot write tables in " + paths.dir + ": another writer" +
                             (pid.empty() ? std::string() : " (pid " + pid + ")") + " holds " + path + "; gave up after " +
                             seconds + " s (nothing was written; retry when it has finished)");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(file_.get(), 0) == 0) {
      const ssize_t ignored = ::pwrite(file_.get(), pid.data(), pid.size(), 0);
      (void)ignored;
    }
  }

 private:
  FileDescriptor file_;
};

// Finds (and, when `remove`, deletes) what no reader can see: temporaries,
// dangling node links, sets no node links to, generations no set names.
// Only called under the lock, so none of it belongs to a live writer.
std::vector<std::string> collect_garbage(const Paths& paths, bool remove) {
  std::vector<std::string> found;
  const auto drop = [&](const std::string& path, bool directory) {
    found.push_back(path);
    if (!remove) return;
    if (directory)
      remove_generation(path);
    else
      ::unlink(path.c_str());
  };
  std::set<std::string> referenced_sets;
  for (const std::string& name : list_or_empty(paths.dir)) {
    const std::string path = paths.dir + "/" + name;
    if (is_temporary_name(name)) {
      drop(path, false);
      continue;
    }
    if (!is_table_name(name)) continue;
    const std::optional<std::string> target = read_link(path);
    if (!target) continue;
    const std::optional<std::string> set = set_of_link(*target, name);
    if (!set) continue;
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0 && errno == ENOENT)
      drop(path, false);  // its node left the set: the link dangles
    else
      referenced_sets.insert(*set);
  }
  std::set<std::string> referenced_generations;
  for (const std::string& name : list_or_empty(paths.sets)) {
    if (name.front() == '.' || !referenced_sets.count(name)) {
      drop(paths.sets + "/" + name, false);
      continue;
    }
    referenced_generations.insert(generation_of(paths, name));
  }
  for (const std::string& name : list_or_empty(paths.gens))
    if (!referenced_generations.count(name)) drop(paths.gens + "/" + name, true);
  return found;
}

void check_file_names(const std::vector<std::string>& names) {
  std::set<std::string> seen;
  for (const std::string& name : names) {
    if (!is_table_name(name) || name.find('/') != std::string::npos)
      throw std::invalid_argument("'" + name + "' cannot be the name of a table file (NAME.rt, no '/', no leading '.')");
    if (!seen.insert(name).second) throw std::invalid_argument("two tables for the file " + name);
  }
}

// Prepares DIR and DIR/.angara and takes the lock.
std::unique_ptr<DirectoryLock> lock_directory(const Paths& paths, const TableSetOptions& options) {
  if (const std::string problem = ensure_directory(paths.dir, options.create_parents); !problem.empty())
    throw TableFileError("cannot write tables in " + paths.dir + ": " + problem);
  make_directory(paths.meta);
  make_directory(paths.sets);
  make_directory(paths.gens);
  return std::make_unique<DirectoryLock>(paths, options.lock_timeout_seconds);
}

}  // namespace

void publish_table_set(const std::string& directory, const std::string& set_name,
                       const std::vector<TableFileData>& files, const TableSetOptions& options) {
  std::vector<std::string> names;
  for (const TableFileData& file : files) names.push_back(file.name);
  publish_table_set(directory, set_name, names, [&files](std::size_t i) { return files[i].contents; }, options);
}

void publish_table_set(const std::string& directory, const std::string& set_name,
                       const std::vector<std::string>& names,
                       const std::function<std::string(std::size_t)>& contents, const TableSetOptions& options) {
  check_file_names(names);
  const Paths paths(directory);
  const std::unique_ptr<DirectoryLock> lock = lock_directory(paths, options);
  collect_garbage(paths, true);  // what a killed writer left

  const std::string set = encode_set_name(set_name);
  const std::string link_prefix = std::string(kSetLinkPrefix) + set + "/";
  const std::set<std::string> written(names.begin(), names.end());
  std::set<std::string> leaving;
  for (const std::string& name : options.remove)
    if (is_table_name(name) && !written.count(name)) leaving.insert(name);
  if (options.replace_directory)
    for (const std::string& name : list_or_empty(paths.dir))
      if (is_table_name(name) && !written.count(name)) leaving.insert(name);

  // 1. Adopt every node the switch concerns into the set, without changing
  //    what any of them shows.
  std::vector<std::string> adoptees;
  for (const std::set<std::string>* names : {&written, static_cast<const std::set<std::string>*>(&leaving)})
    for (const std::string& name : *names) {
      const std::optional<std::string> target = read_link(paths.dir + "/" + name);
      if (!target || *target != link_prefix + name) adoptees.push_back(name);
    }
  std::string current = generation_of(paths, set);
  if (!adoptees.empty()) {
    const std::string adopted = new_generation(paths, set);
    const std::string adopted_path = paths.gens + "/" + adopted;
    if (!current.empty())
      for (const std::string& name : list_or_empty(paths.gens + "/" + current))
        link_into(paths.gens + "/" + current + "/" + name, adopted_path + "/" + name);
    for (const std::string& name : adoptees) {
      const std::string slot = adopted_path + "/" + name;
      ::unlink(slot.c_str());
      // What DIR/NAME shows now (a regular file, or another set's file).
      if (::linkat(AT_FDCWD, (paths.dir + "/" + name).c_str(), AT_FDCWD, slot.c_str(), AT_SYMLINK_FOLLOW) != 0 &&
          errno != ENOENT)
        fail_errno("link " + paths.dir + "/" + name + " as", slot, errno);
    }
    sync_directory(adopted_path);
    switch_set(paths, set, adopted);
    for (const std::string& name : adoptees) replace_symlink(paths.dir + "/" + name, link_prefix + name);
    sync_directory(paths.dir);
    current = adopted;
  }

  // 2. The new generation, beside the current one.
  const std::string fresh = new_generation(paths, set);
  const std::string fresh_path = paths.gens + "/" + fresh;
  try {
    if (options.keep_others && !current.empty())
      for (const std::string& name : list_or_empty(paths.gens + "/" + current))
        if (!written.count(name) && !leaving.count(name))
          link_into(paths.gens + "/" + current + "/" + name, fresh_path + "/" + name);
    for (std::size_t i = 0; i < names.size(); ++i) write_new_file(fresh_path + "/" + names[i], contents(i));
    sync_directory(fresh_path);
  } catch (...) {
    remove_generation(fresh_path);  // never committed: nobody saw it
    throw;
  }

  // 3. The commit.  Nodes that left now dangle: no table, as for a reader.
  switch_set(paths, set, fresh);

  // 4. Tidy up; a kill before this only leaves garbage for the next writer.
  collect_garbage(paths, true);
  sync_directory(paths.dir);
}

void publish_table_file(const std::string& directory, const TableFileData& file, const TableSetOptions& options) {
  check_file_names({file.name});
  const Paths paths(directory);
  const std::unique_ptr<DirectoryLock> lock = lock_directory(paths, options);
  collect_garbage(paths, true);
  const std::string path = paths.dir + "/" + file.name;
  // A regular file or one of our set links may be replaced, nothing else.
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
    const std::optional<std::string> target = read_link(path);
    if (!target || !set_of_link(*target, file.name))
      // Planted or left by something else: a job is refused for it (the
      // plugin keeps the node in service), never written through it.
      throw UntrustedPathError(path, "it exists and is not a regular file (it is " + file_type_name(info.st_mode) +
                                         "); refusing to replace it");
  }
  if (const std::string error = replace_file_atomically(path, file.contents); !error.empty())
    throw TableFileError(error);
  collect_garbage(paths, true);
}

TableFilesSize measure_table_files(const std::string& directory) {
  const std::optional<std::vector<std::string>> names = list_directory(directory);
  if (!names) throw TableFileError("cannot read directory " + directory + ": " + std::strerror(ENOENT));
  std::vector<std::string> paths;
  for (const std::string& name : *names)
    if (is_table_name(name)) paths.push_back(directory + "/" + name);
  return measure_table_files(paths);
}

TableFilesSize measure_table_files(const std::vector<std::string>& paths) {
  TableFilesSize size;
  for (const std::string& path : paths) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) continue;
    ++size.files;
    size.bytes += static_cast<std::uint64_t>(info.st_size);
  }
  return size;
}

std::vector<TableFileData> read_table_files(const std::string& directory) {
  const Paths paths(directory);
  for (int attempt = 0; attempt < 200; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(std::min(attempt, 20)));
    const std::optional<std::vector<std::string>> names = list_directory(paths.dir);
    if (!names) throw TableFileError("cannot read directory " + directory + ": " + std::strerror(ENOENT));
    std::vector<TableFileData> files;
    std::map<std::string, std::string> generations;  // set -> generation read from
    bool changed = false;
    for (const std::string& name : *names) {
      if (!is_table_name(name)) continue;
      const std::string path = paths.dir + "/" + name;
      struct stat info {};
      if (::lstat(path.c_str(), &info) != 0) {
        if (errno == ENOENT) continue;  // a dangling link just removed
        fail_errno("read", path, errno);
      }
      std::string source = path;
      if (S_ISLNK(info.st_mode)) {
        const std::optional<std::string> target = read_link(path);
        const std::optional<std::string> set = target ? set_of_link(*target, name) : std::nullopt;
        if (set) {
          auto known = generations.find(*set);
          if (known == generations.end()) known = generations.emplace(*set, generation_of(paths, *set)).first;
          if (known->second.empty()) continue;  // no such set: a dangling link
          source = paths.gens + "/" + known->second + "/" + name;
        }
      }
      FileContents contents = read_regular_file(source, kMaxTableFileBytes);
      if (contents.error_number == ENOENT) {
        struct stat generation {};
        if (source != path && ::stat(directory_of(source).c_str(), &generation) == 0) continue;  // left the set
        if (source == path && S_ISLNK(info.st_mode)) continue;  // a foreign dangling link
        changed = true;  // the generation was collected, or the file replaced
        break;
      }
      if (!contents.error.empty()) {
        if (source != path) contents.error += " (the current file of " + path + ")";
        throw TableFileError(contents.error);
      }
      // A regular file replaced by a link between lstat and open.
      if (!S_ISLNK(info.st_mode) && (contents.inode != info.st_ino || contents.device != info.st_dev)) {
        changed = true;
        break;
      }
      files.push_back(TableFileData{name, std::move(contents.text)});
    }
    for (const auto& [set, generation] : generations)
      if (!changed && generation_of(paths, set) != generation) changed = true;
    if (!changed) return files;
  }
  throw TableFileError(directory + ": the table set kept changing while it was read; try again");
}

void tidy_table_directory(const std::string& directory, const TableSetOptions& options) {
  const Paths paths(directory);
  const std::unique_ptr<DirectoryLock> lock = lock_directory(paths, options);
  collect_garbage(paths, true);
}

std::vector<std::string> table_directory_leftovers(const std::string& directory) {
  return collect_garbage(Paths(directory), false);
}

}  // namespace angara
