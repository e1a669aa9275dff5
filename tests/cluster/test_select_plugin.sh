#!/bin/bash
# select/angara (select-angara(8)) on a real Slurm cluster: 32 slurmd -N on
# this host (cluster.sh), SelectType=select/angara wrapping
# select/cons_tres, the plugin loaded from this build (PluginDir lists
# Slurm's directory and the build's).
#
#   1. slurmctld starts with a machine configuration that lacks a Slurm
#      node: the log says so, the controller runs, jobs run where
#      select/cons_tres puts them.  A configuration that does not parse is
#      named with its file and line after `scontrol reconfigure`.
#   2. With the right configuration (reconfigure): a burst of six 8-node
#      jobs on the 32 nodes, four at once and two that wait, each ends on an
#      isolated block (tests/tools/check_blocks.py), no two running jobs
#      share a node, squeue answers throughout, and backfill's will-run
#      tests of the waiting jobs see blocks (SlurmctldDebug=debug).  With
#      a node drained (a failed router), jobs get blocks without it.
#   3. A job test the plugin cannot narrow (no free block of 4 nodes beside
#      a job that named its nodes) runs where Slurm puts it, and the log
#      says why.
#   3b. With BlockWait set, the same job waits for a block: it stays
#      pending while one would be free once the running jobs end, runs on
#      the block as soon as one is free, and, once BlockWait has passed,
#      where Slurm puts it.
#   4. On a second cluster with spank-angara loaded, routing.confine on
#      and CompleteWait set: a 5-node job gets a box's staircase and the
#      prologue routes it on its own routers; the burst of six 8-node jobs
#      again ends with every job on a block.
#
# Needs root and the plugin (configure --with-slurm-source, as
# tools/setup.sh does); skips (exit 77) without them, except under CI=true
# where a missing plugin is an error.  ANGARA_CLUSTER_TEST=skip skips.
# ANGARA_SELECT_WRAPPED=select/linear (or select/cons_res) runs it with
# that plugin wrapped instead.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

select_plugin=$top_builddir/select/.libs/select_angara.so
if [ ! -f "$select_plugin" ]; then
  if [ "${CI:-}" = true ]; then
    echo "ERROR: $select_plugin is missing: CI builds it (tools/setup.sh configures --with-slurm-source)" >&2
    exit 99
  fi
  echo "SKIP: select/angara was not built (configure --with-slurm-source=DIR; tools/setup.sh does it)"
  exit 77
fi
slurm_plugindir=$(dirname "$(ls /usr/lib/*/slurm-wlm/select_cons_tres.so /usr/lib/slurm/select_cons_tres.so 2>/dev/null | head -1)")
if [ ! -f "$slurm_plugindir/select_cons_tres.so" ]; then
  echo "ERROR: Slurm's select_cons_tres.so not found" >&2
  exit 99
fi

wrapped=${ANGARA_SELECT_WRAPPED:-select/cons_tres}

take_cluster_lock

state=$(mktemp -d "${TMPDIR:-/tmp}/angara-select.XXXXXX") || exit 99
export SLURM_CONF=$state/etc/slurm.conf
log=$state/log/slurmctld.log
machine=$state/etc/angara.yaml

cleanup() { "$here/cluster.sh" stop "$state" >/dev/null; }
trap cleanup EXIT

# The machine as it is (Desmos: 4x2x2x2, single cables in Y, Z and K) and
# two broken versions of it.
good_machine() {
  cat <<EOF2
machine:
  torus: 4x2x2x2
  nodes: desmos[00-31]
  single_cable: [Y, Z, K]
EOF2
}
mkdir -p "$state/etc"
printf 'machine:\n  torus: 4x2x2x2\n  nodes:\n    - desmos[00-30]\n    - ghost31\n  single_cable: [Y, Z, K]\n' >"$machine"

# slurm.conf for select/angara (plus the lines given), select_angara.conf
# naming $machine.
write_hook() {
  local extra
  extra=$(printf 'echo %q >>"$etc/slurm.conf"\n' "$@")
  cat >"$hook" <<EOF2
#!/bin/bash
set -e
etc=\$1
sed -i -e "s|^SelectType=.*|SelectType=select/angara|" -e "s|^SchedulerType=.*|SchedulerType=sched/backfill|" \
  -e "s|^SlurmctldDebug=.*|SlurmctldDebug=debug|" "\$etc/slurm.conf"
echo "SchedulerParameters=bf_interval=1" >>"\$etc/slurm.conf"
echo "PluginDir=$slurm_plugindir:$(dirname "$select_plugin")" >>"\$etc/slurm.conf"
printf 'MachineConfig=%s\nWrappedSelectType=%s\n' "$machine" "$wrapped" >"\$etc/select_angara.conf"
$extra
EOF2
  chmod +x "$hook"
}
hook=$state/hook.sh
write_hook
ANGARA_CLUSTER_HOOK=$hook "$here/cluster.sh" start "$state" || exit 99

wait_for_log() {  # PATTERN [SECONDS]: a line of slurmctld.log matching it
  local deadline=$((SECONDS + ${2:-30}))
  while [ $SECONDS -lt $deadline ]; do
    grep -qF -- "$1" "$log" && return 0
    sleep 0.5
  done
  return 1
}
wait_state() {  # JOB STATE [SECONDS]
  local deadline=$((SECONDS + ${3:-60}))
  while [ $SECONDS -lt $deadline ]; do
    [ "$(job_field "$1" JobState)" = "$2" ] && return 0
    sleep 0.5
  done
  return 1
}
queue_empty() {
  local deadline=$((SECONDS + ${1:-60}))
  while [ -n "$(squeue -h -o %i)" ] && [ $SECONDS -lt $deadline ]; do sleep 0.5; done
  [ -z "$(squeue -h -o %i)" ]
}
blocks() { python3 "$top_srcdir/tests/tools/check_blocks.py" --torus 4x2x2x2 --prefix desmos --digits 2 "$@"; }

# --- 1. a bad configuration: logged, the controller runs, Slurm places ------
if grep -qF "select/angara: angara-route " "$log" && grep -qF "wrapping $wrapped, machine configuration $machine" "$log"; then
  ok "slurmctld loaded select/angara: $(grep -m1 -o 'select/angara: angara-route.*' "$log")"
else
  not_ok "slurmctld logs the plugin's version line" "$(grep 'select/angara' "$log")"
fi
if grep -qF "select/angara: CompleteWait is 0: a job may start while an ended job's nodes are still completing" "$log"; then
  ok "slurmctld.log says CompleteWait is not set"
else
  not_ok "slurmctld.log says CompleteWait is not set" "$(grep 'select/angara' "$log" | head -3)"
fi
if grep -qF "select/angara: configuration error: $machine: 1 Slurm node(s) not in the machine's \`nodes\`: desmos31" "$log" &&
  scontrol ping | grep -q 'is UP'; then
  ok "a Slurm node missing from angara.yaml is a configuration error in slurmctld.log; slurmctld runs"
else
  not_ok "a Slurm node missing from angara.yaml is logged at start" "$(grep 'select/angara' "$log")"
fi
job=$(sbatch --parsable -N2 -o /dev/null --wrap 'sleep 1')
if wait_state "$job" COMPLETED && wait_for_log "select/angara: JobId=$job: no block (configuration error: "; then
  ok "with the bad configuration a job runs where $wrapped puts it ($(job_field "$job" NodeList)), logged"
else
  not_ok "a job runs unnarrowed under a bad configuration" "state $(job_field "$job" JobState)" "$(grep 'select/angara' "$log")"
fi
# A file that does not parse: its name, line and column, on reconfigure.
printf 'machine:\n  torus: 4x2x2x2\n  nodes: desmos[00-31]\n  single_cable: [Y, Z, K]\n  colour: blue\n' >"$machine"
scontrol reconfigure
if wait_for_log "select/angara: configuration error: $machine:5:" && scontrol ping | grep -q 'is UP'; then
  ok "an unparsable angara.yaml is named with its line on reconfigure: $(grep -o "configuration error: $machine:5:[^;(]*" "$log" | head -1)"
else
  not_ok "an unparsable angara.yaml is logged with its line" "$(grep 'select/angara' "$log")"
fi

# --- 2. the burst -------------------------------------------------------------
good_machine >"$machine"
scontrol reconfigure
if wait_for_log "select/angara: machine $machine: 4x2x2x2 torus, 32 of its 32 nodes in Slurm"; then
  ok "reconfigure loads the fixed machine"
else
  not_ok "reconfigure loads the fixed machine" "$(grep 'select/angara' "$log")"
fi
queue_empty 30
jobs=()
for i in 1 2 3 4 5 6; do
  jobs+=("$(sbatch --parsable -N8 -o /dev/null --wrap 'sleep 6')")
done
# squeue during the burst: every call answers, none takes more than 5 s.
slowest=0
unanswered=0
deadline=$((SECONDS + 120))
while [ $SECONDS -lt $deadline ]; do
  started=$(date +%s%N)
  out=$(timeout 10 squeue -h -o '%i %T' 2>&1) || unanswered=$((unanswered + 1))
  took=$((($(date +%s%N) - started) / 1000000))
  [ $took -gt $slowest ] && slowest=$took
  [ -z "$out" ] && break
  sleep 0.5
done
if [ $unanswered = 0 ] && [ $slowest -lt 5000 ] && [ -z "$out" ]; then
  ok "squeue answered throughout the burst (slowest ${slowest} ms)"
else
  not_ok "squeue answers during the burst" "unanswered $unanswered, slowest ${slowest} ms, left: $out"
fi
lists=()
waited=0
summary=""
for job in "${jobs[@]}"; do
  nodes=$(job_field "$job" NodeList)
  lists+=("$nodes")
  summary="$summary $job:$nodes"
  [ "$(job_field "$job" StartTime)" != "$(job_field "${jobs[0]}" StartTime)" ] && waited=$((waited + 1))
done
if verdicts=$(blocks "${lists[@]}") && [ $waited -ge 2 ]; then
  ok "six 8-node jobs, $waited of them waited, each on an isolated block:$summary"
else
  not_ok "six 8-node jobs each on an isolated block ($waited waited)" "$verdicts"
fi
# No two jobs that ran at the same time share a node.
overlaps=$(for job in "${jobs[@]}"; do
  echo "$job $(date -d "$(job_field "$job" StartTime)" +%s) $(date -d "$(job_field "$job" EndTime)" +%s) $(job_field "$job" NodeList)"
done | python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
from check_blocks import expand
jobs = [line.split() for line in sys.stdin if line.strip()]
for i, a in enumerate(jobs):
    for b in jobs[i + 1:]:
        if int(a[1]) < int(b[2]) and int(b[1]) < int(a[2]) and set(expand(a[3])) & set(expand(b[3])):
            print("jobs", a[0], "and", b[0], "share nodes while both run")
' "$top_srcdir/tests/tools")
if [ -z "$overlaps" ]; then
  ok "no two running jobs shared a node"
else
  not_ok "no two running jobs share a node" "$overlaps"
fi
narrowed=0
for job in "${jobs[@]}"; do
  grep -q "select/angara: JobId=$job: 8 nodes on desmos.*isolated .* block at " "$log" && narrowed=$((narrowed + 1))
done
if [ $narrowed = 6 ]; then
  ok "slurmctld.log names the block of each of the six jobs"
else
  not_ok "slurmctld.log names the block of each job ($narrowed of 6)" "$(grep 'select/angara: JobId' "$log" | tail -8)"
fi

# Backfill (every second here) asked when the two waiting jobs could run:
# its will-run tests were narrowed to blocks too.
will_run=0
for job in "${jobs[@]:4}"; do
  grep -q "select/angara: JobId=$job will-run: isolated .* block at " "$log" && will_run=$((will_run + 1))
done
if [ $will_run = 2 ]; then
  ok "backfill's will-run tests of the two waiting jobs were narrowed to blocks"
else
  not_ok "backfill's will-run tests are narrowed ($will_run of 2 jobs)" "$(grep 'select/angara: JobId' "$log" | grep -v ': 8 nodes on' | tail -6)"
fi

# A drained node is a failed router: never in a block.  With desmos05
# drained, 8- and 16-node jobs get blocks without it.
queue_empty 30
scontrol update NodeName=desmos05 State=DRAIN Reason=angara-test
drained_lists=()
drained_jobs=()
for count in 16 8; do
  drained_jobs+=("$(sbatch --parsable -N$count -o /dev/null --wrap 'sleep 30')")
done
for job in "${drained_jobs[@]}"; do
  wait_state "$job" RUNNING
  drained_lists+=("$(job_field "$job" NodeList)")
done
if verdicts=$(blocks "${drained_lists[@]}") &&
  python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); from check_blocks import expand; sys.exit(any("desmos05" in expand(h) for h in sys.argv[2:]))' \
    "$top_srcdir/tests/tools" "${drained_lists[@]}"; then
  ok "with desmos05 drained, 16- and 8-node jobs get isolated blocks without it: ${drained_lists[*]}"
else
  not_ok "with desmos05 drained, jobs get blocks without it" "${drained_lists[*]}" "$verdicts"
fi
scancel "${drained_jobs[@]}"
scontrol update NodeName=desmos05 State=RESUME
queue_empty 30

# --- 2b. a box's other nodes are held while its job runs ---------------------
# Free: the 1x2x2x1 box desmos[00,04,08,12], desmos13 (desmos12's X
# neighbour) and desmos23 (no neighbour free).  No 3-node block is free, so
# a 3-node job gets three nodes of the box, which holds the fourth.  Without
# the hold a 2-node job would get that node (with desmos13 it is the only
# 2-node block, and Slurm's own choice takes the lowest free nodes); with
# it, the job runs on desmos[13,23].
queue_empty 30
hold=$(sbatch --parsable -w "desmos[01-03,05-07,09-11,14-22,24-31]" -o /dev/null --wrap 'sleep 60')
wait_state "$hold" RUNNING
box_job=$(sbatch --parsable -N3 -o /dev/null --wrap 'sleep 40')
wait_state "$box_job" RUNNING
box_nodes=$(job_field "$box_job" NodeList)
spare=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); from check_blocks import expand
box = {"desmos00", "desmos04", "desmos08", "desmos12"}
used = set(expand(sys.argv[2]))
print(" ".join(sorted(box - used)) if used <= box else "")' "$top_srcdir/tests/tools" "$box_nodes")
pair=$(sbatch --parsable -N2 -o /dev/null --wrap 'sleep 20')
wait_state "$pair" RUNNING
pair_nodes=$(job_field "$pair" NodeList)
if [ -n "$spare" ] && [ "${spare#* }" = "$spare" ] &&
  wait_for_log "select/angara: JobId=$box_job holds $spare, the rest of its box" &&
  [ "$pair_nodes" = "desmos[13,23]" ]; then
  ok "a 3-node job on $box_nodes holds $spare, the rest of its box; a 2-node job then runs on $pair_nodes"
else
  not_ok "a box's other node is held from a 2-node job" "3-node job on $box_nodes (spare '$spare'), 2-node job on $pair_nodes" \
    "$(grep 'select/angara: JobId' "$log" | tail -4)"
fi
scancel "$hold" "$box_job" "$pair"
queue_empty 30

# --- 3. a job test the plugin cannot narrow ---------------------------------
# A job that names its nodes holds all but desmos[00,05,10,15] (no two of
# them neighbours in a block): a 4-node job finds no free block and runs on
# those four, where select/cons_tres puts it.
hold=$(sbatch --parsable -w "desmos[01-04,06-09,11-14,16-31]" -o /dev/null --wrap 'sleep 60')
wait_state "$hold" RUNNING
job=$(sbatch --parsable -N4 -o /dev/null --wrap 'sleep 30')
if wait_state "$job" RUNNING && [ "$(job_field "$job" NodeList)" = "desmos[00,05,10,15]" ] &&
  wait_for_log "select/angara: JobId=$job: no block (no free block of 4 nodes): placed by $wrapped on desmos[00,05,10,15]" &&
  grep -qF "select/angara: JobId=$hold: no block (the job names its nodes (--nodelist)): placed by $wrapped" "$log"; then
  ok "no free block: the job runs where $wrapped puts it ($(job_field "$job" NodeList)), and the log says why"
else
  not_ok "no free block: Slurm's placement, logged" "job $job $(job_field "$job" JobState) on $(job_field "$job" NodeList)" \
    "$(grep 'select/angara: JobId' "$log" | tail -4)"
fi
scancel "$hold" "$job"
queue_empty 30

# --- 3b. BlockWait: the job waits for a block --------------------------------
# The same free nodes, desmos[01-03] held by a job of their own: a 4-node
# job waits instead of taking desmos[00,05,10,15], and gets the block
# desmos[00-03] (the X ring) when that job ends.  With a short BlockWait it
# waits that long, then runs where select/cons_tres puts it.
# The shipped example, its values set: it parses, every key known.
set_block_wait() {
  sed -e "s|^MachineConfig=.*|MachineConfig=$machine|" -e "s|^WrappedSelectType=.*|WrappedSelectType=$wrapped|" \
    -e "s|^BlockWait=.*|BlockWait=$1|" "$top_srcdir/conf/select_angara.conf.example" >"$state/etc/select_angara.conf"
  scontrol reconfigure
  wait_for_log "box spares held, block wait $1 s"
}
pending_for() {  # JOB SECONDS: still pending after that long
  sleep "$2"
  [ "$(job_field "$1" JobState)" = PENDING ]
}
set_block_wait 600
hold=$(sbatch --parsable -w "desmos[04,06-09,11-14,16-31]" -o /dev/null --wrap 'sleep 120')
ring=$(sbatch --parsable -w "desmos[01-03]" -o /dev/null --wrap 'sleep 120')
wait_state "$hold" RUNNING
wait_state "$ring" RUNNING
job=$(sbatch --parsable -N4 -o /dev/null --wrap 'sleep 60')
if wait_for_log "select/angara: JobId=$job waits for a block (no free block of 4 nodes; one is free once running jobs end), up to BlockWait=600 s after it became eligible" &&
  pending_for "$job" 3; then
  ok "BlockWait=600: a 4-node job without a free block waits ($(job_field "$job" Reason))"
else
  not_ok "BlockWait=600: a 4-node job without a free block waits" "job $job $(job_field "$job" JobState) on $(job_field "$job" NodeList)" \
    "$(grep "select/angara: JobId=$job" "$log" | tail -3)"
fi
scancel "$ring"
if wait_state "$job" RUNNING 60 && [ "$(job_field "$job" NodeList)" = "desmos[00-03]" ] &&
  grep -qF "select/angara: JobId=$job: 4 nodes on desmos[00-03]" "$log"; then
  ok "BlockWait: the waiting job runs on the block desmos[00-03] once its nodes are free"
else
  not_ok "BlockWait: the waiting job runs on the block once it is free" "job $job $(job_field "$job" JobState) on $(job_field "$job" NodeList)" \
    "$(grep "select/angara: JobId=$job" "$log" | tail -3)"
fi
scancel "$job"
wait_job_done "$job" 30 >/dev/null
set_block_wait 10
ring=$(sbatch --parsable -w "desmos[01-03]" -o /dev/null --wrap 'sleep 120')
wait_state "$ring" RUNNING
job=$(sbatch --parsable -N4 -o /dev/null --wrap 'sleep 30')
if pending_for "$job" 4 && wait_state "$job" RUNNING 60 && [ "$(job_field "$job" NodeList)" = "desmos[00,05,10,15]" ] &&
  grep -qF "select/angara: JobId=$job: no block (no free block of 4 nodes; waited BlockWait=10 s): placed by $wrapped on desmos[00,05,10,15]" "$log"; then
  ok "BlockWait=10: the job waits, then runs where $wrapped puts it, logged"
else
  not_ok "BlockWait=10: the job waits, then runs where $wrapped puts it" "job $job $(job_field "$job" JobState) on $(job_field "$job" NodeList)" \
    "$(grep "select/angara: JobId=$job" "$log" | tail -3)"
fi
scancel "$hold" "$ring" "$job"
set_block_wait 0
queue_empty 30

if scontrol ping | grep -q 'is UP' && kill -0 "$(cat "$state/pids/slurmctld")" 2>/dev/null; then
  ok "slurmctld still runs"
else
  not_ok "slurmctld still runs" "$(tail -20 "$log")"
fi

# --- 4. routing.confine: select/angara and the prologue together --------------
# A cluster of its own, with spank-angara in plugstack.conf from the start
# (slurmd runs SPANK prologues only for plugins it loaded when it started)
# and `routing.confine: on` in the one file both plugins read: a 5-node job
# (no block has 5 nodes) gets the staircase of a free box (its last 5 nodes
# in box order), and the prologue routes it on its own routers alone.
require_plugin
"$here/cluster.sh" stop "$state" >/dev/null
state=$(mktemp -d "${TMPDIR:-/tmp}/angara-select.XXXXXX") || exit 99
export SLURM_CONF=$state/etc/slurm.conf
log=$state/log/slurmctld.log
machine=$state/etc/angara.yaml
tables=$state/tables
mkdir -p "$state/etc" "$tables"
{ good_machine; printf 'routing:\n  confine: on\ntables:\n  directory: %s\n' "$tables"; } >"$machine"
hook=$state/hook.sh
write_hook CompleteWait=10
ANGARA_CLUSTER_HOOK=$hook ANGARA_SPANK_PLUGIN=$plugin ANGARA_PLUGSTACK_ARGS="config=$machine" \
  "$here/cluster.sh" start "$state" || exit 99
if grep -qF "select/angara: CompleteWait is 0" "$log"; then
  not_ok "with CompleteWait=10 slurmctld.log has no CompleteWait note" "$(grep -F 'CompleteWait' "$log")"
else
  ok "with CompleteWait=10 slurmctld.log has no CompleteWait note"
fi
job=$(sbatch --parsable -N5 -o /dev/null --wrap 'sleep 1')
wait_state "$job" COMPLETED
nodes=$(job_field "$job" NodeList)
first=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); from check_blocks import expand; print((expand(sys.argv[2]) or [""])[0])' \
  "$top_srcdir/tests/tools" "$nodes")
if grep "select/angara: JobId=$job: 5 nodes on " "$log" |
    grep -qF "box (no free block of exactly 5; its other nodes stay free): $nodes" &&
  grep "spank-angara: job $job: " "$state/log/slurmd-$first.log" | grep -qF "confined to its own routers (routing.confine)"; then
  ok "routing.confine: a 5-node job gets a box's staircase ($nodes) and the prologue routes it on its own routers"
else
  not_ok "routing.confine: a 5-node job on a staircase, routed on its own routers" "job $job $(job_field "$job" JobState) on $nodes" \
    "$(grep "select/angara: JobId=$job" "$log" | tail -2)" "$(grep "spank-angara: job $job" "$state/log/slurmd-$first.log" | tail -2)"
fi
# The burst again, now with a prologue and an epilog on every node: an
# ended job's nodes come free one at a time, and CompleteWait (10 s here,
# select-angara(8)) keeps the scheduler from starting a waiting job on part
# of them before its block is whole.
queue_empty 30
jobs=()
for i in 1 2 3 4 5 6; do
  jobs+=("$(sbatch --parsable -N8 -o /dev/null --wrap 'sleep 4')")
done
queue_empty 120
lists=()
summary=""
for job in "${jobs[@]}"; do
  lists+=("$(job_field "$job" NodeList)")
  summary="$summary $job:$(job_field "$job" NodeList)"
done
if verdicts=$(blocks "${lists[@]}"); then
  ok "with prologues and CompleteWait, six 8-node jobs each on an isolated block:$summary"
else
  not_ok "with prologues and CompleteWait, six 8-node jobs each on a block" "$verdicts"
fi

echo "select plugin cluster test: $passed passed, $failed failed"
list_failed_checks
[ $failed = 0 ]
