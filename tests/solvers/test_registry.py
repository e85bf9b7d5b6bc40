"""The solver registry's capabilities are fields of each entry (data the CLI and batch read, not
special cases by name)."""
from __future__ import annotations

import pytest

from pipeline.cli.args import default_count_solver
from pipeline.cli.main import build_parser, main
from pipeline.core.build import build_model
from pipeline.core.errors import SolveError
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers import SOLVERS, Solver, batch_solver_names, get_solver, register_solver
import pipeline.batch  # noqa: E402,F401  (registers the batch kernels: alone, this file saw none)
from pipeline.solvers.highs import solve as highs_solve
from pipeline.solvers.auto import AUTO


def _choices(command: str, option: str) -> list[str] | None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    return next(a for a in sub._actions if option in a.option_strings).choices


def test_batch_offers_exactly_the_solvers_with_a_batch_kernel():
    # the set batch has always offered, now read from the entries (dfs: its kernel since issue 18)
    assert batch_solver_names() == ["highs", "sat", "cpsat", "dfs"]
    assert list(_choices("batch", "--solver")) == [AUTO, *batch_solver_names()]   # auto first, the default
    assert all(callable(SOLVERS[name].batch_kernel) for name in batch_solver_names())
    assert all(SOLVERS[name].timed_call for name in batch_solver_names())


def test_count_choices_are_the_entries_that_count():
    counting = [name for name, s in SOLVERS.items() if s.counts]
    assert _choices("count", "--solver") == [AUTO, *counting]
    assert {"highs", "sat", "cpsat"} <= set(counting)
    assert not any(s.counts for s in SOLVERS.values() if not s.in_process)


def test_the_default_counting_engine_is_read_from_the_fields():
    chosen = get_solver(default_count_solver())
    assert chosen.counts
    if SOLVERS["sat"].available() is None:
        assert chosen.proves_unique
    provers = [name for name, s in SOLVERS.items() if s.proves_unique]
    assert provers == ["sat", "dfs", "dfsrules"]


def test_a_new_entry_that_proves_uniqueness_is_used_by_solve(capsys):
    """solve asks any entry with proves_unique for check_unique, whatever its name, and passes it
    only the options it declares (time_limit and check_unique here, not threads or amo)."""
    calls = []

    def solve(model, *, time_limit=None, check_unique=False):
        calls.append(check_unique)
        result = highs_solve(model, time_limit=time_limit)
        result.unique = True
        return result

    register_solver(Solver("toy-unique", "HiGHS that says unique", solve=solve, proves_unique=True))
    try:
        assert main(["solve", "--solver", "toy-unique", "--format", "json", "--threads", "2", "--amo", "ladder"]) == 0
    finally:
        SOLVERS.pop("toy-unique")
    assert calls == [True]
    assert '"unique": true' in capsys.readouterr().out


# -- options: declared by the signature, anything else refused with one line --------------------
MODEL = build_model(parse_puzzle(DEFAULT_PUZZLE), clues="bounds")


@pytest.mark.parametrize("name", ["highs", "sat", "cpsat", "scip", "minisat"])
def test_a_misspelt_option_is_refused_naming_the_option_and_the_engine(name):
    solver = SOLVERS[name]
    with pytest.raises(SolveError) as err:
        solver.solve(MODEL, time_limt=5)
    message = str(err.value)
    assert message.startswith(f"solver {name}: solve takes no option 'time_limt' (it takes: ")
    assert "time_limit" in message and "\n" not in message
    if solver.counts:
        with pytest.raises(SolveError, match=rf"^solver {name}: count takes no option 'amo_encoding'"):
            solver.count(MODEL, 2, amo_encoding="ladder")


def test_every_entry_declares_its_options_from_its_signature():
    for name, solver in SOLVERS.items():
        assert "time_limit" in solver.options, name          # every engine honours a time limit
        assert solver.proves_unique <= ("check_unique" in solver.options), name
        assert not solver.count_options or "time_limit" in solver.count_options, name
    assert SOLVERS["sat"].options == {"time_limit", "sat_backend", "amo", "reuse", "check_unique", "presolve"}
    assert SOLVERS["highs"].count_options == {"time_limit", "threads", "presolve", "keep"}
    assert SOLVERS["scip"].options == {"time_limit", "workdir"}


def test_an_entry_must_declare_its_options():
    def swallow(model, *, time_limit=None, **_):
        return None

    with pytest.raises(TypeError, match=r"takes \*\*_: declare each option"):
        Solver("toy-swallow", "takes anything", solve=swallow)
    with pytest.raises(TypeError, match="proves_unique, but its solve takes no check_unique"):
        Solver("toy-liar", "no check_unique", solve=lambda model, *, time_limit=None: None, proves_unique=True)


def test_pick_options_passes_each_engine_only_its_own():
    everything = {"time_limit": 3.0, "threads": 2, "workdir": "w", "sat_backend": None, "amo": "auto"}
    assert SOLVERS["highs"].pick_options(everything) == {"time_limit": 3.0, "threads": 2}
    assert SOLVERS["sat"].pick_options(everything, "count") == {"time_limit": 3.0, "sat_backend": None, "amo": "auto"}
    assert SOLVERS["scip"].pick_options(everything) == {"time_limit": 3.0, "workdir": "w"}


def test_the_cli_still_passes_every_engine_its_options(capsys):
    # --threads and --workdir mean nothing to the SAT engine: not passed, the answer as before
    assert main(["solve", "--solver", "sat", "--threads", "2", "--workdir", "w", "--format", "line"]) == 0
    assert main(["count", "--solver", "highs", "--amo", "ladder", "--sat-backend", "minisat22"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert verify_grid(parse_puzzle(out[0]).grid, parse_puzzle(DEFAULT_PUZZLE)) and out[1] == "1 (unique)"


def test_the_builtin_table_matches_the_modules_that_register_them():
    from pipeline.solvers.base import BUILTIN_SOLVERS

    assert list(SOLVERS)[:len(BUILTIN_SOLVERS)] == [name for name, _ in BUILTIN_SOLVERS]
    for name, module in BUILTIN_SOLVERS:
        entry = SOLVERS[name]
        assert entry.name == name
        where = {getattr(entry.solve, "__module__", None), getattr(entry.available, "__module__", None)}
        assert f"pipeline.solvers.{module}" in where, (name, where)


def test_a_rule_puzzle_solve_imports_only_the_engines_it_uses():
    import subprocess
    import sys

    code = ("import sys, io, contextlib\n"
            "from pipeline.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['solve', '{\"size\": 4, \"givens\": \"1...............\", \"rules\": "
            "[{\"rule\": \"thermo\", \"cells\": [\"r1c2\", \"r1c3\"]}]}', '--format', 'line'])\n"
            "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('pipeline.solvers.')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = set(eval(done.stdout))   # noqa: S307 (our own list of names)
    assert "auto" in loaded
    assert not loaded & {"highs", "external", "sat_external", "cpsat"}, loaded


def test_time_limit_help_still_names_the_clamped_engines(capsys):
    with pytest.raises(SystemExit):
        main(["solve", "--help"])
    assert "clamped to the engine's maximum" in " ".join(capsys.readouterr().out.split())


def test_a_count_for_the_uniqueness_check_is_in_the_answer_s_seconds():
    """An engine that cannot prove uniqueness while solving is followed by a count to 2: the
    count's time is the answer's ``proof_seconds`` and part of its ``seconds``."""
    import time

    from pipeline.solvers import CountResult
    from pipeline.solvers.base import solve_then_count

    def slow_count(model, limit, *, time_limit=None, keep=None):
        time.sleep(0.05)
        return CountResult(1, [], "complete", 0.05)

    model = build_model(parse_puzzle(DEFAULT_PUZZLE))
    answer = solve_then_count(SOLVERS["highs"], model, None, True, slow_count)
    assert answer.solved and answer.unique is True
    assert answer.proof_seconds is not None and answer.proof_seconds >= 0.05
    assert answer.seconds >= answer.proof_seconds + 1e-6   # HiGHS's own run, then the count
    alone = solve_then_count(SOLVERS["highs"], model, None, False, slow_count)
    assert alone.proof_seconds is None and alone.unique is None
