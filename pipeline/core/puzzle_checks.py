"""The checks a :class:`pipeline.core.puzzle.Puzzle` passes when it is made: shape, box, variant,
regions, values and layout, then what its clues can break (a digit out of range, a digit twice in
a unit, a rule the clues already break). Each failure is a :class:`PuzzleError` (or a
:class:`ClueConflictError`) with one line naming what and where.

:func:`check_clues` is the part that depends on the clues: a puzzle that keeps a checked puzzle's
shape and rules with other clues (:func:`pipeline.core.puzzle.with_other_clues`) needs only that.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pipeline.core.errors import ClueConflictError, PuzzleError
from pipeline.core.extracells import with_extra
from pipeline.core.rect import check_rect_rules, validate_rect
from pipeline.core.rules import cell_name
from pipeline.core.variants import FAMILIES, VARIANT_TABLE, get_variant
from pipeline.core.verify import cells_text, first_duplicate, times, unit_name

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pipeline.core.puzzle import Puzzle
    from pipeline.core.rules import Rule

__all__ = ["validate", "check_clues", "check_rules_added", "refuse_a_whole_grid_rule_twice"]


def validate(p: Puzzle) -> None:
    """Every check of a new puzzle, in the order its messages are promised (shape first, then the
    clues, then the rules).

    Parameters
    ----------
    p : Puzzle
        The puzzle being made.

    Raises
    ------
    PuzzleError
        One line naming what is wrong and where.
    """
    grid = p.grid
    if p.layout is not None:
        _validate_layout(p)
        _check_unit_duplicates(p)
        _check_rules(p)
        return
    if p.is_rect and min(grid.shape) >= 1:   # a rectangular grid (pipeline.core.rect)
        validate_rect(p)
        _check_unit_duplicates(p)
        _check_rules(p)
        return
    if grid.ndim != 2 or grid.shape[0] != grid.shape[1] or grid.shape[0] < 1:
        raise PuzzleError(f"puzzle: grid is {'-by-'.join(map(str, grid.shape))}: must be N-by-N")
    n = grid.shape[0]
    spec = get_variant(p.variant)
    if n < spec.min_n:
        latin = VARIANT_TABLE.get("latin")
        hint = (f" (a Latin square from {latin.min_n}x{latin.min_n}: --variant latin)"
                if latin is not None and p.variant != "latin" and latin.min_n <= n else "")
        if n == 3:   # three rows of three numbers are also a MATLAB-style list of three clues
            hint += "; if it is a list of three [row col digit] clues, give --size N"
        elif n == 2:   # four numbers: one line of a clue list with a field too many ('1,1,5,7')
            hint += "; a [row col digit] clue list has three values a line"
        raise PuzzleError(f"puzzle: a {n}x{n} grid is not a puzzle: {p.variant} puzzles are {spec.min_n}x{spec.min_n} "
                          f"and larger{hint}")
    if p.h * p.w != n:
        raise PuzzleError(f"box: {p.h}x{p.w} boxes do not tile a {n}x{n} grid (h*w must be {n})")
    _validate_values(p)
    _check_range(p)
    jigsaw = spec.regions
    if jigsaw and p.regions is None:
        raise PuzzleError(f"regions: variant {p.variant} needs regions (one region id per cell: --regions, a "
                          "document's \"regions\", or a batch table's regions column)")
    if not jigsaw and p.regions is not None:
        with_regions = " or ".join(name for name, v in VARIANT_TABLE.items() if v.regions)
        raise PuzzleError(f"regions: regions are given but variant is {p.variant!r} (use {with_regions})")
    if p.regions is not None:
        _validate_regions(p.regions, n)
    _check_unit_duplicates(p)
    _check_rules(p)


def check_clues(p: Puzzle) -> None:
    """What the clues alone can break, for a puzzle whose shape, values and rules were checked
    already: a clue out of range (or, with a layout, outside every grid), a digit twice in a unit,
    a rule the clues break. An empty grid breaks none of them.

    Parameters
    ----------
    p : Puzzle
        The puzzle with its new clues.

    Raises
    ------
    PuzzleError
        One line naming the clue and where.
    """
    if not p.grid.any():
        return
    if p.layout is not None:
        _check_layout_clues(p)
    elif p.is_rect:
        validate_rect(p)   # its clue range is one of its checks, all cheap
    else:
        _check_range(p)
    _check_unit_duplicates(p)
    _check_rule_clues(p)


def check_rules_added(p: Puzzle, names: Sequence[str] | None = None) -> None:
    """What rules can break in a puzzle that passed every check without them: a rule a rectangular
    grid does not take, a clue twice in a unit of a rule (a diagonal, a windoku window), rules that
    contradict each other or the clues.
    The messages are those of :func:`validate`, in its order.

    Parameters
    ----------
    p : Puzzle
        The puzzle with its rules.
    names : sequence of str, optional
        How messages name each entry, in the order given (:func:`_rule_name` takes ``--rule K``).

    Raises
    ------
    PuzzleError
        One line naming the rule or the clue and where.
    """
    if p.is_rect:   # a rectangle takes only the rules that do not read the grid's side
        check_rect_rules(p)
    if _rules_add_units(p):   # else the puzzle's units are the ones already checked without the rules
        _check_unit_duplicates(p)
    _check_rules(p, names)


def _rules_add_units(p: Puzzle) -> bool:
    """Whether ``p``'s rules bring units of their own (a diagonal, windoku windows): most rules
    (cages, lines, dots) bring none, and then the clues' unit check need not run again."""
    return sum(units.shape[0] for _, units in p.unit_families()) > \
        sum(units.shape[0] for _, units in p.base_board.unit_families)


def _check_range(p: Puzzle) -> None:
    grid = p.grid
    bad = np.argwhere((grid < 0) | (grid > p.n_values))
    if bad.size:
        r, c = bad[0]
        raise PuzzleError(
            f"puzzle: cell ({r + 1}, {c + 1}) holds {grid[r, c]}: entries must be integers from 1 to {p.n_values} "
            "(0 for empty)"
        )


def _validate_values(p: Puzzle) -> None:
    """A value set: ascending distinct integers, at least as many as the grid's side (more:
    each unit holds each value at most once, docs/conventions.md)."""
    if p.values is None:
        return
    values = p.values
    if any(b <= a for a, b in zip(values, values[1:])):
        raise PuzzleError(f"values: {list(values)[:12]} must ascend without repeats")
    if len(values) < p.n:
        raise PuzzleError(f"values: {len(values)} values for a {p.n}x{p.n} grid; a value set has at least {p.n}")
    if not get_variant(p.variant).lines and len(values) != p.n:   # raw: no unit, so V = N is what is read
        raise PuzzleError(f"values: variant {p.variant} takes exactly {p.n} values on a {p.n}x{p.n} grid, "
                          f"found {len(values)}")


def _validate_layout(p: Puzzle) -> None:
    """A gattai puzzle: the canvas of its layout, digits ``1..N`` only where a grid covers a cell."""
    layout, grid = p.layout, p.grid
    assert layout is not None
    if p.values is not None:
        raise PuzzleError(f"values: a {layout.name} layout takes the values 1..{p.n} (value sets are for one grid)")
    if p.variant != "classic" or p.regions is not None:
        raise PuzzleError(f"layout: a {layout.name} layout takes the classic rules of each grid, not variant {p.variant!r}")
    if (layout.h, layout.w) != (p.h, p.w):
        raise PuzzleError(f"layout: its grids have {layout.h}x{layout.w} boxes, the puzzle says {p.h}x{p.w}")
    if grid.shape != (layout.rows, layout.cols):
        raise PuzzleError(f"puzzle: a {layout.name} layout is a {layout.rows}x{layout.cols} canvas, found "
                          f"{'x'.join(map(str, grid.shape))}")
    _check_layout_clues(p)


def _check_layout_clues(p: Puzzle) -> None:
    grid, n = p.grid, p.n
    bad = np.argwhere((grid < 0) | (grid > n))
    if bad.size:
        r, c = bad[0]
        raise PuzzleError(f"puzzle: cell r{r + 1}c{c + 1} holds {grid[r, c]}: entries must be integers from 1 to {n} "
                          "(0 for empty)")
    outside = np.flatnonzero((grid.ravel() != 0) & ~p.present)
    if outside.size:
        r, c = divmod(int(outside[0]), p.cols)
        raise PuzzleError(f"puzzle: cell r{r + 1}c{c + 1} holds {grid[r, c]} but lies outside every grid of the layout")


def refuse_a_whole_grid_rule_twice(rules: Sequence[Rule], names: Sequence[str]) -> None:
    """A rule over the whole grid (anti-knight, ...) given twice, named by its entry as every other
    rule message is (``f.json: rules[1]``, ``--rule 2``); :func:`_check_rules` cannot, the rules
    being in row order there.

    Parameters
    ----------
    rules : sequence of Rule
        The rules in their entries' order.
    names : sequence of str
        How messages name each entry.
    """
    kinds = [rule.kind if rule.global_rule else None for rule in rules]
    again = next((k for k, kind in enumerate(kinds) if kind is not None and kind in kinds[:k]), None)
    if again is not None:
        raise PuzzleError(f"{names[again]}: {kinds[again]} is given twice")


def _rule_name(p: Puzzle, k: int, names: Sequence[str] | None) -> str:
    """How a message names ``p.rules[k]``: by its place in the list it was given in, ``rules[i]``
    counted from 0 as a document's list is, or ``--rule K`` (from 1) as the command line gave it."""
    place = p.rule_number(k) - 1
    if names and place < len(names) and names[place].startswith("--rule "):
        return names[place]
    return f"rules[{place}]"


def _check_rules(p: Puzzle, names: Sequence[str] | None = None) -> None:
    """Rules that contradict each other or the clues: one line naming the rule and where."""
    if not p.rules:
        return
    board = p.board
    kinds = [rule.kind if rule.global_rule else None for rule in p.rules]
    twice = next((k for k, kind in enumerate(kinds) if kind is not None and kind in kinds[:k]), None)
    if twice is not None:
        raise PuzzleError(f"{_rule_name(p, twice, names)}: {kinds[twice]} is given twice")
    # a unit rule may not repeat a unit the puzzle already has (a diagonal of variant x)
    families = [f for f, _ in p._family_parts()]
    again = next((f for f in families if families.count(f) > 1 and FAMILIES[f].single), None)
    if again:
        # the variant's own unit, or the same unit rule twice (two {"rule": "diagonal"})
        if again in (f for f, _ in p._base_families()):
            raise PuzzleError(f"rules: the {FAMILIES[again].word} is already a unit of this puzzle (variant {p.variant})")
        raise PuzzleError(f"rules: the {FAMILIES[again].word} is given twice")
    parity: dict[int, tuple[int, str, str]] = {}   # (place given, kind, name)
    for k, rule in enumerate(p.rules):
        if rule.kind in ("even", "odd"):
            for cell in rule.cells().tolist():
                if cell in parity:   # twice the same mark would be two rows named parity_r_c
                    # named in the order they were given (the search's order is another)
                    (_, _, first), (_, kind, later) = sorted([parity[cell], (p.rule_number(k), rule.kind,
                                                                             _rule_name(p, k, names))])
                    both = "both even and odd" if parity[cell][1] != rule.kind else f"{rule.kind} twice"
                    raise PuzzleError(f"{later} ({kind}): {cell_name(cell, board)} is marked {both} "
                                      f"(first by {first})")
                parity[cell] = (p.rule_number(k), rule.kind, _rule_name(p, k, names))
    _check_rule_clues(p, names)


def _check_rule_clues(p: Puzzle, names: Sequence[str] | None = None) -> None:
    """A rule the clues already break (judged on the clues alone, extra cells empty)."""
    if not p.rules:
        return
    board = p.board
    flat = with_extra(p.grid.ravel(), board.n_extra)
    for k, rule in enumerate(p.rules):
        broken = rule.violations(flat, board)
        if broken:
            # with no clue in its way, the rule cannot hold on any grid (a regex no line of its
            # length matches): saying "the clues" would send the user looking for one; the rule
            # is named by its place in the list it was given in (the search's order is another)
            clued = bool(np.count_nonzero(flat))
            raise ClueConflictError(f"puzzle: {'the clues break a rule' if clued else 'a rule no grid can keep'}: "
                                    f"{_rule_name(p, k, names)} ({rule.kind}): {broken[0]['message']}")


def _validate_regions(regions: np.ndarray, n: int) -> None:
    if regions.shape != (n, n):
        raise PuzzleError(f"regions: expected {n * n} cells (one region id per cell), found {regions.size}")
    counts = np.bincount(regions.ravel(), minlength=n)
    if regions.min() < 0 or counts.size != n:
        raise PuzzleError(f"regions: expected {n} regions of {n} cells each, found {np.count_nonzero(counts)} regions")
    wrong = np.flatnonzero(counts != n)
    if wrong.size:
        g = wrong[0]
        raise PuzzleError(f"regions: expected {n} regions of {n} cells each; region {g + 1} has {counts[g]} cells")


def _check_unit_duplicates(p: Puzzle) -> None:
    """Two equal clues in one unit: name the unit and both cells (the rule-check kernel of
    :mod:`pipeline.core.verify`, as verify_grid uses it)."""
    found = first_duplicate(p.grid, p.unit_families(), p.n_values)
    if found is not None:
        family, unit, digit, cells = found
        digit = int(p.value_of[digit - 1])
        raise ClueConflictError(
            f"puzzle: digit {digit} appears {times(cells.size)} in {unit_name(family, unit, article=True)}: cells "
            f"{cells_text(np.sort(cells), p.cols)}"
        )
