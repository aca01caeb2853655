#!/usr/bin/env bash
# racktwin sweep on 200 one-rack hours (bench/sweep-200.yaml): wall time and peak memory for -j 1,
# -j 2 and 3 MPI ranks, the speed-ups, and the overhead per case (the sweep's wall time less the
# cases' own, per case). Run after a release build from the source root; the machine should be
# otherwise idle (the figures go in bench/README.md with the load they were taken at).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/release/cli/racktwin
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
run() {  # name, command...
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$out/$name.time" "$@" > /dev/null 2> "$out/$name.err"
  read -r wall rss < "$out/$name.time"
  echo "$name: wall ${wall} s, peak RSS ${rss} KiB"
}
run j1 "$bin" sweep bench/sweep-200.yaml -q -j 1 -o "$out/j1.h5"
run j2 "$bin" sweep bench/sweep-200.yaml -q -j 2 -o "$out/j2.h5"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Each rank under its own /usr/bin/time: memory per rank.
/usr/bin/time -f "%e" -o "$out/np3.time" mpirun --oversubscribe -np 3 \
  /usr/bin/time -f "rank peak RSS %M KiB" -a -o "$out/np3.ranks" \
  "$bin" sweep bench/sweep-200.yaml -q -o "$out/np3.h5" > /dev/null 2> "$out/np3.err"
echo "np3: wall $(cat "$out/np3.time") s; $(sort "$out/np3.ranks" | tr '\n' ';')"
/usr/bin/python3 - "$out" <<'PY'
import sys, h5py
d = sys.argv[1]
wall = {k: float(open(f"{d}/{k}.time").read().split()[0]) for k in ("j1", "j2", "np3")}
with h5py.File(f"{d}/j1.h5") as f:
    cases = f["cases/wall_time"][:]
print(f"speed-up -j 2 over -j 1: {wall['j1'] / wall['j2']:.2f}; 3 ranks over -j 1: {wall['j1'] / wall['np3']:.2f}")
print(f"cases {len(cases)}, mean case {cases.mean():.3f} s; overhead per case at -j 1: "
      f"{(wall['j1'] - cases.sum()) / len(cases) * 1e3:.1f} ms (process start, case list, tables, file)")
PY
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
