"""The ensemble: round-robin best-2 in member order, duplicates dropped, budget shared."""

from __future__ import annotations

import pytest

from shared.solvers.ensemble import EnsembleSolver
from shared.tasks import task_from_json

from .conftest import task_dict

CONST = "tests.fixture_solvers:ConstSolver"
A, B, C = [[1]], [[2]], [[3]]


def make(members, options, **kw):
    return EnsembleSolver(members, options, **kw)


@pytest.fixture(autouse=True)
def two_const_solvers(monkeypatch):
    """Two members under different names, so each gets its own options."""
    import shared.solvers as S

    monkeypatch.setitem(S._REGISTRY, "c1", CONST)
    monkeypatch.setitem(S._REGISTRY, "c2", CONST)


def test_round_robin_and_solver_names():
    ens = make(["c1", "c2"], {"c1": {"grids": [A, B], "program": "def solve(I):\n    return I\n"},
                              "c2": {"grids": [C]}})
    pred = ens.solve(task_from_json(task_dict(), "t"), budget_s=10)
    assert [g.tolist() for g in pred.attempts[0]] == [A, C]
    assert pred.trace["answer_solvers"] == [["c1", "c2"]] and pred.trace["solver"] == "c1"
    assert pred.trace["program"].startswith("def solve")
    dup = make(["c1", "c2"], {"c1": {"grids": [A, B]}, "c2": {"grids": [A]}})
    pred = dup.solve(task_from_json(task_dict(), "t"), budget_s=10)
    assert [g.tolist() for g in pred.attempts[0]] == [A, B]  # the duplicate A is dropped
    empty = make(["c1", "c2"], {"c1": {"grids": []}, "c2": {"grids": [C, B]}})
    pred = empty.solve(task_from_json(task_dict(), "t"), budget_s=10)
    assert [g.tolist() for g in pred.attempts[0]] == [C, B] and pred.trace["solver"] == "c2"


def test_budget_is_shared_and_unused_time_passes_on():
    ens = make(["c1", "c2"], {"c1": {"grids": [A]}, "c2": {"grids": [B]}}, shares=[1.0, 3.0])
    ens.solve(task_from_json(task_dict(), "t"), budget_s=8.0)
    assert ens.members[0].budgets == [pytest.approx(2.0, abs=0.05)]  # its share of what was left when it began
    assert ens.members[1].budgets[0] == pytest.approx(8.0, abs=0.05)  # c1 used almost nothing


def test_bad_configurations_are_refused():
    with pytest.raises(ValueError, match="not in the ensemble: model"):
        EnsembleSolver(["identity"], {"model": {}})
    with pytest.raises(ValueError, match="2 budget shares for 1 members"):
        EnsembleSolver(["identity"], shares=[1, 2])
