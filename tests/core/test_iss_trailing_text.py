"""Text after an ISS constraint string (a note, a word, a second line) is refused in one line
naming where it starts, as text after a JSON document or an f-puzzles link is
(pipeline.core.errors.followed_by_text); ISS drops all whitespace, so the note was glued to the
last argument ("given 'R2C2_3somenoteshere'", a 16x16 given 1 then a line 5 read as 15) or read
as a type ("unknown constraint type 'helloworld'"). Whitespace that ISS's grammar allows stays
read (pipeline.core.iss_detect.iss_string_end)."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracles import ISS_COLLECTION

from pipeline.cli.main import main
from pipeline.core.errors import PuzzleError
from pipeline.core.iss import document_from_iss
from pipeline.core.iss_detect import looks_like_iss

S = ".Shape~4x4.Cage~7~R1C1~R1C2.~R2C2_3"


@pytest.mark.parametrize("tail, at, rest", [
    (" junk", "character 37", "junk"),
    (". junk", "character 38", "junk"),
    (".\nhello world\n", "line 2, column 1", "hello world"),
    ("\n\nsome notes here", "line 3, column 1", "some notes here"),
    ("  # a comment", "character 38", "# a comment"),
    ("\n.AntiKnight\n  thanks!", "line 3, column 3", "thanks!"),
])
def test_text_after_the_string_is_refused_naming_where_it_starts(tail, at, rest):
    with pytest.raises(PuzzleError) as caught:
        document_from_iss(S + tail)
    assert str(caught.value) == (f"puzzle: an ISS constraint string followed by other text at {at} ({rest!r}): "
                                 "give the string alone")


def test_a_line_after_a_given_is_not_glued_to_its_value():
    """ISS would read ``R1C1_1`` then a line ``5`` as ``R1C1_15``: on 16x16 a given 15, silently."""
    with pytest.raises(PuzzleError, match=r"followed by other text at line 2, column 1 \('5'\)"):
        document_from_iss(".Shape~16x16.~R1C1_1\n5")


def test_a_bare_type_then_a_note_is_iss_and_refused_as_such():
    assert looks_like_iss(".AntiKnight\nnotes") and not looks_like_iss("notes")
    with pytest.raises(PuzzleError, match=r"^puzzle: an ISS constraint string followed by other text at line 2"):
        document_from_iss(".AntiKnight\nnotes")


def test_a_file_of_a_string_and_notes_is_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "p.txt"
    path.write_text(S + "\nrated 3 stars\n")
    assert main(["solve", str(path)]) == 2
    assert capsys.readouterr().err == (f"error: {path}: an ISS constraint string followed by other text at line 2, "
                                       "column 1 ('rated 3 stars'): give the string alone\n")


@pytest.mark.parametrize("text", [
    S + "\n", "  \n" + S + " \n\n", S.replace(".", "\n."), S.replace("~", " \n ~"), S + ".",
    ".Shape~4x4\n.Cage~7~\n  R1C1~R1C2.\nAntiKnight.~R2C2_\n3".replace("AntiKnight.", ""),
])
def test_whitespace_iss_allows_is_read_as_the_compact_string(text):
    assert document_from_iss(text) == document_from_iss(S)


@settings(max_examples=80, deadline=None)
@given(gaps=st.lists(st.sampled_from(["", " ", "\n", "\t", " \r\n  "]), min_size=1, max_size=8))
def test_whitespace_before_each_constraint_or_argument_changes_nothing(gaps):
    """Whitespace put before any ``.`` or ``~`` of the string (ISS drops it) is read the same."""
    pieces = S.replace("~", "\0~").replace(".", "\0.").split("\0")
    text = "".join(gaps[k % len(gaps)] + piece for k, piece in enumerate(pieces))
    assert document_from_iss(text) == document_from_iss(S)


def test_no_entry_of_iss_collections_is_refused_for_text_after_it():
    """Every entry, compact and laid out one constraint a line: none is refused as followed by text."""
    if not ISS_COLLECTION.is_file():
        pytest.skip(f"no ISS collection at {ISS_COLLECTION}")
    entries = [json.loads(line)["input"] for line in ISS_COLLECTION.read_text().splitlines() if line.strip()]
    assert len(entries) >= 100
    refused = []
    for text in entries:
        for shown in (text, text.replace(".", "\n.") + "\n"):
            try:
                document_from_iss(shown)
            except PuzzleError as e:
                if "followed by other text" in str(e):
                    refused.append(str(e))
    assert refused == []
