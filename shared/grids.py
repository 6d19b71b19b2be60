"""numpy grid helpers: the 8 dihedral transforms, colour maps, hashing, equality, a cache by grid.

A grid is a 2-d uint8 numpy array of colours 0-9, 1..30 on each side (validated in `tasks`).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable

import numpy as np

Grid = np.ndarray

# The dihedral group D8 as index -> (name, forward). Index k < 4 rotates k quarter turns
# anticlockwise (np.rot90); k >= 4 transposes first, then rotates k-4 quarter turns.
D8_NAMES = ("identity", "rot90", "rot180", "rot270", "transpose", "flip_ud", "anti_transpose", "flip_lr")


def d8(grid: Grid, k: int) -> Grid:
    """Apply dihedral element k (0-7) to a grid."""
    if not 0 <= k < 8:
        raise ValueError(f"dihedral index must be 0-7, got {k}")
    g = grid.T if k >= 4 else grid
    return np.ascontiguousarray(np.rot90(g, k % 4))


def d8_inverse(k: int) -> int:
    """The element that undoes k: rotations invert to the opposite turn, reflections to themselves."""
    if not 0 <= k < 8:
        raise ValueError(f"dihedral index must be 0-7, got {k}")
    return (4 - k) % 4 if k < 4 else k


def apply_colour_map(grid: Grid, perm) -> Grid:
    """Recolour: cell value c becomes perm[c]."""
    return np.asarray(perm, dtype=np.uint8)[grid]


def invert_perm(perm) -> list[int]:
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return inv


def grid_hash(grid: Grid | None) -> str:
    """A short content hash (shape included) for dedup and content comparison."""
    if grid is None:
        return "none"
    g = np.ascontiguousarray(grid, dtype=np.uint8)
    h = hashlib.blake2b(g.tobytes(), digest_size=8)
    h.update(np.array(g.shape, dtype=np.int32).tobytes())
    return h.hexdigest()


def cached_by_grid(maxsize: int) -> Callable:
    """Decorate f(g, *args) to remember its result by g's cells and shape (and args): f receives g as
    a read-only uint8 array, and its result is shared by every caller, so it should be immutable."""
    def wrap(f: Callable) -> Callable:
        @functools.lru_cache(maxsize=maxsize)
        def by_bytes(data: bytes, h: int, w: int, *args):
            return f(np.frombuffer(data, dtype=np.uint8).reshape(h, w), *args)

        @functools.wraps(f)
        def call(g: Grid, *args):
            g = np.ascontiguousarray(g, dtype=np.uint8)
            return by_bytes(g.tobytes(), g.shape[0], g.shape[1], *args)

        call.cache_clear = by_bytes.cache_clear
        return call
    return wrap


def same(a: Grid | None, b: Grid | None) -> bool:
    """Exact match: same shape and every cell."""
    if a is None or b is None:
        return False
    return a.shape == b.shape and bool(np.array_equal(a, b))


def to_list(grid: Grid) -> list[list[int]]:
    return np.asarray(grid).astype(int).tolist()
