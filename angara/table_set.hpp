// Table sets: the table files of one computation become visible all at once
// or not at all (angara-tables(5), "TABLE SETS").
//
// Layout of a table directory DIR:
//   DIR/NODE.rt                  the name routers and readers open: either a
//                                regular file (one node's table written alone,
//                                as a prologue does) or a symbolic link
//                                .angara/sets/SET/NODE.rt
//   DIR/.angara/sets/SET         symbolic link ../gens/GEN: the set's current
//                                generation; replacing it with one rename(2)
//                                is the commit of a whole set
//   DIR/.angara/gens/GEN/        one generation: immutable once committed
//   DIR/.angara/lock             flock(2) of every writer of DIR
//
// A writer builds the new generation beside the old one, then switches the
// set's link.  Nodes joining the set are first "adopted": their current
// table is hard-linked into a copy of the set's current generation and their
// link re-pointed, which changes no content; nodes leaving it are absent from
// the new generation, so they disappear with the same rename.  A writer killed
// at any point leaves the old set or the new one, whole; its temporaries are
// removed by the next writer, which holds the lock, so nothing it removes can
// belong to a live writer.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace angara {

struct TableFileData {
  std::string name;      // file name inside the directory, "desmos03.rt"
  std::string contents;  // the whole file
};

struct TableSetOptions {
  // Files of the directory that leave it with the switch (failed nodes of a
  // job, nodes no longer in an allocation).
  std::vector<std::string> remove;
  // Every *.rt file of the directory not written now leaves it with the switch
  // (`generate --output`: the directory holds this computation only).
  bool replace_directory = false;
  // Keep the set's other files (a rewrite of some nodes of a job only).
  bool keep_others = false;
  // Create missing parents of the directory (the directory itself is created
  // when its parent exists).
  bool create_parents = false;
  // How long to wait for another writer of the directory; <0: the default,
  // $ANGARA_LOCK_TIMEOUT seconds or 30.
  double lock_timeout_seconds = -1;
};

// Publishes `files` (names "NODE.rt") as one generation of set `set_name` in
// `directory`.  Throws TableFileError when the directory cannot be written
// or another writer holds it for longer than the timeout.
void publish_table_set(const std::string& directory, const std::string& set_name,
                       const std::vector<TableFileData>& files, const TableSetOptions& options = {});
// The same for many large files: `names` are checked before anything is
// written, and contents(i) makes file i's bytes when it is written, so only
// one file is in memory at a time.
void publish_table_set(const std::string& directory, const std::string& set_name,
                       const std::vector<std::string>& names,
                       const std::function<std::string(std::size_t)>& contents, const TableSetOptions& options = {});

// One node's table alone (the prologue and epilogue on a node): replaced with
// one rename(2), under the same lock so it cannot interleave with a set.
void publish_table_file(const std::string& directory, const TableFileData& file,
                        const TableSetOptions& options = {});

// Every visible *.rt file of `directory` (dot files and dangling links are
// not tables), sorted by name, read as one consistent snapshot: if a set is
// switched while it is read, the read starts over.  Regular files only, at
// most kMaxTableFileBytes each.  Throws TableFileError.
std::vector<TableFileData> read_table_files(const std::string& directory);

// How many visible *.rt files `directory` holds and their summed size (links
// followed), without reading them: what read_table_files() would load, for
// the memory estimate taken before it.  Throws TableFileError when the
// directory cannot be read.
struct TableFilesSize {
  std::size_t files = 0;
  std::uint64_t bytes = 0;
};
TableFilesSize measure_table_files(const std::string& directory);
// The same for the given files (a job's nodes'); missing ones are not counted.
TableFilesSize measure_table_files(const std::vector<std::string>& paths);

// Takes the lock and removes what killed writers left (what every writer
// does first); the visible tables do not change.
void tidy_table_directory(const std::string& directory, const TableSetOptions& options = {});

// Temporaries a killed writer left in `directory` (for tests and the kill
// test): ".NAME.tmp.PID" files, unreferenced generations and sets, dangling
// set links.  Empty when the directory is clean.
std::vector<std::string> table_directory_leftovers(const std::string& directory);

}  // namespace angara
