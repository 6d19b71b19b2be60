"""Distillation: the KL term, a student that moves toward its teacher, and the sequence-level path."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("peft")

import shared.models  # noqa: E402
from shared.models import load_model, tiny_tokenizer  # noqa: E402
from shared.tasks import Pair, Task  # noqa: E402
from shared.train import data, distill, sft  # noqa: E402

g = lambda rows: np.array(rows, dtype=np.uint8)  # noqa: E731


def shift_task() -> Task:
    train = tuple(Pair(g([[i, 0, 0]]), g([[0, 0, i]])) for i in range(1, 5))
    return Task("shift", train, ())


def test_kl_is_zero_for_equal_logits_and_counts_answer_tokens_only():
    logits = torch.randn(2, 6, 11)
    labels = torch.full((2, 6), data.IGNORE)
    labels[:, 4:] = 3
    assert float(distill.kl_loss(logits, logits, labels)) == pytest.approx(0.0, abs=1e-6)
    other = logits.clone()
    other[:, :2] += torch.randn(2, 2, 11) * 5  # positions 0-1 predict prompt tokens: ignored
    assert float(distill.kl_loss(other, logits, labels)) == pytest.approx(0.0, abs=1e-6)
    other[:, 3] += torch.randn(2, 11) * 5  # position 3 predicts the first answer token
    assert float(distill.kl_loss(other, logits, labels)) > 0.01
    wider = torch.cat([logits, torch.randn(2, 6, 5)], -1)  # a padded embedding table: extra columns cut off
    assert float(distill.kl_loss(wider, logits, labels)) == pytest.approx(0.0, abs=1e-6)


def test_the_student_is_smaller_and_moves_toward_the_teacher(tmp_path):
    teacher, tok = load_model("tiny", device="cpu")
    student = distill.tiny_student(tok)
    assert student.num_parameters() < teacher.num_parameters() / 2
    assert distill.tokenizers_match(tok, tiny_tokenizer())
    fixed = data.build_examples([shift_task()], tok, "plain", max_len=512)
    batch = data.collate(fixed.items, tok.pad_token_id)
    # a teacher with views of its own: random tied-embedding models both echo their input
    sft.train(teacher, tok, fixed, tmp_path / "teacher", steps=6, batch_size=len(fixed), lr=1e-2, save_steps=100)

    def measure():
        on = lambda model: {k: v.to(next(model.parameters()).device) for k, v in batch.items()}  # noqa: E731
        with torch.no_grad():
            s, t = student(**on(student)).logits.cpu(), teacher(**on(teacher)).logits.cpu()
        return distill.agreement(s, t, batch["labels"]), float(distill.kl_loss(s, t, batch["labels"]))

    agree0, kl0 = measure()
    result = distill.distill_logits(student, teacher, tok, fixed, tmp_path / "run", steps=12,
                                    batch_size=len(fixed), lr=1e-2, alpha=0.0, save_steps=100)
    agree1, kl1 = measure()
    assert result.global_step == 12
    assert kl1 < kl0 * 0.8, (kl0, kl1)
    assert agree1 > agree0, (agree0, agree1)


def test_different_tokenizers_distill_on_the_teachers_answers(tmp_path, monkeypatch):
    teacher, teacher_tok = load_model("tiny", device="cpu")
    student_tok = tiny_tokenizer()
    student_tok.add_tokens(["<extra>"])  # a vocabulary the teacher does not share
    assert not distill.tokenizers_match(student_tok, teacher_tok)
    answers = iter(["00\n12<|endoftext|>", "not a grid"] * 10)
    monkeypatch.setattr(shared.models, "greedy_generate", lambda *a, **k: next(answers))
    student = distill.tiny_student(teacher_tok)
    student.resize_token_embeddings(len(student_tok))
    result, note = distill.distill(student, student_tok, teacher, teacher_tok, [shift_task()], tmp_path / "seq",
                                   steps=2, batch_size=2, lr=1e-3, max_len=512)
    assert note["method"] == "sequences" and note["teacher_unparsed"] == 2 and note["examples"] == 2
    assert result.global_step == 2
    ex = distill.sequence_examples(teacher, teacher_tok, student_tok, "plain", [shift_task()], 512)[0]
    target = [t for t, m in zip(ex[0]["input_ids"], ex[0]["completion_mask"], strict=True) if m]
    assert student_tok.decode(target, skip_special_tokens=True) == "00\n12"
