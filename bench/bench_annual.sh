#!/usr/bin/env bash
# A weather year of scenarios/mixed-hall.yaml (issue 17): the hall's training jobs all year on the
# synthetic New York EPW (data/weather/new-york-synthetic.epw), at 300 s steps with one fast
# sub-step and the cooling controllers sampled every 10 s (simulation.control_step), hourly
# records, no checkpoints. Prints wall and CPU time, peak memory, and the annual figures.
#   bench/bench_annual.sh [control_step_s=10] [step_s=300]
set -euo pipefail
cd "$(dirname "$0")/.."
control=${1:-10}
step=${2:-300}
work=build/bench-annual
mkdir -p "$work"
data=$(pwd)/data
year=31536000
sed -e "s|^data_dir: ../data|data_dir: $data|" \
    -e "s|^  duration: 3600 s|  duration: $year s|" \
    -e "s|^  step: 1 s|  step: $step s\n  control_step: $control s|" \
    -e "s|^  substeps: 5|  substeps: 1|" \
    -e "s|^  record_interval: 10 s|  record_interval: 3600 s|" \
    -e "s|^    duration: 3600 s|    duration: $year s|" \
    -e "s|^ambient:|ambient:\n  weather: $data/weather/new-york-synthetic.epw\n# constant values replaced by the weather year:|" \
    -e "s|^  dry_bulb: 25 degC|#  dry_bulb: 25 degC|" -e "s|^  wet_bulb: 18 degC|#  wet_bulb: 18 degC|" \
    scenarios/mixed-hall.yaml > "$work/mixed-hall-year.yaml"
/usr/bin/time -f "wall %e s, user %U s, peak %M KB" build/release/cli/racktwin run \
  "$work/mixed-hall-year.yaml" --allow-outside-paths -q --save-state-interval 0 \
  -o "$work/mixed-hall-year.h5" --summary-json "$work/mixed-hall-year.json"
/usr/bin/python3 - "$work/mixed-hall-year.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for k in ["pue", "pue_without_air_side_plant", "wue_L_per_kWh", "chiller_time_s",
          "free_cooling_time_s", "air_plant_chiller_time_s", "air_plant_free_cooling_time_s",
          "peak_day_number", "peak_day_facility_power_mean_W", "max_gpu_temperature_K",
          "energy_balance_relative_error", "energy_audit_relative_error_max"]:
    print(f"{k:36s} {s.get(k)}")
PY
