"""The ``report`` subcommand."""
from __future__ import annotations

import argparse

from pathlib import Path

from formats.files import atomic_open
from pipeline.tools.draw import load_matplotlib
from pipeline.tools.report import build_report


def cmd_report(args: argparse.Namespace) -> int:
    load_matplotlib("report")  # the missing extra is named before any work is done
    text = build_report(args.outs)
    path = Path(args.to)
    with atomic_open(path) as f:
        f.write(text)
    print(f"wrote {path}")
    return 0


def add_command(subparsers: argparse._SubParsersAction) -> None:
    """Register ``report``."""
    p = subparsers.add_parser("report", help="one self-contained HTML page for batch outputs")
    p.add_argument("outs", nargs="+", metavar="OUT", help="batch output directories")
    p.add_argument("--to", required=True, metavar="FILE", help="output .html")
    p.set_defaults(func=cmd_report)
