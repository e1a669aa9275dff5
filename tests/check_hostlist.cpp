// Slurm hostlist expressions: expansion, compression and error messages.
#include <stdexcept>
#include <string>
#include <vector>

#include "angara/hostlist.hpp"
#include "tests/test_support.hpp"

using namespace angara;

namespace {

using Names = std::vector<std::string>;

// The names joined by spaces, so a mismatch prints readably.
std::string joined(const Names& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : " ") + name;
  return out;
}

std::string expansion_error(const std::string& expression) {
  try {
    expand_hostlist(expression);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

START_TEST(test_expand_ranges_keep_padding) {
  ck_assert_std_str_eq(joined(expand_hostlist("desmos[00-03,07]")), "desmos00 desmos01 desmos02 desmos03 desmos07");
  // The width is the lower bound's: 08-10 pads, 8-10 does not.
  ck_assert_std_str_eq(joined(expand_hostlist("n[08-10]")), "n08 n09 n10");
  ck_assert_std_str_eq(joined(expand_hostlist("n[8-10]")), "n8 n9 n10");
  ck_assert_std_str_eq(joined(expand_hostlist("n[098-101]")), "n098 n099 n100 n101");
  ck_assert_uint_eq(expand_hostlist("desmos[00-31]").size(), 32u);
  ck_assert_std_str_eq(expand_hostlist("desmos[00-31]").back(), "desmos31");
}
END_TEST

START_TEST(test_expand_items_and_suffixes) {
  // Plain names, a suffix after the brackets, several items, white space.
  ck_assert_std_str_eq(joined(expand_hostlist("login1,n[1-2]-ib,gpu")), "login1 n1-ib n2-ib gpu");
  ck_assert_std_str_eq(joined(expand_hostlist("a b,\tc")), "a b c");
  ck_assert_std_str_eq(joined(expand_hostlist("n[3,1],n[5-6,2]")), "n3 n1 n5 n6 n2");
  // Several bracket groups: the rightmost varies fastest.
  ck_assert_std_str_eq(joined(expand_hostlist("r[1-2]n[1-2]")), "r1n1 r1n2 r2n1 r2n2");
  // Duplicates are kept; an empty expression has no names.
  ck_assert_std_str_eq(joined(expand_hostlist("n1,n[1-2]")), "n1 n1 n2");
  ck_assert_uint_eq(expand_hostlist("").size(), 0u);
}
END_TEST

START_TEST(test_expand_errors) {
  ck_assert_std_str_eq(expansion_error("desmos[00-3"), "unbalanced '[' at position 6 in 'desmos[00-3'");
  ck_assert_std_str_eq(expansion_error("n[09-03]"), "range 09-03 is descending at position 2 in 'n[09-03]'");
  ck_assert_std_str_eq(expansion_error("n1]"), "unbalanced ']' at position 2 in 'n1]'");
  ck_assert_std_str_eq(expansion_error("n[1-[2]]"), "nested '[' (not supported) at position 4 in 'n[1-[2]]'");
  ck_assert_std_str_eq(expansion_error("n[]"), "empty brackets at position 1 in 'n[]'");
  ck_assert_std_str_eq(expansion_error("n[1,,2]"), "empty range at position 4 in 'n[1,,2]'");
  ck_assert_std_str_eq(expansion_error("n[1,]"), "empty range at position 4 in 'n[1,]'");
  ck_assert_std_str_eq(expansion_error("n[a-3]"),
                       "bad range 'a-3' (expected numbers like 07 or 00-03) at position 2 in 'n[a-3]'");
  ck_assert_std_str_eq(expansion_error("n[1-]"),
                       "bad range '1-' (expected numbers like 07 or 00-03) at position 2 in 'n[1-]'");
  ck_assert_std_str_eq(expansion_error("n[0-99999999]"),
                       "hostlist 'n[0-99999999]' expands to more than 1048576 names");
  ck_assert_std_str_eq(expansion_error("a[0-1023]b[0-1024]"),
                       "hostlist 'a[0-1023]b[0-1024]' expands to more than 1048576 names");
}
END_TEST

// A caller's own limit counts every name of the expression, repeats too, and
// is enforced before the names are made.
START_TEST(test_expand_limit) {
  ck_assert_uint_eq(expand_hostlist("n[1-3],m[1-2]", 5).size(), 5);
  const auto error_with_limit = [](const std::string& expression, std::size_t limit) -> std::string {
    try {
      expand_hostlist(expression, limit);
    } catch (const HostlistTooLong& e) {
      return e.what();
    }
    return "(no error)";
  };
  ck_assert_std_str_eq(error_with_limit("n[1-3],m[1-3]", 5), "hostlist 'n[1-3],m[1-3]' expands to more than 5 names");
  ck_assert_std_str_eq(error_with_limit("n[1-3],n[1-3]", 5), "hostlist 'n[1-3],n[1-3]' expands to more than 5 names");
  ck_assert_std_str_eq(error_with_limit("n[0-99999999]", 5), "hostlist 'n[0-99999999]' expands to more than 5 names");
  ck_assert_std_str_eq(error_with_limit("a[1-3]b[1-2]", 5), "hostlist 'a[1-3]b[1-2]' expands to more than 5 names");
  ck_assert_std_str_eq(error_with_limit("n1", 0), "hostlist 'n1' expands to more than 0 names");
}
END_TEST

START_TEST(test_compress_groups) {
  ck_assert_std_str_eq(compress_hostlist(expand_hostlist("desmos[00-03,07]")), "desmos[00-03,07]");
  ck_assert_std_str_eq(compress_hostlist(expand_hostlist("desmos[00-31]")), "desmos[00-31]");
  // Sorted within a group, duplicates dropped, prefixes in order of appearance.
  ck_assert_std_str_eq(compress_hostlist({"n3", "n1", "n2", "n3"}), "n[1-3]");
  ck_assert_std_str_eq(compress_hostlist({"b1", "a1", "b2", "a3"}), "b[1-2],a[1,3]");
  // A group of one has no brackets; plain names stay as they are, once.
  ck_assert_std_str_eq(compress_hostlist({"login", "n7", "login"}), "login,n7");
  ck_assert_std_str_eq(compress_hostlist({}), "");
}
END_TEST

START_TEST(test_compress_widths) {
  // Unpadded numbers: one group even across 9 -> 10.
  ck_assert_std_str_eq(compress_hostlist({"n8", "n9", "n10"}), "n[8-10]");
  // n10 fits the width-2 group of n08 and n09.
  ck_assert_std_str_eq(compress_hostlist({"n08", "n09", "n10"}), "n[08-10]");
  // n1 and n01 are different hosts: different widths, different groups.
  ck_assert_std_str_eq(compress_hostlist({"n1", "n01", "n2", "n02"}), "n[1-2],n[01-02]");
  ck_assert_std_str_eq(compress_hostlist(expand_hostlist("n[098-101]")), "n[098-101]");
  // Only the trailing number is grouped.
  ck_assert_std_str_eq(compress_hostlist({"r1n1", "r1n2", "r2n1"}), "r1n[1-2],r2n1");
}
END_TEST

int main() {
  Suite* suite = suite_create("hostlist");
  TCase* tc = tcase_create("core");
  tcase_add_test(tc, test_expand_ranges_keep_padding);
  tcase_add_test(tc, test_expand_items_and_suffixes);
  tcase_add_test(tc, test_expand_errors);
  tcase_add_test(tc, test_expand_limit);
  tcase_add_test(tc, test_compress_groups);
  tcase_add_test(tc, test_compress_widths);
  suite_add_tcase(suite, tc);
  return angara_test::run_suite(suite);
}
