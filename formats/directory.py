"""An export directory: every chosen format's files plus ``manifest.json``, and a solver's
solution file read back against that manifest.

This is the formats layer's own entry point for whole exports, so that the solver runners
(which export, run a solver and import its answer) do not depend on the application layer;
``pipeline.export`` and ``pipeline.importer`` re-export these names for users.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipeline.build import Model, build_model
from pipeline.decode import grid_from_vector
from pipeline.errors import FormatError
from pipeline.manifest import MANIFEST_NAME, Manifest, export_manifest
from pipeline.verify import Verdict, residual, verify_grid

from .base import FORMATS, Format, format_for
from .files import atomic_open, load_manifest_file
from .solutions import read_solution


def write_manifest(directory, model, files: dict[str, list[str]], formats: dict | None = None) -> Path:
    """Write ``manifest.json`` (atomically) describing ``model`` and the files of the export.

    ``formats`` holds per-format facts (e.g. the fixed-MPS short-name rule) under its name.
    """
    path = Path(directory) / MANIFEST_NAME
    with atomic_open(path) as f:
        json.dump(export_manifest(model, files, formats), f, indent=2)
        f.write("\n")
    return path


def exporting_formats() -> list[str]:
    """Names of the registered formats that contribute files to an export (``all``)."""
    return [name for name, fmt in FORMATS.items() if fmt.export is not None]


def resolve_formats(spec: str | list[str] | None) -> list[Format]:
    """``"all"``, ``None``, ``"csv,mps"`` or a list -> formats (``mat`` is an alias of matlab)."""
    if spec is None or spec == "all":
        names = exporting_formats()
    else:
        names = spec.split(",") if isinstance(spec, str) else list(spec)
    aliases = {"mat": "matlab", "m": "matlab", "pq": "parquet"}
    return [format_for(aliases.get(n.strip().lower(), n.strip().lower()), need="export") for n in names if n.strip()]


# atomic_open's temporary files: ".<target name>.<8 random characters>.tmp" (tempfile.mkstemp)
_TEMPORARY = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.tmp$")


def prepare_directory(directory) -> Path:
    """Create the export directory (or check it), and remove temporary files a killed export left.

    Parameters
    ----------
    directory : str or Path

    Returns
    -------
    Path

    Raises
    ------
    FormatError
        ``directory`` is a file or a dangling symbolic link, cannot be created, or holds a
        directory where ``manifest.json`` is to be written.
    """
    directory = Path(directory)
    if directory.is_symlink() and not directory.exists():
        raise FormatError(f"{directory}: is a symbolic link to {os.readlink(directory)!r}, which does not exist")
    if directory.exists() and not directory.is_dir():
        raise FormatError(f"{directory}: exists and is not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise FormatError(f"{directory}: cannot create the export directory: {e.strerror or e}") from None
    manifest = directory / MANIFEST_NAME
    if manifest.is_dir():
        raise FormatError(f"{manifest}: is a directory; the export's manifest cannot be written there")
    for leftover in directory.iterdir():
        if _TEMPORARY.match(leftover.name) and leftover.is_file() and not leftover.is_symlink():
            with contextlib.suppress(OSError):
                leftover.unlink()
    return directory


def export_model(model: Model, directory, formats=None, **options) -> dict[str, list[Path]]:
    """Write ``model`` in each format into ``directory`` (created), then its manifest.

    Every file is written atomically, so an interrupted export never leaves a half file.
    Returns ``{format name: [paths]}`` including ``{"manifest": [path]}``.
    """
    chosen = resolve_formats(formats)  # an unknown name fails before the directory is touched
    if not chosen:
        raise FormatError(f"formats: {formats!r} names no format; known: {', '.join(exporting_formats())}")
    directory = prepare_directory(directory)
    written: dict[str, list[Path]] = {}
    described: dict[str, dict] = {}
    for fmt in chosen:
        written[fmt.name] = [Path(p) for p in fmt.export(model, directory, **options)]
        if fmt.describe is not None:
            described[fmt.name] = fmt.describe(model, **options)
    manifest = write_manifest(directory, model, {k: [p.name for p in v] for k, v in written.items()},
                              described)
    written["manifest"] = [manifest]
    return written


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
        return manifest if isinstance(manifest, Manifest) else load_manifest_file(manifest)
    beside = Path(solution_path).resolve().parent / MANIFEST_NAME
    if beside.exists():
        return load_manifest_file(beside)
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
