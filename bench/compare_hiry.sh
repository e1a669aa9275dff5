#!/bin/bash
# hiry's adaptive function against lash at equal virtual channels (issue
# 27), in the flow simulator: the whole 8x8 and the 8x8 with 1, 2 and 3
# failed routers (n09; n09, n36; n09, n36, n50), a budget of 1, 2 and 4
# virtual channels, rules general (hiry routes under the Angara rules only
# where the shortest permitted paths are encodable), bubble flow control,
# uniform traffic (alltoall, 1 MiB messages).  Per machine and budget: the
# aggregate throughput of lash's table (simulated), of the same table as a
# flow-level estimate (mp-lash with paths_per_pair: 1, whose function is
# lash's table alone: the estimate of doc/simulation.md on one path a pair),
# of hiry's installed table (simulated) and of hiry's function split evenly
# over every pair's allowed paths (the same estimate), or the refusal.
#
# Usage: bench/compare_hiry.sh [ANGARA_ROUTE]   (default build/cli/angara-route)
set -u
tool=${1:-build/cli/angara-route}
[ -x "$tool" ] || { echo "compare_hiry: no angara-route at $tool (build first)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# config FILE FAILED-NODES VCS [OPTIONS-LINES]
config() {
  {
    printf 'machine:\n  torus: 8x8\n  nodes: n[00-63]\n'
    [ -n "$2" ] && printf 'failures:\n  nodes: [%s]\n' "$2"
    printf 'routing:\n  virtual_channels: %s\n  rules: general\n' "$3"
    [ -n "${4:-}" ] && printf '  options:\n%s\n' "$4"
  } >"$1"
}

# gbs FILE PYTHON-EXPRESSION: a throughput in GB/s from simulate's JSON.
gbs() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('%.1f' % ($2 / 1e9))" "$1" 2>/dev/null || echo "-"; }

# simulate CONFIG ALGORITHM: simulate's JSON in $work/out.json, or the refusal in $work/err.
simulate() {
  "$tool" simulate --config "$1" --algorithm "$2" --pattern alltoall --no-baseline --json >"$work/out.json" 2>"$work/err"
}
# refusal: the message of a refused run (simulate --json puts it on stdout).
refusal() {
  python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['error']['message'])" "$work/out.json" 2>/dev/null ||
    head -1 "$work/err" | sed 's/^angara-route: //'
}

echo "| machine | VCs | lash simulated GB/s | lash estimate GB/s | hiry table simulated GB/s | hiry split estimate GB/s | split / lash estimate |"
echo "|---|---|---|---|---|---|---|"
for failed in "" "n09" "n09, n36" "n09, n36, n50"; do
  machine="8x8${failed:+ ($failed failed)}"
  for vcs in 1 2 4; do
    config "$work/plain.yaml" "$failed" "$vcs"
    config "$work/one.yaml" "$failed" "$vcs" "    paths_per_pair: 1"
    if simulate "$work/plain.yaml" lash; then lash=$(gbs "$work/out.json" "r['results'][0]['throughput']")
    else lash="refused: $(refusal)"; fi
    if simulate "$work/one.yaml" mp-lash; then estimate=$(gbs "$work/out.json" "r['multipath']['split'][0]['throughput']")
    else estimate="-"; fi
    if simulate "$work/plain.yaml" hiry; then
      table=$(gbs "$work/out.json" "r['results'][0]['throughput']")
      split=$(gbs "$work/out.json" "r['multipath']['split'][0]['throughput']")
    else
      table="refused: $(refusal)"
      split="-"
    fi
    ratio=$(python3 -c "import sys; print('%.2f' % (float(sys.argv[1]) / float(sys.argv[2])))" "$split" "$estimate" 2>/dev/null || echo "-")
    echo "| $machine | $vcs | $lash | $estimate | $table | $split | $ratio |"
  done
done
