"""pipeline.core.lzstring against an independent LZ-string (the ``lzstring`` package, a port of
the JavaScript original): everything it compresses reads back, and no input, however broken,
gets more than a PuzzleError."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.core.errors import PuzzleError
from pipeline.core.lzstring import MAX_DOCUMENT_CHARS, decompress_from_base64

lzstring = pytest.importorskip("lzstring")   # the test extra

SETTINGS = settings(max_examples=300, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
#: Basic Multilingual Plane characters without surrogates: the reference codes a character in 16
#: bits, as JavaScript's UTF-16 code units.
BMP = st.characters(max_codepoint=0xFFFF, exclude_categories=("Cs",))


def compress(text: str) -> str:
    return lzstring.LZString().compressToBase64(text)


@SETTINGS
@given(st.text(BMP, max_size=400))
def test_every_compressed_text_reads_back(text):
    assert decompress_from_base64(compress(text)) == text


@SETTINGS
@given(st.text(st.sampled_from('{}[]":,0123456789abcdefgrRcC'), min_size=1, max_size=2000))
def test_repetitive_json_like_text_reads_back(text):
    """Long repetitive text grows the dictionary and the code width past 16 bits' worth of codes."""
    assert decompress_from_base64(compress(text)) == text


def test_characters_beyond_the_bmp_arrive_as_surrogate_pairs():
    text = '{"title": "\U0001F600 sudoku \u00e9\u4e2d"}'
    units = text.encode("utf-16-le", "surrogatepass")
    as_js = "".join(chr(int.from_bytes(units[k:k + 2], "little")) for k in range(0, len(units), 2))
    assert decompress_from_base64(compress(as_js)) == text


def test_an_f_puzzles_document_reads_back():
    doc = {"size": 9, "grid": [[{} for _ in range(9)] for _ in range(9)], "antiknight": True}
    payload = compress(json.dumps(doc))
    assert payload.startswith("N4Ig")
    assert json.loads(decompress_from_base64(payload)) == doc


@pytest.mark.parametrize("text, message", [
    ("", "no compressed data"),
    ("N4Ig*", "'*' is not a base64 character"),
    ("N4", "the compressed data ends early"),
    ("////", "not LZ-string data (first code 3)"),
])
def test_broken_input_is_one_puzzle_error(text, message):
    with pytest.raises(PuzzleError, match=message.replace("(", r"\(").replace(")", r"\)")):
        decompress_from_base64(text)


@SETTINGS
@given(st.text(st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="), max_size=300))
def test_random_base64_is_text_or_a_puzzle_error(text):
    try:
        out = decompress_from_base64(text)
    except PuzzleError as e:
        assert "\n" not in str(e)
    else:
        assert isinstance(out, str) and len(out) <= MAX_DOCUMENT_CHARS


@SETTINGS
@given(st.text(BMP, min_size=1, max_size=200), st.data())
def test_damaged_payloads_are_text_or_a_puzzle_error(text, data):
    payload = list(compress(text))
    for _ in range(data.draw(st.integers(1, 3))):
        k = data.draw(st.integers(0, len(payload) - 1))
        payload[k] = data.draw(st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"))
    cut = data.draw(st.integers(1, len(payload)))
    try:
        decompress_from_base64("".join(payload[:cut]))
    except PuzzleError:
        pass


def test_a_payload_that_expands_without_bound_is_refused(monkeypatch):
    """Repeating one character makes each code stand for one more character: a payload of a few
    hundred characters decompresses to tens of thousands, and past MAX_DOCUMENT_CHARS (lowered here so
    the reference compresses quickly) the decoder stops with a PuzzleError."""
    payload = compress("a" * 30_000)
    assert len(payload) < 1_000 and decompress_from_base64(payload) == "a" * 30_000
    monkeypatch.setattr("pipeline.core.lzstring.MAX_DOCUMENT_CHARS", 10_000)
    with pytest.raises(PuzzleError, match=r"decompresses to more than 10,000 characters \(the limit of a puzzle document\)"):
        decompress_from_base64(payload)
