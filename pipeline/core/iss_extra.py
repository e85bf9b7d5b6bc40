"""ISS's extra cells (``Var``, issue 33) both ways: ``.Var~PREFIX~label~size`` declares cells
``VPREFIX1..`` (``VPREFIX`` for one cell; size a count or ``RxC``) outside the grid.

The document names the group ``PREFIX`` (``"extra": [{"name": "S", "size": 9}]``, cells
``S1..S9``: :mod:`pipeline.core.extracells`) and each ISS id ``VS3`` reads as ``S3``; the writer
gives each group its ``Var`` item back and writes its cells as ``VS3``. Cells other constraints
declare themselves (Doppelganger's ``DGR``/``DGC``/``DGB``) keep their ISS prefix as the group's
name (:data:`IMPLICIT_GROUPS`) and get no ``Var`` item.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Iterable

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.extracells import ExtraGroup
from pipeline.core.parse import default_box

__all__ = ["iss_extra_groups", "iss_var_items", "iss_extra_name", "iss_extra_ids", "iss_extra_place", "iss_extra_id",
           "iss_extra_at", "iss_prefix", "iss_prefixes", "doc_to_iss_extra", "IMPLICIT_GROUPS", "doppel_link_rules", "is_doppel_link", "extra_adjacent_pairs"]

#: Groups an ISS constraint declares by itself: the constraint type and its groups' prefixes.
IMPLICIT_GROUPS = {"Doppelganger": ("DGB", "DGC", "DGR")}
#: A cell of an implicit group named in a constraint's arguments (``DGC2``).
_NAMES_IMPLICIT = re.compile(r"(?<![A-Za-z])DG[RCB][0-9]")
_ID = re.compile(r"^([A-Z]{1,9})([0-9]{0,5})$")
_SIZE = re.compile(r"^(?:([1-9][0-9]{0,3})x)?([1-9][0-9]{0,3})$")


def iss_extra_groups(items: Iterable[Any], n: int, where: str,
                     cols: int | None = None) -> tuple[list[dict], dict[str, tuple[str, int, int]]]:
    """The document's ``"extra"`` list of an ISS string's ``Var`` items, and how ISS ids map to
    it: ISS prefix (``VS``) -> (group name ``S``, cells).

    Parameters
    ----------
    items : iterable
        The string's items (``.type`` and ``.args``), in order.
    n : int
        Grid side (Doppelganger's groups have ``n`` cells).
    where : str
        How messages name the string.
    cols : int, optional
        The grid's columns (default ``n``): cells a row of a group declared by a count, as ISS
        lays it (its ``VarCellRegistry`` takes the grid's ``numCols``, fewer than the values on
        a grid taller than wide).

    Returns
    -------
    tuple
        ``(extra entries, prefix map)`` (prefix -> group name, cells, cells a row); both empty
        without ``Var``.

    Raises
    ------
    PuzzleError
        A bad prefix or a prefix declared twice.
    """
    entries: list[dict] = []
    prefixes: dict[str, tuple[str, int, int]] = {}
    for item in items:
        if item.type == "Var":
            args = list(item.args) + ["", "", ""]   # ISS fills what is left out: no args at all is an empty prefix
            prefix, label, size = args[0], args[1], args[2]
            if not re.fullmatch(r"[A-Z]{1,7}", prefix):
                raise PuzzleError(f"{where}: ISS: Var prefix must be 1 to 7 capital letters, found {clip(prefix)!r}")
            m = _SIZE.match(size)   # ISS: anything else means one cell
            count = (int(m.group(1) or 1) * int(m.group(2))) if m else 1
            columns = int(m.group(2)) if m and m.group(1) else 0
            entry: dict = {"name": prefix, "size": f"{count // columns}x{columns}" if columns else count}
            if label:
                entry["label"] = label
            key = "V" + prefix
        elif item.type in IMPLICIT_GROUPS:
            # Doppelganger's DGR/DGC/DGB cells become extra cells only when a constraint names one:
            # a plain Doppelganger stays the one rule (and writes back as it was read)
            if not any(_NAMES_IMPLICIT.search("~".join(map(str, other.args))) for other in items
                       if other.type not in IMPLICIT_GROUPS):
                continue
            for key in IMPLICIT_GROUPS[item.type]:
                if key not in prefixes:
                    entries.append({"name": key, "size": n})
                    prefixes[key] = (key, n, default_box(n)[1] if key == "DGB" else n)
            continue
        else:
            continue
        if key in prefixes or any(e["name"] == entry["name"] for e in entries):
            raise PuzzleError(f"{where}: ISS: Var {prefix} is declared twice")
        entries.append(entry)
        prefixes[key] = (prefix, count, columns or cols or n)   # ISS lays a count in rows of the grid's columns
    return entries, prefixes


def iss_extra_name(token: str, prefixes: dict[str, tuple[str, int, int]]) -> str | None:
    """The document's name (``S3``) of an ISS var cell id (``VS3``), or None when ``token`` is
    none of the declared cells.

    Parameters
    ----------
    token : str
        An ISS cell id.
    prefixes : dict
        ISS prefix -> (group name, cells), from :func:`iss_extra_groups`.

    Returns
    -------
    str or None
    """
    m = _ID.match(token) if prefixes else None
    if m is None or m.group(1) not in prefixes:
        return None
    name, count = prefixes[m.group(1)][:2]
    number = m.group(2)
    if count == 1:
        return name if number == "" else None
    if not number or number.startswith("0") or not 1 <= int(number) <= count:
        return None
    return f"{name}{int(number)}"


def iss_extra_ids(token: str, prefixes: dict[str, tuple[str, int, int]]) -> str | None:
    """The ids of the declared extra cells (``'VL1' to 'VL36'``, ``'VC' alone``) whose prefix ``token`` carries
    when it is none of them (``VL37``, ``VL0``, ``VC1`` of a one-cell ``Var~C``); else None.

    Parameters
    ----------
    token : str
        An ISS cell id that :func:`iss_extra_name` found no cell for.
    prefixes : dict
        ISS prefix -> (group name, cells, cells a row), from :func:`iss_extra_groups`.

    Returns
    -------
    str or None
    """
    m = _ID.match(token) if prefixes else None
    if m is None or m.group(1) not in prefixes:
        return None
    key, count = m.group(1), prefixes[m.group(1)][1]
    return f"{key!r} alone (one cell)" if count == 1 else f"{key + '1'!r} to {key + str(count)!r}"


def iss_extra_place(token: str, prefixes: dict[str, tuple[str, int, int]]) -> tuple[str, int] | None:
    """``(ISS prefix, 0-based place in its group)`` of an ISS var cell id (``VS3`` -> ``("VS", 2)``),
    or None when ``token`` is none of the declared cells.

    Parameters
    ----------
    token : str
        An ISS cell id.
    prefixes : dict
        ISS prefix -> (group name, cells, cells a row), from :func:`iss_extra_groups`.

    Returns
    -------
    tuple or None
    """
    if iss_extra_name(token, prefixes) is None:
        return None
    m = _ID.match(token)
    assert m is not None
    return m.group(1), int(m.group(2) or 1) - 1


def iss_extra_id(prefix: str, k: int, prefixes: dict[str, tuple[str, int, int]]) -> str:
    """The ISS id of the ``k``-th (0-based) cell of the var group ``prefix`` (``VS``, 2 -> ``VS3``;
    a group of one cell is its prefix).

    Parameters
    ----------
    prefix : str
        The group's ISS prefix (``VS``).
    k : int
        0-based place in the group.
    prefixes : dict
        ISS prefix -> (group name, cells, cells a row), from :func:`iss_extra_groups`.

    Returns
    -------
    str
    """
    return prefix if prefixes[prefix][1] == 1 else f"{prefix}{k + 1}"


def iss_extra_at(prefix: str, row: int, col: int, prefixes: dict[str, tuple[str, int, int]]) -> str | None:
    """The ISS id of the cell at 0-based ``(row, col)`` of the var group ``prefix`` as ISS's cell
    graph lays it (rows of the declared width; a count in rows of the grid's columns), or None when the
    group has no cell there.

    Parameters
    ----------
    prefix : str
        The group's ISS prefix (``VS``).
    row, col : int
        0-based place in the group's layout.
    prefixes : dict
        ISS prefix -> (group name, cells, cells a row), from :func:`iss_extra_groups`.

    Returns
    -------
    str or None
    """
    _, count, width = prefixes[prefix]
    k = row * width + col
    return iss_extra_id(prefix, k, prefixes) if 0 <= col < width and 0 <= row and k < count else None


def iss_prefix(group: str, implicit: frozenset[str]) -> str:
    """A document extra-cell group's ISS prefix: ``V`` and its name (``S`` -> ``VS``), or the name
    itself for a group a constraint declares (Doppelganger's ``DGR``).

    Parameters
    ----------
    group : str
        The group's name in the document.
    implicit : frozenset of str
        Group names that are ISS prefixes themselves.

    Returns
    -------
    str
    """
    return group if group in implicit else "V" + group


def iss_prefixes(groups: tuple[ExtraGroup, ...], implicit: frozenset[str], width: int) -> dict[str, tuple[str, int, int]]:
    """The prefix map :func:`iss_extra_groups` reads, of a puzzle's extra cells (for the writer).

    Parameters
    ----------
    groups : tuple of ExtraGroup
        The puzzle's extra cells.
    implicit : frozenset of str
        Group names that are ISS prefixes themselves (declared by a constraint).
    width : int
        Cells a row of a group declared by a count: the grid's columns (as the reader lays it).

    Returns
    -------
    dict
        ISS prefix -> (group name, cells, cells a row).
    """
    return {iss_prefix(g.name, implicit): (g.name, g.count, g.columns or (default_box(g.count)[1] if g.name == "DGB"
                                                                         and g.name in implicit else width))
            for g in groups}


def doc_to_iss_extra(name: str, groups: tuple[ExtraGroup, ...], implicit: frozenset[str]) -> str | None:
    """The ISS id of a document's extra cell name (``S3`` -> ``VS3``; a Doppelganger cell
    ``DGR2`` stays), or None when ``name`` is no extra cell.

    Parameters
    ----------
    name : str
        A document cell name.
    groups : tuple of ExtraGroup
        The puzzle's extra cells.
    implicit : frozenset of str
        Group names that are ISS prefixes themselves (declared by a constraint).

    Returns
    -------
    str or None
    """
    m = re.fullmatch(r"([A-Za-z]{1,8})([0-9]{0,5})", name)
    if m is None:
        return None
    group = m.group(1).upper()
    if not any(g.name == group for g in groups):
        return None
    return iss_prefix(group, implicit) + m.group(2)


def iss_var_items(groups: tuple[ExtraGroup, ...], implicit: frozenset[str]) -> list[str]:
    """``Var~PREFIX[~label[~size]]`` items of a puzzle's extra cells (none for groups a constraint
    declares itself).

    Parameters
    ----------
    groups : tuple of ExtraGroup
        The puzzle's extra cells.
    implicit : frozenset of str
        Group names a constraint of the puzzle declares (Doppelganger's).

    Returns
    -------
    list of str
    """
    out = []
    for g in groups:
        if g.name in implicit:
            continue
        size = str(g.size_text)
        args = [g.name, g.label.replace("~", "").replace(".", ""), size]
        if args[-1] == "1":
            args.pop()
            if not args[-1]:
                args.pop()
        out.append("Var~" + "~".join(args))
    return out


def doppel_link_rules(n: int, units: Any) -> list[dict]:
    """What makes Doppelganger's cells the missing digits (ISS's builder): each row with its
    ``DGC`` cell, each column with its ``DGR`` cell, each box with its ``DGB`` cell hold
    different values (``N + 1`` cells over the values ``0..N``: the extra cell holds the one the
    unit misses), as ``cage`` entries without a sum; without boxes the ``DGB`` cells hold 0.

    Parameters
    ----------
    n : int
        Grid side.
    units : ndarray of int or None
        ``(n, n)`` box number of each cell (None: no boxes).

    Returns
    -------
    list of dict
    """
    import numpy as np

    out = [{"rule": "cage", "cells": [f"r{r + 1}c{c + 1}" for c in range(n)] + [f"DGC{r + 1}"]} for r in range(n)]
    out += [{"rule": "cage", "cells": [f"r{r + 1}c{c + 1}" for r in range(n)] + [f"DGR{c + 1}"]} for c in range(n)]
    if units is None:
        return out + [{"rule": "pencilmarks", "cells": [f"DGB{b + 1}" for b in range(n)], "digits": [0]}]
    ids = np.asarray(units).ravel()
    firsts = np.unique(ids, return_index=True)[1]
    for b, box in enumerate(ids[np.sort(firsts)].tolist()):   # boxes in the order of their first cell
        cells = [f"r{k // n + 1}c{k % n + 1}" for k in np.flatnonzero(ids == box).tolist()]
        out.append({"rule": "cage", "cells": cells + [f"DGB{b + 1}"]})
    return out


def is_doppel_link(entry: dict) -> bool:
    """Is a rule entry one of :func:`doppel_link_rules`' (the ISS writer leaves them out: the
    Doppelganger item brings them back)?

    Parameters
    ----------
    entry : dict
        A rule entry.

    Returns
    -------
    bool
    """
    cells = entry.get("cells") or []
    last = str(cells[-1]) if cells else ""
    if entry.get("rule") == "cage" and "sum" not in entry:
        return bool(re.fullmatch(r"DG[RCB][0-9]+", last)) and all(str(c)[0] == "r" for c in cells[:-1])
    return entry.get("rule") == "pencilmarks" and entry.get("digits") == [0] and \
        all(re.fullmatch(r"DGB[0-9]+", str(c)) for c in cells)


def extra_adjacent_pairs(tokens: list[str], prefixes: dict[str, tuple[str, int, int]],
                         rc: Callable[[str], tuple[int, int]]) -> list[tuple[str, str]]:
    """ISS's orthogonal pairs among cells some of which are var cells: var cells are laid in
    rows of their group's width (ISS's cell graph), grid cells on the grid; a pair lies in one
    of them. Each cell with the later-listed cells next to it.

    Parameters
    ----------
    tokens : list of str
        ISS cell ids.
    prefixes : dict
        ISS prefix -> (group name, cells, cells a row).
    rc : callable
        The grid's ``(row, col)`` of a grid cell id (raises for any other id).

    Returns
    -------
    list of tuple of str
        Document names of each pair (empty: no two are neighbours).
    """
    places: dict[str, tuple[str, int, int]] = {}
    for token in tokens:
        name = iss_extra_name(token, prefixes)
        if name is None:
            r, c = rc(token)
            places.setdefault(f"r{r + 1}c{c + 1}", ("", r, c))
            continue
        m = _ID.match(token)
        assert m is not None
        _, count, width = prefixes[m.group(1)]
        k = int(m.group(2) or 1) - 1
        places.setdefault(name, (m.group(1), k // width, k % width))
    items = list(places.items())
    return [(a, b) for i, (a, (ga, ra, ca)) in enumerate(items) for b, (gb, rb, cb) in items[i + 1:]
            if ga == gb and abs(ra - rb) + abs(ca - cb) == 1]
