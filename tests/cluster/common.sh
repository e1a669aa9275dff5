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
not_ok() {
  failed=$((failed + 1))
  echo "FAIL: $1"
  [ $# -gt 1 ] && printf '      %s\n' "${@:2}"
}
# check DESCRIPTION COMMAND...: passes when the command succeeds.
check() {
  local what=$1
  shift
  if "$@"; then ok "$what"; else not_ok "$what" "command: $*"; fi
}

job_field() { scontrol show job -o "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# The plugin the tests load; a missing build is an error (exit 99), not a skip.
plugin=$top_builddir/spank/.libs/spank-angara.so
require_plugin() {
  if [ ! -f "$plugin" ]; then
    echo "ERROR: build first: $plugin is missing" >&2
    exit 99
  fi
}
