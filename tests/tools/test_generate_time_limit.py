"""generate's whole-run time budget and its progress (issue 19 item 9): a long run says how far it
is, stops cleanly at --time-limit with the finished puzzles written and exit code 1, and the
puzzles it finishes are exactly those an unlimited run with the same seed makes first."""
from __future__ import annotations

import io
import math
import re
import subprocess
import sys
import time

import pytest

from oracles import PROJECT
from pipeline.core.errors import PuzzleError
from pipeline.core.progress import Progress
from pipeline.core.puzzle import parse_puzzle
from pipeline.tools.generate import count_up_to, generate
from pipeline.tools.generate.puzzles import FULL_GRID_STEP
from pipeline.tools.generate.removal import MINIMALITY_STEP, REMOVAL_STEP


def run_cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pipeline", *args], capture_output=True, text=True, cwd=PROJECT,
                          **kw)


def test_the_budget_ends_the_stream_after_the_finished_puzzles():
    """The third puzzle's first step takes longer than the whole budget (the progress callback
    sleeps there): the stream ends with the two finished puzzles, which are the ones an
    unlimited run of the same seed starts with."""
    budget = 2.0

    def slow_third(index, step, done, total):
        if index == 2 and done == 0:
            time.sleep(budget)

    start = time.perf_counter()
    made = list(generate(size=9, count=5, seed=11, minimal=True, time_limit=budget, progress=slow_third))
    assert time.perf_counter() - start >= budget
    unlimited = list(generate(size=9, count=5, seed=11, minimal=True))
    assert len(made) == 2
    assert [g.puzzle.grid.tolist() for g in made] == [g.puzzle.grid.tolist() for g in unlimited[:2]]
    assert all(count_up_to(g.puzzle, 2) == 1 and g.minimal for g in made)


def test_progress_reports_every_step_of_every_puzzle():
    seen = []
    made = list(generate(size=9, count=2, seed=3, minimal=True, progress=lambda *a: seen.append(a)))
    assert len(made) == 2
    assert {index for index, *_ in seen} == {0, 1}
    steps = {step for _, step, _, _ in seen}
    assert steps == {FULL_GRID_STEP, REMOVAL_STEP, MINIMALITY_STEP}
    for index in (0, 1):
        removal = [(done, total) for i, step, done, total in seen if i == index and step == REMOVAL_STEP]
        assert removal[0] == (0, 81) and all(0 <= d < t == 81 for d, t in removal)
        assert [d for d, _ in removal] == sorted(d for d, _ in removal)      # it moves forward
        proof = [(done, total) for i, step, done, total in seen if i == index and step == MINIMALITY_STEP]
        assert [d for d, _ in proof] == list(range(made[index].puzzle.n_clues))   # one report per clue


@pytest.mark.parametrize("bad", [math.nan, math.inf, 0, -1.0, "5"])
def test_a_bad_budget_is_one_line(bad):
    with pytest.raises(PuzzleError, match=r"^time_limit: must be a finite number of seconds greater than 0"):
        next(generate(size=4, seed=1, time_limit=bad))


def test_a_huge_budget_is_no_budget():
    """--time-limit 1e308 is finite, so accepted: the run makes every puzzle (issue 19 item 6)."""
    r = run_cli("generate", "--size", "4", "-n", "2", "--seed", "1", "--time-limit", "1e308")
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 2, r.stderr
    assert r.stdout == run_cli("generate", "--size", "4", "-n", "2", "--seed", "1").stdout


def test_the_command_stops_at_its_budget_writes_the_finished_and_exits_1(tmp_path):
    """A 25x25 minimal puzzle takes far longer than 6 s (20-40 s): the run stops near its budget,
    says how many it finished, writes them, exit code 1; the log lines said how far it was
    meanwhile. The budget leaves the full grid (about 2 s idle, more beside another test worker,
    and held to the budget since session 33) time to finish, so removal's lines come."""
    out = tmp_path / "p.txt"
    start = time.perf_counter()
    r = run_cli("generate", "--size", "25", "--minimal", "-n", "3", "--seed", "2", "--time-limit", "6",
                "--progress", "log", "--log-interval", "0", "--to", str(out), timeout=300)
    seconds = time.perf_counter() - start
    assert r.returncode == 1, r.stderr
    lines = r.stderr.splitlines()
    made = len(out.read_text().splitlines()) if out.exists() else 0   # none made: no file written
    assert made < 3
    assert f"generate: time limit of 6.0 s reached: {made} of 3 puzzles finished" in lines, r.stderr
    assert lines[-1] == (f"wrote {made} puzzle{'s' if made != 1 else ''} (line) to {out}" if made
                         else f"no puzzle made: {out} was not written")
    progress = [line for line in lines if line.startswith("generate: 0/3 puzzles")]
    assert progress, r.stderr
    assert all(re.fullmatch(r"generate: 0/3 puzzles \(0\.0%\) \| \d+s so far \| puzzle 1: .+ \d[\d,]*/\d[\d,]*", line)
               for line in progress), progress
    assert any(REMOVAL_STEP in line for line in progress), progress
    assert "Traceback" not in r.stderr
    assert seconds < 120, f"{seconds:.0f} s for a 6 s budget"


def test_the_finished_puzzles_go_to_stdout_too():
    r = run_cli("generate", "--size", "25", "--minimal", "-n", "2", "--seed", "4", "--time-limit", "1",
                "--progress", "none", timeout=300)
    assert r.returncode == 1
    assert r.stderr.splitlines()[-1].startswith("generate: time limit of 1.0 s reached: ")
    for line in r.stdout.splitlines():   # whatever finished is whole and unique
        assert count_up_to(parse_puzzle(line), 2) == 1


def test_a_quick_run_prints_no_progress():
    r = run_cli("generate", "--size", "9", "-n", "2", "--seed", "5")
    assert r.returncode == 0 and r.stderr == "", r.stderr


@pytest.mark.parametrize("value", ["nan", "-1", "inf"])
def test_a_bad_log_interval_is_one_line(value):
    r = run_cli("generate", "--size", "4", "--log-interval", value)
    assert r.returncode == 2
    assert r.stderr == f"error: --log-interval: must be a finite number of seconds at least 0, found {value}\n"


def test_the_meter_shows_what_a_run_is_doing():
    """pipeline.core.progress.Progress, shared by batch and generate: log lines carry the detail
    (generate's step); a bar (tqdm) shows it as its postfix."""
    stream = io.StringIO()
    meter = Progress(4, 0, "log", 0.0, stream, label="generate")
    meter.detail("puzzle 1: clue removal (orbits tried) 3/81")
    meter.update(["made"])
    meter.close()
    first, second = stream.getvalue().splitlines()
    assert re.fullmatch(r"generate: 0/4 puzzles \(0\.0%\) \| 0s so far \| puzzle 1: clue removal \(orbits tried\) "
                        r"3/81", first), first
    assert second.startswith("generate: 1/4 puzzles (25.0%) | 0s so far | ETA ") and second.endswith(
        " | made 1 | puzzle 1: clue removal (orbits tried) 3/81"), second
    pytest.importorskip("tqdm", reason="tqdm draws the bar")
    stream = io.StringIO()
    meter = Progress(2, 0, "bar", 10.0, stream, label="generate")
    meter.detail("puzzle 1: minimality proof (clues checked) 5/60")
    time.sleep(0.6)      # the bar redraws for a new detail at most every half second
    meter.detail("puzzle 1: minimality proof (clues checked) 6/60")
    meter.close()
    assert "minimality proof (clues checked) 6/60" in stream.getvalue()
    # a bar first drawn after its delay by a new detail ends its line when it closes, so the
    # next message on stderr starts on a line of its own
    stream = io.StringIO()
    meter = Progress(2, 0, "bar", 10.0, stream, label="generate", delay=0.2)
    time.sleep(0.6)
    meter.detail("puzzle 1: clue removal (orbits tried) 7/81")
    meter.close()
    assert "clue removal (orbits tried) 7/81" in stream.getvalue() and stream.getvalue().endswith("\n")


def test_puzzles_with_rules_keep_the_budget_and_report_their_steps():
    """Random jigsaw regions with anti-knight: one full-grid search of seed 4 ran for minutes,
    past --time-limit and without a progress report (the rules' generator had no clock)."""
    seen = []
    start = time.perf_counter()
    made = list(generate(size=9, count=1, seed=4, variant="jigsaw", rules=[{"rule": "antiknight"}], time_limit=2.0,
                         progress=lambda *a: seen.append(a)))
    assert time.perf_counter() - start < 30   # not minutes: the search itself looks at the deadline
    assert made == [] and (0, FULL_GRID_STEP, 0, 20) in seen
    # with rules that a grid meets at once, every step reports: full grid, then clue removal
    seen.clear()
    made = list(generate(size=9, count=1, seed=2, rules=[{"rule": "antiking"}], progress=lambda *a: seen.append(a)))
    assert len(made) == 1 and {step for _, step, _, _ in seen} >= {FULL_GRID_STEP, REMOVAL_STEP}


def test_the_full_grid_search_gets_the_deadline(monkeypatch):
    """The full grid is one solver call (47 s on a 49x49): it gets the run's deadline, so
    ``--time-limit 1`` stops inside it (it ran on past 120 s), and no deadline without a budget."""
    from pipeline.tools.generate.clock import OutOfTime
    from pipeline.tools.generate.engine import ShapeEngine
    seen = []

    def never_in_time(self, rng, deadline=None):
        seen.append(deadline)
        if deadline is not None:
            raise OutOfTime("no full grid before the deadline")
        return real(self, rng)
    real = ShapeEngine.random_full_grid
    monkeypatch.setattr(ShapeEngine, "random_full_grid", never_in_time)
    assert list(generate(size=9, seed=1, time_limit=60)) == [] and seen[-1] is not None
    assert len(list(generate(size=9, seed=1))) == 1 and seen[-1] is None


def test_a_new_shape_engine_and_its_fresh_solvers_are_loaded_by_the_run_s_deadline(monkeypatch):
    """generate --size 64 --time-limit 5 ran 10.2 s: the shape's clause lists (4.3 s) and each
    fresh solver's load (4.1 s) could not be stopped; now they end in OutOfTime at the deadline."""
    import numpy as np

    from pipeline.core.puzzle import Puzzle
    from pipeline.solvers import sat
    from pipeline.tools.generate.clock import OutOfTime
    from pipeline.tools.generate.engine import engine_for

    monkeypatch.setattr(sat, "_ENGINES", {})   # a shape this process has not loaded
    shape = Puzzle(np.zeros((12, 12), dtype=np.int64), 3, 4)
    with pytest.raises(OutOfTime, match="took the whole time limit"):
        engine_for(shape, deadline=time.perf_counter())
    eng = engine_for(shape, deadline=time.perf_counter() + 600)
    with pytest.raises(OutOfTime, match="took the whole time limit"):
        eng.random_full_grid(np.random.default_rng(1), deadline=time.perf_counter())
    assert eng.random_full_grid(np.random.default_rng(1), deadline=time.perf_counter() + 600) is not None
    sat.close_engines()


def test_a_run_that_finishes_no_puzzle_leaves_the_file_as_it_was(tmp_path):
    # a probe: '--to g.txt' with a time limit before the first puzzle replaced g.txt with nothing
    target = tmp_path / "g.txt"
    target.write_text("precious\n")
    r = run_cli("generate", "--size", "25", "--time-limit", "0.05", "--seed", "1", "--to", str(target))
    assert r.returncode == 1, r.stderr
    assert target.read_text() == "precious\n" and [p.name for p in tmp_path.iterdir()] == ["g.txt"]
    assert r.stderr.splitlines()[-1] == f"no puzzle made: {target} was not written"


def test_a_time_limit_does_not_change_what_a_seed_makes(monkeypatch):
    """generate --size 30 --seed 1 made another puzzle with --time-limit 200, three times slower:
    the SAT slices got decision budgets fitted to the time left, and each slice starts its
    decisions again from the root. Small decision slices make that show on a 16x16."""
    from pipeline.solvers import sat_slices
    from pipeline.tools.generate import generate

    monkeypatch.setattr(sat_slices, "DECISION_SLICE", 50)
    unlimited = next(generate(size=16, seed=3, full=True)).solution
    assert (next(generate(size=16, seed=3, full=True, time_limit=600)).solution == unlimited).all()
    with sat_slices.fixed_slices():
        assert sat_slices._FIXED.get()
    assert not sat_slices._FIXED.get()


def test_a_run_that_finishes_no_puzzle_leaves_no_folder_it_made(tmp_path):
    target = tmp_path / "new" / "a" / "g.txt"
    r = run_cli("generate", "--size", "25", "--time-limit", "0.05", "--seed", "1", "--to", str(target))
    assert r.returncode == 1, r.stderr
    assert list(tmp_path.iterdir()) == [] and r.stderr.splitlines()[-1] == f"no puzzle made: {target} was not written"


def test_the_run_clock_repeats_its_last_report():
    from pipeline.tools.generate.clock import RunClock

    heard = []
    clock = RunClock.start(None, lambda *report: heard.append(report))
    clock.remind()                    # nothing reported yet: nothing to repeat
    clock.step("clue removal (orbits tried)", 3, 81)
    clock.remind()
    assert heard == [(0, "clue removal (orbits tried)", 3, 81)] * 2


def test_a_run_ended_by_its_time_limit_skips_the_interpreter_s_teardown(capsys):
    """At the limit the answer is out, yet the interpreter's exit freed what the stopped puzzle
    built: a 64x64 jigsaw's cached engine (0.65 s for its solver) and clause lists, 1.2-1.5 s past
    the limit. generate now says it ended at its own deadline, which main reads to end the
    process at once (as after the other commands' deadline alarm); a run that finished does not."""
    from pipeline.cli.main import main
    from pipeline.core import stops

    assert main(["generate", "--size", "9", "-n", "100000", "--seed", "1", "--time-limit", "0.3",
                 "--progress", "none"]) == 1
    assert capsys.readouterr().err.splitlines()[-1].startswith("generate: time limit of 0.3 s reached: ")
    assert stops.stopped_at_deadline()
    assert main(["generate", "--size", "4", "--seed", "1", "--time-limit", "600"]) == 0
    assert not stops.stopped_at_deadline()
