"""The mapping table's chaos construction (issue 33), merged into
:data:`pipeline.core.iss_table.READERS` and :data:`~pipeline.core.iss_table.WRITERS`.

ISS gives a chaos construction a second lane of cells, ``CC<k>`` (``k`` row-major, 1-based: the
region label of grid cell ``k``); clues over them become keys of the puzzle's one ``chaos``
entry (:mod:`pipeline.core.rules.chaosclues`), which the first chaos item of the string creates and
the later ones extend (their readers then return no entry of their own).

* ``ChaosConstruction`` (no arguments) -> ``{"rule": "chaos"}``. ISS combines it with
  ``NoBoxes`` (a Latin square: ``latin``) or keeps the boxes; givens are ordinary givens.
* ``ChaosCount~CTRL[~offset[~cells]]`` -> ``counts``: ``CTRL``'s value is how many of the region
  cells share the first one's region, minus ``offset`` (0 or 1, empty 0). Without cells: ``CTRL``'s
  own region cell, then its up, down, left, right and four diagonal neighbours.
* ``ChaosArrow~CTRL[~offset[~arm~-~arm...]]`` -> ``arrows`` (arms split at ``-``, each from the
  same first cell). Without arms: from ``CTRL``'s region cell to the left, right, up and down edges.
* ``SameValues~K~cells`` / ``AllDifferent~cells`` over region cells only -> ``same`` (``K`` groups)
  / ``different``; over grid cells they keep their own readers, and a mix is refused.
* ``CountDistinct~CTRL~cells`` over region cells -> ``distinct`` (``CTRL``'s value is how many
  regions the cells meet); over grid cells -> the rule ``countdistinct`` (``CTRL``'s value is how
  many distinct values the cells hold: ISS's NValue handler).

* ``NFA~KEY~[_name~]cells`` whose cells include region cells -> ``automata`` (the line reads a
  region cell's region number, a grid cell's digit: region cells are ``@r2c2`` in ``cells``);
  :mod:`pipeline.core.iss_nfa` hands such a group here (:func:`region_automaton`).

The cells after a ``ChaosCount`` or ``ChaosArrow`` control cell are region cells (``CC<k>``): a
grid cell (``R1C2``) there is refused, as ISS refuses it (only its UI maps a selection of grid cells
to their region cells). The writer gives ``chaos`` back as ``ChaosConstruction`` followed by its
clues over ``CC`` cells.
"""
from __future__ import annotations

from typing import Callable
from urllib.parse import quote

from pipeline.core.iss_grid import CHAOS_CELL, IssArgError, IssGrid
from pipeline.core.errors import clip

__all__ = ["READERS_CHAOS", "WRITERS_CHAOS", "region_automaton", "region_cell", "region_readers"]



def region_cell(token: str, grid: IssGrid, what: str = "a chaos clue") -> str:
    """The document's name of an ISS region cell (``CC10`` on a 9x9 -> ``r2c1``).

    Parameters
    ----------
    token : str
        ``CC<k>`` (1-based, row-major); a grid cell id (``R2C1``) is refused, as ISS refuses it.
    grid : IssGrid
        The string's grid.
    what : str
        The constraint the messages name (``ChaosCount``).

    Returns
    -------
    str

    Raises
    ------
    IssArgError
        ``token`` is no region cell of the grid.
    """
    m = CHAOS_CELL.fullmatch(token)
    if m is None:
        r, c = grid.rc(token)   # a Var cell or no cell: its own message
        raise IssArgError(f"{clip(token)!r} is a grid cell where {what} takes region cells (CC<k>), as ISS "
                          f"reads it: write CC{r * grid.n + c + 1} for {clip(token)}")
    k = int(m.group(1))
    if not 1 <= k <= grid.n * grid.n:
        raise IssArgError(f"{clip(token)!r} is not a region cell of the {grid.n}x{grid.n} grid")
    r, c = divmod(k - 1, grid.n)
    return f"r{r + 1}c{c + 1}"


def _entry(grid: IssGrid) -> tuple[dict, list[dict]]:
    """The string's chaos entry, and the entries a reader returns (it, when just created)."""
    entry = vars(grid).get("_chaos_entry")
    if entry is not None:
        return entry, []
    entry = {"rule": "chaos"}
    vars(grid)["_chaos_entry"] = entry
    return entry, [entry]


def _offset(args: list[str]) -> int:
    text = args[1] if len(args) > 1 else ""
    if text not in ("", "0", "1"):
        raise IssArgError(f"offset {clip(text, 10)!r} is not 0 or 1")
    return int(text or 0)


def _steps(grid: IssGrid, rc: tuple[int, int], steps: list[tuple[int, int]]) -> list[str]:
    out = []
    for dr, dc in steps:
        r, c = rc[0] + dr, rc[1] + dc
        if 0 <= r < grid.n and 0 <= c < grid.n:
            out.append(f"r{r + 1}c{c + 1}")
    return out


def region_automaton(segments: list[list[str]], key: str, name: str, grid: IssGrid) -> list[dict]:
    """An NFA group over region cells (and grid cells) as an ``automata`` item of the chaos entry.

    Parameters
    ----------
    segments : list of list of str
        The group's ISS cell ids, split at ``-``; ``CC<k>`` reads a region number.
    key : str
        ISS's serialized automaton.
    name : str
        The group's name (may be empty).
    grid : IssGrid
        The string's grid.

    Returns
    -------
    list of dict
        The chaos entry when this created it, else nothing.
    """
    cells = [["@" + region_cell(t, grid) if CHAOS_CELL.fullmatch(t) else grid.cell(t) for t in seg]
             for seg in segments]
    item: dict = {"cells": cells[0] if len(cells) == 1 else cells, "nfa": key}
    if name:
        item["name"] = name
    entry, out = _entry(grid)
    entry.setdefault("automata", []).append(item)
    return out


def _read_chaos(args: list[str], grid: IssGrid) -> list[dict]:
    if args:
        raise IssArgError("ChaosConstruction takes no arguments")
    return _entry(grid)[1]


def _read_count(args: list[str], grid: IssGrid) -> list[dict]:
    if not args:
        raise IssArgError("expected the control cell")
    clue = grid.cell(args[0])
    cells = [region_cell(t, grid, "ChaosCount") for t in args[2:]]
    if not cells:
        cells = _steps(grid, grid.rc(args[0]), [(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1),
                                                (1, 1)])
    entry, out = _entry(grid)
    entry.setdefault("counts", []).append({"clue": clue, "cells": cells, "offset": _offset(args)})
    return out


def _read_arrow(args: list[str], grid: IssGrid) -> list[dict]:
    if not args:
        raise IssArgError("expected the control cell")
    clue = grid.cell(args[0])
    arms: list[list[str]] = [[]]
    for token in args[2:]:
        if token == "-":
            arms.append([])
        else:
            arms[-1].append(region_cell(token, grid, "ChaosArrow"))
    arms = [a for a in arms if a]
    if not arms:
        r0, c0 = grid.rc(args[0])
        arms = [_steps(grid, (r0, c0), [(0, -s) for s in range(grid.n)]),
                _steps(grid, (r0, c0), [(0, s) for s in range(grid.n)]),
                _steps(grid, (r0, c0), [(-s, 0) for s in range(grid.n)]),
                _steps(grid, (r0, c0), [(s, 0) for s in range(grid.n)])]
    entry, out = _entry(grid)
    entry.setdefault("arrows", []).append({"clue": clue, "arms": arms, "offset": _offset(args)})
    return out


def _region_tokens(tokens: list[str]) -> bool:
    """Are these region cells (all of them)? A mix of region and grid cells is refused."""
    cc = [bool(CHAOS_CELL.fullmatch(t)) for t in tokens]
    if any(cc) and not all(cc):
        raise IssArgError("mixes region cells (CC) and grid cells")
    return bool(cc) and all(cc)


def _or_region(iss_type: str, read: Callable[[list[str], IssGrid], list[dict]]) -> Callable[[list[str], IssGrid], list[dict]]:
    """``iss_type``'s reader, with region-cell arguments read as a chaos clue instead."""
    def reader(args: list[str], grid: IssGrid) -> list[dict]:
        if iss_type == "SameValues" and args and _region_tokens(args[1:]):
            # ASCII digits: int() takes any script's digits ('٣')
            if not (args[0].isascii() and args[0].isdigit()):
                raise IssArgError(f"group count {clip(args[0], 10)!r} is not a whole number")
            k = int(args[0])
            cells = [region_cell(t, grid) for t in args[1:]]
            if k < 2 or len(cells) % k:
                raise IssArgError(f"{len(cells)} region cells do not make {k} groups of one size")
            size = len(cells) // k
            entry, out = _entry(grid)
            entry.setdefault("same", []).append([cells[i * size:(i + 1) * size] for i in range(k)])
            return out
        if iss_type == "CountDistinct":
            if len(args) < 2:
                raise IssArgError("expected the clue cell and the cells it counts")
            if not _region_tokens(args[1:]):   # grid cells: the clue counts their distinct values
                return [{"rule": "countdistinct", "clue": grid.cell(args[0]),
                         "cells": list(dict.fromkeys(grid.cells(args[1:])))}]   # a repeat adds no value
            entry, out = _entry(grid)
            entry.setdefault("distinct", []).append({"clue": grid.cell(args[0]),
                                                     "cells": [region_cell(t, grid) for t in args[1:]]})
            return out
        if iss_type == "AllDifferent" and _region_tokens(args):
            entry, out = _entry(grid)
            entry.setdefault("different", []).append([region_cell(t, grid) for t in args])
            return out
        return read(args, grid)
    return reader


def _cc(name: str, grid: IssGrid) -> str:
    r, c = grid.rc(grid.to_iss(name))
    return f"CC{r * grid.n + c + 1}"


def _automaton_token(name: str, grid: IssGrid) -> str:
    return _cc(name[1:], grid) if name.startswith("@") else grid.to_iss(name)


def _write_chaos(entry: dict, grid: IssGrid) -> list[str]:
    items = ["ChaosConstruction"]
    for count in entry.get("counts", []):
        items.append("~".join(["ChaosCount", grid.to_iss(count["clue"]), str(count.get("offset", 0)),
                               *[_cc(c, grid) for c in count["cells"]]]))
    for arrow in entry.get("arrows", []):
        arms = "~-~".join("~".join(_cc(c, grid) for c in arm) for arm in arrow["arms"])
        items.append(f"ChaosArrow~{grid.to_iss(arrow['clue'])}~{arrow.get('offset', 0)}~{arms}")
    for groups in entry.get("same", []):
        items.append("~".join(["SameValues", str(len(groups)), *[_cc(c, grid) for g in groups for c in g]]))
    for cells in entry.get("different", []):
        items.append("~".join(["AllDifferent", *[_cc(c, grid) for c in cells]]))
    for item in entry.get("distinct", []):
        items.append("~".join(["CountDistinct", grid.to_iss(item["clue"]), *[_cc(c, grid) for c in item["cells"]]]))
    for item in entry.get("automata", []):
        cells = item["cells"]
        segments = cells if cells and isinstance(cells[0], list) else [cells]
        tokens = "~-~".join("~".join(_automaton_token(c, grid) for c in seg) for seg in segments)
        name = f"_{quote(item['name'], safe='!*()').replace('.', '%2E').replace('~', '%7E')}~" if item.get("name") else ""
        items.append(f"NFA~{item['nfa']}~{name}{tokens}")
    return items


#: ISS type -> reader, merged into :data:`pipeline.core.iss_table.READERS`.
READERS_CHAOS: dict[str, Callable[[list[str], IssGrid], list[dict]]] = {
    "ChaosConstruction": _read_chaos,
    "ChaosCount": _read_count,
    "ChaosArrow": _read_arrow,
}


def region_readers(readers: dict[str, Callable[[list[str], IssGrid], list[dict]]]
                   ) -> dict[str, Callable[[list[str], IssGrid], list[dict]]]:
    """The table's ``SameValues`` and ``AllDifferent`` readers (and ``CountDistinct``, which the
    table reads over grid cells only through this) with region-cell arguments read as chaos clues:
    entries that :mod:`pipeline.core.iss_table` merges after its other readers of those types.

    Parameters
    ----------
    readers : dict
        The table's readers so far.

    Returns
    -------
    dict
    """
    wrapped: dict[str, Callable[[list[str], IssGrid], list[dict]]] = {
        t: _or_region(t, readers[t]) for t in ("SameValues", "AllDifferent") if t in readers}
    if "CountDistinct" not in readers:      # the table reads no CountDistinct over grid cells (yet)
        wrapped["CountDistinct"] = _or_region("CountDistinct", readers["AllDifferent"])
    return wrapped


def _write_count_distinct(entry: dict, grid: IssGrid) -> list[str]:
    return ["~".join(["CountDistinct", grid.to_iss(entry["clue"]), *[grid.to_iss(c) for c in entry["cells"]]])]


#: Rule kind -> writer, merged into :data:`pipeline.core.iss_table.WRITERS`.
WRITERS_CHAOS: dict[str, Callable[[dict, IssGrid], list[str]]] = {"chaos": _write_chaos,
                                                                   "countdistinct": _write_count_distinct}
