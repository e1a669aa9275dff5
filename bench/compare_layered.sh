#!/bin/bash
# The comparison of issue 27 for the layered family, in the flow simulator:
# lash, mroots, mp-lash, a-lash and hiry (each also as the even split over
# its multi-path function), dfsssp, nue and balanced, on the whole 8x8 and 4x4x4
# with 0 and 2 failed routers, under uniform (alltoall) and random
# permutation traffic, rules angara, bubble flow control and a budget of 8
# virtual channels (mroots, which leaves pairs without an encodable UpDown
# route, and hiry, whose shortest permitted paths are often not encodable,
# also under rules general).  Prints one markdown row per machine and generator: the
# virtual channels the installed table uses (and the multi-path function),
# and the aggregate throughput of each pattern (simulated; the split is the
# flow-level estimate of doc/simulation.md), or the generator's refusal.
#
# Usage: bench/compare_layered.sh [ANGARA_ROUTE]   (default build/cli/angara-route)
set -u
tool=${1:-build/cli/angara-route}
[ -x "$tool" ] || { echo "compare_layered: no angara-route at $tool (build first)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# config NAME DIMS [FAILED-NODES]
config() {
  {
    printf 'machine:\n  torus: %s\n  nodes: n[00-63]\n' "$2"
    [ -n "${3:-}" ] && printf 'failures:\n  nodes: [%s]\n' "$3"
    printf 'routing:\n  virtual_channels: 8\n'
  } >"$work/$1.yaml"
}
config 8x8 8x8
config 8x8-2routers 8x8 "n09, n36"
config 4x4x4 4x4x4
config 4x4x4-2routers 4x4x4 "n21, n42"

# gbs FILE PYTHON-EXPRESSION: a throughput in GB/s from simulate's JSON.
gbs() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('%.1f' % ($2 / 1e9))" "$1" 2>/dev/null || echo "-"; }

echo "| machine | generator | VCs | alltoall GB/s | permutation GB/s | split alltoall GB/s | split permutation GB/s |"
echo "|---|---|---|---|---|---|---|"
for machine in 8x8 8x8-2routers 4x4x4 4x4x4-2routers; do
  for generator in lash mroots mp-lash a-lash hiry dfsssp nue balanced; do
    dump="$work/$machine-$generator.dump"
    name=$generator
    if ! "$tool" generate --config "$work/$machine.yaml" --algorithm "$generator" --dry-run \
        --dump-routes "$dump" >/dev/null 2>"$work/err"; then
      echo "| $machine | $generator | $(head -1 "$work/err" | sed 's/^angara-route: //; s/|/\\|/g') | | | | |"
      # mroots and hiry route every connected allocation under rules general only.
      [ "$generator" = mroots ] || [ "$generator" = hiry ] || continue
      name="$generator (rules general)"
      "$tool" generate --config "$work/$machine.yaml" --algorithm "$generator" --rules general --dry-run \
        --dump-routes "$dump" >/dev/null 2>"$work/err" || continue
    fi
    vcs=$(head -1 "$dump" | sed -n 's/.*virtual_channels=\([0-9]*\).*/\1/p')
    out="$work/out.json"
    "$tool" simulate --config "$work/$machine.yaml" --dump "$dump" --pattern alltoall,permutation --samples 20 \
      --no-baseline --json >"$out" 2>"$work/err"
    all=$(gbs "$out" "r['results'][0]['throughput']")
    perm=$(gbs "$out" "r['results'][1]['throughput']")
    split_all=$(gbs "$out" "r['multipath']['split'][0]['throughput']")
    split_perm=$(gbs "$out" "r['multipath']['split'][1]['throughput']")
    function_vcs=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['multipath']['virtual_channels'])" \
      "$out" 2>/dev/null)
    [ -n "$function_vcs" ] && vcs="$vcs (function $function_vcs)"
    echo "| $machine | $name | $vcs | $all | $perm | $split_all | $split_perm |"
  done
done
