#!/bin/bash
# The comparison of issue 27, in the flow simulator: the seed algorithms of the
# papers (hiry, lash, mroots, mp-lash, a-lash, dfsssp, nue) and balanced, the
# default, on the whole 8x8, 4x4x4 and 8x8x8 tori, fault-free and with one and
# with three failed routers, under uniform (alltoall), random permutation,
# tornado and hot-spot traffic; rules angara, bubble flow control and a budget
# of 8 virtual channels (mroots, which leaves pairs without an encodable
# UpDown route, and hiry, whose shortest permitted paths are often not
# encodable, also under rules general).  Prints one markdown row per
# machine and generator: the virtual channels its installed table uses (and
# its multi-path function's), and the aggregate throughput of each pattern
# (bytes of all flows over the simulated time); for a generator with a
# multi-path function (hiry, mp-lash, a-lash) a second row, "split", gives the
# flow-level estimate of the even split over the function (doc/simulation.md).
# A generator this build does not have, or that refuses, gets its message.
#
# Usage: bench/compare_layered.sh [ANGARA_ROUTE]   (default build/cli/angara-route)
#   COMPARE_MACHINES="8x8 8x8-1router ..."   a subset of the machines
#   COMPARE_SAMPLES=N                         permutations and hot-spot phases (default 20)
#   COMPARE_GENERATORS="hiry lash ..."        a subset of the generators
set -u
tool=${1:-build/cli/angara-route}
[ -x "$tool" ] || { echo "compare_layered: no angara-route at $tool (build first)" >&2; exit 2; }
samples=${COMPARE_SAMPLES:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# config NAME DIMS NODES [FAILED-NODES]
config() {
  {
    printf 'machine:\n  torus: %s\n  nodes: %s\n' "$2" "$3"
    [ -n "${4:-}" ] && printf 'failures:\n  nodes: [%s]\n' "$4"
    printf 'routing:\n  virtual_channels: 8\n'
  } >"$work/$1.yaml"
}
config 8x8 8x8 'n[00-63]'
config 8x8-1router 8x8 'n[00-63]' "n09"
config 8x8-3routers 8x8 'n[00-63]' "n09, n36, n54"
config 4x4x4 4x4x4 'n[00-63]'
config 4x4x4-1router 4x4x4 'n[00-63]' "n21"
config 4x4x4-3routers 4x4x4 'n[00-63]' "n21, n42, n07"
config 8x8x8 8x8x8 'n[000-511]'
config 8x8x8-1router 8x8x8 'n[000-511]' "n073"
config 8x8x8-3routers 8x8x8 'n[000-511]' "n073, n300, n455"
machines=${COMPARE_MACHINES:-8x8 8x8-1router 8x8-3routers 4x4x4 4x4x4-1router 4x4x4-3routers 8x8x8 8x8x8-1router 8x8x8-3routers}
patterns=alltoall,permutation,tornado,hotspot

# gbs FILE PYTHON-EXPRESSION: a throughput in GB/s from simulate's JSON.
gbs() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('%.1f' % ($2 / 1e9))" "$1" 2>/dev/null || echo "-"; }
# row FILE KEY: the four patterns' throughputs of results (KEY=results) or of the split.
row() {
  local out=$1 key=$2 cells="" i
  for i in 0 1 2 3; do
    if [ "$key" = results ]; then cells="$cells | $(gbs "$out" "r['results'][$i]['throughput']")"
    else cells="$cells | $(gbs "$out" "r['multipath']['split'][$i]['throughput']")"; fi
  done
  echo "$cells"
}

echo "| machine | generator | VCs | alltoall GB/s | permutation GB/s | tornado GB/s | hotspot GB/s |"
echo "|---|---|---|---|---|---|---|"
for machine in $machines; do
  for generator in ${COMPARE_GENERATORS:-hiry lash mroots mp-lash a-lash dfsssp nue balanced}; do
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
    "$tool" simulate --config "$work/$machine.yaml" --dump "$dump" --pattern "$patterns" --samples "$samples" \
      --no-baseline --json >"$out" 2>"$work/err"
    function_vcs=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['multipath']['virtual_channels'])" \
      "$out" 2>/dev/null)
    if [ -n "$function_vcs" ]; then
      echo "| $machine | $name | $vcs$(row "$out" results) |"
      echo "| $machine | $name (split) | $function_vcs$(row "$out" split) |"
    else
      echo "| $machine | $name | $vcs$(row "$out" results) |"
    fi
  done
done
