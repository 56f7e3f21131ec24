"""zarr-python's ``zarr.experimental``: new features under their zarr-python names, so that
``from zarr.experimental.cache_store import CacheStore`` keeps working after
``import zarrhpc as zarr``. The code lives in the layers below (``zarrhpc.storage.cache``)."""
