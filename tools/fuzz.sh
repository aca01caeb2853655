#!/usr/bin/env bash
# Builds the libFuzzer targets in build/fuzz (clang, ASan + UBSan, only core and scenarios) and
# runs each for SECONDS (default 60) on a seed corpus from the repository's inputs. Prints each
# target's duration and number of inputs executed; exits non-zero on any finding (crash, sanitizer
# report, leak, timeout, out-of-memory), whose input is copied to fuzz/findings/<target>/.
# The working corpus grows in build/fuzz/corpus/ (not in git).   Usage: tools/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
build=build/fuzz

CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DRACKTWIN_FUZZ=ON -DRACKTWIN_BUILD_TESTS=OFF -DRACKTWIN_BUILD_BENCH=OFF \
  -DRACKTWIN_BUILD_GUI=OFF >/dev/null
cmake --build "$build" -j2 --target fuzz_scenario fuzz_epanet fuzz_result fuzz_epw

# Seeds: the examples and test inputs of each format (copied, so libFuzzer never writes into them).
seeds="$build/seeds"
rm -rf "$seeds"
mkdir -p "$seeds"/fuzz_scenario "$seeds"/fuzz_epanet "$seeds"/fuzz_result "$seeds"/fuzz_epw
find scenarios tests -name '*.yaml' -size -64k -exec cp --backup=numbered -t "$seeds/fuzz_scenario" {} +
find tests scenarios data -name '*.inp' -size -64k -exec cp --backup=numbered -t "$seeds/fuzz_epanet" {} +
cp fuzz/seeds/fuzz_result/*.h5 "$seeds/fuzz_result/"  # made by fuzz/make_result_seeds.py
cp fuzz/seeds/fuzz_epw/*.epw "$seeds/fuzz_epw/"  # small EPW files (the sample year is too long)

status=0
failed=0
summary=()
targets=(fuzz_scenario fuzz_epanet fuzz_result fuzz_epw)
for target in "${targets[@]}"; do
  corpus="$build/corpus/$target"
  artifacts="$build/artifacts/$target/"
  rm -rf "$artifacts"
  mkdir -p "$corpus" "$artifacts"
  dict=()
  asan=detect_leaks=1
  case "$target" in
    fuzz_scenario) dict=(-dict=fuzz/scenario.dict) ;;
    fuzz_epanet) dict=(-dict=fuzz/epanet.dict) ;;
    # libhdf5 has no frame pointers: only the slow unwinder sees the H5Fopen/H5Oopen frames that
    # fuzz/lsan.supp matches.
    fuzz_result) asan=detect_leaks=1:fast_unwind_on_malloc=0 ;;
  esac
  log="$build/$target.log"
  echo "fuzz: $target for ${seconds} s (log $log)"
  start=$(date +%s)
  rc=0
  # -jobs/-workers unset: one process, one core. Leaks are findings, but for the libhdf5-internal
  # ones in fuzz/lsan.supp.
  ASAN_OPTIONS=$asan LSAN_OPTIONS=suppressions=fuzz/lsan.supp \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/fuzz/$target" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts" \
    "$corpus" "$seeds/$target" fuzz/findings/"$target" >"$log" 2>&1 || rc=$?
  elapsed=$(( $(date +%s) - start ))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  summary+=("$target: ${elapsed} s, ${runs:-?} inputs executed, exit $rc")
  echo "fuzz: $target: ${elapsed} s, ${runs:-?} inputs executed, exit $rc"
  if [ "$rc" -ne 0 ]; then
    status=1
    failed=$((failed + 1))
    tail -60 "$log" >&2
    # The input that stopped the fuzzer is the last one its log names. Other artifacts can be the
    # result reader's forked probe children's: a libhdf5 crash the probe contains (by design) is
    # recorded by libFuzzer's handler in the child, and is not a finding.
    stopped=$(sed -n 's/.*Test unit written to //p' "$log" | tail -1)
    for found in "$artifacts"*; do
      [ -f "$found" ] || continue
      [ -n "$stopped" ] && [ "$found" != "$stopped" ] && continue
      mkdir -p fuzz/findings/"$target"
      cp "$found" fuzz/findings/"$target"/
      echo "fuzz: $target: finding saved as fuzz/findings/$target/$(basename "$found")" >&2
    done
  fi
done
printf 'fuzz summary: %s\n' "${summary[@]}"
echo "fuzz: $((${#targets[@]} - failed)) passed, $failed failed"
exit "$status"
