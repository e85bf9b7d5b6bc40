"""pipeline/cli/commands/verify.py: verify's own lines for a GRID it cannot read."""
from __future__ import annotations

import pytest

from pipeline.cli.main import main


@pytest.mark.parametrize("grid, message", [("nonexist.txt", "grid: no such file 'nonexist.txt'"),
                                           ("somedir", "grid: 'somedir' is a directory, not a puzzle file"),
                                           ("", "grid: empty input: expected a grid")])
def test_a_grid_never_read_is_named_without_the_hint_that_a_puzzle_would_read_it(grid, message, capsys, tmp_path,
                                                                                 monkeypatch):
    """'verify nonexist.txt' said "no such file 'nonexist.txt'; a grid of another shape or other
    values is read against its puzzle: --puzzle PUZZLE": the hint is for a grid read but of no
    shape alone, and no --puzzle reads a file that is not there."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "somedir").mkdir()
    assert main(["verify", grid]) == 2
    assert capsys.readouterr().err == f"error: {message}\n"


def test_a_grid_read_but_of_no_shape_alone_still_gets_the_hint(capsys):
    assert main(["verify", "1234567890" * 5]) == 2
    assert capsys.readouterr().err.rstrip().endswith("is read against its puzzle: --puzzle PUZZLE")
