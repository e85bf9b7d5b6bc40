"""Small text helpers shared by the batch modules."""
from __future__ import annotations

from pipeline.core.errors import bounded


def one_line(e: BaseException) -> str:
    """The first line of an exception's message (its type name when it has none)."""
    text = str(e).strip().splitlines()
    return bounded(text[0]) if text else type(e).__name__
