"""The ``dfsrules`` kernel's skyscraper handler (pipeline/solvers/dfsrules_handlers.py
``_skyscraper``): the rule's rows reach auxiliary columns the search does not hold, so the
handler alone must hold the rule. Its counts (to 2) and grids equal the SAT engine's (which
reads the rows) on random skyscraper puzzles: true clues, few clues (several solutions) and lies
(none), 4x4 to 9x9, on ``1..N`` and on ``0..N-1`` (a 0 is no skyscraper); ``auto`` now picks it,
its answer's vector meets the model's rows, auxiliary columns included; and ISS's published
skyscraper puzzles it takes solve to their published solutions."""
from __future__ import annotations


import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.core.build import build_model
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import residual, verify_grid
from pipeline.solvers import SOLVERS, get_solver
from pipeline.solvers import dfsrules
from pipeline.solvers.auto import pick_solver
from pipeline.solvers.dfsrules_lines import skyscraper_problem
from dfsrules_agree import agree_with_sat, iss_entry_params, solves_iss_entry

pytest.importorskip("pysat")
if SOLVERS["dfsrules"].available() is not None:
    pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}", allow_module_level=True)

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SMALL = [(4, 2, 2), (6, 2, 3)]


def _seen(line: list[int], low: int) -> int:
    """Skyscrapers seen along ``line`` (the rule's meaning: taller than every one before, and of a
    value above ``low``), written from the rule's text."""
    count, tallest = 0, None
    for value in line:
        if tallest is None or value > tallest:
            count += value > low
            tallest = value
    return count


@st.composite
def skyscraper_documents(draw, shapes=tuple(SMALL), lies: bool = True, least_givens: int = 0,
                         zero: bool = False, least_clues: int = 1) -> dict:
    """A solution grid (a pattern shuffled), skyscraper clues seen from some ends of its rows and
    columns (one of them a lie now and then) and some of its digits as givens; ``zero``: values
    ``0..N-1``."""
    n, br, bc = draw(st.sampled_from(shapes))
    values = list(range(n)) if zero else list(range(1, n + 1))
    relabel = draw(st.permutations(values))
    bands = draw(st.permutations(range(n // br)))
    rows = [band * br + r for band in bands for r in draw(st.permutations(range(br)))]
    stacks = draw(st.permutations(range(n // bc)))
    cols = [stack * bc + c for stack in stacks for c in draw(st.permutations(range(bc)))]
    grid = [[relabel[(bc * (r % br) + r // br + c) % n] for c in cols] for r in rows]
    lines = {}
    for r in range(n):
        lines[f"r{r + 1}c0"] = grid[r]
        lines[f"r{r + 1}c{n + 1}"] = grid[r][::-1]
    for c in range(n):
        column = [grid[r][c] for r in range(n)]
        lines[f"r0c{c + 1}"] = column
        lines[f"r{n + 1}c{c + 1}"] = column[::-1]
    low = 0 if zero else -1
    chosen = draw(st.lists(st.sampled_from(sorted(lines)), min_size=least_clues, max_size=2 * n, unique=True))
    rules = [{"rule": "skyscraper", "clue": clue, "count": _seen(lines[clue], low)} for clue in chosen]
    if lies and rules and draw(st.booleans()):
        lie = draw(st.integers(0, len(rules) - 1))
        rules[lie]["count"] = draw(st.integers(1, n))
    cells = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=least_givens,
                          max_size=max(2 * n, least_givens), unique=True))
    givens = [f"r{r + 1}c{c + 1}={grid[r][c]}" for r, c in cells]
    doc = {"size": n, "box": f"{br}x{bc}", "rules": rules, "givens": givens}
    if zero:
        doc["values"] = values
    return doc


def _agree(doc: dict, cap: int = 2) -> None:
    """:func:`dfsrules_agree.agree_with_sat` on the document, when it reads."""
    try:
        puzzle = parse_puzzle(doc)
    except PuzzleError:
        return
    agree_with_sat(puzzle, cap, where=doc)


@SETTINGS
@given(doc=skyscraper_documents())
def test_skyscraper_puzzles_count_as_the_sat_engine(doc):
    _agree(doc)


@settings(SETTINGS, max_examples=40)
@given(doc=skyscraper_documents(zero=True))
def test_skyscrapers_on_values_from_0_count_as_the_sat_engine(doc):
    """Values ``0..N-1`` (ISS's 0-indexed Skyscraper): a 0 is no skyscraper, never counted."""
    _agree(doc)


@settings(SETTINGS, max_examples=20)
@given(doc=skyscraper_documents(shapes=((9, 3, 3),), least_givens=20, least_clues=6))
def test_9x9_skyscraper_puzzles_count_as_the_sat_engine(doc):
    _agree(doc)


def test_a_generated_9x9_solves_as_the_sat_engine_and_auto_picks_dfsrules():
    """The puzzles ``generate`` makes with skyscraper clues (unique), with half their givens
    gone (several solutions) and with a clue changed (none, or others)."""
    from pipeline.tools.generate.puzzles import generate

    for made in generate(size=9, count=2, seed=11, rules=[{"rule": "skyscraper"}]):
        puzzle = made.puzzle
        model = build_model(puzzle)
        pick = pick_solver("unique", model)
        assert pick.name == "dfsrules", pick.reason
        got, want = get_solver("dfsrules").solve(model, check_unique=True), get_solver("sat").solve(model, check_unique=True)
        assert (got.status, got.unique) == (want.status, want.unique) == ("optimal", True)
        assert np.array_equal(got.grid, want.grid) and verify_grid(got.grid, puzzle).ok
        assert residual(model, got.x) <= 1e-9   # the auxiliary columns (each cell seen) included
        doc = puzzle.to_document()
        given = [i for i, ch in enumerate(doc["givens"]) if ch != "."]
        fewer = list(doc["givens"])
        for i in given[::2]:
            fewer[i] = "."
        _agree({**doc, "givens": "".join(fewer)})
        rules = [dict(rule) for rule in doc["rules"]]
        rules[0]["count"] = rules[0]["count"] % 9 + 1
        _agree({**doc, "rules": rules})


def test_the_handler_takes_the_rows_place():
    """The skyscraper's rows are not in the kernel's linear rows; its lines and clues are."""
    doc = {"size": 4, "box": "2x2", "rules": [{"rule": "skyscraper", "clue": "r1c0", "count": 2},
                                              {"rule": "skyscraper", "clue": "r5c2", "count": 3}]}
    tables = dfsrules.rule_tables(parse_puzzle(doc))
    assert tables.n_lin == 0 and tables.n_pairs == 0 and tables.n_sky == 2
    rint = tables.rint
    cells, clues = rint[rint[38]:rint[38] + 8], rint[rint[39]:rint[39] + 2]
    assert cells.tolist() == [0, 1, 2, 3, 13, 9, 5, 1] and clues.tolist() == [2, 3]


def test_the_rule_is_held_on_one_line():
    """A 4-cell line seen 4 from its left must read 1 2 3 4, seen 1 must start with the 4; a
    clue of 2 with a 4 first is refuted."""
    doc = {"size": 4, "box": "2x2", "rules": [{"rule": "skyscraper", "clue": "r1c0", "count": 4},
                                              {"rule": "skyscraper", "clue": "r0c1", "count": 1}]}
    # r1c1 is 1 (its row seen 4) and 4 (its column seen 1): no grid
    assert get_solver("dfsrules").count(build_model(parse_puzzle(doc)), 2).count == 0
    lie = {"size": 4, "box": "2x2", "givens": ["r1c1=4"], "rules": [{"rule": "skyscraper", "clue": "r1c0", "count": 2}]}
    assert get_solver("dfsrules").count(build_model(parse_puzzle(lie)), 2).count == 0
    row = {"size": 4, "box": "2x2", "rules": [{"rule": "skyscraper", "clue": "r1c0", "count": 4}]}
    model = build_model(parse_puzzle(row))
    found = get_solver("dfsrules").count(model, 2)
    assert found.count == 2 and all(g[0].tolist() == [1, 2, 3, 4] for g in found.grids)


def test_other_skyscraper_puzzles_are_refused_in_one_line():
    """The handler takes lines of the grid's ``n`` cells on ``n`` values; anything else is refused
    by name (``auto`` then takes the SAT engine)."""
    rule = type("R", (), {"kind": "skyscraper", "cell_list": (0, 1, 2), "value": 2})()
    short = type("P", (), {"n": 4, "n_values": 4, "rules": (rule,)})()
    wide = type("P", (), {"n": 3, "n_values": 4, "rules": (rule,)})()
    assert skyscraper_problem(short) == "dfsrules takes skyscraper clues over lines of 4 cells, and a clue sees fewer"
    assert skyscraper_problem(wide) == "dfsrules takes skyscraper clues on 3 values, found 4"
    fine = type("P", (), {"n": 3, "n_values": 3, "rules": (rule,)})()
    assert skyscraper_problem(fine) is None


@pytest.mark.parametrize("entry", iss_entry_params(".Skyscraper~"))
def test_iss_skyscraper_entries_it_takes_solve_to_their_solution(entry):
    solves_iss_entry(entry)
