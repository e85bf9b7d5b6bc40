"""What generation yields and how it is written: :class:`Generated` and the output formats
(line, grid, json lines, csv with a header: batch's input with regions and variant)."""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.parse import default_box
from pipeline.core.puzzle import Puzzle, format_grid, grid_to_string

__all__ = ["CSV_COLUMNS", "FORMATS", "Generated", "__version__", "format_results", "iter_formatted"]

#: The generator's version, recorded in every JSON result: 3 since the searches run in conflict-budget
#: slices (a seed may give other full grids than under version 2 where a search is long: 25x25 and up).
__version__ = "3"
FORMATS = ("line", "grid", "json", "csv")
CSV_COLUMNS = ("puzzle", "regions", "variant", "solution", "clues", "minimal", "seed", "index")


@dataclass
class Generated:
    """A generated puzzle with its solution and how it was made (``to_dict`` for JSON/CSV)."""

    puzzle: Puzzle
    solution: np.ndarray
    seed: int
    index: int
    seconds: float
    minimal: bool | None
    target: int | None = None
    rating: dict | None = field(default=None)
    #: what the cages-only refinement did (:class:`~pipeline.tools.generate.killer.KillerReport`)
    killer: dict | None = field(default=None)
    #: removal ended at the target: an orbit still removable would have gone below it (a symmetric
    #: orbit of 2 or 4 cells; the clue count may then be above ``target`` by less than the orbit)
    held_by_target: bool = False

    @property
    def stopped_at_target(self) -> bool:
        """Whether removal stopped at the clue target (``--clues``): such a puzzle is not minimal
        by request, not for want of a pattern."""
        return self.target is not None and (self.puzzle.n_clues <= self.target or self.held_by_target)

    def to_dict(self) -> dict:
        d: dict[str, Any] = {"puzzle": grid_to_string(self.puzzle.grid), "regions": self.puzzle.regions_string(),
             "variant": self.puzzle.variant, "size": self.puzzle.n, "box": f"{self.puzzle.h}x{self.puzzle.w}",
             "solution": grid_to_string(self.solution), "clues": self.puzzle.n_clues,
             "target_clues": self.target, "minimal": self.minimal, "unique": True, "seed": self.seed,
             "index": self.index, "version": __version__, "seconds": round(self.seconds, 6)}
        if self.rating is not None:
            d["rating"] = self.rating
        if self.puzzle.rules:   # the rules and the whole puzzle document, only for puzzles that have rules
            d["rules"] = self.puzzle.rules_dicts()
            d["document"] = self.puzzle.to_document()
        if self.killer is not None:
            d["killer"] = self.killer
        return d


def format_results(results: list[Generated], fmt: str) -> str:
    """Text of ``results`` in ``fmt`` (line, grid, json lines, csv with a header).

    Parameters
    ----------
    results : list of Generated
        The puzzles.
    fmt : str
        One of :data:`FORMATS`.
    """
    return "".join(iter_formatted(results, fmt))


def grid_refusal(variant: str = "classic", rules: bool = False) -> str | None:
    """Why ``--format grid`` cannot write a puzzle of this kind (None: it can): a grid says
    neither rules nor a variant. Its boxes it draws (``|`` and ``---+---`` lines), and a grid read
    back keeps the boxes they draw (:func:`pipeline.core.boxlines.drawn_box`).

    Parameters
    ----------
    variant : str
        The puzzle's variant.
    rules : bool
        Whether it has rules beyond units.

    Returns
    -------
    str or None
    """
    what = "rules" if rules else f"the {variant} variant" if variant != "classic" else None
    return None if what is None else f"format: a grid cannot carry {what}; use --format line (puzzle documents), json or csv"


def _box_unsaid(puzzle: Puzzle) -> bool:
    """Boxes a line of cells cannot say: not the squarest shape every reader assumes for the side
    (a 6x6 of 3x2 boxes read back as 2x3 got other boxes, and batch solved another puzzle)."""
    return puzzle.has_boxes and puzzle.layout is None and (puzzle.h, puzzle.w) != default_box(puzzle.n)


def iter_formatted(results: Iterable[Generated], fmt: str) -> Iterator[str]:
    """The text of :func:`format_results`, one piece per puzzle as each arrives (the csv header
    and the blank line between two grids go with the puzzle after them): a command streams
    each puzzle as soon as it is made, whole lines only.

    A line cannot carry rules, regions or boxes other than the squarest: such a puzzle is its
    puzzle document on one line, which every command reads back as a puzzle (csv's ``puzzle``
    column holds the document when the boxes need it); csv gets a ``rules`` column (JSON list
    of rule entries) when the first puzzle has rules (one run's puzzles all have them or none: plain output is
    unchanged); a grid refuses rules and variants, and draws its boxes.

    Parameters
    ----------
    results : iterable of Generated
        The puzzles (e.g. :func:`pipeline.tools.generate.generate`'s stream).
    fmt : str
        One of :data:`FORMATS`.
    """
    columns: tuple[str, ...] = CSV_COLUMNS
    for i, g in enumerate(results):
        if fmt == "json":
            yield json.dumps(g.to_dict()) + "\n"
        elif fmt == "csv":
            buf = io.StringIO()
            writer = csv.writer(buf, lineterminator="\n")
            if i == 0:
                columns = CSV_COLUMNS + (("rules",) if g.puzzle.rules else ())
                writer.writerow(columns)
            d = g.to_dict()
            d["rules"] = json.dumps(d["rules"]) if "rules" in d else None
            if _box_unsaid(g.puzzle):   # the cells as a document that names its boxes (the rules stay in their column)
                d["puzzle"] = json.dumps({k: v for k, v in g.puzzle.to_document().items() if k != "rules"})
            writer.writerow(["" if d.get(k) is None else d[k] for k in columns])
            yield buf.getvalue()
        elif fmt == "grid":
            p = g.puzzle
            why = grid_refusal(p.variant, bool(p.rules))
            if why:
                raise PuzzleError(why)
            text = format_grid(p.grid, p.h if p.has_boxes else None, p.w if p.has_boxes else None) + "\n"
            yield text if i == 0 else "\n" + text
        else:
            # what one line of cells cannot carry (rules, jigsaw regions, boxes other than the
            # squarest, a variant: an X puzzle read back as classic had 5 solutions) goes as a document line
            whole = g.puzzle.rules or g.puzzle.regions is not None or _box_unsaid(g.puzzle) or g.puzzle.variant != "classic"
            yield (json.dumps(g.puzzle.to_document()) if whole else grid_to_string(g.puzzle.grid)) + "\n"
