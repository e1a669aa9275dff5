#!/usr/bin/env bash
# The kill test: SIGKILL at random moments of `generate --output`,
# of a rebuild and of the prologue path, then the directory must show the old
# table set or the new one, whole, every time; the next writer must leave no
# temporary behind and change nothing a reader sees.
#
#   ANGARA_KILLS=200 tests/test_kill.sh     (make check runs fewer)
#   ANGARA_KILL_SEED=N                      (the random sequence; printed)
set -u
tool="$TOP_BUILDDIR/cli/angara-route"
driver="$TOP_BUILDDIR/tests/kill_driver"
config="$TEST_DATA_DIR/torus_8x4x4.yaml"  # 128 nodes: a set write takes long enough to be hit anywhere
kills="${ANGARA_KILLS:-25}"
seed="${ANGARA_KILL_SEED:-$$}"
RANDOM=$seed
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The writers.  Each leaves a state independent of the one before it.
commands=(
  "generate bfs job 1, whole machine|$tool generate --config $config --algorithm bfs --job-name 1 --output DIR"
  "generate sssp job 1, 64 nodes|$tool generate --config $config --algorithm sssp --job-name 1 --nodes n[000-063] --output DIR"
  "generate balanced job 2, n005 down|$tool generate --config $config --algorithm balanced --job-name 2 --down n005 --output DIR"
  "rebuild job 1 without n017 (bfs)|$driver rebuild $config DIR 1 n[000-127] n017 bfs --quiesced"
  "rebuild job 1 without n017,n090 (sssp)|$driver rebuild $config DIR 1 n[000-127] n[017,090] sssp --quiesced"
  "prologue job 10 on n042 (bfs)|$driver prologue $config DIR 10 n[000-127] n042 bfs"
  "prologue job 11 on n042 (sssp)|$driver prologue $config DIR 11 n[000-063] n042 sssp"
)
is_prologue() { [[ "${commands[$1]}" == prologue* ]]; }
run_command() {  # run_command INDEX DIR
  set -f  # n[000-127] is a hostlist, not a glob
  local line="${commands[$1]#*|}"
  exec ${line//DIR/$2} >/dev/null 2>&1
}
state() { "$driver" state "$config" "$1" 2>&1; }

# What each writer leaves, from a run nobody kills, and how long it takes.
declare -a expected duration_ms
for i in "${!commands[@]}"; do
  dir="$work/expected-$i"
  start=$(date +%s%N)
  (run_command "$i" "$dir") || { echo "not ok - ${commands[$i]%%|*} runs"; exit 1; }
  duration_ms[$i]=$(( ($(date +%s%N) - start) / 1000000 ))
  expected[$i]="$(state "$dir")"
  if ! is_prologue "$i" && ! grep -qx "verify ok" <<<"${expected[$i]}"; then
    echo "not ok - ${commands[$i]%%|*} leaves a verified set"; echo "${expected[$i]}"; exit 1
  fi
  echo "# ${commands[$i]%%|*}: $(grep -c '\.rt ' <<<"${expected[$i]}") tables, ${duration_ms[$i]} ms"
done

shared="$work/shared"   # generate and rebuild
local="$work/local"     # a node-local prologue directory
(run_command 0 "$shared") && (run_command 5 "$local")
current_shared="$(state "$shared")"
current_local="$(state "$local")"

old=0 new=0 mixed=0 leftover=0 changed_by_tidy=0
for kill in $(seq 1 "$kills"); do
  i=$((RANDOM % ${#commands[@]}))
  if is_prologue "$i"; then dir=$local; before=$current_local; else dir=$shared; before=$current_shared; fi
  # A random moment of the writer's run, stratified over the kills so that
  # about two thirds land within the run and a third after its end (the
  # commit): a short run still hits both sides of a commit, every time.
  slot_start=$(( (kill - 1) * 1500 / kills )) slot_end=$(( kill * 1500 / kills ))
  permille=$(( slot_start + RANDOM % (slot_end - slot_start + 1) ))
  delay_ms=$(( duration_ms[i] * permille / 1000 ))
  (run_command "$i" "$dir") &
  pid=$!
  sleep "$((delay_ms / 1000)).$(printf %03d $((delay_ms % 1000)))"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  after="$(state "$dir")"
  if [ "$after" = "$before" ]; then
    old=$((old + 1))
  elif [ "$after" = "${expected[$i]}" ]; then
    new=$((new + 1))
  else
    mixed=$((mixed + 1))
    echo "# kill $kill (${commands[$i]%%|*} at $delay_ms ms): neither the old set nor the new one:"
    diff <(echo "$before") <(echo "$after") | head -5 | sed 's/^/#   /'
  fi
  # The next writer removes what the killed one left, and nothing a reader sees.
  "$driver" tidy "$dir"
  if [ -n "$("$driver" leftovers "$dir")" ] || [ -n "$(find "$dir" -maxdepth 1 -name '.*.tmp.*')" ]; then
    leftover=$((leftover + 1))
    echo "# kill $kill: leftovers after the next writer: $("$driver" leftovers "$dir" | head -3)"
  fi
  [ "$(state "$dir")" = "$after" ] || changed_by_tidy=$((changed_by_tidy + 1))
  if is_prologue "$i"; then current_local=$after; else current_shared=$after; fi
done

echo "# seed $seed: $kills kills, $old old set, $new new set, $mixed mixed, $leftover with leftovers, $changed_by_tidy changed by tidying"
status=0
[ "$mixed" = 0 ] && echo "ok - $kills kills: the old set or the new one, whole, every time" ||
  { echo "not ok - $mixed of $kills kills left a mixed or broken set"; status=1; }
[ "$leftover" = 0 ] && echo "ok - no temporary left after the next writer" ||
  { echo "not ok - $leftover kills left temporaries the next writer did not remove"; status=1; }
[ "$changed_by_tidy" = 0 ] && echo "ok - removing leftovers never changed what a reader sees" ||
  { echo "not ok - tidying changed the visible tables $changed_by_tidy times"; status=1; }
# A test that cannot fail is a defect: some kills must hit before and some after the commit.
[ "$old" -gt 0 ] && [ "$new" -gt 0 ] && echo "ok - kills landed both before and after commits" ||
  { echo "not ok - the kills never hit one side of a commit ($old old, $new new)"; status=1; }
exit $status
