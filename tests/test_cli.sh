#!/usr/bin/env bash
# End-to-end tests of the admin tool: reports, dumps checked by the
# independent Python checker, written tables re-verified, torn tables and bad
# input rejected with their exit codes.
set -u
. "$(dirname "$0")/tap_lib.sh"
checker="$TEST_DATA_DIR/../tools/check_dump.py"

# The built-in Desmos default: report, dump, independent check.
expect "default dry run" 0 "$tool" generate --dry-run --dump-routes "$work/desmos.dump"
contains "default report names the machine" "$work/out" "4x2x2x2 torus, 32 nodes, 160 live channels"
contains "default Desmos is single-cabled" "$work/out" "cabling      single cable in YZK (160 channels when intact)"
contains "default report has the verdict" "$work/out" "verdict      OK"
contains "default report has the bound" "$work/out" "lower bound  16"
contains "default report has the LP bound" "$work/out" "LP bound     26 (optimum 25.333, "
contains "dry run says nothing written" "$work/out" "dry run: nothing written"
lines=$(grep -vc '^#' "$work/desmos.dump")
[ "$lines" -eq 992 ] && ok "dump has 32*31 routes" || not_ok "dump has $lines routes, wanted 992"
expect "independent checker accepts the Desmos dump" 0 python3 "$checker" "$work/desmos.dump"

for torus in 4x4 3x3x3 4x4x4; do
  expect "$torus dump generated" 0 "$tool" generate --config "$data/torus_$torus.yaml" --dry-run \
    --dump-routes "$work/$torus.dump"
  expect "$torus dump passes the independent checker" 0 python3 "$checker" "$work/$torus.dump"
done

# Every algorithm on the default, checked independently.
# mroots (UpDown, one root per virtual channel) needs all eight on the
# one-cable Desmos under the Angara rules (few UpDown routes are encodable
# there), and says so on one.
printf 'machine:\n  torus: 4x2x2x2\n  nodes: desmos[00-31]\n  single_cable: [Y, Z, K]\nrouting:\n  virtual_channels: 8\n' \
  >"$work/eight-channels.yaml"
for algorithm in $("$tool" --help | sed -n 's/^  \([a-z0-9_-]*\)\( (default)\)\?: .*/\1/p'); do
  config=()
  if [ "$algorithm" = mroots ]; then
    expect "mroots on one virtual channel" 4 "$tool" generate --algorithm mroots --dry-run
    contains "... names the eight it needs" "$work/err" \
      "mroots: the routes need 8 virtual channels, only 1 allowed (routing.virtual_channels)"
    config=(--config "$work/eight-channels.yaml")
  fi
  # hiry's shortest permitted paths are mostly not Angara-encodable: under
  # the Angara rules it refuses the pairs it cannot write, and routes every
  # pair under rules general (GeneratorInfo::complete_under).
  if [ "$algorithm" = hiry ]; then
    expect "hiry under the Angara rules" 4 "$tool" generate --algorithm hiry --dry-run
    contains "... says which pairs are left" "$work/err" "pairs of 32 nodes left without a deadlock-free route"
    config=(--rules general)
  fi
  expect "$algorithm on Desmos" 0 "$tool" generate "${config[@]}" --algorithm "$algorithm" --dry-run \
    --dump-routes "$work/$algorithm.dump"
  expect "$algorithm dump passes the independent checker" 0 python3 "$checker" "$work/$algorithm.dump"
done

# The genetic generator is reproducible under --seed.
expect "genetic seed 7" 0 "$tool" generate --algorithm genetic --seed 7 --nodes 'desmos[00-15]' --dry-run \
  --dump-routes "$work/g7a.dump"
expect "genetic seed 7 again" 0 "$tool" generate --algorithm genetic --seed 7 --nodes 'desmos[00-15]' --dry-run \
  --dump-routes "$work/g7b.dump"
cmp -s "$work/g7a.dump" "$work/g7b.dump" && ok "same seed, same routes" || not_ok "same seed gave different routes"
expect "bad seed" 2 "$tool" generate --seed -3 --dry-run

# Failures: routes go around a failed router and a failed cable.
expect "faulty Desmos routed" 0 "$tool" generate --config "$data/desmos_faulty.yaml" --dry-run \
  --dump-routes "$work/faulty.dump"
contains "faulty report lists the failures" "$work/out" "1 node(s), 1 link(s)"
expect "faulty dump avoids the failures" 0 python3 "$checker" "$work/faulty.dump" \
  --failed-node 1,1,0,0 --failed-link "0,0,0,0 +X" --allow-non-minimal

# Written tables, re-read and verified as a whole.
expect "write 8-node tables" 0 "$tool" generate --nodes 'desmos[00-07]' --output "$work/tables" --job-name 42
n=$(ls "$work/tables"/*.rt | wc -l)
[ "$n" -eq 8 ] && ok "one table per node" || not_ok "$n table files, wanted 8"
[ -z "$(ls -A "$work/tables" | grep -v -e '\.rt$' -e '^\.angara$')" ] && ok "no temporary left behind" || not_ok "stray files in table dir"
expect "verify written tables" 0 "$tool" verify --tables "$work/tables"
contains "verify report" "$work/out" "verdict      OK"
expect "verify --json" 0 "$tool" verify --tables "$work/tables" --json
contains "json ok field" "$work/out" '"ok":true'
# Reading tables back is held to the memory limit too, estimated from the files' sizes before reading.
expect "verify over a 1M limit refused before reading" 9 "$tool" verify --tables "$work/tables" --memory-limit 1M
# The program's part is what the process holds when it estimates (/proc/self/statm).
grep -Eq "^angara-route: memory limit: the computation needs an estimated [0-9.]+ MiB \(program and machine [0-9.]+ MiB, table files " "$work/err" \
  && ok "the refusal counts the program, the files and the parsed routes" \
  || not_ok "the refusal counts the program, the files and the parsed routes: $(cat "$work/err")"
contains "... and names the parsed tables" "$work/err" ", parsed tables 3.9 KiB, route table 384 bytes, "
expect "analyze over a 1M limit refused" 9 "$tool" analyze --tables "$work/tables" --memory-limit 1M
expect "analyze: bad --memory-limit" 2 "$tool" analyze --tables "$work/tables" --memory-limit lots
head -c 300 "$work/tables/desmos03.rt" > "$work/torn" && cp "$work/torn" "$work/tables/desmos03.rt"
expect "torn table rejected" 5 "$tool" verify --tables "$work/tables"
contains "torn table message names the file" "$work/err" "desmos03.rt"

# Rule sets: rules general is computed, verified, dumped and analysed, never
# written as table files; flow control none counts every cycle.
expect "general dry run" 0 "$tool" generate --rules general --dry-run --dump-routes "$work/general.dump"
contains "general report shows the rules" "$work/out" "rules        general, flow control bubble, virtual channels 1 used of 1"
contains "general verdict drops encodability" "$work/out" "verdict      OK: complete, walkable, deadlock-free"
head -1 "$work/general.dump" | grep -q ' rules=general flow_control=bubble virtual_channels=1 single_cable=YZK$' && ok "general dump header" ||
  not_ok "general dump header: $(head -1 "$work/general.dump")"
expect "general dump passes the independent checker" 0 python3 "$checker" "$work/general.dump"
expect "general json" 0 "$tool" generate --rules general --flow-control bubble --dry-run --json
contains "general json rules" "$work/out" '"rules":"general","flow_control":"bubble","virtual_channels":1,"virtual_channels_allowed":1'
mkdir "$work/general-tables"
expect "general tables refused" 7 "$tool" generate --rules general --output "$work/general-tables"
contains "general refusal says why" "$work/err" "routing.rules is 'general': its routes need not be Angara-encodable"
contains "general refusal: nothing written" "$work/err" "Nothing was written."
[ -z "$(ls -A "$work/general-tables")" ] && ok "no general table file" || not_ok "general table files written"
printf 'machine:\n  torus: 4x4\n  nodes: n[00-15]\nrouting:\n  rules: general\n' > "$work/general.yaml"
expect "general from the config refused" 7 "$tool" generate --config "$work/general.yaml" --output "$work/general-tables"
expect "general config dry run" 0 "$tool" generate --config "$work/general.yaml" --dry-run
expect "analyze general dump" 0 "$tool" analyze --dump "$work/general.dump"
contains "analyze shows the dump's rules" "$work/out" "rules general, flow control bubble, virtual channels 1; verifier: OK"
expect "analyze --dump over a 1M limit refused" 9 "$tool" analyze --dump "$work/general.dump" --memory-limit 1M
contains "the dump estimate counts the parsed routes" "$work/err" "parsed routes"
expect "flow control none rejects ring cycles" 1 "$tool" generate --algorithm balanced --flow-control none --dry-run
contains "flow control none names the cycle" "$work/err" "deadlock: virtual channel 0: dependency"
# The default chain passes balanced over for that and falls back to nue.
expect "default chain under flow control none" 0 "$tool" generate --flow-control none --dry-run
contains "default chain: nue wins under flow control none" "$work/out" "algorithm    nue ("
contains "default chain: balanced passed over for the ring cycles" "$work/out" \
  "    passed over balanced: table rejected by the verifier (14 violation(s)); deadlock: virtual channel 0: dependency"
expect "analyze under flow control none" 0 "$tool" analyze --dump "$work/desmos.dump" --flow-control none --json
contains "analyze json verdict" "$work/out" '"rules":"angara","flow_control":"none","virtual_channels":1,"ok":false,"verdict":"FAILED: deadlock"'
printf 'machine:\n  torus: 4x4x4\n  nodes: n[00-63]\nrouting:\n  algorithm: nue\n  virtual_channels: 8\n' > "$work/nue8.yaml"
expect "nue general on 8 virtual channels" 0 "$tool" generate --config "$work/nue8.yaml" --rules general --dry-run \
  --dump-routes "$work/nue8.dump"
contains "nue uses the 8 virtual channels" "$work/out" "rules        general, flow control bubble, virtual channels 8 used of 8"
expect "nue general dump passes the independent checker" 0 python3 "$checker" "$work/nue8.dump"
expect "nue flow control none" 0 "$tool" generate --config "$work/nue8.yaml" --rules general --flow-control none \
  --dry-run --dump-routes "$work/nue8none.dump"
expect "nue none dump passes the independent checker" 0 python3 "$checker" "$work/nue8none.dump" --allow-non-minimal
printf 'machine:\n  torus: 8x8\n  nodes: n[00-63]\nfailures:\n  nodes: ["1,0", "2,1", "4,0"]\nrouting:\n  algorithm: nue\n' \
  > "$work/faulty_8x8.yaml"
expect "nue angara refuses pairs the failures cut off" 4 "$tool" generate --config "$work/faulty_8x8.yaml" --dry-run
contains "nue's refusal: one summary line, nodes by name, what to do" "$work/err" \
  "angara-route: refused: 4 pairs of 61 nodes have no route around routers n[01,04,10] (failed); all involve n02: leave it out of the job or repair any one of them; first: n02 -> n00; --verbose or --json for all"
expect "nue's refusal in detail" 4 "$tool" generate --config "$work/faulty_8x8.yaml" --dry-run --verbose
contains "nue's refusal: every pair with the failures that cut it off" "$work/err" \
  "    n02 -> n07: cut off by router n01 (failed), router n04 (failed), router n10 (failed) (repairing any one reopens it); refused by nue"

# Refusals around failures (issue 26): one summary line under 300 bytes with
# node names and the cables as the configuration declares them, each pair
# once however many members of the chain refused it; the detail under
# --verbose and --json.  On this 5x5 every pair cut off ends at 2,1 (n07);
# the configuration's "4,4 -Y" is "n24 -Y", never its other end "n19 +Y".
printf 'machine:\n  torus: 5x5\n  nodes: n[00-24]\nfailures:\n  links:\n    - 2,3 +Y\n    - 2,1 +X\n    - 2,1 +Y\n    - 4,4 -Y\n    - 3,4 -X\n' \
  >"$work/cut_5x5.yaml"
expect "a 5x5 with five failed cables is refused" 4 "$tool" generate --config "$work/cut_5x5.yaml" --dry-run
contains "the refusal's one line" "$work/err" \
  "angara-route: refused: 7 pairs of 25 nodes have no route around cable n07 +X, cable n07 +Y, cable n17 +Y and cable n24 -Y; all involve n07: leave it out of the job or repair cable n07 +X, cable n07 +Y or cable n17 +Y; first: n10 -> n07; --verbose or --json for all"
if [ "$(wc -l <"$work/err")" -eq 1 ] && [ "$(wc -c <"$work/err")" -lt 300 ]; then
  ok "a dry run's refusal is one line under 300 bytes"
else
  not_ok "a dry run's refusal is one line under 300 bytes: $(wc -lc <"$work/err")"
fi
expect "the refusal in detail" 4 "$tool" generate --config "$work/cut_5x5.yaml" --dry-run --verbose
contains "detail: each member's reason, without its pairs" "$work/err" \
  "    nue (" 
contains "detail: a pair cut off, once, with every member that refused it" "$work/err" \
  "    n10 -> n07: cut off by cable n07 +X, cable n07 +Y, cable n17 +Y (repairing any one reopens it); refused by balanced, nue, exact"
contains "detail: a pair only balanced left out, with its shortest route" "$work/err" \
  "    n16 -> n07: shortest route 4 hops, its minimal routes blocked by cable n07 +Y; refused by balanced"
if [ "$(grep -c -- '^    n.* -> ' "$work/err")" -eq 10 ] &&
  [ "$(grep -- '^    n.* -> ' "$work/err" | cut -d: -f1 | sort | uniq -d | wc -l)" -eq 0 ]; then
  ok "detail: the 10 pairs the members refused, each once"
else
  not_ok "detail: the 10 pairs, each once"; grep -- ' -> ' "$work/err" | sed 's/^/    /'
fi
if grep -qE '[0-9],[0-9]|n19 \+Y' "$work/err"; then
  not_ok "detail: no coordinates, no cable named from its other end"; grep -E '[0-9],[0-9]|n19 \+Y' "$work/err" | sed 's/^/    /'
else
  ok "detail: no coordinates, no cable named from its other end"
fi
expect "the refusal in JSON" 4 "$tool" generate --config "$work/cut_5x5.yaml" --dry-run --json
if python3 - "$work/out" <<'PY'
import json, sys
refusal = json.load(open(sys.argv[1]))["error"]["refusal"]
pairs = [(p["source"], p["destination"]) for p in refusal["pairs"]]
assert len(pairs) == 10 and len(set(pairs)) == 10, pairs
assert refusal["cut_off_pairs"] == 7 and refusal["common_node"] == "n07", refusal
assert [p["cut_off"] for p in refusal["pairs"]] == [True] * 7 + [False] * 3
assert refusal["pairs"][0]["refused_by"] == ["balanced", "nue", "exact"], refusal["pairs"][0]
assert "cable n24 -Y" in refusal["failures"], refusal["failures"]
assert [g["algorithm"] for g in refusal["generators"]] == ["balanced", "nue", "exact"]
assert all(" -> " not in g["reason"] for g in refusal["generators"]), refusal["generators"]
PY
then ok "JSON: every pair once, cut off first, each generator's reason"; else not_ok "JSON refusal"; fi
expect "a refusal when tables were to be written" 4 "$tool" generate --config "$work/cut_5x5.yaml" --output "$work/cut-tables"
contains "says nothing was written" "$work/err" "Nothing was written."
[ -e "$work/cut-tables" ] && not_ok "the refused tables' directory exists" || ok "no table directory after the refusal"
# Failed routers by hostlist: desmos02 loses its four routers and its K cable.
printf 'machine:\n  torus: 4x2x2x2\n  nodes: desmos[00-31]\n  single_cable: [Y, Z, K]\nfailures:\n  nodes: [desmos01, desmos03, desmos06, desmos10]\n  links:\n    - desmos18 -K\n' \
  >"$work/desmos_cut.yaml"
expect "a Desmos with desmos02 cut off is refused" 4 "$tool" generate --config "$work/desmos_cut.yaml" --dry-run
contains "routers by hostlist, the node to leave out" "$work/err" \
  "angara-route: refused: 54 pairs of 28 nodes have no route around routers desmos[01,03,06,10] (failed) and cable desmos18 -K; all involve desmos02: leave it out of the job or repair any one of 4 of them; first: desmos00 -> desmos02;"
sed 's/desmos01, desmos03,/desmos01,/' "$work/desmos_cut.yaml" >"$work/desmos_cut3.yaml"
expect "a router down in Slurm (--down) is named down" 4 "$tool" generate --config "$work/desmos_cut3.yaml" --dry-run \
  --down desmos03 --nodes 'desmos[00,02,04-05]'
contains "down, not failed" "$work/err" \
  "angara-route: refused: 6 pairs of 4 nodes have no route around routers desmos[01,06,10] (failed), router desmos03 (down) and cable desmos18 -K; all involve desmos02: leave it out of the job or repair any one of 4 of them; first: desmos00 -> desmos02;"
expect "nue general routes around them" 0 "$tool" generate --config "$work/faulty_8x8.yaml" --rules general --dry-run
contains "nue general report" "$work/out" "verdict      OK: complete, walkable, deadlock-free"
expect "bad --rules" 2 "$tool" generate --rules nue --dry-run
contains "bad --rules lists the valid ones" "$work/err" "generate: --rules expects 'angara' or 'general', got 'nue'"
expect "bad --flow-control" 2 "$tool" analyze --dump "$work/desmos.dump" --flow-control credit
contains "bad --flow-control lists the valid ones" "$work/err" "analyze: --flow-control expects 'bubble' or 'none', got 'credit'"
printf 'machine:\n  torus: 4x4\n  nodes: n[00-15]\nrouting:\n  flow_control: credit\n' > "$work/badflow.yaml"
expect "bad flow_control in the config" 3 "$tool" generate --config "$work/badflow.yaml" --dry-run
contains "bad flow_control position" "$work/err" "badflow.yaml:5:17: routing.flow_control: expected 'bubble' or 'none', got 'credit'"

# routing.adaptive: the table is also checked as the adaptive channel's
# escape (doc/model.md, "The adaptive channel").  On 3x3 with a failed cable
# bfs's First/Last Step detours are a safe escape; on 4x3 they are not, and
# analyze reports the same table refused once adaptive is on.
printf 'machine:\n  torus: 4x4\n  nodes: n[00-15]\nrouting:\n  adaptive: yes\n' > "$work/badadaptive.yaml"
expect "bad adaptive in the config" 3 "$tool" generate --config "$work/badadaptive.yaml" --dry-run
contains "bad adaptive position" "$work/err" "badadaptive.yaml:5:13: routing.adaptive: expected 'on' or 'off', got 'yes'"
printf 'machine:\n  torus: 3x3\n  nodes: n[0-8]\nfailures:\n  links: [n0 +X]\nrouting:\n  algorithm: bfs\n  adaptive: on\n' \
  > "$work/adaptive33.yaml"
expect "adaptive on: 3x3 detours are a safe escape" 0 "$tool" generate --config "$work/adaptive33.yaml" --dry-run
contains "adaptive verdict" "$work/out" "deadlock-free, a safe escape for the adaptive channel ("
expect "adaptive on: json" 0 "$tool" generate --config "$work/adaptive33.yaml" --dry-run --json
contains "adaptive json" "$work/out" '"adaptive":true,"safe_escape":true,"indirect_dependencies":'
printf 'machine:\n  torus: 4x3\n  nodes: n[00-11]\nfailures:\n  links: [n00 +X]\nrouting:\n  algorithm: bfs\n' > "$work/adaptive43.yaml"
expect "adaptive off: 4x3 detours pass" 0 "$tool" generate --config "$work/adaptive43.yaml" --dry-run \
  --dump-routes "$work/adaptive43.dump"
printf '  adaptive: on\n' >> "$work/adaptive43.yaml"
expect "adaptive on: 4x3 detours refused" 1 "$tool" generate --config "$work/adaptive43.yaml" --dry-run
contains "adaptive refusal names the rule" "$work/err" "unsafe-escape: adaptive channel: indirect dependency"
contains "adaptive refusal shows the cycle" "$work/err" "; cycle "
expect "analyze with adaptive on" 0 "$tool" analyze --config "$work/adaptive43.yaml" --dump "$work/adaptive43.dump" --json
contains "analyze adaptive verdict" "$work/out" '"verdict":"FAILED: unsafe-escape","adaptive":true,"safe_escape":false'
# Plain dimension order (tools/dor_dump.py) is a safe escape on single-cabled Desmos.
python3 "$TEST_DATA_DIR/../../tools/dor_dump.py" 4x2x2x2 YZK > "$work/dor.dump" && ok "dor dump written" ||
  not_ok "dor dump written"
expect "dor dump passes the independent checker" 0 python3 "$checker" "$work/dor.dump"
printf 'machine:\n  torus: 4x2x2x2\n  single_cable: [Y, Z, K]\n  nodes: desmos[00-31]\nrouting:\n  adaptive: on\n' \
  > "$work/desmos_adaptive.yaml"
expect "analyze dor with adaptive on" 0 "$tool" analyze --config "$work/desmos_adaptive.yaml" --dump "$work/dor.dump"
contains "dor is a safe escape" "$work/out" "verifier: OK, a safe escape for the adaptive channel (1248 indirect dependencies)"

# Single cabling (machine.single_cable): every algorithm's routes stay on
# cabled ports, the dump says so, tables carry it and are checked against
# the configuration.  The built-in Desmos is single-cabled like
# desmos_single_cable.yaml; desmos_double_cable.yaml has both cables.
single="$data/desmos_single_cable.yaml"
double="$data/desmos_double_cable.yaml"
expect "two-cable Desmos dump" 0 "$tool" generate --config "$double" --dry-run --dump-routes "$work/double.dump"
contains "two-cable Desmos report" "$work/out" "4x2x2x2 torus, 32 nodes, 256 live channels"
contains "two-cable Desmos at the bound" "$work/out" "gamma        max 16 "
for algorithm in $("$tool" --help | sed -n 's/^  \([a-z0-9_-]*\)\( (default)\)\?: .*/\1/p'); do
  config=$single
  [ "$algorithm" = mroots ] && config=$work/eight-channels.yaml  # the same machine, eight virtual channels
  rules=()
  [ "$algorithm" = hiry ] && rules=(--rules general)  # as above
  expect "$algorithm on one-cable Desmos" 0 "$tool" generate --config "$config" "${rules[@]}" --algorithm "$algorithm" \
    --dry-run --dump-routes "$work/single-$algorithm.dump"
  expect "$algorithm one-cable dump passes the independent checker" 0 python3 "$checker" "$work/single-$algorithm.dump"
done
expect "one-cable Desmos report" 0 "$tool" generate --config "$single" --dry-run --json
contains "one-cable json names the cabling" "$work/out" '"single_cable":"YZK"'
contains "one-cable json counts 160 channels" "$work/out" '"live_channels":160,'
expect "one-cable Desmos text report" 0 "$tool" generate --config "$single" --dry-run
contains "one-cable report names the cabling" "$work/out" "cabling      single cable in YZK (160 channels when intact)"
head -1 "$work/single-balanced.dump" | grep -q ' single_cable=YZK$' && ok "one-cable dump header names the cabling" \
  || not_ok "one-cable dump header: $(head -1 "$work/single-balanced.dump")"
sed '1s/$/ single_cable=YZK/' "$work/double.dump" > "$work/relabelled.dump"
expect "checker rejects double-cable routes on one-cable Desmos" 1 python3 "$checker" "$work/relabelled.dump"
contains "checker names the missing cable" "$work/out" "through -Y, which has no cable"
expect "analyze reads a one-cable dump" 0 "$tool" analyze --config "$single" --dump "$work/single-balanced.dump"
expect "analyze reads a one-cable dump under the built-in default" 0 "$tool" analyze --dump "$work/single-balanced.dump"
expect "analyze rejects a one-cable dump under a double-cable config" 5 "$tool" analyze --config "$double" \
  --dump "$work/single-balanced.dump"
contains "dump cabling mismatch message" "$work/err" \
  "expected no single_cable word (the configured cabling), got single_cable=YZK"
expect "analyze rejects double-cable routes relabelled" 5 "$tool" analyze --config "$single" --dump "$work/relabelled.dump"
contains "dump reader names the missing cable" "$work/err" "through a port without a cable: port -Y of"
expect "one-cable tables written" 0 "$tool" generate --config "$single" --nodes 'desmos[00-15]' \
  --output "$work/single-tables" --job-name 7
grep -q '^machine 4x2x2x2 single_cable=YZK$' "$work/single-tables/desmos00.rt" && ok "table file names the cabling" \
  || not_ok "table file machine line: $(sed -n 2p "$work/single-tables/desmos00.rt")"
expect "one-cable tables verify" 0 "$tool" verify --config "$single" --tables "$work/single-tables"
expect "one-cable tables verify under the built-in default" 0 "$tool" verify --tables "$work/single-tables"
expect "one-cable tables rejected under a double-cable config" 5 "$tool" verify --config "$double" \
  --tables "$work/single-tables"
contains "cabling mismatch message" "$work/err" \
  "desmos00.rt: the table is for a 4x2x2x2 single_cable=YZK machine, the configuration ($double) describes 4x2x2x2"
expect "--single-cable experiment" 0 "$tool" generate --config "$double" --single-cable ZK --dry-run --nodes 'desmos[00-15]'
contains "--single-cable report" "$work/out" "cabling      single cable in ZK (192 channels when intact)"
expect "--single-cable none" 0 "$tool" generate --config "$single" --single-cable none --dry-run
contains "--single-cable none restores two cables" "$work/out" "256 live channels"
expect "--single-cable on a ring" 2 "$tool" generate --single-cable XY --dry-run
contains "--single-cable ring message" "$work/err" \
  "generate: --single-cable XY: X has size 4 in the 4x2x2x2 torus; only a dimension of size 2 can be single-cabled"
expect "--single-cable needs --dry-run" 2 "$tool" generate --single-cable YZK --output "$work/never"
contains "--single-cable dry-run message" "$work/err" "--single-cable is for experiments and needs --dry-run"
printf 'machine:\n  torus: 4x2x2x2\n  nodes: desmos[00-31]\n  single_cable: [Y, Q]\n' > "$work/badcable.yaml"
expect "bad single_cable letter" 3 "$tool" generate --config "$work/badcable.yaml" --dry-run
contains "bad single_cable position" "$work/err" \
  "badcable.yaml:4:21: machine.single_cable: 'Q' is not a dimension (expected X, Y, Z or K)"

# Fallback chains (routing.algorithm / --algorithm "a,b"): the first member
# whose table verifies wins; the report says why the others were passed over.
chain_nodes='n[03,05,07-08,12,15,26,29-30,32-33]'
expect "chain from the config" 0 "$tool" generate --config "$data/chain_6x6.yaml" --nodes "$chain_nodes" --dry-run \
  --dump-routes "$work/chain.dump"
contains "chain winner and chain" "$work/out" "algorithm    genetic ("
contains "chain named" "$work/out" "s), chain balanced,genetic"
contains "chain says why balanced was passed over" "$work/out" \
  "    passed over balanced: cannot route 2 of 110 ordered pairs deadlock-free on one virtual channel: 5,4 -> 0,2:"
expect "chain dump passes the independent checker" 0 python3 "$checker" "$work/chain.dump" --allow-non-minimal \
  --failed-node 4,0 --failed-node 0,1 --failed-node 4,2 --failed-node 0,3 --failed-node 4,3 --failed-node 0,4 \
  --failed-node 3,4
expect "chain JSON" 0 "$tool" generate --config "$data/chain_6x6.yaml" --nodes "$chain_nodes" --dry-run --json
contains "chain JSON names winner and chain" "$work/out" '"algorithm":"genetic","chain":"balanced,genetic","passed_over":[{"algorithm":"balanced","reason":"cannot route 2 of 110'
expect "chain of failing members" 4 "$tool" generate --config "$data/chain_6x6.yaml" --nodes "$chain_nodes" \
  --dry-run --algorithm bfs,sssp
contains "chain failure: the pairs once, by name" "$work/err" \
  "angara-route: refused: 2 pairs of 11 nodes left without a deadlock-free route around routers n[22,24,27] (failed); first: n29 -> n12; --verbose or --json for all"
expect "chain of failing members in detail" 4 "$tool" generate --config "$data/chain_6x6.yaml" --nodes "$chain_nodes" \
  --dry-run --algorithm bfs,sssp --verbose
contains "chain failure names every member" "$work/err" \
  "    bfs (" 
contains "chain failure names the second member's reason" "$work/err" "): cannot route 2 of 110 ordered pairs deadlock-free on one virtual channel"
contains "chain failure: each pair once with both members" "$work/err" \
  "    n29 -> n15: shortest route 8 hops, its minimal routes blocked by router n27 (failed), router n22 (failed); refused by bfs, sssp"
expect "--algorithm overrides the configured chain" 0 "$tool" generate --config "$data/chain_6x6.yaml" \
  --nodes "$chain_nodes" --dry-run --algorithm genetic
contains "no chain line for one generator" "$work/out" "algorithm    genetic ("
if grep -q ", chain \|passed over" "$work/out"; then not_ok "one generator: no chain in the report"; else
  ok "one generator: no chain in the report"; fi
expect "unknown chain member" 3 "$tool" generate --algorithm balanced,nosuch --dry-run
contains "unknown chain member named" "$work/err" "unknown routing algorithm 'nosuch' in chain 'balanced,nosuch' (valid: bfs"
expect "chain member twice" 3 "$tool" generate --algorithm bfs,balanced,bfs --dry-run
contains "chain member twice named" "$work/err" "routing algorithm 'bfs' appears twice in chain 'bfs,balanced,bfs'"
printf 'machine:\n  torus: 4x4\n  nodes: n[00-15]\nrouting:\n  algorithm: balanced,,bfs\n' > "$work/badchain.yaml"
expect "empty chain member in the config" 3 "$tool" generate --config "$work/badchain.yaml" --dry-run
contains "empty chain member named" "$work/err" "empty routing algorithm name in chain 'balanced,,bfs'"

# The LP lower bound: in the text and JSON reports, by symmetry on whole
# two-cable tori, left out on request, refused for rules general.
expect "LP bound of a block" 0 "$tool" generate --nodes 'desmos[00-15]' --dry-run --json
contains "LP bound json" "$work/out" '"lower_bound":8,'
contains "LP bound json object" "$work/out" '"lp_bound":{"status":"solved","value":10.0000,"rounded":10,"by_symmetry":false,'
expect "LP bound of a whole two-cable torus" 0 "$tool" generate --config "$data/torus_4x4x4.yaml" --dry-run
contains "LP bound by symmetry" "$work/out" "LP bound     32 (optimum 32.000, the per-dimension bound: whole fault-free torus)"
expect "LP bound of written tables" 0 "$tool" verify --tables "$work/single-tables"
contains "verify reports the LP bound" "$work/out" "LP bound     10 (optimum 10.000, "
expect "LP bound of one node" 0 "$tool" generate --nodes desmos00 --dry-run
contains "one node: an LP bound of 0, no GLPK abort" "$work/out" "LP bound     0 (optimum 0.000, "
expect "LP bound off" 0 "$tool" generate --dry-run --lp-time 0
contains "LP bound off says why" "$work/out" "LP bound     not computed: routing.lp_bound_time is 0"
printf 'machine:\n  torus: 4x4\n  nodes: n[00-15]\nrouting:\n  lp_bound_time: 0\n' > "$work/nolp.yaml"
expect "LP bound off in the config" 0 "$tool" generate --config "$work/nolp.yaml" --dry-run --json
contains "LP bound off json" "$work/out" '"lp_bound":{"status":"disabled","seconds":0.0000,"note":"routing.lp_bound_time is 0"}'
expect "LP bound under rules general" 0 "$tool" generate --rules general --dry-run
contains "LP bound not for rules general" "$work/out" \
  "LP bound     not computed: rules general: the LP covers Angara-encodable routes only"
expect "bad --lp-time" 2 "$tool" generate --dry-run --lp-time 1e3
contains "bad --lp-time message" "$work/err" \
  "generate: --lp-time expects seconds from 0 to 3600 (0: no LP bound), got '1e3'"
expect "bad verify --lp-time" 2 "$tool" verify --tables "$work/single-tables" --lp-time -2
printf 'machine:\n  torus: 4x4\n  nodes: n[00-15]\nrouting:\n  lp_bound_time: soon\n' > "$work/badlp.yaml"
expect "bad lp_bound_time in the config" 3 "$tool" generate --config "$work/badlp.yaml" --dry-run
contains "bad lp_bound_time position" "$work/err" \
  "badlp.yaml:5:18: routing.lp_bound_time: expected a number of seconds from 0 to 3600, got 'soon'"

# Node selection: exact choices on the double-cabled Desmos.  Every set
# compared is routed; the winner is isolated (its routes use only its own
# routers) first, then packs against taken nodes, then has the lowest max
# gamma: on the empty machine the 1x2x2x2 slab (max gamma 2, where the 4x2
# block needs 4) ...
double="$data/desmos_double_cable.yaml"
expect "select 8 nodes" 0 "$tool" select --config "$double" --count 8
contains "select picks the first slab" "$work/out" "desmos[00,04,08,12,16,20,24,28]"
expect "select -N 8" 0 "$tool" select --config "$double" -N 8
contains "-N is --count" "$work/out" "desmos[00,04,08,12,16,20,24,28]"
expect "select --nodes=8" 0 "$tool" select --config "$double" --nodes=8
contains "--nodes is --count" "$work/out" "desmos[00,04,08,12,16,20,24,28]"
expect "select a 4x2 shape" 0 "$tool" select --config "$double" --shape 4x2
contains "the 4x2 block" "$work/out" "desmos[00-07]"
# ... with desmos00 taken, the 4x1x1x2 block at Y=1 leans on it with two
# cables (the slab at X=1 with one) ...
expect "select packs next to a taken node" 0 "$tool" select --config "$double" --count 8 --free 'desmos[01-31]'
contains "the block that leans on desmos00" "$work/out" "desmos[04-07,20-23]"
expect "select beside a running job" 0 "$tool" select --config "$double" --count 8 --busy 'desmos[00-07]' --json
# ... and beside a running 4x2 job, the next 4x2 block: the nearest sets
# route at 2 but through 13 routers they do not own.
contains "the block beside it, isolated" "$work/out" '"nodes":"desmos[08-15]","count":8,"machine":"4x2x2x2","algorithm":"balanced","kind":"block","shape":"4x2x1x1","max_gamma":4,"lower_bound":4,"shared_channels":0,"isolated":true'
contains "select json lists the compared candidates" "$work/out" '"candidates":[{"kind":'
contains "select json counts a nearest set's foreign routers" "$work/out" '"nodes":"desmos[08,16,24-25,27-29,31]","lower_bound":2,"average_distance":1.8929,"busy_ports":0,"contact":4,"routable":true,"max_gamma":2,"shared_channels":0,"foreign_routers":13'
# On the built-in, single-cabled one, the nearest set routing at 3 loses to
# an isolated block.
expect "select 8 nodes, single cabling" 0 "$tool" select --count 8 --json
contains "single cabling: an isolated block beats the nearest set" "$work/out" '"nodes":"desmos[00-03,08-11]","count":8,"machine":"4x2x2x2","algorithm":"balanced","kind":"block","shape":"4x1x2x1","max_gamma":4,'
contains "single cabling: the slab is bounded at 4" "$work/out" '{"kind":"block","shape":"1x2x2x2","origin":"0,0,0,0","nodes":"desmos[00,04,08,12,16,20,24,28]","lower_bound":4,'
# routing.confine: five nodes beside a running 4x2 job have no block; the
# staircase desmos[11-15] routed on its own routers alone wins.
expect "select under routing.confine" 0 "$tool" select --config "$data/desmos_confine.yaml" --count 5 \
  --busy 'desmos[00-07]' --json
contains "confine: a staircase, routed on its own routers" "$work/out" \
  '"nodes":"desmos[11-15]","count":5,"machine":"4x2x2x2","algorithm":"balanced","kind":"staircase","shape":"4x2x1x1","max_gamma":4,"lower_bound":2,"shared_channels":0,"isolated":true,"confined":true,'
expect "select under routing.confine, explained" 0 "$tool" select --config "$data/desmos_confine.yaml" --count 5 \
  --busy 'desmos[00-07]'
contains "confine: the explanation says so" "$work/err" \
  "isolation: isolated, routed on its own 5 routers alone (routing.confine)"
expect "select avoids down and failed routers" 0 "$tool" select --count 2 --config "$data/desmos_faulty.yaml" \
  --down desmos01 --free 'desmos[00-03]'
contains "select around desmos01" "$work/out" "desmos[02-03]"
expect "select without a count" 2 "$tool" select
contains "select says what is missing" "$work/err" "select: give --count N or --shape AxB.."
expect "select more nodes than free" 3 "$tool" select --count 40
contains "select counts the free nodes" "$work/err" "40 nodes asked, only 32 free live nodes on the 4x2x2x2 machine"
expect "select a bad shape" 3 "$tool" select --shape 5x2
contains "select names the bad size" "$work/err" "bad shape '5x2': size 5 of X is outside 1..4"
expect "select an unknown free node" 3 "$tool" select --count 4 --free 'desmos[30-40]'
expect "select --slurm with --free" 2 "$tool" select --count 4 --slurm --free 'desmos[00-03]'
# The node-states file job_submit.lua passes (angara-route node-states writes
# it): its down routers fail, its unavailable nodes are not free, names of
# other hardware are ignored; too old, it is refused (exit 6).
now=$(date +%s)
printf '# angara-route node-states v1\ntime=%s\ndown=desmos01\nunavailable=desmos[02-03],login1\n' "$now" >"$work/states"
expect "select with node states" 0 "$tool" select --count 2 --config "$data/desmos_faulty.yaml" \
  --free 'desmos[00-05]' --node-states "$work/states"
contains "node states: down and unavailable nodes left out" "$work/out" "desmos[00,04]"
printf '# angara-route node-states v1\ntime=%s\ndown=\nunavailable=\n' "$((now - 1000))" >"$work/old-states"
expect "select with old node states" 6 "$tool" select --count 2 --node-states "$work/old-states"
contains "old node states: age and limit" "$work/err" "the node states in $work/old-states are 10"
contains "old node states: the way out" "$work/err" "s old (limit 300 s); refresh them with angara-route node-states"
expect "select with old node states, a longer limit" 0 "$tool" select --count 2 --node-states "$work/old-states" --max-age 2000
printf 'time=1\n' >"$work/bad-states"
expect "select with a bad node-states file" 3 "$tool" select --count 2 --node-states "$work/bad-states"
contains "bad node-states file: where and what" "$work/err" "bad-states:1: expected '# angara-route node-states v1'"
expect "select --slurm with --node-states" 2 "$tool" select --count 2 --slurm --node-states "$work/states"
expect "select, a busy job with a foreign node" 3 "$tool" select --count 8 --busy 'desmos[00-07],login[1-2]'
expect "select --foreign-ok" 0 "$tool" select --count 8 --busy 'desmos[00-07],login[1-2]' --foreign-ok
contains "foreign nodes ignored, the job's block taken" "$work/out" "desmos[08-15]"
expect "node-states without --output" 2 "$tool" node-states
contains "node-states says what is missing" "$work/err" "node-states: give --output FILE"

# slurm-conf: node lines in nested-block order, a reordered slurm.conf and
# topology.conf.
expect "slurm-conf on Desmos" 0 "$tool" slurm-conf --node-params 'CPUs=1 State=UNKNOWN'
sed -n 2,3p "$work/out" | tr '\n' ' ' | grep -qx 'NodeName=desmos00 CPUs=1 State=UNKNOWN NodeName=desmos01 CPUs=1 State=UNKNOWN ' \
  && ok "slurm-conf lines in order" || not_ok "slurm-conf lines: $(sed -n 2,3p "$work/out")"
printf 'machine:\n  torus: 4x2x2x2\n  nodes: desmos[00-31]\n  order: kzyx\n' > "$work/kzyx.yaml"
printf 'ClusterName=t\nNodeName=DEFAULT RealMemory=100\nNodeName=desmos[00-31] CPUs=2\nNodeName=login1 CPUs=4\nPartitionName=p Nodes=desmos[00-31]\n' \
  > "$work/slurm.conf"
expect "slurm-conf --from" 0 "$tool" slurm-conf --config "$work/kzyx.yaml" --from "$work/slurm.conf" \
  --topology "$work/topology.conf"
[ "$(grep -c '^NodeName=desmos.. CPUs=2$' "$work/out")" = 32 ] && ok "slurm-conf --from keeps each node's parameters" \
  || not_ok "slurm-conf --from parameters: $(grep -c '^NodeName=desmos' "$work/out")"
grep '^NodeName=desmos' "$work/out" | head -8 | sed 's/ .*//' | tr '\n' ' ' \
  | grep -qx 'NodeName=desmos00 NodeName=desmos08 NodeName=desmos16 NodeName=desmos24 NodeName=desmos04 NodeName=desmos12 NodeName=desmos20 NodeName=desmos28 ' \
  && ok "slurm-conf --from: the 4x2 block at Z=K=0 first" || not_ok "slurm-conf --from order: $(grep -m8 '^NodeName=desmos' "$work/out")"
contains "slurm-conf --from keeps other lines" "$work/out" "NodeName=login1 CPUs=4"
contains "slurm-conf --from keeps DEFAULT" "$work/out" "NodeName=DEFAULT RealMemory=100"
contains "topology.conf leaf switch" "$work/topology.conf" "SwitchName=angara00 Nodes=desmos[00,04,08,12,16,20,24,28]  # 4x2x1x1 at 0,0,0,0"
contains "topology.conf root switch" "$work/topology.conf" "SwitchName=angara Switches=angara0,angara1  # 4x2x2x2 at 0,0,0,0"
printf 'NodeName=desmos[00-31] Port=[17000-17031]\n' > "$work/ports.conf"
expect "slurm-conf --from with a port list" 3 "$tool" slurm-conf --from "$work/ports.conf"
contains "port list message" "$work/err" "ports.conf:1: Port lists one value per node; give these nodes one NodeName line each"
printf 'NodeName=desmos[00-30] CPUs=1\n' > "$work/short.conf"
expect "slurm-conf --from with a node missing" 3 "$tool" slurm-conf --from "$work/short.conf"
contains "missing node message" "$work/err" "short.conf: node desmos31 of the 4x2x2x2 machine (<built-in Desmos default>) has no NodeName line"
expect "slurm-conf --from and --node-params" 2 "$tool" slurm-conf --from "$work/slurm.conf" --node-params CPUs=1
expect "slurm-conf bad --leaf-size" 2 "$tool" slurm-conf --leaf-size 0

# Bad input.
expect "unknown algorithm" 3 "$tool" generate --algorithm nosuch --dry-run
contains "unknown algorithm lists the valid ones" "$work/err" "valid: bfs"
expect "unknown node" 3 "$tool" generate --nodes 'desmos[30-33]' --dry-run
contains "unknown node named" "$work/err" "'desmos32'"
printf 'machine:\n  torus: 4x4\n  nodes: n[00-15]\nrouting:\n  algoritm: bfs\n' > "$work/bad.yaml"
expect "bad config key" 3 "$tool" generate --config "$work/bad.yaml" --dry-run
contains "bad config position" "$work/err" "bad.yaml:5:3:"
expect "missing config" 3 "$tool" generate --config "$work/none.yaml" --dry-run
expect "usage error" 2 "$tool" generate --bogus
expect "version" 0 "$tool" --version
contains "version text" "$work/out" "angara-route 0."

# Every command has --help, with its own synopsis, exit 0.
for command in generate verify rebuild analyze show check; do
  expect "$command --help" 0 "$tool" $command --help
  contains "$command --help shows its synopsis" "$work/out" "Usage: angara-route $command"
done
expect "generate -h after other options" 0 "$tool" generate --dry-run -h

# Exit codes match angara-route(8): a bad --failed is a usage error, a bad
# job id is bad input (3), not "slurmctld could not be queried" (6).
expect "generate --failed bogus is a usage error" 2 "$tool" generate --failed bogus --dry-run
contains "--failed names the valid states" "$work/err" "--failed bogus: expected down, down,drained or none"
expect "generate --timeout 0 is a usage error" 2 "$tool" generate --job 1 --timeout 0 --dry-run
expect "generate --job with a malformed id is bad input" 3 "$tool" generate --job 12x --dry-run
contains "malformed job id named" "$work/err" "'12x' is not a Slurm job id"

# The built-in machine is announced, and so is the table directory a dry run
# would have used.
expect "built-in default announced" 0 env -u ANGARA_CONFIG "$tool" generate --dry-run --nodes 'desmos[00-01]'
contains "built-in default note" "$work/err" "using the built-in Desmos machine (4x2x2x2, one cable in Y, Z and K, desmos[00-31])"
contains "dry run names the table directory" "$work/out" "dry run: nothing written (table directory /var/lib/angara/routes)"
expect "a configuration given: no note" 0 "$tool" generate --config "$data/torus_4x4.yaml" --dry-run
[ -s "$work/err" ] && not_ok "no note with --config: $(cat "$work/err")" || ok "no note with --config"

# A dry run writes nothing, the cache included; a real run stores one entry.
expect "dry run with --cache" 0 "$tool" generate --dry-run --nodes 'desmos[00-03]' --cache "$work/cache"
[ -z "$(ls -A "$work/cache" 2>/dev/null)" ] && ok "dry run left the cache empty" || not_ok "dry run wrote $(ls "$work/cache")"
expect "run with --cache" 0 "$tool" generate --nodes 'desmos[00-03]' --cache "$work/cache" --output "$work/cached-tables"
[ "$(ls "$work/cache" | wc -l)" -eq 1 ] && ok "a real run stored one cache entry" || not_ok "cache: $(ls "$work/cache")"

# The lower bound is never above the max gamma a table reaches: around a
# failed cable the minimal-path bound does not hold (a table may reach max
# gamma 3 where it says 4), and the report says which bound it gives.
printf 'machine:\n  torus: 4x2x2x2\n  nodes: desmos[00-31]\nfailures:\n  links: ["0,0,0,0 +X"]\n' >"$work/link.yaml"
for algorithm in balanced bfs sssp; do
  expect "$algorithm around a failed cable" 0 "$tool" generate --config "$work/link.yaml" --algorithm $algorithm \
    --nodes 'desmos[00-01,04-05]' --dry-run
  max=$(sed -n 's/^  gamma        max \([0-9]*\).*/\1/p' "$work/out")
  bound=$(sed -n 's/^  lower bound  \([0-9]*\).*/\1/p' "$work/out")
  [ -n "$max" ] && [ -n "$bound" ] && [ "$bound" -le "$max" ] && ok "$algorithm: bound $bound <= max gamma $max" ||
    not_ok "$algorithm: bound '$bound' above max gamma '$max'"
  contains "$algorithm: the report says the bound is over all live channels" "$work/out" \
    "over all live channels (non-minimal routes)"
  # The LP bound covers minimal encodable routes only, and says whether it
  # bounds this table (the two pairs the cable cut off detour in any table).
  contains "$algorithm: the LP bound says what it covers" "$work/out" \
    "(over minimal encodable routes only, without the 2 pairs the failures leave no minimal route; this table routes every other pair minimally, so it bounds it)"
done
expect "LP bound json around a failed cable" 0 "$tool" generate --config "$work/link.yaml" --nodes 'desmos[00-01,04-05]' \
  --dry-run --json
contains "LP bound json: minimal routes only, bounds this table" "$work/out" \
  '"note":"","minimal_routes_only":true,"bounds_this_table":true}'

# angara-route check: one line per finding, exit 3 on an error.
good_conf=$work/check.yaml
printf 'machine:\n  torus: 4x2x2x2\n  nodes: desmos[00-31]\ntables:\n  directory: %s\n' "$work/check-tables" >"$good_conf"
printf '# a comment\nrequired /usr/lib/x/spank-angara.so config=%s\n' "$good_conf" >"$work/plugstack.conf"
touch "$work/spank-angara.so"
printf 'include %s/plugstack.conf.d/*.conf\n' "$work" >"$work/plugstack-include.conf"
mkdir -p "$work/plugstack.conf.d"
printf 'optional %s/spank-angara.so config=%s\n' "$work" "$good_conf" >"$work/plugstack.conf.d/angara.conf"
expect "check: plugin file missing" 3 "$tool" check --no-slurm --plugstack "$work/plugstack.conf"
contains "check: the missing plugin named with file and line" "$work/out" \
  "error   plugstack: $work/plugstack.conf:2: /usr/lib/x/spank-angara.so does not exist"
contains "check: the summary counts the error" "$work/out" "1 error(s), 0 warning(s)"
expect "check: an included optional line" 0 "$tool" check --no-slurm --plugstack "$work/plugstack-include.conf"
contains "check: optional is a warning" "$work/out" "warning plugstack: $work/plugstack.conf.d/angara.conf:1: 'optional'"
contains "check: the configuration is read" "$work/out" "ok      config: $good_conf: 4x2x2x2 torus, 32 nodes desmos[00-31]"
contains "check: a table directory to create" "$work/out" "ok      tables: $work/check-tables: does not exist yet, will be created"
printf 'required %s/spank-angara.so config=%s tabels=/tmp\n' "$work" "$good_conf" >"$work/plugstack-typo.conf"
expect "check: a misspelt plugstack argument" 3 "$tool" check --no-slurm --plugstack "$work/plugstack-typo.conf"
contains "check: the misspelt argument named" "$work/out" "error   plugstack: unknown plugstack argument 'tabels=/tmp'"
printf 'required %s/spank-angara.so config=%s/none.yaml\n' "$work" "$work" >"$work/plugstack-noconf.conf"
expect "check: a missing configuration" 3 "$tool" check --no-slurm --plugstack "$work/plugstack-noconf.conf"
contains "check: the missing configuration named" "$work/out" "error   config: "
touch "$work/a-file"
printf 'required %s/spank-angara.so config=%s tables=%s/a-file/routes\n' "$work" "$good_conf" "$work" \
  >"$work/plugstack-badtables.conf"
expect "check: a table directory under a file" 3 "$tool" check --no-slurm --plugstack "$work/plugstack-badtables.conf"
contains "check: the table directory problem" "$work/out" \
  "error   tables: $work/a-file/routes: does not exist, and $work/a-file is not a directory"
expect "check: no spank-angara line" 3 "$tool" check --no-slurm --plugstack "$data/../../conf/angara.yaml"
contains "check: no plugin line is an error" "$work/out" "loads no spank-angara.so: jobs get no routing tables"
expect "check --json" 3 "$tool" check --no-slurm --plugstack "$work/plugstack.conf" --json
contains "check --json counts" "$work/out" '{"ok":false,"errors":1,"warnings":0,"findings":['
contains "check --json has the finding" "$work/out" \
  "{\"severity\":\"error\",\"subject\":\"plugstack\",\"text\":\"$work/plugstack.conf:2: /usr/lib/x/spank-angara.so does not exist\"}"
expect "check: bad timeout" 2 "$tool" check --timeout 0

# Errors in JSON mode are JSON on stdout; show and verify --job validate first.
expect "JSON error for a missing config" 3 "$tool" generate --config "$work/none.yaml" --dry-run --json
contains "the error is a JSON object" "$work/out" '{"error":{"exit_status":3,"message":"'
expect "JSON usage error" 2 "$tool" generate --json --bogus-option
contains "a usage error in JSON" "$work/out" '{"error":{"exit_status":2,'
expect "rebuild: --job and --all-running exclude each other, in JSON" 2 "$tool" rebuild --json --job 1 --all-running
contains "rebuild usage error in JSON" "$work/out" \
  '{"error":{"exit_status":2,"message":"rebuild: give exactly one of --job JOBID and --all-running"}}'
expect "rebuild: bad timeout" 2 "$tool" rebuild --job 1 --timeout 0
expect "rebuild: bad --memory-limit" 2 "$tool" rebuild --job 1 --memory-limit 4X
contains "rebuild: bad --memory-limit says what is expected" "$work/err" \
  "rebuild: --memory-limit expects a size (4G, 512M, bytes; at least 1M), a percentage of the node's memory (50%) or 'none', got '4X'"
# A rebuild reruns the chain the job's prologue asked for, not only the member
# that won: the rebuild logic of `angara-route rebuild` (cli/job_tables.hpp)
# through the test driver, which needs no Slurm.  On the fault-free 6x6
# balanced wins; after seven routers fail (tests/data/rebuild_6x6.yaml)
# balanced refuses and nue takes over (balanced alone refuses: exit 1); after
# the repair balanced wins again.
driver="$TOP_BUILDDIR/tests/kill_driver"
rebuild_nodes='n[03,05,07-08,12,15,26,29-30,32-33]'
mkdir "$work/chain_tables"
for node in n03 n05 n07 n08 n12 n15 n26 n29 n30 n32 n33; do
  "$driver" prologue "$data/rebuild_6x6.yaml" "$work/chain_tables" 5 "$rebuild_nodes" "$node" "" >/dev/null
done
contains "the prologue records the chain asked for" "$work/chain_tables/n03.rt" "chain balanced,nue,exact"
contains "balanced won on the fault-free 6x6" "$work/chain_tables/n03.rt" "algorithm balanced"
expect "rebuild after failures falls back along the chain" 0 "$driver" rebuild "$data/rebuild_6x6.yaml" \
  "$work/chain_tables" 5 "$rebuild_nodes" 'n[04,06,16,18,22,24,27]' ""
contains "the rebuild says which member won" "$work/out" "job 5: nue on 11 nodes, max gamma "
contains "the rebuild says why balanced was passed over" "$work/out" \
  "; chain balanced,nue,exact; passed over balanced: cannot route 2 of 110 ordered pairs deadlock-free on one virtual channel"
contains "nue's tables are installed" "$work/chain_tables/n03.rt" "algorithm nue"
contains "they still record the chain" "$work/chain_tables/n03.rt" "chain balanced,nue,exact"
expect "rebuild after the repair" 0 "$driver" rebuild "$data/rebuild_6x6.yaml" "$work/chain_tables" 5 \
  "$rebuild_nodes" "" ""
contains "balanced wins again after the repair" "$work/out" "job 5: balanced on 11 nodes, max gamma 5 (bound 3)"
expect "rebuild: unknown algorithm" 3 "$tool" rebuild --job 1 --algorithm nosuch
expect "rebuild: unknown chain member" 3 "$tool" rebuild --job 1 --algorithm balanced,nosuch
contains "rebuild: unknown chain member named" "$work/err" "rebuild: unknown routing algorithm 'nosuch' in chain 'balanced,nosuch'"
expect "show needs --job" 2 "$tool" show
expect "show --job with a malformed id" 3 "$tool" show --job 12x --config "$good_conf"
expect "verify needs --tables or --job" 2 "$tool" verify
expect "verify --job with a malformed id" 3 "$tool" verify --job x12 --config "$good_conf"
expect "verify --failed bogus" 2 "$tool" verify --job 12 --failed bogus

# make install-strip: a stripped plugin, no libtool .la next to it, and man
# pages that name the directories this build was configured with.
if install_from_build install-strip DESTDIR="$work/inst" >"$work/install.log" 2>&1; then
  ok "make install-strip"
  so=$(find "$work/inst" -name spank-angara.so)
  [ -n "$so" ] && ok "the plugin is installed" || not_ok "no spank-angara.so under $work/inst"
  [ -z "$(find "$work/inst" -name '*.la')" ] && ok "no .la installed" || not_ok "installed: $(find "$work/inst" -name '*.la')"
  if [ -n "$so" ] && ! readelf -S "$so" | grep -q '\.debug_info'; then ok "the installed plugin is stripped"; else
    not_ok "the installed plugin carries debug information"; fi
  sysconfdir=$("$tool" --help | sed -n 's|.*reads $ANGARA_CONFIG, then \(.*\)/angara/angara.yaml,|\1|p')
  page=$(find "$work/inst" -name spank-angara.8)
  contains "installed spank-angara(8) names the configured SYSCONFDIR" "$page" "config=$sysconfdir/angara/angara.yaml"
  contains "installed spank-angara(8) names the plugin's directory" "$page" "${so#$work/inst}"
  snippet=$(find "$work/inst" -path '*/plugstack.conf.d/angara.conf')
  if [ -n "$snippet" ]; then
    contains "the installed plugstack.conf.d/angara.conf loads the installed plugin" "$snippet" \
      "required ${so#$work/inst} config=$sysconfdir/angara/angara.yaml"
  else
    not_ok "no plugstack.conf.d/angara.conf installed"
  fi
  page=$(find "$work/inst" -name angara-route.8)
  localstatedir=$(sed -n 's/^localstatedir = //p' "$TOP_BUILDDIR/Makefile" | sed "s|\${prefix}|$(sed -n 's/^prefix = //p' "$TOP_BUILDDIR/Makefile")|")
  contains "installed angara-route(8) names the configured rebuild log" "$page" "$localstatedir/log/angara-route.log"
else
  not_ok "make install-strip"
  sed 's/^/    /' "$work/install.log" | tail -20
fi

# Bounded memory: a computation whose estimate exceeds the limit is refused
# before it starts (exit 9), naming the estimate and the limit.  The address
# space is capped at 1 GB, so an attempt to allocate the 4 GiB table would end
# in std::bad_alloc instead of this refusal.
printf 'machine:\n  torus: 32x32x32\n  nodes: n[00000-32767]\nrouting:\n  lp_bound_time: 0\n' >"$work/big.yaml"
capped() { bash -c 'ulimit -v 1000000 && exec "$@"' capped "$@"; }
expect "32x32x32 under a 4G limit refused before allocating" 9 capped "$tool" generate --config "$work/big.yaml" \
  --algorithm balanced --dry-run --memory-limit 4G
contains "the refusal names the estimate" "$work/err" "memory limit: the computation needs an estimated "
contains "the refusal names the table" "$work/err" "route table 4.0 GiB"
contains "the refusal names the limit" "$work/err" "more than the memory limit of 4.0 GiB (limits.memory in $work/big.yaml, or --memory-limit)"
{ cat "$work/big.yaml"; printf 'limits:\n  memory: 4G\n'; } >"$work/big-limit.yaml"
expect "limits.memory: 4G refuses the same way" 9 capped "$tool" generate --config "$work/big-limit.yaml" --dry-run --json
contains "the refusal in JSON" "$work/out" '"exit_status":9,"message":"memory limit: the computation needs an estimated'
expect "generate --output under the limit refused too" 9 capped "$tool" generate --config "$work/big-limit.yaml" \
  --output "$work/big-tables"
[ ! -e "$work/big-tables" ] && ok "nothing written over the limit" || not_ok "$work/big-tables exists"
# Out of memory is its own status, never a table file I/O error (exit 5).
expect "std::bad_alloc is exit 9" 9 capped "$tool" generate --config "$work/big.yaml" --algorithm balanced \
  --dry-run --memory-limit none
contains "out of memory said so" "$work/err" "out of memory (std::bad_alloc)"
# Under the limit it runs, and the report shows the estimate and the limit.
expect "4x4x4 under a 64M limit runs" 0 "$tool" generate --config "$data/torus_4x4x4.yaml" --dry-run --memory-limit 64M
contains "the report shows the estimate and the limit" "$work/out" ", limit 64.0 MiB"
expect "the JSON report has the estimate" 0 "$tool" generate --config "$data/torus_4x4x4.yaml" --dry-run --json
contains "JSON memory estimate" "$work/out" '"memory":{"estimate_bytes":'
expect "4x4x4 over a 1M limit refused" 9 "$tool" generate --config "$data/torus_4x4x4.yaml" --dry-run --memory-limit 1M
expect "bad --memory-limit" 2 "$tool" generate --dry-run --memory-limit 4X
contains "bad --memory-limit says what is expected" "$work/err" "--memory-limit expects a size (4G, 512M, bytes; at least 1M)"
printf 'limits:\n  memory: lots\n' | cat "$data/torus_4x4x4.yaml" - >"$work/bad-limit.yaml"
expect "bad limits.memory" 3 "$tool" generate --config "$work/bad-limit.yaml" --dry-run
contains "bad limits.memory names the line" "$work/err" "limits.memory: expected a size"

# The man pages render without a troff warning (a line starting with a dot
# that is not a macro, a stray escape), which man(1) would show as lost text.
for page in "$data"/../../man/*.[58]; do
  if groff -man -ww -z "$page" >"$work/groff" 2>&1 && [ ! -s "$work/groff" ]; then ok "man page ${page##*/} renders cleanly"
  else not_ok "man page ${page##*/} has troff warnings"; sed 's/^/    /' "$work/groff" | head -5; fi
done

# --- routing.time_budget / --time-budget: the optional stages are cut in steps of work ---
printf 'machine: {torus: 8x8, nodes: "n[00-63]"}\n' >"$work/budget.yaml"
half='n[00,02,05,07,08,11,13,14,17,18,20,23,24,27,29,30,33,35,36,38,41,43,44,46,49,50,52,55,57,59,60,62]'
# (too short for the stages a search needs: the direction-order table)
expect "a tiny time budget still gives a verified table" 0 "$tool" generate --dry-run --lp-time 0 \
  --config "$work/budget.yaml" --nodes "$half" --time-budget 0.000001
contains "the report names the stages the budget cut" "$work/out" \
  "budget       time budget cut: choice of the ring ties, load balancing, First/Last Step refinement (routing.time_budget)"
contains "the tiny-budget table is verified" "$work/out" "verdict      OK"
expect "no budget" 0 "$tool" generate --dry-run --lp-time 0 --config "$work/budget.yaml" --nodes "$half" \
  --time-budget 0
if grep -q "^  budget" "$work/out"; then not_ok "an unlimited budget cuts nothing"; else ok "an unlimited budget cuts nothing"; fi
expect "--time-budget rejects a bad value" 2 "$tool" generate --dry-run --time-budget soon
contains "the usage error says what it expects" "$work/err" "--time-budget expects seconds from 0 to 3600 (0: no limit), got 'soon'"
printf 'machine: {torus: 4x4, nodes: "n[00-15]"}\nrouting: {time_budget: -1}\n' >"$work/bad-budget.yaml"
expect "a bad routing.time_budget is refused" 3 "$tool" generate --dry-run --config "$work/bad-budget.yaml"
contains "with the file, line and what was expected" "$work/err" \
  "routing.time_budget: expected a number of seconds from 0 to 3600"

# --- exact's memory model: the solver's per-pair model is estimated before it runs ---
printf 'machine: {torus: 10x10, nodes: "n[00-99]"}\nfailures: {nodes: [n36, n88, n95], links: ["1,0 -X"]}\n' \
  >"$work/exact10.yaml"
expect "exact on a faulty 10x10 is refused under 64M before any work" 9 "$tool" generate --dry-run --lp-time 0 \
  --config "$work/exact10.yaml" -a exact --memory-limit 64M
contains "the estimate names exact's model" "$work/err" "generator exact 1.2 GiB"

# --- files root reads for select and rebuild must be root's alone ---
printf '# angara-route node-states v1\ntime=%s\ndown=\nunavailable=\n' "$(date +%s)" >"$work/open-states"
chmod 0666 "$work/open-states"
expect "select refuses a node-states file others can write" 5 "$tool" select --count 2 \
  --node-states "$work/open-states"
contains "the refusal names the file and the rule" "$work/err" \
  "untrusted $work/open-states: a file writable by group or others (mode 0666)"
mkdir -p "$work/open-tables" && chmod 0777 "$work/open-tables"
printf 'machine: {torus: 4x4, nodes: "n[00-15]"}\n' >"$work/rebuild4.yaml"
expect "rebuild refuses a table directory others can write" 5 "$tool" rebuild --job 1 \
  --config "$work/rebuild4.yaml" --tables "$work/open-tables" --log "$work/rebuild.log"
contains "the rebuild names the directory and the rule" "$work/err" \
  "untrusted $work/open-tables: a directory writable by group or others (mode 0777)"

tap_summary
