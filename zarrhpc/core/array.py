"""The Array: metadata, codec pipeline and store bound together; reads and writes.

Life cycle: ``create_array``/``open_array`` parse or build the metadata of any format
(v3, v2, the 2022 draft), which ``to_spec()`` turns into one ``ArraySpec`` with a
v3-shaped codec chain; ``Array`` prepares once from it what every chunk needs (codec
pipeline for the chunk shape and dtype, chunk key encoder, fill value bytes), so every
format runs the same read and write path. The prepared form (core/_prepared.py, one frozen
object, rebuilt when the shape changes) is all the read and write paths see.

Selections dispatch as zarr-python's do: ``a[...]`` sends pure fancy selections to
``vindex`` and pure orthogonal ones to ``oindex``, the rest to basic indexing (any step);
``oindex``/``vindex``/``blocks`` and the ``get_*``/``set_*_selection`` methods carry
zarr-python's names, ``out=`` and ``fields=``. Basic selections run on _read/_write
(and _shard when sharded); orthogonal and point selections on _select; block selections
become basic ones; resize and append live in _resize.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from zarrhpc.core._info import array_info, data_type_of, node_url
from zarrhpc.core._irregular import get_selection, resize_irregular, set_selection
from zarrhpc.core._prepared import prepare
from zarrhpc.core._read import check_out, read_box, read_element, read_selection
from zarrhpc.core._resize import append_data, resize_array
from zarrhpc.core._select import (
    read_mask,
    read_orthogonal,
    read_points,
    write_mask,
    write_orthogonal,
    write_points,
)
from zarrhpc.core._selection_values import (
    NUMERIC_SCALARS,
    as_numpy_element,
    index_array,
    is_plain_basic,
    one_element,
    other_order,
    points_value,
    shown_dtype,
)
from zarrhpc.core._shard import read_sharded, write_sharded
from zarrhpc.core._write import broadcast_value, write_selection
from zarrhpc.core.array_api import ArrayApiMixin
from zarrhpc.core.formats import doc_key, read_node

# zarr-python's zarr.core.array also exposes the metadata classes (users import them there)
from zarrhpc.core.metadata import ArrayV2Metadata, ArrayV3Metadata
from zarrhpc.core.node import ASYNC_CLASSES, Node, NodeInfo, metadata_lock
from zarrhpc.errors import ArrayNotFoundError
from zarrhpc.indexing import (
    block_to_basic,
    check_coordinate,
    check_fields,
    check_mask,
    check_no_multi_fields,
    coordinate_projection,
    is_pure_fancy_indexing,
    is_pure_orthogonal_indexing,
    mask_projection,
    normalize_orthogonal,
    normalize_vindex,
    orthogonal_projection,
    pop_fields,
)
from zarrhpc.metadata.dtypes_opt import from_masked, to_masked
from zarrhpc.metadata.dtypes_opt import is_optional as _is_optional

__all__ = ["Array", "ArrayV2Metadata", "ArrayV3Metadata", "BlockIndex", "OIndex", "VIndex"]


class Array(ArrayApiMixin, Node):
    """A Zarr array (v3, v2 or the 2022 draft) in a store. Create with
    ``zarrhpc.create_array``/``open_array``."""

    _kind = "array"

    def __init__(self, store, path: str | None = None, metadata=None, *,
                 read_only: bool = False, write_empty_chunks: bool = False, order: str = "C"):
        if path is None and metadata is None:
            self._from_async(store)  # zarr-python's Array(async_array)
            return
        super().__init__(store, path, metadata, read_only)
        self.__dict__["_wec"] = bool(write_empty_chunks)
        if order not in ("C", "F"):
            raise ValueError(f"order: expected 'C' or 'F', got {order!r}")
        self._config_order = order  # what .config shows
        if getattr(metadata, "zarr_format", None) == 2:
            # as zarr-python: a v2 array is read in its stored order, whatever the config
            order = metadata.order
        self._order = order
        self._prepare()

    def _prepare(self) -> None:
        self._spec, self._prep = prepare(self._metadata, self._store, self._path,
                                         order=self._order,
                                         write_empty_chunks=self._write_empty_chunks)
        self._swapped = other_order(self._stored_dtype())
        # a[int...] / a[slices...] straight to the engine: not when results are converted
        # after the read (stored byte order shown, zarrs' optional type as masked arrays)
        self._lean = self._swapped is None and not _is_optional(self._spec.data_type)

    def _evolve(self, **changes) -> None:
        self._prep = replace(self._prep, **changes)

    # the prepared form's parts under their former names (other layers' helpers use them)
    _grid = property(lambda self: self._prep.grid)
    _pipeline = property(lambda self: self._prep.pipeline)
    _sharding = property(lambda self: self._prep.sharding)
    _fill_bytes = property(lambda self: self._prep.fill_bytes)
    _key_prefix = property(lambda self: self._prep.key_prefix)

    @property
    def _engine(self):
        return self._prep.engine

    @_engine.setter
    def _engine(self, engine) -> None:
        self._evolve(engine=engine)

    @property
    def _write_empty_chunks(self) -> bool:
        return self.__dict__.get("_wec", False)

    @_write_empty_chunks.setter
    def _write_empty_chunks(self, value: bool) -> None:
        self.__dict__["_wec"] = bool(value)
        if "_prep" in self.__dict__:
            self._evolve(write_empty_chunks=bool(value))

    def _chunk_key(self, coords) -> str:
        return self._prep.chunk_key(coords)

    # -- properties, named as zarr-python names them --------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self._spec.shape

    @property
    def dtype(self) -> np.dtype:
        if self._swapped is not None:
            return self._swapped
        return shown_dtype(self._spec.data_type.dtype)

    @property
    def _irregular(self) -> bool:
        return self._spec.chunk_grid is not None

    @property
    def chunks(self) -> tuple[int, ...]:
        """The chunk shape; the inner chunk shape when the array is sharded.

        An irregular rectilinear grid: per dimension the lengths of its chunks inside the
        array (dask's form, e.g. ``((16, 10), (24, 14))``).
        """
        if self._irregular:
            return self._prep.grid.chunk_lengths()
        if self._prep.sharding is not None:
            return self._prep.sharding.chunk_shape
        return self._spec.chunk_shape

    @property
    def shards(self) -> tuple[int, ...] | None:
        """The shard shape, or None when the array is not sharded."""
        if self._prep.sharding is not None:
            return self._spec.chunk_shape
        return None

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def nchunks(self) -> int:
        """Number of chunks (inner chunks when sharded, as zarr-python counts them)."""
        return math.prod(self.cdata_shape)

    @property
    def cdata_shape(self) -> tuple[int, ...]:
        """Chunks along each dimension (inner chunks when sharded, as zarr-python)."""
        if self._prep.sharding is not None:
            return tuple(-(-n // c) for n, c in zip(self.shape, self.chunks))
        return self._prep.grid.grid_shape

    @property
    def fill_value(self):
        fill = self._metadata.fill_value
        return None if fill is None else fill[()]  # None: a v2 null fill value

    @property
    def order(self) -> str:
        return self._order

    @property
    def dimension_names(self):
        return self._spec.dimension_names

    @property
    def nchunks_initialized(self) -> int:
        """How many chunks are stored (lists the array's chunk keys).

        Sharded: stored shards times inner chunks per shard, as zarr-python counts.
        """
        prep = self._prep
        keys = set(self._store.list_prefix(prep.key_prefix))
        n = sum(1 for c in prep.grid.all_chunk_coords() if prep.chunk_key(c) in keys)
        return n * (self._prep.sharding.nchunks if self._prep.sharding is not None else 1)

    @property
    def info(self) -> NodeInfo:
        """A table of the array's properties, as zarr-python 3 prints it (no store reads)."""
        return self._info_table()

    def _stored_dtype(self):
        """A v2 array's stored numpy dtype (its byte order); None for v3 and object arrays."""
        stored = getattr(self._metadata, "dtype", None) if self.zarr_format == 2 else None
        return None if stored is None or stored.kind == "O" else stored

    def _info_table(self, stored=None, initialized=None) -> NodeInfo:
        spec = self._spec
        rows = {"zarr_format": self._format_text,
                "data_type": data_type_of(spec.data_type, self._stored_dtype()),
                "fill_value": self.fill_value, "shape": self.shape, "shards": self.shards,
                "chunks": self.chunks, "order": self._order, "read_only": self._read_only,
                "store_type": type(self._store).__name__, "filters": self.filters,
                "serializer": self.serializer, "compressors": self.compressors,
                "nbytes": self.nbytes}
        table = array_info(rows, sharded=self._prep.sharding is not None,
                           v2=self.zarr_format == 2, itemsize=spec.data_type.dtype.itemsize,
                           stored=stored, initialized=initialized)
        return table  # as zarr-python's: no dimension names row (the same text printed)

    # -- data -----------------------------------------------------------------------
    def _in_stored_order(self, read, out):
        """``read(o)`` (machine order, into ``o`` or a new array) in the byte order wanted:
        a v2 array stored in the other order (``'>u4'`` here) reads in it, as zarr-python
        shows it; an ``out`` in the other order than the array's type is filled in its own
        order, as zarr-python (a numpy assignment) fills it. Either way the engine decodes
        into the result's memory (viewed in machine order) and one in-place pass swaps the
        bytes: no temporary, no second copy."""
        native = self._prep.dtype
        if out is not None:
            if out.dtype == native or not isinstance(out, np.ndarray) or (
                    out.dtype.newbyteorder("=") != native):
                return read(out)  # machine order (or check_out's error for another type)
            check_out(out, out.shape, out.dtype)  # writable before anything is decoded
            view = out.view(native)
            read(view)
            view.byteswap(inplace=True)
            return out
        result = read(None)
        if isinstance(result, np.ndarray) and result.flags.writeable and result.dtype == native:
            return result.byteswap(inplace=True).view(self._swapped)
        # a numpy scalar stays one (numpy scalars are in machine order)
        converted = np.asarray(result).astype(self._swapped)
        return converted if isinstance(result, np.ndarray) else converted[()]

    def _other_order(self, out) -> bool:
        """Whether a read converts byte order (see ``_in_stored_order``)."""
        return self._swapped is not None or (out is not None and getattr(
            out, "dtype", None) is not None and out.dtype != self._prep.dtype)

    def _read(self, selection, out=None):
        if self._other_order(out):
            return self._in_stored_order(lambda o: self._read_native(selection, o), out)
        return self._read_native(selection, out)

    def _read_native(self, selection, out=None):
        if self._irregular:
            return get_selection(self._prep, "basic", selection, out)
        if self._prep.sharding is not None:
            return read_sharded(self._prep, selection, out=out)
        return read_selection(self._prep, selection, out=out)

    def _write(self, selection, value) -> None:
        self._check_writable()
        if self._irregular:
            set_selection(self._prep, "basic", selection, value)
        elif self._prep.sharding is not None:
            write_sharded(self._prep, selection, value)
        else:
            write_selection(self._prep, selection, value)

    def _result(self, shape, out, order=None) -> np.ndarray:
        if out is None:
            return self._prep.empty(shape, order)
        return check_out(out, tuple(shape), self._prep.dtype)  # machine order here

    def _get_raw(self, kind: str, selection, out):
        if self._other_order(out):
            return self._in_stored_order(lambda o: self._get_native(kind, selection, o), out)
        return self._get_native(kind, selection, out)

    def _get_native(self, kind: str, selection, out):
        prep = self._prep
        shape = prep.shape
        if kind == "basic":
            return self._read_native(selection, out)
        if self._irregular:
            return get_selection(prep, kind, selection, out)
        if kind == "block":  # an array always (the Ellipsis), as zarr-python
            return self._read_native(block_to_basic(selection, shape, prep.grid.chunk_shape)
                                     + (Ellipsis,), out)
        if kind == "orthogonal":
            norm = normalize_orthogonal(selection, shape)
            if is_plain_basic(norm):  # ints and slices: the basic path (an array always)
                return self._read_native(norm + (Ellipsis,), out)
            proj = orthogonal_projection(norm, shape, prep.chunks)
            result = self._result(proj.out_shape, out)
            read_orthogonal(prep, proj, result[proj.expand_index])
            return result
        if kind == "coordinate":
            proj = coordinate_projection(check_coordinate(selection, shape), shape,
                                         prep.chunks)
        else:
            mask = check_mask(selection, shape)
            # the engine's per-chunk mask pass when it applies (core/_select.read_mask)
            result = read_mask(prep, mask, lambda s: self._result(s, out, "C"))
            if result is not None:
                return result
            proj = mask_projection(mask, shape, prep.chunks)
        result = self._result(proj.out_shape, out, "C")
        flat = result.reshape(-1) if result.flags.c_contiguous else prep.empty(
            (proj.npoints,), "C")
        read_points(prep, proj, flat)
        if not np.shares_memory(flat, result):
            result[...] = flat.reshape(proj.out_shape)
        return result

    def _set_raw(self, kind: str, selection, value) -> None:
        prep = self._prep
        shape = prep.shape
        if kind == "basic":
            self._write(selection, value)
            return
        if self._irregular:
            self._check_writable()
            set_selection(prep, kind, selection, value)
            return
        if kind == "block":
            self._write(block_to_basic(selection, shape, prep.grid.chunk_shape), value)
            return
        self._check_writable()
        if kind == "orthogonal":
            norm = normalize_orthogonal(selection, shape)
            if is_plain_basic(norm):
                self._write(norm, value)
                return
            proj = orthogonal_projection(norm, shape, prep.chunks)
            full = broadcast_value(prep, value, proj.out_shape)[proj.expand_index]
            write_orthogonal(prep, proj, full)
            return
        if kind == "coordinate":
            proj = coordinate_projection(check_coordinate(selection, shape), shape,
                                         prep.chunks)
            value = points_value(value, proj.out_shape)
        else:
            mask = check_mask(selection, shape)
            if write_mask(prep, mask, value):  # the engine's per-chunk pass (core/_select)
                return
            proj = mask_projection(mask, shape, prep.chunks)
        write_points(prep, proj, broadcast_value(prep, value, proj.out_shape).reshape(-1))

    def _masked(self, result):
        """zarrs' ``optional`` type: records as a masked array, as zarrista hands them
        out (metadata/dtypes_opt.py); other types as they are."""
        if not _is_optional(self._spec.data_type):
            return result
        if isinstance(result, np.void):
            return result["value"] if result["valid"] else np.ma.masked
        return to_masked(result) if isinstance(result, np.ndarray) else result

    def _get(self, kind: str, selection, out=None, fields=None):
        if isinstance(selection, Array):  # as zarr-python: a zarr array is read first
            selection = index_array(selection)
        dtype = check_fields(fields, self.dtype)
        out = _out_array(out)
        # (an out= in the other byte order is decoded into in place: _in_stored_order)
        if not fields and (out is None or out.dtype == dtype or out.dtype.newbyteorder(
                "=") == self._prep.dtype.newbyteorder("=")):
            return self._masked(self._get_raw(kind, selection, out))
        part = self._get_raw(kind, selection, None)
        if fields:
            part = part[fields] if isinstance(fields, str) else part[list(fields)]
        if out is None:
            return part
        # zarr-python assigns the decoded chunks into ``out``: numpy converts the values
        # to its dtype (another byte order, a wider type), as here
        check_out(out, np.shape(part), out.dtype)[...] = part
        return out

    def _set(self, kind: str, selection, value, fields=None) -> None:
        if _is_optional(self._spec.data_type):
            value = from_masked(value, self._prep.dtype)
        if fields:
            self._check_writable()
            field = check_no_multi_fields(fields)
            check_fields(field, self.dtype)
            # structured arrays: the records are read, the field replaced, written back
            records = np.array(self._get_raw(kind, selection, None))
            records[field] = value
            value = records
        self._set_raw(kind, selection, value)

    def __getitem__(self, selection):
        # the shortest paths first: one element (zarr-python's 0-d ndarray), a small box
        if self._lean:
            boxed = type(selection) is tuple and selection
            first = type(selection[0]) if boxed else type(selection)
            value = None
            if first is int:
                value = read_element(self._prep, selection)
            elif first is slice and boxed:
                value = read_box(self._prep, selection)  # (ndim > 0: zarr-python's type)
            if value is not None:
                return value
        if is_plain_basic(selection):
            return self._masked(self._as_zarr_python(self._read(selection), selection))
        fields, pure = pop_fields(selection)
        if is_pure_fancy_indexing(pure, self.ndim):
            return self.vindex[selection]
        if is_pure_orthogonal_indexing(pure, self.ndim):
            return self.get_orthogonal_selection(pure, fields=fields)
        return self.get_basic_selection(pure, fields=fields)

    def __setitem__(self, selection, value) -> None:
        if _is_optional(self._spec.data_type):
            value = from_masked(value, self._prep.dtype)
        elif value is np.ma.masked and one_element(selection, self.ndim):
            value = as_numpy_element(value, self._prep.dtype)
        if is_plain_basic(selection):
            self._write(selection, value)
            return
        fields, pure = pop_fields(selection)
        if is_pure_fancy_indexing(pure, self.ndim):
            self.vindex[selection] = value
        elif is_pure_orthogonal_indexing(pure, self.ndim):
            self.set_orthogonal_selection(pure, value, fields=fields)
        else:
            self.set_basic_selection(pure, value, fields=fields)

    def read(self, selection=Ellipsis, *, out=None):
        """Read ``selection`` into ``out`` (a numpy array of the result shape) or a new array."""
        return self._read(selection, out=out)

    def get_basic_selection(self, selection=Ellipsis, *, out=None, fields=None):
        """``a[selection]`` for ints, slices (any step) and Ellipsis."""
        result = self._get("basic", selection, out, fields)
        if out is None and type(result) is np.ndarray and result.ndim == 0:
            return result[()]  # zarr-python's basic path: a scalar for a 0-d result
        return result

    def _as_zarr_python(self, result, selection):
        """The result of ``a[ints, slices, Ellipsis]`` in zarr-python's type. Its
        ``__getitem__`` sends ints and slices without an Ellipsis (on a >0-d array) to the
        orthogonal path, which always returns an ndarray (0-d for all ints: ``a[0]`` is
        ``array(5)``), and the rest to the basic path, which returns a scalar when the result
        is 0-d (``a[...]`` of a 0-d array, ``a[0, ...]``). Users see the type in reprs."""
        if type(result) is np.ndarray and result.ndim:
            return result  # the common case first: nothing to do
        basic = selection is Ellipsis or not self._prep.ndim or (
            type(selection) is tuple and Ellipsis in selection)
        if type(result) is np.ndarray:
            return result[()] if basic else result
        if basic:
            return result
        if isinstance(result, NUMERIC_SCALARS) and self._swapped is None:
            return result.__array__()  # a 0-d array of the scalar's own dtype
        shown = np.empty((), dtype=self.dtype)  # strings keep their length; stored order
        shown[()] = result
        return shown

    def set_basic_selection(self, selection, value, *, fields=None) -> None:
        """``a[selection] = value`` for ints, slices (any step) and Ellipsis."""
        self._set("basic", selection, value, fields)

    def get_orthogonal_selection(self, selection, *, out=None, fields=None):
        """Outer indexing: ints, slices, integer and boolean arrays, each on its own axis.

        Parameters
        ----------
        selection
            One item per dimension: int, slice (any step), integer array (unsorted,
            repeated, negative) or boolean array of the dimension's length.
        out : numpy.ndarray, optional
            Receives the result (its shape and dtype must be the result's).
        fields : str or list of str, optional
            Fields of a structured dtype to return.

        Returns
        -------
        numpy.ndarray
            Integer-indexed dimensions dropped; the others as long as their index.

        Raises
        ------
        IndexError
            A bad selection (zarrhpc.errors: BoundsCheckError, SelectionError, ...).
        """
        return self._get("orthogonal", selection, out, fields)

    def set_orthogonal_selection(self, selection, value, *, fields=None) -> None:
        """Store ``value`` at the orthogonal (outer) selection."""
        self._set("orthogonal", selection, value, fields)

    def get_coordinate_selection(self, selection, *, out=None, fields=None):
        """Points: one integer array per dimension, broadcast; result shaped as they are.

        Parameters
        ----------
        selection
            A tuple of one integer (array) per dimension; the arrays broadcast.
        out : numpy.ndarray, optional
            Receives the result (its shape and dtype must be the result's).
        fields : str or list of str, optional
            Fields of a structured dtype to return.

        Returns
        -------
        numpy.ndarray
            Shaped as the broadcast index arrays ((1,) for integers alone).

        Raises
        ------
        IndexError
            A bad selection (zarrhpc.errors: BoundsCheckError, SelectionError, ...).
        """
        return self._get("coordinate", selection, out, fields)

    def set_coordinate_selection(self, selection, value, *, fields=None) -> None:
        """Store ``value`` at the points (repeated points: the last value wins)."""
        self._set("coordinate", selection, value, fields)

    def get_mask_selection(self, mask, *, out=None, fields=None):
        """The elements where the full-shape boolean ``mask`` is True (C order).

        Parameters
        ----------
        mask
            A boolean array of the array's shape (the parameter is ``mask``).
        out : numpy.ndarray, optional
            Receives the result (its shape and dtype must be the result's).
        fields : str or list of str, optional
            Fields of a structured dtype to return.

        Returns
        -------
        numpy.ndarray
            One-dimensional, the selected elements in C order.

        Raises
        ------
        IndexError
            A bad selection (zarrhpc.errors: BoundsCheckError, SelectionError, ...).
        """
        return self._get("mask", mask, out, fields)

    def set_mask_selection(self, mask, value, *, fields=None) -> None:
        """Store ``value`` where the full-shape boolean ``mask`` is True."""
        self._set("mask", mask, value, fields)

    def get_block_selection(self, selection, *, out=None, fields=None):
        """Whole chunks (shards when sharded): block indices or step-1 slices of blocks.

        Parameters
        ----------
        selection
            Per dimension a block index or a slice of blocks with step 1.
        out : numpy.ndarray, optional
            Receives the result (its shape and dtype must be the result's).
        fields : str or list of str, optional
            Fields of a structured dtype to return.

        Returns
        -------
        numpy.ndarray
            The region the blocks cover (the last block may be partial).

        Raises
        ------
        IndexError
            A bad selection (zarrhpc.errors: BoundsCheckError, SelectionError, ...).
        """
        return self._get("block", selection, out, fields)

    def set_block_selection(self, selection, value, *, fields=None) -> None:
        """Store ``value`` in the blocks selected."""
        self._set("block", selection, value, fields)

    @property
    def oindex(self) -> OIndex:
        """Orthogonal (outer) indexing: ``a.oindex[[0, 2], 1:3]``."""
        return OIndex(self)

    @property
    def vindex(self) -> VIndex:
        """Vectorised (point) indexing: ``a.vindex[[0, 2], [1, 3]]`` or ``a.vindex[mask]``."""
        return VIndex(self)

    @property
    def blocks(self) -> BlockIndex:
        """Block indexing: ``a.blocks[1, :2]`` reads chunks (shards when sharded)."""
        return BlockIndex(self)

    # -- shape changes ----------------------------------------------------------------
    def resize(self, new_shape) -> None:
        """Change the shape (grow or shrink any axis), as zarr-python.

        Chunks wholly outside the new shape are erased; chunks cut in part keep their
        bytes. The metadata document is rewritten atomically.

        Parameters
        ----------
        new_shape : int or tuple of int
            Same number of dimensions as the array.

        Raises
        ------
        ShapeError
            Another number of dimensions, or a negative size (a ValueError).
        ReadOnlyError
            The array was opened read-only.
        """
        self._resize(new_shape)

    def _resize(self, new_shape, delete_outside_chunks: bool = True) -> None:
        """``resize``; AsyncArray.resize's ``delete_outside_chunks=False`` erases nothing
        (core/_resize.py)."""
        self._check_writable()
        resize = resize_irregular if self._irregular else resize_array

        def written(md) -> None:  # stored: the handle follows even if the erase fails
            self._metadata = md
            self._prepare()

        with metadata_lock(self):  # an attribute update must not store the old shape
            resize(self._prep, self._metadata, new_shape, written, delete_outside_chunks)

    def append(self, data, axis: int = 0) -> tuple[int, ...]:
        """Grow ``axis`` by ``data``'s extent and store ``data`` there.

        Parameters
        ----------
        data : array_like
            Same shape as the array except along ``axis``.
        axis : int, default 0
            Negative counts from the end.

        Returns
        -------
        tuple of int
            The new shape.

        Raises
        ------
        ShapeError
            ``data`` does not fit (a ValueError, with zarr-python's message).
        """
        self._check_writable()
        data = np.asanyarray(data)
        new_shape, region = append_data(self.shape, data.shape, axis)
        self.resize(new_shape)
        self[region] = data
        return new_shape

    def refresh(self) -> None:
        """Re-read the metadata from the store (after another process resized it)."""
        md = read_node(self._store, self._path)
        if md is None or md.node_type != "array":
            raise ArrayNotFoundError(f"{doc_key(self._path, md)}: no array at {self.name!r}")
        self._metadata = md
        self._prepare()

    def __array__(self, dtype=None, copy=None):
        data = self._read(Ellipsis)
        data = np.asarray(data)
        return data if dtype is None else data.astype(dtype, copy=False)

    def __repr__(self) -> str:
        return f"<Array {node_url(self._store, self._path)} shape={self.shape} dtype={self.dtype}>"


def _out_array(out):
    """The array ``out=`` names: zarr-python's NDBuffer (its array, written in place) or,
    wider than zarr-python, a numpy array."""
    if out is None or isinstance(out, np.ndarray):
        return out
    unwrap = getattr(out, "as_ndarray_like", None)
    arr = unwrap() if callable(unwrap) else None
    if isinstance(arr, np.ndarray):
        return arr
    raise TypeError(f"out argument needs to be an NDBuffer. Got {type(out)!r}")


class OIndex:
    """``a.oindex[...]``: orthogonal selections (zarr-python's OIndex)."""

    __slots__ = ("array",)

    def __init__(self, array: Array):
        self.array = array

    def __getitem__(self, selection):
        if isinstance(selection, Array):
            selection = index_array(selection)
        fields, selection = pop_fields(selection)
        return self.array.get_orthogonal_selection(selection, fields=fields)

    def __setitem__(self, selection, value) -> None:
        fields, selection = pop_fields(selection)
        self.array.set_orthogonal_selection(selection, value, fields=fields)


class VIndex:
    """``a.vindex[...]``: coordinate or mask selections (zarr-python's VIndex)."""

    __slots__ = ("array",)

    def __init__(self, array: Array):
        self.array = array

    def __getitem__(self, selection):
        if isinstance(selection, Array):
            selection = index_array(selection)
        fields, selection = pop_fields(selection)
        kind, norm = normalize_vindex(selection, self.array.shape)
        if kind == "coordinate":
            return self.array.get_coordinate_selection(norm, fields=fields)
        return self.array.get_mask_selection(norm, fields=fields)

    def __setitem__(self, selection, value) -> None:
        fields, selection = pop_fields(selection)
        kind, norm = normalize_vindex(selection, self.array.shape)
        if kind == "coordinate":
            self.array.set_coordinate_selection(norm, value, fields=fields)
        else:
            self.array.set_mask_selection(norm, value, fields=fields)


class BlockIndex:
    """``a.blocks[...]``: whole chunks by block index (zarr-python's BlockIndex)."""

    __slots__ = ("array",)

    def __init__(self, array: Array):
        self.array = array

    def __getitem__(self, selection):
        fields, selection = pop_fields(selection)
        return self.array.get_block_selection(selection, fields=fields)

    def __setitem__(self, selection, value) -> None:
        fields, selection = pop_fields(selection)
        self.array.set_block_selection(selection, value, fields=fields)


def __getattr__(name: str):
    if name == "AsyncArray":  # zarr-python's ``from zarr.core.array import AsyncArray``
        return ASYNC_CLASSES["array"]  # (in core/api_async.py, which wraps Array)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
