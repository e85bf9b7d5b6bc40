"""The command line, ``python -m pipeline`` / ``sudoku-pipeline``: :func:`main` and its subcommands."""
from pipeline.cli.main import main

__all__ = ["main"]
