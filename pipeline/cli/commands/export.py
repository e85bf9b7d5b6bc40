"""The ``export`` subcommand."""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from pipeline.core.clauses import AMO_ENCODINGS, DEFAULT_AMO
from formats.csv import DENSE_LIMIT
from formats.directory import export_model, exporting_formats, named_only_formats, resolve_formats
from formats.forked import side_by_side
from formats.files import is_special_file, write_failure
from formats.single import (export_file, export_stream, file_like_directory_note, single_file_format,
                            single_file_extensions, single_format_names)
from pipeline.cli.args import add_model_args, add_puzzle_args, command_words, model_from_args
from pipeline.core import stops
from pipeline.core.build import Model
from pipeline.core.errors import FormatError
from pipeline.core.glyphs import rule_titles


def cmd_export(args: argparse.Namespace) -> int:
    """``--to DIR``: every chosen format's files and manifest.json; ``--to NAME.lp`` (a one-file
    format's extension): that file and NAME.lp.manifest.json; ``--to -``: one file to stdout, and
    ``--to`` a device or pipe: one file into it."""
    options = {"mps_style": args.mps_style, "dense": args.dense, "amo": args.amo or DEFAULT_AMO}
    device = args.to != "-" and is_special_file(args.to)
    single = single_file_format(args.to)
    if args.to == "-" or device or single is not None:
        stops.watch()   # one file in this process: the watchdog, as for the other commands
    if args.to == "-" or device:
        where = "standard output" if args.to == "-" else args.to
        if args.formats is None or len([n for n in args.formats.split(",") if n.strip()]) != 1:
            # refused before the puzzle is read: nothing else is wrong yet
            raise FormatError(f"--to {args.to} writes one file to {where}: name one format with --formats "
                              f"({', '.join(single_format_names())}), not {args.formats or 'all (the default)'}")
        model = model_from_args(args)
        if not device:
            sys.stdout.flush()
            export_stream(model, sys.stdout.buffer, args.formats, **options)
            return 0
        try:   # a device or pipe (/dev/null, >(gzip > x)) is written into, never replaced
            with open(args.to, "wb") as stream:
                export_stream(model, stream, args.formats, where=args.to, **options)
        except OSError as e:   # a broken pipe too: main ends quietly with 141 when it was stdout's
            raise write_failure(args.to, e) from None
        return 0
    if single is not None:
        model = model_from_args(args)
        written = export_file(model, args.to, args.formats, **options)
        fmt, (path,) = next(iter(written.items()))
        manifest = written["manifest"][0]
        print(f"exported {_summary(model)} to {path} ({fmt}, one file); its manifest: {manifest}")
        _empty_lp_note(model, written)
        if not args.quiet and fmt != "iss":   # a puzzle file, no solver's solution to import
            run = command_words()
            print(f"Then: {run} import SOLUTION --manifest {shlex.quote(str(manifest))}   "
                  f"(check the pair: {run} check {shlex.quote(str(path))})")
        return 0
    note = file_like_directory_note(args.to)   # asked before the directory exists
    model = model_from_args(args)
    # the formats side by side in forked processes, or here under the watchdog (a thread: no fork then)
    formats = "all" if args.formats is None else args.formats   # '' (an unset shell variable) names none
    processes = side_by_side(args.workers, len(resolve_formats(formats)), model.Aeq.nnz + model.Aineq.nnz)
    if processes == 1:
        stops.watch()
    written = export_model(model, args.to, formats, workers=processes, **options)
    if note:   # --to model.txt: a directory, as any name without a one-file extension
        print(note, file=sys.stderr)
    out = Path(args.to)
    print(f"exported {_summary(model)} to {out}/:")
    for fmt, paths in written.items():
        print(f"  {fmt:<9} " + " ".join(p.name for p in paths))
    if "csv" in written and args.dense == "auto" and not any(p.name == "Aeq.csv" for p in written["csv"]):
        print(f"  (dense Aeq.csv skipped: {model.n_rows * model.n_cols:,} entries > {DENSE_LIMIT:,}; "
              "--dense always writes it)")
    _empty_lp_note(model, written)
    hint = None if args.quiet else matlab_hint(model, out, written)
    if hint:
        print(hint)
    return 0


def _empty_lp_note(model: Model, written: dict) -> None:
    """Say on stderr when an LP file holds no constraint: GLPK's LP reader needs one."""
    if model.n_rows + model.n_ineq == 0 and "lp" in written:
        print(f"note: {written['lp'][0].name} holds no constraint (the clues fix every variable): "
              f"GLPK's LP reader refuses such a file; its MPS reader, CBC and HiGHS take it",
              file=sys.stderr)


def _summary(model: Model) -> str:
    """What was exported: the puzzle with its rules (as :meth:`Puzzle.summary` says it), the
    model's size, the convention and the clue encoding."""
    conv = model.convention
    ineq = f", and {model.n_ineq} <= rows" if model.n_ineq else ""
    layout = model.puzzle.layout
    if layout is None:
        what = model.puzzle.summary()   # "9x9 classic, 23 clues; 2 arrows; little killer"
    else:
        what = "; ".join([f"{layout.name} layout of {layout.n_grids} {conv.n}x{conv.n} grids on a "
                          f"{layout.rows}x{layout.cols} canvas", *rule_titles(model.puzzle.rules)])
    return (f"{what} ({model.n_rows} x {model.n_cols}, {model.nnz} nonzeros{ineq}) in {conv.scheme}/{conv.order}, "
            f"clues as {model.clue_encoding},")


def _matlab_string(path: Path) -> str:
    """A MATLAB/Octave character-vector literal of ``path`` (quotes doubled)."""
    return "'" + str(path).replace("'", "''") + "'"


def matlab_hint(model: Model, out: Path, written: dict) -> str | None:
    """How to solve the export in MATLAB/Octave and import the answer: every path it names is
    one the export wrote or the printed MATLAB lines write (``OUT/sudoku.csv``, ``OUT/x.csv``).
    None when the export holds neither the CSVs nor the MATLAB files.

    Parameters
    ----------
    model : Model
        The exported model.
    out : Path
        The export directory.
    written : dict
        ``export_model``'s answer: the files of each format.
    """
    if "csv" not in written and "matlab" not in written:
        return None
    q = _matlab_string
    answer = out / "sudoku.csv"
    by_hand: Path | None = None   # the by-hand lines' answer when it is not the script's
    lines = ["", "In MATLAB:" if "matlab" not in written else "In MATLAB (GNU Octave: the script alone):"]
    if "matlab" in written:
        lines.append(f"  run({q(out / 'solve_sudoku.m')})   % intlinprog (glpk in Octave); writes {answer}")
        if model.n_ineq:   # glpk's branch and bound finds no grid of examples/thermo.json in minutes
            lines.append("  % glpk can search for minutes on rules beyond units: sudoku_time_limit = 60; before run "
                         "stops it")
    if "csv" in written:
        if "matlab" in written:
            lines.append("  % or by hand, from the CSVs:")
        lines += [
            f"  Aeq = spconvert(load({q(out / 'Aeq_ijv.csv')}));  beq = load({q(out / 'beq.csv')});",
            f"  lb = load({q(out / 'lb.csv')});  ub = load({q(out / 'ub.csv')});  f = load({q(out / 'f.csv')});",
        ]
        if model.n_ineq:  # the rules' <= rows (cages, thermometers, anti-knight, ...)
            lines += [f"  Aineq = spconvert(load({q(out / 'Aineq_ijv.csv')}));  bineq = load({q(out / 'bineq.csv')});",
                      "  x = intlinprog(f, 1:numel(f), Aineq, bineq, Aeq, beq, lb, ub);"]
        else:
            lines.append("  x = intlinprog(f, 1:numel(f), [], [], Aeq, beq, lb, ub);")
        conv = model.convention
        if conv.scheme == "ijk" and conv.order == "F" and not model.is_reduced and model.puzzle.layout is None:
            # the digits 1..V, as solve_sudoku.m writes them (a value set's digit indices: import's
            # default reading); the cell block only (auxiliary and extra-cell columns follow it)
            v, cells = conv.v, conv.rows * conv.cols * conv.v
            x = "round(x)" if model.n_cols == cells else f"round(x(1:{cells}))"
            lines += [f"  X = reshape({x}, {conv.rows}, {conv.cols}, {v});  S = sum(X .* reshape(1:{v}, 1, 1, {v}), 3);",
                      f"  writematrix(S, {q(answer)})"]
        else:
            # other conventions need a permute/expansion to make a grid; the vector itself imports
            if "matlab" in written:
                by_hand = out / "x.csv"
            else:
                answer = out / "x.csv"
            lines.append(f"  writematrix(round(x), {q(out / 'x.csv')})   % the solver's vector, "
                         f"in this export's {conv.scheme}/{conv.order} columns")
    manifest, run = out / "manifest.json", command_words()
    lines.append(f"Then: {run} import {shlex.quote(str(answer))} --manifest {shlex.quote(str(manifest))}")
    if by_hand is not None:   # the script writes the grid, the by-hand lines the vector
        lines.append(f"  (by hand: {run} import {shlex.quote(str(by_hand))} --manifest "
                     f"{shlex.quote(str(manifest))})")
    return "\n".join(lines)


def add_command(subparsers: argparse._SubParsersAction) -> None:
    """Register ``export``."""
    p = subparsers.add_parser("export", help="write the model files and manifest.json into a directory, "
                                             "or one model file (NAME.lp, NAME.mps, ...) and NAME.lp.manifest.json")
    add_puzzle_args(p)
    add_model_args(p)
    ones = ", ".join(ext if ext != ".mps" else ".mps (free)" for ext in single_file_extensions())
    p.add_argument("--to", required=True, metavar="PATH",
                   help=f"a directory (created) for every chosen format's files and manifest.json; or a file "
                        f"whose extension is one of the one-file formats {ones} (.gz allowed but for .mat): "
                        "that one file, the extension picking the format, and PATH.manifest.json beside it; "
                        "or '-': standard output, the one one-file format --formats names, no manifest (docs/formats.md)")
    p.add_argument("--formats", default=None, metavar="LIST",
                   help=f"comma-separated: {','.join(exporting_formats())} (mat for matlab; default all for a "
                        f"directory, the extension's format for a file); written only when named, not in all: "
                        f"{','.join(named_only_formats())} (the puzzle's ISS string, puzzle.iss.txt)")
    p.add_argument("--mps-style", choices=("free", "fixed", "both"), default="free", help="MPS flavour (default free)")
    p.add_argument("--dense", choices=("auto", "always", "never"), default="auto",
                   help=f"dense Aeq.csv: auto writes it while it has at most {DENSE_LIMIT:,} entries (every "
                        "16x16 model; a 25x25 one has over 39 million), always forces it (default auto)")
    p.add_argument("--amo", choices=("auto", *AMO_ENCODINGS), default=None,
                   help="at-most-one encoding in model.cnf (default auto: pairwise up to 25x25, else ladder)")
    p.add_argument("--workers", type=_workers, default=None, metavar="N",
                   help="processes writing the formats side by side (default: the machine's cores, at most 4, for "
                        "a model of a million nonzeros or more, such as a 64x64; 1 writes them one after the other)")
    p.add_argument("--quiet", action="store_true", help="do not print the MATLAB instructions")
    p.set_defaults(func=cmd_export)


def _workers(text: str) -> int:
    """``--workers``: a whole number from 1 (argparse's one-line error and exit 2 otherwise)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number of processes")
    return value
