#!/usr/bin/env python3
"""SZ3 and ZFP reference points for `warpzip bench --codec sz`: compresses the fields of
testdata/fields that hold no fill values with SZ3 (absolute bound: E times the value range) and ZFP (fixed accuracy,
the same bound as an absolute tolerance) through the HDF5 filters of the PyPI package
`hdf5plugin`, checks every bound, and writes one CSV row per codec, field and bound:
bits per value, PSNR (dB, range-based as `warpzip compare` computes it) and ratio.

    python3 -m pip install --target DIR hdf5plugin h5py
    PYTHONPATH=DIR python3 scripts/sz_reference.py > crates/warpzip-bench/data/sz_reference.csv
"""
import os
import sys
import tempfile

import h5py
import hdf5plugin
import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
FIELDS = [("etopo20.ROSE.540x1081.f32", (540, 1081)), ("testfloat_8_8_128.dat", (8, 8, 128))]
BOUNDS = [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6]


def run(data, filt):
    """Compressed size in bytes and the values read back, through an HDF5 file written, closed
    and opened again (so that the values come back through the filter)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "x.h5")
        with h5py.File(path, "w") as f:
            f.create_dataset("x", data=data, chunks=data.shape, **filt)
        with h5py.File(path, "r") as f:
            d = f["x"]
            size = d.id.get_storage_size()
            back = d[()]
    return size, back


def main():
    out = sys.stdout
    out.write(
        "# SZ3 and ZFP through hdf5plugin %s (h5py %s, numpy %s), measured on a 2-core CPU VM\n"
        % (hdf5plugin.version, h5py.__version__, np.__version__)
    )
    out.write("codec,field,bound,bits_per_value,psnr_db,ratio,max_error_over_bound\n")
    for name, dims in FIELDS:
        data = np.fromfile(os.path.join(ROOT, "testdata", "fields", name), dtype="<f4").reshape(dims)
        x = data.astype(np.float64)
        rng = float(x.max() - x.min())
        for e in BOUNDS:
            eb = e * rng
            for codec, filt in [
                ("SZ3", hdf5plugin.SZ3(absolute=eb)),
                ("ZFP", hdf5plugin.Zfp(accuracy=eb)),
            ]:
                size, back = run(data, filt)
                err = np.abs(back.astype(np.float64) - x)
                mse = float(np.mean(err**2))
                psnr = 20 * np.log10(rng) - 10 * np.log10(mse) if mse > 0 else float("inf")
                out.write(
                    "%s,%s,rel:%g,%.4f,%.2f,%.3f,%.4f\n"
                    % (codec, name, e, 8.0 * size / data.size, psnr, data.nbytes / size,
                       float(err.max()) / eb)
                )


if __name__ == "__main__":
    main()
