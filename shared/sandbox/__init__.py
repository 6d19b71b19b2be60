"""Run untrusted `solve(grid)` programs in child processes and say what happened.

`run_program(code, inputs, expected)` runs one program on a shared one-worker pool;
`SandboxPool(workers=N)` keeps N reusable workers for throughput (`run`, `run_many`). Each
returns a `Verdict` (ok / wrong / error / timeout / memory / forbidden / bad_output / crash,
per input and overall) and never raises for anything the program does, nor hangs: the
parent kills a worker past its time limit.

What it covers. Each worker is a separate `python -I` process in its own session, with a
scrubbed environment (no keys, tokens or proxies of the parent), a fresh temporary working
directory (emptied after every call), and limits: wall and CPU time per call (default 3 s,
an in-child alarm first, then RLIMIT_CPU, then the parent's SIGKILL), address space
(default 512 MB over python + numpy), file size (16 MB), 64 open files, no core dumps,
RLIMIT_NPROC=0 (forks fail for non-root users). A `sys.addaudithook` hook refuses while the
program runs: subprocesses, os.system, fork/exec/spawn (and `_posixsubprocess`, which forks
without an audit event, is replaced by a refusing stub), signals to other processes,
sockets and URL/HTTP clients, ctypes, mmap, raising resource limits, gc introspection,
writes outside the temporary directory, and reads outside it except module sources and
binaries under sys.path (so imports work but task JSON, /etc or /proc cannot be read). Any
refusal makes the call `forbidden`, even if the program caught the exception; so does
replacing anything in builtins or numpy (undone before the next call). Programs see the
whole of Python's builtins and numpy, and get a fresh copy of each input grid as a list of
lists of ints. A pool may preload a library (`SandboxPool(library="dsl")`: the DSL primitives,
which printed DSL programs import); it is imported before the hook, inputs then come as uint8
arrays, module sources under it become readable, and a program that replaces one of its
names, a function's code or defaults, or changes a module-level dict, list, set or array is
`forbidden` (undone, the worker replaced); objects nested deeper in the library are not
watched. Outputs are validated in the child and again in the parent; expected grids never
reach the child; replies are JSON with a size cap (no pickle), so a subverted worker cannot
run code in the parent. A worker that broke a rule, changed shared state (signal handlers,
stdout, a thread left running), timed out, ran out of memory or died is replaced.

What it does not cover. An audit-hook sandbox is defence in depth, not a security boundary
against a determined attacker: there is no seccomp filter, namespace, container or separate
user. Code that reaches C directly (reloading an extension module through importlib
internals, crafted bytecode, a known interpreter bug) or walks frames to the worker's
internals can escape the hook, and as root RLIMIT_NPROC does not stop forks. Threads are not
refused (they only retire the worker). Invalid *input* grids are the caller's bug and raise
`shared.tasks.TaskError`. Run programs from sources you would not trust with your account
inside a container or VM as well.
"""

from shared.sandbox.pool import DEFAULT_MEMORY_MB, DEFAULT_TIME_S, LIBRARIES, Job, SandboxPool, default_pool
from shared.sandbox.verdict import STATUSES, Outcome, Verdict, worst

__all__ = ["DEFAULT_MEMORY_MB", "DEFAULT_TIME_S", "LIBRARIES", "STATUSES", "Job", "Outcome", "SandboxPool", "Verdict",
           "default_pool", "task_job", "run_program", "worst"]


def task_job(code: str, task, test_outputs: bool = True) -> Job:
    """One verification of a program on a task: every demo input, then every test input.

    Expected grids are the demo outputs, then the test outputs when `test_outputs` is set
    and the task has them (None otherwise: the program only has to return a valid grid).
    """
    inputs = [p.input for p in task.train] + [p.input for p in task.test]
    expected = [p.output for p in task.train] + [p.output if test_outputs else None for p in task.test]
    return Job(code, inputs, expected)


def run_program(code: str, inputs: list, expected: list | None = None) -> Verdict:
    """Run `solve` from `code` on each input grid in a sandbox worker; compare with `expected`."""
    return default_pool().run(code, inputs, expected)
