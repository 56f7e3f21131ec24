"""Arrays, groups and the read/write orchestration (glue, no format details)."""

from zarrhpc.core import dtype
from zarrhpc.core.api import create_array, create_group, open, open_array, open_group
from zarrhpc.core.array import Array
from zarrhpc.core.consolidated import consolidate_metadata, open_consolidated
from zarrhpc.core.group import Group

__all__ = ["Array", "Group", "dtype", "consolidate_metadata", "create_array", "create_group", "open",
           "open_array", "open_consolidated", "open_group"]
