"""``zarr.core.dtype.common`` under zarrhpc: the error and warning classes downstream code
imports from there (anndata: ``from zarr.core.dtype.common import
UnstableSpecificationWarning``). The classes are :mod:`zarrhpc.errors`' (one place);
zarr-python's typing helpers of this module are not reproduced."""

from zarrhpc.errors import DataTypeValidationError, UnstableSpecificationWarning

__all__ = ["DataTypeValidationError", "UnstableSpecificationWarning"]
