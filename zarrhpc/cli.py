"""The ``zarrhpc`` command: ``info``, ``tree`` and ``verify`` of a store or node.

    zarrhpc info  STORE [--path P]     array or group properties
    zarrhpc tree  STORE [--path P]     the hierarchy below a group
    zarrhpc verify STORE [--path P]    decode every chunk of every array, report errors
"""

from __future__ import annotations

import argparse
import sys

import zarrhpc
from zarrhpc.errors import ZarrhpcError


def _open(args):
    return zarrhpc.open(args.store, path=args.path, mode="r")


def _cmd_info(args) -> int:
    print(_open(args).info)
    return 0


def _cmd_tree(args) -> int:
    node = _open(args)
    if isinstance(node, zarrhpc.Array):
        print(f"{node.name} {node.shape} {node.dtype}")
    else:
        print(node.tree())
    return 0


def _verify_array(a) -> tuple[int, list[str]]:
    """Decode every chunk of ``a``; return (chunks checked, error messages)."""
    errors, n = [], 0
    for coords in a._grid.all_chunk_coords():
        region = a._grid.chunk_region(coords)
        n += 1
        try:
            a[region]
        except ZarrhpcError as exc:
            errors.append(str(exc))
    return n, errors


def _cmd_verify(args) -> int:
    node = _open(args)
    arrays = [(node.path, node)] if isinstance(node, zarrhpc.Array) else [
        (m.path, m) for _, m in node.members(max_depth=None) if isinstance(m, zarrhpc.Array)
    ]
    bad = 0
    for path, a in arrays:
        n, errors = _verify_array(a)
        status = "ok" if not errors else f"{len(errors)} bad"
        print(f"/{path}: {n} chunks {status}")
        for e in errors:
            print(f"  {e}")
        bad += len(errors)
    return 1 if bad else 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="zarrhpc", description="Inspect Zarr stores.")
    sub = p.add_subparsers(dest="command", required=True)
    for name, func, text in [
        ("info", _cmd_info, "show an array's or group's properties"),
        ("tree", _cmd_tree, "show the hierarchy below a group"),
        ("verify", _cmd_verify, "decode every chunk and report corrupt ones"),
    ]:
        sp = sub.add_parser(name, help=text)
        sp.add_argument("store", help="store path (a directory)")
        sp.add_argument("--path", default=None, help="node path inside the store")
        sp.set_defaults(func=func)
    args = p.parse_args(argv)
    try:
        return args.func(args)
    except ZarrhpcError as exc:
        print(f"zarrhpc {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
