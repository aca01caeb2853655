#!/usr/bin/env bash
# Hyperscale sites (issue 19): the step loop's speed of a 100,008-GPU site (1,389 GB300 NVL72
# racks, 174 rows on in-row CDUs) and a 300,024-GPU site (4,167 racks in 4 halls) on 1 and 2
# threads (bench_twin, no output, best of `repeat`), then the whole run through the program with
# its default result file: wall time, peak memory, file size. Sites from bench/gen_site.py
# (facility water a 32 degC boundary at each CDU, one training job on all racks).
#   bench/bench_site.sh [seconds=600] [repeat=1]    BENCH_SITES="100k 300k" to choose
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
repeat=${2:-1}
work=build/bench-site
mkdir -p "$work"
for site in ${BENCH_SITES:-100k 300k}; do
  case $site in
    100k) python3 bench/gen_site.py 1389 --hours "$(python3 -c "print($seconds/3600)")" > "$work/site-$site.yaml" ;;
    300k) python3 bench/gen_site.py 4167 --halls 4 --layout --hours "$(python3 -c "print($seconds/3600)")" > "$work/site-$site.yaml" ;;
  esac
  for threads in 1 2; do
    echo "== $site, $threads thread(s), $seconds s simulated"
    /usr/bin/time -f "bench_twin: %e s wall, %U s user, peak %M KiB" \
      build/release/bench/bench_twin "$work/site-$site.yaml" "$repeat" "$threads" 2>&1 | tail -3
    rm -f "$work/site-$site.h5"
    /usr/bin/time -f "racktwin run (default output): %e s wall, %U s user, peak %M KiB" \
      build/release/cli/racktwin run "$work/site-$site.yaml" -q --threads "$threads" \
      --save-state-interval 0 -o "$work/site-$site.h5" 2>&1 | tail -1
    ls -l "$work/site-$site.h5" | awk '{printf "result file: %.1f MB\n", $5 / 1e6}'
  done
done
