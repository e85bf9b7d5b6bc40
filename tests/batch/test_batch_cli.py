"""The ``batch`` subcommand (its block in pipeline/cli.py): exit codes and one-line messages for
bad options, unusable output and Ctrl-C, and the summary line."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from batch_helpers import MIXED

from oracles import PROJECT
from pipeline.batch import MAX_WORKERS
from pipeline.cli.main import main


def test_cli_errors_and_log_lines(sample, tmp_path, capsys):
    assert main(["batch", str(tmp_path / "missing.txt"), str(tmp_path / "out")]) == 2
    assert "no such input file" in capsys.readouterr().err
    path, records, _ = sample
    # HiGHS by name: the CLI's default is --solver auto (the SAT engine here)
    code = main(["batch", str(path), str(tmp_path / "out"), "--workers", "1", "--chunk-size", "10",
                 "--progress", "log", "--log-interval", "0", "--solver", "highs"])
    assert code == 0
    err = capsys.readouterr().err
    assert f"batch: {len(records)}/{len(records)} (100.0%)" in err
    assert "puzzles/s" in err and "complete" in err
    assert "outside Highs.run()" in err


def test_log_interval_0_writes_each_progress_line_once(sample, tmp_path, capsys):
    """An outside check: ``--log-interval 0`` printed every progress line twice on stderr."""
    path, records, _ = sample
    out = tmp_path / "out"
    assert main(["batch", str(path), str(out), "--workers", "1", "--chunk-size", "8", "--progress", "log",
                 "--log-interval", "0", "--solver", "sat"]) == 0
    err = capsys.readouterr().err.splitlines()
    progress = [line.split(" | ")[0] for line in err if line.startswith("batch: ") and " | " in line]
    # one line per part written (in process: a chunk is one part), each count once
    assert len(progress) == len(set(progress)) == len(list(out.glob("part-*.parquet"))), progress
    assert progress[-1] == f"batch: {len(records)}/{len(records)} (100.0%)"


@pytest.mark.parametrize("option, value, message", [
    # the options as typed (an outside check: "chunk_size must be ...", BatchConfig's keyword)
    ("--chunk-size", "0", "error: --chunk-size: must be a positive integer, got 0"),
    ("--chunk-size", "-5", "error: --chunk-size: must be a positive integer, got -5"),
    ("--chunk-size", "1000000", "error: --chunk-size: must be at most 100,000, got 1000000"),
    ("--workers", "100000", f"error: --workers: must be an integer from 1 to {MAX_WORKERS}, got 100000"),
    ("--workers", "300", f"error: --workers: must be an integer from 1 to {MAX_WORKERS}, got 300"),
    ("--workers", "0", f"error: --workers: must be an integer from 1 to {MAX_WORKERS}, got 0"),
    ("--time-limit", "nan", "error: --time-limit: must be a finite number of seconds greater than 0, found nan"),
    ("--count", "-1", "error: --count: must be an integer from 0 (no counting) to 1,000,000, got -1"),
    ("--retry", "time_limit,bogus", "error: --retry: must be one of "),
    ("--retry", "bogus", "error: --retry: must be one of "),
    ("--log-interval", "-1", "error: --log-interval: must be a non-negative finite number of seconds, got -1.0"),
    ("--log-interval", "inf", "error: --log-interval: must be a non-negative finite number of seconds, got inf"),
    ("--limit", "-1", "error: --limit: must be a non-negative integer, got -1"),
    ("--box", "3y3", "error: --box: must be HxW such as 3x3, got '3y3'"),
    ("--variant", "sudokuish", "error: --variant: must be one of "),
    ("--scheduler", "nowhere", "error: --scheduler: must be an address [SCHEME://]HOST:PORT"),
    ("--highs-option", "no_such_option=1", "error: --highs-option: HiGHS refuses option no_such_option=1"),
    ("--highs-option", "threads=999", "error: --highs-option: threads must be 0 (HiGHS's choice) to "),
])
def test_bad_options_are_one_line_exit_2(tmp_path, capsys, option, value, message):
    src = tmp_path / "in.txt"
    src.write_text(MIXED[3] + "\n")
    assert main(["batch", str(src), str(tmp_path / "out"), option, value]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1, err
    assert not (tmp_path / "out").exists()   # refused before anything is written


def test_a_bad_option_is_the_only_line_even_when_auto_has_something_to_say(tmp_path, capsys):
    # auto's pick says a line with --verbose (and a note when an engine is missing): after the
    # options are checked, so a bad one is the only line
    src = tmp_path / "in.txt"
    src.write_text(MIXED[3] + "\n")
    assert main(["batch", str(src), str(tmp_path / "out"), "--workers", "0", "--verbose"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --workers: must be") and err.count("\n") == 1, err
    assert main(["batch", str(src), str(tmp_path / "out"), "--verbose"]) == 0
    assert "solver: auto picked" in capsys.readouterr().err


def _refused(tmp_path, case: str) -> list[str]:
    """``batch`` arguments that the run refuses after the options are checked (input, OUT, engine)."""
    src = tmp_path / "in.txt"
    src.write_text(MIXED[3] + "\n")
    if case == "missing input":
        return [str(tmp_path / "nonexist.txt"), str(tmp_path / "out")]
    if case == "no puzzle column":
        (tmp_path / "in.csv").write_text("a,b\n1,2\n")
        return [str(tmp_path / "in.csv"), str(tmp_path / "out")]
    if case == "overwrite foreign":
        (tmp_path / "out").mkdir()
        (tmp_path / "out" / "mine.txt").write_text("not batch's")
        return [str(src), str(tmp_path / "out"), "--overwrite"]
    return [str(src), str(tmp_path / "out"), "--engine", "dask"]


REFUSALS = ["missing input", "no puzzle column", "overwrite foreign", "dask missing"]


@pytest.mark.parametrize("case", REFUSALS)
def test_a_refused_input_or_output_is_the_only_line_with_verbose(tmp_path, capsys, monkeypatch, case):
    """An outside check: auto's lines were said before the run read its input, so a missing input
    file was two lines on stderr (``solver: auto picked`` with -v, a ``note:`` on a core install)."""
    if case == "dask missing":
        monkeypatch.setitem(sys.modules, "distributed", None)   # as on an install without the dask extra
    assert main(["batch", *_refused(tmp_path, case), "--verbose"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: batch: ") and err.count("\n") == 1, err


@pytest.mark.parametrize("case", REFUSALS)
def test_autos_note_on_a_core_install_follows_the_checks(tmp_path, case):
    """Without numba (a core install) auto's ``note: solver auto: dfs needs numba`` comes once the
    run starts: after a refusal of the input, OUT or engine the error is the only line."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import sys\n" + "".join(
        f"sys.modules[{m!r}] = None\n" for m in ("numba", "ortools", "dask", "distributed")))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(PROJECT)]))
    args = [sys.executable, "-m", "pipeline", "batch", *_refused(tmp_path, case)]
    proc = subprocess.run(args, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert proc.returncode == 2 and proc.stderr.startswith("error: batch: "), proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    if case == "missing input":   # a run that starts says the note once
        src = tmp_path / "in.txt"
        proc = subprocess.run([*args[:4], str(src), str(tmp_path / "ok"), "--workers", "1", "--progress", "none"],
                              capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
        assert proc.returncode == 0, proc.stderr
        notes = [line for line in proc.stderr.splitlines() if line.startswith("note: ")]
        assert len(notes) == 1 and "dfs needs numba" in notes[0], proc.stderr


def test_summary_names_the_engine_it_timed(tmp_path, capsys):
    src = tmp_path / "in.txt"
    src.write_text(MIXED[3] + "\n")
    assert main(["batch", str(src), str(tmp_path / "out"), "--workers", "1", "--solver", "sat",
                 "--progress", "none"]) == 0
    err = capsys.readouterr().err
    assert "outside the SAT solver's calls" in err and "Highs.run()" not in err


def test_output_that_cannot_be_created_is_exit_2_naming_the_path(tmp_path, capsys):
    src = tmp_path / "in.txt"
    src.write_text("\n".join(MIXED) + "\n")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    for workers in ("1", "2"):
        out = blocker / f"out{workers}"
        code = main(["batch", str(src), str(out), "--workers", workers, "--progress", "none"])
        err = capsys.readouterr().err
        assert code == 2, err
        assert err.startswith("error: batch: cannot write ") and str(blocker) in err, err
        assert "worker failed" not in err and err.count("\n") == 1


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_read_only_output_is_exit_2_naming_the_path(tmp_path, capsys):
    src = tmp_path / "in.txt"
    src.write_text("\n".join(MIXED) + "\n")
    out = tmp_path / "out"
    assert main(["batch", str(src), str(out), "--workers", "1", "--limit", "1", "--progress", "none"]) == 0
    capsys.readouterr()
    out.chmod(0o500)
    try:
        code = main(["batch", str(src), str(out), "--workers", "2", "--chunk-size", "1", "--progress", "none"])
    finally:
        out.chmod(0o700)
    err = capsys.readouterr().err
    assert code == 2 and "error: batch: cannot write " in err and str(out) in err, err
    assert "worker failed" not in err


@pytest.mark.parametrize("workers", ["1", "2"])
def test_full_disk_is_exit_2_naming_the_part(tmp_path, capsys, monkeypatch, workers):
    """ENOSPC while a part is written (the client writes every part, so a fault injected in
    this process is the real path)."""
    import errno

    import pyarrow.parquet as pq

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pq, "write_table", full)
    src = tmp_path / "in.txt"
    src.write_text("\n".join(MIXED) + "\n")
    out = tmp_path / "out"
    code = main(["batch", str(src), str(out), "--workers", workers, "--progress", "none"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith(f"error: batch: cannot write '{out}/part-") and "no space left on the device" in err
    assert not list(out.glob(".part-*"))   # no temporary file left behind


def test_ctrl_c_during_worker_start_up_prints_one_line(data_dir, tmp_path):
    """SIGINT to the whole process group (as a terminal's Ctrl-C) while workers start: the
    client prints its summary line, no worker prints a traceback, exit 130."""
    src = tmp_path / "in.txt"
    src.write_text((data_dir / "sets" / "9x9_norvig_top95.txt").read_text())
    env = dict(os.environ, PYTHONPATH=str(PROJECT))
    for delay in (0.0, 0.05, 0.3):
        out = tmp_path / f"out-{delay}"
        proc = subprocess.Popen([sys.executable, "-m", "pipeline", "batch", str(src), str(out), "--workers", "2",
                                 "--chunk-size", "1", "--progress", "none"], cwd=PROJECT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        deadline = time.monotonic() + 60
        while not (out / "_batch.json").exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)   # the run has started: its workers are starting now
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
        text = err.decode()
        if proc.returncode == 0:
            continue   # finished before the signal: nothing to check
        # 130, or ended by the SIGINT itself (as a shell reports a Ctrl-C'd tool): either way one line, no traceback
        assert proc.returncode in (130, -signal.SIGINT), text
        assert "Traceback" not in text and text.count("\n") == 1, text


def test_a_dask_cluster_that_goes_away_is_not_blamed_on_a_worker(tmp_path, capsys, monkeypatch):
    """An outside probe: a scheduler killed mid-run ended with "a worker failed
    (FuturesCancelledError: ...)", though no worker of the run had failed; then with a dangling
    "(FuturesCancelledError: 4 Futures cancelled:)", the first line of Dask's message."""
    client = pytest.importorskip("distributed.client")
    import pipeline.cli.commands.batch as batch_command

    def scheduler_gone(*args, **kwargs):
        errors = [client.FutureCancelledError(f"sudoku-batch-1-{k}", "scheduler-connection-lost", "lost")
                  for k in range(4)]
        raise client.FuturesCancelledError([client.CancelledFuturesGroup(errors, "scheduler-connection-lost")])
    monkeypatch.setattr(batch_command, "run_config", scheduler_gone)
    src = tmp_path / "in.txt"
    src.write_text("1...........3...\n")
    assert main(["batch", str(src), str(tmp_path / "out"), "--workers", "1"]) == 1
    assert capsys.readouterr().err == ("error: batch: the Dask cluster failed (its scheduler or a worker went away) "
                                       "(FuturesCancelledError: 4 chunks cancelled by Dask (scheduler-connection-lost)); "
                                       "rerun the same command to resume\n")


def test_a_cluster_that_cannot_load_the_project_mid_run_says_to_install_it(tmp_path, capsys, monkeypatch):
    """A worker without the project that joins after the run's check: Dask's paragraph was cut to
    "Error during deserialization of the task graph. This frequently" with advice to rerun only."""
    import textwrap

    import pipeline.cli.commands.batch as batch_command
    from pipeline.core.version import DISTRIBUTION, __version__

    def cannot_load(*args, **kwargs):   # the scheduler's own text (distributed 2026.8)
        raise RuntimeError(textwrap.dedent("""\
            Error during deserialization of the task graph. This frequently
            occurs if the Scheduler and Client have different environments.
            """))
    monkeypatch.setattr(batch_command, "run_config", cannot_load)
    src = tmp_path / "in.txt"
    src.write_text("1...........3...\n")
    assert main(["batch", str(src), str(tmp_path / "out"), "--workers", "1"]) == 1
    assert capsys.readouterr().err == (
        "error: batch: a worker failed (RuntimeError: Error during deserialization of the task graph. This frequently "
        "occurs if the Scheduler and Client have different environments.); "
        f"install {DISTRIBUTION} {__version__} where the scheduler and every worker run, then rerun the same "
        "command to resume\n")


def test_a_worker_failure_quoting_control_characters_is_one_escaped_line(tmp_path, capsys, monkeypatch):
    """The "a worker failed" line printed the exception's text as it was: a record's or a path's
    terminal escape (\x1b) or NUL reached stderr raw, where main() escapes every other error line."""
    import pipeline.cli.commands.batch as batch_command

    def crashed(*args, **kwargs):
        raise RuntimeError("record '\x1b[2J\x1b[31mred\x00' \x07 broke\x85it\u2028here")
    monkeypatch.setattr(batch_command, "run_config", crashed)
    src = tmp_path / "in.txt"
    src.write_text("1...........3...\n")
    assert main(["batch", str(src), str(tmp_path / "out"), "--workers", "1"]) == 1
    err = capsys.readouterr().err
    assert err == ("error: batch: a worker failed (RuntimeError: record '\\x1b[2J\\x1b[31mred\\x00' \\x07 "
                   "broke it here); rerun the same command to resume\n"), err


@pytest.mark.parametrize("name, noted", [("results.csv", True), ("results.JSONL", True), ("results", False),
                                         ("results.parquet", False), ("results.csv/", False)])
def test_an_out_named_like_a_file_says_it_is_a_directory_of_parquet(tmp_path, capsys, name, noted):
    """An outside check: ``batch in.txt results.csv`` made a directory named results.csv without a
    word, and pandas.read_csv on it then failed with IsADirectoryError."""
    path = tmp_path / "in.txt"
    path.write_text(MIXED[0] + "\n")
    out = os.path.join(str(tmp_path), name)   # as typed: a Path would drop the trailing slash
    assert main(["batch", str(path), out, "--workers", "1", "--progress", "none"]) == 0
    err = capsys.readouterr().err
    # a trailing slash asks for a directory: no note (it was noted as 'results.csv')
    shown = name.rstrip("/")
    assert (f"note: batch: OUT {shown!r} is written as a directory of Parquet parts" in err) == noted, err
    assert (tmp_path / name).is_dir()
