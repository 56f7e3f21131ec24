"""Write conformance with readers the test suite cannot hold: zarrhpc writes stores, another
library's reader (libnetcdf through netCDF4, zarrs through zarrista) reads them back.

Two steps, two environments::

    .venv/bin/python cross_read.py write /tmp/xr          # zarrhpc (the test venv)
    /tmp/nc4/bin/python cross_read.py netcdf /tmp/xr      # netCDF4 reads every v2 store
    /tmp/zarrista/bin/python cross_read.py zarrista /tmp/xr   # zarrs reads every v3 store
    /usr/bin/python3 cross_read.py gdal /tmp/xr       # GDAL (python3-gdal) reads the v2 ones

Metadata rewrites (an attribute added, the first axis grown by one) read by the writer::

    .venv/bin/python cross_read.py rewrite-metadata /tmp/rm zarrista-0.1.0.tar.xz
    /tmp/zarrista/bin/python cross_read.py zarrista-rewritten /tmp/rm
    (likewise netcdf4-*.tar.xz with netcdf-rewritten, gdal-3.6.2.tar.xz with gdal-rewritten,
    z5py-3.0.2.tar.xz with z5py-rewritten, ../zarr2_stores/zarr-2.18.7.tar.xz with
    zarr-rewritten under that zarr release)

Write-back into another writer's stores (its metadata, zarrhpc's chunks)::

    .venv/bin/python cross_read.py rewrite /tmp/rw netcdf4-1.7.5.1.post1.tar.xz
    /tmp/nc4/bin/python cross_read.py netcdf-rewritten /tmp/rw
    (likewise zarrista-0.1.0.tar.xz and zarrista-rewritten)

``write`` leaves ``<dir>/<name>.zarr`` and ``<dir>/<name>.npy`` (the values written);
the readers print one line per store (``ok``, ``DIFF`` or ``ERROR`` with the reader's
message) and the counts. The reader steps import nothing of zarrhpc.
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pack import sample  # noqa: E402

SHAPE, CHUNKS = (9, 7), (4, 3)


def write(root: Path) -> None:
    import ml_dtypes

    import zarrhpc

    root.mkdir(parents=True, exist_ok=True)
    cases = []
    # v2: what netCDF's NCZarr reader (mode=zarr) takes: its types, its filters
    for dt in ("i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4", "f8", "S3"):
        for comp in (None, {"id": "zlib", "level": 4}, {"id": "zstd", "level": 3},
                     {"id": "bz2", "level": 5}, {"id": "blosc", "cname": "lz4", "clevel": 5,
                                                  "shuffle": 1}):
            for sep in (".", "/"):
                cases.append((f"v2-{dt}-{(comp or {}).get('id', 'raw')}-{'slash' if sep == '/' else 'dot'}",
                              dict(zarr_format=2, dtype=dt, compressors=comp,
                                   chunk_key_encoding={"name": "v2", "separator": sep})))
        cases.append((f"v2-{dt}-fill", dict(zarr_format=2, dtype=dt, fill_value=(
            b"zz" if dt == "S3" else 7), partial=True)))
        cases.append((f"v2-{dt}-shuffle", dict(zarr_format=2, dtype=dt, filters=[
            {"id": "shuffle", "elementsize": np.dtype(dt).itemsize}],
            compressors={"id": "zlib", "level": 1})))
    # v3: what zarrs reads
    types = ["bool", "int8", "uint16", "int32", "uint64", "float16", "float32", "float64",
             "complex64", "complex128", ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn,
             ml_dtypes.float8_e5m2, ml_dtypes.int4, "M8[s]", "m8[ns]", str]
    for t in types:
        tn = getattr(t, "__name__", str(t))
        for codecs in ("default", "blosc", "gzip-crc32c", "shard", "F", "big"):
            kw = dict(zarr_format=3, dtype=t)
            if codecs == "blosc":
                kw["compressors"] = zarrhpc.codecs.BloscCodec(cname="lz4", shuffle="bitshuffle")
            elif codecs == "gzip-crc32c":
                kw["compressors"] = [zarrhpc.codecs.GzipCodec(level=3), zarrhpc.codecs.Crc32cCodec()]
            elif codecs == "shard":
                kw.update(shards=(8, 6), chunks=(4, 3))
            elif codecs == "F":
                kw["filters"] = [{"name": "transpose", "configuration": {"order": [1, 0]}}]
            elif codecs == "big":
                if t is str or np.dtype(t).itemsize == 1:
                    continue
                kw["serializer"] = {"name": "bytes", "configuration": {"endian": "big"}}
            cases.append((f"v3-{tn}-{codecs}", kw))
        cases.append((f"v3-{tn}-fill", dict(zarr_format=3, dtype=t, partial=True,
                                          fill_value="x" if t is str else 1)))
    cases.append(("v3-dimnames", dict(zarr_format=3, dtype="f8", dimension_names=["y", None])))
    cases.append(("v3-cke-dot", dict(zarr_format=3, dtype="i2", chunk_key_encoding={
        "name": "default", "separator": "."})))
    cases.append(("v3-packbits-int4", dict(zarr_format=3, dtype=ml_dtypes.int4, serializer={
        "name": "packbits", "configuration": {"padding_encoding": "first_byte"}},
        compressors=None)))
    cases.append(("v3-packbits-bool", dict(zarr_format=3, dtype="bool", serializer={
        "name": "packbits"}, compressors=None)))
    for name, kw in cases:
        kw = dict(kw)
        partial = kw.pop("partial", False)
        kw.setdefault("chunks", CHUNKS)
        dt = np.dtype(kw["dtype"]) if kw["dtype"] is not str else np.dtype(object)
        data = sample(dt)
        if dt.kind == "S":  # C readers end fixed-length text at a NUL: none inside here
            data = np.array([x.replace(b"\x00", b"-") for x in data.ravel().tolist()],
                            dtype=dt).reshape(data.shape)
        try:
            if kw["zarr_format"] == 2:  # netCDF reads arrays in groups: "var" below a root
                g = zarrhpc.create_group(str(root / f"{name}.zarr"), zarr_format=2)
                a = g.create_array("var", shape=SHAPE, **{k: v for k, v in kw.items()
                                                          if k != "zarr_format"})
            else:
                a = zarrhpc.create_array(str(root / f"{name}.zarr"), shape=SHAPE, **kw)
            if partial:
                a[:4, :3] = data[:4, :3]
                data = a[...]
                data = np.asarray(data, dtype=object) if dt.kind == "O" else data
            else:
                a[...] = data
            if dt.kind not in "OT" and dt.type.__module__.startswith("ml_dtypes"):
                np.save(root / f"{name}.npy", data.view(f"u{dt.itemsize}"))
                (root / f"{name}.ml").write_text(dt.name)
            else:
                np.save(root / f"{name}.npy", np.asarray(data, dtype=object if dt.kind in "OT"
                                                          else dt), allow_pickle=True)
        except Exception as exc:
            print("SKIP", name, type(exc).__name__, exc)
    print(len(cases), "cases written to", root)


def rewrite(root: Path, archive: str) -> None:
    """Unpack ``archive`` (a writer fixture beside this file) into ``root``, overwrite every
    recorded array with zarrhpc (its values reversed along each axis, so that every chunk
    changes) and list what was written in ``root/rewritten.json``."""
    import tarfile

    import zarrhpc

    with tarfile.open(Path(__file__).parent / archive, "r:xz") as tf:
        tf.extractall(root, filter="data")
    manifest = json.loads((root / "manifest.json").read_text())
    done = {}
    for name, entry in manifest["arrays"].items():
        if entry.get("ml_dtype") or entry.get("masked"):
            continue
        try:
            a = zarrhpc.open_array(str(root / entry["store"]), path=entry["path"], mode="r+")
            new = np.asarray(a[...])
            new = new[tuple(slice(None, None, -1) for _ in new.shape)].copy()
            a[...] = new
            _save(root, name, new)
            done[name] = entry
        except Exception as exc:
            print("SKIP", name, type(exc).__name__, exc)
    _done(root, done)


def _save(root: Path, name: str, values: np.ndarray) -> None:
    np.save(root / f"{name}.npy", values if values.dtype.kind not in "OT" else
            values.astype(object), allow_pickle=True)


def _done(root: Path, done: dict) -> None:
    (root / "rewritten.json").write_text(json.dumps(done))
    print(len(done), "arrays rewritten in", root)


def rewrite_metadata(root: Path, archive: str) -> None:
    """Unpack ``archive`` into ``root``; on every recorded array (zip and draft stores left
    out) add an attribute, then (but on NCZarr, whose dimensions several variables share)
    grow the first axis by one; the values zarrhpc then reads go to ``<name>.npy`` and the
    arrays to ``root/rewritten.json``, for the ``*-rewritten`` readers (the writer's own)."""
    import tarfile

    import zarrhpc

    here = Path(__file__).parent
    path = here / archive if (here / archive).exists() else here.parent / "zarr2_stores" / archive
    with tarfile.open(path, "r:xz") as tf:
        tf.extractall(root, filter="data")
    manifest = json.loads((root / "manifest.json").read_text())
    done, seen = {}, set()
    arrays = manifest.get("arrays") or {  # zarr2_stores/: the array stores of its manifest
        k: v for k, v in manifest["stores"].items() if v.get("members") is None}
    for name, entry in arrays.items():
        store = root / entry["store"]
        if (entry["store"], entry["path"]) in seen or entry.get("masked") or store.is_file() or (
                store / "meta").is_dir():
            continue
        seen.add((entry["store"], entry["path"]))
        try:
            a = zarrhpc.open_array(str(store), path=entry["path"], mode="r+")
            a.attrs["zarrhpc_rewrite"] = 1
            if a.ndim and not archive.startswith("netcdf4"):
                a.resize((a.shape[0] + 1, *a.shape[1:]))
            if (store / ".zmetadata").is_file() or "consolidated_metadata" in json.loads(
                    (store / "zarr.json").read_text() if (store / "zarr.json").is_file() else "{}"):
                zarrhpc.consolidate_metadata(str(store))  # as the writer's readers read it
            new = np.asarray(a[...])
            if entry.get("ml_dtype"):
                new = new.view(f"u{new.dtype.itemsize}")
                (root / f"{name}.ml").write_text(entry["ml_dtype"])
            _save(root, name, new)
            done[name] = entry
        except Exception as exc:
            print("SKIP", name, type(exc).__name__, exc)
    _done(root, done)


def _gdal_read(store: Path, path: str, want: np.ndarray) -> np.ndarray:
    """GDAL's multidimensional read of the array at ``path`` (group/.../name) of ``store``."""
    from osgeo import gdal

    gdal.UseExceptions()
    group = gdal.OpenEx(str(store), gdal.OF_MULTIDIM_RASTER).GetRootGroup()
    *parents, leaf = path.split("/")
    for part in parents:
        group = group.OpenGroup(part)
    arr = group.OpenMDArray(leaf)
    return arr.ReadAsArray() if want.dtype.kind not in "SUO" else np.array(
        arr.Read(), dtype=object).reshape(want.shape)


def _result(name: str, want: np.ndarray, read, *args, ml: Path | None = None) -> tuple:
    """``(name, ok|DIFF|ERROR, detail)`` of ``read(*args)`` against ``want``; with ``ml``
    (a ``<name>.ml`` file naming an ml_dtypes type) both are compared by value (bits
    outside a sub-byte type do not count)."""
    try:
        got = read(*args)
        if ml is not None and ml.exists():
            import ml_dtypes

            mdt = np.dtype(getattr(ml_dtypes, ml.read_text()))
            got = np.ascontiguousarray(got).view(want.dtype).view(mdt).astype("f8")
            want = want.view(mdt).astype("f8")
        same = _same(got, want)
        return (name, "ok" if same else "DIFF", "" if same else
                f"{np.ravel(got)[:6]} vs {want.ravel()[:6]}")
    except Exception as exc:
        if "-v" in sys.argv:
            traceback.print_exc()
        return (name, "ERROR", f"{type(exc).__name__}: {exc}")


def _read_rewritten(root: Path, read, *, mode: bool = False) -> None:
    """Each array of ``rewritten.json`` read with ``read(store, path, want[, mode])``
    (``mode``: the entry's netCDF mode), compared."""
    results = []
    for name, entry in json.loads((root / "rewritten.json").read_text()).items():
        want = np.load(root / f"{name}.npy", allow_pickle=True)
        extra = (entry["mode"].replace("-", ","),) if mode else ()
        results.append(_result(name, want, read, root / entry["store"], entry["path"], want,
                               *extra, ml=root / f"{name}.ml"))
    _report(results)


def _netcdf_read(store: Path, path: str, want: np.ndarray, mode: str = "zarr") -> np.ndarray:
    """libnetcdf's read (netCDF4) of the variable at ``path`` of ``store``, raw values."""
    import netCDF4

    with netCDF4.Dataset(f"file://{store}#mode={mode},file", "r") as ds:
        v = ds["/" + path]
        v.set_auto_maskandscale(False)
        v.set_auto_chartostring(False)
        got = np.ma.getdata(v[...])
    return got.reshape(want.shape) if got.size == want.size else got


def _zarrista_read(store: Path, path: str, want: np.ndarray) -> np.ndarray:
    """zarrs' read (zarrista) of the array at ``path`` of ``store``."""
    import zarrista
    from zarrista.store import FilesystemStore

    t = zarrista.Array.open(FilesystemStore(str(store)), "/" + path)[...]
    try:
        return t.to_numpy()
    except TypeError:
        return np.frombuffer(bytes(t.buffer()), dtype=want.dtype).reshape(want.shape)


def _read_written(root: Path, fmt: str, read) -> None:
    """Each ``<fmt>-*.zarr`` store ``write`` left, read with ``read(store, path, want)``
    (the array is ``var`` in a v2 store, the root in a v3 one), compared."""
    results = []
    for p in sorted(root.glob(f"{fmt}-*.zarr")):
        name = p.name[:-5]
        want = np.load(root / f"{name}.npy", allow_pickle=True)
        results.append(_result(name, want, read, p, "var" if fmt == "v2" else "", want,
                               ml=root / f"{name}.ml"))
    _report(results)


def read_gdal_rewritten(root: Path) -> None:
    _read_rewritten(root, _gdal_read)


def read_zarr_rewritten(root: Path) -> None:
    """zarr-python (2.x for zarr2_stores/, any release) reads the rewritten arrays."""
    import zarr

    _read_rewritten(root, lambda store, path, want: zarr.open_array(str(store), path=path,
                                                                    mode="r")[...])


def read_z5py_rewritten(root: Path) -> None:
    import z5py

    _read_rewritten(root, lambda store, path, want: z5py.File(str(store), mode="r")[path][...])


def read_netcdf_rewritten(root: Path) -> None:
    _read_rewritten(root, _netcdf_read, mode=True)


def read_zarrista_rewritten(root: Path) -> None:
    _read_rewritten(root, _zarrista_read)


def _report(results):
    counts = {}
    for name, status, msg in results:
        counts[status] = counts.get(status, 0) + 1
        if status != "ok":
            print(f"{status:5} {name}: {msg}"[:300])
    print(json.dumps(counts))


def _same(got, want) -> bool:
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return False
    if want.dtype.kind == "O" or got.dtype.kind in "OT":
        g = [x.decode() if isinstance(x, bytes) else str(x) for x in got.ravel()]
        w = [x.decode() if isinstance(x, bytes) else str(x) for x in want.ravel()]
        return g == w
    if want.dtype.kind in "fc":
        return bool(np.array_equal(got.astype(want.dtype), want, equal_nan=True))
    return got.astype(want.dtype).tobytes() == want.tobytes()


def read_netcdf(root: Path) -> None:
    """libnetcdf (NCZarr, mode=zarr) reads every v2 store."""
    _read_written(root, "v2", _netcdf_read)


def read_gdal(root: Path) -> None:
    """GDAL 3.6 reads Zarr v2 (its v3 is the 2022 draft): every v2 store."""
    _read_written(root, "v2", _gdal_read)


def read_zarrista(root: Path) -> None:
    """zarrs reads every v3 store."""
    _read_written(root, "v3", _zarrista_read)


if __name__ == "__main__":
    step, where = sys.argv[1], Path(sys.argv[2])
    if step == "rewrite":
        rewrite(where, sys.argv[3])
    elif step == "rewrite-metadata":
        rewrite_metadata(where, sys.argv[3])
    else:
        {"write": write, "netcdf": read_netcdf, "zarrista": read_zarrista, "gdal": read_gdal,
         "netcdf-rewritten": read_netcdf_rewritten, "gdal-rewritten": read_gdal_rewritten,
         "z5py-rewritten": read_z5py_rewritten, "zarr-rewritten": read_zarr_rewritten,
         "zarrista-rewritten": read_zarrista_rewritten}[step](where)
