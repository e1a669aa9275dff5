#!/usr/bin/env bash
# The trace replay of angara-placement-bench (doc/benchmarks.md, "Trace
# replay") on the shipped synthetic trace tests/data/lublin_4x4x4.swf (100
# Lublin-Feitelson jobs written by the bench's --write-trace for a 4x4x4 with
# 2 failed routers, offered load 0.9): every job started or counted, a
# utilisation in (0, 1], select/angara isolating at least as many jobs as
# linear best fit, simulated bandwidths; and bad input: a bad SWF line named
# by file and line (exit 3), a missing file (exit 5), a bad option (exit 2).
set -u
expect_timeout=300
. "$(dirname "$0")/tap_lib.sh"
bench="$TOP_BUILDDIR/bench/angara-placement-bench"
trace="$data/lublin_4x4x4.swf"

if [ ! -x "$bench" ]; then
  not_ok "no $bench (bench/ is built before tests/)"
  tap_summary
  exit
fi

# field POLICY COLUMN: a column of a policy's row (1 policy, 2 jobs, 3 started,
# 4 skipped, 5 unroutable, 6 util, 9 isol%, 17 bw_GB/s, 18 simulated).
field() { awk -v p="$1" -v c="$2" '$1 == p { print $c }' "$work/replay.out"; }

expect "the shipped trace replays" 0 "$bench" --trace "$trace" --machines 4x4x4 --failed 2 --seed 2 --simulate 2 \
  --per-job "$work/replay.jobs"
cp "$work/out" "$work/replay.out"
contains "the command line comes first" <(head -1 "$work/replay.out") \
  "angara-placement-bench --trace $trace --machines 4x4x4 --failed 2 --seed 2 --simulate 2"
contains "the trace is read whole" "$work/replay.out" "100 jobs (0 lines without run time or size skipped)"
for policy in angara linear tree; do
  jobs=$(field $policy 2) started=$(field $policy 3) skipped=$(field $policy 4) unroutable=$(field $policy 5)
  if [ "$jobs" = 100 ] && [ $((started + skipped + unroutable)) -eq "$jobs" ] && [ "$started" -gt 0 ]; then
    ok "$policy: every job started or counted ($started + $skipped + $unroutable of $jobs)"
  else
    not_ok "$policy: every job started or counted (jobs '$jobs', started '$started', skipped '$skipped', unroutable '$unroutable')"
  fi
  util=$(field $policy 6)
  if awk -v u="$util" 'BEGIN { exit !(u > 0 && u <= 1) }'; then ok "$policy: utilisation $util in (0, 1]"
  else not_ok "$policy: utilisation '$util' in (0, 1]"; fi
  bandwidth=$(field $policy 17) simulated=$(field $policy 18)
  if [ "$simulated" = 2 ] && awk -v b="$bandwidth" 'BEGIN { exit !(b > 0 && b < 10) }'; then
    ok "$policy: 2 jobs simulated, mean flow bandwidth $bandwidth GB/s (one link: 9.4)"
  else
    not_ok "$policy: 2 jobs simulated (got '$simulated', bandwidth '$bandwidth')"
  fi
  # The per-job lines: the first job starts on the empty machine (62 live
  # routers, one free component, column 10), and the two simulated jobs'
  # bandwidths (column 11) average to the row's.
  first=$(awk -v p="$policy" '$2 == p { print $10; exit }' "$work/replay.jobs")
  mean=$(awk -v p="$policy" '$2 == p && $11 != "-" { s += $11; n++ } END { if (n == 2) printf "%.3f", s / n }' "$work/replay.jobs")
  if [ "$first" = 62 ] && awk -v m="$mean" -v b="$bandwidth" 'BEGIN { exit !(m != "" && m - b < 0.0015 && b - m < 0.0015) }'; then
    ok "$policy: per-job lines: 62 free connected at the first start, simulated $mean GB/s on average"
  else
    not_ok "$policy: per-job lines: first free component '$first' (wanted 62), simulated mean '$mean' against '$bandwidth'"
  fi
done
angara=$(field angara 9) linear=$(field linear 9)
if awk -v a="$angara" -v l="$linear" 'BEGIN { exit !(a >= l && a > 0) }'; then
  ok "select/angara isolates at least as many jobs as linear best fit ($angara% >= $linear%)"
else
  not_ok "select/angara isolates at least as many jobs as linear best fit ('$angara'% vs '$linear'%)"
fi
# The angara placements add up: blocks + boxes + open blocks + fallbacks = started.
placed=$(awk '$1 == "angara" { print $13 + $14 + $15 + $16 }' "$work/replay.out")
if [ "$placed" = "$(field angara 3)" ]; then ok "angara: every started job is a block, a box, an open block or a fallback"
else not_ok "angara: blocks + boxes + open + fallbacks '$placed' = started '$(field angara 3)'"; fi

# On a 32-node machine (30 live) the jobs of more nodes are skipped, and counted.
expect "a smaller machine" 0 "$bench" --trace "$trace" --machines 4x4x2 --failed 2 --policies linear
cp "$work/out" "$work/replay.out"
skipped=$(field linear 4) started=$(field linear 3) unroutable=$(field linear 5)
big=$(awk '!/^;/ && $5 > 30' "$trace" | wc -l)
if [ "$skipped" = "$big" ] && [ "$big" -gt 0 ] && [ $((started + skipped + unroutable)) -eq 100 ]; then
  ok "jobs larger than the machine are skipped and counted ($skipped)"
else
  not_ok "jobs larger than the machine skipped and counted (skipped '$skipped', $big in the trace, started '$started')"
fi

# The generator: a trace of the asked load, written as SWF and read back.
expect "--write-trace" 0 "$bench" --load 0.8 --jobs 60 --seed 5 --machines 4x4x4 --failed 2 --policies tree \
  --write-trace "$work/written.swf"
contains "the trace offers the asked load" "$work/out" "offered load 0.8"
lines=$(grep -vc '^;' "$work/written.swf")
if [ "$lines" = 60 ] && awk '!/^;/ && NF != 18 { exit 1 }' "$work/written.swf"; then ok "60 SWF job lines of 18 fields"
else not_ok "60 SWF job lines of 18 fields (got $lines)"; fi
expect "the written trace replays" 0 "$bench" --trace "$work/written.swf" --machines 4x4x4 --failed 2 --policies tree
contains "with every job" "$work/out" "60 jobs (0 lines without run time or size skipped)"

# EASY backfill on 62 live nodes: job 2 (40 nodes) waits for job 1 (40 nodes,
# 100 s) and gets a reservation at 100; job 3 (10 nodes, 50 s) ends before it
# and job 4 (12 nodes, 500 s) fits the 22 nodes job 2 leaves spare then, so
# both start at once; job 5 (20 nodes) would delay job 2 and waits.
{ echo "1 0 -1 100 40 -1 -1 40 -1 -1 1 -1 -1 -1 -1 -1 -1 -1"
  echo "2 1 -1 100 40 -1 -1 40 -1 -1 1 -1 -1 -1 -1 -1 -1 -1"
  echo "3 2 -1 50 10 -1 -1 10 -1 -1 1 -1 -1 -1 -1 -1 -1 -1"
  echo "4 3 -1 500 12 -1 -1 12 -1 -1 1 -1 -1 -1 -1 -1 -1 -1"
  echo "5 4 -1 10 20 -1 -1 20 -1 -1 1 -1 -1 -1 -1 -1 -1 -1"; } >"$work/easy.swf"
expect "an EASY-backfill trace" 0 "$bench" --trace "$work/easy.swf" --machines 4x4x4 --failed 2 --policies linear \
  --per-job "$work/easy.jobs"
waits=$(awk '!/^#/ { printf "%s:%s ", $3, $6 }' "$work/easy.jobs")
if [ "$waits" = "1:0 3:0 4:0 2:99 5:196 " ]; then ok "EASY: jobs 3 and 4 backfill, job 2 starts at its reservation ($waits)"
else not_ok "EASY: job:wait pairs '$waits', wanted '1:0 3:0 4:0 2:99 5:196 '"; fi

# A job in a box holds the box's other routers (--hold-box-spares): its
# routes may cross them, so isol% (column 9) counts it and own% (column 22,
# routes on its own routers alone) does not; without the hold the two are
# the same, and the hold isolates more jobs on the shipped trace.
expect "angara without a hold" 0 "$bench" --trace "$trace" --machines 4x4x4 --failed 2 --seed 2 --policies angara
plain_isol=$(awk '$1 == "angara" { print $9 }' "$work/out") plain_own=$(awk '$1 == "angara" { print $22 }' "$work/out")
expect "angara holding box routers" 0 "$bench" --trace "$trace" --machines 4x4x4 --failed 2 --seed 2 \
  --policies angara --hold-box-spares
held_isol=$(awk '$1 == "angara" { print $9 }' "$work/out") held_own=$(awk '$1 == "angara" { print $22 }' "$work/out")
if awk -v pi="$plain_isol" -v po="$plain_own" -v hi="$held_isol" -v ho="$held_own" \
  'BEGIN { exit !(pi == po && hi > pi && hi >= ho && ho > 0) }'; then
  ok "held box routers: isol% $held_isol > $plain_isol without the hold (own% $held_own, $plain_own)"
else
  not_ok "held box routers: isol% '$held_isol' own% '$held_own', without '$plain_isol' / '$plain_own'"
fi

# routing.confine (--confine): every job of the shipped trace gets a block of
# any shape, a box's staircase or a free staircase, and is routed on its own
# routers (or runs on every live one); none falls back, nothing is held.
expect "angara with confined routes" 0 "$bench" --trace "$trace" --machines 4x4x4 --failed 2 --seed 2 \
  --policies angara --confine
confined_isol=$(awk '$1 == "angara" { print $9 }' "$work/out") confined_own=$(awk '$1 == "angara" { print $22 }' "$work/out")
stairs=$(awk '$1 == "confine:" { print $2 }' "$work/out") own_routed=$(awk '$1 == "confine:" { print $8 }' "$work/out")
kinds=$(awk -v s="$stairs" '$1 == "angara" { print $13 + $14 + $15 + $16 + s }' "$work/out")
if awk -v ci="$confined_isol" -v co="$confined_own" -v pi="$plain_isol" -v f="$(awk '$1 == "angara" { print $16 }' "$work/out")" \
  'BEGIN { exit !(ci == co && ci > pi && f == 0) }' && [ "$kinds" = 100 ] && [ "${own_routed:-0}" -gt 0 ]; then
  ok "confined: isol% $confined_isol (own% the same) > $plain_isol, $stairs free staircases, $own_routed routed on their own routers"
else
  not_ok "confined: isol% '$confined_isol' own% '$confined_own' against '$plain_isol', kinds '$kinds', staircases '$stairs'"
fi

# A job without a free block waits for one (--block-wait): some jobs wait,
# and the mean wait (column 7) does not fall.
expect "angara waiting up to an hour for blocks" 0 "$bench" --trace "$trace" --machines 4x4x4 --failed 2 --seed 2 \
  --policies angara --hold-box-spares --block-wait 3600
waited=$(awk '$1 == "bwait" { print $2 }' "$work/out") wait_with=$(awk '$1 == "angara" { print $7 }' "$work/out")
expect "angara not waiting" 0 "$bench" --trace "$trace" --machines 4x4x4 --failed 2 --seed 2 --policies angara \
  --hold-box-spares
wait_without=$(awk '$1 == "angara" { print $7 }' "$work/out")
if awk -v n="$waited" -v a="$wait_with" -v b="$wait_without" 'BEGIN { exit !(n > 0 && a >= b) }'; then
  ok "block wait: $waited jobs waited for a block, mean wait $wait_with s against $wait_without"
else
  not_ok "block wait: bwait '$waited', mean wait '$wait_with' against '$wait_without'"
fi
# A job that no block holds even on the idle machine (60 of the 62 live
# nodes: the one 4x4x4 box has the failed routers) does not wait.
echo "1 0 -1 100 60 -1 -1 60 -1 -1 1 -1 -1 -1 -1 -1 -1 -1" >"$work/big.swf"
expect "a 60-node job with --block-wait" 0 "$bench" --trace "$work/big.swf" --machines 4x4x4 --failed 2 --seed 2 \
  --policies angara --block-wait 3600
waited=$(awk '$1 == "bwait" { print $2 }' "$work/out") wait_big=$(awk '$1 == "angara" { print $7 }' "$work/out")
if [ "$waited" = 0 ] && [ "$wait_big" = 0 ]; then
  ok "block wait: a job no block holds on the idle machine starts at once"
else
  not_ok "block wait: a job no block holds waits (bwait '$waited', mean wait '$wait_big')" "$(cat "$work/out")"
fi
expect "a bad --block-wait" 2 "$bench" --trace "$trace" --block-wait soon
contains "says what it expects" "$work/err" "--block-wait expects seconds from 0 to 1e7, got 'soon'"

# Bad input.
{ echo "; Version: 2"; echo "1 0 -1 100 4 -1 -1 4 -1 -1 1 -1 -1 -1 -1 -1 -1 -1"; echo "2 10 -1 100 4 -1 -1 4 -1 -1 1 -1 -1 -1 -1 -1 -1"; } \
  >"$work/short.swf"
expect "a line of 17 fields is refused" 3 "$bench" --trace "$work/short.swf" --machines 4x4x4
contains "naming the file and line" "$work/err" "$work/short.swf:3: expected 18 whitespace-separated fields"
{ echo "1 0 -1 1h 4 -1 -1 4 -1 -1 1 -1 -1 -1 -1 -1 -1 -1"; } >"$work/word.swf"
expect "a field that is not a number is refused" 3 "$bench" --trace "$work/word.swf" --machines 4x4x4
contains "naming the field" "$work/err" "$work/word.swf:1: field 4 (run time): expected a number (-1: unknown), got '1h'"
{ echo "1 0 -1 -1 4 -1 -1 4 -1 -1 0 -1 -1 -1 -1 -1 -1 -1"; echo "2 5 -1 50 -1 -1 -1 2 -1 -1 1 -1 -1 -1 -1 -1 -1 -1"; } \
  >"$work/unknown.swf"
expect "unknown fields (-1) are allowed" 0 "$bench" --trace "$work/unknown.swf" --machines 4x4x4 --policies linear
contains "a job without a run time is counted" "$work/out" "1 jobs (1 lines without run time or size skipped)"
expect "a missing trace" 5 "$bench" --trace "$work/none.swf" --machines 4x4x4
contains "is named" "$work/err" "$work/none.swf: cannot open the trace"
expect "an unknown policy" 2 "$bench" --trace "$trace" --policies angara,best
contains "is a usage error" "$work/err" "--policies expects policies among angara, linear, tree, select, got 'angara,best'"
expect "--trace and --load together" 2 "$bench" --trace "$trace" --load 0.8

tap_summary
