"""Agreement of answers across augmentations: the same task under several views, answers mapped back.

A model that has the rule gives the same grid whatever the rotation, colour permutation or demo
order; one that guesses scatters. Agreement is the share of views that give the most common
answer (unparseable answers count as views that disagree).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from shared.augment import random_augmentations
from shared.formats import build_prompt, parse_grid
from shared.grids import Grid, same
from shared.interpret.capture import style_of
from shared.tasks import Task


@dataclass
class Agreement:
    task_id: str
    n_views: int
    answers: list[tuple[Grid, int]] = field(default_factory=list)  # distinct grids and their votes, most first
    unparsed: int = 0
    correct: list[bool] = field(default_factory=list)  # per distinct grid, when the output is known

    @property
    def share(self) -> float:
        """Votes of the most common answer over all views."""
        return self.answers[0][1] / self.n_views if self.answers else 0.0


def augmentation_agreement(model, tokenizer, task: Task, n_views: int, max_new_tokens: int, test_index: int = 0,
                           style: str | None = None, seed: int = 0) -> Agreement:
    """Answer `task` under `n_views` augmentations (identity first) and pool the answers."""
    from shared.decoding import generate_batch

    style = style_of(model, tokenizer, style)
    augs = random_augmentations(task, n_views, seed=seed)
    prompts = [build_prompt(tokenizer, a.apply(task), test_index, style) for a in augs]
    texts = generate_batch(model, tokenizer, prompts, max_new_tokens)
    out = Agreement(task.id, len(augs))
    for aug, text in zip(augs, texts, strict=True):
        grid = parse_grid(text)
        if grid is None:
            out.unparsed += 1
            continue
        grid = aug.invert_grid(grid)
        for k, (g, votes) in enumerate(out.answers):
            if same(g, grid):
                out.answers[k] = (g, votes + 1)
                break
        else:
            out.answers.append((grid, 1))
    out.answers.sort(key=lambda gv: -gv[1])
    expected = task.test[test_index].output
    if expected is not None:
        out.correct = [same(g, expected) for g, _ in out.answers]
    return out


def plot_agreement(agreements: list[Agreement], show: int = 4):
    """Left: per task, votes of each distinct answer stacked (green: the right one) and the
    unparseable views; right: the answers of the first task, with their votes."""
    import matplotlib.pyplot as plt

    from shared.report import draw_grid

    first = agreements[0]
    shown = first.answers[:show]
    fig = plt.figure(figsize=(4 + 1.8 * max(1, len(shown)), 3.4))
    grid_spec = fig.add_gridspec(1, 1 + max(1, len(shown)), width_ratios=[3] + [1] * max(1, len(shown)))
    ax = fig.add_subplot(grid_spec[0])
    for x, a in enumerate(agreements):
        bottom = 0
        for k, (_, votes) in enumerate(a.answers):
            right = bool(a.correct and a.correct[k])
            ax.bar(x, votes, bottom=bottom, color="#2ECC40" if right else "#0074D9", edgecolor="white")
            bottom += votes
        ax.bar(x, a.unparsed, bottom=bottom, color="#AAAAAA", edgecolor="white")
    ax.set_xticks(range(len(agreements)), [a.task_id[:8] for a in agreements], rotation=30, fontsize=7)
    ax.set_ylabel("views")
    ax.set_title("answers per view (stacked: distinct grids; grey: unparseable; green: right)", fontsize=8)
    for k, (g, votes) in enumerate(shown):
        draw_grid(fig.add_subplot(grid_spec[1 + k]), g, f"{votes}/{first.n_views} views")
    if not shown:
        empty = fig.add_subplot(grid_spec[1])
        empty.axis("off")
        empty.text(0.5, 0.5, "no parseable answer", ha="center", va="center", fontsize=8)
    fig.suptitle(f"agreement across augmentations; {first.task_id}: {first.share:.0%} on the top answer")
    fig.tight_layout()
    return fig
