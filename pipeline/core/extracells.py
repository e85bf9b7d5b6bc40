"""Extra cells outside the grid (issue 33, ISS ``Var``): named groups of cells that take the grid's
values and obey only the rules that name them.

A puzzle document declares them under ``"extra"``::

    "extra": [{"name": "S", "size": 9}, {"name": "L", "size": "3x3", "label": "loop"}]

* ``name``: one to eight capital letters, each group once; its cells are ``S1..S9`` (1-based), or
  ``S`` alone for a group of one cell. Rules name them as they name grid cells (``"cells":
  ["r1c1", "S3"]``); any case is read, the names are written as declared.
* ``size``: a cell count, or ``"RxC"`` (rows of ``C`` cells, numbered row-major: ``L1..L9`` for
  ``3x3``); ``label``: free text (ISS's label), kept for the round trip.

On the board (:class:`~pipeline.core.rules.base.Board`) extra cell ``k`` (0-based over the groups
in document order) is the cell number ``rows * cols + k``, past the canvas. In the model its
digits are the auxiliary family ``extra`` (docs/conventions.md, "Extra cells"): columns
``aux_extra_<g>_<i>_<d>`` (group, cell, digit, 1-based; digit fastest), the first auxiliary
columns after the cell-digit block, and one ``extra_<g>_<i>`` row ``= 1`` per extra cell at the
head of ``R``. This module has no project import beyond errors, so the board can use it.
"""
from __future__ import annotations

import re
from typing import Any, NamedTuple

import numpy as np

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.parse import read_source

__all__ = ["ExtraGroup", "parse_extra", "extra_to_doc", "extra_index", "extra_name", "extra_count",
           "extra_column_names", "extra_names", "MAX_EXTRA_CELLS", "with_extra", "extra_record_document",
           "extra_digits", "extra_lines"]

#: Most extra cells of a puzzle (ISS: grid and var cells share 16-bit indices).
MAX_EXTRA_CELLS = 4096
_NAME = re.compile(r"^[A-Z]{1,8}$")
_REF = re.compile(r"^\s*([A-Za-z]{1,8})([0-9]{0,5})\s*$")
_SIZE = re.compile(r"^\s*(?:([0-9]{1,4})\s*[xX]\s*)?([0-9]{1,4})\s*$")


class ExtraGroup(NamedTuple):
    """One declared group of extra cells: ``count`` cells named ``name1..`` (``name`` alone when
    one), ``columns`` the width of an ``RxC`` declaration (0: a count), ``label`` free text."""

    name: str
    count: int   # type: ignore[assignment]  # the cells, not tuple.count
    columns: int = 0
    label: str = ""

    @property
    def size_text(self) -> str | int:
        """The document's ``size``: the count, or ``"RxC"``."""
        return f"{self.count // self.columns}x{self.columns}" if self.columns else self.count

    def cell_names(self) -> list[str]:
        """The cells' names in order (``S1..S9``; ``S`` for one cell)."""
        return [self.name] if self.count == 1 else [f"{self.name}{i}" for i in range(1, self.count + 1)]


def parse_extra(value: Any, where: str) -> tuple[ExtraGroup, ...]:
    """The groups of a document's ``"extra"`` list (absent: none).

    Parameters
    ----------
    value : object
        The ``"extra"`` value: a list of ``{"name", "size", "label"}`` objects.
    where : str
        How messages name the document.

    Returns
    -------
    tuple of ExtraGroup

    Raises
    ------
    PuzzleError
        Not a list, an unknown key, a bad name or size, a name given twice, too many cells.

    Examples
    --------
    >>> parse_extra([{"name": "S", "size": "2x3"}], "puzzle")
    (ExtraGroup(name='S', count=6, columns=3, label=''),)
    """
    if value is None:
        return ()
    if not isinstance(value, list):
        raise PuzzleError(f"{where}: 'extra' must be a list of {{\"name\", \"size\"}} objects")
    groups: list[ExtraGroup] = []
    for k, entry in enumerate(value):
        at = f"{where}: extra[{k}]"
        if not isinstance(entry, dict):
            raise PuzzleError(f"{at}: expected an object like {{\"name\": \"S\", \"size\": 9}}")
        unknown = sorted(set(entry) - {"name", "size", "label"})
        if unknown:
            raise PuzzleError(f"{at}: unknown key {clip(repr(unknown[0]), 40)} (expected label, name, size)")
        name = entry.get("name")
        if not isinstance(name, str) or not _NAME.match(name):
            raise PuzzleError(f"{at}: 'name' must be 1 to 8 capital letters A-Z, found {clip(name)!r}")
        if any(g.name == name for g in groups):
            raise PuzzleError(f"{at}: extra cells {name!r} are declared twice")
        size = entry.get("size", 1)
        m = _SIZE.match(str(size)) if isinstance(size, (int, str)) and not isinstance(size, bool) else None
        if m is None or int(m.group(2)) < 1 or (m.group(1) is not None and int(m.group(1)) < 1):
            raise PuzzleError(f"{at}: 'size' must be a cell count or \"RxC\", found {clip(size)!r}")
        columns = int(m.group(2)) if m.group(1) is not None else 0
        count = int(m.group(1)) * columns if columns else int(m.group(2))
        label = entry.get("label", "")
        if not isinstance(label, str):
            raise PuzzleError(f"{at}: 'label' must be a string")
        groups.append(ExtraGroup(name, count, columns, label))
    total = sum(g.count for g in groups)
    if total > MAX_EXTRA_CELLS:
        raise PuzzleError(f"{where}: 'extra' declares {total:,} cells; at most {MAX_EXTRA_CELLS:,}")
    return tuple(groups)


def extra_to_doc(groups: tuple[ExtraGroup, ...]) -> list[dict]:
    """The document's ``"extra"`` list of ``groups`` (what :func:`parse_extra` reads back).

    Parameters
    ----------
    groups : tuple of ExtraGroup
        The declared groups.

    Returns
    -------
    list of dict
    """
    return [{"name": g.name, "size": g.size_text, **({"label": g.label} if g.label else {})} for g in groups]


def extra_count(groups: tuple[ExtraGroup, ...]) -> int:
    """Extra cells of all groups.

    Parameters
    ----------
    groups : tuple of ExtraGroup
        The declared groups.

    Returns
    -------
    int
    """
    return sum(g.count for g in groups)


def extra_names(groups: tuple[ExtraGroup, ...]) -> list[str]:
    """Every extra cell's name, in cell order.

    Parameters
    ----------
    groups : tuple of ExtraGroup
        The declared groups.

    Returns
    -------
    list of str
    """
    return [name for g in groups for name in g.cell_names()]


def extra_index(text: Any, groups: tuple[ExtraGroup, ...]) -> int | None:
    """The 0-based extra cell a name refers to (``S3``, ``s3``, ``T`` of a one-cell group), or
    None when ``text`` names none.

    Parameters
    ----------
    text : object
        A cell reference.
    groups : tuple of ExtraGroup
        The declared groups.

    Returns
    -------
    int or None
    """
    m = _REF.match(text) if isinstance(text, str) and groups else None
    if m is None:
        return None
    name, number = m.group(1).upper(), m.group(2)
    first = 0
    for g in groups:
        if g.name == name:
            if g.count == 1:
                return first if number in ("", "1") else None
            k = int(number) if number else 0
            return first + k - 1 if 1 <= k <= g.count and not number.startswith("0") else None
        first += g.count
    return None


def extra_name(k: int, groups: tuple[ExtraGroup, ...]) -> str:
    """The name of 0-based extra cell ``k``.

    Parameters
    ----------
    k : int
        0-based over the groups in order.
    groups : tuple of ExtraGroup
        The declared groups.

    Returns
    -------
    str
    """
    for g in groups:
        if k < g.count:
            return g.name if g.count == 1 else f"{g.name}{k + 1}"
        k -= g.count
    return f"extra{k}"


def extra_column_names(groups: tuple[ExtraGroup, ...], v: int) -> np.ndarray:
    """``aux_extra_<g>_<i>_<d>`` of every extra cell's digits (group, cell, digit; 1-based,
    digit fastest), in column order.

    Parameters
    ----------
    groups : tuple of ExtraGroup
        The declared groups.
    v : int
        Digits per cell.

    Returns
    -------
    ndarray of str
    """
    if not groups:
        return np.zeros(0, dtype=str)
    g = np.repeat(np.arange(1, len(groups) + 1), [grp.count for grp in groups])
    i = np.concatenate([np.arange(1, grp.count + 1) for grp in groups])
    gg, ii, dd = np.repeat(g, v), np.repeat(i, v), np.tile(np.arange(1, v + 1), g.size)
    out = ("aux_extra_" + np.char.mod("%d", gg).astype(object) + "_" + np.char.mod("%d", ii).astype(object)
           + "_" + np.char.mod("%d", dd).astype(object))
    return out.astype(str)


def with_extra(flat: np.ndarray, n_extra: int, digits: "np.ndarray | None" = None) -> np.ndarray:
    """A flat canvas with its extra cells after it (what rules judge: a rule names extra cell
    ``k`` as cell ``rows * cols + k``); ``digits`` their 1-based digits (None: empty, 0).

    Parameters
    ----------
    flat : ndarray of int
        The flat canvas, digits ``1..V``, 0 empty.
    n_extra : int
        Extra cells of the puzzle.
    digits : ndarray of int, optional
        Their digits (``(n_extra,)``, 0 empty).

    Returns
    -------
    ndarray of int
        ``flat`` itself when the puzzle has no extra cell.
    """
    if not n_extra:
        return flat
    tail = np.zeros(n_extra, dtype=np.int64) if digits is None else np.asarray(digits, dtype=np.int64).ravel()
    if tail.size != n_extra:
        raise PuzzleError(f"extra cells: expected {n_extra} digits, found {tail.size}")
    return np.concatenate([np.asarray(flat, dtype=np.int64).ravel(), tail])


def extra_record_document(record: dict) -> dict:
    """The puzzle document of a manifest record (``Puzzle.to_dict``) of a puzzle with extra
    cells: its givens, box, variant, regions, values, canvas, rules and extra cells.

    Parameters
    ----------
    record : dict
        The record.

    Returns
    -------
    dict
    """
    doc = {"box": f"{record['h']}x{record['w']}", "givens": record["puzzle"], "rules": record.get("rules") or [],
           "variant": record.get("variant", "classic"), "extra": record["extra"]}
    for key in ("values", "regions", "layout"):
        if record.get(key) is not None:
            doc[key] = record[key]
    canvas = record.get("canvas")
    if canvas is not None and record.get("layout") is None and canvas[0] != canvas[1]:
        doc["size"] = f"{canvas[0]}x{canvas[1]}"
    return doc


def extra_digits(model: Any, x: "np.ndarray | None") -> "np.ndarray | None":
    """The 1-based digits of the extra cells in a solver's answer ``x`` (over the model's solver
    view, or every position): the first auxiliary columns (:func:`extra_column_names`).

    Parameters
    ----------
    model : Model
        The model solved (:class:`pipeline.core.build.Model`).
    x : ndarray of float or None
        The answer.

    Returns
    -------
    ndarray of int or None
        ``(extra cells,)`` digits; None without extra cells, without ``x`` or when a cell holds
        not exactly one digit.
    """
    puzzle = model.puzzle
    count = extra_count(puzzle.extra)
    if not count or x is None:
        return None
    x = np.asarray(x, dtype=float).ravel()
    if x.size not in (model.n_cols, model.n_positions) or model.n_aux < count * puzzle.n_values:
        return None
    block = np.rint(x[x.size - model.n_aux:][:count * puzzle.n_values]).reshape(count, puzzle.n_values)
    if not (block.sum(axis=1) == 1).all():
        return None
    return np.argmax(block, axis=1).astype(np.int64) + 1


def extra_lines(groups: tuple[ExtraGroup, ...], values: np.ndarray) -> dict[str, list[int]]:
    """Each group's values, in cell order (``{"S": [1, 2, 3]}``): how answers show extra cells.

    Parameters
    ----------
    groups : tuple of ExtraGroup
        The declared groups.
    values : ndarray of int
        The values of every extra cell, in cell order.

    Returns
    -------
    dict of str to list of int
    """
    out, first = {}, 0
    for g in groups:
        out[g.name] = [int(v) for v in values[first:first + g.count]]
        first += g.count
    return out


def split_extra_lines(source: Any, puzzle: Any) -> "tuple[Any, np.ndarray | None]":
    """A claimed solution as ``solve`` prints one for a puzzle with extra cells: the grid, then a
    line per group of extra cells (``S: 1 2 3``, :func:`extra_lines`), split into the grid's text
    and the extra cells' digits.

    Parameters
    ----------
    source : str or path
        The grid argument (a literal, a file or ``-``).
    puzzle : Puzzle
        The puzzle (its extra-cell groups and value set).

    Returns
    -------
    (source, ndarray of int or None)
        The grid's text (read once: standard input cannot be read twice) and the extra cells'
        digits ``1..V`` in cell order (None when no line names a group).

    Raises
    ------
    PuzzleError
        A group named with the wrong number of values, a value outside the value set, or some
        groups given and others not (one line naming it).
    """
    if not isinstance(source, str):
        return source, None
    text, where = read_source(source)
    groups = {g.name: g for g in puzzle.extra}
    found: dict[str, list[str]] = {}
    kept = []
    for line in text.splitlines():
        name, colon, rest = line.partition(":")
        if colon and name.strip() in groups:
            found[name.strip()] = rest.split()
        else:
            kept.append(line)
    if not found:
        return text, None
    missing = [name for name in groups if name not in found]
    if missing:
        raise PuzzleError(f"{where}: extra cells {missing[0]}: no line '{missing[0]}: ...' after the grid")
    value_of = {str(int(v)): k + 1 for k, v in enumerate(puzzle.board.value_of)}
    digits = []
    for name, group in groups.items():
        tokens = found[name]
        if len(tokens) != group.count:
            raise PuzzleError(f"{where}: extra cells {name}: {len(tokens)} values, the puzzle has {group.count} cells")
        bad = next((t for t in tokens if t not in value_of), None)
        if bad is not None:
            raise PuzzleError(f"{where}: extra cells {name}: {clip(bad)!r} is not a value of the puzzle")
        digits += [value_of[t] for t in tokens]
    return "\n".join(kept), np.array(digits, dtype=np.int64)
