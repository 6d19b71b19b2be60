"""The program-file format: what agents, `synth` and the `programs` solver read and write.

A program file is a JSON list of {"task_id": ..., "code": "def solve(grid): ..."} (extra keys are
kept); a folder holds any number of them. A run folder's `results.jsonl` reads as one too: the
programs its rows' traces printed (the DSL search prints up to two per task), so
`verify --library dsl` re-runs a DSL run's programs in the sandbox.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from shared import runs


class ProgramFileError(ValueError):
    """A program file that is not a list of {"task_id", "code"}; the message says where."""


@dataclass(frozen=True)
class Program:
    task_id: str
    code: str
    source: str        # the file it came from
    index: int         # its position in that file
    extra: dict = field(default_factory=dict, hash=False, compare=False)

    @property
    def agent(self) -> str:
        """The agent that wrote it: the file's name without extension (a run's: its folder's name)."""
        p = Path(self.source)
        return p.parent.name if p.name == runs.RESULTS else p.stem


def program_files(path: str | os.PathLike) -> list[Path]:
    """A program file, or every *.json file in a folder (sorted), except the task chunks and
    manifest `curate` writes, so agents may answer into their curated folder; a run folder
    (one with results.jsonl): its results."""
    p = Path(path)
    if p.is_dir() and (p / runs.RESULTS).is_file():
        return [p / runs.RESULTS]
    if p.is_dir():
        return sorted(f for f in p.glob("*.json") if f.is_file() and f.name != "manifest.json"
                      and not f.name.startswith("tasks_"))
    if p.is_file():
        return [p]
    raise ProgramFileError(f"{p}: no such program file or folder")


def read_programs(path: str | os.PathLike) -> list[Program]:
    """Every program in a file or a folder of files, validated."""
    out = []
    for f in program_files(path):
        if f.name == runs.RESULTS:
            out += _run_programs(f)
            continue
        try:
            data = json.loads(f.read_text())
        except (OSError, json.JSONDecodeError) as e:
            raise ProgramFileError(f"{f}: cannot read program file: {e}") from None
        if not isinstance(data, list):
            raise ProgramFileError(f"{f}: expected a list of {{\"task_id\", \"code\"}}, got {type(data).__name__}")
        for i, item in enumerate(data):
            if not isinstance(item, dict):
                raise ProgramFileError(f"{f}: item {i}: expected an object, got {type(item).__name__}")
            for key in ("task_id", "code"):
                if not isinstance(item.get(key), str):
                    raise ProgramFileError(f"{f}: item {i}: '{key}' must be a string")
            extra = {k: v for k, v in item.items() if k not in ("task_id", "code")}
            out.append(Program(item["task_id"], item["code"], str(f), i, extra))
    return out


def _run_programs(f: Path) -> list[Program]:
    """The programs a run's rows printed: each trace's "programs" (else its "program"), in order.
    Rows are read as every run reader reads them (`runs.read_results`: a torn last line is dropped)."""
    try:
        rows = runs.read_results(f.parent)
    except runs.RunFileError as e:
        raise ProgramFileError(str(e)) from None
    out = []
    for n, row in enumerate(rows, 1):
        if not isinstance(row.get("task_id"), str):
            raise ProgramFileError(f"{f}: row {n}: expected a results row with a 'task_id'")
        trace = row.get("trace") or {}
        codes = trace.get("programs") or ([trace["program"]] if trace.get("program") else [])
        for code in codes:
            if not isinstance(code, str):
                raise ProgramFileError(f"{f}: row {n}: a program must be a string")
            out.append(Program(row["task_id"], code, str(f), len(out)))
    return out


def write_programs(path: str | os.PathLike, items: list[dict]) -> Path:
    """Write a program file ({"task_id", "code", ...} per item), atomically."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(p.suffix + ".tmp")
    tmp.write_text(json.dumps(items, indent=1))
    os.replace(tmp, p)
    return p
