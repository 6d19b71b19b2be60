"""Probes find a property that is linearly present and not one that is absent.

Two settings: synthetic activations with one property planted along a direction (every probe
in turn), and the tiny model's real hidden states on tasks whose answer property is planted in
the prompt (the test input's colour decides it) while another property is left independent.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from shared.interpret import probes  # noqa: E402
from shared.tasks import Pair, Task  # noqa: E402

N, DIM = 300, 32


def random_labels(rng) -> dict[str, np.ndarray]:
    """Independent labels for the three probed properties (n_colours has 4 classes)."""
    return {"same_size": rng.integers(0, 2, N), "n_colours": rng.integers(1, 5, N), "symmetric": rng.integers(0, 2, N)}


@pytest.mark.parametrize("planted", probes.PROPERTIES)
def test_each_probe_finds_its_planted_property_and_not_the_absent_ones(planted):
    rng = np.random.default_rng(1)
    labels = random_labels(rng)
    features = rng.normal(size=(N, DIM))
    # one direction per class of the planted property, small against the noise of 32 dimensions
    directions = rng.normal(size=(5, DIM))
    features += 1.5 * directions[labels[planted]]
    for name, y in labels.items():
        res = probes.fit_probe(features, y, name, seed=0)
        if name == planted:
            assert res.heldout_accuracy >= 0.9, res
            assert res.heldout_accuracy - res.chance >= 0.3, res
        else:
            # absent: no better than the majority rate, give or take sampling noise on 90 tasks
            assert res.heldout_accuracy <= res.chance + 0.12, res


def test_probe_split_is_seeded_and_disjoint():
    tr, te = probes.split(50, 0.3, seed=3)
    assert set(tr).isdisjoint(te) and len(tr) + len(te) == 50 and len(te) == 15
    assert (probes.split(50, 0.3, seed=3)[1] == te).all()


def test_task_properties():
    g = lambda rows: np.array(rows, dtype=np.uint8)  # noqa: E731
    t = Task("t", (), (Pair(g([[1, 2], [3, 4]]), g([[1, 2, 1], [3, 3, 3]])),))
    assert probes.task_properties(t) == {"same_size": 0, "n_colours": 3, "symmetric": 1}
    t = Task("t", (), (Pair(g([[1, 2], [3, 4]]), g([[5, 6], [6, 6]])),))
    assert probes.task_properties(t) == {"same_size": 1, "n_colours": 2, "symmetric": 0}


def planted_tasks(n: int, seed: int = 0) -> list[Task]:
    """Tasks whose answer has the same size as the input exactly when the test input is colour 3
    (else colour 7): the property is in the prompt. Symmetry of the answer is a coin flip."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        same = bool(rng.integers(2))
        colour = 3 if same else 7
        inp = np.full((3, 3), colour, dtype=np.uint8)
        inp[rng.integers(3), rng.integers(3)] = rng.integers(10)
        answer = rng.integers(0, 10, (3, 3) if same else (2, 4)).astype(np.uint8)
        if rng.integers(2):
            answer[:, -1] = answer[:, 0]  # left-right mirror
            if answer.shape[1] == 4:
                answer[:, 2] = answer[:, 1]
        demo = Pair(np.full((2, 2), 5, dtype=np.uint8), np.full((2, 2), 5, dtype=np.uint8))
        out.append(Task(f"p{i}", (demo,), (Pair(inp, answer),)))
    return out


def test_probes_on_the_tiny_models_hidden_states_find_the_planted_property_only():
    from shared.models import load_model

    model, tok = load_model("tiny", device="cpu")
    tasks = planted_tasks(100)
    emb = probes.task_embeddings(model, tok, tasks)
    assert emb.shape == (100, model.config.num_hidden_layers + 1, model.config.hidden_size)
    labels = probes.property_labels(tasks)
    res = probes.probe_layers(emb, {k: labels[k] for k in ("same_size", "symmetric")})
    present = max(r.heldout_accuracy for r in res["same_size"])
    assert present >= 0.95, res["same_size"]
    for r in res["symmetric"]:
        assert r.heldout_accuracy <= r.chance + 0.1, r
