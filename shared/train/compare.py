"""Side-by-side tables of bench runs for the training notebooks (pandas DataFrames).

`per_task_table` puts each task's status and seconds from several runs in one row (with and
without TTT); `runs_table` puts one run per row with its accuracy and any measured extras
(teacher vs student: tokens/s, parameters).
"""

from __future__ import annotations


def per_task_table(runs: dict[str, list[dict]]):
    """One row per task: `<run> solved` (True/False/None when not scored) and `<run> s` for each run."""
    import pandas as pd

    ids: list[str] = []
    for rows in runs.values():
        ids += [r["task_id"] for r in rows if r["task_id"] not in ids]
    table = pd.DataFrame(index=pd.Index(ids, name="task"))
    for name, rows in runs.items():
        by_id = {r["task_id"]: r for r in rows}
        table[f"{name} solved"] = [_solved(by_id.get(i)) for i in ids]
        table[f"{name} s"] = [by_id[i]["time_s"] if i in by_id else None for i in ids]
    return table


def _solved(row: dict | None):
    if row is None or row["status"] in ("unscored",):
        return None
    return row["status"] == "solved"


def runs_table(summaries: dict[str, dict], extras: dict[str, dict] | None = None):
    """One row per named run: tasks, solved, pass@2, mean seconds per task, then any extra columns."""
    import pandas as pd

    rows = []
    for name, s in summaries.items():
        row = {"run": name, "tasks": s["n_tasks"], "solved": s["solved"], "pass@2": s["pass_at_2"],
               "s/task": s["time_per_task_s"]["mean"]}
        row.update((extras or {}).get(name, {}))
        rows.append(row)
    return pd.DataFrame(rows).set_index("run")
