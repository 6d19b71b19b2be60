"""Shared fixtures: small tasks this project writes itself, and a folder to write them to."""

from __future__ import annotations

import ipaddress
import json
import os
import socket

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# tests build tiny models whose ops are too small to split: one thread each, so the two cores of
# a CI runner are not fought over by every test process and notebook kernel at once
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


_real_connect = socket.socket.connect


def _loopback_only(self, address):
    """Tests never reach the network: a connection anywhere but this machine fails loudly."""
    host = address[0] if isinstance(address, tuple) else None
    if host is not None:
        try:
            local = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            local = False
        if not local:
            raise OSError(f"test tried to reach {address!r}: tests must run offline")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    monkeypatch.setattr(socket.socket, "connect", _loopback_only)


def task_dict(solvable: bool = True) -> dict:
    """A two-demo task: every answer is the 2x2 block [[1,2],[3,4]] (so the scripted
    solver's 'first demo output' is right when solvable)."""
    block = [[1, 2], [3, 4]]
    return {
        "train": [{"input": [[0, 1], [1, 0]], "output": block},
                  {"input": [[5, 5, 5]], "output": block}],
        "test": [{"input": [[7]], "output": block if solvable else [[9]]}],
    }


@pytest.fixture
def task_folder(tmp_path):
    """Write tasks by id into a folder; returns (folder, write) where write(id, dict)."""
    folder = tmp_path / "tasks"
    folder.mkdir()

    def write(task_id: str, data: dict | None = None) -> None:
        (folder / f"{task_id}.json").write_text(json.dumps(data or task_dict()))

    return folder, write


class StepClock:
    """A stand-in for time.monotonic that moves on `step` seconds at every reading: code that stops
    at a deadline stops after a fixed number of readings, however loaded the machine is."""

    def __init__(self, step: float = 0.001):
        self.now, self.step = 1000.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.fixture
def step_clock(monkeypatch):
    """time.monotonic replaced by a StepClock (1 ms a reading) for the test's duration."""
    import time

    clock = StepClock()
    monkeypatch.setattr(time, "monotonic", clock)
    return clock


@pytest.fixture
def checkpoint_calls(monkeypatch):
    """The `use_reentrant` of every activation-checkpointed call transformers makes during the test."""
    import transformers.modeling_utils

    calls = []
    real = transformers.modeling_utils.checkpoint

    def counted(*args, **kwargs):
        calls.append(kwargs.get("use_reentrant"))
        return real(*args, **kwargs)

    monkeypatch.setattr(transformers.modeling_utils, "checkpoint", counted)
    return calls
