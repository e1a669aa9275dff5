#!/usr/bin/env bash
# Reliability of the table writers, as a careful operator tries it: table sets switch as one, files of
# the wrong type or size are refused, nothing is written before all input is
# checked, concurrent writers and readers of one directory never see a mix.
set -u
expect_timeout=60
. "$(dirname "$0")/tap_lib.sh"
check() {  # check NAME command...
  local name="$1"
  shift
  if "$@"; then ok "$name"; else not_ok "$name"; fi
}
field() { sed -n "s/^$2 //p" "$1" | head -1; }
# Temporaries and unreferenced generations a writer left (none after a writer finished).
leftovers() {
  local dir="$1"
  {
    find "$dir" -maxdepth 1 -name '.*.tmp.*' -o -maxdepth 1 -name '.*.lnk.*'
    find "$dir" -maxdepth 1 -xtype l -name '*.rt'
    if [ -d "$dir/.angara/gens" ]; then
      for gen in "$dir/.angara/gens"/*; do
        [ -e "$gen" ] || continue
        grep -qxF "../gens/$(basename "$gen")" <(for s in "$dir/.angara/sets"/*; do readlink "$s"; done) || echo "$gen"
      done
    fi
  } | sort -u
}

# --- A table file names its node; verify checks it against the file name ---
expect "write 4 tables" 0 "$tool" generate --nodes 'desmos[00-03]' --output "$work/swap" --job-name 7
cp -L "$work/swap/desmos01.rt" "$work/swapped01" && cp -L "$work/swap/desmos02.rt" "$work/swapped02"
mkdir "$work/copy" && cp "$work/swapped02" "$work/copy/desmos01.rt" && cp "$work/swapped01" "$work/copy/desmos02.rt"
cp -L "$work/swap/desmos00.rt" "$work/swap/desmos03.rt" "$work/copy/"
expect "swapped node files are rejected" 5 "$tool" verify --tables "$work/copy"
contains "the message names the file and its node" "$work/err" \
  "$work/copy/desmos01.rt: holds the table of node desmos02 (2,0,0,0), whose file is desmos02.rt"

# --- Output paths that are not regular files are refused ---
expect "--dump-routes /dev/full is refused" 5 "$tool" generate --dry-run --dump-routes /dev/full
contains "the refusal says why" "$work/err" "/dev/full exists and is not a regular file (it is a character device)"
check "/dev/full is still a character device" [ -c /dev/full ]
mkfifo "$work/fifo"
expect "a FIFO as dump target is refused" 5 "$tool" generate --dry-run --dump-routes "$work/fifo"
check "the FIFO is still a FIFO" [ -p "$work/fifo" ]
expect "a missing dump directory is an error" 5 "$tool" generate --dry-run --dump-routes "$work/no/such/d.dump"
contains "it names the directory" "$work/err" "directory $work/no/such of $work/no/such/d.dump does not exist"
check "nothing was created" [ ! -e "$work/no" ]
expect "--parents creates it" 0 "$tool" generate --dry-run --parents --dump-routes "$work/no/such/d.dump"
expect "a missing parent of --output is an error" 5 "$tool" generate --output "$work/a/b/tables"
contains "it names the parent" "$work/err" "directory $work/a/b does not exist"
check "no directory was created" [ ! -e "$work/a" ]
expect "--parents creates the missing parents" 0 "$tool" generate --output "$work/a/b/tables" --parents
expect "and the tables verify" 0 "$tool" verify --tables "$work/a/b/tables"

# --- Regular files only for configuration and tables; a FIFO must not hang ---
expect "a FIFO as --config fails at once" 3 "$tool" generate --dry-run --config "$work/fifo"
contains "the FIFO config is named" "$work/err" "$work/fifo is not a regular file (it is a FIFO)"
expect "/dev/zero as --config fails at once" 3 "$tool" generate --dry-run --config /dev/zero
contains "/dev/zero is named" "$work/err" "/dev/zero is not a regular file (it is a character device)"
mkdir "$work/fifotables" && cp -L "$work/swap/desmos00.rt" "$work/fifotables/" && mkfifo "$work/fifotables/desmos01.rt"
expect "a FIFO as table file fails at once" 5 "$tool" verify --tables "$work/fifotables"
contains "the FIFO table is named" "$work/err" "desmos01.rt is not a regular file (it is a FIFO)"

# --- Bounded readers ---
{ cat "$data/torus_4x4.yaml"; head -c 4200000 /dev/zero | tr '\0' '#'; echo; } > "$work/huge.yaml"
expect "a config over the size limit is refused" 3 "$tool" generate --dry-run --config "$work/huge.yaml"
contains "the limit is named" "$work/err" "is larger than the limit of 4194304 bytes"
# 100,000 nested flow collections (minutes in libyaml's scanner): refused at once, naming
# the file, the line and column, and the limit.
python3 -c "print('[' * 100000)" > "$work/nested.yaml"
start=$(date +%s%N)
expect "100,000 nested lists are refused" 3 "$tool" generate --dry-run --config "$work/nested.yaml"
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "... within a second ($elapsed_ms ms)" [ "$elapsed_ms" -lt 1000 ]
contains "the nesting limit is named with file and line" "$work/err" \
  "$work/nested.yaml:1:33: lists and mappings nested deeper than 32 levels (the limit; angara.yaml(5) needs 3)"
{ cat "$data/torus_4x4.yaml"; printf 'failures:\n  nodes: %s\n' "$(python3 -c "print('[' * 40 + ']' * 40)")"; } \
  > "$work/nested2.yaml"
expect "nesting inside a section is refused too" 3 "$tool" generate --dry-run --config "$work/nested2.yaml"
contains "... at its line" "$work/err" "nested2.yaml:$(( $(wc -l < "$data/torus_4x4.yaml") + 2 )):"
# The report carries the configuration's fingerprint and the failures it
# lists: a shortened desmos_faulty.yaml (its failed cable lost) shows.
expect "the faulty config's report" 0 "$tool" generate --dry-run --config "$data/desmos_faulty.yaml" --lp-time 0
contains "the report lists the config's failures" "$work/out" \
  "lists 1 failed router (desmos05) and 1 failed cable (desmos00 +X)"
whole=$(sed -n 's/^  config       \([0-9a-f]*\) .*/\1/p' "$work/out")
check "the fingerprint is the FNV-1a hash of the file" [ "$whole" = "$(python3 -c "
import sys
h = 0xcbf29ce484222325
for b in open(sys.argv[1], 'rb').read(): h = ((h ^ b) * 0x100000001b3) % 2**64
print('%016x' % h)" "$data/desmos_faulty.yaml")" ]
grep -v -e '+X' "$data/desmos_faulty.yaml" > "$work/shortened.yaml"
expect "a shortened faulty config still parses" 0 "$tool" generate --dry-run --config "$work/shortened.yaml" \
  --lp-time 0 --json
contains "... and its JSON shows the lost cable" "$work/out" '"config_failures":"1 failed router (desmos05)"'
if [ -n "$whole" ] && ! grep -q "\"config_fingerprint\":\"$whole\"" "$work/out"; then ok "... and another fingerprint"
else not_ok "... and another fingerprint"; fi

# --- All input validated before anything is written ---
printf 'machine:\n  torus: 2x2\n  nodes: [a0, "b/1", c2, d3]\n' > "$work/badname.yaml"
expect "a node name that cannot be a file name" 3 "$tool" generate --config "$work/badname.yaml" --output "$work/bn"
contains "the bad name is named" "$work/err" "node name 'b/1' cannot be used as a file name"
check "no file and no directory was written" [ ! -e "$work/bn" ]
expect "empty --nodes is a usage error" 2 "$tool" generate --dry-run --nodes ''
expect "empty --config is a usage error" 2 "$tool" generate --dry-run --config ''
expect "empty --config is a usage error for verify" 2 "$tool" verify --tables "$work/swap" --config ''
expect "every node down is an error" 3 "$tool" generate --output "$work/alldown" --down 'desmos[00-31]'
contains "it says so" "$work/err" "every node of the 4x2x2x2 machine is marked failed or down"
check "nothing was written" [ ! -e "$work/alldown" ]
sed 's/^routing:$/routing:\n  options:\n    popuation: 20/' "$data/torus_4x4.yaml" > "$work/badopt.yaml"
grep -q popuation "$work/badopt.yaml" || printf 'routing:\n  options:\n    popuation: 20\n' >> "$work/badopt.yaml"
expect "an unknown generator option is an error" 3 "$tool" generate --dry-run --config "$work/badopt.yaml"
contains "it names the valid options" "$work/err" "routing.options: unknown option 'popuation' (valid: sssp: weights; balanced: start, construction, turns, long_way; genetic: population, mutation, generations, stall, converge, variants; dfsssp: paths, passes, spread; lash: paths, passes, spread; mp-lash: paths, passes, paths_per_pair; a-lash: paths, passes, paths_per_pair; hiry: paths_per_pair, attempts)"
printf 'machine:\n  torus: 4x4\n  nodes: n[00-15]\nrouting:\n  options:\n    construction: candidates\n    start: greedy\n    weights: applied\n    population: 4\n    passes: 1\n    spread: 0\n    paths: pairs\n' >"$work/goodopt.yaml"
expect "every documented generator option is accepted" 0 "$tool" generate --dry-run --config "$work/goodopt.yaml"

# --- The documented mode holds whatever the umask ---
(umask 077 && "$tool" generate --nodes 'desmos[00-03]' --output "$work/umask" --dump-routes "$work/umask.dump") \
  >/dev/null 2>&1
check "tables are 0644 under umask 077" [ "$(stat -L -c %a "$work/umask/desmos00.rt")" = 644 ]
check "the dump is 0644 under umask 077" [ "$(stat -c %a "$work/umask.dump")" = 644 ]
check "the directory is 0755 under umask 077" [ "$(stat -c %a "$work/umask")" = 755 ]

# --- The cache is keyed by algorithm and options; an entry is never relabelled ---
# (a dry run stores nothing in the cache, so these write tables)
expect "bfs into the cache" 0 "$tool" generate --output "$work/cache-tables" --algorithm bfs --nodes 'desmos[00-07]' --cache "$work/cache" --json
bfs_entry=$(ls "$work/cache")
expect "sssp into the cache" 0 "$tool" generate --output "$work/cache-tables" --algorithm sssp --nodes 'desmos[00-07]' --cache "$work/cache" --json
check "two entries, one per algorithm" [ "$(ls "$work/cache" | wc -l)" = 2 ]
sssp_entry=$(ls "$work/cache" | grep -v "$bfs_entry")
cp "$work/cache/$bfs_entry" "$work/cache/$sssp_entry"
expect "sssp with a bfs entry under its key" 0 "$tool" generate --output "$work/cache-tables" --algorithm sssp --nodes 'desmos[00-07]' --cache "$work/cache" --json
contains "the bfs entry is recomputed, not used as sssp" "$work/out" '"from_cache":false'
expect "sssp again" 0 "$tool" generate --output "$work/cache-tables" --algorithm sssp --nodes 'desmos[00-07]' --cache "$work/cache" --json
contains "now its own entry is used" "$work/out" '"from_cache":true'
check "the entry says sssp" grep -q 'algorithm=sssp' "$work/cache/$sssp_entry"
expect "a missing cache parent is an error" 5 "$tool" generate --output "$work/cache-tables" --nodes 'desmos[00-07]' --cache "$work/nocache/sub"

# --- Stale node files leave with the switch ---
expect "whole machine" 0 "$tool" generate --output "$work/stale"
expect "then a subset into the same directory" 0 "$tool" generate --nodes 'desmos[00-07]' --output "$work/stale"
check "only the subset's 8 files remain" [ "$(ls "$work/stale" | wc -l)" = 8 ]
expect "the directory verifies" 0 "$tool" verify --tables "$work/stale"
expect "then the whole machine with --down" 0 "$tool" generate --output "$work/stale" --down desmos05
check "31 files remain" [ "$(ls "$work/stale" | wc -l)" = 31 ]
check "desmos05 left" [ ! -e "$work/stale/desmos05.rt" ]
expect "the directory verifies again" 0 "$tool" verify --tables "$work/stale"
check "no leftovers" [ -z "$(leftovers "$work/stale")" ]

# In the configured directory that jobs share, a job's run replaces its own set only.
printf 'machine:\n  torus: 4x4\n  nodes: n[00-15]\ntables:\n  directory: %s\n' "$work/jobs" >"$work/jobs.yaml"
expect "job a on n[00-03]" 0 "$tool" generate --config "$work/jobs.yaml" --job-name a --nodes 'n[00-03]'
expect "job b on n[04-07]" 0 "$tool" generate --config "$work/jobs.yaml" --job-name b --nodes 'n[04-07]'
expect "job a again, on n[00-01]" 0 "$tool" generate --config "$work/jobs.yaml" --job-name a --nodes 'n[00-01]'
check "job a's n02 and n03 left, job b's tables stayed" \
  [ "$(cd "$work/jobs" && echo *.rt)" = "n00.rt n01.rt n04.rt n05.rt n06.rt n07.rt" ]
check "job b's tables are untouched" [ "$(field "$work/jobs/n05.rt" job)" = b ]

# --- A lock with a timeout: a second writer waits, then gives up clearly ---
"$tool" generate --nodes 'desmos[00-03]' --output "$work/locked" >/dev/null 2>&1
flock "$work/locked/.angara/lock" sleep 3 &
holder=$!
sleep 0.5
start=$(date +%s.%N)
expect "a writer gives up after the timeout" 5 env ANGARA_LOCK_TIMEOUT=1 "$tool" generate --nodes 'desmos[00-03]' \
  --output "$work/locked" --algorithm bfs
contains "it says another writer holds the directory" "$work/err" "cannot write tables in $work/locked: another writer"
contains "and what to do" "$work/err" "gave up after 1 s (nothing was written; retry when it has finished)"
check "the old set is intact" [ "$(field "$work/locked/desmos00.rt" algorithm)" = balanced ]
expect "a writer with a longer timeout waits its turn" 0 "$tool" generate --nodes 'desmos[00-03]' --output "$work/locked" \
  --algorithm bfs
check "and wrote" [ "$(field "$work/locked/desmos00.rt" algorithm)" = bfs ]
wait "$holder"

# --- Concurrent writers never interleave; readers during rewrites never fail ---
"$tool" generate --output "$work/busy" --algorithm bfs >/dev/null 2>&1
reader_failures=0
reader_runs=0
(
  for i in $(seq 1 6); do
    for a in sssp bfs balanced; do "$tool" generate --output "$work/busy" --algorithm "$a" >/dev/null 2>&1 & done
    wait
  done
) &
writers=$!
while kill -0 "$writers" 2>/dev/null; do
  reader_runs=$((reader_runs + 1))
  "$tool" verify --tables "$work/busy" >"$work/reader.out" 2>&1 || {
    reader_failures=$((reader_failures + 1))
    cat "$work/reader.out" >&2
  }
done
wait "$writers"
check "$reader_runs readers during 18 concurrent rewrites: none failed" [ "$reader_failures" = 0 ]
expect "the directory after the writers verifies" 0 "$tool" verify --tables "$work/busy"
check "32 tables of one computation" [ "$(ls "$work/busy" | wc -l)" = 32 ] 
check "no leftovers after the writers" [ -z "$(leftovers "$work/busy")" ]

# --- A running job's live switch: direct, staged, or refused until quiesced ---
# On the 4x4x4 torus under bfs (found by the transition planner, see
# check_transition.cpp): with n12 failed before and n08 failing under the job
# the union of the installed and the new routes has a dependency cycle, and
# one intermediate table avoids it; with n00 before and n20 now no sequence
# exists, because a route broken by n20 can only move to a new route that
# closes a cycle with the installed ones.
driver="$TOP_BUILDDIR/tests/kill_driver"
torus="$data/torus_4x4x4.yaml"
"$tool" generate --config "$torus" --algorithm bfs --job-name 7 --down n12 --output "$work/live" >/dev/null
"$driver" rebuild "$torus" "$work/live" 7 'n[00-63]' 'n[08,12]' bfs --step-wait=4 >"$work/live.out" 2>&1 &
rebuilder=$!
seen_step=no
for _ in $(seq 1 80); do
  state=$("$driver" state "$torus" "$work/live" 2>&1)
  if grep -q '+step1of1' <<<"$state"; then
    seen_step=yes
    break
  fi
  sleep 0.1
done
check "the intermediate table set is installed first" [ "$seen_step" = yes ]
check "it is whole and verifies" grep -qx "verify ok" <<<"$state"
check "every visible table is the intermediate one" [ "$(grep -c '+step1of1' <<<"$state")" = 62 ]
wait "$rebuilder"
check "the staged rebuild succeeds" [ $? = 0 ]
contains "it reports the staged switch" "$work/live.out" \
  "live switch staged through 1 intermediate table set(s) (installed tables of 63 node(s) compared)"
state=$("$driver" state "$torus" "$work/live" 2>&1)
check "then the new set, whole" [ "$(grep -c '+step' <<<"$state")" = 0 ] 
check "and it verifies" grep -qx "verify ok" <<<"$state"

"$tool" generate --config "$torus" --algorithm bfs --job-name 7 --down n00 --output "$work/quiet" >/dev/null
before=$("$driver" state "$torus" "$work/quiet")
"$driver" rebuild "$torus" "$work/quiet" 7 'n[00-63]' 'n[00,20]' bfs >"$work/out" 2>"$work/err"
check "an unsafe live switch is refused" [ $? = 1 ]
contains "it says why and how to quiesce" "$work/err" \
  "kill_driver: switching job 7's routes live is not safe: the installed route of"
contains "nothing was written, and the way out" "$work/err" \
  "; nothing was written.  Quiesce the job first (scontrol suspend 7, then rebuild with --quiesced, then scontrol resume 7): angara-route(8), LIVE SWITCHES"
check "the installed set is untouched" [ "$("$driver" state "$torus" "$work/quiet")" = "$before" ]
"$driver" rebuild "$torus" "$work/quiet" 7 'n[00-63]' 'n[00,20]' bfs --quiesced >"$work/out" 2>&1
check "with the job quiesced the rebuild goes ahead" [ $? = 0 ]
contains "and says it did not check" "$work/out" "live switch not checked (job quiesced)"
expect "the new set verifies" 0 "$tool" verify --config "$torus" --tables "$work/quiet"
expect "--step-wait takes seconds" 2 "$tool" rebuild --job 7 --step-wait soon
contains "it says what it expected" "$work/err" "angara-route: rebuild: --step-wait soon: expected seconds from 0 to 600"

tap_summary
