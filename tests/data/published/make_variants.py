"""Rebuild variants.jsonl: published puzzles from sigh/Interactive-Sudoku-Solver's collections,
converted to f-puzzles payloads (and puzzle documents) where every constraint maps exactly.

Usage: python tests/data/published/make_variants.py DUMP.json [OUT.jsonl]
       python tests/data/published/make_variants.py --retime [OUT.jsonl]   # times and ``slow`` only

DUMP.json is the list of puzzle entries of that repository's ``data/collections.js`` (and
``data/example_puzzles.js``, which it resolves names against), as printed by importing those two
modules with node and writing ``JSON.stringify`` of every entry (see tests/data/README.md). This
script reads only that data: puzzle strings in the formats the collections use (its dot notation
``.Type~args~cells``, the short and long killer formats, 81-character givens and jigsaw layouts),
each converted from the format's published definition. A puzzle is kept when each of its
constraints has an exact counterpart:

=================================  ====================================  =========================
collections.js                     f-puzzles                             puzzle document
=================================  ====================================  =========================
``~R1C1_8`` (a given)              ``grid`` value, ``given``             ``givens``
``~R1C1_2_4_6_8`` (even digits)    ``even``                              ``even`` rule
``~R1C1_1_3_5_7_9`` (odd digits)   ``odd``                               ``odd`` rule
``.Cage~S~cells`` (0 or no sum)    ``killercage`` (value S)              ``cage`` rule
``.Thermo~cells``                  ``thermometer``                       ``thermo``
``.WhiteDot~a~b`` / ``.BlackDot``  ``difference`` / ``ratio``            ``kropki`` white / black
``.GreaterThan~a~b``               (none)                                ``greater``
``.AntiKnight`` ``.AntiKing``      ``antiknight`` ``antiking``           same kinds
``.AntiConsecutive``               ``nonconsecutive``                    ``nonconsecutive``
``.Diagonal~1`` / ``~-1``          ``diagonal+`` / ``diagonal-``         ``diagonal`` anti / main
``.Windoku``                       four ``extraregion`` (9x9)            ``windoku``
``.DisjointSets``                  ``disjointgroups``                    ``disjointgroups``
``.Jigsaw~layout`` (+ NoBoxes)     ``region`` per cell                   ``regions``
``.Shape~6x6``                     ``size`` 6 (2x3 boxes)                ``size`` 6
=================================  ====================================  =========================

Anything else (arrows, little killers, sandwiches, XV, renban, ...) leaves the puzzle out. The
expected number of solutions (up to 2) comes from the independent oracle (tests/core/rule_oracle.py)
on the f-puzzles JSON (the document where f-puzzles cannot say the puzzle), and its solution
must be the one the collection lists.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "core"))

import rule_oracle as oracle  # noqa: E402

DIGITS = "123456789"


class Unsupported(Exception):
    pass


def cell(text: str, n: int) -> tuple[int, int]:
    text = text.upper()
    if not (text.startswith("R") and "C" in text):
        raise Unsupported(f"cell {text}")
    r, c = text[1:].split("C")
    r, c = int(r), int(c)
    if not (1 <= r <= n and 1 <= c <= n):
        raise Unsupported(f"cell {text}")
    return r - 1, c - 1


class Puzzle:
    def __init__(self, n: int = 9):
        self.n = n
        self.givens: dict = {}
        self.regions: str | None = None
        self.rules: list[tuple[str, dict]] = []   # (kind, params) in document terms
        self.fpuzzles_only = True                  # False once a rule f-puzzles cannot say appears
        self.kinds: set = set()

    def rule(self, kind: str, **params):
        self.rules.append((kind, params))
        self.kinds.add(kind)


def parse_dot(text: str, p: Puzzle) -> None:
    items = "".join(text.split()).split(".")
    if items[0] != "":
        raise Unsupported("not dot notation")
    for item in items[1:]:
        kind, *parts = item.split("~")
        if kind == "Shape":
            spec = parts[0]
            dims, _, values = spec.partition("~")
            rows, _, cols = dims.partition("x")
            if rows != cols or (values and values != rows) or len(parts) > 1:
                raise Unsupported(f"shape {parts}")
            p.n = int(rows)
    for item in items[1:]:
        kind, *parts = item.split("~")
        n = p.n
        if kind == "":
            for part in parts:
                if not part:
                    continue
                where, *values = part.split("_")
                r, c = cell(where, n)
                values = [int(v) for v in values]
                if len(values) == 1:
                    p.givens[(r, c)] = values[0]
                elif values == list(range(2, n + 1, 2)):
                    p.rule("even", cells=[(r, c)])
                elif values == list(range(1, n + 1, 2)):
                    p.rule("odd", cells=[(r, c)])
                else:
                    raise Unsupported("pencilmarks")
        elif kind == "Shape":
            continue
        elif kind == "Cage":
            total, *cells = parts
            params = {"cells": [cell(x, n) for x in cells]}
            if total.strip() not in ("", "0"):
                params["sum"] = int(total)
            p.rule("cage", **params)
        elif kind == "Thermo":
            p.rule("thermo", cells=[cell(x, n) for x in parts])
        elif kind in ("WhiteDot", "BlackDot", "GreaterThan"):
            if len(parts) != 2:
                raise Unsupported(f"{kind} of {len(parts)} cells")
            cells = [cell(x, n) for x in parts]
            if kind == "GreaterThan":
                p.rule("greater", cells=cells)
                p.fpuzzles_only = False
            else:
                p.rule("kropki", color="white" if kind == "WhiteDot" else "black", cells=cells)
        elif kind in ("AntiKnight", "AntiKing", "AntiConsecutive", "DisjointSets", "Windoku") and not any(parts):
            p.rule({"AntiKnight": "antiknight", "AntiKing": "antiking", "AntiConsecutive": "nonconsecutive",
                    "DisjointSets": "disjointgroups", "Windoku": "windoku"}[kind])
        elif kind == "Diagonal" and parts in (["1"], ["-1"]):
            p.rule("diagonal", which="anti" if parts == ["1"] else "main")
        elif kind == "Jigsaw":
            layout = parts[-1]
            if len(layout) != n * n or len(set(layout)) != n:
                raise Unsupported("jigsaw layout")
            p.regions = layout
        elif kind == "NoBoxes" and not any(parts):
            p.kinds.add("noboxes")
        else:
            raise Unsupported(kind)
    if "noboxes" in p.kinds and p.regions is None:
        raise Unsupported("NoBoxes without a jigsaw")
    p.kinds.discard("noboxes")


DIRECTIONS = {"v": (1, 0), "^": (-1, 0), "<": (0, -1), ">": (0, 1), "`": (-1, -1), "'": (-1, 1), ",": (1, -1),
              ".": (1, 1)}


def parse_short_killer(text: str, p: Puzzle) -> bool:
    """The short killer format: each cell points to a neighbour (v ^ < > ` ' , .) or holds the
    cage's sum (0-9, A-Z for 10-35, a-j for 36-45; 0: no sum) at the cell every pointer chain ends in."""
    if len(text) != 81 or not any(ch in DIRECTIONS for ch in text if ch not in DIGITS):
        return False
    if not any(ch in "<v>^`'," for ch in text):
        return False
    cages: dict = {}
    for k in range(81):
        r, c = divmod(k, 9)
        steps = 0
        while text[r * 9 + c] in DIRECTIONS:
            dr, dc = DIRECTIONS[text[r * 9 + c]]
            r, c = r + dr, c + dc
            steps += 1
            if steps > 9:
                raise Unsupported("loop")
        head = text[r * 9 + c]
        total = (int(head) if head.isdigit() else ord(head) - 55 if head.isupper() else ord(head) - ord("a") + 36)
        cages.setdefault((r, c), (total, []))[1].append(divmod(k, 9))
    for total, cells in cages.values():
        p.rule("cage", cells=cells, **({"sum": total} if total else {}))   # sum 0: digits distinct, any sum
    return True


def parse_long_killer(text: str, p: Puzzle) -> bool:
    """``3x3:d:k:v1:...:v81``: each cell ``sum * 256 + cage id`` (sum 0: in no cage); ``d``
    adds both diagonals."""
    parts = text.split(":")
    if not text.startswith("3x3:") or len(parts) < 84 or parts[2] != "k":
        return False
    cages: dict = {}
    for k in range(81):
        value = int(parts[k + 3])
        if value // 256:
            cages.setdefault(value % 256, (value // 256, []))[1].append(divmod(k, 9))
    if parts[1] == "d":
        p.rule("diagonal", which="anti")
        p.rule("diagonal", which="main")
    for total, cells in cages.values():
        p.rule("cage", cells=cells, sum=total)
    return True


def convert(entry: dict) -> Puzzle:
    text = entry["input"]
    if not isinstance(text, str) or text.startswith("/"):
        raise Unsupported("script input")
    p = Puzzle()
    flat = "".join(text.split())
    if flat.startswith("."):
        parse_dot(text, p)
    elif parse_short_killer(flat, p) or parse_long_killer(flat, p):
        pass
    elif len(flat) == 81 and all(ch in DIGITS + ".0" for ch in flat):
        p.givens = {divmod(k, 9): int(ch) for k, ch in enumerate(flat) if ch in DIGITS}
    else:
        raise Unsupported("format")
    return p


def name_of(r: int, c: int, upper: bool = False) -> str:
    return f"R{r + 1}C{c + 1}" if upper else f"r{r + 1}c{c + 1}"


WINDOWS = [[(top + i, left + j) for i in range(3) for j in range(3)] for top in (1, 5) for left in (1, 5)]


def fpuzzles_json(p: Puzzle, title: str) -> dict:
    grid = []
    for r in range(p.n):
        row = []
        for c in range(p.n):
            entry: dict = {}
            if (r, c) in p.givens:
                entry.update(value=p.givens[(r, c)], given=True)
            if p.regions is not None:
                entry["region"] = sorted(set(p.regions)).index(p.regions[r * p.n + c])
            row.append(entry)
        grid.append(row)
    data: dict = {"size": p.n, "title": title, "grid": grid}
    for kind, params in p.rules:
        cells = [name_of(*x, upper=True) for x in params.get("cells", [])]
        if kind == "cage":
            data.setdefault("killercage", []).append({"cells": cells, **({"value": str(params["sum"])}
                                                                         if "sum" in params else {})})
        elif kind == "thermo":
            data.setdefault("thermometer", []).append({"lines": [cells]})
        elif kind == "kropki":
            data.setdefault("difference" if params["color"] == "white" else "ratio", []).append({"cells": cells})
        elif kind in ("even", "odd"):
            data.setdefault(kind, []).extend({"cell": x} for x in cells)
        elif kind == "diagonal":
            data["diagonal+" if params["which"] == "anti" else "diagonal-"] = True
        elif kind == "windoku":
            if p.n != 9:
                raise Unsupported("windoku beyond 9x9")
            data["extraregion"] = [{"cells": [name_of(*x, upper=True) for x in w]} for w in WINDOWS]
        elif kind in ("antiknight", "antiking", "nonconsecutive", "disjointgroups"):
            data[kind] = True
        else:
            raise Unsupported(kind)
    return data


def document(p: Puzzle, entry: dict) -> dict:
    doc: dict = {"size": p.n}
    if p.regions is not None:
        doc["regions"] = p.regions
    doc["givens"] = [f"{name_of(*x)}={d}" for x, d in sorted(p.givens.items())]
    rules = []
    for kind, params in p.rules:
        rule = {"rule": kind, **{k: v for k, v in params.items() if k != "cells"}}
        if "cells" in params:
            rule["cells"] = [name_of(*x) for x in params["cells"]]
        rules.append(rule)
    parity = {}
    for rule in rules:                      # one even and one odd rule, as the f-puzzles reader makes them
        if rule["rule"] in ("even", "odd"):
            parity.setdefault(rule["rule"], {"rule": rule["rule"], "cells": []})["cells"] += rule["cells"]
    doc["rules"] = [r for r in rules if r["rule"] not in ("even", "odd")] + list(parity.values())
    doc["title"] = entry["name"]
    src = entry.get("src")
    if src:
        doc["source"] = " ".join(src) if isinstance(src, list) else src
    return doc


def main(dump: str, out: str) -> None:
    from lzstring import LZString

    entries = json.loads(Path(dump).read_text())
    seen, lines = set(), []
    for entry in entries:
        name = entry.get("name") or ""
        key = entry.get("input")
        if not isinstance(key, str) or key in seen:
            continue
        seen.add(key)
        try:
            p = convert(entry)
            if not p.rules or p.n not in (4, 6, 9):
                continue                       # classic givens alone are not what this set is for
            doc = document(p, entry)
            fp = fpuzzles_json(p, name) if p.fpuzzles_only else None
        except (Unsupported, ValueError):
            continue
        spec = oracle.spec_from_fpuzzles(fp) if fp is not None else oracle.spec_from_document(doc)
        start = time.perf_counter()
        try:
            count, grids = oracle.count(spec, 2, time_limit=10.0)
        except RuntimeError:
            print(f"skip {name!r}: the oracle needs more than 10 s", file=sys.stderr)
            continue
        print(f"{time.perf_counter() - start:6.2f} s  {count}  {name}", file=sys.stderr, flush=True)
        solution = entry.get("solution")
        if solution and (count == 0 or count == 1 and "".join(map(str, grids[0].ravel())) != solution):
            print(f"skip {name!r}: the oracle does not find the collection's solution", file=sys.stderr)
            continue
        lines.append({
            "name": name or f"{entry['group']} #{sum(1 for x in lines if x['collection'] == entry['group']) + 1}",
            "collection": entry["group"], "source": entry.get("src"), "comment": entry.get("comment"),
            "rules": sorted(p.kinds), "fpuzzles": LZString().compressToBase64(json.dumps(fp)) if fp else None,
            "document": doc, "solution": solution, "solutions": count})
    Path(out).write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    print(f"{len(lines)} puzzles -> {out}", file=sys.stderr)


#: Seconds above which a puzzle is marked ``slow`` (run by the tests only with SUDOKU_TEST_SLOW=1).
SLOW_S = 1.5


def retime(path: str) -> None:
    """Time the oracle and HiGHS (count up to 2) on each line again and mark the slow ones."""
    sys.path.insert(0, str(HERE.parents[2]))
    from pipeline.core.build import build_model
    from pipeline.core.puzzle import parse_puzzle
    from pipeline.solvers.highs import count_solutions

    lines = [json.loads(line) for line in Path(path).read_text().splitlines()]
    for line in lines:
        start = time.perf_counter()
        oracle.count(oracle.spec_from_document(line["document"]), 2)
        line["oracle_s"] = round(time.perf_counter() - start, 3)
        start = time.perf_counter()
        got = count_solutions(build_model(parse_puzzle(line["document"])), limit=2, time_limit=60)
        line["highs_s"] = round(time.perf_counter() - start, 3)
        line["slow"] = max(line["oracle_s"], line["highs_s"]) > SLOW_S
        print(f"{line['oracle_s']:7.2f} {line['highs_s']:7.2f} {got.count} {line['solutions']} {line['name'][:50]}",
              file=sys.stderr, flush=True)
    Path(path).write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))


if __name__ == "__main__":
    if sys.argv[1] == "--retime":
        retime(sys.argv[2] if len(sys.argv) > 2 else str(HERE / "variants.jsonl"))
    else:
        out = sys.argv[2] if len(sys.argv) > 2 else str(HERE / "variants.jsonl")
        main(sys.argv[1], out)
        retime(out)
