"""Candidates from verified programs: the `programs` solver.

Given program files (`shared.programs`: what agents or `synth` wrote, or a run folder), a
task's programs run in the sandbox on its demos and test inputs; a program is verified when
it reproduces every demo pair and returns a valid grid for every test input. Per test input,
the verified programs' outputs are grouped, and the 2 most agreed-on distinct grids are the
attempts (ties: the program listed first). Tasks without a verified program get no attempt.
"""

from __future__ import annotations

from shared.grids import Grid, same
from shared.programs import read_programs
from shared.solvers import MAX_ATTEMPTS, Prediction
from shared.tasks import Task

TRACE_PROGRAMS = 8  # per-program verdicts kept in a trace


def rank_outputs(outputs: list[list[Grid]], k: int = MAX_ATTEMPTS) -> tuple[list[list[Grid]], list[list[int]]]:
    """outputs[p][i] = program p's grid for test input i -> (per test input the k most agreed
    distinct grids, and their vote counts). Ties keep the first-seen grid first."""
    n_tests = len(outputs[0]) if outputs else 0
    attempts, votes = [], []
    for i in range(n_tests):
        groups: list[list] = []  # [grid, votes, first index]
        for p, per_test in enumerate(outputs):
            g = per_test[i]
            match = next((grp for grp in groups if same(grp[0], g)), None)
            if match is None:
                groups.append([g, 1, p])
            else:
                match[1] += 1
        groups.sort(key=lambda grp: (-grp[1], grp[2]))
        attempts.append([grp[0] for grp in groups[:k]])
        votes.append([grp[1] for grp in groups[:k]])
    return attempts, votes


class ProgramsSolver:
    """solve(task) -> attempts from the programs for task.id that pass every demo pair.

    programs: a program file or a folder of them. time_limit_s: sandbox limit per program
    run (all demos and test inputs). workers: sandbox workers this solver keeps. library: one
    the sandbox preloads for the programs to import ("dsl").
    """

    name = "programs"

    def __init__(self, programs: str, time_limit_s: float = 3.0, workers: int = 1, library: str | None = None):
        from shared.sandbox import SandboxPool

        self.source = str(programs)
        self.by_task: dict[str, list] = {}
        for prog in read_programs(programs):
            self.by_task.setdefault(prog.task_id, []).append(prog)
        self.pool = SandboxPool(workers=workers, time_limit_s=time_limit_s, library=library)

    def solve(self, task: Task, budget_s: float | None = None) -> Prediction:
        from shared.sandbox import task_job

        progs = self.by_task.get(task.id, [])
        # test outputs are never given to programs or used here: only validity is checked
        verdicts = self.pool.run_many([task_job(p.code, task, test_outputs=False) for p in progs])
        n_demo = len(task.train)
        verified = [(p, v) for p, v in zip(progs, verdicts, strict=True)
                    if v.status == "ok" and all(o.status == "ok" for o in v.outcomes)]
        outputs = [[o.output for o in v.outcomes[n_demo:]] for _, v in verified]
        attempts, votes = rank_outputs(outputs) if outputs else ([[] for _ in task.test], [])
        # the program behind the first attempts, for reports
        top = next((p for p, out in zip([p for p, _ in verified], outputs, strict=True)
                    if all(same(g, a[0]) for g, a in zip(out, attempts, strict=True))), None)
        trace = {
            "program": top.code if top else "",
            "n_programs": len(progs),
            "n_verified": len(verified),
            "votes": votes,
            "verdicts": [{"source": p.source, "index": p.index, **v.to_json()}
                         for p, v in list(zip(progs, verdicts, strict=True))[:TRACE_PROGRAMS]],
        }
        return Prediction(attempts, trace)

    def close(self) -> None:
        self.pool.close()
