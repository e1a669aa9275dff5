#include "simulation/platform_export.hpp"

#include <cstdio>
#include <stdexcept>
#include <vector>

#include "angara/file_io.hpp"
#include "angara/printable.hpp"

namespace angara::simulation {

namespace {

std::string channel_name(const Config& config, NodeId node, Direction direction) {
  return xml_escape(config.node_name(node) + direction.token());
}

void write_or_throw(const std::string& path, const std::string& text) {
  if (std::string error = check_output_file(path); !error.empty()) throw TableFileError(error);
  if (std::string error = replace_file_atomically(path, text); !error.empty()) throw TableFileError(error);
}

}  // namespace

std::string platform_xml(const Config& config, const Network& network, const RouteTable& table, const LinkModel& model) {
  const Torus& torus = network.torus();
  // The links: every channel some route crosses, checked as the simulator checks them.
  std::vector<std::pair<std::size_t, std::size_t>> every_pair;
  for (std::size_t s = 0; s < table.size(); ++s)
    for (std::size_t d = 0; d < table.size(); ++d)
      if (s != d) every_pair.emplace_back(s, d);
  check_routes(network, JobFlows{&table, &every_pair, 1});
  std::vector<unsigned char> used(torus.channel_slots(), 0);
  for (const auto& [s, d] : every_pair) {
    table.walk(s, d, torus, [&](NodeId at, Direction direction) { used[Torus::channel(at, direction)] = 1; });
  }
  char number[160];
  // No double hyphen in the comment ("--platform"): XML forbids it there.
  std::string xml =
      "<?xml version='1.0'?>\n"
      "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<!-- The routes of one Angara job, written by angara-route simulate (its platform option) -->\n"
      "<platform version=\"4.1\">\n"
      "  <zone id=\"angara\" routing=\"Full\">\n";
  const double nic_latency = model.node_latency > model.hop_latency ? model.node_latency - model.hop_latency : 0;
  for (NodeId node : table.nodes()) {
    const std::string name = xml_escape(config.node_name(node));
    xml += "    <host id=\"" + name + "\" speed=\"1Gf\"/>\n";
    std::snprintf(number, sizeof number, "bandwidth=\"%.9gBps\" latency=\"%.9gs\" sharing_policy=\"FATPIPE\"",
                  model.bandwidth * 1000, nic_latency);
    xml += "    <link id=\"" + name + "-nic\" " + number + "/>\n";
  }
  std::snprintf(number, sizeof number, "bandwidth=\"%.9gBps\" latency=\"%.9gs\"", model.bandwidth, model.hop_latency);
  for (ChannelId channel = 0; channel < torus.channel_slots(); ++channel)
    if (used[channel])
      xml += "    <link id=\"" +
             channel_name(config, Torus::channel_node(channel), Torus::channel_direction(channel)) + "\" " + number +
             "/>\n";
  for (const auto& [s, d] : every_pair) {
    xml += "    <route src=\"" + xml_escape(config.node_name(table.nodes()[s])) + "\" dst=\"" +
           xml_escape(config.node_name(table.nodes()[d])) + "\" symmetrical=\"NO\"><link_ctn id=\"" +
           xml_escape(config.node_name(table.nodes()[s])) + "-nic\"/>";
    table.walk(s, d, torus, [&](NodeId at, Direction direction) {
      xml += "<link_ctn id=\"" + channel_name(config, at, direction) + "\"/>";
    });
    xml += "</route>\n";
  }
  xml += "  </zone>\n</platform>\n";
  return xml;
}

std::string hostfile_text(const Config& config, const RouteTable& table) {
  std::string text;
  for (NodeId node : table.nodes()) text += config.node_name(node) + "\n";
  return text;
}

void write_platform(const Config& config, const Network& network, const RouteTable& table, const LinkModel& model,
                    const std::string& path) {
  write_or_throw(path, platform_xml(config, network, table, model));
}

void write_hostfile(const Config& config, const RouteTable& table, const std::string& path) {
  write_or_throw(path, hostfile_text(config, table));
}

}  // namespace angara::simulation
