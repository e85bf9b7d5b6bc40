"""How an f-puzzles payload's %-escapes are named in its messages: as written. A character that
is no base64 and that an escape made ('%C3%A9' unquoted to 'e-acute') was named as the character
unquote made of it; '%FF' (bytes of no UTF-8) is named so since the session before."""
from __future__ import annotations

import json
import random
import re
from urllib.parse import unquote

import pytest

from pipeline.core.errors import PuzzleError
from pipeline.core.fpuzzles import _escape_written
from pipeline.core.lzstring import compress_to_base64
from pipeline.core.puzzle import parse_puzzle


@pytest.mark.parametrize("escapes, shown, at", [
    ("%C3%A9", "%C3%A9", 1), ("%41%C3%A9%42", "%C3%A9", 2), ("%e2%82%ac", "%e2%82%ac", 1),   # é, €
    ("%3D%41", "%3D", 1), ("A%21", "%21", 2),                  # '=' and '!' written as escapes
    ("%FF%C3%A9", "%FF", 1), ("%E2%E2%82%AC", "%E2", 1),       # no UTF-8 before a character that is
    ("%EF%BF%BD", "%EF%BF%BD", 1),                             # U+FFFD itself, written as its bytes
    ("\u00e9", "\u00e9", 1), ("%41\u00e9%C3%A9", "\u00e9", 2),  # written as itself: named as itself
])
def test_a_character_an_escape_made_is_named_as_written(escapes, shown, at):
    link = f"https://www.f-puzzles.com/?load=N4Ig{escapes}abc"
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(link)
    assert str(e.value) == (f"puzzle: bad character {shown!r} at position {4 + at} of the f-puzzles payload "
                            "(base64: A-Z, a-z, 0-9, '+', '/')")


def _escape_by_cuts(written: str, at: int) -> str | None:
    """The escape that made character ``at`` of ``unquote(written)``, by brute force: unquote's
    text before each escape run, and the longest cuts of the run's bytes that decode to the
    characters before ``at`` and up to it."""
    for run in re.finditer(r"(?:%[0-9A-Fa-f]{2})+", written):
        first = len(unquote(written[:run.start()]))
        raw = bytes.fromhex(run.group().replace("%", ""))
        text = raw.decode("utf-8", errors="replace")
        if first <= at < first + len(text):
            k = at - first
            cuts = [b for b in range(len(raw) + 1) if raw[:b].decode("utf-8", errors="replace") == text[:k]]
            ends = [b for b in range(len(raw) + 1) if raw[:b].decode("utf-8", errors="replace") == text[:k + 1]]
            return repr(run.group()[3 * cuts[-1]:3 * ends[-1]])
    return None


def test_the_escape_of_every_character_agrees_with_brute_force():
    pool = ["A", "b", "\u00e9", "-", "%41", "%C3", "%A9", "%FF", "%E2", "%82", "%AC", "%F0", "%9F", "%98", "%80",
            "%3D", "%ef", "%bf", "%bd", "%ED", "%A0"]
    rng = random.Random(7)
    checked = 0
    for _ in range(2000):
        written = "".join(rng.choice(pool) for _ in range(rng.randint(1, 10)))
        for at in range(len(unquote(written))):
            assert _escape_written(written, at) == _escape_by_cuts(written, at), (written, at)
            checked += 1
    assert checked > 5000


@pytest.mark.parametrize("rest, shown", [(" junk", " junk"), ("\njunk", "junk"), ("%20junk", " junk"), ("!!", "!!")])
def test_a_link_followed_by_other_text_is_named_so(rest, shown):
    # the padding's '=' was named: "bad character '=' at position 73 of the f-puzzles payload"
    payload = compress_to_base64(json.dumps({"size": 4, "grid": [[{}] * 4] * 4}))
    assert payload.endswith("=") and len(payload) % 4 == 0
    with pytest.raises(PuzzleError) as e:
        parse_puzzle(f"https://www.f-puzzles.com/?load={payload}{rest}")
    assert str(e.value) == (f"puzzle: an f-puzzles payload followed by other text at position {len(payload) + 1} of "
                            f"the payload ({shown!r}): give the link alone")
    assert parse_puzzle(f"https://www.f-puzzles.com/?load={payload}\n").n == 4   # a line break alone is no text
