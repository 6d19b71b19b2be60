"""The command line: `python -m shared <command> [args]`.

Each command lives in the module that owns the idea and exposes `main(argv) -> int`; it is
imported only when called, so `solve --solver dsl` never pays for torch.
"""

from __future__ import annotations

import importlib
import sys

COMMANDS = {
    "solve": ("shared.bench", "run a solver over a task set into a run folder"),
    "score": ("shared.scoring", "score a submission.json against a task set's solutions"),
    "build": ("shared.build", "write notebooks/ from builders/ (deterministic)"),
    "smoke": ("shared.smoke", "run every notebook under papermill with PROFILE='smoke'"),
    "report": ("shared.report", "rewrite report.html for a run folder"),
    "serve": ("shared.web", "serve the solve-by-hand and run-browser page on 127.0.0.1"),
    "human-report": ("shared.human", "a person's results from the page: solved within 2 and 3 attempts, time"),
    "curate": ("shared.agents.curate", "chunk tasks (test outputs stripped) into files for coding agents"),
    "verify": ("shared.agents.verify", "verify agents' solve() programs in the sandbox; union and report"),
    "synth": ("shared.agents.synth", "program synthesis with a language model: sample, verify, revise"),
    "sandbox-bench": ("shared.sandbox.bench", "program verifications per second: sandbox vs plain exec"),
    "throughput": ("shared.train.throughput", "training and generation tokens/s of a profile's model"),
    "gpu-check": ("shared.gpu_check", "the CUDA path end to end: dtype, training, 4-bit, TTT (no hub)"),
    "dsl-bench": ("shared.solvers.dsl.bench", "states per second of the DSL search, time to exhaust depths 2 and 3"),
    "dsl-headroom": ("shared.solvers.dsl.headroom", "the DSL solver's misses: right answers ranked low, or none found"),
    "play": ("shared.arc3.harness", "play an agent over ARC-AGI-3 games offline (Python >= 3.12, arc-agi, arcengine)"),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: python -m shared <command> [args]",
             "   or: arc-suite <command> [args]   (the same, as the console command `pip install` puts on PATH)",
             "", "commands:"]
    lines += [f"  {name:<{width}}  {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "python -m shared <command> --help: that command's arguments"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    return int(module.main(rest) or 0)


if __name__ == "__main__":
    sys.exit(main())
