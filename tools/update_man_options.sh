#!/usr/bin/env bash
# Writes the routing.options list of angara.yaml(5) from the generators'
# declarations (angara-route options --man), between the page's
# "BEGIN OPTIONS" and "END OPTIONS" lines.  tests/test_man_options.sh fails
# when the page and the declarations disagree.
#
# Usage: tools/update_man_options.sh [ANGARA_ROUTE]   (default build/cli/angara-route)
set -euo pipefail
top="$(cd "$(dirname "$0")/.." && pwd)"
tool="${1:-$top/build/cli/angara-route}"
page="$top/man/angara.yaml.5"
generated="$(mktemp)"
trap 'rm -f "$generated" "$page.new"' EXIT
"$tool" options --man >"$generated"
awk -v file="$generated" '
  /^\.\\" BEGIN OPTIONS/ { print; while ((getline line < file) > 0) print line; skip = 1; next }
  /^\.\\" END OPTIONS/ { skip = 0 }
  !skip { print }
' "$page" >"$page.new"
mv "$page.new" "$page"
echo "update_man_options: $page"
