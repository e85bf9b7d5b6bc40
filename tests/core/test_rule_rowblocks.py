"""Rule.rows_of (issue 34): a kind's rows for all its rules at once are the rows of each rule's
``rows`` in turn: the Kropki, killer-cage, line and between/lockout overrides against the per-rule
path on random rules, and rowblocks.in_rule_order on blocks it has to cut."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.core.puzzle import parse_puzzle
from pipeline.core.rulerows import rules_by_kind
from pipeline.core.rules.base import Board, Rows, Rule
from pipeline.core.rules.betweenlines import Between, Lockout
from pipeline.core.rules.cages import Cage
from pipeline.core.rules.kropki import Kropki
from pipeline.core.rules.order import Greater, Thermometer
from pipeline.core.rules.lineparts import RowBuilder
from pipeline.core.rules.classlines import Entropic, Modular, class_window_rows, class_window_rows_of
from pipeline.core.rules.pairlines import Renban, Whisper, exclusion_rows
from pipeline.core.rules.sumlines import Arrow, RegionSum, Zipper
from pipeline.core.rules.rowblocks import in_rule_order, pairs_within, ragged_positions, distinct_small_ints, rows_by_owner, run_starts
from pipeline.core.rules.xv import XV

SHAPES = [(4, "2x2"), (6, "2x3"), (9, "3x3")]


def _board(draw) -> Board:
    n, box = draw(st.sampled_from(SHAPES))
    document: dict = {"size": n, "box": box}
    if draw(st.booleans()):
        document["values"] = f"0-{n - 1}"   # a value 0: its terms in sums are left out
    return parse_puzzle(document).board


def _listing(blocks: list[Rows]) -> list[tuple]:
    """Row by row: family, sense, labels, rhs and the row's terms sorted by (cell, digit)."""
    out = []
    for block in blocks:
        for r in range(block.n_rows):
            at = block.row == r
            terms = sorted(zip(block.cell[at].tolist(), block.digit[at].tolist(), block.coef[at].tolist()))
            out.append((block.family, block.sense, tuple(block.labels[r].tolist()), int(block.rhs[r]), tuple(terms)))
    return out


def _families(blocks: list[Rows]) -> list[tuple[str, str]]:
    """The (family, sense) keys in order of first appearance (build_rule_rows orders R by them)."""
    return list(dict.fromkeys((block.family, block.sense) for block in blocks))


def _same_as_rule_by_rule(rules: list[Rule], board: Board, first_index: int) -> None:
    one_by_one = [block for index, rule in enumerate(rules, start=first_index) for block in rule.rows(board, index)]
    together = type(rules[0]).rows_of(rules, board, first_index)
    assert _listing(together) == _listing(one_by_one)
    assert _families(together) == _families(one_by_one)
    for block in together:
        assert block.row.size == block.cell.size == block.digit.size == block.coef.size
        assert np.all(np.diff(block.row) >= 0) and block.labels.shape[0] == block.rhs.size


@st.composite
def dots(draw):
    board = _board(draw)
    n = board.n
    count = draw(st.integers(1, 12))
    out = []
    for _ in range(count):
        r, c = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 2))
        a, b = (board.cell(r, c), board.cell(r, c + 1)) if draw(st.booleans()) else (board.cell(c, r), board.cell(c + 1, r))
        if draw(st.booleans()):
            a, b = b, a
        color = draw(st.sampled_from(["white", "black"]))
        value = draw(st.integers(1 if color == "white" else 2, n))
        out.append(Kropki(color, a, b, value))
    return board, out


@st.composite
def cages(draw):
    board = _board(draw)
    n = board.n
    out = []
    for _ in range(draw(st.integers(1, 10))):
        cells = draw(st.lists(st.integers(0, n * n - 1), min_size=1, max_size=min(n, 5), unique=True))
        total = draw(st.one_of(st.none(), st.integers(0, n * (n + 1) // 2)))
        out.append(Cage(tuple(cells), total))
    return board, out


@st.composite
def orders(draw):
    """Thermometers (walks of 2..n cells) or greater-than signs (pairs of cells) on one board;
    the rows do not ask the cells to touch, so any distinct cells do."""
    board = _board(draw)
    n = board.n
    if draw(st.booleans()):
        paths = [draw(st.lists(st.integers(0, n * n - 1), min_size=2, max_size=n, unique=True))
                 for _ in range(draw(st.integers(1, 8)))]
        return board, [Thermometer(tuple(path)) for path in paths]
    pairs = [draw(st.lists(st.integers(0, n * n - 1), min_size=2, max_size=2, unique=True))
             for _ in range(draw(st.integers(1, 12)))]
    return board, [Greater(a, b) for a, b in pairs]


@settings(max_examples=60, deadline=None)
@given(orders(), st.integers(1, 5))
def test_thermometer_and_greater_rows_of_are_each_rules_rows(drawn, first_index):
    board, rules = drawn
    _same_as_rule_by_rule(rules, board, first_index)
    block, = type(rules[0]).rows_of(rules, board, first_index)
    steps = sum(len(rule.cells()) - 1 for rule in rules)
    assert block.n_rows == steps and np.all(block.rhs == -1)
    assert block.labels[0, 0] == first_index and block.labels[-1, 0] == first_index + len(rules) - 1


@settings(max_examples=60, deadline=None)
@given(dots(), st.integers(1, 5))
def test_kropki_rows_of_are_each_dots_rows(drawn, first_index):
    board, rules = drawn
    _same_as_rule_by_rule(rules, board, first_index)


@settings(max_examples=60, deadline=None)
@given(cages(), st.integers(1, 5))
def test_cage_rows_of_are_each_cages_rows_in_cage_order(drawn, first_index):
    board, rules = drawn
    _same_as_rule_by_rule(rules, board, first_index)


@st.composite
def whispers(draw):
    """Whispers of 2..n cells (a cell may come back on a walk), runs of one difference and of
    several."""
    board = _board(draw)
    n = board.n
    out = []
    for _ in range(draw(st.integers(1, 8))):
        cells = draw(st.lists(st.integers(0, n * n - 1), min_size=2, max_size=n))
        out.append(Whisper(tuple(cells), draw(st.integers(1, n - 1))))
    return board, out


@st.composite
def renbans(draw):
    """Renban lines of 2..n distinct cells, of several lengths, some inside one unit (a row's run)."""
    board = _board(draw)
    n = board.n
    out = []
    for _ in range(draw(st.integers(1, 8))):
        if draw(st.booleans()):
            cells = draw(st.lists(st.integers(0, n * n - 1), min_size=2, max_size=n, unique=True))
        else:   # inside one row: no renban_r_d rows
            r, k = draw(st.integers(0, n - 1)), draw(st.integers(2, n))
            cells = [board.cell(r, c) for c in range(k)]
        out.append(Renban(tuple(cells)))
    return board, out


@settings(max_examples=100, deadline=None)
@given(st.one_of(whispers(), renbans()), st.integers(1, 5))
def test_whisper_and_renban_rows_of_are_each_lines_rows(drawn, first_index):
    board, rules = drawn
    _same_as_rule_by_rule(rules, board, first_index)


@st.composite
def end_lines(draw):
    """Between lines (3..n distinct cells) or lockout lines (2..n: some with no cell between), the
    lockouts of one difference or of several."""
    board = _board(draw)
    n = board.n
    between = draw(st.booleans())
    diffs = draw(st.lists(st.integers(1, max(1, n - 2)), min_size=1, max_size=2))
    out: list[Rule] = []
    for _ in range(draw(st.integers(1, 6))):
        cells = tuple(draw(st.lists(st.integers(0, n * n - 1), min_size=3 if between else 2, max_size=n, unique=True)))
        out.append(Between(cells) if between else Lockout(cells, draw(st.sampled_from(diffs))))
    return board, out


@settings(max_examples=100, deadline=None)
@given(end_lines(), st.integers(1, 5))
def test_between_and_lockout_rows_of_are_each_lines_rows(drawn, first_index):
    board, rules = drawn
    _same_as_rule_by_rule(rules, board, first_index)


def test_rows_by_owner_orders_the_rows_of_several_blocks_by_rule():
    def block(owners, cells):
        rows = np.repeat(np.arange(len(owners)), 2)
        return Rows("f", rows, np.array(cells), np.zeros(rows.size, dtype=np.int64), np.ones(rows.size, dtype=np.int64),
                    np.array(owners) + 10, "L", np.array(owners)[:, None])
    merged, owner = rows_by_owner([block([0, 2], [1, 2, 3, 4]), block([1, 2], [5, 6, 7, 8])],
                                  [np.array([0, 2]), np.array([1, 2])])
    assert owner.tolist() == [0, 1, 2, 2] and merged.rhs.tolist() == [10, 11, 12, 12]
    assert merged.row.tolist() == [0, 0, 1, 1, 2, 2, 3, 3] and merged.cell.tolist() == [1, 2, 5, 6, 3, 4, 7, 8]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.integers(0, 80), min_size=1, max_size=9), min_size=1, max_size=4), st.integers(1, 9),
       st.lists(st.lists(st.integers(0, 8), min_size=1, max_size=4, unique=True), min_size=1, max_size=4),
       st.integers(1, 5))
def test_class_window_rows_are_a_row_per_window_and_class(lines, width, classes, first_index):
    """Entropic and modular lines' rows, built at once for one line and for several, against a row
    per line, window and class."""
    digit_classes = [np.array(c) for c in classes]
    want = RowBuilder("modular", "L", 3)
    for index, cells in enumerate(lines, start=first_index):
        line = np.array(cells)
        size = min(width, line.size)
        for w in range(line.size - size + 1):
            window = line[w:w + size]
            for k, digits in enumerate(digit_classes, start=1):
                want.add(np.repeat(window, digits.size), np.tile(digits, size), np.ones(size * digits.size), 1,
                         (index, w + 1, k))
    got = class_window_rows_of("modular", [np.array(cells) for cells in lines], width, digit_classes, first_index)
    assert _listing([got]) == _listing([want.rows()])
    assert np.all(np.diff(got.row) >= 0) and got.labels.shape == (got.n_rows, 3)
    one = class_window_rows("modular", np.array(lines[0]), width, digit_classes, first_index)
    assert _listing([one]) == _listing([got])[:one.n_rows]


@st.composite
def class_lines(draw):
    """Entropic lines (on boards whose side divides by 3) or modular lines of one or several moduli."""
    board = _board(draw)
    n = board.n
    entropic = n % 3 == 0 and draw(st.booleans())
    mods = draw(st.lists(st.integers(2, n), min_size=1, max_size=2))
    out: list[Rule] = []
    for _ in range(draw(st.integers(1, 6))):
        cells = tuple(draw(st.lists(st.integers(0, n * n - 1), min_size=2, max_size=n, unique=True)))
        out.append(Entropic(cells) if entropic else Modular(cells, draw(st.sampled_from(mods))))
    return board, out


@settings(max_examples=100, deadline=None)
@given(class_lines(), st.integers(1, 5))
def test_entropic_and_modular_rows_of_are_each_lines_rows(drawn, first_index):
    board, rules = drawn
    _same_as_rule_by_rule(rules, board, first_index)


@st.composite
def xv_marks(draw):
    """X and V marks on random pairs of cells (the rows do not ask them to touch)."""
    board = _board(draw)
    n = board.n
    pairs = [draw(st.lists(st.integers(0, n * n - 1), min_size=2, max_size=2, unique=True))
             for _ in range(draw(st.integers(1, 10)))]
    return board, [XV(draw(st.sampled_from(["x", "v"])), a, b) for a, b in pairs]


@settings(max_examples=60, deadline=None)
@given(xv_marks(), st.integers(1, 5))
def test_xv_rows_of_are_each_marks_rows(drawn, first_index):
    board, rules = drawn
    _same_as_rule_by_rule(rules, board, first_index)


def test_a_cage_inside_a_box_adds_its_sum_only_and_the_order_stays_cage_by_cage():
    board = parse_puzzle({"size": 4, "box": "2x2"}).board
    rules: list[Rule] = [Cage((0, 1), 3), Cage((1, 6), None), Cage((2, 3, 9), 6), Cage((5,), 4)]
    blocks = Cage.rows_of(rules, board)
    runs = [(block.family, block.labels[:, 0].tolist()) for block in blocks if block.n_rows]
    assert runs == [("cagesum", [1]), ("cage", [2] * 4 + [3] * 4), ("cagesum", [3, 4])]
    _same_as_rule_by_rule(rules, board, 1)


def test_the_default_rows_of_is_each_rules_rows_in_turn():
    puzzle = parse_puzzle({"size": 4, "box": "2x2", "rules": [
        {"rule": "even", "cells": ["r1c1", "r1c2"]}, {"rule": "even", "cells": ["r2c4"]}]})
    [evens] = rules_by_kind(puzzle)
    _same_as_rule_by_rule(evens, puzzle.board, 1)
    assert Rule.rows_of.__func__ is type(evens[0]).rows_of.__func__   # type: ignore[attr-defined]


def test_ragged_positions_number_each_groups_entries():
    group, within = ragged_positions(np.array([2, 0, 3]))
    assert group.tolist() == [0, 0, 2, 2, 2] and within.tolist() == [0, 1, 0, 1, 2]


def test_in_rule_order_cuts_family_blocks_back_into_rule_order():
    def block(family, owners):
        rows = np.arange(len(owners))
        return Rows(family, rows, rows + 10, rows % 2, np.ones(rows.size, dtype=np.int64), np.array(owners),
                    "L", np.array(owners)[:, None])
    first, second = block("a", [0, 0, 2]), block("b", [0, 1, 2])
    got = in_rule_order([first, second], [np.array([0, 0, 2]), np.array([0, 1, 2])])
    assert [(b.family, b.rhs.tolist()) for b in got] == [("a", []), ("b", []), ("a", [0, 0]), ("b", [0, 1]),
                                                         ("a", [2]), ("b", [2])]
    assert got[4].row.tolist() == [0] and got[4].cell.tolist() == [12]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 40), max_size=60))
def test_distinct_small_ints_are_the_distinct_values_ascending(lengths):
    got = distinct_small_ints(np.array(lengths, dtype=np.int64))
    assert got.tolist() == sorted(set(lengths))


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 10), st.integers(0, 5), st.integers(1, 4), st.data())
def test_exclusion_rows_are_one_row_per_pair_and_digit_with_a_forbidden_partner(n, pairs, index, data):
    """The rows built in one numpy step, against the definition written out: for pair ``p`` and
    digit ``d`` of ``a`` with forbidden partners, the terms ``(a_p, d)`` then ``(b_p, e)`` for each
    forbidden ``e`` in order, ``<= 1``, labelled ``(index, p + 1, d + 1)``."""
    forbid = np.array(data.draw(st.lists(st.lists(st.booleans(), min_size=n, max_size=n), min_size=n, max_size=n)))
    a = np.array(data.draw(st.lists(st.integers(0, 80), min_size=pairs, max_size=pairs)), dtype=np.int64)
    b = np.array(data.draw(st.lists(st.integers(0, 80), min_size=pairs, max_size=pairs)), dtype=np.int64)
    got = exclusion_rows("f", a, b, forbid, index)
    terms, labels = [], []
    for p in range(pairs):
        for d in range(n):
            if forbid[d].any():
                row = len(labels)
                terms += [(row, int(a[p]), d)] + [(row, int(b[p]), int(e)) for e in np.flatnonzero(forbid[d])]
                labels.append((index, p + 1, d + 1))
    assert list(zip(got.row.tolist(), got.cell.tolist(), got.digit.tolist())) == terms
    assert [tuple(label) for label in got.labels.tolist()] == labels
    assert got.coef.tolist() == [1] * len(terms) and got.rhs.tolist() == [1] * len(labels) and got.sense == "L"


def test_pairs_within_are_triu_indices_and_read_only():
    for k in range(12):
        i, j = pairs_within(k)
        assert np.array_equal(np.stack([i, j]), np.stack(np.triu_indices(k, 1)))
        assert not i.flags.writeable and not j.flags.writeable
    assert pairs_within(5)[0] is pairs_within(5)[0]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=30))
def test_run_starts_mark_where_each_run_of_equal_keys_starts(keys):
    keys = np.array(keys, dtype=np.int64)
    expected = [k == 0 or keys[k] != keys[k - 1] for k in range(keys.size)]
    assert run_starts(keys).tolist() == expected and run_starts(keys).dtype == bool


@st.composite
def sum_lines(draw):
    """Arrows (a circle and 1..3 line cells), zipper lines (3..n cells, odd and even) or region-sum
    lines (2..n cells, some inside one box), on one board; the rows do not ask the cells to touch."""
    board = _board(draw)
    n = board.n
    kind = draw(st.sampled_from(["arrow", "zipper", "regionsum"]))
    smallest = {"arrow": 2, "zipper": 3, "regionsum": 2}[kind]
    largest = 4 if kind == "arrow" else n
    out: list[Rule] = []
    for _ in range(draw(st.integers(1, 6))):
        cells = tuple(draw(st.lists(st.integers(0, n * n - 1), min_size=smallest, max_size=largest, unique=True)))
        out.append({"arrow": Arrow, "zipper": Zipper, "regionsum": RegionSum}[kind](cells))
    return board, out


def _sum_line_reference(rules: list[Rule], board: Board, first_index: int) -> Rows:
    """Each line's ``= 0`` rows from the rules' definitions, one weighted cell value at a time."""
    values = board.value_of
    kind = rules[0].kind
    want = RowBuilder(kind, "E", 1 if kind == "arrow" else 2)

    def add(weighted: list[tuple[int, int]], label: tuple[int, ...]) -> None:
        cells = [c for c, w in weighted for d in range(values.size) if w * values[d]]
        digits = [d for c, w in weighted for d in range(values.size) if w * values[d]]
        coefs = [w * values[d] for c, w in weighted for d in range(values.size) if w * values[d]]
        want.add(np.array(cells, dtype=np.int64), np.array(digits, dtype=np.int64), np.array(coefs), 0, label)

    for index, rule in enumerate(rules, start=first_index):
        cells = list(rule.cell_list)
        if kind == "arrow":                       # the circle less the line
            add([(cells[0], 1)] + [(c, -1) for c in cells[1:]], (index,))
        elif kind == "zipper":                    # mirrored pairs against the centre or the next pair in
            half = len(cells) // 2
            pairs = [(cells[i], cells[-1 - i]) for i in range(half)]
            groups = ([[(a, 1), (b, 1), (cells[half], -1)] for a, b in pairs] if len(cells) % 2 else
                      [[(a, 1), (b, 1), (c, -1), (d, -1)] for (a, b), (c, d) in zip(pairs, pairs[1:])])
            for i, group in enumerate(groups, start=1):
                add(group, (index, i))
        else:                                     # each box segment against the next
            segments = [s.tolist() for s in rule.segments(board)]
            for i, (a, b) in enumerate(zip(segments, segments[1:]), start=1):
                add([(c, 1) for c in a] + [(c, -1) for c in b], (index, i))
    return want.rows()


@settings(max_examples=100, deadline=None)
@given(sum_lines(), st.integers(1, 5))
def test_arrow_zipper_and_region_sum_rows_of_are_each_lines_rows(drawn, first_index):
    board, rules = drawn
    together = type(rules[0]).rows_of(rules, board, first_index)
    assert _listing(together) == _listing([_sum_line_reference(rules, board, first_index)])
    _same_as_rule_by_rule(rules, board, first_index)
