#!/bin/bash
# The ANSU paper's Desmos measurements (section 5.2: Figure 6's patterns and
# Table 3's NPB class C on 32 nodes) replayed under SMPI: the communication
# kernels of bench/smpi/kernels.c, built with smpicc, run with smpirun on the
# whole-Desmos platform that `angara-route simulate --platform` writes for
# each generator, one rank per node.  Prints a Markdown table: each kernel's
# simulated time per generator, each generator's gain over BFS (time of BFS
# over its own, less 1; the paper's Mops ratios are the same measure) and the
# paper's figure.  About a minute.
#
# Usage: bench/smpi_paper.sh [--build DIR] [--generators LIST]
#   --build DIR        the built tree (default: the current directory)
#   --generators LIST  comma-separated, bfs first (default bfs,sssp,genetic,balanced)
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=$PWD
generators=bfs,sssp,genetic,balanced
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$(cd "$2" && pwd); shift ;;
    --generators) generators=$2; shift ;;
    *) sed -n '11,13p' "$0" >&2; exit 2 ;;
  esac
  shift
done
tool=$build/cli/angara-route
[ -x "$tool" ] || { echo "smpi_paper: no $tool (build first)" >&2; exit 2; }
for program in smpicc smpirun; do
  command -v "$program" >/dev/null || { echo "smpi_paper: no $program (Debian libsimgrid-dev)" >&2; exit 2; }
done
IFS=, read -r -a generator_list <<<"$generators"
[ "${generator_list[0]}" = bfs ] || { echo "smpi_paper: --generators must start with bfs" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
smpicc -O2 -o "$work/kernels" "$src/bench/smpi/kernels.c"

# SimGrid as angara-route simulate runs it: CM02 max-min sharing without TCP
# factors or reverse cross traffic; no computation (the host's own CPU time
# between MPI calls is left out); the collective algorithms of the paper's
# MPICH 3.3 on 32 ranks, where SMPI's MPICH selector differs from it: an
# all-to-all of large blocks is MPICH's pairwise exchange, on a power of two
# ranks the XOR pairs (SMPI's "pair"; the selector takes "ring"), and its
# MPI_Alltoallv posts every message at once (up to 32,
# MPIR_CVAR_ALLTOALL_THROTTLE: SMPI's "ompi_basic_linear"; the selector
# takes Bruck's).  "pair" serves IS's all-to-all of 4-byte counts too, where
# MPICH takes Bruck's: 1% of IS's time, and Bruck's is the slower here.
smpi_options=(--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:0
  --cfg=smpi/simulate-computation:no --cfg=smpi/host-speed:1Gf --cfg=smpi/coll-selector:mpich
  --cfg=smpi/alltoall:pair --cfg=smpi/alltoallv:ompi_basic_linear
  --log=xbt_cfg.thres:warning --log=smpi_coll.thres:warning)

for generator in "${generator_list[@]}"; do
  "$tool" simulate --algorithm "$generator" --platform "$work/$generator.xml" --hostfile "$work/hosts" \
    --pattern neighbor --no-baseline >/dev/null 2>"$work/$generator.err" ||
    { cat "$work/$generator.err" >&2; exit 1; }
  # One kernel a run: each starts with every rank at time 0.
  for kernel in transpose neighbor tornado alltoall ft is cg mg lu; do
    (cd "$work" && TMPDIR="$work" smpirun -platform "$generator.xml" -hostfile hosts -np 32 "${smpi_options[@]}" \
      ./kernels "$kernel") >>"$work/$generator.times"
  done
done

echo "Whole Desmos (4x2x2x2, 32 nodes, one rank a node), SimGrid $(smpirun -version 2>&1 | sed -n 's/^SimGrid version //p' | head -n 1)."
echo "Simulated milliseconds of each kernel's communication; gain: BFS's time over the generator's, less 1."
echo
python3 - "$work" "${generator_list[@]}" <<'PY'
import sys

work, generators = sys.argv[1], sys.argv[2:]
times = {}
for g in generators:
    for line in open(f"{work}/{g}.times"):
        kernel, seconds = line.split()
        times[(kernel, g)] = float(seconds)
# The paper's own figures (section 5.2): Figure 6 in its text, Table 3's Mops.
mops = {"lu": (364353, 367771, 368548), "mg": (374789, 376040, 377562), "cg": (88426, 90354, 90443),
        "ft": (172567, 181744, 181911), "is": (7771, 8073, 8181)}
paper = {"transpose": "genetic -3.9%, sssp better than bfs", "neighbor": "up to +11.6%",
         "tornado": "up to +52.9%", "alltoall": "+11.1%, genetic 1.1% over sssp"}
for kernel, (bfs, genetic, sssp) in mops.items():
    paper[kernel] = f"sssp {100 * (sssp / bfs - 1):+.1f}%, genetic {100 * (genetic / bfs - 1):+.1f}%"
kernels = []
for line in open(f"{work}/{generators[0]}.times"):
    kernels.append(line.split()[0])
others = generators[1:]
print("| kernel | " + " | ".join(f"{g} ms" for g in generators) + " | " +
      " | ".join(f"{g} gain" for g in others) + " | paper (32 nodes) |")
print("|---" * (1 + len(generators) + len(others) + 1) + "|")
for k in kernels:
    row = [k] + [f"{1e3 * times[(k, g)]:.3f}" for g in generators]
    row += [f"{100 * (times[(k, generators[0])] / times[(k, g)] - 1):+.1f}%" for g in others]
    row.append(paper.get(k, "-"))
    print("| " + " | ".join(row) + " |")
PY
