"""BatchConfig (pipeline.batch.config): one validator, exact one-line messages."""
from __future__ import annotations

import math
import re

import pytest

from pipeline.batch.config import (DEFAULT_HIGHS_OPTIONS, MAX_CHUNK_SIZE, MAX_WORKERS, BatchConfig, BatchConfigError,
                                   SolveOptions)


@pytest.mark.parametrize("changes, message", [
    ({"chunk_size": 0}, "chunk_size must be a positive integer, got 0"),
    ({"chunk_size": -5}, "chunk_size must be a positive integer, got -5"),
    ({"chunk_size": 2.5}, "chunk_size must be a positive integer, got 2.5"),
    ({"chunk_size": True}, "chunk_size must be a positive integer, got True"),
    ({"chunk_size": MAX_CHUNK_SIZE + 1}, f"chunk_size must be at most {MAX_CHUNK_SIZE:,}, got {MAX_CHUNK_SIZE + 1}"),
    ({"workers": 0}, f"workers must be an integer from 1 to {MAX_WORKERS}, got 0"),
    ({"workers": 100000}, f"workers must be an integer from 1 to {MAX_WORKERS}, got 100000"),
    ({"engine": "threads"}, "engine must be one of processes, dask, got 'threads'"),
    ({"time_limit": math.nan}, "time_limit must be a positive finite number of seconds, got nan"),
    ({"time_limit": 0}, "time_limit must be a positive finite number of seconds, got 0"),
    ({"count": -1}, "count must be an integer from 0 (no counting) to 1,000,000, got -1"),
    ({"limit": -1}, "limit must be a non-negative integer, got -1"),
    ({"progress": "loud"}, "progress must be one of auto, bar, log, none, got 'loud'"),
    ({"log_interval": -1.0}, "log_interval must be a non-negative finite number of seconds, got -1.0"),
    ({"solver": "glpk"}, "solver must be one of highs, sat, cpsat, dfs, got 'glpk'"),
    ({"input_format": "xlsx"}, "input_format must be one of auto, text, csv, parquet, got 'xlsx'"),
    ({"retry": ("later",)}, "retry must be one of "),
    ({"highs_options": {"no_such_option": 1}}, "highs_options: HiGHS refuses option no_such_option=1"),
    # HiGHS takes any count and starts that many threads (an outside probe: 660 MB, no answer in 30 s)
    ({"highs_options": {"threads": 99999}}, "highs_options: threads must be 0 (HiGHS's choice) to 256, found 99999"),
    ({"highs_options": {"threads": True}}, "highs_options: threads must be 0 (HiGHS's choice) to 256, found True"),
    # an outside probe: "false" is truthy, so it deleted the earlier run's rows; the others were
    # a TypeError, an OverflowError or highspy's signatures, not one line naming the keyword
    ({"overwrite": "false"}, "overwrite must be True or False, got 'false'"),
    ({"overwrite": 1}, "overwrite must be True or False, got 1"),
    ({"variant": ["x"]}, "variant must be one of classic, x, jigsaw, jigsaw_x, latin, raw, got ['x']"),
    ({"highs_options": {1: 2}}, "highs_options: option names are strings, found 1"),
    ({"highs_options": {"presolve": ["on"]}}, "highs_options: HiGHS refuses option presolve=['on']"),
    ({"time_limit": 10 ** 400}, "time_limit must be a positive finite number of seconds, got 100000000000000000000"),
    ({"log_interval": 10 ** 400}, "log_interval must be a non-negative finite number of seconds, got 1000000000"),
])
def test_each_bad_option_has_its_exact_message(changes, message):
    with pytest.raises(BatchConfigError) as err:
        BatchConfig("in.txt", "out", **changes)
    text = str(err.value)
    assert text.startswith(message) and "\n" not in text
    # the keyword apart from the rest: the command line names its option instead (--chunk-size: ...)
    assert err.value.option in changes and text == err.value.option + (": " if ": " in message[:15] else " ") \
        + err.value.detail


def test_box_and_variant_are_checked():
    with pytest.raises(BatchConfigError, match=r"^box must be HxW such as 3x3, got '3by3'"):
        BatchConfig("in.txt", "out", box="3by3")
    with pytest.raises(BatchConfigError, match=r"^variant must be one of .*, got 'sudokuish'$"):
        BatchConfig("in.txt", "out", variant="sudokuish")


def test_config_is_frozen_normalised_and_splits_the_worker_part():
    c = BatchConfig("in.txt", "out", scheduler="tcp://127.0.0.1:1", highs_options={"mip_rel_gap": 0.0},
                    time_limit=3, retry=["time_limit"])
    assert c.engine == "dask"                      # an address implies Dask
    assert c.highs_options == {**DEFAULT_HIGHS_OPTIONS, "mip_rel_gap": 0.0}
    assert c.time_limit == 3.0 and isinstance(c.time_limit, float)
    assert c.retry == ("time_limit",)
    with pytest.raises(AttributeError):
        c.chunk_size = 5
    options = c.solve_options()
    assert isinstance(options, SolveOptions) and options.time_limit == 3.0
    assert options.highs_options == c.highs_options
    assert c.replace(chunk_size=7).chunk_size == 7
    with pytest.raises(BatchConfigError):
        c.replace(chunk_size=0)
    assert 1 <= BatchConfig("a", "b").worker_count <= MAX_WORKERS


@pytest.mark.parametrize("address", ["garbage", " ", "tcp://host", "host:", "host:0", "host:65536", "tcp://:8786",
                                     "ftp://host:21", "tcp://host:8786/x", "::1:8786", "inproc://host:1"])
def test_a_scheduler_address_of_the_wrong_form_is_refused_up_front(address):
    """Checked by its form alone (nothing connects): 'garbage' was a worker's ValueError
    ('missing port number') after the output directory had been created."""
    with pytest.raises(BatchConfigError, match=r"^scheduler must be an address \[SCHEME://\]HOST:PORT "
                                               r"\(SCHEME tcp, tls, ws, wss or ucx; PORT 1 to 65535\) such as "
                                               rf"tcp://host:8786, got {re.escape(repr(address))}$"):
        BatchConfig("in.txt", "out", scheduler=address)


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "scheduler.example.org:8786", "tls://[::1]:8786",
                                     "ws://node-7:1", "ucx://10.0.0.1:65535", " tcp://host:8786 "])
def test_scheduler_addresses_dask_takes(address):
    assert BatchConfig("in.txt", "out", scheduler=address).engine == "dask"


def test_cli_bad_scheduler_is_one_line_and_creates_no_output(tmp_path, capsys):
    from pipeline.cli.main import main

    src = tmp_path / "two.txt"
    src.write_text("." * 81 + "\n" + "." * 81 + "\n")
    assert main(["batch", str(src), str(tmp_path / "o"), "--scheduler", "garbage", "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --scheduler: must be an address") and err.count("\n") == 1, err
    assert not (tmp_path / "o").exists()


def test_the_api_defaults_to_auto_as_the_command_does():
    """run_batch used HiGHS unless told (18x slower than the command's default) and refused "auto"."""
    from pipeline.batch.config import BatchConfig
    from pipeline.solvers.auto import pick_solver
    from pipeline.solvers import batch_solver_names

    picked = pick_solver("batch", None, among=tuple(batch_solver_names())).name
    for config in (BatchConfig("in.txt", "out"), BatchConfig("in.txt", "out", solver="auto")):
        assert config.solver == picked and config.rules_by_auto
    assert BatchConfig("in.txt", "out", highs_options={"presolve": "off"}).solver == "highs"
    assert BatchConfig("in.txt", "out", sat_backend="glucose4").solver == "sat"
    named = BatchConfig("in.txt", "out", solver="highs")
    assert named.solver == "highs" and not named.rules_by_auto


@pytest.mark.parametrize("paths, message", [
    ((None, "out"), "input_path must be a path (str or os.PathLike), got None"),
    (("in.txt", 3), "output must be a path (str or os.PathLike), got 3"),
    (("", "out"), "input_path must be a path (str or os.PathLike), got ''"),
    (("in.txt", "out\0x"), "output must be a path without NUL bytes, got 'out\\x00x'"),
])
def test_a_path_that_is_not_one_is_named_not_read_as_a_file(paths, message):
    # str(None) was read as an input file named 'None' ("no such input file 'None'")
    with pytest.raises(BatchConfigError) as err:
        BatchConfig(*paths)
    assert str(err.value) == message


def test_run_batch_names_an_unknown_option_in_one_line(tmp_path):
    from pipeline.batch import run_batch
    with pytest.raises(BatchConfigError, match=r"^run_batch: unknown option 'chunksize' \(options: workers, .*chunk_size"):
        run_batch(tmp_path / "in.txt", tmp_path / "out", chunksize=10)
    assert not (tmp_path / "out").exists()


def test_run_batch_refuses_a_stream_it_cannot_write_to(tmp_path):
    from pipeline.batch import run_batch
    (tmp_path / "in.txt").write_text("1" + "." * 15 + "\n")
    with pytest.raises(BatchConfigError, match=r"^stream must be a text file with a write method, got 'x'$"):
        run_batch(tmp_path / "in.txt", tmp_path / "out", stream="x", progress="bar", workers=1)
    assert not (tmp_path / "out").exists()


def test_an_output_that_is_a_dangling_link_is_named(tmp_path):
    # mkdir said "File exists" of a name that exists only as a link to nowhere
    from pipeline.batch import run_batch
    from pipeline.core.errors import PipelineError
    (tmp_path / "in.txt").write_text("1" + "." * 15 + "\n")
    (tmp_path / "out").symlink_to(tmp_path / "nowhere" / "dir")
    with pytest.raises(PipelineError, match=r"^batch: output '.*out' is a link to '.*nowhere/dir', which does not "
                                            r"exist$"):
        run_batch(tmp_path / "in.txt", tmp_path / "out", workers=1, progress="none")
    assert not (tmp_path / "nowhere").exists()
