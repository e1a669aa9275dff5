#!/usr/bin/env bash
# The architecture holds (doc/design.md, "Layout"): the include rules of
# tools/check_layout.py (engines never include another engine or the
# checks, the checks never include an engine, the shared code depends on
# the Angara model only, no include cycle), and spank-angara.so carries
# none of the admin tool's code.
set -u
. "$(dirname "$0")/tap_lib.sh"
top="$(cd "$(dirname "$0")/.." && pwd)"

if python3 "$top/tools/check_layout.py" "$top" >"$work/out" 2>&1; then ok "include rules"; else
  not_ok "include rules"
  sed 's/^/    /' "$work/out" | head -30
fi

# A violation must be caught: an engine that includes another, in a copy.
mkdir -p "$work/tree"
cp -r "$top/angara" "$top/routing" "$top/placement" "$top/slurm" "$top/spank" "$top/cli" "$work/tree/"
sed -i '1i #include "routing/generators/sssp.hpp"' "$work/tree/routing/generators/bfs.cpp"
sed -i '1i #include "routing/generators/bfs.cpp"' "$work/tree/routing/check/metrics.cpp"
if python3 "$top/tools/check_layout.py" "$work/tree" >"$work/out" 2>&1; then not_ok "a violation is found"; else
  contains "an engine including another is named with file and line" "$work/out" \
    "routing/generators/bfs.cpp:1: includes routing/generators/sssp.hpp, another engine"
  contains "a check including an engine is named" "$work/out" "routing/check/metrics.cpp:1: includes routing/generators/bfs.cpp"
fi

# The plugin links the core, slurm/ and spank/ only: no symbol of the
# admin tool's namespace or of its subcommands.
so="$TOP_BUILDDIR/spank/.libs/spank-angara.so"
if [ -f "$so" ]; then
  nm -C "$so" >"$work/symbols"
  if grep -q 'install_job_table' "$work/symbols"; then ok "nm reads the plugin's symbols"; else
    not_ok "nm shows no install_job_table in $so"; fi
  if grep -E 'angara::cli::|_command\(int, char\*\*\)|angara::Placement|select_nodes' "$work/symbols" >"$work/cli"; then
    not_ok "spank-angara.so contains admin tool code"
    head -10 "$work/cli" | sed 's/^/    /'
  else
    ok "spank-angara.so contains no admin tool code"
  fi
else
  not_ok "no plugin at $so"
fi
tap_summary
