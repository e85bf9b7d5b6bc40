"""Memory that a job cannot have is refused in one line: the SAT encoding's estimate, an
address-space limit (``ulimit -v``) taken into the allowance, and a MemoryError past both."""
from __future__ import annotations

import ctypes.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pipeline.core.build import build_model
from pipeline.core.clauses import check_encoding_memory, encoding_bytes
from pipeline.core.errors import PipelineError, SolveError
from pipeline.core.puzzle import MAX_BYTES_ENV, parse_puzzle


def test_the_estimate_grows_with_the_grid_and_pairwise_with_the_row():
    for amo in ("ladder", "seqcounter", "bitwise", "cardnetwrk", "totalizer", "sortnetwrk", "pairwise"):
        sizes = [encoding_bytes(4 * n ** 3, n, amo) for n in (9, 25, 49, 100)]
        assert sizes == sorted(sizes) and sizes[0] > 0
    # pairwise's clauses per row grow as N^2/2: per nonzero it costs more the longer the row
    assert encoding_bytes(1, 100, "pairwise") > 2 * encoding_bytes(1, 25, "pairwise")
    assert encoding_bytes(1, 25, "ladder") == encoding_bytes(1, 100, "ladder")


def test_an_engine_past_the_allowance_is_one_line_naming_a_leaner_encoding(monkeypatch):
    model = build_model(parse_puzzle("." * 256, box="4x4"))
    monkeypatch.setenv(MAX_BYTES_ENV, str(encoding_bytes(model.unit_positions.size, 16, "pairwise") - 1))
    with pytest.raises(SolveError, match=r"^solver sat: its pairwise encoding of this 16x16 model needs about "
                                         r"[\d.]+ [KMG]iB, more than the [\d.]+ [KMG]iB allowed \(set "
                                         rf"{MAX_BYTES_ENV} to allow more, or --amo seqcounter"):
        check_encoding_memory(model, "auto")
    check_encoding_memory(model, "seqcounter")   # a leaner one fits
    from pipeline.solvers import get_solver
    with pytest.raises(SolveError, match="needs about"):
        get_solver("sat").solve(model)


def _allowance_under(limit: int | None) -> int:
    code = ("import resource, sys\n"
            f"limit = {limit!r}\n"
            "if limit: resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))\n"
            "from pipeline.core.parse import memory_limit\n"
            "print(memory_limit())\n")
    env_free = {k: v for k, v in __import__("os").environ.items() if k != MAX_BYTES_ENV}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env_free, timeout=60)
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


def test_an_address_space_limit_bounds_the_allowance():
    free = _allowance_under(None)
    limited = _allowance_under(3 * 2 ** 30)
    assert limited == min(free, 3 * 2 ** 30 * 3 // 4)


def test_a_count_past_the_address_space_is_refused_up_front(tmp_path):
    """An empty 100x100 counted with the SAT engine peaked at 5.4 GB: under ``ulimit -v`` 4 GB it
    ended in a MemoryError traceback after 30 s. (``auto`` now counts it from one solution
    relabelled; the SAT engine named still searches.)"""
    path = tmp_path / "e100.txt"
    path.write_text("." * 10_000 + "\n")
    code = ("import resource, sys\n"
            "resource.setrlimit(resource.RLIMIT_AS, (4 * 10**9, resource.getrlimit(resource.RLIMIT_AS)[1]))\n"
            "from pipeline.cli.main import main\n"
            f"sys.exit(main(['count', {str(path)!r}, '--size', '100', '--solver', 'sat']))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: solver sat: its ladder encoding of this 100x100 model")


def test_a_memory_error_past_the_estimates_is_one_line_and_exit_2(monkeypatch, capsys):
    from pipeline.cli.commands import solve as solve_command
    from pipeline.cli.main import main

    def exhausted(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(solve_command, "_solve", exhausted)
    code = main(["solve"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err == ["error: solve: out of memory: the job needs more than this process may use (a smaller grid, "
                   "another --solver or --amo, or more memory)"]


@pytest.mark.parametrize("count", [1, 2])
def test_a_batch_record_past_the_allowance_is_memory_limit_and_the_others_solved(monkeypatch, count):
    """A status ``--retry memory_limit`` names once more memory is allowed, not a lost chunk."""
    from pipeline.batch.config import SolveOptions
    from pipeline.batch.worker import solve_records
    from pipeline.core.puzzle import model_bytes

    small = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    big = "." * 256   # an empty 16x16: its pairwise encoding is about 35 MB
    from pipeline.solvers import sat
    sat.close_engines()   # a 16x16 engine an earlier test left in this process's cache needs no more memory
    monkeypatch.setenv(MAX_BYTES_ENV, str(max(model_bytes(16), encoding_bytes(4 * 9 ** 3, 9, "pairwise")) + 1))
    options = SolveOptions(solver="sat", count=count)
    columns = solve_records([(0, small, None, None), (1, big, None, None), (2, small, None, None)], options)
    assert columns["status"] == ["optimal", "memory_limit", "optimal"], columns["error"]
    assert "encoding of this 16x16 model needs about" in columns["error"][1]



@pytest.mark.parametrize("solver", ["auto", "dfs", "highs", "sat"])
def test_a_batch_record_whose_model_is_past_the_allowance_is_an_error_row(monkeypatch, tmp_path, solver):
    """A grid too large for the memory allowed ended the whole run under auto and dfs (the shape's
    model was built outside the record's error handling): the later good records were never solved."""
    import pandas as pd

    from pipeline.batch.run import run_batch
    from pipeline.core.puzzle import model_bytes

    small = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    monkeypatch.setenv(MAX_BYTES_ENV, str(model_bytes(30)))
    path = tmp_path / "in.txt"
    path.write_text("\n".join([small, json.dumps({"size": 40}), small]) + "\n")
    summary = run_batch(path, tmp_path / "out", workers=1, solver=solver, progress="none")
    rows = pd.read_parquet(tmp_path / "out").sort_values("index")
    if solver == "dfs":   # its search needs no sparse model: the empty 40x40 is filled
        assert summary.complete and rows["status"].tolist() == ["optimal"] * 3, rows["error"].tolist()
        return
    # memory_limit: a status --retry takes once the limit is raised
    assert summary.complete and rows["status"].tolist() == ["optimal", "memory_limit", "optimal"], rows["error"].tolist()
    assert rows["error"].iloc[1].startswith("line 2: solver: model: a 40x40 grid's model needs about ")

def _greater_signs(k: int) -> str:
    """A 9x9 with ``k`` greater-than signs, pair by pair along the rows (each sign its own row)."""
    pairs = [(r, c) for r in range(1, 10) for c in range(1, 9)]
    rules = [{"rule": "greater", "cells": [f"r{r}c{c}", f"r{r}c{c + 1}"]} for r, c in pairs] * (k // len(pairs) + 1)
    return json.dumps({"size": 9, "rules": rules[:k]})


def test_the_rule_rows_clauses_past_the_allowance_are_one_line_before_they_are_built(monkeypatch):
    """5,000 greater-than signs made 18 million literals: 1.7 GB in the SAT engine, 16 GB for
    50,000, whatever the allowance said (only the unit rows were estimated)."""
    pytest.importorskip("pysat.pb", reason="python-sat's pb extra (pindakaas) is not installed")
    from pipeline.core.clauses_pb import ENCODE_BYTES_PER_TOKEN, ENGINE_BYTES_PER_TOKEN, EncodingTooLarge, encode_rule_rows
    from pipeline.solvers.sat import SatEngine

    model = build_model(parse_puzzle(_greater_signs(600)))
    fits = encode_rule_rows(model, top=729)
    tokens = fits.tokens.size
    assert fits.n_rows == 600 and tokens > 600
    monkeypatch.setenv(MAX_BYTES_ENV, str(tokens * ENCODE_BYTES_PER_TOKEN - 1))
    with pytest.raises(EncodingTooLarge, match=rf"^the rule rows' {fits.n_clauses:,} clauses \({tokens:,} literals\) "
                                               rf"need about [\d.]+ [KMG]iB, more than the [\d.]+ [KMG]iB allowed \(set "
                                               rf"{MAX_BYTES_ENV} to allow more\)$"):
        encode_rule_rows(model, top=729)
    monkeypatch.setenv(MAX_BYTES_ENV, str(tokens * ENCODE_BYTES_PER_TOKEN))
    assert np.array_equal(encode_rule_rows(model, top=729).tokens, fits.tokens)
    # the engine's lists and solver weigh more, beside its unit rows
    monkeypatch.setenv(MAX_BYTES_ENV, str(tokens * ENGINE_BYTES_PER_TOKEN))
    with pytest.raises(EncodingTooLarge, match=r"^solver sat: the rule rows' .* to allow more, or another --solver\)$"):
        SatEngine(model, fix_clues=True)


def test_a_batch_record_of_too_many_rule_clauses_is_memory_limit(monkeypatch):
    pytest.importorskip("pysat.pb", reason="python-sat's pb extra (pindakaas) is not installed")
    from pipeline.batch.config import SolveOptions
    from pipeline.batch.worker import solve_records

    small = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    monkeypatch.setenv(MAX_BYTES_ENV, str(10 ** 8))
    columns = solve_records([(0, small, None, None), (1, _greater_signs(5_000), None, None)],
                            SolveOptions(solver="sat", count=1))
    assert columns["status"] == ["optimal", "memory_limit"], columns["error"]
    assert columns["error"][1].startswith("solver sat: the rule rows' ")


@pytest.mark.parametrize("kind, key, values", [("skyscraper", "count", (1, 4, 8, 16)),
                                                ("sandwich", "sum", (0, 2, 5, 10, 29, 59, 119))])
def test_a_line_rules_estimate_follows_its_rows(kind, key, values):
    # a rule over one line counted 0: a hundred skyscraper clues on a 25x25 built 3.4 GB under a
    # 1 GB limit, and a batch record's 1 s limit ran 20 s
    from pipeline.core.build import build_model
    from pipeline.core.puzzle import parse_puzzle
    from pipeline.core.rulerows import rule_nonzeros

    for value in values:
        puzzle = parse_puzzle({"size": 16, "rules": [{"rule": kind, "clue": "r0c3", key: value},
                                                     {"rule": kind, "clue": "r5c17", key: value}]})
        built = build_model(puzzle).R.matrix.nnz
        # an estimate errs on the large side (the limits refuse from it), within a few times
        assert built / 2 <= rule_nonzeros(puzzle) <= 8 * built, (value, built, rule_nonzeros(puzzle))



def _row(n, length, r=1):
    return [f"r{r}c{c}" for c in range(1, length + 1)]


#: Rules over listed cells whose rows pair their cells' digits (about ``c L N^2`` nonzeros).
PAIRING_LINES = {
    "between": lambda n, length: {"rule": "between", "cells": _row(n, length)},
    "lockout": lambda n, length: {"rule": "lockout", "cells": _row(n, length)},
    "whisper": lambda n, length: {"rule": "whisper", "cells": _row(n, length)},
    "renban": lambda n, length: {"rule": "renban", "cells": _row(n, length - 2)},
    "rellik": lambda n, length: {"rule": "rellik", "sum": n, "cells": _row(n, 4)},
    "hiddenskyscraper": lambda n, length: {"rule": "hiddenskyscraper", "clue": "r0c2", "digit": n - 2},
    "xsum": lambda n, length: {"rule": "xsum", "clue": "r3c0", "sum": n * 2},
    "pair": lambda n, length: {"rule": "pair", "cells": _row(n, length), "allowed": [[1, 2], [2, 1]], "all": True},
    "lunchbox": lambda n, length: {"rule": "lunchbox", "cells": _row(n, length), "sum": n},
    "sumline": lambda n, length: {"rule": "sumline", "cells": _row(n, length), "sum": 30},
    "regex": lambda n, length: {"rule": "regex", "pattern": "(12|3.*4|[5-9]+)*.*", "cells": _row(n, length)},
    "automaton": lambda n, length: {"rule": "automaton", "cells": _row(n, length), "states": 2, "start": [0],
                                    "accept": [1], "transitions": [[0, d, 1 - d % 2] for d in range(1, n + 1)]
                                    + [[1, d, d % 2] for d in range(1, n + 1)]},
    "fullrank": lambda n, length: {"rule": "fullrank", "clue": "r0c3", "rank": length},
    "pairline": lambda n, length: {"rule": "pair", "cells": _row(n, length), "allowed": [[1, 2], [2, 1], [3, 5]]},
    "equalsum": lambda n, length: {"rule": "equalsum", "segments": [_row(n, length), _row(n, length // 2, 2),
                                                                   _row(n, length, 3)]},
    "anyof": lambda n, length: {"rule": "anyof", "branches": [[PAIRING_LINES["pair"](n, length)],
                                                              [{"rule": "thermo", "cells": _row(n, 5, 2)}]]},
}


@pytest.mark.parametrize("kind", sorted(PAIRING_LINES))
@pytest.mark.parametrize("n, box, length", [(16, "4x4", 16), (16, "4x4", 7), (25, "5x5", 12)])
def test_a_pairing_lines_estimate_follows_its_rows(kind, n, box, length):
    # they counted 0: 64 between lines of a 64x64 built 5.6 GB under a 1 GB limit (and a regex
    # over thousands of cells, full-rank clues, anyof branches of such rules 5-7.9 GB)
    from pipeline.core.rulerows import rule_nonzeros

    puzzle = parse_puzzle({"size": n, "box": box, "rules": [PAIRING_LINES[kind](n, length)]})
    built = build_model(puzzle).R.matrix.nnz
    assert built / 2 <= rule_nonzeros(puzzle) <= 4 * built, (built, rule_nonzeros(puzzle))


def test_between_lines_past_the_allowance_are_refused_before_they_are_built(tmp_path, monkeypatch, capsys):
    from pipeline.cli.main import main

    n = 36
    doc = {"size": n, "box": "6x6", "rules": [{"rule": "between", "cells": _row(n, n, r)} for r in range(1, n + 1)]}
    path = tmp_path / "between.json"
    path.write_text(json.dumps(doc))
    monkeypatch.setenv(MAX_BYTES_ENV, str(200 * 2 ** 20))   # their rows: about 4.9 M nonzeros, 0.5 GB
    assert main(["build", str(path)]) == 2
    err = capsys.readouterr().err
    assert "needs about" in err and "more than the 200 MiB allowed" in err, err


def test_a_batch_record_of_rows_past_its_time_limit_is_stopped_before_they_are_built(tmp_path):
    import pandas as pd

    from pipeline.batch.run import run_batch

    doc = {"size": 25, "rules": [{"rule": "skyscraper", "clue": f"r0c{c}", "count": 3} for c in range(1, 26)]
           + [{"rule": "skyscraper", "clue": f"r{r}c0", "count": 3} for r in range(1, 26)]}
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(doc) + "\n")
    assert run_batch(path, tmp_path / "out", workers=1, solver="sat", time_limit=1.0, progress="none").complete
    row = pd.read_parquet(tmp_path / "out").iloc[0]
    assert row["status"] == "time_limit" and "building the rule rows alone takes about" in row["error"]


def test_count_lists_as_many_grids_as_the_allowance_holds_and_says_so(monkeypatch, capsys):
    # count --list held every grid until it printed: 3,000,000 of an empty 9x9 took 2.4 GB under 477 MiB
    import pipeline
    from pipeline.cli.main import main
    from pipeline.core.limits import grids_allowed

    monkeypatch.setenv(MAX_BYTES_ENV, str(10 ** 7))
    held = grids_allowed(81)
    assert 10_000 < held < 20_000
    assert main(["count", "." * 81, "--limit", "30000", "--list"]) == 0
    out = capsys.readouterr()
    assert out.out.splitlines()[0] == "30000 (at least: stopped at --limit 30000)"
    assert len(out.out.splitlines()) == 1 + held
    assert out.err == (f"note: count --list: printed the first {held:,} of the 30,000 grids counted: the 10 MiB "
                       f"allowed holds no more (set {MAX_BYTES_ENV} to allow more)\n")
    assert main(["count", "." * 81, "--limit", "3", "--list"]) == 0   # a list that fits: no note
    out = capsys.readouterr()
    assert len(out.out.splitlines()) == 4 and out.err == ""
    # the API refuses to keep what it cannot hold, and counts past the grids it keeps
    with pytest.raises(PipelineError, match=r"^count \(lower limit or keep\): keeping 10,000,000 grids of 81 cells"):
        pipeline.count("." * 81, limit=10 ** 7, keep=None)
    assert len(pipeline.count("." * 81, limit=1000, keep=10).grids) == 10


def test_a_small_allowance_is_said_in_the_unit_that_shows_it(monkeypatch):
    # "needs about 0.1 GiB, more than the 0.0 GiB allowed"
    model = build_model(parse_puzzle("." * 256, box="4x4"))
    monkeypatch.setenv(MAX_BYTES_ENV, str(5 * 10 ** 5))
    with pytest.raises(SolveError, match=r"needs about [\d.]+ [KM]iB, more than the 488 KiB allowed"):
        check_encoding_memory(model, "pairwise")


@pytest.mark.parametrize("rule", [{"rule": "fullrankties", "ties": "none"},
                                  {"rule": "connectedvalues", "values": list(range(1, 9))}])
def test_a_whole_grid_rules_estimate_follows_its_rows(rule):
    # each counted 0: a 100x100's rows took 5.7 GB (full-rank ties) and 6.3 GB (connected values) under 1 GB
    from pipeline.core.rulerows import rule_nonzeros

    puzzle = parse_puzzle({"size": 16, "box": "4x4", "rules": [rule]})
    built = build_model(puzzle).R.matrix.nnz
    assert built <= rule_nonzeros(puzzle) <= 1.5 * built


def test_rows_built_past_the_allowance_are_refused_as_they_come(monkeypatch, capsys):
    # a kind the estimate counts 0 (thermometers: about 2 L N nonzeros): 1,000 full rows of a
    # 100x100 built 2.3 GB under a 1 GB limit; the rows are now counted as each kind is built
    from pipeline.cli.main import main
    from pipeline.core.rulerows import rule_nonzeros

    n = 36
    doc = {"size": n, "box": "6x6", "rules": [{"rule": "thermo", "cells": [f"r{r % n + 1}c{c}" for c in range(1, n + 1)]}
                                              for r in range(400)]}
    assert rule_nonzeros(parse_puzzle(doc)) == 0
    monkeypatch.setenv(MAX_BYTES_ENV, str(50 * 2 ** 20))
    assert main(["build", json.dumps(doc)]) == 2
    assert capsys.readouterr().err.startswith("error: rules: with thermo's rows the rule rows hold ")


def test_a_value_set_counts_its_values_in_the_models_size(monkeypatch):
    # an 80x80 of 400 values was counted as 80 (131 MB) and built, then HiGHS took 2.5 GB under 1 GB
    from pipeline.core.limits import model_bytes

    assert model_bytes(80, values=400) == 5 * model_bytes(80)
    monkeypatch.setenv(MAX_BYTES_ENV, str(model_bytes(20) * 2))
    build_model(parse_puzzle({"size": 20, "values": "1-40"}))   # twice the variables: fits
    with pytest.raises(PipelineError, match=r"^model: the model of a 20x20 grid of 400 values needs about "
                                            r"[\d.]+ MiB, more than the [\d.]+ MiB allowed"):
        build_model(parse_puzzle({"size": 20, "values": "1-400"}))


def test_highs_is_not_handed_a_model_it_cannot_start_on(monkeypatch, capsys):
    from pipeline.cli.main import main
    from pipeline.core.errors import ModelTooLarge
    from pipeline.solvers.highs import HIGHS_BYTES_PER_NONZERO, check_highs_memory

    model = build_model(parse_puzzle({"size": 25}))
    nonzeros = model.Aeq.nnz
    monkeypatch.setenv(MAX_BYTES_ENV, str((HIGHS_BYTES_PER_NONZERO + 64) * nonzeros - 1))
    with pytest.raises(ModelTooLarge, match=rf"^solver highs: HiGHS on this model's {nonzeros:,} nonzeros needs about"):
        check_highs_memory(nonzeros)
    # the command line: one line, exit 2, before HiGHS starts
    assert main(["solve", json.dumps({"size": 25}), "--solver", "highs", "--no-unique-check"]) == 2
    assert capsys.readouterr().err.startswith("error: solver highs: HiGHS on this model's ")
    monkeypatch.setenv(MAX_BYTES_ENV, str((HIGHS_BYTES_PER_NONZERO + 64) * nonzeros))
    check_highs_memory(nonzeros)


@pytest.mark.parametrize("kind", ["whisper", "lockout", "between", "renban", "pair", "pairline"])
def test_a_pairing_lines_estimate_counts_a_value_sets_values(kind):
    # their rows pair the line's digits: with 400 values on a 9x9 (counted by the side) 30
    # whispers built 9 GB, 20 renbans on a 20x20 24 GB under a 1 GB limit
    from pipeline.core.rulerows import rule_nonzeros

    puzzle = parse_puzzle({"size": 9, "values": "1-40", "rules": [PAIRING_LINES[kind](9, 8)]})
    built = build_model(puzzle).R.matrix.nnz
    assert built / 2 <= rule_nonzeros(puzzle) <= 4 * built, (built, rule_nonzeros(puzzle))


THERMOS = {"size": 9, "box": "3x3", "rules": [{"rule": "thermo", "cells": [f"r{r % 9 + 1}c{c}" for c in range(1, 10)]}
                                              for r in range(40)]}


def test_a_kinds_rows_built_in_slices_are_the_rows_built_at_once(monkeypatch):
    from pipeline.core import rulerows

    doc = dict(THERMOS, rules=THERMOS["rules"] + [{"rule": "kropki", "cells": [f"r{r}c1", f"r{r}c2"], "color": "white"}
                                                  for r in range(1, 10)])
    whole = build_model(parse_puzzle(doc)).R
    monkeypatch.setattr(rulerows, "_FIRST_SLICE", 3)
    monkeypatch.setattr(rulerows, "_SLICE_NONZEROS", 200)
    sliced = build_model(parse_puzzle(doc)).R
    assert (whole.matrix != sliced.matrix).nnz == 0
    assert whole.labels.tolist() == sliced.labels.tolist()
    assert np.array_equal(whole.rhs, sliced.rhs) and whole.sense.tolist() == sliced.sense.tolist()


def test_a_kind_of_many_rules_is_refused_before_all_its_rows_are_built(monkeypatch, capsys):
    # 1,000 thermometers of a 9x9 with 400 values built 2.5 GB under a 1 GB limit before the
    # count of their rows saw them: the rows are now counted slice by slice
    from pipeline.cli.main import main
    from pipeline.core import rulerows
    from pipeline.core.rules.order import Thermometer as Thermo

    built = []
    rows_of = Thermo.rows_of.__func__
    monkeypatch.setattr(Thermo, "rows_of", classmethod(lambda cls, rules, *a: built.append(len(rules)) or
                                                       rows_of(cls, rules, *a)))
    doc = dict(THERMOS, values="1-100")
    per_rule = (build_model(parse_puzzle(dict(doc, rules=doc["rules"][:1]))).R.matrix.nnz
                - build_model(parse_puzzle(dict(doc, rules=[]))).R.matrix.nnz)   # less the units' <= rows
    monkeypatch.setattr(rulerows, "_SMALL_BYTES", 0)
    monkeypatch.setattr(rulerows, "_FIRST_SLICE", 4)
    monkeypatch.setattr(rulerows, "_SLICE_NONZEROS", 3 * per_rule)
    monkeypatch.setenv(MAX_BYTES_ENV, str(25 * per_rule * 128))
    built.clear()
    assert main(["build", json.dumps(doc)]) == 2
    assert capsys.readouterr().err.startswith("error: rules: with thermo's rows the rule rows hold ")
    assert built[:3] == [4, 3, 3] and 25 <= sum(built) <= 28, built


CELLS9 = [f"r{r}c{c}" for r in range(1, 10) for c in range(1, 10)]


@pytest.mark.parametrize("doc", [
    {"size": 9, "rules": [{"rule": "chaos", "counts": [{"clue": c, "cells": [c] + [d for d in CELLS9 if d != c]}
                                                        for c in CELLS9[:20]]}]},
    {"size": 9, "rules": [{"rule": "chaos", "distinct": [{"clue": "r1c1", "cells": CELLS9}] * 20}]},
    {"size": 9, "values": "1-40", "rules": [{"rule": "anyof", "branches": [[{"rule": "thermo", "cells": CELLS9[:9]}]] * 100}]},
    {"size": 16, "rules": [{"rule": "anyof", "branches": [[{"rule": "diagonal"}]] * 100}]},
    {"size": 9, "rules": [{"rule": "anyof", "branches": [[{"rule": "extraregion", "cells": CELLS9[:9]}]] * 100}]},
], ids=["chaos-counts", "chaos-distinct", "anyof-thermo", "anyof-diagonal", "anyof-region"])
def test_rows_on_auxiliary_columns_and_in_branches_are_estimated(doc):
    # each built past a 1 GB limit when its clues or branches counted 0: 256 chaos count clues of
    # a 16x16 1.6 GB, 3,000 diagonal branches of a 100x100 5.3 GB, 1,000 thermometer branches 5.6 GB
    from pipeline.core.rulerows import rule_nonzeros

    puzzle = parse_puzzle(doc)
    built = build_model(puzzle).R.matrix.nnz
    assert built / 2 <= rule_nonzeros(puzzle) <= 4 * built, (built, rule_nonzeros(puzzle))


def test_the_running_count_holds_the_terms_on_auxiliary_columns():
    # a chaos construction's clue rows are nearly all on its auxiliary columns, which the count skipped
    from pipeline.core.rulerows import _terms
    from pipeline.core.rules.chaos import Chaos

    puzzle = parse_puzzle({"size": 9, "rules": [{"rule": "chaos", "distinct": [{"clue": "r1c1", "cells": CELLS9}]}]})
    rule = puzzle.rules[0]
    assert isinstance(rule, Chaos)
    assert _terms(Chaos.rows_of([rule], puzzle.board, 1)) == build_model(puzzle).R.matrix.nnz


def _snake(n: int) -> list[str]:
    """Every cell of an ``n x n`` grid, row by row, each row the other way than the last."""
    return [f"r{r}c{c}" for r in range(1, n + 1) for c in (range(1, n + 1) if r % 2 else range(n, 0, -1))]


def test_the_first_slice_of_long_lines_is_bounded_by_their_cells_and_values(monkeypatch, capsys):
    # 150 modular lines over a 100x100's cells were one first slice of 256 rules: 22.8 GB, killed
    # under a 1 GB limit (region sums and zippers so built 12 GB before their count refused them)
    from pipeline.cli.main import main
    from pipeline.core import rulerows
    from pipeline.core.rules.classlines import Modular

    built = []
    rows_of = Modular.rows_of.__func__
    monkeypatch.setattr(Modular, "rows_of", classmethod(lambda cls, rules, *a: built.append(len(rules)) or
                                                         rows_of(cls, rules, *a)))
    line = {"rule": "modular", "cells": _snake(16)}
    one = build_model(parse_puzzle({"size": 16, "rules": [line]})).R.matrix.nnz
    monkeypatch.setattr(rulerows, "_SMALL_BYTES", 0)
    monkeypatch.setattr(rulerows, "_FIRST_SLICE_CELL_VALUES", 2 * (16 * 16 + 1) * 16)   # two whole lines
    monkeypatch.setattr(rulerows, "_SLICE_NONZEROS", 2 * one)
    monkeypatch.setenv(MAX_BYTES_ENV, str(5 * one * rulerows.RULE_BYTES_PER_NONZERO))
    built.clear()
    assert main(["build", json.dumps({"size": 16, "rules": [line] * 40})]) == 2
    assert capsys.readouterr().err.startswith("error: rules: with modular's rows the rule rows hold ")
    assert built[0] == 2 and sum(built) <= 8, built


def test_a_9x9s_rules_of_one_kind_are_built_in_one_call(monkeypatch):
    # the bound on the first slice leaves a real puzzle's kind in one call (a 9x9 has at most 144 dots)
    from pipeline.core import rulerows

    puzzle = parse_puzzle({"size": 9, "rules": [{"rule": "kropki", "cells": [f"r{r}c{c}", f"r{r}c{c + 1}"],
                                                 "color": "white"} for r in range(1, 10) for c in range(1, 9)]
                           + [{"rule": "kropki", "cells": [f"r{r}c{c}", f"r{r + 1}c{c}"], "color": "white"}
                              for r in range(1, 9) for c in range(1, 10)]})
    assert len(puzzle.rules) == 144
    assert rulerows._first_slice(list(puzzle.rules), puzzle.board) == 144
    long = parse_puzzle({"size": 100, "rules": [{"rule": "modular", "cells": _snake(100)}] * 3})
    assert rulerows._first_slice(list(long.rules), long.board) == 1


_FRAGMENTED_HEAP = """
import json
from pipeline.core.limits import release_freed_memory
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * 4096
chunks = [bytes(4000) + bytes([k % 256]) for k in range(60_000)]   # 240 MB of heap blocks
kept = chunks[::100]          # every hundredth stays: the heap's top cannot shrink past it
del chunks
before = rss()
released = release_freed_memory()
print(json.dumps([before, rss(), released]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim and /proc are Linux's")
def test_release_freed_memory_hands_back_the_free_pages_of_a_fragmented_heap():
    # check frees each reader's model before the next file; without this the next reader
    # started on top of the pages the last one freed (0.64 GB after Aeq_long.csv at 100x100)
    if "musl" in (ctypes.util.find_library("c") or "musl"):
        pytest.skip("no glibc here: malloc_trim is glibc's")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, "-c", _FRAGMENTED_HEAP], capture_output=True, text=True, timeout=120, env=env)
    before, after, released = json.loads(done.stdout)
    assert released is True
    assert before - after > 100e6, (before, after)
