"""The command line's option values: out-of-range values are refused with one line before any
work (issue 11 item 9), and --help states every option's default (issue 11 item 22). Moved from
test_cli.py (at the 800-line limit).
"""
from __future__ import annotations

import argparse

import pytest

from pipeline.cli.main import build_parser, main
from cli_helpers import PUZZLE, assert_one_error_line, call, subcommands


# ---------------------------------------------------------------------------------------------
# issue 11 item 9: out-of-range option values are refused with one line, before any work
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("args,message", [
    (["solve", "--threads", "100000"], "error: --threads: must be from 1 to 256, found 100000"),
    (["count", "--threads", "0"], "error: --threads: must be from 1 to 256, found 0"),
    (["solve", "--time-limit", "nan"], "error: --time-limit: must be a finite number of seconds greater than 0, found nan"),
    (["solve", "--time-limit", "inf"], "error: --time-limit: must be a finite number of seconds greater than 0, found inf"),
    (["count", "--time-limit=-inf"], "error: --time-limit: must be a finite number of seconds greater than 0, found -inf"),
    (["solve", "--time-limit=-1"], "error: --time-limit: must be a finite number of seconds greater than 0, found -1"),
    (["solve", "--time-limit", "0"], "error: --time-limit: must be a finite number of seconds greater than 0, found 0"),
    (["build", "--size", "0"], "error: --size: must be at least 1, found 0"),
    # the options as typed, though the Python API's errors name its keywords (cap, clues, count)
    (["explain", PUZZLE, "--cap", "0"], "error: --cap: must be an integer of at least 2, found 0"),
    (["explain", PUZZLE, "--cap", "1"], "error: --cap: must be an integer of at least 2, found 1"),
    (["generate", "--clues", "99"], "error: --clues: must be 0..81, found 99"),
    (["generate", "--size", "4", "--clues", "-3"], "error: --clues: must be 0..16, found -3"),
    (["generate", "-n", "0"], "error: -n: must be at least 1, found 0"),
    (["generate", "--size", "65"], "error: --size: classic puzzles are 4x4 to 64x64, found 65x65"),
    (["generate", "--box", "9x9"], "error: --box: 9x9 boxes make a grid of side 81; classic puzzles are 4x4 to 64x64"),
    (["generate", "--size", "1", "--variant", "x"], "error: --size: x puzzles are 4x4 to 64x64, found 1x1"),
    # one range for every side refused, 0 and negative sides too (the generic "at least 1" said less)
    (["generate", "--size", "0"], "error: --size: classic puzzles are 4x4 to 64x64, found 0"),
    (["generate", "--size", "-2", "--variant", "latin"], "error: --size: latin puzzles are 2x2 to 64x64, found -2"),
    (["generate", "--box", "0x3"], "error: --box: '0x3' is not of the form HxW with sides from 1 (e.g. 3x3 or 2x3)"),
    (["generate", "--box", "2x2", "--size", "9"], "error: --box: 2x2 boxes do not tile a 9x9 grid (h*w must be 9)"),
    (["generate", "--box", "1x2"], "error: --box: classic puzzles are 4x4 to 64x64, found 2x2 (a Latin square from 2x2: --variant latin)"),
])
def test_out_of_range_options_are_refused(capsys, args, message):
    assert assert_one_error_line(*call(capsys, *args)) == message


def test_threads_bound_is_in_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["solve", "--help"])
    assert "1..256" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("formats", ["bogus", ",,", "csv,bogus", " , "])
def test_export_with_no_usable_format_writes_nothing(capsys, tmp_path, formats):
    line = assert_one_error_line(*call(capsys, "export", "--to", tmp_path / "out", "--formats", formats))
    assert "format" in line
    assert list(tmp_path.iterdir()) == []


def test_export_to_an_empty_path_is_refused(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert "empty path" in assert_one_error_line(*call(capsys, "export", "--to", "", "--formats", "csv"))
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------------
# issue 11 item 22: --help states every option's default
# ---------------------------------------------------------------------------------------------
_FLAG_ACTIONS = (argparse._HelpAction, argparse._StoreTrueAction, argparse._StoreFalseAction,
                 argparse._StoreConstAction, argparse._CountAction, argparse._VersionAction)


def options_hiding_their_default(command: str) -> list[str]:
    """Options (and optional positionals) with a default value whose help does not say it."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    hiding = []
    for action in sub._actions:
        if isinstance(action, _FLAG_ACTIONS) or action.required or action.default in (None, argparse.SUPPRESS):
            continue
        if not action.help or "default" not in action.help.lower():
            hiding.append("/".join(action.option_strings) or action.dest)
    return hiding


@pytest.mark.parametrize("command", subcommands())
def test_every_option_with_a_default_states_it(command):
    assert options_hiding_their_default(command) == []


@pytest.mark.parametrize("command", ["solve", "count"])
def test_help_states_the_solver_limits_defaults(capsys, command):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    described = text.split(" options: ", 1)[1]   # past the usage line, which names each option too
    for option in ("--time-limit S", "--threads K"):
        after = described.split(option, 1)[1].split(" --", 1)[0]
        assert "default" in after, (option, after)
    assert "81-char string" not in text and "N*N cells" in text
