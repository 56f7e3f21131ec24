"""Exceptions raised by zarrhpc.

Every class derives from :class:`ZarrhpcError` and from the builtin a Python user would
catch (``ValueError`` for bad metadata, ``KeyError``/``FileNotFoundError`` for a missing
node, ...). Messages name the document or store key, the field, what was expected and
what was found.

This is also the one place where status codes returned by the C kernels become
exceptions (:func:`raise_for_status`).
"""

from __future__ import annotations

import re

__all__ = [
    "ZarrhpcError",
    "MetadataError",
    "NodeNotFoundError",
    "ArrayNotFoundError",
    "GroupNotFoundError",
    "NodeExistsError",
    "ContainsArrayError",
    "ContainsGroupError",
    "CodecError",
    "CorruptChunkError",
    "SelectionError",
    "ZeroStepError",
    "OutShapeError",
    "UnsupportedError",
    "StoreError",
    "StorePermissionError",
    "StoreFileNotFoundError",
    "StoreFileExistsError",
    "store_os_error",
    "InvalidKeyError",
    "ReadOnlyError",
    "KernelError",
    "OutOfMemoryError",
    "CollectiveError",
    "CheckpointError",
    "engine_error",
    "raise_for_status",
    "status_class",
    "ShapeError",
    "BroadcastError",
    "FillValueRangeError",
    "DataTypeNotUnderstoodError",
    "AmbiguousDataTypeError",
    "UnsupportedArgumentError",
    # zarr-python's names
    "BaseZarrError", "MetadataValidationError", "NodeTypeValidationError", "NotAnArrayError",
    "NotAGroupError",
    "ContainsArrayAndGroupError", "UnknownCodecError", "ChunkNotFoundError",
    "DataTypeValidationError", "VindexInvalidSelectionError", "NegativeStepError",
    "BoundsCheckError", "ArrayIndexError", "ZarrFutureWarning", "UnstableSpecificationWarning",
    "ZarrDeprecationWarning", "ZarrUserWarning", "ZarrRuntimeWarning",
]


class ZarrhpcError(Exception):
    """Base class of every error zarrhpc raises."""

    # KeyError quotes its message in str(); every subclass reads as plain text.
    def __str__(self) -> str:
        return Exception.__str__(self)


class BaseZarrError(ZarrhpcError, ValueError):
    """zarr-python 3's base error (a ValueError): the base of the errors both libraries
    name alike, so ``except zarr.errors.BaseZarrError`` code keeps working."""

    # zarr-python's message template for its deprecated several-argument form
    # (``GroupNotFoundError(store, path)``); one argument is the message itself
    _msg = ""

    def __init__(self, *args):
        if len(args) > 1 and self._msg:
            args = (self._msg.format(*args),)
        super().__init__(*args)

    def __reduce__(self):  # OSError's own pickling would pass errno/strerror back
        return type(self), self.args


class MetadataError(BaseZarrError):
    """A metadata document is missing, malformed, or uses something not understood."""

    _msg = "Invalid value for '{}'. Expected '{}'. Got '{}'."


class NodeNotFoundError(BaseZarrError, KeyError, FileNotFoundError):
    """No array or group at the requested path."""


class ArrayNotFoundError(NodeNotFoundError):
    """No array at the requested path."""

    _msg = "No array found in store {!r} at path {!r}"


class GroupNotFoundError(NodeNotFoundError):
    """No group at the requested path."""

    _msg = "No group found in store {!r} at path {!r}"


class NodeExistsError(BaseZarrError, FileExistsError):
    """A node already exists where one was to be created."""


class ContainsArrayError(NodeExistsError):
    """An array already exists at the path."""

    _msg = "An array exists in store {!r} at path {!r}."


class ContainsGroupError(NodeExistsError):
    """A group already exists at the path."""

    _msg = "A group exists in store {!r} at path {!r}."


class CodecError(ZarrhpcError, ValueError):
    """A codec configuration is invalid, or encoding/decoding failed."""


class CorruptChunkError(CodecError):
    """A stored chunk could not be decoded (truncated, corrupt, checksum mismatch)."""


class SelectionError(ZarrhpcError, IndexError):
    """An index or selection is out of range or of an unsupported kind."""


class ZeroStepError(SelectionError, ValueError):
    """A slice with step 0: a ValueError too, as numpy and zarr-python raise."""


class OutShapeError(SelectionError, ValueError):
    """``out=`` of another shape than the selection's result: a ValueError too, as
    zarr-python raises."""


class UnsupportedError(ZarrhpcError, NotImplementedError):
    """A valid feature that zarrhpc does not implement (yet)."""


class StoreError(ZarrhpcError, OSError):
    """A store operation failed."""


class StorePermissionError(StoreError, PermissionError):
    """A remote store refused a request: no credentials, or not allowed (HTTP 401/403;
    a PermissionError, as zarr-python's fsspec stores raise)."""


class StoreFileNotFoundError(StoreError, FileNotFoundError):
    """A store's file is missing (a ZipStore opened for reading): FileNotFoundError, as
    zarr-python's stores raise it."""


class StoreFileExistsError(StoreError, FileExistsError):
    """A store's file exists where it must not (a ZipStore in mode "x"): FileExistsError,
    as zarr-python's stores raise it."""


def store_os_error(what: str, exc: OSError) -> StoreError:
    """A StoreError for a failed file operation, of the subclass that derives from the
    builtin Python raises for ``exc``'s errno (FileNotFoundError, FileExistsError,
    PermissionError), with its errno, strerror and filename."""
    import errno as _errno

    cls = {_errno.ENOENT: StoreFileNotFoundError, _errno.EEXIST: StoreFileExistsError,
           _errno.EACCES: StorePermissionError, _errno.EPERM: StorePermissionError,
           }.get(exc.errno, StoreError)
    detail = f"[Errno {exc.errno}] {exc.strerror}" if exc.errno and exc.strerror else exc
    err = cls(f"{what}: {detail}")
    err.errno, err.strerror, err.filename = exc.errno, exc.strerror, exc.filename
    return err


class InvalidKeyError(ZarrhpcError, ValueError):
    """A store key is malformed or would leave the store's root."""


class ReadOnlyError(ZarrhpcError, PermissionError, ValueError):
    """A write was attempted on a read-only store or array (a ValueError too, as
    zarr-python raises for a write to a read-only store)."""


class OutOfMemoryError(ZarrhpcError, MemoryError):
    """Memory for a chunk could not be had (a chunk's decoded size comes from metadata
    anyone may have written); names the key. A ``MemoryError``."""


class KernelError(ZarrhpcError, ValueError):
    """A compiled kernel refused its arguments (shapes, strides, sizes)."""


class CollectiveError(ZarrhpcError, RuntimeError):
    """A collective (MPI) operation failed on another rank; every rank raises it."""


class CheckpointError(ZarrhpcError, RuntimeError):
    """A checkpoint step is missing, uncommitted, or inconsistent."""


class FillValueRangeError(MetadataError, OverflowError):
    """An integer fill value outside the range of the integer data type (zarr-python
    raises numpy's ``OverflowError`` for it)."""


class DataTypeNotUnderstoodError(MetadataError, TypeError):
    """A dtype numpy does not understand (``"nope"``): zarr-python passes on numpy's
    ``TypeError`` ("data type 'nope' not understood")."""


# -- zarr-python 3's error names (zarr.errors), mapped onto the classes above ------------
MetadataValidationError = MetadataError


class NodeTypeValidationError(MetadataError):
    """A node of the other kind was found (an array where a group was expected...)."""


class NotAnArrayError(NodeTypeValidationError, ArrayNotFoundError):
    """A group where an array was expected: zarr-python's NodeTypeValidationError, and
    an ArrayNotFoundError as zarrhpc raised before."""


class NotAGroupError(ContainsArrayError, GroupNotFoundError):
    """An array where a group was expected: zarr-python's ContainsArrayError, and a
    GroupNotFoundError as zarrhpc raised before."""


class ContainsArrayAndGroupError(BaseZarrError):
    """Both ``.zarray`` and ``.zgroup`` were found at one path (Zarr v2)."""

    _msg = ("Array and group metadata documents (.zarray and .zgroup) were both found "
            "in store {!r} at path {!r}. Only one of these files may be present in a "
            "given directory / prefix. Remove the .zarray file, or the .zgroup file, or "
            "both.")


class UnknownCodecError(CodecError):
    """A codec name or id that no registered codec answers to."""


class ChunkNotFoundError(BaseZarrError):
    """A chunk expected in the store was not found."""


class DataTypeValidationError(ZarrhpcError, ValueError):
    """A data type that cannot be used (zarr-python's name)."""


class UnsupportedArgumentError(UnsupportedError, ValueError):
    """An argument that cannot be used in this form or for this format, where zarr-python
    raises ValueError (a v2 array given a non-'v2' chunk key encoding, ...)."""


class AmbiguousDataTypeError(UnsupportedArgumentError):
    """A numpy object dtype with nothing saying what its elements are (no object codec,
    not ``dtype=str``): zarr-python raises ValueError ("Zarr data type resolution from
    object failed")."""


class ZarrFutureWarning(FutureWarning):
    """A feature that will change (zarr-python's name)."""


class UnstableSpecificationWarning(ZarrFutureWarning):
    """A feature outside the Zarr specification."""


class ZarrDeprecationWarning(DeprecationWarning):
    """A feature that will be removed."""


class ZarrUserWarning(UserWarning):
    """A problem with user code."""


class ZarrRuntimeWarning(RuntimeWarning):
    """Dubious runtime behaviour."""


# The one table from the kernels' status codes (csrc/zh_status.h, read through the
# compiled engine: zarrhpc._kernels.engine.STATUS) to exception classes. Built on first
# use: the kernels import this module.
_STATUS_CLASSES = {
    "ERR_SHAPE": (KernelError, "shape or stride mismatch"),
    "ERR_ITEMSIZE": (KernelError, "unsupported item size or swap size"),
    "ERR_BOUNDS": (KernelError, "buffer too small for the given shape and strides"),
    "ERR_NDIM": (KernelError, "too many dimensions"),
    "ERR_CORRUPT": (CorruptChunkError, "corrupt chunk"),
    "ERR_IO": (StoreError, "I/O error"),
    "ERR_NOMEM": (OutOfMemoryError, "out of memory"),
    "ERR_CODEC": (CodecError, "encoding failed"),
    "ERR_STORE": (StoreError, "the store's layout is in the way"),
}
_STATUS: dict = {}


def status_class(status: int) -> tuple[type, str]:
    """``(exception class, what it means)`` for a non-zero kernel status code."""
    if not _STATUS:
        from zarrhpc._kernels.engine import STATUS

        _STATUS.update({STATUS[name]: entry for name, entry in _STATUS_CLASSES.items()})
    return _STATUS.get(status, (KernelError, f"unknown kernel status {status}"))


def raise_for_status(status: int, context: str) -> None:
    """Turn a non-zero kernel status code into an exception naming ``context``."""
    if status == 0:
        return
    cls, what = status_class(status)
    raise cls(f"{context}: {what}")


def engine_error(status: int, where: str, msg: str = "") -> Exception:
    """The exception for an engine failure with ``status`` at ``where`` (a key, or a
    key and an inner chunk), carrying the engine's message ``msg``."""
    cls, what = status_class(status)
    err = cls(f"{where}: {msg or what}")
    m = _ERRNO_IN_MSG.search(msg) if issubclass(cls, OSError) else None
    if m:  # an I/O failure: the errno as an OSError carries it, not only in the text
        err.errno, err.strerror = int(m.group(1)), m.group(2).strip() or None
    return err


_ERRNO_IN_MSG = re.compile(r"\[Errno (\d+)\]([^:(]*)")

# -- selection errors under zarr-python 3's names (zarr.errors); each is an IndexError, as
# there. Raised by zarrhpc.indexing for the same bad selections zarr-python rejects.
class BoundsCheckError(SelectionError):
    """An index lies outside its dimension (zarr-python's ``BoundsCheckError``)."""


class NegativeStepError(SelectionError):
    """A slice step below 1 where zarr-python allows none (``NegativeStepError``)."""


class VindexInvalidSelectionError(SelectionError):
    """A vectorised selection that is neither coordinates nor a full-shape mask."""


class ArrayIndexError(SelectionError):
    """An integer array where only one index per dimension is allowed."""


class ShapeError(ZarrhpcError, ValueError):
    """A new shape (resize) or appended data does not fit the array (ValueError there)."""


class BroadcastError(SelectionError, ValueError):
    """Index arrays, or a value and its selection, do not broadcast together (zarr-python
    raises numpy's ValueError there; numpy's own indexing an IndexError: this is both)."""
