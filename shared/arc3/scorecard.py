"""Scoring ARC-AGI-3 plays: levels won, actions per level, and efficiency against a human.

Per level won, the ratio is the human's actions over the agent's (1.0: as few as the human;
below 1: more). A game's efficiency is the sum of those ratios, each capped at 1, over all its
levels, so a level not won counts 0 (the toolkit's own scorecard squares the ratio; we keep it
linear, easier to read). Games without a baseline get levels and actions only. Then a per-game
table, a summary, a plot and a report.md. Imports numpy only (matplotlib for the plot).
"""

from __future__ import annotations

from pathlib import Path


def game_score(row: dict) -> dict:
    """The efficiency fields of a played game's row: per-level ratios and the game's efficiency."""
    base, used = row.get("baseline_actions"), row.get("level_actions") or []
    if not base:
        return {"level_ratios": None, "efficiency": None}
    ratios = [round(b / a, 3) if a else None for b, a in zip(base, used, strict=False)]
    levels = row.get("win_levels") or len(base)
    return {"level_ratios": ratios, "efficiency": round(sum(min(1.0, r) for r in ratios if r) / levels, 3)}


def summarize(rows: list[dict], agent: str, max_actions: int, wall_s: float) -> dict:
    """A run's totals: games, levels won of all levels, actions, actions per level won, efficiency."""
    level_actions = [a for r in rows for a in r.get("level_actions") or []]
    scored = [r["efficiency"] for r in rows if r.get("efficiency") is not None]
    return {
        "agent": agent,
        "max_actions": max_actions,
        "n_games": len(rows),
        "games_won": sum(r["status"] == "won" for r in rows),
        "errors": sum(r["status"] == "error" for r in rows),
        "levels_won": sum(r["levels_completed"] for r in rows),
        "levels_total": sum(r["win_levels"] for r in rows),
        "actions": sum(r["actions"] for r in rows),
        "actions_per_level_won": round(sum(level_actions) / len(level_actions), 1) if level_actions else None,
        "mean_efficiency": round(sum(scored) / len(scored), 3) if scored else None,
        "wall_s": round(wall_s, 2),
        "games": {r["game_id"]: {k: r.get(k) for k in ("status", "levels_completed", "win_levels", "actions",
                                                       "level_actions", "baseline_actions", "efficiency")}
                  for r in rows},
    }


def closing_line(summary: dict) -> str:
    """`won X/Y levels in N actions (T s)`."""
    return (f"won {summary['levels_won']}/{summary['levels_total']} levels in {summary['actions']} actions "
            f"({summary['wall_s']:.1f} s)")


def table(rows: list[dict]) -> str:
    """One line per game: levels, actions, actions per level won against the human's, efficiency."""
    lines = [f"{'game':<6} {'agent':<9} {'status':<7} {'levels':>6} {'actions':>7}  {'per level (human)':<30} eff",
             "-" * 72]
    for r in rows:
        per = ", ".join(f"{a}({b})" for a, b in zip(r.get("level_actions") or [], r.get("baseline_actions") or [],
                                                    strict=False))
        if not r.get("baseline_actions"):
            per = ", ".join(str(a) for a in r.get("level_actions") or [])
        eff = "-" if r.get("efficiency") is None else f"{r['efficiency']:.2f}"
        lines.append(f"{r['game_id']:<6} {r['agent']:<9} {r['status']:<7} "
                     f"{r['levels_completed']:>3}/{r['win_levels']:<2} {r['actions']:>7}  {per or '-':<30} {eff}")
        if r.get("error"):
            lines.append(f"       error: {r['error']}")
    return "\n".join(lines)


def compare(summaries: list[dict]) -> str:
    """Agents side by side: levels won, actions, actions per level won, efficiency."""
    lines = [f"{'agent':<10} {'levels won':>10} {'actions':>8} {'per level won':>13} {'efficiency':>10}"]
    for s in summaries:
        per = "-" if s["actions_per_level_won"] is None else f"{s['actions_per_level_won']:.1f}"
        eff = "-" if s["mean_efficiency"] is None else f"{s['mean_efficiency']:.2f}"
        lines.append(f"{s['agent']:<10} {s['levels_won']:>5}/{s['levels_total']:<4} {s['actions']:>8} {per:>13} "
                     f"{eff:>10}")
    return "\n".join(lines)


def plot(rows_by_agent: dict[str, list[dict]], title: str = "ARC-AGI-3 scorecard"):
    """Per game: levels won (left) and actions per level won against the human's (right). A
    matplotlib Figure made without pyplot (so no backend is chosen for the caller); display() it."""
    from matplotlib.figure import Figure

    games = sorted({r["game_id"] for rows in rows_by_agent.values() for r in rows})
    fig = Figure(figsize=(11, 3.6))
    left, right = fig.subplots(1, 2)
    width = 0.8 / (len(rows_by_agent) + 1)
    for k, (agent, rows) in enumerate(rows_by_agent.items()):
        by_game = {r["game_id"]: r for r in rows}
        xs = [i + k * width for i in range(len(games))]
        left.bar(xs, [by_game[g]["levels_completed"] if g in by_game else 0 for g in games], width, label=agent)
        per = [by_game[g]["level_actions"] if g in by_game else [] for g in games]
        right.bar(xs, [sum(p) / len(p) if p else 0 for p in per], width, label=agent)
    human = {}
    for rows in rows_by_agent.values():
        human.update({r["game_id"]: r["baseline_actions"] for r in rows if r.get("baseline_actions")})
    xs = [i + len(rows_by_agent) * width for i in range(len(games))]
    right.bar(xs, [sum(human[g]) / len(human[g]) if g in human else 0 for g in games], width, label="human",
              color="0.6")
    for ax, name in ((left, "levels won"), (right, "actions per level won")):
        ax.set_xticks([i + width * len(rows_by_agent) / 2 for i in range(len(games))], games)
        ax.set_title(name)
        ax.legend(fontsize=8)
    right.set_yscale("log")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def write_report(rows: list[dict], summary: dict, out: Path) -> None:
    """report.md (summary and per-game table) and scorecard.png (when matplotlib is installed)."""
    text = [f"# ARC-AGI-3 run: agent {summary['agent']}", "", closing_line(summary), "",
            f"- games: {summary['n_games']} ({summary['games_won']} won, {summary['errors']} errors), "
            f"at most {summary['max_actions']} actions each",
            f"- actions per level won: {summary['actions_per_level_won']}",
            f"- mean efficiency against the human baseline: {summary['mean_efficiency']}", "",
            "```", table(rows), "```", ""]
    (out / "report.md").write_text("\n".join(text))
    try:
        fig = plot({summary["agent"]: rows}, title=f"ARC-AGI-3: {summary['agent']}")
    except ImportError:  # matplotlib is optional here: the table says it all
        return
    fig.savefig(out / "scorecard.png", dpi=90)
