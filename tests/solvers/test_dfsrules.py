"""The ``dfsrules`` engine (pipeline/solvers/dfsrules.py): the dfs search with the rule rows
propagated inside it. Its counts equal the SAT engine's on random rule puzzles of every family
(random_puzzles' cages, thermometers, Kropki, greater-than, parity and the global rules; random
lines of every line rule; the published variants), every grid it returns verifies, ``solve``
proves uniqueness by counting to 2, and a model it cannot take (a layout, auxiliary columns) is
refused with one line while ``auto`` passes it to the SAT engine."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "core"))   # random_puzzles, rule_oracle

from random_puzzles import SINGLE, puzzle_documents  # noqa: E402
from pipeline.core.build import build_model  # noqa: E402
from pipeline.core.errors import PuzzleError, SolveError  # noqa: E402
from pipeline.core.puzzle import parse_puzzle  # noqa: E402
from pipeline.core.verify import verify_grid  # noqa: E402
from pipeline.solvers import SOLVERS, dfsrules_native, get_solver  # noqa: E402
from pipeline.solvers.auto import pick_solver  # noqa: E402
from pipeline.solvers.dfsrules import _build_rule_tables, model_problem, rule_tables, search_model  # noqa: E402

pytest.importorskip("pysat")
if SOLVERS["dfsrules"].available() is not None:
    pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}", allow_module_level=True)

CAP = 5
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])
LINE_KINDS = ("arrow", "pillarrow", "doublearrow", "whisper", "renban", "palindrome", "between", "lockout",
              "entropic", "modular", "zipper", "regionsum")


def _agree(doc: dict, cap: int = CAP) -> int:
    """dfsrules' count of ``doc`` up to ``cap`` equals the SAT engine's; its grids verify; its
    ``solve`` says unique exactly when the count is one. Returns the count."""
    try:
        puzzle = parse_puzzle(doc)
    except PuzzleError:
        return -1
    model = build_model(puzzle)
    dfsrules, sat = get_solver("dfsrules"), get_solver("sat")
    got, want = dfsrules.count(model, cap), sat.count(model, cap)
    assert (got.count, got.status) == (want.count, want.status), doc
    assert len({g.tobytes() for g in got.grids}) == got.count
    for grid in got.grids:
        verdict = verify_grid(grid, puzzle)
        assert verdict.ok, (verdict.message, doc)
    solved = dfsrules.solve(model, check_unique=True)
    assert solved.solved == (want.count > 0)
    if solved.solved:
        assert solved.unique == (want.count == 1) and verify_grid(solved.grid, puzzle).ok
    return got.count


def test_a_limit_past_the_kernels_int64_counts_every_grid():
    # 2**63 wrapped to a negative limit in the kernel: the empty 4x4 was "1 (complete)", unique
    found = search_model(build_model(parse_puzzle("." * 16)), 2 ** 63, keep=1)
    assert (found.count, found.status) == (288, "complete")


@SETTINGS
@given(doc=puzzle_documents(shapes=SINGLE))
def test_random_rule_puzzles_count_as_the_sat_engine(doc):
    _agree(doc)


@st.composite
def line_documents(draw) -> dict:
    """A 4x4 or 6x6 with one or two random lines (a king's walk) and a few random givens."""
    n, box = draw(st.sampled_from([(4, "2x2"), (6, "2x3")]))
    rules = []
    for _ in range(draw(st.integers(1, 2))):
        kind = draw(st.sampled_from(LINE_KINDS))
        length = draw(st.integers(4 if kind == "pillarrow" else 3 if kind in ("between", "zipper", "doublearrow")
                                  else 2, 6))
        path = [draw(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)))]
        while len(path) < length:
            r, c = path[-1]
            steps = [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                     if 0 <= r + dr < n and 0 <= c + dc < n and (r + dr, c + dc) not in path]
            if not steps:
                break
            path.append(draw(st.sampled_from(steps)))
        rules.append({"rule": kind, "cells": [f"r{r + 1}c{c + 1}" for r, c in path]})
    cells = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=n, unique=True))
    givens = [f"r{r + 1}c{c + 1}={draw(st.integers(1, n))}" for r, c in cells]
    return {"size": n, "box": box, "rules": rules, "givens": givens}


@SETTINGS
@given(doc=line_documents())
def test_random_lines_count_as_the_sat_engine(doc):
    _agree(doc)


def _published() -> list[dict]:
    rows = [json.loads(line) for line in (ROOT / "tests" / "data" / "published" / "variants.jsonl").open()]
    return [row for row in rows if "hard" not in row["name"]]   # the hard ones: the bench's


@pytest.mark.parametrize("row", _published(), ids=lambda row: row["name"][:30])
def test_published_variants_are_unique_as_for_the_sat_engine(row):
    model = build_model(parse_puzzle(row["document"]))
    got = get_solver("dfsrules").count(model, 2, time_limit=3)
    if got.status == "time_limit":
        pytest.skip("beyond 3 s here (bench material)")
    assert got.count == get_solver("sat").count(model, 2).count


def test_rule_rows_become_pair_tables_bounds_and_start_candidates():
    doc = {"size": 4, "box": "2x2", "rules": [{"rule": "antiknight"}, {"rule": "even", "cells": ["r1c1"]},
                                              {"rule": "cage", "cells": ["r2c1", "r2c2", "r3c1"], "sum": 6}]}
    tables = _build_rule_tables(parse_puzzle(doc), implied=False)   # the rules' rows alone (no innies)
    assert tables.allowed[0] == 0b1010 and (tables.allowed[1:] == 0b1111).all()   # even: 2 or 4
    assert tables.n_lin == 1 and tables.n_terms == 3   # the cage's sum (its distinct digits: pairs)
    assert tables.n_pairs > 0 and not tables.infeasible


def test_a_pair_table_of_two_cells_in_one_unit_also_forbids_equal_digits():
    # X (sum 10) on r1c1-r1c2 alone allows 5 beside 5; the row forbids it, and the table says so, so
    # a 5 in r1c1 leaves r1c2 nothing (arc consistency over the rule and the unit together)
    doc = {"size": 9, "box": "3x3", "rules": [{"rule": "xv", "letter": "x", "cells": ["r1c1", "r1c2"]}]}
    tables = rule_tables(parse_puzzle(doc))
    forward = tables.compat[:2 * 9 * tables.n_pairs].reshape(tables.n_pairs, 2, 9)[:, 0]
    assert tables.n_pairs == 1
    assert [int(mask) for mask in forward[0]] == [1 << (8 - d) if d != 4 else 0 for d in range(9)]


def test_a_model_it_cannot_take_is_refused_and_auto_uses_the_sat_engine():
    samurai = build_model(parse_puzzle((ROOT / "examples" / "samurai.json").read_text()))
    reason = model_problem(samurai)
    assert reason and "layout" in reason and "\n" not in reason
    with pytest.raises(SolveError, match=r"^solver dfsrules: dfsrules does not take a samurai layout"):
        get_solver("dfsrules").solve(samurai)
    pick = pick_solver("unique", samurai)
    assert pick.name == "sat" and "dfsrules" in pick.reason and not pick.note


class _AuxRule:
    """A stand-in for a rule over auxiliary columns (pipeline.core.rules.auxcols.AuxRule)."""

    kind = "chaos"

    def aux_columns(self, board, index):   # pragma: no cover - never called
        return []


def test_a_rule_with_auxiliary_columns_is_refused():
    model = build_model(parse_puzzle((ROOT / "examples" / "killer.json").read_text()))
    assert model_problem(model) is None
    fake = type("M", (), {"puzzle": type("P", (), {"layout": None, "n": 9, "extra": (), "is_rect": False, "rules": (_AuxRule(),)})()})()
    assert model_problem(fake) == "dfsrules propagates rows over cell digits only, and chaos adds auxiliary columns"


def test_a_value_set_wider_than_the_grid_is_refused_by_the_module_functions_too():
    """The registry entry refused a puzzle whose units need not hold every value (5 values on a
    4x4), but ``model_problem`` let it by, so ``search_model`` (which benches call) failed deep in
    the unit tables with an untyped error. Both now give the registry's one line."""
    try:
        model = build_model(parse_puzzle({"size": 4, "box": "2x2", "values": "1-5"}))
    except PuzzleError:
        pytest.skip("this build reads no value set wider than the grid")
    reason = model_problem(model)
    assert reason and "\n" not in reason
    assert reason == SOLVERS["dfsrules"].problem_with(model) or SOLVERS["dfsrules"].available()
    with pytest.raises(SolveError, match=r"^solver dfsrules: "):
        search_model(model, 2)


def test_auto_picks_dfsrules_for_a_killer_and_dfs_stays_the_unit_engine():
    killer = build_model(parse_puzzle((ROOT / "examples" / "killer.json").read_text()))
    for question in ("solve", "unique", "count"):
        assert pick_solver(question, killer).name == "dfsrules", question
    classic = build_model(parse_puzzle("." * 81))
    assert pick_solver("unique", classic).name != "dfsrules"
    assert pick_solver("count", classic).name == "dfs"


def test_rules_that_contradict_each_other_give_no_solution():
    doc = {"size": 4, "box": "2x2", "rules": [{"rule": "greater", "cells": ["r1c1", "r1c2"]},
                                              {"rule": "greater", "cells": ["r1c2", "r1c1"]}]}
    model = build_model(parse_puzzle(doc))
    result = get_solver("dfsrules").count(model, 2)
    assert (result.count, result.status) == (0, "complete")
    assert not get_solver("dfsrules").solve(model, check_unique=True).solved


def test_rule_tables_are_built_once_for_a_shape_and_its_rules():
    """A puzzle with other clues (a batch group's records) reads the tables its template built:
    the same object, equal to tables built afresh."""
    from pipeline.core.puzzle import with_other_clues

    puzzle = parse_puzzle({"size": 4, "box": "2x2", "givens": ["r1c1=1"],
                           "rules": [{"rule": "antiknight"}, {"rule": "thermo", "cells": ["r2c1", "r2c2", "r2c3"]}]})
    template = with_other_clues(puzzle, np.zeros((4, 4), dtype=np.int64))
    tables = rule_tables(template)
    assert rule_tables(puzzle) is tables and rule_tables(with_other_clues(template, puzzle.grid)) is tables
    fresh = _build_rule_tables(parse_puzzle(puzzle.to_document()))
    for name in ("rint", "compat", "allowed"):
        assert np.array_equal(getattr(tables, name), getattr(fresh, name)), name


def _probed_agrees(doc: dict) -> None:
    """With the root probed from the start (``probe_after=0``) and never (None), dfsrules counts
    as the SAT engine does, and its grids verify."""
    from pipeline.solvers.dfsrules import search_model

    try:
        puzzle = parse_puzzle(doc)
    except PuzzleError:
        return
    model = build_model(puzzle)
    want = get_solver("sat").count(model, CAP).count
    for probe_after in (0, None):
        got = search_model(model, CAP, keep=CAP, probe_after=probe_after)
        assert got.count == want, (probe_after, doc)
        assert all(verify_grid(grid, puzzle).ok for grid in got.grids)


@SETTINGS
@given(doc=puzzle_documents(shapes=SINGLE))
def test_a_probed_root_counts_as_the_sat_engine(doc):
    _probed_agrees(doc)


@SETTINGS
@given(doc=line_documents())
def test_a_probed_root_counts_lines_as_the_sat_engine(doc):
    _probed_agrees(doc)


def test_the_probe_leaves_lockout_puzzles_a_fraction_of_the_nodes():
    """The bench's ten lockout puzzles: the same unique solution with the probe and without, in
    fewer nodes with it (the point of probing). With the fewest candidates first the probe left
    them under a quarter of the nodes; branching by conflicts per candidate from two candidates up
    (lockout's ``by_ratio`` 2) takes much of what it took (4,086 nodes without it, 2,158 with)."""
    from pipeline.solvers.dfsrules import search_model

    lines = (ROOT / "bench" / "dfsrules_set.jsonl").read_text().splitlines()
    docs = [json.loads(line)["document"] for line in lines if json.loads(line)["family"] == "lockout"]
    nodes = {None: 0, 300: 0}
    for doc in docs:
        model = build_model(parse_puzzle(doc))
        found = {after: search_model(model, 2, probe_after=after) for after in nodes}
        assert [f.count for f in found.values()] == [1, 1]
        assert np.array_equal(found[None].grids[0], found[300].grids[0])
        for after, f in found.items():
            nodes[after] += f.nodes
    assert nodes[300] * 3 < nodes[None] * 2, nodes


def test_conflict_scores_keep_the_non_consecutive_search_small():
    """The bench's ten non-consecutive puzzles (the set's costliest family): each unique, in fewer
    than 200,000 nodes together. Branching by the fewest candidates and rule relations alone took
    365,452; with the conflict scores as the first tie-break, 268,154; with pointing through pair
    relations too, 130,382."""
    from pipeline.solvers.dfsrules import search_model

    lines = (ROOT / "bench" / "dfsrules_set.jsonl").read_text().splitlines()
    docs = [json.loads(line)["document"] for line in lines if json.loads(line)["family"] == "non-consecutive"]
    assert len(docs) == 10
    nodes = 0
    for doc in docs:
        puzzle = parse_puzzle(doc)
        found = search_model(build_model(puzzle), 2)
        assert found.count == 1 and verify_grid(found.grids[0], puzzle).ok
        nodes += found.nodes
    assert nodes < 200_000, nodes


def test_the_support_lookup_is_the_or_of_each_pair_tables_rows():
    """Every arc's lookup entry for a candidate mask is the or of its table's rows for the mask's
    digits (what the kernel's loop computes), the distinct tables are shared, and a puzzle without
    pairs or above nine digits keeps its tables."""
    doc = {"size": 9, "box": "3x3", "rules": [{"rule": "nonconsecutive"}, {"rule": "antiknight"},
                                              {"rule": "xv", "letter": "x", "cells": ["r1c1", "r1c2"]}]}
    tables = rule_tables(parse_puzzle(doc))
    rint, compat = tables.with_support_lookup()
    assert rint[24] == 1 and tables.rint[24] == 0
    n_arcs, at = int(rint[4]), int(rint[7])
    before, after = tables.rint[at:at + n_arcs], rint[at:at + n_arcs]
    masks = np.arange(512, dtype=np.uint64)
    bits = (masks[:, None] >> np.arange(9, dtype=np.uint64)) & np.uint64(1)
    for table, offset in zip(before.tolist(), after.tolist()):
        rows = tables.compat[table * 9:table * 9 + 9]
        want = np.bitwise_or.reduce(np.where(bits == 1, rows[None, :], np.uint64(0)), axis=1)
        assert np.array_equal(compat[offset:offset + 512], want), table
    assert (compat.size - tables.compat.size) // 512 < n_arcs // 10   # shared: a handful of distinct tables
    assert np.array_equal(compat[:tables.compat.size], tables.compat)   # digit sets and sandwiches stay put
    for other in ({"size": 9, "box": "3x3", "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2", "r1c3"], "sum": 6}]},
                  {"size": 16, "box": "4x4", "rules": [{"rule": "antiknight"}]}):
        plain = rule_tables(parse_puzzle(other))
        assert plain.with_support_lookup() == (plain.rint, plain.compat), other


@SETTINGS
@given(doc=puzzle_documents(shapes=SINGLE))
def test_the_kernel_searches_the_same_tree_with_the_support_lookup(doc):
    """The whole search, from the same start, with the pair tables and with their lookup: the same
    solutions in the same order, after the same number of nodes."""
    from pipeline.solvers import dfsrules_native
    from pipeline.solvers.dfs import shape_tables, start_masks

    try:
        puzzle = parse_puzzle(doc)
    except PuzzleError:
        return
    shape, rules = shape_tables(puzzle), rule_tables(puzzle)
    n_cells = puzzle.n * puzzle.n
    kernel = dfsrules_native.load()
    runs = []
    for rint, compat in ((rules.rint, rules.compat), rules.with_support_lookup()):
        stack = np.zeros((n_cells + 1, n_cells), dtype=np.uint64)
        stack[0] = start_masks(np.asarray(puzzle.grid).reshape(1, n_cells), puzzle.n)[0] & rules.allowed
        flags = np.zeros((n_cells + 1, n_cells), dtype=np.bool_)
        found, tallies = np.zeros((CAP, n_cells), dtype=np.uint64), np.zeros(3, dtype=np.int64)
        work = rules.scratch(shape)
        depth = kernel.search(stack, flags, np.full(n_cells + 1, -1, dtype=np.int64), 1, found, tallies, shape,
                              rint, compat, CAP, 1 << 40, False, work, 0)
        assert depth == kernel.FINISHED
        runs.append((tallies.tolist(), found.tolist()))
    assert runs[0] == runs[1]


def test_the_branching_by_conflicts_per_candidate_finishes_a_zero_given_thermometer_puzzle():
    """'Bicycle race' (a published thermometer 9x9 with no givens): unique, in well under a million
    nodes with the branching by conflicts per candidate and houses' digits of two places (133,693
    measured); the fewest candidates alone were still searching after 16 million nodes."""
    from pipeline.solvers.dfsrules import BY_RATIO, search_model

    assert BY_RATIO
    row = next(r for r in _published() if r["name"] == "Bicycle race")
    puzzle = parse_puzzle(row["document"])
    found = search_model(build_model(puzzle), 2, time_limit=60)
    assert found.count == 1 and verify_grid(found.grids[0], puzzle).ok
    assert found.nodes < 1_000_000, found.nodes


def test_two_kinds_with_auxiliary_columns_are_named_in_the_plural_and_dfs_does_not_offer_dfsrules():
    from pipeline.core.errors import SolveError
    from pipeline.solvers import get_solver

    model = build_model(parse_puzzle({"size": 4, "variant": "latin", "givens": "12" + "." * 14, "rules": [
        {"rule": "chaos"}, {"rule": "fullrank", "clue": "r0c1", "rank": 1}]}))
    assert model_problem(model) == ("dfsrules propagates rows over cell digits only, and chaos, fullrank add "
                                    "auxiliary columns")
    with pytest.raises(SolveError) as refused:   # dfs named dfsrules, which then refused the puzzle
        get_solver("dfs").solve(model)
    assert "engines that do: " in str(refused.value) and "dfsrules" not in str(refused.value)
    antiking = build_model(parse_puzzle({"size": 4, "rules": [{"rule": "antiking"}]}))
    with pytest.raises(SolveError) as refused:
        get_solver("dfs").solve(antiking)
    assert str(refused.value).endswith(", dfsrules)")


#: A non-consecutive puzzle of five givens (the rule bench's slowest, tens of thousands of nodes):
#: a search of several slices.
NONCONSECUTIVE_FIVE = {"size": 9, "givens": "." * 15 + "7" + "." * 11 + "6" + "." * 8 + "4" + "." * 17 + "8"
                       + "." * 22 + "92..", "rules": [{"rule": "nonconsecutive"}]}


def test_the_search_reports_the_share_of_its_tree_searched():
    """``give_up`` hears, between slices, the share of the tree searched: within 0 and 1 and never
    falling (the restart from the probed root comes before the first question); a search told to
    stop ends as its time limit would, and one never told finds the same as without ``give_up``."""
    model = build_model(parse_puzzle(json.dumps(NONCONSECUTIVE_FIVE)))
    heard: list[float] = []

    def listen(found: int, spent: float, progress: float | None = None) -> bool:
        assert progress is not None
        heard.append(progress)
        return False

    found = search_model(model, 2, give_up=listen)
    assert (found.status, found.count) == ("complete", 1)
    assert found.count == search_model(model, 2).count and found.nodes > 10_000
    assert len(heard) >= 2 and all(0.0 <= p < 1.0 for p in heard) and heard == sorted(heard)
    assert heard[-1] > 0.1   # the last slices search most of the tree
    stopped = search_model(model, 2, give_up=lambda found, spent, progress=None: True)
    assert stopped.status == "time_limit" and stopped.nodes < found.nodes


@pytest.mark.parametrize("blanks", [120, 260])
def test_a_25x25_of_more_than_64_units_counts_as_the_sat_engine(blanks):
    # the kernel keeps its dirty units as a 64-bit mask up to 64 units and as flags beyond
    # (a 25x25 has 75): that path counts as the SAT engine does too
    n, rng = 25, np.random.default_rng(blanks)
    r, c = np.divmod(np.arange(n * n), n)
    solution = (5 * (r % 5) + r // 5 + c) % n + 1
    solution = rng.permutation(n)[solution - 1] + 1          # digits relabelled
    dots = [{"rule": "kropki", "cells": [f"r{i + 1}c{j + 1}", f"r{i + 1}c{j + 2}"], "color": "white"}
            for i in range(n) for j in range(n - 1) if abs(int(solution[i * n + j]) - int(solution[i * n + j + 1])) == 1]
    givens = "".join(f"{int(v)}," for v in np.where(rng.permutation(n * n) < blanks, 0, solution))
    doc = {"size": n, "box": "5x5", "givens": givens.rstrip(","), "rules": dots}
    assert dots and _agree(doc, cap=3) >= 1


def _branches_from_two_within(doc, most):
    """``doc`` branches by conflicts per candidate from two candidates up (``by_ratio`` 2), proves
    its answer unique within ``most`` nodes, and the answer is the SAT engine's."""
    assert rule_tables(parse_puzzle(doc)).rint[31] == 2
    result = get_solver("dfsrules").solve(build_model(parse_puzzle(doc)), check_unique=True)
    assert result.unique and result.nodes < most
    assert np.array_equal(result.grid, get_solver("sat").solve(build_model(parse_puzzle(doc))).grid)


def test_zipper_puzzles_branch_by_conflicts_per_candidate_from_two_candidates():
    """A zipper puzzle (held-out set 6200's line 171, 0-based, of ``bench/dfsrules_bench.py``'s
    generator) branches by conflicts per candidate from two candidates up (``by_ratio`` 2, as
    ISS's candidate selector): its proof took 14,223 nodes with the fewest candidates first (ISS:
    1,177), 1,429 so; the answer is the SAT engine's."""
    doc = {"size": 9, "box": "3x3",
           "givens": "2..........9..........47........3.....................6...8.....4.........5.....7",
           "rules": [{"rule": "zipper", "cells": ["r4c8", "r4c7", "r3c8"]},
                     {"rule": "zipper", "cells": ["r4c4", "r4c5", "r3c4", "r2c5", "r1c4", "r2c4"]},
                     {"rule": "zipper", "cells": ["r5c5", "r5c4", "r6c3", "r6c2"]},
                     {"rule": "zipper", "cells": ["r8c9", "r8c8", "r7c7", "r8c6", "r8c7"]},
                     {"rule": "zipper", "cells": ["r6c9", "r5c8", "r5c7", "r6c6", "r6c7"]},
                     {"rule": "zipper", "cells": ["r5c3", "r5c2", "r4c3"]}]}
    _branches_from_two_within(doc, 5_000)


def test_equal_sums_branch_by_conflicts_per_candidate_from_two_candidates():
    """An equal sum puzzle (held-out set 6200's line 465, 0-based, of ``bench/dfsrules_bench.py``'s
    generator) branches by conflicts per candidate from two candidates up (``by_ratio`` 2): its
    proof took 6,869 nodes with the fewest candidates first, 1,097 so; the answer is the SAT
    engine's."""
    doc = {"size": 9, "box": "3x3",
           "givens": "16.4.....4........5.8............6..3..8.6..5.....23......................41.....",
           "rules": [{"rule": "equalsum", "segments": [["r4c3", "r5c3", "r5c4"], ["r6c4", "r7c4", "r7c5"]]},
                     {"rule": "equalsum", "segments": [["r2c9", "r2c8", "r3c8"], ["r4c8", "r4c7", "r5c7"]]},
                     {"rule": "equalsum", "segments": [["r7c8", "r7c7"], ["r6c7", "r6c6", "r7c6"]]},
                     {"rule": "equalsum", "segments": [["r4c5"], ["r3c5", "r2c5", "r1c5"]]},
                     {"rule": "equalsum", "segments": [["r6c9", "r7c9", "r8c9"], ["r8c8", "r9c8", "r9c7"]]},
                     {"rule": "equalsum", "segments": [["r8c2", "r8c1"], ["r7c1", "r6c1"]]}]}
    _branches_from_two_within(doc, 3_000)


def test_lockout_lines_branch_by_conflicts_per_candidate_from_two_candidates():
    """A lockout puzzle (held-out set 5100's line 157, 0-based): its proof took 1,931 nodes with the
    fewest candidates first, 291 by conflicts per candidate from two candidates up (``by_ratio``
    2); the answer is the SAT engine's."""
    doc = {"size": 9, "box": "3x3",
           "givens": "....1...9..74.....34.....1..3.............5...9.......7........8..9...4.......6..",
           "rules": [{"rule": "lockout", "cells": ["r4c4", "r3c3", "r2c2"]},
                     {"rule": "lockout", "cells": ["r8c5", "r9c4", "r8c4", "r9c5"]},
                     {"rule": "lockout", "cells": ["r3c7", "r4c7", "r4c6", "r4c5"]},
                     {"rule": "lockout", "cells": ["r8c3", "r7c3", "r6c2", "r5c1", "r5c2"]},
                     {"rule": "lockout", "cells": ["r6c5", "r5c5", "r6c6", "r6c7", "r7c8"]},
                     {"rule": "lockout", "cells": ["r3c4", "r3c5", "r2c5"]}]}
    _branches_from_two_within(doc, 1_000)


def test_a_solve_with_the_kernel_cached_imports_no_numba(tmp_path):
    # dfsrules_pointing once imported a constant from a numba kernel module: every `solve`
    # process paid numba's import (about 0.27 s, the bench's process median 0.22 -> 0.50 s)
    if not dfsrules_native.load().native:
        pytest.skip("the kernel's machine code cannot be made here: every process imports numba")
    code = ("import json, sys\nfrom pipeline.core.build import build_model\n"
            "from pipeline.core.puzzle import parse_puzzle\nfrom pipeline.solvers import get_solver\n"
            "docs = json.loads(sys.argv[1])\n"
            "print(json.dumps({'unique': [get_solver('dfsrules').solve(build_model(parse_puzzle(d)), "
            "check_unique=True).unique for d in docs], 'numba': 'numba' in sys.modules}))")
    rows = [json.loads(line) for line in (ROOT / "bench" / "dfsrules_set.jsonl").read_text().splitlines()]
    docs = [row["document"] for row in rows[::53]]   # one of each tenth family: pointing, pairs, cages, lines
    proc = subprocess.run([sys.executable, "-c", code, json.dumps(docs)], capture_output=True, text=True,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout.splitlines()[-1]) == {"unique": [True] * len(docs), "numba": False}
