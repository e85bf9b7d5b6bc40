"""The mapping table's connected values (issue 33: ISS ``ConnectedValues`` over the grid), merged
into :data:`pipeline.core.iss_table.READERS` and :data:`~pipeline.core.iss_table.WRITERS`.

* ``ConnectedValues~~1_3_5_7_9`` -> ``connectedvalues`` (``values`` [1, 3, 5, 7, 9]);
  ``ConnectedValues~~4~10`` -> ``size`` 10. The first argument is the cells: empty for the whole
  grid, else a declared var-cell group's prefix (``ConnectedValues~VL~1`` -> ``group`` ``L``,
  written back as ``VL``). The values are the grid's values (ISS's ``0..N-1`` grids alike); ISS's
  ``,`` between values reads as ``_``.
"""
from __future__ import annotations

import re

from pipeline.core.iss_grid import IssArgError, IssGrid
from pipeline.core.iss_extra import iss_prefix
from pipeline.core.errors import clip

__all__ = ["READERS8", "WRITERS8"]


def _read_connected(args: list[str], grid: IssGrid) -> list[dict]:
    if len(args) not in (2, 3):
        raise IssArgError(f"expected a group, values and an optional size (ConnectedValues~~1_3_5), "
                          f"found {clip('~'.join(args), 40)!r}")
    if args[0] and args[0] not in grid.extra:
        declared = f"one of {', '.join(sorted(grid.extra)[:8])}" if grid.extra else "none is declared"
        raise IssArgError(f"the cells must be the whole grid (empty) or a declared var-cell group ({declared}), "
                          f"found {clip(args[0])!r}")
    text = args[1].replace(",", "_")
    if not re.fullmatch(r"-?[0-9]{1,4}(_-?[0-9]{1,4})*", text):
        raise IssArgError(f"expected values like 1_3_5, found {clip(args[1], 30)!r}")
    values = [int(v) for v in text.split("_")]
    entry: dict = {"rule": "connectedvalues", "values": values}
    if args[0]:
        entry["group"] = grid.extra[args[0]][0]
    if len(args) == 3 and args[2] != "":
        if not re.fullmatch(r"[0-9]{1,5}", args[2]) or int(args[2]) == 0:
            raise IssArgError(f"the size must be a positive whole number, found {clip(args[2])!r}")
        entry["size"] = int(args[2])
    return [entry]


def _write_connected(entry: dict, grid: IssGrid) -> list[str]:
    group = entry.get("group", "")
    prefix = iss_prefix(group, grid.implicit) if group else ""
    parts = ["ConnectedValues", prefix, "_".join(str(v) for v in entry["values"])]
    if entry.get("size"):
        parts.append(str(entry["size"]))
    return ["~".join(parts)]


READERS8 = {"ConnectedValues": _read_connected}
WRITERS8 = {"connectedvalues": _write_connected}
