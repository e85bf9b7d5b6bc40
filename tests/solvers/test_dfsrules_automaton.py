"""The ``dfsrules`` kernel's automaton handler (pipeline/solvers/dfsrules_automaton.py): the rows of
``automaton`` and ``regex`` lines reach auxiliary columns (one accepting run), so the handler alone
must hold the rule. Its counts to 2, and its grids, equal the SAT engine's (which reads the rule's
rows) on random 4x4 and 6x6 puzzles with few givens and regex lines, whisper-like automata, and
automata over two segments (a break between them, a cell read twice); the answer's vector keeps
every row of the model (the run's columns filled from the grid); ISS's published NFA and regex
puzzles that it takes solve to their published grid; an automaton above the handler's size is
refused (the SAT engine takes it)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from oracles import ISS_COLLECTION

from pipeline.core.build import build_model
from pipeline.core.errors import ClueConflictError
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.rulerows import rule_rows_outlast
from pipeline.core.verify import residual, verify_grid
from pipeline.solvers import SOLVERS, get_solver
from pipeline.solvers.auto import pick_solver
from pipeline.solvers.dfsrules import HANDLED_KINDS, model_problem, rule_tables
from pipeline.solvers import dfsrules_automaton_rows
from pipeline.solvers.dfsrules_automaton_rows import MAX_HANDLED_STATES, NFA_AT
from dfsrules_agree import agree_with_sat

pytest.importorskip("pysat")
if SOLVERS["dfsrules"].available() is not None:
    pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}", allow_module_level=True)

_BOX = {4: "2x2", 6: "2x3"}


def _agree(puzzle, cap: int = 2) -> int:
    """:func:`dfsrules_agree.agree_with_sat`, a solved answer's vector keeping every row too."""
    return agree_with_sat(puzzle, cap, rows_hold=True)


def _grid(n: int, rng) -> np.ndarray:
    """A random full grid of side ``n`` (boxes of 2 rows): a pattern grid, digits relabelled, rows
    shuffled within bands and bands shuffled."""
    wide = n // 2
    base = np.array([[(r * wide + r // 2 + c) % n for c in range(n)] for r in range(n)])
    bands = rng.permutation(n // 2)
    rows = np.concatenate([2 * b + rng.permutation(2) for b in bands])
    return rng.permutation(n)[base[rows]] + 1


def _walk(n: int, length: int, rng) -> list[int]:
    """A path of distinct king-adjacent cells (shorter when it gets stuck)."""
    cell = int(rng.integers(n * n))
    path = [cell]
    while len(path) < length:
        r, c = divmod(path[-1], n)
        nxt = [(r + dr) * n + c + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1)
               if (dr or dc) and 0 <= r + dr < n and 0 <= c + dc < n and (r + dr) * n + c + dc not in path]
        if not nxt:
            break
        path.append(int(rng.choice(nxt)))
    return path


def _name(cell: int, n: int) -> str:
    return f"r{cell // n + 1}c{cell % n + 1}"


def _whisper(n: int, gap: int) -> dict:
    """Neighbours differ by ``gap`` or more: state 0 starts, state ``v`` has read ``v``."""
    trans = [[0, v, v] for v in range(1, n + 1)]
    trans += [[p, v, v] for p in range(1, n + 1) for v in range(1, n + 1) if abs(p - v) >= gap]
    return {"states": n + 1, "start": [0], "accept": list(range(1, n + 1)), "transitions": trans}


def _parity(n: int) -> dict:
    """Over two segments (the break between): the odd values read number an even count. States
    ``2 * segment + parity``."""
    trans = [[2 * s + p, v, 2 * s + (p ^ (v & 1))] for s in (0, 1) for p in (0, 1) for v in range(1, n + 1)]
    trans += [[p, "break", 2 + p] for p in (0, 1)]
    return {"states": 4, "start": [0], "accept": [2], "transitions": trans}


def _rule(n: int, grid: np.ndarray, rng) -> dict:
    """A random regular-language line: a regex of a small list, a regex of classes the grid's line
    matches, a whisper-like automaton, or a parity automaton over two segments sharing a cell."""
    flat = grid.reshape(-1)
    path = _walk(n, int(rng.integers(3, n + 3)), rng)
    cells = [_name(c, n) for c in path]
    pick = int(rng.integers(5))
    if pick == 0:
        digits = "".join(str(d) for d in range(1, n + 1))
        pattern = str(rng.choice(["(12|34)*", f"[1-{n - 1}]*{n}.*", ".*(13|31).*", "1?2?3?.*", "(1|2)+(3|4)+",
                                  f"[^1]*{digits[1]}[{digits}]*", "(..)*", ".(21|43)*."]))
        return {"rule": "regex", "pattern": pattern, "cells": cells}
    if pick == 1:   # each cell its grid value or one other: the grid's line matches
        classes = [f"[{flat[c]}{int(rng.integers(1, n + 1))}]" for c in path]
        return {"rule": "regex", "pattern": "".join(classes), "cells": cells}
    if pick in (2, 3):
        return {"rule": "automaton", "cells": cells, **_whisper(n, int(rng.integers(1, n // 2 + 2)))}
    cut = int(rng.integers(1, len(path))) if len(path) > 1 else 1
    second = cells[cut - 1:] if rng.random() < 0.5 else cells[cut:] or cells[-1:]   # the first reads the cut cell twice
    return {"rule": "automaton", "cells": [cells[:cut], second], **_parity(n)}


@pytest.mark.parametrize("n,seed", [(4, 1), (4, 2), (6, 3), (6, 4)])
def test_random_automaton_puzzles_count_as_the_sat_engine(n, seed):
    rng = np.random.default_rng(seed)
    counts = []
    for _ in range(12 if n == 4 else 8):
        grid = _grid(n, rng)
        assert verify_grid(grid, parse_puzzle({"size": n, "box": _BOX[n]})).ok
        shown = np.zeros(n * n, dtype=np.int64)
        keep = rng.choice(n * n, size=int(rng.integers(1, n + 2)), replace=False)
        shown[keep] = grid.reshape(-1)[keep]
        doc = {"size": n, "box": _BOX[n], "givens": "".join(str(v) if v else "." for v in shown),
               "rules": [_rule(n, grid, rng) for _ in range(int(rng.integers(1, 4)))]}
        try:
            puzzle = parse_puzzle(doc)
        except ClueConflictError:   # a line the givens (or its length) already break: refused at parsing
            continue
        counts.append(_agree(puzzle))
    assert 0 in counts and 2 in counts   # contradictory puzzles and puzzles of several solutions


def test_every_grid_of_a_4x4_with_regex_lines_is_counted():
    """No givens: the whole count equals the SAT engine's (a line across boxes and one along a row)."""
    rules = [{"rule": "regex", "pattern": "(12|34)*", "cells": ["r1c1", "r2c2", "r3c3", "r4c4"]},
             {"rule": "regex", "pattern": "[^4]*4", "cells": ["r2c1", "r2c2", "r2c3"]}]
    assert _agree(parse_puzzle({"size": 4, "box": "2x2", "rules": rules}), cap=300) > 1


def test_the_handler_takes_the_rows_place_and_a_large_automaton_is_refused(monkeypatch):
    """Two lines of one pattern share one automaton in the kernel's tables and leave no linear row;
    an automaton above the handler's states is refused in one line, and auto sends it to the SAT engine."""
    doc = {"size": 4, "box": "2x2", "rules": [{"rule": "regex", "pattern": "(12|34)*", "cells": ["r1c1", "r2c2"]},
                                              {"rule": "regex", "pattern": "(12|34)*", "cells": ["r3c3", "r4c4"]}]}
    tables = rule_tables(parse_puzzle(doc))
    rint = tables.rint
    assert tables.n_lin == 0 and rint[NFA_AT + 3] == 2
    assert rint[rint[NFA_AT + 1]:rint[NFA_AT + 1] + 4].tolist() == [0, 5, 10, 15]
    auto = rint[rint[NFA_AT + 2]:rint[NFA_AT + 2] + 4]   # per line: its automaton's table, its states per step
    assert auto[0] == auto[2] == 0 and 0 < auto[1] < auto[3]   # one automaton's table for both lines
    states = MAX_HANDLED_STATES + 1
    chain = {"states": states, "start": [0], "accept": [2],
             "transitions": [[q, 1 + q % 4, q + 1] for q in range(states - 1)]}
    big = build_model(parse_puzzle({"size": 4, "box": "2x2",
                                    "rules": [{"rule": "automaton", "cells": ["r1c1", "r2c2"], **chain}]}))
    reason = model_problem(big)
    assert reason is not None and "automata up to" in reason
    assert pick_solver("unique", big).name == "sat"
    # a line whose steps times transitions pass the bound (its states per step are a table of that size)
    monkeypatch.setattr(dfsrules_automaton_rows, "MAX_HANDLED_STEP_TRANSITIONS", 10)
    reason = model_problem(build_model(parse_puzzle(doc)))
    assert reason is not None and "steps times transitions" in reason


def test_rows_it_never_builds_do_not_count_against_its_time_limit():
    """dfsrules answered ``time_limit`` at once when the automaton's rows (which it never builds)
    were estimated to outlast the limit: ISS's 'How Shall We Split This?' (2.4 million nonzeros,
    about 1.9 s) went to sat after auto's 1 s budget. The estimate leaves its handled kinds out."""
    doc = {"size": 9, "rules": [{"rule": "regex", "pattern": "[1-9]*", "cells": [f"r{r}c{c}" for r in range(1, 10)
                                                                                 for c in range(1, 10)]}]}
    model = build_model(parse_puzzle(doc))
    assert rule_rows_outlast(model, 1e-3) and not rule_rows_outlast(model, 1e-3, HANDLED_KINDS)
    assert get_solver("dfsrules").rows_not_built == HANDLED_KINDS and not get_solver("sat").rows_not_built
    # the search starts (its first slice ends in a solution before the limit is looked at)
    assert get_solver("dfsrules").solve(model, time_limit=1e-3).status == "optimal"


def _iss_automata() -> list[dict]:
    if not ISS_COLLECTION.is_file():
        pytest.skip(f"{ISS_COLLECTION} is absent (../shared is not beside the project)")
    return [json.loads(line) for line in ISS_COLLECTION.read_text().splitlines()
            if ".NFA~" in line or ".Regex~" in line]


def test_iss_automaton_puzzles_it_takes_solve_to_the_published_grid():
    taken = 0
    for entry in _iss_automata():
        puzzle = parse_puzzle(entry["input"])
        model = build_model(puzzle)
        if model_problem(model) is not None:
            continue
        taken += 1
        result = get_solver("dfsrules").solve(model, time_limit=60)
        assert residual(model, result.x) <= 1e-9, entry["name"]
        values = np.asarray(puzzle.board.value_of)[np.asarray(result.grid).reshape(-1) - 1]
        assert "".join(str(int(v)) for v in values) == entry["solution"], entry["name"]
    assert taken >= 10
