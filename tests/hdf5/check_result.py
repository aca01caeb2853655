#!/usr/bin/python3
"""Checks a RackTwin HDF5 result file with h5py, independently of RackTwin's own reader.

Usage: check_result.py [--allow-incomplete] FILE.h5

Checks the layout documented in core/include/racktwin/core/Hdf5Result.hpp: root attributes,
/scenario/text, the `complete` flag, /time, and for every float dataset its `units`,
`description`, `aggregation` and `interval` attributes (a `max` dataset beside its sampled
sibling of the same shape), finiteness and shape. Aggregates over entities
(`<group>_by_<level>/<name>.<statistic>`, `<group>_hottest/...`) carry `statistic` and `source`:
their source dataset exists with the same aggregation (a mean over GPUs of means is a mean), an
argmax or hottest index is a whole number that indexes /entities/<group>, and a `max` aggregate's
sibling is the aggregate of the sampled channel with the same statistic. Prints one line per problem and exits 1 if there
is any; otherwise prints a one-line summary and exits 0. Needs /usr/bin/python3 (h5py, numpy).
"""
import argparse
import json
import sys

import h5py
import numpy as np

# Rows read at a time, so that long runs are checked in bounded memory.
BLOCK_VALUES = 1 << 22


def is_text(value):
    """True for a variable-length UTF-8 string attribute, which h5py returns as str."""
    return isinstance(value, str)


def check_aggregate(f, ds, statistic, aggregation):
    """The rules of an aggregate over entities (core/OutputDetail.hpp)."""
    path = ds.name
    problems = []
    if statistic not in ("mean", "max", "argmax", "hottest", "hottest_index"):
        return [f"{path}: statistic {statistic!r} is none of mean, max, argmax, hottest, "
                f"hottest_index"]
    source_path = ds.attrs.get("source")
    if not is_text(source_path) or not source_path.startswith("/"):
        return [f"{path}: attribute 'source' is {source_path!r}, expected a dataset path"]
    # The source is written when any of its entities keep their own columns.
    source = f.get(source_path)
    source_aggregation = source.attrs.get("aggregation") if isinstance(source, h5py.Dataset) \
        else aggregation
    if statistic in ("mean", "max", "hottest") and aggregation != source_aggregation:
        problems.append(f"{path}: aggregation {aggregation!r}, its source {source_aggregation!r}")
    if statistic == "mean" and source_aggregation == "max":
        problems.append(f"{path}: a mean over entities of interval maxima")
    if statistic in ("argmax", "hottest_index"):
        group = ds.parent.name.lstrip("/").split("_by_")[0].split("_hottest")[0]
        entities = f.get(f"entities/{group}")
        if not isinstance(entities, h5py.Dataset):
            return problems + [f"{path}: /entities/{group} is missing"]
        values = ds[()]
        if values.size and (not np.all(values == np.floor(values)) or values.min() < 0
                            or values.max() >= entities.shape[0]):
            problems.append(f"{path}: indices outside /entities/{group}")
    return problems


def check_limit_tables(f):
    """A complete run that checked design limits keeps them: /limits holds one row per limit,
    and its own columns give the summary's counts (checked rows, rows with a first violation)
    and the smallest margin."""
    if "summary_json" not in f.attrs or int(f.attrs.get("complete", 0)) != 1:
        return []
    values = json.loads(f.attrs["summary_json"])  # {key: SI value or null}
    if not isinstance(values, dict):
        return ["attribute 'summary_json' is not a JSON object"]
    checked = values.get("design_limits_checked")
    if checked is None:
        return []
    limits = f.get("limits")
    headroom = f.get("headroom")
    if not isinstance(limits, h5py.Group) or not isinstance(headroom, h5py.Group):
        return [f"the summary checked {checked:g} design limits but /limits or /headroom is "
                f"missing"]
    problems = []
    rows_checked = float(np.sum(limits["checked"][()]))
    if rows_checked != checked:
        problems.append(f"/limits/checked sums to {rows_checked:g}, the summary's "
                        f"design_limits_checked is {checked:g}")
    violated = values.get("design_limits_violated")
    first = limits["first_violation_time"][()]
    rows_violated = float(np.count_nonzero(np.isfinite(first)))
    if violated is not None and rows_violated != violated:
        problems.append(f"/limits has {rows_violated:g} rows with a first violation, the "
                        f"summary's design_limits_violated is {violated:g}")
    margin = values.get("design_margin_min")
    fractions = limits["worst_margin_fraction"][()]
    fractions = fractions[np.isfinite(fractions)]
    if margin is not None and fractions.size and abs(float(np.min(fractions)) - margin) > 1e-12:
        problems.append(f"/limits' smallest worst_margin_fraction is {np.min(fractions):g}, the "
                        f"summary's design_margin_min is {margin:g}")
    return problems


def check_file(f, allow_incomplete):
    problems = []

    for name in ("program_version", "scenario_path"):
        if name not in f.attrs:
            problems.append(f"root attribute '{name}' is missing")
        elif not is_text(f.attrs[name]):
            problems.append(f"root attribute '{name}' is not a variable-length UTF-8 string")

    text = f.get("scenario/text")
    if not isinstance(text, h5py.Dataset):
        problems.append("/scenario/text is missing")
    else:
        value = text[()]
        if isinstance(value, bytes):
            value = value.decode("utf-8", errors="replace")
        if not isinstance(value, str) or not value:
            problems.append("/scenario/text is empty or not a string")

    if "complete" not in f.attrs:
        problems.append("root attribute 'complete' is missing")
    elif int(f.attrs["complete"]) != 1 and not allow_incomplete:
        problems.append(f"run is incomplete (complete = {int(f.attrs['complete'])})")

    problems += check_limit_tables(f)

    samples = None
    time = f.get("time")
    if not isinstance(time, h5py.Dataset):
        problems.append("/time is missing")
    elif time.ndim != 1:
        problems.append(f"/time has shape {time.shape}, expected 1-D")
    else:
        samples = time.shape[0]
        t = time[()]
        if samples > 1 and not np.all(np.diff(t) > 0):
            problems.append("/time is not strictly increasing")
        if time.attrs.get("units") != "s":
            problems.append(f"/time has units {time.attrs.get('units')!r}, expected 's'")

    datasets = []

    def collect(_name, obj):
        if isinstance(obj, h5py.Dataset) and obj.dtype.kind == "f":
            datasets.append(obj)

    f.visititems(collect)
    for ds in datasets:
        path = ds.name
        for attribute in ("units", "description"):
            value = ds.attrs.get(attribute)
            if value is None:
                problems.append(f"{path}: attribute '{attribute}' is missing")
            elif not is_text(value):
                problems.append(f"{path}: attribute '{attribute}' is not a variable-length "
                                f"UTF-8 string")
            elif not value:
                problems.append(f"{path}: attribute '{attribute}' is empty")
        # /limits and /headroom are tables of the run (one row per design limit or group), not
        # records: they keep units and descriptions, and NaN means "none" there.
        if path.startswith(("/limits/", "/headroom/")):
            continue
        if path != "/time":
            aggregation = ds.attrs.get("aggregation")
            if aggregation not in ("mean", "sample", "max"):
                problems.append(f"{path}: attribute 'aggregation' is {aggregation!r}, expected "
                                f"'mean', 'sample' or 'max'")
            if not is_text(ds.attrs.get("interval")) or not ds.attrs.get("interval"):
                problems.append(f"{path}: attribute 'interval' is missing or empty")
            statistic = ds.attrs.get("statistic")
            name = ds.name.rsplit("/", 1)[1]
            if statistic is not None:
                problems += check_aggregate(f, ds, statistic, aggregation)
            if aggregation == "max":
                base, _, suffix = name.partition(".")
                sibling_name = base[:-len("_max")] + ("." + suffix if suffix else "")
                sibling = ds.parent.get(sibling_name)
                if not base.endswith("_max") or not isinstance(sibling, h5py.Dataset):
                    problems.append(f"{path}: a 'max' dataset without its sampled sibling")
                elif sibling.shape != ds.shape:
                    problems.append(f"{path}: shape {ds.shape}, its sibling {sibling.shape}")

        if ds.ndim == 0:
            problems.append(f"{path}: scalar float dataset, expected (samples, ...)")
            continue
        if samples is not None and ds.shape[0] != samples:
            problems.append(f"{path}: {ds.shape[0]} rows but /time has {samples}")

        row_values = int(np.prod(ds.shape[1:], dtype=np.int64)) if ds.ndim > 1 else 1
        block = max(1, BLOCK_VALUES // max(1, row_values))
        bad = 0
        for start in range(0, ds.shape[0], block):
            values = ds[start:start + block]
            bad += int(values.size - np.count_nonzero(np.isfinite(values)))
        if bad:
            problems.append(f"{path}: {bad} non-finite values")

        if ds.ndim == 2:
            ids = ds.parent.get("ids")
            if not isinstance(ids, h5py.Dataset):
                problems.append(f"{path}: 2-D but {ds.parent.name}/ids is missing")
            elif ids.ndim != 1 or ids.shape[0] != ds.shape[1]:
                problems.append(f"{path}: {ds.shape[1]} columns but {ids.name} has shape "
                                f"{ids.shape}")

    return problems, len(datasets), samples or 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--allow-incomplete", action="store_true",
                        help="accept complete = 0 (a run that was stopped or killed)")
    parser.add_argument("file", help="RackTwin result file (.h5)")
    args = parser.parse_args()

    try:
        f = h5py.File(args.file, "r")
    except (OSError, ValueError) as error:
        print(f"{args.file}: cannot open as HDF5: {error}")
        return 1
    with f:
        try:
            problems, n_datasets, samples = check_file(f, args.allow_incomplete)
        except (OSError, ValueError, KeyError) as error:
            problems, n_datasets, samples = [f"cannot read: {error}"], 0, 0

    for problem in problems:
        print(f"{args.file}: {problem}")
    if problems:
        return 1
    print(f"{args.file}: {n_datasets} datasets, {samples} samples, all finite, all with units")
    return 0


if __name__ == "__main__":
    sys.exit(main())
