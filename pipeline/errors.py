"""Typed exceptions: every bad input surfaces as one of these, never a traceback."""


class PipelineError(ValueError):
    """Base class for every user-facing error of the pipeline (bad input, bad file)."""


class PuzzleError(PipelineError):
    """A puzzle (grid, clue list, regions, box shape) is malformed or contradictory."""


class ConventionError(PipelineError):
    """An index convention is unknown or undefined for the puzzle (e.g. block on jigsaw)."""


class FormatError(PipelineError):
    """A model or solution file cannot be written or read as asked."""


class SolveError(PipelineError):
    """A solver could not be run or did not return a usable answer."""
