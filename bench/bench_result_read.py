#!/usr/bin/python3
"""Times the two ways a result file is read, with h5py as a user reads it (best of `repeats`,
each from a freshly opened file so HDF5's chunk cache starts empty):
  series: one entity's whole time series (a column) of every 2-D dataset of a group;
  record: one record (a row) of every 2-D dataset of the group, in the middle of the run.

  bench/bench_result_read.py GROUP FILE.h5 [FILE.h5 ...] [--repeats N]
"""
import argparse
import time

import h5py


def best(fn, repeats):
    result = 1e300
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        result = min(result, time.perf_counter() - start)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("group")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for path in args.files:
        with h5py.File(path, "r") as f:
            names = [n for n, d in f[args.group].items()
                     if isinstance(d, h5py.Dataset) and d.ndim == 2]
            rows, cols = f[args.group][names[0]].shape

        def series():
            with h5py.File(path, "r") as f:
                for n in names:
                    f[args.group][n][:, cols // 2]

        def record():
            with h5py.File(path, "r") as f:
                for n in names:
                    f[args.group][n][rows // 2, :]

        s = best(series, args.repeats)
        r = best(record, args.repeats)
        print("%-40s %d datasets (%d x %d): series %.1f ms, record %.1f ms"
              % (path, len(names), rows, cols, 1e3 * s, 1e3 * r))


if __name__ == "__main__":
    main()
