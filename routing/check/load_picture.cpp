// The SVG picture of a value per channel (routing/check/load_picture.hpp).
#include "routing/check/load_picture.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string_view>

#include "angara/printable.hpp"

namespace angara {

const char* const kUnusedChannelColour = "#d4d4d4";

namespace {

// Geometry in SVG user units (pixels at 100%).
constexpr double kPitch = 72;         // router to router
constexpr double kRouterHalf = 11;    // half the side of a router's square
constexpr double kLane = 5;           // a channel's offset from its cable's centre line
constexpr double kShaftHalf = 2.2;    // half the width of an arrow's shaft
constexpr double kHeadHalf = 4.6;     // half the width of its head
constexpr double kHeadLength = 7;
constexpr double kGap = 3;            // between a router and the channels at it
constexpr double kCornerStub = 12;    // length of a Z or K channel's stub
constexpr double kMargin = 24;
constexpr double kHeaderHeight = 64;
constexpr double kSliceLabel = 20;
constexpr double kSliceGap = 28;
constexpr double kLegendHeight = 112;
constexpr double kLegendWidth = 620;

const char* const kFailedColour = "#d62728";
const char* const kJobColour = "#1f5fbf";
const char* const kJobFill = "#cfe0fa";
constexpr std::size_t kOtherJobsPerRow = 3;
constexpr double kOtherJobRow = 22, kOtherJobWidth = 200;
// Fills of other jobs' routers: light, told apart from each other and from
// the job's own fill, the failed routers' pink and white; repeated past ten.
constexpr std::array<const char*, 10> kOtherJobFills = {"#ffe0b3", "#d4f0c4", "#e6d5f2", "#fff3b0", "#c8ece9",
                                                        "#f2d9c9", "#e0e0e0", "#d9e7b8", "#f7cfe5", "#cde3f2"};

struct Point {
  double x = 0, y = 0;
};
Point operator+(Point a, Point b) { return {a.x + b.x, a.y + b.y}; }
Point operator*(double k, Point a) { return {k * a.x, k * a.y}; }

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

// Whole numbers as they are ("12"), others with four significant digits.
std::string value_text(double value) {
  char text[32];
  if (value == std::floor(value) && std::fabs(value) < 1e15)
    std::snprintf(text, sizeof text, "%.0f", value);
  else
    std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

std::string with_unit(double value, const std::string& unit) {
  return unit.empty() ? value_text(value) : value_text(value) + " " + unit;
}

// Viridis at nine evenly spaced points, interpolated in between.
constexpr std::array<std::array<int, 3>, 9> kScaleStops = {{{0x44, 0x01, 0x54},
                                                            {0x47, 0x2d, 0x7b},
                                                            {0x3b, 0x52, 0x8b},
                                                            {0x2c, 0x72, 0x8e},
                                                            {0x21, 0x91, 0x8c},
                                                            {0x28, 0xae, 0x80},
                                                            {0x5e, 0xc9, 0x62},
                                                            {0xad, 0xdc, 0x30},
                                                            {0xfd, 0xe7, 0x25}}};

std::string hex_colour(const std::array<int, 3>& rgb) {
  char text[8];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return text;
}

// An arrow from `from` to `to`, as polygon points.
std::string arrow_points(Point from, Point to) {
  const double dx = to.x - from.x, dy = to.y - from.y;
  const double length = std::hypot(dx, dy);
  const Point along{dx / length, dy / length};
  const Point across{-along.y, along.x};
  const Point neck = to + (-kHeadLength) * along;
  const Point points[] = {from + kShaftHalf * across, neck + kShaftHalf * across, neck + kHeadHalf * across, to,
                          neck + (-kHeadHalf) * across, neck + (-kShaftHalf) * across,
                          from + (-kShaftHalf) * across};
  std::string text;
  for (const Point& p : points) {
    if (!text.empty()) text += ' ';
    text += number(p.x) + "," + number(p.y);
  }
  return text;
}

class Picture {
 public:
  Picture(const Torus& torus, const std::vector<double>& values, const PictureOptions& options)
      : torus_(torus), values_(values), options_(options) {
    validate();
    for (int dim = 0; dim < kMaxDims; ++dim) extent_[dim] = torus.size(dim);
    slice_width_ = extent_[0] * kPitch;
    slice_height_ = extent_[1] * kPitch;
    sliced_ = torus.dim_present(2) || torus.dim_present(3);
    const double label = sliced_ ? kSliceLabel : 0;
    const double grid_width = extent_[2] * slice_width_ + (extent_[2] - 1) * kSliceGap;
    const double grid_height = extent_[3] * (slice_height_ + label) + (extent_[3] - 1) * kSliceGap;
    width_ = 2 * kMargin + std::max(grid_width, kLegendWidth);
    grid_top_ = kHeaderHeight;
    legend_top_ = grid_top_ + grid_height + kSliceGap;
    const std::size_t job_rows = (options.other_jobs.size() + kOtherJobsPerRow - 1) / kOtherJobsPerRow;
    height_ = legend_top_ + kLegendHeight + (job_rows ? 26 + kOtherJobRow * static_cast<double>(job_rows) : 0);

    job_.assign(torus.node_count(), false);
    for (NodeId node : options.job_nodes) job_[node] = true;
    failed_router_.assign(torus.node_count(), false);
    for (NodeId node : options.failed_routers) failed_router_[node] = true;
    other_job_.assign(torus.node_count(), -1);
    for (std::size_t j = 0; j < options.other_jobs.size(); ++j)
      for (NodeId node : options.other_jobs[j]) other_job_[node] = static_cast<int>(j);
    failed_cable_.assign(torus.channel_slots(), false);
    for (ChannelId c : options.failed_cables) {
      if (!torus.channel_cabled(c)) continue;  // nothing to fail, as Network::fail_link
      failed_cable_[c] = true;
      failed_cable_[torus.reverse_channel(c)] = true;
    }
    measure_values();
  }

  std::string render() {
    out_ += "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n";
    out_ += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + number(width_) + "\" height=\"" +
            number(height_) + "\" viewBox=\"0 0 " + number(width_) + " " + number(height_) +
            "\" font-family=\"sans-serif\">\n";
    out_ += "<title>" + xml_escape(options_.title) + "</title>\n";
    out_ += "<rect x=\"0\" y=\"0\" width=\"" + number(width_) + "\" height=\"" + number(height_) +
            "\" fill=\"#ffffff\"/>\n";
    header();
    for (int k = 0; k < extent_[3]; ++k)
      for (int z = 0; z < extent_[2]; ++z) slice(z, k);
    legend();
    out_ += "</svg>\n";
    return std::move(out_);
  }

 private:
  void validate() const {
    if (values_.size() != torus_.channel_slots())
      throw std::invalid_argument("load picture: expected one value per channel slot of the " + torus_.to_string() +
                                  " torus (" + std::to_string(torus_.channel_slots()) + "), got " +
                                  std::to_string(values_.size()));
    for (double value : values_)
      if (!std::isfinite(value) || value < 0)
        throw std::invalid_argument("load picture: channel values must be finite and not negative, got " +
                                    value_text(value));
    if (options_.scale_max && !(std::isfinite(*options_.scale_max) && *options_.scale_max > 0))
      throw std::invalid_argument("load picture: the top of the scale must be a positive number");
    const auto check_nodes = [&](const std::vector<NodeId>& nodes, const char* what) {
      for (NodeId node : nodes)
        if (node >= torus_.node_count())
          throw std::invalid_argument(std::string("load picture: ") + what + " " + std::to_string(node) +
                                      " is outside the " + torus_.to_string() + " torus");
    };
    check_nodes(options_.job_nodes, "job node");
    for (const std::vector<NodeId>& job : options_.other_jobs) check_nodes(job, "node of another job");
    if (!options_.other_job_names.empty() && options_.other_job_names.size() != options_.other_jobs.size())
      throw std::invalid_argument("load picture: expected one name per other job (" +
                                  std::to_string(options_.other_jobs.size()) + "), got " +
                                  std::to_string(options_.other_job_names.size()));
    check_nodes(options_.failed_routers, "failed router");
    for (ChannelId c : options_.failed_cables)
      if (c >= torus_.channel_slots())
        throw std::invalid_argument("load picture: failed cable " + std::to_string(c) + " is outside the " +
                                    torus_.to_string() + " torus");
    if (!options_.node_names.empty() && options_.node_names.size() != torus_.node_count())
      throw std::invalid_argument("load picture: expected one node name per node (" +
                                  std::to_string(torus_.node_count()) + "), got " +
                                  std::to_string(options_.node_names.size()));
  }

  void measure_values() {
    for (ChannelId c = 0; c < torus_.channel_slots(); ++c) {
      if (!torus_.channel_cabled(c)) continue;
      ++drawn_;
      const double value = values_[c];
      if (value <= 0) continue;
      ++used_;
      max_ = std::max(max_, value);
      min_used_ = used_ == 1 ? value : std::min(min_used_, value);
    }
    top_ = options_.scale_max ? *options_.scale_max : (max_ > 0 ? max_ : 1);
  }

  std::string node_text(NodeId node) const {
    const std::string coord = torus_.format_coord(node);
    return options_.node_names.empty() ? coord : options_.node_names[node] + " (" + coord + ")";
  }

  Point centre(const Coord& c) const {
    const double label = sliced_ ? kSliceLabel : 0;
    const double left = kMargin + c[2] * (slice_width_ + kSliceGap);
    const double top = grid_top_ + c[3] * (slice_height_ + label + kSliceGap) + label;
    return {left + (c[0] + 0.5) * kPitch, top + (c[1] + 0.5) * kPitch};
  }

  void header() {
    out_ += "<text x=\"" + number(kMargin) + "\" y=\"26\" font-size=\"17\" font-weight=\"bold\">" +
            xml_escape(options_.title) + "</text>\n";
    std::string line = torus_.description() + " torus, " + std::to_string(torus_.node_count()) + " routers, " +
                       std::to_string(drawn_) + " channels drawn";
    if (!options_.job_nodes.empty()) line += ", job of " + std::to_string(options_.job_nodes.size()) + " nodes";
    if (!options_.failed_routers.empty() || !options_.failed_cables.empty())
      line += ", " + std::to_string(options_.failed_routers.size()) + " failed router(s) and " +
              std::to_string(options_.failed_cables.size()) + " failed cable(s)";
    out_ += "<text x=\"" + number(kMargin) + "\" y=\"48\" font-size=\"12\">" + xml_escape(line) + "</text>\n";
  }

  void slice(int z, int k) {
    if (sliced_) {
      std::string label;
      for (int dim = 2; dim < kMaxDims; ++dim) {
        if (!torus_.dim_present(dim)) continue;
        if (!label.empty()) label += ", ";
        label += std::string(1, dimension_letter(dim)) + "=" + std::to_string(dim == 2 ? z : k);
      }
      const Point corner = centre({0, 0, z, k});
      out_ += "<text class=\"slice-label\" x=\"" + number(corner.x - kPitch / 2) + "\" y=\"" +
              number(corner.y - kPitch / 2 - 6) + "\" font-size=\"12\" font-weight=\"bold\">" + xml_escape(label) +
              "</text>\n";
    }
    // Channels first, routers on top of them.
    for (int y = 0; y < extent_[1]; ++y)
      for (int x = 0; x < extent_[0]; ++x) {
        const NodeId node = torus_.id({x, y, z, k});
        for (int rank = 0; rank < kDirectionCount; ++rank) channel(node, Direction(rank));
      }
    for (int y = 0; y < extent_[1]; ++y)
      for (int x = 0; x < extent_[0]; ++x) router(torus_.id({x, y, z, k}));
  }

  void channel(NodeId node, Direction d) {
    if (!torus_.cabled(node, d)) return;
    const ChannelId c = Torus::channel(node, d);
    const Coord at = torus_.coord(node);
    const Point here = centre(at);
    Point from, to;
    if (d.dim() < 2) {
      // In the slice: along the cable, on the right of the direction of travel.
      const Point along = d.dim() == 0 ? Point{double(d.step()), 0} : Point{0, double(d.step())};
      const Point right{-along.y, along.x};
      const int next = at[d.dim()] + d.step();
      const bool wraps = next < 0 || next >= torus_.size(d.dim());
      const Point lane = here + kLane * right;
      from = lane + (kRouterHalf + kGap) * along;
      to = wraps ? lane + (kPitch / 2 - 2) * along : lane + (kPitch - kRouterHalf - kGap) * along;
    } else {
      // Across slices: a stub at a corner of the router.
      const double sx = d.positive() ? 1 : -1;
      const double sy = d.dim() == 2 ? -sx : sx;
      const Point diagonal{sx / std::sqrt(2.0), sy / std::sqrt(2.0)};
      from = here + Point{sx * (kRouterHalf + 1), sy * (kRouterHalf + 1)};
      to = from + kCornerStub * diagonal;
    }
    const double value = values_[c];
    const std::string fill = value > 0 ? scale_colour(value / top_) : kUnusedChannelColour;
    const NodeId there = torus_.neighbor(node, d);
    std::string classes = "channel";
    std::string outline, note;
    if (failed_cable_[c]) {
      classes += " failed-cable";
      outline = std::string(" stroke=\"") + kFailedColour + "\" stroke-width=\"1.5\" stroke-dasharray=\"3,2\"";
      note = ", failed cable";
    } else if (failed_router_[node] || failed_router_[there]) {
      classes += " dead";
      outline = " stroke=\"#555555\" stroke-width=\"1\" stroke-dasharray=\"2,2\"";
      note = ", router failed";
    }
    out_ += "<polygon class=\"" + classes + "\" points=\"" + arrow_points(from, to) + "\" fill=\"" + fill + "\"" +
            outline + "><title>" + xml_escape(node_text(node) + " " + d.token() + " to " + node_text(there) + ": " +
                                              with_unit(value, options_.unit) + note) +
            "</title></polygon>\n";
  }

  void router(NodeId node) {
    const Point at = centre(torus_.coord(node));
    const bool failed = failed_router_[node];
    std::string classes = "router";
    if (job_[node]) classes += " job-node";
    if (failed) classes += " failed-router";
    const int other = other_job_[node];
    if (other >= 0) classes += " other-job";
    std::string note = job_[node] ? ", in the job" : other >= 0 ? ", in " + other_job_name(other) : "";
    if (failed) note += ", failed";
    const std::string fill = failed ? "#f6d2d2" : job_[node] && !options_.other_jobs.empty() ? kJobFill
                             : other >= 0 ? kOtherJobFills[static_cast<std::size_t>(other) % kOtherJobFills.size()]
                                          : "#ffffff";
    out_ += "<g class=\"" + classes + "\"><title>" + xml_escape(node_text(node) + note) + "</title>";
    out_ += "<rect x=\"" + number(at.x - kRouterHalf) + "\" y=\"" + number(at.y - kRouterHalf) + "\" width=\"" +
            number(2 * kRouterHalf) + "\" height=\"" + number(2 * kRouterHalf) + "\" fill=\"" + fill + "\" stroke=\"" + (job_[node] ? kJobColour : "#7f7f7f") +
            "\" stroke-width=\"" + (job_[node] ? "3" : "1") + "\"/>";
    if (failed) cross(at);
    out_ += "</g>\n";
  }

  void cross(Point at) {
    const double r = kRouterHalf + 2;
    out_ += "<path d=\"M" + number(at.x - r) + "," + number(at.y - r) + " L" + number(at.x + r) + "," +
            number(at.y + r) + " M" + number(at.x - r) + "," + number(at.y + r) + " L" + number(at.x + r) + "," +
            number(at.y - r) + "\" stroke=\"" + kFailedColour + "\" stroke-width=\"3\" fill=\"none\"/>";
  }

  void legend() {
    const double left = kMargin, top = legend_top_;
    const double bar_width = 260, bar_height = 14;
    out_ += "<g class=\"legend\">\n<defs><linearGradient id=\"scale\" x1=\"0\" y1=\"0\" x2=\"1\" y2=\"0\">";
    for (std::size_t i = 0; i < kScaleStops.size(); ++i)
      out_ += "<stop offset=\"" + value_text(double(i) / (kScaleStops.size() - 1)) + "\" stop-color=\"" +
              hex_colour(kScaleStops[i]) + "\"/>";
    out_ += "</linearGradient></defs>\n";
    std::string caption = "channel " + options_.value_name + (options_.unit.empty() ? "" : " (" + options_.unit + ")");
    out_ += "<text x=\"" + number(left) + "\" y=\"" + number(top + 12) + "\" font-size=\"12\" font-weight=\"bold\">" +
            xml_escape(caption) + "</text>\n";
    out_ += "<rect x=\"" + number(left) + "\" y=\"" + number(top + 20) + "\" width=\"" + number(bar_width) +
            "\" height=\"" + number(bar_height) + "\" fill=\"url(#scale)\" stroke=\"#7f7f7f\" stroke-width=\"0.5\"/>\n";
    const double label_y = top + 20 + bar_height + 13;
    out_ += "<text x=\"" + number(left) + "\" y=\"" + number(label_y) + "\" font-size=\"11\">0</text>\n";
    out_ += "<text x=\"" + number(left + bar_width) + "\" y=\"" + number(label_y) +
            "\" font-size=\"11\" text-anchor=\"end\">" + xml_escape(value_text(top_)) + "</text>\n";
    std::string range = used_ == 0 ? "no channel in use"
                                   : "in use " + std::to_string(used_) + " of " + std::to_string(drawn_) +
                                         " channels: min " + with_unit(min_used_, options_.unit) + ", max " +
                                         with_unit(max_, options_.unit);
    out_ += "<text class=\"range\" x=\"" + number(left + bar_width + 16) + "\" y=\"" + number(top + 31) +
            "\" font-size=\"11\">" + xml_escape(range) + "</text>\n";

    // The marks, one swatch each.
    const double row = top + 20 + bar_height + 34;
    double x = left;
    const auto swatch_text = [&](const std::string& text) {
      out_ += "<text x=\"" + number(x + 30) + "\" y=\"" + number(row + 4) + "\" font-size=\"11\">" +
              xml_escape(text) + "</text>\n";
      x += 30 + 7.0 * text.size() + 18;
    };
    out_ += "<polygon points=\"" + arrow_points({x, row}, {x + 24, row}) + "\" fill=\"" + kUnusedChannelColour +
            "\"/>\n";
    swatch_text("unused channel");
    out_ += "<polygon points=\"" + arrow_points({x, row}, {x + 24, row}) + "\" fill=\"" + kUnusedChannelColour +
            "\" stroke=\"" + kFailedColour + "\" stroke-width=\"1.5\" stroke-dasharray=\"3,2\"/>\n";
    swatch_text("failed cable");
    out_ += "<rect x=\"" + number(x + 4) + "\" y=\"" + number(row - 8) + "\" width=\"16\" height=\"16\" fill=\"#f6d2d2\" "
            "stroke=\"#7f7f7f\"/>";
    cross({x + 12, row});
    out_ += "\n";
    swatch_text("failed router");
    out_ += "<rect x=\"" + number(x + 4) + "\" y=\"" + number(row - 8) +
            "\" width=\"16\" height=\"16\" fill=\"#ffffff\" stroke=\"" + kJobColour + "\" stroke-width=\"3\"/>\n";
    swatch_text("job's node");

    std::string key = "Arrows keep right of their cable; a channel that wraps around is a stub at the border.";
    out_ += "<text x=\"" + number(left) + "\" y=\"" + number(row + 26) + "\" font-size=\"11\">" + xml_escape(key) +
            "</text>\n";
    if (sliced_)
      out_ += "<text x=\"" + number(left) + "\" y=\"" + number(row + 42) +
              "\" font-size=\"11\">Slices: X right, Y down; Z, K channels at the corners: +Z up-right, -Z "
              "down-left, +K down-right, -K up-left.</text>\n";
    // The other jobs, kOtherJobsPerRow a row below the key.
    for (std::size_t j = 0; j < options_.other_jobs.size(); ++j) {
      const double job_row = row + 62 + kOtherJobRow * static_cast<double>(j / kOtherJobsPerRow);
      const double job_x = left + kOtherJobWidth * static_cast<double>(j % kOtherJobsPerRow);
      out_ += "<rect class=\"other-job-swatch\" x=\"" + number(job_x + 4) + "\" y=\"" + number(job_row - 8) +
              "\" width=\"16\" height=\"16\" fill=\"" + kOtherJobFills[j % kOtherJobFills.size()] +
              "\" stroke=\"#7f7f7f\"/><text x=\"" + number(job_x + 30) + "\" y=\"" + number(job_row + 4) +
              "\" font-size=\"11\">" + xml_escape(other_job_name(static_cast<int>(j))) + "</text>\n";
    }
    out_ += "</g>\n";
  }

  const Torus& torus_;
  const std::vector<double>& values_;
  const PictureOptions& options_;
  std::array<int, kMaxDims> extent_{};
  bool sliced_ = false;
  double slice_width_ = 0, slice_height_ = 0, width_ = 0, height_ = 0, grid_top_ = 0, legend_top_ = 0;
  std::vector<bool> job_, failed_router_, failed_cable_;
  std::vector<int> other_job_;  // per node: index into other_jobs, or -1

  std::string other_job_name(int job) const {
    return options_.other_job_names.empty() ? "job " + std::to_string(job + 1)
                                            : options_.other_job_names[static_cast<std::size_t>(job)];
  }
  std::size_t drawn_ = 0, used_ = 0;
  double max_ = 0, min_used_ = 0, top_ = 1;
  std::string out_;
};

}  // namespace

std::string scale_colour(double fraction) {
  if (!(fraction > 0)) fraction = 0;  // NaN too
  if (fraction > 1) fraction = 1;
  const double position = fraction * (kScaleStops.size() - 1);
  const std::size_t low = std::min(static_cast<std::size_t>(position), kScaleStops.size() - 2);
  const double t = position - low;
  std::array<int, 3> rgb{};
  for (int i = 0; i < 3; ++i)
    rgb[i] = static_cast<int>(std::lround(kScaleStops[low][i] + t * (kScaleStops[low + 1][i] - kScaleStops[low][i])));
  return hex_colour(rgb);
}

void mark_failures(PictureOptions& options, const Network& network) {
  options.failed_routers = network.failed_nodes();
  options.failed_cables = network.failed_links();
}

std::vector<double> channel_values(const std::vector<std::uint64_t>& loads) {
  return std::vector<double>(loads.begin(), loads.end());
}

std::string load_svg(const Torus& torus, const std::vector<double>& channel_value, const PictureOptions& options) {
  return Picture(torus, channel_value, options).render();
}

}  // namespace angara
