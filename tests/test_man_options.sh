#!/usr/bin/env bash
# angara.yaml(5) lists the routing.options that the generators declare
# (angara-route options --man, written into the page by
# tools/update_man_options.sh), and generate --help lists them too.
set -u
. "$(dirname "$0")/tap_lib.sh"
page="$(dirname "$0")/../man/angara.yaml.5"

"$tool" options --man >"$work/generated"
sed -n '/^\.\\" BEGIN OPTIONS/,/^\.\\" END OPTIONS/p' "$page" | sed '1d;$d' >"$work/page"
if [ -s "$work/generated" ] && cmp -s "$work/generated" "$work/page"; then
  ok "angara.yaml(5) has the generators' declared options"
else
  not_ok "angara.yaml(5) differs from angara-route options --man (run tools/update_man_options.sh)"
  diff "$work/page" "$work/generated" | head -20 | sed 's/^/    /'
fi
expect "generate --help" 0 "$tool" generate --help
contains "generate --help lists balanced's long_way with its default" "$work/out" \
  "long_way: off | integer from 0 to 99 (default 2)"
expect "options rejects an argument" 2 "$tool" options --bogus
# A value the declaration does not accept is refused when the configuration loads.
printf 'machine: {torus: 4x4, nodes: "n[00-15]"}\nrouting:\n  options: {population: "1"}\n' >"$work/bad.yaml"
expect "a bad option value is refused" 3 "$tool" generate --dry-run --config "$work/bad.yaml"
contains "the refusal names the key, the generator and what it expects" "$work/err" \
  "routing.options: population: genetic expects an integer from 2 to 100000, got '1'"
tap_summary
