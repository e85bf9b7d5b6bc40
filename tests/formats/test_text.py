"""The shared text kernel (formats/text.py) and the one name dictionary (pipeline/names.py)."""
from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from formats.text import (
    Tokens,
    factorize_table,
    integer_tokens,
    NameDictionary,
    bytes_table,
    dense_01_rows,
    digits_table,
    number_strings,
    number_table,
)
from pipeline.core.conventions import Convention
from pipeline.core.errors import FormatError

finite = st.floats(allow_nan=False, allow_infinity=False)


@given(st.lists(finite, max_size=40))
def test_number_strings_parse_back_exactly(values):
    text = number_strings(np.array(values, dtype=float))
    assert [float(t) for t in text.tolist()] == [float(v) for v in values]


@given(st.lists(st.integers(-10**14, 10**14), min_size=1, max_size=40))
def test_integers_are_written_without_a_point(values):
    text = number_strings(np.array(values, dtype=float))
    assert text.tolist() == [str(v).encode() for v in values]


@given(st.lists(finite, min_size=1, max_size=40))
def test_number_strings_match_python_repr(values):
    """Non-integers are Python's shortest round-trip repr (the files' historical spelling)."""
    text = number_strings(np.array(values, dtype=float))
    for v, t in zip(values, text.tolist()):
        if v != int(v) or abs(v) >= 1e15:
            assert t == repr(float(v)).encode()


def test_infinities_are_spelled_inf():
    assert number_strings([np.inf, -np.inf, 2.5]).tolist() == [b"Inf", b"-Inf", b"2.5"]


@given(st.lists(finite, min_size=1, max_size=20))
def test_fixed_field_rounds_to_fit(values):
    try:
        text = number_strings(np.array(values, dtype=float), max_len=12)
    except FormatError as e:
        assert "12-character fixed field" in str(e)
        return
    assert all(len(t) <= 12 for t in text.tolist())
    for v, t in zip(values, text.tolist()):
        assert float(t) == pytest.approx(v, rel=1e-4, abs=0)  # >= 5 significant digits


def test_fixed_field_refuses_what_cannot_fit():
    with pytest.raises(FormatError, match=r"^mps: number .* does not fit the 3-character fixed field$"):
        number_strings([-1.5e-300], max_len=3, where="mps")


@given(st.lists(finite, min_size=1, max_size=40))
def test_number_table_is_the_number_text(values):
    table = number_table(np.array(values, dtype=float))
    rows = [bytes(r[r != 0]) for r in table]
    assert [float(t) for t in rows] == [float(v) for v in values]
    assert rows == number_strings(np.array(values, dtype=float)).tolist()


@given(st.lists(st.integers(0, 2**62), max_size=40))
def test_digits_table_is_the_decimal_text(values):
    table = digits_table(np.array(values, dtype=np.int64))
    assert [bytes(r[r != 0]) for r in table] == [str(v).encode() for v in values]


def test_bytes_table_pads_with_zeros():
    assert bytes_table(["ab", "c"]).tolist() == [[97, 98], [99, 0]]
    assert bytes_table(np.array([b"xyz"])).tolist() == [[120, 121, 122]]


@given(st.integers(1, 6), st.integers(1, 6), st.data())
def test_dense_01_rows_is_the_matrix(m, n, data):
    dense = np.array(data.draw(st.lists(st.integers(0, 1), min_size=m * n, max_size=m * n))).reshape(m, n)
    text = dense_01_rows(sp.csr_matrix(dense), 0, m).decode()
    assert [list(map(int, line.split(","))) for line in text.splitlines()] == dense.tolist()


names_st = st.lists(st.text(st.characters(codec="utf-8", exclude_characters="\0"), min_size=1, max_size=20),
                    max_size=30)


@settings(max_examples=200)
@given(names_st, names_st)
def test_name_dictionary_matches_a_dict(names, queries):
    oracle = {}
    for i, name in enumerate(names):
        oracle.setdefault(name, i)
    d = NameDictionary(np.array(names, dtype=str))
    got = d.indices(np.array(queries + names, dtype=str))
    for q, g in zip(queries + names, got.tolist()):
        if q in oracle:
            assert names[g] == q          # an equal entry (the first unless repeated)
        else:
            assert g == -1
    dup = [i for i, name in enumerate(names) if oracle[name] != i]
    assert d.duplicates.tolist() == dup


def test_name_dictionary_accepts_bytes_and_refuses_near_misses():
    d = NameDictionary(np.array([b"x_1_1_1", b"x_1_1_2", b"x_10_1_1"]))
    got = d.indices([b"x_1_1_2", b"x_01_1_2", b"x_1_1_2 ", b"x_1_1", b"x_10_1_1", b"x_10_1_1_long_name"])
    assert got.tolist() == [1, -1, -1, -1, 2, -1]
    assert NameDictionary([]).indices(["a"]).tolist() == [-1]
    assert d.indices([]).tolist() == []


@pytest.mark.parametrize("scheme", ["ijk", "block"])
def test_convention_positions_from_names_inverts_names(scheme):
    conv = Convention(scheme, "C", 2, 3)
    rng = np.random.default_rng(7)
    pos = rng.permutation(conv.n_vars)
    assert (conv.positions_from_names(conv.names()[pos]) == pos).all()
    as_bytes = conv.names()[pos].astype("S")
    assert (conv.positions_from_names(as_bytes) == pos).all()


# -- the one tokeniser (MPS and LP readers) ----------------------------------------------------
_TEXT_BYTES = st.binary(max_size=300).map(lambda b: b.replace(b"\x00", b"a"))  # zero is padding


@settings(max_examples=300, deadline=None)
@given(_TEXT_BYTES)
def test_tokens_are_pythons_split_on_control_and_space(raw):
    tok = Tokens(np.frombuffer(raw, np.uint8))
    expected = re.split(rb"[\x00-\x20]+", raw.strip(bytes(range(33))))
    expected = [t for t in expected if t]
    assert [raw[a:b] for a, b in zip(tok.starts.tolist(), tok.ends.tolist())] == expected
    assert tok.strings(np.arange(len(tok))).tolist() == expected
    assert [tok.text(t) for t in range(len(tok))] == [t.decode("utf-8", "replace") for t in expected]


@settings(max_examples=300, deadline=None)
@given(_TEXT_BYTES, st.integers(1, 24))
def test_token_windows_and_keys_are_zero_padded_prefixes(raw, width):
    tok = Tokens(np.frombuffer(raw, np.uint8))
    words = tok.strings(np.arange(len(tok))).tolist()
    idx = np.arange(len(tok))[::-1]          # any order, the last tokens (near the end) included
    fixed = tok.fixed(idx, width)
    assert [bytes(r) for r in fixed] == [words[t][:width].ljust(width, b"\0") for t in idx]
    upper = tok.fixed(idx, width, case="upper")
    assert [bytes(r) for r in upper] == [words[t][:width].upper().ljust(width, b"\0") for t in idx]
    key_width = -(-width // 8) * 8
    keys = tok.words(idx, key_width)
    assert [keys[k].tobytes() for k in range(idx.size)] == \
        [words[t][:key_width].ljust(key_width, b"\0") for t in idx]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([b"x1", b"y", b"x1", b"zz:", b"a" * 70, b"a" * 71, b"Q"]), max_size=40))
def test_token_factorize_numbers_by_first_appearance(words):
    tok = Tokens(np.frombuffer(b" ".join(words), np.uint8))
    codes, table = tok.factorize(np.arange(len(tok)))
    order = list(dict.fromkeys(words))
    assert codes.tolist() == [order.index(w) for w in words]
    assert [bytes(r).rstrip(b"\0") for r in table] == order
    drop = np.array([w.endswith(b":") for w in words], dtype=bool)
    codes, table = tok.factorize(np.arange(len(tok)), drop_last=drop)
    stripped = [w[:-1] if w.endswith(b":") else w for w in words]
    assert [bytes(table[c]).rstrip(b"\0") for c in codes] == stripped


def test_factorize_never_merges_names_whose_hashes_collide(monkeypatch):
    import formats.text as text

    monkeypatch.setattr(text, "name_hash", lambda words: np.zeros(words.shape[0], np.uint64))
    codes, table = factorize_table(bytes_table([b"ab", b"cd", b"ab", b"ef"], width=8))
    assert codes.tolist() == [0, 1, 0, 2]
    assert [bytes(r).rstrip(b"\0") for r in table] == [b"ab", b"cd", b"ef"]


def test_token_numbers_and_the_first_bad_one():
    tok = Tokens(np.frombuffer(b"1 0 -2.5 1e3 inf 7 1_0 x", np.uint8))
    assert tok.numbers(np.arange(6), lambda k, t: AssertionError(t), infinite=True).tolist() == [1, 0, -2.5, 1000, np.inf, 7]
    # by default only finite numbers (issue 21): an infinity, NaN or an overflowing numeral is bad
    with pytest.raises(ValueError, match=r"^1: inf$"):
        tok.numbers(np.array([3, 4, 5]), lambda k, t: ValueError(f"{k}: {t}"))
    for text in (b"nan", b"1e400", b"-1e999"):
        for infinite in (False, True):   # never a number, even where bounds may be infinite
            t2 = Tokens(np.frombuffer(b"2 " + text, np.uint8))
            with pytest.raises(ValueError, match=rf"^1: {text.decode()}$"):
                t2.numbers(np.arange(2), lambda k, t: ValueError(f"{k}: {t}"), infinite=infinite)
    for bad, text in ((6, "1_0"), (7, "x")):   # k: the bad token's place in the index list
        with pytest.raises(ValueError, match=rf"^2: {text}$"):
            tok.numbers(np.array([2, 3, bad, 0]), lambda k, t: ValueError(f"{k}: {t}"))


@pytest.mark.parametrize("top", [0, 9, 10, 9999, 10**4, 10**6, 10**7 - 1, 10**7, 10**8 - 1, 10**8, 10**12])
@pytest.mark.parametrize("signed", [False, True])
@pytest.mark.parametrize("prefix, sep, line_end", [(b"", b" ", b"\n"), (b"+1 x", b" ", b" = 1 ;\n"),
                                                   (b"", b",", b",1\n"), (b"", b"", b"\n"), (b"abcde", b" ;; ", b"")])
def test_render_tokens_is_python_formatting(top, signed, prefix, sep, line_end):
    # issue 34: word tables below 10**7 (10**8 unsigned), digit by digit above; both must be str()
    from formats.text import render_tokens
    rng = np.random.default_rng(top)
    values = rng.integers(-top if signed else 0, top + 1, size=3000)
    values[:3] = [0, top, -top if signed else top]
    ends = rng.random(values.size) < 0.3
    expected = b"".join(prefix + str(v).encode() + (line_end if e else sep)
                        for v, e in zip(values.tolist(), ends.tolist()))
    assert render_tokens(values, prefix=prefix, sep=sep, line_end=line_end, ends_line=ends) == expected
    assert render_tokens(values.reshape(-1, 3), prefix=prefix, sep=sep, line_end=line_end,
                         ends_line=ends.reshape(-1, 3)) == expected      # any shape, in C order
    assert render_tokens(values[:0]) == b""


_blank = st.sampled_from([" ", "\n", "\t", "\r\n", "  "])
_integer = st.integers(-(10 ** 18) + 1, 10 ** 18 - 1)


@settings(max_examples=200)
@given(st.lists(st.tuples(_integer, st.sampled_from(["", "+", "0"]), _blank), max_size=40), st.integers(1, 64))
def test_integer_tokens_are_pythons_int_of_each_word_across_chunks(items, chunk):
    # the DIMACS body reader: a list of 90 million words took 5 GB for a 354 MB CNF
    words = [(f"+{v}" if style == "+" and v >= 0 else f"-0{-v}" if style == "0" and -(10 ** 17) < v < 0 else str(v)) for v, style, _ in items]
    text = " " + "".join(w + blank for w, (_, _, blank) in zip(words, items))
    got = integer_tokens(np.frombuffer(text.encode(), np.uint8), ValueError, chunk=chunk)
    assert got.dtype == np.int64 and got.tolist() == [int(w) for w in words]


@pytest.mark.parametrize("bad", ["--", "5-", "1e3", "é", "0x10", "-", "+", "1" * 19, "9" * 40])
def test_integer_tokens_name_the_first_word_that_is_no_integer(bad):
    text = f"1 -2\n3 {bad} 4 x\n"
    with pytest.raises(ValueError, match=f"^{re.escape(bad)}$"):
        integer_tokens(np.frombuffer(text.encode(), np.uint8), ValueError, chunk=3)


def test_factorize_in_chunks_holds_no_table_of_all_names(monkeypatch):
    # an empty 100x100's LP read back peaked in factorize: its 6 M names cut into one (n, 16)
    # byte table and hashed over it with n-sized temporaries. Chunked, a name costs its hash and
    # its code (and pandas' table of hashes): less than one row of a 64-byte table.
    import tracemalloc

    import formats.text as text

    n, width = 60_000, 64
    names = [b"n%059d" % (k % 5000) for k in range(n)]          # 60 bytes: 64-byte rows
    tok = Tokens(np.frombuffer(b" ".join(names), np.uint8))
    monkeypatch.setattr(text, "FACTORIZE_CHUNK", 4096, raising=False)
    idx = np.arange(n, dtype=np.int32)
    tok.factorize(idx[:10])                                        # pandas imported before tracing
    tracemalloc.start()
    try:
        codes, table = tok.factorize(idx)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert table.shape == (5000, width) and codes.tolist() == [k % 5000 for k in range(n)]
    assert peak < n * width, peak / n   # the old whole table alone was n * width


@pytest.mark.parametrize("chunk", [1, 3, 1 << 18])
def test_factorize_chunks_give_the_same_codes(monkeypatch, chunk):
    import formats.text as text

    monkeypatch.setattr(text, "FACTORIZE_CHUNK", chunk)
    words = [b"b", b"a:", b"b", b"c" * 20, b"a", b"c" * 20, b"d:"]
    tok = Tokens(np.frombuffer(b" ".join(words), np.uint8))
    drop = np.array([w.endswith(b":") for w in words])
    codes, table = tok.factorize(np.arange(len(words)), drop_last=drop)
    assert codes.tolist() == [0, 1, 0, 2, 1, 2, 3]
    assert [bytes(r).rstrip(b"\0") for r in table] == [b"b", b"a", b"c" * 20, b"d"]
    codes, table = factorize_table(bytes_table(words, width=24))
    assert codes.tolist() == [0, 1, 0, 2, 3, 2, 4]


def test_first_repeat_without_repeats_holds_one_sorted_copy():
    # an LP's row keys (an empty 100x100: 4 M int64) were argsorted and gathered, the order and
    # the ordered copy side by side, to find no repeat: one sorted copy says so
    import tracemalloc

    from formats.text import first_repeat

    keys = np.random.default_rng(0).permutation(200_000).astype(np.int64)
    tracemalloc.start()
    try:
        assert first_repeat(keys) is None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1.5 * keys.nbytes, peak / keys.nbytes    # argsort's order + the gather: 2x
    assert first_repeat(np.array([5, 2, 5, 2, 9])) == 2
