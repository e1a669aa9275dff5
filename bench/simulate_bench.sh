#!/bin/bash
# Simulated throughput of every generator (angara-route simulate): the
# all-to-all time and the effective bisection bandwidth (eBB, the mean flow
# bandwidth over random bisections, as the DFSSSP paper measures routings)
# on whole machines, a random half and a compact block (the first half in
# node order) of each, beside plain DOR (what OpenSM's DOR engine installs).
# Prints markdown.  Cells a generator refuses (its limits, memory) say so.
#
# Usage: bench/simulate_bench.sh [--quick] [--build DIR] [--samples N]
#   --quick      Desmos and 8x8 only, 20 bisections (a minute)
#   --build DIR  the built tree (default: the current directory)
set -euo pipefail

build=$PWD
quick=0
samples=100
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1; samples=20 ;;
    --build) build=$(cd "$2" && pwd); shift ;;
    --samples) samples=$2; shift ;;
    *) sed -n '9,11p' "$0" >&2; exit 2 ;;
  esac
  shift
done
tool=$build/cli/angara-route
[ -x "$tool" ] || { echo "simulate_bench: no $tool (build first)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

machines="desmos 4x4x4 8x8 8x8x8 4x4x4x4"
[ "$quick" = 1 ] && machines="desmos 8x8"
algorithms="bfs sssp genetic balanced nue dfsssp lash"

# config MACHINE: the configuration file of a machine (desmos: built-in).
config() {
  case $1 in
    desmos) echo "" ;;
    *)
      local nodes
      nodes=$(python3 -c "import math; print(math.prod(int(x) for x in '$1'.split('x')))")
      printf 'machine:\n  torus: %s\n  nodes: n[0000-%04d]\n' "$1" $((nodes - 1)) >"$work/$1.yaml"
      echo "$work/$1.yaml" ;;
  esac
}

# allocation MACHINE KIND: a hostlist ("" = the whole machine).
allocation() {
  python3 - "$1" "$2" <<'EOF'
import math, random, sys
machine, kind = sys.argv[1], sys.argv[2]
if machine == 'desmos':
    names, count = [f'desmos{i:02d}' for i in range(32)], 32
else:
    count = math.prod(int(x) for x in machine.split('x'))
    names = [f'n{i:04d}' for i in range(count)]
if kind == 'whole':
    print('')
elif kind == 'half':
    print(','.join(names[i] for i in sorted(random.Random(7).sample(range(count), count // 2))))
else:  # block: the first half in node order, a block halved in the last dimension
    print(','.join(names[: count // 2]))
EOF
}

echo "| machine | nodes | routing | all-to-all | vs DOR | eBB GB/s | vs DOR | max load |"
echo "|---|---|---|---|---|---|---|---|"
for machine in $machines; do
  cfg=$(config "$machine")
  for kind in whole half block; do
    hosts=$(allocation "$machine" "$kind")
    dor_time= dor_ebb=
    for algorithm in $algorithms; do
      nodes_count=$(python3 -c "import math; n = 32 if '$machine' == 'desmos' else math.prod(int(x) for x in '$machine'.split('x')); print(n if '$kind' == 'whole' else n // 2)")
      [ "$algorithm" = genetic ] && [ "$nodes_count" -gt 64 ] && continue  # genetic: small allocations only
      args=(simulate --json --samples "$samples" --algorithm "$algorithm")
      [ -n "$cfg" ] && args+=(--config "$cfg")
      [ -n "$hosts" ] && args+=(--nodes "$hosts")
      [ -n "$dor_time" ] && args+=(--no-baseline)
      if ! "$tool" "${args[@]}" >"$work/out.json" 2>"$work/err"; then
        echo "| $machine | $nodes_count ($kind) | $algorithm | refused: $(tail -1 "$work/err" | cut -c1-80) | | | | |"
        continue
      fi
      row=$(python3 - "$work/out.json" "$machine" "$kind" "$algorithm" "$dor_time" "$dor_ebb" 2>"$work/dor" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
machine, kind, algorithm, dor_time, dor_ebb = sys.argv[2:7]
res = {p['pattern']: p for p in r['results']}
a2a = res.get('alltoall') or res.get('alltoall-pairwise')
form = 'alltoall' if 'alltoall' in res else 'pairwise'
ebb = r.get('effective_bisection_bandwidth', 0)
lines = []
if r['baseline']:
    base = {p['pattern']: p for p in r['baseline']}
    b = base.get('alltoall') or base.get('alltoall-pairwise')
    dor_time, dor_ebb = b['seconds'], base['bisection']['mean_flow_bandwidth']
    lines.append(f"| {machine} | {r['nodes']} ({kind}) | plain DOR | {b['seconds']*1e3:.3f} ms ({form}) | 1.00 | {dor_ebb/1e9:.2f} | 1.00 | {b['max_load']} |")
    print(f"DOR {dor_time} {dor_ebb}", file=sys.stderr)
dor_time, dor_ebb = float(dor_time), float(dor_ebb)
valid = all(p['validated'] for p in r['results'])
lines.append(f"| {machine} | {r['nodes']} ({kind}) | {algorithm} | {a2a['seconds']*1e3:.3f} ms{'' if valid else ' (!)'} | {dor_time/a2a['seconds']:.2f} | {ebb/1e9:.2f} | {ebb/dor_ebb:.2f} | {a2a['max_load']} |")
print('\n'.join(lines))
EOF
      )
      echo "$row"
      if [ -z "$dor_time" ] && grep -q '^DOR ' "$work/dor"; then
        read -r _ dor_time dor_ebb <"$work/dor"
      fi
    done
  done
done
echo
echo "All-to-all: every flow at once up to 256 nodes, the pairwise rounds above (pairwise); messages of 1 MiB, links"
echo "75 Gbit/s. vs DOR: plain DOR's time over the routing's, and the routing's eBB over DOR's (above 1: better)."
echo "(!) marks a result whose phases missed their fluid bound by more than 5%; eBB over $samples random bisections."
