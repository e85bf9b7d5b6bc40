"""The mapping table's full rank, sum lines and lunchboxes (issue 33), merged into
:data:`pipeline.core.iss_table.READERS` and :data:`~pipeline.core.iss_table.WRITERS`.

* ``FullRank~R3~A~B``: the rank ``A`` of row 3 read from the left (a column: from the top), ``B``
  from the right (the bottom), either left empty -> one ``fullrank`` entry per clue, its ``clue``
  the outside place at that end (as :mod:`pipeline.core.iss_table3` places a skyscraper).
* ``FullRankTies~only-unclued|any|none`` -> ``fullrankties`` with ``ties`` ``unclued``, ``any``
  or ``none``.
* ``SumLine~S~cells[~LOOP]`` -> ``sumline`` (``loop`` when the last argument is ``LOOP``).
* ``Lunchbox~S~cells``: over a whole row or column in order on a ``1..N`` grid it stays the
  ``sandwich`` that :mod:`pipeline.core.iss_table3` reads (the same meaning: the row's smallest
  and largest are its 1 and ``N``); over any other cells -> ``lunchbox``.

Values: ranks compare digits in the grid's order, sums add ISS's values; all four read and
write on ``0..N-1`` grids too.
"""
from __future__ import annotations

from typing import Callable

from pipeline.core.iss_grid import IssArgError, IssGrid
from pipeline.core.iss_table3 import READERS3, clue_line, clue_place
from pipeline.core.errors import clip

__all__ = ["READERS4", "WRITERS4", "ISS_TIES"]

#: ISS's FullRankTies option -> the document's ``ties``.
ISS_TIES = {"only-unclued": "unclued", "any": "any", "none": "none"}


def _int(text: str, what: str) -> int:
    try:
        if not text.isascii():   # int() takes any script's digits ('١٠' is 10)
            raise ValueError(text)
        return int(text)
    except ValueError:
        raise IssArgError(f"{what} {clip(text)!r} is not a whole number") from None


def _read_full_rank(args: list[str], grid: IssGrid) -> list[dict]:
    if len(args) not in (2, 3):
        raise IssArgError(f"expected a row or column and one or two ranks (R3~A~B), found {len(args)} argument(s)")
    clue_place(args[0], 1, grid.n)   # the line is checked even when both ranks are empty
    return [{"rule": "fullrank", "clue": clue_place(args[0], direction, grid.n), "rank": _int(text, "rank")}
            for direction, text in zip((1, -1), args[1:]) if text]


def _write_full_rank(entry: dict, grid: IssGrid) -> list[str]:
    line, direction = clue_line(entry["clue"], grid.n)
    ranks = [str(entry["rank"]), ""] if direction == 1 else ["", str(entry["rank"])]
    return ["~".join(["FullRank", line, *ranks]).rstrip("~")]


def _read_ties(args: list[str], grid: IssGrid) -> list[dict]:
    if len(args) != 1 or args[0] not in ISS_TIES:
        raise IssArgError(f"expected one of {', '.join(ISS_TIES)}, found {clip('~'.join(args), 40)!r}")
    return [{"rule": "fullrankties", "ties": ISS_TIES[args[0]]}]


def _write_ties(entry: dict, grid: IssGrid) -> list[str]:
    back = {v: k for k, v in ISS_TIES.items()}
    return [f"FullRankTies~{back[entry['ties']]}"]


def _read_sum_line(args: list[str], grid: IssGrid) -> list[dict]:
    if len(args) < 2:
        raise IssArgError("expected a sum and cells (SumLine~10~R1C1~R1C2)")
    loop = args[-1] == "LOOP"
    cells = grid.cells(args[1:-1] if loop else args[1:])
    entry: dict = {"rule": "sumline", "cells": cells, "sum": _int(args[0], "sum")}
    if loop:
        entry["loop"] = True
    return [entry]


def _write_sum_line(entry: dict, grid: IssGrid) -> list[str]:
    cells = [grid.to_iss(c) for c in entry["cells"]]
    return ["~".join(["SumLine", str(entry["sum"]), *cells, *(["LOOP"] if entry.get("loop") else [])])]


def _lunchbox_reader(whole_line: Callable[[list[str], IssGrid], list[dict]] | None
                     ) -> Callable[[list[str], IssGrid], list[dict]]:
    """A Lunchbox reader: the earlier table's (a whole row or column as a sandwich) when it
    reads the item, else a ``lunchbox`` entry."""
    def read(args: list[str], grid: IssGrid) -> list[dict]:
        if whole_line is not None:
            try:
                return whole_line(args, grid)
            except IssArgError:
                pass
        if not args:
            raise IssArgError("expected a sum and cells")
        total = _int(args[0], "sum") if args[0] else 0
        return [{"rule": "lunchbox", "cells": grid.cells(args[1:], 2), "sum": total}]
    return read


def _write_lunchbox(entry: dict, grid: IssGrid) -> list[str]:
    return ["~".join(["Lunchbox", str(entry["sum"]), *(grid.to_iss(c) for c in entry["cells"])])]


#: ISS type -> reader, merged into :data:`pipeline.core.iss_table.READERS`.
READERS4: dict[str, Callable[[list[str], IssGrid], list[dict]]] = {
    "FullRank": _read_full_rank,
    "FullRankTies": _read_ties,
    "SumLine": _read_sum_line,
    "Lunchbox": _lunchbox_reader(READERS3["Lunchbox"]),
}

#: Rule kind -> writer, merged into :data:`pipeline.core.iss_table.WRITERS`.
WRITERS4: dict[str, Callable[[dict, IssGrid], list[str]]] = {
    "fullrank": _write_full_rank,
    "fullrankties": _write_ties,
    "sumline": _write_sum_line,
    "lunchbox": _write_lunchbox,
}
