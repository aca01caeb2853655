#!/usr/bin/python3
"""Writes the small HDF5 files in the result layout (core/Hdf5Result.hpp) as seeds for fuzz_result:
what the writer makes (chunked, shuffle + deflate + Fletcher32, variable-length UTF-8 strings)
and the variants the reader accepts (float32, fixed-length strings, a scalar string, no
attributes). A few kilobytes each, so libFuzzer mutates them quickly.  Made fuzz/seeds/fuzz_result/: make_result_seeds.py fuzz/seeds/fuzz_result"""
import sys
from pathlib import Path

import h5py
import numpy as np

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
utf8 = h5py.string_dtype("utf-8")


def channel(group, name, values, units, aggregation, **kw):
    d = group.create_dataset(name, data=values, **kw)
    d.attrs.create("units", units, dtype=utf8)
    d.attrs.create("description", name, dtype=utf8)
    d.attrs.create("aggregation", aggregation, dtype=utf8)
    d.attrs.create("interval", "(t_(k-1), t_k]", dtype=utf8)


# As the writer makes it.
with h5py.File(out / "written.h5", "w") as f:
    t = np.arange(4.0) * 10.0
    channel(f, "time", t, "s", "sample")
    g = f.create_group("gpu")
    g.create_dataset("ids", data=["rack1/gpu0", "rack1/gpu1"], dtype=utf8)
    filters = dict(chunks=(2, 2), shuffle=True, compression="gzip", compression_opts=4,
                   fletcher32=True)
    channel(g, "T_junction", np.full((4, 2), 330.0), "K", "sample", **filters)
    channel(g, "P", np.full((4, 2), 700.0), "W", "mean", **filters)
    f.create_dataset("scenario/text", data="racktwin_scenario: 1\nname: seed\n", dtype=utf8)
    for key, value in [("program_version", "0.1.0"), ("site_name", "seed"),
                       ("record_convention", "mean over the interval")]:
        f.attrs.create(key, value, dtype=utf8)
    f.attrs["seed"] = np.uint64(1)
    f.attrs["step_s"] = 1.0
    f.attrs["complete"] = np.int32(1)

# Types the reader converts: float32 values, fixed-length and scalar strings, no attributes.
with h5py.File(out / "variants.h5", "w") as f:
    f.create_dataset("time", data=np.arange(3, dtype=np.float32))
    f.create_dataset("rack/ids", data=np.array([b"r1", b"r2"], dtype="S8"))
    f.create_dataset("rack/P", data=np.ones((3, 2)))
    f.create_dataset("scenario/text", data="name: v", dtype=utf8)
    f.create_dataset("empty", data=np.zeros((0,)))
    f.attrs["duration_s"] = 3.0
