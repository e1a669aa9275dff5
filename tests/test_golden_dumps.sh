#!/usr/bin/env bash
# Routing does not move by accident: the route dumps of a fixed set of jobs
# (tests/golden_cases.txt: whole machines, blocks and scattered sets, failed
# routers and cables, every generator) must hash to the sums recorded in
# tests/data/golden_dumps.sha256.  A change meant to alter routing
# regenerates the sums with --update and says so in its commit.
set -u
. "$(dirname "$0")/tap_lib.sh"
cases="$(dirname "$0")/golden_cases.txt"
sums="$data/golden_dumps.sha256"
update=0
[ "${1:-}" = "--update" ] && update=1 && : > "$sums.new"

while IFS='|' read -r name config args; do
  name="$(echo "$name" | xargs)"
  config="$(echo "$config" | xargs)"
  case "$name" in '' | '#'*) continue ;; esac
  with_config=()
  [ "$config" != "-" ] && with_config=(--config "$data/$config")
  # shellcheck disable=SC2086  # the arguments are split as written in the case file
  if ! ANGARA_THREADS=1 "$tool" generate --dry-run --lp-time 0 "${with_config[@]}" $args \
      --dump-routes "$work/$name.dump" >"$work/out" 2>"$work/err"; then
    not_ok "$name: generate failed"
    sed 's/^/    /' "$work/err" | head -5
    continue
  fi
  got="$(sha256sum <"$work/$name.dump" | cut -d' ' -f1)"
  if [ "$update" = 1 ]; then
    echo "$got  $name" >>"$sums.new"
    ok "$name: recorded"
    continue
  fi
  want="$(awk -v n="$name" '$2 == n { print $1 }' "$sums")"
  if [ "$got" = "$want" ]; then ok "$name: route dump unchanged"; else
    not_ok "$name: route dump changed (sha256 $got, recorded ${want:-none})"
  fi
done <"$cases"

[ "$update" = 1 ] && mv "$sums.new" "$sums"
tap_summary
