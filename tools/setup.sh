#!/usr/bin/env bash
# Set-up for a fresh Debian 12 machine: installs the packages the project
# needs, builds it out of tree in ./build, and then either runs the main job
# on the built-in Desmos machine ("run") or every test ("test").
#
#   tools/setup.sh run    # install, build, print the Desmos routing report
#   tools/setup.sh test   # install, build, make check (unit + live Slurm cluster + short fuzz runs),
#                         # distcheck, and the unit tests and the quick sweep again under ASan + UBSan (build-asan/)
set -euo pipefail

mode="${1:-run}"
top="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$top/build}"

packages=(
  build-essential autoconf automake libtool pkg-config
  libyaml-dev check libhwloc-dev libmetis-dev libglpk-dev libz3-dev libsodium-dev libsimgrid-dev
  libslurm-dev slurmctld slurmd slurm-client munge
  man-db groff-base
  clang
)
# Only the tests need them: headless Chromium renders analyze --svg's pictures
# (tests/test_svg.sh, which fails without it under CI=true).
if [ "$mode" = test ]; then
  packages+=(chromium)
fi

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

install_packages() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    as_root apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
}

build_tree() {
  (cd "$top" && autoreconf -fi >/dev/null)
  mkdir -p "$build"
  cd "$build"
  [ -f Makefile ] || "$top/configure" -q
  make -j"$(nproc)" >/dev/null
}

# The unit tests built with AddressSanitizer and UndefinedBehaviorSanitizer
# in a tree of their own, and the sweep's quick subset; any report fails them.
# (The other shell tests and the live cluster stay on the normal build:
# slurmd does not load an ASan plugin.)
sanitizer_unit_tests() {
  local asan="${ASAN_BUILD_DIR:-$top/build-asan}"
  local flags="-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
  mkdir -p "$asan"
  cd "$asan"
  [ -f Makefile ] || "$top/configure" -q CXXFLAGS="$flags" LDFLAGS="-fsanitize=address,undefined"
  make -j"$(nproc)" >/dev/null
  local unit
  unit=$(cd "$top/tests" && ls check_*.cpp | sed 's/\.cpp$//' | tr '\n' ' ')
  # And the configuration-space sweep's quick subset (tests/test_sweep.sh,
  # about 3 minutes here): every generator's children under the sanitizers.
  unit="$unit test_sweep.sh"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    make -j"$(nproc)" check TESTS="$unit" || { cat tests/test-suite.log 2>/dev/null; exit 1; }
  echo "setup: the unit tests and the quick sweep pass under ASan and UBSan"
}

install_packages
build_tree

case "$mode" in
  run)
    "$build/cli/angara-route" generate --dry-run
    ;;
  test)
    cd "$build"
    make -j"$(nproc)" check || { cat tests/test-suite.log 2>/dev/null; exit 1; }
    if [ "${SKIP_DISTCHECK:-0}" != 1 ]; then
      # The fuzz runs were made above; distcheck only builds and briefly runs them.
      ANGARA_CLUSTER_TEST=skip ANGARA_FUZZ_SECONDS=5 make -j"$(nproc)" distcheck >/dev/null
      echo "setup: make distcheck passed"
    fi
    if [ "${SKIP_SANITIZERS:-0}" != 1 ]; then sanitizer_unit_tests; fi
    ;;
  *)
    echo "usage: tools/setup.sh run|test" >&2
    exit 2
    ;;
esac
