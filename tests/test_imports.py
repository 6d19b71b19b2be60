"""The library's parts depend one way: no import cycle between parts, and the core imports no other part.

A part is a top-level module or subpackage of `shared` (`shared.bench`, `shared.solvers`,
...). Every import in every `shared/**/*.py` counts, at module level or inside a function
(a lazy import is still a dependency), relative ones resolved; imports inside one part do not.
The solver registry imports by name, so its targets are checked apart.
"""

from __future__ import annotations

import ast
from pathlib import Path

import shared

LIBRARY = Path(shared.__file__).parent
CORE = {"shared.tasks", "shared.grids", "shared.augment", "shared.formats", "shared.scoring"}
HEAVY = {"torch", "transformers", "peft", "trl", "accelerate", "bitsandbytes"}


def module_name(path: Path) -> str:
    parts = ("shared",) + path.relative_to(LIBRARY).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def part_of(module: str) -> str:
    return ".".join(module.split(".")[:2])


def library_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(LIBRARY.rglob("*.py"))}


def imports_of(module: str, path: Path, known: set[str]) -> list[tuple[str, int]]:
    """(imported module, line) for every import in the file; `from pkg import sub` names pkg.sub
    when that is a module, else pkg."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.append((sub if sub in known else target, node.lineno))
    return out


def part_edges() -> dict[tuple[str, str], list[str]]:
    """(part, imported part) -> the places ("shared/x.py:12") that import across."""
    modules = library_modules()
    edges: dict[tuple[str, str], list[str]] = {}
    for module, path in modules.items():
        for target, line in imports_of(module, path, set(modules)):
            if target != "shared" and not target.startswith("shared."):
                continue
            a, b = part_of(module), part_of(target)
            if a != b and b != "shared":
                edges.setdefault((a, b), []).append(f"{path.relative_to(LIBRARY.parent)}:{line}")
    return edges


def strongly_connected(nodes: set[str], edges: set[tuple[str, str]]) -> list[list[str]]:
    """Tarjan's components, each sorted; only those with more than one part."""
    succ = {n: sorted(b for a, b in edges if a == n) for n in nodes}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(n: str) -> None:
        index[n] = low[n] = len(index)
        stack.append(n)
        on_stack.add(n)
        for m in succ[n]:
            if m not in index:
                visit(m)
                low[n] = min(low[n], low[m])
            elif m in on_stack:
                low[n] = min(low[n], index[m])
        if low[n] == index[n]:
            comp = []
            while True:
                m = stack.pop()
                on_stack.discard(m)
                comp.append(m)
                if m == n:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for n in sorted(nodes):
        if n not in index:
            visit(n)
    return found


def describe(component: list[str], edges: dict[tuple[str, str], list[str]]) -> str:
    """Every edge inside a cycle, with where it is made."""
    lines = [" <-> ".join(component)]
    for (a, b), places in sorted(edges.items()):
        if a in component and b in component:
            lines.append(f"  {a} -> {b}: {', '.join(sorted(set(places)))}")
    return "\n".join(lines)


def test_the_walker_resolves_relative_and_function_level_imports(tmp_path):
    pkg = tmp_path / "shared" / "solvers"
    pkg.mkdir(parents=True)
    src = "from . import model\nfrom ..grids import same\ndef f():\n    from shared import bench\n"
    (pkg / "__init__.py").write_text(src)
    known = {"shared.solvers.model", "shared.bench", "shared.grids"}
    got = imports_of("shared.solvers", pkg / "__init__.py", known)
    assert got == [("shared.solvers.model", 1), ("shared.grids", 2), ("shared.bench", 4)]
    assert strongly_connected({"a", "b", "c"}, {("a", "b"), ("b", "c"), ("c", "a")}) == [["a", "b", "c"]]
    assert strongly_connected({"a", "b"}, {("a", "b")}) == []


def test_no_import_cycle_between_parts():
    edges = part_edges()
    nodes = {n for edge in edges for n in edge}
    cycles = strongly_connected(nodes, set(edges))
    report = "\n".join(describe(c, edges) for c in cycles)
    print(report)
    assert not cycles, f"import cycles between the library's parts:\n{report}"


def test_every_registered_solver_lives_under_solvers():
    # the registry imports its targets by name, an import the walker above cannot see
    from shared.solvers import _REGISTRY

    outside = {name: target for name, target in _REGISTRY.items() if not target.startswith("shared.solvers.")}
    assert not outside, f"solvers registered outside shared/solvers/: {outside}"


def test_the_core_imports_no_other_part_and_no_torch():
    modules = library_modules()
    bad = []
    for module, path in modules.items():
        if part_of(module) not in CORE:
            continue
        for target, line in imports_of(module, path, set(modules)):
            beyond_core = target.startswith("shared.") and part_of(target) not in CORE
            if beyond_core or target.split(".")[0] in HEAVY:
                bad.append(f"{path.relative_to(LIBRARY.parent)}:{line} imports {target}")
    assert not bad, "the core imports beyond the core:\n" + "\n".join(bad)
