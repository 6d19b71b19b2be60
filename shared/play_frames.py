"""A play run's frames files and the ARC-AGI-3 palette: what `python -m shared play` writes and the page reads.

Each game's distinct frames go once, by hash, to RUN/frames/<game_id>.json.gz ({hash: 64x64 rows
of colours 0-15}, gzip-compressed JSON): a row's log names the hash each action led to, so the
page replays a game without the toolkit (which needs Python >= 3.12). Standard library only, so
the web server imports it without `shared.arc3`.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

FRAMES_DIR = "frames"  # in a play run folder
# the toolkit's palette (arc_agi.rendering.COLOR_MAP), colour 0 first
PALETTE_RGB = (
    (0xFF, 0xFF, 0xFF), (0xCC, 0xCC, 0xCC), (0x99, 0x99, 0x99), (0x66, 0x66, 0x66), (0x33, 0x33, 0x33),
    (0x00, 0x00, 0x00), (0xE5, 0x3A, 0xA3), (0xFF, 0x7B, 0xCC), (0xF9, 0x3C, 0x31), (0x1E, 0x93, 0xFF),
    (0x88, 0xD8, 0xF1), (0xFF, 0xDC, 0x00), (0xFF, 0x85, 0x1B), (0x92, 0x12, 0x31), (0x4F, 0xCC, 0x30),
    (0xA3, 0x56, 0xD6))


def palette_hex() -> list[str]:
    """The palette as CSS colours ("#rrggbb"), colour 0 first."""
    return [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in PALETTE_RGB]


def frames_path(run_dir: str | Path, game_id: str) -> Path:
    """Where a play run keeps a game's frames."""
    return Path(run_dir) / FRAMES_DIR / f"{game_id}.json.gz"


def write_frames(run_dir: str | Path, game_id: str, frames: dict[str, list[list[int]]]) -> Path:
    """Write a game's distinct frames ({hash: rows of ints}); the same frames give the same bytes
    (no time stamp in the gzip header). Written whole, then renamed into place."""
    path = frames_path(run_dir, game_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(gzip.compress(json.dumps(dict(sorted(frames.items())), separators=(",", ":")).encode(), mtime=0))
    tmp.replace(path)
    return path


def read_frames(run_dir: str | Path, game_id: str) -> dict[str, list[list[int]]]:
    """A game's frames as {hash: rows of ints}; {} when the run kept none for it. ValueError names
    the file when it is not gzip-compressed JSON of that shape."""
    path = frames_path(run_dir, game_id)
    if not path.is_file():
        return {}
    try:
        data = json.loads(gzip.decompress(path.read_bytes()))
    except (OSError, EOFError, ValueError) as e:
        raise ValueError(f"{path}: not a gzip-compressed JSON frames file: {e}") from None
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise ValueError(f"{path}: expected an object of hash -> frame (rows of ints)")
    return data
