"""Program synthesis by agents: curate -> generate -> verify -> union -> report.

`curate` writes task chunks (test outputs stripped), each with a prompt whose check runs
`verify` on the chunk itself (demos only); agents or the `synth` loop (a language model
through any backend; `sample` or `evolve` strategy) write programs; once they are done,
`verify --curated` runs every program in the sandbox on the demos and then the test outputs,
and unions the agents. `scripted` is a loopback model server for tests and notebook 08.
Programs travel in the program-file format (`shared.programs`); this module holds code
extraction from a model's reply.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.DOTALL)
_DEF_SOLVE = re.compile(r"^\s*def\s+solve\s*\(", re.MULTILINE)


def extract_code(reply: str) -> str | None:
    """The program in a model's reply: the last fenced block (```python preferred) that
    defines solve, else the whole text if it defines solve; None when there is none."""
    if not isinstance(reply, str):
        return None
    blocks = [(lang.lower(), body) for lang, body in _FENCE.findall(reply)]
    for wanted in (("python", "py", "python3"), None):
        for lang, body in reversed(blocks):
            if (wanted is None or lang in wanted) and _DEF_SOLVE.search(body):
                return body.strip("\n") + "\n"
    if _DEF_SOLVE.search(reply) and "```" not in reply:
        return reply.strip("\n") + "\n"
    opened = reply.rfind("```")  # a block the model never closed (it ran out of tokens)
    if opened >= 0 and reply.count("```") % 2 == 1:
        body = reply[opened + 3:].split("\n", 1)[-1]
        if _DEF_SOLVE.search(body):
            return body.strip("\n") + "\n"
    return None
