// select/angara's C entry point (select/block_filter.h): the machine mapped
// onto Slurm's node table in Slurm's own order, the block it narrows a job
// to, and every error returned as a value with a message, never thrown.
#include <algorithm>
#include <string>
#include <vector>

#include "angara/config.hpp"
#include "placement/block_choice.hpp"
#include "select/block_filter.h"
#include "tests/test_support.hpp"

using namespace angara;

namespace {

const std::string kDesmos = angara_test::data_path("desmos_single_cable.yaml");

// Slurm's table: the Desmos nodes in reverse order, with a hole (a removed
// dynamic node) at index 3.
std::vector<std::string> slurm_table() {
  std::vector<std::string> names;
  for (int i = 31; i >= 0; --i) {
    names.push_back(i < 10 ? "desmos0" + std::to_string(i) : "desmos" + std::to_string(i));
    if (names.size() == 3) names.push_back("");
  }
  return names;
}

std::vector<const char*> pointers(const std::vector<std::string>& names) {
  std::vector<const char*> result;
  for (const std::string& name : names) result.push_back(name.empty() ? nullptr : name.c_str());
  return result;
}

struct Filter {
  std::vector<std::string> names = slurm_table();
  std::string message;
  angara_block_filter_t* handle = nullptr;
  explicit Filter(const std::string& path, std::vector<std::string> table = slurm_table(),
                  const angara_block_filter_t* previous = nullptr)
      : names(std::move(table)) {
    char text[1024] = "";
    const std::vector<const char*> table_pointers = pointers(names);
    handle = angara_block_filter_create(path.c_str(), table_pointers.data(), names.size(), previous, text, sizeof text);
    message = text;
  }
  ~Filter() { angara_block_filter_destroy(handle); }
  Filter(const Filter&) = delete;
  Filter& operator=(const Filter&) = delete;

  // Chooses with `usable` names (all when empty) and `failed` names.
  int choose(std::uint32_t count, const std::vector<std::string>& usable, const std::vector<std::string>& failed,
             std::vector<std::string>& chosen_names) {
    std::vector<unsigned char> usable_mask(names.size(), usable.empty() ? 1 : 0), failed_mask(names.size(), 0),
        chosen(names.size(), 7);
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (std::find(usable.begin(), usable.end(), names[i]) != usable.end()) usable_mask[i] = 1;
      if (std::find(failed.begin(), failed.end(), names[i]) != failed.end()) failed_mask[i] = 1;
    }
    char text[1024] = "";
    const int result = angara_block_filter_choose(handle, usable_mask.data(), failed_mask.data(), names.size(), count,
                                                  chosen.data(), text, sizeof text);
    message = text;
    chosen_names.clear();
    for (std::size_t i = 0; i < names.size(); ++i) {
      ck_assert_msg(chosen[i] == 0 || chosen[i] == 1, "chosen[%zu] = %d", i, chosen[i]);
      if (chosen[i]) chosen_names.push_back(names[i]);
    }
    std::sort(chosen_names.begin(), chosen_names.end());
    return result;
  }
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The names of choose_free_block's best block, called directly.
std::vector<std::string> expected_block(const Config& config, const Network& network, std::size_t count,
                                        const std::vector<unsigned char>& free) {
  BlockChoiceRequest request;
  request.node_count = count;
  request.free = free;
  const BlockChoice choice = choose_free_block(network, request);
  ck_assert(!choice.blocks.empty());
  std::vector<std::string> names;
  for (NodeId node : choice.blocks.front().nodes) names.push_back(config.node_name(node));
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

START_TEST(maps_slurm_order_and_summarises) {
  Filter filter(kDesmos);
  ck_assert_ptr_nonnull(filter.handle);
  ck_assert_msg(contains(filter.message, "desmos_single_cable.yaml: 4x2x2x2 torus, 32 of its 32 nodes in Slurm"),
                "%s", filter.message.c_str());
}
END_TEST

START_TEST(chooses_what_block_choice_chooses) {
  const Config config = load_config(kDesmos);
  Filter filter(kDesmos);
  std::vector<std::string> chosen;
  ck_assert_int_eq(filter.choose(8, {}, {}, chosen), ANGARA_BLOCK_FOUND);
  const std::vector<std::string> expected =
      expected_block(config, config.network(), 8, std::vector<unsigned char>(32, 1));
  ck_assert(chosen == expected);
  ck_assert_uint_eq(chosen.size(), 8);
  ck_assert_msg(contains(filter.message, "isolated ") && contains(filter.message, " block at "), "%s",
                filter.message.c_str());
}
END_TEST

// A node Slurm has DOWN or DRAINED is a failed router: never in the block,
// even when the caller's usable mask says otherwise.
// A filter that replaces another (scontrol reconfigure) chooses alike,
// on the same torus and on another one.
START_TEST(replacing_filter_chooses_alike) {
  Filter first(kDesmos);
  std::vector<std::string> before, after;
  ck_assert_int_eq(first.choose(16, {}, {"desmos05"}, before), ANGARA_BLOCK_FOUND);
  Filter second(kDesmos, slurm_table(), first.handle);
  ck_assert_ptr_nonnull(second.handle);
  ck_assert_int_eq(second.choose(16, {}, {"desmos05"}, after), ANGARA_BLOCK_FOUND);
  ck_assert(before == after);
  Filter other(angara_test::data_path("desmos_double_cable.yaml"), slurm_table(), first.handle);
  ck_assert_ptr_nonnull(other.handle);
  const Config config = load_config(angara_test::data_path("desmos_double_cable.yaml"));
  ck_assert_int_eq(other.choose(8, {}, {}, after), ANGARA_BLOCK_FOUND);
  ck_assert(after == expected_block(config, config.network(), 8, std::vector<unsigned char>(32, 1)));
}
END_TEST

// The filter remembers its last choices by their whole input: another
// state never gets a remembered answer.
START_TEST(remembered_choices_follow_the_state) {
  Filter filter(kDesmos);
  std::vector<std::string> first, second, again, failed_around;
  ck_assert_int_eq(filter.choose(8, {}, {}, first), ANGARA_BLOCK_FOUND);
  std::vector<std::string> rest;
  for (const std::string& name : filter.names)
    if (!name.empty() && std::find(first.begin(), first.end(), name) == first.end()) rest.push_back(name);
  ck_assert_int_eq(filter.choose(8, rest, {}, second), ANGARA_BLOCK_FOUND);
  ck_assert(first != second);
  for (const std::string& name : second) ck_assert(std::find(rest.begin(), rest.end(), name) != rest.end());
  ck_assert_int_eq(filter.choose(8, {}, {}, again), ANGARA_BLOCK_FOUND);
  ck_assert(again == first);
  // The same free nodes with one of the first block failed.
  ck_assert_int_eq(filter.choose(8, {}, {first.front()}, failed_around), ANGARA_BLOCK_FOUND);
  ck_assert(std::find(failed_around.begin(), failed_around.end(), first.front()) == failed_around.end());
  // More states than it remembers, then the first again.
  for (std::uint32_t count = 1; count <= 20; ++count) {
    std::vector<std::string> ignored;
    filter.choose(count, {}, {}, ignored);
  }
  ck_assert_int_eq(filter.choose(8, {}, {}, again), ANGARA_BLOCK_FOUND);
  ck_assert(again == first);
}
END_TEST

START_TEST(failed_nodes_are_never_chosen) {
  const Config config = load_config(kDesmos);
  Filter filter(kDesmos);
  for (std::uint32_t count : {8u, 16u}) {
    std::vector<std::string> chosen;
    ck_assert_int_eq(filter.choose(count, {}, {"desmos05"}, chosen), ANGARA_BLOCK_FOUND);
    ck_assert(std::find(chosen.begin(), chosen.end(), "desmos05") == chosen.end());
    Network network = config.network();
    network.fail_node(5);
    std::vector<unsigned char> free(32, 1);
    free[5] = 0;
    const std::vector<std::string> expected = expected_block(config, network, count, free);
    ck_assert(chosen == expected);
  }
}
END_TEST

START_TEST(no_free_block_says_why) {
  Filter filter(kDesmos);
  std::vector<std::string> chosen;
  ck_assert_int_eq(filter.choose(4, {"desmos00", "desmos05", "desmos10", "desmos15"}, {}, chosen), ANGARA_BLOCK_NONE);
  ck_assert(chosen.empty());
  const std::string expected = "no free block of 4 nodes";
  ck_assert_str_eq(filter.message.c_str(), expected.c_str());
  ck_assert_int_eq(filter.choose(40, {}, {}, chosen), ANGARA_BLOCK_NONE);
  const std::string too_many = "40 nodes asked, 32 free";
  ck_assert_str_eq(filter.message.c_str(), too_many.c_str());
}
END_TEST

// With routing.confine the plugin narrows a 3-node job to a 3x1 line (a
// ring of 4 has no isolated extent 3, so without it the job gets a box of 4
// to pick from), and with only a 2x2 free, to the box's staircase: exactly
// the job's nodes, the box's fourth left free.
START_TEST(confined_configuration_narrows_to_the_job_s_nodes) {
  std::vector<std::string> chosen;
  Filter plain(kDesmos);
  ck_assert_int_eq(plain.choose(3, {}, {}, chosen), ANGARA_BLOCK_FOUND);
  ck_assert_uint_eq(chosen.size(), 4);
  ck_assert_msg(contains(plain.message, "(no free block of exactly 3: Slurm picks them in this box)"), "%s",
                plain.message.c_str());

  Filter confined(angara_test::data_path("desmos_confine.yaml"));
  ck_assert_int_eq(confined.choose(3, {}, {}, chosen), ANGARA_BLOCK_FOUND);
  ck_assert_uint_eq(chosen.size(), 3);
  ck_assert_msg(contains(confined.message, "confined 3x1x1x1 block at "), "%s", confined.message.c_str());

  ck_assert_int_eq(confined.choose(3, {"desmos00", "desmos01", "desmos04", "desmos05"}, {}, chosen), ANGARA_BLOCK_FOUND);
  ck_assert_std_str_eq(chosen.front() + " " + chosen[1] + " " + chosen[2], "desmos01 desmos04 desmos05");
  const std::string expected =
      "staircase of the free 2x2x1x1 at 0,0,0,0 box (no free block of exactly 3; its other nodes stay free): "
      "desmos[01,04-05]";
  ck_assert_std_str_eq(confined.message, expected);
}
END_TEST

START_TEST(unknown_slurm_node_is_a_configuration_error) {
  std::vector<std::string> table = slurm_table();
  table[0] = "ghost31";
  Filter filter(kDesmos, table);
  ck_assert_ptr_null(filter.handle);
  ck_assert_msg(contains(filter.message, "desmos_single_cable.yaml: 1 Slurm node(s) not in the machine's `nodes`: ghost31"),
                "%s", filter.message.c_str());
}
END_TEST

START_TEST(bad_files_are_named) {
  Filter missing("/nonexistent/angara.yaml");
  ck_assert_ptr_null(missing.handle);
  ck_assert_msg(contains(missing.message, "/nonexistent/angara.yaml"), "%s", missing.message.c_str());
  Filter unknown_key(angara_test::data_path("config_unknown_key.yaml"));
  ck_assert_ptr_null(unknown_key.handle);
  ck_assert_msg(contains(unknown_key.message, "config_unknown_key.yaml:") && contains(unknown_key.message, "algoritm"),
                "%s", unknown_key.message.c_str());
  Filter empty("");
  ck_assert_ptr_null(empty.handle);
}
END_TEST

// Wrong arguments are errors with a message, never a crash or an exception.
START_TEST(bad_arguments_are_errors) {
  Filter filter(kDesmos);  // 33 slots: 32 nodes and a hole
  std::vector<unsigned char> usable(34, 1), chosen(34, 0);
  char text[256] = "";
  ck_assert_int_eq(angara_block_filter_choose(filter.handle, usable.data(), nullptr, 34, 8, chosen.data(), text,
                                              sizeof text),
                   ANGARA_BLOCK_ERROR);
  const std::string slots = text;
  const std::string expected_slots = "Slurm has 34 node slots, the plugin mapped 33 (reconfigure pending?)";
  ck_assert_str_eq(slots.c_str(), expected_slots.c_str());
  ck_assert_int_eq(angara_block_filter_choose(filter.handle, usable.data(), nullptr, 33, 0, chosen.data(), text,
                                              sizeof text),
                   ANGARA_BLOCK_ERROR);
  const std::string zero = text;
  const std::string expected_zero = "a node count of 0";
  ck_assert_str_eq(zero.c_str(), expected_zero.c_str());
  ck_assert_int_eq(angara_block_filter_choose(nullptr, usable.data(), nullptr, 33, 8, chosen.data(), text, sizeof text),
                   ANGARA_BLOCK_ERROR);
  // A one-byte message buffer is still a terminated string.
  char tiny[1] = {'x'};
  ck_assert_int_eq(angara_block_filter_choose(filter.handle, usable.data(), nullptr, 34, 8, chosen.data(), tiny,
                                              sizeof tiny),
                   ANGARA_BLOCK_ERROR);
  ck_assert_int_eq(tiny[0], '\0');
}
END_TEST

int main() {
  Suite* suite = suite_create("block_filter");
  TCase* tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, maps_slurm_order_and_summarises);
  tcase_add_test(tc, chooses_what_block_choice_chooses);
  tcase_add_test(tc, failed_nodes_are_never_chosen);
  tcase_add_test(tc, replacing_filter_chooses_alike);
  tcase_add_test(tc, remembered_choices_follow_the_state);
  tcase_add_test(tc, no_free_block_says_why);
  tcase_add_test(tc, confined_configuration_narrows_to_the_job_s_nodes);
  tcase_add_test(tc, unknown_slurm_node_is_a_configuration_error);
  tcase_add_test(tc, bad_files_are_named);
  tcase_add_test(tc, bad_arguments_are_errors);
  suite_add_tcase(suite, tc);
  return angara_test::run_suite(suite);
}
