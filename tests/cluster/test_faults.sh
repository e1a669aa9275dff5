#!/bin/bash
# Faults and a burst on the live test cluster (doc/faults.md): munged,
# slurmctld and 32 slurmd (desmos[00-31]) on this host, started by cluster.sh
# in a private directory and stopped by PID at the end.
#
#   1. the table directory on a full file system (a small tmpfs over it)
#   2. the shared= directory missing, refusing the lock (immutable), or its
#      lock held by a stuck node
#   3. slurmd killed with SIGKILL during a prologue
#   4. a router marked DOWN under running jobs, the strigger recipe of
#      spank-angara(8) doing the rebuild by itself
#   5. a burst of 200 jobs at once: verified tables, prologue time p50/p99,
#      no node drained
#   6. slurmctld restarted during a burst of submissions
#
# Needs root (slurmd, mount); skips (exit 77) otherwise.  Run from `make
# check`, or by hand: TOP_BUILDDIR=/path/to/build tests/cluster/test_faults.sh
# ANGARA_CLUSTER_KEEP=1 keeps the cluster's directory (logs) afterwards;
# ANGARA_BURST_JOBS=N changes the burst's size (default 200).
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
require_plugin
driver=$top_builddir/tests/kill_driver
if [ ! -x "$driver" ]; then
  echo "ERROR: build first: $driver is missing (make check builds it)" >&2
  exit 99
fi
# The full file system and the refused directory are small tmpfs mounts.
probe=$(mktemp -d "${TMPDIR:-/tmp}/angara-mount-probe.XXXXXX") || exit 99
if ! mount -t tmpfs -o size=64k angara-probe "$probe" 2>/dev/null; then
  rmdir "$probe"
  echo "SKIP: mounting a tmpfs is not permitted here (a container without CAP_SYS_ADMIN?)"
  exit 77
fi
umount "$probe" && rmdir "$probe"
take_cluster_lock
test_start=$SECONDS

state=$(mktemp -d "${TMPDIR:-/tmp}/angara-faults.XXXXXX") || exit 99
tables=$state/tables
work=$state/work
config=$state/angara.yaml
rebuild_log=$state/rebuild.log
mkdir -p "$work"
export SLURM_CONF=$state/etc/slurm.conf

mounts=()
cleanup() {
  local point
  strigger --clear --user=root >/dev/null 2>&1
  for point in "${mounts[@]}"; do
    chattr -R -i "$point" 2>/dev/null
    umount "$point" 2>/dev/null
  done
  [ -n "${holder_pid:-}" ] && kill "$holder_pid" 2>/dev/null
  "$here/cluster.sh" stop "$state" >/dev/null
}
trap cleanup EXIT

write_config() {  # FILE FAILED-NODES
  cat >"$1" <<EOF
machine:
  torus: 4x2x2x2
  nodes: desmos[00-31]
failures:
  nodes: [$2]
routing:
  algorithm: bfs
tables:
  directory: $tables
EOF
}
write_config "$config" ""
write_config "$state/desmos01-failed.yaml" "desmos01"

# A stuck node holding a job's shared= lock: one process (sleep, which the
# subshell becomes) holds it, without the cluster lock (fd 9); killing
# holder_pid releases it.
hold_lock() {  # LOCKFILE
  (
    exec 9>&- 8>"$1"
    flock 8
    exec sleep 300
  ) &
  holder_pid=$!
}
slurmd_logs() { cat "$state"/log/slurmd-desmos*.log; }
# Every table file readable whole (magic, version, CRC): "NAME JOB ALGORITHM FINGERPRINT".
table_state() {  # FILE
  local dir
  dir=$(mktemp -d "$work/one.XXXXXX")
  cp "$1" "$dir/" && "$driver" state "$config" "$dir" 2>&1
}

# A job script: one task on every node of the job finds the job's own table
# of its node, named by ANGARA_ROUTING_TABLE in its environment, and copies
# it into OUT/JOBID (verified afterwards).  A task,
# not the batch script: Slurm (22.05, PrologFlags=Alloc) starts the batch
# script once the prologue of the batch host is done, and a task on another
# node once that node's prologue is (doc/faults.md).
copy_job_tables='out=@OUT@/$SLURM_JOB_ID; mkdir -p $out
srun --ntasks-per-node=1 sh -c "f=@TABLES@/\$SLURMD_NODENAME.rt
  grep -qx \"job \$SLURM_JOB_ID\" \$f && cp \$f $out/ || echo \$SLURMD_NODENAME: not the job table >>$out/wrong
  [ \"\$ANGARA_ROUTING_TABLE\" = \$f ] || echo \$SLURMD_NODENAME: ANGARA_ROUTING_TABLE=\$ANGARA_ROUTING_TABLE >>$out/wrong"'
job_script() {  # OUT: the script for sbatch --wrap
  local script=${copy_job_tables//@OUT@/$1}
  echo "${script//@TABLES@/$tables}"
}
# Verifies every OUT/JOBID directory as one routing; prints the bad ones.
verify_copies() {  # OUT CONFIG
  local dir
  for dir in "$1"/*/; do
    dir=${dir%/}
    [ -e "$dir/wrong" ] && { echo "${dir##*/}: $(cat "$dir/wrong")"; continue; }
    "$tool" verify --config "$2" --tables "$dir" >"$dir.verify" 2>&1 && grep -q "^  verdict      OK" "$dir.verify" ||
      echo "${dir##*/}: $(grep -m1 -e verdict -e 'angara-route:' "$dir.verify")"
  done
}

ANGARA_SPANK_PLUGIN=$plugin ANGARA_PLUGSTACK_ARGS="config=$config" "$here/cluster.sh" start "$state" || exit 99
"$tool" install-defaults --config "$config" >/dev/null || exit 99
"$tool" shared-key --output "$state/shared.key" >/dev/null || exit 99
echo "# cluster up in $((SECONDS - test_start)) s"

# --- 1. the table directory on a full file system ---------------------------
section=$SECONDS
out=$work/enospc
mkdir -p "$out/tables" "$out/before"
cp -a "$tables/." "$out/before/"
mount -t tmpfs -o size=512k,mode=0755 angara-full "$tables" && mounts+=("$tables")
cp -a "$out/before/." "$tables/"
# Fill it: the next table write meets ENOSPC.
dd if=/dev/zero of="$tables/.fill" bs=4k status=none 2>/dev/null
sum_before=$(cd "$tables" && cat desmos*.rt | md5sum)
listing_before=$(ls -A "$tables")
job=$(sbatch --parsable -N4 -w 'desmos[00-03]' -o /dev/null --wrap "touch $out/ran")
deadline=$((SECONDS + 60))
until [ "$(job_field "$job" Reason)" = launch_failed_requeued_held ] || [ $SECONDS -ge $deadline ]; do sleep 0.5; done
check "ENOSPC: batch job $job requeued and held ($(job_state "$job"), $(job_field "$job" Reason))" \
  [ "$(job_field "$job" Reason)" = launch_failed_requeued_held ]
check "ENOSPC: the job's script never ran" [ ! -e "$out/ran" ]
if slurmd_logs | grep -q "spank-angara: job $job on desmos0[0-3]: routing table not installed: .*No space left on device"; then
  ok "ENOSPC: a clear refusal in the slurmd log"
else
  not_ok "ENOSPC: a clear refusal in the slurmd log" "$(slurmd_logs | grep "spank-angara: job $job" | tail -3)"
fi
reason=$(sinfo -h -N -n desmos00 -o '%E')
if sinfo -h -N -n desmos00 -o '%T' | grep -q drain && [[ $reason == *"No space left on device"* ]]; then
  ok "ENOSPC: on_failure=drain drained desmos00, the reason names the cause ($reason)"
else
  not_ok "ENOSPC: on_failure=drain drained desmos00, the reason names the cause" "$(sinfo -h -N -n desmos00 -o '%T %E')"
fi
# Kept: the old table files byte for byte, and no temporary left behind.
sleep 2  # the epilogues (they meet ENOSPC too) have run by now
check "ENOSPC: the old tables are kept intact" [ "$(cd "$tables" && cat desmos*.rt | md5sum)" = "$sum_before" ]
check "ENOSPC: no temporary file left in the table directory" [ "$(ls -A "$tables")" = "$listing_before" ]
bad=""
for n in 00 01 02 03; do
  table_state "$tables/desmos$n.rt" | grep -q "^desmos$n.rt default " || bad="$bad desmos$n"
done
check "ENOSPC: every table of the job's nodes reads whole, the default one${bad:+ (not:$bad)}" [ -z "$bad" ]
# Space again: resume the nodes, release the job; it runs on verified tables.
rm -f "$tables/.fill"
scontrol update nodename='desmos[00-03]' state=resume
scontrol release "$job"
# A requeued job waits (BeginTime) before it may start again: now.
scontrol update jobid="$job" starttime=now
wait_job_done "$job" 90 >/dev/null
check "ENOSPC: with space again, job $job ran ($(job_state "$job"))" [ "$(job_state "$job")" = COMPLETED -a -e "$out/ran" ]
job2=$(sbatch --parsable -N4 -w 'desmos[00-03]' -o /dev/null --wrap "$(job_script "$out/tables")")
wait_job_done "$job2" 90 >/dev/null
bad=$(verify_copies "$out/tables" "$config")
check "ENOSPC: the next job $job2 runs on verified tables" [ "$(job_state "$job2")" = COMPLETED -a -d "$out/tables/$job2" -a -z "$bad" ]
umount "$tables" && mounts=()
echo "# table directory full: $((SECONDS - section)) s"

# --- 2. the shared= directory unusable or slow --------------------------------
# The prologue budget here: PrologEpilogTimeout=120 (cluster.sh); a node
# computing its own 4-node table takes well under a second.
section=$SECONDS
out=$work/shared
mkdir -p "$out/copies"
budget=30
shared_args=("config=$config" "shared_key=$state/shared.key")
prologue_wall() {  # JOB NODE: the prologue's wall seconds from its log line
  sed -n "s/.*spank-angara: job $1: .*; prologue cpu [0-9.]* s, wall \([0-9.]*\) s.*/\1/p" "$state/log/slurmd-$2.log" | tail -n 1
}
shared_case() {  # NAME NODES LOG-PATTERN: a job with shared= as set; it must run, computed locally
  local name=$1 nodes=$2 pattern=$3 job wall first
  job=$(sbatch --parsable -N2 -w "$nodes" -o /dev/null --wrap "$(job_script "$out/copies")")
  wait_job_done "$job" 90 >/dev/null
  first=$(scontrol show hostnames "$nodes" | head -n 1)
  wall=$(prologue_wall "$job" "$first")
  if [ "$(job_state "$job")" = COMPLETED ] && [ -d "$out/copies/$job" ] &&
    grep -q "spank-angara: job $job: .*$pattern" "$state/log/slurmd-$first.log" &&
    [ -n "$wall" ] && awk -v w="$wall" -v b="$budget" 'BEGIN { exit !(w < b) }'; then
    ok "shared= $name: job $job ran, $first computed its own table in ${wall} s"
  else
    not_ok "shared= $name: job $job ran, computed locally within ${budget} s" "state $(job_state "$job"), wall '$wall'" \
      "$(grep "spank-angara: job $job" "$state/log/slurmd-$first.log" | tail -2)"
  fi
}
# Missing: neither the directory nor its parent exists.
plugstack "${shared_args[@]}" "shared=$state/gone/shared"
shared_case missing 'desmos[08-09]' "not shared (cannot use the shared directory: directory $state/gone does not exist"
check "shared= missing: nothing was created" [ ! -e "$state/gone" ]
# Refused: an immutable directory (EPERM even for root: what root gets on
# a root-squashed export is EACCES, handled the same way).
mkdir -p "$state/ro"
mount -t tmpfs -o size=64k,mode=0755 angara-shared "$state/ro" && mounts+=("$state/ro")
mkdir -m 0755 "$state/ro/shared" && chattr +i "$state/ro/shared"
plugstack "${shared_args[@]}" "shared=$state/ro/shared"
shared_case "permission refused" 'desmos[10-11]' "not shared (cannot use the shared directory: cannot open $state/ro/shared/[0-9a-f]*.lock: Operation not permitted)"
chattr -i "$state/ro/shared"
umount "$state/ro" && mounts=()
# Slow: the node holding the job's lock is stuck.  The fingerprint (the
# lock's name) is that of the same nodes' tables, learnt from a first job.
mkdir -p "$state/shared" && chmod 0755 "$state/shared"
plugstack "${shared_args[@]}" "shared=$state/shared" shared_wait=5
first_job=$(sbatch --parsable -N2 -w 'desmos[12-13]' -o /dev/null --wrap "$(job_script "$out/copies")")
wait_job_done "$first_job" 90 >/dev/null
print=$(table_field "$out/copies/$first_job/desmos12.rt" fingerprint)
rm -f "$state/shared/$print.shared"
hold_lock "$state/shared/$print.lock"
sleep 0.5
shared_case "lock held by a stuck node" 'desmos[12-13]' "not shared (another node held $state/shared/$print.lock longer than shared_wait=5 s)"
kill "$holder_pid" 2>/dev/null
wait "$holder_pid" 2>/dev/null
holder_pid=
bad=$(verify_copies "$out/copies" "$config")
check "shared= unusable: every job's tables verify${bad:+ ($bad)}" [ -z "$bad" ]
check "shared= unusable: no node drained" [ -z "$(drained_nodes)" ]
plugstack "config=$config"
echo "# shared= unusable or slow: $((SECONDS - section)) s"

# --- 3. slurmd killed with SIGKILL during a prologue ------------------------
# The prologue is held at a point in its middle: shared= with the job's lock
# taken, so it is waiting (up to shared_wait=) when slurmd is killed.  On
# desmos05 slurmd alone dies (its prologue process lives on); on desmos06
# slurmd and the prologue process die together.
section=$SECONDS
out=$work/kill
mkdir -p "$out/copies"
plugstack "${shared_args[@]}" "shared=$state/shared" shared_wait=20
pre=$(sbatch --parsable -N4 -w 'desmos[04-07]' -o /dev/null --wrap "$(job_script "$out/copies")")
wait_job_done "$pre" 90 >/dev/null
print=$(table_field "$out/copies/$pre/desmos04.rt" fingerprint)
rm -f "$state/shared/$print.shared"
for n in 04 05 06 07; do cp "$tables/desmos$n.rt" "$out/old-desmos$n.rt"; done
hold_lock "$state/shared/$print.lock"
sleep 0.5
job=$(sbatch --parsable -N4 -w 'desmos[04-07]' -o /dev/null --wrap "$(job_script "$out/copies")")
# The prologue process of a node is a child of its slurmd.
prologue_of() { pgrep -P "$(cat "$state/pids/slurmd-$1")" | head -n 1; }
deadline=$((SECONDS + 30))
until [ -n "$(prologue_of desmos05)" ] && [ -n "$(prologue_of desmos06)" ] || [ $SECONDS -ge $deadline ]; do sleep 0.2; done
prologue5=$(prologue_of desmos05)
prologue6=$(prologue_of desmos06)
check "kill: the prologues of desmos05 and desmos06 are running (pids $prologue5, $prologue6)" [ -n "$prologue5" -a -n "$prologue6" ]
kill -KILL "$(cat "$state/pids/slurmd-desmos05")" "$(cat "$state/pids/slurmd-desmos06")" ${prologue6:+"$prologue6"}
sleep 1
bad=""
for n in 05 06; do
  line=$(table_state "$tables/desmos$n.rt")
  cmp -s "$tables/desmos$n.rt" "$out/old-desmos$n.rt" || echo "$line" | grep -q "^desmos$n.rt $job " || bad="$bad desmos$n: $line"
done
check "kill: right after the kill each table is the old one or the job's, whole${bad:+ ($bad)}" [ -z "$bad" ]
# The stuck holder goes; slurmd comes back as its service manager would start it.
kill "$holder_pid" 2>/dev/null
wait "$holder_pid" 2>/dev/null
holder_pid=
for node in desmos05 desmos06; do
  setsid slurmd -D -N "$node" -f "$SLURM_CONF" </dev/null >>"$state/log/slurmd-$node.out" 2>&1 9>&- &
  echo $! >"$state/pids/slurmd-$node"
done
# The job ends up run (at once, or requeued and run again) or held for the
# administrator; either way every node's table is old or verified.
deadline=$((SECONDS + 150))
until [[ $(job_state "$job") =~ ^(COMPLETED|FAILED|CANCELLED|NODE_FAIL|TIMEOUT)$ ]] || [ $SECONDS -ge $deadline ]; do
  # A node Slurm drained for the lost prologue comes back; a held job is released.
  drained=$(sinfo -h -N -t drain,drained -n 'desmos[04-07]' -o '%N' | sort -u | paste -sd,)
  [ -n "$drained" ] && scontrol update nodename="$drained" state=resume 2>/dev/null && echo "# resumed $drained ($(sinfo -h -N -n "$drained" -o '%E' | head -1))"
  [ "$(job_field "$job" Reason)" = launch_failed_requeued_held ] || [ "$(job_field "$job" Reason)" = JobHeldAdmin ] &&
    scontrol release "$job" 2>/dev/null && scontrol update jobid="$job" starttime=now && echo "# released $job"
  # Slurm holds a requeued job back for cred_expire + 1 s (121 s): now.
  [ "$(job_field "$job" Reason)" = BeginTime ] && scontrol update jobid="$job" starttime=now && echo "# job $job requeued, started now"
  sleep 2
done
echo "# kill: job $job $(job_state "$job"), restarts $(job_field "$job" Restarts), $(admin_comment "$job")"
check "kill: job $job was requeued or ran on, and completed" [ "$(job_state "$job")" = COMPLETED ]
# Slurm 22.05 does not run the prologue again on a restarted slurmd that
# had received the job's prologue request: the plugin refuses the step
# there and requeues the job (spank-angara(8), FAILURE SEMANTICS).
refusals=$(grep -h "spank-angara: job $job on desmos0[56]: step refused: it holds the default table" "$state"/log/slurmd-desmos0[56].log | wc -l)
requeued=$(grep -h "spank-angara: job $job requeued: its prologues run again" "$state"/log/slurmd-desmos0[4-7].log | wc -l)
echo "# kill: $refusals step(s) refused on a node without the job's table, $requeued requeue(s)"
check "kill: the step on the node without the job's table was refused and the job requeued (restarts $(job_field "$job" Restarts))" \
  [ "$refusals" -ge 1 -a "$requeued" -ge 1 -a "$(job_field "$job" Restarts)" -ge 1 ]
bad=$(verify_copies "$out/copies" "$config")
check "kill: job $job ran on its own verified tables${bad:+ ($bad)}" [ -d "$out/copies/$job" -a -z "$bad" ]
bad=""
for n in 04 05 06 07; do
  table_state "$tables/desmos$n.rt" | grep -q "^desmos$n.rt default " || bad="$bad desmos$n"
done
check "kill: afterwards every node holds its default table again, whole${bad:+ (not:$bad)}" [ -z "$bad" ]
plugstack "config=$config"
echo "# slurmd killed: $((SECONDS - section)) s"

# --- 4. a router DOWN under running jobs: the strigger recipe ---------------
# desmos[00,02] and desmos[03,09] route through desmos01 (checked below);
# desmos[12-15] does not.  Nothing but the trigger rebuilds.
section=$SECONDS
out=$work/down
strigger --set --node --down --flags=PERM \
  --program="$tool rebuild --log $rebuild_log --all-running --idle --config $config" >/dev/null ||
  not_ok "strigger --set (the recipe of spank-angara(8))"
down_jobs=()
for nodes in 'desmos[00,02]' 'desmos[03,09]' 'desmos[12-15]'; do
  down_jobs+=("$(sbatch --parsable -N"$(scontrol show hostnames "$nodes" | wc -l)" -w "$nodes" -o /dev/null --wrap 'sleep 300')")
done
crossing=()
for job in "${down_jobs[@]}"; do
  wait_job_state "$job" RUNNING 60
  nodes=$(scontrol show hostnames "$(job_field "$job" NodeList)")
  deadline=$((SECONDS + 30))
  until [ -z "$(for n in $nodes; do grep -qx "job $job" "$tables/$n.rt" || echo x; done)" ] || [ $SECONDS -ge $deadline ]; do sleep 0.5; done
  mkdir -p "$out/before-$job"
  for n in $nodes; do cp "$tables/$n.rt" "$out/before-$job/"; done
  "$tool" verify --config "$state/desmos01-failed.yaml" --tables "$out/before-$job" >/dev/null 2>&1 || crossing+=("$job")
done
check "down: jobs ${crossing[*]} route through desmos01 (test premise: two of three)" [ ${#crossing[@]} = 2 ]
scontrol update nodename=desmos01 state=down reason="angara: router failed"
down_at=$SECONDS
bad=""
for job in "${down_jobs[@]}"; do
  nodes=$(scontrol show hostnames "$(job_field "$job" NodeList)")
  first=$(echo "$nodes" | head -n 1)
  old=$(table_field "$out/before-$job/$first.rt" fingerprint)
  deadline=$((SECONDS + 90))
  until [ "$(table_field "$tables/$first.rt" fingerprint)" != "$old" ] || [ $SECONDS -ge $deadline ]; do sleep 1; done
  mkdir -p "$out/after-$job"
  for n in $nodes; do cp "$tables/$n.rt" "$out/after-$job/"; done
  if [ "$(cat "$out/after-$job"/*.rt | grep -c "^job $job\$")" = "$(echo "$nodes" | wc -l)" ] &&
    [ "$(cat "$out/after-$job"/*.rt | grep -c "^fingerprint $old\$")" = 0 ] &&
    "$tool" verify --config "$state/desmos01-failed.yaml" --tables "$out/after-$job" >"$out/verify-$job" 2>&1 &&
    "$tool" show --job "$job" --config "$config" >"$out/show-$job" 2>&1 && grep -q "^  verdict      OK" "$out/show-$job" &&
    admin_comment "$job" | grep -q "rebuilt around failed routers desmos01"; then
    :
  else
    bad="$bad $job"
    echo "      job $job: $(cat "$out/verify-$job" "$out/show-$job" 2>/dev/null | grep -e verdict -e angara-route: | head -2)" >&2
  fi
done
echo "# the trigger's rebuild reached every running job $((SECONDS - down_at)) s after the node went DOWN"
check "down: strigger's rebuild rewrote every running job's tables around desmos01, verified, AdminComment and show --job agree${bad:+ (not:$bad)}" [ -z "$bad" ]
check "down: the rebuild log names the trigger's run" grep -q "rebuild\[[0-9]*\]: run by uid 0: .*rebuild --log $rebuild_log --all-running --idle --config $config desmos01\$" "$rebuild_log"
strigger --clear --user=root >/dev/null 2>&1
scancel "${down_jobs[@]}"
for job in "${down_jobs[@]}"; do wait_job_done "$job" 60 >/dev/null; done
scontrol update nodename=desmos01 state=resume
"$tool" rebuild --log "$rebuild_log" --all-running --idle --config "$config" >/dev/null 2>&1
echo "# router DOWN: $((SECONDS - section)) s"

# --- 5. a burst: many jobs submitted at once ----------------------------------
section=$SECONDS
out=$work/burst
mkdir -p "$out/copies"
burst=${ANGARA_BURST_JOBS:-200}
first_line=$(slurmd_logs | wc -l)
# Sizes 1, 2 and 4, submitted by 8 parallel clients.
seq 1 "$burst" | xargs -P 8 -I{} sh -c \
  'n=$(( ({} % 3 == 0) ? 4 : ({} % 3 == 1) ? 1 : 2 )); sbatch --parsable -N$n -o /dev/null --wrap "$1" 2>&1 | sed "s/^/{} /"' \
  _ "$(job_script "$out/copies")" >"$out/submitted"
submitted=$(grep -c '^[0-9]* [0-9]*$' "$out/submitted")
check "burst: $burst jobs submitted" [ "$submitted" = "$burst" ]
jobs=$(awk 'NF == 2 { print $2 }' "$out/submitted" | paste -sd,)
deadline=$((SECONDS + 300))
while [ -n "$(squeue -h -j "$jobs" -o %i 2>/dev/null)" ] && [ $SECONDS -lt $deadline ]; do sleep 2; done
burst_time=$((SECONDS - section))
not_completed=$(for job in ${jobs//,/ }; do s=$(job_state "$job"); [ "$s" = COMPLETED ] || echo "$job:$s"; done)
check "burst: every job completed in ${burst_time} s${not_completed:+ (not: $(echo $not_completed | head -c 300))}" [ -z "$not_completed" ]
bad=$(verify_copies "$out/copies" "$config")
check "burst: every job ran on its own verified tables ($(ls -d "$out/copies"/*/ | wc -l) verified)${bad:+ ($(echo $bad | head -c 300))}" \
  [ -z "$bad" -a "$(ls -d "$out/copies"/*/ | wc -l)" = "$burst" ]
check "burst: no node drained$(drained_nodes | sed 's/./ (&/;s/ *$//;s/(.*/&)/')" [ -z "$(drained_nodes)" ]
slurmd_logs >"$out/all.log"
# The burst's prologues: wall and cpu from their log lines.
for job in ${jobs//,/ }; do printf 'spank-angara: job %s: \nspank-angara: job %s on \n' "$job" "$job"; done >"$out/patterns"
grep -F -f "$out/patterns" "$out/all.log" | sed -n 's/.*; prologue cpu \([0-9.]*\) s, wall \([0-9.]*\) s.*/\1 \2/p' >"$out/times"
prologues=$(wc -l <"$out/times")
expected=$(awk 'NF == 2 { n = ($1 % 3 == 0) ? 4 : ($1 % 3 == 1) ? 1 : 2; s += n } END { print s }' "$out/submitted")
percentile() {  # COLUMN P
  awk -v c="$1" '{ print $c }' "$out/times" | sort -g | awk -v p="$2" '{ v[NR] = $1 } END { i = int((NR * p + 99) / 100); if (i < 1) i = 1; print v[i] }'
}
echo "# burst of $burst jobs ($expected prologues) on 32 nodes: all done in ${burst_time} s;" \
  "prologue wall p50 $(percentile 2 50) s, p99 $(percentile 2 99) s, max $(percentile 2 100) s;" \
  "cpu p50 $(percentile 1 50) s, p99 $(percentile 1 99) s"
check "burst: one prologue log line per node of every job ($prologues of $expected)" [ "$prologues" = "$expected" ]
check "burst: no prologue refused or failed" [ -z "$(grep -F -f "$out/patterns" "$out/all.log" | grep 'not installed\|refused\|requeued')" ]

# --- 6. slurmctld restarted during a burst of submissions -------------------
section=$SECONDS
out=$work/restart
mkdir -p "$out/copies"
count=40
seq 1 "$count" | xargs -P 4 -I{} sh -c \
  'sbatch --parsable -N2 -o /dev/null --wrap "$1" >"$2/sbatch-{}.out" 2>&1; echo $? >"$2/sbatch-{}.status"' \
  _ "$(job_script "$out/copies")" "$out" &
submitter=$!
deadline=$((SECONDS + 60))
until [ "$(cat "$out"/sbatch-*.status 2>/dev/null | wc -l)" -ge 10 ] || [ $SECONDS -ge $deadline ]; do sleep 0.1; done
ctld=$(cat "$state/pids/slurmctld")
kill -TERM "$ctld"
while kill -0 "$ctld" 2>/dev/null; do sleep 0.2; done
restart_at=$SECONDS
sleep 3
setsid slurmctld -D -i -f "$SLURM_CONF" </dev/null >>"$state/log/slurmctld.out" 2>&1 9>&- &
echo $! >"$state/pids/slurmctld"
deadline=$((SECONDS + 60))
until scontrol ping 2>/dev/null | grep -q 'is UP' || [ $SECONDS -ge $deadline ]; do sleep 0.5; done
echo "# slurmctld back after $((SECONDS - restart_at)) s"
wait "$submitter"
accepted=$(cat "$out"/sbatch-*.out | grep -cx '[0-9][0-9]*')
refused=$(for f in "$out"/sbatch-*.status; do [ "$(cat "$f")" != 0 ] && echo "$f"; done | wc -l)
unclear=$(for i in $(seq 1 "$count"); do
  s=$(cat "$out/sbatch-$i.status" 2>/dev/null)
  o=$(cat "$out/sbatch-$i.out" 2>/dev/null)
  { [ "$s" = 0 ] && [[ $o =~ ^[0-9]+$ ]]; } || { [ -n "$s" ] && [ "$s" != 0 ] && echo "$o" | grep -q 'error'; } || echo "$i"
done)
check "restart: each of $count submissions has a job id ($accepted) or a clear sbatch error ($refused)${unclear:+ (neither: $unclear)}" \
  [ -z "$unclear" -a $((accepted + refused)) = "$count" ]
jobs=$(cat "$out"/sbatch-*.out | grep -x '[0-9][0-9]*' | paste -sd,)
deadline=$((SECONDS + 240))
while [ -n "$(squeue -h -j "$jobs" -o %i 2>/dev/null)" ] && [ $SECONDS -lt $deadline ]; do sleep 2; done
not_completed=$(for job in ${jobs//,/ }; do s=$(job_state "$job"); [ "$s" = COMPLETED ] || echo "$job:$s"; done)
check "restart: every accepted job completed${not_completed:+ (not: $(echo $not_completed | head -c 300))}" [ -z "$not_completed" ]
bad=$(verify_copies "$out/copies" "$config")
check "restart: every accepted job ran on its own verified tables${bad:+ ($bad)}" \
  [ -z "$bad" -a "$(ls -d "$out/copies"/*/ 2>/dev/null | wc -l)" = "$accepted" ]
check "restart: no node drained" [ -z "$(drained_nodes)" ]
echo "# slurmctld restarted during $count submissions: $((SECONDS - section)) s"

echo "# test_faults.sh: $((SECONDS - test_start)) s in all"
echo "$passed passed, $failed failed"
if [ $failed -ne 0 ]; then
  echo "---- spank-angara errors of the slurmd logs:"
  slurmd_logs | grep 'error: spank-angara' | tail -n 20
fi
list_failed_checks
[ $failed -eq 0 ]
