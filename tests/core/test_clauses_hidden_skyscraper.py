"""The hidden skyscraper clues' taller and rise rows as clauses over a suffix "or" for the SAT
engine (pipeline/core/clauses_hidden_skyscraper.py): the same counts and grids as the rows' own
encodings on random 4x4, 6x6 and 9x9 puzzles (values 1..N and 0..N-1), ISS's 'Hidden Skyscraper -
Full Odd' within a conflict budget the rows could not meet, and a CNF written without the switch
reads as the rows."""
from __future__ import annotations


import numpy as np
import pytest

from pipeline.core import clauses_hidden_skyscraper, clauses_rules
from pipeline.core.build import build_model
from pipeline.core.clauses_hidden_skyscraper import hidden_skyscraper_clauses
from pipeline.core.puzzle import parse_puzzle
from sat_equivalence import assert_cnf_before_switch_reads, assert_counts_alike, cadical_within, iss_entry

pytest.importorskip("pysat.solvers")

BOX = {4: "2x2", 6: "2x3", 9: "3x3"}




def _puzzle(n: int, seed: int) -> dict:
    """A random hidden skyscraper puzzle: 2-6 distinct clues read off a random sudoku (the first hidden
    digit from the clue; one in six another digit), values 1..N or 0..N-1 by seed, givens off the
    clued lines more often than on them."""
    rng = np.random.default_rng(seed)
    h, w = (int(v) for v in BOX[n].split("x"))
    base = np.array([[(w * (r % h) + r // h + c) % n for c in range(n)] for r in range(n)])
    grid = rng.permutation(n)[base]
    grid = grid[np.concatenate([rng.permutation(h) + h * b for b in rng.permutation(n // h)])]
    values = [list(range(1, n + 1)), list(range(n))][seed % 2]
    rules, shown = [], rng.random((n, n)) < {4: 0.25, 6: 0.45, 9: 0.55}[n]
    for pick in rng.choice(4 * n, int(rng.integers(2, 7)), replace=False):   # distinct clues
        i, side = int(pick) % n + 1, int(pick) // n
        clue = [f"r{i}c0", f"r{i}c{n + 1}", f"r0c{i}", f"r{n + 1}c{i}"][side]
        line = [grid[i - 1], grid[i - 1, ::-1], grid[:, i - 1], grid[::-1, i - 1]][side]
        hidden = np.flatnonzero(line[1:] < np.maximum.accumulate(line)[:-1])
        if not hidden.size:
            continue
        digit = int(line[hidden[0] + 1])
        if rng.random() < 1 / 6:   # another digit: the line shows no givens (else refused)
            digit = int(rng.choice(np.delete(np.arange(n), digit)))
            shown[(i - 1, slice(None)) if side < 2 else (slice(None), i - 1)] = False
        rules.append({"rule": "hiddenskyscraper", "clue": clue, "digit": values[digit]})
    givens = "".join(str(values[v]) if s else "." for v, s in zip(grid.ravel(), shown.ravel()))
    return {"size": n, "box": BOX[n], "values": values, "givens": givens, "rules": rules}


@pytest.mark.parametrize("clues", ["rows", "reduce"])
@pytest.mark.parametrize("n,seed", [(4, s) for s in range(12)] + [(6, 100 + s) for s in range(8)]
                         + [(9, 200 + s) for s in range(8)])
def test_random_puzzles_count_as_the_rows_grid_for_grid(n, seed, clues, monkeypatch):
    assert_counts_alike(_puzzle(n, seed), clues,
                        lambda: monkeypatch.setattr(clauses_hidden_skyscraper, "HIDDEN_SKYSCRAPERS", False))


def test_the_taller_and_rise_rows_are_replaced_and_no_others():
    model = build_model(parse_puzzle(iss_entry("Hidden skyscrapers")))
    made = hidden_skyscraper_clauses(model, 1000, view=True)
    labels = np.array(["hiddenskyscraper_1", "hiddenskyscrapertaller_1_2", "hiddenskyscraperrise_1_3_2",
                       "skyscraperhidden_1_3_2_4", "cagesum_1"])
    assert made.clauses and made.n_aux > 0
    assert made.keep_rows(labels).tolist() == [True, False, False, True, True]
    assert hidden_skyscraper_clauses(build_model(parse_puzzle(".Cage~5~R1C1~R1C2")), 1000, view=True).clauses == []


def test_hidden_skyscraper_full_odd_is_solved_within_a_conflict_budget():
    # CaDiCaL: 6,597 conflicts with the rows' PB encodings, 1,590 with the suffix "or"
    model = build_model(parse_puzzle(iss_entry("Hidden Skyscraper - Full Odd")))
    assert cadical_within(model, 3_000) is True


def test_a_cnf_without_the_key_reads_as_the_rows(tmp_path, monkeypatch):
    """``encodings`` without ``hidden_skyscrapers`` encodes the rows; a file written before the
    switch (no such key) reads, with more clauses than one written with it."""
    model = build_model(parse_puzzle(iss_entry("Hidden skyscrapers")))
    off = clauses_rules.rule_clauses(model, model.convention.n_vars, "pairwise", view=True,
                                     encodings={k: True for k in clauses_rules.ENCODING_KEYS
                                                if k != "hidden_skyscrapers"})
    def between():
        rows = clauses_rules.rule_clauses(model, model.convention.n_vars, "pairwise", view=True)
        assert off.tokens.tolist() == rows.tokens.tolist()

    assert_cnf_before_switch_reads(tmp_path, monkeypatch, model, clauses_hidden_skyscraper, "HIDDEN_SKYSCRAPERS", "hidden_skyscrapers", between=between)
