#include "routing/common/parallel.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <thread>
#include <vector>

namespace angara {

namespace {

NodeResources load_node_resources() {
  NodeResources found;
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) != 0) return found;
  hwloc_topology_set_cache_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_icache_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_io_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_NONE);
  if (hwloc_topology_load(topology) == 0) {
    // Since hwloc 2.0 the topology holds only the CPUs this process may use.
    int cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
    if (cores <= 0) cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU);
    found.cores = std::max(cores, 1);
    found.memory = hwloc_get_root_obj(topology)->total_memory;
  }
  hwloc_topology_destroy(topology);
  return found;
}

}  // namespace

const NodeResources& node_resources() {
  static const NodeResources resources = load_node_resources();
  return resources;
}

int worker_count() {
  if (const char* text = std::getenv("ANGARA_THREADS")) {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end != text && *end == '\0' && value >= 1 && value <= 1024) return static_cast<int>(value);
  }
  return node_resources().cores;
}

std::size_t parallel_parts(std::size_t items, std::size_t min_per_part) {
  const std::size_t most = items / std::max<std::size_t>(min_per_part, 1);
  return std::max<std::size_t>(1, std::min<std::size_t>(most, static_cast<std::size_t>(worker_count())));
}

std::size_t run_parallel(std::size_t items, const std::function<void(std::size_t, std::size_t, std::size_t)>& work,
                         std::size_t min_per_part) {
  const std::size_t parts = parallel_parts(items, min_per_part);
  const auto bounds = [&](std::size_t part) { return items * part / parts; };
  std::vector<std::exception_ptr> errors(parts);
  std::vector<std::thread> threads;
  threads.reserve(parts - 1);
  for (std::size_t part = 1; part < parts; ++part)
    threads.emplace_back([&, part] {
      try {
        work(part, bounds(part), bounds(part + 1));
      } catch (...) {
        errors[part] = std::current_exception();
      }
    });
  try {
    work(0, bounds(0), bounds(1));
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
  return parts;
}

}  // namespace angara
