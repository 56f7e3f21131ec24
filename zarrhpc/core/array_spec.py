"""An array's runtime configuration (``Array.config``), as zarr-python 3's ``ArrayConfig``.

Life cycle: ``create_array(config=...)``/``open_array(config=...)`` and
``Array.with_config(...)`` build one from a dict (missing keys from ``zarrhpc.config``'s
``array.*`` keys, or from the array it is derived from); an Array keeps its two fields
(order, write_empty_chunks) and ``Array.config`` hands back a fresh frozen copy.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ArrayConfig", "ArrayConfigLike"]


@dataclass(frozen=True)
class ArrayConfig:
    """The runtime configuration of an array (not stored in its metadata).

    Parameters
    ----------
    order : "C" or "F"
        Memory layout of the arrays reads return.
    write_empty_chunks : bool
        Store chunks equal to the fill value too (False: erase them).
    """

    order: str
    write_empty_chunks: bool

    def __init__(self, order: str, write_empty_chunks: bool) -> None:
        if order not in ("C", "F"):
            raise ValueError(f"Expected one of ('C', 'F'), got {order!r} instead.")
        if not isinstance(write_empty_chunks, bool):
            raise ValueError(f"Expected bool, got {write_empty_chunks!r} instead.")
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "write_empty_chunks", write_empty_chunks)

    @classmethod
    def from_dict(cls, data: dict) -> ArrayConfig:
        """From a dict whose missing keys come from ``zarrhpc.config``'s ``array.*`` keys."""
        from zarrhpc import config as settings

        unknown = set(data) - {"order", "write_empty_chunks"}
        if unknown:
            raise TypeError(f"ArrayConfig: unexpected keys {sorted(unknown)}")
        return cls(**{name: data[name] if name in data else settings.get(f"array.{name}")
                      for name in ("order", "write_empty_chunks")})

    def to_dict(self) -> dict:
        return {"order": self.order, "write_empty_chunks": self.write_empty_chunks}


ArrayConfigLike = ArrayConfig | dict
