// The writer and the inspector of the kill test (tests/test_kill.sh): one
// table-writing path of the product per mode, run to be killed with SIGKILL
// at a random moment, and the checks run afterwards.
//
//   kill_driver rebuild  CONFIG DIR JOB NODES FAILED ALGORITHM [--quiesced|--step-wait=S]
//                                       rebuild_job_tables, as `angara-route rebuild` (the kill test
//                                       passes --quiesced: it checks that sets switch whole, and an
//                                       intermediate set of a staged live switch is neither old nor new)
//   kill_driver prologue CONFIG DIR JOB NODES NODE ALGORITHM     install_job_table on NODE, as the SPANK prologue
//   kill_driver state    CONFIG DIR     one line per visible table "NAME JOB ALGORITHM FINGERPRINT", then
//                                       "verify ok" or "verify failed: ..." when there are two or more
//   kill_driver tidy     DIR            what the next writer does first: remove the leftovers of killed ones
//   kill_driver leftovers DIR           one line per leftover (none after tidy)
#include <exception>
#include <iostream>
#include <string>

#include "angara/config.hpp"
#include "angara/hostlist.hpp"
#include "angara/table_file.hpp"
#include "angara/table_set.hpp"
#include "spank/job_tables.hpp"
#include "cli/job_tables.hpp"
#include "routing/pipeline.hpp"

using namespace angara;

namespace {

int usage() {
  std::cerr << "usage: kill_driver rebuild|prologue|state|tidy|leftovers ARGS (see the source)\n";
  return 2;
}

int state(const Config& config, const std::string& directory) {
  const std::vector<NodeTable> tables = read_table_directory(directory);
  for (const NodeTable& table : tables)
    std::cout << table_file_name(table) << ' ' << table.job << ' ' << table.algorithm << ' ' << table.fingerprint
              << '\n';
  if (tables.size() >= 2) {
    try {
      const JobResult result = verify_table_directory(config, directory);
      std::cout << (result.report.ok() ? "verify ok\n" : "verify failed: rules broken\n");
    } catch (const std::exception& e) {
      std::cout << "verify failed: " << e.what() << '\n';
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  const std::string mode = argv[1];
  try {
    if (mode == "tidy" && argc == 3) {
      tidy_table_directory(argv[2]);
      return 0;
    }
    if (mode == "leftovers" && argc == 3) {
      for (const std::string& path : table_directory_leftovers(argv[2])) std::cout << path << '\n';
      return 0;
    }
    if (argc < 4) return usage();
    const Config config = load_config(argv[2]);
    const std::string directory = argv[3];
    if (mode == "state" && argc == 4) return state(config, directory);
    if (mode == "rebuild" && (argc == 8 || argc == 9)) {
      cli::RebuildRequest request;
      request.job.id = argv[4];
      request.job.state = "RUNNING";
      request.job.node_list = argv[5];
      request.job.nodes = expand_hostlist(argv[5]);
      if (*argv[6]) request.failed_nodes = expand_hostlist(argv[6]);
      request.algorithm = argv[7];
      request.table_dir = directory;
      const std::string option = argc == 9 ? argv[8] : "";
      if (option == "--quiesced")
        request.live_switch.quiesced = true;
      else if (option.rfind("--step-wait=", 0) == 0)
        request.live_switch.step_wait = std::stod(option.substr(12));
      else if (!option.empty())
        return usage();
      std::cout << cli::rebuild_job_tables(config, request).message << '\n';
      return 0;
    }
    if (mode == "prologue" && argc == 8) {
      spank::PluginSettings settings;
      settings.table_dir = directory;
      spank::JobContext job;
      job.job_id = argv[4];
      job.node_list = argv[5];
      job.this_node = argv[6];
      job.requested_algorithm = argv[7];
      std::cout << spank::install_job_table(settings, config, job).message << '\n';
      return 0;
    }
  } catch (const std::exception& e) {
    std::cerr << "kill_driver: " << e.what() << '\n';
    return 1;
  }
  return usage();
}
