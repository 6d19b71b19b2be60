"""What a notebook's setup cell does on Colab once the suite is found: install only what the
runtime lacks, and keep OUT on Google Drive.

Colab ships its own CUDA torch, IPython and Jupyter pinned to each other; reinstalling any of them
is a known way to break the runtime, so they are never installed. Everything else the suite
needs comes from its own pyproject (the base dependencies plus the `models` extra) and is
installed only when the runtime's version does not satisfy the range. Standard library only,
apart from `packaging` (on every Colab image), so it runs before anything is installed.
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

# Never installed on Colab: its own CUDA build of torch, and the kernel's own stack.
NEVER = frozenset({"torch", "torchvision", "torchaudio", "ipykernel", "ipython", "jupyter", "jupyter-client",
                   "jupyter-core", "notebook", "google-colab", "arc-suite"})
EXTRAS = ("models",)  # what the notebooks import; the notebook tools and test tools are not needed to run them
FOUR_BIT = "bitsandbytes"  # only when a 4-bit profile runs on CUDA
DRIVE_FOLDER = "MyDrive/arc-suite"  # under the mount point: OUT folders are kept here


def _name(requirement) -> str:
    return requirement.name.lower().replace("_", "-")


def suite_requirements(root: str | Path | None = None, extras: tuple[str, ...] = EXTRAS) -> list:
    """The suite's requirements (packaging Requirement objects) for this platform: the base
    dependencies plus `extras`, read from `root`/pyproject.toml, or from the installed package's
    metadata when there is no checkout. Self-references (`arc-suite[...]`) are dropped."""
    from packaging.requirements import Requirement

    pyproject = Path(root) / "pyproject.toml" if root is not None else None
    if pyproject is not None and pyproject.is_file():
        project = tomllib.loads(pyproject.read_text())["project"]
        lines = list(project.get("dependencies", []))
        for extra in extras:
            lines += project.get("optional-dependencies", {}).get(extra, [])
        reqs = [Requirement(line) for line in lines]
        reqs = [r for r in reqs if r.marker is None or r.marker.evaluate()]
    else:
        reqs = []
        for line in importlib.metadata.requires("arc-suite") or []:
            r = Requirement(line)
            if r.marker is None or r.marker.evaluate({"extra": ""}) or \
                    any(r.marker.evaluate({"extra": e}) for e in extras):
                r.marker = None
                reqs.append(r)
    return [r for r in reqs if _name(r) != "arc-suite"]


def installed_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def missing(requirements: list, four_bit: bool = False,
            version_of: Callable[[str], str | None] | None = None) -> list[str]:
    """The requirement strings to install: absent or out of range, never one of NEVER, and
    bitsandbytes only when `four_bit` (a 4-bit profile on a CUDA runtime). `version_of` gives
    the installed version of a name, or None (default: this environment's)."""
    version_of = version_of or installed_version
    out = []
    for r in requirements:
        name = _name(r)
        if name in NEVER or (name == FOUR_BIT and not four_bit):
            continue
        have = version_of(name)
        if have is None or (r.specifier and not r.specifier.contains(have, prereleases=True)):
            out.append(f"{name}{r.specifier}")
    return out


def needs_four_bit(profile_name: str) -> bool:
    """True when the profile loads models in 4 bits and a CUDA GPU is there to do it."""
    from shared.config import profile

    if not profile(profile_name).load_in_4bit:
        return False
    import torch  # Colab's own; asked only for a 4-bit profile

    return torch.cuda.is_available()


def install_missing(profile_name: str, root: str | Path | None,
                    run: Callable[[list[str]], object] = lambda cmd: subprocess.run(cmd, check=True)) -> list[str]:
    """pip-install what this runtime lacks for the suite (see `missing`); returns what was asked for.

    transformers: the library uses the 5.x API (dtype=, processing_class=); a runtime that
    ships 4.x gets it upgraded here, on purpose, by the range in pyproject.
    """
    todo = missing(suite_requirements(root), four_bit=needs_four_bit(profile_name))
    if todo:
        print(f"installing what this runtime lacks: {' '.join(todo)}")
        run([sys.executable, "-m", "pip", "install", "-q", *todo])
    else:
        print("this runtime has every package the suite needs (torch and Jupyter are never reinstalled)")
    return todo


def on_drive(out: str, mount: str | Path) -> str:
    """OUT moved under Drive (`mount`/MyDrive/arc-suite/OUT for a relative OUT), created; runs and
    checkpoints there survive the VM, so a rerun after a disconnect resumes from them."""
    path = Path(out)
    if not path.is_absolute():
        path = Path(mount) / DRIVE_FOLDER / path
    elif not path.is_relative_to(Path(mount)):
        print(f"note: OUT = {out} is outside Drive ({mount}); it will not survive the VM")
    path.mkdir(parents=True, exist_ok=True)
    return str(path)
