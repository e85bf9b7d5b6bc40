"""The skyscraper clues' seen, hidden and low rows as clauses over a running maximum for the SAT
engine (pipeline/core/clauses_skyscraper.py): the same counts and grids as the rows' own
encodings on random 4x4, 6x6 and 9x9 puzzles (values 1..N, 0-based, and a set with two values
below 1) and on 4x4 latin squares of 1..6 and ISS's 'Buy Or Rent? (Skyscraper Version)' (a 7x7 of
1..9: more values than the side), ISS's 'Skyscraper - all 5' within a conflict budget the rows
could not meet, and a CNF written without the switch reads as the rows."""
from __future__ import annotations

import json

import numpy as np
import pytest

from pipeline.core import clauses_rules, clauses_skyscraper
from pipeline.core.build import build_model
from pipeline.core.clauses_skyscraper import skyscraper_clauses
from pipeline.core.iss import document_from_iss
from pipeline.core.puzzle import parse_puzzle
from sat_equivalence import assert_cnf_before_switch_reads, assert_counts_alike, cadical_within, iss_entry

pytest.importorskip("pysat.solvers")

BOX = {4: "2x2", 6: "2x3", 9: "3x3"}




def _solution(n: int, rng: np.random.Generator) -> np.ndarray:
    """A random ``n x n`` sudoku (boxes of :data:`BOX`), its digit indices 0..n-1 permuted."""
    h, w = (int(v) for v in BOX[n].split("x"))
    base = np.array([[(w * (r % h) + r // h + c) % n for c in range(n)] for r in range(n)])
    return rng.permutation(n)[base]


def _seen(line: np.ndarray, values: list[int]) -> int:
    """The skyscrapers seen along ``line`` (digit indices): taller than all before, value above 0."""
    before = np.concatenate([[-1], np.maximum.accumulate(line)[:-1]])
    return int(np.count_nonzero((line > before) & (np.asarray(values)[line] > 0)))


def _puzzle(n: int, seed: int) -> dict:
    """A random skyscraper puzzle: 1-4 clues read off a random grid (one in four off by one), a
    value set by seed (1..N, 0..N-1, or on 4x4 one with two values below 1), a few givens."""
    rng = np.random.default_rng(seed)
    grid = _solution(n, rng)
    values = [list(range(1, n + 1)), list(range(n)), [-1, 0, 2, 5] if n == 4 else list(range(n))][seed % 3]
    rules = []
    for _ in range(int(rng.integers(1, 5))):
        i, side = int(rng.integers(1, n + 1)), int(rng.integers(4))
        clue = [f"r{i}c0", f"r{i}c{n + 1}", f"r0c{i}", f"r{n + 1}c{i}"][side]
        line = [grid[i - 1], grid[i - 1, ::-1], grid[:, i - 1], grid[::-1, i - 1]][side]
        count = _seen(line, values) + (int(rng.choice([-1, 1])) if rng.random() < 0.25 else 0)
        rules.append({"rule": "skyscraper", "clue": clue, "count": max(count, 0)})
    shown = rng.random(n * n) < {4: 0.1, 6: 0.3, 9: 0.45}[n]
    doc = {"size": n, "box": BOX[n], "values": values, "rules": rules}
    if values[0] >= 0:
        doc["givens"] = "".join(str(values[v]) if s else "." for v, s in zip(grid.ravel(), shown))
    return doc


@pytest.mark.parametrize("clues", ["rows", "reduce"])
@pytest.mark.parametrize("n,seed", [(4, s) for s in range(12)] + [(6, 100 + s) for s in range(6)]
                         + [(9, 200 + s) for s in range(6)])
def test_random_puzzles_count_as_the_rows_grid_for_grid(n, seed, clues, monkeypatch):
    assert_counts_alike(_puzzle(n, seed), clues,
                        lambda: monkeypatch.setattr(clauses_skyscraper, "SKYSCRAPERS", False))


def test_the_seen_hidden_and_low_rows_are_replaced_and_no_others():
    model = build_model(parse_puzzle(json.dumps(_puzzle(4, 2))))
    made = skyscraper_clauses(model, 1000, view=True)
    labels = np.array(["skyscraper_1", "skyscraperseen_1_2_1", "skyscraperhidden_1_3_2_4", "skyscraperlow_1_2",
                       "hiddenskyscraper_1", "cagesum_1"])
    assert made.clauses and made.n_aux > 0
    assert made.keep_rows(labels).tolist() == [True, False, False, False, True, True]
    assert skyscraper_clauses(build_model(parse_puzzle(".Cage~5~R1C1~R1C2")), 1000, view=True).clauses == []


def test_skyscraper_all_5_is_solved_within_a_conflict_budget():
    # CaDiCaL: 23,519 conflicts with the rows' PB encodings, 6,171 with the running maxima
    model = build_model(parse_puzzle(iss_entry("Skyscraper - all 5")))
    assert cadical_within(model, 12_000) is True


def test_a_cnf_without_the_key_reads_as_the_rows(tmp_path, monkeypatch):
    """``encodings`` without ``skyscrapers`` encodes the rows; a file written before the switch
    (no such key) reads, with more clauses than one written with it."""
    model = build_model(parse_puzzle(iss_entry("4x6: Skyscraper")))
    off = clauses_rules.rule_clauses(model, model.convention.n_vars, "pairwise", view=True,
                                     encodings={k: True for k in clauses_rules.ENCODING_KEYS if k != "skyscrapers"})
    def between():
        rows = clauses_rules.rule_clauses(model, model.convention.n_vars, "pairwise", view=True)
        assert off.tokens.tolist() == rows.tokens.tolist()

    assert_cnf_before_switch_reads(tmp_path, monkeypatch, model, clauses_skyscraper, "SKYSCRAPERS", "skyscrapers", between=between)


def _wide_puzzle(seed: int) -> dict:
    """A random 4x4 latin square of 1..6 (each row and column four distinct values of six),
    4-9 skyscraper clues read off it (one in ten off by one), most cells given."""
    rng = np.random.default_rng(seed)
    latin = (np.arange(4)[:, None] + np.arange(4)[None, :]) % 4
    grid = rng.choice(6, 4, replace=False)[latin[rng.permutation(4)][:, rng.permutation(4)]]
    values = list(range(1, 7))
    rules, shown = [], rng.random((4, 4)) < 0.85
    for _ in range(int(rng.integers(4, 10))):
        i, side = int(rng.integers(1, 5)), int(rng.integers(4))
        clue = [f"r{i}c0", f"r{i}c5", f"r0c{i}", f"r5c{i}"][side]
        line = [grid[i - 1], grid[i - 1, ::-1], grid[:, i - 1], grid[::-1, i - 1]][side]
        count = min(max(_seen(line, values) + (int(rng.choice([-1, 1])) if rng.random() < 0.1 else 0), 1), 4)
        if count != _seen(line, values):   # an off clue's line shows no givens (else refused)
            shown[(i - 1, slice(None)) if side < 2 else (slice(None), i - 1)] = False
        rules.append({"rule": "skyscraper", "clue": clue, "count": count})
    givens = "".join(str(v + 1) if s else "." for v, s in zip(grid.ravel(), shown.ravel()))
    return {"size": 4, "variant": "latin", "values": values, "givens": givens, "rules": rules}


@pytest.mark.parametrize("clues", ["rows", "reduce"])
@pytest.mark.parametrize("seed", range(300, 316))
def test_more_values_than_the_side_count_as_the_rows(seed, clues, monkeypatch):
    doc = _wide_puzzle(seed)
    assert skyscraper_clauses(build_model(parse_puzzle(json.dumps(doc))), 1000, view=True).clauses
    assert_counts_alike(doc, clues,
                        lambda: monkeypatch.setattr(clauses_skyscraper, "SKYSCRAPERS", False))


def test_buy_or_rent_gets_the_running_maxima_and_counts_as_the_rows(monkeypatch):
    """A 7x7 of 1..9 (more values than its side): the clues are encoded, over all nine digits,
    and the entry counts as with the rows (one grid, the same)."""
    model = build_model(parse_puzzle(iss_entry("Buy Or Rent? (Skyscraper Version)")))
    made = skyscraper_clauses(model, 10_000, view=True)
    assert made.clauses and made.n_aux == 10 * 6 * 8   # ten clues, six places after the first, 8 levels
    assert_counts_alike(document_from_iss(iss_entry("Buy Or Rent? (Skyscraper Version)")), "rows",
                        lambda: monkeypatch.setattr(clauses_skyscraper, "SKYSCRAPERS", False))
