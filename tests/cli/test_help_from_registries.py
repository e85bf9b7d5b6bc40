"""The command line's lists come from the registries: what a registry holds, --help says."""
from __future__ import annotations

from formats.directory import exporting_formats
from pipeline.cli.main import build_parser


def _option(command: str, option: str):
    sub = next(a for a in build_parser()._actions if a.dest == "command").choices[command]
    return next(a for a in sub._actions if option in a.option_strings)


def test_export_formats_help_lists_the_format_registry():
    """--formats' help names every format that exports (it once omitted cnf and opb)."""
    assert ",".join(exporting_formats()) in _option("export", "--formats").help
    assert {"cnf", "opb", "csv", "mps", "lp", "matlab", "parquet"} <= set(exporting_formats())
