#!/bin/bash
# The layered backends' benchmark: dfsssp and lash under
# rules: general, up to 8 virtual channels, on the fault-free tori 4x4x4, 8x8,
# 6x6x6, 4x4x4x4 and 8x8x8 and on 4x4x4 with two failed cables and with one
# failed router; each with the default path step (paths: pairs) and with
# Algorithm 1 of the DFSSSP paper as published (paths: trees), next to
# balanced, the default generator, as the baseline, and nue, measured in the
# same run.
# Prints one markdown row per table: virtual channels used, max gamma, the
# lower bound, generation time (the report's), the whole command's wall time
# and peak memory, and the max gamma and time as ratios to balanced.
#
# Usage: tools/bench_layered.sh [ANGARA_ROUTE]   (default build/cli/angara-route)
set -u
tool=${1:-build/cli/angara-route}
[ -x "$tool" ] || { echo "bench_layered: no angara-route at $tool (build first)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# config NAME DIMS NODES [FAILURES-YAML]
config() {
  {
    printf 'machine:\n  torus: %s\n  nodes: n[0000-%04d]\n' "$2" $(($3 - 1))
    [ -n "${4:-}" ] && printf '%s\n' "$4"
    printf 'routing:\n  rules: general\n  virtual_channels: 8\n'
  } > "$work/$1.yaml"
}
config 4x4x4 4x4x4 64
config 8x8 8x8 64
config 6x6x6 6x6x6 216
config 4x4x4x4 4x4x4x4 256
config 8x8x8 8x8x8 512
config 4x4x4-2cables 4x4x4 64 $'failures:\n  links: ["0,0,0 +X", "1,2,3 +Y"]'
config 4x4x4-router 4x4x4 64 $'failures:\n  nodes: ["1,1,1"]'

field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$work/out.json" | tr -d '"'; }

echo "| machine | generator | paths | VCs | max gamma | bound | gen s | wall s | RSS MB | gamma/balanced | gen/balanced |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for machine in 4x4x4 8x8 6x6x6 4x4x4x4 8x8x8 4x4x4-2cables 4x4x4-router; do
  base_gamma='' base_seconds=''
  for run in balanced:- nue:- dfsssp:pairs lash:pairs dfsssp:trees lash:trees; do
    algorithm=${run%%:*} paths=${run#*:}
    cfg="$work/$machine.yaml"
    if [ "$paths" = trees ]; then
      cfg="$work/$machine-trees.yaml"
      sed 's/^  virtual_channels: 8$/  virtual_channels: 8\n  options:\n    paths: trees/' "$work/$machine.yaml" > "$cfg"
    fi
    /usr/bin/time -f '%e %M' -o "$work/time" "$tool" generate --config "$cfg" --algorithm "$algorithm" \
      --dry-run --json > "$work/out.json" 2> "$work/err"
    read -r wall rss < <(tail -1 "$work/time")
    if [ "$(field ok)" != true ]; then
      why=$(grep -o 'need[^(]*' "$work/err" | head -1)
      echo "| $machine | $algorithm | $paths | refused: ${why:-$(head -1 "$work/err")} | | | | $wall | $((rss / 1024)) | | |"
      continue
    fi
    gamma=$(field gamma_max) seconds=$(field seconds)
    if [ "$algorithm" = balanced ]; then base_gamma=$gamma base_seconds=$seconds; fi
    ratio_gamma=$(awk -v a="$gamma" -v b="$base_gamma" 'BEGIN { printf "%.3f", a / b }')
    ratio_time=$(awk -v a="$seconds" -v b="$base_seconds" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
    echo "| $machine | $algorithm | $paths | $(field virtual_channels) | $gamma | $(field lower_bound) |" \
      "$seconds | $wall | $((rss / 1024)) | $ratio_gamma | $ratio_time |"
  done
done
