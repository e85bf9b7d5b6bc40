"""The ``import`` subcommand."""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path

from formats.directory import import_solution
from pipeline.cli.args import print_grid
from pipeline.core.errors import NoSolutionReported, PipelineError
from pipeline.core.extracells import extra_lines
from pipeline.core.verify import grid_violations
from pipeline.solvers.extra_cells import judged_with_extra_cells


def cmd_import(args: argparse.Namespace) -> int:
    """Exit 0 for a verified answer; 1 for a solver's negative answer (infeasible, a time-limit
    or other stop without a solution: as ``solve``) or an answer that does not verify."""
    if args.file == "-":   # "-: no such file" said nothing of why
        raise PipelineError("import: reads the solver's answer from a file, not standard input ('-'): save it to a "
                            "file first (its format is told from its content)")
    try:
        result = import_solution(args.file, args.manifest)
    except NoSolutionReported as e:
        if args.format == "json":   # a script reading stdout gets an object, as solve's
            print(json.dumps({"grid": None, "verified": False, "status": e.status, "message": str(e)}))
        print(f"no solution: {e}", file=sys.stderr)
        return 1
    _note_older_than_the_export(args.file, result.manifest.path)
    if result.note:   # a file of several answers (clasp -n K): which one is read
        print(f"note: {result.note}", file=sys.stderr)
    puzzle = result.manifest.puzzle
    # a grid answer (a MATLAB sudoku.csv) says nothing of the extra cells: digits that go with it
    verdict, extra = judged_with_extra_cells(result.grid, puzzle, result.verdict, result.extra)
    result = dataclasses.replace(result, verdict=verdict, extra=extra)
    # every violation, as verify lists them (the verdict names only the first)
    violations = [] if result.verdict else grid_violations(result.grid, puzzle, result.extra)
    # the extra cells' digits after the grid, as solve prints them ("S: 4 3"; JSON "extra")
    shown = {} if result.extra is None else extra_lines(puzzle.extra, puzzle.value_of[result.extra - 1])
    # a valid grid from a vector that breaks the model's rows (a rule's auxiliary columns) is no
    # verified answer: JSON says so as the exit status does
    message = (result.verdict.message if result.ok or not result.verdict
               else f"the grid is valid, but the answer breaks {result.breaks}")
    print_grid(result.grid, puzzle, args.format, {"format": result.format, "verified": result.ok,
                                                   "message": message, "residual": result.residual,
                                                   "violations": violations, **({"extra": shown} if shown else {}),
                                                   **({"hint": result.hint} if result.hint else {}),
                                                   **({"note": result.note} if result.note else {})})
    if args.format != "json":
        for name, values in shown.items():
            print(f"{name}: {' '.join(map(str, values))}")
    if not result.verdict:
        for message in [v["message"] for v in violations] or [result.verdict.message]:
            print(f"invalid: {message}", file=sys.stderr)
        if result.hint:
            print(f"hint: {result.hint}", file=sys.stderr)
        return 1
    if not result.ok:
        print(f"invalid: {message} (residual {result.residual:g})", file=sys.stderr)
        return 1
    if args.format == "grid":
        print(f"ok: {result.verdict.message} (read as {result.format})", file=sys.stderr)
    return 0


def _note_older_than_the_export(answer: str, manifest: Path | None) -> None:
    """An answer file in the export's directory that is older than its manifest is likely the
    answer to the export before (a MATLAB ``out/sudoku.csv`` left beside ``make export
    PUZZLE=other``): say so, whatever it verifies to. (An answer kept elsewhere, such as the
    shipped ``examples/cbc_solution.txt``, may well be older.)"""
    try:
        older = (manifest is not None and Path(answer).resolve().parent == Path(manifest).resolve().parent
                 and os.stat(answer).st_mtime < os.stat(manifest).st_mtime)
    except OSError:
        return
    if older:
        print(f"note: {answer} is older than {manifest}: the model was exported again since; is it the answer "
              f"to this export?", file=sys.stderr)


def add_command(subparsers: argparse._SubParsersAction) -> None:
    """Register ``import``."""
    p = subparsers.add_parser("import", help="read a solver's solution file, print the grid, verify it")
    p.add_argument("file", metavar="FILE", help="solution file (format detected by content)")
    p.add_argument("--manifest", metavar="M", help="manifest.json of the export (default: beside FILE)")
    p.add_argument("--format", choices=("grid", "line", "json"), default="grid", help="output form (default grid)")
    p.set_defaults(func=cmd_import)
