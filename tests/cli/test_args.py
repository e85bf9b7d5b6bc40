"""pipeline/cli/args.py: how hint lines write the command that they suggest."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pipeline.cli import args as cli_args

PROJECT = Path(__file__).resolve().parents[2]


def _script(folder: Path) -> Path:
    script = folder / "sudoku-pipeline"
    script.write_text(f"#!{sys.executable}\nimport sys\nfrom pipeline.cli import main\nsys.exit(main())\n")
    script.chmod(0o755)
    return script


def test_hints_name_the_way_the_command_was_started(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["-m", "solve"])
    assert cli_args.command_words() == "python -m pipeline"
    script = _script(tmp_path)
    monkeypatch.setattr(sys, "argv", [str(script), "export"])
    monkeypatch.setenv("PATH", str(tmp_path))
    assert cli_args.command_words() == "sudoku-pipeline"
    # a venv's script run by its path: `python -m pipeline` would be another interpreter
    monkeypatch.setenv("PATH", os.devnull)
    assert cli_args.command_words() == str(script)
    spaced = tmp_path / "a b"
    spaced.mkdir()
    monkeypatch.setattr(sys, "argv", [str(_script(spaced)), "export"])
    assert cli_args.command_words() == f"'{spaced}/sudoku-pipeline'"


def test_the_installed_scripts_export_hint_runs(tmp_path):
    """The export's `Then: ... import` line said `python -m pipeline` from the installed script,
    which fails where `python` is not the script's interpreter (a venv not activated, pipx)."""
    script = _script(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(PROJECT), PATH="/usr/bin:/bin")
    proc = subprocess.run([str(script), "export", "--to", str(tmp_path / "m.lp")], cwd="/", env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert f"Then: {script} import SOLUTION --manifest" in proc.stdout, proc.stdout
    assert f"(check the pair: {script} check {tmp_path / 'm.lp'})" in proc.stdout
    assert "python -m pipeline" not in proc.stdout
