"""Frames of ARC-AGI-3 games: 64x64 grids of 16 colours. Hashes, objects, a compact text view, pictures.

Objects are the 4-connected regions of one colour: the explorer clicks one cell per object instead
of all 4096, and the language-model agent reads the frame at the game's own cell size (the
toolkit upscales a small grid by a whole factor, so a 16x16 game is 4x4 blocks of one colour).
Imports numpy only (and the palette of `shared.play_frames`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from shared import play_frames

SIZE = 64
PALETTE = np.array(play_frames.PALETTE_RGB, dtype=np.uint8)  # the toolkit's, as RGB for pictures


def frame_hash(frame: np.ndarray) -> str:
    """A short, stable id of a frame's pixels (12 hex digits of SHA-1)."""
    a = np.ascontiguousarray(frame, dtype=np.int8)
    return hashlib.sha1(a.tobytes() + bytes(a.shape)).hexdigest()[:12]


@dataclass(frozen=True)
class Region:
    """A 4-connected region of one colour: a cell inside it to click, its colour, size and box."""

    x: int
    y: int
    colour: int
    size: int
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 inclusive


def regions(frame: np.ndarray) -> list[Region]:
    """Every 4-connected single-colour region, smallest first (objects before the background), in
    display cells. Found on the frame at its own cell size (fast), then scaled back; the click cell
    is the middle of the region's cell nearest its centre, so it lies inside even a ring."""
    s = cell_size(frame)
    f = np.asarray(frame)[::s, ::s]
    h, w = f.shape
    label = np.full((h, w), -1, dtype=np.int32)
    found = []
    for sy in range(h):
        for sx in range(w):
            if label[sy, sx] >= 0:
                continue
            colour, cells, stack = int(f[sy, sx]), [], [(sy, sx)]
            label[sy, sx] = len(found)
            while stack:
                y, x = stack.pop()
                cells.append((y, x))
                for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                    if 0 <= ny < h and 0 <= nx < w and label[ny, nx] < 0 and f[ny, nx] == colour:
                        label[ny, nx] = len(found)
                        stack.append((ny, nx))
            ys, xs = np.array(cells).T
            cy, cx = ys.mean(), xs.mean()
            k = int(np.argmin((ys - cy) ** 2 + (xs - cx) ** 2))
            found.append(Region(int(xs[k]) * s + s // 2, int(ys[k]) * s + s // 2, colour, len(cells) * s * s,
                                (int(xs.min()) * s, int(ys.min()) * s, int(xs.max()) * s + s - 1,
                                 int(ys.max()) * s + s - 1)))
    return sorted(found, key=lambda r: (r.size, r.y, r.x))


def cell_size(frame: np.ndarray) -> int:
    """The largest block size (64, 32, ..., 1) at which the frame is made of one-colour blocks."""
    f = np.asarray(frame)
    for s in (32, 16, 8, 4, 2):
        small = f[::s, ::s]
        if np.array_equal(np.repeat(np.repeat(small, s, axis=0), s, axis=1), f):
            return s
    return 1


def text_view(frame: np.ndarray) -> tuple[str, int]:
    """The frame at its own cell size as rows of hex digits (colour 0-15 -> 0-f), and that size."""
    s = cell_size(frame)
    small = np.asarray(frame)[::s, ::s]
    return "\n".join("".join(f"{int(v):x}" for v in row) for row in small), s


def to_rgb(frame: np.ndarray) -> np.ndarray:
    """An RGB picture of a frame (the toolkit's colours)."""
    return PALETTE[np.clip(np.asarray(frame, dtype=np.int64), 0, 15)]


def strip(frames: list[np.ndarray], gap: int = 2) -> np.ndarray:
    """Frames side by side, `gap` white columns between them, as one RGB picture."""
    if not frames:
        raise ValueError("strip needs at least one frame")
    pictures = [to_rgb(f) for f in frames]
    spacer = np.full((pictures[0].shape[0], gap, 3), 255, dtype=np.uint8)
    parts = [p for picture in pictures for p in (picture, spacer)][:-1]
    return np.concatenate(parts, axis=1)

