"""Every engine of the registry, fuzzed over the options it declares (time limit, threads, the
HiGHS seed, backends, encodings, work directories), running for real on a small 4x4 puzzle.

One test over :data:`pipeline.solvers.SOLVERS` (an absent engine is skipped with its reason):
through the API (``solve``/``count`` of the entry) and the command line (``solve``/``count``
in process), never a traceback (nor one in a timer thread); either a result or one clean line.
``--time-limit 1e308`` (finite, so accepted) used to crash cbc, octave, minisat (subprocess's
timeout overflowed) and scip (``limits/time`` stops at 1e20); each engine's bound now clamps it.
"""
from __future__ import annotations

import contextlib
import io
import math
import threading

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pipeline.cli.main import main
from pipeline.core.build import build_model
from pipeline.core.clauses import AMO_ENCODINGS
from pipeline.core.errors import PipelineError
from pipeline.core.options import MAX_THREADS
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.verify import verify_grid
from pipeline.solvers import SOLVERS, STATUSES
from pipeline.solvers.sat import sat_backends

PUZZLE = "1...........3..2"     # 4x4, two solutions: count finds both
BOX = "2x2"
#: a fast, a slow-starting (a JVM, Octave) and the slowest engine get fewer examples
EXAMPLES = {"octave": 6, "sat4j": 10}

TIME_LIMITS = st.one_of(
    st.none(),
    st.sampled_from([1e308, 1.7976931348623157e308, 2e6, 2_000_001.0, 2_147_484.0, 1e20, 1e21, 9.3e9, 1e-300,
                     5e-324, 0.0, -0.0, -1.0, math.nan, math.inf, -math.inf, 3, 10 ** 400]),
    st.floats(),
    st.floats(min_value=0.5, max_value=1e308),
)
THREADS = st.one_of(st.none(), st.sampled_from([0, 1, 2, MAX_THREADS, MAX_THREADS + 1, 10 ** 6, -3, 2 ** 63]),
                    st.integers(-2 ** 70, 2 ** 70))


def _options(solver) -> st.SearchStrategy[dict]:
    """A strategy of option dicts over exactly the options ``solver`` declares (solve or count)."""
    declared = solver.options | solver.count_options
    values = {
        "time_limit": TIME_LIMITS,
        "threads": THREADS,
        "sat_backend": st.one_of(st.none(), st.sampled_from(sat_backends() or ["cadical153"])),
        "amo": st.one_of(st.none(), st.sampled_from(("auto", *AMO_ENCODINGS))),
        "file_format": st.one_of(st.none(), st.sampled_from(("cnf", "opb"))),
        "check_unique": st.booleans(),
        "reuse": st.booleans(),
        # HiGHS's seed: a value it refuses is one line too
        "options": st.one_of(st.none(), st.fixed_dictionaries({"random_seed": st.integers(-2 ** 40, 2 ** 40)})),
        "workdir": st.one_of(st.none(), st.just("fresh")),
        "presolve": st.sampled_from(("singles", "none")),
        "keep": st.one_of(st.none(), st.integers(-1, 3)),
    }
    assert declared <= set(values), f"{solver.name}: options the fuzz does not know: {declared - set(values)}"
    return st.fixed_dictionaries({}, optional={name: values[name] for name in declared})


def _cli_argv(command: str, name: str, options: dict) -> list[str]:
    argv = [command, PUZZLE, "--box", BOX, "--solver", name, "--format", "line"]
    for key, flag in (("time_limit", "--time-limit"), ("threads", "--threads"), ("sat_backend", "--sat-backend"),
                      ("amo", "--amo"), ("workdir", "--workdir")):
        if options.get(key) is not None and (command == "solve" or key != "workdir"):
            argv.append(f"{flag}={options[key]!r}" if isinstance(options[key], float) else f"{flag}={options[key]}")
    return argv


def _run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:   # argparse's usage errors
            code = e.code
    return code, out.getvalue(), err.getvalue()


def _one_clean_line(text: str) -> bool:
    return len(text.splitlines()) == 1 and "Traceback" not in text and "\n" == text[-1:]


@pytest.mark.parametrize("name", list(SOLVERS))
def test_every_engine_takes_or_refuses_every_option_value(name, tmp_path_factory, monkeypatch):
    solver = SOLVERS[name]
    reason = solver.available()
    if reason:
        pytest.skip(f"{name}: {reason}")
    thread_errors: list[BaseException] = []
    monkeypatch.setattr(threading, "excepthook", lambda hook_args: thread_errors.append(hook_args.exc_value))
    puzzle = parse_puzzle(PUZZLE, box=BOX)
    model = build_model(puzzle)

    @settings(max_examples=EXAMPLES.get(name, 25 if solver.in_process else 12), deadline=None, derandomize=True,
              database=None, suppress_health_check=list(HealthCheck))
    @given(options=_options(solver), via=st.sampled_from(["api", "cli"]),
           counting=st.booleans() if solver.counts else st.just(False))
    @example(options={"time_limit": 1e308}, via="cli", counting=False)
    @example(options={"time_limit": 1e308}, via="api", counting=False)
    @example(options={"time_limit": 10 ** 400}, via="api", counting=False)   # no float holds it: it overflowed
    @example(options={"time_limit": 10 ** 400}, via="api", counting=solver.counts)   # start + limit in sat
    def run(options, via, counting):
        options = dict(options)
        if options.get("workdir") == "fresh":
            options["workdir"] = str(tmp_path_factory.mktemp(f"work-{name}"))
        what = "count" if counting else "solve"
        where = f"{name} {what} via {via} with {options}"
        if via == "cli":
            code, out, err = _run_cli(_cli_argv(what, name, options))
            assert "Traceback" not in err, where + "\n" + err
            assert code in (0, 1, 2), where + "\n" + err
            if code == 2:
                assert _one_clean_line(err) and ("error" in err), where + "\n" + err
            elif code == 0:
                assert out.strip(), where
        else:
            taken = solver.pick_options(options, what)
            try:
                if counting:
                    result = solver.count(model, 2, **taken)
                    assert result.status in ("complete", "limit", *STATUSES), where
                    assert all(verify_grid(g, puzzle) for g in result.grids), where
                else:
                    result = solver.solve(model, **taken)
                    assert result.status in STATUSES, where
                    assert result.grid is None or verify_grid(result.grid, puzzle), where
            except PipelineError as e:
                assert _one_clean_line(f"{e}\n"), where + f": {e!r}"
        assert not thread_errors, f"{where}: a thread raised {thread_errors[0]!r}"

    run()


@pytest.mark.parametrize("name", list(SOLVERS))
def test_every_engine_states_what_it_takes_for_its_numeric_options(name):
    """The bounds live on each entry (one place per engine): every engine with a time limit or
    threads declares what it takes, and the help text is read from them."""
    solver = SOLVERS[name]
    for option in ("time_limit", "threads"):
        if option in solver.options | solver.count_options:
            assert option in solver.bounds, f"{name} takes {option} but states no bound for it"
    if "threads" in solver.bounds:
        assert solver.bounds["threads"].high == MAX_THREADS and solver.bounds["threads"].above == "refuse"


def test_a_time_limit_above_an_engines_maximum_is_clamped_to_it():
    """The entry hands the engine its maximum (the value the function receives), and refuses
    what no engine takes (NaN, 0) with one line naming the engine."""
    from pipeline.core.errors import SolveError
    from pipeline.core.options import time_limit_bound
    from pipeline.solvers import Solver

    seen = []

    def solve(model, *, time_limit=None):
        seen.append(time_limit)
        return SOLVERS["highs"].solve(model)

    toy = Solver("toy-bounded", "HiGHS with a short maximum", solve=solve,
                 bounds={"time_limit": time_limit_bound(100.0, "a toy")})
    model = build_model(parse_puzzle(PUZZLE, box=BOX))
    toy.solve(model, time_limit=1e308)
    toy.solve(model, time_limit=7.5)
    toy.solve(model)
    assert seen == [100.0, 7.5, None]
    for bad in (math.nan, 0, -1.0, "5", True):
        with pytest.raises(SolveError, match=r"^solver toy-bounded: solve: time_limit must be a finite number of "
                                             r"seconds greater than 0, found"):
            toy.solve(model, time_limit=bad)
    with pytest.raises(TypeError, match="bounds for options it does not take: threads"):
        Solver("toy-wrong", "a bound for an option it lacks", solve=solve,
               bounds={"threads": time_limit_bound()})


@pytest.mark.parametrize("backend", ["glucose4", "minisat22", "cadical153"])
@pytest.mark.parametrize("name", ["highs", "sat", "cpsat"])
def test_batch_takes_a_huge_time_limit(name, backend, tmp_path, monkeypatch):
    """batch's --time-limit reaches the engines' shape kernels directly (not through the entry):
    an interruptible SAT backend's timer used to raise OverflowError in its thread."""
    if name != "sat" and backend != "cadical153":
        pytest.skip("the backend is the SAT engine's option")
    reason = SOLVERS[name].available()
    if reason:
        pytest.skip(f"{name}: {reason}")
    thread_errors: list[BaseException] = []
    monkeypatch.setattr(threading, "excepthook", lambda hook_args: thread_errors.append(hook_args.exc_value))
    source = tmp_path / "in.txt"
    source.write_text(f"{PUZZLE}\n", encoding="utf-8")
    argv = ["batch", str(source), str(tmp_path / "out"), "--box", BOX, "--solver", name, "--workers", "1",
            "--time-limit", "1e308", "--progress", "none", "--no-propagate"]
    if name == "sat":
        argv += ["--sat-backend", backend]
    code, _, err = _run_cli(argv)
    assert code == 0 and "Traceback" not in err, err
    assert not thread_errors, repr(thread_errors[0])
