"""Why a puzzle with rules beyond units has no solution: conflicting sets of clues AND rules.

For a puzzle with rules (killer cages, anti-knight, thermometers, windoku windows, ...) or a
layout, the unit of explanation is a clue or a rule. The engine is
:class:`~pipeline.tools.generate.lazy_engine.RuleSwitchEngine`: the SAT engine's units of the
grid (the variant's) on a fresh solver, each rule behind an activation literal (the units a rule
adds, such as windoku windows, as guarded pairwise clauses), the rules' rows learnt as
clauses guarded by it from counterexamples (a model breaking a row of a rule that is on). Clue
literals and rule literals are both assumptions, so:

* **minimal conflicting set**: the unsat core over (clues, rules) of the final UNSAT call, then
  deletion (drop one member; if the rest is still UNSAT keep the smaller core, else the member
  is necessary): the set has no solution, and without any one member it has;
* **fewest to remove**, proved optimal: a totalizer (python-sat's ``pysat.card.ITotalizer``)
  over the negated members, asked "at most k removed" for k = 0, 1, ... under the same lazy
  loop; the first k that is satisfiable is the optimum, and the members false in its model
  are removed. Every answer for a smaller k was UNSAT, so no smaller set exists.

Clues and rules count the same (weight 1 each). The learnt clauses hold in every solution of
their rule, so every UNSAT answer is a proof.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from pipeline.core.errors import PipelineError, PuzzleError
from pipeline.core.extras import install_hint
from pipeline.core.puzzle import Puzzle
from pipeline.tools.generate.lazy_engine import RuleSwitchEngine

__all__ = ["RULE_METHOD", "rule_conflicts", "rule_label", "rule_numbers"]

#: how the fewest removals of a rule puzzle are proved optimal (``Explanation.maxsat``).
RULE_METHOD = "rules-sat"


def rule_label(puzzle: Puzzle, group: tuple[int, ...]) -> str:
    """How explain names a rule of ``puzzle``: its description, with its number in the puzzle's
    rules (1-based) when another rule reads the same; ``group`` holds the positions of rules that
    are one and the same (a copy adds nothing, and removing one copy removes nothing).

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle.
    group : tuple of int
        0-based positions in ``puzzle.rules`` of identical rules (usually one).

    Returns
    -------
    str

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> dot = {"rule": "kropki", "color": "white", "cells": ["r1c1", "r1c2"]}
    >>> p = parse_puzzle("." * 16, rules=[dot, {**dot, "value": 3}, dot])
    >>> [rule_label(p, (k,)) for k in range(3)]
    ['white dot r1c1-r1c2 (rule 1)', 'white dot r1c1-r1c2 (difference 3)', 'white dot r1c1-r1c2 (rule 3)']
    >>> rule_label(p, (0, 2))
    'white dot r1c1-r1c2 (rules 1 and 3, the same)'
    """
    board = puzzle.base_board
    rule = puzzle.rules[group[0]]
    bound = rule.bound_text(board)   # a strict rule keeps the exemptions of marks left out of the set
    text = rule.describe(board) + (f" ({bound})" if bound else "")
    numbers = [str(k) for k in rule_numbers(puzzle, group)]
    if len(group) > 1:
        return f"{text} (rules {', '.join(numbers[:-1])} and {numbers[-1]}, the same)"
    same = sum(other.describe(board) == rule.describe(board) for other in puzzle.rules)
    return text if same == 1 else f"{text} (rule {numbers[0]})"


def rule_numbers(puzzle: Puzzle, group: tuple[int, ...]) -> list[int]:
    """The 1-based places of a group of ``puzzle.rules`` in the list they were given in (a
    document's ``rules``; ``puzzle.rules`` keeps row order), ascending.

    Parameters
    ----------
    puzzle : Puzzle
        The puzzle.
    group : tuple of int
        0-based positions in ``puzzle.rules``.

    Returns
    -------
    list of int
    """
    return sorted(puzzle.rule_number(k) for k in group)


def _members(puzzle: Puzzle, clues: np.ndarray, eng: RuleSwitchEngine) -> tuple[list[int], list[tuple]]:
    """The literals of the clues and of the rules with rows, what each is: ``(r, c, digit)``
    or the 0-based positions in ``puzzle.rules`` of the identical rules one literal switches."""
    acts = eng.use(puzzle)
    r, c = np.nonzero(clues)
    digits = np.asarray(clues)[r, c]
    lits = eng.literals(r, c, digits - 1).tolist()
    what: list[tuple] = [("clue", (int(a), int(b), int(d))) for a, b, d in zip(r, c, digits)]
    board = puzzle.base_board
    # every rule that says something: rows beyond units, or units (windoku windows) added
    named = sorted(set(np.unique(eng.terms.rule).tolist())
                   | {k for k, rule in enumerate(puzzle.rules) if rule.units(board)})
    groups: dict[int, list[int]] = {}   # identical rules share their literal (the engine keys rules by content)
    for k in named:
        groups.setdefault(int(acts[k]), []).append(k)
    lits += list(groups)
    what += [("rule", tuple(group)) for group in groups.values()]
    return lits, what


def _minimal(eng: RuleSwitchEngine, lits: list[int]) -> list[int]:
    if eng.solve_under(lits) is not False:
        return []
    first = set(eng.solver.get_core() or lits)
    core = [x for x in lits if x in first]
    i = 0
    while i < len(core):
        trial = core[:i] + core[i + 1:]
        if eng.solve_under(trial) is not False:
            i += 1   # core[i] is necessary
        else:
            smaller = set(eng.solver.get_core() or trial)
            core = [x for x in trial if x in smaller]
    return core


def _fewest(eng: RuleSwitchEngine, lits: list[int]) -> list[int]:
    try:
        from pysat.card import ITotalizer
    except ImportError:  # pragma: no cover - optional extra
        raise PipelineError(f"explain needs python-sat, a core dependency that is missing: {install_hint(None)}") from None
    top = eng.sat.new_var()
    tot = ITotalizer(lits=[-x for x in lits], ubound=len(lits), top_id=top)
    for clause in tot.cnf.clauses:
        eng.solver.add_clause(clause)
    while eng.sat.new_var() < tot.top_id:   # the totalizer's variables are taken
        pass
    for k in range(len(lits) + 1):
        bound = [-tot.rhs[k]] if k < len(tot.rhs) else []
        answer = eng.solve_under(bound)
        if answer is not False:
            model = eng.solver.get_model()
            return [x for x in lits if model[x - 1] < 0]
    raise PuzzleError("explain: the grid's units alone have no solution")


def rule_conflicts(puzzle: Puzzle, clues: np.ndarray | None = None) -> tuple[list, list, list, list]:
    """A minimal conflicting set and the fewest removals of an infeasible rule puzzle, over clues and rules.

    Parameters
    ----------
    puzzle : Puzzle
        A puzzle with rules that have rows (module docstring), without a solution.
    clues : numpy.ndarray, optional
        The clues, when ``puzzle`` cannot hold them (they break a rule or a unit directly: then
        ``puzzle`` is the shape without clues). Default ``puzzle.grid``.

    Returns
    -------
    (list, list, list, list)
        Conflicting clues ``[(r, c, digit)]`` (0-based cell), conflicting rules (tuples of 0-based
        positions in ``puzzle.rules``: identical rules go together; :func:`rule_label` names
        them), clues to remove, rules to remove: each list in the puzzle's order (clues
        row-major, rules in order).

    Raises
    ------
    PuzzleError
        The variant's units alone have no solution (every clue and rule removed).

    Examples
    --------
    >>> from pipeline.core.puzzle import parse_puzzle
    >>> p = parse_puzzle("1" + "." * 15, rules=[{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 7}])
    >>> rule_conflicts(p)
    ([(0, 0, 1)], [(0,)], [(0, 0, 1)], [])
    """
    # the engine's shape is the grid alone: every rule, with rows or with units, is switched by
    # its literal (a windoku is as removable as a cage); the value set and extra cells stay (a
    # value set's sums are in values, and rules may name extra cells)
    eng = RuleSwitchEngine(dataclasses.replace(puzzle, grid=np.zeros_like(puzzle.grid), rules=()))
    try:
        lits, what = _members(puzzle, puzzle.grid if clues is None else clues, eng)
        of = dict(zip(lits, what))
        core = set(_minimal(eng, lits))
        gone = set(_fewest(eng, lits))
        pick = [of[x] for x in lits if x in core], [of[x] for x in lits if x in gone]
        return ([v for kind, v in pick[0] if kind == "clue"], [v for kind, v in pick[0] if kind == "rule"],
                [v for kind, v in pick[1] if kind == "clue"], [v for kind, v in pick[1] if kind == "rule"])
    finally:
        eng.close()
