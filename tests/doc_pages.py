"""The README and the pages of ``docs/``: where a test finds a table or a section of the prose.

Tables moved out of the README into ``docs/*.md`` (issue 32) and may move again between pages;
the tests that compare a table with the code find it by its heading or header row on whichever
page holds it, and fail when no page or more than one does.
"""
from __future__ import annotations

import re
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
README = PROJECT / "README.md"
DOCS = PROJECT / "docs"


def pages() -> list[Path]:
    """README.md, then every ``docs/*.md`` in name order."""
    return [README, *sorted(DOCS.glob("*.md"))]


def page_with(marker: str) -> tuple[Path, str]:
    """``(path, text)`` of the one page that contains ``marker``.

    Parameters
    ----------
    marker : str
        Exact text, such as a table's header row.
    """
    found = [(path, path.read_text(encoding="utf-8")) for path in pages()]
    found = [(path, text) for path, text in found if marker in text]
    names = [str(path.relative_to(PROJECT)) for path, _ in found]
    assert len(found) == 1, f"{marker!r} should be on exactly one page of README.md and docs/, found on {names}"
    return found[0]


def section(heading: str) -> str:
    """The text under the heading ``heading`` (any level), up to the next heading of any level.

    Parameters
    ----------
    heading : str
        The heading's words, without the leading ``#`` marks.
    """
    pattern = re.compile(rf"^#+ {re.escape(heading)}[ \t]*$", re.M)
    hits = [(path, match) for path in pages()
            for match in pattern.finditer(path.read_text(encoding="utf-8"))]
    names = [str(path.relative_to(PROJECT)) for path, _ in hits]
    assert len(hits) == 1, f"heading {heading!r} should be on exactly one page, found on {names}"
    path, match = hits[0]
    return path.read_text(encoding="utf-8")[match.end():].split("\n#", 1)[0]
