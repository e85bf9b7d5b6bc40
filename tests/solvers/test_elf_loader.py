"""The kernels' object loader (pipeline/solvers/elf_loader.py): the code it maps searches node for
node as the same object loaded by llvmlite's MCJIT, and an object it does not take is refused in
one message (the caller then loads it with LLVM)."""
from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

from oracles import PROJECT
from pipeline.core.build import build_model
from pipeline.core.puzzle import parse_puzzle

pytest.importorskip("numba", reason="the kernels' objects are compiled by numba (pip install '.[fast]')")

from pipeline.solvers import dfs_native, dfsrules, dfsrules_native, elf_loader  # noqa: E402
from pipeline.solvers.dfs import search_puzzle  # noqa: E402

pytestmark = pytest.mark.skipif(not elf_loader.supported(), reason="the object loader runs on x86-64 Linux only")

BENCH_SET = PROJECT / "bench" / "dfsrules_set.jsonl"


def _rules_object() -> tuple[bytes, dict[str, str]]:
    """The dfsrules kernel's object and symbols, from the cache (compiled when missing)."""
    dfsrules_native.load()
    key = dfs_native.kernel_key(dfsrules_native._KERNEL_SOURCES)
    folder = dfs_native.cache_dir()
    cached = None if folder is None else dfs_native._read_cached(folder / f"dfsrules-kernel-{key}.o", key,
                                                                  dfsrules_native.SIGNATURES)
    if cached is None:
        from pipeline.solvers import dfsrules_kernel

        cached = dfs_native.compile_object(dfs_native._llvm(), dfsrules_kernel.entry_points())
    return cached


def _dfs_object() -> tuple[bytes, dict[str, str]]:
    return dfs_native.compile_object(dfs_native._llvm())


def test_the_mapped_rules_kernel_searches_node_for_node_as_llvms(monkeypatch):
    body, symbols = _rules_object()
    mapped = dfsrules_native.RulesKernel(body, symbols)
    assert isinstance(mapped._code, elf_loader.LoadedObject)
    monkeypatch.setattr(elf_loader, "supported", lambda: False)
    by_llvm = dfsrules_native.RulesKernel(body, symbols)
    assert not isinstance(by_llvm._code, elf_loader.LoadedObject)
    monkeypatch.undo()
    rows = [json.loads(line) for line in BENCH_SET.read_text().splitlines()]
    families: dict[str, list[dict]] = {}
    for row in rows:   # the first two puzzles of each family: every handler and the table builder
        families.setdefault(row["family"], [])
        if len(families[row["family"]]) < 2:
            families[row["family"]].append(row["document"])
    for family, documents in families.items():
        for document in documents:
            outcomes = []
            for kernel in (mapped, by_llvm):
                monkeypatch.setattr(dfsrules_native, "_LOADED", kernel)
                found = dfsrules.search_model(build_model(parse_puzzle(document)), 2, keep=2)
                outcomes.append((found.count, found.nodes, [g.tolist() for g in found.grids]))
            assert outcomes[0] == outcomes[1], family


def test_the_mapped_dfs_kernel_searches_node_for_node_as_llvms(monkeypatch):
    body, symbols = _dfs_object()
    mapped = dfs_native.NativeKernel(body, symbols)
    monkeypatch.setattr(elf_loader, "supported", lambda: False)
    by_llvm = dfs_native.NativeKernel(body, symbols)
    monkeypatch.undo()
    lines = (PROJECT / "tests" / "data" / "sets" / "9x9_forum_hardest_1106.txt").read_text().splitlines()
    puzzles = [line.strip() for line in lines if line.strip() and not line.startswith("#")][:5] + ["." * 81]
    for text in puzzles:
        outcomes = []
        for kernel in (mapped, by_llvm):
            monkeypatch.setattr(dfs_native, "_LOADED", kernel)
            found = search_puzzle(parse_puzzle(text), 3)
            outcomes.append((found.count, found.nodes, [np.asarray(g).tolist() for g in found.grids]))
        assert outcomes[0] == outcomes[1], text


def _section(body: bytes, wanted: str) -> tuple[int, int, int]:
    """(header offset, file offset, size) of the section named ``wanted``."""
    shoff, = struct.unpack_from("<Q", body, 40)
    shnum, shstrndx = struct.unpack_from("<HH", body, 60)
    names = struct.unpack_from("<Q", body, shoff + 64 * shstrndx + 24)[0]
    for i in range(shnum):
        name, _kind, _flags, _addr, offset, size = struct.unpack_from("<IIQQQQ", body, shoff + 64 * i)
        if body[names + name:body.index(b"\0", names + name)].decode() == wanted:
            return shoff + 64 * i, offset, size
    raise AssertionError(wanted)


def test_objects_it_does_not_take_are_refused_in_one_message():
    body, symbols = _dfs_object()
    names = list(symbols.values())
    assert set(elf_loader.load_object(body, names).addresses) == set(names)

    def refused(data: bytes, match: str, wanted=names) -> None:
        with pytest.raises(elf_loader.ObjectRefused, match=match):
            elf_loader.load_object(data, wanted)

    refused(b"not an object", "not an ELF object")
    refused(body[:16] + struct.pack("<H", 1) + struct.pack("<H", 183) + body[20:], r"machine 183")   # aarch64
    _, rela, _ = _section(body, ".rela.text")
    first_type = rela + 8
    absolute32 = body[:first_type] + struct.pack("<I", 10) + body[first_type + 4:]   # R_X86_64_32: needs low memory
    refused(absolute32, "relocation type 10")
    assert b"memset" in body
    refused(body.replace(b"memset\0", b"system\0", 1), "needs system")   # only the C library's memory functions
    text_header, _, _ = _section(body, ".text")
    flags, = struct.unpack_from("<Q", body, text_header + 8)
    writable = body[:text_header + 8] + struct.pack("<Q", flags | 0x1) + body[text_header + 16:]
    refused(writable, "writable or thread-local")
    refused(body, "defines no nothing_here", wanted=["nothing_here"])
    # fields out of range (an object edited and its hash made again): refused, not an IndexError
    far_symbol = body[:first_type + 4] + struct.pack("<I", 60000) + body[first_type + 8:]
    refused(far_symbol, "a damaged object")
    far_offset = body[:rela] + struct.pack("<Q", 10 ** 7) + body[rela + 8:]
    refused(far_offset, "a damaged object")


def test_the_key_reads_the_cpu_without_llvm():
    host = dfs_native.host_fingerprint()
    if Path("/proc/cpuinfo").exists():
        assert host is not None and host == dfs_native.host_fingerprint()
        assert b"flags:" in host or b"Features:" in host
    assert len(dfs_native.kernel_key()) == 24
