"""What every subcommand shares: puzzle and model options, range checks, grid printing.

Subcommand modules (``pipeline/cli.py`` and the modules listed in its ``COMMAND_MODULES``) use
these so that every command spells ``--box``, ``--scheme`` or ``--format`` the same way.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import shlex
import shutil
import sys
from collections.abc import Iterator
from typing import Any

from pipeline.core.clauses import AMO_ENCODINGS, AUTO_PAIRWISE_MAX, DEFAULT_AMO, DEFAULT_BACKEND
from pipeline.core.presolve import DEFAULT_PRESOLVE, PRESOLVE_METHODS
from pipeline.solvers import SOLVERS, CountResult, Solver, SolveResult, dfs_native, get_solver
from pipeline.solvers.auto import AUTO, engines_taking, pick_solver

import numpy as np

from pipeline.core.build import CLUE_ENCODINGS, Model, build_model
from pipeline.core.rulerows import rule_build_nonzeros
from pipeline.core.conventions import ORDERS, SCHEMES
from pipeline.core.errors import (DuplicateKey, PipelineError, PuzzleError, SeveralPuzzles, SolveError, clip,
                                  json_failure, loads_keys_once)
from pipeline.core.options import MAX_THREADS, float_option
from pipeline.core.parse import Source
from pipeline.core.progress import on_a_terminal
from pipeline.core.puzzle import DEFAULT_PUZZLE, VARIANTS, Puzzle, default_box, format_grid, grid_to_string, parse_puzzle
from pipeline.core.rules import NEEDS_MORE_THAN_A_NAME, RULES, rule_hint
from pipeline.core.stops import TOO_LONG_TO_START, Deadline
from pipeline.core.values import value_grid_text


def check_ranges(args: argparse.Namespace) -> None:
    """Refuse out-of-range numeric options with one line (a solver would ignore or choke on them).

    ``--time-limit`` must be a finite number of seconds above 0 (``nan`` and ``inf`` included
    in the refusal), ``--threads`` an integer ``1..MAX_THREADS``, ``--size`` at least 1.
    Options a subcommand does not have are skipped. (``--limit`` is checked by the counting
    engines themselves, for API callers too.)

    Parameters
    ----------
    args : argparse.Namespace

    Raises
    ------
    PipelineError
        ``--OPTION: must be ..., found VALUE``.

    Examples
    --------
    >>> check_ranges(argparse.Namespace(time_limit=float("nan")))
    Traceback (most recent call last):
    ...
    pipeline.core.errors.PipelineError: --time-limit: must be a finite number of seconds greater than 0, found nan
    >>> check_ranges(argparse.Namespace(threads=100000))
    Traceback (most recent call last):
    ...
    pipeline.core.errors.PipelineError: --threads: must be from 1 to 256, found 100000
    """
    time_limit = getattr(args, "time_limit", None)
    if time_limit is not None and not (math.isfinite(time_limit) and time_limit > 0):
        raise PipelineError(f"--time-limit: must be a finite number of seconds greater than 0, found {time_limit:g}")
    threads = getattr(args, "threads", None)
    if threads is not None and not 1 <= threads <= MAX_THREADS:
        raise PipelineError(f"--threads: must be from 1 to {MAX_THREADS}, found {threads}")
    size = getattr(args, "size", None)
    if size is not None and size < 1 and not getattr(args, "checks_size", False):   # generate names its range
        raise PipelineError(f"--size: must be at least 1, found {size}")


#: Arguments that may name standard input as ``-``, by their ``dest``, and how the message names
#: them (``grid`` is ``verify``'s positional ``GRID`` and ``draw``'s ``--grid``).
_STDIN_ARGS = {"puzzle": "PUZZLE", "grid": "GRID", "puzzle_opt": "--puzzle", "regions": "--regions",
               "file": "FILE", "manifest": "--manifest", "input": "INPUT"}


def check_stdin_once(args: argparse.Namespace) -> None:
    """Refuse ``-`` (standard input) for two inputs of one command: the first would read it all and
    the second find it empty (``verify - --puzzle -`` said "empty input").

    Parameters
    ----------
    args : argparse.Namespace

    Raises
    ------
    PipelineError
        ``standard input ('-') can be read once: ...``, naming the arguments.

    Examples
    --------
    >>> check_stdin_once(argparse.Namespace(command="verify", grid="-", puzzle_opt="-"))
    Traceback (most recent call last):
    ...
    pipeline.core.errors.PipelineError: standard input ('-') can be read once, given for GRID and --puzzle: write one of them to a file
    """
    named = [("--grid" if dest == "grid" and getattr(args, "command", None) == "draw" else shown)
             for dest, shown in _STDIN_ARGS.items() if getattr(args, dest, None) == "-"]
    if len(named) > 1:
        raise PipelineError(f"standard input ('-') can be read once, given for {' and '.join(named)}: "
                            "write one of them to a file")


# ---------------------------------------------------------------------------------------------
# shared options
# ---------------------------------------------------------------------------------------------
def add_puzzle_args(p: argparse.ArgumentParser, *, positional: bool = True, name: str = "puzzle") -> None:
    """The puzzle options: the positional ``PUZZLE``, ``--box``, ``--variant``, ``--regions``, ``--size``.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    positional : bool
        Add the positional puzzle argument.
    name : str
        Its destination name.
    """
    if positional:
        p.add_argument(name, metavar="PUZZLE", nargs="?", default=DEFAULT_PUZZLE,
                       help="a compact line of N*N cells (81 for 9x9; '.' or '0' empty, A-Z for 10..35; a 16x16 "
                            "in 0-F with '.' or '-' empty reads '0' as the value 0), a grid "
                            "text/CSV file, an N-by-3 row,col,digit CSV, a JSON puzzle document (text or file: "
                            "givens, rules, layout), an f-puzzles link, an ISS (Interactive Sudoku Solver) "
                            "constraint string such as '.Shape~6x6~0-8.~R1C1_0' (text or file), or '-' for stdin "
                            "(default: the built-in "
                            "seed puzzle, 9x9 with 23 clues)")
    p.add_argument("--box", metavar="HxW", help="box shape (default: sqrt(N)xsqrt(N), else the most square h<=w)")
    p.add_argument("--variant", choices=VARIANTS, help="puzzle family (default: classic, or jigsaw with --regions)")
    p.add_argument("--regions", metavar="IDS",
                   help="jigsaw regions: one id per cell, row-major, as a string or a file (default: none, boxes)")
    p.add_argument("--size", type=int, metavar="N", help="grid side for N-by-3 clue lists (default 9, or from --box)")
    p.add_argument("--rule", dest="rules", action="append", type=rule_entry, metavar="RULE",
                   help="a rule beyond units, repeatable: a kind its name alone gives (" + ", ".join(
                       RULES.bare_kinds()) + ") or one JSON rule entry, e.g. "
                   "'{\"rule\": \"fullrankties\", \"ties\": \"any\"}' (" + "; ".join(
                       f"{kind} needs {what}" for kind, what in NEEDS_MORE_THAN_A_NAME.items()) + ") or "
                   "'{\"rule\": \"cage\", \"cells\": [\"r1c1\", \"r1c2\"], \"sum\": 9}' (a puzzle document "
                   "carries its own rules)")


def add_limit_args(p: argparse.ArgumentParser, time_help: str) -> None:
    """``--time-limit S`` and ``--threads K`` (checked by :func:`check_ranges`).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    time_help : str
        What ``--time-limit`` limits, for its help.
    """
    p.add_argument("--time-limit", type=float_option, metavar="S", action=_TimeLimitAction,
                   help=f"{time_help}, finite and > 0 (default: none)")
    p.add_argument("--threads", type=int, metavar="K",
                   help=f"solver threads, 1..{MAX_THREADS} (default: the engine's choice)")


class _TimeLimitAction(argparse._StoreAction):
    """``--time-limit``: its help ends with the engines' clamps (:func:`clamped_time_limits`),
    worded when the help is shown: the words read every engine's bounds, and importing every
    engine cost each process 30-40 ms at start-up."""

    @property
    def help(self) -> str:
        return f"{self._help}; {clamped_time_limits()}"

    @help.setter
    def help(self, text: str) -> None:
        self._help = text


def clamped_time_limits() -> str:
    """The engines that take less than any finite ``--time-limit``, in words from their
    declared bounds (:attr:`Solver.bounds`): ``a longer limit is clamped to the engine's
    maximum: scip 1e+20 s; cbc, glpk, ... 2,000,000 s``."""
    highs: dict[float, list[str]] = {}
    for solver in SOLVERS.values():
        bound = solver.bounds.get("time_limit")
        if bound is not None and math.isfinite(bound.high):
            highs.setdefault(bound.high, []).append(solver.name)
    if not highs:
        return "every engine takes any finite limit"
    return "a longer limit is clamped to the engine's maximum: " + "; ".join(
        f"{', '.join(names)} {f'{high:,.0f}' if high < 1e9 else f'{high:g}'} s"
        for high, names in sorted(highs.items(), reverse=True))


def add_model_args(p: argparse.ArgumentParser, *, order_default: str = "F", clues_default: str = "rows") -> None:
    """The model options: ``--scheme``, ``--order``, ``--clues``.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    order_default : str
        ``--order``'s default.
    clues_default : str
        ``--clues``'s default.
    """
    p.add_argument("--scheme", choices=SCHEMES, default="ijk", help="variable indexing (default ijk)")
    p.add_argument("--order", choices=ORDERS, default=order_default,
                   help=f"memory order: F (MATLAB, first index fastest) or C (NumPy) (default {order_default})")
    p.add_argument("--clues", choices=CLUE_ENCODINGS, default=clues_default,
                   help=f"clue encoding: rows ([A;B]), bounds (lb=1) or reduce (presolved) (default {clues_default})")


def rule_entry(text: str) -> dict:
    """``--rule`` text -> a rule entry: a bare kind (``antiknight``) or a JSON object.

    Parameters
    ----------
    text : str
        What followed ``--rule``.

    Returns
    -------
    dict
    """
    text = text.strip()
    if text.startswith("{"):
        try:
            entry = loads_keys_once(text)
        except DuplicateKey as e:   # {"sum": 9, "sum": 10} took the last one without a word
            raise argparse.ArgumentTypeError(f"key {e.key!r} given twice in one rule entry; give each key once") from None
        except (ValueError, RecursionError) as e:   # ValueError: JSONDecodeError, or an integer of over 4,300 digits
            digits = isinstance(e, ValueError) and not isinstance(e, json.JSONDecodeError)
            why = "a number of over 4,300 digits" if digits else json_failure(e)
            raise argparse.ArgumentTypeError(f"not a JSON rule entry ({why})") from None
        if not isinstance(entry, dict):
            raise argparse.ArgumentTypeError("a JSON rule entry is an object")
        return entry
    if text not in RULES:
        raise argparse.ArgumentTypeError(f"unknown rule {clip(text, 40)!r}{rule_hint(text[:100])}; expected one of "
                                         f"{', '.join(RULES)} "
                                         "or a JSON entry")
    return {"rule": text}


def puzzle_from_args(args: argparse.Namespace, source: Source | None = None) -> Puzzle:
    """The puzzle the command line names.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed puzzle options (:func:`add_puzzle_args`).
    source : str, path or array, optional
        Read this instead of ``args.puzzle``.

    Returns
    -------
    Puzzle
    """
    try:
        try:
            return parse_puzzle(args.puzzle if source is None else source, box=args.box, variant=args.variant,
                                regions=args.regions, size=args.size, rules=getattr(args, "rules", None))
        except SeveralPuzzles as e:
            table = _one_row_table(args, args.puzzle if source is None else source, e)
            if table is None:
                raise
            return table
    except PuzzleError as e:
        if source is None and args.puzzle is DEFAULT_PUZZLE:   # the options met a puzzle the user never named
            raise type(e)(f"{e} (no PUZZLE was given: the built-in seed puzzle, 9x9 with 23 clues, was read)") from None
        raise


def _one_row_table(args: argparse.Namespace, source: Source, refused: SeveralPuzzles, as_source: bool = False) -> Any:
    """The puzzle of a file or standard input that is a table of one record (``generate --format
    csv`` writes one), read as batch reads its rows; None for any other input. ``as_source``: its
    text and ``parse_puzzle``'s keywords instead (``explain``)."""
    # here, not at the top: batch's reader and its engines cost every command 0.13 s to import
    from pipeline.batch.worker import one_row_input, one_row_source

    return one_row_input(source, refused, box=args.box, variant=args.variant, rules=getattr(args, "rules", None),
                         regions_given=None if args.regions is None else "--regions",
                         read=one_row_source if as_source else None)


def one_row_source(args: argparse.Namespace, refused: SeveralPuzzles) -> tuple[str, dict[str, Any]]:
    """The puzzle text and ``parse_puzzle``'s keywords of the one-record table the command line
    names, for a reader that takes text (``explain``); ``refused`` again for any other input.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed puzzle options.
    refused : SeveralPuzzles
        The reader's refusal of ``args.puzzle`` as one puzzle.

    Returns
    -------
    (str, dict)
    """
    source = _one_row_table(args, args.puzzle, refused, as_source=True)
    if source is None:
        raise refused
    return source


def model_nonzeros(puzzle: Puzzle) -> int:
    """Nonzeros of ``A`` for ``puzzle``, known before it is built: each cell-digit column is in
    its cell's row and in one row per unit family (``4 N^3`` for a classic N x N grid)."""
    return puzzle.n_cells * puzzle.n * (1 + len(puzzle.unit_families()))


def model_from_args(args: argparse.Namespace, puzzle: Puzzle | None = None, deadline: Deadline | None = None) -> Model:
    """The model the command line names.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed puzzle and model options.
    puzzle : Puzzle, optional
        Already read (else :func:`puzzle_from_args`).
    deadline : Deadline, optional
        The command's ``--time-limit``: a model whose build alone would outlast the time left is
        not built (:meth:`~pipeline.core.stops.Deadline.check_build`).

    Returns
    -------
    Model
    """
    puzzle = puzzle or puzzle_from_args(args)
    if deadline is not None:
        deadline.check_build(model_nonzeros(puzzle), f"the {puzzle.n}x{puzzle.n} model", rule_build_nonzeros(puzzle))
    return build_model(puzzle, args.scheme, args.order, args.clues)


def grid_line(grid: np.ndarray, puzzle: Puzzle | None) -> str:
    """One line of ``grid`` as every command prints it: the values when the puzzle has a value
    set (:func:`~pipeline.core.values.value_grid_text`), else the digits.

    Parameters
    ----------
    grid : numpy.ndarray
        ``(N, N)`` digits (``1..V``, 0 empty).
    puzzle : Puzzle or None
        Its value set, if any (None: the digits).

    Returns
    -------
    str
    """
    if puzzle is not None and puzzle.values is not None:
        return value_grid_text(grid, puzzle.values)
    return grid_to_string(grid)


def print_grid(grid: np.ndarray, puzzle: Puzzle, fmt: str, extra: dict | None = None) -> None:
    """Print ``grid`` as ``--format`` says: ``line``, ``json`` (with ``extra`` keys) or a grid.

    Parameters
    ----------
    grid : numpy.ndarray
        ``(N, N)`` digits.
    puzzle : Puzzle
        Its box shape draws the separators.
    fmt : {"grid", "line", "json"}
        Output form.
    extra : dict, optional
        More JSON keys.
    """
    line = grid_line(grid, puzzle)
    if puzzle.values is not None:   # a value set: the digits shown as their values (pipeline.core.values)
        shown = [[v if d else None for v, d in zip(values, digits)]
                 for values, digits in zip(puzzle.shown(grid).tolist(), np.asarray(grid).tolist())]
    else:
        shown = np.asarray(grid).tolist()
    if fmt == "line":
        print(line)
    elif fmt == "json":   # boxes other than the squarest are named: the grid alone would read back with those
        other = puzzle.has_boxes and puzzle.layout is None and (puzzle.h, puzzle.w) != default_box(puzzle.n)
        print(json.dumps({"grid": shown, "line": line, **({"box": f"{puzzle.h}x{puzzle.w}"} if other else {}),
                          **(extra or {})}))
    else:
        print(format_grid(grid, puzzle.h if puzzle.has_boxes else None, puzzle.w if puzzle.has_boxes else None,
                          values=puzzle.values))


def engine_options(args: argparse.Namespace, solver: Solver, what: str = "solve", *,
                   deadline: Deadline | None = None, keep: int | None = None) -> dict:
    """The command line's engine options that ``solver``'s ``solve`` (or ``count``) declares.

    The command line holds every engine's options (``--threads``, ``--workdir``,
    ``--sat-backend``, ``--amo``, ``--presolve``); each engine gets only those it takes
    (:meth:`Solver.pick_options`), so an option it lacks is not passed rather than dropped
    silently inside it (an API caller passing one gets a SolveError).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    solver : Solver
        The registry entry that will be called.
    what : {"solve", "count"}
        Which of its functions.
    deadline : Deadline, optional
        The command's ``--time-limit``: the engine gets the time left of it, not the whole.
    keep : int, optional
        Grids a count keeps (default: ``--limit`` with ``--list``, else 1).

    Returns
    -------
    dict
    """
    time_limit = args.time_limit if deadline is None else deadline.remaining()
    # an engine that can keep fewer grids than it counts keeps what the output shows: all with
    # --list, else the first
    if keep is None:
        keep = (args.limit if getattr(args, "list", False) else 1) if what == "count" else None
    return solver.pick_options({"time_limit": time_limit, "threads": getattr(args, "threads", None),
                                "keep": keep,
                                "workdir": getattr(args, "workdir", None),
                                "sat_backend": getattr(args, "sat_backend", None),
                                "amo": getattr(args, "amo", None) or DEFAULT_AMO,
                                "presolve": getattr(args, "presolve", None) or DEFAULT_PRESOLVE}, what)


#: Engine options of the command line by ``dest``, as the user types them (each defaults to None,
#: so that one the user gave is known).
_ENGINE_FLAGS = {"threads": "--threads", "workdir": "--workdir", "sat_backend": "--sat-backend", "amo": "--amo",
                 "presolve": "--presolve"}


def note_unused_options(args: argparse.Namespace, solver: Solver, what: str = "solve", *,
                        also: Solver | None = None) -> None:
    """Say on stderr which engine options the user gave that the engine they named does not take
    (``--solver highs --sat-backend g4``: the option is not passed, :func:`engine_options`, and
    without the note it looked used).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line; nothing is said under ``--solver auto`` (its pick may take them).
    solver : Solver
        The engine named.
    what : {"solve", "count"}
        Which of its functions runs.
    also : Solver, optional
        An engine that also runs with these options (the one counting for ``solve``'s uniqueness
        check): what it takes is not noted.
    """
    if getattr(args, "solver", AUTO) in (None, AUTO):
        return
    taken = set(solver.count_options if what == "count" else solver.options)
    if also is not None:
        taken |= set(also.count_options)
    unused = [flag for dest, flag in _ENGINE_FLAGS.items() if getattr(args, dest, None) is not None and dest not in taken]
    if unused:
        print(f"note: --solver {solver.name} takes no {' or '.join(unused)}; "
              f"{'it is' if len(unused) == 1 else 'they are'} ignored", file=sys.stderr)


def add_solver_args(p: argparse.ArgumentParser, names: list[str], what: str) -> None:
    """``--solver auto|NAME`` (default auto) and ``--verbose`` (say which engine auto picked).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    names : list of str
        The engines this command can use, in registry order.
    what : str
        What the engine does here, for the help.
    """
    p.add_argument("--solver", choices=[AUTO, *names], default=AUTO, metavar="NAME",
                   help=f"{what}: auto (default: the engine make bench measured fastest for the question and "
                        f"puzzle, docs/solvers.md 'What --solver auto picks') or one of " + ", ".join(names))
    p.add_argument("--verbose", "-v", action="store_true",
                   help="say on stderr which engine --solver auto picked and why, and when it handed the search on")


def resolve_solver(args: argparse.Namespace, question: str, model: Model | None = None, *,
                   need: str | None = None, among: tuple[str, ...] | None = None, auto: bool = False,
                   later: list[str] | None = None) -> Solver:
    """The engine ``--solver`` names; for ``auto`` the one :func:`pipeline.solvers.auto.pick_solver`
    picks for ``question`` and ``model``.

    With ``--verbose`` it says on stderr ``solver: auto picked sat (uniqueness proof, 25x25;
    ...)``; when a faster engine is missing here (python-sat not importable), one ``note:`` line
    says so, once per command however many engines it picks.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (``solver``, ``verbose``).
    question : str
        A key of :data:`pipeline.solvers.auto.QUESTIONS`.
    model : Model, optional
        The model it is asked for (its rules, layout and size).
    need : {"solve", "count"}, optional
        As :func:`pipeline.solvers.get_solver`'s.
    among : tuple of str, optional
        The engines the command can use.
    auto : bool
        Pick as ``auto`` whatever ``--solver`` says (solve's uniqueness count).
    later : list of str, optional
        Where the ``note:`` and ``solver:`` lines go instead of stderr, for a command that checks
        its other options first (an error is then the only line).

    Returns
    -------
    Solver
    """
    name = AUTO if auto else getattr(args, "solver", None) or AUTO
    if name != AUTO:
        named = get_solver(name, need=need)
        problem = None if model is None else named.problem_with(model)
        if problem:
            raise SolveError(f"solver {name}: {problem}")
        return named
    pick = pick_solver(question, model, among=_taking_explicit_options(args, question, among))
    said = vars(args).setdefault("_auto_missing", set())
    lines = []
    if pick.note and not said:   # one note per command, however many picks (--verbose says the rest)
        said.update(pick.missing)
        engine_named = getattr(args, "solver", None) not in (None, AUTO)
        # with --solver minisat, a note of auto's pick is about the uniqueness count: say so
        lines.append(f"note: {pick.note.replace('solver auto:', 'solver auto (the uniqueness check):', 1)}"
                     if auto and engine_named else f"note: {pick.note}")
    if getattr(args, "verbose", False):
        lines.append(f"solver: auto picked {pick.name} ({pick.reason})")
    if later is not None:
        later.extend(lines)
    else:
        for line in lines:
            print(line, file=sys.stderr)
    get_solver(pick.name, need=need)   # refuses one without ``need``, as a named engine is refused
    return pick.solver                 # with the row's handoff to the next engine, when it has one


@contextlib.contextmanager
def explain_compiles(args: argparse.Namespace) -> Iterator[None]:
    """Within it, say on stderr (``note: compiling the dfsrules search kernel ...``) when a
    compiled engine's kernel compiles (once per machine, 5-20 s that would otherwise pass in
    silence): on a terminal, or anywhere with ``--verbose``. :func:`pipeline.cli.main.main` runs
    each command within it.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (``verbose``).

    Yields
    ------
    None
    """
    before = dfs_native.on_compile
    if getattr(args, "verbose", False) or on_a_terminal(sys.stderr):
        dfs_native.on_compile = _say_compiling
    try:
        yield
    finally:
        dfs_native.on_compile = before


def _say_compiling(line: str) -> None:
    print(f"note: {line}", file=sys.stderr, flush=True)


#: Options that choose how one kind of engine works (the SAT engine's backend and encoding): given
#: on the command line, ``auto`` picks among the engines that take them rather than drop them.
ENGINE_CHOICE_OPTIONS = ("sat_backend", "amo")


def say_handed_on(args: argparse.Namespace, asked: str, result: SolveResult | CountResult) -> None:
    """With ``--verbose``, say on stderr that ``auto``'s first engine gave up and the next one
    answered (``result``, a SolveResult or CountResult, names another engine than ``asked``).

    Parameters
    ----------
    args : argparse.Namespace
        The command's arguments.
    asked : str
        The engine ``resolve_solver`` returned.
    result : SolveResult or CountResult
        Its answer: ``solver`` the engine that gave it, ``message`` the handoff's words.
    """
    if getattr(args, "verbose", False) and result.solver and result.solver != asked and result.message:
        print(f"solver: {result.message}", file=sys.stderr)


def _taking_explicit_options(args: argparse.Namespace, question: str,
                             among: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """``among`` narrowed to the engines that take every :data:`ENGINE_CHOICE_OPTIONS` the user gave."""
    given = [k for k in ENGINE_CHOICE_OPTIONS if getattr(args, k, None) is not None]
    return engines_taking(given, question, among) if given else among


def default_count_solver(model: Model | None = None) -> str:
    """The engine ``--solver auto`` counts with (:func:`pipeline.solvers.auto.pick_solver`'s
    ``count`` row: dfs for grids up to 16x16 when numba is installed, else the SAT engine when
    python-sat imports, else HiGHS) for ``model``'s rows and size.

    Parameters
    ----------
    model : Model, optional
        The model to count; without it, any model of units alone.

    Returns
    -------
    str
    """
    return pick_solver("count", model).name


SCRIPT = "sudoku-pipeline"


def command_words() -> str:
    """How a hint line writes this command line's start, so that the command it suggests runs.

    ``python -m pipeline`` under ``-m``; the installed script as ``sudoku-pipeline`` when that
    name on ``PATH`` is this script, else by its path (a venv's script called by its path, whose
    ``python -m pipeline`` is another interpreter without this package).

    Returns
    -------
    str
    """
    started = sys.argv[0] if sys.argv else ""
    if not os.path.basename(started).startswith(SCRIPT):
        return "python -m pipeline"
    found = shutil.which(SCRIPT)
    try:
        same = found is not None and os.path.samefile(found, started)
    except OSError:
        same = False
    return SCRIPT if same else shlex.quote(started)


NO_SOLUTION_WORDS = {"infeasible": "the puzzle has no solution (infeasible)"}


def add_time_limit_arg(p: argparse.ArgumentParser, command: str) -> None:
    """``--time-limit S`` for a command that answers once or not at all (``rate``, ``explain``):
    :func:`stopped_by_time_limit` is its answer when the limit comes first.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    command : str
        The command's name, for the help.
    """
    p.add_argument("--time-limit", type=float_option, metavar="S",
                   help=f"time limit in seconds for the whole {command}, finite and > 0 (default: none); when it "
                        f"passes first, one line on stderr and exit 1")


def stopped_by_time_limit(args: argparse.Namespace, command: str, reason: str | None) -> int:
    """The answer of a command that ``--time-limit`` stopped: one line on stderr (``rate: no
    answer: time limit of 5.0 s reached``), ``{"status": "time_limit", ...}`` with
    ``--format json``; exit code 1.

    Parameters
    ----------
    args : argparse.Namespace
        The command's arguments (``time_limit``, ``format``).
    command : str
        The command's name.
    reason : str or None
        Why it stopped before it started (:class:`~pipeline.core.stops.Deadline`), if so.
    """
    words = reason or time_limit_words(args)
    if getattr(args, "format", None) == "json":
        print(json.dumps({"status": "time_limit", "time_limit": args.time_limit, "message": words}))
    print(f"{command}: no answer: {words}", file=sys.stderr)
    return 1


def time_limit_words(args: argparse.Namespace, reason: str | None = None) -> str:
    """How solve and count say a time-limit stop (the float as given: ``time limit of 5.0 s
    reached``), or a step refused at once because its estimate outlasts the limit (``not
    started: the time limit of 5.0 s is too short``: nothing ran until the limit).

    Parameters
    ----------
    args : argparse.Namespace
        The command's arguments (``time_limit``).
    reason : str or None
        The engine's or the build's message, if any (an estimate says ``alone takes about``).
    """
    limit = f"time limit of {args.time_limit} s" if args.time_limit is not None else "time limit"
    if reason and TOO_LONG_TO_START in reason:
        return f"not started: the {limit} is too short"
    return f"{limit} reached"


class _SatBackends:
    """``--sat-backend``'s choices, listed when first asked for (a value given, ``--help``):
    importing python-sat to list them cost every process 10 ms at start-up. Without python-sat
    any name passes here, and the engine says what is missing."""

    def _names(self) -> tuple[str, ...]:
        from pipeline.solvers.sat import sat_backends

        return sat_backends()

    def __iter__(self):
        return iter(self._names())

    def __contains__(self, name: object) -> bool:
        names = self._names()
        return not names or name in names


def add_engine_args(p: argparse.ArgumentParser) -> None:
    """The engine options: ``--sat-backend``, ``--amo``, ``--presolve`` (each engine takes its own).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    """
    p.add_argument("--sat-backend", choices=_SatBackends(), metavar="NAME",
                   help=f"python-sat solver for --solver sat (default {DEFAULT_BACKEND}): %(choices)s")
    p.add_argument("--amo", choices=("auto", *AMO_ENCODINGS), default=None,
                   help="at-most-one encoding of the SAT/CNF rows (default auto: pairwise up to "
                        f"{AUTO_PAIRWISE_MAX}x{AUTO_PAIRWISE_MAX}, else ladder)")
    p.add_argument("--presolve", choices=PRESOLVE_METHODS, default=None,
                   help="what the engine is handed: singles (naked and hidden singles first, then the reduced "
                        "model; the answer is mapped back and verified against the puzzle) or none (the model as "
                        f"built) (default {DEFAULT_PRESOLVE}; exported files are never presolved)")
