// Work split over the node's cores.  Callers split per source or
// per destination and merge the parts in order, so every result is the
// same for any number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace angara {

// Threads to use: $ANGARA_THREADS if set (1 = serial, for measurements and
// the job prologue's one-core budget), else the cores hwloc finds in this
// process's allowed CPU set (Slurm's cgroup in a prologue), at least 1.
int worker_count();

// What hwloc finds on this node, loaded once per process (caches and I/O
// devices left out: a prologue pays for one quick load): the cores of the
// allowed CPU set, at least 1, and the memory of all NUMA nodes (0 when
// hwloc cannot tell).
struct NodeResources {
  int cores = 1;
  std::uint64_t memory = 0;
};
const NodeResources& node_resources();

// Splits [0, items) into at most worker_count() contiguous parts of at
// least `min_per_part` items (where work per item is too small to pay for
// a thread below that), in order, and runs work(part, begin, end) for each,
// part 0 on the calling thread.
// Returns the number of parts (>= 1 when items > 0).  An exception thrown by
// a part is rethrown here after all parts finished (the first part's wins).
std::size_t run_parallel(std::size_t items, const std::function<void(std::size_t, std::size_t, std::size_t)>& work,
                         std::size_t min_per_part = 1);
// The number of parts run_parallel() will use for `items`.
std::size_t parallel_parts(std::size_t items, std::size_t min_per_part = 1);

}  // namespace angara
