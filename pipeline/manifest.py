"""The metadata that travels with every export (CONVENTIONS.md), as JSON and as comment lines."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .conventions import Convention, make_convention
from .errors import FormatError
from .puzzle import Puzzle

MANIFEST_NAME = "manifest.json"
FORMAT_VERSION = 1
COMMENT_TAG = "sudoku-pipeline:"


def model_metadata(model, *, with_columns: bool = True) -> dict:
    """Every fact an importer needs to map a file's columns back to cells and digits."""
    conv = model.convention
    meta = {
        "format_version": FORMAT_VERSION,
        **model.puzzle.to_dict(),
        "scheme": conv.scheme,
        "order": conv.order,
        "clue_encoding": model.clue_encoding,
        "shape": list(conv.shape),
        "rows": model.n_rows,
        "columns": model.n_cols,
        "nonzeros": model.nnz,
        "families": model.family_counts(),
        "objective": "zero" if model.objective is None else "custom",
        "index_base": {"names": 1, "matlab": 1, "csv_triplets": 1, "parquet": 0, "json_lists": 0},
    }
    if model.is_reduced and with_columns:
        meta["kept_columns"] = model.columns.tolist()  # 0-based full positions of solver columns
    return meta


def comment_line(model) -> str:
    """One-line JSON of the metadata for MPS/LP comments (names carry the kept-column map)."""
    meta = model_metadata(model, with_columns=False)
    if model.is_reduced:
        meta["kept_columns"] = "by name"
    return f"{COMMENT_TAG} {json.dumps(meta, separators=(',', ':'))}"


def parse_comment_line(line: str) -> dict | None:
    """Metadata from a comment line written by :func:`comment_line` (comment marker stripped)."""
    k = line.find(COMMENT_TAG)
    if k < 0:
        return None
    try:
        return json.loads(line[k + len(COMMENT_TAG):])
    except json.JSONDecodeError:
        return None


def export_manifest(model, files: dict[str, list[str]], formats: dict | None = None) -> dict:
    """The ``manifest.json`` content of an export of ``model``: its metadata, the files of each
    format and per-format facts (e.g. the fixed-MPS short-name rule) under the format's name.
    Writing it is the formats layer's job (:func:`formats.directory.write_manifest`)."""
    meta = model_metadata(model)
    meta["files"] = files
    if formats:
        meta["formats"] = formats
    return meta


@dataclass(frozen=True)
class Manifest:
    """A loaded manifest: the puzzle, the convention, the clue encoding and the column map."""

    puzzle: Puzzle
    convention: Convention
    clue_encoding: str
    columns: np.ndarray  # 0-based full positions of the exported columns
    data: dict
    path: Path | None = None

    @property
    def n_cols(self) -> int:
        return self.columns.size

    @property
    def clue_positions(self) -> np.ndarray | None:
        """Full positions of the clue variables a ``reduce`` export dropped (None otherwise)."""
        if self.clue_encoding != "reduce":
            return None
        r, c, d = self.puzzle.clues()
        return np.asarray(self.convention.position(r, c, d), dtype=np.int64)


def manifest_from_dict(meta: dict, where: str = "manifest") -> Manifest:
    try:
        puzzle = Puzzle.from_dict(meta)
        conv = make_convention(meta["scheme"], meta["order"], puzzle.h, puzzle.w, puzzle.variant)
        encoding = meta["clue_encoding"]
        kept = meta.get("kept_columns")
    except KeyError as e:
        raise FormatError(f"{where}: missing field {e.args[0]!r}") from None
    if encoding == "reduce":
        if not isinstance(kept, list):
            raise FormatError(f"{where}: clue encoding 'reduce' needs the 'kept_columns' list")
        columns = np.asarray(kept, dtype=np.int64)
    else:
        columns = np.arange(conv.n_vars)
    return Manifest(puzzle, conv, encoding, columns, meta)


def manifest_from_json(text: str, path) -> Manifest:
    """A Manifest from the JSON text of ``manifest.json`` read from ``path``.

    Parameters
    ----------
    text : str
        The file's content (callers bound how much they read: :func:`formats.files.read_regular`).
    path : str or Path
        Where it was read (recorded in the Manifest and named in errors).

    Returns
    -------
    Manifest

    Raises
    ------
    FormatError
        Not JSON, nested too deeply, not an object, or fields missing or inconsistent.
    """
    try:
        meta = json.loads(text)
    except (json.JSONDecodeError, RecursionError, ValueError) as e:
        raise FormatError(f"manifest: {path}: not a readable JSON manifest ({str(e)[:200]})") from None
    if not isinstance(meta, dict):
        raise FormatError(f"manifest: {path}: expected a JSON object, found {type(meta).__name__}")
    m = manifest_from_dict(meta, where=f"manifest {path}")
    return Manifest(m.puzzle, m.convention, m.clue_encoding, m.columns, meta, Path(path))


def load_manifest(path) -> Manifest:
    """Read ``manifest.json`` (or a directory holding one).

    The formats layer reads manifests through :func:`formats.files.load_manifest_file`,
    which also refuses non-regular files and bounds the size.
    """
    path = Path(path)
    if path.is_dir():
        path = path / MANIFEST_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FormatError(f"manifest: no such file {str(path)!r}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise FormatError(f"manifest: {path}: not a readable JSON manifest ({e})") from None
    return manifest_from_json(text, path)
