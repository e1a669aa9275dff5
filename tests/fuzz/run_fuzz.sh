#!/usr/bin/env bash
# Builds the libFuzzer harnesses of the readers (clang, ASan + UBSan), runs
# every kept finding (tests/fuzz/regressions/HARNESS/) once, then fuzzes each
# harness for $ANGARA_FUZZ_SECONDS (default 30) seconds from seeds made of
# conf/ and tests/data/ (doc/fuzzing.md).  Skips (exit 77) with a message
# when clang or its libFuzzer runtime is missing.
#
#   tests/fuzz/run_fuzz.sh                    # from make check (TOP_BUILDDIR, TEST_DATA_DIR set)
#   ANGARA_FUZZ_SECONDS=600 ANGARA_FUZZ_ONLY=config tests/fuzz/run_fuzz.sh   # one long run
set -u
top_src=$(cd "$TEST_DATA_DIR/../.." && pwd)
fuzz_src="$top_src/tests/fuzz"
work="$TOP_BUILDDIR/tests/fuzz-work"
seconds="${ANGARA_FUZZ_SECONDS:-30}"
cxx="${ANGARA_FUZZ_CXX:-clang++}"
harnesses="${ANGARA_FUZZ_ONLY:-config hostlist table_file route_dump}"
tool="$TOP_BUILDDIR/cli/angara-route"
# A run longer than this is a finding.  The largest input the readers accept
# is slow by nature under the sanitizers and coverage: a 255x255x16 torus
# with its 1040400 names takes 3.5 s to read here, a second hostlist of them
# under failures.nodes as much again, and a CI machine may be slower.
timeout=30

if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "SKIP: $cxx not found: the fuzz harnesses need clang (apt-get install clang)"
  exit 77
fi
mkdir -p "$work/obj" "$work/artifacts"
probe="$work/probe.cpp"
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' >"$probe"
if ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe" -o "$work/probe" >"$work/probe.log" 2>&1; then
  echo "SKIP: $cxx cannot build a libFuzzer program with ASan and UBSan:"
  sed 's/^/    /' "$work/probe.log" | head -5
  exit 77
fi

flags=(-std=c++17 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
  -I"$top_src" -I"$TOP_BUILDDIR" -DSYSCONFDIR='"/usr/local/etc"')
yaml_libs=$(pkg-config --libs yaml-0.1 2>/dev/null || echo -lyaml)

# The model library, built once with the sanitizers and libFuzzer's coverage.
objects=()
for source in "$top_src"/angara/*.cpp; do
  object="$work/obj/$(basename "$source" .cpp).o"
  if [ ! -f "$object" ] || [ "$source" -nt "$object" ] || [ -n "$(find "$top_src/angara" -name '*.hpp' -newer "$object")" ]; then
    "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$source" -o "$object" || { echo "FAIL: cannot compile $source"; exit 1; }
  fi
  objects+=("$object")
done
for harness in $harnesses; do
  "$cxx" "${flags[@]}" -fsanitize=fuzzer "$fuzz_src/fuzz_$harness.cpp" "${objects[@]}" $yaml_libs \
    -o "$work/fuzz_$harness" || { echo "FAIL: cannot build fuzz_$harness"; exit 1; }
done

# Seeds: our own files, made afresh each run.
seeds="$work/seeds"
rm -rf "$seeds" && mkdir -p "$seeds"/{config,hostlist,table_file,route_dump}
cp "$top_src"/conf/angara.yaml "$top_src"/tests/data/*.yaml "$seeds/config/"
for machine in "$top_src"/tests/data/*.yaml "$top_src/conf/angara.yaml"; do
  sed -n 's/^ *nodes: *\([^#]*\)$/\1/p' "$machine" | head -1 >"$seeds/hostlist/$(basename "$machine" .yaml)"
done
printf 'desmos[00-03,07],login1' >"$seeds/hostlist/mixed"
printf 'n[0000-4095]' >"$seeds/hostlist/wide"
printf 'rack[1-2]-node[01-04]' >"$seeds/hostlist/nested"
if [ -x "$tool" ]; then
  "$tool" generate --nodes 'desmos[00-03]' --output "$work/seed-tables" --job-name 1 >/dev/null 2>&1 &&
    cp "$work"/seed-tables/desmos0[0-3].rt "$seeds/table_file/"
  "$tool" generate --config "$top_src/tests/data/desmos_faulty.yaml" --nodes 'desmos[00-03]' --output "$work/seed-faulty" \
    --job-name 2 --algorithm bfs >/dev/null 2>&1 && cp "$work/seed-faulty/desmos00.rt" "$seeds/table_file/faulty.rt"
  # The first byte picks the torus of fuzz_route_dump.cpp: 0 4x4, 1 Desmos, 2 3x3x3, 3 4x4x4.
  dump_seed() {  # dump_seed SELECTOR NAME generate-arguments...
    local selector="$1" name="$2"
    shift 2
    "$tool" generate --dry-run --lp-time 0 --dump-routes "$work/$name.dump" "$@" >/dev/null 2>&1 &&
      { printf "\\x$selector"; cat "$work/$name.dump"; } >"$seeds/route_dump/$name"
  }
  dump_seed 00 torus4x4 --config "$top_src/tests/data/torus_4x4.yaml" --nodes 'node[01-06]'
  dump_seed 01 desmos --nodes 'desmos[00-07]'
  dump_seed 01 desmos-general --nodes 'desmos[00-05]' --rules general --algorithm nue
  dump_seed 02 torus3x3x3 --config "$top_src/tests/data/torus_3x3x3.yaml" --nodes 'n[00-05]'
  dump_seed 03 torus4x4x4 --config "$top_src/tests/data/torus_4x4x4.yaml" --nodes 'n[00-05]'
fi

failed=0
for harness in $harnesses; do
  regressions="$fuzz_src/regressions/$harness"
  inputs=$(find "$regressions" -type f ! -name README 2>/dev/null | sort)
  if [ -n "$inputs" ]; then
    # shellcheck disable=SC2086
    if "$work/fuzz_$harness" -rss_limit_mb=2048 -timeout="$timeout" $inputs >"$work/$harness-regressions.log" 2>&1; then
      echo "ok - fuzz_$harness: $(echo "$inputs" | wc -l) kept finding(s) pass"
    else
      echo "not ok - fuzz_$harness: a kept finding fails again"
      grep -E "ERROR|SUMMARY|Running:|runtime error" "$work/$harness-regressions.log" | head -10 | sed 's/^/    /'
      failed=$((failed + 1))
    fi
  fi
  corpus="$work/corpus/$harness"
  mkdir -p "$corpus"
  if "$work/fuzz_$harness" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout="$timeout" -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/$harness-" "$corpus" "$seeds/$harness" \
    >"$work/$harness-fuzz.log" 2>&1; then
    stats=$(grep -E "^stat::number_of_executed_units" "$work/$harness-fuzz.log" | awk '{print $2}')
    cov=$(grep -E "#[0-9]+.*(DONE|pulse|NEW|REDUCE).*cov:" "$work/$harness-fuzz.log" | tail -1 | sed -n 's/.*\(cov: [0-9]* ft: [0-9]*\).*/\1/p')
    echo "ok - fuzz_$harness: ${seconds} s, $stats runs, $cov, no finding"
  else
    echo "not ok - fuzz_$harness: a finding (kept in $work/artifacts/; add it to $regressions/ with the fix)"
    grep -E "ERROR|SUMMARY|Test unit written|runtime error|Slowest" "$work/$harness-fuzz.log" | head -10 | sed 's/^/    /'
    failed=$((failed + 1))
  fi
done
[ "$failed" -eq 0 ]
