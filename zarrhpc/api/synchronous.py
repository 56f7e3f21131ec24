"""zarr-python 3's ``zarr.api.synchronous``: the top-level functions, under the same names
(they are zarrhpc's own top-level functions, not copies). ``create_group`` is there but not
in ``__all__``, as in zarr-python."""

from zarrhpc.core import (
    consolidate_metadata,
    create_array,
    create_group,  # noqa: F401  (not in __all__, as in zarr-python)
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

__all__ = [
    "array", "consolidate_metadata", "copy", "copy_all", "copy_store", "create",
    "create_array", "create_hierarchy", "empty", "empty_like", "from_array",
    "full", "full_like", "group", "load", "ones", "ones_like", "open", "open_array",
    "open_consolidated", "open_group", "open_like", "save", "save_array", "save_group",
    "tree", "zeros", "zeros_like",
]
