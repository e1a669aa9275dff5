#!/usr/bin/env bash
# The configuration-space sweep's quick subset (bench/angara-sweep --quick,
# doc/benchmarks.md "Configuration-space sweep"): every generator and the
# default chain x rules x flow control x virtual channels 1-8 on the small
# machines, each case a verified table or a documented refusal.  First the
# sweep itself must report what it is there to find (a crash, a hang, an
# exception of another type, a refusal of two lines, a peak over the memory
# estimate), injected into its children.  tools/setup.sh runs this under ASan
# and UBSan too.
set -u
. "$(dirname "$0")/tap_lib.sh"
sweep="$TOP_BUILDDIR/bench/angara-sweep"
one='^3x3/whole/r0c0/bfs/angara-bubble-vc1$'
jobs=$(nproc 2>/dev/null || echo 2)
[ "$jobs" -gt 4 ] && jobs=4

if [ ! -x "$sweep" ]; then
  not_ok "no $sweep (bench/ is built before tests/)"
  tap_summary
  exit
fi

expect "one case passes" 0 "$sweep" --only "$one"
contains "and is counted" "$work/out" "angara-sweep: 1 cases, 1 verified, 0 refused, 0 findings"
expect "a crash is a finding" 1 "$sweep" --only "$one" --inject segv
if grep -qE "^FINDING (crash|sanitizer) 3x3/whole/r0c0/bfs/angara-bubble-vc1: " "$work/out"; then
  ok "the crash is named with its case"
else
  not_ok "the crash is named with its case"
  sed 's/^/    /' "$work/out" | head
fi
expect "a hang is a finding" 1 "$sweep" --only "$one" --inject hang --time-limit 2
contains "the hang is named" "$work/out" "FINDING timeout 3x3/whole/r0c0/bfs/angara-bubble-vc1: no result within the limit of 2 s"
expect "an exception of another type is a finding" 1 "$sweep" --only "$one" --inject exception
contains "with its type" "$work/out" "FINDING exception 3x3/whole/r0c0/bfs/angara-bubble-vc1: std::logic_error: injected"
expect "a refusal of two lines is a finding" 1 "$sweep" --only "$one" --inject multiline
contains "named as such" "$work/out" "FINDING message 3x3/whole/r0c0/bfs/angara-bubble-vc1: refusal of several lines"
if "$sweep" --only "$one" | grep -q "sanitizer build"; then
  ok "# SKIP a sanitizer build does not compare peak memory"
else
  expect "a peak over the estimate is a finding" 1 "$sweep" --only "$one" --inject memory
  contains "with both figures" "$work/out" "FINDING memory 3x3/whole/r0c0/bfs/angara-bubble-vc1: peak "
fi
expect "a bad option is a usage error" 2 "$sweep" --jobs 0

# The quick subset, refusals held to the sweep's default of 400 bytes of
# one line (a chain's refusal is one summary line).
expect "the quick sweep: no crash, hang, sanitizer report or undocumented refusal" 0 \
  "$sweep" --quick --jobs "$jobs"
grep -E "^FINDING" "$work/out" | head -20 | sed 's/^/    /'
tail -n 4 "$work/out" | sed 's/^/    /'
cases=$(sed -n 's/^angara-sweep: \([0-9]*\) cases, .*/\1/p' "$work/out")
if [ "${cases:-0}" -ge 5000 ]; then ok "it ran $cases cases"; else not_ok "it ran ${cases:-no} cases (at least 5000 expected)"; fi
tap_summary
