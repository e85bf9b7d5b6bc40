"""What a worker does with a chunk: parse the records (in bulk where it can), group them by shape,
hand each shape to its engine, verify in bulk, and return the result columns.

Every record is isolated: a record that cannot be parsed, or whose solve raises anything, becomes
a row with ``status = error`` and the reason; the chunk's other records are solved. A bulk step
that raises is redone record by record, so one bad record cannot take its neighbours down.
"""
from __future__ import annotations

import json
import math
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pipeline.core import stops
from pipeline.core.document import rule_entries_text
from pipeline.core.errors import PipelineError, PuzzleError, SeveralPuzzles, SolveError
from pipeline.core.parse import COMPACT_DIGITS, default_box, literal_text, parse_box
from pipeline.core.textin import MAX_TEXT_BYTES
from pipeline.core.build import build_model
from pipeline.core.puzzle import Puzzle, parse_puzzle
from pipeline.core.variants import VARIANT_TABLE, get_variant, variant_name
from pipeline.core.verify import verify_grid
from pipeline.solvers import get_solver
from pipeline.batch.config import SolveOptions
from pipeline.batch import dfs_shape, highs_shape, sat_shape  # noqa: F401  (they attach their batch kernels)
from pipeline.batch.kernels import (COMPACT_RECORD, clue_conflicts, fast_grids, grid_strings, shape_key, verify_solutions,
                      with_clues)
from pipeline.batch.progress import flush_ticks, stopped
from pipeline.batch.records import bad_row_parts, puzzle_as_written, read_records
from pipeline.batch.rules_shape import beyond_unit_kernels, empty_of, rule_shape_key, rules_text, solve_rule_shape
from pipeline.batch.text import TOO_LARGE, one_line, solver_failure

__all__ = ["RESULT_COLUMNS", "CPU_KEY", "STOPPED_KEY", "Shape", "parse_record", "solve_records"]

RESULT_COLUMNS = ("index", "id", "puzzle", "regions", "variant", "rules", "solution", "status", "n_solutions", "seconds",
                  "wall_seconds", "nodes", "error")
#: Whether this process is a pool worker of its own (its whole CPU time is its chunks'):
#: :func:`count_whole_process` sets it in the process engine's worker set-up.
_WHOLE_PROCESS = [False]


def count_whole_process() -> None:
    """Count this process's CPU time (all its threads) as its chunks': a process worker's."""
    _WHOLE_PROCESS[0] = True


CPU_KEY = "_cpu_seconds"   # not a column: the chunk's CPU time, for the run's summary
STOPPED_KEY = "_stopped"   # not a column: the chunk was cut short by a stop request


@dataclass
class Shape:
    """Puzzles that share the rules: the empty template and the chunk's members."""

    template: Puzzle
    members: list = field(default_factory=list)   # positions in the chunk
    grids: list = field(default_factory=list)     # (N*N,) clue grids
    #: A rule group's first member as parsed (the template is it without clues, sharing its rule
    #: rows): that record is solved from it instead of being made and checked again.
    first: Puzzle | None = None


def parse_record(puzzle: object, regions: object = None, variant: str | None = None,
                 box: str | None = None, rules: str | None = None) -> Puzzle:
    """One record -> Puzzle (the slow, general path).

    Parameters
    ----------
    puzzle : str
        The record's puzzle text.
    regions : str, optional
        Its jigsaw regions.
    variant : str, optional
        Its variant.
    box : str, optional
        Box shape ``HxW``.
    rules : str, optional
        The record's rules: a JSON list of rule entries (as in a puzzle document).

    Raises
    ------
    PuzzleError
        A one-line message naming what is wrong with the record.
    """
    _check_record(puzzle, variant)
    # a record is text, never a file path
    return parse_puzzle(literal_text(str(puzzle).strip()), **_record_options(regions, variant, box, rules))


def _check_record(puzzle: object, variant: str | None) -> None:
    """A record's puzzle and variant fields, before they are parsed (PuzzleError naming the fault)."""
    if puzzle is None or not str(puzzle).strip():
        raise PuzzleError("puzzle: empty record: expected a puzzle")
    bad = bad_row_parts(puzzle)
    if bad is not None:   # a row the reader could not split as the header
        raise PuzzleError(bad[0])
    if variant is not None:
        get_variant(variant_name(variant))  # names the known variants


def _record_options(regions: object, variant: str | None, box: Any, rules: str | None) -> dict[str, Any]:
    """:func:`~pipeline.core.puzzle.parse_puzzle`'s keywords for a record's other fields."""
    return {"box": box, "variant": variant, "regions": None if regions is None else literal_text(str(regions).strip()),
            "rules": rule_entries_text(rules), "rules_where": "rules"}


def one_row_table(path: str | os.PathLike, *, box: Any = None, variant: str | None = None,
                  rules: list | None = None, where: str | None = None) -> Puzzle | None:
    """The puzzle of a CSV, TSV or Parquet table of exactly one record, read as batch reads its
    rows (``generate --format csv`` writes one): where one puzzle is read, such a file is it.

    Parameters
    ----------
    path : str or Path
        The file the one-puzzle reader refused as a table of puzzles.
    box : str or (int, int), optional
        The box shape, as the caller was given it.
    variant : str, optional
        A variant for a row without one in its ``variant`` column.
    rules : list of dict, optional
        Rule entries for a row without its own ``rules``.
    where : str, optional
        How messages name the input (default: ``path``).

    Returns
    -------
    Puzzle or None
        None when ``path`` is no such table (lines of text, or a table of more rows, stay
        batch's input).

    Raises
    ------
    PuzzleError
        The file cannot be read as a table, holds no record, its row is not a valid puzzle, or the
        caller's ``variant`` or ``rules`` differ from the row's own (one line naming the file).
    """
    where = where or str(path)
    source = one_row_source(path, box=box, variant=variant, rules=rules, where=where)
    if source is None:
        return None
    try:
        return parse_puzzle(source[0], **source[1])
    except PuzzleError as e:
        raise type(e)(f"{where}: its one row: {e}") from None


def one_row_source(path: str | os.PathLike, *, box: Any = None, variant: str | None = None, rules: list | None = None,
                   where: str | None = None) -> tuple[str, dict[str, Any]] | None:
    """The text of a one-record table's puzzle and :func:`~pipeline.core.puzzle.parse_puzzle`'s
    keywords for the rest of its row (``explain`` reads a puzzle whose clues may break a rule so).

    Parameters
    ----------
    path, box, variant, rules, where
        As :func:`one_row_table`.

    Returns
    -------
    (str, dict) or None
        None as for :func:`one_row_table`.

    Raises
    ------
    PuzzleError
        As :func:`one_row_table`, but for the puzzle itself.
    """
    where = where or str(path)
    try:
        # a one-row table is small: a big one is batch's input, not read whole to find out
        if os.stat(path).st_size > MAX_TEXT_BYTES or not _one_parquet_row(path, where):
            return None
        records = read_records(path)
    except PuzzleError:   # said of this file already
        raise
    except PipelineError as e:   # batch's reason, not advice to run batch, which refuses the file too
        raise PuzzleError(f"{where}: read as a table of puzzles: {str(e).removeprefix('batch: ')}") from None
    except OSError as e:
        raise PuzzleError(f"{where}: cannot read it: {e.strerror or e}") from None
    if "line" in records or len(records["puzzle"]) > 1:   # lines of puzzles, or rows of them: batch's
        return None
    if not records["puzzle"]:
        raise PuzzleError(f"{where}: a table with no record under its header: expected a puzzle")
    row = {column: values[0] for column, values in records.items()}
    if variant is not None and row["variant"] not in (None, "", variant):
        raise PuzzleError(f"{where}: its row's variant is {row['variant']!r}, and {variant!r} was asked for: "
                          "give one")
    try:
        if rules and rule_entries_text(row["rules"]):   # an empty list ("[]") is no rules of its own
            raise PuzzleError(f"{where}: its row has its own rules (the 'rules' column): give rules in one place")
        _check_record(row["puzzle"], row["variant"] or variant)
        options = _record_options(row["regions"], row["variant"] or variant, box,
                                  json.dumps(rules) if rules else row["rules"])
    except PuzzleError as e:
        raise type(e)(str(e) if str(e).startswith(where) else f"{where}: its one row: {e}") from None
    return literal_text(row["puzzle"].strip()), options


def _one_parquet_row(path: str | os.PathLike, where: str) -> bool:
    """False for a Parquet file of other than one row; a one-row file whose data would take more
    than :data:`MAX_TEXT_BYTES` uncompressed is refused (a 22 KB zstd file of a 700 MB column
    took 2.2 GB to read). True for any other file (not Parquet: its size on disk bounds it)."""
    with open(path, "rb") as handle:
        if handle.read(4) != b"PAR1":
            return True
    import pyarrow.parquet as pq   # here: pyarrow is a core dependency, but not every command's

    try:
        meta = pq.read_metadata(path)
    except Exception:   # pyarrow raises many types: batch's reader words the reason
        return True
    if meta.num_rows != 1:
        return meta.num_rows == 0   # no row: batch's reader reads it, and it is said so below
    unpacked = sum(meta.row_group(k).total_byte_size for k in range(meta.num_row_groups))
    if unpacked > MAX_TEXT_BYTES:
        raise PuzzleError(f"{where}: a Parquet table of one row holding {unpacked:,} bytes uncompressed: more than the "
                          f"{MAX_TEXT_BYTES:,} a puzzle may take")
    return True


def one_row_input(source: Any, refused: SeveralPuzzles, *, box: Any = None, variant: str | None = None,
                  rules: list | None = None, regions_given: str | None = None, read: Any = None) -> Any:
    """The one-record table a one-puzzle reader refused (``refused``) as several puzzles: a file
    named by ``source``, or standard input's text (``refused.stdin_text``, read once). The command
    line and :func:`pipeline.api.read_puzzle` both come here.

    Parameters
    ----------
    source : str, Path or other
        What the reader was given.
    refused : SeveralPuzzles
        Its refusal.
    box, variant, rules
        As :func:`one_row_table`.
    regions_given : str, optional
        How the caller names the regions it was given (``--regions``, ``regions=``): a table's
        regions are its own column, so this is refused.
    read : callable, optional
        :func:`one_row_source` instead of :func:`one_row_table`.

    Returns
    -------
    Puzzle, (str, dict) or None
        None when ``source`` names no file and standard input was not read (cells of text).
    """
    if refused.stdin_text is None and not _names_a_file(source):
        return None
    where = "<stdin>" if refused.stdin_text is not None else str(source)
    if regions_given is not None:
        raise PuzzleError(f"{where}: a table's regions are its 'regions' column, not {regions_given}")
    options = {"box": box, "variant": variant, "rules": rules}
    if refused.stdin_text is not None:
        return one_row_table_text(refused.stdin_text, read=read, **options)
    return (read or one_row_table)(source, **options)


def _names_a_file(source: Any) -> bool:
    """True when ``source`` is the name of a regular file (text of cells is not)."""
    try:   # a name too long for one, or with a NUL, raises
        return isinstance(source, (str, os.PathLike)) and os.fspath(source) != "-" and os.path.isfile(source)
    except (OSError, ValueError, TypeError):
        return False


def one_row_table_text(text: str, *, box: Any = None, variant: str | None = None, rules: list | None = None,
                       where: str = "<stdin>", read: Any = None) -> Any:
    """:func:`one_row_table` (or ``read``) of a table's text (standard input, read once), its
    separator told from its header as a file's is (:func:`~pipeline.batch.separator.table_separator`).

    Parameters
    ----------
    text : str
        The table.
    box, variant, rules
        As :func:`one_row_table`.
    where : str
        How messages name the input.
    read : callable, optional
        :func:`one_row_source` instead of :func:`one_row_table`.

    Returns
    -------
    Puzzle, (str, dict) or None
    """
    with stops.temporary_directory("sudoku-stdin-") as folder:   # read_records reads a file
        path = os.path.join(folder, "table.csv")
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
        return (read or one_row_table)(path, box=box, variant=variant, rules=rules, where=where)


def _reason(e: BaseException) -> str:
    """A record's error text: the pipeline's own message, or the exception type and its line."""
    return one_line(e) if isinstance(e, PipelineError) else f"{type(e).__name__}: {one_line(e)}"


def _bulk_candidates(records, options: SolveOptions, rows: list[dict], box) -> tuple[dict, list[int]]:
    """Records the bulk parser may take, by (N, variant); and the others (by position)."""
    fast: dict[tuple, list[int]] = {}
    slow: list[int] = []
    for k, (_, _, regions, variant, *rest) in enumerate(records):
        rules = rest[:1]   # the record's id, after its rules, changes nothing here
        variant = variant or options.variant or "classic"
        rows[k]["variant"] = variant
        text = rows[k]["puzzle"]
        n = math.isqrt(len(text)) if text else 0
        spec = VARIANT_TABLE.get(variant)
        if (regions is None and not any(rules) and spec is not None and not spec.regions and 1 < n <= len(COMPACT_DIGITS)
                and n * n == len(text) and COMPACT_RECORD.fullmatch(text) and (box is None or box[0] * box[1] == n)):
            fast.setdefault((n, variant), []).append(k)
        else:
            slow.append(k)
    return fast, slow


def group_records(records: list[tuple], options: SolveOptions, rows: list[dict]) -> dict[tuple, Shape]:
    """Parse a chunk: compact records in bulk, anything else (or anything odd) one by one.

    Parse errors land in ``rows``; returns the well-formed puzzles grouped by shape.

    Parameters
    ----------
    records : list of tuple
        ``(index, puzzle, regions, variant[, rules[, id]])`` per record.
    options : SolveOptions
        Default variant and box.
    rows : list of dict
        The chunk's result rows (parse errors land here).
    """
    shapes: dict[tuple, Shape] = {}
    box = parse_box(options.box) if options.box else None
    fast, slow = _bulk_candidates(records, options, rows, box)
    for (n, variant), ks in fast.items():
        try:
            h, w = box or default_box(n)
            template = Puzzle(np.zeros((n, n), dtype=np.int64), h, w, variant)
            grids, ok = fast_grids([rows[k]["puzzle"] for k in ks], n)
            ok &= ~clue_conflicts(grids, template)
        except Exception as e:  # the general parser below names what is wrong, record by record
            stops.raise_if_stop(e)   # a Ctrl-C wrapped by a class's creation: no failure
            slow += ks
            continue
        shape = shapes.setdefault(shape_key(template), Shape(template))
        for j, k in enumerate(ks):
            if ok[j]:
                shape.members.append(k)
                shape.grids.append(grids[j])
            else:
                slow.append(k)  # the general parser names what is wrong
    for k in sorted(slow):
        _, text, regions, variant, *rest = records[k]
        rules = rest[:1]   # the record's id, after its rules, changes nothing here
        try:
            puzzle = parse_record(text, regions, variant or options.variant, options.box, *rules)
            if beyond_unit_kernels(puzzle):   # rules or a layout: the rule kernel (rules_shape)
                entries = puzzle.rules_dicts()   # once, for the group's key and the row's rules column
                key = rule_shape_key(puzzle, entries)
                rows[k]["rules"] = rules_text(puzzle, entries)
                if key not in shapes:
                    shapes[key] = Shape(empty_of(puzzle), first=puzzle)
            else:
                key = shape_key(puzzle)
                if key not in shapes:
                    shapes[key] = Shape(with_clues(puzzle, np.zeros(puzzle.n ** 2, dtype=np.int64)))
        except Exception as e:  # anything at all: this record's error, not the chunk's
            stops.raise_if_stop(e)   # a Ctrl-C wrapped by a class's creation: no failure
            # a model too large for the memory limit is memory_limit here too (a record with rules
            # met the limit in its parse and was "error", which --retry memory_limit missed)
            rows[k].update(status="memory_limit" if isinstance(e, TOO_LARGE) else "error", error=_reason(e))
            if rules and isinstance(rules[0], str) and rules[0].strip():   # as written: which rules failed
                rows[k]["rules"] = rules[0]
            continue
        rows[k]["variant"] = puzzle.variant
        shapes[key].members.append(k)
        shapes[key].grids.append(puzzle.grid.ravel())
    return shapes


def record_solutions(template: Puzzle, members: list, rows: list[dict], clues: np.ndarray,
                     solutions: np.ndarray, has: np.ndarray) -> None:
    """Verify the found grids in bulk; write the solution text, or verify_grid's message.

    Parameters
    ----------
    template : Puzzle
        The shape.
    members : list of int
        The rows' positions in the chunk.
    rows : list of dict
        The chunk's result rows.
    clues, solutions : numpy.ndarray
        ``(P, N*N)`` clue grids and found grids.
    has : numpy.ndarray
        ``(P,)`` True where a grid was found.
    """
    if not len(members):
        return
    n = template.n
    ok = verify_solutions(solutions, clues, template) | ~has
    for j, text in zip(np.flatnonzero(has & ok), grid_strings(solutions[has & ok], n)):
        rows[members[j]]["solution"] = text
    for j in np.flatnonzero(~ok):
        verdict = verify_grid(solutions[j].reshape(n, n), with_clues(template, clues[j]))
        rows[members[j]].update(status="invalid", error=f"verify: {verdict.message}")


def _beyond_the_run_engine(template: Puzzle, options: SolveOptions) -> bool:
    """Whether auto's engine for the run cannot take this shape (dfs above 64x64): its records then
    get auto's pick for their own model, as records with rules do (they were error rows, where
    ``solve`` answered them)."""
    return options.rules_by_auto and get_solver(options.solver, check_available=False).problem_with(
        build_model(template)) is not None


def _solve_shape(shape: Shape, options: SolveOptions, rows: list[dict]) -> None:
    try:
        by_rules = beyond_unit_kernels(shape.template) or _beyond_the_run_engine(shape.template, options)
    except Exception as e:   # the shape's model cannot be built (over the memory allowed): each record says so
        stops.raise_if_stop(e)   # a Ctrl-C wrapped by a class's creation: no failure
        for k in shape.members:
            rows[k].update(solution=None, **solver_failure(e))   # as the other engines' rows say it
        return
    if by_rules:
        solve_rule_shape(shape, options, rows)   # isolates its records itself
        return
    try:
        # the solver entry's batch kernel (highs_shape and sat_shape attach theirs)
        kernel = get_solver(options.solver, check_available=False).batch_kernel
        if kernel is None:
            raise SolveError(f"batch: solver {options.solver} has no batch kernel")
        kernel(shape, options, rows, record_solutions)
    except Exception as e:
        stops.raise_if_stop(e)   # a Ctrl-C wrapped by a class's creation: no failure
        if len(shape.members) == 1:
            k = shape.members[0]
            rows[k].update(status=solver_failure(e)["status"], solution=None, error=_reason(e))
            return
        for k, grid in zip(shape.members, shape.grids):  # redo alone: find the record at fault
            if stopped():
                return
            rows[k].update(status=None, solution=None, error=None, seconds=0.0, nodes=0, n_solutions=None)
            _solve_shape(Shape(shape.template, [k], [grid]), options, rows)


def solve_records(records: list[tuple], options: SolveOptions | dict) -> dict[str, list]:
    """Solve ``[(index, puzzle, regions, variant[, rules[, id]]), ...]``; returns the result columns as lists.

    Never raises for a bad record: a parse error becomes status ``error`` with the message; a
    failure inside the solver status ``error`` with the exception's first line. ``seconds`` is
    the time inside the solver call, ``wall_seconds`` the record's whole cost in this worker
    (bulk steps shared equally among their records). After a stop request the rows not reached
    are left out (and the columns carry ``STOPPED_KEY``): a resume solves them.

    Parameters
    ----------
    records : list of tuple
        ``(index, puzzle, regions, variant[, rules[, id]])`` per record.
    options : SolveOptions or dict
        The run's solve options.
    """
    if isinstance(options, dict):
        options = SolveOptions(**options)
    # the chunk's CPU: the process's in a process worker or alone in its process (HiGHS's search
    # runs on its own threads even with threads=1: this thread's time saw 0.1 of 0.6 CPU seconds),
    # else this thread's (a Dask worker runs several tasks at once)
    clock = time.process_time if _WHOLE_PROCESS[0] or threading.active_count() == 1 else time.thread_time
    start, cpu = time.perf_counter(), clock()
    # a jigsaw's regions as its record gave them: the row says what was solved (report draws it)
    # ``id``: the record's name, carried as it is (None without)
    rows: list[dict[str, Any]] = [{"index": int(index), "id": rest[2] if len(rest) > 2 else None,
             "puzzle": puzzle_as_written(text),
             "regions": regions.strip() if isinstance(regions, str) and regions.strip() else None, "variant": None,
             "rules": None, "solution": None, "status": None, "n_solutions": None, "seconds": 0.0, "wall_seconds": 0.0,
             "nodes": 0, "error": None} for index, text, regions, *rest in records]   # rest: variant[, rules[, id]]
    shapes = group_records(records, options, rows)
    bulk = time.perf_counter() - start   # shared by every record of the chunk
    for shape in shapes.values():
        if stopped():
            break
        _solve_shape(shape, options, rows)
    cut = stopped()
    finished = []
    for row in rows:
        # after a stop, a row whose engine run the stop ended ("interrupted") is as unfinished as
        # one not reached: left out, so that a plain resume solves it
        if cut and row["status"] in (None, "interrupted"):
            continue
        if row["status"] is None:
            row.update(status="error", error="batch: the record was not processed")
        if row["status"] == "time_limit" and not row["error"] and options.time_limit is not None:
            row["error"] = f"solver: time limit of {options.time_limit:g} s reached"   # the engine said no more
        if row["n_solutions"] == 0 and row["status"] != "infeasible":
            # a count that a limit or a failure ended before any grid is no count: <NA>, as HiGHS's
            # rows had it (the SAT and dfs kernels said 0, which reads as "no solution")
            row["n_solutions"] = None
        row["wall_seconds"] += bulk / max(len(rows), 1)
        finished.append(row)
    flush_ticks()
    columns: dict[str, Any] = {name: [row[name] for row in finished] for name in RESULT_COLUMNS}
    columns[CPU_KEY] = clock() - cpu
    columns[STOPPED_KEY] = cut
    return columns
