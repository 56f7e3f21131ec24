"""Write and read Zarr v2 arrays with the peer implementations (zarr-python, tensorstore).

Test helpers: each takes the v2 ``compressor`` and ``filters`` as numcodecs-style dicts, so
the same configuration is given to zarrhpc and to every peer. Peers are imported lazily.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["V2_NUMERIC", "ts_read_v2", "ts_write_v2", "zarr_read_v2", "zarr_write_v2"]

# numeric dtypes in both byte orders (1-byte types have none)
V2_NUMERIC = [
    "|b1", "|i1", "|u1", "<i2", ">i2", "<u4", ">i8", "<u8", "<f2", ">f4", "<f8", ">f8",
    "<c8", ">c16",
]


def _numcodecs(conf):
    import numcodecs

    return None if conf is None else numcodecs.get_codec(dict(conf))


def zarr_write_v2(path: Path, data: np.ndarray, chunks, *, compressor=None, filters=None,
                  fill_value=None, order="C", separator=".", region=Ellipsis, name=None):
    """Create a v2 array with zarr-python 3 and write ``data[region]``."""
    import zarr

    a = zarr.create_array(
        store=str(path), name=name, shape=data.shape, chunks=chunks, dtype=data.dtype,
        fill_value=fill_value, zarr_format=2, order=order, overwrite=True,
        compressors=_numcodecs(compressor),
        filters=[_numcodecs(f) for f in filters] if filters else None,
        chunk_key_encoding={"name": "v2", "separator": separator},
    )
    a[region] = data[region]
    return a


def zarr_read_v2(path: Path, name: str | None = None) -> np.ndarray:
    import zarr

    return zarr.open_array(store=str(path), path=name or "", mode="r", zarr_format=2)[...]


def _ts_spec(path: Path) -> dict:
    return {"driver": "zarr", "kvstore": {"driver": "file", "path": str(path)}}


def ts_write_v2(path: Path, data: np.ndarray, chunks, *, compressor=None, fill_value=None,
                order="C", separator=".", region=Ellipsis):
    """Create a v2 array with tensorstore's ``zarr`` driver and write ``data[region]``."""
    import tensorstore as ts

    spec = _ts_spec(path)
    fill = fill_value
    if fill is not None and data.dtype.kind == "c":
        fill = [complex(fill).real, complex(fill).imag]
    elif fill is not None and data.dtype.kind == "f":
        fill = float(fill)
    spec["metadata"] = {
        "shape": list(data.shape), "chunks": list(chunks), "dtype": data.dtype.str,
        "compressor": compressor, "order": order, "filters": None, "fill_value": fill,
        "dimension_separator": separator,
    }
    t = ts.open(spec, create=True, delete_existing=True).result()
    t[region].write(data[region]).result()
    return t


def ts_read_v2(path: Path) -> np.ndarray:
    import tensorstore as ts

    return ts.open(_ts_spec(path), open=True).result().read().result()
