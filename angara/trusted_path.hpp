// What a root process may trust on the file system (doc/security.md): a file
// or directory it reads or writes is trusted when nobody but root (or an
// owner the administrator names, and the calling user itself) can change it
// or anything on the way to it.  That is: the object and every directory
// above it are owned by a trusted user; the object is not writable by group
// or others; and every directory above it is not writable by group or
// others unless it is sticky (/tmp), where only the owner of an entry can
// rename or remove it.  Checked on descriptors opened component by
// component with O_NOFOLLOW, so no symbolic link planted by someone else
// is followed; the path is first resolved with realpath(3), so links the
// administrator put in trusted directories (/var/run -> /run) are allowed.
#pragma once

#include <sys/types.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "angara/file_io.hpp"

namespace angara {

// A path a root process must not use: who could change it and how.
// A kind of TableFileError: the admin tool reports it with the same exit
// status (5); the plugin refuses the job for it without draining the node.
class UntrustedPathError : public TableFileError {
 public:
  UntrustedPathError(const std::string& path, const std::string& rule)
      : TableFileError("untrusted " + path + ": " + rule), path_(path), rule_(rule) {}
  const std::string& path() const { return path_; }
  const std::string& rule() const { return rule_; }

 private:
  std::string path_, rule_;
};

// The users whose files are trusted: root, the calling user (a root process
// trusts root alone), and the administrator's extra owner (plugstack
// owner=, e.g. SlurmUser or a root-squashed file system's anonymous user).
struct TrustedOwners {
  std::vector<uid_t> uids;
  // root and the effective user, plus `extra` when it names a user ("" for
  // none).  Throws std::invalid_argument for an unknown user name.
  static TrustedOwners with(const std::string& extra = "");
  bool trusts(uid_t uid) const;
  std::string names() const;  // "root" or "root or slurm"
};

enum class PathKind { file, directory };

// Throws UntrustedPathError unless `path` (which must exist) is a trusted
// file or directory as described above.  `private_file`: the file must also
// not be readable by group or others (a key).
void check_trusted_path(const std::string& path, PathKind kind, const TrustedOwners& owners,
                        bool private_file = false);

// The rule `path` itself (not the directories above it) breaks, "" when
// none; for reports that name every bad path.  Does not follow a final link.
std::string untrusted_object_rule(const std::string& path, const TrustedOwners& owners, bool private_file = false);

// For a path that is created when missing: the nearest existing ancestor
// must be a trusted directory, and the path itself, when it exists, trusted.
void check_trusted_or_creatable(const std::string& path, PathKind kind, const TrustedOwners& owners);

// Opens `name` in the directory `directory` (which the caller has checked)
// with openat(2) and O_NOFOLLOW, so a symbolic link there is refused rather
// than followed; `flags` as for open(2) (O_CREAT creates with `mode`).  The
// result is a regular file owned by a trusted user and not writable by
// group or others, else UntrustedPathError; TableFileError when the system
// refuses.
FileDescriptor open_trusted_file(const std::string& directory, const std::string& name, int flags,
                                 const TrustedOwners& owners, mode_t mode = 0600);

// fs.protected_symlinks of the running kernel: "1", "0", or "" when unknown.
std::string protected_symlinks_setting();

}  // namespace angara
