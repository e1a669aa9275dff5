// The time of select/angara's job test (select/block_filter.h): one
// angara_block_filter_choose on a machine given as angara.yaml, for a few
// node counts, with a share of the nodes taken by earlier picks.  Slurm's
// budget for the whole job test is 20 ms on 4096 nodes (issue 24).
//
//   angara-block-filter-timing CONFIG.yaml [COUNT...] [--taken FRACTION] [--repeat N]
//
// Prints one line per count, in milliseconds: the first call (which builds
// the cached network and computes the bounds of the count's block shapes),
// the same state again (remembered), the mean of --repeat states with one
// more node taken each (computed), and the block; then the first calls of a
// filter that replaced it (scontrol reconfigure).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "angara/config.hpp"
#include "select/block_filter.h"

namespace {

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CONFIG.yaml [COUNT...] [--taken FRACTION] [--repeat N]\n", argv[0]);
    return 2;
  }
  const std::string config_path = argv[1];
  std::vector<std::uint32_t> counts;
  double taken_fraction = 0;
  int repeat = 10;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--taken" && i + 1 < argc) taken_fraction = std::atof(argv[++i]);
    else if (arg == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else counts.push_back(static_cast<std::uint32_t>(std::strtoul(arg.c_str(), nullptr, 10)));
  }
  if (counts.empty()) counts = {8, 64, 100, 37, 512};

  const angara::Config config = angara::load_config(config_path);
  std::vector<const char*> names;
  for (const std::string& name : config.node_names) names.push_back(name.c_str());
  char message[4096];
  auto started = std::chrono::steady_clock::now();
  angara_block_filter_t* filter =
      angara_block_filter_create(config_path.c_str(), names.data(), names.size(), nullptr, message, sizeof message);
  if (filter == nullptr) {
    std::fprintf(stderr, "%s\n", message);
    return 1;
  }
  std::printf("create: %.2f ms (%s)\n", milliseconds_since(started), message);

  std::vector<unsigned char> usable(names.size(), 1);
  std::mt19937 random(1);
  std::bernoulli_distribution taken(taken_fraction);
  for (unsigned char& node : usable) node = taken(random) ? 0 : 1;
  std::vector<unsigned char> failed(names.size(), 0);
  std::vector<unsigned char> chosen(names.size(), 0);
  for (std::uint32_t count : counts) {
    started = std::chrono::steady_clock::now();
    int result = angara_block_filter_choose(filter, usable.data(), failed.data(), names.size(), count, chosen.data(),
                                            message, sizeof message);
    const double first = milliseconds_since(started);
    // The same state again: the filter remembers its last choices.
    started = std::chrono::steady_clock::now();
    result = angara_block_filter_choose(filter, usable.data(), failed.data(), names.size(), count, chosen.data(),
                                        message, sizeof message);
    const double again = milliseconds_since(started);
    // Repeats on states that differ by one more taken node each (far from
    // the origin the choices prefer), so each is computed.
    double total = 0;
    for (int i = 0; i < repeat; ++i) {
      std::vector<unsigned char> varied = usable;
      varied[names.size() - 1 - static_cast<std::size_t>(i) % names.size()] = 0;
      started = std::chrono::steady_clock::now();
      angara_block_filter_choose(filter, varied.data(), failed.data(), names.size(), count, chosen.data(), message,
                                 sizeof message);
      total += milliseconds_since(started);
    }
    const double mean = total / repeat;
    angara_block_filter_choose(filter, usable.data(), failed.data(), names.size(), count, chosen.data(), message,
                               sizeof message);
    std::string text = message;
    if (text.size() > 100) text = text.substr(0, 100) + "...";
    std::printf("count %4u: first %7.2f ms, same state again %5.3f ms, mean of %d others %7.2f ms (%s: %s)\n", count,
                first, again, repeat, mean,
                result == ANGARA_BLOCK_FOUND ? "block" : "none", text.c_str());
  }
  // scontrol reconfigure: a new filter replaces this one and keeps what it
  // learnt about shapes, so its first tests are as fast as the later ones.
  started = std::chrono::steady_clock::now();
  angara_block_filter_t* replaced =
      angara_block_filter_create(config_path.c_str(), names.data(), names.size(), filter, message, sizeof message);
  angara_block_filter_destroy(filter);
  if (replaced == nullptr) {
    std::fprintf(stderr, "%s\n", message);
    return 1;
  }
  std::printf("reconfigure: %.2f ms\n", milliseconds_since(started));
  for (std::uint32_t count : counts) {
    started = std::chrono::steady_clock::now();
    const int result = angara_block_filter_choose(replaced, usable.data(), failed.data(), names.size(), count,
                                                  chosen.data(), message, sizeof message);
    std::printf("count %4u after reconfigure: first %7.2f ms (%s)\n", count, milliseconds_since(started),
                result == ANGARA_BLOCK_FOUND ? "block" : "none");
  }
  angara_block_filter_destroy(replaced);
  return 0;
}
