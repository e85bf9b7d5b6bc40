"""formats.forked: an export's formats written side by side in forked processes."""
from __future__ import annotations

import dataclasses
import os
import signal
import threading

import pytest

import formats.forked as forked
from formats.base import FORMATS
from formats.check import check_export
from formats.directory import export_model, resolve_formats
from formats.files import WriteFailed
from golden.golden import file_digest
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError
from pipeline.core.puzzle import parse_puzzle

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="forked exports need os.fork (POSIX)")

# an 8x8 with rectangular boxes and rules: every format writes several sections
DOC = ('{"size": 8, "box": "2x4", "givens": "1.......'
       + '.' * 56 + '", "rules": [{"rule": "thermo", "cells": ["r2c1", "r2c2", "r2c3"]}, '
       '{"rule": "cage", "cells": ["r5c5", "r5c6"], "sum": 9}]}')


@pytest.fixture
def forks(monkeypatch):
    """The pids of the children the test forks (to check that none is left unreaped)."""
    pids: list[int] = []
    fork = forked._fork

    def recorded(work, group):
        pid, reader = fork(work, group)
        pids.append(pid)
        return pid, reader

    monkeypatch.setattr(forked, "_fork", recorded)
    return pids


def reaped(pids: list[int]) -> bool:
    """Whether every one of ``pids`` has been waited for (none running, none a zombie)."""
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        return False
    return bool(pids)


def digests(directory) -> dict[str, str]:
    return {p.name: file_digest(p) for p in sorted(directory.iterdir()) if p.is_file()}


# ---------------------------------------------------------------------------------------------
# how many processes, and which formats each writes
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("costs,parts", [([1.5, 0.9, 0.2, 0.4, 0.3, 0.5, 0.4], 2), ([1.0] * 5, 3),
                                          ([3.0, 1.0], 4), ([0.1, 5.0, 0.1, 0.1], 2)])
def test_balanced_covers_every_task_once_and_evens_the_loads(costs, parts):
    groups = balanced = forked.balanced(costs, parts)
    assert sorted(k for group in groups for k in group) == list(range(len(costs)))
    assert all(group == sorted(group) for group in balanced)
    assert len(groups) == min(parts, len(costs))
    loads = [sum(costs[k] for k in group) for group in groups]
    # longest-first greedy: no group exceeds the lightest by more than one task's cost
    assert max(loads) - min(loads) <= max(costs) + 1e-9


def test_side_by_side_forks_only_for_large_models_and_never_beside_other_threads(monkeypatch):
    monkeypatch.setattr(forked, "available_cores", lambda: 2)
    assert forked.side_by_side(None, 7, forked.FORK_NONZEROS - 1) == 1
    assert forked.side_by_side(None, 7, forked.FORK_NONZEROS) == 2
    monkeypatch.setattr(forked, "available_cores", lambda: 64)
    assert forked.side_by_side(None, 7, forked.FORK_NONZEROS) == forked.DEFAULT_WORKERS
    assert forked.side_by_side(6, 7, forked.FORK_NONZEROS) == 6
    monkeypatch.setattr(forked, "available_cores", lambda: 2)
    assert forked.side_by_side(None, 1, 10**8) == 1          # one format: nothing to split
    assert forked.side_by_side(5, 3, 10) == 3                 # asked for: the size does not matter
    assert forked.side_by_side(1, 7, 10**8) == 1
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert forked.side_by_side(4, 7, 10**8) == 1          # a lock another thread holds would stay held
    finally:
        stop.set()
        other.join()


@pytest.mark.parametrize("bad", [0, -2, True, 2.5, "2"])
def test_side_by_side_refuses_a_worker_count_that_is_not_a_positive_integer(bad):
    with pytest.raises(FormatError, match=r"^workers: .* is not a positive whole number of processes$"):
        forked.side_by_side(bad, 3, 10)


def test_every_registered_format_has_a_positive_cost():
    assert all(fmt.cost > 0 for fmt in FORMATS.values())


# ---------------------------------------------------------------------------------------------
# the children: results, errors, and no process left behind
# ---------------------------------------------------------------------------------------------
def test_results_come_back_in_the_groups_order_from_other_processes(forks):
    parent = os.getpid()
    results = forked.run_side_by_side(lambda group: (os.getpid(), [k * k for k in group]), [[1, 2], [3], [4, 5]])
    assert [squares for _, squares in results] == [[1, 4], [9], [16, 25]]
    pids = [pid for pid, _ in results]
    assert pids[0] == parent and len(set(pids)) == 3
    assert reaped(forks)


def test_a_childs_error_is_raised_here_as_it_was(forks):
    def work(group):
        if group == ["child"]:
            raise WriteFailed("/somewhere/model.cnf", "cannot write: No space left on device", 28, "No space left")
        return "fine"

    with pytest.raises(WriteFailed) as caught:
        forked.run_side_by_side(work, [["parent"], ["child"]])
    assert str(caught.value) == "/somewhere/model.cnf: cannot write: No space left on device"
    assert caught.value.errno == 28 and caught.value.reason.startswith("cannot write")
    assert reaped(forks)


def test_an_error_that_cannot_travel_is_named(forks):
    class Local(Exception):          # a local class does not pickle
        pass

    def work(group):
        if group == [2]:
            raise Local("the renderer broke")
        return group

    with pytest.raises(FormatError, match=r"^export: a writing process failed: Local: the renderer broke$"):
        forked.run_side_by_side(work, [[1], [2]])
    assert reaped(forks)


def test_a_child_killed_outright_is_a_one_line_error(forks):
    def work(group):
        if group == [2]:
            os.kill(os.getpid(), signal.SIGKILL)
        return group

    with pytest.raises(FormatError, match=r"^export: a writing process ended without its files \(signal 9\)$"):
        forked.run_side_by_side(work, [[1], [2]])
    assert reaped(forks)


def test_the_parents_own_error_kills_and_reaps_the_children(tmp_path, forks):
    marker = tmp_path / "late"

    def work(group):
        if group == ["parent"]:
            raise KeyboardInterrupt
        import time
        time.sleep(30)                      # killed long before it ends
        marker.write_text("the child went on")

    with pytest.raises(KeyboardInterrupt):
        forked.run_side_by_side(work, [["parent"], ["child"]])
    assert reaped(forks)
    assert not marker.exists()


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="holding signals back needs pthread_sigmask")
@pytest.mark.parametrize("another_thread", [False, True], ids=["one thread", "another thread"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_right_after_the_fork_still_finds_the_child_recorded(monkeypatch, signum, another_thread):
    """The signal comes the moment ``os.fork`` returns in the parent (CI met this: the child
    wrote on into a staging directory the interrupted parent was removing): the parent stops,
    and the child is killed and reaped all the same.

    With another thread in the process (pytest-xdist's, here 4 of 5 runs under load) the system
    gives the signal to that thread, which a mask set in this one does not block: Python then
    ran the handler here at once, before the child was recorded."""
    if another_thread:
        idle = threading.Event()
        helper = threading.Thread(target=idle.wait, daemon=True)   # blocks no signal
        helper.start()
        woken, wake = os.pipe()
        os.set_blocking(wake, False)
        previous_wakeup = signal.set_wakeup_fd(wake)
    children: list[int] = []
    fork = os.fork

    def fork_then_signal():
        pid = fork()
        if pid:
            children.append(pid)
            os.kill(os.getpid(), signum)
            if another_thread:   # until the helper thread has taken it (Python's C handler ran there)
                os.read(woken, 1)
        return pid

    def interrupted(number, frame):
        raise KeyboardInterrupt

    def work(group):
        import time
        time.sleep(30)                      # killed long before it ends
        return group

    previous = signal.signal(signum, interrupted)
    monkeypatch.setattr(os, "fork", fork_then_signal)
    try:
        with pytest.raises(KeyboardInterrupt):
            forked.run_side_by_side(work, [["parent"], ["child"]])
        assert reaped(children)
    finally:
        signal.signal(signum, previous)
        if another_thread:
            signal.set_wakeup_fd(previous_wakeup)
            os.close(woken)
            os.close(wake)
            idle.set()
            helper.join()
        for pid in children:                # the old code's orphan, so no run leaves it behind
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass


# ---------------------------------------------------------------------------------------------
# export_model with workers
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def model():
    return build_model(parse_puzzle(DOC))


def test_the_files_are_the_same_whatever_the_workers(tmp_path, model, forks):
    sets = {}
    for workers in (1, 2, 3, 8):
        out = tmp_path / f"w{workers}"
        written = export_model(model, out, "all", workers=workers, mps_style="both")
        sets[workers] = digests(out)
        assert list(written) == ["csv", "mps", "lp", "matlab", "parquet", "cnf", "opb", "manifest"]
        assert check_export(out).problems == []
        assert not [p for p in out.iterdir() if p.name.startswith(".")]      # no staging left
    assert sets[1] == sets[2] == sets[3] == sets[8]
    assert len(sets[1]) > 15
    assert reaped(forks)


def test_a_write_failing_in_a_child_keeps_the_earlier_export_whole(tmp_path, model, monkeypatch, forks):
    out = tmp_path / "out"
    export_model(model, out, "all", workers=1)
    before = digests(out)
    chosen = resolve_formats("all")
    groups = forked.balanced([fmt.cost for fmt in chosen], 2)
    victim = chosen[groups[1][0]]                          # a format the child writes
    victim_file = victim.file_names[0]

    def full_disk(model, directory, *, dense="auto", mps_style="free"):
        raise WriteFailed(directory / victim_file, "cannot write: No space left on device", 28, "No space left")

    # (the child inherits the patched registry)
    monkeypatch.setitem(FORMATS, victim.name, dataclasses.replace(victim, export=full_disk))
    with pytest.raises(WriteFailed, match=r": cannot write: No space left on device$") as caught:
        export_model(model, out, "all", workers=2)
    assert caught.value.path == out / victim_file          # the file asked for, not its staged copy
    assert digests(out) == before
    assert not [p for p in out.iterdir() if p.name.startswith(".")]
    assert reaped(forks)
