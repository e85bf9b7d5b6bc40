"""The top-level Python API: ``pipeline.read_puzzle``, ``solve``, ``count``, ``build``, ``export``, ``verify``.

Thin entry points to the layers (:func:`pipeline.core.puzzle.parse_puzzle`,
:func:`pipeline.core.build.build_model`, the solver registry with ``auto``,
:func:`formats.write_model` / :func:`formats.export_model`), so a notebook user can guess them.
``import pipeline`` stays light: the package loads this module on first use of one of these
names (its ``__getattr__``), and this module loads the solvers and formats only when called.

Examples
--------
>>> import pipeline
>>> puzzle = pipeline.read_puzzle('{"size": 4, "rules": [{"rule": "cage", "sum": 3, "cells": ["r1c1", "r1c2"]}]}')
>>> result = pipeline.solve(puzzle)
>>> result.status, int(result.grid[0, :2].sum())
('optimal', 3)
>>> pipeline.count(puzzle, limit=1000).count
48
"""
from __future__ import annotations

import functools
import importlib
import math
import numbers
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from pipeline.core.build import Model, build_model
from pipeline.core.claimed import read_claimed_grid
from pipeline.core.limits import check_kept_grids
from pipeline.core.rulerows import rule_rows_outlast
from pipeline.core.errors import FormatError, PipelineError, PuzzleError, SeveralPuzzles, SolveError
from pipeline.core.puzzle import Puzzle, parse_puzzle
from pipeline.core.verify import Verdict, digit_array, verify_grid

if TYPE_CHECKING:
    from pipeline.solvers.base import CountResult, SolveResult

__all__ = ["read_puzzle", "solve", "count", "build", "export", "verify"]


#: the options :func:`read_puzzle` hands to the reader
_READ_OPTIONS = frozenset({"box", "variant", "regions", "size", "rules"})


def read_puzzle(source: Any, **options: Any) -> Puzzle:
    """Read a puzzle from anything the command line reads.

    Parameters
    ----------
    source : str, path, dict, array or Puzzle
        An 81-character line (or any N x N grid text, CSV or N-by-3 ``[row col digit]`` list), a
        file path, an f-puzzles link or payload, a JSON puzzle document (text or dict), a NumPy
        array, or a Puzzle (returned as it is).
    **options
        :func:`pipeline.core.puzzle.parse_puzzle`'s options: ``box``, ``variant``, ``regions``,
        ``size``, ``rules``.

    Returns
    -------
    Puzzle

    Raises
    ------
    PuzzleError
        The input is not a valid puzzle (one line naming what and where).

    Examples
    --------
    >>> read_puzzle("1..." "..3." ".4.." "...2").summary()
    '4x4 classic, 4 clues'
    """
    unknown = sorted(set(options) - _READ_OPTIONS)
    if unknown:   # parse_puzzle's TypeError named no option the reader takes
        raise PuzzleError(f"read_puzzle: unknown option {unknown[0]!r}; it takes {', '.join(sorted(_READ_OPTIONS))}")
    if isinstance(source, Puzzle) and not options:
        return source
    if isinstance(source, os.PathLike):
        source = Path(source)
    try:
        return parse_puzzle(source, **options)
    except SeveralPuzzles as e:
        # here, not at the top: batch's reader and its engines cost ``import pipeline`` 0.13 s
        from pipeline.batch.worker import one_row_input

        table = one_row_input(source, e, box=options.get("box"), variant=options.get("variant"),
                              rules=options.get("rules"),
                              regions_given=None if options.get("regions") is None else "regions=")
        if table is None:
            raise
        return table


def _model_of(puzzle: Any) -> Model:
    """``puzzle`` as a Model: a Model as it is, anything else read and built in the default
    convention (``ijk``, ``F``, clues as rows)."""
    return puzzle if isinstance(puzzle, Model) else build_model(read_puzzle(puzzle))


#: grid cells :func:`count` keeps when the caller does not pass ``keep`` (about 128 MB of int64
#: grids: 197,530 9x9 grids, 25,600 25x25): a count to ten million listed ten million grids and
#: ran the machine out of memory
DEFAULT_KEPT_CELLS = 16_000_000


def _check_time_limit(time_limit: Any) -> None:
    """As the command line's ``--time-limit``: None, or a finite number of seconds above 0."""
    if time_limit is None:
        return
    if isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real):
        raise SolveError(f"time_limit: must be a number of seconds or None, found {type(time_limit).__name__} "
                         f"{time_limit!r:.40}")
    seconds = float(time_limit)
    if not (math.isfinite(seconds) and seconds > 0):
        raise SolveError(f"time_limit: must be a finite number of seconds greater than 0, found {seconds:g}")


def _check_limit(limit: Any) -> None:
    """As the command line's ``--limit``: a whole number (each counting engine refuses one below 1)."""
    if isinstance(limit, bool) or not isinstance(limit, numbers.Integral):
        raise SolveError(f"count: limit must be a whole number of solutions, at least 1, found "
                         f"{type(limit).__name__} {limit!r:.40}")
    if limit < 1:   # before the kept-grid default is worked out from it (it blamed 'keep')
        raise SolveError(f"count: limit must be a whole number of solutions, at least 1, found {limit}")


def _memory_as_error(what: str, error: type[PipelineError]) -> Callable:
    """Decorate an API function so that memory running out past the up-front estimates is one
    typed line (as the command line's ``out of memory`` line), not a ``MemoryError`` (HiGHS's
    ``std::bad_alloc`` on a 225x225 under ``ulimit -v``)."""
    def decorate(function: Callable) -> Callable:
        @functools.wraps(function)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return function(*args, **kwargs)
            except MemoryError:
                raise error(f"{what}: out of memory: the job needs more than this process may use (a smaller "
                            f"grid, another solver or more memory)") from None
        return call
    return decorate


def _solvers() -> Any:
    return importlib.import_module("pipeline.solvers")


@_memory_as_error("solve", SolveError)
def solve(puzzle: Any, solver: str = "auto", time_limit: float | None = None, *, unique: bool = True,
          **options: Any) -> "SolveResult":
    """Solve a puzzle (with the uniqueness check, as ``python -m pipeline solve`` does).

    Parameters
    ----------
    puzzle : Puzzle, Model or any input of :func:`read_puzzle`
        What to solve.
    solver : str, default "auto"
        An engine of the registry (``highs``, ``sat``, ``cpsat``, ``dfs``, ...) or ``auto``, which
        picks the fastest engine that can take this model here.
    time_limit : float, optional
        Seconds for the whole call (the uniqueness check included). Rules over the whole grid
        whose rows would take longer than that to build (a 200x200 non-consecutive) give status
        ``time_limit`` at once, with the estimate in ``message``.
    unique : bool, default True
        Also tell whether the solution is the only one (``result.unique``): proved by the engine
        while solving where it can, else counted to 2 by the named engine if it counts, else by
        the engine ``auto`` picks for counting.
    **options
        The engine's own options (e.g. ``threads`` for HiGHS, ``sat_backend`` for SAT). Under
        ``auto``, an option ``auto`` itself does not take narrows its pick to the engines that
        take it (``presolve="none"``: the SAT engine), as the command line's ``--solver auto`` does.

    Returns
    -------
    SolveResult
        ``.status`` (``optimal`` when solved), ``.grid`` (N x N digit indices ``1..V``: the values
        themselves only on a ``1..N`` grid; ``puzzle.shown(result.grid)`` gives the values of a
        puzzle with a value set, as the command line prints them), ``.unique``, ``.solver`` (the
        engine that solved) and ``.seconds``.

    Raises
    ------
    PipelineError
        Bad input (a ``time_limit`` that is not a finite number of seconds above 0 included), an
        unknown engine, or one that cannot take this model here (the reason says which package
        is missing).

    Examples
    --------
    >>> r = solve("1..." "..3." ".4.." "...2")
    >>> r.status, r.unique, r.grid[0].tolist()
    ('optimal', True, [1, 3, 2, 4])
    >>> p = read_puzzle(".Shape~4x4~0-3.~R1C1_0~R1C2_1~R1C3_2~R2C1_2~R2C2_3~R3C1_1~R3C3_3~R4C4_0")
    >>> r = solve(p)
    >>> r.grid[0].tolist(), p.shown(r.grid)[0].tolist()   # digit indices, then the values 0..3
    ([1, 2, 3, 4], [0, 1, 2, 3])
    """
    _check_time_limit(time_limit)
    if not isinstance(unique, (bool, np.bool_)):   # "no" is truthy: it would run the check
        raise SolveError(f"unique: must be True or False, found {type(unique).__name__} {unique!r:.40}")
    if "check_unique" in options:   # the engines' own name for it, which their option lists show
        raise SolveError("check_unique: pipeline.solve takes it as unique=True or unique=False")
    solvers = _solvers()
    model = _model_of(puzzle)
    engine = solvers.get_solver(solver)
    too_long = rule_rows_outlast(model, time_limit)   # before asking the engine, which builds them
    if too_long:
        return solvers.SolveResult("time_limit", None, None, 0.0, 0, solver=solver, message=too_long)
    problem = engine.problem_with(model)
    if problem:
        raise SolveError(f"solver {solver}: {problem}")
    if solver == "auto" and set(options) - engine.options:
        engine, solver = _auto_taking(options, "unique" if unique else "solve", model, engine.options), ""
    if solver == "auto":
        return engine.solve(model, time_limit=time_limit, check_unique=unique, **options)
    return importlib.import_module("pipeline.solvers.auto").solve_checking_uniqueness(
        engine, model, time_limit, unique, **options)


@_memory_as_error("count", SolveError)
def count(puzzle: Any, limit: int = 2, solver: str = "auto", time_limit: float | None = None,
          **options: Any) -> "CountResult":
    """Count the solutions of a puzzle up to ``limit``.

    Parameters
    ----------
    puzzle : Puzzle, Model or any input of :func:`read_puzzle`
        What to count.
    limit : int, default 2
        Stop at this many (2 answers "is it unique?").
    solver : str, default "auto"
        An engine that counts (``dfs``, ``sat``, ``cpsat``, ``highs``) or ``auto``.
    time_limit : float, optional
        Seconds for the count (rule rows that would outlast it: ``time_limit`` at once, as
        :func:`solve` says).
    **options
        The engine's count options, e.g. ``keep``: how many grids to keep (``None``: every one,
        however many). Without it the first grids up to :data:`DEFAULT_KEPT_CELLS` cells in all
        are kept (197,530 9x9 grids); the count always covers every solution. Under ``auto``,
        another option narrows the pick to the engines that take it, as in :func:`solve`.

    Returns
    -------
    CountResult
        ``.count``, ``.status`` (``complete``: exact; ``limit``: stopped at the limit) and ``.grids``
        (digit indices ``1..V``, as :func:`solve`'s ``.grid``; ``puzzle.shown(g)`` their values).

    Raises
    ------
    PipelineError
        Bad input (``limit`` not a whole number from 1, ``time_limit`` not a finite number of
        seconds above 0), or an engine that cannot count this model here.

    Examples
    --------
    >>> count("." * 16, limit=1000).count
    288
    """
    _check_limit(limit)
    _check_time_limit(time_limit)
    solvers = _solvers()
    model = _model_of(puzzle)
    engine = solvers.get_solver(solver, need="count")
    too_long = rule_rows_outlast(model, time_limit)
    if too_long:
        return solvers.CountResult(0, [], "time_limit", 0.0, message=too_long, solver=solver)
    problem = engine.problem_with(model)
    if problem:
        raise SolveError(f"solver {solver}: {problem}")
    if "keep" not in options:
        options["keep"] = min(limit, max(1, DEFAULT_KEPT_CELLS // (model.puzzle.rows * model.puzzle.cols)))
    keep = options["keep"]
    if keep is None or isinstance(keep, int) and not isinstance(keep, bool):   # others: the engine's message
        check_kept_grids(limit if keep is None else min(keep, limit), int(model.puzzle.grid.size),
                         "count (lower limit or keep)")
    if solver == "auto" and set(options) - engine.count_options:
        engine = _auto_taking(options, "count", model, engine.count_options)
    result = engine.count(model, limit, time_limit=time_limit, **options)
    if not result.solver:   # the engine that counted, named as a solve's result names its engine
        result.solver = engine.name
    return result


def _auto_taking(options: dict, question: str, model: Model, own: Any) -> Any:
    """The engine ``auto`` picks for ``question`` among those that take every engine option in
    ``options`` beyond ``auto``'s ``own`` (``presolve="none"``: the SAT engine), as the command
    line's ``--solver auto`` picks with ``--presolve none``."""
    auto = importlib.import_module("pipeline.solvers.auto")
    given = set(options) - set(own)
    taking = auto.engines_taking(given, question)
    if not taking:
        what = "count" if question == "count" else "solve"
        raise SolveError(f"solver auto: no engine's {what} takes {', '.join(repr(k) for k in sorted(given))}")
    row = next(p for p in auto.AUTO_TABLE if p.question == question)
    if not set(taking) & set(row.engines_for(model)):   # external engines' options: auto never picks those
        raise SolveError(f"solver auto: {', '.join(repr(k) for k in sorted(given))} is an option of "
                         f"{', '.join(taking)}, which auto does not pick; name one (solver={taking[0]!r})")
    return _solvers().get_solver(auto.pick_solver(question, model, among=taking).name)


@_memory_as_error("build", PuzzleError)
def build(puzzle: Any, scheme: str = "ijk", order: str = "F", clues: str = "rows") -> Model:
    """Build the sparse 0-1 program of a puzzle.

    Parameters
    ----------
    puzzle : Puzzle or any input of :func:`read_puzzle`
        The puzzle.
    scheme : {"ijk", "block"}, default "ijk"
        Variable array: ``x[i, j, k]`` or ``x[I, J, p, q, n]`` (docs/conventions.md).
    order : {"F", "C"}, default "F"
        Flattening order: MATLAB's (first index fastest) or NumPy's.
    clues : {"rows", "bounds", "reduce"}, default "rows"
        Clues as rows of ``B``, as variable bounds, or removed from the model.

    Returns
    -------
    Model
        ``Aeq``, ``beq``, ``Aineq``, ``bineq``, ``lb``, ``ub``, ``cost`` (the objective over the
        columns: zeros for a feasibility model) and ``integrality`` are what scipy's ``milp`` or
        MATLAB's ``intlinprog`` take; ``decode(x)`` maps any solver's answer back to the grid.

    Examples
    --------
    >>> from scipy.optimize import milp, LinearConstraint, Bounds
    >>> m = build("1..." "..3." ".4.." "...2")
    >>> res = milp(m.cost, constraints=LinearConstraint(m.Aeq, m.beq, m.beq), integrality=m.integrality,
    ...            bounds=Bounds(m.lb, m.ub))
    >>> m.decode(res.x)[0].tolist()
    [1, 3, 2, 4]
    """
    return build_model(read_puzzle(puzzle), scheme, order, clues)


def verify(puzzle: Any, grid: Any) -> Verdict:
    """Whether ``grid`` solves ``puzzle``: every cell, unit, rule and clue, as ``python -m
    pipeline verify GRID --puzzle PUZZLE`` checks them.

    Parameters
    ----------
    puzzle : Puzzle, Model or any input of :func:`read_puzzle`
        The puzzle the grid claims to solve.
    grid : array_like, str or path
        An array of digit indices ``1..V`` (what ``solve(...).grid`` holds), or the grid as text
        or a file, as the command line prints it (in the puzzle's values, extra cells after it).

    Returns
    -------
    Verdict
        Truthy exactly when the grid solves the puzzle; ``message`` names the first broken rule
        (or what was checked).

    Raises
    ------
    PuzzleError
        The grid cannot be read (text that is no grid, an array of non-integers).

    Examples
    --------
    >>> puzzle = read_puzzle("1..." "..3." ".4.." "...2")
    >>> bool(verify(puzzle, solve(puzzle).grid))
    True
    >>> verify(puzzle, "1234" "3412" "2143" "4321").message
    'clue at (2, 3) is 3 but the grid has 1'
    """
    puzzle = puzzle.puzzle if isinstance(puzzle, Model) else read_puzzle(puzzle)
    extra = None
    if isinstance(grid, (str, os.PathLike)):
        grid, extra = read_claimed_grid(Path(grid) if isinstance(grid, os.PathLike) else grid, puzzle)
    else:
        grid = digit_array(grid)
    # digits of the extra cells that go with the grid when it names none (the solvers: loaded on use)
    judged = importlib.import_module("pipeline.solvers.extra_cells").judged_with_extra_cells
    return judged(grid, puzzle, verify_grid(grid, puzzle, extra), extra)[0]


@_memory_as_error("export", FormatError)
def export(model: Any, path: str | os.PathLike, formats: str | Sequence[str] | None = None,
           *, workers: int | None = None, **options: Any) -> list[Path]:
    """Write a model's files as ``python -m pipeline export --to PATH`` does: one file (and its
    ``PATH.manifest.json``) when ``path`` ends in a one-file format's extension (``.mps``, ``.lp``,
    ``.cnf``, ``.opb``, ``.mat``, ``.gz`` after any but ``.mat``), else a directory with every
    named format and its ``manifest.json`` (:mod:`formats.single`, :func:`formats.export_model`).
    Files only: ``-``, the command line's standard output (``--to -``), is refused (a directory
    named ``-`` is ``./-``).

    Parameters
    ----------
    model : Model, Puzzle or any input of :func:`read_puzzle`
        What to write (a puzzle is built in the default convention first).
    path : str or path
        A file such as ``model.mps``, or a directory; not ``-``.
    formats : str or list of str, optional
        For a directory: ``"all"`` (default) or names such as ``"mps,lp"``. For a file: at most
        one name (default: from the extension).
    workers : int, optional
        For a directory: processes writing the formats side by side (``export --workers``;
        default: this machine's cores for a model of a million nonzeros or more, and one
        whenever another thread runs in this process, as in a notebook).
    **options
        The formats' writer options (e.g. ``mps_style="fixed"`` for MPS, ``dense="never"`` for CSV).

    Returns
    -------
    list of Path
        The files written, the manifest last.

    Raises
    ------
    FormatError
        Several formats for one file, an unknown format, an option no format takes, or ``path``
        ``-``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     [p.name for p in export("1..." "..3." ".4.." "...2", Path(tmp) / "model.lp")]
    ['model.lp', 'model.lp.manifest.json']
    """
    importlib.import_module("formats.files").check_path_argument(path, "export")
    if os.fsdecode(path) == "-":   # the command line's standard output: here it made a directory named '-'
        raise FormatError("export: '-' is the command line's standard output (export --to -); this function writes "
                          "files: give a file or directory path ('./-' for a directory named '-')")
    if not (formats is None or isinstance(formats, str)
            or isinstance(formats, (list, tuple)) and all(isinstance(name, str) for name in formats)):
        raise FormatError(f"export: formats must be text such as \"mps,lp\" or a list of names, found {formats!r:.40}")
    if workers is not None:   # refused for one file too (it is written here, whatever the count)
        importlib.import_module("formats.forked").side_by_side(workers, 1, 0)
    model = _model_of(model)
    single = importlib.import_module("formats.single")
    names = formats if formats is None or isinstance(formats, str) else ",".join(formats)
    try:
        if single.single_file_format(path) is not None:
            written = single.export_file(model, path, names, **options)
        else:
            written = importlib.import_module("formats").export_model(model, path, names, workers=workers, **options)
    except OSError as e:   # a name too long, a read-only disk: as the command line's one line
        if isinstance(e, PipelineError):   # already one (a WriteFailed names the directory at fault)
            raise
        raise FormatError(f"export: {os.fsdecode(e.filename or path)!r}: {e.strerror or e}") from None
    return [p for paths in written.values() for p in paths]
