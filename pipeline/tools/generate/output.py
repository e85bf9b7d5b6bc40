"""What generation yields and how it is written: :class:`Generated` and the output formats
(line, grid, json lines, csv with a header: batch's input with regions and variant)."""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import Puzzle, format_grid, grid_to_string

__all__ = ["CSV_COLUMNS", "FORMATS", "Generated", "__version__", "format_results"]

#: The generator's version, recorded in every JSON/CSV result.
__version__ = "2"
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
    if fmt == "json":
        return "".join(json.dumps(g.to_dict()) + "\n" for g in results)
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        # a "rules" column (JSON list of rule entries) only when a puzzle has rules: plain output unchanged
        columns = CSV_COLUMNS + (("rules",) if any(g.puzzle.rules for g in results) else ())
        writer.writerow(columns)
        for g in results:
            d = g.to_dict()
            d["rules"] = json.dumps(d["rules"]) if "rules" in d else None
            writer.writerow(["" if d[k] is None else d[k] for k in columns])
        return buf.getvalue()
    if fmt == "grid":
        if any(g.puzzle.rules for g in results):
            raise PuzzleError("format: a grid cannot carry rules; use --format line (puzzle documents), json or csv")
        return "\n".join(format_grid(g.puzzle.grid, g.puzzle.h if g.puzzle.has_boxes else None,
                                     g.puzzle.w if g.puzzle.has_boxes else None) + "\n" for g in results)
    # a line cannot carry rules: a puzzle with rules is its puzzle document on one line (every
    # command reads it back as a puzzle)
    return "".join((json.dumps(g.puzzle.to_document()) if g.puzzle.rules else grid_to_string(g.puzzle.grid)) + "\n"
                   for g in results)
