"""ISS's regular-language lines (pipeline/core/iss_nfa.py): a Regex pattern that is not base64url
or decodes to nothing is refused in one line naming the constraint and the pattern, not later as
clues that break the line. (The rows and ISS's own puzzles: tests/core/test_rule_automaton.py.)"""
from __future__ import annotations

import pytest

from pipeline.core.errors import ClueConflictError, PuzzleError
from pipeline.core.iss_nfa import decode_pattern
from pipeline.core.puzzle import parse_puzzle


def test_decode_pattern_reads_base64url_and_url_encoding():
    assert decode_pattern("WzEyXSou") == "[12]*."
    assert decode_pattern("WzEyXSou=") == "[12]*."   # padding as some published strings have it
    assert decode_pattern("%5B12%5D*.") == "[12]*."


@pytest.mark.parametrize("token, words", [
    ("@@", ["pattern '@@' is not base64url", "'@' is not one of its characters"]),
    ("Wz!y", ["pattern 'Wz!y' is not base64url", "'!' is not one of its characters"]),
    ("", ["the pattern is empty"]),
    ("ICA", ["pattern 'ICA' decodes to an empty expression"]),   # base64url of two blanks
])
def test_a_broken_regex_pattern_is_named_not_blamed_on_the_clues(token, words):
    text = f".Cage~3~R1C1~R1C2.Regex~{token}~R1C1~R1C2"
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(text)
    message = str(e.value)
    assert not isinstance(e.value, ClueConflictError), message
    assert "\n" not in message and "Regex (constraint 2" in message, message
    assert all(w in message for w in words), message
