// The SVG picture of channel values (routing/check/load_picture.hpp): one
// element per cabled channel, the colour scale's ends, the marks of failures
// and of the job's nodes, escaping, and refusals of bad input.
#include <stdexcept>
#include <string>
#include <vector>

#include "angara/network.hpp"
#include "routing/check/load_picture.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using angara_test::node_at;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The element (one line) whose tooltip starts with `tooltip`.
std::string element_with(const std::string& svg, const std::string& tooltip) {
  const std::size_t at = svg.find("<title>" + tooltip);
  if (at == std::string::npos) return "";
  const std::size_t begin = svg.rfind('\n', at) + 1;
  return svg.substr(begin, svg.find('\n', at) - begin);
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.compare(0, prefix.size(), prefix) == 0; }
bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

// 3x3: 9 routers, 4 channels each.  Values 1..36 over the cabled slots in id
// order; the last one, 2,2 -Y, carries the most.
START_TEST(test_channels_and_scale) {
  const Torus torus = Torus::parse("3x3");
  std::vector<double> values(torus.channel_slots(), 0);
  double next = 0;
  ChannelId busiest = 0;
  for (ChannelId c = 0; c < torus.channel_slots(); ++c)
    if (torus.channel_cabled(c)) {
      values[c] = ++next;
      busiest = c;
    }
  values[Torus::channel(node_at(torus, "0,0"), Direction::make(0, false))] = 0;  // one unused channel
  const std::string svg = load_svg(torus, values, PictureOptions{});
  ck_assert(starts_with(svg, "<?xml version=\"1.0\""));
  ck_assert(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\"") != std::string::npos);
  ck_assert(ends_with(svg, "</svg>\n"));
  ck_assert_uint_eq(count(svg, "class=\"channel"), 36);
  ck_assert_uint_eq(count(svg, "class=\"router"), 9);
  ck_assert_std_str_eq(torus.format_coord(Torus::channel_node(busiest)), "2,2");
  ck_assert_std_str_eq(Torus::channel_direction(busiest).token(), "-Y");

  // The busiest channel has the top colour, and it alone.
  ck_assert_std_str_eq(scale_colour(1.0), "#fde725");
  ck_assert_std_str_eq(scale_colour(0.0), "#440154");
  const std::string top = element_with(svg, "2,2 -Y to 2,1: 36 flows");
  ck_assert_msg(top.find("fill=\"#fde725\"") != std::string::npos, "busiest channel: %s", top.c_str());
  ck_assert_uint_eq(count(svg, "fill=\"#fde725\""), 1);
  // The unused channel is grey, the others on the scale.
  const std::string unused = element_with(svg, "0,0 +X to 1,0: 0 flows");
  ck_assert(unused.find(std::string("fill=\"") + kUnusedChannelColour + "\"") != std::string::npos);
  ck_assert_uint_eq(count(svg, std::string("fill=\"") + kUnusedChannelColour + "\""), 1 + 2);  // + 2 legend swatches
  const std::string middle = element_with(svg, "2,2 +Y to 2,0: 34 flows");  // wraps around
  ck_assert(middle.find("fill=\"" + scale_colour(34.0 / 36) + "\"") != std::string::npos);
  // The legend names the range of the channels in use.
  ck_assert(svg.find("in use 35 of 36 channels: min 2 flows, max 36 flows") != std::string::npos);
}
END_TEST

// A failed router is crossed out and its 8 channels (4 out, 4 in) are dashed;
// a failed cable's two channels are outlined red; job nodes are outlined.
START_TEST(test_failures_and_job) {
  const Torus torus = Torus::parse("3x3");
  Network network(torus);
  network.fail_node(node_at(torus, "1,1"));
  network.fail_link(node_at(torus, "0,0"), Direction::make(0, false));
  PictureOptions options;
  mark_failures(options, network);
  options.job_nodes = {node_at(torus, "0,0"), node_at(torus, "2,0")};
  const std::string svg = load_svg(torus, std::vector<double>(torus.channel_slots(), 1), options);
  ck_assert_uint_eq(count(svg, "class=\"channel"), 36);
  ck_assert_uint_eq(count(svg, "class=\"router failed-router\""), 1);
  ck_assert(element_with(svg, "1,1, failed").find("failed-router") != std::string::npos);
  ck_assert_uint_eq(count(svg, "class=\"channel dead\""), 8);
  ck_assert_uint_eq(count(svg, "class=\"channel failed-cable\""), 2);
  ck_assert(element_with(svg, "1,0 -X to 0,0: 1 flows, failed cable").find("failed-cable") != std::string::npos);
  ck_assert_uint_eq(count(svg, "class=\"router job-node\""), 2);
  ck_assert(element_with(svg, "2,0, in the job").find("job-node") != std::string::npos);
}
END_TEST

// Rings of 2: with two cables every router has both channels to the same
// neighbour in each dimension (16 on 2x2); single-cabled, one cable a pair (8).
// Desmos, 4x2x2x2 with YZK single-cabled: 160 channels in 4 labelled slices.
START_TEST(test_small_rings_and_slices) {
  const Torus double_cabled = Torus::parse("2x2");
  ck_assert_uint_eq(count(load_svg(double_cabled, std::vector<double>(double_cabled.channel_slots(), 0), {}),
                          "class=\"channel"),
                    16);
  const Torus single = double_cabled.with_single_cable(dimension_bit(0) | dimension_bit(1));
  const std::string svg = load_svg(single, std::vector<double>(single.channel_slots(), 0), {});
  ck_assert_uint_eq(count(svg, "class=\"channel"), 8);
  ck_assert(svg.find("<title>0,0 +X to 1,0: 0 flows</title>") != std::string::npos);
  ck_assert(svg.find("<title>0,0 -X to ") == std::string::npos);  // no cable there

  const Torus desmos = Torus::parse("4x2x2x2").with_single_cable(Torus::parse_dimension_letters("YZK"));
  const std::string sliced = load_svg(desmos, std::vector<double>(desmos.channel_slots(), 2), {});
  ck_assert_uint_eq(count(sliced, "class=\"channel"), desmos.cabled_channel_count());
  ck_assert_uint_eq(desmos.cabled_channel_count(), 160);
  ck_assert_uint_eq(count(sliced, "class=\"slice-label\""), 4);
  ck_assert(sliced.find(">Z=1, K=1</text>") != std::string::npos);
  ck_assert_uint_eq(count(sliced, "class=\"router"), 32);
}
END_TEST

// Text is XML-escaped; node names go into the tooltips; a fixed scale top
// (a percentage) colours by the fraction of it.
START_TEST(test_text_and_fixed_scale) {
  const Torus torus = Torus::parse("3");
  PictureOptions options;
  options.title = "a<b & \"c\"";
  options.value_name = "utilisation";
  options.unit = "%";
  options.scale_max = 100;
  options.node_names = {"n<0>", "n1", "n2"};
  std::vector<double> values(torus.channel_slots(), 0);
  values[Torus::channel(0, Direction::make(0, false))] = 50;
  const std::string svg = load_svg(torus, values, options);
  ck_assert(svg.find("<title>a&lt;b &amp; &quot;c&quot;</title>") != std::string::npos);
  ck_assert(svg.find("a<b") == std::string::npos);
  const std::string half = element_with(svg, "n&lt;0&gt; (0) +X to n1 (1): 50 %");
  ck_assert_msg(half.find("fill=\"" + scale_colour(0.5) + "\"") != std::string::npos, "%s", half.c_str());
  ck_assert(svg.find("channel utilisation (%)") != std::string::npos);
}
END_TEST

START_TEST(test_bad_input) {
  const Torus torus = Torus::parse("3x3");
  const std::vector<double> good(torus.channel_slots(), 0);
  ck_assert_int_eq(0, [&] {
    try {
      load_svg(torus, std::vector<double>(5, 0), {});
    } catch (const std::invalid_argument& e) {
      return std::string(e.what()).find("expected one value per channel slot") == std::string::npos;
    }
    return true;
  }());
  std::vector<double> negative = good;
  negative[3] = -1;
  ck_assert_int_eq(0, [&] {
    try {
      load_svg(torus, negative, {});
    } catch (const std::invalid_argument&) {
      return false;
    }
    return true;
  }());
  PictureOptions outside;
  outside.failed_routers = {9};
  ck_assert_int_eq(0, [&] {
    try {
      load_svg(torus, good, outside);
    } catch (const std::invalid_argument&) {
      return false;
    }
    return true;
  }());
  PictureOptions names;
  names.node_names = {"a"};
  ck_assert_int_eq(0, [&] {
    try {
      load_svg(torus, good, names);
    } catch (const std::invalid_argument&) {
      return false;
    }
    return true;
  }());
}
END_TEST

int main() {
  Suite* s = suite_create("load_picture");
  TCase* tc = tcase_create("core");
  tcase_add_test(tc, test_channels_and_scale);
  tcase_add_test(tc, test_failures_and_job);
  tcase_add_test(tc, test_small_rings_and_slices);
  tcase_add_test(tc, test_text_and_fixed_scale);
  tcase_add_test(tc, test_bad_input);
  suite_add_tcase(s, tc);
  return angara_test::run_suite(s);
}
