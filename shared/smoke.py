"""`python -m shared smoke`: run every notebook under papermill with PROFILE="smoke" on the CPU.

Executed copies are kept under outputs/smoke/ for a person to read; the first failing
notebook stops the run with its error. Tests call `run_notebook` for each notebook.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from shared.build import NOTEBOOKS, REPO

SMOKE_DIR = REPO / "outputs" / "smoke"


def run_notebook(notebook: Path, out_dir: Path = SMOKE_DIR, parameters: dict | None = None,
                 timeout_s: int = 600) -> Path:
    """Execute one notebook with PROFILE='smoke' (plus any parameters); return the executed copy."""
    import papermill

    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / notebook.name
    papermill.execute_notebook(
        str(notebook), str(target), parameters={"PROFILE": "smoke", **(parameters or {})},
        cwd=str(REPO), kernel_name="python3", progress_bar=False, execution_timeout=timeout_s,
    )
    return target


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m shared smoke", description=__doc__.splitlines()[0])
    p.add_argument("--only", help="substring of the notebook names to run")
    args = p.parse_args(argv)
    notebooks = sorted(NOTEBOOKS.glob("*.ipynb"))
    if args.only:
        notebooks = [n for n in notebooks if args.only in n.name]
    if not notebooks:
        print("error: no notebooks (run python -m shared build)", file=sys.stderr)
        return 2
    import papermill

    for nb in notebooks:
        t0 = time.perf_counter()
        try:
            out = run_notebook(nb)
        except papermill.PapermillExecutionError as e:
            print(f"FAILED {nb.name}: {e.ename}: {e.evalue} (executed copy in {SMOKE_DIR / nb.name})")
            return 1
        print(f"ok {nb.name} in {time.perf_counter() - t0:.1f} s -> {out.relative_to(REPO)}")
    return 0
