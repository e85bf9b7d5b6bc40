"""Explain a puzzle: why it has no solution, how its solutions differ, or that it is unique.

No solution: (1) clues that break a rule directly (the parser's message); (2) a minimal
conflicting set of clues (a core from CaDiCaL's assumptions, then minimised by deletion); (3) the
fewest clues to remove, proved optimal by RC2 MaxSAT (python-sat) with one soft unit per clue.
Several solutions: the count up to a cap, the cells where the solutions found differ, and a greedy
set of clues to add (taken from the first solution) that makes it unique.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field

import numpy as np

from .cliargs import add_puzzle_args
from .errors import PipelineError, PuzzleError
from .generate import engine_for
from .puzzle import Puzzle, parse_puzzle
from .rate import rate


@dataclass
class Explanation:
    status: str  # "invalid" | "infeasible" | "multiple" | "unique"
    message: str = ""
    conflict: list = field(default_factory=list)  # [(r, c, digit)] minimal conflicting clues
    remove: list = field(default_factory=list)  # fewest clues to remove (optimal)
    count: int | None = None
    count_capped: bool = False
    differing_cells: list = field(default_factory=list)
    add: list = field(default_factory=list)  # clues to add for uniqueness (greedy)
    rating: dict | None = None

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items()}

    def text(self) -> str:
        def cl(xs):
            return " ".join(f"r{r + 1}c{c + 1}={d}" for r, c, d in xs)
        if self.status == "invalid":
            return f"no solution: a clue breaks a rule directly: {self.message}"
        if self.status == "infeasible":
            return (f"no solution.\nminimal conflicting clues ({len(self.conflict)}): {cl(self.conflict)}\n"
                    f"fewest clues to remove ({len(self.remove)}, optimal by MaxSAT): {cl(self.remove)}")
        if self.status == "multiple":
            more = "at least " if self.count_capped else ""
            return (f"{more}{self.count} solutions.\ncells where they differ ({len(self.differing_cells)}): "
                    + " ".join(f"r{r + 1}c{c + 1}" for r, c in self.differing_cells)
                    + f"\nclues to add for a unique solution ({len(self.add)}, greedy, not proved smallest): "
                    + cl(self.add))
        return f"unique solution; rating: {self.rating['label']} (hardest: {self.rating['hardest']}, " \
               f"guesses {self.rating['guesses']})"


def _clue_triples(grid: np.ndarray) -> list[tuple[int, int, int]]:
    r, c = np.nonzero(grid)
    return [(int(a), int(b), int(grid[a, b])) for a, b in zip(r, c)]


def minimal_conflict(puzzle: Puzzle) -> list[tuple[int, int, int]]:
    """A minimal set of clues with no solution (deletion-minimised unsat core); [] if solvable."""
    eng = engine_for(puzzle)
    clues = _clue_triples(np.asarray(puzzle.grid))
    lit_of = {int(eng.lit(r, c, d - 1)): (r, c, d) for r, c, d in clues}
    if eng.solver.solve(assumptions=list(lit_of)):
        return []
    core = [x for x in eng.solver.get_core() if x in lit_of]
    i = 0
    while i < len(core):
        trial = core[:i] + core[i + 1:]
        if eng.solver.solve(assumptions=trial):
            i += 1
        else:
            core = [x for x in eng.solver.get_core() if x in set(trial)] or trial
            core = [x for x in trial if x in set(core)]
    return sorted(lit_of[x] for x in core)


def fewest_removals(puzzle: Puzzle) -> list[tuple[int, int, int]]:
    """The fewest clues whose removal makes ``puzzle`` solvable (optimal: RC2 MaxSAT)."""
    try:
        from pysat.examples.rc2 import RC2
        from pysat.formula import WCNF
    except ImportError:  # pragma: no cover
        raise PipelineError("explain needs python-sat: pip install '.[sat]'") from None
    from .build import build_model

    n = puzzle.n
    empty = Puzzle(np.zeros((n, n), dtype=np.int64), puzzle.h, puzzle.w, puzzle.variant, puzzle.regions)
    a = build_model(empty, "ijk", "C", clues="bounds").A.tocsr()
    wcnf = WCNF()
    for lits in np.split(a.indices.astype(np.int64) + 1, a.indptr[1:-1]):
        wcnf.append(lits.tolist())
        i, j = np.triu_indices(len(lits), 1)
        for x, y in zip((-lits[i]).tolist(), (-lits[j]).tolist()):
            wcnf.append([x, y])
    clues = _clue_triples(np.asarray(puzzle.grid))
    for r, c, d in clues:
        wcnf.append([int((r * n + c) * n + d)], weight=1)
    with RC2(wcnf) as rc2:
        model = rc2.compute()
    if model is None:
        raise PuzzleError("explain: the rules alone have no solution")
    truth = np.asarray(model[: n ** 3]) > 0
    return [(r, c, d) for r, c, d in clues if not truth[(r * n + c) * n + d - 1]]


def explain(puzzle_or_text, *, cap: int = 100, **parse_kw) -> Explanation:
    """Explain a puzzle (a :class:`Puzzle`, or text parsed with ``parse_kw``).

    A puzzle whose clues break a rule directly cannot be built as a :class:`Puzzle`; pass the text
    to get that as status ``invalid`` with the parser's message.
    """
    if isinstance(puzzle_or_text, Puzzle):
        puzzle = puzzle_or_text
    else:
        try:
            puzzle = parse_puzzle(puzzle_or_text, **parse_kw)
        except PuzzleError as e:
            if "duplicate" in str(e) or "twice" in str(e) or "repeat" in str(e):
                return Explanation("invalid", message=str(e))
            raise
    eng = engine_for(puzzle)
    count, grids = eng.count(np.asarray(puzzle.grid), cap, keep=cap)
    if count == 0:
        return Explanation("infeasible", conflict=minimal_conflict(puzzle), remove=fewest_removals(puzzle),
                           count=0)
    if count == 1:
        return Explanation("unique", count=1, rating=rate(puzzle).to_dict(brief=True))
    stack = np.stack(grids)
    differ = (stack != stack[0]).any(axis=0)
    cells = [(int(r), int(c)) for r, c in zip(*np.nonzero(differ))]
    # greedy: fix the first solution's digit in the cell where the most solutions disagree with it
    first, grid, add = grids[0], np.array(puzzle.grid), []
    while eng.count(grid, 2)[0] > 1:
        _, sols = eng.count(grid, cap, keep=cap)
        disagree = (np.stack(sols) != first).sum(axis=0)
        r, c = np.unravel_index(int(disagree.argmax()), disagree.shape)
        grid[r, c] = first[r, c]
        add.append((int(r), int(c), int(first[r, c])))
    return Explanation("multiple", count=count, count_capped=count >= cap, differing_cells=cells, add=add)


def cmd_explain(args) -> int:
    kw = dict(box=args.box, variant=args.variant, regions=args.regions, size=args.size)
    e = explain(args.puzzle, cap=args.cap, **kw)
    print(json.dumps(e.to_dict()) if args.format == "json" else e.text())
    return 1 if e.status in ("invalid", "infeasible") else 0


def add_command(subparsers) -> None:
    p = subparsers.add_parser("explain", help="why no solution / how solutions differ / unique with rating")
    add_puzzle_args(p)
    p.add_argument("--cap", type=int, default=100, help="count solutions up to this many (default 100)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_explain)
