// Shared glue for the Check test programs.
#pragma once

#include <check.h>

#include <cstdlib>
#include <string>

namespace angara_test {

// Runs one suite with Check's normal runner (CK_NORMAL prints the summary line
// "100%: Checks: N, Failures: 0, Errors: 0") and returns the exit status.
inline int run_suite(Suite* suite) {
  SRunner* runner = srunner_create(suite);
  srunner_run_all(runner, CK_NORMAL);
  const int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

inline std::string data_path(const std::string& name) { return std::string(TEST_DATA_DIR) + "/" + name; }

}  // namespace angara_test

// ck_assert_str_eq with std::string arguments (copied once, so temporaries
// outlive the comparison and the failure message).
#define ck_assert_std_str_eq(a, b)            \
  do {                                        \
    const std::string ck_std_left_ = (a);     \
    const std::string ck_std_right_ = (b);    \
    ck_assert_str_eq(ck_std_left_.c_str(), ck_std_right_.c_str()); \
  } while (0)
