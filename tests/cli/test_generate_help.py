"""pipeline/cli/commands/generate.py: what generate's --help says of an option is what it does."""
from __future__ import annotations

import pytest

from pipeline.cli.main import build_parser, main


def _help(option: str) -> str:
    sub = next(a for a in build_parser()._actions if a.dest == "command").choices["generate"]
    return " ".join(next(a for a in sub._actions if option in a.option_strings).help.split())


@pytest.mark.parametrize("other", [["--rule", "antiknight"], ["--killer"], ["--cages-only"]])
def test_minimal_help_says_it_is_refused_beside_rules_and_cages_as_it_is(other, capsys):
    """--minimal's help said "with --rule, --killer or --cages-only every clue is tried anyway, and
    'minimal' says so", as if the pair ran, where generate refuses it (docs/tools.md says so)."""
    assert main(["generate", "--size", "4", "--seed", "1", "--minimal", *other]) == 2
    assert f"--minimal cannot be combined with {other[0]}" in capsys.readouterr().err
    assert "refused with --rule, --killer or --cages-only" in _help("--minimal")
