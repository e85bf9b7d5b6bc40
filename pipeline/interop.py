"""External MIP solvers run through the exported files: the public names of
:mod:`pipeline.solvers.external`, kept here for users of ``pipeline.interop``."""
from .solvers.external import MIP_SOLVERS, ExternalResult, _run, cbc_binary, solve_external, solver_available

SOLVERS = MIP_SOLVERS

__all__ = ["SOLVERS", "MIP_SOLVERS", "ExternalResult", "_run", "cbc_binary", "solve_external", "solver_available"]
