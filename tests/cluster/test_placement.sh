#!/bin/bash
# Torus-aware placement on a real Slurm cluster (32 slurmd -N on this host,
# cluster.sh): `angara-route slurm-conf` (node order and topology/tree) and
# conf/job_submit.lua (which calls `angara-route select` with the jobs of
# slurm.jobs and the node-states file, and falls back to Slurm's placement,
# logged, when that file is too old or selection fails).
#
# The machine is named K-fastest (angara.yaml order: kzyx), so Slurm's
# name order desmos00..07 is the slab X=0 (1x2x2x2, routed at max gamma 7
# on the single-cabled Desmos) and not a 4x2 block (routed at 4).  With the
# generated slurm.conf order and topology.conf, four 8-node jobs submitted
# together must land on the four 4x2 blocks of the (Z, K) pairs.
#
# Needs root; skips (exit 77) otherwise.  ANGARA_CLUSTER_TEST=skip skips.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
if [ ! -f /usr/lib/x86_64-linux-gnu/slurm-wlm/job_submit_lua.so ] && ! ls /usr/lib/*/slurm*/job_submit_lua.so >/dev/null 2>&1; then
  echo "SKIP: Slurm's job_submit_lua.so is not installed"
  exit 77
fi

take_cluster_lock

state=$(mktemp -d "${TMPDIR:-/tmp}/angara-place.XXXXXX") || exit 99
config=$state/angara.yaml
export SLURM_CONF=$state/etc/slurm.conf
export ANGARA_CONFIG=$config

cleanup() { "$here/cluster.sh" stop "$state" >/dev/null; }
trap cleanup EXIT

cat >"$config" <<EOF
machine:
  torus: 4x2x2x2
  nodes: desmos[00-31]
  order: kzyx
  single_cable: [Y, Z, K]
EOF

# The hook cluster.sh runs before the daemons start: the generated node
# order and topology.conf, the lua script pointing at this build, and a
# partition "angara" whose jobs ask for selection.
hook=$state/hook.sh
cat >"$hook" <<EOF
#!/bin/bash
set -e
etc=\$1
"$tool" slurm-conf --config "$config" --from "\$etc/slurm.conf" --topology "\$etc/topology.conf" >"\$etc/slurm.conf.new"
mv "\$etc/slurm.conf.new" "\$etc/slurm.conf"
sed -e 's|^local ANGARA_ROUTE = .*|local ANGARA_ROUTE = "$tool"|' \
    -e 's|^local CONFIG = .*|local CONFIG = "$config"|' \
    -e 's|^local NODE_STATES = .*|local NODE_STATES = "$state/node-states"|' "$top_srcdir/conf/job_submit.lua" >"\$etc/job_submit.lua"
{
  echo "TopologyPlugin=topology/tree"
  echo "JobSubmitPlugins=lua"
  echo "PartitionName=angara Nodes=desmos[00-31] MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE"
} >>"\$etc/slurm.conf"
EOF
chmod +x "$hook"
ANGARA_CLUSTER_HOOK=$hook "$here/cluster.sh" start "$state" || exit 99

wait_running() {
  local job=$1 deadline=$((SECONDS + 60))
  while [ $SECONDS -lt $deadline ]; do
    [ "$(job_field "$job" JobState)" = RUNNING ] && return 0
    sleep 0.5
  done
  return 1
}

# --- the generated files -----------------------------------------------------
if head -40 "$state/etc/slurm.conf" | grep -q '^# angara-route slurm-conf' &&
  [ "$(grep -m8 '^NodeName=desmos' "$state/etc/slurm.conf" | sed 's/ .*//' | tr '\n' ' ')" = \
    "NodeName=desmos00 NodeName=desmos08 NodeName=desmos16 NodeName=desmos24 NodeName=desmos04 NodeName=desmos12 NodeName=desmos20 NodeName=desmos28 " ]; then
  ok "slurm.conf: the first 8 NodeName lines are the 4x2 block at Z=K=0 (X ring first)"
else
  not_ok "slurm.conf: the first 8 NodeName lines" "$(grep -m8 '^NodeName=' "$state/etc/slurm.conf")"
fi
if grep -q '^SwitchName=angara00 Nodes=desmos\[00,04,08,12,16,20,24,28\] ' "$state/etc/topology.conf"; then
  ok "topology.conf: a leaf switch per 4x2 block"
else
  not_ok "topology.conf: a leaf switch per 4x2 block" "$(cat "$state/etc/topology.conf")"
fi

# --- four 8-node jobs submitted together land on the four 4x2 blocks ---------
jobs=()
for i in 1 2 3 4; do
  jobs+=("$(sbatch --parsable -N8 -p desmos -o /dev/null --wrap 'sleep 120')")
done
expected=" desmos[00,04,08,12,16,20,24,28] desmos[01,05,09,13,17,21,25,29] desmos[02,06,10,14,18,22,26,30] desmos[03,07,11,15,19,23,27,31] "
all_blocks=1
got=""
for job in "${jobs[@]}"; do
  wait_running "$job" || all_blocks=0
  nodes=$(job_field "$job" NodeList)
  got="$got $nodes"
  case "$expected" in *" $nodes "*) ;; *) all_blocks=0 ;; esac
done
if [ $all_blocks = 1 ] && [ "$(echo $got | tr ' ' '\n' | sort -u | wc -l)" = 4 ]; then
  ok "four 8-node jobs on the four 4x2 blocks:$got"
else
  not_ok "four 8-node jobs on the four 4x2 blocks" "got:$got"
fi
scancel "${jobs[@]}"
deadline=$((SECONDS + 30))
while [ -n "$(squeue -h -o %i)" ] && [ $SECONDS -lt $deadline ]; do sleep 0.5; done

# --- job_submit.lua --------------------------------------------------------
# slurmctld runs job_submit with its job lock held, so the script asks it
# nothing: the jobs come from slurm.jobs, the node states from the file
# `angara-route node-states` writes (here once; cron and strigger at a site).
log=$state/log/slurmctld.log
if "$tool" node-states --output "$state/node-states" && grep -q '^time=' "$state/node-states"; then
  ok "node-states: written from slurmctld ($(tr '\n' ' ' <"$state/node-states"))"
else
  not_ok "node-states: written from slurmctld" "$(cat "$state/node-states" 2>&1)"
fi
select_for() {  # COUNT BUSY-HOSTLIST...: what select prints for that state
  local count=$1 args=()
  shift
  for nodes in "$@"; do args+=(--busy "$nodes"); done
  "$tool" select --count "$count" --node-states "$state/node-states" --foreign-ok "${args[@]}"
}
# A job of the desmos partition (Slurm's placement) holds 8 nodes; a job
# asking for selection gets exactly the set select prints for that state.
hold=$(sbatch --parsable -N8 -p desmos -o /dev/null --wrap 'sleep 300')
wait_running "$hold"
held=$(job_field "$hold" NodeList)
expected=$(select_for 4 "$held")
job=$(sbatch --parsable -N4 -p angara -o /dev/null --wrap 'sleep 300')
wait_running "$job"
got=$(job_field "$job" NodeList)
if [ -n "$expected" ] && [ "$got" = "$expected" ] &&
  grep -qF "angara select: job wrap of uid 0, 4 nodes: $expected (" "$log"; then
  ok "job_submit.lua: the job got the set select prints beside $held: $got"
else
  not_ok "job_submit.lua: the job gets the set select prints" "expected $expected, got $got" \
    "$(grep 'angara select' "$log")"
fi
# Two jobs submitted together: the second sees the first (the script
# remembers the set it handed out, or slurm.jobs has it running) and gets
# the next set.
second=$(select_for 4 "$held" "$got")
third=$(select_for 4 "$held" "$got" "$second")
job2=$(sbatch --parsable -N4 -p angara -o /dev/null --wrap 'sleep 300')
job3=$(sbatch --parsable -N4 -p angara -o /dev/null --wrap 'sleep 300')
wait_running "$job2"
wait_running "$job3"
got2=$(job_field "$job2" NodeList)
got3=$(job_field "$job3" NodeList)
if [ "$got2" = "$second" ] && [ "$got3" = "$third" ] && [ "$second" != "$third" ]; then
  ok "job_submit.lua: two jobs submitted together got $got2 and $got3, as select prints"
else
  not_ok "job_submit.lua: two jobs submitted together" "expected $second and $third, got $got2 and $got3" \
    "$(grep 'angara select' "$log")"
fi
# Node states older than the script's limit (300 s): Slurm places the job,
# and the log says why.
sed -i "s/^time=.*/time=$(($(date +%s) - 1000))/" "$state/node-states"
job4=$(sbatch --parsable -N2 -p angara -o /dev/null --wrap 'sleep 60')
if wait_running "$job4" &&
  grep -qF "angara select: job wrap of uid 0, 2 nodes: selection failed (exit status 6: angara-route: the node states in $state/node-states are 10" "$log" &&
  grep -qF "s old (limit 300 s); refresh them with angara-route node-states); Slurm places it" "$log"; then
  ok "job_submit.lua: stale node states are refused, logged; the job runs where Slurm puts it"
else
  not_ok "job_submit.lua: stale node states are refused and logged" "job: $(job_field "$job4" JobState)" \
    "$(grep 'angara select' "$log")"
fi
before=$(grep -c 'angara select:' "$log")
job5=$(sbatch --parsable -N2 -p desmos -o /dev/null --wrap 'sleep 60')
wait_running "$job5"
if [ "$(grep -c 'angara select:' "$log")" = "$before" ]; then
  ok "job_submit.lua: a desmos-partition job is Slurm's to place"
else
  not_ok "job_submit.lua: a desmos-partition job is Slurm's to place" "$(grep 'angara select' "$log")"
fi
scancel "$hold" "$job" "$job2" "$job3" "$job4" "$job5"

echo "placement cluster test: $passed passed, $failed failed"
list_failed_checks
[ $failed = 0 ]
