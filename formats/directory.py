"""An export directory: every chosen format's files plus ``manifest.json``, and a solver's
solution file read back against that manifest.

This is the formats layer's own entry point for whole exports, so that the solver runners
(which export, run a solver and import its answer) do not depend on the application layer;
``formats.directory`` and ``formats.directory`` re-export these names for users.
"""
from __future__ import annotations

import contextlib
import glob
import json
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.core.build import Model, build_model
from pipeline.core.decode import grid_from_vector
from pipeline.core.conventions import ORDERS, SCHEMES
from pipeline.core.errors import FormatError, PipelineError, WrongValueCount, some_of
from pipeline.core.extracells import extra_digits
from pipeline.core.manifest import MANIFEST_NAME, Manifest, export_manifest
from pipeline.core.verify import (RESIDUAL_TOL, Verdict, residual, residual_without_aux, verify_grid,
                                  worst_violation)

from formats.base import FORMATS, Format, format_for, refuse_unknown_options
from formats.files import (WriteFailed, atomic_open, check_path_argument, file_sha256, is_temporary_name, load_manifest_file,
                           missing_directories, remove_empty_directories, write_failure)
from formats.forked import balanced, run_side_by_side, side_by_side
from formats.staging import listed_export_files, staged_export
from formats.solutions import read_solution


#: What follows a single exported file's name in the name of its manifest (``model.lp.manifest.json``,
#: :mod:`formats.single`).
MANIFEST_SUFFIX = ".manifest.json"


def write_manifest(directory: str | os.PathLike, model: Model, files: dict[str, list[str]],
                   formats: dict | None = None, sha256: dict[str, str] | None = None,
                   name: str = MANIFEST_NAME) -> Path:
    """Write ``manifest.json`` (atomically) describing ``model`` and the files of the export.

    ``formats`` holds per-format facts (e.g. the fixed-MPS short-name rule) under its name;
    ``sha256`` the digest of every listed file.

    Parameters
    ----------
    directory : str or Path
        The export directory.
    model : Model
        The exported model.
    files : dict of str to list of str
        Each format's file names.
    formats : dict, optional
        Per-format facts.
    sha256 : dict of str to str, optional
        The SHA-256 of each listed file.
    name : str
        The manifest's file name: ``manifest.json`` in an export directory, ``NAME.manifest.json``
        beside a single file (:func:`formats.single.export_file`).
    """
    path = Path(directory) / name
    with atomic_open(path) as f:
        json.dump(export_manifest(model, files, formats, sha256), f, indent=2)
        f.write("\n")
    return path


def exporting_formats() -> list[str]:
    """Names of the registered formats that contribute files to an export (``all``)."""
    return [name for name, fmt in FORMATS.items() if fmt.export is not None and fmt.in_all]


def named_only_formats() -> list[str]:
    """Names of the formats an export writes only when named (``Format.in_all`` False: ``iss``)."""
    return [name for name, fmt in FORMATS.items() if fmt.export is not None and not fmt.in_all]


def resolve_formats(spec: str | Sequence[str] | None) -> list[Format]:
    """``"all"``, ``None``, ``"csv,mps"`` or a list -> formats (``mat`` is an alias of matlab)."""
    if spec is None or spec == "all":
        names = exporting_formats()
    else:
        names = spec.split(",") if isinstance(spec, str) else list(spec)
        # "all,iss": every format of all, and the named-only ones named beside it
        names = [m for n in names for m in (exporting_formats() if n.strip().lower() == "all" else [n])]
    aliases = {"mat": "matlab", "m": "matlab", "pq": "parquet"}
    return [format_for(aliases.get(n.strip().lower(), n.strip().lower()), need="export") for n in names if n.strip()]


def _holding_the_model(chosen: list[Format], spec: str | Sequence[str] | None, model: Model) -> list[Format]:
    """``chosen`` less the formats that cannot hold ``model``'s objective (CNF), unless named:
    ``all`` then writes every file that can carry the model, and a named one refuses it."""
    if not getattr(model, "has_objective", False):
        return chosen
    named = set() if spec is None else {name.strip().lower() for name in
                                        (spec.split(",") if isinstance(spec, str) else spec)}
    return [fmt for fmt in chosen if fmt.carries_objective or fmt.name in named]


def prepare_directory(directory: str | os.PathLike) -> Path:
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
        ``directory`` is empty (``""``), a file or a dangling symbolic link, cannot be created,
        or holds a directory where ``manifest.json`` is to be written.
    """
    return _prepare_directory(directory)[0]


def _prepare_directory(directory: str | os.PathLike) -> tuple[Path, list[Path]]:
    """:func:`prepare_directory`, and the directories it made (``directory`` and missing
    parents), deepest first, for :func:`_removed_on_failure`."""
    if str(directory) == "":  # Path("") is ".": an empty --to would write into the current directory
        raise FormatError("export directory: empty path; name a directory ('.' for the current one)")
    directory = Path(directory)
    if directory.is_symlink() and not directory.exists():
        raise FormatError(f"{directory}: is a symbolic link to {os.readlink(directory)!r}, which does not exist")
    if directory.exists() and not directory.is_dir():
        raise FormatError(f"{directory}: exists and is not a directory")
    # what is missing now is what the mkdir below makes (a failed export removes it again, and
    # only while empty: one another process made meanwhile keeps whatever it put there)
    made = missing_directories(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        remove_empty_directories(made)
        raise write_failure(directory, e, into=True) from None
    manifest = directory / MANIFEST_NAME
    if manifest.is_dir():
        raise FormatError(f"{manifest}: is a directory; the export's manifest cannot be written there")
    for leftover in directory.iterdir():
        if is_temporary_name(leftover.name) and leftover.is_file() and not leftover.is_symlink():
            with contextlib.suppress(OSError):
                leftover.unlink()
    return directory, made


@contextlib.contextmanager
def _removed_on_failure(made: list[Path]) -> Iterator[None]:
    """Undo the directories an export made when the export fails or is interrupted: a failed
    ``export --to NEW`` (a full disk, Ctrl-C) left NEW behind, empty. Entered before the
    staging directory, so that it is gone (:func:`formats.staging.staged_export`) by then."""
    try:
        yield
    except BaseException:
        remove_empty_directories(made)
        raise


def export_model(model: Model, directory: str | os.PathLike, formats: str | Sequence[str] | None = None,
                 *, workers: int | None = None, **options: Any) -> dict[str, list[Path]]:
    """Write ``model`` in each format into ``directory`` (created), then its ``manifest.json``.

    The set is one unit (:mod:`formats.staging`): every file is written into a staging
    directory inside ``directory`` first, and swapped in only when all are written, under a
    lock on the directory and with Ctrl-C held back for the few renames. So an interrupted or
    failed export leaves the earlier export whole, and two exports into one directory leave
    one of them whole. The files the earlier export's manifest lists that this export does not
    write are removed; any other file in the way of a new one (a user's own ``model.mps``) is a
    refusal, and files no manifest lists (``notes.txt``) are never touched. The manifest
    records the SHA-256 of every file (``python -m pipeline check DIR`` compares them).

    Parameters
    ----------
    model : Model
        The model to write (:func:`pipeline.core.build.build_model`).
    directory : str or Path
        The export directory, created with its parents when missing. Not ``""``.
    formats : str or list of str, optional
        ``"all"`` (the default, also ``None``), or names such as ``"csv,mps"``
        (:func:`exporting_formats`; ``mat`` is an alias of ``matlab``).
    workers : int, optional
        Processes that write the formats side by side (:mod:`formats.forked`): None (the
        default) uses this machine's cores (at most four) for a model of a million nonzeros or more, 1 writes
        every format in this process. Only where the system forks and no other Python thread
        runs (else one); the files are the same either way.
    **options
        Options of the formats' writers; each format gets those it declares
        (:meth:`Format.pick_options`): ``dense`` (``"auto"``, ``"always"``, ``"never"``; the dense
        ``Aeq.csv``), ``mps_style`` (``"free"``, ``"fixed"``, ``"both"``), ``amo`` (the CNF
        at-most-one encoding). An option no registered format declares is refused.

    Returns
    -------
    dict of str to list of Path
        ``{format name: [paths written]}``, ending with ``"manifest": [its path]``.

    Raises
    ------
    FormatError
        An unknown format or a list naming none (raised before the directory is touched); a
        directory that is ``""``, a file or a dangling link, or cannot be created; a file in
        the way that no earlier export wrote (nothing is changed then).
    OSError
        Writing a file failed; the files of the previous export stay as they were, and the
        directories the export created (``directory``, missing parents) are removed again.

    Examples
    --------
    >>> import tempfile
    >>> from pipeline.core.build import build_model
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> model = build_model(parse_puzzle("1......2........"))     # 4x4, two clues
    >>> with tempfile.TemporaryDirectory() as out:
    ...     written = export_model(model, out, "csv,mps")
    ...     list(written), [p.name for p in written["mps"]]
    (['csv', 'mps', 'manifest'], ['model.mps'])
    """
    check_path_argument(directory, "export_model", "the directory")
    chosen = _holding_the_model(resolve_formats(formats), formats, model)  # an unknown name fails first
    refuse_unknown_options(options)
    if not chosen:
        raise FormatError(f"formats: {formats!r} names no format; known: "
                          f"{', '.join(exporting_formats() + named_only_formats())}")
    processes = side_by_side(workers, len(chosen), model.Aeq.nnz + model.Aineq.nnz)
    if len({fmt.name for fmt in chosen}) < len(chosen):
        processes = 1     # a format named twice writes its files twice: one after the other
    directory, made = _prepare_directory(directory)
    with _removed_on_failure(made), staged_export(directory) as stage:
        try:
            groups = balanced([fmt.cost for fmt in chosen], processes)
            parts = run_side_by_side(lambda group: _write_formats(model, stage.path, [chosen[k] for k in group], options),
                                     groups)
            written_by = {fmt: files for part in parts for fmt, files in part.items()}
            names = {fmt.name: written_by[fmt.name][0] for fmt in chosen}
            digests = {name: digest for fmt in chosen for name, digest in written_by[fmt.name][1].items()}
            described = {fmt.name: fmt.describe(model, **fmt.pick_options(options, "describe"))
                         for fmt in chosen if fmt.describe is not None}
            files = [name for listed in names.values() for name in listed]
            write_manifest(stage.path, model, names, described, digests)
        except WriteFailed as e:   # name the file in DIR, not its staged copy
            where = directory / e.path.name if e.path.parent == stage.path else e.path
            raise WriteFailed(where, e.reason, e.errno, e.strerror) from None
        except OSError as e:
            raise write_failure(directory, e, into=True) from None
        stage.commit(files)
    written = {fmt: [directory / name for name in listed] for fmt, listed in names.items()}
    written["manifest"] = [directory / MANIFEST_NAME]
    return written


def _write_formats(model: Model, stage: Path, chosen: list[Format], options: dict[str, Any]
                   ) -> dict[str, tuple[list[str], dict[str, str]]]:
    """Write ``chosen`` formats' files into ``stage``, one after the other: for each, the names
    of its files and their SHA-256s. Each format's files are hashed in a thread while the next
    format renders (hashlib and file reads let go of the GIL: the 850 MB of a 100x100 cost no
    extra time); a name written again (a format named twice) is hashed again, after."""
    names: dict[str, list[str]] = {}
    with ThreadPoolExecutor(max_workers=1) as hasher:
        hashing: dict[str, Future[str]] = {}
        for fmt in chosen:
            assert fmt.export is not None   # resolve_formats chose formats that export
            names[fmt.name] = [Path(p).name for p in fmt.export(model, stage, **fmt.pick_options(options, "export"))]
            for name in names[fmt.name]:
                hashing[name] = hasher.submit(file_sha256, stage / name)
        files = [name for listed in names.values() for name in listed]
        digests = {name: hashing[name].result() for name in files}
    for name in {name for name in files if files.count(name) > 1}:
        digests[name] = file_sha256(stage / name)
    return {fmt: (listed, {name: digests[name] for name in listed}) for fmt, listed in names.items()}


@dataclass
class ImportResult:
    grid: np.ndarray
    verdict: Verdict
    residual: float
    format: str
    manifest: Manifest
    solver_status: str | None = None
    #: the answer over the model's columns (the extra cells' digits among them), None when it
    #: gives no auxiliary columns (a grid)
    x: np.ndarray | None = None
    #: the extra cells' digits (1-based) when the puzzle has extra cells and the answer gives them
    extra: np.ndarray | None = None
    #: the row or bound the answer breaks most when ``residual`` passes RESIDUAL_TOL, in words
    #: (:func:`pipeline.core.verify.worst_violation`); empty otherwise
    breaks: str = ""
    #: when the grid is no solution but the same vector read in another index convention is, a
    #: sentence saying so (:func:`other_convention_hint`); empty otherwise
    hint: str = ""
    #: when the file held several answers (clasp's ``-n K`` enumeration), which one was read; empty
    #: otherwise
    note: str = ""

    @property
    def ok(self) -> bool:
        """The answer holds: its grid solves the puzzle and its vector the model's rows and bounds
        (an answer whose auxiliary columns break a rule's rows may still carry a valid grid)."""
        return bool(self.verdict) and self.residual <= RESIDUAL_TOL


def find_manifest(solution_path: str | os.PathLike,
                  manifest: Manifest | str | os.PathLike | None = None) -> Manifest:
    """The manifest given, else ``manifest.json`` beside the solution file, else the one
    ``STEM.*.manifest.json`` of a single exported file beside it (``model.sol`` ->
    ``model.lp.manifest.json``).

    Parameters
    ----------
    solution_path : str or Path
        The solution file.
    manifest : Manifest, str or Path, optional
        Given by the caller: a manifest, an export directory (its ``manifest.json``, else the one
        ``NAME.manifest.json`` it holds), a single exported file whose ``NAME.manifest.json``
        lies beside it, or a file of an export directory that its ``manifest.json`` lists.

    Raises
    ------
    FormatError
        No manifest found, or several a directory could mean (one line naming them).
    """
    if manifest is not None:
        if isinstance(manifest, Manifest):
            return manifest
        given = Path(manifest)
        if given.is_file() and not given.name.endswith(".json"):
            single = given.with_name(given.name + MANIFEST_SUFFIX)   # (a directory like '.' has no name)
            if single.is_file():
                return load_manifest_file(single)    # the model file named instead of its manifest
            listing = given.parent / MANIFEST_NAME
            if listing.is_file():   # a model file of an export directory (out/model.cnf)
                found = load_manifest_file(listing)
                if given.name in listed_export_files(found.data):
                    return found
        if given.is_dir() and not (given / MANIFEST_NAME).exists():
            # a directory of one-file exports (solve --workdir W writes W/RUN/model.cnf.manifest.json)
            singles = _single_manifests(given)
            if len(singles) == 1:
                return load_manifest_file(singles[0])
            if singles:
                raise FormatError(f"manifest {given}: holds no {MANIFEST_NAME} and {len(singles)} one-file "
                                  f"manifests ({_names(singles)}): pass --manifest with one of them")
        return load_manifest_file(manifest)
    folder = Path(solution_path).resolve().parent
    beside = folder / MANIFEST_NAME
    if beside.exists():
        return load_manifest_file(beside)
    stem = Path(solution_path).name.split(".", 1)[0]
    singles = sorted(folder.glob(f"{glob.escape(stem)}.*{MANIFEST_SUFFIX}")) if stem else []
    if len(singles) == 1:
        return load_manifest_file(singles[0])
    there = singles or _single_manifests(folder)
    suggest = (f"--manifest {Path(solution_path).parent / there[0].name}" if len(there) == 1 else
               f"--manifest with one of {_names(there)}" if there else
               "--manifest DIR/manifest.json or --manifest NAME.lp.manifest.json")
    raise FormatError(
        f"{solution_path}: no manifest given and no {MANIFEST_NAME} beside it"
        + (f" (several {stem}.*{MANIFEST_SUFFIX})" if singles else
           f" nor {stem}.*{MANIFEST_SUFFIX}" if there else "")
        + f": pass {suggest}"
    )


def _single_manifests(directory: Path) -> list[Path]:
    """The ``NAME.manifest.json`` files in ``directory``, sorted (hidden ones left out)."""
    try:
        return sorted(p for p in directory.glob(f"*{MANIFEST_SUFFIX}") if not p.name.startswith(".") and p.is_file())
    except OSError:
        return []


def _names(paths: list[Path]) -> str:
    """The names of ``paths`` for a one-line message (``a, b and 3 more``)."""
    return some_of([p.name for p in paths])


def _refuse_the_exports_own_file(path: str | os.PathLike, man: Manifest) -> None:
    """One line for a file of the export itself given as the answer (``import model.mps``): each
    was read as some answer format or none ("unrecognised solution format", a grid of
    ``2917x3``, ``lb.csv``'s zeros as an empty grid). Told by the digest the manifest records,
    so an answer a solver wrote over such a name is still read."""
    if man.path is None:
        return
    given, manifest_path = Path(path).resolve(), Path(man.path).resolve()
    if given == manifest_path:
        raise FormatError(f"{path}: the export's manifest, not a solver's answer")
    digests = man.data.get("sha256") or {}
    name = given.name
    if isinstance(digests, dict) and name in digests and given.parent == manifest_path.parent \
            and file_sha256(given) == digests[name]:
        kind = next((fmt for fmt, names in (man.data.get("files") or {}).items() if name in names), "model")
        raise FormatError(f"{path}: the export's own {kind} file, not a solver's answer: give the model to a solver "
                          f"and import the answer it writes")


def import_solution(path: str | os.PathLike,
                    manifest: Manifest | str | os.PathLike | None = None) -> ImportResult:
    """Read a solver's solution file, decode it to a grid and verify it against the manifest.

    The format is detected by content (:func:`formats.solutions.read_solution`); the vector is
    checked against ``Aeq x = beq`` and the bounds of the model the manifest describes, and the
    grid against the puzzle's rules and clues.

    Parameters
    ----------
    path : str or Path
        The solution file (a regular file; ``.gz`` is read through).
    manifest : Manifest, str or Path, optional
        The export's manifest, or the path of ``manifest.json`` or of its directory; default:
        ``manifest.json`` beside ``path``.

    Returns
    -------
    ImportResult
        ``grid``, ``verdict`` (truthy when the grid solves the puzzle), ``residual`` (largest
        violation of the rows and bounds: feasible when at most
        :data:`pipeline.core.verify.RESIDUAL_TOL`; ``breaks`` names the row otherwise), ``ok``
        (both hold), the detected ``format``, the ``manifest`` and the solver's
        ``solver_status`` when the file states one.

    Raises
    ------
    NoSolutionReported
        The solver says it found no solution (``status``: ``infeasible``, ``time_limit`` or
        ``no_solution``); the CLI exits 1, as for ``solve``.
    FormatError
        No manifest, an unreadable, tampered or unknown file, or one that does not fit the
        manifest (names, columns, sizes).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from pipeline.core.build import build_model
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> model = build_model(parse_puzzle("1......2........"))            # 4x4, two clues
    >>> with tempfile.TemporaryDirectory() as out:
    ...     _ = export_model(model, out, "csv")
    ...     answer = pathlib.Path(out, "sudoku.csv")                    # as solve_sudoku.m writes it
    ...     _ = answer.write_text("1,2,3,4\\n3,4,1,2\\n2,1,4,3\\n4,3,2,1\\n")
    ...     result = import_solution(answer)
    ...     result.format, bool(result.verdict), result.residual
    ('matlab_grid', True, 0.0)
    """
    check_path_argument(path, "import", "the solution file")
    if not (manifest is None or isinstance(manifest, (Manifest, str, os.PathLike))):
        raise FormatError(f"import: the manifest must be a Manifest, text or a path, found {type(manifest).__name__}")
    if manifest is None and not os.path.lexists(path):   # said before a manifest is looked for beside it
        raise FormatError(f"{path}: no such file")
    if manifest is None and os.path.isdir(path):   # an export directory: not a manifest beside it to look for
        raise FormatError(f"{path}: is a directory, not a regular file: give the solver's answer file (such as "
                          f"{os.path.join(path, 'sudoku.csv')})")
    man = find_manifest(path, manifest)
    _refuse_the_exports_own_file(path, man)
    try:
        sol = read_solution(path, man)
    except WrongValueCount as e:
        raise FormatError(f"{e}{other_clue_encoding_hint(man, count=e.found)}") from None
    try:
        grid = grid_from_vector(sol.values, man.convention, where=str(path))
    except PipelineError as e:
        raise FormatError(f"{e}{other_convention_hint(sol.values, man)}") from None
    model = build_model(man.puzzle, man.convention.scheme, man.convention.order, man.clue_encoding)
    if model.n_cols != man.n_cols or not np.array_equal(model.columns, man.columns):
        raise FormatError(f"{man.path}: kept-column map does not match the puzzle it records")
    x = sol.over(model.columns)
    if x is None:   # a grid answer gives cells only: rows over auxiliary columns are left out
        cells = model.columns < model.convention.n_vars
        cells_only = np.zeros(model.n_cols)
        cells_only[cells] = sol.values[model.columns[cells]]
        res = residual_without_aux(model, cells_only)
    else:
        res = residual(model, x)
    breaks = "" if res <= RESIDUAL_TOL else worst_violation(model, cells_only if x is None else x, x is None)
    extra = extra_digits(model, x)
    verdict = verify_grid(grid, man.puzzle, extra)
    hint = "" if verdict else (other_convention_hint(sol.values, man)
                               or other_clue_encoding_hint(man, values=sol.values)).removeprefix("; ")
    return ImportResult(grid, verdict, res, sol.format, man, sol.status, x, extra, breaks, hint, sol.note)


def other_convention_hint(values: np.ndarray, manifest: Manifest) -> str:
    """``"; it reads as a valid grid in the block/C convention ..."`` when a vector that does not
    decode to a solution in the manifest's convention does in another (scheme or order): an
    ``x`` from another export's model (MATLAB's ``intlinprog`` on a ``block`` export, read with
    an ``ijk`` manifest) fails as several digits in a cell or broken clues, which say nothing of
    why. Empty when no other convention reads it as a solution.

    Parameters
    ----------
    values : numpy.ndarray
        The answer over the grid's ``N^3`` positions, as the file gives them.
    manifest : Manifest
        The export the answer was read against.
    """
    own = manifest.convention
    kept = np.asarray(manifest.columns)
    kept = np.sort(kept[kept < own.n_vars])
    # a --clues reduce export keeps some columns: the file's k-th value is its k-th kept column,
    # which in another convention is the k-th of the same (row, col, digit) cells in that order;
    # the cells the clues fix (not kept, 1 in ``values``) stay fixed
    triples = own.cell_digit(kept) if kept.size < own.n_vars else None
    fixed = own.cell_digit(np.setdiff1d(np.flatnonzero(values), kept)) if triples is not None else None
    readings = []
    for scheme in SCHEMES:
        for order in ORDERS:
            if (scheme, order) == (own.scheme, own.order):
                continue
            try:
                other = dataclasses.replace(own, scheme=scheme, order=order)
                reread = values
                if triples is not None and fixed is not None:
                    reread = np.zeros(own.n_vars)
                    reread[np.sort(other.position(*triples))] = values[kept]
                    reread[other.position(*fixed)] = 1.0
                grid = grid_from_vector(reread, other)
            except PipelineError:   # no block scheme for a canvas; not one digit a cell in this one
                continue
            if verify_grid(grid, manifest.puzzle):
                readings.append(f"{scheme}/{order}")
    if not readings:
        return ""
    return (f"; it reads as a valid grid in the {' and the '.join(readings)} convention, not the manifest's "
            f"{own.scheme}/{own.order}: was it solved from another export's model? (export again with --scheme "
            f"{readings[0].split('/')[0]} --order {readings[0].split('/')[1]}, or give that export's --manifest)")


def other_clue_encoding_hint(manifest: Manifest, count: int | None = None, values: np.ndarray | None = None) -> str:
    """``"; a --clues reduce export of this puzzle has 301 columns ..."`` when an answer fits the
    same puzzle's export with the other clue encoding: a ``--clues reduce`` model has no columns
    for what the clues decide, so its ``x`` is shorter than a full export's (``count``), and its
    answer by names leaves the clue cells without a digit (``values``); a full model's ``x`` read
    with a reduce export's manifest is longer. Empty when neither fits.

    Parameters
    ----------
    manifest : Manifest
        The export the answer was read against.
    count : int, optional
        The number of values of a positional answer that fits neither of the manifest's counts.
    values : numpy.ndarray, optional
        The answer over the grid's ``N^3`` positions, as the file gives them (by names).
    """
    own, reduced = manifest.convention, manifest.clue_encoding == "reduce"
    advice = "was it solved from that export's model? give that export's --manifest"
    if count is not None:
        other = build_model(manifest.puzzle, own.scheme, own.order, "rows" if reduced else "reduce")
        if count != other.n_cols:
            return ""
        kind = "the export of this puzzle without --clues reduce" if reduced else \
            "a --clues reduce export of this puzzle"
        return f"; {kind} has {count} columns: {advice}"
    if values is None or reduced or manifest.puzzle.extra:
        return ""
    clues = manifest.puzzle.grid > 0
    grid = grid_from_vector(np.where(np.isnan(values), 0.0, values), own, where="the answer")
    if not clues.any() or (grid[clues] != 0).any() or (grid[~clues] == 0).any():
        return ""
    grid[clues] = manifest.puzzle.grid[clues]
    if not verify_grid(grid, manifest.puzzle):
        return ""
    return (f"; its {int(clues.sum())} clue cells have no digit, and with the clues it is a valid grid: a --clues "
            f"reduce export has no columns for them: {advice}")
