"""What an export and a check hold beside the model: auxiliary names written once, MPS column
names a chunk at a time, and a CNF compared with its encoding chunk by chunk (an automaton line
of 1.5 M auxiliary columns exported at 1.64 GB where its build peaked at 0.86 GB; check of an
empty 100x100's CNF peaked at 3.1 GB). No timing or memory threshold: each test counts what the
old code did whole."""
from __future__ import annotations

import json

import numpy as np
import pytest

import formats.cnf as cnf
import formats.mps as mps
import pipeline.core.rulerows as rulerows
from formats.directory import export_model
from pipeline.core.build import build_model
from pipeline.core.manifest import model_metadata
from pipeline.core.puzzle import DEFAULT_PUZZLE, parse_puzzle

REGEX = {"size": 9, "givens": ["r1c1=1", "r5c5=3"],
         "rules": [{"rule": "regex", "pattern": "(12|3.*4|[5-9]+)*.*", "cells": [f"r2c{c}" for c in range(1, 10)]}]}


def _regex_model(clues: str = "rows"):
    return build_model(parse_puzzle(json.dumps(REGEX)), clues=clues)


def _old_name_table(model) -> np.ndarray:
    """The table as the writers had it: every name as one str array, then bytes."""
    names = np.asarray(model.col_names).astype("S")
    return np.ascontiguousarray(names).view(np.uint8).reshape(names.size, -1)


def test_an_export_writes_the_auxiliary_names_once(tmp_path, monkeypatch):
    # the model's names, the MPS comment and the manifest each wrote them again (1.5 M names: 0.46 GB
    # and seconds each); the rows' own are reused
    calls = []
    real = rulerows.aux_names
    monkeypatch.setattr(rulerows, "aux_names", lambda blocks: calls.append(1) or real(blocks))
    model = _regex_model()
    export_model(model, tmp_path / "out", "mps,lp", workers=1)
    assert len(calls) == 1
    assert model_metadata(model)["aux_columns"]["families"] == {"regex": 759, "regexstate": 60}
    assert len(calls) == 1


@pytest.mark.parametrize("clues", ["rows", "reduce"])
def test_a_name_table_slice_is_the_whole_tables_rows(clues):
    model = _regex_model(clues)
    whole = _old_name_table(model)
    assert np.array_equal(model.name_table(), whole)
    for start, stop in [(0, 3), (5, model.n_cols - 100), (model.n_cols - 120, model.n_cols), (7, 7)]:
        assert np.array_equal(model.name_table(start, stop), whole[start:stop])


@pytest.mark.parametrize("style", ["free", "fixed"])
def test_mps_names_its_columns_a_chunk_at_a_time(tmp_path, monkeypatch, style):
    monkeypatch.setattr(mps, "_CHUNK", 64)    # numbers are aligned per chunk: one chunk size for both files
    model_class = type(_regex_model())
    real = model_class.name_table
    monkeypatch.setattr(model_class, "name_table", lambda self, start=0, stop=None: _old_name_table(self)[start:stop])
    mps.write(_regex_model(), tmp_path / "whole.mps", style=style)
    asked = []

    def recorded(self, start=0, stop=None):
        table = real(self, start, stop)
        asked.append(table.shape[0])
        return table

    monkeypatch.setattr(model_class, "name_table", recorded)
    model = _regex_model()
    mps.write(model, tmp_path / "chunked.mps", style=style)
    assert (tmp_path / "chunked.mps").read_bytes() == (tmp_path / "whole.mps").read_bytes()
    if style == "fixed":
        assert (mps.names_map_path(tmp_path / "chunked.mps").read_bytes()
                == mps.names_map_path(tmp_path / "whole.mps").read_bytes())
    assert asked and max(asked) <= 64 < model.n_cols      # never the whole table
    assert "col_names" not in vars(model)                 # nor every name as one str array


def test_a_cnf_of_its_own_model_is_compared_chunk_by_chunk(tmp_path, monkeypatch):
    model = build_model(parse_puzzle('{"size": 4, "givens": ["r1c1=1"], "rules": [{"rule": "antiknight"}]}'))
    cnf.write(model, tmp_path / "m.cnf")
    chunks = []
    real = cnf.iter_clause_tokens
    monkeypatch.setattr(cnf, "iter_clause_tokens", lambda enc: (chunks.append(c.size) or c for c in real(enc)))

    def whole(*args):
        raise AssertionError("the whole clause set was compared")

    monkeypatch.setattr(cnf, "clause_set_difference", whole)
    cnf.read(tmp_path / "m.cnf")
    assert chunks


def test_equal_in_order_skips_the_rule_clauses_and_counts_every_token():
    tokens = np.array([1, 2, 0, 7, 0, 8, 0, 3, 0, -4, 0])
    pieces = [np.array([1, 2, 0]), np.array([3, 0]), np.array([-4, 0])]
    assert cnf.equal_in_order(tokens, (3, 7), pieces)
    assert cnf.equal_in_order(tokens, (3, 7), [np.array([1, 2, 0, 3]), np.array([0, -4, 0])])   # across the gap
    assert not cnf.equal_in_order(tokens, (3, 7), pieces[:2])                  # a clause left over
    assert not cnf.equal_in_order(tokens, (3, 7), pieces + [np.array([5, 0])])  # one missing
    assert not cnf.equal_in_order(tokens, (3, 5), pieces)                      # the skip is part of it


def test_integer_tokens_hold_the_literals_once():
    # each chunk's values went to a list and were then concatenated: the literals twice at the end
    import tracemalloc

    from formats.text import integer_tokens

    buf = np.frombuffer(b"12 -345 6 0\n" * 100_000, np.uint8)
    tracemalloc.start()
    try:
        tokens = integer_tokens(buf, ValueError, chunk=1 << 14)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert tokens.size == 400_000 and tokens[:4].tolist() == [12, -345, 6, 0]
    assert peak < 1.5 * tokens.nbytes, peak              # 2 x before (plus the chunks)


def test_read_cnf_holds_the_literals_once_and_its_text_a_piece_at_a_time(tmp_path, monkeypatch):
    # the parts and their concatenation, then np.abs for the largest literal: a 354 MB CNF's read
    # peaked at 1.44 GB (its text plus the literals' 720 MB twice); then the whole text was read
    # into one bytes object beside the literals: an empty 100x100's CNF held both (0.9 GB for check)
    import tracemalloc

    monkeypatch.setattr(cnf, "CNF_READ_CHUNK", 1 << 14)
    path = tmp_path / "m.cnf"
    cnf.write(build_model(parse_puzzle('{"size": 16}')), path)
    size = path.stat().st_size
    tracemalloc.start()
    try:
        tokens = cnf.read_cnf(path).tokens
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert size > 1 << 20
    assert peak < tokens.nbytes + size / 2, (peak, size, tokens.nbytes)   # size + the literals before


def test_read_cnf_pieces_keep_comments_and_tokens_apart(tmp_path, monkeypatch):
    # pieces end at a line end: a comment line or a literal is never cut in two
    monkeypatch.setattr(cnf, "CNF_READ_CHUNK", 5)
    path = tmp_path / "f.cnf"
    path.write_bytes(b"c hi\np cnf 12 3\n1 -2 0\nc 3 4 0\n  c x\n11 12\n0\r\n-10 0")
    got = cnf.read_cnf(path)
    assert got.tokens.tolist() == [1, -2, 0, 11, 12, 0, -10, 0] and (got.n_vars, got.n_clauses) == (12, 3)


def test_clause_ends_block_by_block(monkeypatch):
    monkeypatch.setattr(cnf, "_ENDS_BLOCK", 3)
    tokens = np.array([1, 2, 0, 0, 3, 4, 5, 0, -1, 0], dtype=np.int32)
    assert cnf._clause_ends(tokens, 4, np.int32).tolist() == [2, 3, 7, 9]


def test_csv_writes_the_long_form_a_chunk_of_rows_and_names_at_a_time(tmp_path, monkeypatch):
    import formats.csv as csv_format
    import formats.csv_long as csv_long
    import formats.text
    model = _regex_model()
    csv_long.write_long(model, tmp_path / "whole.csv")
    monkeypatch.setattr(csv_long, "_CHUNK", 64)
    monkeypatch.setattr(formats.text, "NAME_CHUNK", 64)   # the names, made by formats.text.name_array
    asked, written = [], []
    model_class = type(model)
    real_table, real_chunks = model_class.name_table, csv_long.write_csv_chunks
    monkeypatch.setattr(model_class, "name_table",
                        lambda self, start=0, stop=None: asked.append((stop or self.n_cols) - start) or real_table(self, start, stop))
    monkeypatch.setattr(csv_long, "write_csv_chunks", lambda f, columns: written.append(len(columns[0])) or real_chunks(f, columns))
    csv_format.write_long(model, tmp_path / "chunked.csv")
    assert (tmp_path / "chunked.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()
    longest_row = int(np.diff(model.Aeq.tocsr().indptr).max())
    assert asked and max(asked) <= 64 < model.n_cols                     # never the whole name table
    assert len(written) > 1 and max(written) <= 64 + longest_row < model.Aeq.nnz   # nor every nonzero at once


def test_csv_triplets_hold_a_chunk_not_the_matrix_as_coo(tmp_path, monkeypatch):
    import tracemalloc

    import formats.csv as csv_format
    import formats.csv_long as csv_long
    matrix = build_model(parse_puzzle('{"size": 16}')).Aeq.tocsr()   # 16,384 nonzeros
    csv_format.write_triplets(matrix, tmp_path / "whole.csv")
    for module in (csv_format, csv_long):
        monkeypatch.setattr(module, "_CHUNK", 256)
    tracemalloc.start()
    try:
        csv_format.write_triplets(matrix, tmp_path / "chunked.csv")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (tmp_path / "chunked.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()
    # the COO (16 bytes a nonzero) and the int64 columns (20 more) were 36 bytes a nonzero
    assert peak < 8 * matrix.nnz, peak / matrix.nnz


def test_parquet_names_the_auxiliary_columns_from_name_table_chunks(tmp_path, monkeypatch):
    import formats.parquet as parquet
    import formats.text
    whole = parquet.cols_table(_regex_model())
    monkeypatch.setattr(formats.text, "NAME_CHUNK", 64)
    model = _regex_model()
    chunked = parquet.cols_table(model)
    assert chunked.equals(whole) and chunked.column("name").num_chunks == 1
    assert model.n_aux > 64 and "col_names" not in vars(model)   # no str per auxiliary name


def test_matlab_lays_out_the_variable_names_from_the_name_table(tmp_path):
    import formats.mat5 as mat5
    import formats.matlab as matlab
    model = _regex_model()
    matlab.write(model, tmp_path / "model.mat")
    assert "col_names" not in vars(model)      # no str array of every name (4 bytes a character)
    as_table = mat5.element_bytes(mat5.NameTable(model.name_table()), "variableNames")
    assert as_table == mat5.element_bytes(np.asarray(model.col_names).reshape(-1, 1), "variableNames")


def test_lp_fills_its_term_table_from_name_table_chunks(tmp_path, monkeypatch):
    import formats.lp as lp
    lp.write(_regex_model(), tmp_path / "whole.lp")
    monkeypatch.setattr(lp, "_CHUNK", 64)
    model_class = type(_regex_model())
    real, asked = model_class.name_table, []
    monkeypatch.setattr(model_class, "name_table",
                        lambda self, start=0, stop=None: asked.append((stop or self.n_cols) - start) or real(self, start, stop))
    model = _regex_model()
    lp.write(model, tmp_path / "chunked.lp")
    assert (tmp_path / "chunked.lp").read_bytes() == (tmp_path / "whole.lp").read_bytes()
    assert asked and max(asked) <= 64 < model.n_cols       # never the whole name table beside the terms


def test_a_cnf_read_holds_no_array_per_clause_into_its_comparison(tmp_path, monkeypatch):
    # read kept each clause's start, end and length (int64) and a mask per literal alive into the
    # re-encoding comparison: check of an empty 100x100's CNF peaked there at 1.27 GB
    import sys

    path = tmp_path / "m.cnf"
    cnf.write(build_model(parse_puzzle('{"size": 9}')), path)
    seen = []
    real = cnf._refuse_other_clauses

    def spy(cnf_file, *args):
        held = sys._getframe(1).f_locals
        n_clauses = int((cnf_file.tokens == 0).sum())
        seen.append(sorted(name for name, value in held.items()
                           if isinstance(value, np.ndarray) and value.size >= n_clauses
                           and value is not cnf_file.tokens))
        return real(cnf_file, *args)

    monkeypatch.setattr(cnf, "_refuse_other_clauses", spy)
    cnf.read(path)
    assert seen == [[]]


def test_an_lp_read_compares_with_its_text_and_tokens_gone(tmp_path, monkeypatch):
    # the text, its tokens and the sections sat under the agreement check's copies (1.3 GB peak
    # for an empty 100x100's LP): the comparison now starts after the parse returned
    import gc

    import formats.lp as lp
    import formats.lp_read as lp_read

    path = tmp_path / "m.lp"
    lp.write(build_model(parse_puzzle('{"size": 4}')), path)
    alive = []
    real = lp_read.refuse_disagreement

    def spy(data, where, **kw):
        alive.append(sum(isinstance(o, (lp_read._Text, lp_read._Section)) for o in gc.get_objects()))
        return real(data, where, **kw)

    monkeypatch.setattr(lp_read, "refuse_disagreement", spy)
    lp_read.read(path)
    assert alive == [0]


def _cnf_tokens(tmp_path, clues: str):
    """A CNF of the seed puzzle (its clues as ``clues``) and its literals."""
    model = build_model(parse_puzzle(DEFAULT_PUZZLE), clues=clues)
    path = tmp_path / f"{clues}.cnf"
    cnf.write(model, path, amo="ladder")
    return path, cnf.read_cnf(path)


@pytest.mark.parametrize("clues", ["rows", "bounds"])
def test_cnf_clauses_are_decoded_a_block_of_clauses_at_a_time(tmp_path, monkeypatch, clues):
    # blocks cut anywhere (a row clause, a unit, an auxiliary clause across the boundary)
    # decode to what one block does, with some clauses outside the units (rule rows') too
    _, read = _cnf_tokens(tmp_path, clues)
    in_units = np.ones(read.n_clauses, dtype=bool)
    in_units[5:40] = False
    whole = cnf._decoded(read.tokens, in_units, 729, clues == "bounds")
    assert whole[0].size and (clues == "rows" or whole[2].size)   # rows (and units) to decode
    for block in (1, 2, 3, 7, 64):
        monkeypatch.setattr(cnf, "_DECODE_BLOCK", block)
        got = cnf._decoded(read.tokens, in_units, 729, clues == "bounds")
        assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(got, whole)), block


def test_a_tampered_cnf_is_named_alike_whatever_the_block(tmp_path, monkeypatch):
    from pipeline.core.errors import FormatError
    path, _ = _cnf_tokens(tmp_path, "rows")
    lines = path.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("1 2 3 4 5 6 7 8 9 0"))
    lines[at] = "1 2 3 4 5 6 7 8 0"             # a cell's at-least-one clause loses a digit
    path.write_text("\n".join(lines) + "\n")
    messages = []
    for block in (cnf._DECODE_BLOCK, 1, 3):
        monkeypatch.setattr(cnf, "_DECODE_BLOCK", block)
        with pytest.raises(FormatError) as e:
            cnf.read(path)
        messages.append(str(e.value))
    assert messages[0].startswith(f"{path}: ") and len(set(messages)) == 1, messages


def test_cnf_decoding_holds_no_mask_or_copy_per_literal_or_clause(tmp_path, monkeypatch):
    # the old decoding held a mask per literal (twice) and every clause's first literal and its
    # negation (4 bytes a clause each) beside the clause starts and lengths (8 bytes a clause)
    import tracemalloc
    model = build_model(parse_puzzle('{"size": 16}'))
    path = tmp_path / "m.cnf"
    cnf.write(model, path, amo="ladder")
    read = cnf.read_cnf(path)
    in_units = np.ones(read.n_clauses, dtype=bool)
    monkeypatch.setattr(cnf, "_ENDS_BLOCK", 1024)
    monkeypatch.setattr(cnf, "_DECODE_BLOCK", 1024)
    tracemalloc.start()
    try:
        got = cnf._decoded(read.tokens, in_units, 16 ** 3, False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    held = sum(a.nbytes for a in got)
    assert read.tokens.size > 3 * read.n_clauses
    assert peak < held + 15 * read.n_clauses, (peak, held, read.n_clauses)   # the old code: 19.4 a clause
