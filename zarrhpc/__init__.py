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

from zarrhpc import abc as abc  # zarr.abc.store.Store for isinstance checks
from zarrhpc import api, codecs, config, errors, registry, storage
from zarrhpc import dtype as dtype  # zarr.dtype: reachable after `import zarrhpc`

# zarr-python's top-level functions, from the one list (zarrhpc.api.synchronous)
from zarrhpc.api.synchronous import *  # noqa: F403
from zarrhpc.core import Array, Group, create_group
from zarrhpc.core.api_async import AsyncArray, AsyncGroup
from zarrhpc.core.convert import convert
from zarrhpc.storage import LocalStore, MemoryStore, Store, StorePath, ZipStore

# zarrhpc's own release (as pyproject.toml says) and the zarr-python API it is a drop-in
# for. ``__version__`` joins them as a PEP 440 version with a local label, so that code
# written for zarr-python that branches on ``zarr.__version__`` (``Version(...) >=
# Version("3.0.8")``, ``.major >= 3``, ``startswith("3")``: common in downstream
# projects) takes its zarr-python 3 path under ``import zarrhpc as zarr``.
ZARRHPC_VERSION = "0.1.0"
ZARR_PYTHON_API = "3.1.6"
__version__ = f"{ZARR_PYTHON_API}+zarrhpc.{ZARRHPC_VERSION}"


def print_debug_info() -> None:
    """Print the versions of Python, zarrhpc and its dependencies, for bug reports (as
    zarr-python's ``print_debug_info``)."""
    import platform
    from importlib.metadata import PackageNotFoundError, version

    def show(packages: list[str]) -> None:
        missing = []
        for package in packages:
            try:
                print(f"{package}: {version(package)}")
            except PackageNotFoundError:
                missing.append(package)
        if missing:
            print("\n**Not Installed:**")
            print("\n".join(missing))

    print(f"platform: {platform.platform()}")
    print(f"python: {platform.python_version()}")
    print(f"zarrhpc: {__version__}\n")
    print("**Required dependencies:**")
    show(["numpy", "blosc2", "numcodecs", "zstandard", "crc32c", "ml_dtypes"])
    print("\n**Optional dependencies:**")
    show(["zarr", "obstore", "fsspec", "s3fs", "mpi4py", "dask", "xarray"])


def __getattr__(name: str):
    # zarrhpc.xarray imports xarray: loaded on first use, not with zarrhpc
    if name == "xarray":
        import importlib

        return importlib.import_module("zarrhpc.xarray")
    raise AttributeError(f"module 'zarrhpc' has no attribute {name!r}")

__all__ = [  # and every name of zarrhpc.api.synchronous.__all__ (added below)
    "Array",
    "AsyncArray",
    "AsyncGroup",
    "Group",
    "LocalStore",
    "MemoryStore",
    "Store",
    "StorePath",
    "ZipStore",
    "api",
    "codecs",
    "config",
    "convert",
    "create_group",
    "errors",
    "print_debug_info",
    "registry",
    "storage",
]
__all__ += api.synchronous.__all__
