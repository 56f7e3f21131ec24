"""Conversion of v2 and 2022-draft metadata to final Zarr v3 (the pure part).

For each array, :func:`plan_array` decides the v3 document and what happens to the
chunks:

- ``"keep"``: the v3 codec chain reads the stored bytes as they are and the keys do not
  change (v2 arrays: the v3 ``v2`` chunk key encoding with the same separator gives the
  same keys), so only metadata is written;
- ``"rename"``: the bytes stay, the keys move (the draft keeps chunks under ``data/``);
- ``"reencode"``: the bytes must change, because v3 (as zarr-python 3.1 reads it) cannot
  express the stored encoding: a structured type with big-endian fields (v3 structured
  types are little-endian), a filter whose v3 form zarr-python 3 does not read
  (``categorize``), or a flattening filter after ``order: "F"`` (zarr-python 3 and v2
  flatten in different orders there). Re-encoded chunks get the v2 compressor where it
  is a v3 core codec, else the default compressors.

Which codec has which v3 form, and which of those every reader has, is asked from the
codec forms (:mod:`zarrhpc.codec_forms`, filled by the codec classes); nothing here names
a codec.

Groups become v3 groups with the same attributes. xarray's ``_ARRAY_DIMENSIONS``
attribute becomes ``dimension_names``. A v2 ``null`` fill value becomes zero, which is
what zarrhpc, zarr-python and tensorstore read for missing chunks of such arrays anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zarrhpc.codec_forms import default_chain, is_serializer, readable_in_v3, v2_entry
from zarrhpc.errors import UnsupportedError
from zarrhpc.metadata.chunk_keys import ChunkKeyEncoding
from zarrhpc.metadata.dtypes import DataType, data_type_from_numpy
from zarrhpc.metadata.v2 import ArrayMetadataV2, GroupMetadataV2
from zarrhpc.metadata.v3 import ArrayMetadataV3, GroupMetadataV3
from zarrhpc.metadata.v3draft import ArrayMetadataV3Draft, GroupMetadataV3Draft

__all__ = ["ArrayPlan", "group_to_v3", "plan_array"]

@dataclass(frozen=True)
class ArrayPlan:
    """What converting one array does.

    Attributes
    ----------
    metadata : ArrayMetadataV3
        The new document.
    chunks : {"keep", "rename", "reencode"}
    reason : str
        Why chunks are re-encoded ("" otherwise).
    """

    metadata: ArrayMetadataV3
    chunks: str
    reason: str = ""


def _v3_type_of_v2(md: ArrayMetadataV2) -> DataType:
    npdt = md.dtype
    if npdt.kind == "O":  # the object codec says what it holds (string, bytes, ...)
        return md.to_spec().data_type
    if npdt.fields is None and npdt.kind == "V":
        return DataType("raw_bytes", npdt)  # zarr-python 3's v3 name for v2 '|V<n>'
    if npdt.fields is None and npdt.kind not in "S":
        npdt = npdt.newbyteorder("=")
    try:
        return data_type_from_numpy(npdt)
    except UnsupportedError as exc:
        raise UnsupportedError(f".zarray: dtype {npdt}: cannot convert to Zarr v3: {exc}") from None


def _reencode_chain(md: ArrayMetadataV2, dt: DataType) -> list:
    """The object codec the array was written with (it alone knows its elements) or the
    default serializer for ``dt``, then the v2 compressor when it is a core v3 codec (its
    v3 form for elements of ``dt``), else the default compressors."""
    serializer, *compressors = default_chain(dt.dtype)
    objects = [f for f in md.filters or [] if is_serializer(f)]
    if objects:
        serializer = v2_entry(objects[0], dt.dtype)
    comp = md.compressor
    if comp and readable_in_v3(comp, core_only=True):
        compressors = [v2_entry(comp, dt.dtype)]
    return [serializer, *compressors]


def _plan_v2(md: ArrayMetadataV2) -> ArrayPlan:
    dt = _v3_type_of_v2(md)
    reason = ""
    if md.dtype.fields is not None and np.dtype(dt.dtype) != md.dtype:
        reason = "a structured type with big-endian fields (v3 structured types are little-endian)"
    filters = md.filters or []
    # an object codec stays (no other codec decodes its elements), readable or not
    odd = [f["id"] for f in filters if not readable_in_v3(f) and not is_serializer(f)]
    if odd:
        reason = f"the filter {odd[0]!r}, which has no v3 form zarr-python reads"
    elif filters and md.order == "F" and md.ndim > 1:
        reason = "filters after order 'F' (v2 and zarr-python 3 flatten differently)"
    attrs = dict(md.attributes)
    dims = md.dimension_names
    if dims is not None:
        attrs.pop("_ARRAY_DIMENSIONS")
    codecs = _reencode_chain(md, dt) if reason else md.codecs_v3()
    if filters and filters[0] == {"id": "shuffle", "elementsize": 0}:
        codecs = [_shuffle_by_type(c, md.dtype) for c in codecs]
    fill = md.to_spec().fill_value
    if fill.dtype != dt.dtype:
        fill = fill.astype(dt.dtype)
    out = ArrayMetadataV3(
        shape=md.shape, data_type=dt, chunk_shape=md.chunks,
        chunk_key_encoding=ChunkKeyEncoding("v2", md.dimension_separator),
        fill_value=fill, codecs=codecs, attributes=attrs, dimension_names=dims,
    )
    return ArrayPlan(out, "reencode" if reason else "keep", reason)


def _shuffle_by_type(codec: dict, dtype: np.dtype) -> dict:
    """libnetcdf's ``shuffle`` with ``elementsize: 0`` (by the type's size, as zarrhpc
    reads it) with the size spelled out: zarr-python reads 0 as "no shuffle" and handed
    out scrambled values of the converted array (the bytes stay; only the spelling)."""
    if codec.get("name") != "numcodecs.shuffle" or \
            (codec.get("configuration") or {}).get("elementsize") != 0:
        return codec
    return {**codec, "configuration": {**codec["configuration"],
                                       "elementsize": max(int(dtype.itemsize), 1)}}


def _plan_draft(md: ArrayMetadataV3Draft) -> ArrayPlan:
    # the draft's chain is already v3-shaped and made of core codecs: bytes stay, keys move
    out = ArrayMetadataV3(
        shape=md.shape, data_type=md.data_type, chunk_shape=md.chunk_shape,
        chunk_key_encoding=ChunkKeyEncoding("default", md.separator),
        fill_value=md.fill_value, codecs=md.codecs, attributes=dict(md.attributes),
    )
    return ArrayPlan(out, "rename")


def plan_array(md) -> ArrayPlan:
    """The conversion plan of one array (v2, draft, or v3 which stays as it is)."""
    if isinstance(md, ArrayMetadataV2):
        return _plan_v2(md)
    if isinstance(md, ArrayMetadataV3Draft):
        return _plan_draft(md)
    if isinstance(md, ArrayMetadataV3):
        return ArrayPlan(md, "keep")
    raise TypeError(f"plan_array: expected array metadata, got {type(md).__name__}")


def group_to_v3(md) -> GroupMetadataV3:
    """The v3 document of a group (v2, draft, implicit draft, or v3)."""
    if md is None or isinstance(md, (GroupMetadataV2, GroupMetadataV3Draft)):
        return GroupMetadataV3(attributes=dict(md.attributes) if md is not None else {})
    if isinstance(md, GroupMetadataV3):
        extra = {k: v for k, v in md.extra.items() if k != "consolidated_metadata"}
        return GroupMetadataV3(attributes=dict(md.attributes), extra=extra)
    raise TypeError(f"group_to_v3: expected group metadata, got {type(md).__name__}")
