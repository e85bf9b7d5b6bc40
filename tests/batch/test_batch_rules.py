"""Batch with rules beyond units (issue 15): a ``rules`` column (JSON list of rule entries) in
CSV/Parquet input, a puzzle document per line of text input; each record's rules travel with it
(records with different rules never share an engine), the output's ``rules`` column says what
was solved, a bad rule is that record's error row only, resume and ``--count`` work."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from batch_helpers import MIXED
from pipeline.batch import run_batch
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
KILLER = json.loads((EXAMPLES / "killer.json").read_text())
SAMURAI = json.loads((EXAMPLES / "samurai.json").read_text())
THERMO = json.loads((EXAMPLES / "thermo.json").read_text())
ANTIKNIGHT = [{"rule": "antiknight"}]
#: two 4x4 cages on the same cells with different sums: one engine for both would mix them up
CAGE_3 = [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}]
CAGE_7 = [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 7}]
BAD = [{"rule": "cage", "cells": ["r1c1", "r9c9"], "sum": 3}]
ENGINES = ["highs", "sat", "cpsat"]


def _engine(name: str) -> None:
    pytest.importorskip({"highs": "highspy", "sat": "pysat", "cpsat": "ortools"}[name])


def _rows(out: Path) -> list[dict]:
    return pq.read_table(out).to_pylist()      # None stays None (pandas would make NaN)


def _mixed_csv(path: Path) -> list[tuple]:
    """(puzzle, rules) records: plain, killer (cages only), anti-knight 4x4, two cages, a bad
    rule, unparsable rules, a samurai document in the puzzle column."""
    records = [(MIXED[0], None), ("." * 81, KILLER["rules"]), ("1" + "." * 15, ANTIKNIGHT),
               ("." * 16, CAGE_3), ("." * 16, CAGE_7), ("." * 16, BAD), ("." * 16, "[{"),
               (json.dumps(SAMURAI), None)]
    pd.DataFrame({"puzzle": [p for p, _ in records],
                  "rules": [r if r is None or isinstance(r, str) else json.dumps(r) for _, r in records]}
                 ).to_csv(path, index=False)
    return records


def _grid(text: str, puzzle) -> np.ndarray:
    """A solution line (digits 1-9, '.' for a layout's absent cells) as the puzzle's canvas."""
    return np.array([0 if ch == "." else int(ch) for ch in text]).reshape(puzzle.grid.shape)


def _solutions(doc_or_rules, puzzle: str) -> int:
    """Solutions of one record (up to 50), by HiGHS through the API: the reference."""
    from pipeline.core.build import build_model
    from pipeline.solvers.highs import count_solutions

    parsed = parse_puzzle(puzzle + "\n", rules=doc_or_rules) if doc_or_rules else parse_puzzle(puzzle)
    return count_solutions(build_model(parsed), limit=50).count


@pytest.mark.parametrize("engine", ENGINES)
def test_a_mixed_batch_solves_each_record_by_its_own_rules(engine, tmp_path):
    _engine(engine)
    path = tmp_path / "in.csv"
    records = _mixed_csv(path)
    out = tmp_path / "out"
    summary = run_batch(path, out, workers=1, chunk_size=8, solver=engine, count=2, progress="none")
    assert summary.complete
    rows = _rows(out)
    assert [r["index"] for r in rows] == list(range(len(records)))
    for row, (puzzle, rules) in zip(rows, records):
        if rules is BAD:
            assert row["status"] == "error" and row["error"].count("\n") == 0
            assert "cage" in row["error"] and "r9c9 is outside the 4x4 grid" in row["error"], row["error"]
            assert row["error"].startswith("rules[0] (cage): "), row["error"]   # the column's list, not --rule
            continue
        if rules == "[{":
            assert row["status"] == "error" and row["error"].startswith("rules: not JSON"), row["error"]
            continue
        assert row["status"] == "optimal", row
        parsed = parse_puzzle(puzzle + "\n", rules=rules) if rules else parse_puzzle(puzzle)
        # the result records the rules it solved; the grid verifies against them
        assert row["rules"] == (json.dumps(parsed.rules_dicts(), separators=(",", ":")) if parsed.rules else None)
        assert verify_grid(_grid(row["solution"], parsed), parsed).ok
        assert row["n_solutions"] == min(_solutions(rules, puzzle), 2)
    # cage sum 3 forces {1, 2} into r1c1..r1c2, sum 7 forces {3, 4}: different engines
    assert set(rows[3]["solution"][:2]) == {"1", "2"} and set(rows[4]["solution"][:2]) == {"3", "4"}


def test_document_lines_of_a_text_input_and_resume(tmp_path):
    """One puzzle document per line (killer, samurai, thermo) between plain lines; a second run
    resumes with nothing left to do, and the rows are the same."""
    pytest.importorskip("pysat")
    path = tmp_path / "in.txt"
    docs = [KILLER, SAMURAI, THERMO]
    path.write_text("\n".join([MIXED[0]] + [json.dumps(d) for d in docs] + [MIXED[3]]) + "\n")
    out = tmp_path / "out"
    first = run_batch(path, out, workers=1, chunk_size=2, solver="sat", limit=3, progress="none")
    assert not first.complete
    second = run_batch(path, out, workers=1, chunk_size=2, solver="sat", progress="none")
    assert second.complete
    rows = _rows(out)
    assert [r["status"] for r in rows] == ["optimal"] * 5
    for row, doc in zip(rows[1:4], docs):
        puzzle = parse_puzzle(doc)
        assert row["rules"] == (json.dumps(puzzle.rules_dicts(), separators=(",", ":")) if puzzle.rules else None)
        assert row["solution"].count(".") == int((~puzzle.present).sum())   # a samurai's absent cells
    assert rows[1]["solution"] == "".join(map(str, _killer_solution()))


def _killer_solution():
    from pipeline.core.build import build_model
    from pipeline.solvers.highs import count_solutions

    return count_solutions(build_model(parse_puzzle(KILLER)), limit=1).grids[0].ravel()


def test_parquet_input_with_a_rules_column(tmp_path):
    pytest.importorskip("pysat")
    path = tmp_path / "in.parquet"
    pd.DataFrame({"puzzle": ["." * 16, "." * 16, MIXED[3]],
                  "rules": [json.dumps(CAGE_3), json.dumps(ANTIKNIGHT), None]}).to_parquet(path)
    out = tmp_path / "out"
    run_batch(path, out, workers=1, solver="sat", count=60, progress="none")
    rows = _rows(out)
    assert [r["n_solutions"] for r in rows] == [_solutions(CAGE_3, "." * 16), _solutions(ANTIKNIGHT, "." * 16), 1]
    assert rows[2]["rules"] is None


@pytest.mark.parametrize("count", [0, 2])
def test_batch_auto_sends_records_with_rules_to_an_engine_that_takes_them(count, tmp_path, capsys):
    """``batch`` with the default ``--solver auto`` picks dfs for units alone (when numba is
    here), which refuses rules: the records with rules or a layout go to auto's pick for their
    own model, while a dfs named on the command line keeps its one-line refusal per record."""
    from pipeline.cli.main import main
    from pipeline.solvers import SOLVERS
    from pipeline.solvers.auto import pick_solver

    path = tmp_path / "in.csv"
    records = _mixed_csv(path)
    out = tmp_path / "auto"
    argv = ["batch", str(path), str(out), "--workers", "1", "--progress", "none"] + (["--count", "2"] if count else [])
    assert main(argv) == 0
    rows = _rows(out)
    assert [r["index"] for r in rows] == list(range(len(records)))
    for row, (puzzle, rules) in zip(rows, records):
        if rules is BAD or rules == "[{":
            assert row["status"] == "error"
            continue
        assert row["status"] == "optimal" and row["solution"], row
        parsed = parse_puzzle(puzzle + "\n", rules=rules) if rules else parse_puzzle(puzzle)
        assert verify_grid(_grid(row["solution"], parsed), parsed).ok
        assert row["n_solutions"] == (min(_solutions(rules, puzzle), 2) if count else None)
    manifest = json.loads((out / "_batch.json").read_text())
    assert manifest["options"]["rules_by_auto"] is True
    capsys.readouterr()
    assert main(argv[:2] + [str(tmp_path / "verbose")] + argv[3:] + ["--verbose"]) == 0
    said = [s for s in capsys.readouterr().err.splitlines() if s.startswith("solver:")]
    picked = said[0].split()[3]   # "solver: auto picked NAME (...)"
    if not SOLVERS[picked].rule_rows:   # dfs: the rule records' own pick is said too
        assert said[1] == (f"solver: records with rules or a layout, or a grid larger than {picked} takes, go to "
                           f"auto's pick for their own model"), said
    if pick_solver("batch").name == "dfs" and not SOLVERS["dfs"].available():
        named = tmp_path / "named"
        assert main(argv[:2] + [str(named)] + argv[3:] + ["--solver", "dfs"]) == 0
        # the records of good rules (a bad rule's row is its own error, and keeps the rules as written)
        refused = [r for r, (_, rules) in zip(_rows(named), records) if rules is not BAD and rules != "[{"
                   and (r["rules"] or r["puzzle"].startswith("{"))]
        assert refused and all(r["status"] == "error" and "dfs does not handle" in r["error"] for r in refused)
        assert "rules_by_auto" not in json.loads((named / "_batch.json").read_text())["options"]   # as before


def test_a_rule_group_builds_its_rows_once_and_solves_each_record(monkeypatch):
    """Ten anti-knight puzzles and one with other rules in a chunk: the anti-knight records share
    one group, whose rows are built once (the template's shape cache) and whose records are each
    solved, unique, with grids that keep their own clues and the rule."""
    pytest.importorskip("numba")
    from pipeline.batch.config import SolveOptions
    from pipeline.batch.worker import solve_records
    from pipeline.core.rules.neighbours import AntiKnight

    lines = (Path(__file__).resolve().parents[2] / "bench" / "dfsrules_set.jsonl").read_text().splitlines()
    docs = [json.loads(line)["document"] for line in lines if json.loads(line)["family"] == "anti-knight"]
    assert len(docs) == 10
    records = [(k, json.dumps(doc), None, None) for k, doc in enumerate(docs)]
    records.append((10, json.dumps(THERMO), None, None))
    built = []
    rows_of = AntiKnight.rows_of.__func__
    monkeypatch.setattr(AntiKnight, "rows_of", classmethod(lambda cls, *a, **k: built.append(1) or rows_of(cls, *a, **k)))
    columns = solve_records(records, SolveOptions(solver="dfs", rules_by_auto=True, count=2))
    assert columns["status"] == ["optimal"] * 11 and columns["n_solutions"] == [1] * 11
    assert len(built) == 1
    for doc, solution in zip(docs + [THERMO], columns["solution"]):
        puzzle = parse_puzzle(doc)
        assert verify_grid(_grid(solution, puzzle), puzzle).ok


@pytest.mark.parametrize("solver", ["sat", "auto"])
def test_records_that_differ_only_in_values_or_extra_cells_are_counted_apart(solver):
    """Same rules, other values (a cage's sum counts values) or one more free extra cell: other
    rows. In one chunk, each record gets its own count (a fresh engine's), in either order."""
    _engine("sat")
    from pipeline.batch.config import SolveOptions
    from pipeline.batch.worker import solve_records
    from pipeline.core.build import build_model
    from pipeline.solvers import get_solver
    from pipeline.solvers.sat import close_engines

    cage = {"size": 4, "box": "2x2", "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 3}]}
    extra = {"size": 4, "givens": "1234341221434321", "extra": [{"name": "S", "size": 2}],
             "rules": [{"rule": "cage", "cells": ["S1", "S2"]}]}
    docs = [cage, {**cage, "values": "0-3"}, extra, {**extra, "extra": [{"name": "S", "size": 3}]}]
    want = [get_solver("sat").count(build_model(parse_puzzle(d)), 500).count for d in docs]
    assert want[0] != want[1] and want[2] != want[3]
    for order in ([0, 1, 2, 3], [1, 0, 3, 2]):
        close_engines()
        records = [(k, json.dumps(docs[k]), None, None) for k in order]
        columns = solve_records(records, SolveOptions(solver=solver, count=500, rules_by_auto=solver == "auto"))
        assert columns["n_solutions"] == [want[k] for k in order], columns["error"]


def test_a_batch_loads_the_rule_engine_once_and_keeps_it_where_its_kernel_cannot_be_kept(tmp_path, monkeypatch):
    """With ``SUDOKU_PIPELINE_CACHE=none`` a single ``solve`` passes dfsrules by (it would compile on
    every run), but a batch compiles it once, before any fork, and solves its rule records with it:
    the SAT engine, sabotaged here, is never asked."""
    from pipeline.solvers import SOLVERS, dfs_native, dfsrules_native
    from pipeline.batch import run as batch_run

    if SOLVERS["dfsrules"].available() is not None:
        pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}")
    from pipeline.solvers import sat

    loaded = dfsrules_native.load()   # the suite's kernel (a cache of none would compile it again)

    def load():
        dfsrules_native._LOADED = loaded
        return loaded

    monkeypatch.setattr(dfsrules_native, "_LOADED", None)
    monkeypatch.setattr(dfsrules_native, "load", load)
    monkeypatch.setenv(dfs_native.CACHE_ENV, "none")
    assert SOLVERS["dfsrules"].start_problem() is not None   # what a single solve would be told

    def refused(*args, **kwargs):
        raise AssertionError("the SAT engine was asked")

    monkeypatch.setattr(sat.SatEngine, "__init__", refused)
    path = tmp_path / "in.txt"
    path.write_text(json.dumps(THERMO) + "\n" + json.dumps(KILLER) + "\n")
    summary = run_batch(path, tmp_path / "out", workers=1, solver="dfs", rules_by_auto=True, progress="none")
    rows = _rows(tmp_path / "out")
    assert [r["status"] for r in rows] == ["optimal", "optimal"], rows
    assert dfsrules_native._LOADED is loaded and summary is not None
    assert batch_run._may_have_rules(["." * 81, None], [None, "[]"]) is False
    assert batch_run._may_have_rules(["." * 81], ['[{"rule": "antiknight"}]'])
    assert batch_run._may_have_rules([' {"size": 4}'], [float("nan")])


@pytest.mark.parametrize("engine, state, compiles", [
    ("processes", "cached", True), ("processes", "missing", True), ("processes", "unkept", True),
    ("dask", "cached", False), ("dask", "missing", True), ("dask", "unkept", False)])
def test_a_dask_batch_compiles_the_rule_kernel_here_only_when_its_workers_would_read_it(
        tmp_path, monkeypatch, engine, state, compiles):
    """Dask's workers inherit nothing from this process: one on this machine reads the kernel from
    the cache. So a Dask batch compiles it here first (with the note) only when it is missing and
    the cache can keep it; a forked pool always loads it here, for its workers to inherit."""
    from pipeline.solvers import SOLVERS, dfs_native, dfsrules_native
    from pipeline.batch import run as batch_run

    if SOLVERS["dfsrules"].available() is not None:
        pytest.skip(f"dfsrules is not available here: {SOLVERS['dfsrules'].available()}")
    name = f"dfsrules-kernel-{dfs_native.kernel_key(dfsrules_native._KERNEL_SOURCES)}.o"
    suite_cache = dfs_native.cache_dir()   # where the suite's kernel was kept
    loads = []
    monkeypatch.setattr(dfsrules_native, "_LOADED", None)
    monkeypatch.setattr(dfsrules_native, "load", lambda: loads.append(1))
    monkeypatch.setenv(dfs_native.CACHE_ENV, "none" if state == "unkept" else str(tmp_path / "cache"))
    if state == "cached":   # the suite's object, copied in
        if suite_cache is None or not (suite_cache / name).is_file():
            pytest.skip(f"no cached dfsrules kernel in {suite_cache} to copy")
        (tmp_path / "cache").mkdir()
        (tmp_path / "cache" / name).write_bytes((suite_cache / name).read_bytes())
    assert dfsrules_native.is_cached() is (state == "cached")
    batch_run._load_rule_kernel(engine)
    assert bool(loads) is compiles


@pytest.mark.parametrize("solver", ["sat", "highs"])
def test_rectangular_records_go_to_the_engine_s_own_model(solver):
    """A 6x8 record (a document or an ISS string) went to the N x N shape kernels and became the
    error row 'IndexError: index 48 is out of bounds for axis 0 with size 48'."""
    from pipeline.batch.config import SolveOptions
    from pipeline.batch.worker import solve_records

    records = [(0, '{"size": "6x8"}', None, None), (1, ".Shape~6x8.~R1C1_1", None, None)]
    columns = solve_records(records, SolveOptions(solver=solver, count=0))
    assert columns["status"] == ["optimal", "optimal"], columns["error"]
    for (_, text, *_), solution in zip(records, columns["solution"]):
        puzzle = parse_puzzle(text)
        assert verify_grid(np.array([int(ch) for ch in solution]).reshape(6, 8), puzzle)


def test_a_grid_beyond_dfs_goes_to_auto_s_pick_for_its_own_model(tmp_path):
    """dfs, auto's engine for a batch, takes grids up to 64x64: an 81x81 record was an error row
    ("solver: solver dfs: grids up to 64x64 ...") where ``solve`` answered it (outside check)."""
    import pipeline

    n, box = 81, 9
    r, c = np.indices((n, n))
    givens = np.where((r == c) & (r < 5), (box * (r % box) + r // box + c) % n + 1, 0)   # five clues
    puzzle = pipeline.read_puzzle(givens)
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(puzzle.to_document()) + "\n"
                      "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......\n")
    run_batch(source, tmp_path / "auto", workers=1, progress="none", solver="dfs", rules_by_auto=True)
    big, small = _rows(tmp_path / "auto")
    assert (big["status"], small["status"]) == ("optimal", "optimal"), big
    assert verify_grid(parse_puzzle(big["solution"]).grid, puzzle).ok   # the solution as text, read back
    run_batch(source, tmp_path / "named", workers=1, progress="none", solver="dfs")   # named: its refusal, once
    big, small = _rows(tmp_path / "named")
    assert big["error"] == "line 1: solver dfs: grids up to 64x64 (64-bit candidate masks), found 81x81"
    assert small["status"] == "optimal"


@pytest.mark.parametrize("cell, expected", [
    ("null", None),   # what batch's own output writes for a record without rules
    (" ", None),
    ('{"rule": "antiknight"}', ANTIKNIGHT),   # one entry standing alone, as a document allows
    ('[{"rule": "antiknight"}]', ANTIKNIGHT),
])
def test_a_rules_cell_of_null_is_no_rules_and_one_entry_stands_alone(cell, expected):
    from pipeline.core.document import rule_entries_text as _rule_entries

    assert _rule_entries(cell) == expected


@pytest.mark.parametrize("cell, found", [
    ("5", "a JSON number (5)"), ('"antiknight"', 'a JSON string ("antiknight")'),
    ("true", "a JSON true/false (true)"), ("1" * 60, f"a JSON number ({'1' * 40}...)"),
])
def test_a_rules_cell_of_another_json_value_names_its_kind_and_shows_it(cell, found):
    """It said "found NoneType" for null and "found int" for a number, without the cell."""
    from pipeline.core.document import rule_entries_text as _rule_entries
    from pipeline.core.errors import PuzzleError

    with pytest.raises(PuzzleError) as caught:
        _rule_entries(cell)
    assert str(caught.value) == f"rules: expected a JSON list of rule entries, found {found}"

