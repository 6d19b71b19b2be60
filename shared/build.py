"""Notebooks from builders: `python -m shared build` writes notebooks/ from builders/*.py.

Builders are jupytext percent-format scripts. The build is deterministic (same source, same
bytes): no outputs, cell ids from position, fixed metadata (Python 3 kernel, Colab with a GPU
accelerator). Every notebook gets a first cell naming its builder and saying it is generated,
and the standard setup cell right after its papermill `parameters` cell, so no builder repeats
the Colab/local set-up code. `--check` fails if a committed notebook differs from its build.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUILDERS = REPO / "builders"
NOTEBOOKS = REPO / "notebooks"

# Where Colab clones the suite from; a fork changes REPO_URL in the parameters cell.
SETUP_CELL = '''\
# Setup: on Colab, clone the suite and install what Colab lacks; locally, use this checkout.
import os
import subprocess
import sys

if "google.colab" in sys.modules:
    REPO = "/content/arc-suite"
    if not os.path.exists(REPO):
        subprocess.run(["git", "clone", "--depth", "1", REPO_URL, REPO], check=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "-r", f"{REPO}/requirements.txt"], check=True)
else:
    REPO = os.path.abspath(".." if os.path.basename(os.getcwd()) == "notebooks" else ".")
os.chdir(REPO)
if REPO not in sys.path:
    sys.path.insert(0, REPO)'''

METADATA = {
    "accelerator": "GPU",
    "colab": {"gpuType": "T4", "provenance": []},
    "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
    "language_info": {"name": "python"},
}


# A builder cell holding only this line becomes the library, inlined from shared/ (Kaggle runs
# offline, with no clone): the notebook is rebuilt from source, so it cannot drift from it.
INLINE_MARKER = "# @inline shared"
INLINE_WRITER = '''
import pathlib
import sys
import tempfile

LIB_DIR = pathlib.Path("/kaggle/working/arc_lib" if pathlib.Path("/kaggle").exists() else tempfile.mkdtemp())
for rel, text in LIBRARY.items():
    (LIB_DIR / rel).parent.mkdir(parents=True, exist_ok=True)
    (LIB_DIR / rel).write_text(text)
sys.path.insert(0, str(LIB_DIR))
for name in [m for m in sys.modules if m == "shared" or m.startswith("shared.")]:
    del sys.modules[name]  # a copy imported earlier must not shadow the inlined one
print(f"library: {len(LIBRARY)} files inlined into {LIB_DIR}")'''


class BuildError(ValueError):
    pass


def inline_library_cell() -> str:
    """Source of a cell that writes the library (as it is now) to a folder and imports from it."""
    lib = REPO / "shared"
    files = sorted(p for p in lib.rglob("*") if p.is_file() and p.suffix in (".py", ".html", ".js", ".css")
                   and "__pycache__" not in p.parts)
    lines = ["# The suite's library, inlined from shared/ by `python -m shared build` - do not edit.",
             "LIBRARY = {"]
    lines += [f"    {p.relative_to(REPO).as_posix()!r}: {p.read_text()!r}," for p in files]
    lines.append("}")
    return "\n".join(lines) + INLINE_WRITER


# A parameters-cell line like `BENCHMARK = "gsm8k"  # variants: gsm8k, humaneval` makes one
# notebook per value (NAME_VALUE.ipynb), each with that value set: one source, no copies.
_VARIANTS = re.compile(r'^(?P<name>[A-Z_]+) = "(?P<value>[^"]*)"\s*# variants: (?P<values>[\w, -]+)$', re.M)


def variants(builder: Path) -> list[tuple[str, str, str] | None]:
    """[(parameter, value, notebook stem)] for a builder with variants, else [None]."""
    m = _VARIANTS.search(builder.read_text())
    if not m:
        return [None]
    values = [v.strip() for v in m.group("values").split(",") if v.strip()]
    return [(m.group("name"), v, f"{builder.stem}_{v}") for v in values]


def build_notebook(builder: Path, variant: tuple[str, str, str] | None = None):
    """The notebook (nbformat node) for one builder script, or one variant of it."""
    import jupytext
    import nbformat

    text = builder.read_text()
    if variant is not None:
        name, value, _ = variant
        text = _VARIANTS.sub(lambda m: f'{name} = "{value}"  # a variant of {builder.name}', text, count=1)
    src = jupytext.reads(text, fmt="py:percent")
    rel = builder.relative_to(REPO) if builder.is_relative_to(REPO) else builder
    note = (f"*Generated from `{rel.as_posix()}` by `python -m shared build` - do not edit; "
            "edit the builder and rebuild.*")
    cells = [nbformat.v4.new_markdown_cell(note)]
    has_parameters = False
    for cell in src.cells:
        tags = list(cell.metadata.get("tags", []))
        if cell.cell_type == "markdown":
            new = nbformat.v4.new_markdown_cell(cell.source)
        elif cell.source.strip() == INLINE_MARKER:
            new = nbformat.v4.new_code_cell(inline_library_cell())
        else:
            new = nbformat.v4.new_code_cell(cell.source)
            if tags:
                new.metadata["tags"] = tags
        cells.append(new)
        if "parameters" in tags:
            has_parameters = True
            cells.append(nbformat.v4.new_code_cell(SETUP_CELL))
    if not has_parameters:
        raise BuildError(f"{builder}: no cell tagged 'parameters' (papermill needs one: `# %% tags=[\"parameters\"]`)")
    for i, c in enumerate(cells):
        c.id = f"cell-{i:02d}"
    nb = nbformat.v4.new_notebook(cells=cells, metadata=dict(METADATA))
    nb.nbformat, nb.nbformat_minor = 4, 5
    nbformat.validate(nb)
    return nb


def notebook_text(builder: Path, variant: tuple[str, str, str] | None = None) -> str:
    import nbformat

    return nbformat.writes(build_notebook(builder, variant)) + "\n"


def builders() -> list[Path]:
    """Every builder script: the numbered pipeline first, then the rest (kaggle_*, variants)."""
    return sorted(p for p in BUILDERS.glob("*.py") if p.name != "build.py")


def targets() -> list[tuple[Path, tuple[str, str, str] | None, Path]]:
    """(builder, variant, notebook path) for every notebook the builders make."""
    out = []
    for b in builders():
        for v in variants(b):
            out.append((b, v, NOTEBOOKS / ((v[2] if v else b.stem) + ".ipynb")))
    return out


def build_all(check: bool = False) -> list[str]:
    """Write (or with check, compare) every notebook; returns the names that changed."""
    NOTEBOOKS.mkdir(exist_ok=True)
    changed = []
    for b, v, target in targets():
        text = notebook_text(b, v)
        if not target.exists() or target.read_text() != text:
            changed.append(target.name)
            if not check:
                target.write_text(text)
    return changed


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m shared build", description="Write notebooks/ from builders/.")
    p.add_argument("--check", action="store_true", help="write nothing; fail if a notebook is out of date")
    args = p.parse_args(argv)
    try:
        changed = build_all(check=args.check)
    except BuildError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.check and changed:
        print(f"out of date: {', '.join(changed)} (run python -m shared build)", file=sys.stderr)
        return 1
    print(f"{len(targets())} notebooks, {len(changed)} {'stale' if args.check else 'written'}")
    return 0
