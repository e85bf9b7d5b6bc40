"""Puzzle text from files and standard input (:mod:`pipeline.core.textin`): gzip read through
within the bound, binary and non-UTF-8 bytes named in one line."""
from __future__ import annotations

import gzip
import io
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.core import textin
from pipeline.core.errors import PuzzleError
from pipeline.core.puzzle import parse_puzzle
from pipeline.core.textin import read_stdin, read_text_file

PROJECT = Path(__file__).resolve().parents[2]
PUZZLE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


def test_a_gzipped_puzzle_file_reads_as_its_text(tmp_path):
    plain, packed = tmp_path / "p.txt", tmp_path / "p.txt.gz"
    plain.write_text(PUZZLE + "\n")
    packed.write_bytes(gzip.compress((PUZZLE + "\r\n").encode()))
    assert read_text_file(packed, "puzzle") == PUZZLE + "\n"
    assert (parse_puzzle(str(packed)).grid == parse_puzzle(str(plain)).grid).all()


def test_a_gzipped_document_reads_too(tmp_path):
    packed = tmp_path / "thermo.json.gz"
    packed.write_bytes(gzip.compress(b'{"size": 4, "givens": "1...............", '
                                     b'"rules": [{"rule": "thermo", "cells": ["r2c1", "r2c2", "r2c3"]}]}'))
    puzzle = parse_puzzle(str(packed))
    assert puzzle.n == 4 and [rule.kind for rule in puzzle.rules] == ["thermo"]


def test_a_gzip_bomb_stops_at_the_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(textin, "MAX_TEXT_BYTES", 1000)
    bomb = tmp_path / "bomb.gz"
    bomb.write_bytes(gzip.compress(b"." * 10 ** 6))   # about 1 KB that expands to 1 MB
    with pytest.raises(PuzzleError, match=r"^puzzle: '.*bomb\.gz' holds more than 1,000 bytes of text; a puzzle is far smaller"):
        read_text_file(bomb, "puzzle")


def test_a_cut_gzip_stream_is_one_line(tmp_path):
    cut = tmp_path / "cut.gz"
    cut.write_bytes(gzip.compress(PUZZLE.encode())[:20])
    with pytest.raises(PuzzleError, match=r"^puzzle: cannot read '.*cut\.gz': Compressed file ended"):
        read_text_file(cut, "puzzle")


@pytest.mark.parametrize("head, kind", [(b"PK\x03\x04", "a zip archive"), (b"BZh91AY&SY\xff", "bzip2-compressed"),
                                        (b"\xfd7zXZ\x00\x00\xff", "xz-compressed"), (b"PAR1\xff\xfe", "a Parquet file")])
def test_a_binary_file_is_named_by_its_kind(tmp_path, head, kind):
    path = tmp_path / "puzzle.txt"
    path.write_bytes(head + b"\x80" * 8)
    with pytest.raises(PuzzleError, match=rf"^puzzle: '.*puzzle\.txt' is {kind}"):
        parse_puzzle(str(path))


@pytest.mark.parametrize("head, kind", [(b"\x28\xb5\x2f\xfd\x24\x00", "zstd-compressed"),
                                        (b"7z\xbc\xaf\x27\x1c\x00\x04", "a 7z archive")])
def test_zstd_and_7z_are_named_by_their_kind(tmp_path, head, kind):
    path = tmp_path / "puzzle.txt"
    path.write_bytes(head + b"\x80" * 8)
    with pytest.raises(PuzzleError, match=rf"^puzzle: '.*puzzle\.txt' is {kind}, not puzzle text$"):
        parse_puzzle(str(path))


def test_a_tar_of_puzzle_text_is_named_though_it_decodes_as_utf8(tmp_path):
    """An outside probe: a tar of a puzzle file is UTF-8 (its headers are ASCII and NULs), so it was
    read as text: batch made a 'complete' run of error rows and lost the first puzzle."""
    import tarfile
    path = tmp_path / "puzzle.txt"
    with tarfile.open(path, "w") as t:
        info = tarfile.TarInfo("p.txt")
        data = (PUZZLE + "\n").encode()
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    with pytest.raises(PuzzleError, match=r"^puzzle: '.*puzzle\.txt' is a tar archive, not puzzle text$"):
        parse_puzzle(str(path))


def test_bytes_that_are_not_utf8_name_their_offset(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes(PUZZLE[:10].encode() + b"\xe9" + PUZZLE[11:].encode())
    with pytest.raises(PuzzleError, match=r"^puzzle: '.*latin1\.txt' is not UTF-8 text \(byte 0xe9 at offset 10: "):
        parse_puzzle(str(path))


class _Stdin(io.TextIOWrapper):
    """A text stream over bytes, as ``sys.stdin`` is (its ``buffer`` holds the bytes)."""


def test_standard_input_bytes_are_read_and_checked(monkeypatch):
    monkeypatch.setattr(sys, "stdin", _Stdin(io.BytesIO(b"\xef\xbb\xbf" + PUZZLE.encode() + b"\r\n")))
    assert read_stdin() == PUZZLE + "\n"
    monkeypatch.setattr(sys, "stdin", _Stdin(io.BytesIO(gzip.compress(PUZZLE.encode()))))
    with pytest.raises(PuzzleError, match=r"^puzzle: standard input is gzip-compressed, not puzzle text$"):
        read_stdin()
    monkeypatch.setattr(sys, "stdin", _Stdin(io.BytesIO(b"." * 200)))
    monkeypatch.setattr(textin, "MAX_TEXT_BYTES", 100)
    with pytest.raises(PuzzleError, match=r"^puzzle: standard input holds more than"):
        read_stdin()


def test_solve_reads_a_gzipped_file_from_the_command_line(tmp_path):
    packed = tmp_path / "p.txt.gz"
    packed.write_bytes(gzip.compress(PUZZLE.encode()))
    proc = subprocess.run([sys.executable, "-m", "pipeline", "solve", str(packed), "--format", "line"],
                          capture_output=True, text=True, cwd=PROJECT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


class _RecordingStream(io.BytesIO):
    """A stream without a descriptor that remembers the sizes it was asked for."""

    def __init__(self, data: bytes):
        super().__init__(data)
        self.asked: list[int] = []

    def read(self, size=-1):
        self.asked.append(size)
        return super().read(size)


@pytest.mark.parametrize("length", [0, 5, textin.READ_CHUNK + 7])
def test_a_bounded_read_asks_for_a_chunk_at_a_time(length):
    # read(most + 1) allocated the whole bound before reading: 1 GiB for a 300-byte solution file
    stream = _RecordingStream(b"x" * length)
    data = textin.read_at_most(stream, 1 << 30)
    assert data == b"x" * length
    assert max(stream.asked) <= textin.READ_CHUNK


def test_a_bounded_read_stops_one_byte_past_the_bound():
    stream = _RecordingStream(b"y" * (3 * textin.READ_CHUNK))
    assert len(textin.read_at_most(stream, textin.READ_CHUNK + 10)) == textin.READ_CHUNK + 11
    assert sum(stream.asked) == textin.READ_CHUNK + 11


class _RecordingFile(io.BufferedReader):
    """A regular file's reader that remembers the sizes it was asked for."""

    asked: list[int]

    def read(self, size=-1):
        self.asked.append(size)
        return super().read(size)


def test_a_regular_file_is_read_in_one_request_of_its_size(tmp_path):
    path = tmp_path / "big.txt"
    path.write_bytes(b"z" * (2 * textin.READ_CHUNK + 3))
    with _RecordingFile(io.FileIO(path, "rb")) as handle:
        handle.asked = []
        data = textin.read_at_most(handle, 1 << 30)
    assert len(data) == 2 * textin.READ_CHUNK + 3
    assert handle.asked[0] == 2 * textin.READ_CHUNK + 4   # its size and one byte: not the bound, not chunks


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc/self/status (Linux)")
def test_a_small_file_reads_under_an_address_space_limit(tmp_path):
    # read(most + 1) asked for the whole 1 GiB bound of a solution read without a manifest:
    # a bare MemoryError under ulimit -v with room for everything but that
    answer = tmp_path / "answer.sol"
    answer.write_text("# Objective value = 0\nx_1_1_1 1\n")
    script = ("import re, resource, sys\n"
              "from formats.files import read_regular_text\n"
              "size = int(re.search(r'VmSize:\\s+(\\d+)', open('/proc/self/status').read()).group(1)) * 1024\n"
              "room = size + 256 * 2 ** 20\n"
              "resource.setrlimit(resource.RLIMIT_AS, (room, room))\n"
              "print(len(read_regular_text(sys.argv[1])))\n")
    done = subprocess.run([sys.executable, "-c", script, str(answer)], capture_output=True, text=True, cwd=PROJECT,
                          timeout=60)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.strip() == str(len(answer.read_text()))
