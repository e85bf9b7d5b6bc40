"""The ``dfsrules`` kernel's handlers together: skyscraper clues, lunchboxes, counting circles,
count-distinct clues and sum lines each pack tables behind their own header slots of ``rint`` and
take scratch in ``work`` at offsets the kernel's ``propagate`` computes one after another, each
handler tested alone (test_dfsrules_skyscraper.py, _lunchbox, _counting, _sumline). A puzzle that
holds several of them at once, with other rules (thermo, kropki, killer cages, arrows, sandwich)
beside, is where a wrong offset, an overlapping scratch region or a header slot taken for another
would show. On generated 4x4, 6x6 and 9x9 puzzles drawing two to five of the handled kinds and up
to three others: counts to 2 equal the SAT engine's (which reads every rule's rows), the grids
too when fewer, and the answer's vector keeps every row of the model; as generated (one
solution), with half the givens or half the rules gone (several), and with one clue or total
changed (often none). And the kernel writes nothing past :attr:`RuleTables.work_size`: the
search runs with a band of marked entries between the scratch that size counts and the tail of
``work`` the kernel finds from its end (the pointing memo, the rows' shares, the conflict scores),
and the band stays as it was."""
from __future__ import annotations

import json

import numpy as np
import pytest

from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import residual, verify_grid
from pipeline.solvers import SOLVERS, dfsrules, get_solver
from pipeline.solvers.dfsrules import RuleTables, model_problem
from pipeline.tools.generate.puzzles import generate

pytest.importorskip("pysat")
if SOLVERS["dfsrules"].available() is not None:
    pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}", allow_module_level=True)

#: The kinds the kernel handles itself, and others drawn beside them.
HANDLED = ("skyscraper", "lunchbox", "sumline", "countingcircles", "countdistinct")
OTHERS = ("thermo", "kropki", "cage", "arrow", "sandwich")
#: The kinds whose clue or total a variant changes, and the field.
CHANGED_FIELD = {"skyscraper": "count", "lunchbox": "sum", "sumline": "sum"}


def _kinds(seed: int) -> list[str]:
    """Two to five handled kinds and up to three others, from ``seed`` alone."""
    rng = np.random.default_rng(seed)
    handled = rng.choice(HANDLED, size=int(rng.integers(2, len(HANDLED) + 1)), replace=False).tolist()
    return handled + rng.choice(OTHERS, size=int(rng.integers(0, 4)), replace=False).tolist()


def _copy(doc: dict) -> dict:
    return json.loads(json.dumps(doc))


def _changed(doc: dict, rule: dict, rng) -> dict:
    """``doc`` with ``rule``'s clue or total moved to another value the rule's reader takes."""
    field = CHANGED_FIELD[rule["rule"]]
    old = int(rule[field])
    tries = [old % doc["size"] + 1] if field == "count" else (
        [old % 30 + 1] if rule["rule"] == "sumline" else [old + 1, old - 1, 0])
    changed = _copy(doc)
    at = doc["rules"].index(rule)
    for new in tries:
        changed["rules"][at][field] = new
        try:
            parse_puzzle(changed)
        except Exception:   # a lunchbox's sum above what its cells can hold
            continue
        return changed
    raise AssertionError(f"no other value for {rule}")   # pragma: no cover (0 is always read)


def variants(doc: dict, rng) -> list[dict]:
    """The generated puzzle; with half its givens gone; with half its rules gone; with one
    clue or total changed; and with that change and half the other rules gone."""
    out = [doc]
    givens = list(doc.get("givens", ""))
    shown = [i for i, ch in enumerate(givens) if ch != "."]
    if shown:
        for i in rng.choice(shown, size=len(shown) // 2, replace=False).tolist():
            givens[i] = "."
        out.append({**_copy(doc), "givens": "".join(givens)})
    rules = doc["rules"]
    half = sorted(rng.choice(len(rules), size=len(rules) // 2, replace=False).tolist())
    out.append({**_copy(doc), "rules": [rules[k] for k in half]})
    can = [rule for rule in rules if rule["rule"] in CHANGED_FIELD]
    if can:
        rule = can[int(rng.integers(len(can)))]
        changed = _changed(doc, rule, rng)
        out.append(changed)
        at = rules.index(rule)
        out.append({**changed, "rules": [changed["rules"][k] for k in sorted(set(half) | {at})]})
    return out


def agree(doc: dict, cap: int = 2) -> int:
    """dfsrules' count to ``cap`` equals the SAT engine's; with fewer than ``cap`` solutions the
    grids are the same; every grid verifies, and so does the vector of dfsrules' answer. Returns
    the count."""
    puzzle = parse_puzzle(doc)
    model = build_model(puzzle)
    assert model_problem(model) is None, json.dumps(doc)
    got, want = get_solver("dfsrules").count(model, cap), get_solver("sat").count(model, cap)
    assert (got.count, got.status) == (want.count, want.status), json.dumps(doc)
    if got.count < cap:
        assert sorted(g.tobytes() for g in got.grids) == sorted(g.tobytes() for g in want.grids), json.dumps(doc)
    for grid in got.grids:
        assert verify_grid(grid, puzzle).ok, json.dumps(doc)
    if got.count:
        result = get_solver("dfsrules").solve(model)
        assert residual(model, result.x) <= 1e-9, json.dumps(doc)
    return got.count


def mixed(size: int, seeds) -> list[tuple[int, dict]]:
    """One generated puzzle per seed, with the kinds :func:`_kinds` draws for it."""
    return [(seed, next(generate(size=size, count=1, seed=seed, rules=[{"rule": k} for k in _kinds(seed)]))
             .puzzle.to_document()) for seed in seeds]


@pytest.mark.parametrize("size,seeds", [(4, range(0, 40)), (6, range(100, 125)), (9, range(201, 207))])
def test_mixed_handled_kinds_count_as_the_sat_engine(size, seeds):
    counts = set()
    together = 0
    for seed, doc in mixed(size, seeds):
        present = {rule["rule"] for rule in doc["rules"]} & set(HANDLED)
        together += len(present) >= 2
        rng = np.random.default_rng(seed)
        first, *rest = variants(doc, rng)
        assert agree(first) == 1
        counts.update(min(agree(v), 2) for v in rest)
    assert together >= len(seeds) // 2   # most puzzles hold several handled kinds at once
    assert counts == {0, 1, 2}            # contradictions, unique and several were all reached


#: Entries of marked scratch between what work_size counts and the kernel's tail of ``work``.
_BAND = 512
_MARK = -0x5EED


@pytest.fixture
def banded(monkeypatch):
    """:meth:`RuleTables.scratch` with :data:`_BAND` marked entries between the scratch
    :attr:`RuleTables.work_size` counts and the tail the kernel finds from ``work``'s end (the
    pointing memo when pointing can apply, the stack rows' shares, the conflict scores with their
    count); each array made, where its band starts and the houses its pointing memo has rows
    for (0: no memo) are kept. The first slice of a search is
    one node, so the tables a search that lasts takes (support lookup, pointing with its memo,
    exclusion groups) are in use from the second on."""
    made = []
    plain = RuleTables.scratch

    def scratch(self, units):
        work = plain(self, units)
        n_cells = self.n * self.n
        tail = 2 * (n_cells + 1) + (1 + (n_cells + 1) * self.n_units if self.n_units else 0)
        front = work.size - tail
        out = np.concatenate([work[:front], np.full(_BAND, _MARK, dtype=np.int64), work[front:]])
        made.append((out, front, self.n_units))
        return out

    monkeypatch.setattr(RuleTables, "scratch", scratch)
    monkeypatch.setattr(dfsrules, "SLICE_NODES", 1)
    return made


#: Kinds that put each of the last five regions last: the global mod windows', the hidden skyscrapers',
#: the sum lines', the counting rules' (present only with such rules), the lunchboxes' (always there).
_LAST = {"sumline": ["skyscraper", "lunchbox", "countdistinct", "countingcircles", "sumline", "thermo", "cage"],
         "counting": ["skyscraper", "lunchbox", "countdistinct", "countingcircles", "kropki", "arrow"],
         "lunchbox": ["skyscraper", "lunchbox", "sandwich", "thermo"],
         "hiddenskyscraper": ["hiddenskyscraper", "skyscraper", "lunchbox", "sumline", "kropki"],
         "globalmod": ["globalmod", "hiddenskyscraper", "lunchbox", "kropki"]}


@pytest.mark.parametrize("last", sorted(_LAST))
@pytest.mark.parametrize("size,seeds", [(4, range(300, 306)), (6, range(400, 403)), (9, range(500, 502))])
def test_the_kernel_writes_no_scratch_past_work_size(banded, size, seeds, last):
    """The kernel's regions come in a fixed order (skyscrapers, lunchboxes, counting rules, sum
    lines, automaton lines, hidden skyscrapers, windows), those after the lunchboxes only when present: an
    overrun of the last one present (each in turn here, but the automaton lines') lands in the band."""
    if last == "globalmod" and size == 4:
        pytest.skip("no 4x4 grid has a digit of each remainder mod 3 in every 2x2 window")
    for seed in seeds:
        doc = next(generate(size=size, count=1, seed=seed, rules=[{"rule": k} for k in _LAST[last]])).puzzle.to_document()
        kinds = {rule["rule"] for rule in doc["rules"]}
        assert ("globalmod" if "globalmod" in kinds else "hiddenskyscraper" if "hiddenskyscraper" in kinds else "sumline" if "sumline" in kinds else "counting" if kinds & {"countingcircles", "countdistinct"}
                else "lunchbox") == last
        for v in variants(doc, np.random.default_rng(seed)):
            before = len(banded)
            agree(v)
            assert len(banded) > before
            for work, front, _ in banded[before:]:
                band = work[front:front + _BAND]
                assert (band == _MARK).all(), (json.dumps(v), np.flatnonzero(band != _MARK)[:5].tolist())
    assert any(houses for _, _, houses in banded)   # a memo after the band was in reach
