"""Helpers shared by the batch tests (imported as ``from batch_helpers import ...``)."""
from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd

from oracles import grid_of, is_valid_solution

WRONG_LENGTH = "12345"
DUPLICATE = "11" + "." * 79  # two 1s in row 1: well-formed characters, invalid puzzle

# norvig top95 #1, 3 solutions, no solution, a 4x4 with one solution
MIXED = [
    "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
    "8.........95.......67.........472968...913245...856137....9.716...6.8492......583",
    "1...5.2.9..7.......6.......2...........5.1..2....2.39.3.4.9...15...1...3...8...4.",
    "..4.3...1.2.....",
]


def lines(path: Path) -> list[str]:
    return [s.strip() for s in path.read_text().splitlines() if s.strip()]


def refs(*paths: Path) -> dict[str, str]:
    out = {}
    for path in paths:
        ref = pd.read_csv(path, dtype=str, keep_default_na=False)
        out.update(zip(ref["puzzle"], ref["solution"]))
    return out


def read(out: Path) -> pd.DataFrame:
    return pd.read_parquet(out)


def parts(out: Path) -> list[Path]:
    return sorted(out.glob("part-*.parquet"))


def check_expected(df: pd.DataFrame, records, expected) -> None:
    assert df["index"].tolist() == list(range(len(records)))
    assert df["puzzle"].tolist() == records
    for row, (status, solution, error) in zip(df.itertuples(), expected):
        assert row.status == status, (row.index, row.error)
        if status == "optimal":
            assert row.solution == solution
            assert pd.isna(row.error)
            n = int(round(len(row.puzzle) ** 0.5))
            h = int(round(n ** 0.5))
            assert is_valid_solution(grid_of(row.solution), h, n // h, clues=grid_of(row.puzzle))
        else:
            assert pd.isna(row.solution)
            assert row.error == error if error is not None else pd.isna(row.error)


@contextlib.contextmanager
def serving_port(on_connect: Callable[[socket.socket], bool]) -> Iterator[int]:
    """A loopback TCP port whose thread hands each connection to ``on_connect`` (True: keep it
    open until the end). The thread ends with the block: a thread left alive keeps formats.forked
    from forking in every later test of this pytest worker."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.1)
    held, done = [], threading.Event()

    def accept():
        while not done.is_set():
            try:
                conn, _ = server.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            if on_connect(conn):
                held.append(conn)
            else:
                conn.close()
    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        done.set()
        thread.join(5)
        server.close()
        for conn in held:
            conn.close()
