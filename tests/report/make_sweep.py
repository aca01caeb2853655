#!/usr/bin/python3
"""Assembles a small sweep file from runs of a base scenario, in the layout docs/capacity.md gives
for `racktwin sweep` (root attributes, /sweep, /base, /cases, /parameters, /metrics), so the
sweep report is tested on a file of that layout with real run results in it.

Cases: facility water supply at 30, 34 and 38 degC, each without a fault and with a CDU pump trip
at 600 s, each run for 900 s.

Usage: make_sweep.py --racktwin BIN --base SCENARIO.yaml --out SWEEP.h5 --work DIR
"""
import argparse
import json
import os
import re
import subprocess
import sys

import h5py
import numpy as np

TEMPERATURES_C = [30.0, 34.0, 38.0]
FAULTS = ["", "pump_trip row1/cdu1 at 600 s"]
SWEEP_TEXT = """# Facility water temperature against a CDU pump trip (made by tests/report/make_sweep.py)
racktwin_sweep: 1
base: {base}
design: grid
parameters:
  - key: facility_water.supply_temperature
    values: [30 degC, 34 degC, 38 degC]
faults:
  - none
  - {{at: 600 s, action: pump_trip, target: row1/cdu1}}
"""
SI_UNITS = [("_m3_per_s", "m3/s"), ("_L_per_kWh", "L/kWh"), ("_K", "K"), ("_J", "J"), ("_W", "W"),
            ("_s", "s"), ("_Pa", "Pa"), ("_m3", "m3"), ("_Hz", "Hz")]


def unit_of(key):
    for suffix, unit in SI_UNITS:
        if key.endswith(suffix):
            return unit
    return "1"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--racktwin", required=True)
    parser.add_argument("--base", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    base_text = open(args.base).read()
    data_dir = os.path.join(os.path.dirname(os.path.abspath(args.base)), "..", "data")
    cases = []
    for t in TEMPERATURES_C:
        for fault in FAULTS:
            case = "case-%04d" % len(cases)
            text = re.sub(r"supply_temperature: 32 degC", "supply_temperature: %g degC" % t, base_text, count=1)
            text = re.sub(r"^data_dir: .*$", "data_dir: " + os.path.normpath(data_dir), text, flags=re.M)
            patch = "facility_water.supply_temperature: %g degC" % t
            if fault:
                text += "\nevents:\n  - {at: 600 s, action: pump_trip, target: row1/cdu1}\n"
                patch += "\nevents: [{at: 600 s, action: pump_trip, target: row1/cdu1}]"
            scenario = os.path.join(args.work, case + ".yaml")
            with open(scenario, "w") as f:
                f.write(text)
            summary = os.path.join(args.work, case + ".json")
            run = subprocess.run([args.racktwin, "run", scenario, "-o", os.path.join(args.work, case + ".h5"),
                                  "-q", "--duration", "900", "--summary-json", summary,
                                  "--save-state-interval", "0", "--allow-outside-paths"],
                                 capture_output=True, text=True)
            metrics = json.load(open(summary)) if run.returncode == 0 else {}
            cases.append({"id": case, "t": t, "fault": fault, "patch": patch, "metrics": metrics,
                          "status": "ok" if run.returncode == 0 else "failed",
                          "error": run.stderr.strip()[:500]})
    keys = []
    for c in cases:
        for k in c["metrics"]:
            if k not in keys:
                keys.append(k)
    text_type = h5py.string_dtype("utf-8")
    with h5py.File(args.out, "w") as f:
        f.attrs["file_kind"] = "racktwin sweep"
        f.attrs["program_version"] = subprocess.run([args.racktwin, "--version"], capture_output=True,
                                                    text=True).stdout.strip()
        f.attrs["sweep_path"] = "sweeps/facility-water-vs-pump-trip.yaml"
        f.attrs["base_path"] = args.base
        f.attrs["design"] = "grid"
        f.attrs["seed"] = "1"
        f.attrs["cases"] = str(len(cases))
        f.attrs["failed"] = str(sum(1 for c in cases if c["status"] != "ok"))
        f.attrs["complete"] = "1"
        f.create_dataset("sweep/text", data=SWEEP_TEXT.format(base=args.base), dtype=text_type)
        f.create_dataset("base/text", data=base_text, dtype=text_type)
        for name in ("id", "status", "error", "fault", "patch"):
            f.create_dataset("cases/" + name, data=[c[name] for c in cases], dtype=text_type)
        f.create_dataset("cases/result_file", data=["" for c in cases], dtype=text_type)
        f.create_dataset("cases/wall_time", data=np.zeros(len(cases)))
        p = f.create_dataset("parameters/facility_water.supply_temperature", data=[c["t"] for c in cases])
        p.attrs["units"] = "degC"
        f.create_dataset("parameters/facility_water.supply_temperature_text",
                         data=["%g degC" % c["t"] for c in cases], dtype=text_type)
        for k in keys:
            values = [c["metrics"].get(k) for c in cases]
            d = f.create_dataset("metrics/" + k, data=[np.nan if v is None else v for v in values])
            d.attrs["units"] = unit_of(k)
            d.attrs["description"] = k
    return 0 if all(c["status"] == "ok" for c in cases) else 1


if __name__ == "__main__":
    sys.exit(main())
