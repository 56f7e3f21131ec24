"""``zarrhpc.convert``: move a v2 or 2022-draft hierarchy to final Zarr v3.

Life cycle of one conversion:

1. open the source hierarchy (any format) and plan every array
   (:func:`zarrhpc.metadata.convert.plan_array`): keep the chunks, rename them, or
   re-encode them;
2. write each node's ``zarr.json`` into the destination; copy or rename chunks byte for
   byte where the plan allows, else decode with the source chain and encode with the new
   one, one chunk at a time (memory stays at one chunk per worker);
3. a source with consolidated metadata gets a v3 ``consolidated_metadata`` member too;
   in place: the v2 documents (``.zarray``, ``.zgroup``, ``.zattrs``, ``.zmetadata``) or
   the draft's ``meta/`` tree and entry point are removed last, once the v3 documents are
   written, and the draft's root ``zarr.json`` is overwritten only at the very end;
4. verify (unless told not to): every array of the result is read chunk by chunk and
   compared with the source, bit for bit (copy) or with digests taken before (in place).
"""

from __future__ import annotations

import dataclasses
import hashlib
import sys
import time

import numpy as np

from zarrhpc import config
from zarrhpc.core._nodes import resolve_store
from zarrhpc.core._tasks import map_all
from zarrhpc.core.array import Array
from zarrhpc.core.formats import write_node
from zarrhpc.core.group import Group, open_node
from zarrhpc.errors import NodeExistsError, UnsupportedError, ZarrhpcError
from zarrhpc.metadata.chunk_keys import ChunkKeyEncoding
from zarrhpc.metadata.convert import group_to_v3, plan_array
from zarrhpc.metadata.v2 import ZARRAY, ZATTRS, ZGROUP

__all__ = ["ConversionError", "convert"]


class ConversionError(ZarrhpcError, RuntimeError):
    """The converted hierarchy does not read back as the source did."""


class _Progress:
    """``converting: 12/345 chunks`` on stderr, redrawn at most 5 times a second."""

    def __init__(self, total: int, enabled: bool, stream=None):
        self.total, self.done, self.enabled = total, 0, enabled
        self.stream = stream or sys.stderr
        self._last = 0.0

    def step(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if self.enabled and (now - self._last > 0.2 or self.done == self.total):
            self._last = now
            width = 30
            filled = width * self.done // max(self.total, 1)
            self.stream.write(f"\rconverting [{'#' * filled}{'.' * (width - filled)}] "
                              f"{self.done}/{self.total} chunks")
            if self.done == self.total:
                self.stream.write("\n")
            self.stream.flush()


def _nodes(root):
    out = [("", root)]
    if isinstance(root, Group):
        out += [(n, m) for n, m in root.members(max_depth=None)]
    return out


def _chunk_regions(a: Array):
    for coords in a._grid.all_chunk_coords():
        yield coords, a._grid.chunk_region(coords)


def _digests(a: Array, dtype: np.dtype) -> list[bytes]:
    """One digest per chunk region of ``a``'s data as ``dtype`` (the converted type, whose
    field byte orders may differ from the source's)."""
    return [hashlib.blake2b(np.ascontiguousarray(a[region]).astype(dtype).tobytes(),
                            digest_size=16).digest()
            for _, region in _chunk_regions(a)]


def _move_chunks(src: Array, dst: Array, mode: str, same_store: bool, progress) -> None:
    def one(item):
        coords, region = item
        old = src._chunk_key(coords)
        new = dst._chunk_key(coords)
        if mode == "reencode":
            dst[region] = src[region]
        elif old != new or not same_store:
            raw = src._store.get(old)
            if raw is not None:
                dst._store.set(new, raw)
                if same_store:
                    src._store.erase(old)
        progress.step()

    items = list(_chunk_regions(src))
    pool = config.executor() if len(items) > 1 else None
    if pool is None:
        for item in items:
            one(item)
    else:
        map_all(pool, one, items)  # no job outlives a failure


def _with_fresh_keys(md):
    """``md`` with chunk keys no old chunk uses (the v3 default encoding).

    Re-encoding in place must never write a new chunk over an old one: a conversion
    killed midway would leave chunks in the new encoding under the old metadata. So the
    re-encoded chunks go to new keys (``c/0/0`` beside v2's ``0.0``), the array's
    ``zarr.json`` (which wins over ``.zarray`` when both exist) is written once they are
    all there, and only then are the old chunks and documents removed: a kill at any
    moment leaves the old array or the new one, each with its own chunks.
    """
    if md.chunk_key_encoding.name == "default":  # c/... never names a v2 or draft chunk
        return md
    return dataclasses.replace(md, chunk_key_encoding=ChunkKeyEncoding("default", "/"))


def _same(a: Array, b: Array) -> bool:
    for _, region in _chunk_regions(a):
        x, y = np.asarray(a[region]), np.asarray(b[region])
        if x.dtype != y.dtype:
            x = x.astype(y.dtype)
        if x.tobytes() != y.tobytes():
            return False
    return True


def convert(src, dst=None, *, to: str = "v3", in_place: bool = False, verify: bool = True,
            progress: bool | None = None) -> Group | Array:
    """Convert a Zarr v2 or 2022-draft hierarchy (or single array) to Zarr v3.

    Parameters
    ----------
    src : Store or path
        The hierarchy to convert.
    dst : Store or path, optional
        Where to write the v3 hierarchy (must hold no Zarr node). Omit with ``in_place``.
    to : {"v3"}
        The target format.
    in_place : bool
        Rewrite ``src`` itself: only metadata where the chunks can stay, renamed chunks
        for the draft, re-encoded chunks where the plan needs it.
    verify : bool
        Read both sides at the end and compare (in place: against digests taken first).
    progress : bool, optional
        Draw a progress bar on stderr; default: when stderr is a terminal.

    Returns
    -------
    Group or Array
        The converted root node, opened read-only.

    Raises
    ------
    ConversionError
        Verification found a difference.
    """
    if to not in ("v3", 3, "3"):
        raise UnsupportedError(f"convert: to={to!r}: only 'v3' is supported")
    if (dst is None) != bool(in_place):
        raise ValueError("convert: give either dst or in_place=True")
    src_store = resolve_store(src, mode="r+" if in_place else "r")
    dst_store = src_store if in_place else resolve_store(dst, mode="w")
    if not in_place and any(k.endswith(("zarr.json", ZARRAY, ZGROUP)) for k in dst_store.list()):
        raise NodeExistsError(f"convert: the destination {dst!r} already holds Zarr nodes")
    root = open_node(src_store, "", read_only=True)
    nodes = _nodes(root)
    draft = getattr(root._metadata, "read_only", False)
    if not draft:
        _refuse_unreached(src_store, nodes)
    plans = {p: plan_array(n._metadata) for p, n in nodes if isinstance(n, Array)}
    total = sum(n.nchunks for p, n in nodes if isinstance(n, Array))
    bar = _Progress(total, sys.stderr.isatty() if progress is None else progress)
    before = {p: _digests(n, plans[p].metadata.data_type.dtype) for p, n in nodes
              if isinstance(n, Array)} if (verify and in_place) else {}
    was_consolidated = isinstance(root, Group) and root._consolidated is not None and not draft
    if not was_consolidated and isinstance(root, Group) and not draft:
        from zarrhpc.core.consolidated import load_consolidated

        was_consolidated = load_consolidated(src_store, "", root._metadata) is not None
    # v3 documents of every node (the root's last in place: it may be the draft's entry point)
    order = sorted(nodes, key=lambda pn: pn[0] == "")
    for path, node in order:
        if isinstance(node, Array):
            plan = plans[path]
            md = plan.metadata
            fresh = in_place and plan.chunks == "reencode"
            if fresh:  # new keys: the old chunks stay readable until zarr.json switches
                md = _with_fresh_keys(md)
                plans[path] = dataclasses.replace(plan, metadata=md)
            new = Array(dst_store, path, md)
            _move_chunks(node, new, plan.chunks, in_place, bar)
            if not (draft and path == ""):
                write_node(dst_store, path, md)  # the commit point of this array
            if fresh:
                node._store.erase_values([node._chunk_key(c)
                                          for c in node._grid.all_chunk_coords()])
        elif not (draft and path == ""):
            write_node(dst_store, path, group_to_v3(node._metadata))
    if in_place:
        _remove_old_documents(src_store, nodes, draft)
    if draft:  # the entry point is replaced by the root's v3 document, last
        root_md = plans[""].metadata if "" in plans else group_to_v3(root._metadata)
        write_node(dst_store, "", root_md)
    if was_consolidated:  # a consolidated source gives a consolidated result
        from zarrhpc.core.consolidated import consolidate_metadata

        consolidate_metadata(dst_store)
    result = open_node(dst_store, "", read_only=True)
    if verify:
        _verify(nodes, result, before)
    return result


def _refuse_unreached(store, nodes) -> None:
    """Refuse a v2 source holding nodes the hierarchy does not reach: under a directory
    without ``.zgroup`` (z5py writes such paths; zarr-python opens the array by its path).
    Converting the rest dropped them from the result with no error (and, in place, left
    them v2 under a v3 root)."""
    reached = {path for path, _ in nodes}
    missed = sorted({key.rpartition("/")[0] for key in store.list()
                     if key.rpartition("/")[2] in (ZARRAY, ZGROUP)} - reached)
    if missed:
        path = missed[0]
        parts = path.split("/")
        implicit = next(("/".join(parts[:i]) for i in range(1, len(parts))
                         if "/".join(parts[:i]) not in reached), path)
        raise UnsupportedError(
            f"convert: {path!r} (and {len(missed) - 1} more nodes) lie under {implicit!r}, "
            f"which has no {ZGROUP}: the hierarchy does not reach them and they would be "
            f"left out; create the group explicitly first (zarrhpc.open_group(store, "
            f"path={implicit!r}, mode='a', zarr_format=2)); nothing was written")


def _remove_old_documents(store, nodes, draft: bool) -> None:
    if draft:
        store.erase_prefix("meta/")
        store.erase_prefix("data/")  # only emptied directories remain after the renames
        return
    for path, _ in nodes:
        prefix = f"{path}/" if path else ""
        store.erase_values([prefix + n for n in (ZARRAY, ZGROUP, ZATTRS, ".zmetadata")])


def _verify(nodes, result, before: dict) -> None:
    for path, node in nodes:
        if not isinstance(node, Array):
            continue
        new = result if path == "" else result[path]
        if new.shape != node.shape:
            raise ConversionError(f"{path or '/'}: shape {new.shape} != source {node.shape}")
        ok = _digests(new, new.dtype) == before[path] if path in before else _same(node, new)
        if not ok:
            raise ConversionError(f"{path or '/'}: converted data differs from the source")
