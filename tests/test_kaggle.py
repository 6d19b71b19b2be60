"""Kaggle's input folder in both mount layouts, attached models, and the offline notebook run on
fake /kaggle/input trees: the test file found under any slug, a complete submission, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shared import build, kaggle, smoke
from shared.scoring import read_submission, validate_submission
from shared.tasks import load, strip_test_outputs

from .conftest import task_dict


def challenges_json(n: int = 1) -> str:
    """A Kaggle challenges file of n small tasks, test outputs left out."""
    d = task_dict()
    return json.dumps({f"t{i}": {"train": d["train"], "test": [{"input": p["input"]} for p in d["test"]]}
                       for i in range(n)})


def put(root: Path, rel: str, text: str = "{}") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_2025_layout_picks_the_test_file(tmp_path):
    put(tmp_path, "arc-prize-2025/arc-agi_training_challenges.json")
    put(tmp_path, "arc-prize-2025/arc-agi_evaluation_challenges.json")
    test = put(tmp_path, "arc-prize-2025/arc-agi_test_challenges.json")
    put(tmp_path, "some-dataset/notes.json")
    assert kaggle.find_challenges(tmp_path) == test
    assert kaggle.find_solutions(test) is None  # the test set comes without solutions


def test_2026_competitions_layout_with_decoys(tmp_path):
    comp = "competitions/arc-prize-2026"
    put(tmp_path, f"{comp}/arc-agi_training_challenges.json")
    put(tmp_path, f"{comp}/arc-agi_training_solutions.json")
    evaluation = put(tmp_path, f"{comp}/arc-agi_evaluation_challenges.json")
    solutions = put(tmp_path, f"{comp}/arc-agi_evaluation_solutions.json")
    test = put(tmp_path, f"{comp}/arc-agi_test_challenges.json")
    assert kaggle.find_challenges(tmp_path) == test
    assert kaggle.find_solutions(evaluation) == solutions


def test_several_test_files_the_newest_slug_wins_and_is_named(tmp_path, capsys):
    put(tmp_path, "arc-prize-2025/arc-agi_test_challenges.json")
    newest = put(tmp_path, "competitions/arc-prize-2026/data/arc-agi_test_challenges.json")
    assert kaggle.find_challenges(tmp_path) == newest
    out = capsys.readouterr().out
    assert "2 test challenges files" in out and f"using {newest}" in out


def test_only_an_evaluation_file_is_used_and_said_so(tmp_path, capsys):
    evaluation = put(tmp_path, "arc-agi-2/arc-agi_evaluation_challenges.json")
    assert kaggle.find_challenges(tmp_path) == evaluation
    assert "no test challenges file" in capsys.readouterr().out


def test_empty_tree_error_lists_where_it_looked(tmp_path):
    (tmp_path / "unrelated-dataset").mkdir()
    with pytest.raises(kaggle.KaggleInputError) as e:
        kaggle.find_challenges(tmp_path)
    assert isinstance(e.value, FileNotFoundError)
    msg = str(e.value)
    assert f"no ARC test challenges file under {tmp_path}" in msg
    for place in (f"{tmp_path}/*challenges*.json", f"{tmp_path}/*/*challenges*.json",
                  f"{tmp_path}/*/*/*challenges*.json"):
        assert place in msg
    assert "competitions/<slug>/" in msg and "unrelated-dataset" in msg


def test_training_files_alone_are_not_a_submission(tmp_path):
    training = put(tmp_path, "arc-prize-2025/arc-agi_training_challenges.json")
    with pytest.raises(kaggle.KaggleInputError, match="not used") as e:
        kaggle.find_challenges(tmp_path)
    assert str(training) in str(e.value)


def test_missing_root_says_so(tmp_path):
    with pytest.raises(kaggle.KaggleInputError, match="does not exist"):
        kaggle.find_challenges(tmp_path / "absent")


def test_find_model_dataset_and_kaggle_models_layouts(tmp_path):
    dataset = put(tmp_path, "my-qwen-weights/config.json").parent
    put(tmp_path, "my-qwen-weights/model.safetensors")
    models = put(tmp_path, "qwen2.5/transformers/0.5b-instruct/1/config.json").parent
    assert kaggle.find_model("my-qwen-weights", tmp_path) == dataset
    assert kaggle.find_model("0.5B-Instruct", tmp_path) == models  # case does not matter
    assert kaggle.find_model(str(dataset), tmp_path / "elsewhere") == dataset  # a path is used as is


def test_find_model_ambiguous_and_none_list_the_candidates(tmp_path):
    a = put(tmp_path, "my-qwen-weights/config.json").parent
    b = put(tmp_path, "qwen2.5/transformers/0.5b-instruct/1/config.json").parent
    with pytest.raises(kaggle.KaggleInputError, match="2 folders") as e:
        kaggle.find_model("qwen", tmp_path)
    assert str(a) in str(e.value) and str(b) in str(e.value)
    with pytest.raises(kaggle.KaggleInputError, match="'llama': not a path") as e:
        kaggle.find_model("llama", tmp_path)
    assert str(a) in str(e.value) and str(b) in str(e.value)
    with pytest.raises(FileNotFoundError, match="folders with a config.json: none"):
        kaggle.find_model("qwen", tmp_path / "absent")


def test_on_kaggle_reads_the_session_variable(monkeypatch):
    monkeypatch.setenv("KAGGLE_KERNEL_RUN_TYPE", "Batch")
    assert kaggle.on_kaggle()
    monkeypatch.delenv("KAGGLE_KERNEL_RUN_TYPE")
    assert kaggle.on_kaggle() == Path("/kaggle/input").exists()


# -- the notebook under papermill --------------------------------------------------------

@pytest.fixture(scope="module")
def kaggle_notebook(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("nb") / "kaggle_submission.ipynb"
    path.write_text(build.notebook_text(build.BUILDERS / "kaggle_submission.py"))
    return path


@pytest.mark.slow
def test_notebook_writes_a_complete_submission_from_a_2026_tree(kaggle_notebook, tmp_path, monkeypatch):
    # the inlined library lives in a fresh folder, so numba would compile every kernel again
    # (about 3 minutes cold); the compiled path is the other DSL tests' subject, the notebook's flow is this one's
    monkeypatch.setenv("ARC_DSL_PURE", "1")
    root, working = tmp_path / "input", tmp_path / "working"
    working.mkdir()
    chosen = load("arc1/train")[:3]
    challenges = put(root, "competitions/arc-prize-2026/arc-agi_test_challenges.json",
                     json.dumps({t.id: strip_test_outputs(t).to_json() for t in chosen}))
    put(root, "competitions/arc-prize-2026/arc-agi_training_challenges.json", challenges_json())
    executed = smoke.run_notebook(kaggle_notebook, out_dir=tmp_path / "executed",
                                  parameters={"KAGGLE_INPUT": str(root), "WORKING": str(working), "BUDGET_S": 2.0})
    sub = read_submission(working / "submission.json")
    assert set(sub) == {t.id for t in chosen}
    assert validate_submission(sub, load(challenges)) == []
    assert all(len(sub[t.id]) == len(t.test) and all(len(a) == 2 for a in sub[t.id]) for t in chosen)
    printed = "".join("".join(o.get("text", "")) for c in json.loads(executed.read_text())["cells"]
                      for o in c.get("outputs", []))
    assert f"3 tasks from {challenges}" in printed and "DEMO" not in printed


@pytest.mark.slow
def test_notebook_on_an_empty_tree_fails_naming_where_it_looked(kaggle_notebook, tmp_path):
    import papermill

    root = tmp_path / "input"
    root.mkdir()
    with pytest.raises(papermill.PapermillExecutionError) as e:
        smoke.run_notebook(kaggle_notebook, out_dir=tmp_path / "executed",
                           parameters={"KAGGLE_INPUT": str(root), "WORKING": str(tmp_path), "BUDGET_S": 2.0})
    assert "KaggleInputError" in str(e.value)
    assert f"no ARC test challenges file under {root}" in str(e.value)
    assert f"{root}/*/*/*challenges*.json" in str(e.value)
    assert not (tmp_path / "submission.json").exists()
