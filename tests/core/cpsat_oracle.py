"""An independent 9x9 oracle for every rule kind: OR-Tools CP-SAT written from each rule's meaning.

Issue 33, part 4. The model has one integer variable per cell over the puzzle's values (``1..N``
or the document's ``"values"``), ``AddAllDifferent`` per unit, and each rule of the document
written directly as constraints on those integers (sums, ``<``, ``|a - b| >= k``, tables,
``AddElement``, counts, reified booleans), read from its document form in docs/conventions.md.
Nothing here reads the project's rows, its rule classes or its parsers: only the puzzle document
(a dict) goes in.

:func:`count` enumerates solutions up to a cap (CP-SAT, one worker, a callback that stops the
search at the cap); :func:`holds` answers whether a full grid satisfies the document (every cell
fixed, feasibility). Grids are ``N x N`` arrays of values, as the project's grids are of digits
(for the default values ``1..N`` the same thing).

Supported documents: one ``N x N`` grid with ``h x w`` boxes (``box`` or the squarest split),
``variant`` ``classic``/``x``/``latin``, ``givens`` as one compact line or ``"r1c1=5"`` strings,
``values`` (a ``"lo-hi"`` range or a list), and the rule kinds of :data:`KINDS`.
"""
from __future__ import annotations

import re

import numpy as np

__all__ = ["KINDS", "Doc", "read", "count", "holds"]

KNIGHT = [(1, 2), (2, 1), (1, -2), (2, -1), (-1, 2), (-2, 1), (-1, -2), (-2, -1)]
KING = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]
ORTHO = [(0, 1), (1, 0), (0, -1), (-1, 0)]
_CELL = re.compile(r"^[rR](\d+)[cC](\d+)$")
_COMPACT = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

KINDS = ("cage", "thermo", "greater", "kropki", "even", "odd", "pencilmarks", "antiknight", "antiking",
         "nonconsecutive", "windoku", "diagonal", "extraregion", "disjointgroups",
         "arrow", "pillarrow", "doublearrow", "whisper", "renban", "palindrome", "between", "lockout",
         "entropic", "modular", "zipper", "regionsum",
         "littlekiller", "xv", "strictxv", "strictkropki", "quadruple", "sum", "samevalues", "pair", "indexing",
         "skyscraper", "sandwich", "xsum", "numberedroom", "countingcircles", "anyof")
KINDS += ("countdistinct",)
KINDS += ("hiddenskyscraper",)
KINDS += ("lookandsay", "rellik", "equalitycage", "equalsum", "valueindexing")
# connectedvalues is modelled too (a flow; tests/core/test_rule_connected.py counts it on 4x4 grids)
# doppelganger (values 0..N, more than the side) is modelled too (GLOBALS) but not sampled on 9x9 grids of 9 values
KINDS += ("globalentropy", "globalmod", "antitaxicab", "dutchflatmates", "regionsamevalues")
KINDS += ("containexact", "containatleast")


def cell(text: str) -> tuple[int, int]:
    """``"r3c4"`` -> ``(2, 3)`` (0-based; an outside place gives -1 or N)."""
    m = _CELL.match(str(text).strip())
    if m is None:
        raise ValueError(f"cpsat oracle: not a cell {text!r}")
    return int(m.group(1)) - 1, int(m.group(2)) - 1


class Doc:
    """A puzzle document as the oracle reads it: ``n``, ``h``, ``w``, ``values`` (sorted list),
    ``units`` (lists of cells), ``givens`` {cell: value}, ``rules`` (the document's dicts)."""

    def __init__(self, doc: dict) -> None:
        n = int(doc.get("size", 9))
        if "box" in doc:
            h, w = (int(v) for v in str(doc["box"]).lower().split("x"))
        else:
            h = max(k for k in range(1, int(n ** 0.5) + 1) if n % k == 0)
            w = n // h
        self.n, self.h, self.w = n, h, w
        variant = doc.get("variant", "classic")
        self.variant = variant
        if doc.get("regions") or doc.get("layout"):
            raise NotImplementedError("cpsat oracle: one grid with boxes only")
        values = doc.get("values")
        if values is None:
            self.values = list(range(1, n + 1))
        elif isinstance(values, str):
            lo, hi = (int(v) for v in re.fullmatch(r"\s*(-?\d+)\s*-\s*(-?\d+)\s*", values).groups())
            self.values = list(range(lo, hi + 1))
        else:
            self.values = sorted(int(v) for v in values)
        assert len(self.values) >= n   # more values than the side: each unit holds a value at most once
        cells = [(r, c) for r in range(n) for c in range(n)]
        units = [[(r, c) for c in range(n)] for r in range(n)] + [[(r, c) for r in range(n)] for c in range(n)]
        if variant != "latin":
            units += [[(br + p, bc + q) for p in range(h) for q in range(w)]
                      for br in range(0, n, h) for bc in range(0, n, w)]
        if variant in ("x",):
            units += [[(i, i) for i in range(n)], [(i, n - 1 - i) for i in range(n)]]
        self.rules = list(doc.get("rules") or [])
        for entry in self.rules:
            kind = entry["rule"]
            if kind == "windoku":        # h x w windows one cell in from the box corners, one line apart
                starts = [1 + k * (h + 1) for k in range(w - 1)]
                units += [[(t + p, s + q) for p in range(h) for q in range(w)] for t in starts for s in starts]
            elif kind == "diagonal":
                units.append([(i, i) if entry.get("which", "main") == "main" else (i, n - 1 - i) for i in range(n)])
            elif kind == "extraregion":
                units.append([cell(t) for t in entry["cells"]])
            elif kind == "disjointgroups":
                units += [[(br + p, bc + q) for br in range(0, n, h) for bc in range(0, n, w)]
                          for p in range(h) for q in range(w)]
        self.units = units
        self.cells = cells
        self.givens = {}
        givens = doc.get("givens")
        default = values is None
        if isinstance(givens, str) and givens:
            chars = [ch for ch in givens if not ch.isspace()]
            for k, ch in enumerate(chars):
                if ch == "." or (default and ch == "0"):
                    continue
                self.givens[divmod(k, n)] = _COMPACT.index(ch.upper()) + 1 if default else int(ch, 36)
        elif isinstance(givens, list):
            for text in givens:
                where, value = str(text).split("=")
                self.givens[cell(where)] = int(value)

    def box(self, rc: tuple[int, int]) -> int:
        return (rc[0] // self.h) * (self.n // self.w) + rc[1] // self.w

    def digit_pairs(self, offsets) -> list:
        n = self.n
        return sorted({tuple(sorted([(r, c), (r + dr, c + dc)])) for r in range(n) for c in range(n)
                       for dr, dc in offsets if 0 <= r + dr < n and 0 <= c + dc < n})

    def outside_line(self, clue: str) -> list:
        """The ``N`` cells read inwards from an outside clue position."""
        r, c = cell(clue)
        n = self.n
        if r == -1:
            return [(i, c) for i in range(n)]
        if r == n:
            return [(i, c) for i in reversed(range(n))]
        if c == -1:
            return [(r, i) for i in range(n)]
        if c == n:
            return [(r, i) for i in reversed(range(n))]
        raise ValueError(f"cpsat oracle: {clue} is not outside the grid")


def read(doc: dict) -> Doc:
    """The oracle's reading of a puzzle document."""
    return Doc(doc)


# ------------------------------------------------------------------------------------------------
# the model
# ------------------------------------------------------------------------------------------------
def _bool_eq(m, var, value):
    """A Boolean ``b`` with ``b <=> var == value``."""
    b = m.NewBoolVar("")
    m.Add(var == value).OnlyEnforceIf(b)
    m.Add(var != value).OnlyEnforceIf(b.Not())
    return b


def _bool_lt(m, a, b):
    """A Boolean ``t`` with ``t <=> a < b`` (either side an expression or constant)."""
    t = m.NewBoolVar("")
    m.Add(a < b).OnlyEnforceIf(t)
    m.Add(a >= b).OnlyEnforceIf(t.Not())
    return t


def _sum_if(m, bools, vs, lo, hi):
    """The expression ``sum_i [bools_i] * vs_i`` (one enforced copy per cell)."""
    parts = []
    for b, v in zip(bools, vs):
        t = m.NewIntVar(min(lo, 0), max(hi, 0), "")
        m.Add(t == v).OnlyEnforceIf(b)
        m.Add(t == 0).OnlyEnforceIf(b.Not())
        parts.append(t)
    return sum(parts)


def _rule(m, d: Doc, entry: dict, var: dict) -> None:   # noqa: C901 - one branch per kind, by design
    kind = entry["rule"]
    n, vals = d.n, d.values
    lo, hi = vals[0], vals[-1]
    cells = [cell(t) for t in entry.get("cells", [])]
    vs = [var[c] for c in cells]
    rank = {v: k for k, v in enumerate(vals)}          # digit order (0-based) of each value

    def table(xs, pred):
        m.AddAllowedAssignments(xs, [t for t in _tuples(vals, len(xs)) if pred(*t)])

    if kind == "cage":
        m.AddAllDifferent(vs)
        if entry.get("sum") is not None:
            m.Add(sum(vs) == int(entry["sum"]))
    elif kind == "thermo":
        for a, b in zip(vs, vs[1:]):
            m.Add(a < b)
    elif kind == "greater":
        m.Add(vs[0] > vs[1])
    elif kind == "kropki":
        value = int(entry.get("value", 1 if entry["color"] == "white" else 2))
        if entry["color"] == "white":
            table(vs, lambda a, b: abs(a - b) == value)
        else:
            table(vs, lambda a, b: a == value * b or b == value * a)
    elif kind in ("even", "odd"):
        for v in vs:
            table([v], lambda a: a % 2 == (kind == "odd"))
    elif kind == "pencilmarks":
        allowed = set(entry["digits"])
        for v in vs:
            table([v], lambda a: a in allowed)
    elif kind in ("antiknight", "antiking"):
        for a, b in d.digit_pairs(KNIGHT if kind == "antiknight" else KING):
            m.Add(var[a] != var[b])
    elif kind == "nonconsecutive":
        for a, b in d.digit_pairs(ORTHO):
            diff = m.NewIntVar(0, hi - lo, "")
            m.AddAbsEquality(diff, var[a] - var[b])
            m.Add(diff != 1)
    elif kind in ("windoku", "diagonal", "extraregion", "disjointgroups"):
        pass                                             # units, added by Doc
    elif kind == "arrow":
        m.Add(vs[0] == sum(vs[1:]))
    elif kind == "pillarrow":
        p = int(entry.get("pill", 2))
        m.Add(sum(10 ** (p - 1 - i) * vs[i] for i in range(p)) == sum(vs[p:]))
    elif kind == "doublearrow":
        m.Add(vs[0] + vs[-1] == sum(vs[1:-1]))
    elif kind == "whisper":
        k = int(entry.get("diff", (n + 1) // 2))
        for a, b in zip(vs, vs[1:]):
            diff = m.NewIntVar(0, hi - lo, "")
            m.AddAbsEquality(diff, a - b)
            m.Add(diff >= k)
    elif kind == "renban":
        m.AddAllDifferent(vs)
        top, bottom = m.NewIntVar(lo, hi, ""), m.NewIntVar(lo, hi, "")
        m.AddMaxEquality(top, vs)
        m.AddMinEquality(bottom, vs)
        m.Add(top - bottom == len(vs) - 1)
    elif kind == "palindrome":
        for a, b in zip(vs, reversed(vs)):
            m.Add(a == b)
    elif kind == "between":
        small, large = m.NewIntVar(lo, hi, ""), m.NewIntVar(lo, hi, "")
        m.AddMinEquality(small, [vs[0], vs[-1]])
        m.AddMaxEquality(large, [vs[0], vs[-1]])
        for v in vs[1:-1]:
            m.Add(v > small)
            m.Add(v < large)
    elif kind == "lockout":
        k = int(entry.get("diff", max(1, (n - 1) // 2)))
        diff = m.NewIntVar(0, hi - lo, "")
        m.AddAbsEquality(diff, vs[0] - vs[-1])
        m.Add(diff >= k)
        small, large = m.NewIntVar(lo, hi, ""), m.NewIntVar(lo, hi, "")
        m.AddMinEquality(small, [vs[0], vs[-1]])
        m.AddMaxEquality(large, [vs[0], vs[-1]])
        for v in vs[1:-1]:
            below = m.NewBoolVar("")
            m.Add(v < small).OnlyEnforceIf(below)
            m.Add(v > large).OnlyEnforceIf(below.Not())
    elif kind in ("entropic", "modular"):
        size = 3 if kind == "entropic" else int(entry.get("mod", 3))
        if kind == "entropic":
            klass = {v: rank[v] // (n // 3) for v in vals}      # thirds of the digits in order
        else:
            klass = {v: v % size for v in vals}
        tags = []
        for v in vs:
            t = m.NewIntVar(0, size - 1, "")
            m.AddAllowedAssignments([v, t], [(a, klass[a]) for a in vals])
            tags.append(t)
        for i in range(max(1, len(vs) - size + 1)):
            m.AddAllDifferent(tags[i:i + size])
    elif kind == "zipper":
        L = len(vs)
        if L % 2:
            for i in range(L // 2):
                m.Add(vs[i] + vs[L - 1 - i] == vs[L // 2])
        else:
            sums = [vs[i] + vs[L - 1 - i] for i in range(L // 2)]
            for a, b in zip(sums, sums[1:]):
                m.Add(a == b)
    elif kind == "regionsum":
        segments: list[list] = []
        for k, c in enumerate(cells):
            if k and d.box(c) == d.box(cells[k - 1]):
                segments[-1].append(var[c])
            else:
                segments.append([var[c]])
        for a, b in zip(segments, segments[1:]):
            m.Add(sum(a) == sum(b))
    elif kind in ("littlekiller", "sum"):
        weights = entry.get("weights") or [1] * len(vs)
        m.Add(sum(int(w) * v for w, v in zip(weights, vs)) == int(entry["sum"]))
    elif kind == "xv":
        m.Add(vs[0] + vs[1] == {"x": 10, "v": 5}[entry["letter"].lower()])
    elif kind in ("strictxv", "strictkropki"):
        marker = "xv" if kind == "strictxv" else "kropki"
        marked = {frozenset(cell(t) for t in e["cells"]) for e in d.rules if e["rule"] == marker}
        if kind == "strictxv":
            bad = lambda a, b: a + b in (5, 10)  # noqa: E731
        else:   # "color": only the white (consecutive) or only the black (double) dots are all given
            color = entry.get("color")
            bad = lambda a, b: (color != "black" and abs(a - b) == 1  # noqa: E731
                                or color != "white" and (a == 2 * b or b == 2 * a))
        for a, b in d.digit_pairs(ORTHO):
            if frozenset((a, b)) not in marked:
                table([var[a], var[b]], lambda x, y: not bad(x, y))
    elif kind == "quadruple":
        need: dict = {}
        for v in entry["digits"]:
            need[int(v)] = need.get(int(v), 0) + 1
        for value, times in need.items():
            m.Add(sum(_bool_eq(m, v, value) for v in vs) >= times)
    elif kind == "samevalues":
        groups = [[var[cell(t)] for t in g] for g in entry["groups"]]
        for value in vals:                               # multisets equal: every value counted alike
            counts = [sum(_bool_eq(m, v, value) for v in g) for g in groups]
            for a in counts[1:]:
                m.Add(counts[0] == a)
    elif kind == "pair":
        allowed = {tuple(int(x) for x in p) for p in entry["allowed"]}
        if entry.get("all"):
            both = [p for p in allowed if p[::-1] in allowed]
            for i in range(len(vs)):
                for j in range(i + 1, len(vs)):
                    m.AddAllowedAssignments([vs[i], vs[j]], both)
        else:
            for a, b in zip(vs, vs[1:]):
                m.AddAllowedAssignments([a, b], sorted(allowed))
    elif kind == "indexing":
        for (r, c), v in zip(cells, vs):
            if entry["by"] == "column":                  # (r, c) = v puts c at (r, v)
                line = [var[(r, k)] for k in range(n)]
                target = c + 1
            else:                                        # (r, c) = v puts r at (v, c)
                line = [var[(k, c)] for k in range(n)]
                target = r + 1
            m.AddElement(v, [m.NewConstant(0)] + line, target)
    elif kind in ("skyscraper", "sandwich", "xsum", "numberedroom", "hiddenskyscraper"):
        line = [var[c] for c in d.outside_line(entry["clue"])]
        if kind == "skyscraper":                         # a value of 0 or less is no skyscraper (ISS: 0)
            seen = [_bool_lt(m, 0, line[0])]
            for i in range(1, n):
                before = m.NewIntVar(lo, hi, "")
                m.AddMaxEquality(before, line[:i])
                taller, positive = _bool_lt(m, before, line[i]), _bool_lt(m, 0, line[i])
                both = m.NewBoolVar("")                  # strictly taller than every cell before, above 0
                m.AddBoolAnd([taller, positive]).OnlyEnforceIf(both)
                m.AddBoolOr([taller.Not(), positive.Not()]).OnlyEnforceIf(both.Not())
                seen.append(both)
            m.Add(sum(seen) == int(entry["count"]))
        elif kind == "hiddenskyscraper":                 # the first cell not taller than all before holds the clue
            hidden = []
            for i in range(1, n):
                before = m.NewIntVar(lo, hi, "")
                m.AddMaxEquality(before, line[:i])
                hidden.append(_bool_lt(m, before, line[i]).Not())
            first = []
            for t, h in enumerate(hidden):
                f = m.NewBoolVar("")
                m.AddBoolAnd([h] + [e.Not() for e in hidden[:t]]).OnlyEnforceIf(f)
                m.AddBoolOr([h.Not()] + hidden[:t]).OnlyEnforceIf(f.Not())
                m.Add(line[t + 1] == int(entry["digit"])).OnlyEnforceIf(f)
                first.append(f)
            m.Add(sum(first) == 1)
        elif kind == "sandwich":
            p1, pn = m.NewIntVar(0, n - 1, ""), m.NewIntVar(0, n - 1, "")
            m.AddElement(p1, line, lo)                   # where the smallest and the largest value are
            m.AddElement(pn, line, hi)
            first, last = m.NewIntVar(0, n - 1, ""), m.NewIntVar(0, n - 1, "")
            m.AddMinEquality(first, [p1, pn])
            m.AddMaxEquality(last, [p1, pn])
            inside = []
            for i in range(n):
                b = m.NewBoolVar("")
                after, before = _bool_lt(m, first, i), _bool_lt(m, i, last)
                m.AddBoolAnd([after, before]).OnlyEnforceIf(b)
                m.AddBoolOr([after.Not(), before.Not()]).OnlyEnforceIf(b.Not())
                inside.append(b)
            m.Add(_sum_if(m, inside, line, lo, hi) == int(entry["sum"]))
        elif kind == "xsum":
            count = line[0]                               # X = the first cell's value: cells 1..X summed
            m.Add(count >= 1)                             # X names a cell of the line
            m.Add(count <= n)
            always = m.NewBoolVar("")
            m.Add(always == 1)
            taken = [always] + [_bool_lt(m, i, count) for i in range(1, n)]
            m.Add(_sum_if(m, taken, line, lo, hi) == int(entry["sum"]))
        else:
            m.Add(line[0] >= 1)
            m.AddElement(line[0], [m.NewConstant(0)] + line, int(entry["digit"]))
    elif kind == "countingcircles":
        for value in vals:
            total = sum(_bool_eq(m, v, value) for v in vs)
            if value <= 0:                               # in no circle (no free Boolean: one grid, one solution)
                m.Add(total == 0)
                continue
            on = m.NewBoolVar("")
            m.Add(total == value).OnlyEnforceIf(on)
            m.Add(total == 0).OnlyEnforceIf(on.Not())
    elif kind == "countdistinct":                        # the clue's value: how many distinct values the cells hold
        seen = []
        for value in vals:
            held = m.NewBoolVar("")
            m.AddMaxEquality(held, [_bool_eq(m, v, value) for v in vs])
            seen.append(held)
        m.Add(sum(seen) == var[cell(entry["clue"])])
    elif kind == "lookandsay":                           # (count, value) digit pairs: exactly count cells
        clue = str(entry["clue"])
        for i in range(0, len(clue), 2):
            m.Add(sum(_bool_eq(m, v, int(clue[i + 1])) for v in vs) == int(clue[i]))
    elif kind in ("containexact", "containatleast"):   # each listed value in exactly / at least as many cells
        for value in sorted(set(entry["values"])):
            held = sum(_bool_eq(m, v, int(value)) for v in vs)
            want = list(entry["values"]).count(value)
            if kind == "containexact":
                m.Add(held == want)
            else:
                m.Add(held >= want)
    elif kind == "rellik":                               # distinct; no non-empty subset of the cells adds up to S
        import itertools

        m.AddAllDifferent(vs)
        for r in range(1, len(vs) + 1):
            for subset in itertools.combinations(vs, r):
                m.Add(sum(subset) != int(entry["sum"]))
    elif kind == "equalitycage":                         # distinct; #even = #odd, #low half = #high half
        m.AddAllDifferent(vs)
        half = len(vals) // 2
        low, high = vals[:half], vals[len(vals) - half:]
        middle = [x for x in vals if x not in low and x not in high]
        for v in vs:
            for x in middle:
                m.Add(v != x)
        m.Add(sum(_bool_eq(m, v, x) for v in vs for x in vals if x % 2 == 0) * 2 == len(vs))
        m.Add(sum(_bool_eq(m, v, x) for v in vs for x in low) == sum(_bool_eq(m, v, x) for v in vs for x in high))
    elif kind == "equalsum":
        sums = [sum(var[cell(t)] for t in seg) for seg in entry["segments"]]
        for other in sums[1:]:
            m.Add(sums[0] == other)
    elif kind == "valueindexing":                        # line[b] (1-based after b) holds a's value
        a, b, line = vs[0], vs[1], vs[2:]
        m.Add(b >= 1)
        m.Add(b <= len(line))
        m.AddElement(b, [m.NewConstant(lo)] + line, a)
    elif kind == "connectedvalues":   # the cells holding the values: one non-empty connected region
        _connected(m, d, entry, var)
    elif kind == "anyof":   # at least one branch holds: each branch's constraints enforced by its own Boolean
        picks = []
        for branch in entry["branches"]:
            pick = m.NewBoolVar("")
            for inner in branch:
                if inner.get("rule") == "anyof":
                    raise NotImplementedError("cpsat oracle: anyof inside anyof")
                _rule(_Enforced(m, pick), d, inner, var)
            picks.append(pick)
        m.AddBoolOr(picks)
    elif kind in GLOBALS:
        _global_rule(m, d, kind, var)
    else:
        raise NotImplementedError(f"cpsat oracle: no model for rule {kind!r}")


#: The whole-grid rules of ISS's GlobalEntropy, GlobalMod, AntiTaxicab, DutchFlatmates,
#: Doppelganger and RegionSameValues (js/solver/sudoku_builder.js, handlers.js).
GLOBALS = ("globalentropy", "globalmod", "antitaxicab", "dutchflatmates", "doppelganger", "regionsamevalues")


def _in_set(m, v, vals, chosen):
    """A Boolean ``b <=> v in chosen`` (a table over ``(v, b)``: ``b`` follows from ``v``)."""
    b = m.NewBoolVar("")
    m.AddAllowedAssignments([v, b], [(x, int(x in chosen)) for x in vals])
    return b


def _global_rule(m, d: Doc, kind: str, var: dict) -> None:   # noqa: C901 - one branch per kind
    n, vals = d.n, d.values
    big = len(vals)
    if kind in ("globalentropy", "globalmod"):
        if kind == "globalentropy":   # the thirds of the values in order (1-3, 4-6, 7-9)
            classes = [set(vals[g * big // 3:(g + 1) * big // 3]) for g in range(3)]
        else:                         # the remainders mod 3
            classes = [{x for x in vals if x % 3 == r} for r in range(3)]
        for r in range(n - 1):
            for c in range(n - 1):
                window = [var[(r + p, c + q)] for p in (0, 1) for q in (0, 1)]
                for chosen in classes:   # a value of each class in every 2x2 window
                    m.AddBoolOr([_in_set(m, v, vals, chosen) for v in window])
    elif kind == "antitaxicab":       # value x never again at taxicab distance x
        cells = sorted(var)
        for i, a in enumerate(cells):
            for b in cells[i + 1:]:
                dist = abs(a[0] - b[0]) + abs(a[1] - b[1])
                if dist in vals:
                    m.AddForbiddenAssignments([var[a], var[b]], [(dist, dist)])
    elif kind == "dutchflatmates":    # the middle value: the first value above it or the last below it
        mid = vals[(big + 1) // 2 - 1]
        for r in range(n):
            for c in range(n):
                v = var[(r, c)]
                is_mid = _in_set(m, v, vals, {mid})
                ok = []
                if r > 0:
                    ok.append(_in_set(m, var[(r - 1, c)], vals, {vals[0]}))
                if r < n - 1:
                    ok.append(_in_set(m, var[(r + 1, c)], vals, {vals[-1]}))
                m.AddBoolOr(ok + [is_mid.Not()])
    elif kind == "doppelganger":      # values 0..N: each unit holds 0 and misses one of 1..N
        assert vals == list(range(n + 1))
        rows = [[(r, c) for c in range(n)] for r in range(n)]
        cols = [[(r, c) for r in range(n)] for c in range(n)]
        families = [rows, cols]
        if d.variant != "latin":
            families.append([[(br + p, bc + q) for p in range(d.h) for q in range(d.w)]
                             for br in range(0, n, d.h) for bc in range(0, n, d.w)])
        missing = []
        for family in families:
            miss = [m.NewIntVar(1, n, "") for _ in family]
            for unit, x in zip(family, miss):   # the unit and its missing digit: all N + 1 values once
                m.AddAllDifferent([var[rc] for rc in unit] + [x])
            m.AddAllDifferent(miss)                 # no two units of a family miss the same digit
            missing.append({rc: x for unit, x in zip(family, miss) for rc in unit})
        for rc, v in var.items():               # at a 0 the units' missing digits differ
            zero = _bool_eq(m, v, 0)
            xs = [f[rc] for f in missing]
            for i in range(len(xs)):
                for j in range(i + 1, len(xs)):
                    m.Add(xs[i] != xs[j]).OnlyEnforceIf(zero)
    elif kind == "regionsamevalues":  # the largest regions hold the same set of values
        regions = [u for u in d.units[:2 * n]]
        if d.variant != "latin":
            regions += d.units[2 * n:3 * n]
        regions += [[cell(t) for t in e["cells"]] for e in d.rules if e["rule"] == "extraregion"]
        size = max(len(u) for u in regions)
        largest = [u for u in regions if len(u) == size]
        if size == big or len(largest) < 2:
            return
        for x in vals:
            counts = [sum(_bool_eq(m, var[rc], x) for rc in u) for u in largest]
            for other in counts[1:]:
                m.Add(counts[0] == other)


class _Enforced:
    """The model as a branch of an ``anyof`` sees it: every constraint added holds only when
    ``pick`` is true (``OnlyEnforceIf``; AllDifferent as pairwise ``!=``, a table with ``pick`` as
    one more column, an element as its cases); definitions (max, min, abs) stay unconditional."""

    def __init__(self, m, pick) -> None:
        self._m, self._pick = m, pick

    def __getattr__(self, name):
        return getattr(self._m, name)

    def Add(self, constraint):   # noqa: N802 - CP-SAT's names
        return self._m.Add(constraint).OnlyEnforceIf(self._pick)

    def AddBoolOr(self, literals):   # noqa: N802
        return self._m.AddBoolOr(literals).OnlyEnforceIf(self._pick)

    def AddBoolAnd(self, literals):   # noqa: N802
        return self._m.AddBoolAnd(literals).OnlyEnforceIf(self._pick)

    def AddAllDifferent(self, xs):   # noqa: N802
        xs = list(xs)
        for i, a in enumerate(xs):
            for b in xs[i + 1:]:
                self.Add(a != b)

    def AddAllowedAssignments(self, xs, tuples):   # noqa: N802
        import itertools

        xs = list(xs)
        domains = [range(int(x.Proto().domain[0]), int(x.Proto().domain[-1]) + 1) for x in xs]
        rows = [tuple(t) + (1,) for t in tuples] + [t + (0,) for t in itertools.product(*domains)]
        return self._m.AddAllowedAssignments(xs + [self._pick], rows)

    def AddElement(self, index, array, target):   # noqa: N802
        for k, item in enumerate(array):
            at = self._m.NewBoolVar("")
            self._m.Add(index == k).OnlyEnforceIf(at)
            self._m.Add(index != k).OnlyEnforceIf(at.Not())
            self._m.Add(target == item).OnlyEnforceIf([at, self._pick])
        self.Add(index >= 0)
        self.Add(index <= len(array) - 1)


def _connected(m, d: Doc, entry: dict, var: dict) -> None:
    """ISS's ConnectedValues over the grid as a single-commodity flow (not the project's layers):
    one root in the region supplies one unit to every region cell along arcs between region
    cells (integer flows), so every region cell is reached from the root; ``size`` fixes the count."""
    chosen = set(entry["values"])
    cells = sorted(var)
    big = len(cells)
    inside = {c: _in_set(m, var[c], d.values, chosen) for c in cells}
    root = {c: m.NewBoolVar("") for c in cells}
    m.Add(sum(root.values()) == 1)
    supply = {}
    for c in cells:
        m.AddImplication(root[c], inside[c])
        supply[c] = m.NewIntVar(0, big, "")
        m.Add(supply[c] == 0).OnlyEnforceIf(root[c].Not())
    flow = {}
    for (r, c) in cells:
        for dr, dc in ORTHO:
            b = (r + dr, c + dc)
            if b in var:
                f = m.NewIntVar(0, big, "")
                m.Add(f == 0).OnlyEnforceIf(inside[(r, c)].Not())
                m.Add(f == 0).OnlyEnforceIf(inside[b].Not())
                flow[((r, c), b)] = f
    for c in cells:   # inflow + supply - outflow = 1 for a region cell, 0 outside
        m.Add(sum(f for (a, b), f in flow.items() if b == c) + supply[c]
              - sum(f for (a, b), f in flow.items() if a == c) == inside[c])
    if entry.get("size"):
        m.Add(sum(inside.values()) == int(entry["size"]))


def _tuples(vals, k):
    import itertools

    return itertools.product(vals, repeat=k)


def model(doc: dict):
    """``(CpModel, {cell: IntVar}, Doc)`` of a puzzle document."""
    from ortools.sat.python import cp_model

    d = read(doc)
    m = cp_model.CpModel()
    domain = cp_model.Domain.FromValues(d.values)
    var = {c: m.NewIntVarFromDomain(domain, f"v_{c[0] + 1}_{c[1] + 1}") for c in d.cells}
    for unit in d.units:
        m.AddAllDifferent([var[c] for c in unit])
    for c, value in d.givens.items():
        m.Add(var[c] == value)
    for entry in d.rules:
        _rule(m, d, entry, var)
    return m, var, d


def count(doc: dict, cap: int = 2, time_limit: float = 60.0) -> tuple[int, list[np.ndarray]]:
    """Solutions of ``doc`` up to ``cap`` as ``(count, grids)`` (grids of values). RuntimeError
    when the time limit ends the search before it is complete."""
    from ortools.sat.python import cp_model

    m, var, d = model(doc)
    found: list[np.ndarray] = []
    if any(entry.get("rule") in ("anyof", "connectedvalues") for entry in d.rules):   # Booleans/flows not the grid's
        return _count_by_blocking(m, var, d, cap, time_limit)

    class Collect(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            grid = np.zeros((d.n, d.n), dtype=np.int64)
            for c, v in var.items():
                grid[c] = self.Value(v)
            found.append(grid)
            if len(found) >= cap:
                self.StopSearch()

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = time_limit
    status = solver.Solve(m, Collect())
    if not (status in (cp_model.OPTIMAL, cp_model.INFEASIBLE) or len(found) >= cap):
        raise RuntimeError(f"cpsat oracle: stopped with {solver.StatusName(status)} after {len(found)} solution(s)")
    return len(found), found


def _count_by_blocking(m, var: dict, d: Doc, cap: int, time_limit: float) -> tuple[int, list[np.ndarray]]:
    """Grids one solve at a time, each found one excluded by a clause over the cells (a model with
    variables the grid does not fix, such as an anyof's branch Booleans, enumerates a grid once
    per assignment of them)."""
    from ortools.sat.python import cp_model

    found: list[np.ndarray] = []
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = time_limit
    while len(found) < cap:
        status = solver.Solve(m)
        if status == cp_model.INFEASIBLE:
            break
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            raise RuntimeError(f"cpsat oracle: stopped with {solver.StatusName(status)} after {len(found)} solution(s)")
        grid = np.zeros((d.n, d.n), dtype=np.int64)
        same = []
        for c, v in var.items():
            grid[c] = solver.Value(v)
            # fully reified: OR-Tools 9.10's presolve answered INFEASIBLE after two blockings when
            # each was only "literal => v != value" (a 4x4 anyof of two cages: 2 grids of 288)
            equal = m.NewBoolVar("")
            m.Add(v == int(grid[c])).OnlyEnforceIf(equal)
            m.Add(v != int(grid[c])).OnlyEnforceIf(equal.Not())
            same.append(equal)
        m.AddBoolOr([equal.Not() for equal in same])
        found.append(grid)
    return len(found), found


def holds(doc: dict, grid) -> bool:
    """Does the full ``grid`` (``N x N`` values) satisfy ``doc``? Every cell fixed, then feasibility."""
    from ortools.sat.python import cp_model

    m, var, d = model(doc)
    grid = np.asarray(grid)
    for c, v in var.items():
        m.Add(v == int(grid[c]))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 30.0
    status = solver.Solve(m)
    if status == cp_model.UNKNOWN:
        raise RuntimeError("cpsat oracle: no verdict on a fixed grid")
    return status in (cp_model.OPTIMAL, cp_model.FEASIBLE)


def solve_one(doc: dict, seed: int) -> np.ndarray | None:
    """One solution varied by ``seed`` (a random objective over the cells), or None."""
    from ortools.sat.python import cp_model

    m, var, d = model(doc)
    rng = np.random.default_rng(seed)
    cells = sorted(var)
    m.Minimize(sum(int(k) * var[c] for k, c in zip(rng.integers(-50, 51, len(cells)), cells)))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = seed % 1000
    solver.parameters.stop_after_first_solution = True
    solver.parameters.max_time_in_seconds = 20.0
    if solver.Solve(m) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    grid = np.zeros((d.n, d.n), dtype=np.int64)
    for c, v in var.items():
        grid[c] = solver.Value(v)
    return grid
