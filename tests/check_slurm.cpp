// The Slurm side without a cluster: scontrol output parsing, the command
// runner, the plugstack arguments of spank-angara(8), and the prologue,
// epilogue table logic (spank/job_tables.hpp) and the rebuild
// (cli/job_tables.hpp) on temporary directories.  tests/cluster/test_cluster.sh covers the same on real Slurm.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "angara/config.hpp"
#include "angara/hostlist.hpp"
#include "angara/table_file.hpp"
#include "spank/checks.hpp"
#include "cli/exit_status.hpp"
#include "spank/job_tables.hpp"
#include "spank/shared_tables.hpp"
#include "angara/trusted_path.hpp"
#include "cli/job_tables.hpp"
#include "slurm/job_nodes.hpp"
#include "slurm/slurm_query.hpp"
#include "routing/generator.hpp"
#include "routing/pipeline.hpp"
#include "tests/test_support.hpp"

using namespace angara;
using namespace angara::spank;
using namespace angara::cli;
using namespace angara::slurm;
using angara_test::error_message;
namespace fs = std::filesystem;

namespace {

// A fresh directory under /tmp, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "check_slurm.XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  std::string path() const { return path_.string(); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> directory_names(const std::string& dir) {
  std::vector<std::string> names;
  if (!fs::exists(dir)) return names;
  // .angara holds the table sets and the writers' lock (angara-tables(5)).
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename() != ".angara") names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : " ") + name;
  return out;
}

// The route a node's table file holds towards a coordinate, "" if none.
std::string route_to(const NodeTable& table, const std::string& coordinate) {
  for (const TableEntry& entry : table.entries)
    if (table.torus.format_coord(entry.destination) == coordinate) return entry.route.to_string();
  return "";
}

// A generator other than the default, for "the user's choice is kept" tests.
std::string other_algorithm() {
  for (const GeneratorInfo& info : generators())
    if (info.name != default_generator_name()) return std::string(info.name);
  return std::string(default_generator_name());
}

// Recorded from Slurm 22.05 (scontrol show node -o), shortened.
const char* const kNodeOutput =
    "NodeName=desmos00 Arch=x86_64 CoresPerSocket=1  CPUAlloc=1 NodeAddr=localhost Port=16900 "
    "OS=Linux 6.18.44-fc-v445 #1 SMP PREEMPT_DYNAMIC @0  RealMemory=100 State=ALLOCATED ThreadsPerCore=1 "
    "Partitions=desmos CfgTRES=cpu=1,mem=100M,billing=1 AllocTRES=cpu=1,mem=100M,billing=1\n"
    "NodeName=desmos01 Arch=x86_64 State=DOWN ThreadsPerCore=1 AllocTRES= "
    "Reason=angara-test [root@2026-11-21T00:32:57]\n"
    "NodeName=desmos05 Arch=x86_64 State=IDLE+DRAIN ThreadsPerCore=1 "
    "Reason=maintenance window [root@2026-11-21T00:33:58]\n"
    "NodeName=desmos06 State=ALLOCATED+DRAIN Reason=drain after job\n"
    "NodeName=desmos07 State=IDLE+NOT_RESPONDING\n"
    "NodeName=desmos08 State=DOWN+NOT_RESPONDING Reason=Not responding [slurm@2026-11-21T01:00:00]\n"
    "NodeName=desmos09 State=IDLE+POWERED_DOWN\n"
    "NodeName=desmos10 State=FUTURE\n"
    "NodeName=desmos11 State=MIXED+DRAIN\n"
    "NodeName=desmos12 State=DOWN+DRAIN Reason=Prolog error [root@2026-11-21T01:00:00]\n"
    "\n";

const char* const kJobOutput =
    "JobId=3 JobName=wrap UserId=root(0) JobState=RUNNING Reason=None AllocNode:Sid=localhost:9654 "
    "ReqNodeList=desmos[00,02] NodeList=desmos[00,02] BatchHost=desmos00 NumNodes=2 CPUs/Task=1 "
    "NtasksPerN:B:S:C=0:0:*:* Command=(null)\n"
    "JobId=4 JobName=wrap JobState=PENDING Reason=Resources NodeList=(null) NumNodes=8\n"
    "JobId=12 JobName=big JobState=CONFIGURING NodeList=desmos[08-10],desmos31 NumNodes=4\n"
    "JobId=5 JobName=old JobState=COMPLETED NodeList=desmos[04-05] NumNodes=2\n";

}  // namespace

START_TEST(test_parse_record) {
  const auto fields = parse_record(
      "JobId=3 AllocNode:Sid=localhost:9654 CPUs/Task=1 Reason=Prolog error [root@2026-11-21T01:00:00] "
      "Comment=a=b AllocTRES=");
  ck_assert_std_str_eq(fields.at("JobId"), "3");
  ck_assert_std_str_eq(fields.at("AllocNode:Sid"), "localhost:9654");
  ck_assert_std_str_eq(fields.at("CPUs/Task"), "1");
  ck_assert_std_str_eq(fields.at("Reason"), "Prolog error [root@2026-11-21T01:00:00]");
  ck_assert_std_str_eq(fields.at("Comment"), "a=b");
  ck_assert_std_str_eq(fields.at("AllocTRES"), "");
  ck_assert_uint_eq(fields.size(), 6);
}
END_TEST

START_TEST(test_node_states) {
  const std::vector<NodeState> nodes = parse_node_states(kNodeOutput);
  ck_assert_uint_eq(nodes.size(), 10);
  ck_assert_std_str_eq(nodes[0].name, "desmos00");
  ck_assert_std_str_eq(nodes[0].state, "ALLOCATED");
  ck_assert_std_str_eq(nodes[0].reason, "");
  ck_assert_std_str_eq(nodes[2].state, "IDLE+DRAIN");
  ck_assert(runs_jobs(nodes[0]));   // ALLOCATED
  ck_assert(!runs_jobs(nodes[2]));  // IDLE+DRAIN
  ck_assert_std_str_eq(nodes[2].reason, "maintenance window [root@2026-11-21T00:33:58]");

  ck_assert_std_str_eq(joined(failed_node_names(nodes, FailedStates::None)), "");
  ck_assert_std_str_eq(joined(failed_node_names(nodes, FailedStates::Down)),
                       "desmos01 desmos08 desmos09 desmos10 desmos12");
  // Drained counts, draining (a job still runs there) does not.
  ck_assert_std_str_eq(joined(failed_node_names(nodes, FailedStates::DownAndDrained)),
                       "desmos01 desmos05 desmos08 desmos09 desmos10 desmos12");
  // Nodes a job may get now or once its jobs end (angara-route node-states):
  // of the recorded ones only the plain ALLOCATED desmos00.
  std::vector<std::string> taking;
  for (const NodeState& node : nodes)
    if (takes_jobs(node)) taking.push_back(node.name);
  ck_assert_std_str_eq(joined(taking), "desmos00");
  for (const char* state : {"IDLE", "MIXED", "COMPLETING", "IDLE+COMPLETING"})
    ck_assert_msg(takes_jobs(NodeState{"n", state, ""}), "%s takes jobs", state);
  for (const char* state : {"IDLE*", "IDLE+RESERVED", "IDLE+MAINTENANCE", "IDLE+COMPLETING+DRAIN", "REBOOT"})
    ck_assert_msg(!takes_jobs(NodeState{"n", state, ""}), "%s takes no jobs", state);
}
END_TEST

START_TEST(test_jobs) {
  const std::vector<JobInfo> jobs = parse_jobs(kJobOutput);
  ck_assert_uint_eq(jobs.size(), 4);
  ck_assert_std_str_eq(jobs[0].id, "3");
  ck_assert_std_str_eq(jobs[0].state, "RUNNING");
  ck_assert_std_str_eq(joined(jobs[0].nodes), "desmos00 desmos02");
  ck_assert_std_str_eq(jobs[1].node_list, "");
  ck_assert_uint_eq(jobs[1].nodes.size(), 0);
  ck_assert_std_str_eq(joined(jobs[2].nodes), "desmos08 desmos09 desmos10 desmos31");
  ck_assert(job_is_active(jobs[0]));
  ck_assert(!job_is_active(jobs[1]));
  ck_assert(job_is_active(jobs[2]));
  ck_assert(!job_is_active(jobs[3]));
  // Only a job that ran and ended (or is ending) has ended: a pending one has not.
  ck_assert(!job_has_ended(jobs[0]));
  ck_assert(!job_has_ended(jobs[1]));
  ck_assert(!job_has_ended(jobs[2]));
  ck_assert(job_has_ended(jobs[3]));
  ck_assert_uint_eq(parse_jobs("No jobs in the system\n").size(), 0);

  const std::string bad_list =
      error_message<SlurmQueryError>([] { parse_jobs("JobId=7 JobState=RUNNING NodeList=desmos[01-\n"); });
  ck_assert_msg(bad_list.rfind("job 7: bad NodeList 'desmos[01-'", 0) == 0, "%s", bad_list.c_str());
}
END_TEST

START_TEST(test_run_command) {
  const CommandResult result = run_command({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, 10);
  ck_assert_int_eq(result.exit_status, 3);
  ck_assert_std_str_eq(result.out, "out\n");
  ck_assert_std_str_eq(result.err, "err\n");

  ck_assert_std_str_eq(error_message<SlurmQueryError>([&] { run_command({"/bin/sleep", "10"}, 1); }),
                       "'/bin/sleep 10' did not finish within 1 s and was killed");
  ck_assert_std_str_eq(error_message<SlurmQueryError>([&] { run_command({"/nonexistent/scontrol", "ping"}, 5); }),
                       "cannot run '/nonexistent/scontrol': No such file or directory");
}
END_TEST

// The queries end to end, with a stand-in scontrol that replays recorded output.
START_TEST(test_queries_through_scontrol) {
  TempDir dir;
  const std::string script = dir.file("scontrol");
  {
    std::ofstream out(script);
    out << "#!/bin/sh\n"
        << "case \"$*\" in\n"
        << "'show node -o') cat '" << dir.file("nodes") << "' ;;\n"
        << "'show job -o') cat '" << dir.file("jobs") << "' ;;\n"
        << "'show job -o 3') grep '^JobId=3 ' '" << dir.file("jobs") << "' ;;\n"
        << "*) echo \"slurm_load_jobs error: Invalid job id specified\" >&2; exit 1 ;;\n"
        << "esac\n";
  }
  fs::permissions(script, fs::perms::owner_all);
  std::ofstream(dir.file("nodes")) << kNodeOutput;
  std::ofstream(dir.file("jobs")) << kJobOutput;
  ::setenv("ANGARA_SCONTROL", script.c_str(), 1);

  ck_assert_std_str_eq(joined(failed_node_names(query_node_states(), FailedStates::Down)),
                       "desmos01 desmos08 desmos09 desmos10 desmos12");
  const std::vector<JobInfo> active = query_active_jobs();
  ck_assert_uint_eq(active.size(), 2);
  ck_assert_std_str_eq(active[0].id, "3");  // numeric order: 3 before 12
  ck_assert_std_str_eq(active[1].id, "12");
  ck_assert_std_str_eq(query_job("3").node_list, "desmos[00,02]");
  const JobRequest request = job_request_from_slurm(desmos_default_config(), "3", FailedStates::DownAndDrained);
  ck_assert_std_str_eq(request.job, "3");
  ck_assert_std_str_eq(joined(request.node_names), "desmos00 desmos02");
  ck_assert_std_str_eq(joined(request.down_nodes), "desmos01 desmos05 desmos08 desmos09 desmos10 desmos12");
  ck_assert_uint_eq(job_request_from_slurm(desmos_default_config(), "3", FailedStates::None).down_nodes.size(), 0);

  // An unknown or malformed job is bad input (exit 3), not an unreachable slurmctld.
  ck_assert_std_str_eq(error_message<UnknownJobError>([&] { query_job("99"); }),
                       "job 99 is not known to slurmctld (finished jobs are forgotten after MinJobAge)");
  ck_assert_std_str_eq(error_message<UnknownJobError>([&] { query_job("3; rm -rf /"); }),
                       "'3; rm -rf /' is not a Slurm job id (a number such as 1234, or 1234_5 for an array task)");
  ck_assert_int_eq(exit_status_of(std::make_exception_ptr(UnknownJobError("x"))), kExitInput);
  ck_assert_int_eq(exit_status_of(std::make_exception_ptr(SlurmQueryError("x"))), kExitSlurmQuery);
  ::unsetenv("ANGARA_SCONTROL");
}
END_TEST

START_TEST(test_plugin_arguments) {
  const PluginSettings defaults = parse_plugin_arguments({});
  ck_assert(defaults.config_path.empty());
  ck_assert(!defaults.dry_run);
  ck_assert(defaults.on_failure == FailurePolicy::Drain);
  ck_assert(defaults.failed_states == FailedStates::Down);
  ck_assert(defaults.restore_default);
  ck_assert_int_eq(defaults.query_timeout, 30);

  const PluginSettings s = parse_plugin_arguments(
      {"config=/etc/angara/test.yaml", "algorithm=bfs", "allow=bfs", "tables=/run/angara", "cache=/shared/cache",
       "dryrun", "on_failure=cancel", "failed=down,drained", "epilog=keep", "timeout=7"});
  ck_assert_std_str_eq(s.config_path, "/etc/angara/test.yaml");
  ck_assert_std_str_eq(s.algorithm, "bfs");
  ck_assert_std_str_eq(joined(s.allowed), "bfs");
  ck_assert_std_str_eq(s.table_dir, "/run/angara");
  ck_assert_std_str_eq(s.cache_dir, "/shared/cache");
  ck_assert(s.dry_run);
  ck_assert(s.on_failure == FailurePolicy::Cancel);
  ck_assert(s.failed_states == FailedStates::DownAndDrained);
  ck_assert(!s.restore_default);
  ck_assert_int_eq(s.query_timeout, 7);
  ck_assert(!parse_plugin_arguments({"dryrun=no"}).dry_run);
  ck_assert(parse_plugin_arguments({"failed=none"}).failed_states == FailedStates::None);

  const auto error_of = [](const std::vector<std::string>& args) {
    try {
      parse_plugin_arguments(args);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  ck_assert_std_str_eq(error_of({"tabels=/x"}),
                       "unknown plugstack argument 'tabels=/x' (valid: config=FILE, algorithm=NAME, "
                       "allow=NAME[,NAME...], tables=DIR, cache=DIR, shared=DIR, shared_key=FILE, owner=USER, dryrun, "
                       "on_failure=drain|cancel, failed=down|down,drained|none, epilog=default|keep, "
                       "timeout=SECONDS, shared_wait=SECONDS)");
  ck_assert_std_str_eq(error_of({"on_failure=requeue"}), "plugstack argument on_failure=requeue: expected drain or cancel");
  ck_assert_std_str_eq(error_of({"failed=up"}), "plugstack argument failed=up: expected down, down,drained or none");
  ck_assert_std_str_eq(error_of({"timeout=0"}), "plugstack argument timeout=0: expected seconds from 1 to 3600");
  ck_assert_int_eq(defaults.shared_wait, 600);
  ck_assert_int_eq(parse_plugin_arguments({"shared_wait=0"}).shared_wait, 0);
  ck_assert_int_eq(parse_plugin_arguments({"shared_wait=20"}).shared_wait, 20);
  ck_assert_std_str_eq(error_of({"shared_wait=-1"}),
                       "plugstack argument shared_wait=-1: expected seconds from 0 to 3600");
  ck_assert_std_str_eq(error_of({"config="}), "plugstack argument 'config' needs a value: config=...");
  ck_assert_std_str_eq(error_of({"algorithm=nope"}),
                       "plugstack argument algorithm=nope: unknown algorithm (valid: " + generator_names() + ")");
  // A fallback chain (routing/chain.hpp): parsed, every member known and allowed.
  ck_assert_std_str_eq(parse_plugin_arguments({"algorithm=balanced, bfs"}).algorithm, "balanced,bfs");
  ck_assert_std_str_eq(error_of({"algorithm=balanced,nope"}),
                       "plugstack argument algorithm=balanced,nope: unknown routing algorithm 'nope' in chain "
                       "'balanced,nope' (valid: " + generator_names() + ")");
  ck_assert_std_str_eq(error_of({"algorithm=balanced,bfs", "allow=bfs"}),
                       "plugstack argument algorithm=balanced,bfs: 'balanced' is not in allow=");
  ck_assert_std_str_eq(error_of({"algorithm=bfs", "allow=balanced"}),
                       "plugstack argument algorithm=bfs is not in allow=");
  ck_assert_std_str_eq(error_of({"dryrun=maybe"}), "plugstack argument 'dryrun=maybe': expected yes or no");
}
END_TEST

START_TEST(test_algorithm_choice) {
  const PluginSettings all = parse_plugin_arguments({});
  ck_assert_std_str_eq(check_algorithm_choice(all, "bfs"), "");
  ck_assert_std_str_eq(check_algorithm_choice(all, "foo"),
                       "unknown routing algorithm 'foo'; valid names: " + generator_names());
  const PluginSettings only_bfs = parse_plugin_arguments({"allow=bfs"});
  ck_assert_std_str_eq(joined(selectable_algorithms(only_bfs)), "bfs");
  const std::string other = other_algorithm();
  if (other != "bfs")
    ck_assert_std_str_eq(check_algorithm_choice(only_bfs, other),
                         "routing algorithm '" + other + "' is not enabled on this cluster; valid names: bfs");
  // A chain: every member must be selectable, and the chain must parse.
  ck_assert_std_str_eq(check_algorithm_choice(all, "balanced,bfs"), "");
  ck_assert_std_str_eq(check_algorithm_choice(only_bfs, "bfs,balanced"),
                       "routing algorithm 'balanced' is not enabled on this cluster; valid names: bfs");
  ck_assert_std_str_eq(check_algorithm_choice(all, "bfs,foo"),
                       "unknown routing algorithm 'foo' in chain 'bfs,foo' (valid: " + generator_names() + ")");
  ck_assert_std_str_eq(check_algorithm_choice(all, "bfs,bfs"), "routing algorithm 'bfs' appears twice in chain 'bfs,bfs'");
}
END_TEST

START_TEST(test_unreadable_config) {
  PluginSettings settings;
  settings.config_path = "/nonexistent/angara.yaml";
  const std::string message = error_message<ConfigError>([&] { load_plugin_config(settings); });
  ck_assert(message.find("cannot open /nonexistent/angara.yaml") != std::string::npos);
}
END_TEST

// Each node computes the whole job and writes its own table; the eight
// prologues together must give byte for byte what one run writing every
// table gives.
START_TEST(test_install_is_identical_on_every_node) {
  TempDir per_node, at_once;
  const Config config = desmos_default_config();
  PluginSettings settings;
  settings.table_dir = per_node.path();
  JobContext job;
  job.job_id = "42";
  job.node_list = "desmos[00-07]";
  for (int i = 0; i < 8; ++i) {
    job.this_node = "desmos0" + std::to_string(i);
    const TableOutcome outcome = install_job_table(settings, config, job);
    ck_assert_uint_eq(directory_names(per_node.path()).size(), static_cast<std::size_t>(i + 1));
    if (i == 3)
      ck_assert(outcome.message.find("; no failed routers; table of desmos03 written to " + per_node.path()) !=
                std::string::npos);
  }
  JobRequest request;
  request.job = "42";
  request.node_names = {"desmos00", "desmos01", "desmos02", "desmos03",
                        "desmos04", "desmos05", "desmos06", "desmos07"};
  write_job_tables(config, compute_job_routes(config, request), at_once.path());
  const std::vector<std::string> names = directory_names(at_once.path());
  ck_assert_std_str_eq(joined(names), joined(directory_names(per_node.path())));
  ck_assert_uint_eq(names.size(), 8);
  for (const std::string& name : names)
    ck_assert(read_text(per_node.file(name)) == read_text(at_once.file(name)));

  const NodeTable table = read_node_table(per_node.file("desmos03.rt"));
  ck_assert_std_str_eq(table.job, "42");
  ck_assert_std_str_eq(table.algorithm, "balanced");
  ck_assert_std_str_eq(table.node_name, "desmos03");
  ck_assert_uint_eq(table.entries.size(), 7);
}
END_TEST

// A key for shared results in `dir`, as angara-route shared-key writes it.
std::string write_key(const TempDir& dir) {
  const std::string path = dir.file("shared.key");
  std::ofstream(path) << new_shared_key_text();
  ::chmod(path.c_str(), 0600);
  return path;
}

// shared=: the first prologue computes and publishes, the other seven read
// their rows; the tables are byte for byte those of the prologues that each
// compute.  A damaged shared file is computed again, never trusted.
START_TEST(test_shared_install_computes_once) {
  TempDir shared, separate, tables, keys;
  const Config config = desmos_default_config();
  PluginSettings settings = parse_plugin_arguments(
      {"tables=" + tables.path(), "shared=" + shared.path(), "shared_key=" + write_key(keys)});
  PluginSettings alone;
  alone.table_dir = separate.path();
  JobContext job{"42", "desmos[00-07]", "", "", {}};
  for (int i = 0; i < 8; ++i) {
    job.this_node = "desmos0" + std::to_string(i);
    const TableOutcome outcome = install_job_table(settings, config, job);
    install_job_table(alone, config, job);
    if (i == 0) {
      ck_assert_msg(outcome.message.find("job 42: balanced on 8 nodes, max gamma 4 (bound 4), diameter 3, verified, "
                                         "computed in ") == 0 &&
                        outcome.message.find("; shared as " + shared.path() + "/") != std::string::npos,
                    "%s", outcome.message.c_str());
      ck_assert(outcome.shared_file.empty());
      ck_assert_uint_eq(outcome.result.table.size(), 8);
    } else {
      ck_assert_msg(outcome.message.find("job 42: balanced on 8 nodes, max gamma 4 (bound 4), diameter 3, verified, "
                                         "shared result " + shared.path() + "/") == 0,
                    "%s", outcome.message.c_str());
      ck_assert(outcome.message.find("; table of " + job.this_node + " written to " + tables.path()) !=
                std::string::npos);
      ck_assert(!outcome.shared_file.empty());
    }
  }
  const std::vector<std::string> names = directory_names(tables.path());
  ck_assert_uint_eq(names.size(), 8);
  ck_assert_std_str_eq(joined(names), joined(directory_names(separate.path())));
  for (const std::string& name : names) ck_assert(read_text(tables.file(name)) == read_text(separate.file(name)));

  // One .lock and one .shared file; damage a row: the next prologue computes again.
  std::string shared_file;
  for (const std::string& name : directory_names(shared.path()))
    if (name.size() > 7 && name.compare(name.size() - 7, 7, ".shared") == 0) shared_file = shared.file(name);
  ck_assert_uint_eq(directory_names(shared.path()).size(), 2);
  std::string bytes = read_text(shared_file);
  bytes[bytes.find("\nrows\n") + 6 + 5 * 9 * 4 + 4] ^= 1;  // in desmos05's row (index 5, 9 words a row)
  write_file_atomically(shared_file, bytes);
  job.job_id = "43";
  job.this_node = "desmos05";
  const TableOutcome again = install_job_table(settings, config, job);
  ck_assert_msg(again.message.find("; shared as ") != std::string::npos, "%s", again.message.c_str());
  ck_assert_std_str_eq(read_node_table(tables.file("desmos05.rt")).job.c_str(), "43");
  job.this_node = "desmos06";
  ck_assert(install_job_table(settings, config, job).message.find("shared result") != std::string::npos);
  ck_assert_std_str_eq(read_node_table(tables.file("desmos06.rt")).job.c_str(), "43");
}
END_TEST

// A forged shared result (rows changed and their CRC fixed, header and
// summary rewritten) has no valid authenticator: the node computes its own
// table, says so, and never installs the forgery.  A result made with
// another key is refused the same way.
START_TEST(test_shared_forgery_is_computed_locally) {
  TempDir shared, tables, keys, other_keys;
  const Config config = desmos_default_config();
  PluginSettings settings = parse_plugin_arguments(
      {"tables=" + tables.path(), "shared=" + shared.path(), "shared_key=" + write_key(keys)});
  JobContext job{"50", "desmos[00-03]", "desmos00", "", {}};
  install_job_table(settings, config, job);
  std::string shared_file;
  for (const std::string& name : directory_names(shared.path()))
    if (name.size() > 7 && name.compare(name.size() - 7, 7, ".shared") == 0) shared_file = shared.file(name);
  std::string bytes = read_text(shared_file);
  // "verified" becomes a lie and every route of desmos01's row is desmos00's
  // route to desmos01 (a CRC recomputed would not help: the MAC covers it).
  const std::size_t summary = bytes.find("summary ");
  bytes.replace(summary, bytes.find('\n', summary) - summary, "summary lash on 4 nodes, max gamma 1, verified");
  write_file_atomically(shared_file, bytes);
  job.this_node = "desmos01";
  const TableOutcome forged = install_job_table(settings, config, job);
  ck_assert_msg(forged.message.find(" rejected (") != std::string::npos &&
                    forged.message.find("the authenticator does not match") != std::string::npos &&
                    forged.message.find("computed locally") != std::string::npos,
                "%s", forged.message.c_str());
  ck_assert(forged.result.report.ok());
  ck_assert_std_str_eq(read_node_table(tables.file("desmos01.rt")).algorithm.c_str(), "balanced");

  // Published under another key: refused too.
  PluginSettings other = settings;
  other.shared_key = write_key(other_keys);
  job.job_id = "51";
  job.this_node = "desmos02";
  ck_assert(install_job_table(other, config, job).message.find(" rejected (") != std::string::npos);
}
END_TEST

// A shared directory the node cannot use (missing, refusing the lock) or a
// lock held past shared_wait=: the node computes, verifies and installs its
// own table, says why it did not share, and publishes nothing; the job runs.
START_TEST(test_shared_unusable_is_computed_locally) {
  TempDir parent, tables, keys;
  const Config config = desmos_default_config();
  const std::string missing = parent.file("no-such-dir") + "/shared";
  PluginSettings settings = parse_plugin_arguments(
      {"tables=" + tables.path(), "shared=" + missing, "shared_key=" + write_key(keys), "shared_wait=0"});
  JobContext job{"70", "desmos[00-03]", "desmos01", "", {}};
  const TableOutcome alone = install_job_table(settings, config, job);
  ck_assert_msg(alone.message.find("; not shared (cannot use the shared directory: directory " +
                                   parent.file("no-such-dir") + " does not exist") != std::string::npos,
                "%s", alone.message.c_str());
  ck_assert(alone.result.report.ok());
  const std::string alone_job = read_node_table(tables.file("desmos01.rt")).job;
  ck_assert_std_str_eq(alone_job, "70");
  ck_assert(!fs::exists(parent.file("no-such-dir")));

  // The lock taken by a stuck holder: shared_wait=0 gives up at once.
  TempDir shared;
  settings.shared_dir = shared.path();
  JobRequest request;
  request.job = "71";
  request.node_names = {"desmos00", "desmos01", "desmos02", "desmos03"};
  const PreparedJob prepared = prepare_job(config, request);
  const FileLock holder(shared.path(), prepared.fingerprint + ".lock", std::chrono::milliseconds(0),
                        plugin_owners(settings));
  ck_assert(holder.locked());
  job.job_id = "71";
  job.this_node = "desmos02";
  const TableOutcome waited = install_job_table(settings, config, job);
  ck_assert_msg(waited.message.find(".lock longer than shared_wait=0 s)") != std::string::npos, "%s",
                waited.message.c_str());
  const std::string waited_job = read_node_table(tables.file("desmos02.rt")).job;
  ck_assert_std_str_eq(waited_job, "71");
  ck_assert(!fs::exists(shared.file(prepared.fingerprint + ".shared")));
}
END_TEST

// A step may start on a node only when the node holds the job's table:
// the default table (a prologue that never completed) or no table at all
// refuse it; the job's own, another job's (a shared node) and a dry run
// let it through.
START_TEST(test_step_needs_the_jobs_table) {
  TempDir tables;
  const Config config = desmos_default_config();
  PluginSettings settings = parse_plugin_arguments({"tables=" + tables.path()});
  const std::string missing = step_table_problem(settings, config, "80", "desmos01");
  ck_assert_msg(missing.find("its table cannot be read: ") == 0, "%s", missing.c_str());
  restore_default_table(settings, config, "desmos01", {});
  const std::string stale = step_table_problem(settings, config, "80", "desmos01");
  ck_assert_msg(stale.find("it holds the default table " + tables.file("desmos01.rt") + " (fingerprint ") == 0 &&
                    stale.find("not job 80's: the job's prologue did not complete on desmos01") != std::string::npos,
                "%s", stale.c_str());
  JobContext job{"80", "desmos[00-03]", "desmos01", "", {}};
  install_job_table(settings, config, job);
  const std::string own = step_table_problem(settings, config, "80", "desmos01");
  ck_assert_std_str_eq(own, "");
  const std::string other = step_table_problem(settings, config, "81", "desmos01");
  ck_assert_std_str_eq(other, "");
  restore_default_table(settings, config, "desmos01", {});
  settings.dry_run = true;
  const std::string dry = step_table_problem(settings, config, "80", "desmos01");
  ck_assert_std_str_eq(dry, "");
}
END_TEST

// Paths someone else could change: refused before anything is read or
// written (UntrustedPathError), a link in the shared directory is never
// followed, and a user's algorithm that is not allowed is a JobRefusal,
// which keeps the node in service.
START_TEST(test_untrusted_paths_are_refused) {
  TempDir shared, tables, keys;
  const Config config = desmos_default_config();
  PluginSettings settings = parse_plugin_arguments(
      {"tables=" + tables.path(), "shared=" + shared.path(), "shared_key=" + write_key(keys)});
  JobContext job{"60", "desmos[00-03]", "desmos00", "", {}};

  ::chmod(shared.path().c_str(), 0777);
  const std::string refused =
      error_message<UntrustedPathError>([&] { install_job_table(settings, config, job); });
  ck_assert_std_str_eq(refused.c_str(),
                       ("untrusted " + shared.path() + ": a directory writable by group or others (mode 0777)").c_str());
  ck_assert_uint_eq(directory_names(tables.path()).size(), 0);
  ::chmod(shared.path().c_str(), 0700);

  ::chmod(keys.file("shared.key").c_str(), 0644);
  ck_assert(error_message<UntrustedPathError>([&] { install_job_table(settings, config, job); })
                .find("readable by group or others (mode 0644; a key must be 0600 or 0400)") != std::string::npos);
  ::chmod(keys.file("shared.key").c_str(), 0600);

  // The job's lock as a link to a file that does not exist: not created.
  JobRequest request;
  request.job = "60";
  request.node_names = {"desmos00", "desmos01", "desmos02", "desmos03"};
  const PreparedJob prepared = prepare_job(config, request);
  const std::string target = tables.file("created-through-a-link");
  fs::create_symlink(target, shared.file(prepared.fingerprint + ".lock"));
  ck_assert(error_message<UntrustedPathError>([&] { install_job_table(settings, config, job); })
                .find("a symbolic link (not followed)") != std::string::npos);
  ck_assert(!fs::exists(target));

  PluginSettings only_bfs = parse_plugin_arguments({"tables=" + tables.path(), "allow=bfs"});
  job.requested_algorithm = "lash";
  ck_assert(error_message<JobRefusal>([&] { install_job_table(only_bfs, config, job); })
                .find("'lash' is not enabled on this cluster") != std::string::npos);
  // A control character or a long value is echoed escaped and capped.
  job.requested_algorithm = std::string("x\x1b[31m") + std::string(10000, 'y');
  const std::string long_refusal = error_message<JobRefusal>([&] { install_job_table(only_bfs, config, job); });
  ck_assert_msg(long_refusal.find("x\\x1b[31m") != std::string::npos && long_refusal.size() < 400 &&
                    long_refusal.find('\x1b') == std::string::npos,
                "%s", long_refusal.c_str());
}
END_TEST

// The trust rule itself: a sticky world-writable directory (/tmp) is a
// fine ancestor, a group-writable one is not, and a file owned by another
// user is not trusted by root.
START_TEST(test_trusted_path_rule) {
  TempDir dir;
  const TrustedOwners root_only = TrustedOwners::with();
  const std::string file = dir.file("f");
  std::ofstream(file) << "x";
  ::chmod(file.c_str(), 0644);
  check_trusted_path(file, PathKind::file, root_only);  // under /tmp, sticky
  ::chmod(dir.path().c_str(), 0775);
  ck_assert(error_message<UntrustedPathError>([&] { check_trusted_path(file, PathKind::file, root_only); })
                .find("a directory writable by group or others (mode 0775)") != std::string::npos);
  ::chmod(dir.path().c_str(), 0700);
  ck_assert(error_message<TableFileError>([&] { check_trusted_path(file, PathKind::directory, root_only); })
                .find("is not a directory") != std::string::npos);
  if (::geteuid() == 0) {
    ck_assert_int_eq(::chown(file.c_str(), 12345, 12345), 0);
    ck_assert(error_message<UntrustedPathError>([&] { check_trusted_path(file, PathKind::file, root_only); })
                  .find("owned by uid 12345, not by root") != std::string::npos);
  }
}
END_TEST

START_TEST(test_install_routes_around_failed_nodes) {
  TempDir dir;
  const Config config = desmos_default_config();
  PluginSettings settings;
  settings.table_dir = dir.path();
  JobContext job;
  job.job_id = "7";
  job.node_list = "desmos[00,02]";
  job.this_node = "desmos00";
  job.requested_algorithm = other_algorithm();
  // login1 is a Slurm node outside the torus: ignored.
  job.failed_nodes = {"login1", "desmos01"};
  const TableOutcome outcome = install_job_table(settings, config, job);
  ck_assert(outcome.message.find("; failed routers desmos01; table of desmos00 written to") != std::string::npos);
  const NodeTable table = read_node_table(dir.file("desmos00.rt"));
  ck_assert_std_str_eq(table.algorithm, other_algorithm());
  // 0,0,0,0 -> 2,0,0,0 in two hops without desmos01 (1,0,0,0): only through 3,0,0,0.
  ck_assert_std_str_eq(route_to(table, "2,0,0,0"), "-X -X");
  ck_assert_std_str_eq(joined(directory_names(dir.path())), "desmos00.rt");
}
END_TEST

START_TEST(test_dry_run_writes_nothing) {
  TempDir dir;
  const std::string tables = dir.file("tables");
  const Config config = desmos_default_config();
  PluginSettings settings = parse_plugin_arguments({"tables=" + tables, "dryrun"});
  JobContext job{"9", "desmos[00-03]", "desmos01", "", {}};
  const TableOutcome outcome = install_job_table(settings, config, job);
  ck_assert(outcome.message.find("table of desmos01 dry run, nothing written") != std::string::npos);
  ck_assert_uint_eq(outcome.result.table.size(), 4);
  const TableOutcome restored = restore_default_table(settings, config, "desmos01", {});
  ck_assert_uint_eq(restored.result.table.size(), 32);
  ck_assert(!fs::exists(tables));
}
END_TEST

// A configuration with routing.rules: general computes and verifies the
// job's table but the prologue writes no Angara table file from it.
START_TEST(test_general_rules_write_nothing) {
  TempDir dir;
  Config config = desmos_default_config();
  config.rules = RuleSet::general;
  PluginSettings settings;
  settings.table_dir = dir.path();
  JobContext job{"11", "desmos[00-03]", "desmos01", "", {}};
  bool refused = false;
  try {
    install_job_table(settings, config, job);
  } catch (const GeneralRulesError& e) {
    refused = true;
    ck_assert(std::string(e.what()).find("routing.rules is 'general'") == 0);
  }
  ck_assert(refused);
  ck_assert_uint_eq(directory_names(dir.path()).size(), 0);
  JobRequest request;
  request.node_names = {"desmos00", "desmos01"};
  const JobResult result = compute_job_routes(config, request);
  ck_assert(result.report.ok());
  ck_assert(result.table.rules == RuleSet::general);
  ck_assert(result.report.rules == RuleSet::general);
}
END_TEST

// A prologue whose computation would exceed limits.memory is refused before
// any table is allocated, with the admin tool's message and exit status (9):
// computing alone and with shared=; std::bad_alloc is status 9 too, never
// the table file I/O error (5).
START_TEST(test_memory_limit_refuses_install) {
  TempDir dir, shared, keys;
  Config config = desmos_default_config();
  config.memory_limit = *parse_memory_limit("1M");
  JobContext job{"12", "desmos[00-03]", "desmos01", "", {}};
  const std::string key = write_key(keys);
  for (const std::string& arguments : {std::string(""), "shared=" + shared.path()}) {
    PluginSettings settings = parse_plugin_arguments(
        arguments.empty() ? std::vector<std::string>{} : std::vector<std::string>{arguments, "shared_key=" + key});
    settings.table_dir = dir.path();
    std::exception_ptr error;
    try {
      install_job_table(settings, config, job);
    } catch (...) {
      error = std::current_exception();
    }
    ck_assert_msg(error != nullptr, "installed over the limit (%s)", arguments.c_str());
    ck_assert_int_eq(exit_status_of(error), kExitMemory);
    const std::string message = message_of(error);
    ck_assert_msg(message.find("memory limit: the computation needs an estimated ") == 0 &&
                      message.find("more than the memory limit of 1.0 MiB") != std::string::npos,
                  "%s", message.c_str());
    ck_assert_uint_eq(directory_names(dir.path()).size(), 0);
  }
  ck_assert_int_eq(exit_status_of(std::make_exception_ptr(std::bad_alloc())), kExitMemory);
  ck_assert(message_of(std::make_exception_ptr(std::bad_alloc())).find("out of memory (std::bad_alloc)") == 0);
  // Under the limit the same job installs.
  config.memory_limit = *parse_memory_limit("256M");
  PluginSettings settings;
  settings.table_dir = dir.path();
  ck_assert(install_job_table(settings, config, job).result.report.ok());
}
END_TEST

START_TEST(test_bad_job_inputs) {
  TempDir dir;
  const Config config = desmos_default_config();
  PluginSettings settings = parse_plugin_arguments({"tables=" + dir.path(), "allow=bfs"});
  const auto error_of = [&](const JobContext& job) {
    try {
      install_job_table(settings, config, job);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("(installed)");
  };
  ck_assert_std_str_eq(error_of({"5", "desmos[00-01]", "desmos00", "foo", {}}),
                       "unknown routing algorithm 'foo'; valid names: bfs");
  ck_assert_std_str_eq(error_of({"5", "", "desmos00", "", {}}), "job 5: no node list in the environment");
  ck_assert_std_str_eq(error_of({"5", "desmos[00-01]", "", "", {}}), "job 5: this node's name is unknown");
  ck_assert_std_str_eq(error_of({"5", "desmos[00-01]", "login1", "", {}}),
                       "this node 'login1' is not a node of the machine described by <built-in Desmos default>");
  ck_assert_uint_eq(directory_names(dir.path()).size(), 0);
}
END_TEST

START_TEST(test_restore_default) {
  TempDir dir;
  const Config config = desmos_default_config();
  PluginSettings settings;
  settings.table_dir = dir.path();
  // The node running its epilogue is alive even when Slurm calls it drained.
  const TableOutcome outcome = restore_default_table(settings, config, "desmos04", {"desmos04", "desmos05"});
  ck_assert(outcome.message.find("; failed routers desmos05; default table of desmos04 written to") !=
            std::string::npos);
  const NodeTable table = read_node_table(dir.file("desmos04.rt"));
  ck_assert_std_str_eq(table.job, "default");
  ck_assert_uint_eq(table.entries.size(), 30);
  ck_assert_std_str_eq(route_to(table, "1,1,0,0"), "");  // desmos05 has no route
  ck_assert_std_str_eq(joined(directory_names(dir.path())), "desmos04.rt");
}
END_TEST

START_TEST(test_rebuild_keeps_algorithm_and_drops_failed) {
  TempDir dir;
  const Config config = desmos_default_config();
  PluginSettings settings;
  settings.table_dir = dir.path();
  JobContext job{"11", "desmos[00-03]", "", other_algorithm(), {}};
  for (const char* node : {"desmos00", "desmos01", "desmos02", "desmos03"}) {
    job.this_node = node;
    install_job_table(settings, config, job);
  }
  const std::string before = read_text(dir.file("desmos00.rt"));

  RebuildRequest request;
  request.job = parse_jobs("JobId=11 JobState=RUNNING NodeList=desmos[00-03]\n").front();
  request.failed_nodes = {"desmos01", "login1"};
  request.table_dir = dir.path();
  const RebuildOutcome outcome = rebuild_job_tables(config, request);
  ck_assert_std_str_eq(joined(outcome.written), "desmos00 desmos02 desmos03");
  ck_assert_std_str_eq(joined(outcome.dropped), "desmos01");
  ck_assert(outcome.message.find("; left out failed job nodes desmos01; tables of desmos[00,02-03] written to") !=
            std::string::npos);
  // The running job's installed tables, desmos01's included, were compared.
  ck_assert(outcome.message.find("; live switch direct (installed tables of 4 node(s) compared)") !=
            std::string::npos);
  const NodeTable table = read_node_table(dir.file("desmos00.rt"));
  ck_assert_std_str_eq(table.algorithm, other_algorithm());
  ck_assert_std_str_eq(table.job, "11");
  ck_assert_uint_eq(table.entries.size(), 2);
  ck_assert_std_str_eq(route_to(table, "2,0,0,0"), "-X -X");
  ck_assert(read_text(dir.file("desmos00.rt")) != before);
  // The failed node's file leaves the job's set with the same switch, so the
  // directory holds one whole routing again.
  ck_assert(!fs::exists(dir.file("desmos01.rt")));
  ck_assert_std_str_eq(joined(directory_names(dir.path())), "desmos00.rt desmos02.rt desmos03.rt");

  request.only = {"desmos01"};
  ck_assert_std_str_eq(error_message<std::invalid_argument>([&] { rebuild_job_tables(config, request); }),
                       "node 'desmos01' is not a live node of job 11");

  // Rewriting only desmos03 would leave desmos00 and desmos02 of the same job,
  // in the same (shared) directory, on the old routes: refused.
  request.only = {"desmos03"};
  ck_assert_std_str_eq(error_message<std::invalid_argument>([&] { rebuild_job_tables(config, request); }),
                       "--node desmos03 would leave the tables of desmos[00,02] (job 11, in " + dir.path() +
                           ") on the old routes, so the job's tables would disagree; rebuild the whole job "
                           "(without --node), or use --node only with node-local table directories");
  request.only.clear();
  request.dry_run = true;
  const std::string written = read_text(dir.file("desmos03.rt"));
  const RebuildOutcome dry = rebuild_job_tables(config, request);
  ck_assert(read_text(dir.file("desmos03.rt")) == written);
  ck_assert_uint_eq(dry.written.size(), 0);
  ck_assert(dry.message.find("dry run, nothing written") != std::string::npos);
}
END_TEST

// A job on the default chain records the chain in its tables, and a rebuild
// runs the whole chain again, not only the member that won at the prologue:
// after seven routers of the 6x6 fail balanced leaves two pairs unrouted and
// nue takes over (balanced alone would refuse); after the repair balanced
// wins again.
START_TEST(test_rebuild_runs_the_chain_again) {
  TempDir dir;
  const Config config = load_config(std::string(TEST_DATA_DIR) + "/rebuild_6x6.yaml");
  PluginSettings settings;
  settings.table_dir = dir.path();
  const std::string nodes = "n[03,05,07-08,12,15,26,29-30,32-33]";
  JobContext job{"5", nodes, "", "", {}};
  for (const std::string& node : expand_hostlist(nodes)) {
    job.this_node = node;
    install_job_table(settings, config, job);
  }
  NodeTable table = read_node_table(dir.file("n03.rt"));
  ck_assert_std_str_eq(table.algorithm, "balanced");
  ck_assert_std_str_eq(table.chain, "balanced,nue,exact");

  RebuildRequest request;
  request.job = parse_jobs("JobId=5 JobState=RUNNING NodeList=" + nodes + "\n").front();
  request.failed_nodes = expand_hostlist("n[04,06,16,18,22,24,27]");
  request.table_dir = dir.path();
  const RebuildOutcome fallback = rebuild_job_tables(config, request);
  ck_assert_std_str_eq(fallback.algorithm, "nue");
  ck_assert_std_str_eq(fallback.chain, "balanced,nue,exact");
  ck_assert_uint_eq(fallback.passed_over.size(), 1);
  ck_assert_std_str_eq(fallback.passed_over[0].algorithm, "balanced");
  ck_assert(fallback.passed_over[0].reason.find("cannot route 2 of 110 ordered pairs deadlock-free") == 0);
  ck_assert(fallback.message.find("job 5: nue on 11 nodes, ") == 0);
  ck_assert(fallback.message.find("; chain balanced,nue,exact; passed over balanced: cannot route 2 of 110") !=
            std::string::npos);  // (nue won: exact was not run)
  table = read_node_table(dir.file("n03.rt"));
  ck_assert_std_str_eq(table.algorithm, "nue");
  ck_assert_std_str_eq(table.chain, "balanced,nue,exact");
  const JobResult installed = verify_table_directory(config, dir.path());
  ck_assert(installed.report.ok());
  ck_assert_std_str_eq(installed.chain, "balanced,nue,exact");

  request.failed_nodes.clear();
  const RebuildOutcome repaired = rebuild_job_tables(config, request);
  ck_assert_std_str_eq(repaired.algorithm, "balanced");
  ck_assert(repaired.passed_over.empty());
  ck_assert_std_str_eq(read_node_table(dir.file("n03.rt")).algorithm, "balanced");

  // The admin's --algorithm overrides what the tables record.
  request.algorithm = "nue";
  ck_assert_std_str_eq(rebuild_job_tables(config, request).algorithm, "nue");
  table = read_node_table(dir.file("n03.rt"));
  ck_assert_std_str_eq(table.algorithm, "nue");
  ck_assert_std_str_eq(table.chain, "");
}
END_TEST

// Recorded from Slurm 22.05 ("scontrol show config", shortened; "scontrol
// show partition -o").
const char* const kShowConfig =
    "Configuration data as of 2026-11-23T16:40:01\n"
    "PlugStackConfig         = /etc/slurm/plugstack.conf\n"
    "PrologFlags             = Alloc,Contain\n"
    "SelectType              = select/cons_tres\n"
    "SLURM_VERSION           = 22.05.8\n";
const char* const kShowPartitions =
    "PartitionName=desmos AllowGroups=ALL Default=YES Nodes=desmos[00-31] OverSubscribe=EXCLUSIVE State=UP\n"
    "PartitionName=debug AllowGroups=ALL Nodes=desmos[00-03] OverSubscribe=NO State=UP\n"
    "PartitionName=login AllowGroups=ALL Nodes=login[1-2] OverSubscribe=FORCE:4 State=UP\n";

std::string findings_text(const std::vector<Finding>& findings) {
  std::string text;
  for (const Finding& finding : findings) text += format_finding(finding) + "\n";
  return text;
}

START_TEST(test_slurm_settings) {
  ck_assert_std_str_eq(slurm_config_value(kShowConfig, "PlugStackConfig"), "/etc/slurm/plugstack.conf");
  ck_assert_std_str_eq(slurm_config_value(kShowConfig, "NoSuchKey"), "");
  const Config config = desmos_default_config();
  // cons_tres shares nodes unless OverSubscribe=EXCLUSIVE; login[1-2] is not the machine's.
  ck_assert_std_str_eq(
      findings_text(check_slurm_settings(kShowConfig, kShowPartitions, config)),
      "ok      slurm: PrologFlags=Alloc,Contain: every node's table is written at allocation\n"
      "ok      partition desmos: OverSubscribe=EXCLUSIVE with select/cons_tres: one job per node\n"
      "error   partition debug: OverSubscribe=NO with select/cons_tres lets jobs share nodes, but a router has one "
      "table: a job's epilogue would put back the default table under another running job; set "
      "OverSubscribe=EXCLUSIVE\n");
  // select/linear gives whole nodes with OverSubscribe=NO; no Alloc is a warning.
  const std::string linear = "PrologFlags             = (null)\nSelectType              = select/linear\n";
  const std::vector<Finding> findings = check_slurm_settings(linear, kShowPartitions, config);
  ck_assert(!has_errors(findings));
  ck_assert_int_eq(static_cast<int>(findings[0].severity), static_cast<int>(Severity::Warning));
  ck_assert_std_str_eq(format_finding(findings[2]),
                       "ok      partition debug: OverSubscribe=NO with select/linear: one job per node");
  // shared= with a wait not below PrologEpilogTimeout: a warning; unset (65534) or below: nothing.
  PluginSettings shared = parse_plugin_arguments({"shared=/srv/angara/shared"});
  const std::string timed = linear + "PrologEpilogTimeout     = 120\n";
  const std::vector<Finding> late = check_slurm_settings(timed, kShowPartitions, config, &shared);
  ck_assert_std_str_eq(format_finding(late[1]),
                       "warning shared: shared_wait=600 is not below PrologEpilogTimeout=120: a node stuck holding a "
                       "job's shared= lock lets the other prologues time out and drains their nodes; set shared_wait= "
                       "well below it");
  const std::size_t without = check_slurm_settings(linear, kShowPartitions, config).size();
  ck_assert_uint_eq(check_slurm_settings(linear + "PrologEpilogTimeout     = 65534\n", kShowPartitions, config, &shared).size(),
                    without);
  shared.shared_wait = 60;
  ck_assert_uint_eq(check_slurm_settings(timed, kShowPartitions, config, &shared).size(), without);
}
END_TEST

START_TEST(test_node_name_check) {
  const Config config = desmos_default_config();
  std::vector<std::string> slurm_nodes = config.node_names;
  slurm_nodes.push_back("login1");
  ck_assert_std_str_eq(format_finding(check_node_names(config, slurm_nodes)),
                       "ok      nodes: all 32 nodes of the machine are Slurm nodes");
  slurm_nodes.erase(slurm_nodes.begin() + 30, slurm_nodes.begin() + 32);
  ck_assert_std_str_eq(format_finding(check_node_names(config, slurm_nodes)),
                       "warning nodes: desmos[30-31] of the machine are not Slurm nodes (check machine.nodes in "
                       "<built-in Desmos default>)");
  const Finding none = check_node_names(config, {"node001", "node002"});
  ck_assert_int_eq(static_cast<int>(none.severity), static_cast<int>(Severity::Error));
}
END_TEST

// routing.adaptive on: check says whether the whole machine's table is a
// safe escape for the adaptive channel (doc/model.md, "The adaptive channel").
START_TEST(test_plugin_setup_adaptive) {
  TempDir dir;
  const auto adaptive_finding = [&](const std::string& machine) {
    std::ofstream(dir.file("angara.yaml")) << machine << "routing:\n  algorithm: bfs\n  adaptive: on\n"
                                           << "tables:\n  directory: " << dir.file("tables") << "\n";
    const PluginCheck check = check_plugin_setup({"config=" + dir.file("angara.yaml")});
    for (const Finding& finding : check.findings)
      if (finding.subject == "adaptive") return finding;
    ck_abort_msg("no adaptive finding");
    return Finding{};
  };
  const Finding safe = adaptive_finding("machine:\n  torus: 3x3\n  nodes: n[0-8]\nfailures:\n  links: [n0 +X]\n");
  ck_assert_int_eq(static_cast<int>(safe.severity), static_cast<int>(Severity::Ok));
  ck_assert_msg(safe.text.find("routing.adaptive on: the whole machine's table (bfs) is a safe escape for the "
                               "adaptive channel (") == 0,
                "%s", safe.text.c_str());
  const Finding unsafe =
      adaptive_finding("machine:\n  torus: 4x3\n  nodes: n[00-11]\nfailures:\n  links: [n00 +X]\n");
  ck_assert_int_eq(static_cast<int>(unsafe.severity), static_cast<int>(Severity::Error));
  ck_assert_msg(unsafe.text.find("unsafe-escape: adaptive channel: indirect dependency") != std::string::npos, "%s",
                unsafe.text.c_str());
}
END_TEST

START_TEST(test_plugin_setup_checks) {
  TempDir dir;
  std::ofstream(dir.file("angara.yaml")) << "machine:\n  torus: 4x2x2x2\n  nodes: desmos[00-31]\n"
                                         << "tables:\n  directory: " << dir.file("tables") << "\n";
  PluginCheck good = check_plugin_setup({"config=" + dir.file("angara.yaml"), "algorithm=bfs"});
  ck_assert(!has_errors(good.findings));
  ck_assert(good.settings && good.config);
  ck_assert_std_str_eq(plugin_settings_line(*good.settings, *good.config).substr(0, 13), "spank-angara ");
  const std::string line = plugin_settings_line(*good.settings, *good.config);
  ck_assert_msg(line.find(": config " + dir.file("angara.yaml") + " (4x2x2x2, 32 nodes), tables " +
                          dir.file("tables") + ", default algorithm bfs, users may choose ") != std::string::npos,
                "%s", line.c_str());
  ck_assert_msg(line.find("; on_failure=drain, failed=down, epilog=default, timeout=30") != std::string::npos, "%s",
                line.c_str());

  const PluginCheck typo = check_plugin_setup({"config=" + dir.file("angara.yaml"), "tabels=/tmp"});
  ck_assert(has_errors(typo.findings));
  ck_assert(!typo.settings);
  ck_assert_std_str_eq(format_finding(typo.findings.front()).substr(0, 54),
                       "error   plugstack: unknown plugstack argument 'tabels=");
  const PluginCheck missing = check_plugin_setup({"config=" + dir.file("none.yaml")});
  ck_assert(has_errors(missing.findings));
  ck_assert(!missing.config);

  std::ofstream(dir.file("file")) << "x";
  ck_assert_std_str_eq(directory_problem(dir.file("file")), "not a directory");
  ck_assert_std_str_eq(directory_problem(dir.file("file") + "/sub"),
                       "does not exist, and " + dir.file("file") + " is not a directory");
  ck_assert_std_str_eq(directory_problem(dir.file("new/deeper")), "");
  ck_assert_std_str_eq(directory_problem(dir.path()), "");

  // plugstack.conf with an include, as Slurm's spank.c reads it.
  fs::create_directory(dir.file("plugstack.conf.d"));
  std::ofstream(dir.file("plugstack.conf")) << "# site plugins\nrequired /x/other.so a=b\ninclude plugstack.conf.d/*\n";
  std::ofstream(dir.file("plugstack.conf.d/angara.conf")) << "\noptional /usr/lib/slurm/spank-angara.so config=/c dryrun # t\n";
  std::vector<Finding> findings;
  const std::vector<PlugstackEntry> entries = find_plugstack_entries(dir.file("plugstack.conf"), findings);
  ck_assert_uint_eq(findings.size(), 0);
  ck_assert_uint_eq(entries.size(), 1);
  ck_assert_std_str_eq(entries[0].file, dir.file("plugstack.conf.d/angara.conf"));
  ck_assert_int_eq(entries[0].line, 2);
  ck_assert(!entries[0].required);
  ck_assert_std_str_eq(joined(entries[0].arguments), "config=/c dryrun");
}
END_TEST

START_TEST(test_admin_comment) {
  const std::vector<JobInfo> jobs = parse_jobs(
      "JobId=12 JobName=wrap JobState=RUNNING NodeList=desmos[12-15] "
      "AdminComment=angara: sssp, fingerprint 0123abcd, tables /var/lib/angara/routes, verified Comment=(null)\n"
      "JobId=13 JobState=PENDING NodeList=(null) AdminComment=(null)\n");
  ck_assert_std_str_eq(jobs[0].admin_comment,
                       "angara: sssp, fingerprint 0123abcd, tables /var/lib/angara/routes, verified");
  ck_assert_std_str_eq(jobs[1].admin_comment, "");
  // The note's fingerprint, as show --job compares it with the tables'.
  ck_assert_std_str_eq(routing_note_fingerprint(jobs[0].admin_comment), "0123abcd");
  ck_assert_std_str_eq(routing_note_fingerprint(jobs[1].admin_comment), "");
  ck_assert_std_str_eq(routing_note_fingerprint("angara: routing table not installed on desmos24: refused: ..."), "");
  ck_assert_std_str_eq(routing_note_fingerprint("my comment, fingerprint 12"), "");
  ck_assert_std_str_eq(routing_note_fingerprint("angara: table not installed: a, fingerprint 12"), "");
  // A rebuild's note reads back the same way.
  const std::string rebuilt = routing_note("nue", "89abcdef01234567", "tables /r", true, "rebuilt around failed routers desmos03");
  ck_assert_std_str_eq(rebuilt, "angara: nue, fingerprint 89abcdef01234567, tables /r, verified; rebuilt around failed "
                                "routers desmos03");
  ck_assert_std_str_eq(routing_note_fingerprint(rebuilt), "89abcdef01234567");
}
END_TEST

int main() {
  Suite* s = suite_create("slurm");
  TCase* queries = tcase_create("queries");
  tcase_set_timeout(queries, 30);
  tcase_add_test(queries, test_parse_record);
  tcase_add_test(queries, test_node_states);
  tcase_add_test(queries, test_jobs);
  tcase_add_test(queries, test_run_command);
  tcase_add_test(queries, test_queries_through_scontrol);
  tcase_add_test(queries, test_slurm_settings);
  tcase_add_test(queries, test_admin_comment);
  tcase_add_test(queries, test_node_name_check);
  suite_add_tcase(s, queries);
  TCase* plugin = tcase_create("plugin");
  tcase_set_timeout(plugin, 60);
  tcase_add_test(plugin, test_plugin_arguments);
  tcase_add_test(plugin, test_algorithm_choice);
  tcase_add_test(plugin, test_unreadable_config);
  tcase_add_test(plugin, test_install_is_identical_on_every_node);
  tcase_add_test(plugin, test_memory_limit_refuses_install);
  tcase_add_test(plugin, test_install_routes_around_failed_nodes);
  tcase_add_test(plugin, test_dry_run_writes_nothing);
  tcase_add_test(plugin, test_general_rules_write_nothing);
  tcase_add_test(plugin, test_bad_job_inputs);
  tcase_add_test(plugin, test_restore_default);
  tcase_add_test(plugin, test_shared_install_computes_once);
  tcase_add_test(plugin, test_shared_forgery_is_computed_locally);
  tcase_add_test(plugin, test_shared_unusable_is_computed_locally);
  tcase_add_test(plugin, test_step_needs_the_jobs_table);
  tcase_add_test(plugin, test_untrusted_paths_are_refused);
  tcase_add_test(plugin, test_trusted_path_rule);
  tcase_add_test(plugin, test_rebuild_keeps_algorithm_and_drops_failed);
  tcase_add_test(plugin, test_rebuild_runs_the_chain_again);
  tcase_add_test(plugin, test_plugin_setup_checks);
  tcase_add_test(plugin, test_plugin_setup_adaptive);
  suite_add_tcase(s, plugin);
  return angara_test::run_suite(s);
}
