"""Puzzles: an immutable, checked Puzzle, its units (rows, columns, boxes/regions, diagonals)
and its text forms.

Cells are numbered row-major, ``cell = r*N + c`` (0-based). Digits in a grid are ``1..N`` and
``0`` marks an empty cell. Reading inputs is :mod:`pipeline.core.parse` (re-exported here, as
before); what a source holds before it is checked is :mod:`pipeline.core.puzzle_source`;
:func:`parse_puzzle` is the one entry point from any input to a checked Puzzle.
Validation raises :class:`PuzzleError` with a one-line message that names what and where.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from pipeline.core.errors import PuzzleError, clip, json_kind
from pipeline.core.extracells import extra_record_document, extra_to_doc
from pipeline.core.gridtext import format_grid, grid_to_string
from pipeline.core.layout import Layout, canvas_from_text, layout_from_spec
from pipeline.core.options import check_puzzle_options
from pipeline.core.puzzle_source import _Parts, _read_parts, entry_names
from pipeline.core.puzzle_checks import check_clues, check_rules_added, refuse_a_whole_grid_rule_twice, validate
from pipeline.core.parse import (COMPACT_DIGITS, MAX_BYTES_ENV, MAX_TOKEN_DIGITS, REGION_ALPHABET, Box, Source,
                                 check_grid_size, compact_values, default_box, memory_limit, model_bytes, parse_box,
                                 parse_grid, parse_regions, read_puzzle)
from pipeline.core.rect import rect_box_units, rect_spec
from pipeline.core.rules import Board, Rule, rule_from_dict, rule_order
from pipeline.core.svg import SvgPicture, grid_svg, picture_title
from pipeline.core.values import checked_digit_grid, grid_values, value_grid_text, values_spec
from pipeline.core.variants import VARIANT_TABLE, VARIANTS, Variant, box_units, variant_name

__all__ = ["VARIANTS", "COMPACT_DIGITS", "REGION_ALPHABET", "DEFAULT_PUZZLE", "Puzzle", "default_box", "parse_box",
           "parse_puzzle", "parse_grid", "parse_regions", "grid_to_string", "format_grid", "check_grid_size",
           "memory_limit", "model_bytes", "MAX_BYTES_ENV", "MAX_TOKEN_DIGITS", "compact_values", "with_other_clues",
           "shape_cache", "rules_key"]

# The seed puzzle of SEEDS.md section 1 (23 clues): the built-in default.
DEFAULT_PUZZLE = "050079000000000500092000060080000407020600010070250080000040000008020000730001000"


@dataclass(frozen=True, eq=False)
class Puzzle:
    """An N x N puzzle: box shape ``h x w``, variant, optional jigsaw regions, rules beyond the
    variant's units (killer cages, thermometers, anti-knight, ...: :mod:`pipeline.core.rules`), an
    optional gattai ``layout`` (samurai: several N x N grids on one canvas) and its clues."""

    grid: np.ndarray  # (N, N) int, 0 = empty; with a layout the (rows, cols) canvas, absent cells 0
    h: int
    w: int
    variant: str = "classic"
    regions: np.ndarray | None = None  # (N, N) int region number 0..N-1 (jigsaw variants)
    rules: tuple[Rule, ...] = ()
    layout: Layout | None = None
    #: The value of each digit (:mod:`pipeline.core.values`); None: the values ``1..N``. The grid
    #: keeps 1-based digits either way.
    values: tuple[int, ...] | None = None
    extra: tuple = ()   # extra cells outside the grid: ExtraGroup entries (pipeline.core.extracells)
    #: Each rule's 0-based place in the list it was given in (a document's ``rules``): ``rules``
    #: is kept in row order, and messages number rules as the user wrote them. () when the same.
    rule_places: tuple[int, ...] = ()

    def __post_init__(self):
        if self.values is not None:
            values = tuple(int(v) for v in self.values)
            side = self.h * self.w
            object.__setattr__(self, "values", None if values == tuple(range(1, side + 1)) else values)
        try:
            grid = np.array(self.grid, dtype=np.int64)
        except (TypeError, ValueError, OverflowError):   # Puzzle("abc", 3, 3): one line, not int()'s error
            raise PuzzleError(f"puzzle: the grid must be whole numbers (0 empty), found {clip(self.grid)!r}") from None
        grid.setflags(write=False)
        object.__setattr__(self, "grid", grid)
        if self.regions is not None:
            regions = np.array(self.regions, dtype=np.int64)
            regions.setflags(write=False)
            object.__setattr__(self, "regions", regions)
        given = self.rule_places if len(self.rule_places) == len(self.rules) else range(len(self.rules))
        rules, places = _in_row_order(self.rules)
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "rule_places", _places(tuple(given[k] for k in places)))
        validate(self)

    # -- basic facts -----------------------------------------------------------------------
    @cached_property
    def n(self) -> int:
        """Number of digits, which is also the side of each grid (of the whole grid without a layout;
        ``h*w``, at least the longer side, for a rectangular grid: :mod:`pipeline.core.rect`).
        Cached: read tens of times per puzzle as it is read, solved and checked (its shape never
        changes; a copy with other clues works it out again)."""
        return self.h * self.w if self.layout is not None or self.is_rect else self.grid.shape[0]

    @cached_property
    def is_rect(self) -> bool:
        """True for one rectangular grid (``rows != cols``, no layout)."""
        return self.layout is None and self.grid.ndim == 2 and self.grid.shape[0] != self.grid.shape[1]

    @property
    def units_at_most(self) -> bool:
        """True when units hold each value at most once (``<= 1`` rows of ``R``, ``A`` the cell rows
        alone): a value set larger than the side, or a rectangular grid."""
        return self.n_values > self.n or self.is_rect

    @property
    def rows(self) -> int:
        """Rows of the canvas (``N`` without a layout)."""
        return self.grid.shape[0]

    @property
    def cols(self) -> int:
        """Columns of the canvas (``N`` without a layout)."""
        return self.grid.shape[1]

    @cached_property
    def present(self) -> np.ndarray:
        """``(rows * cols,)`` True for the cells of the puzzle (all but a layout's absent cells)."""
        mask = self.layout.present() if self.layout is not None else np.ones(self.grid.size, dtype=bool)
        mask.setflags(write=False)
        return mask

    @property
    def n_cells(self) -> int:
        """Cells of the puzzle (``N * N`` without a layout)."""
        return int(self.present.sum())

    @property
    def _grids(self) -> tuple:
        """The layout's grid corners for :class:`Board` (empty without a layout)."""
        return tuple(self.layout.origins) if self.layout is not None else ()

    @cached_property
    def board(self) -> Board:
        """Where the rules are laid: canvas, digits, boxes, present cells and every unit family."""
        return Board(self.rows, self.cols, self.n, self.h, self.w, self.present, tuple(self.unit_families()),
                     self._grids, self.values or (), self.extra)

    @property
    def n_values(self) -> int:
        """``V``: the digits of each cell (``N`` unless a value set says otherwise)."""
        return len(self.values) if self.values is not None else self.n

    @property
    def value_of(self) -> np.ndarray:
        """``(V,)`` the value of each 0-based digit (``1..N`` by default)."""
        return np.array(self.values if self.values is not None else range(1, self.n + 1), dtype=np.int64)

    def shown(self, grid: np.ndarray) -> np.ndarray:
        """A digit grid (``1..V``, 0 empty) in values, for output (empty cells stay 0).

        Parameters
        ----------
        grid : ndarray of int
            Digits, 0 empty.

        Returns
        -------
        ndarray of int
        """
        return grid_values(checked_digit_grid(grid, self.rows, self.cols, self.n_values, "shown"), self.values)

    @property
    def spec(self) -> Variant:
        """The variant's table entry (:mod:`pipeline.core.variants`)."""
        return VARIANT_TABLE[self.variant]

    @property
    def has_boxes(self) -> bool:
        """True when the variant has ``h x w`` boxes (not latin, not jigsaw)."""
        return self.spec.boxes

    @property
    def has_diagonals(self) -> bool:
        """True when the variant adds the two main diagonals (the X variants)."""
        return self.spec.diagonals

    @property
    def n_clues(self) -> int:
        """Number of given cells."""
        return int(np.count_nonzero(self.grid))

    def clues(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """0-based (r, c, d) of the clues, ordered by r then c."""
        r, c = np.nonzero(self.grid)
        return r, c, self.grid[r, c] - 1

    def __eq__(self, other):
        return (
            isinstance(other, Puzzle)
            and (self.h, self.w, self.variant) == (other.h, other.w, other.variant)
            and np.array_equal(self.grid, other.grid)
            and _same_regions(self.regions, other.regions)
            and self.layout == other.layout
            and self.values == other.values and self.extra == other.extra
            and self.rules_dicts() == other.rules_dicts()
        )

    def __hash__(self):
        return hash((self.to_string(), self.h, self.w, self.variant, self.regions_string(), self.layout,
                     repr(self.rules_dicts()), self.values, self.extra))

    def rule_number(self, k: int) -> int:
        """The 1-based place of ``rules[k]`` in the list the rules were given in (the document's)."""
        return (self.rule_places[k] if self.rule_places else k) + 1

    def rules_dicts(self) -> list[dict]:
        """The rules as puzzle-document entries, in row order."""
        board = self.base_board
        return [rule.to_dict(board) for rule in self.rules]

    def rules_as_given(self) -> list[tuple[int, dict]]:
        """``(place, entry)``: each rule as a puzzle-document entry with its 0-based place in the
        list it was given in, in that order. What writes a document, a link or a string for the
        user keeps their order, and its messages name ``rules[place]`` as they wrote it."""
        board = self.base_board
        order = sorted(range(len(self.rules)), key=self.rule_number)
        return [(self.rule_number(k) - 1, self.rules[k].to_dict(board)) for k in order]

    @cached_property
    def base_board(self) -> Board:
        """The board before the rules' own units (what rules are read and written against)."""
        return Board(self.rows, self.cols, self.n, self.h, self.w, self.present, tuple(self._base_families()),
                     self._grids, self.values or (), self.extra)

    # -- units -----------------------------------------------------------------------------
    def unit_families(self) -> list[tuple[str, np.ndarray]]:
        """``[(family, cells)]`` in docs/conventions.md order (after ``cell``); ``cells`` is
        ``(n_units, N)`` of row-major (canvas) cell numbers, read-only. Which families a puzzle has
        is its variant's table entry (:mod:`pipeline.core.variants`): row, col, box|region, diag,
        anti, then its own; then the units of its rules (windoku windows, ...) in rule order."""
        return list(self._unit_families)

    @cached_property
    def _unit_families(self) -> tuple[tuple[str, np.ndarray], ...]:
        """:meth:`unit_families`, built once (the clue checks, the model and verify_grid each ask;
        a puzzle with other clues shares them: ``_SHAPE_ONLY``)."""
        # one family per name: two extra-region rules are extra regions 1 and 2 (rows
        # extra_1_d, extra_2_d), not two families each numbering its unit 1
        merged: dict[str, list[np.ndarray]] = {}
        for name, units in self._family_parts():
            merged.setdefault(name, []).append(units)
        uneven = next((name for name, parts in merged.items() if len({p.shape[1] for p in parts}) > 1), None)
        if uneven is not None:   # extra regions of a grid of more values may have another size, but one
            sizes = sorted({p.shape[1] for p in merged[uneven]})
            raise PuzzleError(f"rules: the {uneven} units have {' and '.join(map(str, sizes))} cells; all of one size")
        families = tuple((name, parts[0] if len(parts) == 1 else np.concatenate(parts)) for name, parts in merged.items())
        for _, units in families:
            units.flags.writeable = False
        return families

    def _family_parts(self) -> list[tuple[str, np.ndarray]]:
        """The variant's families, then each rule's own, one entry per source (a name may
        repeat: the rule check finds a diagonal given twice here)."""
        families = self._base_families()
        if self.rules:
            board = Board(self.rows, self.cols, self.n, self.h, self.w, self.present, tuple(families), self._grids,
                          self.values or (), self.extra)
            for rule in self.rules:
                families = families + rule.units(board)
        return families

    def _base_families(self) -> list[tuple[str, np.ndarray]]:
        """The variant's (or the layout's) unit families, without the rules' own (a new list of
        the arrays made once per puzzle: reading a rule puzzle asked for them four times)."""
        return list(self._base_family_parts)

    @cached_property
    def _base_family_parts(self) -> tuple[tuple[str, np.ndarray], ...]:
        if self.layout is not None:
            return tuple(self.layout.unit_families())
        n = self.n
        spec = self.spec
        cells = np.arange(self.rows * self.cols).reshape(self.rows, self.cols)
        families = [("row", cells), ("col", cells.T)] if spec.lines else []
        if spec.boxes:
            # boxes numbered row-major over the grid: (block row, block column, p, q)
            families.append(("box", rect_box_units(self.rows, self.cols, self.h, self.w) if self.is_rect
                             else box_units(n, self.h, self.w)))
        if spec.regions and self.regions is not None:
            order = np.argsort(self.regions.ravel(), kind="stable")
            families.append(("region", order.reshape(-1, n)))
        if spec.diagonals:
            i = np.arange(n)
            families.append(("diag", cells[i, i][None, :]))
            families.append(("anti", cells[i, n - 1 - i][None, :]))
        if spec.extra_units is not None:
            families.extend(spec.extra_units(n, self.h, self.w))
        return tuple(families)

    # -- text forms ------------------------------------------------------------------------
    def to_string(self) -> str:
        """Compact form (``.`` for empty) when N <= 35, else space-separated integers (a layout:
        its whole canvas row-major, absent cells ``.``); with a value set, the grid in values
        (:func:`pipeline.core.values.value_grid_text`)."""
        if self.values is not None:
            return value_grid_text(self.grid, self.values)
        return grid_to_string(self.grid, self.n)

    def to_document(self) -> dict:
        """The puzzle document (:mod:`pipeline.core.document`) that reads back as this puzzle."""
        doc: dict = {"size": rect_spec(self.rows, self.cols) if self.is_rect else self.n, "box": f"{self.h}x{self.w}"}
        if self.values is not None:
            doc["values"] = values_spec(self.values)
        doc.update({"extra": extra_to_doc(self.extra)} if self.extra else {})
        if self.variant != "classic":
            doc["variant"] = self.variant
        if self.regions is not None:
            doc["regions"] = self.regions_string()
        if self.layout is not None:
            doc["layout"] = self.layout.to_spec()
            doc["givens"] = [grid_to_string(row[None, :], self.n) for row in self.grid]
        else:
            doc["givens"] = self.to_string()
        if self.rules:
            doc["rules"] = [entry for _, entry in self.rules_as_given()]
        return doc

    def regions_string(self) -> str | None:
        """Region ids as one compact line (``0-9A-Z``) when N <= 36, else space-separated; None without regions."""
        if self.regions is None:
            return None
        return "".join(REGION_ALPHABET[v] for v in self.regions.ravel()) if self.n <= 36 else \
            " ".join(map(str, self.regions.ravel()))

    def to_dict(self) -> dict:
        """The manifest's record of the puzzle (``rules`` and ``layout`` only when it has them,
        so a puzzle of units alone is recorded as before)."""
        out: dict = {
            "puzzle": self.to_string(),
            "n": self.n,
            "h": self.h,
            "w": self.w,
            "variant": self.variant,
            "regions": self.regions_string(),
            "n_clues": self.n_clues,
            **({"extra": extra_to_doc(self.extra)} if self.extra else {}),
        }
        if self.layout is not None or self.is_rect:
            out["canvas"] = [self.rows, self.cols]
        if self.layout is not None:
            out["layout"] = self.layout.to_spec()
        if self.rules:
            out["rules"] = self.rules_dicts()
        if self.values is not None:   # "puzzle" is then written in values
            out["values"] = values_spec(self.values)
        return out

    # -- pictures (Jupyter) ----------------------------------------------------------------
    def picture(self, grid=None) -> SvgPicture:
        """The grid drawn as SVG: boxes or regions, diagonals, clues in bold, and the digits
        ``grid`` fills in (a solution, or any partly filled grid) in blue. Shows itself in
        Jupyter; ``.svg`` is the text.

        Parameters
        ----------
        grid : array_like, optional
            (N, N) digits 0..N (0 = empty), e.g. ``solver.solve(model).grid``.

        Returns
        -------
        SvgPicture

        Raises
        ------
        PuzzleError
            ``grid`` is not N x N or holds a value outside 0..N.

        Examples
        --------
        >>> p = parse_puzzle("1..." + "." * 12)
        >>> p.picture(p.grid).svg.count("<text")
        1
        """
        if grid is not None:
            grid = checked_digit_grid(grid, self.rows, self.cols, self.n_values, "picture")
        return SvgPicture(grid_svg(self, grid))

    def _repr_svg_(self) -> str:
        """Jupyter shows a puzzle as its drawn grid."""
        return grid_svg(self)

    def summary(self) -> str:
        """One line: size, variant, clue count and the rules (``9x9 classic, 0 clues; 29 killer
        cages``), as the picture's title says it."""
        return picture_title(self)

    def __repr__(self) -> str:
        """The summary line, then the grid (``.`` for empty); short, whatever the rules."""
        boxes = (self.h, self.w) if self.has_boxes and self.layout is None else (None, None)
        return f"<Puzzle {self.summary()}>\n{format_grid(self.grid, boxes[0], boxes[1], values=self.values)}"

    __str__ = __repr__

    @classmethod
    def from_dict(cls, d: dict) -> "Puzzle":
        """The puzzle of a manifest record (:meth:`to_dict`), checked again on the way in."""
        if not isinstance(d, dict) or not {"h", "w", "puzzle"} <= d.keys():
            raise PuzzleError(f"puzzle record: a dict with keys h, w and puzzle (Puzzle.to_dict), found {clip(d, 60)}")
        if d.get("extra"):   # extra cells outside the grid: read as the document is
            return parse_puzzle(extra_record_document(d))
        box = f"{d['h']}x{d['w']}"
        rect = d.get("layout") is None and d.get("canvas") is not None
        if d.get("values") is not None or rect:   # the givens are values: read as the document is
            doc = {"box": box, "values": d.get("values"), "givens": d["puzzle"], "rules": d.get("rules") or [],
                   "variant": d.get("variant", "classic")}
            if rect:
                doc["size"] = rect_spec(*d["canvas"])
            if d.get("values") is None:
                del doc["values"]
            if d.get("regions") is not None:
                doc["regions"] = d["regions"]
            return parse_puzzle(doc)
        if d.get("layout") is None and not d.get("rules"):
            return parse_puzzle(d["puzzle"], box=box, variant=d.get("variant", "classic"),
                                regions=d.get("regions"))
        h, w = parse_box(box)
        layout = None if d.get("layout") is None else layout_from_spec(d["layout"], h, w)
        if layout is None:
            parts = read_puzzle(d["puzzle"], box=box, variant=d.get("variant", "classic"), regions=d.get("regions"))
            grid, variant, regions = parts.grid, parts.variant, parts.regions
        else:
            grid = canvas_from_text(d["puzzle"], layout, "puzzle")
            variant, regions = d.get("variant", "classic"), None
        return with_rules(grid, h, w, variant, regions, layout, d.get("rules") or [])


def _same_regions(a, b) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))


# ---------------------------------------------------------------------------------------------
# any input -> a checked Puzzle
# ---------------------------------------------------------------------------------------------
def parse_puzzle(source: Source | dict, *, box: Box = None, variant: str | None = None, regions: Source | None = None,
                 size: int | None = None, rules: list | None = None, rules_where: str = "--rule") -> Puzzle:
    """Build a checked Puzzle from a string, a path, ``-`` (stdin), a grid array or an N-by-3 array.

    Parameters
    ----------
    source : str, pathlib.Path, ndarray, list of lists or Puzzle
        A compact line (``53..7....``; ``.``/``0`` empty, ``A-Z`` for 10..35), rows of cells
        separated by spaces, commas or ``|``, a CSV grid, an N-by-3 clue list (1-based
        ``row col digit``, one per line), a file holding any of these, ``-`` for stdin, or an
        N-by-N / N-by-3 array. A Puzzle is returned as it is.
    box : str or (int, int), optional
        Box shape ``"HxW"`` or ``(h, w)``; default: the most square ``h x w`` with ``h <= w``.
    variant : str, optional
        A name of the variant table (:data:`pipeline.core.variants.VARIANTS`); default ``jigsaw``
        when ``regions`` are given, else ``classic``.
    regions : str, pathlib.Path or ndarray, optional
        One region id per cell (jigsaw variants), as text, a file or an array.
    size : int, optional
        ``N`` for a clue list (default 9); for a grid it must agree with the grid.
    rules : list of dict, optional
        More rule entries (``{"rule": "antiknight"}``, ``--rule``), added to the puzzle's own.
    rules_where : str
        How messages name ``rules`` of a puzzle that is not a document: ``--rule`` (entries
        counted from 1) or a list's name (``rules``: ``rules[0]``).

    Returns
    -------
    Puzzle
        The puzzle, its clues checked against the variant's rules.

    Raises
    ------
    PuzzleError
        One line naming what is wrong and where: unreadable input, wrong shape or length, a
        bad cell, a box that does not tile the grid, an unknown variant, bad regions, a digit
        twice in a unit, or a model too large for the memory limit.

    Examples
    --------
    >>> p = parse_puzzle("1..." "..3." ".4.." "...2", box="2x2")
    >>> p.n, p.n_clues, p.variant
    (4, 4, 'classic')
    >>> parse_puzzle("11.." + "." * 12)
    Traceback (most recent call last):
        ...
    pipeline.core.errors.ClueConflictError: puzzle: digit 1 appears twice in row 1: cells (1, 1) and (1, 2)
    """
    check_puzzle_options(box, variant, size, rules, source, regions)   # an API caller's box=5: one line
    variant = None if variant is None else variant_name(variant)   # "Classic" from a spreadsheet
    if isinstance(source, Puzzle) and (box, variant, regions, size) != (None,) * 4:
        # read again from its document, the keys the options name left out (they were ignored)
        given = {"box": box, "variant": variant, "regions": regions, "size": size}
        doc = {k: v for k, v in source.to_document().items() if k not in given or given[k] is None}
        return parse_puzzle(doc, box=box, variant=variant, regions=regions, size=size, rules=rules,
                            rules_where=rules_where)
    if isinstance(source, Puzzle):
        if rules:
            had = len(source.rules)
            return Puzzle(source.grid, source.h, source.w, source.variant, source.regions,
                          source.rules + tuple(rule_from_dict(e, source.base_board, name)
                                               for name, e in zip(entry_names("--rule", len(rules)), rules)),
                          source.layout, source.values, source.extra,
                          tuple(source.rule_number(k) - 1 for k in range(had)) + tuple(range(had, had + len(rules))))
        return source
    parts = _read_parts(source, box, variant, regions, size, rules, rules_where)
    return _checked(parts.grid, parts)


def shape_and_clues(source: Source | dict, *, box: Box = None, variant: str | None = None,
                    regions: Source | None = None, size: int | None = None,
                    rules: list | None = None) -> tuple[Puzzle, np.ndarray]:
    """Read a puzzle as :func:`parse_puzzle` does, but return its shape (no clues; its rules
    checked) and its clues unchecked: for ``explain``, whose input may break a rule directly.

    Parameters
    ----------
    source : str, pathlib.Path, dict or ndarray
        What :func:`parse_puzzle` reads (not a Puzzle).
    box, variant, regions, size, rules
        As for :func:`parse_puzzle`.

    Returns
    -------
    (Puzzle, numpy.ndarray)
        The checked shape and the clue grid (``rows x cols``, 0 empty).

    Raises
    ------
    PuzzleError
        Anything :func:`parse_puzzle` refuses other than clues breaking a rule.

    Examples
    --------
    >>> shape, clues = shape_and_clues("11.." + "." * 12)
    >>> shape.n_clues, int(clues.sum())
    (0, 2)
    """
    parts = _read_parts(source, box, variant, regions, size, rules)
    return _checked(np.zeros_like(parts.grid), parts), np.asarray(parts.grid)


def _checked(grid: np.ndarray, parts: _Parts) -> Puzzle:
    if parts.rule_entries is None:
        return Puzzle(grid, parts.h, parts.w, parts.variant, parts.regions, values=parts.values, extra=parts.extra)
    return with_rules(grid, parts.h, parts.w, parts.variant, parts.regions, parts.layout, parts.rule_entries,
                      parts.where, parts.rule_names, parts.values, parts.extra)


# ---------------------------------------------------------------------------------------------
# puzzles with rules and layouts
# ---------------------------------------------------------------------------------------------
def with_rules(grid: np.ndarray, h: int, w: int, variant: str, regions: np.ndarray | None, layout: Layout | None,
               rule_entries: list, where: str = "rules", names: list[str] | None = None,
               values: tuple[int, ...] | None = None, extra: tuple = ()) -> Puzzle:
    """A checked Puzzle with rules read from puzzle-document entries (``{"rule": ...}``), each
    checked against the puzzle's board before the puzzle itself is checked.

    Parameters
    ----------
    grid : ndarray of int
        The clues (``N x N``, or the layout's canvas).
    h, w : int
        Box shape.
    variant : str
        Variant name (its units come first).
    regions : ndarray or None
        Jigsaw regions.
    layout : Layout or None
        A gattai layout.
    rule_entries : list of dict
        The document's ``"rules"``.
    where : str
        How messages name the list.
    names : list of str, optional
        How messages name each entry (default ``where[k]``, or ``--rule K`` counted from 1).
    values, extra : tuple, optional
        The value set (:mod:`pipeline.core.values`; default ``1..N``); extra cells (:mod:`pipeline.core.extracells`).

    Returns
    -------
    Puzzle
    """
    if not isinstance(rule_entries, list):
        raise PuzzleError(f"{where}: expected a list of rules, found {json_kind(rule_entries)}")
    bare = Puzzle(grid, h, w, variant, regions, (), layout, values, extra)
    board = bare.base_board
    if names is None:
        names = entry_names(where, len(rule_entries))
    rules = tuple(rule_from_dict(entry, board, name) for name, entry in zip(names, rule_entries))
    if not rules:
        return bare
    refuse_a_whole_grid_rule_twice(rules, names)
    # the bare puzzle passed every check that does not involve the rules: only those are made again
    # (a rule puzzle's second full check was a fifth of reading it)
    ordered, places = _in_row_order(rules)
    puzzle = _unchecked_copy(bare, _BEFORE_RULES, rules=ordered, rule_places=_places(places))
    check_rules_added(puzzle, names)
    return puzzle


#: What a puzzle without its rules computed that holds with them too (the rules' own units are
#: not in ``base_board`` nor in the variant's families, which each rule puzzle read made twice).
_BEFORE_RULES = ("present", "base_board", "_base_family_parts")


def _in_row_order(rules: tuple[Rule, ...] | list[Rule]) -> tuple[tuple[Rule, ...], tuple[int, ...]]:
    """``rules`` in row order (registry order, stable within a kind), each bound to the others
    (a strict XV learns the marks), and each one's place in ``rules``."""
    places = tuple(sorted(range(len(rules)), key=lambda k: rule_order(rules[k])))
    ordered = tuple(rules[k] for k in places)
    return tuple(rule.bind(ordered) for rule in ordered), places


def _places(places: tuple[int, ...]) -> tuple[int, ...]:
    """``Puzzle.rule_places``: () when the rules were given in row order."""
    return () if places == tuple(range(len(places))) else places


# ---------------------------------------------------------------------------------------------
# the same puzzle with other clues
# ---------------------------------------------------------------------------------------------
#: The cached properties a puzzle computes from its shape and rules alone (never its clues): a puzzle
#: with other clues (:func:`with_other_clues`) shares them, and :func:`shape_cache`'s dict.
_SHAPE_ONLY = ("present", "board", "base_board", "_unit_families", "_base_family_parts")


def shape_cache(puzzle: Puzzle) -> dict:
    """A dictionary for what later stages derive from ``puzzle``'s shape and rules alone (a rule
    kind's rows, a solver's rule tables): kept in the puzzle, shared by every puzzle
    :func:`with_other_clues` makes from it. What goes in must not depend on the clues.

    Parameters
    ----------
    puzzle : Puzzle
        Any puzzle.

    Returns
    -------
    dict
    """
    return vars(puzzle).setdefault("_shape_cache", {})   # the frozen dataclass's fields stay untouched


def rules_key(puzzle: Puzzle, entries: list[dict] | None = None) -> tuple:
    """Everything of ``puzzle`` but its clues, hashable: canvas, box, variant, regions, rules (as
    document entries), layout, values and extra cells. Puzzles with equal keys have the same rows
    and columns, so they may share what is built from them (a batch's rule group, the SAT engine's
    cache); :func:`with_other_clues` keeps it.

    Parameters
    ----------
    puzzle : Puzzle
        Any puzzle.
    entries : list of dict, optional
        ``puzzle.rules_dicts()``, when the caller made them already (not made again).

    Returns
    -------
    tuple
    """
    return (puzzle.grid.shape, puzzle.h, puzzle.w, puzzle.variant, puzzle.regions_string(),
            repr(puzzle.rules_dicts() if entries is None else entries) if puzzle.rules else None, puzzle.layout,
            puzzle.values, puzzle.extra)


def with_other_clues(puzzle: Puzzle, grid: np.ndarray) -> Puzzle:
    """``puzzle`` (checked) with the clues ``grid`` instead of its own: only what clues can break is
    checked again (a clue out of range, twice in a unit, or breaking a rule), and what was built
    from the shape and rules (its board, the rules' rows: :func:`shape_cache`) is shared, not
    built again. A batch's records that share their rules are made this way.

    Parameters
    ----------
    puzzle : Puzzle
        The shape, rules, layout, values and extra cells.
    grid : ndarray of int
        The clues, of ``puzzle.grid``'s shape (or flattened).

    Returns
    -------
    Puzzle

    Raises
    ------
    PuzzleError
        A clue out of range or a grid of another size; :class:`ClueConflictError` for clues that
        break a unit or a rule.
    """
    clues = np.array(grid, dtype=np.int64)
    if clues.size != puzzle.grid.size:
        raise PuzzleError(f"puzzle: {clues.size} cells of clues for a {'x'.join(map(str, puzzle.grid.shape))} puzzle")
    clues = clues.reshape(puzzle.grid.shape)
    clues.setflags(write=False)
    other = _unchecked_copy(puzzle, _SHAPE_ONLY, grid=clues, _shape_cache=shape_cache(puzzle))
    check_clues(other)
    return other


def _unchecked_copy(puzzle: Puzzle, shared: tuple[str, ...], **changes) -> Puzzle:
    """``puzzle``'s fields and its cached ``shared`` properties, then ``changes``, without
    ``__post_init__``'s checks: the caller checks what the changes can break."""
    copy = object.__new__(Puzzle)
    for name, value in vars(puzzle).items():
        if name in Puzzle.__dataclass_fields__ or name in shared:
            object.__setattr__(copy, name, value)
    for name, value in changes.items():
        object.__setattr__(copy, name, value)
    return copy

