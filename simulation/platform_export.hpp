// A job as a SimGrid platform (angara-route simulate --platform): its nodes
// as hosts, every channel its routes use as a link, and every ordered pair's
// route from the job's table, so that an unmodified MPI program runs under
// SMPI (smpicc/smpirun) over the job's real routes.
#pragma once

#include <string>

#include "angara/config.hpp"
#include "angara/network.hpp"
#include "angara/route.hpp"
#include "simulation/flow_simulator.hpp"

namespace angara::simulation {

// The platform as XML (SimGrid platform version 4.1, one zone with full
// routing).  Hosts are the Slurm node names; a link is named after the
// channel ("desmos00+X"), with the model's bandwidth and the hop latency; each
// host's "NAME-nic" link, shared by nobody (FATPIPE), adds the rest of the
// latency between neighbours, so a route of h hops takes node_latency +
// (h-1) x hop_latency, as in the flow simulator.  Throws
// std::invalid_argument for a missing route or one over a dead channel.
std::string platform_xml(const Config& config, const Network& network, const RouteTable& table, const LinkModel& model);
// The job's node names, one a line, in rank order (smpirun -hostfile).
std::string hostfile_text(const Config& config, const RouteTable& table);

// Both written atomically: the file is complete or not replaced.  Throws
// TableFileError ("cannot write PATH: reason") when it cannot be written.
void write_platform(const Config& config, const Network& network, const RouteTable& table, const LinkModel& model,
                    const std::string& path);
void write_hostfile(const Config& config, const RouteTable& table, const std::string& path);

}  // namespace angara::simulation
