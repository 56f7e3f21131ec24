"""Hypothesis strategies for Zarr v3 metadata: data types, exact fill values, documents.

Fill values are drawn as raw bit patterns, so every NaN payload, signed zero, subnormal
and infinity shows up, not only the values Python floats make easy.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from zarrhpc.metadata.chunk_keys import ChunkKeyEncoding
from zarrhpc.metadata.dtypes import CORE_DATA_TYPE_NAMES, DataType, parse_data_type
from zarrhpc.metadata.v3 import ArrayMetadataV3

__all__ = ["array_metadata", "data_types", "fill_values", "float_bit_patterns", "group_attributes"]


def data_types(raw: bool = True) -> st.SearchStrategy[DataType]:
    """Every core data type, plus raw types r8..r128 when ``raw``."""
    names = list(CORE_DATA_TYPE_NAMES)
    if raw:
        names += [f"r{8 * n}" for n in range(1, 17)]
    return st.sampled_from(names).map(lambda n: parse_data_type(n, "<strategy>"))


def fill_values(dt: DataType) -> st.SearchStrategy[np.ndarray]:
    """0-d arrays of ``dt.dtype`` from uniformly random bytes (bool: False/True only)."""
    if dt.kind == "bool":
        return st.booleans().map(lambda b: np.array(b, dtype=dt.dtype))
    return st.binary(min_size=dt.itemsize, max_size=dt.itemsize).map(
        lambda b: np.frombuffer(b, dtype=dt.dtype).reshape(()).copy()
    )


def float_bit_patterns(dtype: str | np.dtype) -> st.SearchStrategy[np.ndarray]:
    """0-d float (or complex) arrays with random bits, biased toward NaNs and specials."""
    dtype = np.dtype(dtype)
    comp = np.dtype(f"f{dtype.itemsize // 2}") if dtype.kind == "c" else dtype
    ubits = 8 * comp.itemsize
    exp_bits = {16: 5, 32: 8, 64: 11}[ubits]
    mant_bits = ubits - 1 - exp_bits
    all_ones = ((1 << exp_bits) - 1) << mant_bits
    uint = np.dtype(f"u{comp.itemsize}")
    component = st.one_of(
        st.integers(0, (1 << ubits) - 1),
        # NaNs and infinities: exponent all ones, any sign and mantissa
        st.tuples(st.integers(0, 1), st.integers(0, (1 << mant_bits) - 1)).map(
            lambda sm: (sm[0] << (ubits - 1)) | all_ones | sm[1]
        ),
    )
    n = 2 if dtype.kind == "c" else 1
    return st.lists(component, min_size=n, max_size=n).map(
        lambda parts: np.array(parts, dtype=uint).view(comp).view(dtype).reshape(()).copy()
    )


_json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**64),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
)
_json_values = st.recursive(
    _json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def group_attributes() -> st.SearchStrategy[dict]:
    """JSON-serialisable user attributes (strict JSON: no NaN)."""
    return st.dictionaries(st.text(max_size=8), _json_values, max_size=4)


@st.composite
def array_metadata(draw, max_dims: int = 4) -> ArrayMetadataV3:
    """A valid :class:`ArrayMetadataV3` with random geometry, type, fill value, chunk key
    encoding, dimension names, attributes and a plausible codec chain."""
    ndim = draw(st.integers(0, max_dims))
    shape = tuple(draw(st.integers(0, 50)) for _ in range(ndim))
    chunk_shape = tuple(draw(st.integers(1, 20)) for _ in range(ndim))
    dt = draw(data_types())
    fill = draw(fill_values(dt))
    cke = draw(
        st.sampled_from(
            [
                ChunkKeyEncoding("default", "/"),
                ChunkKeyEncoding("default", "."),
                ChunkKeyEncoding("v2", "."),
                ChunkKeyEncoding("v2", "/"),
            ]
        )
    )
    serializer = {"name": "bytes"}
    if dt.itemsize > 1 and dt.kind != "raw":
        serializer["configuration"] = {"endian": draw(st.sampled_from(["little", "big"]))}
    codecs = [serializer]
    if draw(st.booleans()):
        codecs.append(
            {"name": "zstd", "configuration": {"level": draw(st.integers(0, 9)), "checksum": False}}
        )
    if draw(st.booleans()):
        codecs.append("crc32c")
    dims = draw(st.none() | st.lists(st.none() | st.text(max_size=5), min_size=ndim, max_size=ndim))
    return ArrayMetadataV3(
        shape=shape,
        data_type=dt,
        chunk_shape=chunk_shape,
        chunk_key_encoding=cke,
        fill_value=fill,
        codecs=codecs,
        attributes=draw(group_attributes()),
        dimension_names=None if dims is None else tuple(dims),
    )
