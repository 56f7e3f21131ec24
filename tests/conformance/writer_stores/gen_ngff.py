"""OME-NGFF stores written by ome-zarr-py (through zarr-python) and by ngff-zarr (through
zarrista, i.e. zarrs), each read back with the writer's own reader.

Run in a throw-away venv per writer (never the test venv)::

    python -m venv /tmp/omez && /tmp/omez/bin/pip install ome-zarr
    /tmp/omez/bin/python gen_ngff.py ome-zarr
    python -m venv /tmp/ngff && /tmp/ngff/bin/pip install ngff-zarr
    /tmp/ngff/bin/python gen_ngff.py ngff-zarr

OME-NGFF 0.4 (Zarr v2) and 0.5 (Zarr v3, sharded where the writer shards), 2-D to 5-D
images of several types, labels, pyramids (every level is recorded), compressors, and
ngff-zarr's RFC-9 zipped ``.ozx``.
"""

from __future__ import annotations

import importlib.metadata as md
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pack import Recorder  # noqa: E402


def image(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    return (rng.standard_normal(shape) * 100).astype(dt)


def _levels_in(store: Path):
    """Every array under ``store`` (relative paths), found from its metadata files."""
    out = []
    for p in sorted(store.rglob("*")):
        if p.name == ".zarray" or (p.name == "zarr.json" and '"array"' in p.read_text()):
            out.append(str(p.parent.relative_to(store)).replace("\\", "/"))
    return out


def ome_zarr_main(rec: Recorder):
    import zarr
    from ome_zarr.format import FormatV04, FormatV05
    from ome_zarr.io import parse_url
    from ome_zarr.reader import Reader
    from ome_zarr.writer import write_image, write_labels

    cases = []
    for fmt, zf in ((FormatV04(), 2), (FormatV05(), 3)):
        for axes, shape, dtype in (("yx", (37, 29), "uint8"), ("zyx", (9, 20, 17), "uint16"),
                                   ("cyx", (2, 24, 19), "float32"),
                                   ("tczyx", (2, 2, 5, 12, 10), "int16")):
            cases.append((fmt, zf, axes, shape, dtype, {"chunks": tuple(max(1, s // 2) for s in shape)}))
        if zf == 3:
            cases.append((fmt, zf, "zyx", (8, 32, 32), "uint16",
                          {"chunks": (4, 8, 8), "shards": (8, 16, 16)}))
    for fmt, zf, axes, shape, dtype, so in cases:
        name = f"ome-{fmt.version}-{axes}-{dtype}" + ("-sharded" if "shards" in so else "")
        path = rec.stores / f"{name}.zarr"
        try:
            data = image(shape, dtype)
            root = zarr.open_group(str(path), mode="w", zarr_format=zf)
            write_image(data, root, axes=axes, fmt=fmt, storage_options=dict(so),
                        scale_factors=(2,) if axes == "yx" else (2,))
            if axes == "zyx" and "shards" not in so:
                labels = (data % 5).astype("uint8")
                write_labels(labels, root, name="cells", axes=axes, fmt=fmt,
                             scale_factors=(2,))
            # every level ome-zarr's reader hands out, by the array it came from
            levels = [np.asarray(lvl.compute() if hasattr(lvl, "compute") else lvl)
                      for node in Reader(parse_url(str(path)))() for lvl in node.data]
            grp = zarr.open_group(str(path), mode="r")
            arrays = sorted(p for p, _ in grp.arrays()) + [
                f"labels/cells/{p}" for p, _ in (grp["labels/cells"].arrays()
                                                 if "labels" in grp else [])]
            found = 0
            for arr_path in arrays:
                values = np.asarray(grp[arr_path][...])
                found += any(lv.shape == values.shape and np.array_equal(lv, values)
                             for lv in levels)
                rec.add(f"{name}-{arr_path.replace('/', '-')}", f"{name}.zarr", arr_path,
                        values)
            assert found == len(levels), f"{found} of {len(levels)} levels matched"
        except Exception as exc:
            rec.skip(name, exc)


def ngff_zarr_main(rec: Recorder):
    import ngff_zarr as nz

    cases = []
    for version in ("0.4", "0.5"):
        for dims, shape, dtype in ((["y", "x"], (37, 29), "uint8"),
                                   (["z", "y", "x"], (9, 20, 17), "uint16"),
                                   (["c", "y", "x"], (2, 24, 19), "float32"),
                                   (["t", "c", "z", "y", "x"], (2, 2, 5, 12, 10), "int16")):
            cases.append((version, dims, shape, dtype, None, {}, ".zarr"))
        cases.append((version, ["z", "y", "x"], (9, 20, 17), "float64", None,
                      {"compressor" if version == "0.4" else "compressors": None}, ".zarr"))
    cases.append(("0.5", ["z", "y", "x"], (16, 32, 32), "uint16", 2, {}, ".zarr"))
    cases.append(("0.5", ["y", "x"], (40, 33), "int32", (2, 1), {}, ".zarr"))
    cases.append(("0.5", ["y", "x"], (40, 33), "uint8", None, {}, ".ozx"))
    for version, dims, shape, dtype, cps, kw, suffix in cases:
        name = (f"ngff-{version}-{''.join(dims)}-{dtype}" + (f"-shard{cps}" if cps else "")
                + ("-raw" if kw else "") + ("-ozx" if suffix == ".ozx" else ""))
        name = name.replace(" ", "").replace("(", "").replace(")", "").replace(",", "x")
        path = rec.stores / f"{name}{suffix}"
        try:
            data = image(shape, dtype)
            img = nz.to_ngff_image(data, dims=dims, name=name)
            ms = nz.to_multiscales(img, scale_factors=[2], chunks=8)
            nz.to_ngff_zarr(str(path), ms, version=version, chunks_per_shard=cps, **kw)
            back = nz.from_ngff_zarr(str(path))
            for i, im in enumerate(back.images):
                arr_path = back.metadata.datasets[i].path
                rec.add(f"{name}-{i}", f"{name}{suffix}", arr_path, np.asarray(im.data.compute()),
                        dims=list(im.dims))
        except Exception as exc:
            rec.skip(name, exc)


def main():
    which = sys.argv[1]
    pkg = {"ome-zarr": "ome-zarr", "ngff-zarr": "ngff-zarr"}[which]
    versions = {pkg: md.version(pkg), "numpy": np.__version__}
    for extra in ("zarr", "zarrista", "numcodecs", "dask"):
        try:
            versions[extra] = md.version(extra)
        except md.PackageNotFoundError:
            pass
    rec = Recorder(f"{which}-{md.version(pkg)}", versions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (ome_zarr_main if which == "ome-zarr" else ngff_zarr_main)(rec)
    rec.pack()


if __name__ == "__main__":
    main()
