"""Write the vendored test sample ``tests/data/`` from the shared data sets (``../shared/data``).

Run from anywhere: ``python tests/data/make_sample.py [SHARED_DATA_DIR [OUT_DIR]]`` (OUT_DIR
defaults to this directory). The selection is
deterministic (first rows of each file or group, in file order; no randomness), lines are copied
byte for byte (the ``source`` columns of the ``*.ref.csv`` files are kept), and the layout is the
shared one (``sets/``, ``dev/``), so a test reads ``DATA_DIR / "sets" / name`` from either.

Why the first rows: tests and ``bench/run.py --quick`` use the first puzzles of a file (the first
16x16, the first 9x9 jigsaw, the second Sudoku-X, the first 25x25, the first jigsaws of each
variant); with the head kept they see the same puzzles with the sample as with the full sets.
"""
from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1].parent / "shared" / "data"

# name -> number of leading puzzles kept (None: the whole file)
SETS = {
    "9x9_norvig_top95": None,        # 95: tests check the whole list; batch resume reads all of it
    "9x9_gecode": None,              # 18
    "9x9_x": None,                   # 101 Sudoku-X (30 KB with references)
    "16x16_classic": 10,
    "16x16_x": 5,
    "25x25_gecode": 3,               # minimal and hard: the first one is the time-limit test
    "9x9_forum_hardest_1106": 30,    # the SAT engine reuse test reads the first 30
}
DEV = {"9x9_sudoku17": 50, "9x9_forum_hardest_1905_11plus": 50}   # from the puzzles with a reference
JIGSAW_PER_GROUP = {("jigsaw", 81): 30, ("jigsaw_x", 36): None}  # other (variant, cells): 6
JIGSAW_DEFAULT = 6


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def _key(line: str) -> str:
    return next(csv.reader(io.StringIO(line)))[0]


def _write(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(lines), encoding="utf-8")
    print(f"{path.parent.name}/{path.name}: {len(lines)} lines, {path.stat().st_size:,} bytes")


def _with_refs(src: Path, dst: Path, name: str, puzzles: list[str]) -> None:
    """Write ``name.txt`` (the puzzles) and ``name.ref.csv`` (their reference rows, same order)."""
    ref_lines = _lines(src / f"{name}.ref.csv")
    by_puzzle = {_key(line): line for line in ref_lines[1:]}
    missing = [p for p in puzzles if p not in by_puzzle]
    if missing:
        raise SystemExit(f"{name}: {len(missing)} sampled puzzles have no reference row")
    _write(dst / f"{name}.txt", [p + "\n" for p in puzzles])
    _write(dst / f"{name}.ref.csv", [ref_lines[0]] + [by_puzzle[p] for p in puzzles])


def main(shared: Path = SHARED, out: Path = HERE) -> None:
    if not (shared / "sets").is_dir():
        raise SystemExit(f"shared data not found at {shared}")
    for name, keep in SETS.items():
        puzzles = [s.strip() for s in _lines(shared / "sets" / f"{name}.txt") if s.strip()]
        _with_refs(shared / "sets", out / "sets", name, puzzles[:keep])

    for name, keep in DEV.items():
        refs = {_key(line) for line in _lines(shared / "dev" / f"{name}.ref.csv")[1:]}
        puzzles = [s.strip() for s in _lines(shared / "dev" / f"{name}.txt") if s.strip() in refs]
        _with_refs(shared / "dev", out / "dev", name, puzzles[:keep])

    tdoku = ("9x9_tdoku_test_counts.csv", "9x9_tdoku_test_counts.ref.csv")
    for file in tdoku:                                  # 43 puzzles with exact counts: all of them
        _write(out / "sets" / file, _lines(shared / "sets" / file))

    # jigsaw.csv and jigsaw.ref.csv are aligned line by line: keep the same line numbers of both
    table, ref = _lines(shared / "sets" / "jigsaw.csv"), _lines(shared / "sets" / "jigsaw.ref.csv")
    header = next(csv.reader([table[0]]))
    taken: dict[tuple[str, int], int] = {}
    keep_rows = []
    for k, line in enumerate(table[1:], start=1):
        row = dict(zip(header, next(csv.reader([line]))))
        group = (row["variant"], len(row["puzzle"]))
        limit = JIGSAW_PER_GROUP.get(group, JIGSAW_DEFAULT)
        if limit is None or taken.get(group, 0) < limit:
            taken[group] = taken.get(group, 0) + 1
            keep_rows.append(k)
    _write(out / "sets" / "jigsaw.csv", [table[0]] + [table[k] for k in keep_rows])
    _write(out / "sets" / "jigsaw.ref.csv", [ref[0]] + [ref[k] for k in keep_rows])

    # ISS's published puzzles (497 KB, MIT licence beside them): all of them, so the ISS tests
    # (collection, semantics, each rule's published examples) run from a clone alone
    for file in ("collections.jsonl", "LICENSE.ISS"):
        _write(out / "iss" / file, _lines(shared / "iss" / file))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else SHARED, Path(sys.argv[2]) if len(sys.argv) > 2 else HERE)
