#!/bin/bash
# Torus-aware placement on a real Slurm cluster (32 slurmd -N on this host,
# cluster.sh): `angara-route slurm-conf` (node order and topology/tree) and
# conf/job_submit.lua (which calls `angara-route select`, and falls back to
# Slurm's placement when that cannot answer in time).
#
# The machine is named K-fastest (angara.yaml order: kzyx), so Slurm's
# name order desmos00..07 is the slab X=0 (1x2x2x2, routed at max gamma 7
# on the single-cabled Desmos) and not a 4x2 block (routed at 4).  With the
# generated slurm.conf order and topology.conf, four 8-node jobs submitted
# together must land on the four 4x2 blocks of the (Z, K) pairs.
#
# Needs root; skips (exit 77) otherwise.  ANGARA_CLUSTER_TEST=skip skips.
set -u

if [ "${ANGARA_CLUSTER_TEST:-}" = skip ]; then
  echo "SKIP: ANGARA_CLUSTER_TEST=skip"
  exit 77
fi
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: the test cluster needs root (slurmd runs as root)"
  exit 77
fi

here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=$(cd "$here/../.." && pwd)
top_builddir=${TOP_BUILDDIR:-$(pwd)/..}
tool=$top_builddir/plugin/angara-route
if [ ! -x "$tool" ]; then
  echo "ERROR: build first: $tool is missing" >&2
  exit 99
fi
if [ ! -f /usr/lib/x86_64-linux-gnu/slurm-wlm/job_submit_lua.so ] && ! ls /usr/lib/*/slurm*/job_submit_lua.so >/dev/null 2>&1; then
  echo "SKIP: Slurm's job_submit_lua.so is not installed"
  exit 77
fi

lock=${ANGARA_CLUSTER_LOCK:-${TMPDIR:-/tmp}/angara-cluster.lock}
exec 9>"$lock"
if ! flock -w 1800 9; then
  echo "ERROR: another cluster test holds $lock for 30 minutes" >&2
  exit 99
fi

state=$(mktemp -d "${TMPDIR:-/tmp}/angara-place.XXXXXX") || exit 99
config=$state/angara.yaml
export SLURM_CONF=$state/etc/slurm.conf
export ANGARA_CONFIG=$config

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
    -e 's|^local CONFIG = .*|local CONFIG = "$config"|' "$top_srcdir/conf/job_submit.lua" >"\$etc/job_submit.lua"
{
  echo "TopologyPlugin=topology/tree"
  echo "JobSubmitPlugins=lua"
  echo "PartitionName=angara Nodes=desmos[00-31] MaxTime=INFINITE State=UP OverSubscribe=EXCLUSIVE"
} >>"\$etc/slurm.conf"
EOF
chmod +x "$hook"
ANGARA_CLUSTER_HOOK=$hook "$here/cluster.sh" start "$state" || exit 99

job_field() { scontrol show job -o "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"; }
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
# Slurm 22.05 runs job_submit with slurmctld's job lock held, so `select
# --slurm` (which asks slurmctld for the nodes and running jobs) cannot get an
# answer from inside the script: it times out, the job falls back to Slurm's
# own placement, and the slurmctld log says why.  This checks that fallback
# (the job is not lost or held) and that other partitions are left alone.
job=$(sbatch --parsable -N4 -p angara -o /dev/null --wrap 'sleep 60')
if wait_running "$job" &&
  grep -q "angara select: job wrap of uid 0, 4 nodes: selection failed (timed out after 3 s); Slurm places it" \
    "$state/log/slurmctld.log"; then
  ok "job_submit.lua: selection inside job_submit times out, logged; the job runs where Slurm puts it"
else
  not_ok "job_submit.lua: a timed-out selection is logged and left to Slurm" "job: $(job_field "$job" JobState)" \
    "$(grep 'angara select' "$state/log/slurmctld.log")"
fi
job2=$(sbatch --parsable -N4 -p desmos -o /dev/null --wrap 'sleep 60')
wait_running "$job2"
if [ "$(grep -c 'angara select:' "$state/log/slurmctld.log")" = 1 ]; then
  ok "job_submit.lua: a desmos-partition job is Slurm's to place"
else
  not_ok "job_submit.lua: a desmos-partition job is Slurm's to place" "$(grep 'angara select' "$state/log/slurmctld.log")"
fi

echo "placement cluster test: $passed passed, $failed failed"
[ $failed = 0 ]
