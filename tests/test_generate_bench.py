"""``bench/generate_bench.py --quick`` (part of ``make bench-quick``) stays a smoke run."""
from __future__ import annotations

import importlib.util

from oracles import PROJECT


def _load():
    spec = importlib.util.spec_from_file_location("generate_bench", PROJECT / "bench" / "generate_bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_quick_leaves_the_minimal_25x25_out_and_says_so(monkeypatch, capsys):
    """Seed 0 of the minimal 25x25 alone took 487 s of an 8.5-minute --quick run."""
    bench = _load()
    shape = next(s for s in bench.SHAPES if s[0] == "25x25 minimal")
    monkeypatch.setattr(bench, "SHAPES", [shape])

    def generate(**kw):
        raise AssertionError(f"generated in --quick: {kw}")

    monkeypatch.setattr(bench, "generate", generate)
    assert bench.bench_generation(quick=True) == []
    assert "25x25 minimal                left out of --quick" in capsys.readouterr().out


def test_each_bench_help_shows_its_whole_description():
    """--help printed the docstring's first line only, cut mid-sentence ("MaxSAT methods of")."""
    import subprocess
    import sys

    for script in ("generate_bench.py", "sat_rules_bench.py", "rules_bench.py", "run.py", "sat_bench.py"):
        proc = subprocess.run([sys.executable, str(PROJECT / "bench" / script), "--help"], capture_output=True,
                              text=True, timeout=120, cwd=PROJECT)
        assert proc.returncode == 0, proc.stderr[-2000:]
        spec = importlib.util.spec_from_file_location("doc_of_" + script[:-3], PROJECT / "bench" / script)
        doc = spec.loader.get_source(spec.name)
        second_line = [line for line in doc.split('"""')[1].splitlines() if line.strip()][1].strip()
        assert second_line in proc.stdout, (script, second_line)
