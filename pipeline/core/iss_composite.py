"""ISS composite constraints: ``.Or ... .End``, ``.And ... .End`` and ``.Replicate~BITSET[~ORIGIN] ... .End``.

:func:`expand_composites` turns the flat run of a string's constraints into what
:func:`pipeline.core.iss.document_from_iss` reads: plain constraints, and :class:`OrGroup`\\ s
whose branches are lists of plain constraints (read into one ``anyof`` rule,
:mod:`pipeline.core.rules.anyof`). As ISS's builder does (js/solver/sudoku_builder.js):

* ``And`` outside an ``Or`` is its children; inside one it is one branch of several constraints;
* ``Replicate`` is a reading-time expansion: its children are a template, copied once per target
  cell, every cell argument shifted by the target's offset from the origin (``R1C1`` by default).
  Targets are ISS's bitset, base64url 6-bit words, bit ``i`` (least significant first) the cell
  ``origin + i`` in ISS's cell index order. The origin may be an extra cell (ISS ``Var``, ``VL1``):
  a var group's cells follow each other in that order and lie in rows of the group's width (ISS's
  cell graph), so its targets and shifts are counted inside the group. As ISS refuses them: a
  target outside the origin's group (off the grid, past the var group), a template cell in
  another group than the origin's ("All Replicate cells/constraints must be in the same cell
  group"), and a shifted cell off its group ("Shifted cell is out of bounds");
* an ``Or`` of one branch is that branch; an ``Or`` with an empty branch always holds and is
  dropped; an ``Or`` of no branch can never hold and is refused; an ``Or`` inside a branch of an
  ``Or`` is refused (no entry needs it).

Shifting is on the ISS arguments: every argument that is a cell id (``R3C5``), and the cell of a
given token (``R3C5_7``). The writer :data:`pipeline.core.iss_table.WRITERS`\\ ``["anyof"]``
writes an ``anyof`` back as ``.Or``, a branch of several items as ``.And ... .End``.
"""
from __future__ import annotations

import re
from typing import Any, Callable, NamedTuple

from pipeline.core.errors import clip, PuzzleError
from pipeline.core.iss_extra import iss_extra_id, iss_extra_place
from pipeline.core.iss_table import WRITERS, IssArgError, IssGrid, iss_cell_id

__all__ = ["OrGroup", "expand_composites", "replicate_targets", "write_anyof"]

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_CELL_ARG = re.compile(r"[Rr][1-9a-gA-G][Cc][1-9a-gA-G]")
_GROUPS = ("Or", "And", "Replicate")
#: Composites nested deeper than this are refused (ISS's entries nest two or three).
MAX_NESTING = 32
#: Constraints a string's composites may expand to: nested Replicates multiply (15 nested
#: Replicates of 4 targets are 4^15 copies from 273 characters), so the count is checked first.
MAX_EXPANDED = 200_000


class OrGroup(NamedTuple):
    """An ``Or``: its own item (for messages) and its branches, each a list of plain items."""

    item: Any
    branches: list[list[Any]]


class _Node(NamedTuple):
    item: Any
    children: list


class _Place(NamedTuple):
    """A cell in ISS's cell graph: its group (``""`` the grid, else a var prefix ``VL``) and its
    0-based row and column in the group (a var group's rows as wide as its columns)."""

    group: str
    row: int
    col: int


def _offsets(bitset: str) -> list[int]:
    """The set bits of ISS's base64url bitset (6-bit words, least significant bit first)."""
    bad = next((ch for ch in bitset if ch not in _B64), None)
    if bad is not None:
        raise IssArgError(f"bitset {clip(bitset)!r}: {bad!r} is not a base64url character")
    return [6 * w + bit for w, ch in enumerate(bitset) for bit in range(6) if _B64.index(ch) >> bit & 1]


def replicate_targets(bitset: str, origin: tuple[int, int], n: int) -> list[tuple[int, int]]:
    """0-based ``(row, col)`` of a ``Replicate``'s targets on an ``n x n`` grid.

    Parameters
    ----------
    bitset : str
        ISS's base64url bitset (``AwDiQEiwD``).
    origin : tuple of int
        0-based origin cell.
    n : int
        Grid side.

    Returns
    -------
    list of tuple of int

    Raises
    ------
    IssArgError
        A character outside base64url, or a target past the grid's last cell.
    """
    first = origin[0] * n + origin[1]
    found = [first + i for i in _offsets(bitset)]
    if found and found[-1] >= n * n:
        raise IssArgError(f"target {found[-1] - first} past the origin is off the {n}x{n} grid (cells outside "
                          f"the grid, ISS's Var, are not supported)")
    return [divmod(cell, n) for cell in found]


def _var_shape(group: str, grid: IssGrid) -> tuple[int, int]:
    """``(cells, cells a row)`` of a var group."""
    _, count, width = grid.extra[group]
    return count, width


def _place(token: str, grid: IssGrid) -> _Place | None:
    """The place of a cell id (a grid cell or a declared var cell), or None for any other argument."""
    if _CELL_ARG.fullmatch(token):
        return _Place("", *grid.rc(token))
    found = iss_extra_place(token, grid.extra) if grid.extra else None
    if found is None:
        return None
    width = _var_shape(found[0], grid)[1]
    return _Place(found[0], *divmod(found[1], width))


def _var_targets(bitset: str, origin: _Place, origin_id: str, grid: IssGrid) -> list[_Place]:
    """The targets of a Replicate whose origin is a var cell: the cells ``origin + i`` of its group."""
    count, width = _var_shape(origin.group, grid)
    first = origin.row * width + origin.col
    found = [first + i for i in _offsets(bitset)]
    if found and found[-1] >= count:
        raise IssArgError(f"target {found[-1] - first} past the origin {origin_id} is past the {count} cells of "
                          f"the var group {origin.group} (ISS: all Replicate cells must be in the same cell group)")
    return [_Place(origin.group, *divmod(k, width)) for k in found]


def _shift_arg(arg: str, origin: _Place, target: _Place, grid: IssGrid, given: bool) -> str:
    head, sep, tail = arg.partition("_") if given else (arg, "", "")
    place = _place(head, grid)
    if place is None:
        return arg
    dr, dc = place.row - origin.row, place.col - origin.col
    if place.group != origin.group:
        where = f"the var group {origin.group}" if origin.group else "the grid"
        raise IssArgError(f"{head} is not in {where}, the origin's cell group (ISS: all Replicate constraints "
                          f"must be in the same cell group)")
    r, c = target.row + dr, target.col + dc
    if not origin.group:
        if not (0 <= r < grid.n and 0 <= c < grid.n):
            raise IssArgError(f"{head} shifted by ({dr:+d}, {dc:+d}) is off the {grid.n}x{grid.n} grid "
                              f"(ISS: shifted cell is out of bounds)")
        return iss_cell_id(r, c) + sep + tail
    count, width = _var_shape(origin.group, grid)
    # ISS walks the rows first, then the columns: the cell of the target's column in the new row
    # must be there too (a group's last row may be short)
    if not (r >= 0 and 0 <= c < width and r * width + c < count and r * width + target.col < count):
        raise IssArgError(f"{head} shifted by ({dr:+d}, {dc:+d}) is off the var group {origin.group} "
                          f"(ISS: shifted cell is out of bounds)")
    return iss_extra_id(origin.group, r * width + c, grid.extra) + sep + tail


def _shifted(node: Any, origin: _Place, target: _Place, grid: IssGrid) -> Any:
    if isinstance(node, _Node):
        # as ISS's makeShifted: the children move, a composite's own arguments (a nested
        # Replicate's bitset and origin) do not
        return _Node(node.item, [_shifted(child, origin, target, grid) for child in node.children])
    given = node.type in ("", "Given")
    return node._replace(args=[_shift_arg(a, origin, target, grid, given) for a in node.args])


def _tree(items: list, fail: Callable[[Any, str], PuzzleError]) -> list:
    """Items nested by their ``.Or``/``.And``/``.Replicate`` ... ``.End`` brackets."""
    root: list = []
    stack: list[_Node] = []
    for item in items:
        if item.type == "End":
            if item.args:
                raise fail(item, "End takes no arguments")
            if not stack:
                raise fail(item, "End closes no Or, And or Replicate")
            stack.pop()
            continue
        node = _Node(item, []) if item.type in _GROUPS else item
        (stack[-1].children if stack else root).append(node)
        if isinstance(node, _Node):
            if len(stack) >= MAX_NESTING:
                raise fail(item, f"{item.type} nested more than {MAX_NESTING} deep")
            stack.append(node)
    if stack:
        raise fail(stack[-1].item, f"{stack[-1].item.type} is never closed by .End")
    return root


def _targets(node: _Node, grid: IssGrid, fail: Callable[[Any, str], PuzzleError]) -> tuple[_Place, list[_Place]]:
    """A ``Replicate``'s origin and targets (its arguments checked)."""
    args = node.item.args
    if not 1 <= len(args) <= 2:
        raise fail(node.item, "Replicate takes a target bitset and an optional origin cell")
    try:
        origin_id = args[1] if len(args) == 2 and args[1] else "R1C1"
        origin = _place(origin_id, grid) if grid.extra else None   # a var cell (ISS Var), or a grid cell
        if origin is None or not origin.group:
            r0, c0 = grid.rc(origin_id)
            return _Place("", r0, c0), [_Place("", r, c) for r, c in replicate_targets(args[0], (r0, c0), grid.n)]
        return origin, _var_targets(args[0], origin, origin_id, grid)
    except IssArgError as e:
        raise fail(node.item, f"Replicate: {e}") from None


def _expanded_count(nodes: list, grid: IssGrid, fail: Callable[[Any, str], PuzzleError]) -> int:
    """How many constraints ``nodes`` expand to (a Replicate's children once per target), each
    node counted once, before anything is copied; refused past :data:`MAX_EXPANDED`."""
    total = 0
    for node in nodes:
        if not isinstance(node, _Node):
            total += 1
            continue
        inner = _expanded_count(node.children, grid, fail)
        if node.item.type == "Replicate":
            inner *= len(_targets(node, grid, fail)[1])
            if inner > MAX_EXPANDED:
                raise fail(node.item, f"Replicate expands to {inner:,} constraints; at most {MAX_EXPANDED:,}")
        total += inner
        if total > MAX_EXPANDED:   # named at the composite that passes the bound
            raise fail(node.item, f"the constraints expand to {total:,} with this {node.item.type}; at most "
                                  f"{MAX_EXPANDED:,}")
    return total


def _replicate(node: _Node, grid: IssGrid, fail: Callable[[Any, str], PuzzleError]) -> list:
    origin, targets = _targets(node, grid, fail)
    try:
        out = []
        for target in targets:
            out += [_shifted(child, origin, target, grid) for child in node.children]
    except IssArgError as e:
        raise fail(node.item, f"Replicate: {e}") from None
    return out


def _flat(nodes: list, grid: IssGrid, fail: Callable[[Any, str], PuzzleError], in_or: bool) -> list:
    """Plain items and :class:`OrGroup`\\ s (only outside an Or) of ``nodes``, And and Replicate expanded."""
    out: list = []
    for node in nodes:
        if not isinstance(node, _Node):
            out.append(node)
        elif node.item.type == "And":
            out += _flat(node.children, grid, fail, in_or)
        elif node.item.type == "Replicate":
            out += _flat(_replicate(node, grid, fail), grid, fail, in_or)
        elif in_or:
            raise fail(node.item, "an Or inside a branch of an Or is not supported")
        else:
            if node.item.args:
                raise fail(node.item, "Or takes no arguments")
            branches = [_flat([child], grid, fail, True) for child in node.children]
            out.append(OrGroup(node.item, branches))
    return out


def expand_composites(items: list, grid: IssGrid, fail: Callable[[Any, str], PuzzleError]) -> list:
    """A string's constraints with its composites expanded: plain items and :class:`OrGroup`\\ s.

    Parameters
    ----------
    items : list
        The string's constraints in order (``type``, ``args``, ``_replace``).
    grid : IssGrid
        The grid (cells are shifted and checked against it).
    fail : callable
        ``fail(item, message)`` -> the PuzzleError naming the item's place.

    Returns
    -------
    list
        Plain items (shifted copies for Replicate) and OrGroups, in order.

    Raises
    ------
    PuzzleError
        An unmatched ``.End`` or bracket, a bad bitset, a cell shifted off the grid, nested Or,
        composites nested past :data:`MAX_NESTING` or expanding past :data:`MAX_EXPANDED`.
    """
    if not any(item.type in _GROUPS or item.type == "End" for item in items):
        return list(items)
    tree = _tree(items, fail)
    _expanded_count(tree, grid, fail)
    return _flat(tree, grid, fail, False)


def write_anyof(entry: dict, grid: IssGrid) -> list[str]:
    """``Or.<branch>...End``: a branch of one item as it is, of several as ``And.<items>.End``;
    a branch's givens (pencil marks) gathered into one given item after its other items.

    Parameters
    ----------
    entry : dict
        The ``anyof`` entry (``Rule.to_dict``).
    grid : IssGrid
        The grid.

    Returns
    -------
    list of str
        One item (no leading dot).
    """
    parts = []
    for branch in entry["branches"]:
        items: list[str] = []
        givens: list[str] = []
        for rule in branch:
            writer = WRITERS.get(rule["rule"])
            if writer is None:
                raise IssArgError(f"a branch's {rule['rule']} has no ISS constraint type")
            for item in writer(rule, grid):
                (givens.append(item[1:]) if item.startswith("~") else items.append(item))
        if givens:
            items.append("~" + "~".join(givens))
        parts.append(items[0] if len(items) == 1 else "And." + ".".join(items) + ".End")
    return ["Or." + ".".join(parts) + ".End"]


WRITERS["anyof"] = write_anyof
