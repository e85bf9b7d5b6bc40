"""The metadata that travels with every export (docs/conventions.md), as JSON and as comment lines."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipeline.core.conventions import Convention, make_convention
from pipeline.core.errors import clip, FormatError, PipelineError, json_kind
from pipeline.core.build import CLUE_ENCODINGS, Model, aux_column_count, aux_column_names, present_positions
from pipeline.core.puzzle import Puzzle
from pipeline.core.values import parse_values
from pipeline.core import version

MANIFEST_NAME = "manifest.json"
FORMAT_VERSION = 1
COMMENT_TAG = "sudoku-pipeline:"


def model_metadata(model: Model, *, with_columns: bool = True) -> dict:
    """Every fact an importer needs to map a file's columns back to cells and digits.

    Parameters
    ----------
    model : Model
        The exported model.
    with_columns : bool
        Include the kept-column map (``reduce``); formats that name columns leave it out.
    """
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
        **({"inequalities": model.n_ineq, "inequality_nonzeros": model.ineq_nnz} if model.has_rules else {}),
        "families": model.family_counts(),
        "objective": "zero" if model.objective is None else "custom",
        "index_base": {"names": 1, "matlab": 1, "csv_triplets": 1, "parquet": 0, "json_lists": 0},
    }
    if model.n_aux:   # docs/conventions.md, "Auxiliary columns": after the cell-digit block, never reduced
        meta["aux_columns"] = {"first": conv.n_vars, "count": model.n_aux,
                               "families": dict(model.R.aux_families),   # the rows' own: not written again
                               "names": "aux_<family>_<i>_<j>..., in rule order"}
    if model.is_reduced and with_columns:
        meta["kept_columns"] = model.columns.tolist()  # 0-based full positions of solver columns
    return meta


def comment_line(model: Model) -> str:
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
    except (ValueError, RecursionError):   # not JSON, an integer of over 4,300 digits, too deep
        return None


def export_manifest(model: Model, files: dict[str, list[str]], formats: dict | None = None,
                    sha256: dict[str, str] | None = None) -> dict:
    """The ``manifest.json`` content of an export of ``model``: its metadata, the files of each
    format, per-format facts (e.g. the fixed-MPS short-name rule) under the format's name, the
    SHA-256 of every listed file (``sha256``: name -> hex digest) and the package version that
    wrote it (``pipeline_version``). Writing it is the formats layer's job
    (:func:`formats.directory.write_manifest`).

    Parameters
    ----------
    model : Model
        The exported model.
    files : dict of str to list of str
        Each format's file names.
    formats : dict, optional
        Per-format facts (e.g. the fixed-MPS short-name rule).
    sha256 : dict of str to str, optional
        The SHA-256 of each listed file.
    """
    meta = model_metadata(model)
    meta["files"] = files
    if formats:
        meta["formats"] = formats
    if sha256 is not None:
        meta["sha256"] = dict(sha256)
    meta["pipeline_version"] = version.__version__   # the one source: manifests, _batch.json, --version
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

    def col_names(self) -> np.ndarray:
        """Names of the exported columns (auxiliary columns' ``aux_...`` included)."""
        return column_names(self.data, self.convention, self.columns, str(self.path or "manifest"))

    def names_of(self, positions: np.ndarray, where: str) -> np.ndarray:
        """Names of full ``positions`` (cells' ``x_...``, auxiliary columns' ``aux_...``).

        Parameters
        ----------
        positions : numpy.ndarray
            0-based full positions.
        where : str
            The file, for messages.
        """
        return column_names(self.data, self.convention, np.asarray(positions), where)

    def positions_of(self, names: np.ndarray, where: str) -> np.ndarray:
        """Full positions of column ``names`` (:func:`column_positions`).

        Parameters
        ----------
        names : numpy.ndarray
            Column names (``x_...`` and ``aux_...``).
        where : str
            The file, for messages.
        """
        return column_positions(self.data, self.convention, names, where)

    @property
    def clue_positions(self) -> np.ndarray | None:
        """Full positions of the clue variables a ``reduce`` export dropped (None otherwise)."""
        if self.clue_encoding != "reduce":
            return None
        r, c, d = self.puzzle.clues()
        return np.asarray(self.convention.position(r, c, d), dtype=np.int64)


def _aux_names_of(meta: dict, where: str) -> np.ndarray:
    """The auxiliary column names of the puzzle ``meta`` records (docs/conventions.md)."""
    try:
        return aux_column_names(Puzzle.from_dict(meta))[0]
    except PipelineError as e:
        raise FormatError(f"{where}: {e}") from None


def aux_count(meta: dict) -> int:
    """The auxiliary columns a file's metadata states (``aux_columns.count``; 0 when absent or
    not a count: the model rebuilt from the metadata is compared with the file anyway).

    Parameters
    ----------
    meta : dict
        The metadata.

    Returns
    -------
    int
    """
    stated = meta.get("aux_columns")
    count = stated.get("count") if isinstance(stated, dict) else None
    return count if isinstance(count, int) and not isinstance(count, bool) and 0 <= count <= 10 ** 7 else 0


def column_names(meta: dict, conv: Convention, columns: np.ndarray, where: str = "metadata") -> np.ndarray:
    """Names of full positions ``columns``: ``x_...`` from ``conv`` for the cell-digit block,
    ``aux_...`` of the puzzle ``meta`` records for the positions after it (auxiliary columns).

    Parameters
    ----------
    meta : dict
        A file's metadata (its puzzle and rules); read only when ``columns`` reach past ``N^3``.
    conv : Convention
        The convention of the cell-digit block.
    columns : numpy.ndarray
        0-based full positions.
    where : str
        The file, for messages.

    Returns
    -------
    numpy.ndarray of str
    """
    columns = np.asarray(columns, dtype=np.int64)
    cells = columns < conv.n_vars
    if cells.all():
        return conv.names(columns)
    out = np.empty(columns.size, dtype=object)
    out[cells] = conv.names(columns[cells])
    out[~cells] = _aux_names_of(meta, where)[columns[~cells] - conv.n_vars]
    return out.astype(str)


def column_positions(meta: dict, conv: Convention, names: np.ndarray, where: str) -> np.ndarray:
    """0-based full positions of column ``names`` (str or bytes): ``x_...`` through ``conv``,
    ``aux_...`` after the cell-digit block in the order of the puzzle's auxiliary columns.

    Parameters
    ----------
    meta : dict
        A file's metadata (its puzzle and rules); read only when an ``aux_`` name appears.
    conv : Convention
        The convention of the cell-digit block.
    names : numpy.ndarray
        Column names.
    where : str
        The file, for messages.

    Returns
    -------
    numpy.ndarray of int64

    Raises
    ------
    ConventionError
        A cell name the convention does not know.
    FormatError
        An ``aux_`` name the puzzle's rules do not declare.
    """
    names = np.asarray(names)
    prefix = b"aux_" if names.dtype.kind == "S" else "aux_"
    aux = np.char.startswith(names, prefix) if names.size else np.zeros(0, dtype=bool)
    if not aux.any():
        return conv.positions_from_names(names, where=where)
    pos = np.empty(names.size, dtype=np.int64)
    pos[~aux] = conv.positions_from_names(names[~aux], where=where) if (~aux).any() else []
    known = {name: k for k, name in enumerate(_aux_names_of(meta, where).tolist())}
    wanted = [n.decode() if isinstance(n, bytes) else str(n) for n in names[aux]]
    missing = [n for n in wanted if n not in known]
    if missing:
        raise FormatError(f"{where}: column {missing[0]!r} is not an auxiliary column of the puzzle's rules")
    pos[aux] = conv.n_vars + np.array([known[n] for n in wanted], dtype=np.int64)
    return pos


# Largest grid side a manifest may describe: the model of a 100x100 puzzle (10^6 variables)
# is the largest the project exports; 256 leaves room without allowing absurd allocations.
MAX_MANIFEST_N = 256


def _grid_text(meta: dict, key: str, n: int, where: str) -> str | None:
    """``meta[key]`` as one grid's text (compact, or N*N separated tokens), never a file path."""
    text = meta.get(key)
    if text is None and key == "regions":
        return None
    if not isinstance(text, str):
        raise FormatError(f"{where}: field {key!r} must be a string, found {json_kind(text)}")
    if len(text) != n * n and len(text.split()) != n * n:
        raise FormatError(f"{where}: field {key!r} holds {len(text)} characters, not the {n * n} cells of a "
                          f"{n}x{n} grid")
    return text


def metadata_convention(meta: dict, where: str) -> Convention:
    """The convention a file's metadata comment names (``scheme``, ``order``, ``h``, ``w``,
    ``variant``, and ``canvas`` with a layout): the one reading of it that the CNF/OPB and LP
    readers share, without the whole model :func:`manifest_from_dict` checks.

    Parameters
    ----------
    meta : dict
        The metadata comment's content.
    where : str
        The file, for messages.

    Raises
    ------
    FormatError
        ``WHERE: metadata comment lacks 'KEY'``, or ``WHERE: metadata comment: WHY`` for a value
        that names no convention.
    """
    try:
        canvas = meta.get("canvas")   # a layout's canvas, or a rectangular grid's rows x cols
        n = int(meta["h"]) * int(meta["w"])
        values = parse_values(meta["values"], n, where) if meta.get("values") is not None else None
        return make_convention(meta["scheme"], meta["order"], int(meta["h"]), int(meta["w"]),
                               meta.get("variant", "classic"),
                               canvas=None if canvas is None else (int(canvas[0]), int(canvas[1])),
                               digits=None if values is None else len(values))
    except KeyError as e:
        raise FormatError(f"{where}: metadata comment lacks {e.args[0]!r}") from None
    except (PipelineError, TypeError, ValueError, IndexError) as e:
        raise FormatError(f"{where}: metadata comment: {e}") from None


def manifest_from_dict(meta: dict, where: str = "manifest") -> Manifest:
    """A Manifest from the manifest's dict, every field checked against the others.

    Parameters
    ----------
    meta : dict
        As :func:`model_metadata` writes it (``manifest.json``).
    where : str
        How error messages name the manifest.

    Returns
    -------
    Manifest

    Raises
    ------
    FormatError
        Not an object, a field missing or of the wrong type or range, ``puzzle``/``regions``
        not one grid's text (they are never read as file paths), ``n``/``n_clues`` disagreeing
        with the puzzle, ``kept_columns`` not increasing column numbers of the model.
    """
    if not isinstance(meta, dict):
        raise FormatError(f"{where}: expected a JSON object, found {json_kind(meta)}")
    missing = [k for k in ("puzzle", "h", "w", "scheme", "order", "clue_encoding") if k not in meta]
    if missing:
        raise FormatError(f"{where}: missing field {missing[0]!r}")
    version = meta.get("format_version", FORMAT_VERSION)   # absent: written before the field existed
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= FORMAT_VERSION:
        raise FormatError(f"{where}: format_version {clip(repr(version))} is not one this version reads "
                          f"(1 to {FORMAT_VERSION}): written by a newer sudoku-pipeline, or not by it")
    for key in ("h", "w"):
        value = meta[key]
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_MANIFEST_N:
            raise FormatError(f"{where}: field {key!r} must be an integer from 1 to {MAX_MANIFEST_N}, found {value!r:.40}")
    n = meta["h"] * meta["w"]
    if n > MAX_MANIFEST_N:
        raise FormatError(f"{where}: box {meta['h']}x{meta['w']} makes a {n}x{n} grid; at most {MAX_MANIFEST_N}")
    for key in ("scheme", "order", "clue_encoding", "variant"):
        if key in meta and not isinstance(meta[key], str):
            raise FormatError(f"{where}: field {key!r} must be a string, found {meta[key]!r:.40}")
    # fields that readers of answers size by (import's bound on an answer file): their types here
    for key in ("rows", "columns", "nonzeros", "inequalities"):
        value = meta.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise FormatError(f"{where}: field {key!r} must be a whole number of at least 0, found {clip(repr(value), 40)}")
    for key in ("formats", "files", "families", "sha256"):
        value = meta.get(key)
        if value is not None and not isinstance(value, dict):
            raise FormatError(f"{where}: field {key!r} must be an object, found {json_kind(value)}")
    if any(not isinstance(entry, dict) for entry in (meta.get("formats") or {}).values()):
        raise FormatError(f"{where}: field 'formats' must map each format to an object")
    if meta.get("layout") is not None or meta.get("canvas") is not None:   # a layout's canvas, or a rectangle
        canvas = meta.get("canvas")
        if not (isinstance(canvas, list) and len(canvas) == 2 and all(isinstance(v, int) and 1 <= v <= 4 * MAX_MANIFEST_N
                                                                      for v in canvas)):
            raise FormatError(f"{where}: a layout needs 'canvas': [rows, columns]")
        puzzle_text = meta.get("puzzle")
        if not isinstance(puzzle_text, str) or (len(puzzle_text) != canvas[0] * canvas[1]
                                                and len(puzzle_text.split()) != canvas[0] * canvas[1]):
            raise FormatError(f"{where}: field 'puzzle' is not the {canvas[0]}x{canvas[1]} canvas of its "
                              f"{'layout' if meta.get('layout') is not None else 'grid'}")
    else:
        _grid_text(meta, "puzzle", n, where)
        _grid_text(meta, "regions", n, where)
    if meta.get("rules") is not None and not isinstance(meta["rules"], list):
        raise FormatError(f"{where}: field 'rules' must be a list of rules")
    try:
        puzzle = Puzzle.from_dict(meta)
        conv = make_convention(meta["scheme"], meta["order"], puzzle.h, puzzle.w, puzzle.variant,
                               canvas=None if puzzle.layout is None and not puzzle.is_rect else (puzzle.rows, puzzle.cols),
                               digits=puzzle.n_values)
    except PipelineError as e:
        raise FormatError(f"{where}: {e}") from None
    for key, actual in (("n", puzzle.n), ("n_clues", puzzle.n_clues)):
        if key in meta and meta[key] != actual:
            raise FormatError(f"{where}: field {key!r} says {meta[key]!r:.40} but its puzzle has {actual}")
    # a CNF/OPB answer's variable numbers are checked against these: a wrong count blamed the answer
    for fmt, facts in (meta.get("formats") or {}).items():
        stated = facts.get("variables")
        if fmt in ("cnf", "opb") and stated is not None and (not isinstance(stated, int) or isinstance(stated, bool)
                                                             or stated < conv.n_vars):
            raise FormatError(f"{where}: field 'formats.{fmt}.variables' must be a whole number of at least the "
                              f"model's {conv.n_vars} cell variables, found {clip(repr(stated), 40)}")
    n_aux = aux_column_count(puzzle) if puzzle.rules or puzzle.extra else 0   # counted, no names written
    _check_aux(meta, conv.n_vars, n_aux, where)
    encoding = meta["clue_encoding"]
    if encoding not in CLUE_ENCODINGS:
        raise FormatError(f"{where}: unknown clue encoding {encoding!r:.40}; expected one of {', '.join(CLUE_ENCODINGS)}")
    if encoding == "reduce":
        kept = meta.get("kept_columns")
        if not isinstance(kept, list) or not all(isinstance(c, int) and not isinstance(c, bool) for c in kept):
            raise FormatError(f"{where}: clue encoding 'reduce' needs 'kept_columns', a list of column numbers")
        if any(not 0 <= c < conv.n_vars + n_aux for c in kept):
            bad = next(c for c in kept if not 0 <= c < conv.n_vars + n_aux)
            raise FormatError(f"{where}: kept column {bad} is outside 0..{conv.n_vars + n_aux - 1}")
        columns = np.asarray(kept, dtype=np.int64)
        if columns.size and not (np.diff(columns) > 0).all():
            raise FormatError(f"{where}: 'kept_columns' must be increasing (each column once)")
    elif puzzle.layout is not None:
        columns = np.concatenate([present_positions(puzzle, conv), conv.n_vars + np.arange(n_aux)])
    else:
        columns = np.arange(conv.n_vars + n_aux)
    return Manifest(puzzle, conv, encoding, columns, meta)


def _check_aux(meta: dict, n_vars: int, n_aux: int, where: str) -> None:
    """Refuse ``aux_columns`` facts that disagree with the puzzle's rules (when a file states them)."""
    stated = meta.get("aux_columns")
    if stated is None:
        return
    if not isinstance(stated, dict) or stated.get("count") != n_aux or stated.get("first") != n_vars:
        raise FormatError(f"{where}: field 'aux_columns' must say count {n_aux} from position {n_vars} "
                          f"(the puzzle's rules), found {clip(stated, 60)}")


def manifest_from_json(text: str, path: str | os.PathLike) -> Manifest:
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
        raise FormatError(f"manifest: {path}: not a readable JSON manifest ({clip(e, 200)})") from None
    if not isinstance(meta, dict):
        raise FormatError(f"manifest: {path}: expected a JSON object, found {json_kind(meta)}")
    m = manifest_from_dict(meta, where=f"manifest {path}")
    return Manifest(m.puzzle, m.convention, m.clue_encoding, m.columns, meta, Path(path))


