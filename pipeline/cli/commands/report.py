"""The ``report`` subcommand."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from formats.files import atomic_open
from pipeline.batch.output import existing_indices, read_manifest
from pipeline.core.errors import PipelineError
from pipeline.tools.draw import load_matplotlib, said_to
from pipeline.tools.report import build_report


def output_state(out: str) -> str:
    """What the report of batch output ``out`` must say besides its rows: "" for a complete run;
    how many of the input's records it holds for a run that was stopped or is running (its
    status in ``_batch.json``); that it is no run's directory (no ``_batch.json``).

    Raises
    ------
    PipelineError
        Rows of one record in two parts (a part copied from another run): the counts would be
        wrong, and batch's resume refuses such a directory too.
    """
    path = Path(out)
    if not path.exists():
        return ""   # the report names what is missing
    if not path.is_dir():
        return f"{out}: a file, not a batch output directory: its rows alone"
    try:
        distinct, times = np.unique(existing_indices(path), return_counts=True)
    except PipelineError as e:   # batch's words for a part it cannot read, said by report
        raise PipelineError(f"report: {str(e).removeprefix('batch: ')}") from None
    if (times > 1).any():
        raise PipelineError(f"report: {out} holds rows of record {int(distinct[times > 1][0])} in two parts (a part "
                            "of another run?); batch refuses to resume it too")
    record = read_manifest(path, "report")
    if record is None:
        if not any(path.glob("*.parquet")):
            return ""   # nothing of a batch output in it: the report says so
        return f"{out}: no _batch.json: not a batch run's directory, its rows alone"
    total, status = record.get("records"), record.get("status", "complete")
    if isinstance(total, int) and not isinstance(total, bool) and distinct.size < total:
        # a run that says complete but lacks rows lost a part since (deleted or moved away)
        said = "parts missing: the run said complete" if status == "complete" else status
        return (f"{out}: {distinct.size:,} of {total:,} records ({said}): the counts are of the rows written; "
                "rerun the batch command to finish it")
    return ""


#: The suffixes of an HTML page (a name without a suffix, a device or a pipe, is written as given)
HTML_SUFFIXES = (".html", ".htm", ".xhtml")


def cmd_report(args: argparse.Namespace) -> int:
    load_matplotlib("report")  # the missing extra is named before any work is done
    suffix = Path(args.to).suffix
    if args.to != "-" and suffix and suffix.lower() not in HTML_SUFFIXES:   # r.png got an HTML page unsaid
        raise PipelineError(f"--to {args.to}: the report is one HTML page, not '{suffix}': name the file .html "
                            "('-' for standard output)")
    notes = [note for note in (output_state(out) for out in args.outs) if note]
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    text = build_report(args.outs, notes)
    if args.to == "-":   # standard output, as export's and convert's --to -
        sys.stdout.write(text)
        return 0
    path = Path(args.to)
    with atomic_open(path) as f:
        f.write(text)
    print(f"wrote {path}", file=said_to(path))   # after a page sent to /dev/stdout: on standard error
    return 0


def add_command(subparsers: argparse._SubParsersAction) -> None:
    """Register ``report``."""
    p = subparsers.add_parser("report", help="one self-contained HTML page for batch outputs")
    p.add_argument("outs", nargs="+", metavar="OUT", help="batch output directories")
    p.add_argument("--to", required=True, metavar="FILE", help="output .html ('-': standard output)")
    p.set_defaults(func=cmd_report)
