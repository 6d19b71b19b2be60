"""Loading and validation at the boundary; clean training sets."""

from __future__ import annotations

import json

import numpy as np
import pytest

from shared.grids import same
from shared.tasks import Task, TaskError, load, strip_test_outputs, training_for, write_kaggle

from .conftest import task_dict


def test_named_sets_load_offline():
    sizes = {"arc1/train": 400, "arc1/eval": 400, "arc2/train": 1000, "arc2/eval": 120}
    for name, n in sizes.items():
        ts = load(name)
        assert len(ts) == n, name
        assert all(t.has_solutions() for t in ts)
        assert ts[0].train[0].input.dtype == np.uint8


def test_folder_and_single_file(task_folder):
    folder, write = task_folder
    write("aa")
    write("bb")
    ts = load(folder)
    assert [t.id for t in ts] == ["aa", "bb"]
    one = load(folder / "aa.json")
    assert one[0].id == "aa" and one[0].test[0].output.tolist() == [[1, 2], [3, 4]]


def test_only_keeps_the_named_tasks_in_set_order_and_names_the_missing(task_folder):
    folder, write = task_folder
    for i in ("aa", "bb", "cc"):
        write(i)
    ts = load(folder)
    picked = ts.only(["cc", "aa"])
    assert [t.id for t in picked] == ["aa", "cc"] and picked.name == ts.name
    with pytest.raises(TaskError, match="task ids not in .*: dd, zz"):
        ts.only(["aa", "zz", "dd"])


def test_kaggle_challenges_with_solutions(tmp_path):
    ch = {"x1": {"train": task_dict()["train"], "test": [{"input": [[7]]}]}}
    (tmp_path / "ch.json").write_text(json.dumps(ch))
    (tmp_path / "sol.json").write_text(json.dumps({"x1": [[[1, 2], [3, 4]]]}))
    assert load(tmp_path / "ch.json")[0].test[0].output is None
    ts = load(tmp_path / "ch.json", solutions=tmp_path / "sol.json")
    assert ts[0].test[0].output.tolist() == [[1, 2], [3, 4]]
    (tmp_path / "bad_sol.json").write_text(json.dumps({"x1": []}))
    with pytest.raises(TaskError, match="task x1: 0 solutions for 1 test inputs"):
        load(tmp_path / "ch.json", solutions=tmp_path / "bad_sol.json")


def broken(kind: str) -> object:
    d = task_dict()
    if kind == "no_train":
        del d["train"]
    elif kind == "empty_test":
        d["test"] = []
    elif kind == "ragged":
        d["train"][1]["input"] = [[1, 2], [3]]
    elif kind == "colour":
        d["train"][0]["output"] = [[1, 10]]
    elif kind == "too_big":
        d["test"][0]["input"] = [[0] * 31]
    elif kind == "empty_grid":
        d["train"][0]["input"] = []
    elif kind == "string_cell":
        d["train"][0]["input"] = [["1"]]
    elif kind == "bool_cell":
        d["train"][0]["input"] = [[True]]
    elif kind == "not_object":
        d = [1, 2]
    elif kind == "no_output":
        del d["train"][1]["output"]
    return d


@pytest.mark.parametrize("kind,message", [
    ("no_train", "missing 'train'"),
    ("empty_test", "'test' is empty"),
    ("ragged", "train pair 1 input: not rectangular: row 1 has 1 cells, row 0 has 2"),
    ("colour", "train pair 0 output: cell (0,1) has colour 10, must be 0-9"),
    ("too_big", "test pair 0 input: 31 columns, must be 1..30"),
    ("empty_grid", "train pair 0 input: 0 rows"),
    ("string_cell", "cell (0,0) is '1', expected an integer colour"),
    ("bool_cell", "cell (0,0) is True"),
    ("not_object", "expected an object"),
    ("no_output", "train pair 1: missing 'output'"),
])
def test_bad_tasks_name_file_task_pair_problem(task_folder, kind, message):
    folder, write = task_folder
    write("bad", broken(kind))
    with pytest.raises(TaskError) as e:
        load(folder)
    assert message in str(e.value)
    assert str(folder / "bad.json") in str(e.value) and "task bad" in str(e.value)


def test_not_json_and_missing_path(tmp_path):
    (tmp_path / "x.json").write_text("{nope")
    with pytest.raises(TaskError, match="x.json: not valid JSON"):
        load(tmp_path / "x.json")
    with pytest.raises(TaskError, match="no such task set"):
        load(tmp_path / "absent")


def test_lenient_skips_and_reports(task_folder):
    folder, write = task_folder
    write("good")
    write("bad", broken("ragged"))
    ts = load(folder, lenient=True)
    assert [t.id for t in ts] == ["good"]
    assert len(ts.skipped) == 1 and "not rectangular" in ts.skipped[0]


def test_strip_test_outputs_keeps_demos():
    t = load("arc1/train")[0]
    s = strip_test_outputs(t)
    assert all(p.output is None for p in s.test)
    assert all(np.array_equal(a.output, b.output) for a, b in zip(s.train, t.train, strict=True))
    assert t.test[0].output is not None  # the original is untouched
    assert "output" not in s.to_json()["test"][0]


def test_training_for_removes_eval_by_id_and_content():
    ev = load("arc1/eval")
    clean = training_for(ev, "arc2/train")
    assert len(clean) == 1000 - 376
    ev_ids = {t.id for t in ev}
    ev_keys = {t.content_key() for t in ev}
    assert not {t.id for t in clean} & ev_ids
    assert not {t.content_key() for t in clean} & ev_keys


def test_training_for_catches_a_renamed_copy():
    ev = load("arc1/eval")[:3]
    copy = ev[1]
    renamed = Task("renamed", copy.train, copy.test)
    train = load("arc1/train")[:5]
    train.append(renamed)
    clean = training_for(ev, train)
    assert "renamed" not in {t.id for t in clean} and len(clean) == 5


def test_lenient_counts_the_test_inputs_of_skipped_tasks(tmp_path, task_folder):
    good = task_dict()
    ragged = broken("ragged")
    ragged["test"] = ragged["test"] * 3
    no_test_list = {"train": good["train"], "test": "?"}
    (tmp_path / "ch.json").write_text(json.dumps({"good": good, "ragged": ragged, "odd": no_test_list}))
    ts = load(tmp_path / "ch.json", lenient=True)
    assert [t.id for t in ts] == ["good"]
    assert ts.skipped_tests == {"ragged": 3, "odd": 1} and len(ts.skipped) == 2
    assert ts[:1].skipped_tests == ts.skipped_tests and ts[:1].skipped == ts.skipped  # a slice keeps them
    assert load(tmp_path / "ch.json", lenient=True, limit=1).skipped_tests == ts.skipped_tests
    # a task whose solutions do not fit is skipped with its own count; a folder's unreadable file counts 1
    (tmp_path / "sol.json").write_text(json.dumps({"good": []}))
    assert load(tmp_path / "ch.json", solutions=tmp_path / "sol.json", lenient=True).skipped_tests == \
        {"ragged": 3, "odd": 1, "good": 1}
    folder, write = task_folder
    write("fine")
    (folder / "torn.json").write_text("{nope")
    assert load(folder, lenient=True).skipped_tests == {"torn": 1}


def test_write_kaggle_round_trips_challenges_and_solutions(tmp_path):
    some = load("arc1/train")[:3]
    write_kaggle(some, tmp_path / "c.json", tmp_path / "s.json")
    challenges = json.loads((tmp_path / "c.json").read_text())
    assert all("output" not in p for t in challenges.values() for p in t["test"])  # nothing leaks
    back = load(tmp_path / "c.json", solutions=tmp_path / "s.json")
    assert [t.id for t in back] == [t.id for t in some]
    pairs = [(a, b) for t, u in zip(back, some, strict=True)
             for a, b in zip(t.test_outputs, u.test_outputs, strict=True)]
    assert pairs and all(same(a, b) for a, b in pairs)
    with pytest.raises(TaskError, match="no test outputs to write"):
        write_kaggle([strip_test_outputs(some[0])], tmp_path / "c2.json", tmp_path / "s2.json")
