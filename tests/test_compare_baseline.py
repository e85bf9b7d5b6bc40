"""``bench/compare_baseline.py``: one quick round against the baseline tree gives a row per writer
whose ratio is today / baseline, and each child really imported the tree it was given. No timing
assertions. Skipped (with the reason) where the baseline checkout is absent."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]

SCRIPT = PROJECT / "bench" / "compare_baseline.py"
spec = importlib.util.spec_from_file_location("compare_baseline", SCRIPT)
compare_baseline = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare_baseline)

BASELINE = compare_baseline.DEFAULT_BASELINE
needs_baseline = pytest.mark.skipif(not (BASELINE / "formats" / "__init__.py").is_file(),
                                    reason=f"no baseline checkout at {BASELINE}")


@needs_baseline
def test_one_round_gives_a_ratio_per_writer(tmp_path):
    out = tmp_path / "result.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "--models", "9x9", "--rounds", "1", "--writers", "mps,lp",
                           "--json", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out.read_text())
    assert [(r["model"], r["writer"]) for r in result["rows"]] == [("9x9", "mps"), ("9x9", "lp")]
    for row in result["rows"]:
        assert row["baseline_s"] > 0 and row["today_s"] > 0
        assert row["ratio"] == pytest.approx(row["today_s"] / row["baseline_s"])
        assert (row["rows"], row["columns"]) == (347, 729)   # the seed: 324 rule rows + 23 clue rows
    assert "ratio" in done.stdout


@needs_baseline
def test_a_child_refuses_the_wrong_tree():
    spec = {"text": compare_baseline.SEED, "writers": ["mps"], "inner": 1, "tree": str(BASELINE)}
    # PYTHONPATH names today's tree, the spec the baseline: the child must notice
    done = subprocess.run([sys.executable, str(SCRIPT), "--child", json.dumps(spec)], capture_output=True, text=True,
                          timeout=120, env={"PYTHONPATH": str(PROJECT)}, cwd="/")
    assert done.returncode != 0 and "expected" in done.stderr


def test_bad_options_exit_2():
    assert compare_baseline.main(["--rounds", "0"]) == 2
    assert compare_baseline.main(["--models", "7x7"]) == 2
