"""LZ-string's ``decompressFromBase64``: the compression f-puzzles (and SudokuPad's ``fpuzzles``
links) wrap their puzzle JSON in.

The format is an LZW variant over a bit stream: codes 0 and 1 introduce a new 8- or 16-bit
character, 2 ends the stream, larger codes index the dictionary of strings seen so far; the code
width grows by one bit each time the dictionary doubles. Base64 digits carry 6 bits each, read
most significant bit first. Output is bounded (:data:`MAX_DOCUMENT_CHARS`) so a crafted input
cannot allocate without limit.
"""
from __future__ import annotations

from pipeline.core.errors import PuzzleError

__all__ = ["decompress_from_base64", "MAX_DOCUMENT_CHARS"]

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
_VALUE = {ch: k for k, ch in enumerate(_ALPHABET)}
#: The one limit on a puzzle document's text, however it comes: a file, JSON text, or what an
#: f-puzzles link decompresses to (a 100x100 puzzle with thousands of cages is well below it;
#: an f-puzzles document is a few KB). Here because this module is the lowest that needs it.
MAX_DOCUMENT_CHARS = 20_000_000


class _Bits:
    """Reads the bit stream of base64 digits, 6 bits a digit, most significant first."""

    def __init__(self, text: str, where: str):
        try:
            self.values = [_VALUE[ch] for ch in text]
        except KeyError as e:
            raise PuzzleError(f"{where}: {e.args[0]!r} is not a base64 character") from None
        self.where = where
        self.index = 0
        self.mask = 32
        self.current = self.values[0] if self.values else 0

    def read(self, count: int) -> int:
        value = 0
        for k in range(count):
            if self.index >= len(self.values):
                raise PuzzleError(f"{self.where}: the compressed data ends early")
            if self.current & self.mask:
                value |= 1 << k
            self.mask >>= 1
            if self.mask == 0:
                self.mask = 32
                self.index += 1
                self.current = self.values[self.index] if self.index < len(self.values) else 0
        return value


def decompress_from_base64(text: str, where: str = "f-puzzles") -> str:
    """The string LZ-string's ``compressToBase64`` made ``text`` from.

    Parameters
    ----------
    text : str
        Base64 digits (``A-Za-z0-9+/``, ``=`` padding).
    where : str
        How errors name the input.

    Returns
    -------
    str

    Raises
    ------
    PuzzleError
        Not base64, truncated, an invalid code, or more than :data:`MAX_DOCUMENT_CHARS` characters.

    Examples
    --------
    >>> decompress_from_base64("N4IgzglgXgpiBcBOANCALhNAbO8QwA8BDAWwAccQBfIA")   # what compressToBase64 made
    '{"size":9,"title":"example"}'
    """
    if not text:
        raise PuzzleError(f"{where}: no compressed data")
    bits = _Bits(text, where)
    dictionary: list[str] = ["", "", ""]
    kind = bits.read(2)
    if kind == 2:
        return ""
    if kind not in (0, 1):
        raise PuzzleError(f"{where}: not LZ-string data (first code {kind})")
    w = chr(bits.read(8 if kind == 0 else 16))
    dictionary.append(w)
    out = [w]
    size = len(w)
    n_bits, enlarge = 3, 4
    while True:
        code = bits.read(n_bits)
        if code in (0, 1):
            dictionary.append(chr(bits.read(8 if code == 0 else 16)))
            code = len(dictionary) - 1
            enlarge -= 1
            if enlarge == 0:
                enlarge, n_bits = 1 << n_bits, n_bits + 1
        elif code == 2:
            # JavaScript strings are UTF-16: characters beyond U+FFFF arrive as surrogate pairs
            return "".join(out).encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
        if code < len(dictionary):
            entry = dictionary[code]
        elif code == len(dictionary):
            entry = w + w[0]
        else:
            raise PuzzleError(f"{where}: not LZ-string data (code {code} beyond the dictionary)")
        out.append(entry)
        size += len(entry)
        if size > MAX_DOCUMENT_CHARS:
            raise PuzzleError(f"{where}: decompresses to more than {MAX_DOCUMENT_CHARS:,} characters "
                              "(the limit of a puzzle document)")
        dictionary.append(w + entry[0])
        enlarge -= 1
        w = entry
        if enlarge == 0:
            enlarge, n_bits = 1 << n_bits, n_bits + 1


def compress_to_base64(text: str) -> str:
    """LZ-string's ``compressToBase64`` of ``text``: what :func:`decompress_from_base64` reads back.

    Parameters
    ----------
    text : str
        Any text (characters beyond U+FFFF travel as UTF-16 surrogate pairs, as in JavaScript).

    Returns
    -------
    str
        Base64 digits, ``=``-padded to a multiple of 4.

    Examples
    --------
    >>> compress_to_base64('{"size":9,"title":"example"}')
    'N4IgzglgXgpiBcBOANCALhNAbO8QwA8BDAWwAccQBfIA'
    """
    units = text.encode("utf-16-le", "surrogatepass")
    chars = [chr(int.from_bytes(units[k:k + 2], "little")) for k in range(0, len(units), 2)]
    out: list[str] = []
    value = position = 0

    def put(code: int, bits: int) -> None:   # least significant bit first, 6 bits a digit
        nonlocal value, position
        for _ in range(bits):
            value = (value << 1) | (code & 1)
            code >>= 1
            position += 1
            if position == 6:
                out.append(_ALPHABET[value])
                value = position = 0

    dictionary: dict[str, int] = {}
    fresh: set[str] = set()   # characters in the dictionary not yet written out
    w = ""
    enlarge, size, n_bits = 2, 3, 2

    def emit(word: str) -> None:
        nonlocal enlarge, n_bits
        if word in fresh:
            code = ord(word[0])
            if code < 256:
                put(0, n_bits)
                put(code, 8)
            else:
                put(1, n_bits)
                put(code, 16)
            enlarge -= 1
            if enlarge == 0:
                enlarge, n_bits = 1 << n_bits, n_bits + 1
            fresh.discard(word)
        else:
            put(dictionary[word], n_bits)
        enlarge -= 1
        if enlarge == 0:
            enlarge, n_bits = 1 << n_bits, n_bits + 1

    for c in chars:
        if c not in dictionary:
            dictionary[c] = size
            size += 1
            fresh.add(c)
        wc = w + c
        if wc in dictionary:
            w = wc
            continue
        emit(w)
        dictionary[wc] = size
        size += 1
        w = c
    if w:
        emit(w)
    put(2, n_bits)
    while True:   # flush the last digit (as LZ-string does: a whole zero digit when aligned)
        value <<= 1
        if position == 5:
            out.append(_ALPHABET[value])
            break
        position += 1
    encoded = "".join(out)
    return encoded + "=" * (-len(encoded) % 4)
