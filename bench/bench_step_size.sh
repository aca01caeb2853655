#!/usr/bin/env bash
# What fewer updates cost in accuracy: a scenario run at several macro (thermal) steps (`--step`;
# the scenario's number of electrical sub-steps a step stays, so they scale with it), against
# the finest step as the reference.
# Prints per step: wall time, the hottest GPU junction, the facility power's swing amplitude and
# PUE, with their differences from the reference.
#   bench/bench_step_size.sh [scenario=scenarios/cluster-64-racks.yaml] [duration_s=600] [steps...]
set -euo pipefail
cd "$(dirname "$0")/.."
scenario=${1:-scenarios/cluster-64-racks.yaml}
duration=${2:-600}
shift $(( $# > 2 ? 2 : $# ))
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(0.1 0.2 0.4 0.8 1 2 4)
work=build/bench-step-size
mkdir -p "$work"
for step in "${steps[@]}"; do
  start=$(date +%s.%N)
  build/release/cli/racktwin run "$scenario" --duration "$duration" --step "$step" \
    --record-interval 4 -q --save-state-interval 0 -o "$work/step-$step.h5" \
    --summary-json "$work/step-$step.json"
  end=$(date +%s.%N)
  echo "$step $(echo "$end - $start" | bc)" >> "$work/times.txt.$$"
done
/usr/bin/python3 - "$work" "$work/times.txt.$$" "${steps[@]}" <<'PY'
import json, sys
work, times, steps = sys.argv[1], sys.argv[2], sys.argv[3:]
wall = dict(line.split() for line in open(times))
rows = []
for s in steps:
    d = json.load(open("%s/step-%s.json" % (work, s)))
    rows.append((s, float(wall[s]), d["max_gpu_temperature_K"] - 273.15,
                 d["facility_power_dominant_amplitude_W"] / 1e3, d["pue"]))
ref = min(rows, key=lambda r: float(r[0]))
print("reference: step %s s" % ref[0])
print("%8s %8s %22s %26s %20s" % ("step s", "wall s", "max junction degC (dK)", "power swing kW (d %)", "PUE (d ppm)"))
for s, w, t, a, p in rows:
    print("%8s %8.2f %12.3f (%+6.3f) %14.1f (%+6.2f %%) %10.6f (%+5.0f)" % (
        s, w, t, t - ref[2], a, 100 * (a - ref[3]) / ref[3], p, 1e6 * (p - ref[4]) / ref[4]))
PY
rm -f "$work/times.txt.$$"
