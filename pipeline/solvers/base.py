"""The solver registry: one :class:`Solver` entry per engine, looked up by name.

An entry says what the engine reads (the in-process :class:`~pipeline.core.build.Model`, or which
exported file formats), whether it can run here (``available()`` returns ``None`` or the
reason it cannot, with the install hint), how it solves with a time limit, how it counts
solutions (if it can), and which native solution file it leaves. The CLI's ``--solver``
choices, the README's solver list and the interop tests' parametrisation all come from
:data:`SOLVERS`.

Adding a solver is one module that builds a :class:`Solver` and calls :func:`register_solver`,
plus its import in ``pipeline/solvers/__init__.py`` and its tests.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from pipeline.core.errors import SolveError

#: The pipeline's status words, shared by every engine.
STATUSES = ("optimal", "infeasible", "time_limit", "interrupted", "memory_limit", "no_solution",
            "non_integral", "error")


@dataclass
class SolveResult:
    """Outcome of one solve. ``x`` is over the solver view's columns; ``grid`` when solved.

    ``status`` is one of :data:`STATUSES` (``optimal`` means a verified-decodable solution was
    found, for feasibility engines too).
    """

    status: str
    x: np.ndarray | None
    objective: float | None
    seconds: float
    nodes: int
    grid: np.ndarray | None = None
    message: str = ""
    solver: str = ""
    #: Whether the solution is the only one, when the engine checked it while solving
    #: (``check_unique``); None when it did not or its check stopped on the time limit.
    unique: bool | None = None

    @property
    def solved(self) -> bool:
        """True when the status is ``optimal`` and a decoded grid is present."""
        return self.status == "optimal" and self.grid is not None


@dataclass(eq=False)
class CountResult:
    """Solutions counted up to a limit: ``status`` is ``complete`` (exact), ``limit`` (stopped at
    the limit) or the status that interrupted the count (e.g. ``time_limit``)."""

    count: int
    grids: list[np.ndarray]
    status: str
    seconds: float = 0.0

    # it also behaves as the ``(count, grids, status)`` tuple count_solutions has always returned
    def as_tuple(self) -> tuple:
        """``(count, grids, status)``."""
        return self.count, self.grids, self.status

    def __iter__(self):
        return iter(self.as_tuple())

    def __getitem__(self, k):
        return self.as_tuple()[k]

    def __len__(self) -> int:
        return 3

    def __eq__(self, other) -> bool:
        if isinstance(other, CountResult):
            other = other.as_tuple()
        return isinstance(other, tuple) and self.as_tuple() == other


def _always_available() -> str | None:
    return None


@dataclass(frozen=True)
class Solver:
    """One engine.

    ``solve(model, *, time_limit=None, threads=None, workdir=None, **options) -> SolveResult``;
    ``count(model, limit, *, time_limit=None, threads=None) -> CountResult`` when it can count.
    ``reads`` is ``()`` for an in-process engine, else the format names it is run on.
    """

    name: str
    description: str
    solve: Callable[..., SolveResult]
    count: Callable[..., CountResult] | None = None
    available: Callable[[], str | None] = _always_available
    reads: tuple[str, ...] = ()
    solution_format: str | None = None
    install_hint: str = ""
    statuses: Mapping[str, str] = field(default_factory=dict)

    @property
    def in_process(self) -> bool:
        """True when the engine takes the Model directly (it reads no exported file)."""
        return not self.reads


SOLVERS: dict[str, Solver] = {}


def register_solver(solver: Solver) -> Solver:
    """Add ``solver`` to the registry under its name (a later entry of the same name replaces it)."""
    SOLVERS[solver.name] = solver
    return solver


def get_solver(name: str, *, need: str | None = None, check_available: bool = True) -> Solver:
    """The registered solver ``name``, checked before use.

    Parameters
    ----------
    name : str
        A name of :data:`SOLVERS` (``solver_names()``).
    need : {"solve", "count"}, optional
        Refuse a solver that lacks this function (e.g. ``"count"``).
    check_available : bool, default True
        Call its ``available()`` and refuse it with the reason (and install hint) when absent.

    Returns
    -------
    Solver

    Raises
    ------
    SolveError
        Unknown name (the message lists the known ones), not available here, or lacking ``need``.

    Examples
    --------
    >>> get_solver("highs").in_process
    True
    >>> get_solver("nosuch")
    Traceback (most recent call last):
        ...
    pipeline.core.errors.SolveError: solver: unknown solver 'nosuch'; expected one of highs, ...
    """
    solver = SOLVERS.get(name)
    if solver is None:
        raise SolveError(f"solver: unknown solver {name!r}; expected one of {', '.join(SOLVERS)}")
    if check_available:
        reason = solver.available()
        if reason:
            raise SolveError(f"solver {name}: {reason}")
    if need and getattr(solver, need) is None:
        raise SolveError(f"solver {name}: cannot {need} (solvers that can: "
                         f"{', '.join(s.name for s in SOLVERS.values() if getattr(s, need) is not None)})")
    return solver


def solver_names() -> list[str]:
    """Names of the registered solvers in registration order (the CLI's ``--solver`` choices)."""
    return list(SOLVERS)


def refuse_rule_rows(model, engine: str) -> None:
    """SolveError when ``model`` has rows of rules beyond units (``model.has_rules``: cages,
    thermometers, ...) and ``engine`` does not read them yet: solving the units alone would
    return grids that break the rules and call unique puzzles ambiguous."""
    if model.has_rules:
        families = ", ".join(model.rule_family_counts()) or "rules"
        raise SolveError(f"{engine}: the engine does not read the rows of rules beyond units yet ({families}); "
                         "use --solver highs")
