"""Box shapes: ``HxW`` text or two sides -> ``(h, w)``, checked against the grid side, and the
default shape of an N x N grid. Split from :mod:`pipeline.core.parse` (which re-exports
:func:`default_box` and :func:`parse_box`, the names its callers import) to keep that module under
the 800-line limit; the grid parsers and :mod:`pipeline.core.clue_list` read a box through here.
"""
from __future__ import annotations

import math
import re

import numpy as np

from pipeline.core.errors import clip, PuzzleError

__all__ = ["default_box", "parse_box"]


def default_box(n: int) -> tuple[int, int]:
    """Box shape for an N x N grid: sqrt(N) x sqrt(N), else the most square h x w with h <= w."""
    h = max(d for d in range(1, math.isqrt(n) + 1) if n % d == 0)
    return h, n // h


def parse_box(text: str | tuple[int, int], n: int | None = None) -> tuple[int, int]:
    """Parse ``HxW`` (e.g. ``2x3``) and check that it tiles an N x N grid when N is known.

    Parameters
    ----------
    text : str or (int, int)
        ``HxW``, or the two sides (the API's ``box=(2, 3)``).
    n : int, optional
        The grid side the boxes must tile.

    Examples
    --------
    >>> parse_box("2x3"), parse_box((2, 3), 6)
    ((2, 3), (2, 3))
    """
    if isinstance(text, (tuple, list)):
        sides = [int(v) if isinstance(v, (int, np.integer)) and not isinstance(v, bool) else None for v in text]
        if len(sides) != 2 or None in sides:
            raise PuzzleError(f"box: {clip(repr(text), 30)} is not two whole sides (e.g. (3, 3) or \"2x3\")")
        text = f"{sides[0]}x{sides[1]}"
    # at most 9 digits a side: int() of thousands of digits is slow, then refused by Python
    m = re.fullmatch(r"\s*([0-9]{1,9})\s*[xX*]\s*([0-9]{1,9})\s*", str(text))
    if not m and re.fullmatch(r"\s*[0-9]+\s*[xX*]\s*[0-9]+\s*", str(text)):
        raise PuzzleError(f"box: {clip(text, 30)!r} has a side of more than 9 digits (a grid side is at most "
                          f"a few hundred)")
    if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1:
        raise PuzzleError(f"box: {clip(text, 30)!r} is not of the form HxW with sides from 1 (e.g. 3x3 or 2x3)")
    h, w = int(m.group(1)), int(m.group(2))
    if n is not None and h * w != n:
        raise PuzzleError(f"box: {h}x{w} boxes do not tile a {n}x{n} grid (h*w must be {n})")
    return h, w


def _resolve_box(box, n: int) -> tuple[int, int]:
    if box is None:
        return default_box(n)
    return parse_box(box, n)


def _box_n(box) -> int | None:
    if box is None:
        return None
    h, w = parse_box(box)
    return h * w
