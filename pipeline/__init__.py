"""Sudoku-family puzzles as sparse 0-1 integer programs.

Stages, one module each: ``puzzle`` (parse, validate) -> ``build`` (A, B, solver view in a
``conventions`` index scheme) -> ``export`` (formats registry) / ``solve`` (HiGHS) ->
``importer`` + ``decode`` (file -> vector -> grid) -> ``verify``.
"""
from pipeline.core.build import Model, build_model
from pipeline.core.conventions import Convention
from pipeline.core.errors import ConventionError, FormatError, PipelineError, PuzzleError, SolveError
from pipeline.core.puzzle import DEFAULT_PUZZLE, Puzzle, parse_puzzle
from pipeline.core.version import __version__

__all__ = ["Model", "build_model", "Convention", "PipelineError", "PuzzleError", "ConventionError",
           "FormatError", "SolveError", "DEFAULT_PUZZLE", "Puzzle", "parse_puzzle", "__version__"]
