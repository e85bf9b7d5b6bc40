"""Typed exceptions: every bad input surfaces as one of these, never a traceback."""


class PipelineError(ValueError):
    """Base class for every user-facing error of the pipeline (bad input, bad file)."""


class PuzzleError(PipelineError):
    """A puzzle (grid, clue list, regions, box shape) is malformed or contradictory."""


class ClueConflictError(PuzzleError):
    """The clues break a rule directly: a digit twice in a unit, or clues a rule forbids together
    (``explain`` explains these; every other command refuses them)."""


class ConventionError(PipelineError):
    """An index convention is unknown or undefined for the puzzle (e.g. block on jigsaw)."""


class FormatError(PipelineError):
    """A model or solution file cannot be written or read as asked."""


class NoSolutionReported(FormatError):
    """A solution file whose solver says it found no solution.

    ``status`` is ``infeasible``, ``time_limit`` or ``no_solution`` (any other reason).
    """

    def __init__(self, message: str, status: str):
        super().__init__(message)
        self.status = status


class SolveError(PipelineError):
    """A solver could not be run or did not return a usable answer."""
