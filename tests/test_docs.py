"""The project's own Markdown pages link only to files that exist, and to anchors those files define."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["README.md", "QUICK_START.md", "RESULTS-HISTORY.md"]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def local_links(text: str) -> list[str]:
    """The link targets of a Markdown text that point into the repository (not a web address, not mail)."""
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


def anchors(text: str) -> set[str]:
    """The anchors a page defines with `<a id="...">`."""
    return set(re.findall(r'<a id="([^"]+)"', text))


def test_local_links_finds_files_and_anchors_and_skips_web_addresses():
    text = "see [a](notes.md#part), [b](https://example.org/x), [c](dir/f.ipynb) and [d](mailto:x@y)"
    assert local_links(text) == ["notes.md#part", "dir/f.ipynb"]
    assert anchors('<a id="part"></a> and <a id="other"></a>') == {"part", "other"}


@pytest.mark.parametrize("page", PAGES)
def test_every_local_link_of_a_page_resolves(page):
    text = (ROOT / page).read_text()
    broken = []
    for target in local_links(text):
        path, _, anchor = target.partition("#")
        file = (ROOT / page).parent / path if path else ROOT / page
        if not file.exists():
            broken.append(f"{target}: no file {path}")
        elif anchor and anchor not in anchors(file.read_text()):
            broken.append(f"{target}: {path or page} defines no anchor {anchor!r}")
    assert not broken, f"{page}: " + "; ".join(broken)
