#!/usr/bin/env bash
# simulate --platform: an unmodified MPI program, built with smpicc, runs
# under SMPI (smpirun) over the routes of a Desmos job, and SimGrid really
# uses them: tests/smpi/alltoall.c completes on the platforms of a 16-node
# job and of the whole machine under bfs and balanced, with every block
# delivered, in the time angara-route's own flow simulator gives for the
# same table; tests/smpi/pingpong.c between neighbours takes node_latency +
# bytes / bandwidth, and between the two nodes whose routes are longest
# (tests/tools/platform_route.py reads them from the platform) a hop latency
# more for each further router, within 2%.  Without smpicc the test is
# skipped, except under CI=true, where it fails (tools/setup.sh installs
# libsimgrid-dev, which has it).
set -u
expect_timeout=300
. "$(dirname "$0")/tap_lib.sh"
tools="$TEST_DATA_DIR/../tools"
sources="$TEST_DATA_DIR/../smpi"
route() { python3 "$tools/platform_route.py" "$@"; }

if ! command -v smpicc >/dev/null || ! command -v smpirun >/dev/null; then
  if [ "${CI:-}" = true ]; then
    not_ok "smpicc/smpirun are not installed (libsimgrid-dev, tools/setup.sh); CI must run the MPI programs"
  else
    echo "ok - # SKIP smpicc is not installed (libsimgrid-dev): the SMPI export is not run"
  fi
  tap_summary
  exit
fi

# SMPI as angara-route's flow simulator runs SimGrid: CM02 (max-min sharing,
# no TCP factors, no window bound) and no reverse cross traffic, so that a
# message of S bytes takes the sum of its route's latencies + S / the
# narrowest link.  simulate-computation:no leaves out the host's own CPU time
# between MPI calls (the times are the same from run to run); host-speed
# only silences the warning about it.  Its temporary copies of the program
# go to $work (smpirun's -tmpdir option is broken in 3.32; TMPDIR works).
smpi_options=(--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:0
  --cfg=smpi/simulate-computation:no --cfg=smpi/host-speed:1Gf --log=xbt_cfg.thres:warning)

# within NAME GOT WANT PERCENT: |GOT - WANT| <= PERCENT % of WANT
within() {
  if python3 -c 'import sys; got, want, pct = map(float, sys.argv[1:]); sys.exit(abs(got - want) > pct / 100 * abs(want))' \
    "$2" "$3" "$4"; then
    ok "$1 ($2 s, expected $3 s)"
  else
    not_ok "$1: $2 s, expected $3 s within $4%"
  fi
}
# json_field FILE EXPRESSION: a value of simulate --json's object
json_field() { python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

expect "smpicc builds alltoall.c" 0 smpicc -O2 -o "$work/alltoall" "$sources/alltoall.c"
expect "smpicc builds pingpong.c" 0 smpicc -O2 -o "$work/pingpong" "$sources/pingpong.c"

# The platforms: a 16-node job and the whole machine (32), bfs and balanced.
# simulate also runs alltoall itself on the same table, with 256 KiB blocks.
block=262144
for job in 16 32; do
  for algorithm in bfs balanced; do
    name="$job-$algorithm"
    nodes=()
    [ "$job" = 16 ] && nodes=(--nodes 'desmos[00-15]')
    expect "$name: simulate --platform" 0 "$tool" simulate "${nodes[@]}" --algorithm "$algorithm" \
      --platform "$work/$name.xml" --hostfile "$work/$name.hosts" --pattern alltoall --size "$block" --no-baseline --json
    cp "$work/out" "$work/$name.json"
    [ "$(route "$work/$name.xml" hosts)" = "$job" ] && ok "$name: $job hosts in the platform" ||
      not_ok "$name: $(route "$work/$name.xml" hosts) hosts in the platform, not $job"
    [ "$(wc -l <"$work/$name.hosts")" = "$job" ] && ok "$name: $job lines in the hostfile" ||
      not_ok "$name: the hostfile has $(wc -l <"$work/$name.hosts") lines"
    if command -v xmllint >/dev/null; then
      expect "$name: xmllint reads the platform" 0 xmllint --noout "$work/$name.xml"
    fi

    expect "$name: smpirun alltoall on $job ranks" 0 env TMPDIR="$work" smpirun -platform "$work/$name.xml" -hostfile "$work/$name.hosts" \
      -np "$job" "${smpi_options[@]}" "$work/alltoall"
    cp "$work/out" "$work/$name.alltoall"
    [ "$(grep -c '^alltoall [0-9]* [0-9.]*$' "$work/$name.alltoall")" = 3 ] &&
      ok "$name: three sizes timed, every block from its sender" ||
      { not_ok "$name: alltoall printed"; sed 's/^/    /' "$work/$name.alltoall" "$work/err" | head; }
    [ -s "$work/err" ] && not_ok "$name: smpirun wrote to stderr: $(head -c 300 "$work/err")" ||
      ok "$name: smpirun is quiet"
    # SMPI's MPI_Alltoall of large blocks posts every message at once, as
    # simulate's alltoall pattern does: the same flows on the same routes.
    # Within 5%, not exactly: SMPI's CM02 weights a flow's share of a link by
    # its route's latency, which simulate leaves out (doc/simulation.md).
    got=$(awk -v b="$block" '$2 == b { print $3 }' "$work/$name.alltoall")
    want=$(json_field "$work/$name.json" 'r["results"][0]["seconds"]')
    within "$name: MPI_Alltoall of $block bytes as simulate's alltoall" "${got:-0}" "$want" 5
    eval "alltoall_${job}_$algorithm=\${got:-0}"
  done
done
# The routes make the difference: on the whole machine balanced spreads the
# all-to-all over more channels than bfs (its max load is lower).
python3 -c 'import sys; sys.exit(not float(sys.argv[1]) < 0.9 * float(sys.argv[2]))' \
  "$alltoall_32_balanced" "$alltoall_32_bfs" &&
  ok "32: balanced's all-to-all ($alltoall_32_balanced s) is faster than bfs's ($alltoall_32_bfs s)" ||
  not_ok "32: balanced's all-to-all takes $alltoall_32_balanced s, bfs's $alltoall_32_bfs s"

# Ping-pong on the 16-node bfs job: desmos00 and a neighbour, then the pair
# whose routes (there and back) cross the most channels.
platform="$work/16-bfs.xml"
node_latency=$(json_field "$work/16-bfs.json" 'r["node_latency"]')
hop_latency=$(json_field "$work/16-bfs.json" 'r["hop_latency"]')
bandwidth=$(json_field "$work/16-bfs.json" 'r["link_bandwidth"]')
neighbour=$(route "$platform" neighbour desmos00)
read -r far_a far_b <<<"$(route "$platform" longest)"
printf 'desmos00\n%s\n' "$neighbour" >"$work/near.hosts"
printf '%s\n%s\n' "$far_a" "$far_b" >"$work/far.hosts"
sizes=(8 1048576)
for pair in near far; do
  expect "ping-pong $pair ($(paste -sd' ' "$work/$pair.hosts"))" 0 env TMPDIR="$work" smpirun -platform "$platform" \
    -hostfile "$work/$pair.hosts" -np 2 "${smpi_options[@]}" "$work/pingpong" "${sizes[@]}"
  cp "$work/out" "$work/$pair.pingpong"
done
for size in "${sizes[@]}"; do
  # The platform says what the model says: between neighbours, node_latency
  # + S / bandwidth.
  read -r there back near_want <<<"$(route "$platform" time desmos00 "$neighbour" "$size")"
  model=$(python3 -c 'import sys; l, s, b = map(float, sys.argv[1:]); print(l + s / b)' "$node_latency" "$size" "$bandwidth")
  within "the platform's time of $size bytes between neighbours is node_latency + S / bandwidth" "$near_want" "$model" 0.1
  near=$(awk -v s="$size" '$2 == s { print $3 }' "$work/near.pingpong")
  within "$size bytes between neighbours desmos00 and $neighbour" "${near:-0}" "$near_want" 2
  read -r there back far_want <<<"$(route "$platform" time "$far_a" "$far_b" "$size")"
  far=$(awk -v s="$size" '$2 == s { print $3 }' "$work/far.pingpong")
  within "$size bytes between $far_a and $far_b ($there channels there, $back back)" "${far:-0}" "$far_want" 2
  # Each further router on the route adds hop_latency (one way: the mean of
  # the two directions' channels, less the first).
  extra=$(python3 -c 'import sys; t, b, h = map(float, sys.argv[1:]); print(((t + b) / 2 - 1) * h)' \
    "$there" "$back" "$hop_latency")
  if [ "$there" -lt 3 ] || [ "$back" -lt 3 ]; then
    not_ok "the longest routes have $there and $back channels: too short to tell"
  else
    within "$size bytes: the long route takes its further hops' latency longer" \
      "$(python3 -c 'import sys; print(float(sys.argv[1]) - float(sys.argv[2]))' "${far:-0}" "${near:-0}")" "$extra" 2
  fi
done

# Bad input: one line, the documented exit status, nothing written.
expect "--platform into a missing directory" 5 "$tool" simulate --nodes 'desmos[00-03]' --platform "$work/no/such/p.xml" \
  --hostfile "$work/bad.hosts" --pattern alltoall
contains "... says why" "$work/err" "angara-route: cannot write $work/no/such/p.xml: "
lines=$(grep -vc '^angara-route: note: ' "$work/err")  # the note of the built-in machine aside
[ "$lines" -eq 1 ] && ok "... in one line" || not_ok "error of $lines lines"
[ -s "$work/out" ] && not_ok "... yet it printed a report" || ok "... and no report"
[ -e "$work/bad.hosts" ] && not_ok "... yet the hostfile was written" || ok "... and no hostfile"
mkdir "$work/dir.xml"
expect "--platform naming a directory" 5 "$tool" simulate --nodes 'desmos[00-03]' --platform "$work/dir.xml" \
  --pattern alltoall
expect "--hostfile without --platform" 2 "$tool" simulate --nodes 'desmos[00-03]' --hostfile "$work/h" --pattern alltoall
contains "... says what goes with it" "$work/err" "angara-route: simulate: --hostfile goes with --platform"
lines=$(grep -vc "^Try 'angara-route simulate --help'" "$work/err")
[ "$lines" -eq 1 ] && ok "... in one line (and the hint to --help)" || not_ok "error of $lines lines"
[ -e "$work/h" ] && not_ok "... yet the hostfile was written" || ok "... and nothing written"
[ -z "$(ls -A "$work" | grep '^\.')" ] && ok "no temporary file left behind" || not_ok "stray files: $(ls -A "$work" | grep '^\.')"
tap_summary
