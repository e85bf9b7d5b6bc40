"""Region ids -> regions: the ids of a jigsaw's regions, one per cell (text, a file, an array or
a list), -> an (N, N) array of region numbers 0..N-1, and the most text the regions of a grid
may take. Split from :mod:`pipeline.core.parse` (which re-exports :func:`parse_regions`,
:func:`region_text_bytes` and :data:`REGION_BYTES_PER_CELL`) to keep that module under the
800-line limit.
"""
from __future__ import annotations

import re
from typing import Any, TypeAlias

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.source_text import _read_source
from pipeline.core.textin import MAX_TEXT_BYTES, too_much

#: What a regions argument may be: text, a path, ``"-"`` (stdin), an array or a list.
Source: TypeAlias = Any

__all__ = ["REGION_BYTES_PER_CELL", "parse_regions", "region_text_bytes"]


#: Bytes of region text per cell of the grid: an id and its separators, generously (a 3-digit id
#: padded to a column of 8, a CRLF line end); 64 KiB more for '#' comment lines.
REGION_BYTES_PER_CELL = 16


def region_text_bytes(n: int) -> int:
    """The most text the regions of an N x N grid may take (66,832 bytes for 9x9): a larger file is
    no regions of this grid and is refused by its size, unread (a 60 MB regions file of a 9x9
    puzzle took seconds and gigabytes to be found 5 million ids), at most :data:`MAX_TEXT_BYTES`.

    Parameters
    ----------
    n : int
        Grid side.

    Returns
    -------
    int
    """
    return min(MAX_TEXT_BYTES, n * n * REGION_BYTES_PER_CELL + 64 * 2 ** 10)


def parse_regions(source: Source, n: int) -> np.ndarray:
    """Region ids, one per cell row-major (string, path or array) -> (N, N) numbers 0..N-1.

    Ids may be compact characters (``0-9A-Z``; all in one word, or one word of ``N`` per row, the
    words on lines or separated by spaces, commas or semicolons) or separated integers; regions are numbered in
    the sorted order of their ids, so ids ``0..N-1`` or ``1..N`` keep their own numbering.

    Parameters
    ----------
    source : str, path, ndarray or list
        One id per cell, row-major (a list flat or of rows).
    n : int
        Grid side.
    """
    if isinstance(source, (list, tuple)):   # the API's list: as an array (its text was split as words)
        try:
            source = np.asarray(source)
        except ValueError:
            raise PuzzleError("regions: a list of ids is one per cell, flat or N lists of N (this one is "
                              "ragged)") from None
        if source.dtype.kind not in "iuU" or source.dtype == bool:
            raise PuzzleError(f"regions: a list holds integer or text ids, one per cell; found "
                              f"{clip(repr(source.ravel()[:1].tolist()), 30)}")
    if isinstance(source, np.ndarray):
        ids = source.ravel().astype(str)
    else:
        limit, why = region_text_bytes(n), f"the regions of a {n}x{n} grid are far smaller"
        text, where = _read_source(source, "regions", limit, why)
        if len(text) > limit:   # literal text (a document's, an argument): refused before it is split
            raise too_much("regions", where, limit, why)
        text = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
        tokens = re.split(r"[,;\s]+", text.strip())
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        # grid form: N lines (or N words, '0001 0111 2233 2233') of N compact ids each
        if len(tokens) == n > 1 and (len(lines) == n or all(len(tok) == n for tok in tokens)):
            short = [k for k, tok in enumerate(tokens) if len(tok) != n]
            if short and sum(len(tok) == n for tok in tokens) > n // 2:
                k = short[0]
                raise PuzzleError(f"regions: {where}: line {k + 1} has {len(tokens[k])} ids; expected {n}")
            if not short:
                tokens = list("".join(tokens))
        ids = np.array(tokens if len(tokens) > 1 else list(tokens[0]))
    if ids.size != n * n:
        raise PuzzleError(f"regions: expected {n * n} cells (one region id per cell), found {ids.size}")
    labels, numbers = np.unique(ids, return_inverse=True)
    if all(re.fullmatch(r"\d+", x) for x in labels):
        labels_numeric = np.array([int(x) for x in labels])
        numbers = np.argsort(np.argsort(labels_numeric))[numbers]
    if labels.size != n:
        raise PuzzleError(f"regions: expected {n} regions of {n} cells each, found {labels.size} distinct ids")
    counts = np.bincount(numbers, minlength=n)
    wrong = np.flatnonzero(counts != n)
    if wrong.size:
        g = wrong[0]
        label = str(labels[g] if not all(x.isdigit() for x in labels) else sorted(labels, key=int)[g])
        raise PuzzleError(f"regions: expected {n} regions of {n} cells each; region {label!r} has {counts[g]} cells")
    return numbers.reshape(n, n)
