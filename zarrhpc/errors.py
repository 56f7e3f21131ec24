"""Exceptions raised by zarrhpc.

Every class derives from :class:`ZarrhpcError` and from the builtin a Python user would
catch (``ValueError`` for bad metadata, ``KeyError``/``FileNotFoundError`` for a missing
node, ...). Messages name the document or store key, the field, what was expected and
what was found.

This is also the one place where status codes returned by the C kernels become
exceptions (:func:`raise_for_status`).
"""

from __future__ import annotations

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
    "UnsupportedError",
    "StoreError",
    "InvalidKeyError",
    "ReadOnlyError",
    "KernelError",
    "CollectiveError",
    "CheckpointError",
    "raise_for_status",
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


class MetadataError(BaseZarrError):
    """A metadata document is missing, malformed, or uses something not understood."""


class NodeNotFoundError(BaseZarrError, KeyError, FileNotFoundError):
    """No array or group at the requested path."""


class ArrayNotFoundError(NodeNotFoundError):
    """No array at the requested path."""


class GroupNotFoundError(NodeNotFoundError):
    """No group at the requested path."""


class NodeExistsError(BaseZarrError, FileExistsError):
    """A node already exists where one was to be created."""


class ContainsArrayError(NodeExistsError):
    """An array already exists at the path."""


class ContainsGroupError(NodeExistsError):
    """A group already exists at the path."""


class CodecError(ZarrhpcError, ValueError):
    """A codec configuration is invalid, or encoding/decoding failed."""


class CorruptChunkError(CodecError):
    """A stored chunk could not be decoded (truncated, corrupt, checksum mismatch)."""


class SelectionError(ZarrhpcError, IndexError):
    """An index or selection is out of range or of an unsupported kind."""


class UnsupportedError(ZarrhpcError, NotImplementedError):
    """A valid feature that zarrhpc does not implement (yet)."""


class StoreError(ZarrhpcError, OSError):
    """A store operation failed."""


class InvalidKeyError(ZarrhpcError, ValueError):
    """A store key is malformed or would leave the store's root."""


class ReadOnlyError(ZarrhpcError, PermissionError, ValueError):
    """A write was attempted on a read-only store or array (a ValueError too, as
    zarr-python raises for a write to a read-only store)."""


class KernelError(ZarrhpcError, ValueError):
    """A compiled kernel refused its arguments (shapes, strides, sizes)."""


class CollectiveError(ZarrhpcError, RuntimeError):
    """A collective (MPI) operation failed on another rank; every rank raises it."""


class CheckpointError(ZarrhpcError, RuntimeError):
    """A checkpoint step is missing, uncommitted, or inconsistent."""


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


class UnknownCodecError(CodecError):
    """A codec name or id that no registered codec answers to."""


class ChunkNotFoundError(BaseZarrError):
    """A chunk expected in the store was not found."""


class DataTypeValidationError(ZarrhpcError, ValueError):
    """A data type that cannot be used (zarr-python's name)."""


class VindexInvalidSelectionError(SelectionError):
    """A vindex selection that is not a coordinate or mask selection."""


class NegativeStepError(SelectionError):
    """A slice with a negative step where none is supported."""


class BoundsCheckError(SelectionError):
    """An index out of the array's bounds."""


class ArrayIndexError(SelectionError):
    """An invalid array index (zarr-python's name)."""


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


# Status codes returned by csrc/ (ZH_OK == 0). Keep in sync with csrc/zh_status.h.
_STATUS = {
    1: (KernelError, "shape or stride mismatch"),
    2: (KernelError, "unsupported item size or swap size"),
    3: (KernelError, "buffer too small for the given shape and strides"),
    4: (KernelError, "too many dimensions"),
}


def raise_for_status(status: int, context: str) -> None:
    """Turn a non-zero kernel status code into an exception naming ``context``."""
    if status == 0:
        return
    cls, what = _STATUS.get(status, (KernelError, f"unknown kernel status {status}"))
    raise cls(f"{context}: {what}")
