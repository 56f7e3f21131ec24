"""zarrhpc: fast Zarr arrays and groups for HPC.

>>> import zarrhpc
>>> a = zarrhpc.create_array("data.zarr", shape=(1000, 1000), chunks=(100, 100), dtype="f4")
>>> a[:10, :10] = 1.0
>>> zarrhpc.open_array("data.zarr")[0, 0]
np.float32(1.0)
"""

from zarrhpc import config, errors
from zarrhpc.core import Array, Group, create_array, create_group, open, open_array, open_group
from zarrhpc.core import consolidate_metadata, open_consolidated
from zarrhpc.core.convert import convert
from zarrhpc.storage import LocalStore, MemoryStore, Store, ZipStore

__version__ = "0.1.0"

__all__ = [
    "Array",
    "Group",
    "LocalStore",
    "MemoryStore",
    "Store",
    "ZipStore",
    "config",
    "consolidate_metadata",
    "convert",
    "create_array",
    "create_group",
    "errors",
    "open",
    "open_array",
    "open_consolidated",
    "open_group",
]
