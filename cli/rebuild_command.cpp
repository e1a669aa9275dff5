#include "cli/commands.hpp"

#include <fcntl.h>
#include <getopt.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "angara/config.hpp"
#include "angara/hostlist.hpp"
#include "angara/table_file.hpp"
#include "angara/trusted_path.hpp"
#include "cli/cli_support.hpp"
#include "cli/exit_status.hpp"
#include "cli/job_tables.hpp"
#include "slurm/job_nodes.hpp"
#include "slurm/slurm_query.hpp"
#include "routing/chain.hpp"
#include "routing/generator.hpp"
#include "routing/pipeline.hpp"
#include "routing/report.hpp"

#ifndef LOCALSTATEDIR
#define LOCALSTATEDIR "/var"
#endif

namespace angara::cli {

namespace {

const char* const kUsage =
    "Usage: angara-route rebuild --job JOBID | --all-running [--idle] [--node HOSTLIST]\n"
    "         [--config F] [--tables DIR] [--cache DIR] [--algorithm NAME]\n"
    "         [--failed down|down,drained|none] [--down HOSTLIST] [--timeout S] [--dry-run]\n"
    "         [--json] [--log FILE] [--quiesced] [--step-wait S]\n"
    "         [--memory-limit SIZE|PERCENT%|none]\n"
    "         [DOWN-HOSTLIST...]   (as strigger --node --down passes them)\n";

struct Options {
  std::string job_id;
  bool all_running = false;
  bool idle = false;
  std::vector<std::string> only;
  std::string config_path;
  std::string table_dir;
  std::string cache_dir;
  std::string algorithm;
  slurm::FailedStates failed_states = slurm::FailedStates::Down;
  std::vector<std::string> extra_down;
  int timeout = 30;
  bool dry_run = false;
  bool json = false;
  std::string log_file = LOCALSTATEDIR "/log/angara-route.log";
  SwitchOptions live_switch;
  std::optional<MemoryLimit> memory_limit;  // overrides limits.memory
};

// Whether syslog(3) reaches a daemon: it writes to the socket /dev/log and
// drops the record silently when nothing listens there.
bool syslog_reachable() {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, _PATH_LOG, sizeof address.sun_path - 1);
  for (const int type : {SOCK_DGRAM, SOCK_STREAM}) {
    const int fd = ::socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    const bool connected = ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
    ::close(fd);
    if (connected) return true;
  }
  return false;
}

// Every rebuild run leaves a record (angara-route(8), FILES): each line goes
// to syslog (daemon facility, tag angara-route) and is appended to the log
// file with a UTC time stamp.  A log that cannot be written is reported and
// does not stop the rebuild; when syslog does not take the record either,
// the record is lost and the run's exit status says so (kExitRecordLost).
class RunLog {
 public:
  explicit RunLog(std::string path) : path_(std::move(path)), syslog_(syslog_reachable()) {
    ::openlog("angara-route", LOG_PID, LOG_DAEMON);
  }
  RunLog(const RunLog&) = delete;
  RunLog& operator=(const RunLog&) = delete;
  ~RunLog() { ::closelog(); }

  void line(const std::string& text, bool error = false) {
    ::syslog(error ? LOG_ERR : LOG_INFO, "rebuild: %s", text.c_str());
    if (path_.empty() || failed_) return;
    char stamp[32];
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    ::gmtime_r(&now, &utc);
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
    const std::string record = std::string(stamp) + " rebuild[" + std::to_string(::getpid()) + "]: " +
                               (error ? "error: " : "") + text + "\n";
    const std::size_t slash = path_.find_last_of('/');
    if (slash != std::string::npos && slash > 0) ::mkdir(path_.substr(0, slash).c_str(), 0755);
    const int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || ::write(fd, record.data(), record.size()) != static_cast<ssize_t>(record.size())) {
      std::cerr << "angara-route: rebuild: cannot write the log " << path_ << ": " << std::strerror(errno)
                << (syslog_ ? " (the rebuild goes on; syslog has the record)\n"
                            : " and syslog does not answer at " _PATH_LOG " (the rebuild goes on; its record is lost, "
                              "exit status 10)\n");
      failed_ = true;
    }
    if (fd >= 0) ::close(fd);
  }

  // Neither the log file nor syslog took the record.
  bool lost() const { return !syslog_ && (failed_ || path_.empty()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool syslog_;
  bool failed_ = false;
};

// One job's part of `rebuild --json`.
std::string job_json(const std::string& job_id, const RebuildOutcome* outcome, const std::string& error,
                     int status) {
  std::string text = "{\"job\":" + json_quote(job_id);
  if (outcome)
    text += ",\"algorithm\":" + json_quote(outcome->algorithm) + ",\"chain\":" + json_quote(outcome->chain) +
            ",\"passed_over\":" + passed_over_json(outcome->passed_over) + ",\"fingerprint\":" +
            json_quote(outcome->fingerprint) + ",\"nodes\":" + json_string_list(outcome->live) +
            ",\"written\":" + json_string_list(outcome->written) + ",\"dropped\":" + json_string_list(outcome->dropped) +
            ",\"max_gamma\":" + std::to_string(outcome->max_gamma) + ",\"lower_bound\":" +
            std::to_string(outcome->lower_bound) + ",\"verified\":" + (outcome->verified ? "true" : "false") +
            ",\"live_switch\":" +
            json_quote(outcome->live_switch.checked ? transition_kind_name(outcome->live_switch.kind) : "unchecked") +
            ",\"live_switch_steps\":" + std::to_string(outcome->live_switch.steps) +
            ",\"message\":" + json_quote(outcome->message);
  if (!error.empty()) text += ",\"error\":" + json_quote(error) + ",\"exit_status\":" + std::to_string(status);
  return text + "}";
}

// Only the nodes of `job_nodes` the operator asked for (all when none asked).
std::vector<std::string> selected(const std::vector<std::string>& only, const std::vector<std::string>& job_nodes) {
  if (only.empty()) return {};
  std::vector<std::string> chosen;
  for (const std::string& name : job_nodes)
    if (std::find(only.begin(), only.end(), name) != only.end()) chosen.push_back(name);
  return chosen;
}

int usage(const std::string& message) {
  print_error("rebuild: " + message, kExitUsage);
  std::cerr << kUsage;
  return kExitUsage;
}

int refuse(int status, const std::string& message) {
  print_error("rebuild: " + message, status);
  return status;
}

}  // namespace

int rebuild_command(int argc, char** argv) {
  Options options;
  static const option long_options[] = {
      {"job", required_argument, nullptr, 'J'},      {"all-running", no_argument, nullptr, 'A'},
      {"idle", no_argument, nullptr, 'I'},           {"node", required_argument, nullptr, 'N'},
      {"config", required_argument, nullptr, 'c'},   {"tables", required_argument, nullptr, 't'},
      {"cache", required_argument, nullptr, 'C'},    {"algorithm", required_argument, nullptr, 'a'},
      {"failed", required_argument, nullptr, 'f'},   {"down", required_argument, nullptr, 'x'},
      {"timeout", required_argument, nullptr, 'T'},  {"dry-run", no_argument, nullptr, 'd'},
      {"json", no_argument, nullptr, 'j'},           {"log", required_argument, nullptr, 'L'},
      {"quiesced", no_argument, nullptr, 'Q'},       {"step-wait", required_argument, nullptr, 'W'},
      {"memory-limit", required_argument, nullptr, 'M'}, {"help", no_argument, nullptr, 'h'},           {nullptr, 0, nullptr, 0}};
  optind = 1;
  int opt;
  while ((opt = getopt_long(argc, argv, "J:c:t:a:dh", long_options, nullptr)) != -1) {
    switch (opt) {
      case 'J': options.job_id = optarg; break;
      case 'A': options.all_running = true; break;
      case 'I': options.idle = true; break;
      case 'N':
        for (std::string& name : expand_hostlist(optarg)) options.only.push_back(std::move(name));
        break;
      case 'c':
        if (*optarg == '\0') {
          std::cerr << "angara-route: rebuild: --config needs a file name\n" << kUsage;
          return kExitUsage;
        }
        options.config_path = optarg;
        break;
      case 't': options.table_dir = optarg; break;
      case 'C': options.cache_dir = optarg; break;
      case 'a': options.algorithm = optarg; break;
      case 'f':
        try {
          options.failed_states = slurm::parse_failed_states(optarg);
        } catch (const std::invalid_argument& e) {
          return usage(std::string("--failed ") + optarg + ": " + e.what());
        }
        break;
      case 'x':
        for (std::string& name : expand_hostlist(optarg)) options.extra_down.push_back(std::move(name));
        break;
      case 'T':
        if (!parse_timeout(optarg, options.timeout))
          return usage(std::string("--timeout ") + optarg + ": expected seconds from 1 to 3600");
        break;
      case 'd': options.dry_run = true; break;
      case 'j': options.json = true; break;
      case 'L': options.log_file = optarg; break;
      case 'Q': options.live_switch.quiesced = true; break;
      case 'W': {
        char* end = nullptr;
        const double seconds = std::strtod(optarg, &end);
        if (*optarg == '\0' || *end != '\0' || !(seconds >= 0 && seconds <= 600)) {
          std::cerr << "angara-route: rebuild: --step-wait " << optarg << ": expected seconds from 0 to 600\n";
          return kExitUsage;
        }
        options.live_switch.step_wait = seconds;
        break;
      }
      case 'M':
        options.memory_limit = parse_memory_limit(optarg);
        if (!options.memory_limit) return usage(memory_limit_error(optarg));
        break;
      case 'h': std::cout << kUsage; return kExitOk;
      default: return usage("unknown option");
    }
  }
  // strigger(1) appends the nodes that went down to the program's arguments.
  for (int i = optind; i < argc; ++i)
    for (std::string& name : expand_hostlist(argv[i])) options.extra_down.push_back(std::move(name));
  if (options.job_id.empty() == !options.all_running) return usage("give exactly one of --job JOBID and --all-running");
  if (options.idle && !options.all_running) return usage("--idle goes with --all-running");
  if (!options.algorithm.empty()) {
    try {
      parse_algorithm_chain(options.algorithm);  // one generator or a chain ("balanced,nue")
    } catch (const std::invalid_argument& e) {
      return refuse(kExitInput, e.what());
    }
  }

  RunLog log(options.log_file);
  std::string command_line = "angara-route";
  for (int i = 0; i < argc; ++i) command_line += std::string(" ") + argv[i];
  log.line("run by uid " + std::to_string(::getuid()) + ": " + command_line);
  // Refusals and failures are logged too: a strigger run has no terminal.
  const auto fail = [&](int status, const std::string& message) {
    log.line(message, true);
    return refuse(status, message);
  };

  Config config;
  try {
    config = find_config(options.config_path);
    if (options.memory_limit) config.memory_limit = *options.memory_limit;
  } catch (...) {
    return fail(exit_status_of(std::current_exception()), message_of(std::current_exception()));
  }
  const std::string directory = options.table_dir.empty() ? config.table_dir : options.table_dir;
  // Run as root (strigger), a rebuild writes only where root alone can
  // change things, like the prologue (doc/security.md).
  if (!options.dry_run) {
    try {
      const TrustedOwners owners = TrustedOwners::with();
      if (config.source != desmos_default_config().source) check_trusted_path(config.source, PathKind::file, owners);
      check_trusted_or_creatable(directory, PathKind::directory, owners);
    } catch (...) {
      return fail(exit_status_of(std::current_exception()), message_of(std::current_exception()));
    }
  }
  if (config.source == desmos_default_config().source && !options.dry_run)
    // A strigger rebuild on a host without the configuration would write the
    // demonstration machine's tables into the real table directory.
    return fail(kExitInput, "no configuration found (no --config, no $ANGARA_CONFIG, no " + system_config_path() +
                                "); refusing to write tables of the built-in Desmos machine into " + directory +
                                ". Give --config FILE (or --dry-run to try)");
  std::vector<std::string> failed;
  try {
    failed = slurm::failed_node_names(slurm::query_node_states(options.timeout), options.failed_states);
  } catch (const slurm::SlurmQueryError& e) {
    return fail(kExitSlurmQuery, std::string("cannot read node states: ") + e.what());
  }
  failed.insert(failed.end(), options.extra_down.begin(), options.extra_down.end());

  std::vector<slurm::JobInfo> jobs;
  try {
    if (options.all_running) {
      jobs = slurm::query_active_jobs(options.timeout);
    } else {
      slurm::JobInfo job = slurm::query_job(options.job_id, options.timeout);
      if (!slurm::job_is_active(job))
        return fail(kExitInput, "job " + job.id + " is " + job.state + ", not running: it has no tables to rebuild");
      jobs.push_back(std::move(job));
    }
  } catch (const slurm::SlurmQueryError& e) {
    return fail(kExitSlurmQuery, std::string("cannot read jobs: ") + e.what());
  } catch (const slurm::UnknownJobError& e) {
    return fail(kExitInput, e.what());
  }
  if (options.idle) {
    // Every node without an active job keeps the whole-machine default table.
    std::set<std::string> busy;
    for (const slurm::JobInfo& job : jobs) busy.insert(job.nodes.begin(), job.nodes.end());
    slurm::JobInfo idle;
    idle.id = "default";
    idle.state = "IDLE";
    for (const std::string& name : config.node_names)
      if (!busy.count(name)) idle.nodes.push_back(name);
    if (!idle.nodes.empty()) jobs.push_back(std::move(idle));
  }

  // --node names nodes of the selected jobs, and live ones: a typo or a node
  // that went down must not turn into a rebuild that silently does nothing.
  {
    std::set<std::string> known;
    for (const slurm::JobInfo& job : jobs) known.insert(job.nodes.begin(), job.nodes.end());
    const std::set<std::string> failed_set(failed.begin(), failed.end());
    std::vector<std::string> outside, down;
    for (const std::string& name : options.only) {
      if (!known.count(name)) outside.push_back(name);
      else if (failed_set.count(name)) down.push_back(name);
    }
    const std::string scope = options.all_running ? (options.idle ? "any running job or idle node" : "any running job")
                                                  : "job " + options.job_id + " (" + jobs.front().node_list + ")";
    if (!outside.empty())
      return fail(kExitInput,
                  "--node " + compress_hostlist(outside) + ": not a node of " + scope + "; nothing was written");
    if (!down.empty())
      return fail(kExitInput, "--node " + compress_hostlist(down) +
                                  ": counted as failed (Slurm state or arguments), so it gets no table; name the "
                                  "nodes that went down as arguments (rebuild --job ID NODE...), and --node only "
                                  "for live nodes that rewrite their own table");
  }
  const std::vector<std::string> machine_failed = slurm::machine_nodes_among(config, failed);
  const std::string header = "config " + config.source + ", tables " + directory + ", failed routers " +
                             (machine_failed.empty() ? "none" : compress_hostlist(machine_failed)) + ", " +
                             (options.dry_run ? "dry run" : "writing");
  log.line(header);
  if (!options.json) std::cout << "rebuild: " << header << "\n";

  int status = 0;
  std::vector<std::string> job_records;  // --json
  for (const slurm::JobInfo& job : jobs) {
    RebuildRequest request;
    request.job = job;
    request.failed_nodes = failed;
    request.algorithm = options.algorithm;
    request.table_dir = options.table_dir;
    request.cache_dir = options.cache_dir;
    request.dry_run = options.dry_run;
    request.live_switch = options.live_switch;
    if (!options.only.empty()) {
      request.only = selected(options.only, job.nodes);
      const std::set<std::string> failed_set(failed.begin(), failed.end());
      request.only.erase(std::remove_if(request.only.begin(), request.only.end(),
                                        [&](const std::string& name) { return failed_set.count(name) > 0; }),
                         request.only.end());
      if (request.only.empty()) continue;  // none of this job's nodes was asked for
    }
    try {
      const RebuildOutcome outcome = rebuild_job_tables(config, request);
      log.line(outcome.message);
      if (options.json)
        job_records.push_back(job_json(job.id, &outcome, "", 0));
      else
        std::cout << outcome.message << "\n";
      // The job's AdminComment names the tables it has now, as the prologue's
      // did (show --job compares the two).
      if (!options.dry_run && !outcome.written.empty() && job.id != "default") {
        const std::string note =
            slurm::routing_note(outcome.algorithm, outcome.fingerprint, "tables " + directory, outcome.verified,
                                "rebuilt" + (machine_failed.empty() ? std::string()
                                                                    : " around failed routers " +
                                                                          compress_hostlist(machine_failed)));
        try {
          slurm::set_admin_comment(job.id, note, options.timeout);
          log.line("job " + job.id + ": AdminComment " + note);
        } catch (const slurm::SlurmQueryError& e) {
          // Slurm 22.05 without accounting storage never gives a job that
          // shrank (a --no-kill job that lost a node) its DB index back,
          // and refuses every update of it.
          const bool no_db_index = std::string(e.what()).find("the DB index is being set") != std::string::npos;
          const std::string message = "job " + job.id + ": its tables were written, but its AdminComment still names "
                                      "the old ones: " + e.what() +
                                      (no_db_index ? " (without accounting storage Slurm refuses every update of a "
                                                     "job that lost a node; show --job names both fingerprints)"
                                                   : "");
          log.line(message, true);
          if (!options.json) std::cerr << "angara-route: rebuild: " << message << "\n";
          if (status == 0) status = kExitSlurmQuery;
        }
      }
    } catch (...) {
      // --all-running goes on with the other jobs; the first failure's status is the run's.
      const std::exception_ptr error = std::current_exception();
      const int job_status = exit_status_of(error);
      const std::string message = "job " + job.id + ": " + message_of(error);
      log.line(message, true);
      if (!options.all_running && !options.json) throw;
      if (options.json)
        job_records.push_back(job_json(job.id, nullptr, message_of(error), job_status));
      else
        std::cerr << "angara-route: rebuild: " << message << "\n";
      if (status == 0) status = job_status;
    }
  }
  if (jobs.empty()) {
    log.line("no running job");
    if (!options.json) std::cout << "no running job\n";
  }
  // A run whose record is lost says so through its status when nothing else
  // went wrong: under strigger nobody reads its stderr.
  if (status == kExitOk && log.lost()) {
    status = kExitRecordLost;
    if (!options.json)
      std::cerr << "angara-route: rebuild: the run's record is lost: neither the log " << log.path()
                << " nor syslog took it\n";
  }
  if (options.json) {
    std::cout << "{\"config\":" << json_quote(config.source) << ",\"tables\":" << json_quote(directory)
              << ",\"dry_run\":" << (options.dry_run ? "true" : "false")
              << ",\"failed_routers\":" << json_string_list(machine_failed) << ",\"log\":" << json_quote(options.log_file)
              << ",\"exit_status\":" << status << ",\"jobs\":[";
    for (std::size_t i = 0; i < job_records.size(); ++i) std::cout << (i ? "," : "") << job_records[i];
    std::cout << "]}\n";
  }
  return status;
}

}  // namespace angara::cli
