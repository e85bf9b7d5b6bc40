"""The solver registry's capabilities are fields of each entry (data the CLI and batch read, not
special cases by name)."""
from __future__ import annotations

from pipeline.cli.args import default_count_solver
from pipeline.cli.main import build_parser
from pipeline.solvers import SOLVERS, batch_solver_names, get_solver


def _choices(command: str, option: str) -> list[str] | None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    return next(a for a in sub._actions if option in a.option_strings).choices


def test_batch_offers_exactly_the_solvers_with_a_batch_kernel():
    # the set batch has always offered, now read from the entries
    assert batch_solver_names() == ["highs", "sat", "cpsat"]
    assert list(_choices("batch", "--solver")) == batch_solver_names()
    assert all(callable(SOLVERS[name].batch_kernel) for name in batch_solver_names())
    assert all(SOLVERS[name].timed_call for name in batch_solver_names())


def test_count_choices_are_the_entries_that_count():
    counting = [name for name, s in SOLVERS.items() if s.counts]
    assert _choices("count", "--solver") == counting
    assert {"highs", "sat", "cpsat"} <= set(counting)
    assert not any(s.counts for s in SOLVERS.values() if not s.in_process)


def test_the_default_counting_engine_is_read_from_the_fields():
    chosen = get_solver(default_count_solver())
    assert chosen.counts
    if SOLVERS["sat"].available() is None:
        assert chosen.proves_unique
    provers = [name for name, s in SOLVERS.items() if s.proves_unique]
    assert provers == ["sat"]
