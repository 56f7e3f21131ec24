"""The fast fuzzer's mutations (fuzz_fast.py): byte-level for every value, JSON-level for
metadata documents. Pure functions of a ``random.Random``: an input is made again from
its seed."""

from __future__ import annotations

import json
import random

INTS = [0, 1, -1, 0x7F, 0x80, 0xFF, 0x7FFF, 0xFFFF, 2**31 - 1, 2**31, 2**32 - 1, 2**40,
        2**63 - 1, 2**64 - 1]
JSON_VALUES = [0, -1, 1, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64, -2**63, 10**30,
               0.5, -0.0, float("nan"), float("inf"), "", "x", "<i4", "|O", None, True,
               [], {}, [0], [2**62, 2**62], {"name": "x"}]


def _pos(rng: random.Random, n: int, tail: int) -> int:
    """A position in a value of ``n`` bytes: often in its head or its last ``tail``."""
    r = rng.random()
    if r < 0.3:
        return rng.randrange(min(n, 32))
    if r < 0.6:
        return max(0, n - 1 - rng.randrange(min(n, tail)))
    return rng.randrange(n)


def mutate(rng: random.Random, value: bytes, others: list, tail: int = 80) -> bytes:
    """``value`` hit by 1-6 byte-level mutations (``others``: values to splice from)."""
    data = bytearray(value)
    for _ in range(1 + min(5, int(rng.expovariate(0.7)))):
        if not data:
            data += rng.randbytes(rng.randrange(1, 64))
            continue
        n = len(data)
        i = _pos(rng, n, tail)
        op = rng.randrange(9)
        if op == 0:
            data[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            data[i] = rng.randrange(256)
        elif op == 2:
            run = rng.randbytes(rng.randrange(1, 17))
            data[i:i + len(run)] = run
        elif op == 3:
            del data[i:]
        elif op == 4:
            data[i:i] = rng.randbytes(rng.randrange(1, 65))
        elif op == 5:
            del data[i:i + rng.randrange(1, 65)]
        elif op == 6:
            src = rng.choice(others) if others and rng.random() < 0.7 else bytes(data)
            if src:
                a = rng.randrange(len(src))
                piece = src[a:a + rng.randrange(1, 129)]
                if rng.random() < 0.5:
                    data[i:i + len(piece)] = piece
                else:
                    data[i:i] = piece
        elif op == 7:
            data += rng.randbytes(rng.randrange(1, 65))
        else:  # an extreme integer where headers keep offsets, sizes and counts
            width = rng.choice((1, 2, 4, 8))
            v = rng.choice(INTS + [n, n + 1, n - 1, 2 * n, n + 4096, rng.randrange(2 * n)])
            if rng.random() < 0.5:
                i -= i % width
            data[i:i + width] = (v % (1 << (8 * width))).to_bytes(width, "little")
    return bytes(data)


def _json_paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _json_paths(v, (*path, k))
    elif isinstance(node, list):
        for k, v in enumerate(node):
            yield from _json_paths(v, (*path, k))


def mutate_json(rng: random.Random, value: bytes) -> bytes | None:
    """One JSON-level change of a metadata document (None: not a JSON object)."""
    try:
        doc = json.loads(value)
    except ValueError:
        return None
    paths = [p for p in _json_paths(doc) if p]
    if not paths:
        return None
    path = rng.choice(paths)
    parent = doc
    for k in path[:-1]:
        parent = parent[k]
    r = rng.random()
    deep = 0
    if r < 0.15 and isinstance(parent, dict):
        del parent[path[-1]]
    elif r < 0.2:
        deep = rng.choice((50, 5000))  # nested lists, spliced in as text below
        parent[path[-1]] = "@@deep@@"
    elif r < 0.3 and isinstance(parent[path[-1]], list) and parent[path[-1]]:
        lst = parent[path[-1]]
        lst.extend(lst[:1] * rng.randrange(1, 40))
    elif r < 0.35:
        parent[path[-1]] = "x" * rng.choice((0, 1, 1000, 1 << 20))
    else:
        parent[path[-1]] = rng.choice(JSON_VALUES)
    text = json.dumps(doc)
    if deep:
        text = text.replace('"@@deep@@"', "[" * deep + "]" * deep)
    return text.encode()
