"""Notebooks from builders: `python -m shared build` writes notebooks/ from builders/*.py.

Builders are jupytext percent-format scripts. The build is deterministic (same source, same
bytes): no outputs, cell ids from position, fixed metadata (Python 3 kernel, Colab with a GPU
accelerator). Every notebook gets a first cell naming its builder and saying it is generated,
and the standard setup cell right after its papermill `parameters` cell (whose set-up parameters,
REPO_URL among them, the build appends), so no builder repeats the Colab/local set-up code; a
notebook that inlines the library gets neither. The build also writes QUICK_START's table of
notebooks. `--check` fails if a committed notebook or that table differs from its build.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUILDERS = REPO / "builders"
NOTEBOOKS = REPO / "notebooks"

# The parameters every notebook with a setup cell gets, appended to its parameters cell (papermill
# can set them like any other). REPO_URL comes from pyproject's [tool.arc-suite] repo-url: the one
# line a fork changes before `python -m shared build`.
SETUP_PARAMETERS = '''\
REPO_URL = {repo_url!r}  # git URL Colab clones the suite from (set in pyproject.toml, [tool.arc-suite])
SUITE_DIR = ""  # a folder holding the suite: a checkout, or a copy on Drive (/content/drive/MyDrive/arc-suite)
DRIVE = False  # Colab: keep OUT (runs, checkpoints) on Google Drive, so a rerun after a disconnect resumes'''

SETUP_CELL = '''\
# Setup. The suite is, in this order: the folder SUITE_DIR names; the checkout this notebook is in;
# an installed copy (pip install -e . or git+URL); a clone of REPO_URL (made once, then reused).
# On Colab only what the runtime lacks is installed (never torch or Jupyter); DRIVE keeps OUT on Drive.
import importlib.util
import os
import subprocess
import sys

ON_COLAB = "google.colab" in sys.modules
if DRIVE or SUITE_DIR.startswith("/content/drive"):
    if not ON_COLAB:
        raise RuntimeError("DRIVE = True needs Colab (Drive is mounted through google.colab); elsewhere set OUT "
                           "to any folder that lasts")
    from google.colab import drive

    DRIVE_MOUNT = os.environ.get("ARC_DRIVE_MOUNT", "/content/drive")  # CI mounts a stand-in elsewhere
    drive.mount(DRIVE_MOUNT)


def _holds_suite(folder):
    return os.path.isfile(os.path.join(folder, "shared", "bench.py"))


def _find_suite():
    """(folder to work in, or None for an installed copy; how it was found)."""
    if SUITE_DIR:
        folder = os.path.abspath(os.path.expanduser(SUITE_DIR))
        if not _holds_suite(folder):
            raise RuntimeError(f"SUITE_DIR = {SUITE_DIR!r} holds no copy of the suite (no shared/bench.py in it)")
        return folder, "SUITE_DIR"
    for folder in (os.getcwd(), os.path.dirname(os.getcwd())):
        if _holds_suite(folder):
            return folder, "this checkout"
    spec = importlib.util.find_spec("shared")
    if spec is not None and spec.origin and os.path.isfile(os.path.join(os.path.dirname(spec.origin), "bench.py")):
        root = os.path.dirname(os.path.dirname(spec.origin))
        if os.path.isfile(os.path.join(root, "pyproject.toml")):
            return root, "an editable install"
        return None, "installed"
    clone = "/content/arc-suite" if os.path.isdir("/content") else os.path.expanduser("~/arc-suite")
    if _holds_suite(clone):
        return clone, f"the clone made earlier (git -C {clone} pull updates it)"
    if not REPO_URL:
        raise RuntimeError(
            "the suite is not here and REPO_URL is empty. Either set REPO_URL in the parameters cell to a git URL "
            "of the suite (a fork sets it once in pyproject.toml, [tool.arc-suite] repo-url, and rebuilds), or "
            "upload the suite to Drive and set SUITE_DIR (with DRIVE = True), or pip install it first.")
    subprocess.run(["git", "clone", "--depth", "1", REPO_URL, clone], check=True)
    return clone, f"a clone of {REPO_URL}"


SUITE, FOUND = _find_suite()
if SUITE is not None:
    os.chdir(SUITE)  # relative OUT folders land in the suite's outputs/
    if SUITE not in sys.path:
        sys.path.insert(0, SUITE)
from shared import colab

print(f"suite: {FOUND} ({SUITE or os.path.dirname(os.path.dirname(colab.__file__))})")
if ON_COLAB:
    colab.install_missing(PROFILE, SUITE)
if DRIVE:
    OUT = colab.on_drive(OUT, DRIVE_MOUNT)
    print(f"OUT on Drive: {OUT}")'''

QUICK_START = REPO / "QUICK_START.md"
_TABLE_START = "<!-- notebooks: written by `python -m shared build` from pyproject's repo-url - do not edit -->"
_TABLE_END = "<!-- end of notebooks -->"


def repo_url() -> str:
    """The suite's git URL from pyproject.toml ([tool.arc-suite] repo-url); empty when it has none."""
    import tomllib

    return tomllib.loads((REPO / "pyproject.toml").read_text()).get("tool", {}).get("arc-suite", {}).get("repo-url", "")


def colab_link(url: str, notebook: str, branch: str = "main") -> str | None:
    """The "Open in Colab" address of a notebook of a GitHub repository, or None for any other host."""
    m = re.match(r"(?:https://|git@)github\.com[/:]([\w.-]+)/([\w.-]+?)(?:\.git)?/?$", url)
    if not m:
        return None
    return f"https://colab.research.google.com/github/{m[1]}/{m[2]}/blob/{branch}/notebooks/{notebook}"


def notebooks_table(url: str) -> str:
    """QUICK_START's table: every notebook with its title and an Open-in-Colab badge (when the
    repository is on GitHub; otherwise the file, to upload in Colab with File > Upload notebook)."""
    badge = "https://colab.research.google.com/assets/colab-badge.svg"
    rows = ["| notebook | open |", "|---|---|"]
    for b, v, target in targets():
        title = _title(b)
        link = colab_link(url, target.name)
        cell = f"[![Open in Colab]({badge})]({link})" if link else f"[{target.name}](notebooks/{target.name}) (upload)"
        rows.append(f"| {title}{f' ({v[1]})' if v else ''} | {cell} |")
    return "\n".join([_TABLE_START, *rows, _TABLE_END])


def _title(builder: Path) -> str:
    m = re.search(r"^# # (.+)$", builder.read_text(), re.M)
    return m[1].strip() if m else builder.stem


def quick_start_text(url: str | None = None) -> str:
    """QUICK_START.md with its notebooks table written for `url` (default: pyproject's)."""
    text = QUICK_START.read_text()
    if _TABLE_START not in text or _TABLE_END not in text:
        raise BuildError(f"{QUICK_START.name}: no notebooks table markers ({_TABLE_START!r} ... {_TABLE_END!r})")
    head, rest = text.split(_TABLE_START, 1)
    tail = rest.split(_TABLE_END, 1)[1]
    return head + notebooks_table(repo_url() if url is None else url) + tail


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
    # a notebook that inlines the library (Kaggle, offline) has nothing to find, clone or install
    inlines = any(c.source.strip() == INLINE_MARKER for c in src.cells)
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
            if not inlines:
                new.source = new.source.rstrip("\n") + "\n" + SETUP_PARAMETERS.format(repo_url=repo_url())
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
    text = quick_start_text()
    if QUICK_START.read_text() != text:
        changed.append(QUICK_START.name)
        if not check:
            QUICK_START.write_text(text)
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
