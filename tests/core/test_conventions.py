"""pipeline.core.conventions against the formulas of docs/conventions.md, written out here independently."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracles import oracle_name, oracle_position, oracle_vector, shuffled_sudoku
from pipeline.core.conventions import Convention, make_convention
from pipeline.core.errors import ConventionError, PipelineError

SHAPES = [(1, 1), (1, 3), (2, 2), (2, 3), (3, 2), (3, 3), (2, 4), (4, 3), (4, 4)]


def every_rcd(n):
    r, c, d = np.indices((n, n, n)).reshape(3, -1)
    return r, c, d


# ---------------------------------------------------------------------------------------------
# positions
# ---------------------------------------------------------------------------------------------
def test_ijk_f_is_matlab_formula_for_classic():
    conv = Convention("ijk", "F", 3, 3)
    # 1-based i + N*(j-1) + N^2*(k-1), spelled out for a few cells
    assert conv.position(0, 0, 0) == 0                      # x(1,1,1) -> 1
    assert conv.position(1, 0, 0) == 1                      # x(2,1,1) -> 2: i is fastest
    assert conv.position(0, 1, 0) == 9                      # x(1,2,1) -> 10
    assert conv.position(0, 0, 1) == 81                     # x(1,1,2) -> 82
    assert conv.position(0, 4, 6) == 1 + 9 * 4 + 81 * 6 - 1   # x_1_5_7
    assert conv.position(8, 8, 8) == 728


def test_ijk_c_is_numpy_formula_for_classic():
    conv = Convention("ijk", "C", 3, 3)
    assert conv.position(0, 0, 1) == 1                      # k is fastest
    assert conv.position(0, 1, 0) == 9
    assert conv.position(1, 0, 0) == 81
    assert conv.position(0, 4, 6) == (0 * 9 + 4) * 9 + 6


@pytest.mark.parametrize("h,w", SHAPES)
@pytest.mark.parametrize("order", ["F", "C"])
def test_ijk_positions_match_formula(h, w, order):
    n = h * w
    conv = Convention("ijk", order, h, w)
    r, c, d = every_rcd(n)
    if order == "F":
        expected = (r + 1) + n * c + n * n * d - 1
    else:
        expected = (r * n + c) * n + d
    np.testing.assert_array_equal(conv.position(r, c, d), expected)
    # MATLAB reshape(x, N, N, N) / NumPy x.reshape(N, N, N) recover X(i, j, k)
    x = np.zeros(n ** 3)
    x[expected] = np.arange(n ** 3) + 1
    np.testing.assert_array_equal(x.reshape((n, n, n), order=order)[r, c, d], np.arange(n ** 3) + 1)


@pytest.mark.parametrize("h,w", SHAPES)
@pytest.mark.parametrize("order", ["F", "C"])
def test_block_positions_match_reshape(h, w, order):
    n = h * w
    conv = Convention("block", order, h, w)
    r, c, d = every_rcd(n)
    table = np.arange(n ** 3).reshape((n // h, n // w, h, w, n), order=order)
    expected = table[r // h, c // w, r % h, c % w, d]
    np.testing.assert_array_equal(conv.position(r, c, d), expected)
    # the same, written as explicit strides (F: first index fastest; C: last index fastest)
    big_i, big_j, p, q = r // h, c // w, r % h, c % w
    if order == "F":
        strided = big_i + (n // h) * (big_j + (n // w) * (p + h * (q + w * d)))
    else:
        strided = (((big_i * (n // w) + big_j) * h + p) * w + q) * n + d
    np.testing.assert_array_equal(expected, strided)


@pytest.mark.parametrize("scheme", ["ijk", "block"])
@pytest.mark.parametrize("order", ["F", "C"])
@pytest.mark.parametrize("h,w", SHAPES)
def test_positions_are_a_bijection_and_cell_digit_inverts(scheme, order, h, w):
    conv = Convention(scheme, order, h, w)
    n = h * w
    r, c, d = every_rcd(n)
    pos = conv.position(r, c, d)
    assert sorted(pos.tolist()) == list(range(n ** 3))
    back = conv.cell_digit(pos)
    for got, want in zip(back, (r, c, d)):
        np.testing.assert_array_equal(got, want)
    allr, allc, alld = conv.all_cell_digit()
    np.testing.assert_array_equal(conv.position(allr, allc, alld), np.arange(n ** 3))


def test_shape_and_counts():
    conv = Convention("block", "F", 2, 3)
    assert conv.n == 6 and conv.n_vars == 216
    assert conv.shape == (3, 2, 2, 3, 6)
    assert Convention("ijk", "C", 2, 3).shape == (6, 6, 6)


# ---------------------------------------------------------------------------------------------
# names
# ---------------------------------------------------------------------------------------------
def test_names_ijk_examples():
    conv = Convention("ijk", "F", 3, 3)
    assert conv.names([oracle_position("ijk", "F", 3, 3, 0, 4, 6)])[0] == "x_1_5_7"
    big = Convention("ijk", "C", 3, 4)  # N = 12
    pos = oracle_position("ijk", "C", 3, 4, 9, 2, 11)
    assert big.names([pos])[0] == "x_10_3_12"
    assert big.positions_from_names(["x_10_3_12"])[0] == pos


def test_names_block_example():
    conv = Convention("block", "F", 2, 3)  # 6x6: block rows 1..3, block columns 1..2
    # cell (r, c) = (4, 5) 1-based: block row 2, block column 2, p = 2, q = 2; digit 6
    pos = oracle_position("block", "F", 2, 3, 3, 4, 5)
    assert conv.names([pos])[0] == "x_2_2_2_2_6"
    assert conv.positions_from_names(["x_2_2_2_2_6"])[0] == pos


@pytest.mark.parametrize("scheme", ["ijk", "block"])
@pytest.mark.parametrize("order", ["F", "C"])
@pytest.mark.parametrize("h,w", [(2, 3), (3, 3), (3, 4)])
def test_all_names_match_formula_and_round_trip(scheme, order, h, w):
    conv = Convention(scheme, order, h, w)
    n = h * w
    r, c, d = every_rcd(n)
    pos = oracle_position(scheme, order, h, w, r, c, d)
    expected = np.empty(n ** 3, dtype=object)
    expected[pos] = [oracle_name(scheme, h, w, *t) for t in zip(r.tolist(), c.tolist(), d.tolist())]
    names = conv.names()
    assert names.tolist() == expected.tolist()
    np.testing.assert_array_equal(conv.positions_from_names(names), np.arange(n ** 3))
    shuffled = np.random.default_rng(0).permutation(n ** 3)
    np.testing.assert_array_equal(conv.positions_from_names(names[shuffled]), shuffled)



def formula_names(scheme, order, h, w, pos=None):
    """Names of positions ``pos`` (default all) from the formulas: the position's (r, c, d) by
    inverting ``oracle_position``, then ``oracle_name``."""
    n = h * w
    r, c, d = every_rcd(n)
    where = np.empty(n ** 3, dtype=np.int64)                 # position -> index into every_rcd
    where[oracle_position(scheme, order, h, w, r, c, d)] = np.arange(n ** 3)
    pos = np.arange(n ** 3) if pos is None else np.asarray(pos)
    k = where[pos.reshape(-1)]
    names = [oracle_name(scheme, h, w, *t) for t in zip(r[k].tolist(), c[k].tolist(), d[k].tolist())]
    return np.array(names, dtype=str).reshape(pos.shape)


def formula_lengths(scheme, order, h, w):
    """Length of every position's name, from the digits of its 1-based indices."""
    n = h * w
    r, c, d = every_rcd(n)
    parts = (r, c, d) if scheme == "ijk" else (r // h, c // w, r % h, c % w, d)
    lengths = np.empty(n ** 3, dtype=np.int64)
    lengths[oracle_position(scheme, order, h, w, r, c, d)] = 1 + sum(
        2 + (part + 1 >= 10) + (part + 1 >= 100) for part in parts)
    return lengths


@pytest.mark.parametrize("scheme", ["ijk", "block"])
@pytest.mark.parametrize("order", ["F", "C"])
@pytest.mark.parametrize("h,w", [(1, 1), (2, 3), (3, 4), (2, 5), (4, 4), (10, 10)])
def test_name_table_matches_formula(scheme, order, h, w):
    conv = Convention(scheme, order, h, w)
    lengths = formula_lengths(scheme, order, h, w)
    width = int(lengths.max())
    table = conv.name_table()
    assert table.dtype == np.uint8 and table.shape == (conv.n_vars, width)
    # left-aligned and zero-padded: a byte is nonzero exactly within its name
    np.testing.assert_array_equal(table != 0, np.arange(width) < lengths[:, None])
    # every name of the small grids; for 100x100 (1M names) a sample
    check = np.arange(conv.n_vars) if conv.n_vars <= 4096 else np.random.default_rng(3).integers(0, conv.n_vars, 50_000)
    got = table.view(f"S{width}").ravel()[check].astype(str)
    np.testing.assert_array_equal(got, formula_names(scheme, order, h, w, check))


@pytest.mark.parametrize("scheme", ["ijk", "block"])
@pytest.mark.parametrize("order", ["F", "C"])
@pytest.mark.parametrize("h,w", [(3, 3), (2, 5), (4, 4)])
def test_name_table_of_random_positions_equals_names(scheme, order, h, w):
    conv = Convention(scheme, order, h, w)
    width = conv.name_table().shape[1]
    rng = np.random.default_rng(7)
    # few positions (gathered part by part) and many, repeated ones (gathered from the full table)
    for size in (0, 1, 5, conv.n_vars // 10, conv.n_vars // 2, 2 * conv.n_vars):
        pos = rng.integers(0, conv.n_vars, size)
        table = conv.name_table(pos)
        assert table.shape == (size, width)
        got = table.view(f"S{width}").ravel().astype(str)
        expected = formula_names(scheme, order, h, w, pos)
        np.testing.assert_array_equal(got, conv.names(pos))
        np.testing.assert_array_equal(got, expected)
        if size:
            assert conv.names(pos).dtype == expected.dtype  # as wide as the longest of these names
    np.testing.assert_array_equal(conv.name_table(np.arange(conv.n_vars)), conv.name_table())
    pos = rng.integers(0, conv.n_vars, (3, 4))
    np.testing.assert_array_equal(conv.names(pos), formula_names(scheme, order, h, w, pos))
    assert conv.names(np.zeros(0, np.int64)).dtype == np.dtype("<U1")
    with pytest.raises(ValueError):
        conv.name_table([conv.n_vars])
    with pytest.raises(ValueError):
        conv.name_table(np.arange(-1, conv.n_vars))

BAD_NAMES = [
    "y_1_1_1",        # wrong prefix
    "X_1_1_1",        # case matters
    "x_1_1",          # too few parts
    "x_0_1_1",        # 1-based
    "x_1_1_10",       # digit beyond N
    "x_a_1_1",        # not a number
    "x__1_1",         # empty part
    " x_1_1_1",       # stray space
]


@pytest.mark.parametrize("bad", BAD_NAMES)
def test_bad_name_is_refused_and_named(bad):
    conv = Convention("ijk", "F", 3, 3)
    with pytest.raises(ConventionError) as err:
        conv.positions_from_names(["x_1_1_1", bad, "x_9_9_9"], where="cols.txt")
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith("cols.txt: variable name ")
    assert repr(bad) in msg
    assert "x_i_j_k" in msg


def test_bad_block_name_is_refused():
    conv = Convention("block", "C", 3, 3)
    with pytest.raises(ConventionError, match=r"'x_1_1_1' does not fit scheme block/C .*x_I_J_p_q_n"):
        conv.positions_from_names(["x_1_1_1_1_1", "x_1_1_1"])
    with pytest.raises(ConventionError, match="'x_4_1_1_1_1'"):
        conv.positions_from_names(["x_4_1_1_1_1"])  # block row beyond N/h


def test_bad_name_with_extra_part_is_the_one_named():
    conv = Convention("ijk", "F", 3, 3)
    with pytest.raises(ConventionError, match="'x_1_1_1_1'"):
        conv.positions_from_names(["x_1_1_1", "x_1_1_1_1"])


@pytest.mark.parametrize("bad", ["x_1.5_1_1", "x_2_3.9_1"])
def test_non_integer_index_in_name_is_refused(bad):
    conv = Convention("ijk", "F", 3, 3)
    with pytest.raises(ConventionError, match=repr(bad)):
        conv.positions_from_names([bad])


def test_no_names_give_no_positions():
    conv = Convention("ijk", "F", 3, 3)
    assert conv.positions_from_names([]).size == 0


# ---------------------------------------------------------------------------------------------
# errors and make_convention
# ---------------------------------------------------------------------------------------------
def test_unknown_scheme_order_box():
    with pytest.raises(ConventionError, match="scheme: unknown scheme 'kji'"):
        Convention("kji", "F", 3, 3)
    with pytest.raises(ConventionError, match="order: unknown order 'A'; expected F or C"):
        Convention("ijk", "A", 3, 3)
    with pytest.raises(ConventionError, match="box: 0x3 is not a valid box shape"):
        Convention("ijk", "F", 0, 3)
    assert issubclass(ConventionError, PipelineError) and issubclass(ConventionError, ValueError)


@pytest.mark.parametrize("variant", ["jigsaw", "jigsaw_x", "latin"])
def test_block_refused_without_boxes(variant):
    with pytest.raises(ConventionError) as err:
        make_convention("block", "F", 3, 3, variant)
    assert str(err.value) == (f"scheme: 'block' is defined only for puzzles with rectangular boxes, "
                              f"not for variant {variant!r}")
    assert make_convention("ijk", "F", 3, 3, variant).scheme == "ijk"


@pytest.mark.parametrize("variant", ["classic", "x"])
def test_block_allowed_with_boxes(variant):
    assert make_convention("block", "C", 2, 3, variant).shape == (3, 2, 2, 3, 6)


# ---------------------------------------------------------------------------------------------
# permutation_to
# ---------------------------------------------------------------------------------------------
CONVS = [(s, o) for s in ("ijk", "block") for o in ("F", "C")]


@pytest.mark.parametrize("src", CONVS)
@pytest.mark.parametrize("dst", CONVS)
@pytest.mark.parametrize("h,w", [(2, 3), (3, 3)])
def test_permutation_maps_solutions_onto_solutions(src, dst, h, w):
    grid = shuffled_sudoku(h, w, np.random.default_rng(h * 10 + w))
    a, b = Convention(*src, h, w), Convention(*dst, h, w)
    x_src = oracle_vector(grid, *src, h, w)
    x_dst = oracle_vector(grid, *dst, h, w)
    perm = a.permutation_to(b)
    np.testing.assert_array_equal(x_src[perm], x_dst)
    # and back again
    np.testing.assert_array_equal(x_dst[b.permutation_to(a)], x_src)


def test_permutation_refuses_different_sizes():
    with pytest.raises(ConventionError, match="conventions: cannot map"):
        Convention("ijk", "F", 3, 3).permutation_to(Convention("ijk", "F", 2, 2))


# ---------------------------------------------------------------------------------------------
# properties over random shapes, schemes and orders
# ---------------------------------------------------------------------------------------------
conventions = st.builds(
    lambda scheme, order, h, w: (scheme, order, h, w),
    st.sampled_from(["ijk", "block"]), st.sampled_from(["F", "C"]),
    st.integers(1, 4), st.integers(1, 4),
)


@settings(max_examples=60, deadline=None)
@given(conventions, st.data())
def test_property_position_name_round_trip(spec, data):
    scheme, order, h, w = spec
    n = h * w
    conv = Convention(scheme, order, h, w)
    cells = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.integers(0, n - 1)),
                               min_size=1, max_size=20))
    r, c, d = (np.array(v) for v in zip(*cells))
    pos = conv.position(r, c, d)
    np.testing.assert_array_equal(pos, oracle_position(scheme, order, h, w, r, c, d))
    names = conv.names(pos)
    assert names.tolist() == [oracle_name(scheme, h, w, *t) for t in cells]
    np.testing.assert_array_equal(conv.positions_from_names(names), pos)
    for got, want in zip(conv.cell_digit(pos), (r, c, d)):
        np.testing.assert_array_equal(got, want)


@settings(max_examples=40, deadline=None)
@given(conventions, conventions, st.integers(0, 2**32 - 1))
def test_property_permutation_between_conventions(a_spec, b_spec, seed):
    h, w = a_spec[2], a_spec[3]
    b_spec = (b_spec[0], b_spec[1], h, w)  # same grid, other scheme/order
    grid = shuffled_sudoku(h, w, np.random.default_rng(seed))
    a, b = Convention(*a_spec), Convention(*b_spec)
    perm = a.permutation_to(b)
    assert sorted(perm.tolist()) == list(range(a.n_vars))
    np.testing.assert_array_equal(oracle_vector(grid, *a_spec)[perm], oracle_vector(grid, *b_spec))


@pytest.mark.parametrize("h, w, message", [
    ("3", 3, r"^box: sides must be whole numbers, found str '3'$"),
    (3.5, 3, r"^box: sides must be whole numbers, found float 3.5$"),
    (True, 3, r"^box: sides must be whole numbers, found bool"),
    (10000, 10000, r"^box: 10000x10000 boxes make a grid side above 1,048,576$"),
])
def test_a_convention_refuses_sides_it_cannot_number(h, w, message):
    with pytest.raises(ConventionError, match=message):
        Convention("ijk", "F", h, w)


def test_numpy_integer_sides_become_plain_ints():
    conv = Convention("ijk", "F", np.int64(3), np.int32(3))
    assert conv == Convention("ijk", "F", 3, 3) and type(conv.h) is int


@pytest.mark.parametrize("call, message", [
    (lambda c: c.position(99, 0, 0), r"^row: 0-based index 99 is outside 0\.\.8$"),
    (lambda c: c.position(0, -1, 0), r"^column: 0-based index -1 is outside 0\.\.8$"),
    (lambda c: c.position(0, 0, [1, 9]), r"^digit: 0-based index 9 is outside 0\.\.8$"),
    (lambda c: c.position(float("nan"), 0, 0), r"^row: 0-based index nan is not a whole number$"),
    (lambda c: c.position(True, 0, 0), r"^row: 0-based indices must be integers, found bool$"),
    (lambda c: c.cell_digit(10 ** 6), r"^position: 0-based index 1000000 is outside 0\.\.728$"),
    (lambda c: c.names([10 ** 6]), r"^position: 0-based index 1000000 is outside 0\.\.728$"),
    (lambda c: c.names(np.arange(700, 800)), r"^position: 0-based index 729 is outside 0\.\.728$"),
    (lambda c: c.names(["a"]), r"^position: positions must be integers, found <U1$"),
])
@pytest.mark.parametrize("scheme", ["ijk", "block"])
def test_index_mapping_refuses_out_of_range_input_in_one_line(call, message, scheme):
    with pytest.raises(ConventionError, match=message):
        call(Convention(scheme, "F", 3, 3))


def test_whole_float_indices_still_map():
    conv = Convention("block", "C", 2, 3)
    assert int(conv.position(1.0, 2.0, 3.0)) == int(conv.position(1, 2, 3))
