"""What generation yields and how it is written: :class:`Generated` and the output formats
(line, grid, json lines, csv with a header: batch's input with regions and variant)."""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

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

    def to_dict(self) -> dict:
        d: dict[str, Any] = {"puzzle": grid_to_string(self.puzzle.grid), "regions": self.puzzle.regions_string(),
             "variant": self.puzzle.variant, "size": self.puzzle.n, "box": f"{self.puzzle.h}x{self.puzzle.w}",
             "solution": grid_to_string(self.solution), "clues": self.puzzle.n_clues,
             "target_clues": self.target, "minimal": self.minimal, "unique": True, "seed": self.seed,
             "index": self.index, "version": __version__, "seconds": round(self.seconds, 6)}
        if self.rating is not None:
            d["rating"] = self.rating
        return d


CSV_COLUMNS = ("puzzle", "regions", "variant", "solution", "clues", "minimal", "seed", "index")


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
        writer.writerow(CSV_COLUMNS)
        for g in results:
            d = g.to_dict()
            writer.writerow(["" if d[k] is None else d[k] for k in CSV_COLUMNS])
        return buf.getvalue()
    if fmt == "grid":
        return "\n".join(format_grid(g.puzzle.grid, g.puzzle.h if g.puzzle.has_boxes else None,
                                     g.puzzle.w if g.puzzle.has_boxes else None) + "\n" for g in results)
    return "".join(grid_to_string(g.puzzle.grid) + "\n" for g in results)
