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
  libslurm-dev slurmctld slurmd slurm-client munge dpkg-dev
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

# The source of the installed Slurm, for select/angara (select-angara(8)):
# the plugin is compiled with the headers of slurmctld's own source tree.
# Debian's source package of the installed version (a deb-src entry for the
# suites the binary packages come from), unpacked outside the git tree and
# configured with the fewest options (about 30 s) for its config.h.
slurm_source="${ANGARA_SLURM_SOURCE_DIR:-/usr/local/src/angara-slurm}"
slurm_tree=""
prepare_slurm_source() {
  local version tree
  version=$(dpkg-query -W -f='${Version}' slurmctld)
  tree="$slurm_source/slurm-wlm-${version%%-*}"
  slurm_tree=$tree
  if [ -f "$tree/config.h" ] && [ "$(cat "$slurm_source/.version" 2>/dev/null)" = "$version" ]; then
    return 0
  fi
  if [ ! -f /etc/apt/sources.list.d/angara-deb-src.sources ]; then
    echo "setup: adding a deb-src entry for Slurm's source (/etc/apt/sources.list.d/angara-deb-src.sources)"
    # The suites and archives of /etc/apt/sources.list.d/debian.sources
    # (Debian 12's deb822 file), as deb-src.
    as_root tee /etc/apt/sources.list.d/angara-deb-src.sources >/dev/null <<'SOURCES'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
    as_root apt-get update -q >/dev/null
  fi
  echo "setup: fetching and configuring the source of slurm-wlm $version in $slurm_source"
  as_root rm -rf "$slurm_source"
  as_root mkdir -p "$slurm_source"
  (cd "$slurm_source" && as_root apt-get source -q "slurm-wlm=$version" >/dev/null 2>&1) ||
    { echo "setup: apt-get source slurm-wlm=$version failed" >&2; exit 1; }
  (cd "$tree" && as_root ./configure -q --prefix=/usr --sysconfdir=/etc/slurm --without-munge --without-hdf5 \
    --without-rrdtool --without-pmix --without-ucx --without-hwloc --without-lua --without-nvml \
    --without-rsmi --without-yaml --without-jwt --without-http-parser --without-json \
    --without-freeipmi --disable-x11 >/dev/null 2>&1) ||
    { echo "setup: Slurm's ./configure failed in $tree (see $tree/config.log)" >&2; exit 1; }
  echo "$version" | as_root tee "$slurm_source/.version" >/dev/null
}

build_tree() {
  (cd "$top" && autoreconf -fi >/dev/null)
  mkdir -p "$build"
  cd "$build"
  [ -f Makefile ] || "$top/configure" -q --with-slurm-source="$slurm_tree"
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
prepare_slurm_source
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
