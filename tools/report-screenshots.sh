#!/usr/bin/env bash
# Regenerates the report screenshots in docs/images/ (README, docs/report.md): the default run,
# a fault, a sweep and a comparison, each rendered in headless Chromium and checked against its
# HDF5 file by tests/report/check_report.py on the way. Needs a release build.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/release/cli/racktwin
out=build/release/report-screenshots
mkdir -p docs/images
check() { /usr/bin/python3 tests/report/check_report.py --racktwin "$bin" "$@"; }
check --scenario scenarios/nvl72-rack.yaml --out "$out/default" --height 2000 \
      --screenshot docs/images/report-default.png
check --scenario scenarios/faults/cdu-pump-trip.yaml --out "$out/fault" --height 2000 \
      --screenshot docs/images/report-fault.png
check --sweep-of scenarios/sweeps/row-on-one-cdu.yaml --out "$out/sweep" --height 1700 \
      --screenshot docs/images/report-sweep.png
check --scenario scenarios/faults/cdu-pump-trip-standby.yaml \
      --scenario scenarios/faults/cdu-pump-trip.yaml --out "$out/comparison" --height 2000 \
      --screenshot docs/images/report-comparison.png
