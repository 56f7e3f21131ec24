"""zarrhpc: fast Zarr arrays and groups for HPC, a drop-in for zarr-python 3.

``import zarrhpc as zarr`` runs zarr-python 3 code: the same top-level functions
(``create_array``, ``open``, ``zeros``, ``group``, ``save``, ``load``...), the same
submodules (``zarrhpc.codecs``, ``zarrhpc.storage``, ``zarrhpc.errors``, ``zarrhpc.config``)
with the same names, arguments, defaults and error types.

>>> import zarrhpc
>>> a = zarrhpc.create_array("data.zarr", shape=(1000, 1000), chunks=(100, 100), dtype="f4")
>>> a[:10, :10] = 1.0
>>> zarrhpc.open_array("data.zarr")[0, 0]
np.float32(1.0)
"""

from zarrhpc import api, codecs, config, errors, storage
from zarrhpc.core import (
    Array,
    Group,
    consolidate_metadata,
    create_array,
    create_group,
    open,
    open_array,
    open_consolidated,
    open_group,
)
from zarrhpc.core.convenience import (
    array,
    copy,
    copy_all,
    copy_store,
    create,
    create_hierarchy,
    empty,
    empty_like,
    from_array,
    full,
    full_like,
    group,
    load,
    ones,
    ones_like,
    open_like,
    save,
    save_array,
    save_group,
    tree,
    zeros,
    zeros_like,
)
from zarrhpc.core.convert import convert
from zarrhpc.storage import LocalStore, MemoryStore, Store, StorePath, ZipStore

__version__ = "0.1.0"


def __getattr__(name: str):
    # zarrhpc.xarray imports xarray: loaded on first use, not with zarrhpc
    if name == "xarray":
        import importlib

        return importlib.import_module("zarrhpc.xarray")
    raise AttributeError(f"module 'zarrhpc' has no attribute {name!r}")

__all__ = [
    "Array",
    "Group",
    "LocalStore",
    "MemoryStore",
    "Store",
    "StorePath",
    "ZipStore",
    "api",
    "array",
    "codecs",
    "config",
    "consolidate_metadata",
    "convert",
    "copy",
    "copy_all",
    "copy_store",
    "create",
    "create_array",
    "create_group",
    "create_hierarchy",
    "empty",
    "empty_like",
    "errors",
    "from_array",
    "full",
    "full_like",
    "group",
    "load",
    "ones",
    "ones_like",
    "open",
    "open_array",
    "open_consolidated",
    "open_group",
    "open_like",
    "save",
    "save_array",
    "save_group",
    "storage",
    "tree",
    "zeros",
    "zeros_like",
]
