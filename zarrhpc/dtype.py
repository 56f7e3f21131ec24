"""zarr-python 3's public ``zarr.dtype`` module: the data-type classes and ``parse_dtype``
(everything lives in :mod:`zarrhpc.core.dtype`; this is the public name)."""

from zarrhpc.core.dtype import *  # noqa: F403 - the same names as zarr.dtype
from zarrhpc.core.dtype import __all__  # noqa: F401
