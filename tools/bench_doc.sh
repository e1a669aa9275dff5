#!/bin/bash
# Regenerates doc/benchmarks.md: runs a fixed, seeded set of benchmark
# commands from the build tree and writes, per section, what is measured, the
# exact command line and the figures it printed.  Only the current figures:
# the history of a figure is in git log.
#
# Usage: tools/bench_doc.sh [--quick] [--build DIR] [--output FILE] [--only LIST]
#   --quick       smaller sets (a few minutes), to test the script itself
#   --build DIR   the configured and built tree (default: the current directory)
#   --output FILE default: doc/benchmarks.md of the source tree
#   --only LIST   these sections only, each replacing its namesake in the
#                 existing document, the others kept (comma-separated: quality, nue, faults,
#                 adaptive, scale, time_budget, transition, placement, replay, memory,
#                 simulation, smpi_paper, sweep, hiry)
# 'make bench-doc' runs it from the build tree (about 30 minutes on 2 shared cores).
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=$PWD
output=
quick=0
only=
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --build) build=$(cd "$2" && pwd); shift ;;
    --output) output=$2; shift ;;
    --only) only=",$2,"; shift ;;
    *) sed -n '7,13p' "$0" >&2; exit 2 ;;
  esac
  shift
done
output=${output:-$src/doc/benchmarks.md}
for program in bench/angara-bench bench/angara-faults bench/angara-scale \
               bench/angara-transition-bench bench/angara-placement-bench bench/angara-sweep \
               bench/angara-hiry-bench cli/angara-route; do
  [ -x "$build/$program" ] || { echo "bench_doc: no $build/$program (build first)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "bench_doc: needs /usr/bin/time (GNU time)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
body=$work/body.md
: > "$body"
started=$(date +%s)
commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$src" diff --quiet HEAD -- . ':!doc/benchmarks.md' 2>/dev/null ||
  commit="$commit (with local changes)"

# wanted SECTION: whether --only asks for it
wanted() { [ -z "$only" ] || [[ $only == *",$1,"* ]]; }

# emit TEXT...: a line of the document
emit() { printf '%s\n' "$@" >> "$body"; }

# run NAME [VAR=VALUE...] PROGRAM ARGS...: runs the command in the build tree;
# stdout in $work/NAME.out, stderr in $work/NAME.err, the command line as
# shown in $work/NAME.cmd, "wall user system maxrss_kb" in $work/NAME.time.
# Returns the command's exit status.
run() {
  local name=$1
  shift
  printf '%s\n' "$*" >> "$work/$name.cmd"
  echo "bench_doc: $(date -u +%H:%M:%S) $*" >&2
  (cd "$build" && /usr/bin/time -f '%e %U %S %M' -o "$work/$name.time" env "$@") \
    > "$work/$name.out" 2> "$work/$name.err"
}

# command_block NAME...: the command lines of these runs, as a shell block
command_block() {
  emit '```sh'
  local name
  for name in "$@"; do cat "$work/$name.cmd" >> "$body"; done
  emit '```'
}

# output_block NAME: what the run printed on stdout (less the rows of
# angara-faults' generators that ran nowhere: --singles-max-nodes 1)
output_block() {
  emit '' '```text'
  sed 's/[[:space:]]*$//' "$work/$1.out" |
    awk '!($1 ~ /^([234]D|all)$/ && $2 != "chain" && $4 == "0")' >> "$body"
  emit '```'
}

# took NAME...: the wall and CPU seconds of these runs, summed
took() {
  local name wall=0 cpu=0 w u s
  for name in "$@"; do
    read -r w u s _ < "$work/$name.time"
    wall=$(awk -v a="$wall" -v b="$w" 'BEGIN { print a + b }')
    cpu=$(awk -v a="$cpu" -v b="$u" -v c="$s" 'BEGIN { print a + b + c }')
  done
  emit '' "($wall s wall, $cpu s CPU.)"
}

# failed NAME: a run that exited non-zero, recorded in the document
failed() {
  emit '' "**The command failed** (exit status $2); its last lines of standard error:" '' '```text'
  tail -n 20 "$work/$1.err" >> "$body"
  emit '```'
}

# show NAME [VAR=VALUE...] PROGRAM ARGS...: run, then the command, its output
# and its time (or the failure) in the document
show() {
  local name=$1 status=0
  run "$@" || status=$?
  emit ''
  command_block "$name"
  if [ "$status" -ne 0 ]; then
    failed "$name" "$status"
  else
    output_block "$name"
    took "$name"
  fi
}

# size QUICK FULL: the value for this mode
size() { if [ "$quick" = 1 ]; then echo "$1"; else echo "$2"; fi; }

# ---------------------------------------------------------------- sections

section_quality() {
  emit '' '## Quality: the ANSU paper'"'"'s machine set' ''
  emit 'The quality benchmark (`bench/angara-bench`, also `make bench`) routes allocations of' \
       'the machine set of the ANSU paper (section 5.1: 2D, 3D and 4D tori with sizes 2 to 8)' \
       'with every generator, verifies every table and compares max gamma (the load of the' \
       'busiest channel) with BFS on the same allocation, with the per-dimension lower bound' \
       'and with the LP bound (the optimum over minimal Angara-encodable routes, deadlock' \
       'ignored).  Size-2 dimensions have two parallel cables unless said otherwise.'
  emit '' '### Desmos against the paper'"'"'s Table 2' ''
  emit 'Desmos (4x2x2x2) on blocks of 2 to 32 nodes, every generator, next to the figures the' \
       'paper publishes (max gamma / min gamma / sigma(4) / diameter), first with one cable in' \
       'Y, Z and K (Desmos as built, the paper'"'"'s cabling), then with two.  `LP` is the LP bound,' \
       '`bound` the per-dimension one.  The second table is the congestion of the paper'"'"'s' \
       'traffic patterns (section 5.2) on the whole machine: the most flows sharing one channel.'
  show desmos ANGARA_THREADS=1 nice -n 19 bench/angara-bench --desmos-only
  local max_nodes
  max_nodes=$(size 16 64)
  emit '' '### The machine set' ''
  emit "Every torus of the set with at most $max_nodes nodes, four allocations each: the whole" \
       'machine, a compact half block (the largest dimension halved), a random half (seeded)' \
       'and the node set Slurm'"'"'s linear best fit gives a job of half the free nodes on a' \
       'partly busy machine (`slurm-linear`).  Genetic runs up to 64 nodes.  Per dimension count' \
       'and allocation kind: tables, tables rejected or not produced (`failed`), max gamma below /' \
       'equal / above BFS'"'"'s and the summed ratios of each group (the paper'"'"'s Figure 5),' \
       '`sum/bfs` over all tables, `mean/LB` the mean ratio to the per-dimension bound, tables' \
       'at it, tables another generator beats, and generation seconds.  The last block sums' \
       'max gamma over the LP bound rounded up (`sum/LP`; `at LP` tables at it) and names the' \
       'worst allocation (the LP is computed for every allocation up to 128 nodes, 120 s each).'
  show sweep ANGARA_THREADS=1 nice -n 19 bench/angara-bench --sweep-only --max-nodes "$max_nodes"
  [ -s "$work/sweep.out" ] || return 0
  emit '' 'The same run per generator, over every allocation (from the blocks `allocations: all`' \
       'and the LP summary'"'"'s `all all` rows): summed max gamma over BFS'"'"'s per dimension count,' \
       'over the summed rounded-up LP bound where it was solved, tables at the LP bound, and' \
       'tables on which another generator has a lower max gamma.' '' \
       '| generator | tables | rejected | sum/bfs 2D | sum/bfs 3D | sum/bfs 4D | sum/LP | at LP (solved) | beaten |' \
       '|---|---|---|---|---|---|---|---|---|'
  awk '/^-- allocations: all --/ { block = "all"; next }
       /^-- / { block = "" }
       block == "all" && $1 ~ /^[234]$/ {
         if (!($2 in tables)) order[++n] = $2
         tables[$2] += $3; failed[$2] += $4; beaten[$2] += $17; bfs[$2, $1] = $14
       }
       $1 == "all" && $2 == "all" { lp[$3] = $9; at[$3] = $10 " (" $4 ")" }
       END {
         for (i = 1; i <= n; i++) {
           g = order[i]
           printf "| %s | %d | %d | %s | %s | %s | %s | %s | %d |\n", g, tables[g], failed[g],
                  bfs[g, 2], bfs[g, 3], bfs[g, 4], lp[g], at[g], beaten[g]
         }
       }' "$work/sweep.out" >> "$body"
}

section_hiry() {
  emit '' '## HiRy on tori' ''
  emit 'The evaluation of the HiRy paper (Kawano et al., Sec. V-A and V-B, Fig. 12-15: 64 and' \
       '256 nodes on 8x8 and 4x4x4, 16x16, 8x8x4 and 4x4x4x4 lattices) on the tori of those' \
       'sizes, whole and with 1-3 failed routers drawn at random (10 instances each, the' \
       'machine left connected, the routing seed the instance number), `rules: general`:' \
       '*VCs needed*, the fewest virtual channels (1 to 8) with which `hiry` reaches every' \
       'pair (Alg. 4); at 2 virtual channels (Fig. 14-15), the longest path over the' \
       'longest minimal path, the average path over the average minimal path, and the' \
       'stretch factor (the largest ratio of a pair), averaged over the instances.'
  if [ "$quick" = 1 ]; then
    show hiry nice -n 19 bench/angara-hiry-bench --machines 8x8,4x4x4 --instances 3
  else
    show hiry nice -n 19 bench/angara-hiry-bench
  fi
  emit '' 'The same with 8 failed cables in every instance besides the failed routers:'
  show hiry_cables nice -n 19 bench/angara-hiry-bench --machines 8x8,4x4x4 --failures 0,2 --cables 8
  emit '' 'The paper'"'"'s random topologies of the lowest degree (3 for 64 nodes, 4 for 256) need up' \
       'to 3-6 virtual channels; a whole torus needs one: its mesh links alone reach every' \
       'pair in any order of any draw of the partitions (each direction is in one partition,' \
       'and a mesh path may take its directions in any order), and with 1-3 failed routers' \
       'most instances still need one (8x8x4: up to 2).  Failed cables cut more: some of' \
       'the second table'"'"'s need 2 or 3, and at 2 virtual channels one is refused (`check_hiry` has a 4x4 with 4 failed cables that needs' \
       '2, and its refusal on 1).  The price is length, as the paper finds for few links a' \
       'node: in the torus'"'"'s own space the wrap-around channel of a ring points against the' \
       'rest of it, and opposite regions are never in one partition, so on one virtual' \
       'channel a path may not go on in the same direction after crossing the wrap (+X, the' \
       'wrap'"'"'s X-, +X again would need X+ both before and after X-).  Such pairs go the long' \
       'way (stretch factor 3 and more on 8x8, 7 on 16x16, where rings are longest); more' \
       'virtual channels give more orders to choose from (check_hiry: 4.571, 4.381 and 4.200' \
       'hops on average with 1, 2 and 4 on a whole 8x8, 4.063 minimal).  In rings of 4 a' \
       'shortest path has at most 2 hops a dimension, and the permitted paths are minimal or' \
       'close to it (4x4x4, 4x4x4x4).'
}

section_nue() {
  emit '' '## Nue' ''
  emit 'Nue (`--algorithm nue`) routes in the complete channel dependency graph over k virtual' \
       'channels; it is the member of the default chain for machines where balanced finds no' \
       'deadlock-free table on one channel.  `angara-bench --nue` routes whole fault-free tori' \
       'and seeded faulty ones (an 8x8 with routers 1,0, 2,1 and 4,0 failed, "8x8 cut", and six' \
       'machines with failed routers `r` and cables `c`) under both rule sets (`general`: any' \
       'path; `angara`: every route encodable by the router) with k virtual channels, and' \
       'verifies each table under the same rules and k.  `bound` is the per-dimension lower' \
       'bound, `used` the channels the table uses, `non-min` the routes longer than the torus' \
       'distance.  A faulty machine'"'"'s header line gives the routability oracle'"'"'s count of pairs' \
       'that no encodable route joins; `no table` is the generator'"'"'s refusal.'
  if [ "$quick" = 1 ]; then
    show nue ANGARA_THREADS=1 nice -n 19 bench/angara-bench --nue --tori 4x4x4,8x8 \
      --virtual-channels 8 --rules general
  else
    show nue ANGARA_THREADS=1 nice -n 19 bench/angara-bench --nue --tori 4x4x4,8x8,6x6x6,4x4x4x4 \
      --virtual-channels 1,8
  fi
}

section_faults() {
  emit '' '## Fault campaign' ''
  emit '`bench/angara-faults` (also `make faults`) draws seeded scenarios on 2D, 3D and 4D tori:' \
       '1-8 failed routers, 1-16 failed cables, or 1-4 routers and 1-8 cables, each on the whole' \
       'machine, a compact block and a random half; the scenarios cycle through the machines up' \
       'to `--max-nodes`, nine per machine.  For each the routability oracle says whether every' \
       'pair has an encodable route at all; then the default chain (`balanced,nue,exact`) and' \
       'each generator on its own route it, and every table goes through the verifier on one' \
       'virtual channel.  *routed*: a table verified; *missed*: the oracle joins every pair but' \
       'no table came out; *dlock*: tables with a deadlock (must be 0); *safe esc*: routed tables' \
       'that are also a safe escape for the adaptive channel (`routing.adaptive: on`, doc/model.md' \
       '"The adaptive channel"; a summary line per chain at the end); *stretch*: hops over' \
       'the shortest encodable route; *detour*: hops over the fault-free torus distance;' \
       '*gamma/ff*: max gamma over that of the fault-free balanced table of the same allocation;' \
       'CPU seconds per table (a chain: its members up to the one that succeeded).  The list' \
       'at the end names the scenarios the chain misses although the oracle joins every pair,' \
       'with each member'"'"'s reason (`exact` proves for some that no deadlock-free table on one' \
       'virtual channel exists); `angara-faults --from ID --scenarios ID+1 --verbose` with the' \
       'same `--max-nodes` reruns one.  `mroots` and `hiry` build their routes without the' \
       'Angara encoding (`rules: general`): under the campaign'"'"'s Angara rules they refuse' \
       'nearly every scenario with failures, which under `rules: general` they route ("HiRy on' \
       'tori" below).'
  show faults ANGARA_THREADS=1 nice -n 19 bench/angara-faults --seed 1 --scenarios "$(size 63 189)" \
    --max-nodes 128 --singles-max-nodes 64
  emit '' '### Fault campaign up to 512 nodes' ''
  emit 'The same campaign on the machines of 129 to 512 nodes, the default chain only: 12x12,' \
       '16x16 and 16x32, then every 3D and 4D machine up to 8x8x8 and 4x4x4x8 (`--from 27`' \
       'skips the machines of up to 128 nodes above; their scenarios are still drawn, so the' \
       'numbers are those of the whole campaign).  Here balanced fails more often and `exact`' \
       'repairs the partial table it leaves, or proves that no table on one virtual channel' \
       'exists; whole 16x32 machines with scattered failures take the longest.'
  show faults512 ANGARA_THREADS=1 nice -n 19 bench/angara-faults --seed 1 --from 27 \
    --scenarios "$(size 36 135)" --max-nodes 512 --singles-max-nodes 1
}

section_adaptive() {
  emit '' '## The adaptive channel'"'"'s check' ''
  emit 'With `routing.adaptive: on` the verifier also checks a table as the escape of the' \
       'adaptive channel (doc/model.md, "The adaptive channel"); with `off` it does not run.' \
       '`analyze --dump` verifies a dump once: the same table without and with the check, on' \
       'Desmos (single-cabled) and the whole 8x8x8 torus, for the balanced table (refused: the' \
       'time includes finding the example cycle) and for plain dimension order' \
       '(`tools/dor_dump.py`, a safe escape: every indirect dependency is built).' \
       '`M-generate` is `generate --dry-run` of the machine without the key (the check does' \
       'not run), for comparison.'
  local machine config dump
  for machine in desmos 8x8x8; do
    if [ "$machine" = desmos ]; then
      printf 'machine:\n  torus: 4x2x2x2\n  single_cable: [Y, Z, K]\n  nodes: desmos[00-31]\n' > "$work/$machine.yaml"
      python3 "$src/tools/dor_dump.py" 4x2x2x2 YZK > "$work/$machine-dor.dump"
    else
      printf 'machine:\n  torus: 8x8x8\n  nodes: n[000-511]\n' > "$work/$machine.yaml"
      python3 "$src/tools/dor_dump.py" 8x8x8 > "$work/$machine-dor.dump"
    fi
    { cat "$work/$machine.yaml"; printf 'routing:\n  adaptive: on\n'; } > "$work/$machine-on.yaml"
    run "$machine-generate" ANGARA_THREADS=1 nice -n 19 cli/angara-route generate --config "$work/$machine.yaml" \
      --dry-run --dump-routes "$work/$machine-balanced.dump"
    for dump in balanced dor; do
      run "$machine-$dump-off" ANGARA_THREADS=1 nice -n 19 cli/angara-route analyze --config "$work/$machine.yaml" \
        --dump "$work/$machine-$dump.dump"
      run "$machine-$dump-on" ANGARA_THREADS=1 nice -n 19 cli/angara-route analyze \
        --config "$work/$machine-on.yaml" --dump "$work/$machine-$dump.dump"
    done
  done
  emit '' '```text'
  local name w u s verdict
  for name in desmos-generate desmos-balanced-off desmos-balanced-on desmos-dor-off desmos-dor-on \
              8x8x8-generate 8x8x8-balanced-off 8x8x8-balanced-on 8x8x8-dor-off 8x8x8-dor-on; do
    read -r w u s _ < "$work/$name.time"
    verdict=$(sed -n 's/.*verifier: //p' "$work/$name.out" | cut -c1-90)
    printf '%-22s %6.2f s wall %6.2f s CPU  %s\n' "$name" "$w" "$(awk -v a="$u" -v b="$s" 'BEGIN { print a + b }')" \
      "${verdict:-$(sed -n 's/^ *verdict *//p' "$work/$name.out" | cut -c1-90)}" >> "$body"
  done
  emit '```' '' 'The commands, for each machine (`M.yaml` the machine, `M-on.yaml` the same with' \
       '`routing: {adaptive: on}`):' '' '```sh' 'python3 tools/dor_dump.py 8x8x8 > 8x8x8-dor.dump'
  sed 's|'"$work"'/||g' "$work/8x8x8-generate.cmd" "$work/8x8x8-dor-off.cmd" "$work/8x8x8-dor-on.cmd" >> "$body"
  emit '```'
}

section_scale() {
  emit '' '## Scale' ''
  emit '`bench/angara-scale` routes whole fault-free machines, each case in a child process of' \
       'its own on one thread under a CPU limit (`> N s`: not done within it): generation and' \
       'verification CPU seconds, the child'"'"'s peak RSS, bytes per route of the table, and max' \
       'gamma against the lower bound.  The second command is the largest machine balanced' \
       'routes here; its peak is the N^2 route table itself (4 bytes a route).  The one' \
       'computation per job of `shared=` (spank-angara(8)) is measured by the cluster test' \
       '(`tests/cluster/test_cluster.sh`, run by `make check`), which needs Slurm, not here.'
  local limit
  limit=$(size 5 10)
  if [ "$quick" = 1 ]; then
    show scale nice -n 19 bench/angara-scale --tori 8x8x8,16x16x16 --algorithms bfs,balanced --limit 5
    return
  fi
  show scale nice -n 19 bench/angara-scale --tori 8x8x8,8x4x4x4,16x8x8,8x8x4x4,16x16x16,8x8x8x8 \
    --algorithms bfs,sssp,balanced --limit "$limit"
  show scale-large nice -n 19 bench/angara-scale --tori 32x16x16,16x8x8x8,16x16x16x8 \
    --algorithms balanced --limit 300
}

# budget_case NAME NODESET BUDGET: one row of the time budget table (NODESET:
# TORUS-COUNT, the machine in TORUS.yaml, the nodes in NODESET.nodes)
budget_case() {
  local name=$1 config=$2 budget=$3 status=0
  local yaml=${config%-*}.yaml
  (cd "$work/budget" && /usr/bin/time -f '%U %S %e' -o "$name.time" env ANGARA_THREADS=1 \
     cli/angara-route generate --dry-run --json -c "$yaml" --nodes "$(cat "$config.nodes")" \
     --lp-time 0 --time-budget "$budget" > "$name.json" 2> "$name.err") || status=$?
  echo "ANGARA_THREADS=1 /usr/bin/time -f '%U %S' cli/angara-route generate --dry-run --json" \
       "-c $yaml --nodes \"\$(cat $config.nodes)\" --lp-time 0 --time-budget $budget" \
    >> "$work/budget.cmd"
  echo "bench_doc: $(date -u +%H:%M:%S) time budget $config $budget" >&2
  if [ "$status" -ne 0 ]; then
    echo "| $config | $budget | failed (exit $status) | | | | |" >> "$work/budget.rows"
    return
  fi
  python3 - "$work/budget/$name.json" "$work/budget/$name.time" "$config" "$budget" \
    >> "$work/budget.rows" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
user, system, wall = (float(x) for x in open(sys.argv[2]).read().split()[:3])
cut = ", ".join(report.get("budget_cut", [])) or "-"
limit = report.get("budget_limit_steps", 0)
print(f"| {sys.argv[3]} ({report['node_count']} nodes) | {sys.argv[4]} | {user + system:.2f} | {wall:.2f} | "
      f"{report['gamma_max']} | {report['lower_bound']} | {report.get('budget_steps', 0)} / {limit or '-'} | {cut} |")
PY
}

section_time_budget() {
  emit '' '## Time budget' ''
  emit '`routing.time_budget` (`generate --time-budget S`, default 2) bounds the optional' \
       'stages of a computation, balanced'"'"'s load balancing (half of what is left when it' \
       'starts), the shortening of detours around failures, and the First/Last Step' \
       'refinement and its long-way routes, in steps of the searches'"'"' own work (a channel a' \
       'cycle check expands; an evaluated candidate 6, a greedy choice one a candidate and one' \
       'per 4 channels it walks, a detour what its searches cost; 30 million a second of' \
       'one core on the reference machine, 85% of the budget), so every node of a job stops at' \
       'the same point.  Three thresholds in steps a pair of the job, all on the budget alone' \
       '(`routing/generators/balanced/anytime.hpp`), on a machine whose every port is cabled' \
       'and live:' '' \
       '- below 40 (what the stages every searched table needs cost, the candidate sets, the' \
       '  greedy start, the deadlock guard) a job keeps its direction-order table, verified by' \
       '  construction, and the report names `load balancing` and `First/Last Step refinement`' \
       '  as cut (above 1129 nodes under the default 2 s, above 564 under 0.5 s); its ring' \
       '  ties go the way of the lower max load when the budget pays for counting both' \
       '  tables from the allocation'"'"'s counts ("Latency of a job'"'"'s tables"), else the' \
       '  positive way, and the report' \
       '  names `choice of the ring ties` too; then, while the budget lasts, a pair on a' \
       '  channel at the max load goes the other way round one or more of its rings (a' \
       '  tie'"'"'s other half, or at most `long_way` hops longer; a block'"'"'s pairs the long' \
       '  way only round the rings it spans whole, so that its routes stay inside it, and a' \
       '  block whose budget cannot pay for the ring ways keeps its closed form), still in' \
       '  direction order (`routing/generators/balanced/ring_ways.hpp`; the report names' \
       '  `load balancing (ring ways only)`, with `stopped early` when the budget ends); on a' \
       '  machine with failures the same, on live channels, before the cut pairs are routed;' \
       '- below 4 x 40 a block'"'"'s budget goes to the First/Last Step refinement alone, from its' \
       '  closed form (above 564 and 282 nodes);' \
       '- below 30 000 (what the whole refinement costs a scattered job: 24 000 a pair on a' \
       '  random quarter of 8x8x4x4 without a limit) any other job goes the short way' \
       '  (`refine_scattered_intact`): the greedy start over its direction-order routes and its' \
       '  pure DOR routes up to `long_way` hops the long way round rings, which close no' \
       '  forbidden cycle among themselves, then, if the budget has 64 steps a pair left, a' \
       '  second start (the greedy choice over the minimal direction-order routes, searched' \
       '  over the long-way ones too without a cycle test on a tenth of the budget), the' \
       '  better of the two kept, and the guarded search over those and the First/Last Step' \
       '  routes from it (above 41 nodes under 2 s, above 20 under 0.5 s).  The full refinement starts with the guarded' \
       '  search over the minimal routes, which on scattered jobs stalls far above the bound' \
       '  before the long-way routes join: without a limit the random quarter of 8x8x4x4' \
       '  ends at 110 (below), where the short way reaches 103 under 0.5 s.' '' \
       'Scattered node sets are where the refinement costs most: random subsets (Python'"'"'s' \
       '`random.Random(1)`) of a fault-free torus, routed with balanced under several budgets' \
       '(`0`: no limit).  Per row: CPU and wall seconds of the whole command (the stages every' \
       'table needs and the verifier are not cut), max gamma against the per-dimension bound,' \
       'the steps used against the limit, and the stages the budget cut.'
  mkdir -p "$work/budget"
  ln -s "$build/cli" "$work/budget/cli"
  local budget budgets n=0 sets=256
  printf 'machine:\n  torus: 8x8x4x4\n  nodes: n[0000-1023]\n' > "$work/budget/8x8x4x4.yaml"
  if [ "$quick" = 1 ]; then
    budgets="8x8x4x4-256:0.5 8x8x4x4-256:2"
  else
    budgets="8x8x4x4-256:0.5 8x8x4x4-256:2 8x8x4x4-256:8 8x8x4x4-256:0 8x8x4x4-512:2"
    sets="256 512"
  fi
  for n in $sets; do
    python3 -c 'import random, sys
r = random.Random(1)
print("n[" + ",".join("%04d" % i for i in sorted(r.sample(range(1024), int(sys.argv[1])))) + "]")' \
      "$n" > "$work/budget/8x8x4x4-$n.nodes"
    echo "python3 -c 'import random; r = random.Random(1);" \
         "print(\"n[\" + \",\".join(\"%04d\" % i for i in sorted(r.sample(range(1024), $n))) + \"]\")'" \
         "> 8x8x4x4-$n.nodes" >> "$work/budget.cmd"
  done
  n=0
  for budget in $budgets; do
    budget_case "b$((n += 1))" "${budget%:*}" "${budget#*:}"
  done
  emit '' '```sh'
  emit "cat > 8x8x4x4.yaml <<'EOF'"
  cat "$work/budget/8x8x4x4.yaml" >> "$body"
  emit 'EOF'
  cat "$work/budget.cmd" >> "$body"
  emit '```' '' \
       '| allocation | budget s | CPU s | wall s | max gamma | bound | steps / limit | cut |' \
       '|---|---|---|---|---|---|---|---|'
  cat "$work/budget.rows" >> "$body"
}

section_latency() {
  emit '' "## Latency of a job's tables" ''
  emit 'What a job'"'"'s prologue waits for: `bench/angara-scale --cases latency` computes fixed,' \
       'seeded allocations (blocks inside larger tori, random and linear sets, whole machines' \
       'with failed routers) as `angara-route generate --dry-run --lp-time 0` would, default' \
       'chain, verifier included, one core, each in a child of its own (`--list` prints the' \
       'allocations).  CPU s is the computation'"'"'s, the least of 3 runs (`--repeat 3`): the budget' \
       'counts steps, so every run makes the same table, and on a shared machine the least is' \
       'its cost (single runs of an unchanged case here move by up to half, and the machine'"'"'s' \
       'speed drifts over hours: the least of 3 runs of the random quarter of 16x16x8x8 under' \
       '0.5 s, the same table each time, is 0.40 s in some hours and 0.70 s in others).  The' \
       'outcome names' \
       'the stages the time budget cut; the estimate is the memory estimate of the member that' \
       'won, checked against the growth.' '' \
       'A block (per dimension a whole ring or an arc with 2(e-1) < ring size) starts from its' \
       'direction-order table in closed form (`routing/generators/balanced/block.hpp`), which' \
       'alone is at 3136, 1920 and 3600 on the three blocks: in a mesh dimension the positive' \
       'hops go before the negative ones, so the lines of the next direction carry (2w+1)/e of' \
       'their mean, and the search wins that back with ring ties and First/Last Steps (under a' \
       'budget below the fixed stages, the ring ways: ties and the long way round the rings the' \
       'block spans whole, every route inside it).  Their' \
       'per-dimension bound (768) is below the mesh'"'"'s cut for routes inside the block (1024 on' \
       'the 8x8x8 blocks).' '' \
       'A whole machine with failed routers starts from the fault-free closed form' \
       '(`routing/generators/balanced/around_failures.hpp`): every pair whose closed-form route' \
       'stays clear of the failures keeps it as its start, the pairs they cut or pass next to' \
       'are assigned greedily, the search runs over every pair on the budget, which also pays' \
       'its set-up (13 steps a pair), and the checked-turn stage looks only at the pairs left' \
       'with a detour.  When the budget cannot pay that set-up twice over, as at 0.5 s, the' \
       'table keeps the closed form wherever the failures leave it alive and puts the cut' \
       'pairs on their least loaded candidates (`load balancing (not run)`).' '' \
       'On a machine whose every port is cabled and live the cases take the budget'"'"'s' \
       'thresholds ("Time budget"): the scattered and linear sets go the short way, from the' \
       'better start over their direction-order and long-way DOR routes (non-minimal routes in' \
       'the table: the report'"'"'s `non_minimal`); the 1024-node block goes to the First/Last' \
       'Step refinement alone under 2 s; the 4096-node block, and under 0.5 s the 1024-node' \
       'block, keep their direction-order table, verified by construction, and the scattered' \
       'sets too big for the searched stages (the 2048 random nodes, the random quarter of' \
       '16x16x8x8, under 0.5 s the 1024 linear ones) start from theirs.' \
       'Where the budget pays for counting both tables'"'"' loads (twice about 0.04 s on 16x16x8x8,' \
       'from the allocation'"'"'s counts, `angara/direction_order_loads.hpp`, whatever the number' \
       'of pairs), a direction-order table'"'"'s ring ties go the positive way or, from an odd' \
       'coordinate, the negative way, whichever has the lower max load' \
       '(`routing/generators/balanced/anytime.cpp`): the 2048 random nodes get 2118 with split' \
       'ties against 2622, the random quarter of 16x16x8x8 7817 against 8595, the 1024 linear' \
       'ones 1330 with positive ties against 1613.  Then, while the budget pays for one more' \
       'table, dimension by dimension the other ways of its ties (always negative, negative' \
       'from an even coordinate): the random quarter of 16x16x8x8 7062 with the ties of X the' \
       'negative way.  The max sits on channels next to a few sources (a source sends about' \
       'half its routes out on +X), which is why a sample of the sources does not decide it.' \
       'Then, for the rest of the budget, the pairs on the channels at the max load go the' \
       'other way round one or more of their rings, a tie'"'"'s other half or at most `long_way`' \
       '(2) hops longer, while that raises no channel to the max' \
       '(`routing/generators/balanced/ring_ways.hpp`): every route stays in direction order, so' \
       'the table needs no cycle check, and the pairs on a channel are enumerated from' \
       'coordinates (dimension by dimension the router'"'"'s coordinate at the source or the' \
       'destination, by the order of the runs), not listed route by route, so it costs a byte' \
       'a pair.  The 2048 random nodes go from 2080 to about 1800 under 2 s and 2000 under' \
       '0.5 s, the random quarter of 16x16x8x8 from 7062 to about 6300, the 1024 linear nodes' \
       'under 0.5 s from 1330 to about 1050; with `--time-budget 5` the 2048 random nodes reach' \
       '1687.' \
       'A scattered job beside failed routers it does not hold, under a budget below those 40' \
       'steps a pair (the random half of 8x8x8x8 with one, the random quarter of 16x16x8x8 with' \
       'two), keeps its direction-order table wherever the failures leave a route alive (the' \
       'pairs to walk are those whose route'"'"'s runs pass a failure, found from a mask per' \
       'dimension and run); the pairs the failures cut take their least loaded candidates,' \
       'against the other routes'"'"' loads when the budget pays for counting them (the' \
       'allocation'"'"'s counts less the cut pairs'"'"' direction-order routes); then the other pairs' \
       'go other ways round their rings as above, on live channels, with the detours'"'"' loads' \
       'among theirs, on seven eighths of the budget left (balanced before the detours were' \
       'placed, the random half of 8x8x8x8 went from about 1800 to 1928 as they landed); and' \
       'the checked-turn stage takes its dependency counts the same way, routes a pair left' \
       'without a candidate and shortens detours when 3 steps a pair are left for them.' \
       'A block'"'"'s table the verifier checks by key (doc/design.md): each displacement'"'"'s (and' \
       'source parity'"'"'s) common route once, its translates counted on a grid of a cell per' \
       'coordinate along the arcs, and only the pairs whose route differs walked (none of the' \
       '16.8 million pairs of the 4096-node block'"'"'s direction-order table).  A scattered or' \
       'linear set'"'"'s table it checks by counts: each pair'"'"'s word against the direction-order' \
       'word (a look-up per dimension), the direction-order routes'"'"' loads, run ends and turns' \
       'from the allocation'"'"'s counts, and only the pairs that differ or whose runs meet a failure' \
       'walked (the random quarter of 16x16x8x8 in 0.26 s instead of 2.0 s).  The' \
       'per-dimension bound decides a block'"'"'s channels dimension by dimension (every' \
       'combination of its coordinates occurs), and a scattered set'"'"'s by a pair with one end on' \
       'the channel'"'"'s own ring, then the channels left (on rings without an allocated node)' \
       'source by source, the targets a source allows being a box of ring arcs whose allocated' \
       'nodes a prefix count gives in 16 look-ups (`routing/check/metrics.cpp`).  The budget is' \
       'charged the verifier'"'"'s walk first (2 steps a pair) and given back what the check by' \
       'counts of a direction-order table leaves of it.' \
       'The whole machines of 4096 and 8192 nodes with failed routers take the closed form' \
       'around the failures without the search over every pair (its set-up alone is more than' \
       'the budget).  The closed form'"'"'s route depends on the displacement alone (and on the' \
       'source'"'"'s parity for a class split by source), so the pairs the failures cut, the' \
       'channel loads and the dependency counts the checked-turn stage starts from come from' \
       'the rows of one source per parity class of the even-sized coordinates (16 on 8x8x8x8)' \
       'instead of a walk over every pair'"'"'s route; the closed form is kept by displacement' \
       'class (`DisplacementRoutes`, `routing/generators/balanced/sub_torus.hpp`) and written' \
       'straight into the job'"'"'s table, so the 8192-node machine holds one table of 256 MiB,' \
       'not the whole machine'"'"'s as well.  The verifier checks a whole machine by key' \
       'too: it compares a line of routers (the same but for X) with the common routes a piece' \
       'at a time (the common words laid out by class, consecutive along X) and walks only the' \
       'pairs whose route is not their key'"'"'s common one or meets a failure, 0.2% of them on' \
       'these two machines.' \
       'What is left is the detours'"'"' shortening, an A* search over (router, encoding stage)' \
       'that asks the cycle test only about dependencies that can lie on a shortest route,' \
       'charged what its searches expand.' '' \
       'The first table adds, with `--reference`, the max load the same computation reaches' \
       'without a budget (`--time-budget 0`, the same CPU limit; `over 150 s` where it does' \
       'not finish) and the budgeted max load over it (`load/unb.`).  Every case that finishes' \
       'unbudgeted is within 1.05 of it.  The closest is the random half of 8x8x4x4, 316 where' \
       'the computation without a budget reaches 303 in 109 s of CPU.  Its budget' \
       'goes to the First/Last Step search under the deadlock guard, from the better of two' \
       'starts: the greedy choice over its direction-order and long-way routes (344), and the' \
       'greedy choice over the minimal ones searched without a cycle test over the long-way' \
       'ones too (338 after a tenth of the budget), which goes the long way only where that' \
       'lowers the max, so that the guarded search does not have to take long routes back one' \
       'by one.  The guard keeps, for each dependency it refused, the cycle its search found,' \
       'and refuses that dependency again without a search while the cycle stands (a' \
       'source'"'"'s First Step routes share their first turn, and are tried again and again);' \
       'a turn added against the order its searches prune by lifts the few channels it' \
       'reaches to its tail'"'"'s position instead of letting the order go stale (48 recounts of' \
       'the order in the 2 s).  The guard then takes 3.5 million of the 51 million steps, the' \
       'evaluations of candidates most of the rest.  The random half of 8x8x8x8' \
       'beside a failed router reaches about 1800 with its ring ways, as the intact machine'"'"'s' \
       'random half does; the searched stages around the failure reach 1796 in about 14 s of' \
       'CPU.  Under 0.5 s the 8192-node machine with two failed routers takes more than the' \
       'budget: much of its time goes to its table of 256 MiB, zeroed by the kernel (in a' \
       'mapping of its own on transparent huge pages, `angara/route.hpp`: 128 page faults' \
       'instead of 65536), written by the closed form a line of targets at a time (a whole' \
       'ring of X as two block copies of its line) and read back by the verifier, the rest to' \
       'the 147 thousand pairs the failures cut (100 thousand of them without a minimal' \
       'route, which go the long way round a ring), their candidates walked from their hop' \
       'counts with the coordinates kept along the walk (`Torus::Cursor`), each left as soon' \
       'as its peak is above the best one'"'"'s so far.  As that budget pays for no detour, the' \
       'dependencies of those routes are not counted.'
  local cases=block-8x8x4x4-in-8x8x8x8,block-8x8x8-in-16x16x8,block-8x8x8-in-16x16x16,random25-8x8x4x4,random50-8x8x4x4,random50-8x8x8x8,linear256-8x8x8x8,linear1024-8x8x8x8,fail1-8x8x4x4,fail3-8x8x4x4,block-8x8x8x8-in-16x16x8x8,fail1-8x8x8x8,fail2-16x8x8x8,random25-16x16x8x8,random50-fail1-8x8x8x8,random25-fail2-16x16x8x8
  [ "$quick" = 1 ] && cases=block-8x8x8-in-16x16x8,random25-8x8x4x4,linear256-8x8x8x8,fail1-8x8x4x4
  local status=0 half=0 whole=0
  run latency nice bench/angara-scale --cases latency --only "$cases" --case-limit 150 --reference --repeat 3 || status=$?
  run latency-half nice bench/angara-scale --cases latency --only "$cases" --case-limit 120 --time-budget 0.5 --repeat 3 ||
    half=$?
  [ "$quick" = 1 ] || run latency-whole nice bench/angara-scale --cases latency --only whole-32x32x32 \
    --case-limit 200 || whole=$?
  emit ''
  command_block latency latency-half
  if [ "$status" -ne 0 ]; then failed latency "$status"; return; fi
  emit ''
  grep '^|' "$work/latency.out" >> "$body"
  emit '' 'With `--time-budget 0.5`:' ''
  if [ "$half" -ne 0 ]; then failed latency-half "$half"; return; fi
  grep '^|' "$work/latency-half.out" >> "$body"
  [ "$quick" = 1 ] && return
  emit '' 'A whole 32x32x32, within the default memory limit of half the node'"'"'s memory:' ''
  command_block latency-whole
  if [ "$whole" -ne 0 ]; then failed latency-whole "$whole"; return; fi
  emit ''
  grep '^|' "$work/latency-whole.out" >> "$body"
}

section_transition() {
  emit '' '## Live switches' ''
  emit '`bench/angara-transition-bench` routes a job on every live node of a machine with some' \
       'failures already (`before`), fails one more router or cable (every other trial each),' \
       'rebuilds the table with the same generator and asks the transition planner' \
       '(angara-route(8), LIVE SWITCHES) how the running job can switch: directly (the union of' \
       'the installed and the new routes is deadlock-free), through intermediate tables' \
       '(`staged`), or only after quiescing the job; `unroutable`: no table before or after.' \
       '`broken` counts the quiesce cases where a pair whose installed route crosses the new' \
       'failure has a new route that closes a cycle with installed routes.'
  local trials cfg
  trials=$(size 20 100)
  emit '' '```sh'
  for cfg in "4x4x4 bfs 1" "4x4x4 bfs 2" "4x4x4 balanced 1" "4x4x4 balanced 2" "8x8 balanced 1" \
             "8x8 sssp 1" "4x2x2x2 balanced 0" "4x2x2x2 balanced 1"; do
    set -- $cfg
    run transition nice -n 19 bench/angara-transition-bench --machine "$1" --algorithm "$2" \
      --before "$3" --trials "$trials" --seed 1
    tail -n 1 "$work/transition.cmd" >> "$body"
    cat "$work/transition.out" >> "$work/transition.all"
    cat "$work/transition.time" >> "$work/transition.times"
  done
  emit '```' '' '| machine | generator | before | trials | direct | staged (tables) | quiesce (broken) | unroutable |' \
       '|---|---|---|---|---|---|---|---|'
  # "4x4x4 bfs, 1 failure(s) before, ... 100 trials (seed 1): 80 direct, 9 staged (9
  # intermediate tables), 11 quiesce (11 because ...), 0 unroutable"
  awk '{ gsub(/[,():]/, " ")
         printf "| %s | %s | %s | %s | %s | %s (%s) | %s (%s) | %s |\n",
                $1, $2, $3, $12, $16, $18, $20, $23, $25, $(NF - 1) }' \
    "$work/transition.all" >> "$body"
  awk '{ w += $1; c += $2 + $3 } END { printf "\n(%.1f s wall, %.1f s CPU.)\n", w, c }' \
    "$work/transition.times" >> "$body"
}

section_placement() {
  emit '' '## Placement' ''
  emit '`bench/angara-placement-bench` replays one seeded job trace per machine (jobs of 1-64' \
       'nodes, Poisson arrivals offering about 95% of the machine, FCFS without backfill, one' \
       'failed router per 128 nodes, at least 2) under three placements: `linear`, Slurm'"'"'s' \
       'best fit over consecutive free nodes in node order; `curve`, the same best fit along' \
       'the nested-block order `angara-route slurm-conf` writes; `select`, `angara-route select`' \
       'with the free nodes and the running jobs'"'"' channel loads.  Every job of 2+ nodes is' \
       'routed with balanced and verified.  Columns: jobs, jobs routed, `unrt` jobs that could' \
       'not be routed, mean job max gamma, mean per-dimension bound, `G/B` their ratio, `lp`' \
       'and `G/LP` the same with each job'"'"'s LP bound, `g/b` and `worst` the mean and worst' \
       'per-job ratio to the bound, mean route length, channels a job shares with running jobs' \
       'and jobs sharing any, utilisation, and the mean / worst wall milliseconds of one `select`.'
  show placement nice -n 19 bench/angara-placement-bench --jobs "$(size 40 200)" --seed 1 \
    --machines 4x4x4 --lp
  emit '' '### Select latency' ''
  emit '`angara-route select` on a machine of more than 512 nodes scores its candidates in' \
       'closed form (doc/placement.md, "Two users of the objective") and routes none of them' \
       'unless the leading set is tiny.  `angara-placement-bench --select-latency` times what' \
       'the command spends after reading its input, in CPU milliseconds (best of 5), on' \
       '8x8x8x8 with a seeded random half of the nodes taken by one running job (drawn as' \
       'angara-scale'"'"'s linear cases draw their busy half): the running job'"'"'s channels from its' \
       'route region (`busy_ch`), `select_nodes` (`select`), and the largest free block left' \
       'for the explanation (`largest`).  `routed` says whether any candidate was routed,' \
       '`foreign` the routers of the winner'"'"'s route region it does not own (0: an isolated' \
       'block), `bound` its bound (the shape'"'"'s for a block, the volume bound otherwise).'
  show select_latency bench/angara-placement-bench --select-latency --count 8 --count 37 --count 64 \
    --count 256 --count 1024
  show select_latency_empty bench/angara-placement-bench --select-latency --busy-fraction 0 --count 8 \
    --count 37 --count 64 --count 256 --count 1024
  # Measured by hand (the busy hostlist makes the command line 8 KB long).
  emit '' 'The command itself, with the same busy half (`--write-config DIR` writes the machine'"'"'s' \
       'angara.yaml and the busy hostlist), took 0.03-0.04 s user and 0.01 s sys, 44 MB, of' \
       'which about 0.02 s is the program'"'"'s start (loading the ns-3 and SimGrid libraries:' \
       '`angara-route select --help` takes 0.02 s user); its wall time moved between 0.12 and' \
       '0.33 s with the load of the shared machine.  Routing instead is what costs: the' \
       '2048-node running job with the configured generator alone takes half a minute and over' \
       'a gigabyte, and each scattered 256-node candidate about 0.6 s in direction order.' \
       '' '```sh' 'bench/angara-placement-bench --select-latency --write-config /tmp/sl' \
       '/usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KB peak" \' \
       '  cli/angara-route select --config /tmp/sl/machine.yaml --count 256 --busy "$(cat /tmp/sl/busy.hostlist)"' \
       '```'
}

section_replay() {
  emit '' '## Trace replay' ''
  emit '`bench/angara-placement-bench --trace FILE.swf` (or `--load L`: a seeded' \
       'Lublin-Feitelson trace per machine) replays a job trace through an FCFS + EASY-backfill' \
       'scheduler model (bench/trace_replay.hpp) with each placement policy: `angara`, the block' \
       'choice select/angara makes at every job test (placement/block_choice.hpp: the best free' \
       'isolated block; when no block has exactly the job'"'"'s size, the lowest node ids of the' \
       'smallest free isolated box that holds it; when no block at all, linear best fit,' \
       'counted as `fb`; with `--confine`, what it does under `routing.confine`: blocks of' \
       'every shape, a box'"'"'s staircase, then a free staircase, counted on the `confine:` line,' \
       'and every job routed on its own routers alone when a table exists there, as the' \
       'pipeline does, doc/placement.md "Confined routes"); `linear`, Slurm'"'"'s best fit along' \
       'node order; `tree`, a model of Slurm'"'"'s topology/tree over the switches `angara-route' \
       'slurm-conf --topology` writes (leaves of 8 nodes: the lowest switch that holds the job,' \
       'best fit, then its leaves best fit).  Every job of 2+ nodes is routed with balanced on' \
       'the live network and verified;' \
       '`--fast-routing` routes in direction order (balanced'"'"'s `turns: off`, what node selection' \
       'scores candidates with) to keep 500-job traces within minutes.  Columns: jobs in the trace,' \
       'started, `skip` larger than the live machine, `unrt` not routable (dropped), utilisation' \
       '(node-seconds of started jobs over live nodes x (last end - first submit)), mean wait,' \
       'mean bounded slowdown (10 s), `isol%` of the 2+-node jobs whose routes cross no router' \
       'outside their nodes (decided on the routes, not by geometry), `shared` channels a job'"'"'s' \
       'routes share with the jobs running at its start and `shload` those jobs'"'"' routes on the' \
       'channels it uses (means over 2+-node jobs), `shjob%` jobs sharing any, angara'"'"'s' \
       'placements by kind (`block` exact isolated, `box`, `open` a block that is not isolated,' \
       '`fb`), and with `--simulate N` the mean flow bandwidth of N sampled jobs'"'"' all-to-all' \
       '(1 MiB a flow) beside the all-to-alls of the jobs running at its start (the flow' \
       'simulator, doc/simulation.md), and `own%` the 2+-node jobs whose routes cross no router' \
       'outside their own nodes at all.  `--hold-box-spares` models select/angara'"'"'s' \
       '`HoldBoxSpares`: a job placed in a box (a subset of a larger free isolated box) holds the box'"'"'s' \
       'other routers while it runs; no job of 2+ nodes is given them, and a 1-node job (which' \
       'routes nothing) takes one of them first.  Such a job'"'"'s routes are balanced'"'"'s over its' \
       'own nodes on the live network, as the product computes them; as the box is isolated,' \
       'their minimal routes stay inside it and may cross only its held routers.  `isol%` then' \
       'counts a job whose routes cross no router outside its nodes and its held ones (the' \
       'per-job file says `isolated-in-box`), and `own%` only those on their own routers;' \
       'without the hold the two are equal.  The schedule counts nodes, so utilisation and wait differ' \
       'between policies only through unroutable jobs.  The Lublin-Feitelson parameters and the' \
       'load scaling are in bench/workload.hpp; the shipped trace `tests/data/lublin_4x4x4.swf`' \
       'was written by `--write-trace`.'
  emit '' 'The synthetic traces follow Lublin and Feitelson 2003 ("The workload on parallel' \
       'supercomputers: modeling the characteristics of rigid jobs") with the parameters the' \
       'authors'"'"' generator lublin99.c (Parallel Workloads Archive) sets for the whole sample,' \
       'batch and interactive jobs together: serial jobs 0.244, power-of-two sizes 0.576, log2' \
       'of the size two-stage uniform with ULow 0.8, UMed = UHi - 2.5, UHi = log2 of the live' \
       'nodes, UProb 0.86; ln(run time) hyper-gamma of gamma(4.2, 0.94) with probability' \
       'p = -0.0054 x nodes + 0.78, else gamma(312, 0.03), at most 12; ln(inter-arrival) of the' \
       'rush hours gamma(10.2303 x 1.0225, 0.4871), spread over 48 half-hour buckets by the' \
       'cdf of gamma(8.1737, 3.9631), the day starting at bucket 11.  The offered load is set' \
       'in one place: every model inter-arrival time is multiplied by one factor (`arrivals x`' \
       'on the trace line) before the daily cycle spreads it, found by bisection to within' \
       '0.5%; sizes and run times do not depend on it.  The paper'"'"'s section numbers are not' \
       'cited: no copy of the paper was at hand, only the generator'"'"'s source.'
  local status=0
  run replay_small nice -n 19 bench/angara-placement-bench --trace "$src/tests/data/lublin_4x4x4.swf" \
    --machines 4x4x4 --failed 2 --seed 2 --simulate 3 || status=$?
  sed -i "s|$src/|../|" "$work/replay_small.cmd" "$work/replay_small.out"
  emit ''
  command_block replay_small
  if [ "$status" -ne 0 ]; then failed replay_small "$status"; else output_block replay_small; took replay_small; fi
  status=0
  run replay_small_hold nice -n 19 bench/angara-placement-bench --trace "$src/tests/data/lublin_4x4x4.swf" \
    --machines 4x4x4 --failed 2 --seed 2 --simulate 3 --policies angara --hold-box-spares || status=$?
  sed -i "s|$src/|../|" "$work/replay_small_hold.cmd" "$work/replay_small_hold.out"
  emit '' 'With the hold:' ''
  command_block replay_small_hold
  if [ "$status" -ne 0 ]; then failed replay_small_hold "$status"; else output_block replay_small_hold; took replay_small_hold; fi
  status=0
  run replay_small_confine nice -n 19 bench/angara-placement-bench --trace "$src/tests/data/lublin_4x4x4.swf" \
    --machines 4x4x4 --failed 2 --seed 2 --simulate 3 --policies angara --confine || status=$?
  sed -i "s|$src/|../|" "$work/replay_small_confine.cmd" "$work/replay_small_confine.out"
  emit '' 'With confined routes (every job of 2+ nodes on its own routers, or on every live router):' ''
  command_block replay_small_confine
  if [ "$status" -ne 0 ]; then failed replay_small_confine "$status"; else output_block replay_small_confine; took replay_small_confine; fi
  if [ "$quick" = 0 ]; then
    show replay_8x8x8 nice -n 19 bench/angara-placement-bench --load 0.85 --jobs 500 --seed 1 \
      --machines 8x8x8 --fast-routing
  fi
}

# memory_case NAME CONFIG ALGORITHM [NODES]: one row of the memory table
memory_case() {
  local name=$1 config=$2 algorithm=$3 nodes=${4:-}
  local args=(generate --dry-run --json -c "$config.yaml" -a "$algorithm")
  local shown=
  [ -n "$nodes" ] && { args+=(--nodes "$nodes"); shown=" --nodes '$nodes'"; }
  local status=0
  (cd "$work/mem" && /usr/bin/time -f '%M %e' -o "$name.time" env ANGARA_THREADS=1 \
     cli/angara-route "${args[@]}" > "$name.json" 2> "$name.err") || status=$?
  echo "ANGARA_THREADS=1 /usr/bin/time -f %M cli/angara-route ${args[*]:0:7}$shown" >> "$work/memory.cmd"
  echo "bench_doc: $(date -u +%H:%M:%S) memory $config $algorithm ${nodes:-whole}" >&2
  if [ "$status" -ne 0 ]; then
    echo "| $config | $algorithm | ${nodes:-all} | failed (exit $status) | | | |" >> "$work/memory.rows"
    return
  fi
  python3 - "$work/mem/$name.json" "$work/mem/$name.time" "$config" "$algorithm" >> "$work/memory.rows" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
peak_kb, wall = open(sys.argv[2]).read().split()[:2]
measured = int(peak_kb) / 1024
estimate = report["memory"]["estimate_bytes"] / 2**20
print(f"| {sys.argv[3]} | {sys.argv[4]} | {report['nodes']} ({report['node_count']}) | "
      f"{measured:.1f} | {estimate:.1f} | {estimate / measured:.2f} | {float(wall):.1f} |")
PY
}

section_memory() {
  emit '' '## Memory estimate' ''
  emit 'Before a computation allocates anything large, the tool estimates its peak' \
       '(`routing/memory.cpp`): program and machine, the route table (4 bytes an ordered pair)' \
       'and the largest of the phases that follow one another (the generator'"'"'s own state,' \
       'the verifier, a route dump or cache entry, the LP bound).  Over `limits.memory` /' \
       '`--memory-limit` it refuses with exit status 9 before anything is allocated.  The' \
       'table compares the peak RSS of `generate --dry-run` (`/usr/bin/time -f %M`, one' \
       'thread) with the estimate the same command reports (`memory.estimate_bytes` of' \
       '`--json`); an `estimate / peak` below 1 is an estimate too low.  The `-lp`' \
       'configurations keep the report'"'"'s LP bound on (the default 2 s), the others set' \
       '`lp_bound_time: 0`.'
  mkdir -p "$work/mem"
  ln -s "$build/cli" "$work/mem/cli"
  local dims
  for dims in 8x8x8:511 16x8x8:1023 16x16x8:2047; do
    printf 'machine:\n  torus: %s\n  nodes: n[0000-%04d]\nrouting:\n  lp_bound_time: 0\n  virtual_channels: 8\n' \
      "${dims%:*}" "${dims#*:}" > "$work/mem/${dims%:*}.yaml"
  done
  printf 'machine:\n  torus: 8x8x8\n  nodes: n[0000-0511]\n' > "$work/mem/8x8x8-lp.yaml"
  printf 'machine:\n  torus: 6x6x6\n  nodes: n[0000-0215]\n' > "$work/mem/6x6x6-lp.yaml"
  printf '%s\n' 'machine:' '  torus: 8x8x8' '  nodes: n[0000-0511]' 'failures:' \
    '  nodes: ["3,3,3", "5,1,6"]' 'routing:' '  lp_bound_time: 0' '  virtual_channels: 8' \
    > "$work/mem/8x8x8-2routers.yaml"
  memory_case a 8x8x8 balanced
  memory_case b 8x8x8 sssp
  memory_case c 8x8x8 dfsssp
  memory_case d 6x6x6-lp balanced 'n[0000-0127]'
  if [ "$quick" = 0 ]; then
    memory_case e 8x8x8 nue
    memory_case f 8x8x8 lash
    memory_case g 8x8x8-2routers balanced
    memory_case h 8x8x8-2routers dfsssp
    memory_case i 8x8x8-lp balanced 'n[0000-0255]'
    memory_case j 16x8x8 balanced
    memory_case k 16x8x8 bfs
    memory_case l 16x8x8 sssp
    memory_case m 16x8x8 dfsssp
    memory_case n 16x8x8 balanced 'n[0000-0511]'
    memory_case o 16x8x8 genetic 'n[0000-0127]'
    memory_case p 16x16x8 balanced
  fi
  emit '' '```sh'
  local file
  for file in "$work"/mem/*.yaml; do
    grep -q -- "-c $(basename "$file") " "$work/memory.cmd" || continue
    emit "cat > $(basename "$file") <<'EOF'"
    cat "$file" >> "$body"
    emit 'EOF'
  done
  cat "$work/memory.cmd" >> "$body"
  emit '```' '' '| configuration | generator | nodes | measured peak MiB | estimate MiB | estimate / peak | wall s |' \
       '|---|---|---|---|---|---|---|'
  cat "$work/memory.rows" >> "$body"
}

section_simulation() {
  emit '' '## Simulated throughput' ''
  emit 'What a job feels of its routing, from `angara-route simulate` (SimGrid'"'"'s flow model:' \
       'every channel a link of 75 Gbit/s shared evenly by the flows on it; 1 MiB messages).' \
       'The all-to-all time (every flow at once up to 256 nodes, MPI'"'"'s pairwise rounds above)' \
       'and the effective bisection bandwidth (eBB: the mean bandwidth of a flow over random' \
       'bisections, the DFSSSP paper'"'"'s measure) of every generator on whole machines, a random' \
       'half and a compact block (the first half in node order), beside plain DOR, the table' \
       'OpenSM'"'"'s DOR engine would install.  Every phase of every run is checked against the flow' \
       'model'"'"'s bottleneck (max load x size / bandwidth): `(!)` would mark a miss above 5%.'
  local quick_flag=
  [ "$quick" = 1 ] && quick_flag=--quick
  # The script prints a markdown table: it goes in as it is, not as text.
  local status=0
  run simulate_table nice -n 19 bash "$src/bench/simulate_bench.sh" $quick_flag || status=$?
  emit '' '```sh' "bash ../bench/simulate_bench.sh $quick_flag   # in the build tree" '```' ''
  if [ "$status" -ne 0 ]; then failed simulate_table "$status"; else cat "$work/simulate_table.out" >> "$body"; took simulate_table; fi
  emit '' 'Reading the table: where every flow starts at once, the all-to-all takes its max load'"'"'s' \
       'time, and the load-balancing generators beat plain DOR most on scattered halves' \
       '(balanced 1.6x on 256 of 8x8x8, 2.9x on 128 of 4x4x4x4).  MPI'"'"'s pairwise rounds on the' \
       'whole 8x8x8 are shifts, which plain DOR routes with at most 4 flows on a channel and the' \
       'balancing generators with 7 to 9: DOR is 3-11% faster there, since a table balanced for' \
       'every pair at once is not balanced for each shift.  The eBB moves by at most 9% between' \
       'routings: the flows of a random bisection rarely meet on the busiest channels.'
  emit '' '### Speed of the simulator' ''
  emit 'The three sizes the simulator is held to: 511 pairwise rounds on 512 nodes (at most' \
       '60 s and 1 GB), every flow of an all-to-all at once on 256 scattered nodes (at most 60 s),' \
       'and 100 random bisections of 512 nodes (at most 30 s).  Each pattern on each table runs' \
       'in a process of its own; the solver ends flows together when their ends lie within 0.4%' \
       'of the phase'"'"'s fluid time (exact ends, one solve over all 65,280 flows per flow, take' \
       '243 s of CPU for the same all-to-all and give the same figures to four digits).'
  printf 'machine:\n  torus: 8x8x8\n  nodes: n[000-511]\n' > "$work/8x8x8.yaml"
  local half
  half=$(python3 -c "import random; print(','.join('n%03d' % i for i in sorted(random.Random(7).sample(range(512), 256))))")
  run simulate_pairwise nice -n 19 cli/angara-route simulate -c "$work/8x8x8.yaml" --algorithm balanced \
    --pattern alltoall-pairwise --no-baseline
  run simulate_alltoall nice -n 19 cli/angara-route simulate -c "$work/8x8x8.yaml" --nodes "$half" \
    --algorithm balanced --pattern alltoall --no-baseline
  run simulate_bisection nice -n 19 cli/angara-route simulate -c "$work/8x8x8.yaml" --algorithm balanced \
    --pattern bisection --samples 100 --no-baseline
  emit '' '```sh' "printf 'machine:\\n  torus: 8x8x8\\n  nodes: n[000-511]\\n' > 8x8x8.yaml"
  local name
  for name in simulate_pairwise simulate_alltoall simulate_bisection; do
    sed "s|$work/||; s|--nodes n[^ ]*|--nodes \"\$(random half of 256, seed 7)\"|" "$work/$name.cmd" >> "$body"
  done
  emit '```' '' '| run | simulated | wall s | CPU s | peak RSS MiB |' '|---|---|---|---|---|'
  local w u s m line
  for name in simulate_pairwise simulate_alltoall simulate_bisection; do
    read -r w u s m < "$work/$name.time"
    line=$(grep -E '^  (alltoall|bisection)' "$work/$name.out" | head -1 | awk '{ print $1 ": " $3 " " $4 }')
    emit "| $name | $line | $w | $(awk -v a="$u" -v b="$s" 'BEGIN { print a + b }') | $((m / 1024)) |"
  done
}

section_smpi_paper() {
  emit '' '## Against the paper'"'"'s Desmos measurements (SMPI)' ''
  emit 'The ANSU paper ran its tables on the real Desmos (section 5.2): Figure 6 times the' \
       'transpose, neighbor and tornado patterns (1 MiB a rank) and `osu_alltoall` on 32 nodes,' \
       'Table 3 NPB 3.3.1 class C on 32 nodes (4 ranks a node, MPICH 3.3).  `bench/smpi_paper.sh`' \
       '(in the source tree) builds kernels with the same communication (`bench/smpi/kernels.c`:' \
       'the patterns as `MPI_Sendrecv`, MPI_Alltoall of 1 MiB blocks, FT one all-to-all of the' \
       '512^3 grid, IS the bucket allreduce and the keys'"'"' all-to-all-v, CG the row reductions and' \
       'transposed exchange of 25 iterations, MG the face exchanges of one V-cycle, LU the two' \
       'wavefront sweeps and the face exchange of one SSOR iteration, at class C sizes) with' \
       '`smpicc`, writes the whole-Desmos platform of each generator with `angara-route simulate' \
       '--platform` and runs every kernel under `smpirun`, one rank a node, in SimGrid'"'"'s CM02' \
       'flow model (as `simulate`), without computation, with MPICH'"'"'s collective algorithms.' \
       'Gain: BFS'"'"'s time over the generator'"'"'s, less 1 (the paper'"'"'s Mops ratios measure the' \
       'same); the paper column quotes its text (Figure 6) and Table 3.'
  local status=0
  run smpi_paper nice -n 19 "$src/bench/smpi_paper.sh" || status=$?
  sed -i "s|$src/|../|" "$work/smpi_paper.cmd"
  emit ''
  command_block smpi_paper
  if [ "$status" -ne 0 ]; then
    failed smpi_paper "$status"
    return
  fi
  emit ''
  sed 's/[[:space:]]*$//' "$work/smpi_paper.out" >> "$body"
  took smpi_paper
  emit '' 'Where they agree.  Tornado (rank i to i + 15): SSSP takes the busiest channel from 3' \
       'flows to 2, +50% here against the paper'"'"'s "up to +52.9%".  The all-to-all (MPICH'"'"'s' \
       'pairwise exchange, 31 XOR rounds of 1 MiB): every generator beats BFS, by 9-15% here and' \
       'by up to 11.1% there.  FT (the same exchange of 2 MiB blocks), IS and CG: every generator' \
       'gains over BFS in both, SSSP ahead of Genetic in FT and CG as in Table 3.  MG: no' \
       'difference here, a negligible one (0.3-0.7%, about its CoV) there.' \
       '' \
       'Where they do not, and why.  (1) Size: the simulation times communication alone, the NPB' \
       'figures include computation, so CG'"'"'s +49% and FT'"'"'s and IS'"'"'s +15-25% become +2-5% in' \
       'the paper; the ratio is roughly the share of each benchmark'"'"'s time spent communicating.' \
       '(2) Order: the paper has Genetic 1.1% ahead of SSSP in the all-to-all and behind it in IS;' \
       'here it is the reverse.  Our tables are not the paper'"'"'s: SSSP and Genetic have its max' \
       'gamma on the whole Desmos (28 and 27, Table 2), but our BFS has 34, not 48, and our' \
       'Genetic search is seeded differently; within a few percent the order of two tables is' \
       'the order of a few pairwise rounds'"'"' busiest channels.  (3) A single permutation in the' \
       'flow model takes its busiest channel'"'"'s flow count times the message time, so the' \
       'patterns move in steps of 33% or 50% or not at all: transpose is 3 flows on a channel' \
       'under every table (the paper'"'"'s -3.9% for Genetic is below that step: adapter and' \
       'protocol effects the model does not have), and neighbor (rank i to i + 1) is 2 under BFS,' \
       'SSSP and balanced but 3 under our Genetic (-33%), where the paper saw Genetic and SSSP gain' \
       'up to 11.6%.  (4) LU is latency-bound, and every generator here routes every pair over' \
       'the same number of hops (all minimal), so the model has no latency difference to show' \
       '(the paper credits the neighbour latency of SSSP'"'"'s tables); only contention moves it,' \
       'by a few percent against SSSP.  (5) The model has one rank a node (the paper ran 4, whose' \
       'traffic shares the adapter), no contention in the adapter (a node'"'"'s link to its router' \
       'is a FATPIPE), no packets, virtual channels or adaptive injection, and MPI'"'"'s collectives' \
       'only as SMPI reimplements them.'
}

section_sweep() {
  emit '' '## Configuration-space sweep' ''
  emit '`bench/angara-sweep` (also `make sweep`) runs every generator and the default chain' \
       'with `routing.rules` angara and general, `routing.flow_control` bubble and none and' \
       '`routing.virtual_channels` 1 to 8 on a fixed set of machines: 2D to 4D, odd, even and' \
       'size-2 rings, size-2 dimensions with one and with two cables, the whole machine, a' \
       'compact block and a scattered half, with 0 to 3 failed routers and cables (seeded);' \
       'above 64 nodes with 1, 2 and 8 virtual channels (1 and 8 at 512 nodes) and genetic up to' \
       '128 nodes.  Each case is an `angara.yaml` text computed as `angara-route generate' \
       '--dry-run` computes it (`parse_config`, `compute_job_routes`, the verifier), in a child' \
       'process of its own on one thread, killed after 300 s of wall time (a `timeout`' \
       'finding: the prologue waits for it).  A case passes with a verified table or a documented' \
       'refusal: exit status 4 (no route), 3 (input) or 9 (memory limit), or 1 (the verifier'"'"'s' \
       'rejection) for the direction-order generators under `flow_control: none`, as' \
       'angara.yaml(5) says, with a message of one line of at most 400 bytes.  Anything else is a' \
       'finding: a crash, a hang, a sanitizer report, an exception of another type, a rejection' \
       'elsewhere, an empty, multi-line or longer message, or a peak RSS (wait4) above the' \
       'memory estimate (an estimate is an upper bound: exact holds Z3 to it).  `--quick`, the' \
       'small machines, runs in `make check` and' \
       'under ASan and UBSan in `tools/setup.sh test` (`tests/test_sweep.sh`); `--only REGEX`' \
       'reruns cases by name, `--show CASE` prints its `angara.yaml`.  Below, the findings are' \
       'counted by kind and generator; the first of them are listed after the table.'
  local mode=--full
  [ "$quick" = 1 ] && mode=--quick
  local status=0
  run config_sweep nice -n 19 bench/angara-sweep "$mode" --jobs 2 || status=$?
  emit ''
  command_block config_sweep
  if [ "$status" -gt 1 ]; then
    failed config_sweep "$status"
    return
  fi
  emit '' '```text'
  grep -v '^FINDING' "$work/config_sweep.out" | sed 's/[[:space:]]*$//' >> "$body"
  emit '```'
  if grep -q '^FINDING' "$work/config_sweep.out"; then
    emit '' "The first findings (of $(grep -c '^FINDING' "$work/config_sweep.out")):" '' '```text'
    grep '^FINDING' "$work/config_sweep.out" | head -n 25 | cut -c1-300 >> "$body"
    emit '```'
  fi
  took config_sweep
}

# ---------------------------------------------------------------- the run

# write_document [done]: the header and the sections so far to the output
# (after every section, so that an interrupted run keeps what it finished)
write_document() {
  finished=$(date +%s)
  cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
  memory=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
  {
    echo '# Benchmarks'
    echo
    local how=tools/bench_doc.sh
    [ "$quick" = 1 ] && how="$how --quick"
    echo "Generated by \`$how\` (\`make bench-doc\`): do not edit"
    echo 'by hand, change the script and rerun it.  Only the current figures; their history is'
    echo 'in `git log -p doc/benchmarks.md`.'
    echo
    echo "- machine: $(nproc) processors ($cpu_model), $memory of memory, shared with other work"
    echo "- date: $(date -u -d "@$started" '+%Y-%m-%d %H:%M') UTC," \
         "$(( (finished - started + 30) / 60 )) min wall in all"
    echo "- source: commit $commit"
    echo
    echo 'Commands run in the build tree (`bench/` and `cli/` are its directories).  Times are'
    echo 'wall and CPU seconds of the whole command under `nice -n 19` on a shared machine;'
    echo '`ANGARA_THREADS=1` keeps the generators and the verifier on one thread.'
    [ "$quick" = 1 ] && { echo; echo '**Quick run** (`--quick`): smaller sets than the full document.'; }
    cat "$body"
  } > "$work/benchmarks.md"
  [ "${1:-}" = done ] || printf '\n%s\n' '(Further sections not yet written: the run is incomplete.)' \
    >> "$work/benchmarks.md"
  if [ -n "$only" ] && [ -f "$output" ]; then
    # --only: the sections run replace their namesakes in the existing
    # document (or are appended); every other section is kept as it was.
    # The header names the machine of the full run: each section run here
    # says where and when it was measured.
    local measured
    measured="(This section: $(nproc) processors ($cpu_model), $memory of memory,"
    measured="$measured $(date -u -d "@$started" '+%Y-%m-%d %H:%M') UTC, commit $commit.)"
    python3 - "$output" "$body" "$output.tmp" "$measured" <<'PY'
import re, sys
def sections(text):
    parts = re.split(r'(?m)^(?=## )', text)
    return parts[0], [(p.split('\n', 1)[0], p) for p in parts[1:]]
head, kept = sections(open(sys.argv[1]).read())
_, fresh = sections(open(sys.argv[2]).read())
fresh = [(title, title + '\n\n' + sys.argv[4] + '\n' + text.split('\n', 1)[1]) for title, text in fresh]
fresh_titles = {title for title, _ in fresh}
out, placed = [], set()
for title, text in kept:
    if title in fresh_titles:
        text = next(t for k, t in fresh if k == title)
        placed.add(title)
    out.append(text)
out += [t for k, t in fresh if k not in placed]
# A blank line between sections, as the full run writes them.
out = [t.rstrip('\n') + ('\n' if k == len(out) - 1 else '\n\n') for k, t in enumerate(out)]
open(sys.argv[3], 'w').write(head + ''.join(out))
PY
    mv "$output.tmp" "$output"
    return
  fi
  cp "$work/benchmarks.md" "$output.tmp" && mv "$output.tmp" "$output"
}


wanted quality && section_quality && write_document
wanted nue && section_nue && write_document
wanted faults && section_faults && write_document
wanted adaptive && section_adaptive && write_document
wanted scale && section_scale && write_document
wanted time_budget && section_time_budget && write_document
wanted latency && section_latency && write_document
wanted transition && section_transition && write_document
wanted placement && section_placement && write_document
wanted replay && section_replay && write_document
wanted memory && section_memory && write_document
wanted simulation && section_simulation && write_document
wanted smpi_paper && section_smpi_paper && write_document
wanted sweep && section_sweep && write_document
wanted hiry && section_hiry && write_document
write_document done
echo "bench_doc: wrote $output in $(( $(date +%s) - started )) s" >&2
