"""Where Kaggle mounts things: the competition's challenges file, its solutions, attached models.

Competitions mount at /kaggle/input/<slug>/ or, on newer images, /kaggle/input/competitions/<slug>/,
and the slug changes each year (arc-prize-2025, arc-prize-2026, ...), so nothing here names one:
files are found by pattern, and a miss raises KaggleInputError listing every place looked.
Standard library only: the offline notebook imports this before anything heavy.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

KAGGLE_INPUT = "/kaggle/input"
CHALLENGES_PATTERN = "*challenges*.json"
MAX_DEPTH = 4  # <root>/competitions/<slug>/<folder>/<file> is the deepest layout seen
MODEL_MAX_DEPTH = 6  # Kaggle Models: <root>/<model>/<framework>/<variation>/<version>/[<sub>/]config.json


class KaggleInputError(FileNotFoundError):
    """An input the notebook needs is not under Kaggle's input folder, or is not unique there."""


def on_kaggle() -> bool:
    """True in a Kaggle notebook session (its run-type variable is set, or its input folder exists)."""
    return bool(os.environ.get("KAGGLE_KERNEL_RUN_TYPE")) or Path(KAGGLE_INPUT).exists()


def _walk(root: Path, max_depth: int):
    """(folder, depth, file names) for every folder at most max_depth - 1 below root, sorted."""
    for folder, dirs, files in os.walk(root, followlinks=True):
        depth = len(Path(folder).relative_to(root).parts) + 1  # the depth of the files listed here
        dirs.sort()
        if depth >= max_depth:
            dirs.clear()
        yield Path(folder), depth, sorted(files)


def _kind(name: str) -> str:
    low = name.lower()
    if "test" in low:
        return "test"
    if "eval" in low:
        return "evaluation"
    if "train" in low:
        return "training"
    return "other"


def _slug(path: Path, root: Path) -> str:
    """The competition or dataset folder a file is in: <root>/<slug>/ or <root>/competitions/<slug>/."""
    parts = path.relative_to(root).parts
    if len(parts) > 2 and parts[0] == "competitions":
        return parts[1]
    return parts[0] if len(parts) > 1 else ""


def _places(root: Path, max_depth: int, pattern: str) -> list[str]:
    return [str(root.joinpath(*["*"] * (d - 1), pattern)) for d in range(1, max_depth + 1)]


def _contents(root: Path) -> str:
    if not root.is_dir():
        return f"{root} {'is not a folder' if root.exists() else 'does not exist'}"
    entries = sorted(p.name for p in root.iterdir())
    return f"{root} holds: {', '.join(entries[:20]) or 'nothing'}" + (" ..." if len(entries) > 20 else "")


def find_challenges(root: str | os.PathLike = KAGGLE_INPUT) -> Path:
    """The ARC test challenges file under root, in either mount layout and under any slug.

    A *test* challenges file is preferred; with none, an evaluation one is used (and said so);
    training files never are. Several candidates of the best kind: the last competition slug
    by sort (arc-prize-2026 over arc-prize-2025) wins, and the choice is printed.
    """
    root = Path(root)
    found: dict[str, list[Path]] = {}
    if root.is_dir():
        for folder, _, files in _walk(root, MAX_DEPTH):
            for name in files:
                if fnmatch.fnmatch(name.lower(), CHALLENGES_PATTERN):
                    found.setdefault(_kind(name), []).append(folder / name)
    for kind in ("test", "evaluation"):
        if kind not in found:
            continue
        candidates = sorted(found[kind], key=lambda p: (_slug(p, root), str(p)))
        chosen = candidates[-1]
        if len(candidates) > 1:
            print(f"{len(candidates)} {kind} challenges files under {root}: "
                  f"{', '.join(str(c) for c in candidates)}; using {chosen} (the last competition slug by sort)")
        if kind != "test":
            print(f"no test challenges file under {root}; using the {kind} file {chosen}")
        return chosen
    ignored = [str(p) for paths in found.values() for p in paths]
    raise KaggleInputError(
        f"no ARC test challenges file under {root}: looked for {CHALLENGES_PATTERN} (test preferred, then "
        f"evaluation) in {root} and up to {MAX_DEPTH - 1} folder levels below it, <slug>/ and competitions/<slug>/ "
        f"included: {', '.join(_places(root, MAX_DEPTH, CHALLENGES_PATTERN))}; {_contents(root)}"
        + (f"; not used (training or unnamed): {', '.join(ignored)}" if ignored else "")
        + ". Attach the competition's data to the notebook (Add Input), or set CHALLENGES to the file.")


def find_solutions(challenges: str | os.PathLike) -> Path | None:
    """The solutions file beside a challenges file (evaluation sets come with one), else None."""
    path = Path(challenges)
    if "challenges" not in path.name:
        return None
    twin = path.with_name(path.name.replace("challenges", "solutions"))
    return twin if twin.is_file() else None


def find_model(name: str, root: str | os.PathLike = KAGGLE_INPUT) -> Path:
    """Model weights attached to the notebook, as a dataset (<root>/<dataset>/...) or a Kaggle
    Model (<root>/<model>/<framework>/<variation>/<version>/): `name` as is when that path
    exists, else the one folder under root holding a config.json whose path contains `name`."""
    if Path(name).exists():
        return Path(name)
    root = Path(root)
    folders = []
    if root.is_dir():
        folders = [folder for folder, _, files in _walk(root, MODEL_MAX_DEPTH) if "config.json" in files]
    matches = [f for f in folders if name.lower() in str(f.relative_to(root)).lower()]
    if len(matches) == 1:
        return matches[0]
    listed = ", ".join(str(f) for f in (matches or folders)) or "none"
    if matches:
        raise KaggleInputError(f"model {name!r}: {len(matches)} folders with a config.json under {root} match: "
                               f"{listed}; set MODEL to one of them (or a longer part of its path)")
    raise KaggleInputError(f"model {name!r}: not a path, and no folder holding a config.json under {root} "
                           f"(searched {MODEL_MAX_DEPTH} levels deep) has it in its path; folders with a "
                           f"config.json: {listed}. Attach the weights (Add Input: a dataset or a Kaggle Model).")
