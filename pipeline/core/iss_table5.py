"""The mapping table's look-and-say, rellik and equality cages, equal sums and value indexing
(issue 33), merged into :data:`pipeline.core.iss_table.READERS` and
:data:`~pipeline.core.iss_table.WRITERS`.

* ``LookAndSay~1223~cells`` -> ``lookandsay`` (the clue as written: (count, value) digit pairs).
* ``RellikCage~S~cells`` -> ``rellik`` (ISS's sum 0, the empty set's sum, is refused).
* ``EqualityCage~cells`` -> ``equalitycage`` (an even number of cells, as ISS requires).
* ``EqualSum~cells~-~cells...`` -> ``equalsum``: ``-`` separates the segments (an empty segment
  is refused).
* ``ValueIndexing~a~b~c1~...`` -> ``valueindexing`` (3 or more cells).

Values: the clue's values, the sums and the control cell's distances are ISS's values, which
are the document's values, so all five read and write on ``0..N-1`` grids as they are.
"""
from __future__ import annotations

import re

from pipeline.core.iss_grid import IssArgError, IssGrid
from pipeline.core.errors import clip

__all__ = ["READERS5", "WRITERS5"]

#: ISS's segment separator in a flat cell list.
SEPARATOR = "-"


def _read_look_and_say(args: list[str], grid: IssGrid) -> list[dict]:
    if len(args) < 2 or not re.fullmatch(r"([0-9][0-9])+", args[0]):
        raise IssArgError(f"expected a clue of (count, value) digit pairs and cells (LookAndSay~1223~R1C1), "
                          f"found {clip('~'.join(args), 40)!r}")
    return [{"rule": "lookandsay", "clue": args[0], "cells": grid.cells(args[1:])}]


def _write_look_and_say(entry: dict, grid: IssGrid) -> list[str]:
    return ["~".join(["LookAndSay", entry["clue"], *(grid.to_iss(c) for c in entry["cells"])])]


def _read_rellik(args: list[str], grid: IssGrid) -> list[dict]:
    if len(args) < 2 or not re.fullmatch(r"[0-9]{1,3}", args[0]):
        raise IssArgError(f"expected a sum and cells (RellikCage~5~R1C1~R1C2), found {clip('~'.join(args), 40)!r}")
    if int(args[0]) == 0:
        raise IssArgError("a rellik sum of 0 is the empty set's sum (ISS's cage then holds nothing)")
    return [{"rule": "rellik", "sum": int(args[0]), "cells": grid.cells(args[1:])}]


def _write_rellik(entry: dict, grid: IssGrid) -> list[str]:
    return ["~".join(["RellikCage", str(entry["sum"]), *(grid.to_iss(c) for c in entry["cells"])])]


def _read_equality(args: list[str], grid: IssGrid) -> list[dict]:
    cells = grid.cells(args, at_least=2)
    if len(cells) % 2:
        raise IssArgError(f"an equality cage needs an even number of cells, found {len(cells)}")
    return [{"rule": "equalitycage", "cells": cells}]


def _write_equality(entry: dict, grid: IssGrid) -> list[str]:
    return ["~".join(["EqualityCage", *(grid.to_iss(c) for c in entry["cells"])])]


def _read_equal_sum(args: list[str], grid: IssGrid) -> list[dict]:
    segments: list[list[str]] = [[]]
    for token in args:
        if token == SEPARATOR:
            segments.append([])
        else:
            segments[-1].append(token)
    if not args or any(not s for s in segments):
        raise IssArgError("expected segments of cells separated by '-' (EqualSum~R1C1~R1C2~-~R2C1), "
                          "found an empty one")
    return [{"rule": "equalsum", "segments": [grid.cells(s) for s in segments]}]


def _write_equal_sum(entry: dict, grid: IssGrid) -> list[str]:
    tokens: list[str] = []
    for k, segment in enumerate(entry["segments"]):
        tokens += ([SEPARATOR] if k else []) + [grid.to_iss(c) for c in segment]
    return ["~".join(["EqualSum", *tokens])]


def _read_value_indexing(args: list[str], grid: IssGrid) -> list[dict]:
    return [{"rule": "valueindexing", "cells": grid.cells(args, at_least=3)}]


def _write_value_indexing(entry: dict, grid: IssGrid) -> list[str]:
    return ["~".join(["ValueIndexing", *(grid.to_iss(c) for c in entry["cells"])])]


READERS5 = {"LookAndSay": _read_look_and_say, "RellikCage": _read_rellik, "EqualityCage": _read_equality,
            "EqualSum": _read_equal_sum, "ValueIndexing": _read_value_indexing}
WRITERS5 = {"lookandsay": _write_look_and_say, "rellik": _write_rellik, "equalitycage": _write_equality,
            "equalsum": _write_equal_sum, "valueindexing": _write_value_indexing}
