# Sourced by the tool's end-to-end scripts (test_cli.sh, test_reliability.sh):
# a scratch directory removed on exit, TAP-style result lines and the checks
# they share.  Set expect_timeout (seconds) before sourcing to bound each
# `expect`ed command; the script ends with tap_summary.
tool="$TOP_BUILDDIR/cli/angara-route"
data="$TEST_DATA_DIR"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok - $1"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $1"; }
expect() {  # expect NAME EXIT_CODE command...
  local name="$1" want="$2"
  shift 2
  ${expect_timeout:+timeout "$expect_timeout"} "$@" >"$work/out" 2>"$work/err"
  local got=$?
  if [ "$got" -eq "$want" ]; then ok "$name"; else
    not_ok "$name (exit $got, wanted $want)"
    sed 's/^/    /' "$work/out" "$work/err" | head -20
  fi
}
contains() {  # contains NAME FILE TEXT
  if grep -qF -- "$3" "$2"; then ok "$1"; else not_ok "$1: '$3' not in output"; sed 's/^/    /' "$2" | head -20; fi
}
# make install from the build tree, one test at a time (test_cli.sh and
# test_operations.sh run in parallel under make -j): install_from_build ARGS...
install_from_build() {
  (
    flock 9
    make -s -C "$TOP_BUILDDIR" "$@"
  ) 9>"$TOP_BUILDDIR/.angara-install.lock"
}
tap_summary() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
