#!/bin/bash
# spank-angara(8) and `angara-route rebuild` on a real Slurm cluster: munged,
# slurmctld and 32 slurmd (desmos[00-31]) on this host, started by
# cluster.sh in a private directory and stopped by PID at the end.
#
# Needs root (slurmd does); skips (exit 77) otherwise.  Run from `make check`,
# or by hand: TOP_BUILDDIR=/path/to/build tests/cluster/test_cluster.sh
# ANGARA_CLUSTER_KEEP=1 keeps the cluster's directory (logs) afterwards.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
require_plugin
take_cluster_lock

state=$(mktemp -d "${TMPDIR:-/tmp}/angara-cluster.XXXXXX") || exit 99
tables=$state/tables
work=$state/work
config=$state/angara.yaml
rebuild_log=$state/rebuild.log  # not the installed default under LOCALSTATEDIR
mkdir -p "$work"
export SLURM_CONF=$state/etc/slurm.conf

cleanup() {
  strigger --clear --user=root >/dev/null 2>&1
  "$here/cluster.sh" stop "$state" >/dev/null
}
trap cleanup EXIT

# The machine as the plugin and the tool both read it: only config= goes
# into plugstack.conf, as spank-angara(8) recommends.
write_config() {
  local file=$1 failed_nodes=$2
  cat >"$file" <<EOF
machine:
  torus: 4x2x2x2
  nodes: desmos[00-31]
failures:
  nodes: [$failed_nodes]
routing:
  algorithm: bfs      # the configured default the checks below expect
tables:
  directory: $tables
EOF
}
write_config "$config" ""


slurmd_log() { cat "$state/log/slurmd-$1.log"; }


# Copies the job's table of every node (each node copies its own, inside the job).
copy_tables_step() {
  local out=$1
  echo "srun --ntasks-per-node=1 sh -c 'f=$tables/\$SLURMD_NODENAME.rt; grep -qx \"job \$SLURM_JOB_ID\" \$f && cp \$f $out/ && echo table-ok \$SLURMD_NODENAME \$(grep ^algorithm \$f)'"
}

ANGARA_SPANK_PLUGIN=$plugin ANGARA_PLUGSTACK_ARGS="config=$config" "$here/cluster.sh" start "$state" || exit 99

# The algorithm for "the user's choice is honoured": any but the default.
bad_output=$(sbatch --angara-routing=no-such-algorithm --wrap true 2>&1)
valid_names=$(echo "$bad_output" | sed -n "s/.*valid names: //p" | head -n 1)
other=$(echo "$valid_names" | tr ',' '\n' | tr -d ' ' | grep -vx bfs | head -n 1)
[ -n "$other" ] || other=bfs
echo "algorithms: $valid_names; testing the choice with '$other'"

# --- slurmd logged the plugin's version and settings; check agrees ----------
version=$("$tool" --version | sed 's/^angara-route //')
if grep -q "spank-angara $version: config $config (4x2x2x2, 32 nodes), tables $tables, default algorithm bfs" \
  "$state/log/slurmd-desmos00.log"; then
  ok "slurmd logged spank-angara's version and settings at load"
else
  not_ok "slurmd logged spank-angara's version and settings at load" "$(grep spank-angara "$state/log/slurmd-desmos00.log" | head -3)"
fi
if "$tool" check --config "$config" >"$work/check.txt" 2>&1 &&
  grep -q "^ok      plugstack: $state/etc/plugstack.conf:1: required $plugin\$" "$work/check.txt" &&
  grep -q "^ok      slurm: PrologFlags=Alloc" "$work/check.txt" &&
  grep -q "^ok      partition desmos: OverSubscribe=EXCLUSIVE with select/linear: one job per node\$" "$work/check.txt" &&
  grep -q "^ok      tables: $tables: writable\$" "$work/check.txt" &&
  grep -q "^ok      nodes: all 32 nodes of the machine are Slurm nodes\$" "$work/check.txt"; then
  ok "angara-route check passes on the live cluster"
else
  not_ok "angara-route check passes on the live cluster" "$(cat "$work/check.txt")"
fi

# --- the option reaches all three commands ----------------------------------
for command in srun sbatch salloc; do
  if $command --help 2>&1 | grep -q -- '--angara-routing=NAME'; then
    ok "$command --help lists --angara-routing"
  else
    not_ok "$command --help lists --angara-routing"
  fi
done

# --- a bad name is rejected at submission, with the list --------------------
jobs_before=$(squeue -h | wc -l)
for command in sbatch srun salloc; do
  case $command in
    sbatch) output=$(sbatch --angara-routing=no-such-algorithm --wrap true 2>&1) ;;
    srun) output=$(timeout 60 srun --angara-routing=no-such-algorithm true 2>&1) ;;
    salloc) output=$(timeout 60 salloc --angara-routing=no-such-algorithm true 2>&1) ;;
  esac
  status=$?
  if [ $status -ne 0 ] && echo "$output" | grep -q "unknown routing algorithm 'no-such-algorithm'; valid names: bfs"; then
    ok "$command rejects a bad --angara-routing with the valid names"
  else
    not_ok "$command rejects a bad --angara-routing with the valid names" "exit $status: $output"
  fi
done
jobs_after=$(squeue -h | wc -l)
check "no job was submitted with a bad name" [ "$jobs_before" = "$jobs_after" ]

# --- sbatch -N8: every node finds its table written before the job starts ---
out=$work/sbatch8
mkdir -p "$out/tables"
job=$(sbatch --parsable -N8 -o "$out/batch.out" --wrap "$(copy_tables_step "$out/tables")")
if wait_job_done "$job" && [ "$(job_field "$job" JobState)" = COMPLETED ]; then
  ok "sbatch -N8 job $job completed"
else
  not_ok "sbatch -N8 job $job completed" "$(cat "$out/batch.out" 2>/dev/null)"
fi
check "all 8 nodes found the job's bfs table in place" \
  [ "$(grep -c '^table-ok desmos.. algorithm bfs$' "$out/batch.out" 2>/dev/null)" = 8 ]
if "$tool" verify --config "$config" --tables "$out/tables" >"$out/verify.txt" 2>&1; then
  ok "the 8 tables of job $job verify as one routing"
else
  not_ok "the 8 tables of job $job verify as one routing" "$(cat "$out/verify.txt")"
fi
# Computed independently on 8 nodes, they equal what the admin tool writes.
nodes=$(job_field "$job" NodeList)
mkdir -p "$out/tool"
"$tool" generate --config "$config" --nodes "$nodes" --job-name "$job" --output "$out/tool" >/dev/null 2>&1
if [ "$(ls "$out/tool" | wc -l)" = 8 ] && diff -r -x .angara "$out/tool" "$out/tables" >/dev/null; then
  ok "prologue tables are byte-identical to 'angara-route generate'"
else
  not_ok "prologue tables are byte-identical to 'angara-route generate'" "$(diff -r -x .angara "$out/tool" "$out/tables" 2>&1 | head -5)"
fi
first=$(echo "$nodes" | sed 's/\[\([0-9]*\).*/\1/')
check "the epilogue restored the default table ($first)" [ "$(table_field "$tables/$first.rt" job)" = default ]
if grep -q "spank-angara: job $job: bfs on 8 nodes.*table of $first written to $tables" "$state/log/slurmd-$first.log"; then
  ok "the prologue logged its work in the slurmd log"
else
  not_ok "the prologue logged its work in the slurmd log" "$(grep spank-angara "$state/log/slurmd-$first.log" | tail -3)"
fi
config_print=$("$tool" generate --config "$config" --dry-run --lp-time 0 --json | sed -n 's/.*"config_fingerprint":"\([0-9a-f]*\)".*/\1/p')
if [ -n "$config_print" ] && grep -q "spank-angara: job $job: .*; config $config_print ([0-9]* bytes), lists " "$state/log/slurmd-$first.log"; then
  ok "the prologue's log line carries the configuration's fingerprint and listed failures"
else
  not_ok "the prologue's log line carries the configuration's fingerprint ($config_print)" "$(grep "spank-angara: job $job:" "$state/log/slurmd-$first.log" | tail -1)"
fi

# --- srun --angara-routing is honoured --------------------------------------
output=$(timeout 60 srun -N4 --angara-routing="$other" sh -c \
  "grep -x \"job \$SLURM_JOB_ID\" $tables/\$SLURMD_NODENAME.rt >/dev/null && grep ^algorithm $tables/\$SLURMD_NODENAME.rt" 2>&1)
if [ "$(echo "$output" | grep -cx "algorithm $other")" = 4 ]; then
  ok "srun --angara-routing=$other: 4 nodes run on $other tables"
else
  not_ok "srun --angara-routing=$other: 4 nodes run on $other tables" "$output"
fi

# --- sbatch --angara-routing is honoured ------------------------------------
out=$work/sbatch-choice
mkdir -p "$out/tables"
job=$(sbatch --parsable -N4 --angara-routing="$other" -o "$out/batch.out" --wrap "$(copy_tables_step "$out/tables")")
wait_job_done "$job"
check "sbatch --angara-routing=$other: 4 nodes run on $other tables" \
  [ "$(grep -c "^table-ok desmos.. algorithm $other\$" "$out/batch.out" 2>/dev/null)" = 4 ]

# --- generate --job --dry-run reports what the prologue installed -----------
out=$work/sssp-job
mkdir -p "$out"
job=$(sbatch --parsable -N4 -w 'desmos[12-15]' --angara-routing=sssp -o /dev/null --wrap 'sleep 300')
wait_job_state "$job" RUNNING 60
# RUNNING can come before every node's prologue has written its table.
deadline=$((SECONDS + 30))
until [ "$(table_field "$tables/desmos12.rt" job 2>/dev/null)" = "$job" ] && [ "$(table_field "$tables/desmos15.rt" job 2>/dev/null)" = "$job" ] ||
  [ $SECONDS -ge $deadline ]; do
  sleep 0.5
done
installed_fp=$(table_field "$tables/desmos12.rt" fingerprint)
if "$tool" generate --job "$job" --config "$config" --dry-run >"$out/dryrun.txt" 2>"$out/dryrun.err" &&
  grep -q "^  algorithm    sssp .*as installed for the job: $tables/desmos12.rt" "$out/dryrun.txt" &&
  grep -q "^  fingerprint  $installed_fp\$" "$out/dryrun.txt" && [ -n "$installed_fp" ]; then
  ok "generate --job $job --dry-run: sssp and the installed fingerprint $installed_fp"
else
  not_ok "generate --job $job --dry-run: sssp and the installed fingerprint $installed_fp" "$(cat "$out/dryrun.txt" "$out/dryrun.err")"
fi
check "generate --job says what it asks slurmctld" grep -q "asking slurmctld for job $job's nodes" "$out/dryrun.err"
# The running job's routing is visible: scontrol show job, show --job, the tasks' environment.
if admin_comment "$job" | grep -q "^angara: sssp, fingerprint $installed_fp, tables $tables, verified\$"; then
  ok "scontrol show job $job: AdminComment names sssp and the fingerprint"
else
  not_ok "scontrol show job $job: AdminComment names sssp and the fingerprint" "$(scontrol show job "$job" | grep -i comment)"
fi
if "$tool" show --job "$job" --config "$config" >"$out/show.txt" 2>&1 &&
  grep -q "^  algorithm    sssp\$" "$out/show.txt" && grep -q "^  fingerprint  $installed_fp\$" "$out/show.txt" &&
  grep -q "^  tables       $tables: the job's on desmos\[12-15\] (4 of 4 live nodes)\$" "$out/show.txt" &&
  grep -q "^  verdict      OK" "$out/show.txt"; then
  ok "show --job $job: sssp, the fingerprint, 4 tables, verified"
else
  not_ok "show --job $job: sssp, the fingerprint, 4 tables, verified" "$(cat "$out/show.txt")"
fi
output=$(timeout 60 srun --jobid="$job" --overlap -N4 sh -c 'echo env $ANGARA_ROUTING_ALGORITHM $ANGARA_ROUTING_FINGERPRINT $ANGARA_ROUTING_TABLE' 2>&1)
if [ "$(echo "$output" | grep -c "^env sssp $installed_fp $tables/desmos1[2-5].rt\$")" = 4 ]; then
  ok "the job's tasks see ANGARA_ROUTING_ALGORITHM, _FINGERPRINT and _TABLE"
else
  not_ok "the job's tasks see ANGARA_ROUTING_ALGORITHM, _FINGERPRINT and _TABLE" "$output"
fi
output=$(SLURM_JOB_ID=$job timeout 60 srun --jobid="$job" --overlap -N1 --angara-routing=bfs true 2>&1)
if echo "$output" | grep -q "spank-angara: --angara-routing=bfs ignored: job $job already runs on its routing tables"; then
  ok "srun --angara-routing inside a job says it is ignored"
else
  not_ok "srun --angara-routing inside a job says it is ignored" "$output"
fi
# Inside a batch job, srun inherits the job's own --angara-routing through
# the job's environment: the same choice says nothing.
output=$(SLURM_JOB_ID=$job SLURM_SPANK__SLURM_SPANK_OPTION_angara_angara_routing=sssp \
  timeout 60 srun --jobid="$job" --overlap -N1 true 2>&1)
if ! echo "$output" | grep -q "spank-angara"; then
  ok "srun inside a job with the job's own --angara-routing prints nothing about routing"
else
  not_ok "srun inside a job with the job's own --angara-routing prints nothing about routing" "$output"
fi
# Exit codes of angara-route(8): an unknown job is bad input (3), not 6.
"$tool" generate --job 999999 --config "$config" --dry-run >/dev/null 2>"$out/unknown.err"
status=$?
if [ $status = 3 ] && grep -q "job 999999 is not known to slurmctld" "$out/unknown.err"; then
  ok "generate --job 999999: exit 3, unknown job"
else
  not_ok "generate --job 999999: exit 3, unknown job" "exit $status: $(cat "$out/unknown.err")"
fi
"$tool" rebuild --log "$rebuild_log" --job 999999 --config "$config" >/dev/null 2>"$out/unknown.err"
status=$?
check "rebuild --job 999999: exit 3" [ $status = 3 ]
# rebuild --node: outside the job, or a subset in a shared table directory, is refused.
"$tool" rebuild --log "$rebuild_log" --job "$job" --config "$config" --node desmos30 >"$out/node.out" 2>"$out/node.err"
status=$?
if [ $status = 3 ] && grep -q "\-\-node desmos30: not a node of job $job (desmos\[12-15\]); nothing was written" "$out/node.err"; then
  ok "rebuild --node outside the job is refused"
else
  not_ok "rebuild --node outside the job is refused" "exit $status: $(cat "$out/node.out" "$out/node.err")"
fi
sum_before=$(cat "$tables"/desmos1[2-5].rt | md5sum)
"$tool" rebuild --log "$rebuild_log" --job "$job" --config "$config" --node desmos13 >"$out/node.out" 2>"$out/node.err"
status=$?
if [ $status = 3 ] && grep -q "would leave the tables of desmos\[12,14-15\] (job $job, in $tables)" "$out/node.err" &&
  [ "$(cat "$tables"/desmos1[2-5].rt | md5sum)" = "$sum_before" ]; then
  ok "rebuild --node of one live node in a shared directory is refused, nothing written"
else
  not_ok "rebuild --node of one live node in a shared directory is refused" "exit $status: $(cat "$out/node.out" "$out/node.err")"
fi
# rebuild says which configuration and table directory it used.
if "$tool" rebuild --log "$rebuild_log" --job "$job" --config "$config" --dry-run >"$out/rebuild.txt" 2>&1 &&
  grep -q "^rebuild: config $config, tables $tables, failed routers none, dry run\$" "$out/rebuild.txt" &&
  grep -q "job $job: sssp on 4 nodes" "$out/rebuild.txt"; then
  ok "rebuild names its config and table directory and keeps sssp"
else
  not_ok "rebuild names its config and table directory and keeps sssp" "$(cat "$out/rebuild.txt")"
fi
# --memory-limit overrides limits.memory: under 1M the job's computation is refused (exit 9).
"$tool" rebuild --log "$rebuild_log" --job "$job" --config "$config" --dry-run --memory-limit 1M \
  >"$out/memlimit.out" 2>&1
status=$?
if [ $status = 9 ] && grep -q "more than the memory limit of 1.0 MiB" "$out/memlimit.out"; then
  ok "rebuild --memory-limit 1M refuses the job's computation (exit 9)"
else
  not_ok "rebuild --memory-limit 1M refuses the job's computation" "exit $status: $(cat "$out/memlimit.out")"
fi
if [ ! -e /usr/local/etc/angara/angara.yaml ] && [ ! -e /etc/angara/angara.yaml ]; then
  env -u ANGARA_CONFIG "$tool" rebuild --log "$rebuild_log" --job "$job" >"$out/noconf.out" 2>"$out/noconf.err"
  status=$?
  if [ $status = 3 ] && grep -q "refusing to write tables of the built-in Desmos machine" "$out/noconf.err"; then
    ok "rebuild without a configuration refuses to write the built-in machine's tables"
  else
    not_ok "rebuild without a configuration refuses" "exit $status: $(cat "$out/noconf.out" "$out/noconf.err")"
  fi
fi
scancel "$job"
wait_job_done "$job" 30 >/dev/null

# --- two concurrent jobs on disjoint nodes ----------------------------------
for name in a b; do mkdir -p "$work/concurrent-$name"; done
job_a=$(sbatch --parsable -N8 -w 'desmos[08-15]' -o "$work/concurrent-a/batch.out" \
  --wrap "$(copy_tables_step "$work/concurrent-a") && sleep 10")
job_b=$(sbatch --parsable -N8 -w 'desmos[16-23]' --angara-routing="$other" -o "$work/concurrent-b/batch.out" \
  --wrap "$(copy_tables_step "$work/concurrent-b") && sleep 10")
together=no
deadline=$((SECONDS + 60))
while [ $SECONDS -lt $deadline ]; do
  if [ "$(job_field "$job_a" JobState)" = RUNNING ] && [ "$(job_field "$job_b" JobState)" = RUNNING ]; then
    together=yes
    break
  fi
  sleep 0.5
done
check "jobs $job_a and $job_b ran at the same time" [ $together = yes ]
# A node's prologue may still be writing its table when the job shows RUNNING:
# wait for both copy steps (one table-ok line per node) before verifying.
deadline=$((SECONDS + 60))
until [ "$(cat "$work"/concurrent-[ab]/batch.out 2>/dev/null | grep -c '^table-ok')" -ge 16 ] || [ $SECONDS -ge $deadline ]; do
  sleep 0.5
done
# The shared table directory mixes both jobs and the idle nodes: verify --job picks each job's.
for id in $job_a $job_b; do
  if "$tool" verify --job "$id" --config "$config" >"$work/verify-$id.txt" 2>&1 &&
    grep -q "^  verdict      OK" "$work/verify-$id.txt" &&
    grep -q "^  tables       job $id's, read from $tables (desmos\[..-..\], 8 files)" "$work/verify-$id.txt"; then
    ok "verify --job $id passes with two jobs running"
  else
    not_ok "verify --job $id passes with two jobs running" "$(cat "$work/verify-$id.txt")"
  fi
done
# Its 8 files are measured before they are read: over the memory limit, nothing is read.
"$tool" verify --job "$job_a" --config "$config" --memory-limit 1M >"$work/verify-limit.txt" 2>&1
status=$?
if [ $status = 9 ] && grep -q "table files" "$work/verify-limit.txt"; then
  ok "verify --job over a 1M memory limit: exit 9, the files' size in the estimate"
else
  not_ok "verify --job over a 1M memory limit: exit 9, the files' size in the estimate" \
    "exit $status: $(cat "$work/verify-limit.txt")"
fi
wait_job_done "$job_a"
wait_job_done "$job_b"
for name in a b; do
  dir=$work/concurrent-$name
  [ $name = a ] && id=$job_a || id=$job_b
  [ $name = a ] && algorithm=bfs || algorithm=$other
  count=$(grep -c "^table-ok desmos.. algorithm $algorithm\$" "$dir/batch.out" 2>/dev/null)
  if [ "$count" = 8 ] && "$tool" verify --config "$config" --tables "$dir" >"$dir.verify" 2>&1 &&
    [ "$(cat "$dir"/*.rt | grep -c "^job $id\$")" = 8 ]; then
    ok "concurrent job $id: its own 8 $algorithm tables, verified"
  else
    not_ok "concurrent job $id: its own 8 $algorithm tables, verified" "table-ok lines: $count" "$(cat "$dir.verify" 2>/dev/null)"
  fi
done

# --- a node goes DOWN: rebuild routes the running job around it -------------
out=$work/down
mkdir -p "$out/before" "$out/after"
write_config "$out/desmos01-failed.yaml" "desmos01"
job=$(sbatch --parsable -N2 -w 'desmos[00,02]' --angara-routing="$other" -o /dev/null --wrap 'sleep 300')
wait_job_state "$job" RUNNING 60
cp "$tables/desmos00.rt" "$tables/desmos02.rt" "$out/before/"
# Without desmos01 the job's current routes are wrong: the check below must see that.
if "$tool" verify --config "$out/desmos01-failed.yaml" --tables "$out/before" >/dev/null 2>&1; then
  not_ok "job $job's routes use desmos01 before the failure (test premise)"
else
  ok "job $job's routes use desmos01 before the failure (test premise)"
fi
# The recipe of spank-angara(8): rebuild whenever a node goes down.
strigger --set --node --down --flags=PERM \
  --program="$tool rebuild --log $rebuild_log --all-running --idle --config $config" >/dev/null
scontrol update nodename=desmos01 state=down reason=angara-test
if "$tool" rebuild --log "$rebuild_log" --job "$job" --config "$config" >"$out/rebuild.txt" 2>&1; then
  ok "angara-route rebuild --job $job"
else
  not_ok "angara-route rebuild --job $job" "$(cat "$out/rebuild.txt")"
fi
cp "$tables/desmos00.rt" "$tables/desmos02.rt" "$out/after/"
# The admin's dry run for a job reads the allocation and DOWN nodes from slurmctld.
sum_before=$(cat "$tables"/*.rt | md5sum)
if "$tool" generate --job "$job" --config "$config" --dry-run >"$out/dryrun.txt" 2>&1 &&
  grep -q "failures     1 node(s)" "$out/dryrun.txt" && grep -q "job          $job\$" "$out/dryrun.txt" &&
  grep -q "nodes        desmos\[00,02\] (2)" "$out/dryrun.txt" && [ "$(cat "$tables"/*.rt | md5sum)" = "$sum_before" ]; then
  ok "generate --job $job --dry-run: the job's nodes, desmos01 failed, nothing written"
else
  not_ok "generate --job $job --dry-run" "$(cat "$out/dryrun.txt")"
fi
if "$tool" verify --config "$out/desmos01-failed.yaml" --tables "$out/after" >"$out/verify.txt" 2>&1; then
  ok "after the rebuild job $job routes around desmos01"
else
  not_ok "after the rebuild job $job routes around desmos01" "$(cat "$out/verify.txt")"
fi
check "the rebuild kept the job and its algorithm $other" \
  [ "$(table_field "$out/after/desmos00.rt" job)/$(table_field "$out/after/desmos00.rt" algorithm)" = "$job/$other" ]
check "the rebuild logged the failed router" grep -q "failed routers desmos01" "$out/rebuild.txt"
if grep -q "rebuild\[[0-9]*\]: run by uid 0: angara-route rebuild --log $rebuild_log --job $job --config $config\$" "$rebuild_log" &&
  grep -q "rebuild\[[0-9]*\]: config $config, tables $tables, failed routers desmos01, writing\$" "$rebuild_log" &&
  grep -q "rebuild\[[0-9]*\]: job $job: $other on 2 nodes.*tables of desmos\[00,02\] written to $tables\$" "$rebuild_log" &&
  grep -q "rebuild\[[0-9]*\]: error: --node desmos30: not a node of job" "$rebuild_log"; then
  ok "every rebuild run is in the log: command, config, tables, what it wrote, refusals"
else
  not_ok "every rebuild run is in the log" "$(tail -8 "$rebuild_log" 2>&1)"
fi
if "$tool" rebuild --log "$rebuild_log" --job "$job" --config "$config" --dry-run --json >"$out/rebuild.json" 2>&1 &&
  grep -q "^{\"config\":\"$config\",\"tables\":\"$tables\",\"dry_run\":true,\"failed_routers\":\[\"desmos01\"\]" "$out/rebuild.json" &&
  grep -q "\"jobs\":\[{\"job\":\"$job\",\"algorithm\":\"$other\",.*\"nodes\":\[\"desmos00\",\"desmos02\"\],\"written\":\[\]" "$out/rebuild.json"; then
  ok "rebuild --json: config, tables, failed routers, the job's algorithm and nodes"
else
  not_ok "rebuild --json" "$(cat "$out/rebuild.json")"
fi
check "the rebuild checked the live switch of the running job" grep -q "live switch direct (installed tables of 2 node(s) compared)" "$out/rebuild.txt"
# The job's AdminComment names the rebuilt tables: show --job sees one
# fingerprint and says OK.
new_print=$(table_field "$tables/desmos00.rt" fingerprint)
if admin_comment "$job" | grep -qF "angara: $other, fingerprint $new_print, tables $tables, verified; rebuilt around failed routers desmos01" &&
  "$tool" show --job "$job" --config "$config" >"$out/show.txt" 2>&1 && grep -q "^  verdict      OK" "$out/show.txt"; then
  ok "the rebuild updated job $job's AdminComment; show --job: one fingerprint, OK"
else
  not_ok "the rebuild updated job $job's AdminComment" "$(admin_comment "$job")" "$(cat "$out/show.txt")"
fi
# The strigger program rewrites idle nodes' default tables (desmos31 ran no job yet).
deadline=$((SECONDS + 60))
until [ "$(table_field "$tables/desmos31.rt" job)" = default ] && ! grep -q '^1,0,0,0 ' "$tables/desmos31.rt" ||
  [ $SECONDS -ge $deadline ]; do
  sleep 1
done
if [ -f "$tables/desmos31.rt" ] && [ "$(table_field "$tables/desmos31.rt" job)" = default ] &&
  [ "$(table_field "$tables/desmos31.rt" entries)" = 30 ] && ! grep -q '^1,0,0,0 ' "$tables/desmos31.rt"; then
  ok "the strigger recipe rebuilt idle default tables without desmos01"
else
  not_ok "the strigger recipe rebuilt idle default tables without desmos01" "$(head -8 "$tables/desmos31.rt" 2>&1)"
fi
strigger --clear --user=root >/dev/null 2>&1
# A new job's prologue counts the DOWN node as a failed router.
job2=$(sbatch --parsable --wait -N1 -w desmos03 -o /dev/null --wrap true)
if grep -q "spank-angara: job $job2: .*failed routers desmos01" "$state/log/slurmd-desmos03.log"; then
  ok "a new job's prologue counts DOWN desmos01 as failed"
else
  not_ok "a new job's prologue counts DOWN desmos01 as failed" "$(grep "job $job2" "$state/log/slurmd-desmos03.log")"
fi
scancel "$job"
wait_job_done "$job" 30 >/dev/null
# The node comes back (angara-route(8), "A node comes back"): resume it, then
# rebuild the idle default tables so that they route over it again.
scontrol update nodename=desmos01 state=resume
"$tool" rebuild --log "$rebuild_log" --all-running --idle --config "$config" >"$out/back.txt" 2>&1
if [ "$(table_field "$tables/desmos31.rt" entries)" = 31 ] && [ "$(table_field "$tables/desmos01.rt" job)" = default ] &&
  [ "$(table_field "$tables/desmos01.rt" entries)" = 31 ]; then
  ok "after desmos01 came back, the idle default tables route over it again"
else
  not_ok "after desmos01 came back, the idle default tables route over it again" "$(cat "$out/back.txt")"
fi

# --- a shared cache: computed once, read back, still the job's own tables ----
plugstack "config=$config" "cache=$state/cache"
mkdir -p "$work/cache1" "$work/cache2"
job1=$(sbatch --parsable --wait -N4 -w 'desmos[04-07]' -o /dev/null --wrap "$(copy_tables_step "$work/cache1")")
job2=$(sbatch --parsable --wait -N4 -w 'desmos[04-07]' -o /dev/null --wrap "$(copy_tables_step "$work/cache2")")
check "cache: the first job stored its routes" [ -n "$(ls "$state/cache" 2>/dev/null)" ]
check "cache: the second job read them back on desmos04" \
  grep -q "spank-angara: job $job2: bfs on 4 nodes.*from cache" "$state/log/slurmd-desmos04.log"
check "cache: the second job's tables are its own" [ "$(cat "$work"/cache2/*.rt | grep -c "^job $job2\$")" = 4 ]
plugstack "config=$config"

# --- shared=: one computation per job, not per node -------------------------
# The CPU the prologues of a 32-node job spend together ("prologue cpu" in
# each slurmd log), first with every node computing, then with shared=.
prologue_cpu() {  # JOB: "SUM COUNT" over the nodes' prologue lines
  cat "$state"/log/slurmd-desmos*.log |
    sed -n "s/.*spank-angara: job $1: .*; prologue cpu \([0-9.]*\) s.*/\1/p" |
    awk '{ sum += $1; n++ } END { printf "%.4f %d\n", sum, n }'
}
same_routes() {  # DIR1 DIR2: the same 32 table files but for the job line and checksum
  [ "$(ls "$1" | wc -l)" = 32 ] && [ "$(ls "$2" | wc -l)" = 32 ] || return 1
  local f
  for f in "$1"/*.rt; do
    diff <(grep -v '^job \|^checksum ' "$f") <(grep -v '^job \|^checksum ' "$2/$(basename "$f")") >/dev/null || return 1
  done
}
# balanced (the default) computes 32 nodes in about a millisecond, less than
# what every prologue spends anyway (about 1.3 ms: settings, the scontrol
# query, the configuration), so the bound is asserted where the computation
# dominates, as it does on large machines: genetic with a population of 200
# (about 0.14 s).  The balanced figures are printed as measured.
heavy=$work/genetic-200.yaml
cp "$config" "$heavy"
printf 'routing:\n  algorithm: bfs\n  options:\n    population: 200\n' >"$heavy.routing"
sed -i '/^routing:/,/^tables:/{/^tables:/!d}' "$heavy"
sed -i "/^tables:/e cat $heavy.routing" "$heavy"
# The shared result's key (spank-angara(8), shared_key=): root's alone.
"$tool" shared-key --output "$state/shared.key" >/dev/null
for algorithm in balanced genetic; do
  [ $algorithm = genetic ] && use=$heavy || use=$config
  mkdir -p "$work/shared-off-$algorithm" "$work/shared-on-$algorithm"
  plugstack "config=$use"
  job_off=$(sbatch --parsable --wait -N32 --angara-routing=$algorithm -o /dev/null \
    --wrap "$(copy_tables_step "$work/shared-off-$algorithm")")
  plugstack "config=$use" "shared=$state/shared" "shared_key=$state/shared.key"
  job_on=$(sbatch --parsable --wait -N32 --angara-routing=$algorithm -o /dev/null \
    --wrap "$(copy_tables_step "$work/shared-on-$algorithm")")
  plugstack "config=$config"
  read -r cpu_off count_off <<<"$(prologue_cpu "$job_off")"
  read -r cpu_on count_on <<<"$(prologue_cpu "$job_on")"
  [ $algorithm = balanced ] && balanced_on=$cpu_on
  computed=$(cat "$state"/log/slurmd-desmos*.log | grep -c "spank-angara: job $job_on: .*; shared as ")
  read_row=$(cat "$state"/log/slurmd-desmos*.log | grep -c "spank-angara: job $job_on: $algorithm on 32 nodes.*, shared result ")
  echo "prologue CPU of a 32-node $algorithm job: every node computing $cpu_off s ($count_off prologues);" \
    "shared= $cpu_on s ($count_on prologues, $computed computed)"
  check "shared=, $algorithm: 32 prologues, one computed, the others read their row" \
    [ "$count_on" = 32 -a "$computed" = 1 -a "$read_row" = 31 ]
  check "shared=, $algorithm: the same 32 tables as when every node computes" \
    same_routes "$work/shared-off-$algorithm" "$work/shared-on-$algorithm"
done
# One computation = a prologue's CPU when every node computes (their mean).
# Every prologue has a fixed cost besides (settings, the trust checks, the
# configuration, reading and authenticating the result): the balanced job's
# shared prologues measure it (a balanced computation is a millisecond).
one=$(awk -v off="$cpu_off" 'BEGIN { printf "%.4f", off / 32 }')
fixed=$(awk -v on="$balanced_on" 'BEGIN { printf "%.4f", on / 32 }')
if [ "$count_off" = 32 ] &&
  awk -v on="$cpu_on" -v one="$one" -v fixed="$fixed" 'BEGIN { exit !(on <= 1.5 * one + 1.5 * 32 * fixed) }'; then
  ok "shared=, genetic (population 200): the 32 prologues spend about one computation's CPU and their fixed costs ($cpu_on s, one $one s, fixed $fixed s a prologue)"
else
  not_ok "shared=, genetic (population 200): the 32 prologues spend about one computation's CPU and their fixed costs" \
    "every node computing $cpu_off s ($count_off), shared= $cpu_on s, one computation $one s, fixed $fixed s"
fi

# --- a misspelt plugstack argument stops submission with the reason ---------
plugstack "config=$config" "tabels=/tmp"
output=$(sbatch --wrap true 2>&1)
status=$?
if [ $status -ne 0 ] && echo "$output" | grep -q "spank-angara: bad plugstack.conf arguments: unknown plugstack argument 'tabels=/tmp'"; then
  ok "a bad plugstack argument is refused at submission"
else
  not_ok "a bad plugstack argument is refused at submission" "exit $status: $output"
fi
plugstack "config=$config"

# --- dry run writes nothing --------------------------------------------------
plugstack "config=$config" dryrun
rm -f "$tables"/desmos2[0-3].rt
job=$(sbatch --parsable --wait -N4 -w 'desmos[20-23]' -o /dev/null --wrap true)
# sbatch --wait returns while the epilogue may still hold the job in COMPLETING.
wait_job_done "$job" >/dev/null
check "dry run: job $job ran" [ "$(job_field "$job" JobState)" = COMPLETED ]
check "dry run: no table written by prologue or epilogue" [ -z "$(ls "$tables" | grep '^desmos2[0-3]\.rt$')" ]
check "dry run: the prologue logged what it computed" \
  grep -q "spank-angara: job $job: bfs on 4 nodes.*dry run, nothing written" "$state/log/slurmd-desmos20.log"
plugstack "config=$config"
# plugstack.conf changed after slurmd started: check says slurmd may need a restart.
sleep 2
touch "$state/etc/plugstack.conf"
"$tool" check --config "$config" >"$work/check-late.txt" 2>&1
if grep -q "^warning slurmd: [0-9]* of [0-9]* slurmd process(es) on this host (pid [0-9]*.*) started before $state/etc/plugstack.conf last changed: slurmd loads plugins only when it starts" "$work/check-late.txt"; then
  ok "check: slurmd started before plugstack.conf changed"
else
  not_ok "check: slurmd started before plugstack.conf changed" "$(cat "$work/check-late.txt")"
fi

# --- a failing prologue keeps the job from running ---------------------------
plugstack "config=$state/no-such-dir/angara.yaml"
job=$(sbatch --parsable -N2 -w 'desmos[24-25]' -o /dev/null --wrap "touch $work/ran-$$")
wait_job_state "$job" PENDING 30
deadline=$((SECONDS + 30))
until [ "$(job_field "$job" Reason)" = launch_failed_requeued_held ] || [ $SECONDS -ge $deadline ]; do sleep 0.5; done
check "on_failure=drain: batch job $job requeued and held" [ "$(job_field "$job" Reason)" = launch_failed_requeued_held ]
check "on_failure=drain: the job's script never ran" [ ! -e "$work/ran-$$" ]
check "on_failure=drain: desmos24 drained by Slurm" \
  sh -c "sinfo -h -N -n desmos24 -o '%T' | grep -q drain"
if grep -q "spank-angara: job $job on desmos24: routing table not installed: .*no-such-dir/angara.yaml" \
  "$state/log/slurmd-desmos24.log"; then
  ok "on_failure=drain: the reason is in the slurmd log"
else
  not_ok "on_failure=drain: the reason is in the slurmd log" "$(grep spank-angara "$state/log/slurmd-desmos24.log" | tail -3)"
fi
reason=$(sinfo -h -N -n desmos24 -o '%E')
if echo "$reason" | grep -q "^angara: .*no-such-dir/angara.yaml"; then
  ok "on_failure=drain: the drain reason names the cause"
else
  not_ok "on_failure=drain: the drain reason names the cause" "reason: $reason"
fi
if admin_comment "$job" | grep -q "^angara: routing table not installed on desmos2[45]: .*no-such-dir/angara.yaml"; then
  ok "on_failure=drain: the job's AdminComment names the cause"
else
  not_ok "on_failure=drain: the job's AdminComment names the cause" "$(scontrol show job "$job" | grep -i comment)"
fi
output=$(timeout 60 srun -N2 -w 'desmos[26-27]' touch "$work/ran-srun-$$" 2>&1)
status=$?
check "on_failure=drain: srun fails and its task never runs" [ $status -ne 0 -a ! -e "$work/ran-srun-$$" ]
scancel "$job"
scontrol update nodename='desmos[24-27]' state=resume

plugstack "config=$state/no-such-dir/angara.yaml" on_failure=cancel
job=$(sbatch --parsable -N2 -w 'desmos[28-29]' -o /dev/null --wrap "touch $work/ran-cancel-$$")
wait_job_state "$job" CANCELLED 30
check "on_failure=cancel: job $job cancelled" [ "$(job_field "$job" JobState)" = CANCELLED ]
check "on_failure=cancel: the job's script never ran" [ ! -e "$work/ran-cancel-$$" ]
# The prologue logs the cancel after Slurm made it, and the node is idle
# once the cancelled job has completed there: both come after CANCELLED.
check_within 15 "on_failure=cancel: desmos28 stays in service" \
  sh -c "sinfo -h -N -n desmos28 -o '%T' | grep -qx idle"
check_within 15 "on_failure=cancel: logged" sh -c \
  "cat '$state'/log/slurmd-desmos2[89].log | grep -q 'spank-angara: job $job cancelled (on_failure=cancel)'"
if admin_comment "$job" | grep -q "^angara: routing table not installed on desmos2[89]: .*no-such-dir/angara.yaml"; then
  ok "on_failure=cancel: the cancelled job's AdminComment names the cause"
else
  not_ok "on_failure=cancel: the cancelled job's AdminComment names the cause" "$(scontrol show job "$job" | grep -i comment)"
fi
plugstack "config=$config"

# --- a refusal around failures: one line to act on, the detail at info -------
# desmos02 loses its five neighbours: its pairs with desmos00 and desmos04
# have no route.  The error line and the AdminComment carry the summary
# (node names, routers by hostlist, the node to leave out); every pair
# follows at info level, each once.
cut_config=$state/cut.yaml
write_config "$cut_config" "desmos01, desmos03, desmos06, desmos10, desmos18"
plugstack "config=$cut_config" on_failure=cancel
job=$(sbatch --parsable -N3 -w 'desmos[00,02,04]' -o /dev/null --wrap "touch $work/ran-cut-$$")
wait_job_state "$job" CANCELLED 30
check "refusal: job $job cancelled, its script never ran" [ "$(job_field "$job" JobState)" = CANCELLED -a ! -e "$work/ran-cut-$$" ]
summary="refused: 4 pairs of 3 nodes have no route around routers desmos[01,03,06,10,18] (failed); all involve desmos02: leave it out of the job or repair any one of them; first: desmos00 -> desmos02"
# Each prologue that ran (the first to fail cancels the job) logs the summary
# once and each of the four pairs once (after cancelling: waited for).
deadline=$((SECONDS + 15))
until cat "$state"/log/slurmd-desmos0[024].log | grep -q "spank-angara: job $job:   desmos04 -> desmos02: " ||
  [ $SECONDS -ge $deadline ]; do sleep 0.5; done
cat "$state"/log/slurmd-desmos0[024].log | grep "spank-angara: job $job[: ]" >"$work/cut.log"
lines=$(grep -cF "routing table not installed: $summary" "$work/cut.log")
if [ "$lines" -ge 1 ]; then
  ok "refusal: the summary is the slurmd log's error line"
else
  not_ok "refusal: the summary is the slurmd log's error line" "$(cat "$work/cut.log")"
fi
if [ "$(grep -c "spank-angara: job $job:   desmos02 -> desmos04: cut off by router desmos01 (failed), " "$work/cut.log")" = "$lines" ] &&
  [ "$(grep -c "spank-angara: job $job:   desmos.* -> desmos.*: cut off by" "$work/cut.log")" = $((4 * lines)) ]; then
  ok "refusal: every pair once at info level"
else
  not_ok "refusal: every pair once at info level" "$(cat "$work/cut.log")"
fi
if admin_comment "$job" | grep -qF "routing table not installed on desmos0" &&
  admin_comment "$job" | grep -qF ": $summary"; then
  ok "refusal: the job's AdminComment carries the summary"
else
  not_ok "refusal: the job's AdminComment carries the summary" "$(scontrol show job "$job" | grep -i comment)"
fi
plugstack "config=$config"

# --- a bad configuration stops slurmd from starting -------------------------
pid=$(cat "$state/pids/slurmd-desmos31")
kill -TERM "$pid"
deadline=$((SECONDS + 30))
while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
plugstack "config=$state/no-such-dir/angara.yaml"
timeout 60 slurmd -D -N desmos31 -f "$SLURM_CONF" </dev/null >"$work/slurmd-bad.out" 2>&1 9>&-
status=$?
if [ $status != 0 ] && [ $status != 124 ] &&
  grep -q "spank-angara: error   config: .*no-such-dir/angara.yaml" "$state/log/slurmd-desmos31.log" &&
  grep -q "spank-angara $version: refusing to load" "$state/log/slurmd-desmos31.log"; then
  ok "a bad configuration stops slurmd from starting, the cause in its log"
else
  not_ok "a bad configuration stops slurmd from starting" "exit $status" "$(tail -5 "$state/log/slurmd-desmos31.log")"
fi
plugstack "config=$config"
setsid slurmd -D -N desmos31 -f "$SLURM_CONF" </dev/null >>"$state/log/slurmd-desmos31.out" 2>&1 9>&- &
echo $! >"$state/pids/slurmd-desmos31"

# --- a node of the job goes DOWN: only a --no-kill job survives it ----------
# Slurm kills (requeues) a job whose node goes DOWN; one submitted with
# --no-kill keeps running on its other nodes, and the rebuild routes it
# around the lost router (spank-angara(8), NODE FAILURES AND REBUILD).
# Last: after it, this cluster (Slurm 22.05, no accounting) was seen to
# schedule the next jobs only every few minutes.
out=$work/nokill
mkdir -p "$out"
kept=$(sbatch --parsable --no-kill -N3 -w 'desmos[04-06]' -o /dev/null --wrap 'sleep 300')
killed=$(sbatch --parsable -N2 -w 'desmos[08-09]' -o /dev/null --wrap 'sleep 300')
wait_job_state "$kept" RUNNING 60
wait_job_state "$killed" RUNNING 60
# RUNNING comes before the prologues end: the job's own tables first, or a
# prologue that ends after the node went DOWN routes around it itself.
kept_tables_in_place() {
  local node
  for node in desmos04 desmos05 desmos06; do
    [ "$(table_field "$tables/$node.rt" job)" = "$kept" ] || return 1
  done
}
check_within 60 "premise: job $kept's tables in place on desmos[04-06]" kept_tables_in_place
old_print=$(table_field "$tables/desmos04.rt" fingerprint)
scontrol update nodename='desmos[05,09]' state=down reason=angara-test
wait_job_state "$killed" "PENDING|REQUEUED|NODE_FAIL|FAILED|CANCELLED" 60
check "a job without --no-kill does not survive its node going DOWN ($(job_field "$killed" JobState))" \
  [ "$(job_field "$killed" JobState)" != RUNNING ]
sleep 2
check "a --no-kill job keeps running when its node goes DOWN" [ "$(job_field "$kept" JobState)" = RUNNING ]
# Its AdminComment is updated when Slurm lets it: 22.05 without accounting
# storage (this cluster) refuses every update of a job that shrank, so the
# rebuild exits 6 and show --job names both fingerprints instead of "OK".
"$tool" rebuild --log "$rebuild_log" --job "$kept" --config "$config" >"$out/rebuild.txt" 2>&1
status=$?
new_print=$(table_field "$tables/desmos04.rt" fingerprint)
check "rebuild --job $kept rewrote the --no-kill job's tables around its DOWN node ($old_print -> $new_print)" \
  [ -n "$new_print" -a "$new_print" != "$old_print" -a "$(table_field "$tables/desmos06.rt" fingerprint)" = "$new_print" ]
"$tool" show --job "$kept" --config "$config" >"$out/show.txt" 2>&1
show_status=$?
if [ $status = 0 ] && admin_comment "$kept" | grep -qF "fingerprint $new_print, tables $tables, verified; rebuilt around failed routers" &&
  [ $show_status = 0 ] && grep -q "^  verdict      OK" "$out/show.txt" && ! grep -q "$old_print" "$out/show.txt"; then
  ok "show --job $kept: the AdminComment names the rebuilt tables, OK"
elif [ $status = 6 ] && grep -q "its AdminComment still names the old ones: .*the DB index is being set" "$out/rebuild.txt" &&
  [ $show_status = 1 ] && grep -q "^  verdict      the installed tables are not those the job's AdminComment names" "$out/show.txt" &&
  grep -q "AdminComment names fingerprint $old_print, the installed tables have $new_print" "$out/show.txt"; then
  ok "show --job $kept: Slurm refused the AdminComment update (exit 6), show --job names both fingerprints"
else
  not_ok "show --job $kept after the rebuild" "rebuild exit $status: $(cat "$out/rebuild.txt")" \
    "show exit $show_status: $(cat "$out/show.txt")"
fi
scancel "$kept" "$killed"
wait_job_done "$kept" 30 >/dev/null
# (ReturnToService=2 may have brought a node back already.)
for node in desmos05 desmos09; do scontrol update nodename=$node state=resume 2>/dev/null; done
"$tool" rebuild --log "$rebuild_log" --all-running --idle --config "$config" >/dev/null 2>&1

echo "$passed passed, $failed failed"
if [ $failed -ne 0 ]; then
  echo "---- spank-angara lines of the slurmd logs:"
  grep -h spank-angara "$state"/log/slurmd-*.log | tail -n 30
fi
list_failed_checks
[ $failed -eq 0 ]
