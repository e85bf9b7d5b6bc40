"""A stop that lands while a class is made (a library imported lazily during a command): Python
3.11 raises a RuntimeError ("Error calling __set_name__ ...") whose ``__cause__`` is the
KeyboardInterrupt (or DeadlineReached). It must still be the stop it is: ``interrupted``, exit 130,
no half-written output and no temporary file left, never an internal error (exit 70) or a failed
run (exit 1); and no other RuntimeError may pass for one (:func:`pipeline.core.stops.unwrapped`).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.core import stops

PROJECT = Path(__file__).resolve().parents[2]
TESTS = PROJECT / "tests"
pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")

# The command line with one of its steps run through stop_handling.signalling_in_set_name: the
# signal lands inside a __set_name__ as that step starts. WHERE: "parser" (building the argument
# parser, the command's module imported lazily), "records" (batch reading its input, before its
# own handler) or "third puzzle" (generate, two puzzles made). HOW: "command line" (main(), its handlers) or "python" (main(argv): Python's own
# KeyboardInterrupt, as under a caller that keeps its signal handling).
WRAPPER = """
import signal, sys
sys.path.insert(0, {tests!r})
from stop_handling import signalling_in_set_name
import importlib
cli = importlib.import_module("pipeline.cli.main")
import pipeline.batch.run as run
import pipeline.cli.commands.generate as generate

where, how, signum, *words = sys.argv[1:]
signum = getattr(signal, signum)
if where == "parser":
    cli.build_parser = signalling_in_set_name(cli.build_parser, signum)
elif where == "records":
    run.read_records = signalling_in_set_name(run.read_records, signum)
else:   # "third puzzle": generate's third puzzle is being made
    def formatted(*args, real=generate.iter_formatted):
        for made, text in enumerate(real(*args), 1):
            yield text
            if made == 2:
                signalling_in_set_name(lambda: None, signum)()
    generate.iter_formatted = formatted
sys.argv = ["sudoku-pipeline", *words]
sys.exit(cli.main(None if how == "command line" else words))
"""

PUZZLE = "." * 81


def _default_sigint() -> None:
    # a test runner started in the background may hand SIGINT down ignored: the command must see it
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _run(tmp_path: Path, where: str, how: str, signum: str, *words: str) -> subprocess.CompletedProcess:
    script = tmp_path / "wrapped_stop.py"
    script.write_text(WRAPPER.format(tests=str(TESTS)))
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = dict(os.environ, PYTHONPATH=str(PROJECT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TMPDIR=str(temporary))
    env.pop("SUDOKU_PIPELINE_TRACEBACK", None)
    done = subprocess.run([sys.executable, str(script), where, how, signum, *words], capture_output=True, text=True,
                          timeout=240, cwd=tmp_path, env=env, preexec_fn=_default_sigint)
    assert list(temporary.iterdir()) == []   # no temporary file left behind
    return done


def _assert_interrupted(done: subprocess.CompletedProcess) -> None:
    assert (done.returncode, done.stderr) == (130, "interrupted\n"), done.stderr[-2000:]   # no traceback, no error line
    assert done.stdout == ""


def test_a_ctrl_c_wrapped_by_set_name_under_python_s_own_handling_is_interrupted(tmp_path):
    """main(argv) keeps Python's SIGINT handling: the wrapped KeyboardInterrupt was an internal
    error (exit 70) there, as no handler of ours had marked the stop."""
    done = _run(tmp_path, "parser", "python", "SIGINT", "solve", PUZZLE)
    _assert_interrupted(done)


@pytest.mark.parametrize("signum", ["SIGINT", "SIGTERM"])
def test_batch_stopped_inside_set_name_while_reading_its_input_is_interrupted(tmp_path, signum):
    """Batch's reader and its command took the wrapped stop for a bad input or a failed worker
    ("error: batch: a worker failed (RuntimeError: ...)", exit 1). OUT, made by this run, goes."""
    (tmp_path / "in.txt").write_text(PUZZLE + "\n")
    done = _run(tmp_path, "records", "command line", signum, "batch", "in.txt", "out")
    _assert_interrupted(done)
    assert not (tmp_path / "out").exists()


def test_generate_to_a_file_stopped_inside_set_name_keeps_the_puzzles_made(tmp_path):
    """generate --to FILE keeps what was made on a Ctrl-C; the wrapped one left no FILE at all."""
    done = _run(tmp_path, "third puzzle", "command line", "SIGINT", "generate", "-n", "5", "--seed", "1",
                "--to", "made.txt")
    _assert_interrupted(done)
    assert len((tmp_path / "made.txt").read_text().splitlines()) == 2


def _wrapped(stop: BaseException, depth: int = 1) -> RuntimeError:
    """What Python 3.11 raises for ``stop`` raised in a ``__set_name__`` (``depth`` classes deep)."""
    class Raising:
        def __set_name__(self, owner: type, name: str) -> None:
            if depth == 1:
                raise stop
            raise _wrapped(stop, depth - 1)

    try:
        type("Made", (), {"attribute": Raising()})
    except RuntimeError as error:
        return error
    pytest.skip("this Python does not wrap a __set_name__'s exception (3.12 and later)")


@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("stop", [KeyboardInterrupt(), stops.DeadlineReached("limit")], ids=["interrupt", "deadline"])
def test_unwrapped_finds_the_stop_inside_the_interpreter_s_wrapping(stop, depth):
    assert stops.unwrapped(_wrapped(stop, depth)) is stop
    with pytest.raises(type(stop)):
        stops.raise_if_stop(_wrapped(stop, depth))


def test_unwrapped_leaves_any_other_error_as_it_is():
    plain = RuntimeError("boom")
    plain.__cause__ = KeyboardInterrupt()   # a stop as cause, but not the interpreter's wrapping
    caused = ValueError("Error calling __set_name__ on x")
    caused.__cause__ = KeyboardInterrupt()
    other = _wrapped(ValueError("a bug in a __set_name__"))
    for error in (plain, caused, other, KeyboardInterrupt(), ValueError()):
        assert stops.unwrapped(error) is error
        stops.raise_if_stop(error)   # nothing raised


def test_a_deadline_wrapped_by_set_name_gives_the_time_limit_answer():
    answers = []

    def body(deadline):
        raise _wrapped(stops.DeadlineReached("too long"))

    def expired(reason):
        answers.append(reason)
        return 3

    assert stops.Deadline(None, expired).run(body) == 3
    assert answers == ["too long"]
