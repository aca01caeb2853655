#!/usr/bin/env bash
# A weather year of the 64-rack hall (scenarios/cluster-64-racks.yaml, issue 19 item 4) with the
# quasi-steady fast-forward: the training job on all racks all year at its period-average power
# (`power: average`), on the synthetic New York EPW (data/weather/new-york-synthetic.epw), fine
# step 1 s with one fast sub-step, steps up to `max_step` (default 300 s) while the GPU junctions
# move less than the tolerance (default 0.05 K), the cooling controllers sampled every 10 s
# (simulation.control_step), hourly records, no checkpoints. Then a reference: a week (from
# `ref_start`, default 1 July) at fixed 1 s steps, and the same week with fast-forward; prints
# wall and CPU time, peak memory and the figures of each, and the PUE difference of the week.
#   bench/bench_annual_hall.sh [max_step_s=300] [tolerance_K=0.05] [ref_start_h=4344] [ref_days=7]
#   BENCH_SKIP_YEAR=1 or BENCH_SKIP_REFERENCE=1 leave out a part.
set -euo pipefail
cd "$(dirname "$0")/.."
max_step=${1:-300}
tolerance=${2:-0.05}
ref_start=${3:-4344}
ref_days=${4:-7}
work=build/bench-annual-hall
mkdir -p "$work"
data=$(pwd)/data
program=build/release/cli/racktwin

# scenario NAME DURATION_S FAST_FORWARD(0/1) WEATHER_START_H: the hall on the weather file.
scenario() {
  local name=$1 duration=$2 fast=$3 start=$4 ff=""
  [ "$fast" = 1 ] && ff="\n  fast_forward: {max_step: $max_step s, tolerance: $tolerance K}"
  sed -e "s|^data_dir: ../data|data_dir: $data|" \
      -e "s|^  duration: 3600 s|  duration: $duration s|" \
      -e "s|^  step: 1 s|  step: 1 s\n  control_step: 10 s|" \
      -e "s|^  substeps: 10|  substeps: 1|" \
      -e "s|^  record_interval: 10 s|  record_interval: 3600 s|" \
      -e "s|^  seed: 1|  seed: 1$ff|" \
      -e "s|^    duration: 3600 s|    duration: $duration s\n    power: average|" \
      -e "s|^ambient:|ambient:\n  weather: $data/weather/new-york-synthetic.epw\n  weather_start: $start h\n# constant values replaced by the weather year:|" \
      -e "s|^  dry_bulb: 25 degC|#  dry_bulb: 25 degC|" -e "s|^  wet_bulb: 18 degC|#  wet_bulb: 18 degC|" \
      scenarios/cluster-64-racks.yaml > "$work/$name.yaml"
}

# run NAME: runs the scenario, prints its cost and figures.
run() {
  local name=$1
  echo "== $name"
  /usr/bin/time -f "wall %e s, user %U s, peak %M KB" "$program" run "$work/$name.yaml" \
    --allow-outside-paths -q --save-state-interval 0 -o "$work/$name.h5" \
    --summary-json "$work/$name.json" 2>&1 | grep -v "RATING EXCEEDED" || true
  /usr/bin/python3 - "$work/$name.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for k in ["pue", "wue_L_per_kWh", "chiller_time_s", "free_cooling_time_s", "peak_day_number",
          "peak_day_facility_power_mean_W", "max_gpu_temperature_K", "energy_balance_relative_error",
          "energy_audit_relative_error_max", "fast_forward_steps", "fast_forward_fine_steps",
          "fast_forward_longest_step_s"]:
    print(f"{k:36s} {s.get(k)}")
PY
}

year=31536000
if [ "${BENCH_SKIP_YEAR:-0}" != 1 ]; then
  scenario hall-year-ff $year 1 0
  run hall-year-ff
fi
if [ "${BENCH_SKIP_REFERENCE:-0}" != 1 ]; then
  period=$((ref_days * 86400))
  scenario hall-week-fine $period 0 "$ref_start"
  scenario hall-week-ff $period 1 "$ref_start"
  run hall-week-fine
  run hall-week-ff
  /usr/bin/python3 - "$work/hall-week-fine.json" "$work/hall-week-ff.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
print(f"week PUE: fine {a['pue']:.6f}, fast-forward {b['pue']:.6f}, "
      f"difference {100 * (b['pue'] / a['pue'] - 1):+.4f} %")
print(f"week max GPU junction: fine {a['max_gpu_temperature_K'] - 273.15:.2f} degC, "
      f"fast-forward {b['max_gpu_temperature_K'] - 273.15:.2f} degC")
PY
fi
