"""Issue 21, section 1, from the command line: a solution file that is not the solver's answer
(a CBC file with a repeated index line, a HiGHS file with a column line beyond its count) is a
format error naming the file and the line, exit 2 -- not an empty grid and exit 1."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from pipeline.cli.main import main
from pipeline.core.puzzle import DEFAULT_PUZZLE


def call(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.skipif(shutil.which("cbc") is None, reason="cbc is not installed")
def test_cbc_answer_with_a_repeated_index_is_exit_2(tmp_path, capsys):
    assert call(capsys, "export", DEFAULT_PUZZLE, "--to", tmp_path, "--formats", "mps", "--quiet")[0] == 0
    answer = tmp_path / "cbc.txt"
    subprocess.run(["cbc", str(tmp_path / "model.mps"), "solve", "solu", str(answer)], capture_output=True, timeout=120)
    lines = answer.read_text().splitlines(keepends=True)
    code, out, err = call(capsys, "import", answer, "--manifest", tmp_path / "manifest.json")
    assert code == 0, err                                  # the real answer imports
    entry = lines[3].split()                               # "index name value reduced-cost"
    answer.write_text("".join(lines) + f"{int(entry[0]) + 1:>7} {entry[1]} 0 0\n")
    code, out, err = call(capsys, "import", answer, "--manifest", tmp_path / "manifest.json")
    assert (code, out) == (2, ""), err
    assert len(err.splitlines()) == 1 and f"{answer}: line {len(lines) + 1}: " in err, err


def test_a_line_break_in_a_file_name_stays_one_error_line(tmp_path, capsys):
    """The file's name was quoted as it is: its line break split the error in two."""
    missing = tmp_path / "a\nb.sol"
    code, out, err = call(capsys, "import", missing)
    assert code == 2 and err.count("\n") == 1 and "a\\nb.sol" in err, err
    code, out, err = call(capsys, "import", DEFAULT_PUZZLE, "--manifest", tmp_path / "m\r\nx.json")
    assert code == 2 and err.count("\n") == 1 and "m\\r\\nx.json" in err, err


def test_every_line_breaking_or_control_character_in_a_file_name_is_shown_escaped(tmp_path, capsys):
    """Only \\r and \\n were escaped: a vertical tab, \\x1c, \\x85 or U+2028 (each a line break
    to ``str.splitlines``) and a terminal's escape \\x1b went to stderr as they are (a fuzzed
    CSV header's names did so too)."""
    missing = tmp_path / "a\x0bb\x1cc\x85d\u2028e\x1b[31mf.sol"
    code, out, err = call(capsys, "import", missing)
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "a\\x0bb\\x1cc\\x85d\\u2028e\\x1b[31mf.sol: no such file" in err, err


def test_a_missing_answer_file_is_no_such_file_with_or_without_a_manifest(tmp_path, capsys):
    """Without --manifest it said "no manifest given and no manifest.json beside it" instead."""
    missing = tmp_path / "answer.txt"
    code, out, err = call(capsys, "import", missing)
    assert (code, out, err) == (2, "", f"error: {missing}: no such file\n")
    assert call(capsys, "export", DEFAULT_PUZZLE, "--to", tmp_path / "out", "--formats", "csv", "--quiet")[0] == 0
    code, _, err = call(capsys, "import", missing, "--manifest", tmp_path / "out")
    assert code == 2 and err == f"error: {missing}: no such file\n"
