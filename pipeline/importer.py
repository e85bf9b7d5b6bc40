"""Import a solver's answer (any supported solution file) back to a grid and verify it."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from formats.solutions import read_solution

from .build import build_model
from .decode import grid_from_vector
from .errors import FormatError
from .manifest import MANIFEST_NAME, Manifest, load_manifest
from .verify import Verdict, residual, verify_grid


@dataclass
class ImportResult:
    grid: np.ndarray
    verdict: Verdict
    residual: float
    format: str
    manifest: Manifest
    solver_status: str | None = None


def find_manifest(solution_path, manifest=None) -> Manifest:
    """The manifest given, else ``manifest.json`` beside the solution file."""
    if manifest is not None:
        return manifest if isinstance(manifest, Manifest) else load_manifest(manifest)
    beside = Path(solution_path).resolve().parent / MANIFEST_NAME
    if beside.exists():
        return load_manifest(beside)
    raise FormatError(
        f"{solution_path}: no manifest given and no {MANIFEST_NAME} beside it: pass --manifest DIR/manifest.json"
    )


def import_solution(path, manifest=None) -> ImportResult:
    """Read ``path`` (format detected by content), decode it to a grid, verify against the manifest."""
    man = find_manifest(path, manifest)
    sol = read_solution(path, man)
    grid = grid_from_vector(sol.values, man.convention, where=str(path))
    model = build_model(man.puzzle, man.convention.scheme, man.convention.order, man.clue_encoding)
    if model.n_cols != man.n_cols or not np.array_equal(model.columns, man.columns):
        raise FormatError(f"{man.path}: kept-column map does not match the puzzle it records")
    res = residual(model, sol.values[model.columns])
    return ImportResult(grid, verify_grid(grid, man.puzzle), res, sol.format, man, sol.status)
