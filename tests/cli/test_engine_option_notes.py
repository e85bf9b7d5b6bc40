"""Engine options the named engine does not take are noted on stderr, not silently dropped; the
uniqueness switches contradict each other."""
from __future__ import annotations

import pytest

from pipeline.cli.main import main
from pipeline.solvers import get_solver

PUZZLE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


def _usable(name: str) -> None:
    problem = get_solver(name).problem_with()
    if problem is not None:
        pytest.skip(f"{name}: {problem}")


@pytest.mark.parametrize("solver, extra, noted", [
    ("sat", ["--threads", "2"], "--threads"),
    ("highs", ["--sat-backend", "glucose4"], "--sat-backend"),
    ("dfs", ["--amo", "ladder", "--threads", "2"], "--threads or --amo"),
    ("dfs", ["--presolve", "none"], "--presolve"),   # was dropped without a word (its default hid it)
    ("cpsat", ["--presolve", "singles"], "--presolve"),
])
def test_an_option_the_named_engine_does_not_take_is_noted(capsys, solver, extra, noted):
    _usable(solver)
    assert main(["solve", PUZZLE, "--solver", solver, "--format", "line", *extra]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == SOLUTION
    verb = "they are" if " or " in noted else "it is"
    assert f"note: --solver {solver} takes no {noted}; {verb} ignored\n" in captured.err


@pytest.mark.parametrize("extra", [["--threads", "2"], ["--presolve", "none"]])
def test_options_the_engine_takes_get_no_note(capsys, extra):
    _usable("highs")
    assert main(["solve", PUZZLE, "--solver", "highs", *extra, "--format", "line"]) == 0
    assert "note:" not in capsys.readouterr().err


def test_auto_is_never_noted(capsys):
    assert main(["solve", PUZZLE, "--threads", "2", "--sat-backend", "glucose4", "--format", "line"]) == 0
    assert "takes no" not in capsys.readouterr().err


def test_count_notes_what_its_engine_does_not_take(capsys):
    _usable("highs")
    assert main(["count", PUZZLE, "--solver", "highs", "--sat-backend", "glucose4"]) == 0
    assert "note: --solver highs takes no --sat-backend; it is ignored\n" in capsys.readouterr().err


def test_an_engine_counting_by_another_for_uniqueness_is_not_noted_for_that_ones_options(capsys):
    """cbc cannot count in process: the uniqueness check goes to auto's counting engine, which may
    take --sat-backend, so nothing is said; with --no-unique-check the option is unused, and said."""
    _usable("cbc")
    assert main(["solve", PUZZLE, "--solver", "cbc", "--sat-backend", "glucose4", "--format", "line"]) == 0
    assert "takes no" not in capsys.readouterr().err
    assert main(["solve", PUZZLE, "--solver", "cbc", "--sat-backend", "glucose4", "--no-unique-check",
                 "--format", "line"]) == 0
    assert "note: --solver cbc takes no --sat-backend; it is ignored\n" in capsys.readouterr().err


def test_unique_and_no_unique_check_together_are_refused(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["solve", PUZZLE, "--unique", "--no-unique-check"])
    assert stop.value.code == 2
    assert "argument --no-unique-check: not allowed with argument --unique" in capsys.readouterr().err
