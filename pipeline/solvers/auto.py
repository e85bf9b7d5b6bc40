"""``--solver auto``: the engine ``make bench`` shows fastest for the question, among those that can answer it.

The choice is data: the registry's capability fields (:class:`pipeline.solvers.base.Solver`) say
which engines CAN answer a question for a model (``counts``, ``proves_unique``, ``optimises``,
``batch_kernel``, ``rule_rows`` for rules beyond units and layouts, ``available()`` here), and
:data:`AUTO_TABLE` says, per question, the order the benchmark measured them in (fastest
first) and the numbers behind it. :func:`pick_solver` walks a row of the table and takes the
first engine that can answer; HiGHS ends every row (it answers every question and every rule),
so a missing optional engine makes ``auto`` fall back to HiGHS, with a note saying why.

The README's table "What --solver auto picks" is this table in words (tests/cli/test_auto.py
checks that they agree).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from pipeline.core.errors import SolveError
from pipeline.core.rules.base import Rule
from pipeline.core.rules.cages import Cage
from pipeline.solvers.handoff import handed_off, trusts_estimate
from pipeline.solvers.relabel import count_by_relabelling, relabelling_settles, solve_by_relabelling
from pipeline.solvers.base import (PICKERS, SOLVERS, CountResult, Solver, SolveResult, model_needs_rule_rows,
                                   solve_then_count, time_left)

__all__ = ["AUTO", "AUTO_SOLVER", "AUTO_TABLE", "QUESTIONS", "Pick", "Preference", "auto_count", "auto_solve",
           "engines_taking",
           "can_answer", "pick_solver", "solve_checking_uniqueness"]

#: The name that asks for the choice on the command line.
AUTO = "auto"

#: The questions an engine is picked for, and how the verbose line words them.
QUESTIONS = {
    "solve": "feasibility",          # one solution (solve --no-unique-check)
    "unique": "uniqueness proof",    # one solution and whether it is the only one (solve's default)
    "count": "counting",             # solutions up to a limit (count; generate and explain count to 2)
    "optimise": "optimisation",      # a model with an objective
    "batch": "batch",                # many puzzles of one shape per engine instance
}


def engines_taking(given: "set[str] | list[str]", question: str, among: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """The engines (of ``among``, default all) whose options for ``question`` include every
    option in ``given``: what ``auto`` picks among when the caller gave an engine's option (the
    command line's ``--sat-backend``, the API's ``presolve="none"``).

    Parameters
    ----------
    given : collection of str
        Option names (``sat_backend``, ``presolve``).
    question : str
        A key of :data:`QUESTIONS`: ``count`` reads the engines' count options, the others their
        solve options.
    among : tuple of str, optional
        Only these engines.

    Returns
    -------
    tuple of str
    """
    wanted = set(given)
    return tuple(name for name, solver in SOLVERS.items() if (among is None or name in among)
                 and wanted <= set(solver.count_options if question == "count" else solver.options))


@dataclass(frozen=True)
class Preference:
    """One row of :data:`AUTO_TABLE`: for ``question``, the engines fastest first, and why;
    ``up_to`` bounds an engine to grids of at most that side (it was measured slower beyond)."""

    question: str
    engines: tuple[str, ...]
    evidence: str
    up_to: tuple[tuple[str, int], ...] = ()
    #: engines picked only for a model with rules beyond units (measured on those: a model of
    #: units alone keeps the engines measured for it), and only when their ``model_problem``
    #: takes the model; else the next engine, silently (the reason goes to ``--verbose``)
    rules_only: tuple[str, ...] = ()
    #: ``(engine, next engine, seconds)``: ``engine``, once picked, hands a search still running
    #: after ``seconds`` to the next engine (:mod:`pipeline.solvers.handoff`)
    handoff: tuple[tuple[str, str, float], ...] = ()
    #: ``(rule kind, engine)``: a model with a rule of that kind tries ``engine`` first (measured
    #: on such models; when it is missing here the row's order goes on, with the usual note)
    kinds_first: tuple[tuple[str, str], ...] = ()

    def engines_for(self, model: Any) -> tuple[str, ...]:
        """The row's engines for ``model``: those :attr:`kinds_first` names for its rules first.

        Parameters
        ----------
        model : Model or None
            The model the question is about.
        """
        if model is None or not self.kinds_first:
            return self.engines
        kinds = {rule.kind for rule in model.puzzle.rules}
        first = tuple(dict.fromkeys(engine for kind, engine in self.kinds_first if kind in kinds))
        return first + tuple(name for name in self.engines if name not in first)

    def bound(self, engine: str) -> int | None:
        """The largest grid side ``engine`` is picked for here (None: any)."""
        return dict(self.up_to).get(engine)


#: Seconds ``dfsrules`` gets before ``auto`` hands the search to the SAT engine: the bench set's
#: slowest record took 0.70 s at load 9, while a published killer without givens took it 70 s
#: (29 million nodes) where the SAT engine takes about 1 s.
DFSRULES_BUDGET = 1.0
#: Seconds a ``dfs`` count gets before ``auto`` hands it to the SAT engine, unless it is listing
#: grids fast (:data:`pipeline.solvers.handoff.ENUMERATING`): dfs counts a hardest 9x9 or a minimal
#: 16x16 to 2 in milliseconds, but a search without learning can run for minutes where the SAT
#: engine answers at once (a differential check's 9x9 jigsaw with windoku and no solution: sat
#: 0.06 s, dfs not within 20 s).
DFS_COUNT_BUDGET = 1.0
#: The budget for a killer (every rule a cage, at least one with its sum, or a unit rule): with the
#: sums its cages imply, dfsrules answers most published killers in milliseconds (ISS's TAREK_ALL,
#: HS_KILLERS), and every one of ISS's 22 it took past 0.25 s the SAT engine answered as fast or
#: faster (MATHEMAGIC_KILLERS, Wecoc; docs/benchmarks.md, session 25).
KILLER_BUDGET = 0.25
#: The budget for a puzzle with little killer clues: the SAT engine's encoding of a diagonal sum
#: (its digits may repeat) learns little, and on ISS's 29 little-killer entries (counting to 2,
#: 12 s each, 2026-12-01) dfsrules was never slower: Hailstone 1.8 s against sat past 12 s,
#: LITTLE_KILLER_SNIPES#10 3.2 s against past 12 s, The Barbed Cross 1.8 s against past 12 s,
#: #5 1.74 against 1.75 s. Handed on after 1 s, those three ran into a 60 s limit in sat.
LITTLE_KILLER_BUDGET = 30.0
#: Rule kinds whose puzzles get :data:`KILLER_BUDGET` whatever rules they have beside them: a rellik
#: cage's rows ban sets of values and a look-and-say clue's count values, with no digit set for the
#: cells (a killer's sum implies one), so ``dfsrules`` prunes little, while the SAT engine learns from
#: them. On ISS's seven entries with these cages (2026-12-07, machine shared at load 1-8): Hazy
#: Rellik (with kropki dots) dfsrules 13-37 s against sat 0.07-0.12 s, handed on after 0.19-0.21 s
#: with the 1 s budget (its estimate, hopeless from 0.13 s, is first asked past 0.15 s), after
#: 0.07-0.12 s with this one; Look-and-Say 3 dfsrules 0.34-0.80 s against sat 0.02-0.07 s;
#: Look-and-Say 2 dfsrules 0.12-0.41 s against sat 0.01-0.10 s (its estimate says it finishes: kept,
#: or handed on at 0.25 s under load); the other four dfsrules finishes in 1-15 ms.
SHORT_BUDGET_KINDS = frozenset({"rellik", "lookandsay"})

#: Per question, the engines in the order ``make bench`` measured them (fastest first). Numbers:
#: bench/auto_bench.py (the "auto" section of bench/results/latest.json), one ``make bench`` on
#: 2026-11-26 (21:50) on the quiet 2-core machine, the 25x25 with the pairwise encoding measured
#: again after it (the count row: the bench's count processes, 2026-11-28, machine shared at load
#: 2-3); README "What --solver auto picks" says the same in words.
#: bench/dfsrules_bench.py (``make bench``'s "dfsrules" section): 240 generated 9x9 of 24 rule
#: families, each solved with the uniqueness proof; one run on 2026-11-29 (10:25) on the 2-core
#: machine at load 1.3 (docs/benchmarks.md; sandwich, which dfsrules propagates with a handler of
#: its own, stays slow for sat: 10 of 10 past 3 s).
#: An anyof (ISS Or) is big-M rows over branch indicators: CP-SAT searches them far faster than
#: SAT's PB encoding or HiGHS's LP bound. ISS's four slowest Or entries, with the uniqueness
#: proof (2026-11-29, machine shared at load 7, 40 s limit): CP-SAT 6.7-15.3 s, sat over 60 s on
#: two of them, HiGHS over 40 s on three.
#: Full rank went to CP-SAT first too while its rows' PB encoding ran to millions of clauses; with
#: their clauses (:mod:`pipeline.core.clauses_fullrank`) ``sat`` answers ISS's 11 full-rank entries
#: with the proof in 0.18-2.7 s a whole process, where ``cpsat`` took 0.54-36.7 s (2026-12-07, one
#: after the other, load 5-8), so full rank follows the row's order.
ANYOF_FIRST = (("anyof", "cpsat"),)
ANYOF_EVIDENCE = ("measured on ISS's entries: Or (four slowest, with the proof) cpsat 6.7-15.3 s, sat over 60 s on "
                  "two, highs over 40 s on three")

_RULES_EVIDENCE = ("rule puzzles (240 generated 9x9 of 24 families, with the proof, machine at load 1): dfsrules "
                   "median 0.93 ms per record, sat 9.6 ms; batch to 2, one worker: dfsrules 207 records/s, sat 22.9")

AUTO_TABLE: tuple[Preference, ...] = (
    Preference("solve", ("pattern", "dfsrules", "sat", "highs"),
               "pattern when a relabelled closed-form grid fits the clues (one-clue NxN: whole solve process "
               "0.2-0.5 s for N = 25-100, against sat 6.4 s at N = 36 and none within 180 s at 49); else 18 minimal "
               "25x25: sat every one (no proof, no singles: median 1.6 s, slowest 6.0 s); highs 3 of 18 in 120 s; "
               + _RULES_EVIDENCE, up_to=(("dfsrules", 9),), rules_only=("dfsrules",),
               handoff=(("dfsrules", "sat", DFSRULES_BUDGET),), kinds_first=ANYOF_FIRST),
    Preference("unique", ("dfsrules", "sat", "highs"),
               "18 minimal 25x25 with the proof: sat median 1.8 s, slowest 16.5 s; highs solves 3 of 18 in 120 s; "
               + _RULES_EVIDENCE, up_to=(("dfsrules", 9),), rules_only=("dfsrules",),
               handoff=(("dfsrules", "sat", DFSRULES_BUDGET),), kinds_first=ANYOF_FIRST),
    Preference("count", ("dfs", "dfsrules", "sat", "cpsat", "highs"),
               "one count process: 10,000 grids of the empty 9x9 dfs 0.39 s, sat 1.96 s (cpsat 7,718 and highs 2 "
               "in 60 s); 100,000 of an 8-clue 9x9 dfs 0.49 s, sat 14.6 s; to 2 on a hardest 9x9 or a minimal "
               "16x16 0.23-0.31 s both; a minimal 25x25 sat 9.2 s, dfs not within 60 s; " + _RULES_EVIDENCE,
               up_to=(("dfs", 16), ("dfsrules", 9)), rules_only=("dfsrules",),
               handoff=(("dfs", "sat", DFS_COUNT_BUDGET), ("dfsrules", "sat", DFSRULES_BUDGET)),
               kinds_first=ANYOF_FIRST),
    Preference("optimise", ("highs",), "only HiGHS, of the in-process engines, minimises an objective"),
    Preference("batch", ("dfs", "sat", "cpsat", "highs"),
               "hardest 9x9, one worker, per CPU second: dfs 3,003, sat 916, cpsat 42, highs 6"),
)


def can_answer(solver: Solver, question: str, model: Any = None) -> bool:
    """Whether ``solver``'s capability fields let it answer ``question`` for ``model``.

    Parameters
    ----------
    solver : Solver
        A registry entry.
    question : str
        A key of :data:`QUESTIONS`.
    model : Model, optional
        Its rows beyond units and its layout need :attr:`Solver.rule_rows`.

    Returns
    -------
    bool
    """
    able = {"solve": True, "unique": solver.proves_unique or solver.counts, "count": solver.counts,
            "optimise": solver.optimises, "batch": solver.batch_kernel is not None}[question]
    if not able or not solver.in_process:
        return False
    return model is None or solver.rule_rows or model_needs_rule_rows(model) is None


@dataclass(frozen=True)
class Pick:
    """What :func:`pick_solver` chose: the engine's ``name``, the ``question``, the ``reason``
    in words (for ``--verbose``) and a ``note`` when a faster engine could not be used here."""

    name: str
    question: str
    reason: str
    note: str = ""
    #: the faster engines that are missing here (what the note is about: said once per command)
    missing: tuple[str, ...] = ()

    #: ``(next engine, seconds, estimate)`` when the row hands a long search on
    #: (``Preference.handoff``; ``estimate``: sooner too, by the search's estimate of its progress)
    handoff: tuple[str, float, bool] | None = None

    @property
    def solver(self) -> Solver:
        """The registry entry (with the row's handoff to the next engine, when it has one)."""
        if self.handoff is not None and self.handoff[0] in SOLVERS:
            return handed_off(SOLVERS[self.name], SOLVERS[self.handoff[0]], self.handoff[1], self.handoff[2])
        return SOLVERS[self.name]


def _budget(seconds: float, model: Any) -> float:
    """The first engine's budget before the handoff: :data:`KILLER_BUDGET` at most for a killer or
    a puzzle with a kind of :data:`SHORT_BUDGET_KINDS`, :data:`LITTLE_KILLER_BUDGET` at least with
    little killer clues."""
    rules = () if model is None else model.puzzle.rules
    if any(rule.kind == "littlekiller" for rule in rules):
        return max(seconds, LITTLE_KILLER_BUDGET)
    if any(rule.kind in SHORT_BUDGET_KINDS for rule in rules):
        return min(seconds, KILLER_BUDGET)
    killer = any(isinstance(rule, Cage) and rule.total is not None for rule in rules) and all(
        isinstance(rule, Cage) or type(rule).rows is Rule.rows for rule in rules)   # the others: units alone
    return min(seconds, KILLER_BUDGET) if killer else seconds


def _shape(model: Any) -> str:
    if model is None:
        return ""
    puzzle = model.puzzle
    return f"{puzzle.rows}x{puzzle.cols}"


def pick_solver(question: str, model: Any = None, *, among: tuple[str, ...] | None = None) -> Pick:
    """The engine ``--solver auto`` uses for ``question`` (and ``model``).

    Parameters
    ----------
    question : str
        A key of :data:`QUESTIONS`.
    model : Model, optional
        The model to answer it for: its rules and layout narrow the engines to those with
        :attr:`Solver.rule_rows`, and its size goes into the reason.
    among : tuple of str, optional
        Only these engines (a tool that can use some engines only).

    Returns
    -------
    Pick

    Raises
    ------
    SolveError
        An unknown question, or no engine of ``among`` can answer it here.

    Examples
    --------
    >>> pick_solver("optimise").name
    'highs'
    """
    row = next((p for p in AUTO_TABLE if p.question == question), None)
    if row is None:
        raise SolveError(f"solver auto: unknown question {question!r}; expected one of {', '.join(QUESTIONS)}")
    unable: list[str] = []        # engines the model's rows rule out (said with --verbose)
    unavailable: list[str] = []   # engines missing here (said once on stderr: a fallback)
    slow_start: str | None = None   # the first engine passed by for its start (taken if none is left)
    for name in row.engines_for(model):
        solver = SOLVERS.get(name)
        if solver is None or (among is not None and name not in among) or not can_answer(solver, question):
            continue
        if model is None and solver.needs_model:
            continue
        if name in row.rules_only:   # rule puzzles only, and only those its model_problem takes
            refused = None if solver.available() else solver.problem_with(model)
            if model_needs_rule_rows(model) is None or refused:
                unable.extend([refused] if refused else [])
                continue
        if not can_answer(solver, question, model):
            unable.append(f"{name} does not handle {model_needs_rule_rows(model)} yet")
            continue
        bound = row.bound(name)
        if bound is not None and model is not None and model.puzzle.n > bound:
            unable.append(f"{name} is picked up to {bound}x{bound} (slower beyond)")
            continue
        problem = solver.problem_with(model)
        if problem and solver.needs_model and not solver.available():
            unable.append(f"{name}: {problem}")   # it does not fit this model: said with --verbose only
            continue
        if problem:
            unavailable.append(f"{name} {problem}")
            continue
        # a kernel compiled on every run: the next engine, unless none can answer (a batch pays
        # the compile once for all its records, so it keeps the faster engine)
        slow = solver.start_problem() if solver.start_problem is not None and question != "batch" else None
        if slow:
            unavailable.append(f"{name} {slow}")
            slow_start = slow_start or name
            continue
        return _pick(row, question, model, name, unable, unavailable)
    if slow_start is not None:
        return _pick(row, question, model, slow_start, unable, [])
    skipped = unable + unavailable
    raise SolveError(f"solver auto: no engine{' of ' + ', '.join(among) if among else ''} can answer "
                     f"{QUESTIONS[question]} here" + (f" ({'; '.join(skipped)})" if skipped else ""))


def _pick(row: Preference, question: str, model: Any, name: str, unable: list[str], unavailable: list[str]) -> Pick:
    """:func:`pick_solver`'s answer once it chose engine ``name`` of ``row`` (the reasons it passed others by)."""
    words = ", ".join(w for w in (QUESTIONS[question], _shape(model)) if w)
    why = "; ".join(unable + unavailable) or row.evidence
    first_for = [kind for kind, engine in row.kinds_first if engine == name and model is not None
                 and any(rule.kind == kind for rule in model.puzzle.rules)]
    if first_for and not (unable or unavailable):
        why = f"{name} first for a puzzle with {', '.join(first_for)} rules: {ANYOF_EVIDENCE}"
    note = f"solver auto: {'; '.join(unavailable)}; using {name} instead" if unavailable else ""
    # whether the next engine can take this model is asked only if the search is handed on
    # (asking here cost a rule puzzle's `solve` 0.16-0.25 s of imports and sparse rows)
    handoff = next(((then, _budget(seconds, model), model is None or trusts_estimate(model.puzzle.rules))
                    for first, then, seconds in row.handoff if first == name and then in SOLVERS), None)
    return Pick(name, question, f"{words}; {why}", note, tuple(unavailable), handoff)


#: The message of a search that never started: choosing the engine took the whole time limit.
PICKED_PAST_LIMIT = "choosing the engine (building the rule rows it asks about) took the whole time limit"


def auto_count(model: Any, limit: int = 2, *, time_limit: float | None = None, keep: int | None = None) -> CountResult:
    """Solutions of ``model`` up to ``limit``, the first ``keep`` of them kept, counted by the
    engine ``auto`` picks for counting this model (rate and explain ask it first;
    ``get_solver("auto").count``).

    Parameters
    ----------
    model : Model
        The model to count.
    limit : int, default 2
        Stop counting here.
    time_limit : float, optional
        Seconds for the count.
    keep : int, optional
        Grids to keep (default: the engine's).

    Returns
    -------
    CountResult
    """
    started = time.perf_counter()
    picked = pick_solver("count", model)
    count = picked.solver.count
    assert count is not None   # auto picks only an engine that counts
    left = time_left(time_limit, started)   # the pick may build the rule rows (2.4 s of a published puzzle)
    if left is not None and left <= 0:
        return CountResult(0, [], "time_limit", time.perf_counter() - started, message=PICKED_PAST_LIMIT)
    if limit >= 2 and relabelling_settles(model):   # one solution's relabellings may reach the limit
        pick = pick_solver("solve", model)
        found = count_by_relabelling(pick.solver.solve, pick.name, model, limit, left, keep)
        if found is not None:
            return found
        left = time_left(time_limit, started)
        if left is not None and left <= 0:
            return CountResult(0, [], "time_limit", time.perf_counter() - started)
    options: dict[str, Any] = {} if keep is None else {"keep": keep}
    result = count(model, limit, time_limit=left, **options)
    if not result.solver:   # the engine that counted, as a solve's result names the one that solved
        result.solver = picked.name
    return result


def auto_solve(model: Any, *, time_limit: float | None = None, check_unique: bool = False) -> SolveResult:
    """Solve ``model`` with the engine ``auto`` picks for it (``get_solver("auto").solve``).

    With ``check_unique`` the pick is the fastest engine for the uniqueness proof; one that
    proves it while solving does so, otherwise the counting engine counts to 2 in a second call
    (within what is left of ``time_limit``). The result's ``solver`` names the engine that solved.

    Parameters
    ----------
    model : Model
        The model to solve.
    time_limit : float, optional
        Seconds for the whole call.
    check_unique : bool, default False
        Also say whether the solution is the only one (``SolveResult.unique``).

    Returns
    -------
    SolveResult
    """
    question = "optimise" if getattr(model, "objective", None) is not None else "unique" if check_unique else "solve"
    started = time.perf_counter()
    if question == "unique" and relabelling_settles(model):   # one solution settles it: not unique
        pick = pick_solver("solve", model)
        result = solve_by_relabelling(pick.solver.solve, pick.name, model, time_limit)
        if result.grid is None or result.unique is not None:
            return result
        question = "solve"   # (never expected) the relabelled grid did not verify: count as before
    engine = pick_solver(question, model).solver
    left = time_left(time_limit, started)   # the pick may build the rule rows (2.4 s of a published puzzle)
    if left is not None and left <= 0:
        return SolveResult("time_limit", None, None, time.perf_counter() - started, 0, solver=engine.name,
                           message=PICKED_PAST_LIMIT)
    return solve_checking_uniqueness(engine, model, left, check_unique, own_count=False)



def solve_checking_uniqueness(engine: Solver, model: Any, time_limit: float | None, check_unique: bool, *,
                              own_count: bool = True, **options: Any) -> SolveResult:
    """``engine``'s answer, and with ``check_unique`` whether it is the only one: proved by the
    engine while solving where it can, else counted to 2 by ``engine`` when it counts in process,
    else by auto's counting engine (within what is left of ``time_limit``).

    Parameters
    ----------
    engine, model, time_limit, check_unique, **options
        As :func:`pipeline.solvers.base.solve_then_count` takes them.
    own_count : bool, default True
        Count with ``engine`` when it counts (a named engine); False: always auto's counting
        engine (what ``auto`` itself does).

    Returns
    -------
    SolveResult
        Its ``solver`` names the engine that solved.
    """
    counter = engine.count if own_count and engine.counts and engine.in_process else auto_count
    return solve_then_count(engine, model, time_limit, check_unique, counter, **options)


#: ``get_solver("auto")``: not an engine of its own (so not in ``SOLVERS``), it picks one per
#: model and question as ``--solver auto`` does.
AUTO_SOLVER = Solver(AUTO, "the engine make bench measured fastest for the question, among those that can "
                     "answer it here", solve=auto_solve, count=auto_count, rule_rows=True, proves_unique=True,
                     optimises=True)
PICKERS[AUTO] = AUTO_SOLVER
