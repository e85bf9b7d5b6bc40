"""The mapping table's global rules of issue 33 (``GlobalEntropy``, ``GlobalMod``,
``AntiTaxicab``, ``DutchFlatmates``, ``Doppelganger``, ``RegionSameValues``), merged into
:data:`pipeline.core.iss_table.READERS` and :data:`~pipeline.core.iss_table.WRITERS`.

Each type takes no argument and reads as the global rule of the same name (``globalentropy``,
``globalmod``, ``antitaxicab``, ``dutchflatmates``, ``doppelganger``, ``regionsamevalues``).
The grids ISS accepts each on are checked both ways, so a string read or written here is one
ISS itself takes: ``GlobalEntropy`` the values ``1..9``, ``GlobalMod`` nine values,
``AntiTaxicab`` values from 1, ``DutchFlatmates`` the values ``1..9``, ``Doppelganger`` the values ``0..N`` on an
``N x N`` grid (ISS ``9x9~0-9``); ``RegionSameValues`` any grid.
"""
from __future__ import annotations

from typing import Callable

from pipeline.core.iss_grid import IssArgError, IssGrid
from pipeline.core.errors import clip

__all__ = ["READERS6", "WRITERS6", "GLOBALS6"]


def _nine_from_one(grid: IssGrid) -> str | None:
    return None if grid.values == tuple(range(1, 10)) else "the values 1-9"


def _nine(grid: IssGrid) -> str | None:
    return None if len(grid.values) == 9 else "nine values"


def _from_one(grid: IssGrid) -> str | None:
    return None if grid.values[0] == 1 else "values from 1"


def _zero_to_n(grid: IssGrid) -> str | None:
    return None if grid.values == tuple(range(grid.n + 1)) else f"the values 0-{grid.n} (ISS {grid.n}x{grid.n}~0-{grid.n})"


def _any(grid: IssGrid) -> str | None:
    return None


#: ISS type -> (rule kind, the grid check: None when ISS takes the grid, else what it needs).
GLOBALS6: dict[str, tuple[str, Callable[[IssGrid], str | None]]] = {
    "GlobalEntropy": ("globalentropy", _nine_from_one),
    "GlobalMod": ("globalmod", _nine),
    "AntiTaxicab": ("antitaxicab", _from_one),
    "DutchFlatmates": ("dutchflatmates", _nine_from_one),   # ISS: numValues 9, valueOffset 0
    "Doppelganger": ("doppelganger", _zero_to_n),
    "RegionSameValues": ("regionsamevalues", _any),
}


def _check(iss_type: str, grid: IssGrid) -> None:
    need = GLOBALS6[iss_type][1](grid)
    if need is not None:
        shown = f"{grid.values[0]}-{grid.values[-1]}" if grid.values else "none"
        raise IssArgError(f"ISS's {iss_type} needs {need}; this grid's values are {shown}")


def _reader(iss_type: str) -> Callable[[list[str], IssGrid], list[dict]]:
    def read(args: list[str], grid: IssGrid) -> list[dict]:
        if args:
            raise IssArgError(f"takes no arguments, found {clip('~'.join(args), 40)!r}")
        _check(iss_type, grid)
        return [{"rule": GLOBALS6[iss_type][0]}]
    return read


def _writer(iss_type: str) -> Callable[[dict, IssGrid], list[str]]:
    def write(entry: dict, grid: IssGrid) -> list[str]:
        _check(iss_type, grid)
        return [iss_type]
    return write


#: ISS type -> reader, merged into :data:`pipeline.core.iss_table.READERS`.
READERS6: dict[str, Callable[[list[str], IssGrid], list[dict]]] = {t: _reader(t) for t in GLOBALS6}

#: Rule kind -> writer, merged into :data:`pipeline.core.iss_table.WRITERS`.
WRITERS6: dict[str, Callable[[dict, IssGrid], list[str]]] = {kind: _writer(t) for t, (kind, _) in GLOBALS6.items()}
