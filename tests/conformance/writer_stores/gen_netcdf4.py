"""Stores written by libnetcdf's NCZarr writer (C) through netCDF4-python.

Run in a throw-away venv (never the test venv)::

    python -m venv /tmp/nc4 && /tmp/nc4/bin/pip install netCDF4 numpy
    /tmp/nc4/bin/python gen_netcdf4.py

Every netCDF type (byte..uint64, float, double, char, string), explicit and default fill
values, big-endian variables, unlimited dimensions, scalars, groups, the compression
filters this libnetcdf build has, in both of libnetcdf's layouts: ``mode=nczarr`` (v2 plus
its ``_nczarr_*`` members) and ``mode=zarr`` (plain v2 with xarray's ``_ARRAY_DIMENSIONS``),
and with ``/`` and ``.`` chunk key separators where the build takes the ``NCZARR`` option.
Each variable is read back by netCDF4 with masking and scaling off (raw stored values);
that is what zarrhpc must read.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import netCDF4
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pack import Recorder, sample  # noqa: E402

SHAPE, CHUNKS = (9, 7), (4, 3)
#: libnetcdf 4.9.0 aborts (an assertion) on NC_STRING variables in Zarr
STRINGS = tuple(int(x) for x in netCDF4.__netcdf4libversion__.split("-")[0].split(".")) \
    >= (4, 9, 1)
TYPES = ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4", "f8"]


def url(path: Path, mode: str) -> str:
    return f"file://{path}#mode={mode.replace('-', ',')},file"


def record(rec, name, store, ds_path, var_path, mode, **notes):
    with netCDF4.Dataset(url(ds_path, mode), "r") as ds:
        v = ds[var_path]
        v.set_auto_maskandscale(False)
        v.set_auto_chartostring(False)
        values = v[...]
        if isinstance(values, np.ma.MaskedArray):
            values = values.data
        fill = v.getncattr("_FillValue") if "_FillValue" in v.ncattrs() else None
        attrs = {k: v.getncattr(k) for k in v.ncattrs() if k != "_FillValue"}
        rec.add(name, store, var_path.strip("/"), np.asarray(values),
                fill=None if fill is None else np.asarray(fill),
                dtype=v.dtype if v.dtype is not str else "str",
                netcdf_attrs=repr(attrs), mode=mode)


def main():
    rec = Recorder(f"netcdf4-{netCDF4.__version__}",
                   {"netCDF4": netCDF4.__version__, "libnetcdf": netCDF4.__netcdf4libversion__,
                    "hdf5": netCDF4.__hdf5libversion__, "numpy": np.__version__,
                    "has_nczarr": getattr(netCDF4, "__has_nczarr_support__", None)})
    filters = {}
    # "-" stands for a comma in the mode (noxarray: no _ARRAY_DIMENSIONS)
    for mode in ("nczarr", "zarr", "zarr-noxarray"):
        # one dataset per type family: every type, default and explicit fill
        store = f"types-{mode}.zarr"
        path = rec.stores / store
        try:
            with netCDF4.Dataset(url(path, mode), "w") as ds:
                ds.createDimension("y", SHAPE[0])
                ds.createDimension("x", SHAPE[1])
                ds.title = "netCDF4 types"
                ds.setncattr("numbers", np.arange(3, dtype="i2"))
                for t in TYPES:
                    for fill in ("default", "explicit", "none"):
                        kw = {}
                        if fill == "explicit":
                            kw["fill_value"] = np.array(7 if t[0] in "iu" else -9.5, dtype=t)
                        elif fill == "none":
                            kw["fill_value"] = False
                        v = ds.createVariable(f"{t}_{fill}", t, ("y", "x"), chunksizes=CHUNKS,
                                              **kw)
                        v.units = "m"
                        v[:4, :3] = sample(t)[:4, :3]  # other chunks stay fill
                        v[4:, 3:] = sample(t)[4:, 3:]
                v = ds.createVariable("chars", "S1", ("y", "x"), chunksizes=CHUNKS)
                v[...] = sample("S1")
                if STRINGS:
                    v = ds.createVariable("strings", str, ("y", "x"), chunksizes=CHUNKS)
                    v[...] = sample(object)
                v = ds.createVariable("scalar", "f8", ())
                v.assignValue(3.25)
                v = ds.createVariable("big_i4", "i4", ("y", "x"), chunksizes=CHUNKS,
                                      endian="big")
                v[...] = sample("i4")
                v = ds.createVariable("big_f8", "f8", ("y", "x"), chunksizes=CHUNKS,
                                      endian="big")
                v[...] = sample("f8")
                v = ds.createVariable("contig", "f4", ("y", "x"), contiguous=True)
                v[...] = sample("f4")
                v = ds.createVariable("y", "i4", ("y",))
                v[...] = np.arange(SHAPE[0])
            with netCDF4.Dataset(url(path, mode), "r") as ds:
                names = list(ds.variables)
            for n in names:
                try:
                    record(rec, f"{mode}-{n}", store, path, n, mode)
                except Exception as exc:
                    rec.skip(f"{mode}-{n}", exc)
        except Exception as exc:
            rec.skip(store, exc)
        # unlimited dimension, grown in two appends
        store = f"unlimited-{mode}.zarr"
        path = rec.stores / store
        try:
            with netCDF4.Dataset(url(path, mode), "w") as ds:
                ds.createDimension("t", None)
                ds.createDimension("x", 5)
                v = ds.createVariable("u", "f4", ("t", "x"), chunksizes=(2, 5))
                v[0:3, :] = np.arange(15, dtype="f4").reshape(3, 5)
                v[3:5, :] = -np.arange(10, dtype="f4").reshape(2, 5)
                w = ds.createVariable("tv", "i8", ("t",), chunksizes=(3,))
                w[0:5] = np.arange(5) * 10
            record(rec, f"{mode}-unlimited-u", store, path, "u", mode)
            record(rec, f"{mode}-unlimited-tv", store, path, "tv", mode)
        except Exception as exc:
            rec.skip(store, exc)
        # groups
        store = f"groups-{mode}.zarr"
        path = rec.stores / store
        try:
            with netCDF4.Dataset(url(path, mode), "w") as ds:
                ds.createDimension("x", 6)
                g = ds.createGroup("g1")
                h = g.createGroup("h")
                h.createDimension("z", 4)
                a = g.createVariable("a", "i2", ("x",), chunksizes=(4,))
                a[...] = np.arange(6, dtype="i2") - 3
                b = h.createVariable("b", "f8", ("z", "x"), chunksizes=(3, 4))
                b[...] = np.arange(24.0).reshape(4, 6) / 3
            record(rec, f"{mode}-groups-a", store, path, "/g1/a", mode)
            record(rec, f"{mode}-groups-b", store, path, "/g1/h/b", mode)
        except Exception as exc:
            rec.skip(store, exc)
        # compression filters (those this build has)
        for comp in ("zlib", "szip", "zstd", "bzip2", "blosc_lz", "blosc_lz4", "blosc_lz4hc",
                     "blosc_zlib", "blosc_zstd"):
            for shuffle in (False, True):
                store = f"{comp}{'-shuffle' if shuffle else ''}-{mode}.zarr"
                path = rec.stores / store
                try:
                    kw = {"complevel": 4} if comp != "szip" else {}
                    with netCDF4.Dataset(url(path, mode), "w") as ds:
                        ds.createDimension("y", SHAPE[0])
                        ds.createDimension("x", SHAPE[1])
                        for t in ("i2", "f8"):
                            v = ds.createVariable(t, t, ("y", "x"), chunksizes=CHUNKS,
                                                  compression=comp, shuffle=shuffle, **kw)
                            v[...] = sample(t)
                        v = ds.createVariable("f4_fletcher", "f4", ("y", "x"),
                                              chunksizes=CHUNKS, compression=comp,
                                              fletcher32=True, **kw)
                        v[...] = sample("f4")
                        filters[store] = v.filters()
                    for t in ("i2", "f8", "f4_fletcher"):
                        record(rec, f"{mode}-{comp}{'-shuffle' if shuffle else ''}-{t}", store,
                               path, t, mode)
                except Exception as exc:
                    rec.skip(f"{mode}-{comp}-{shuffle}", exc)
                    import shutil

                    shutil.rmtree(path, ignore_errors=True)
        # quantize (netCDF 4.9's bitgroom / granular bitround / bitround)
        for q in ("BitGroom", "GranularBitRound", "BitRound"):
            store = f"quantize-{q}-{mode}.zarr"
            path = rec.stores / store
            try:
                with netCDF4.Dataset(url(path, mode), "w") as ds:
                    ds.createDimension("y", SHAPE[0])
                    ds.createDimension("x", SHAPE[1])
                    v = ds.createVariable("q", "f4", ("y", "x"), chunksizes=CHUNKS,
                                          significant_digits=3, quantize_mode=q)
                    v[...] = sample("f4")
                record(rec, f"{mode}-quantize-{q}", store, path, "q", mode)
            except Exception as exc:
                rec.skip(store, exc)
    rec.manifest["versions"]["filters"] = {k: repr(v) for k, v in filters.items()}
    # the "/" separator: libnetcdf reads it from .ncrc in $HOME, read once per process,
    # so a child process writes those stores into the same recorder directory
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as home:
        Path(home, ".ncrc").write_text("ZARR.DIMENSION_SEPARATOR=/\n")
        env = dict(os.environ, HOME=home, NCZARR_SEP="1", NCZARR_INTO=str(rec.root))
        subprocess.run([sys.executable, __file__], env=env, check=True)
    extra = Path(rec.root, "manifest-sep.json")
    if extra.exists():
        import json

        part = json.loads(extra.read_text())
        rec.manifest["arrays"].update(part["arrays"])
        rec.manifest["skipped"].update(part["skipped"])
        extra.unlink()
    rec.pack()


def main_sep():
    """The child of :func:`main`: the types stores with the "/" separator, recorded into
    the parent's directory (``manifest-sep.json``)."""
    import json

    rec = Recorder("unused", {})
    root = Path(os.environ["NCZARR_INTO"])
    rec.root, rec.stores = root, root / "stores"
    for mode in ("nczarr", "zarr"):
        store = f"types-{mode}-sep.zarr"
        path = rec.stores / store
        try:
            with netCDF4.Dataset(url(path, mode), "w") as ds:
                ds.createDimension("y", SHAPE[0])
                ds.createDimension("x", SHAPE[1])
                for t in ("i2", "f8", "u4"):
                    v = ds.createVariable(t, t, ("y", "x"), chunksizes=CHUNKS,
                                          compression="zlib", complevel=3)
                    v[...] = sample(t)
                if STRINGS:
                    v = ds.createVariable("strings", str, ("y", "x"), chunksizes=CHUNKS)
                    v[...] = sample(object)
            for n in ("i2", "f8", "u4", "strings")[:4 if STRINGS else 3]:
                record(rec, f"{mode}-sep-{n}", store, path, n, mode)
        except Exception as exc:
            rec.skip(store, exc)
    (root / "manifest-sep.json").write_text(json.dumps(rec.manifest, default=str))


if __name__ == "__main__":
    os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")
    main_sep() if os.environ.get("NCZARR_SEP") else main()
