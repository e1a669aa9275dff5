#include "slurm/slurm_query.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "angara/hostlist.hpp"

extern char** environ;

namespace angara::slurm {

namespace {

std::string errno_text() { return std::strerror(errno); }

// A file descriptor closed when it goes out of scope.
class Descriptor {
 public:
  Descriptor() = default;
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(Descriptor&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  Descriptor& operator=(Descriptor&&) = delete;
  ~Descriptor() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Descriptor read_end, write_end;
};

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw SlurmQueryError("cannot create a pipe: " + errno_text());
  return Pipe{Descriptor(fds[0]), Descriptor(fds[1])};
}

// slurmstepd and other hosts may ignore SIGCHLD, which makes the kernel reap
// children itself and waitpid() lose the exit status; restore the default
// for the life of one command.
class DefaultChildSignal {
 public:
  DefaultChildSignal() {
    struct sigaction current {};
    if (::sigaction(SIGCHLD, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) {
      struct sigaction dfl {};
      dfl.sa_handler = SIG_DFL;
      sigemptyset(&dfl.sa_mask);
      if (::sigaction(SIGCHLD, &dfl, &saved_) == 0) restore_ = true;
    }
  }
  DefaultChildSignal(const DefaultChildSignal&) = delete;
  DefaultChildSignal& operator=(const DefaultChildSignal&) = delete;
  ~DefaultChildSignal() {
    if (restore_) ::sigaction(SIGCHLD, &saved_, nullptr);
  }

 private:
  struct sigaction saved_ {};
  bool restore_ = false;
};

std::string command_text(const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& word : argv) text += (text.empty() ? "" : " ") + word;
  return text;
}

// The first line of a program's complaint, for error messages.
std::string first_line(const std::string& text) {
  const std::string line = text.substr(0, text.find('\n'));
  return line.empty() ? "(no message)" : line;
}

std::string base_state(const std::string& state) {
  std::string base = state.substr(0, state.find('+'));
  // sinfo-style markers scontrol may append: '*' not responding, '~' powered off.
  while (!base.empty() && std::strchr("*~#!%$@^-", base.back())) base.pop_back();
  return base;
}

bool has_flag(const std::string& state, const std::string& flag) {
  std::size_t start = state.find('+');
  while (start != std::string::npos) {
    const std::size_t end = state.find('+', start + 1);
    if (state.compare(start + 1, end == std::string::npos ? std::string::npos : end - start - 1, flag) == 0)
      return true;
    start = end;
  }
  return false;
}

std::vector<std::string> non_empty_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line);
  return lines;
}

CommandResult run_scontrol(const std::vector<std::string>& arguments, int timeout_seconds) {
  std::vector<std::string> argv{scontrol_program()};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  CommandResult result = run_command(argv, timeout_seconds);
  if (result.exit_status != 0)
    throw SlurmQueryError("'" + command_text(argv) + "' failed (exit " + std::to_string(result.exit_status) +
                          "): " + first_line(result.err));
  return result;
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv, int timeout_seconds) {
  if (argv.empty()) throw SlurmQueryError("run_command: no program given");
  Pipe out = make_pipe();
  Pipe err = make_pipe();

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.write_end.get(), STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.write_end.get(), STDERR_FILENO);

  std::vector<char*> args;
  for (const std::string& word : argv) args.push_back(const_cast<char*>(word.c_str()));
  args.push_back(nullptr);

  DefaultChildSignal child_signal;
  pid_t pid = -1;
  // A prologue's environment may have no PATH; posix_spawnp then searches
  // the system default (/bin:/usr/bin).
  const int spawn_error = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error != 0)
    throw SlurmQueryError("cannot run '" + argv[0] + "': " + std::strerror(spawn_error));
  out.write_end.reset();
  err.write_end.reset();

  CommandResult result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  bool out_open = true, err_open = true, timed_out = false;
  char buffer[4096];
  while (out_open || err_open) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd fds[2] = {{out_open ? out.read_end.get() : -1, POLLIN, 0}, {err_open ? err.read_end.get() : -1, POLLIN, 0}};
    const int ready = ::poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0) {
      if (errno == EINTR) continue;
      timed_out = true;  // treat a broken poll like a hung child: kill it
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        (i == 0 ? result.out : result.err).append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        (i == 0 ? out_open : err_open) = false;
      }
    }
  }
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw SlurmQueryError("waiting for '" + argv[0] + "': " + errno_text());
  }
  if (timed_out)
    throw SlurmQueryError("'" + command_text(argv) + "' did not finish within " + std::to_string(timeout_seconds) +
                          " s and was killed");
  if (WIFSIGNALED(status))
    throw SlurmQueryError("'" + command_text(argv) + "' was killed by signal " + std::to_string(WTERMSIG(status)));
  result.exit_status = WEXITSTATUS(status);
  // posix_spawnp reports a missing program only through the child's exit 127.
  if (result.exit_status == 127 && result.out.empty() && result.err.empty())
    throw SlurmQueryError("cannot run '" + argv[0] + "': not found");
  return result;
}

std::string scontrol_program() {
  if (const char* env = std::getenv("ANGARA_SCONTROL"); env && *env) return env;
#ifdef SLURM_BINDIR
  const std::string configured = std::string(SLURM_BINDIR) + "/scontrol";
  if (::access(configured.c_str(), X_OK) == 0) return configured;
#endif
  return "scontrol";
}

std::map<std::string, std::string> parse_record(const std::string& line) {
  std::map<std::string, std::string> fields;
  std::string* last = nullptr;
  std::istringstream words(line);
  std::string word;
  while (words >> word) {
    const std::size_t eq = word.find('=');
    // A key is a plain identifier ("NodeName", "CPUs/Task", "NtasksPerN:B:S:C").
    const bool is_key = eq != std::string::npos && eq > 0 &&
                        std::all_of(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(eq), [](char c) {
                          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '/' || c == ':';
                        });
    if (is_key) {
      last = &fields[word.substr(0, eq)];
      *last = word.substr(eq + 1);
    } else if (last) {
      *last += " " + word;
    }
  }
  return fields;
}

std::vector<NodeState> parse_node_states(const std::string& text) {
  std::vector<NodeState> nodes;
  for (const std::string& line : non_empty_lines(text)) {
    // "No nodes in the system" and similar notes have no NodeName.
    auto fields = parse_record(line);
    auto name = fields.find("NodeName");
    if (name == fields.end()) continue;
    NodeState node;
    node.name = name->second;
    node.state = fields["State"];
    node.reason = fields["Reason"];
    if (node.reason == "(null)" || node.reason == "none") node.reason.clear();
    nodes.push_back(std::move(node));
  }
  return nodes;
}

bool counts_as_failed(const NodeState& node, FailedStates policy) {
  if (policy == FailedStates::None) return false;
  const std::string base = base_state(node.state);
  if (base == "DOWN" || base == "FUTURE" || has_flag(node.state, "POWERED_DOWN")) return true;
  if (policy != FailedStates::DownAndDrained || !has_flag(node.state, "DRAIN")) return false;
  // Drained, not draining: no job is (still) using the node.
  return base != "ALLOCATED" && base != "MIXED" && base != "COMPLETING" && !has_flag(node.state, "COMPLETING");
}

bool takes_jobs(const NodeState& node) {
  const std::string base = base_state(node.state);
  if (base != "IDLE" && base != "ALLOCATED" && base != "MIXED" && base != "COMPLETING") return false;
  if (node.state.size() != base.size() && node.state.compare(0, base.size() + 1, base + "+") != 0)
    return false;  // a marker such as '*' (not responding)
  for (std::size_t start = node.state.find('+'); start != std::string::npos;) {
    const std::size_t end = node.state.find('+', start + 1);
    if (node.state.compare(start + 1, end == std::string::npos ? std::string::npos : end - start - 1, "COMPLETING") != 0)
      return false;
    start = end;
  }
  return true;
}

bool runs_jobs(const NodeState& node) {
  const std::string base = base_state(node.state);
  return base == "ALLOCATED" || base == "MIXED";
}

std::vector<std::string> failed_node_names(const std::vector<NodeState>& nodes, FailedStates policy) {
  std::vector<std::string> names;
  for (const NodeState& node : nodes)
    if (counts_as_failed(node, policy)) names.push_back(node.name);
  return names;
}

std::vector<JobInfo> parse_jobs(const std::string& text) {
  std::vector<JobInfo> jobs;
  for (const std::string& line : non_empty_lines(text)) {
    auto fields = parse_record(line);
    if (line.rfind("No jobs", 0) == 0) continue;
    auto id = fields.find("JobId");
    if (id == fields.end() || id->second.empty())
      throw SlurmQueryError("unexpected scontrol output (no JobId): '" + line.substr(0, 80) + "'");
    JobInfo job;
    job.id = id->second;
    job.state = fields["JobState"];
    job.node_list = fields["NodeList"];
    if (job.node_list == "(null)") job.node_list.clear();
    job.admin_comment = fields["AdminComment"];
    if (job.admin_comment == "(null)") job.admin_comment.clear();
    try {
      if (!job.node_list.empty()) job.nodes = expand_hostlist(job.node_list);
    } catch (const std::invalid_argument& e) {
      throw SlurmQueryError("job " + job.id + ": bad NodeList '" + job.node_list + "': " + e.what());
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

bool job_is_active(const JobInfo& job) { return job.state == "RUNNING" || job.state == "CONFIGURING"; }

bool job_has_ended(const JobInfo& job) {
  static const char* const kEnded[] = {"COMPLETED", "COMPLETING", "CANCELLED", "FAILED",       "TIMEOUT",
                                       "NODE_FAIL", "PREEMPTED",  "BOOT_FAIL", "DEADLINE",     "OUT_OF_MEMORY",
                                       "REVOKED",   "SPECIAL_EXIT"};
  for (const char* state : kEnded)
    if (job.state == state) return true;
  return false;
}

std::vector<NodeState> query_node_states(int timeout_seconds) {
  return parse_node_states(run_scontrol({"show", "node", "-o"}, timeout_seconds).out);
}

JobInfo query_job(const std::string& job_id, int timeout_seconds) {
  if (job_id.empty() || job_id.find_first_not_of("0123456789_+") != std::string::npos ||
      job_id.find_first_of("0123456789") != 0)
    throw UnknownJobError("'" + job_id + "' is not a Slurm job id (a number such as 1234, or 1234_5 for an array task)");
  std::vector<std::string> argv{scontrol_program(), "show", "job", "-o", job_id};
  const CommandResult result = run_command(argv, timeout_seconds);
  // scontrol says "slurm_load_jobs error: Invalid job id specified" (exit 1)
  // for a job slurmctld does not know (never existed, or purged after MinJobAge).
  if (result.exit_status != 0 && result.err.find("Invalid job id") != std::string::npos)
    throw UnknownJobError("job " + job_id + " is not known to slurmctld (finished jobs are forgotten after MinJobAge)");
  if (result.exit_status != 0)
    throw SlurmQueryError("'" + command_text(argv) + "' failed (exit " + std::to_string(result.exit_status) +
                          "): " + first_line(result.err));
  std::vector<JobInfo> jobs = parse_jobs(result.out);
  if (jobs.size() != 1)
    throw SlurmQueryError("scontrol show job " + job_id + " returned " + std::to_string(jobs.size()) + " jobs");
  return std::move(jobs.front());
}

std::vector<JobInfo> query_active_jobs(int timeout_seconds) {
  std::vector<JobInfo> active;
  for (JobInfo& job : parse_jobs(run_scontrol({"show", "job", "-o"}, timeout_seconds).out))
    if (job_is_active(job)) active.push_back(std::move(job));
  std::sort(active.begin(), active.end(), [](const JobInfo& a, const JobInfo& b) {
    return a.id.size() != b.id.size() ? a.id.size() < b.id.size() : a.id < b.id;
  });
  return active;
}

void cancel_job(const std::string& job_id, int timeout_seconds) {
  std::string scancel = "scancel";
  const std::string scontrol = scontrol_program();
  // scancel lives next to scontrol.
  if (const std::size_t slash = scontrol.rfind('/'); slash != std::string::npos)
    scancel = scontrol.substr(0, slash + 1) + "scancel";
  const CommandResult result = run_command({scancel, job_id}, timeout_seconds);
  if (result.exit_status != 0)
    throw SlurmQueryError("'" + scancel + " " + job_id + "' failed (exit " + std::to_string(result.exit_status) +
                          "): " + first_line(result.err));
}

void requeue_job(const std::string& job_id, int timeout_seconds) { run_scontrol({"requeue", job_id}, timeout_seconds); }

void requeue_hold_job(const std::string& job_id, int timeout_seconds) {
  run_scontrol({"requeuehold", job_id}, timeout_seconds);
}

std::string show_config_text(int timeout_seconds) { return run_scontrol({"show", "config"}, timeout_seconds).out; }

std::string show_partitions_text(int timeout_seconds) {
  return run_scontrol({"show", "partition", "-o"}, timeout_seconds).out;
}

void drain_node(const std::string& node, const std::string& reason, int timeout_seconds) {
  run_scontrol({"update", "nodename=" + node, "state=drain", "reason=" + reason}, timeout_seconds);
}

void set_admin_comment(const std::string& job_id, const std::string& text, int timeout_seconds) {
  std::string clean = text;
  std::replace(clean.begin(), clean.end(), '=', ':');
  std::replace(clean.begin(), clean.end(), '\n', ' ');
  run_scontrol({"update", "jobid=" + job_id, "admincomment=" + clean}, timeout_seconds);
}

std::string routing_note(const std::string& algorithm, const std::string& fingerprint, const std::string& where,
                         bool verified, const std::string& after) {
  return "angara: " + algorithm + ", fingerprint " + fingerprint + ", " + where + ", " +
         (verified ? "verified" : "REJECTED") + (after.empty() ? "" : "; " + after);
}

std::string routing_note_fingerprint(const std::string& admin_comment) {
  static const std::string kPrefix = "angara: ", kKey = ", fingerprint ";
  if (admin_comment.rfind(kPrefix, 0) != 0) return "";
  // "angara: ALGORITHM, fingerprint FP": one word, then the key.
  const std::size_t at = admin_comment.find_first_of(" ,", kPrefix.size());
  if (at == std::string::npos || admin_comment.compare(at, kKey.size(), kKey) != 0) return "";
  const std::size_t start = at + kKey.size();
  const std::size_t end = admin_comment.find_first_of(", ;", start);
  return admin_comment.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

bool node_is_free(const NodeState& node) { return node.state == "IDLE"; }

}  // namespace angara::slurm
