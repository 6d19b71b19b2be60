"""Every interpretability view on the tiny model: the numbers behind it agree with the model,
and each plot draws those numbers (image arrays, bar heights, line data, titles; Agg backend)."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

torch = pytest.importorskip("torch")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from shared.formats import build_prompt  # noqa: E402
from shared.interpret import agreement, attention, compare, confidence, errors, lens, patching, probes  # noqa: E402
from shared.interpret.capture import capture, example_text  # noqa: E402
from shared.models import load_model  # noqa: E402
from shared.tasks import Pair, Task  # noqa: E402

g = lambda rows: np.array(rows, dtype=np.uint8)  # noqa: E731


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def bars(container) -> list[float]:
    return [float(p.get_height()) for p in container]


def drawn(ax) -> np.ndarray:
    """The array of the first image on `ax` (a heatmap)."""
    return np.asarray(ax.images[0].get_array())


@pytest.fixture(scope="module")
def tiny():
    return load_model("tiny", device="cpu")


def small_task(k: int = 0) -> Task:
    """Recolour 1 -> 2 on 2x3 grids; demos 0 and 1 share a shape (patchable)."""
    demos = (Pair(g([[1, 0, 1], [0, 1, 0]]), g([[2, 0, 2], [0, 2, 0]])),
             Pair(g([[0, 0, 1], [1, 1, 0]]), g([[0, 0, 2], [2, 2, 0]])),
             Pair(g([[1, 1], [0, 1]]), g([[2, 2], [0, 2]])))
    test = (Pair(g([[1, 0, k % 2], [1, 1, 0]]), g([[2, 0, 2 * (k % 2)], [2, 2, 0]])),)
    return Task(f"small{k}", demos, test)


def test_attention_from_output_cells_to_input_cells(tiny):
    model, tok = tiny
    task = small_task()
    w = attention.output_to_input_attention(model, tok, task)
    cfg = model.config
    assert w.shape == (cfg.num_hidden_layers, cfg.num_attention_heads, 6, 2, 3)
    sums = w.sum(axis=(3, 4))
    assert (w >= 0).all() and (sums > 0).all() and (sums <= 1 + 1e-5).all()
    fig = attention.plot_attention(model, tok, task, cell=(0, 1))
    layers, heads = w.shape[:2]
    axes = np.array(fig.axes).reshape(layers, heads + 2)  # per layer: test input, output, then one map a head
    for li in range(layers):
        for hi in range(heads):
            from_cell = w[li, hi, 1]  # output cell (0, 1) of a 2x3 grid
            np.testing.assert_allclose(drawn(axes[li, 2 + hi]), from_cell, rtol=1e-6)
            assert axes[li, 2 + hi].get_title() == f"L{li} H{hi}  {from_cell.sum():.2f}"
    assert "from output cell (0, 1)" in fig.get_suptitle()


def test_attention_restores_the_attention_kernel(tiny):
    model, tok = tiny
    before = model.config._attn_implementation
    attention.output_to_input_attention(model, tok, small_task())
    assert model.config._attn_implementation == before


def test_logit_lens_last_layer_is_the_models_own_prediction(tiny):
    model, tok = tiny
    task = small_task()
    probs, labels = lens.logit_lens(model, tok, task)
    prompt, completion = example_text(tok, task, 0, "plain")
    cap = capture(model, tok, prompt, completion)
    assert probs.shape == (model.config.num_hidden_layers + 1, len(cap.answer_ids)) == (3, len(labels))
    np.testing.assert_allclose(probs[-1], cap.token_logprobs().exp().numpy(), rtol=1e-4, atol=1e-6)
    fig = lens.plot_logit_lens(model, tok, task)
    ax = fig.axes[0]
    np.testing.assert_allclose(drawn(ax), probs, rtol=1e-6)
    assert [t.get_text() for t in ax.get_xticklabels()] == labels
    assert [t.get_text() for t in ax.get_yticklabels()] == ["emb", "L1", "L2"]


def test_cell_confidence_matches_token_probabilities(tiny):
    model, tok = tiny
    task = small_task()
    conf = confidence.cell_confidence(model, tok, task, task.test[0].output)
    assert conf.shape == (2, 3)
    labels, loss = confidence.token_losses(model, tok, task, task.test[0].output)
    digits = [i for i, c in enumerate(labels) if c.isdigit()]
    np.testing.assert_allclose(conf.reshape(-1), np.exp(-loss[digits]), rtol=1e-4)
    assert labels[-1] == "eos"
    wrong = confidence.perturb(task.test[0].output)
    fig = confidence.plot_cell_confidence(model, tok, task, wrong)
    np.testing.assert_allclose(drawn(fig.axes[1]), confidence.cell_confidence(model, tok, task, wrong), rtol=1e-6)
    assert [t.get_text() for t in fig.axes[2].texts] == ["x"]  # the one perturbed cell is crossed
    (r, c), = zip(*np.nonzero(wrong != task.test[0].output), strict=True)
    assert fig.axes[2].texts[0].get_position() == (c, r)
    none = confidence.plot_cell_confidence(model, tok, task, None)
    assert [t.get_text() for t in none.axes[1].texts] == ["no parseable answer"] and not none.axes[1].images


def test_perturb_changes_exactly_one_cell():
    grid = g([[1, 2], [3, 4]])
    assert (confidence.perturb(grid, seed=5) != grid).sum() == 1


def test_entropy_along_generation_is_bounded(tiny):
    model, tok = tiny
    labels, ent = confidence.generation_entropy(model, tok, "input:\n1\noutput:\n", 6)
    assert 0 < len(ent) == len(labels) <= 6
    assert ((ent >= 0) & (ent <= np.log(model.config.vocab_size) + 1e-4)).all()
    task = small_task()
    _, task_ent = confidence.generation_entropy(model, tok, build_prompt(tok, task, 0, "plain"), 6)
    ax = confidence.plot_entropy(model, tok, task, 6).axes[0]
    np.testing.assert_allclose(ax.lines[0].get_ydata(), task_ent, rtol=1e-6)
    assert list(ax.lines[1].get_ydata()) == [pytest.approx(np.log(model.config.vocab_size))] * 2  # uniform
    fig = confidence.plot_token_loss(model, tok, task)
    for ax, grid in zip(fig.axes, (task.test[0].output, confidence.perturb(task.test[0].output)), strict=True):
        _, loss = confidence.token_losses(model, tok, task, grid)
        np.testing.assert_allclose(bars(ax.containers[0]), loss, rtol=1e-5)
        assert f"total {loss.sum():.1f} nats" in ax.get_title()


def test_agreement_pools_views(tiny, monkeypatch):
    model, tok = tiny
    import shared.decoding

    monkeypatch.setattr(shared.decoding, "generate_batch", lambda m, t, prompts, n: ["not a grid"] * len(prompts))
    a = agreement.augmentation_agreement(model, tok, small_task(), 4, 8)
    assert (a.unparsed, a.share, a.answers) == (4, 0.0, [])
    # every view answers "0": mapped back through each view's inverse, the answers are pooled by grid
    monkeypatch.setattr(shared.decoding, "generate_batch", lambda m, t, prompts, n: ["0"] * len(prompts))
    a = agreement.augmentation_agreement(model, tok, small_task(), 4, 8)
    assert sum(v for _, v in a.answers) == 4 and a.unparsed == 0
    assert a.share == max(v for _, v in a.answers) / 4
    ax = agreement.plot_agreement([a]).axes[0]
    heights = [bars(c)[0] for c in ax.containers]
    assert heights == [v for _, v in a.answers] + [0]  # one stacked bar a distinct answer, then the unparseable
    assert [p.get_y() for c in ax.containers for p in c] == list(np.cumsum([0] + heights[:-1]))


def test_patching_restores_exactly_at_the_one_differing_input_cell(tiny):
    model, tok = tiny
    # demos 0 and 1 differ in one cell of their inputs only
    demos = (Pair(g([[1, 0, 1], [0, 1, 0]]), g([[2, 0, 2], [0, 2, 0]])),
             Pair(g([[1, 0, 1], [0, 1, 1]]), g([[2, 0, 2], [0, 2, 2]])),
             Pair(g([[1, 1], [0, 1]]), g([[2, 2], [0, 2]])))
    task = Task("one-cell", demos, ())
    assert patching.patchable_pair(task) == (0, 1)
    res = patching.activation_patching(model, tok, task, 0, 1)
    assert res.effect.shape == (model.config.num_hidden_layers + 1, len(res.labels))
    differing = [i for i, lab in enumerate(res.labels) if lab.isdigit()][5]  # row 1, col 2
    np.testing.assert_allclose(res.effect[0, differing], 1.0, atol=1e-4)
    np.testing.assert_allclose(np.delete(res.effect[0], differing), 0.0, atol=1e-4)
    chunked = patching.activation_patching(model, tok, task, 0, 1, batch_size=3)
    np.testing.assert_allclose(chunked.effect, res.effect, atol=1e-4)
    sparse = patching.activation_patching(model, tok, task, 0, 1, max_positions=4)
    assert sparse.effect.shape == (res.effect.shape[0], 4) and sparse.labels[0] == res.labels[0]
    assert patching.smallest_patchable([Task("none", demos[2:], ()), task, small_task()]).id == "one-cell"
    fig = patching.plot_patching(model, tok, task)
    np.testing.assert_allclose(drawn(fig.axes[0]), res.effect, atol=1e-4)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == res.labels


def test_patching_refuses_a_task_without_two_pairs_of_one_shape(tiny):
    model, tok = tiny
    task = Task("t", (Pair(g([[1]]), g([[2]])), Pair(g([[1, 1]]), g([[2, 2]]))), ())
    assert patching.patchable_pair(task) is None
    with pytest.raises(ValueError, match="no two demo pairs"):
        patching.plot_patching(model, tok, task)


def test_error_taxonomy_orders_the_ways_a_grid_goes_wrong():
    exp = [[1, 2], [2, 1]]
    assert errors.classify([exp], exp) == "correct"
    assert errors.classify([[[1, 2]]], exp) == "size"
    assert errors.classify([[[1, 3], [2, 1]]], exp) == "colours"
    assert errors.classify([[[2, 1], [2, 1]]], exp) == "cells"
    assert errors.classify([], exp, parsed=[False, False]) == "unparseable"
    assert errors.classify([], exp, parsed=[True]) == "no answer"
    rows = [{"status": "unsolved", "expected": [exp], "attempts": [[[[1, 2]]]], "trace": {"parsed": [[True]]},
             "task": {"test": [{}]}},
            {"status": "error", "expected": [exp], "attempts": [[]], "trace": {}, "task": {"test": [{}, {}]}}]
    assert errors.error_taxonomy(rows) == {"size": 1, "error": 2}
    ax = errors.plot_error_taxonomy({"a": rows, "b": rows}, title="stages").axes[0]
    assert {c.get_label(): bars(c) for c in ax.containers} == {"size": [1, 1], "error": [2, 2]}
    assert ax.get_title() == "stages" and [t.get_text() for t in ax.get_xticklabels()] == ["a", "b"]


def test_probe_and_pca_plots():
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(20, 3, 8))
    res = probes.probe_layers(emb, {"same_size": rng.integers(0, 2, 20).tolist()})
    assert len(res["same_size"]) == 3
    held, chance = probes.plot_probes(res).axes[0].lines
    assert list(held.get_ydata()) == [r.heldout_accuracy for r in res["same_size"]]
    assert list(chance.get_ydata()) == [r.chance for r in res["same_size"]]
    labels = rng.integers(0, 2, 20)
    xy = probes.pca(emb[:, -1])
    assert xy.shape == (20, 2)
    ax = probes.plot_pca(emb[:, -1], labels, "same_size").axes[0]
    assert [c.get_label() for c in ax.collections] == ["same_size=0", "same_size=1"]
    for value, points in enumerate(ax.collections):
        np.testing.assert_allclose(points.get_offsets(), xy[labels == value])


def test_stage_comparison(tiny):
    model, tok = tiny
    tasks = [small_task(k) for k in range(4)]
    m = compare.stage_measures(model, tok, tasks[:1], max_new_tokens=4, n_views=2, probe_tasks=tasks)
    assert len(m["logit_lens"]) == model.config.num_hidden_layers + 1
    assert m["loss_correct"] > 0 and 0 <= m["agreement"] <= 1 and set(m["probes"]) == set(probes.PROPERTIES)
    table = compare.stage_table({"base": m, "sft": m})
    assert list(table.index) == ["base", "sft"] and "probe same_size" in table.columns
    rows = [{"status": "solved", "expected": [[[1]]], "attempts": [[[[1]]]], "trace": {}, "task": {"test": [{}]}}]
    axes = compare.plot_stages({"base": m, "sft": m}, {"base": rows, "sft": rows}).axes
    assert len(axes) == 5 and [line.get_label() for line in axes[0].lines] == ["base", "sft"]
    assert all(list(line.get_ydata()) == list(m["logit_lens"]) for line in axes[0].lines)
    assert [bars(c) for c in axes[1].containers] == [[m["loss_correct"]] * 2, [m["loss_incorrect"]] * 2]
    assert [bars(c) for c in axes[2].containers] == [[m["cell_confidence"]] * 2, [m["agreement"]] * 2]
    assert {c.get_label(): bars(c) for c in axes[3].containers} == {p: [m["probes"][p]] * 2 for p in m["probes"]}
    assert {c.get_label(): bars(c) for c in axes[4].containers} == {"correct": [1, 1]}
