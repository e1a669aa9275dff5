#!/usr/bin/env bash
# angara-route simulate end to end: the validation built into the report
# (every phase at its fluid bound), balanced against bfs on random halves of
# 8x8 and 4x4x4 (the all-to-all times in the ratio of their max loads), the
# picture, the SMPI platform, and bad input (one line, the documented exit
# status, nothing written).
set -u
expect_timeout=300
. "$(dirname "$0")/tap_lib.sh"

json_field() {  # json_field FILE PYTHON-EXPRESSION-ON-r
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"
}

# Desmos, the default machine and chain: both patterns validated, DOR beside.
expect "desmos: simulate --json" 0 "$tool" simulate --json --samples 20
cp "$work/out" "$work/desmos.json"
contains "desmos: every phase at its fluid bound" <(json_field "$work/desmos.json" \
  "all(p['validated'] for p in r['results'] + r['baseline'])") "True"
contains "desmos: 32 nodes, alltoall and bisection" <(json_field "$work/desmos.json" \
  "r['nodes'], [p['pattern'] for p in r['results']]") "32 ['alltoall', 'bisection']"
contains "desmos: the eBB is the bisection's mean flow bandwidth" <(json_field "$work/desmos.json" \
  "r['effective_bisection_bandwidth'] == r['results'][1]['mean_flow_bandwidth']") "True"
# The all-to-all takes max load x 1 MiB / 75 Gbit/s (+ latency).
contains "desmos: the all-to-all time is its max load's" <(json_field "$work/desmos.json" \
  "abs(r['results'][0]['seconds'] / (r['results'][0]['max_load'] * 1048576 / 9.375e9) - 1) < 0.01") "True"

# routing.adaptive on: the adaptive channel's estimate beside the table.  On
# the whole 8x8 the plain DOR dump's all-to-all has 80 flows on its busiest
# channel, the even split over minimal hops 64, the physical limit.
printf 'machine:\n  torus: 8x8\n  nodes: n[00-63]\nrouting:\n  adaptive: on\n' > "$work/adaptive88.yaml"
python3 "$TEST_DATA_DIR/../../tools/dor_dump.py" 8x8 > "$work/dor88.dump"
expect "adaptive: simulate --json" 0 "$tool" simulate --config "$work/adaptive88.yaml" --dump "$work/dor88.dump" \
  --pattern alltoall --no-baseline --json
contains "adaptive: the all-to-all's busiest channels" <(json_field "$work/out" \
  "r['results'][0]['max_load'], r['adaptive'][0]['max_load']") "80 64"
expect "adaptive: simulate text" 0 "$tool" simulate --config "$work/adaptive88.yaml" --dump "$work/dor88.dump" \
  --pattern alltoall --no-baseline
contains "adaptive: text report" "$work/out" "adaptive channel (estimate: flows split evenly over minimal hops, the table as escape)"

# A multi-path routing function (mp-lash, a-lash) on 8x8 with two failed
# routers and 4 virtual channels: the table as simulated, and beside it the
# even split over every pair's allowed paths.  The first path of each pair is
# lash's balanced one, so the split loads the busiest channel more (94.5
# flows against 85): the further shortest paths come in direction order.
printf 'machine:\n  torus: 8x8\n  nodes: n[00-63]\nfailures:\n  nodes: [n09, n36]\nrouting:\n  virtual_channels: 4\n' \
  >"$work/mp88.yaml"
for algorithm in mp-lash a-lash; do
  expect "$algorithm: simulate --json" 0 "$tool" simulate --config "$work/mp88.yaml" --algorithm "$algorithm" \
    --pattern alltoall,tornado --no-baseline --json
  contains "$algorithm: the table's and the split's busiest channel" <(json_field "$work/out" \
    "r['results'][0]['max_load'], r['multipath']['split'][0]['max_load'], len(r['multipath']['split'])") "85 94.5 2"
  expect "$algorithm: a dump" 0 "$tool" generate --config "$work/mp88.yaml" --algorithm "$algorithm" --dry-run \
    --dump-routes "$work/$algorithm.dump"
  expect "$algorithm: analyze the dump" 0 "$tool" analyze --config "$work/mp88.yaml" --dump "$work/$algorithm.dump" --json
  contains "$algorithm: analyze verifies the function" <(json_field "$work/out" \
    "r['multipath']['ok'], r['multipath']['alternatives'], r['multipath']['max_split_load'][3]") "True 4 {'name': 'alltoall', 'max_flows_per_channel': 94.5}"
done
contains "a-lash: switch-adaptive" <(json_field "$work/out" "r['multipath']['adaptivity']") "switch-adaptive"
# hiry (rules general: its shortest permitted paths are often not encodable)
# on the same machine: the installed table is balanced over the allowed
# paths, the even split over them is not (95 flows on the busiest channel
# against 139.7), and analyze recomputes and verifies the function.
printf 'machine:\n  torus: 8x8\n  nodes: n[00-63]\nfailures:\n  nodes: [n09, n36]\nrouting:\n  virtual_channels: 4\n  rules: general\n' \
  >"$work/hiry88.yaml"
expect "hiry: simulate --json" 0 "$tool" simulate --config "$work/hiry88.yaml" --algorithm hiry \
  --pattern alltoall,tornado --no-baseline --json
contains "hiry: the table's and the split's busiest channel" <(json_field "$work/out" \
  "r['results'][0]['max_load'], r['multipath']['split'][0]['max_load'], r['multipath']['adaptivity']") \
  "95 139.666667 source-adaptive"
expect "hiry: a dump" 0 "$tool" generate --config "$work/hiry88.yaml" --algorithm hiry --dry-run \
  --dump-routes "$work/hiry.dump"
expect "hiry: analyze the dump" 0 "$tool" analyze --config "$work/hiry88.yaml" --dump "$work/hiry.dump" --json
contains "hiry: analyze verifies the function" <(json_field "$work/out" \
  "r['multipath']['ok'], r['multipath']['alternatives']") "True 4"
# Without the failures the configuration gives another function: a note, the table alone.
printf 'machine:\n  torus: 8x8\n  nodes: n[00-63]\nrouting:\n  virtual_channels: 4\n' >"$work/mp88-whole.yaml"
expect "a-lash dump under another configuration" 0 "$tool" analyze --config "$work/mp88-whole.yaml" \
  --dump "$work/a-lash.dump"
contains "... says the function is not recomputed" "$work/out" "no multi-path function: a-lash: the table is not the first alternative"

# Random halves: balanced's all-to-all is faster than bfs's by the ratio of
# their max loads (the flow model's bottleneck), within 5%.
for machine in 8x8 4x4x4; do
  printf 'machine:\n  torus: %s\n  nodes: n[00-63]\n' "$machine" >"$work/$machine.yaml"
  half=$(python3 -c "import random; r=random.Random(7); print(','.join('n%02d' % i for i in sorted(r.sample(range(64), 32))))")
  for algorithm in bfs balanced; do
    expect "$machine half: simulate $algorithm" 0 "$tool" simulate --config "$work/$machine.yaml" --nodes "$half" \
      --algorithm "$algorithm" --pattern alltoall --no-baseline --json
    cp "$work/out" "$work/$machine-$algorithm.json"
  done
  contains "$machine half: time ratio = max load ratio (within 5%)" <(python3 -c "
import json, sys
b = json.load(open('$work/$machine-bfs.json'))['results'][0]
a = json.load(open('$work/$machine-balanced.json'))['results'][0]
time_ratio = b['seconds'] / a['seconds']
load_ratio = b['max_load'] / a['max_load']
print('faster' if a['seconds'] < b['seconds'] else 'slower', abs(time_ratio / load_ratio - 1) < 0.05)") "faster True"
done

# The picture of the first pattern's utilisation, and the SMPI platform.
expect "picture and platform" 0 "$tool" simulate --pattern tornado --svg "$work/u.svg" \
  --platform "$work/p.xml" --hostfile "$work/hosts"
expect "the picture parses as XML" 0 python3 -c "import xml.etree.ElementTree as e; e.parse('$work/u.svg')"
contains "the picture is a utilisation in %" "$work/u.svg" "utilisation"
expect "the platform parses as XML" 0 python3 -c "import xml.etree.ElementTree as e; e.parse('$work/p.xml')"
contains "the platform has every ordered pair's route" <(grep -c '<route ' "$work/p.xml") "992"
contains "the hostfile lists the 32 nodes in rank order" <(head -1 "$work/hosts"; wc -l <"$work/hosts") "desmos00
32"

# A job mix: two blocks of Desmos share no channel, so a job's all-to-all
# takes as long beside the other as alone; two interleaved halves do share.
seconds() { json_field "$1" "r['results'][0]['seconds']"; }
expect "mix: block A" 0 "$tool" generate --dry-run --nodes 'desmos[00-15]' --dump-routes "$work/a.dump"
expect "mix: block B" 0 "$tool" generate --dry-run --nodes 'desmos[16-31]' --dump-routes "$work/b.dump"
expect "mix: A alone" 0 "$tool" simulate --dump "$work/a.dump" --pattern alltoall --no-baseline --json
cp "$work/out" "$work/a-alone.json"
expect "mix: A beside B" 0 "$tool" simulate --dump "$work/a.dump" --beside "$work/b.dump" --pattern alltoall \
  --no-baseline --json
cp "$work/out" "$work/a-beside.json"
contains "mix: the report counts the other job" <(json_field "$work/a-beside.json" "r['beside'], r['results'][0]['validated']") "1 True"
contains "mix: blocks are isolated (same time and flow bandwidth beside B as alone)" \
  <(python3 -c "print(abs($(seconds "$work/a-beside.json") / $(seconds "$work/a-alone.json") - 1) < 1e-6,
    abs($(json_field "$work/a-beside.json" "r['results'][0]['mean_flow_bandwidth']") / \
        $(json_field "$work/a-alone.json" "r['results'][0]['mean_flow_bandwidth']") - 1) < 1e-6)") "True True"
evens=$(printf 'desmos%02d,' $(seq 0 2 30)); odds=$(printf 'desmos%02d,' $(seq 1 2 31))
expect "mix: even nodes" 0 "$tool" generate --dry-run --nodes "${evens%,}" --dump-routes "$work/e.dump"
expect "mix: odd nodes" 0 "$tool" generate --dry-run --nodes "${odds%,}" --dump-routes "$work/o.dump"
expect "mix: evens alone" 0 "$tool" simulate --dump "$work/e.dump" --pattern alltoall --no-baseline --json
cp "$work/out" "$work/e-alone.json"
expect "mix: evens beside odds" 0 "$tool" simulate --dump "$work/e.dump" --beside "$work/o.dump" \
  --pattern alltoall --no-baseline --json
cp "$work/out" "$work/e-beside.json"
# (Their busiest channels differ, so the time holds; the flows' mean bandwidth drops.)
mean() { json_field "$1" "r['results'][0]['mean_flow_bandwidth']"; }
contains "mix: interleaved jobs slow each other's flows down" \
  <(python3 -c "print($(mean "$work/e-beside.json") < 0.95 * $(mean "$work/e-alone.json"))") "True"
expect "mix: jobs on one node are refused" 3 "$tool" simulate --dump "$work/a.dump" --beside "$work/e.dump"
contains "... naming the node" "$work/err" "the jobs of a mix share node 0,0,0,0"

# Bad input: one line, the documented status, nothing written.
expect "an unknown pattern is a usage error" 2 "$tool" simulate --pattern alltoall,shuffle
contains "... naming it and the known ones" "$work/err" \
  "simulate: unknown pattern 'shuffle' (expected one of alltoall, alltoall-pairwise,"
expect "a bad size is a usage error" 2 "$tool" simulate --size 1X
expect "--hostfile alone is a usage error" 2 "$tool" simulate --hostfile "$work/h2"
expect "an unwritable picture is exit 5" 5 "$tool" simulate --svg /nonexistent/u.svg
contains "... in one line" <(wc -l <"$work/err") "1"
expect "an unwritable platform is exit 5, before anything is computed" 5 "$tool" simulate \
  --platform "$work/p2.xml" --hostfile /nonexistent/hosts
[ ! -e "$work/p2.xml" ] && ok "... and the platform was not written" || not_ok "a platform was written"
# Tables of another machine: the Desmos job's tables read with an 8x8 configuration.
expect "desmos tables" 0 "$tool" generate --output "$work/tables" --nodes 'desmos[00-07]'
expect "tables of another machine are refused" 5 "$tool" simulate --config "$work/8x8.yaml" --tables "$work/tables"
contains "... in one line" <(wc -l <"$work/err") "1"
# A dump with a pair's route left out.
expect "a dump" 0 "$tool" generate --dry-run --nodes 'desmos[00-03]' --dump-routes "$work/d.dump"
awk 'NR != 5' "$work/d.dump" >"$work/short.dump"  # line 5: 1,0,0,0 -> 0,0,0,0
expect "a dump with a missing route is refused (bad input: 3)" 3 "$tool" simulate --dump "$work/short.dump"
contains "... naming the pair" "$work/err" "angara-route: the table has no route 1,0,0,0 -> 0,0,0,0"

tap_summary
