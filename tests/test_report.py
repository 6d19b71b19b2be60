"""The ensemble views of a run: which member answered, and what the figure draws."""

import matplotlib

matplotlib.use("Agg")

from shared import report  # noqa: E402


def _row(solver, status, time_s):
    return {"trace": {"solver": solver} if solver else {}, "status": status, "time_s": time_s}


ROWS = [_row("dsl", "solved", 1.0), _row("dsl", "solved", 2.0), _row("ttt", "solved", 9.0),
        _row("ttt", "unsolved", 30.0), _row(None, "timeout", None)]


def test_answered_by_counts_the_solver_of_attempt_one_per_status():
    assert report.answered_by(ROWS) == {("dsl", "solved"): 2, ("ttt", "solved"): 1, ("ttt", "unsolved"): 1,
                                        ("none", "timeout"): 1}


def test_times_and_solvers_figure_draws_the_solved_tasks_per_solver_and_the_budget():
    fig = report.plot_times_and_solvers(ROWS, budget_s=30)
    hist, bars = fig.axes
    assert [b.get_height() for b in bars.patches] == [2, 1]
    assert [t.get_text() for t in bars.get_xticklabels()] == ["dsl", "ttt"]
    assert sum(p.get_height() for p in hist.patches) == len(ROWS)  # a timed-out task counts at 0 s
    assert hist.lines[0].get_xdata()[0] == 30 and "budget 30 s" in hist.get_title()
