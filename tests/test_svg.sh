#!/usr/bin/env bash
# analyze --svg: the picture of every channel's all-to-all load on 2D, 3D and
# 4D machines, checked as XML independently of its writer (tools/check_svg.py:
# well-formed SVG 1.1, one element per cabled channel, failures marked) and
# rendered by headless Chromium to PNG (tools/png_colours.py: the top colour
# of the scale and the red of the failure marks are on screen).  Without
# Chromium the rendering is skipped, except under CI=true, where it fails.
set -u
expect_timeout=120
. "$(dirname "$0")/tap_lib.sh"
tools="$TEST_DATA_DIR/../tools"
top_colour='#fde725'  # scale_colour(1.0): the busiest channel
failure_colour='#d62728'

# picture NAME ANALYZE-ARGS...: analyze with --svg $work/NAME.svg, the report
# kept in $work/NAME.report.
picture() {
  local name="$1"
  shift
  expect "$name: analyze --svg" 0 "$tool" analyze "$@" --svg "$work/$name.svg"
  cp "$work/out" "$work/$name.report"
  contains "$name: the report names the picture" "$work/out" \
    "picture of the alltoall load per channel written to $work/$name.svg"
  if command -v xmllint >/dev/null; then
    expect "$name: xmllint reads it" 0 xmllint --noout "$work/$name.svg"
  fi
}

# 2D, 4x4 with a failed router: 16 routers x 4 channels; n05 (1,1) is crossed
# out and its 4 channels out and 4 in are dashed; the 15 live nodes are the job.
printf 'machine:\n  torus: 4x4\n  nodes: n[00-15]\nfailures:\n  nodes: [n05]\n' >"$work/4x4.yaml"
expect "4x4: dump" 0 "$tool" generate --config "$work/4x4.yaml" --dry-run --dump-routes "$work/4x4.dump"
picture 4x4 --config "$work/4x4.yaml" --dump "$work/4x4.dump"
expect "4x4: the picture has 64 channels and n05 marked" 0 python3 "$tools/check_svg.py" "$work/4x4.svg" \
  --channels 64 --dead 8 --failed-cables 0 --failed-router n05 --job-nodes 15
# The top of the scale is the alltoall pattern's most flows on one channel.
busiest=$(awk '$1 == "alltoall" { print $3 }' "$work/4x4.report")
contains "4x4: the legend's max is the alltoall's busiest channel ($busiest)" "$work/4x4.svg" "max $busiest flows</text>"

# 3D, 3x3x3: three X-Y slices side by side, 27 x 6 channels.
expect "3x3x3: dump" 0 "$tool" generate --config "$data/torus_3x3x3.yaml" --dry-run --dump-routes "$work/3d.dump"
picture 3d --config "$data/torus_3x3x3.yaml" --dump "$work/3d.dump"
expect "3x3x3: the picture has 162 channels" 0 python3 "$tools/check_svg.py" "$work/3d.svg" --channels 162 --dead 0 \
  --job-nodes 27

# 4D, the built-in Desmos (4x2x2x2, one cable in Y, Z and K): 32 x 2 X channels
# and 32 in each of Y, Z and K.
expect "Desmos: dump" 0 "$tool" generate --dry-run --dump-routes "$work/desmos.dump"
picture desmos --dump "$work/desmos.dump"
expect "Desmos: the picture has 160 channels" 0 python3 "$tools/check_svg.py" "$work/desmos.svg" --channels 160 \
  --dead 0 --failed-cables 0 --job-nodes 32

# 4D with failures, from a job's table files: this Desmos has two cables in
# every size-2 dimension, 32 x 8 channels; desmos05's 8 out and 8 in are dead,
# the failed cable 0,0,0,0 +X is its two channels; the job is the 7 live nodes
# of desmos[00-07].
expect "faulty Desmos: job tables" 0 "$tool" generate --config "$data/desmos_faulty.yaml" --nodes 'desmos[00-04,06-07]' \
  --output "$work/tables" --job-name 7
picture faulty --config "$data/desmos_faulty.yaml" --tables "$work/tables"
expect "faulty Desmos: failures marked, job outlined" 0 python3 "$tools/check_svg.py" "$work/faulty.svg" \
  --channels 256 --dead 16 --failed-cables 2 --failed-router desmos05 --job-nodes 7
expect "--json names the picture" 0 "$tool" analyze --dump "$work/desmos.dump" --svg "$work/again.svg" --json
contains "... in its object" "$work/out" "\"svg\":\"$work/again.svg\""
cmp -s "$work/desmos.svg" "$work/again.svg" && ok "the same routes, the same picture" ||
  not_ok "two pictures of the same dump differ"

# select --map: the machine with the chosen set and the running jobs, each
# filled with its own colour, on the built-in Desmos with desmos05 down.
expect "select --map" 0 "$tool" select -N 8 --down desmos05 --busy 'desmos[00-03,08-11]' --busy 'desmos[16-23]' \
  --map "$work/map.svg"
contains "select --map: the set beside the two jobs" "$work/out" "desmos[24-31]"
expect "select --map: 8 nodes outlined, 16 of other jobs, desmos05 crossed out" 0 python3 "$tools/check_svg.py" \
  "$work/map.svg" --channels 160 --failed-router desmos05 --job-nodes 8 --other-job-nodes 16
contains "select --map: the legend names the running jobs" "$work/map.svg" "running desmos[16-23]</text>"

# Bad paths: one line, exit status 5, nothing written; an old picture stays
# whole when the analysis fails (a dump that cannot be read is status 5 too).
expect "--svg into a missing directory" 5 "$tool" analyze --dump "$work/desmos.dump" --svg "$work/no/such/x.svg"
contains "... says why" "$work/err" "angara-route: cannot write $work/no/such/x.svg: "
lines=$(grep -vc '^angara-route: note: ' "$work/err")  # the note of the built-in machine aside
[ "$lines" -eq 1 ] && ok "... in one line" || not_ok "error of $lines lines"
mkdir "$work/dir.svg"
expect "--svg naming a directory" 5 "$tool" analyze --dump "$work/desmos.dump" --svg "$work/dir.svg"
expect "--svg of an empty name" 2 "$tool" analyze --dump "$work/desmos.dump" --svg ''
cp "$work/desmos.svg" "$work/old.svg"
printf 'not a dump\n' >"$work/bad.dump"
expect "a bad dump leaves the old picture" 5 "$tool" analyze --dump "$work/bad.dump" --svg "$work/old.svg"
cmp -s "$work/desmos.svg" "$work/old.svg" && ok "... whole" || not_ok "the old picture was changed"
[ -z "$(ls -A "$work" | grep '^\.')" ] && ok "no temporary file left behind" || not_ok "stray files: $(ls -A "$work" | grep '^\.')"

# Rendering in a real browser.
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  if [ "${CI:-}" = true ]; then
    not_ok "chromium is not installed (tools/setup.sh test installs it); CI must render the pictures"
  else
    echo "ok - # SKIP chromium is not installed: the pictures are not rendered"
  fi
else
  for name in 4x4 3d desmos faulty map; do
    rm -f "$work/$name.png"
    expect "$name: headless Chromium renders it" 0 env HOME="$work" "$browser" --headless --no-sandbox --disable-gpu \
      --user-data-dir="$work/chromium" --screenshot="$work/$name.png" --window-size=1200,900 "file://$work/$name.svg"
    colours=("$top_colour")
    case $name in 4x4 | faulty) colours+=("$failure_colour") ;; map) colours+=("$failure_colour" '#ffe0b3') ;; esac
    if [ -s "$work/$name.png" ] && [ "$(stat -c %s "$work/$name.png")" -gt 10000 ]; then
      ok "$name: the PNG is over 10 kB"
    else
      not_ok "$name: no PNG, or a small one ($(stat -c %s "$work/$name.png" 2>/dev/null) bytes)"
    fi
    expect "$name: the PNG shows the busiest channel's colour${colours[1]:+ and the failure marks}" 0 \
      python3 "$tools/png_colours.py" "$work/$name.png" "${colours[@]}"
  done
fi
tap_summary
