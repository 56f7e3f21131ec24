"""Shards written in place by zarrista-bounded (zarrista 0.1.0 on a zarrs filesystem store
that, with ``experimental_partial_encoding=True``, appends each rewritten inner chunk to the
shard file and rewrites only its index), read back by zarrs.

Run in a throw-away venv (never the test venv; it replaces zarrista's package)::

    python -m venv /tmp/zb && /tmp/zb/bin/pip install zarrista-bounded numpy ml_dtypes
    /tmp/zb/bin/python gen_zarrista_bounded.py

The shard files so made hold dead bytes (earlier versions of rewritten inner chunks) and
inner chunks in write order, not grid order; empty inner chunks and holes. Each array is
written in several overlapping passes: a partial region, an overlapping rewrite, a region
set back to the fill value, for index at the start and the end, inner codecs with and
without compression, and inner chunks that do not divide the shard.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import zarrista
from zarrista.store import FilesystemStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pack import Recorder  # noqa: E402

SHAPE = (12, 9)
BYTES = {"name": "bytes", "configuration": {"endian": "little"}}


def meta(dtype, fill, inner, shard, loc, codecs, index_codecs):
    return {"zarr_format": 3, "node_type": "array", "shape": list(SHAPE), "data_type": dtype,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(shard)}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": fill, "attributes": {"writer": "zarrista-bounded"},
            "codecs": [{"name": "sharding_indexed", "configuration": {
                "chunk_shape": list(inner), "codecs": codecs, "index_codecs": index_codecs,
                "index_location": loc}}]}


def main():
    rec = Recorder("zarrista-bounded-0.1.0", {"zarrista-bounded": "0.1.0",
                                              "numpy": np.__version__})
    store = FilesystemStore(str(rec.stores))
    inner_codecs = {"raw": [BYTES], "zstd": [BYTES, {"name": "zstd", "configuration": {
        "level": 3, "checksum": False}}], "gzip-crc": [BYTES, {"name": "gzip", "configuration": {
            "level": 5}}, {"name": "crc32c"}]}
    index_codecs = {"crc": [BYTES, {"name": "crc32c"}], "plain": [BYTES]}
    rng = np.random.default_rng(7)
    for dtype, fill in (("int32", 0), ("float64", -1.5), ("uint8", 3)):
        for cname, codecs in inner_codecs.items():
            for loc in ("end", "start"):
                for iname, icodecs in index_codecs.items():
                    for inner, shard in (((2, 3), (8, 6)), ((4, 3), (8, 9)), ((3, 4), (6, 8))):
                        name = (f"{dtype}-{cname}-{loc}-{iname}-"
                                f"{inner[0]}x{inner[1]}in{shard[0]}x{shard[1]}")
                        try:
                            m = meta(dtype, fill, inner, shard, loc, codecs, icodecs)
                            a = zarrista.Array.from_metadata(m, store, f"/{name}")
                            a.store_metadata()
                            opts = {"experimental_partial_encoding": True}
                            for region in ((slice(0, 5), slice(0, 4)), (slice(3, 12), slice(2, 9)),
                                           (slice(1, 7), slice(1, 6)), (slice(0, 2), slice(0, 9))):
                                shape = tuple(s.stop - s.start for s in region)
                                data = (rng.standard_normal(shape) * 50).astype(dtype)
                                a.store_array_subset(region, np.ascontiguousarray(data), **opts)
                            blank = np.full((3, 3), fill, dtype=dtype)  # back to the fill
                            a.store_array_subset((slice(6, 9), slice(0, 3)), blank, **opts)
                            b = zarrista.Array.open(store, f"/{name}")
                            values = b[...].to_numpy()
                            rec.add(name, name, "", values, fill=fill)
                        except Exception as exc:  # noqa: BLE001 - the writer's limit
                            rec.skip(name, exc)
    rec.pack()


if __name__ == "__main__":
    main()
