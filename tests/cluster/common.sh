# Sourced by the live-cluster tests (test_cluster.sh, test_placement.sh) after
# they set `here` to their own directory: the skip rules, the build's tool,
# the host-wide lock that keeps one live cluster at a time, result lines and
# job queries.

# make distcheck re-runs the suite on the packed tree; the README's test
# command has already run the cluster tests once against the same build.
if [ "${ANGARA_CLUSTER_TEST:-}" = skip ]; then
  echo "SKIP: ANGARA_CLUSTER_TEST=skip (the cluster tests already ran in this build)"
  exit 77
fi
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: the test cluster needs root (slurmd runs as root)"
  exit 77
fi

top_srcdir=$(cd "$here/../.." && pwd)
top_builddir=${TOP_BUILDDIR:-$(pwd)/..}
tool=$top_builddir/cli/angara-route
if [ ! -x "$tool" ]; then
  echo "ERROR: build first: $tool is missing" >&2
  exit 99
fi

# One live cluster at a time on this host: 32 slurmd on 2 cores are slow
# enough, and parallel builds (several work trees) would fight over them.
take_cluster_lock() {
  local lock=${ANGARA_CLUSTER_LOCK:-${TMPDIR:-/tmp}/angara-cluster.lock} fd pid
  exec 9>"$lock"
  flock -w 1800 9 && return 0
  echo "ERROR: another cluster test holds $lock for 30 minutes; processes with it open:" >&2
  # A daemon left behind by a killed test (before cluster.sh closed the lock
  # for its daemons) holds it forever: name it so that its owner can stop it.
  for fd in /proc/[0-9]*/fd/*; do
    [ "$(readlink "$fd" 2>/dev/null)" = "$lock" ] || continue
    pid=${fd#/proc/}
    pid=${pid%%/*}
    [ "$pid" = $$ ] || echo "  pid $pid: $(tr '\0' ' ' </proc/"$pid"/cmdline 2>/dev/null | cut -c1-160)" >&2
  done
  exit 99
}

passed=0
failed=0
ok() {
  passed=$((passed + 1))
  echo "PASS: $1"
}
failed_checks=
not_ok() {
  failed=$((failed + 1))
  failed_checks="$failed_checks
FAIL: $1"
  echo "FAIL: $1"
  [ $# -gt 1 ] && printf '      %s\n' "${@:2}"
}
# The failed checks again, last: CI shows a log's tail, which the log lines
# printed for diagnosis would otherwise fill.
list_failed_checks() {
  [ $failed -eq 0 ] || echo "---- failed checks:$failed_checks"
}
# check DESCRIPTION COMMAND...: passes when the command succeeds.
check() {
  local what=$1
  shift
  if "$@"; then ok "$what"; else not_ok "$what" "command: $*"; fi
}

# check_within SECONDS DESCRIPTION COMMAND...: passes when the command
# succeeds within the time.  For what Slurm or a prologue does after the
# state a test waited for (a log line written after the cancel it reports,
# a node back to idle once its job has completed).
check_within() {
  local deadline=$((SECONDS + $1)) what=$2
  shift 2
  until "$@"; do
    if [ $SECONDS -ge $deadline ]; then not_ok "$what" "command: $*"; return; fi
    sleep 0.5
  done
  ok "$what"
}

job_field() { scontrol show job -o "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"; }
job_state() { job_field "$1" JobState; }

# The job's AdminComment, spaces kept (scontrol prints it on a line of its own).
admin_comment() { scontrol show job "$1" 2>/dev/null | sed -n 's/^ *AdminComment=\(.*[^ ]\) *$/\1/p'; }

# Waits until the job reaches one of the states (a regular expression).
wait_job_state() {  # JOB PATTERN [SECONDS]
  local job=$1 pattern=$2 limit=${3:-60} deadline
  deadline=$((SECONDS + limit))
  while [ $SECONDS -lt $deadline ]; do
    [[ $(job_state "$job") =~ ^($pattern)$ ]] && return 0
    sleep 0.5
  done
  echo "      job $job is '$(job_state "$job")' (reason $(job_field "$job" Reason)), expected $pattern" >&2
  return 1
}
wait_job_done() { wait_job_state "$1" "COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|BOOT_FAIL|OUT_OF_MEMORY" "${2:-90}"; }

# A table file's header value: table_field FILE job|algorithm|fingerprint.
table_field() { sed -n "s/^$2 //p" "$1" 2>/dev/null | head -n 1; }
drained_nodes() { sinfo -h -N -t drain,drained,draining -o '%N' 2>/dev/null | sort -u | tr '\n' ' '; }

# The test cluster's plugstack.conf (cluster.sh plugstack), for a test that has set $state.
plugstack() { "$here/cluster.sh" plugstack "$state" "$@"; }

# The plugin the tests load; a missing build is an error (exit 99), not a skip.
plugin=$top_builddir/spank/.libs/spank-angara.so
require_plugin() {
  if [ ! -f "$plugin" ]; then
    echo "ERROR: build first: $plugin is missing" >&2
    exit 99
  fi
}
