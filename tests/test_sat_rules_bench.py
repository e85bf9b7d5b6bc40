"""``bench/sat_rules_bench.py --quick`` (part of ``make bench-quick``): it runs, measures every
card and PB encoding on every puzzle kind, and each CNF it measured has the puzzle's solutions
(at least one; two are asked for). No timing assertions."""
from __future__ import annotations

import importlib.util
import json

import pytest
from oracles import PROJECT

from pipeline.core.clauses_pb import CARD_ENCODINGS, PB_ENCODINGS

pytest.importorskip("pysat.pb", reason="python-sat's pb extra (pindakaas) is not installed")


def test_quick_run_writes_every_encoding(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("sat_rules_bench", PROJECT / "bench" / "sat_rules_bench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--quick", "--results-dir", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "sat_rules_quick.json").read_text())
    assert [r["encoding"] for r in result["rows"]] == list(PB_ENCODINGS) + list(CARD_ENCODINGS)
    assert result["puzzles"] == ["killer-1", "kropki-1", "miracle"]
    for row in result["rows"]:
        assert set(row["puzzles"]) == set(result["puzzles"])
        assert all(p["solutions"] >= 1 and p["clauses"] > 0 for p in row["puzzles"].values())
        assert row["puzzles"]["miracle"]["solutions"] == 1     # the Miracle sudoku is unique
    assert "* = default" in capsys.readouterr().out
