#!/usr/bin/env bash
# Benchmarks of the release build: the coupled loop alone, the full default run (with HDF5 output,
# wall time and peak memory), and the whole test suite. Run from anywhere after tools/run-tests.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/release
"$build/bench/bench_twin" scenarios/nvl72-rack.yaml 3
"$build/bench/bench_twin" scenarios/cluster-64-racks.yaml 1
"$build/bench/bench_cluster_resolve"
"$build/bench/bench_power_tree" 600 3
"$build/bench/bench_workload" 24
if [ -x "$build/bench/bench_cfd" ]; then "$build/bench/bench_cfd"; fi
mkdir -p out
if [ -x "$build/bench/bench_viz" ] && command -v xvfb-run >/dev/null; then
  "$build/cli/racktwin" run scenarios/cluster-64-racks.yaml -o out/bench-cluster.h5 -q
  tests/viz/run-under-xvfb.sh "$build/bench/bench_viz" out/bench-cluster.h5
fi
mkdir -p out
/usr/bin/time -f "default run: %e s wall, %M KiB peak RSS" \
  "$build/cli/racktwin" run scenarios/nvl72-rack.yaml -o out/bench.h5 -q
ls -l out/bench.h5 | awk '{print "result file: " $5 " bytes"}'
start=$(date +%s%N)
ctest --test-dir "$build" -j2 >/dev/null
echo "test suite: $(( ($(date +%s%N) - start) / 1000000 )) ms wall (ctest -j2)"
