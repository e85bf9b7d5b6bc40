"""Explain a puzzle: why it has no solution, how its solutions differ, or that it is unique.

No solution:

1. clues that break a rule directly (two equal digits in a unit): the parser's message;
2. a minimal conflicting set of clues: the SAT engine (:class:`pipeline.solvers.sat.SatEngine`,
   clues as assumptions) returns an unsat core of clue literals, then deletion minimises it
   (drop one clue; if the rest is still UNSAT keep the smaller core the solver returns, else the
   clue is necessary), so the set is infeasible and removing any one clue makes it solvable;
3. the fewest clues to remove, proved optimal: a weighted MaxSAT problem (rules hard, one soft
   unit clause per clue) solved by python-sat's RC2, or the same model on HiGHS (binary
   program: the rules' rows, one soft clue row per clue whose slack costs 1; written as the
   equivalent objective "maximise the clues kept"). ``--maxsat`` picks; the default is RC2,
   chosen by measurement (bench/generate_bench.py, 40 infeasible 9x9 puzzles: the tdoku
   no-solution ones and generated ones with one clue changed): RC2 median 25 ms (worst 116 ms),
   HiGHS median 1.03 s (worst 5.1 s), the same optimum on every puzzle.

Several solutions: the count up to a cap, the cells where the solutions found differ, and a
greedy set of clues to add (fix the first solution's digit where most found solutions disagree
with it, recount, repeat): small, not proved smallest.
Unique: says so, with the rating of :mod:`pipeline.tools.rate`.

Puzzles with rules beyond units (rows: killer cages, anti-knight, ...) are counted by the shape's
counting engine (:func:`pipeline.tools.generate.engine.counting_engine`); when they have no
solution, the unit of explanation is a clue or a rule: :mod:`pipeline.tools.explain_rules`
(minimal conflicting set and fewest removals over both, ``maxsat`` ``rules-sat``).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pipeline.core.build import build_model
from pipeline.core.errors import ClueConflictError, PipelineError, PuzzleError
from pipeline.core.extras import install_hint
from pipeline.core.limits import check_kept_grids
from pipeline.tools.explain_rules import RULE_METHOD, rule_conflicts, rule_label, rule_numbers
from pipeline.tools.generate import ShapeEngine, engine_for
from pipeline.tools.generate.engine import has_rows_beyond_units
from pipeline.tools.generate.lazy_engine import left_out_kinds
from pipeline.core.rules.bounds import rule_terms
from pipeline.core.parse import Source
from pipeline.core.puzzle import Puzzle, shape_and_clues
from pipeline.tools.rate import Rating, rate
from pipeline.solvers.auto import auto_count
from pipeline.solvers.base import get_solver
from pipeline.solvers.sat_slices import run_sliced

MAXSAT_METHODS = ("rc2", "highs")
#: default method for the fewest removals (see the module docstring for the measurement).
DEFAULT_MAXSAT = "rc2"
#: what ``explain(solver=...)`` counts with: auto's pick for the puzzle's model, or the SAT engine
COUNTING_ENGINES = ("auto", "sat")
DEFAULT_CAP = 100
#: what explain says of a puzzle with extra cells and no solution, instead of a conflict set
NO_CONFLICTS_WITH_EXTRA_CELLS = ("no conflict set or fewest removals for a puzzle with extra cells (not supported "
                                 "yet: the engine that switches rules lays them on the grid's cells only)")
#: ... and of one whose rules have auxiliary columns (the engine learns a rule from its rows over cells)
NO_CONFLICTS_WITH_AUX_RULES = ("no conflict set or fewest removals for a puzzle with rules of these kinds: {} (not "
                               "supported yet: their rows hold auxiliary columns, and the engine that switches rules "
                               "learns them from cells only)")


@dataclass
class Explanation:
    """What :func:`explain` found; ``text()`` for people, ``to_dict()`` for JSON."""

    status: str  # "invalid" | "infeasible" | "multiple" | "unique"
    message: str = ""
    conflict: list = field(default_factory=list)  # [(r, c, digit)] 0-based cell, minimal conflicting clues
    remove: list = field(default_factory=list)  # fewest clues to remove (optimal)
    maxsat: str | None = None  # method that proved ``remove`` optimal
    count: int | None = None
    count_capped: bool = False
    differing_cells: list = field(default_factory=list)  # [(r, c)] 0-based
    add: list = field(default_factory=list)  # clues to add for uniqueness (greedy)
    rating: dict | None = None
    # puzzles with rule rows: the rules in the minimal conflicting set and among the fewest removals
    conflict_rules: list = field(default_factory=list)
    remove_rules: list = field(default_factory=list)
    # the same rules by their 1-based places in the puzzle's rules (the document's "rules" list):
    # one list per entry, of the identical rules it stands for (usually one)
    conflict_rule_numbers: list = field(default_factory=list)
    remove_rule_numbers: list = field(default_factory=list)

    def to_dict(self) -> dict:
        d = dict(self.__dict__)
        if self.maxsat != RULE_METHOD:   # puzzles of units alone: the record as before
            for key in ("conflict_rules", "remove_rules", "conflict_rule_numbers", "remove_rule_numbers"):
                del d[key]
        d["add_method"] = "greedy" if self.status == "multiple" else None
        return d

    def text(self) -> str:
        def clues(xs):
            return " ".join(f"r{r + 1}c{c + 1}={d}" for r, c, d in xs)
        how = {"rc2": "RC2 MaxSAT", "highs": "HiGHS", RULE_METHOD: "SAT with a totalizer", None: ""}[self.maxsat]
        if self.status in ("infeasible", "invalid") and self.maxsat is None:   # no conflict search ran
            return f"no solution: {self.message}"
        if self.status in ("infeasible", "invalid") and self.maxsat == RULE_METHOD:
            def members(cs, rs):
                return "; ".join(([clues(cs)] if cs else []) + rs)
            head = (f"no solution: a clue breaks a rule directly: {self.message}" if self.status == "invalid"
                    else "no solution.")
            return (f"{head}\nminimal conflicting clues and rules ({len(self.conflict) + len(self.conflict_rules)}; "
                    f"these alone have no solution, without any one of them they have): "
                    f"{members(self.conflict, self.conflict_rules)}\n"
                    f"fewest clues and rules to remove ({len(self.remove) + len(self.remove_rules)}, proved optimal by "
                    f"{how}): {members(self.remove, self.remove_rules)}")
        if self.status == "invalid":
            return (f"no solution: a clue breaks a rule directly: {self.message}\n"
                    f"minimal conflicting clues ({len(self.conflict)}): {clues(self.conflict)}\n"
                    f"fewest clues to remove ({len(self.remove)}, proved optimal by {how}): {clues(self.remove)}")
        if self.status == "infeasible":
            return (f"no solution.\nminimal conflicting clues ({len(self.conflict)}; these alone have no solution, "
                    f"without any one of them they have): {clues(self.conflict)}\n"
                    f"fewest clues to remove ({len(self.remove)}, proved optimal by {how}): {clues(self.remove)}")
        if self.status == "multiple":
            more = "at least " if self.count_capped else ""
            if not self.differing_cells:   # extra cells tell answers apart (as ISS counts its Var cells)
                return (f"{more}{self.count} solutions.\nthe grids are the same: the solutions differ in the extra "
                        "cells only, so no clue in the grid makes the answer unique")
            among = f", among the {self.count} solutions found" if self.count_capped else ""
            return (f"{more}{self.count} solutions.\ncells where they differ ({len(self.differing_cells)}{among}): "
                    + " ".join(f"r{r + 1}c{c + 1}" for r, c in self.differing_cells)
                    + f"\nclues to add for a unique solution ({len(self.add)}, greedy, not proved smallest): "
                    + clues(self.add))
        if self.rating is None:   # a puzzle with a value set, or a rectangular grid
            return ("unique solution.\nrating: none (the rater takes the digits 1..N of a square grid, not a value "
                    "set or a rectangle)")
        return f"unique solution.\nrating: {Rating(**self.rating, steps=[], solution=None).text()}"


def _clue_triples(grid: np.ndarray) -> list[tuple[int, int, int]]:
    r, c = np.nonzero(grid)
    return [(int(a), int(b), int(grid[a, b])) for a, b in zip(r, c)]


def _zero_based(clues) -> np.ndarray:
    """``(3, K)`` rows, columns and digits of ``[(r, c, digit)]`` clues, all 0-based (digit - 1)."""
    return np.array(clues).T - np.array([[0], [0], [1]])


def _names_rules(puzzle: Puzzle) -> bool:
    """Is ``puzzle`` explained over clues AND rules (:func:`rule_conflicts`)? When it has rules
    (with rows, or units such as windoku windows: each can be removed) or a layout."""
    return puzzle.layout is not None or bool(puzzle.rules)


def _units_only(puzzle: Puzzle, what: str) -> None:
    """Refuse a puzzle with rule rows: its explanation is over clues and rules (:func:`rule_conflicts`)."""
    if has_rows_beyond_units(puzzle):
        raise PuzzleError(f"{what}: a puzzle with rules beyond units is explained over clues and rules: "
                          "pipeline.tools.explain_rules.rule_conflicts")


def minimal_conflict(puzzle: Puzzle, grid: np.ndarray | None = None) -> list[tuple[int, int, int]]:
    """A minimal set of clues with no solution (deletion-minimised unsat core); [] if solvable.

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle, or (with ``grid``) any puzzle of the shape.
    grid : numpy.ndarray, optional
        Clues to use instead of ``puzzle``'s, unchecked (may repeat a digit in a unit).

    Returns
    -------
    list of (row, col, digit)
        0-based row and column, 1-based digit, sorted.

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> p = parse_puzzle("12.." "..3." ".3.." "....", box="2x2")
    >>> minimal_conflict(p)
    [(0, 0, 1), (0, 1, 2), (1, 2, 3)]
    """
    _units_only(puzzle, "minimal_conflict")
    eng = ShapeEngine(puzzle)
    clues = _clue_triples(np.asarray(puzzle.grid if grid is None else grid))
    lits = [int(x) for x in eng.literals(*_zero_based(clues))] if clues else []
    clue_of = dict(zip(lits, clues))
    solver = eng.solver
    # in slices: a --time-limit's alarm and Ctrl-C are taken between two (one solve call of an
    # infeasible 25x25 held a 5 s limit to 13.9 s)
    if run_sliced(solver, lits):
        return []
    first_core = set(solver.get_core() or lits)
    core = [x for x in lits if x in first_core]
    i = 0
    while i < len(core):
        trial = core[:i] + core[i + 1:]
        if run_sliced(solver, trial):
            i += 1  # core[i] is necessary
        else:
            smaller = set(solver.get_core() or trial)
            core = [x for x in trial if x in smaller]
    return sorted(clue_of[x] for x in core)


def _rc2_keep(puzzle: Puzzle, eng, clues) -> np.ndarray | None:
    try:
        from pysat.examples.rc2 import RC2
        from pysat.formula import WCNF
    except ImportError:  # pragma: no cover - optional extra
        raise PipelineError(f"explain needs python-sat, a core dependency that is missing: {install_hint(None)}") from None
    wcnf = WCNF()
    wcnf.extend(eng.clauses)
    lits = eng.literals(*_zero_based(clues))
    for lit in lits.tolist():
        wcnf.append([lit], weight=1)
    with RC2(wcnf) as rc2:
        model = rc2.compute()
    if model is None:
        return None
    truth = np.asarray(model, dtype=np.int64)
    return truth[lits - 1] > 0


def _highs_keep(puzzle: Puzzle, eng, clues) -> np.ndarray | None:
    # the puzzle's own shape without its clues: a rectangle, a layout or a value set too (a square
    # N x N of the digits 1..N had a model of another size: "objective: expected 216 costs, found 144")
    empty = dataclasses.replace(puzzle, grid=np.zeros_like(puzzle.grid))
    conv = eng.convention
    pos = conv.position(*_zero_based(clues))
    cost = np.zeros(conv.n_vars)
    cost[pos] = -1.0  # soft clue row x_p + s = 1 with slack cost 1 == maximise the kept clues
    result = get_solver("highs").solve(build_model(empty, "ijk", "C", clues="bounds", objective=cost))
    if result.grid is None:
        return None
    r, c, d = np.array(clues).T
    return result.grid[r, c] == d


def fewest_removals(puzzle: Puzzle, method: str = DEFAULT_MAXSAT,
                    grid: np.ndarray | None = None) -> list[tuple[int, int, int]]:
    """The fewest clues whose removal makes ``puzzle`` solvable, proved optimal.

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle, or (with ``grid``) any puzzle of the shape.
    method : {"rc2", "highs"}
        RC2 weighted MaxSAT (python-sat) or HiGHS on the binary program.
    grid : numpy.ndarray, optional
        Clues to use instead of ``puzzle``'s, unchecked (may repeat a digit in a unit).

    Returns
    -------
    list of (row, col, digit)
        Empty when the puzzle is solvable.

    Raises
    ------
    PuzzleError
        The rules alone have no solution, or an unknown method.

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> p = parse_puzzle("12.." "..3." ".3.." "....", box="2x2")
    >>> len(fewest_removals(p)), len(fewest_removals(p, "highs"))
    (1, 1)
    """
    if method not in MAXSAT_METHODS:
        raise PuzzleError(f"maxsat: unknown method {method!r}; expected one of {', '.join(MAXSAT_METHODS)}")
    _units_only(puzzle, "fewest_removals")
    clues = _clue_triples(np.asarray(puzzle.grid if grid is None else grid))
    if not clues:
        return []
    eng = ShapeEngine(puzzle)
    keep = (_rc2_keep if method == "rc2" else _highs_keep)(puzzle, eng, clues)
    if keep is None:
        raise PuzzleError("explain: the rules alone have no solution")
    return [x for x, k in zip(clues, keep.tolist()) if not k]


def _rule_explanation(status: str, puzzle: Puzzle, clues: np.ndarray | None, message: str = "") -> Explanation:
    """The conflict and the fewest removals over clues and rules (:func:`rule_conflicts`), the
    rules named by :func:`rule_label` and numbered by their 1-based places in the list they were
    given in (``Puzzle.rule_number``: a document's ``rules``, not the row order ``puzzle.rules`` keeps).
    A puzzle with extra cells gets ``message`` and :data:`NO_CONFLICTS_WITH_EXTRA_CELLS` alone: the
    engine that switches rules lays them on the grid's cells only."""
    kinds = left_out_kinds(rule_terms(puzzle.rules, puzzle.base_board), puzzle.rules)
    if puzzle.extra or kinds:
        said = f"a clue breaks a rule directly: {message}; " if message else ""
        why = NO_CONFLICTS_WITH_EXTRA_CELLS if puzzle.extra else NO_CONFLICTS_WITH_AUX_RULES.format(", ".join(kinds))
        return Explanation(status, message=said + why, count=0)
    conflict, conflict_rules, remove, remove_rules = rule_conflicts(puzzle, clues)
    return Explanation(status, message=message, conflict=conflict, remove=remove, maxsat=RULE_METHOD, count=0,
                       conflict_rules=[rule_label(puzzle, k) for k in conflict_rules],
                       remove_rules=[rule_label(puzzle, k) for k in remove_rules],
                       conflict_rule_numbers=[rule_numbers(puzzle, k) for k in conflict_rules],
                       remove_rule_numbers=[rule_numbers(puzzle, k) for k in remove_rules])


def _invalid(shape: Puzzle, clues: np.ndarray, message: str, maxsat: str) -> Explanation:
    """Clues that break a rule directly: the parser's ``message``, and the conflicting set and
    fewest removals over the clues (and rules, for a shape with rule rows)."""
    if _names_rules(shape):
        return _rule_explanation("invalid", shape, clues, message)
    return Explanation("invalid", message=message, count=0, maxsat=maxsat,
                       conflict=minimal_conflict(shape, clues), remove=fewest_removals(shape, maxsat, clues))


#: The keywords that read a puzzle from text (:func:`~pipeline.core.puzzle.shape_and_clues`).
PARSE_KEYWORDS = frozenset({"box", "variant", "regions", "size", "rules"})


def explain(puzzle_or_text: Puzzle | Source, *, cap: int = DEFAULT_CAP, maxsat: str = DEFAULT_MAXSAT,
            solver: str = "auto", **parse_kw: Any) -> Explanation:
    """Explain a puzzle (a :class:`Puzzle`, or text parsed with ``parse_kw``).

    Parameters
    ----------
    puzzle_or_text : Puzzle or str
        A puzzle whose clues break a rule directly cannot be built as a :class:`Puzzle`; pass
        text to get that as status ``invalid`` with the parser's message.
    cap : int
        Count solutions up to this many.
    maxsat : {"rc2", "highs"}
        Method of the fewest removals.
    solver : {"auto", "sat"}
        The engine of the counts: ``auto`` (its pick for the puzzle's model, e.g. ``dfsrules`` for
        a rule puzzle where numba is installed) or ``sat``. The conflicts and the clues to add
        always use the SAT engine's assumptions.
    **parse_kw
        For text: ``box``, ``variant``, ``regions``, ``size``, ``rules``, as
        :func:`~pipeline.core.puzzle.parse_puzzle` takes them.

    Returns
    -------
    Explanation

    Raises
    ------
    PuzzleError
        Unreadable input (other than a rule broken directly), ``cap < 2``, an unknown ``maxsat``
        or ``solver``.

    Examples
    --------
    >>> explain("1234" "3412" "...." "....", box="2x2").status
    'multiple'
    """
    if isinstance(cap, bool) or not isinstance(cap, (int, np.integer)) or cap < 2:   # None, "3", 2.5 raised deep inside
        raise PuzzleError.for_option("cap", f"must be an integer of at least 2, found {cap!r}")
    unknown = sorted(set(parse_kw) - PARSE_KEYWORDS)
    if unknown:   # a TypeError from shape_and_clues, or (with a Puzzle given) ignored without a word
        raise PuzzleError(f"explain: unknown option {unknown[0]!r} (the puzzle's options: "
                          f"{', '.join(sorted(PARSE_KEYWORDS))})")
    if parse_kw and isinstance(puzzle_or_text, Puzzle):
        given = sorted(k for k, v in parse_kw.items() if v is not None)
        if given:   # a Puzzle is read already: its shape options would be ignored
            raise PuzzleError(f"explain: {given[0]} is for reading text; this puzzle is read already")
    if solver not in COUNTING_ENGINES:
        raise PuzzleError(f"solver: explain counts with one of {', '.join(COUNTING_ENGINES)}, not {solver!r}")
    if not isinstance(maxsat, str) or maxsat not in MAXSAT_METHODS:   # was checked only once a puzzle had no solution
        raise PuzzleError(f"maxsat: unknown method {maxsat!r}; expected one of {', '.join(MAXSAT_METHODS)}")
    count = _counter(solver)
    if isinstance(puzzle_or_text, Puzzle):
        return _in_values(_explain(puzzle_or_text, cap, maxsat, count), puzzle_or_text.values)
    # read once (standard input cannot be read twice), then check the clues against the shape
    shape, clues = shape_and_clues(puzzle_or_text, **parse_kw)
    try:   # the shape's every field (rules, layout, value set, extra cells) with the clues
        puzzle = dataclasses.replace(shape, grid=clues)
    except ClueConflictError as e:
        return _in_values(_invalid(shape, clues, str(e), maxsat), shape.values)
    return _in_values(_explain(puzzle, cap, maxsat, count), shape.values)


def _in_values(found: Explanation, values: tuple | None) -> Explanation:
    """``found`` with its clues (conflict, removals, clues to add) as values, for a puzzle with a
    value set (the search works on digit indices 1..V; a person reads the values)."""
    if values is None:
        return found
    def shown(clues: list) -> list:
        return [(r, c, int(values[d - 1])) for r, c, d in clues]
    return dataclasses.replace(found, conflict=shown(found.conflict), remove=shown(found.remove),
                               add=shown(found.add))


def _counter(solver: str) -> Callable[[Any, int], Any]:
    """``count(model, cap) -> CountResult`` (``cap`` grids kept) on the engine ``solver`` names."""
    if solver == "auto":
        return lambda model, cap: auto_count(model, cap, keep=cap).whole("explain")
    count = get_solver(solver, need="count").count
    assert count is not None   # need="count" refuses an engine that cannot count
    return lambda model, cap: count(model, cap, keep=cap).whole("explain")


def _explain(puzzle: Puzzle, cap: int, maxsat: str, count_model: Callable[[Any, int], Any]) -> Explanation:
    """:func:`explain` of a checked puzzle, its clues in digit indices, its counts by ``count_model``."""
    # every grid up to the cap is kept: --cap 1000000000 on an empty 9x9 grew by 170 MB a second
    check_kept_grids(cap, int(puzzle.grid.size), "explain (lower --cap)")
    # the first count on the model (singles first, the clues as units): the shape's engine with
    # the clues as assumptions took 64 s on a unique 25x25 it solves in 9
    counted = count_model(build_model(puzzle), cap)
    count, grids = counted.count, counted.grids
    if count == 0 and _names_rules(puzzle):   # clues and rules are explained
        return _rule_explanation("infeasible", puzzle, None)
    if count == 0:
        return Explanation("infeasible", conflict=minimal_conflict(puzzle),
                           remove=fewest_removals(puzzle, maxsat), maxsat=maxsat, count=0)
    if count == 1:   # the rater names digits 1..N and takes units of one length: others are not rated
        rated = puzzle.values is None and (puzzle.rows == puzzle.cols or puzzle.layout is not None)
        rating = rate(puzzle, grids[0], unique=True).to_dict(brief=True) if rated else None
        return Explanation("unique", count=1, rating=rating)
    counter = _clue_counter(puzzle, cap, count_model)   # the greedy clues to add: many small counts
    stack = np.stack(grids)
    differ = (stack != stack[0]).any(axis=0)
    cells = [(int(r), int(c)) for r, c in zip(*np.nonzero(differ))]
    first, grid, add = grids[0], np.array(puzzle.grid), []
    while True:
        found, sols = counter(grid)
        if found <= 1:
            break
        disagree = (np.stack(sols) != first).sum(axis=0)
        r, c = np.unravel_index(int(disagree.argmax()), disagree.shape)
        grid[r, c] = first[r, c]
        add.append((int(r), int(c), int(first[r, c])))
    return Explanation("multiple", count=count, count_capped=count >= cap, differing_cells=cells, add=add)


def _clue_counter(puzzle: Puzzle, cap: int, count_model: Callable[[Any, int], Any]):
    """``count(grid) -> (count up to cap, grids)`` of the puzzle with other clues: the shape's
    counting engine, or, when the puzzle has more values than the side (its units hold each
    value at most once, which that engine does not model), ``count_model`` on the model."""
    if puzzle.n_values == puzzle.n:
        eng = engine_for(puzzle)
        return lambda grid: eng.count(grid, cap, keep=True)

    def count(grid: np.ndarray) -> tuple[int, list]:
        counted = count_model(build_model(dataclasses.replace(puzzle, grid=grid)), cap)
        return counted.count, counted.grids
    return count
