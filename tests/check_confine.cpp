// routing.confine (routing/pipeline.hpp): a job's routes computed on its own
// routers alone when a table exists there, else on the live network, with
// the report saying which; exact outcomes on an 8x8 torus.
#include <string>
#include <vector>

#include "angara/config.hpp"
#include "angara/hostlist.hpp"
#include "routing/pipeline.hpp"
#include "routing/report.hpp"
#include "tests/test_support.hpp"

using namespace angara;

namespace {

Config square_config(bool confine) {
  return parse_config(std::string("machine:\n  torus: 8x8\n  nodes: n[00-63]\nrouting:\n  lp_bound_time: 0\n") +
                          (confine ? "  confine: on\n" : ""),
                      "square.yaml");
}

JobResult routed(const Config& config, const std::string& nodes) {
  JobRequest request;
  request.job = "7";
  request.node_names = expand_hostlist(nodes);
  return compute_job_routes(config, request);
}

}  // namespace

// A 5x2 block of a ring of 8 is not isolated: 0 and 4 are as near round the
// outside, and without confinement balanced sends some pairs that way.
// Confined, every route stays on its 10 routers; the table is verified on
// the live network; the fingerprint tells the two apart.
START_TEST(block_of_any_shape_is_confined) {
  const std::string block = "n[00-04,08-12]";
  const JobResult loose = routed(square_config(false), block);
  ck_assert(!routes_stay_on_own_routers(loose.network.torus(), loose.table));
  ck_assert(!loose.confined);
  ck_assert_std_str_eq(loose.confine_note, "");
  ck_assert_std_str_eq(confine_text(loose), "");

  const JobResult confined = routed(square_config(true), block);
  ck_assert(confined.confined);
  ck_assert(routes_stay_on_own_routers(confined.network.torus(), confined.table));
  ck_assert(confined.report.ok());
  ck_assert_uint_eq(confined.report.routes, 90);
  ck_assert_uint_eq(confined.network.failed_nodes().size(), 0);  // the live network, not the confined one
  ck_assert(confined.fingerprint != loose.fingerprint);
  ck_assert(format_report_line(confined).find("; confined to its own routers (routing.confine)") != std::string::npos);
}
END_TEST

// Four nodes on a diagonal are not even connected by their own cables: not
// tried on their own routers, routed on the live network, and the report
// says why.  An L with its corner at the low end is connected, but from
// 0,2 to 2,0 a route must take +X before -Y and 1,2 is not in the set: no
// table there either.
START_TEST(scattered_set_falls_back_to_the_live_network) {
  const JobResult result = routed(square_config(true), "n[00,09,18,27]");
  ck_assert(!result.confined);
  ck_assert_std_str_eq(result.confine_note, "the allocation's own cables do not connect it");
  ck_assert(result.report.ok());
  ck_assert_uint_eq(result.report.routes, 12);
  ck_assert_std_str_eq(confine_text(result),
                       "not confined: the allocation's own cables do not connect it (routing.confine)");
  // n(x + 8y): 0,0 1,0 2,0 0,1 0,2
  const JobResult l_shape = routed(square_config(true), "n[00-02,08,16]");
  ck_assert(!l_shape.confined);
  ck_assert_std_str_eq(l_shape.confine_note, "no table on the allocation's own routers alone");
  ck_assert(l_shape.report.ok());
}
END_TEST

// A staircase with skin: 2,1 is below the filter of 3,3 but 2,2 is not in
// the set, so 2,1 reaches 1,3 only by a First Step +X to 3,1 and the
// direction-order middle +Y +Y -X -X: confined, with First/Last Steps.
START_TEST(skin_routes_take_a_first_step) {
  // n(x + 8y): 3,3 2,3 1,3 3,2 3,1 2,1
  const JobResult result = routed(square_config(true), "n[27,26,25,19,11,10]");
  ck_assert(result.confined);
  ck_assert(result.report.ok());
  ck_assert_uint_gt(result.report.fs_ls_routes, 0);
}
END_TEST

int main() {
  Suite* suite = suite_create("confine");
  TCase* tc = tcase_create("pipeline");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, block_of_any_shape_is_confined);
  tcase_add_test(tc, scattered_set_falls_back_to_the_live_network);
  tcase_add_test(tc, skin_routes_take_a_first_step);
  suite_add_tcase(suite, tc);
  return angara_test::run_suite(suite);
}
