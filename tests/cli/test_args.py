"""pipeline/cli/args.py: how hint lines write the command that they suggest."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.cli import args as cli_args
from pipeline.cli.main import main

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


def test_a_float_option_read_as_another_value_is_refused_in_the_words_it_was_typed(capsys, tmp_path):
    """'--time-limit 1e400' was refused as 'found inf' (the float it overflowed to), and
    '--time-limit 1e-400' as 'found 0': the message echoes what was typed."""
    seconds = "must be a finite number of seconds greater than 0"
    cases = [
        (["rate", "." * 16, "--time-limit", "1e400"], f"error: --time-limit: {seconds}, found 1e400"),
        (["solve", "." * 16, "--time-limit", "1e-400"], f"error: --time-limit: {seconds}, found 1e-400"),
        (["explain", "." * 16, "--time-limit", "1E400"], f"error: --time-limit: {seconds}, found 1E400"),
        (["generate", "--time-limit", "1e400"], f"error: --time-limit: {seconds}, found 1e400"),
        (["generate", "--log-interval", "1e400"],
         "error: --log-interval: must be a finite number of seconds at least 0, found 1e400"),
        (["batch", str(tmp_path / "in.txt"), str(tmp_path / "out"), "--log-interval", "1e400"],
         "error: --log-interval: must be a non-negative finite number of seconds, got 1e400"),
        (["draw", "." * 16, "--to", str(tmp_path / "x.svg"), "--inches", "1e400"],
         "error: --inches: must be from 2 to 60, got 1e400"),
        (["solve", "." * 16, "--time-limit", "inf"], f"error: --time-limit: {seconds}, found inf"),   # as before
    ]
    for args, message in cases:
        assert main(args) == 2, args
        assert capsys.readouterr().err == message + "\n"


@pytest.mark.parametrize("args, message", [
    (["--seed", "-1"], "--seed: must be an integer from 0 to 9223372036854775807, found -1"),
    (["--log-interval", "-1"], "--log-interval: must be a finite number of seconds at least 0, found -1"),
    (["--clues", "-5"], "--clues: must be 0..81, found -5"),
    (["--clues", "99999"], "--clues: must be 0..81, found 99999"),
    (["--time-limit", "-1"], "--time-limit: must be a finite number of seconds greater than 0, found -1"),
    (["-n", "0"], "-n: must be at least 1, found 0"),
])
def test_generates_option_errors_name_the_option_as_solves_do(capsys, args, message):
    """--seed and --log-interval said "generate: --seed must be ..." where --clues, -n and solve's
    options say "--clues: must be ...": one form, the option then what is wrong with it."""
    assert main(["generate", *args]) == 2
    assert capsys.readouterr().err == f"error: {message}\n"
