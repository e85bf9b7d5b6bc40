"""The dfs kernel's machine code (pipeline/solvers/dfs_native.py): the same answers as numba's
functions, its cache (written once, refused when damaged or stale, loaded without numba) and the
fallback to numba's functions when the code cannot be made."""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from oracles import PROJECT
from pipeline.core.errors import PipelineError
from pipeline.core.puzzle import Puzzle, parse_puzzle

pytest.importorskip("numba", reason="the dfs engine needs numba (pip install '.[fast]')")

from pipeline.solvers import dfs_native, elf_loader  # noqa: E402
from pipeline.solvers.dfs import search_grids, search_puzzle, shape_tables  # noqa: E402

SETS = PROJECT / "tests" / "data" / "sets"


def _grids(name: str, k: int) -> np.ndarray:
    lines = [s.strip() for s in (SETS / name).read_text().splitlines() if s.strip() and not s.startswith("#")][:k]
    return np.array([[0 if ch in ".0" else int(ch, 36) for ch in s] for s in lines])


@pytest.fixture
def kernels(monkeypatch):
    """Run a function once with the machine code and once with numba's functions."""
    def both(run):
        monkeypatch.setattr(dfs_native, "_LOADED", None)
        native = run()
        assert dfs_native._LOADED.native
        monkeypatch.setattr(dfs_native, "_LOADED", dfs_native.NumbaKernel("compared in a test"))
        return native, run()
    return both


@pytest.mark.parametrize("name, k, variant", [("9x9_forum_hardest_1106.txt", 200, "classic"),
                                              ("16x16_classic.txt", 5, "classic"), ("9x9_x.txt", 30, "x")])
def test_the_machine_code_finds_what_numba_finds(kernels, name, k, variant):
    grids = _grids(name, k)
    n = int(round(grids.shape[1] ** 0.5))
    template = parse_puzzle("." * n * n, variant=variant)
    native, numba = kernels(lambda: search_grids(grids, template, 2, 10**6))
    for a, b in zip(native[:4], numba[:4]):
        assert np.array_equal(a, b)
    assert native.searched == numba.searched == len(grids) > 0 and (native.counts == 1).all()


def test_counts_with_a_paused_buffer_and_a_node_budget_agree(kernels):
    # a 4x4 with 288 grids: keep 300 fills the 256-grid buffer once (pause, drain, resume)
    empty = Puzzle(np.zeros((4, 4), dtype=np.int64), 2, 2)
    native, numba = kernels(lambda: search_puzzle(empty, 1000, keep=300))
    assert native.count == numba.count == 288 and native.nodes == numba.nodes
    assert all(np.array_equal(a, b) for a, b in zip(native.grids, numba.grids)) and len(native.grids) == 288
    # empty 9x9s, 50 nodes each: unfinished; the first call stops after 2 (100 nodes >= 60), then stop
    grids = np.zeros((3, 81), dtype=np.int64)
    native, numba = kernels(lambda: search_grids(grids, parse_puzzle("." * 81), 10**6, 50, total_budget=60,
                                                 stop=lambda: True))
    assert native.searched == numba.searched == 2 and native.unfinished[:2].all()
    assert np.array_equal(native.nodes, numba.nodes)


def test_the_calls_refuse_arrays_they_would_misread():
    kernel = dfs_native.load()
    tables = shape_tables(parse_puzzle("." * 81))
    masks = np.zeros((2, 81), dtype=np.int64)   # int64, not uint64 masks
    outputs = (np.zeros(2, np.int64), np.zeros((2, 81), np.uint64), np.zeros(2, np.int64), np.zeros(2, np.bool_))
    args = (tables.peers, tables.n_peers, tables.units, tables.cell_units, tables.n_cell_units, tables.full, 1, 10)
    with pytest.raises(TypeError, match="C-contiguous uint64 array, got int64"):
        kernel.search_many(masks, *args, *outputs, 10**6)
    short = (np.zeros(1, np.int64),) + outputs[1:]
    with pytest.raises(ValueError, match="output arrays shorter"):
        kernel.search_many(masks.astype(np.uint64), *args, *short, 10**6)


def _load_in_child(tmp_path, cache: str, **more_env: str) -> dict:
    code = ("import json, sys\nfrom pipeline.solvers import dfs_native\nk = dfs_native.load()\n"
            "print(json.dumps({'native': k.native, 'numba': 'numba' in sys.modules, 'reason': getattr(k, 'reason', ''),"
            " 'llvm': 'llvmlite.binding' in sys.modules}))")
    env = dict(os.environ, PYTHONPATH=str(PROJECT), **{dfs_native.CACHE_ENV: cache}, **more_env)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_the_first_process_compiles_and_keeps_the_code_later_ones_load_it_without_numba(tmp_path):
    cache = tmp_path / "cache"
    first = _load_in_child(tmp_path, str(cache))
    files = list(cache.iterdir())
    assert first == {"native": True, "numba": True, "reason": "", "llvm": True}
    assert len(files) == 1 and files[0].name.startswith("dfs-kernel-") and files[0].suffix == ".o"
    second = _load_in_child(tmp_path, str(cache))
    # numba's half second is not paid, nor, where the object loader runs, LLVM's library (40 ms)
    assert second == {"native": True, "numba": False, "reason": "", "llvm": not elf_loader.supported()}
    assert list(cache.iterdir()) == files   # nothing rewritten, no temporary file left


def test_a_damaged_or_stale_cache_file_is_never_loaded(tmp_path):
    key = dfs_native.kernel_key()
    body, symbols = b"\x7fELF not really an object", {"search": "a", "search_many": "b"}
    path = tmp_path / "kernel.o"
    dfs_native._write_cached(path, key, body, symbols)
    assert dfs_native._read_cached(path, key) == (body, symbols)
    assert dfs_native._read_cached(path, "another key") is None          # another kernel, numba or CPU
    data = path.read_bytes()
    for damaged in (data[:-1], data[:-1] + b"?", data.replace(b"dfs kernel", b"dfs kernal", 1), b"", data[:20]):
        path.write_bytes(damaged)
        assert dfs_native._read_cached(path, key) is None
    assert dfs_native._read_cached(tmp_path / "missing.o", key) is None


def test_no_cache_or_an_unwritable_one_still_loads_the_machine_code(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    assert _load_in_child(tmp_path, str(blocker / "cache"))["native"]   # cannot be made: compiled, not kept
    # "none" keeps nothing, numba's own cache of the kernel's functions included (before, its
    # index and data files went to the package's __pycache__, here to NUMBA_CACHE_DIR)
    assert _load_in_child(tmp_path, "none", NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"))["native"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_a_compile_is_announced_saying_whether_later_runs_will_load_it(tmp_path, monkeypatch):
    from numba import cfunc, types

    said: list[str] = []
    monkeypatch.setattr(dfs_native, "on_compile", said.append)
    monkeypatch.setenv(dfs_native.CACHE_ENV, str(tmp_path / "cache"))

    def entries():
        return {"twice": cfunc(types.int64(types.int64))(lambda n: 2 * n)}

    key = "ab" * 12
    first = dfs_native.cached_object("probe", key, {"twice"}, entries)
    assert said == ["compiling the probe search kernel for this machine (5-20 s; later runs load it from "
                    f"{tmp_path / 'cache'})"]
    assert dfs_native.cached_object("probe", key, {"twice"}, entries) == first and len(said) == 1   # loaded: quiet
    monkeypatch.setenv(dfs_native.CACHE_ENV, "none")
    dfs_native.cached_object("probe", key, {"twice"}, entries)
    assert said[1] == ("compiling the probe search kernel for this machine (5-20 s, and again on every run: "
                       "SUDOKU_PIPELINE_CACHE=none keeps no compiled kernel)")
    monkeypatch.setattr(dfs_native, "on_compile", None)   # the library alone says nothing
    monkeypatch.setenv(dfs_native.CACHE_ENV, str(tmp_path / "other"))
    dfs_native.cached_object("probe", key, {"twice"}, entries)
    assert len(said) == 2


def test_a_kernel_compiles_on_every_run_only_where_the_cache_cannot_keep_it(tmp_path, monkeypatch):
    key = "cd" * 12
    for fine in (tmp_path / "new" / "deeper", tmp_path):
        monkeypatch.setenv(dfs_native.CACHE_ENV, str(fine))
        assert dfs_native.uncached_problem("dfs", key) is None
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(dfs_native.CACHE_ENV, str(blocker / "cache"))
    assert dfs_native.uncached_problem("dfs", key) == (
        f"compiles its kernel on every run here (seconds a run): the cache {blocker / 'cache'} cannot be written "
        "(set SUDOKU_PIPELINE_CACHE to a writable folder)")
    monkeypatch.setenv(dfs_native.CACHE_ENV, str(tmp_path / ("x" * 300) / "cache"))   # a name too long: no error
    assert "cannot be written" in dfs_native.uncached_problem("dfs", key)
    for value, said in (("none", "SUDOKU_PIPELINE_CACHE=none"), ("", "SUDOKU_PIPELINE_CACHE=''")):
        monkeypatch.setenv(dfs_native.CACHE_ENV, value)
        assert dfs_native.uncached_problem("dfs", key).endswith(f": {said} keeps no compiled kernel")
    monkeypatch.setenv(dfs_native.CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(dfs_native, "_LOADED", None)
    real = tmp_path / f"dfs-kernel-{dfs_native.kernel_key()}.o"
    dfs_native._write_cached(real, dfs_native.kernel_key(), b"\x7fELF body", {"search": "a", "search_many": "b"})
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path).is_file())   # a read-only folder
    assert dfs_native.start_problem() is None
    real.write_bytes(real.read_bytes()[:-1])   # damaged: a read-only cache would compile on every run
    assert dfs_native.start_problem() is not None
    assert dfs_native.uncached_problem("dfs", key) is not None


def test_the_cache_folder_may_start_at_the_home_folder(monkeypatch):
    monkeypatch.setenv(dfs_native.CACHE_ENV, "~/kernels")
    assert dfs_native.cache_dir() == Path.home() / "kernels"


def _no_home(*args, **kwargs):
    raise RuntimeError("Could not determine home directory.")


def test_a_cache_setting_that_names_no_home_is_one_error(monkeypatch):
    # '~nosuchuser/x' (or '~' with no home) raised pathlib's RuntimeError: a traceback from
    # solve --solver dfs, and a failed worker from batch
    monkeypatch.setenv(dfs_native.CACHE_ENV, "~no-such-user-here-xyz/kernels")
    with pytest.raises(PipelineError, match=r"^SUDOKU_PIPELINE_CACHE: '~no-such-user-here-xyz/kernels' names no "
                                            r"home folder here: give a folder, or none"):
        dfs_native.cache_dir()


def test_no_home_folder_keeps_no_kernel_and_says_why(monkeypatch):
    # HOME unset and no passwd entry (a container's arbitrary uid): Path.home() raises
    monkeypatch.delenv(dfs_native.CACHE_ENV, raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(Path, "home", classmethod(_no_home))
    assert dfs_native.cache_dir() is None
    assert dfs_native.uncached_problem("dfs", dfs_native.kernel_key()).endswith(
        ": no home folder to keep it in (HOME is not set): set SUDOKU_PIPELINE_CACHE to a writable folder")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")   # the XDG spec ignores a relative path
    assert dfs_native.cache_dir() is None
    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere/cache")
    assert dfs_native.cache_dir() == Path("/somewhere/cache/sudoku-pipeline")


def test_code_that_needs_numbas_runtime_falls_back_to_numbas_functions(monkeypatch):
    import llvmlite.binding as llvm
    from numba import cfunc, types

    from pipeline.solvers import dfs_kernel

    def allocating(n):   # np.zeros needs numba's runtime (NRT), which the loaded code cannot have
        return np.zeros(n).size

    entries = {"search": cfunc(types.int64(types.int64))(allocating),
               "search_many": cfunc(types.int64(types.int32))(allocating)}
    monkeypatch.setattr(dfs_kernel, "entry_points", lambda: entries)
    monkeypatch.setattr(dfs_native, "_LOADED", None)
    monkeypatch.setenv(dfs_native.CACHE_ENV, "none")
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    with pytest.raises(dfs_native.KernelUnavailable, match=r"^the compiled dfs kernel needs NRT_\w+.* from numba's runtime$"):
        dfs_native.compile_object(llvm)
    kernel = dfs_native.load()
    assert not kernel.native and "NRT_" in kernel.reason
    result = search_puzzle(parse_puzzle("4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"),
                           2, keep=2)
    assert result.count == 1 and result.status == "complete"


def test_the_key_covers_every_source_of_a_kernel_in_several_modules(tmp_path):
    """The dfsrules kernel lives in four modules (search, handlers, table builder and its layout):
    a change to any is a new object (numba's own cache keys a function by its file alone, so the
    kernels keep it off)."""
    from pipeline.solvers import dfsrules_native

    kernel, handlers = tmp_path / "kernel.py", tmp_path / "handlers.py"
    kernel.write_text("def search(): pass\n")
    handlers.write_text("def handler(): pass\n")
    before = dfs_native.kernel_key((kernel, handlers))
    handlers.write_text("def handler(): return 1\n")
    assert dfs_native.kernel_key((kernel, handlers)) != before
    assert dfs_native.kernel_key(kernel) == dfs_native.kernel_key((kernel,))
    # every module the kernel's code imports from, transitively (a handler in a module of its own
    # included), is hashed into the key
    names = [p.name for p in dfsrules_native._KERNEL_SOURCES]
    assert names[:4] == ["dfsrules_kernel.py", "dfsrules_handlers.py", "dfsrules_tables_kernel.py", "dfsrules_rows.py"]
    folder, todo, reached = dfsrules_native._KERNEL_SOURCES[0].parent, ["dfsrules_kernel.py"], set()
    while todo:
        name = todo.pop()
        reached.add(name)
        for node in ast.walk(ast.parse((folder / name).read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pipeline.solvers.dfsrules_"):
                module = node.module.rsplit(".", 1)[1] + ".py"
                if module not in reached:
                    todo.append(module)
    assert reached <= set(names), sorted(reached - set(names))
    for path in dfsrules_native._KERNEL_SOURCES:
        assert "cache=True" not in path.read_text()


def test_writing_an_object_prunes_the_kernels_stale_and_least_recently_used_ones(tmp_path):
    now = time.time()
    day = 86400

    def aged(name: str, days: float) -> Path:
        path = tmp_path / name
        path.write_bytes(b"old object")
        os.utime(path, (now - days * day, now - days * day))
        return path

    # this kernel's other versions, used 1..7 days ago, and one unused for 40 days
    recent = [aged(f"dfs-kernel-{'%024x' % k}.o", k) for k in range(1, 8)]
    stale = aged("dfs-kernel-" + "f" * 24 + ".o", 40)
    left_by_killed_writer = aged("dfs-kernel-" + "e" * 24 + ".oab12.tmp", 0.5)
    being_written = aged("dfs-kernel-" + "d" * 24 + ".ocd34.tmp", 0)
    other_kernel = aged("dfsrules-kernel-" + "0" * 24 + ".o", 90)   # another prefix: not this kernel's
    not_ours = aged("notes.txt", 90)
    # under the kernel's prefix but not its objects: another name, a link, a folder (none stops the rest)
    named_alike = [aged("dfs-kernel-mine.o", 40), aged("dfs-kernel-user-notes.tmp", 2 / 24)]
    dangling = tmp_path / ("dfs-kernel-" + "b" * 24 + ".o")
    dangling.symlink_to(tmp_path / "nowhere")
    folder = tmp_path / ("dfs-kernel-" + "c" * 24 + ".o")
    folder.mkdir()
    os.utime(folder, (now - 40 * day, now - 40 * day))
    key = "a" * 24
    dfs_native._write_cached(tmp_path / f"dfs-kernel-{key}.o", key, b"body", {"search": "a", "search_many": "b"})
    left = {p.name for p in tmp_path.iterdir()}
    kept = {p.name for p in recent[:dfs_native.KEEP_OBJECTS - 1]}
    assert left == kept | {f"dfs-kernel-{key}.o", being_written.name, other_kernel.name, not_ours.name,
                           *(p.name for p in named_alike), dangling.name, folder.name}
    assert not stale.exists() and not left_by_killed_writer.exists()


def test_loading_a_cached_object_marks_it_used_once_a_day(tmp_path):
    key = dfs_native.kernel_key()
    path = tmp_path / f"dfs-kernel-{key}.o"
    dfs_native._write_cached(path, key, b"body", {"search": "a", "search_many": "b"})
    old = path.stat().st_mtime - 3 * 86400
    os.utime(path, (old, old))
    assert dfs_native._read_cached(path, key) is not None
    touched = path.stat().st_mtime
    assert touched > old + 2 * 86400
    os.utime(path, (touched - 3600, touched - 3600))   # used an hour ago: not written again
    dfs_native._read_cached(path, key)
    assert path.stat().st_mtime == touched - 3600
