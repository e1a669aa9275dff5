// select/angara's choice of a free block (block_filter.h): the machine and
// Slurm's node table are mapped once (at slurmctld start and on
// reconfigure), so a job test costs one choose_free_block over the torus,
// or none when the same free nodes were asked for the same count lately.
#include "select/block_filter.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "angara/config.hpp"
#include "angara/hostlist.hpp"
#include "placement/block_choice.hpp"
#include "placement/blocks.hpp"

namespace {

using angara::NodeId;

constexpr NodeId kNotInMachine = static_cast<NodeId>(-1);

void write_message(char* message, std::size_t size, const std::string& text) {
  if (message == nullptr || size == 0) return;
  const std::size_t length = std::min(text.size(), size - 1);
  std::memcpy(message, text.data(), length);
  message[length] = '\0';
}

// "desmos[40-41] and 3 more": the first few names of a list, for a log line.
std::string some_names(const std::vector<std::string>& names) {
  constexpr std::size_t kShown = 8;
  std::vector<std::string> shown(names.begin(), names.begin() + std::min(names.size(), kShown));
  std::string text = angara::compress_hostlist(shown);
  if (names.size() > kShown) text += " and " + std::to_string(names.size() - kShown) + " more";
  return text;
}

}  // namespace

struct angara_block_filter {
  angara::Config config;
  std::vector<NodeId> node_of_index;  // Slurm index -> NodeId (kNotInMachine for a hole)
  std::vector<std::size_t> index_of_node;  // NodeId -> Slurm index, or slurm_count when not in Slurm
  // The network of the last choice: the configuration's failures plus the
  // nodes Slurm had DOWN or DRAINED, rebuilt only when those change.
  std::unique_ptr<angara::Network> network;
  std::vector<unsigned char> network_failed;  // per NodeId, Slurm's failed nodes `network` was built with
  // Shape-class bounds on the intact machine, kept for the plugin's life
  // (choose_free_block recomputes them on every call otherwise).
  std::map<angara::ShapeClassKey, angara::IntactBound> bound_cache;
  // The last choices, by their whole input: a scheduling pass tests many
  // pending jobs of one size against the same free nodes, and each test
  // after the first is then a comparison of masks.
  struct Remembered {
    std::uint32_t node_count = 0;
    std::vector<unsigned char> free;
    std::vector<unsigned char> failed;
    int result = ANGARA_BLOCK_NONE;
    std::string message;
    std::vector<NodeId> nodes;
  };
  static constexpr std::size_t kRemembered = 16;
  std::vector<Remembered> remembered;  // at most kRemembered, oldest replaced first
  std::size_t next_replaced = 0;
};

namespace {

const angara::Network& network_for(angara_block_filter& filter, const std::vector<unsigned char>& failed) {
  if (!filter.network || failed != filter.network_failed) {
    auto network = std::make_unique<angara::Network>(filter.config.network());
    for (NodeId node = 0; node < failed.size(); ++node)
      if (failed[node] && network->node_alive(node)) network->fail_node(node);
    filter.network = std::move(network);
    filter.network_failed = failed;
  }
  return *filter.network;
}

std::string describe(const angara::Config& config, const angara::BlockChoice& choice, std::uint32_t count) {
  const angara::Torus& torus = config.torus;
  const angara::FreeBlock& block = choice.blocks.front();
  std::vector<std::string> names;
  names.reserve(block.nodes.size());
  for (NodeId node : block.nodes) names.push_back(config.node_name(node));
  const std::string where = angara::format_shape(torus, block.shape) + " at " + torus.format_coord(block.origin);
  std::string text;
  if (choice.staircase)
    text = "free staircase in the " + where + " box (no free block or box of " + std::to_string(count) +
           "; routed on its own routers, routing.confine)";
  else if (!choice.exact && config.confine)
    text = "staircase of the free " + where + " box (no free block of exactly " + std::to_string(count) +
           "; its other nodes stay free)";
  else
    text = std::string(block.confined ? "confined " : block.isolated ? "isolated " : "") +
           angara::format_shape(torus, block.shape) + " block at " + torus.format_coord(block.origin) +
           (choice.exact ? ""
                         : " (no free block of exactly " + std::to_string(count) + ": Slurm picks them in this box)");
  return text + ": " + angara::compress_hostlist(names);
}

}  // namespace

extern "C" angara_block_filter_t* angara_block_filter_create(const char* config_path, const char* const* slurm_names,
                                                             size_t slurm_count, const angara_block_filter_t* previous,
                                                             char* message, size_t message_size) {
  try {
    if (config_path == nullptr || *config_path == '\0') {
      write_message(message, message_size, "no machine configuration file given");
      return nullptr;
    }
    auto filter = std::make_unique<angara_block_filter>();
    filter->config = angara::load_config(config_path);
    const NodeId machine_nodes = filter->config.torus.node_count();
    filter->node_of_index.assign(slurm_count, kNotInMachine);
    filter->index_of_node.assign(machine_nodes, slurm_count);
    std::vector<std::string> unknown;
    std::size_t mapped = 0;
    for (std::size_t index = 0; index < slurm_count; ++index) {
      if (slurm_names == nullptr || slurm_names[index] == nullptr) continue;
      const std::optional<NodeId> node = filter->config.node_by_name(slurm_names[index]);
      if (!node) {
        unknown.emplace_back(slurm_names[index]);
        continue;
      }
      filter->node_of_index[index] = *node;
      filter->index_of_node[*node] = index;
      ++mapped;
    }
    if (!unknown.empty()) {
      write_message(message, message_size,
                    filter->config.source + ": " + std::to_string(unknown.size()) +
                        " Slurm node(s) not in the machine's `nodes`: " + some_names(unknown));
      return nullptr;
    }
    // The bounds depend on the torus (sizes and cabling) alone.
    if (previous != nullptr && previous->config.torus == filter->config.torus)
      filter->bound_cache = previous->bound_cache;
    write_message(message, message_size,
                  filter->config.source + ": " + filter->config.torus.to_string() + " torus, " +
                      std::to_string(mapped) + " of its " + std::to_string(machine_nodes) + " nodes in Slurm, " +
                      angara::listed_failures(filter->config));
    return filter.release();
  } catch (const std::exception& error) {
    write_message(message, message_size, error.what());
  } catch (...) {
    write_message(message, message_size, "unknown error while reading the machine configuration");
  }
  return nullptr;
}

extern "C" void angara_block_filter_destroy(angara_block_filter_t* filter) { delete filter; }

extern "C" int angara_block_filter_choose(angara_block_filter_t* filter, const unsigned char* usable,
                                          const unsigned char* failed, size_t slurm_count, uint32_t node_count,
                                          unsigned char* chosen, char* message, size_t message_size) {
  try {
    if (filter == nullptr || usable == nullptr || chosen == nullptr) {
      write_message(message, message_size, "no machine, usable nodes or result given");
      return ANGARA_BLOCK_ERROR;
    }
    if (slurm_count != filter->node_of_index.size()) {
      write_message(message, message_size,
                    "Slurm has " + std::to_string(slurm_count) + " node slots, the plugin mapped " +
                        std::to_string(filter->node_of_index.size()) + " (reconfigure pending?)");
      return ANGARA_BLOCK_ERROR;
    }
    if (node_count == 0) {
      write_message(message, message_size, "a node count of 0");
      return ANGARA_BLOCK_ERROR;
    }
    const NodeId machine_nodes = filter->config.torus.node_count();
    angara::BlockChoiceRequest request;
    request.node_count = node_count;
    request.free.assign(machine_nodes, 0);
    request.keep = 1;
    request.bound_cache = &filter->bound_cache;
    // The prologue routes inside the set when the configuration confines.
    request.confined = filter->config.confine;
    std::vector<unsigned char> slurm_failed(machine_nodes, 0);
    for (std::size_t index = 0; index < slurm_count; ++index) {
      const NodeId node = filter->node_of_index[index];
      if (node == kNotInMachine) continue;
      if (failed != nullptr && failed[index]) slurm_failed[node] = 1;
      else if (usable[index]) request.free[node] = 1;
    }
    std::fill(chosen, chosen + slurm_count, 0);
    const auto answer = [&](const angara_block_filter::Remembered& choice) {
      for (NodeId node : choice.nodes) {
        const std::size_t index = filter->index_of_node[node];
        if (index < slurm_count) chosen[index] = 1;
      }
      write_message(message, message_size, choice.message);
      return choice.result;
    };
    for (const angara_block_filter::Remembered& known : filter->remembered)
      if (known.node_count == node_count && known.free == request.free && known.failed == slurm_failed)
        return answer(known);

    const angara::BlockChoice choice = angara::choose_free_block(network_for(*filter, slurm_failed), request);
    angara_block_filter::Remembered made;
    made.node_count = node_count;
    made.free = request.free;
    made.failed = slurm_failed;
    if (choice.blocks.empty()) {
      made.message = choice.reason;
    } else {
      made.result = ANGARA_BLOCK_FOUND;
      made.nodes = choice.blocks.front().nodes;
      made.message = describe(filter->config, choice, node_count);
    }
    if (filter->remembered.size() < angara_block_filter::kRemembered) {
      filter->remembered.push_back(std::move(made));
      return answer(filter->remembered.back());
    }
    std::size_t& slot = filter->next_replaced;
    filter->remembered[slot] = std::move(made);
    const int result = answer(filter->remembered[slot]);
    slot = (slot + 1) % angara_block_filter::kRemembered;
    return result;
  } catch (const std::exception& error) {
    write_message(message, message_size, error.what());
  } catch (...) {
    write_message(message, message_size, "unknown error while choosing a block");
  }
  return ANGARA_BLOCK_ERROR;
}
