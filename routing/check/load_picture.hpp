// Pictures of a value per channel (the load of a routing, the utilisation of
// a simulation) on the torus, as a standalone SVG 1.1 document.
//
// A 1D or 2D torus is drawn as it is: routers on a grid (X to the right, Y
// down), and each channel as an arrow on its own side of the cable (traffic
// keeps right, so the two directions of a cable never overlap).  A channel
// that wraps around the ring is a short stub at the border, drawn where it
// starts.  3D and 4D tori are a grid of X-Y slices, Z to the right and K
// down, each slice labelled; the Z and K channels of a router are short
// diagonal stubs at its corners (+Z up-right, -Z down-left, +K down-right,
// -K up-left).  Every cabled channel slot is exactly one element of class
// "channel"; channel slots without a cable (absent dimensions, single
// cabling) are not drawn.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "angara/network.hpp"

namespace angara {

struct PictureOptions {
  std::string title;
  // What the values are, for the legend and the tooltips: "load" in
  // "flows", "utilisation" in "%".
  std::string value_name = "load";
  std::string unit = "flows";
  // Top of the colour scale (100 for a percentage); unset: the largest value
  // of a drawn channel.
  std::optional<double> scale_max;
  // The job's nodes, outlined.
  std::vector<NodeId> job_nodes;
  // Other jobs (the running ones beside the job), each filled with a
  // colour of its own and named in the legend by other_job_names (same
  // length, or empty: "job 1", "job 2", ...).
  std::vector<std::vector<NodeId>> other_jobs;
  std::vector<std::string> other_job_names;
  // Failures, marked: a failed router is crossed out; a failed cable's two
  // channels are outlined red and dashed (a cable named by either channel,
  // as Network::failed_links names it).  Channels of a failed router are
  // outlined grey and dashed.
  std::vector<NodeId> failed_routers;
  std::vector<ChannelId> failed_cables;
  // Slurm name of each NodeId for the tooltips; empty: coordinates only.
  std::vector<std::string> node_names;
};

// Copies the failed routers and cables of `network` into `options`.
void mark_failures(PictureOptions& options, const Network& network);

// Integer loads (channel_loads in routing/check/metrics.hpp) as values.
std::vector<double> channel_values(const std::vector<std::uint64_t>& loads);

// The colour of a fraction of the top of the scale (clamped to [0, 1]):
// a viridis-like sequential scale, "#440154" at 0 to "#fde725" at 1.
std::string scale_colour(double fraction);
// The colour of a channel whose value is 0: it carries nothing.
extern const char* const kUnusedChannelColour;

// The picture.  `channel_value` is indexed by ChannelId (node * 8 +
// direction rank, as channel_loads); values of channel slots without a
// cable are ignored.  Throws std::invalid_argument when `channel_value` does
// not have one value per channel slot, a value is negative or not finite,
// scale_max is not positive, a node id is outside the torus, or node_names
// is neither empty nor one name per node.
std::string load_svg(const Torus& torus, const std::vector<double>& channel_value, const PictureOptions& options);

}  // namespace angara
