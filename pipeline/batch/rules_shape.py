"""Batch records with rules beyond units or a gattai layout (issue 15): one puzzle at a time
through the chosen engine's own ``solve``/``count`` on the whole model (units, rule rows,
layout), never through the unit-only shape kernels.

Records group by their shape and rules (:func:`rule_shape_key`): with ``--solver sat`` the
records of one group share the SAT engine of :func:`pipeline.solvers.sat.engine_for` (the
registry entry with ``reuse``; its cache key holds the rules and the layout, so different rules
never share an engine), each puzzle's clues as assumptions. Every other engine builds one model per record. A found grid is
checked by :func:`pipeline.core.verify.verify_grid` against the puzzle with its rules.
"""
from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

import numpy as np

from pipeline.core import stops
from pipeline.core.build import build_model
from pipeline.core.rulerows import rule_rows_outlast
from pipeline.core.puzzle import Puzzle, grid_to_string, rules_key, with_other_clues
from pipeline.core.values import value_grid_text
from pipeline.core.verify import verify_grid
from pipeline.solvers import get_solver
from pipeline.solvers.auto import pick_solver
from pipeline.batch.config import SolveOptions
from pipeline.batch.sat_shape import answer_record
from pipeline.batch.progress import stopped, tick
from pipeline.batch.text import solver_failure, solver_said

if TYPE_CHECKING:  # annotations only: the worker imports this module
    from pipeline.batch.worker import Shape

__all__ = ["beyond_unit_kernels", "rule_shape_key", "rules_text", "empty_of", "solve_rule_shape"]


def beyond_unit_kernels(puzzle: Puzzle) -> bool:
    """True for a puzzle the unit-only batch kernels cannot take: rules, a layout, a value set
    (the kernels know the digits ``1..N`` only) or a rectangular grid (they know N x N)."""
    return (bool(puzzle.rules) or puzzle.layout is not None or puzzle.values is not None
            or puzzle.rows != puzzle.cols)


def rules_text(puzzle: Puzzle, entries: list[dict] | None = None) -> str | None:
    """The ``rules`` column of a result row: the puzzle's rules as a JSON list of document entries
    (None without rules), so a result says what was solved.

    Parameters
    ----------
    puzzle : Puzzle
        The record's puzzle.
    entries : list of dict, optional
        ``puzzle.rules_dicts()`` when the caller has them (the worker makes them once for this
        and :func:`rule_shape_key`).

    Returns
    -------
    str or None
    """
    return json.dumps(puzzle.rules_dicts() if entries is None else entries, separators=(",", ":")) \
        if puzzle.rules else None


def rule_shape_key(puzzle: Puzzle, entries: list[dict] | None = None) -> tuple:
    """Records that may share an engine: all but their clues equal (:func:`pipeline.core.puzzle.rules_key`).

    Parameters
    ----------
    puzzle : Puzzle
        The record's puzzle.
    entries : list of dict, optional
        ``puzzle.rules_dicts()`` when the caller has them (as :func:`rules_text` takes them).

    Returns
    -------
    tuple
    """
    return ("rules", *rules_key(puzzle, entries))


def empty_of(puzzle: Puzzle) -> Puzzle:
    """``puzzle`` without its clues (the group's template), sharing what was built from its rules."""
    return with_other_clues(puzzle, np.zeros(puzzle.grid.shape, dtype=np.int64))


def solve_rule_shape(shape: Shape, options: SolveOptions, rows: list[dict]) -> None:
    """Solve (or count) the chunk's records of one rule group, one by one; write each row.

    Parameters
    ----------
    shape : Shape
        The group: template (the puzzle without clues, with its rules and layout), members,
        clue grids (the canvas, flattened).
    options : SolveOptions
        The run's solve options.
    rows : list of dict
        The chunk's result rows, updated in place.
    """
    template = shape.template
    solver = get_solver(options.solver)
    # auto picked the run's engine for units alone (dfs): these rows get auto's pick for their model
    repick = options.rules_by_auto and not solver.rule_rows
    for k, grid in zip(shape.members, shape.grids):
        if stopped():
            break
        t1 = time.perf_counter()
        row = rows[k]
        # the row's rules column was written when the worker grouped the record
        row.update(seconds=0.0, nodes=0, error=None, n_solutions=0 if options.count else None)
        try:
            # the group's records share its rule rows and kernel tables (built once, by the first)
            puzzle = shape.first if shape.first is not None and k == shape.members[0] else \
                with_other_clues(template, grid)
            model = build_model(puzzle)
            too_long = rule_rows_outlast(model, options.time_limit)
            if too_long:   # as solve says it: the rows alone would outlast the record's limit
                row.update(status="time_limit", error=solver_said(too_long))
                continue
            if repick:   # once per group: its records share rules and layout
                solver, repick = pick_solver("count" if options.count else "solve", model).solver, False
            status, found, fields = answer_record(solver, model, options)
            row.update(status=status, **fields)
            if found is not None:
                verdict = verify_grid(found, puzzle)
                if verdict.ok:
                    # in values, as solve prints it (a value set: 0..8 on a 6x6 grid)
                    row["solution"] = (grid_to_string(found, puzzle.n) if puzzle.values is None
                                       else value_grid_text(found, puzzle.values))
                else:
                    row.update(status="invalid", error=f"verify: {verdict.message}")
        except Exception as e:  # one puzzle's failure must not lose the rest of the chunk
            stops.raise_if_stop(e)   # a Ctrl-C wrapped by a class's creation: no failure
            row.update(solver_failure(e))
        finally:
            row["wall_seconds"] += time.perf_counter() - t1
            tick()
