"""The puzzle document: one JSON object carrying size, boxes, givens, regions, a layout and rules.

```json
{"size": 9, "box": "3x3", "variant": "classic",
 "givens": "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..",
 "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 9},
           {"rule": "thermo", "cells": ["r5c5", "r4c5", "r3c5"]},
           {"rule": "antiknight"}],
 "title": "...", "author": "...", "source": "..."}
```

Keys (every one optional but the grid's size must follow from something):

* ``size`` (N) and/or ``box`` (``"HxW"``); ``variant`` (a name of the variant table); ``size``
  ``"RxC"`` is a rectangular grid (:mod:`pipeline.core.rect`);
  ``regions`` (jigsaw: one id per cell, as for ``--regions``);
* ``givens``: the clues as one compact line, a list of row strings, a list of rows of integers,
  or a list of ``"r1c1=5"`` strings; absent or empty for a puzzle without givens (a killer);
* ``layout``: ``"samurai"`` or ``{"grids": ["r1c1", ...]}`` (the top-left cell of each grid on
  the canvas); then ``givens`` covers the whole canvas (``.`` for empty and absent cells), or
  ``grids`` lists one compact line per grid (they must agree where grids overlap); ``"r1c1=5"``
  givens name canvas cells;
* ``rules``: entries ``{"rule": KIND, ...}`` of :data:`pipeline.core.rules.RULES`;
* ``values``: the value set, ``"0-8"`` or ``[0, 1, ...]`` (default ``1..N``; one grid, no
  layout): digit ``k`` stands for ``values[k]``, and ``givens`` and the rules' digits are then
  values, ``.`` (or ``null``) empty and ``0`` a value (:mod:`pipeline.core.values`);
* ``extra``: extra cells outside the grid, ``[{"name": "S", "size": 9, "label": "..."}]``
  (:mod:`pipeline.core.extracells`): cells ``S1..S9`` that rules may name;
* ``title``, ``author``, ``source``, ``notes``: kept out of the model (free text).

Any other key is refused, so a misspelt key never vanishes. This module reads documents into
:class:`DocumentParts` (plain arrays and the rule entries); :func:`pipeline.core.puzzle.parse_puzzle`
turns them into a checked Puzzle, and ``Puzzle.to_document()`` writes one back.
"""
from __future__ import annotations

import json
import re

import numpy as np

from typing import NamedTuple

from pipeline.core.cells_text import plain_clue_list, rows_as_text
from pipeline.core.errors import DuplicateKey, clip, followed_by_text, PuzzleError, json_failure, json_kind, loads_keys_once
from pipeline.core.extracells import parse_extra
from pipeline.core.fpuzzles import SUPPORTED as FPUZZLES_SUPPORTED, read_fpuzzles
from pipeline.core.iss_detect import looks_like_iss
from pipeline.core.layout import Layout, canvas_from_text, layout_from_spec
from pipeline.core.limits import check_grid_size
from pipeline.core.lzstring import MAX_DOCUMENT_CHARS   # the one limit, for links too
from pipeline.core.rules.cellnames import given_pattern
from pipeline.core.rect import box_text, read_rect_document, rect_size, square_side
from pipeline.core.values import parse_values, read_value_givens
from pipeline.core.variants import VARIANT_TABLE
from pipeline.core.parse import (compact_values, default_box, literal_text, looks_like_document, parse_box,
                                 whole_number, parse_regions, read_puzzle)

__all__ = ["DOCUMENT_KEYS", "DocumentParts", "read_document", "looks_like_document", "MAX_DOCUMENT_CHARS", "rule_entries_text",
           "refuse_json_of_no_document"]


class DocumentParts(NamedTuple):
    """What a document says: the fields of a Puzzle, its rules still as document entries."""

    grid: np.ndarray
    h: int
    w: int
    variant: str
    regions: np.ndarray | None
    layout: Layout | None
    rules: list
    values: tuple[int, ...] | None = None   # the value set (None: 1..N), pipeline.core.values
    extra: tuple = ()   # extra cells outside the grid (ExtraGroup entries), pipeline.core.extracells
    rule_names: list[str] | None = None   # how messages name the document's rules (None: rules[k])

DOCUMENT_KEYS = ("size", "box", "variant", "regions", "givens", "grids", "layout", "rules", "values", "extra",
                 "title", "author", "source", "notes")
_GIVEN = given_pattern(4)   # -3: named as out of range


def is_export_manifest_document(doc: object) -> bool:
    """Whether a JSON value is an export's manifest (``manifest.json``, ``NAME.lp.manifest.json``):
    an object listing its files by format and stating its clue encoding, which no puzzle does.

    Parameters
    ----------
    doc : object
        A parsed JSON value.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_export_manifest_document({"files": {"lp": ["m.lp"]}, "clue_encoding": "rows", "scheme": "ijk"})
    True
    >>> is_export_manifest_document({"size": 4, "givens": []})
    False
    """
    return (isinstance(doc, dict) and isinstance(doc.get("files"), dict) and "clue_encoding" in doc
            and "scheme" in doc)


def _size_of(doc: dict, where: str) -> tuple[int | None, tuple[int, int] | None]:
    size = doc.get("size")
    if size is not None:
        side = square_side(size) if isinstance(size, str) else whole_number(size)   # "9" and "9x9" mean 9
        if side is None or not 1 <= side <= 400:
            raise PuzzleError(f"{where}: 'size' must be an integer from 1 to 400 (or \"RxC\"), found {clip(size)!r}")
        size = side
    box = doc.get("box")
    if box is not None:
        if not isinstance(box, str):
            raise PuzzleError(f"{where}: 'box' must be a string like \"3x3\", found {clip(box)!r}")
        h, w = parse_box(box)
        if not 1 <= h * w <= 400:   # checked before any grid of that side is allocated
            raise PuzzleError(f"{where}: 'box' {clip(box)} makes a {h * w}x{h * w} grid; the side must be 1 to 400")
        if size is not None and h * w != size:
            raise PuzzleError(f"{where}: 'box' {box} does not tile a {size}x{size} grid")
        return h * w, (h, w)
    return size, None


def _check_region_ids(regions: list, where: str) -> None:
    """A list of regions holds ids (numbers or text), or rows of them; anything else (an object)
    would be split into several ids by its text and miscounted."""
    for k, entry in enumerate(regions):
        for j, value in enumerate(entry if isinstance(entry, list) else [entry]):
            if isinstance(value, bool) or not isinstance(value, (str, int)):
                at = f"regions[{k}][{j}]" if isinstance(entry, list) else f"regions[{k}]"
                raise PuzzleError(f"{where}: {at} is {clip(json.dumps(value))}; a region id is a number or a letter")


def _is_given_list(givens) -> bool:
    """Are ``givens`` a list of ``"r1c1=5"`` strings?"""
    return isinstance(givens, list) and bool(givens) and all(isinstance(g, str) and "=" in g for g in givens)


def _given_list(givens: list, rows: int, cols: int, n: int, where: str) -> np.ndarray:
    """The ``rows x cols`` grid of ``"r1c1=5"`` strings (digits ``1..n``); ``where`` names the givens
    (``puzzle: givens``), so an entry is ``where[k]``."""
    grid = np.zeros((rows, cols), dtype=np.int64)
    for k, text in enumerate(givens):
        m = _GIVEN.match(text)
        if m is None:
            raise PuzzleError(f"{where}[{k}] {clip(text, 30)!r} is not like \"r1c1=5\"")
        r, c, d = (int(m.group(i)) for i in (1, 2, 3))
        if not (1 <= r <= rows and 1 <= c <= cols):
            raise PuzzleError(f"{where}[{k}]: cell r{r}c{c} is outside the {rows}x{cols} grid")
        if not 1 <= d <= n:
            raise PuzzleError(f"{where}[{k}]: digit {d} is not 1..{n}")
        if grid[r - 1, c - 1] and grid[r - 1, c - 1] != d:
            raise PuzzleError(f"{where}[{k}]: r{r}c{c} is given twice, as {grid[r - 1, c - 1]} and {d}")
        grid[r - 1, c - 1] = d
    return grid


#: A compact line of givens of a grid of up to 9 digits: ``.`` or ``0`` empty, else a digit.
_PLAIN_GIVENS = re.compile(r"[.0-9]+")


def _plain_compact(givens, n: int | None, box) -> bool:
    """Whether ``givens`` is one compact line of exactly ``N * N`` cells of ``.``, ``0`` and the
    digits ``1..N`` (N up to 9) with the document's box tiling the grid: read_puzzle would read
    it as :func:`~pipeline.core.parse.compact_values` does, so :func:`_givens_grid` reads it so
    (a batch of rule puzzles read each record's givens through the general reader, 0.1 ms each);
    anything else goes to read_puzzle, which names what is wrong."""
    return (isinstance(givens, str) and n is not None and 1 <= n <= 9 and isinstance(box, tuple) and len(box) == 2
            and box[0] * box[1] == n and len(givens) == n * n and _PLAIN_GIVENS.fullmatch(givens) is not None
            and max(givens) <= str(n))


def _givens_grid(givens, n: int | None, box, where: str) -> np.ndarray:
    """The N x N grid of ``givens`` in any of the document's forms."""
    if givens is None or givens == "" or givens == []:
        if n is None:
            raise PuzzleError(f"{where}: no givens and no 'size' or 'box': the grid's size is unknown")
        return np.zeros((n, n), dtype=np.int64)
    if _is_given_list(givens):
        if n is None:
            raise PuzzleError(f"{where}: givens as \"r1c1=5\" need 'size' or 'box'")
        return _given_list(givens, n, n, n, where)
    if n is not None and _plain_compact(givens, n, box):   # the common line of digits: read_puzzle's grid, 10x sooner
        check_grid_size(n, where)
        return compact_values(givens, n)[0].reshape(n, n)
    text_rows = rows_as_text(givens, where)   # null, "" or "5" among rows: read as the array of rows is
    source: object
    if text_rows is not None:
        source = literal_text(text_rows)
    elif isinstance(givens, list) and givens and all(isinstance(row, list) for row in givens):
        rows = []
        for k, row in enumerate(givens):
            rows.append([whole_number(v) for v in row])   # a float grid's 5.0 is 5
            if None in rows[-1]:
                j = rows[-1].index(None)
                raise PuzzleError(f"{where}: row {k + 1}, column {j + 1}: {clip(row[j])!r} is not an integer")
            if len(row) != len(givens[0]):
                raise PuzzleError(f"{where}: row {k + 1} has {len(row)} entries; row 1 has {len(givens[0])}")
        source = rows
    elif isinstance(givens, list) and all(isinstance(row, str) for row in givens):
        source = literal_text("\n".join(givens))
    elif isinstance(givens, str):   # the document's text, never a file path
        source = literal_text(givens) if givens.strip() else None
        if source is None:
            return _givens_grid(None, n, box, where)
    else:
        raise PuzzleError(f"{where}: 'givens' must be a string, a list of rows or a list of \"r1c1=5\", "
                          f"found {json_kind(givens)}")
    grid = read_puzzle(source if not isinstance(source, list) else np.array(source, dtype=np.int64), box=box,
                       size=n, where=where, size_name="'size'").grid
    return grid


def _layout_grid(doc: dict, layout: Layout, where: str) -> np.ndarray:
    """The canvas of a layout from ``givens`` (whole canvas) or ``grids`` (one line per grid)."""
    if doc.get("grids") is not None:
        if doc.get("givens") not in (None, "", []):
            raise PuzzleError(f"{where}: give the clues as 'givens' (whole canvas) or 'grids' (per grid), not both")
        grids = doc["grids"]
        if not isinstance(grids, list) or len(grids) != layout.n_grids:
            raise PuzzleError(f"{where}: 'grids' must list {layout.n_grids} grids (one per grid of the layout)")
        canvas = np.zeros(layout.rows * layout.cols, dtype=np.int64)
        owner = np.full(canvas.size, -1)
        for k, (text, cells) in enumerate(zip(grids, layout.grid_cells())):
            grid = _givens_grid(text, layout.n, (layout.h, layout.w), f"{where}: grids[{k}]").ravel()
            cells = cells.ravel()
            clash = np.flatnonzero((canvas[cells] != 0) & (grid != 0) & (canvas[cells] != grid))
            if clash.size:
                j = int(clash[0])
                r, c = divmod(int(cells[j]), layout.cols)
                raise PuzzleError(f"{where}: grids {owner[cells[j]] + 1} and {k + 1} overlap at r{r + 1}c{c + 1} "
                                  f"but give {canvas[cells[j]]} and {grid[j]}")
            take = grid != 0
            canvas[cells[take]] = grid[take]
            owner[cells[take]] = k
        return canvas.reshape(layout.rows, layout.cols)
    givens = doc.get("givens")
    if givens in (None, "", []):
        return np.zeros((layout.rows, layout.cols), dtype=np.int64)
    if _is_given_list(givens):   # cells outside every grid are refused when the puzzle is checked
        return _given_list(givens, layout.rows, layout.cols, layout.n, f"{where}: givens")
    if isinstance(givens, list) and all(isinstance(row, str) for row in givens):
        givens = "\n".join(givens)
    return canvas_from_text(givens, layout, f"{where}: givens")


def read_document(doc: dict | str, *, box: "str | tuple[int, int] | None" = None, variant: str | None = None,
                  regions: "str | np.ndarray | None" = None, size: int | None = None,
                  extra_rules: list | None = None, where: str = "puzzle") -> DocumentParts:
    """The parts of a puzzle document (a dict, or its JSON text), not yet checked as a Puzzle.

    Parameters
    ----------
    doc : dict or str
        The document (see the module docstring), its JSON text, or an ISS constraint string
        (:mod:`pipeline.core.iss`).
    box, variant, regions, size : optional
        Command-line options: they fill what the document leaves out and must agree with what
        it says.
    extra_rules : list of dict, optional
        More rule entries (``--rule``), added after the document's.
    where : str
        How messages name the document (a file name).

    Returns
    -------
    DocumentParts

    Raises
    ------
    PuzzleError
        Not JSON or not an object, an unknown key, a field of the wrong type.

    Examples
    --------
    >>> parts = read_document('{"size": 4, "rules": [{"rule": "cage", "cells": ["r1c1", "r1c2"], "sum": 7}]}')
    >>> parts.grid.shape, (parts.h, parts.w), parts.rules[0]["sum"]
    ((4, 4), (2, 2), 7)
    """
    if isinstance(doc, str) and looks_like_iss(doc):   # an ISS constraint string: its document
        from pipeline.core.iss import document_from_iss   # here: the reader imports every rule's table

        doc = document_from_iss(doc, where)
    if isinstance(doc, str):
        if len(doc) > MAX_DOCUMENT_CHARS:
            raise PuzzleError(f"{where}: document of {len(doc):,} characters; at most {MAX_DOCUMENT_CHARS:,}")
        text = doc
        try:
            doc = loads_keys_once(text.lstrip("\ufeff"))
        except DuplicateKey as e:   # {"size": 4, "size": 9} took the last one without a word
            raise PuzzleError(f"{where}: key {e.key!r} given twice in one object; give each key once") from None
        except (ValueError, RecursionError) as e:   # ValueError: JSONDecodeError, or an integer of over 4,300 digits
            more = e if isinstance(e, json.JSONDecodeError) and e.msg == "Extra data" else None   # text after it
            body = text.lstrip("\ufeff")   # what json read: its positions
            if more and _first_line_is_an_object(text) and body[more.pos:].lstrip().startswith("{"):
                # generate --format json -n K, or any JSON Lines file
                raise PuzzleError(f"{where}: several JSON objects, one a line (JSON Lines): a command reads one "
                                  "puzzle; batch reads each line as one") from None
            if more:   # a document, then a word or a comment: named as a puzzle string then text is
                raise followed_by_text(where, "a JSON puzzle document", body[more.pos:].rstrip(), _json_place(more, body),
                                       "the document alone") from None
            raise PuzzleError(f"{where}: not a JSON puzzle document ({clip(_json_reason(e, text), 120)})") from None
    if not isinstance(doc, dict):
        raise PuzzleError(f"{where}: a puzzle document is a JSON object, found {json_kind(doc)}")
    report = document_of_generate_report(doc)
    if report is not None:
        doc = report
    if is_export_manifest_document(doc):
        raise PuzzleError(f"{where}: an export's manifest, not a puzzle: read a solver's answer with "
                          f"'import SOLUTION --manifest {where}', check the export with 'check {where}'")
    if isinstance(doc.get("grid"), list) and "givens" not in doc:
        # f-puzzles' own JSON, not compressed into a link: read as the link's content is
        where = f"{where} (f-puzzles)"
        doc, names = read_fpuzzles(doc, where)
        parts = read_document(doc, box=box, variant=variant, regions=regions, size=size, extra_rules=extra_rules,
                              where=where)
        return parts._replace(rule_names=[f"{where}: {name}" for name in names])
    unknown = sorted(set(doc) - set(DOCUMENT_KEYS))
    if unknown:   # an f-puzzles element without f-puzzles' grid: say that the grid is what is missing
        fpuzzles = "givens" not in doc and unknown[0] in FPUZZLES_SUPPORTED
        raise PuzzleError(f"{where}: unknown key {clip(repr(unknown[0]), 40)} (expected {', '.join(DOCUMENT_KEYS)})"
                          + ("; as f-puzzles JSON it lacks its 'grid'" if fpuzzles else ""))
    for key in ("title", "author", "source", "notes"):
        if doc.get(key) is not None and not isinstance(doc[key], str):
            raise PuzzleError(f"{where}: {key!r} must be a string")
    if doc.get("extra") is not None:   # extra cells outside the grid: the rest reads as it always did
        extra = parse_extra(doc["extra"], where)
        rest = {k: v for k, v in doc.items() if k != "extra"}
        return read_document(rest, box=box, variant=variant, regions=regions, size=size, extra_rules=extra_rules,
                             where=where)._replace(extra=extra)
    shape = rect_size(doc.get("size"))   # "size": "6x8": a rectangular grid (pipeline.core.rect)
    n, doc_box = _size_of(doc, where) if shape is None else (None, None)
    if shape is not None and doc.get("box") is not None:
        doc_box = box_text(str(doc["box"]))
    if size is not None and n is not None and size != n:
        raise PuzzleError(f"{where}: --size {size} but the document's grid is {n}x{n}")
    n = n if n is not None else size
    if box is not None:
        cli_box = parse_box(box) if isinstance(box, str) else tuple(box)
        if doc_box is not None and tuple(cli_box) != doc_box:
            raise PuzzleError(f"{where}: --box {cli_box[0]}x{cli_box[1]} but the document says "
                              f"{doc_box[0]}x{doc_box[1]}")
        doc_box = doc_box or (int(cli_box[0]), int(cli_box[1]))
    doc_variant = doc.get("variant")
    if doc_variant is not None and not isinstance(doc_variant, str):
        raise PuzzleError(f"{where}: 'variant' must be a string")
    if variant is not None and doc_variant is not None and variant != doc_variant:
        raise PuzzleError(f"{where}: --variant {variant} but the document says {doc_variant}")
    variant = doc_variant or variant
    if doc.get("rules") is not None and not isinstance(doc["rules"], list):
        raise PuzzleError(f"{where}: 'rules' must be a list")
    rules = list(doc.get("rules") or [])
    rules += list(extra_rules or [])
    if shape is not None:
        grid, h, w, variant, region_grid, values = read_rect_document(doc, shape, doc_box, variant, regions, where)
        return DocumentParts(grid, h, w, variant, region_grid, None, rules, values)
    if doc.get("layout") is not None and doc.get("values") is not None:
        raise PuzzleError(f"{where}: 'values' with a layout: value sets are for one grid (a layout takes 1..N)")
    if doc.get("layout") is not None:
        # a layout's grids keep their boxes: regions would be dropped without a word
        if regions is not None or doc.get("regions") is not None:
            given = "--regions" if regions is not None else "'regions'"
            raise PuzzleError(f"{where}: {given} with a layout: the grids of a layout have boxes, not jigsaw regions")
        if doc_box is None:
            doc_box = default_box(n) if n is not None else (3, 3)
        layout = layout_from_spec(doc["layout"], *doc_box, where=f"{where}: layout")
        grid = _layout_grid(doc, layout, where)
        return DocumentParts(grid, layout.h, layout.w, variant or "classic", None, layout, rules)
    if doc.get("grids") is not None:
        raise PuzzleError(f"{where}: 'grids' (per-grid givens) needs a 'layout'")
    if doc.get("values") is not None:
        return _with_values(doc, n, doc_box, variant, regions, rules, where)
    grid = _givens_grid(doc.get("givens"), n, doc_box, f"{where}: givens")
    n = grid.shape[0]
    h, w = doc_box if doc_box is not None else default_box(n)
    if h * w != n:
        raise PuzzleError(f"{where}: box {h}x{w} does not tile the {n}x{n} grid of the givens")
    # the document's own regions are its text, never a file path (--regions may name a file)
    own = doc.get("regions")
    region_source = (literal_text(own) if isinstance(own, str) else own) if own is not None else regions
    if doc.get("regions") is not None and regions is not None:
        raise PuzzleError(f"{where}: regions are given both in the document and by --regions")
    if isinstance(region_source, list):
        _check_region_ids(region_source, where)
        region_source = "\n".join(" ".join(map(str, row)) if isinstance(row, list) else str(row)
                                  for row in region_source)
    region_grid = None if region_source is None else parse_regions(region_source, n)
    if variant is None:
        variant = "jigsaw" if region_grid is not None else "classic"
    _refuse_too_small(n, variant, where)
    return DocumentParts(grid, h, w, variant, region_grid, None, rules)


def _refuse_too_small(n: int, variant: str, where: str) -> None:
    """A grid below its variant's least side, in the document's own words: the puzzle's check
    would suggest command-line options (``--variant latin``, ``--size N``) that a document has no
    use for."""
    spec, latin = VARIANT_TABLE.get(variant), VARIANT_TABLE.get("latin")
    if spec is None or n >= spec.min_n:
        return
    hint = (f' (a Latin square from {latin.min_n}x{latin.min_n}: "variant": "latin")'
            if latin is not None and variant != "latin" and latin.min_n <= n else "")
    raise PuzzleError(f"{where}: a {n}x{n} grid is not a puzzle: {variant} puzzles are {spec.min_n}x{spec.min_n} and "
                      f"larger{hint}")


def _with_values(doc: dict, n: int | None, doc_box, variant: str | None, regions, rules: list,
                 where: str) -> DocumentParts:
    """A one-grid document with ``values``: its givens read as values (:mod:`pipeline.core.values`)."""
    if n is None:
        raise PuzzleError(f"{where}: 'values' needs 'size' or 'box' (the givens alone do not say the grid's side)")
    values = parse_values(doc["values"], n, where)
    if values is None:   # the values 1..N: the document reads as it always did
        return read_document({k: v for k, v in doc.items() if k != "values"}, box=doc_box, variant=variant,
                             regions=regions, size=n, where=where)._replace(rules=rules)
    grid = read_value_givens(doc.get("givens"), n, values, f"{where}: givens")
    h, w = doc_box if doc_box is not None else default_box(n)
    own = doc.get("regions")
    if own is not None and regions is not None:
        raise PuzzleError(f"{where}: regions are given both in the document and by --regions")
    region_source = (literal_text(own) if isinstance(own, str) else own) if own is not None else regions
    if isinstance(region_source, list):
        _check_region_ids(region_source, where)
        region_source = "\n".join(" ".join(map(str, row)) if isinstance(row, list) else str(row)
                                  for row in region_source)
    region_grid = None if region_source is None else parse_regions(region_source, n)
    if variant is None:
        variant = "jigsaw" if region_grid is not None else "classic"
    return DocumentParts(grid, h, w, variant, region_grid, None, rules, values)


#: The keys that tell ``generate --format json``'s report of one puzzle from a puzzle document.
GENERATE_REPORT_KEYS = ("puzzle", "solution", "seed", "index")


def document_of_generate_report(doc: object) -> dict | None:
    """The puzzle document inside ``generate --format json``'s report of one puzzle (its
    ``document`` when it has rules, else its ``puzzle`` line with ``size``, ``box``, ``variant``
    and ``regions``), or None when ``doc`` is no such report: a file generate wrote is read back.

    Parameters
    ----------
    doc : object
        A parsed JSON value.

    Returns
    -------
    dict or None

    Examples
    --------
    >>> document_of_generate_report({"puzzle": "1...", "solution": "1234", "seed": 7, "index": 0, "size": 4,
    ...                              "box": "2x2", "variant": "classic", "regions": None})
    {'size': 4, 'box': '2x2', 'variant': 'classic', 'givens': '1...'}
    """
    if not (isinstance(doc, dict) and all(key in doc for key in GENERATE_REPORT_KEYS) and isinstance(doc["puzzle"], str)):
        return None
    if isinstance(doc.get("document"), dict):
        return doc["document"]
    shape = {key: doc.get(key) for key in ("size", "box", "variant", "regions") if doc.get(key) is not None}
    return {**shape, "givens": doc["puzzle"]}


def _json_reason(error: Exception, text: str) -> str:
    """What ``json.loads`` said about ``text``; a one-line text (a batch record, an argument) by
    column alone, since its "line 1" is not the line of the file it came from; arrays or objects
    nested past the recursion limit as that ("maximum recursion depth exceeded while decoding ...")."""
    if isinstance(error, json.JSONDecodeError) and "\n" not in text.strip():
        # counted on the text's one line: an error at its end (a cut-off record) is reported by
        # json past the line end the record kept, as "line 2 column 1"
        line_start = text.rfind("\n", 0, len(text) - len(text.lstrip())) + 1
        return f"{error.msg} at column {min(error.pos, len(text.rstrip())) - line_start + 1}"
    return json_failure(error)


def _json_place(error: json.JSONDecodeError, text: str) -> str:
    """Where ``error`` is in ``text``: ``column C`` in a text of one line (as :func:`_json_reason`
    counts it), else ``line L, column C``."""
    if "\n" not in text.strip():
        return _json_reason(error, text).rsplit(" at ", 1)[1]
    return f"line {error.lineno}, column {error.colno}"


def _first_line_is_an_object(text: str) -> bool:
    """Whether ``text`` has more than one line and its first is a JSON object by itself."""
    first, newline, rest = text.lstrip("\ufeff").partition("\n")
    if not newline or not rest.strip():
        return False
    try:
        return isinstance(json.loads(first), dict)
    except (ValueError, RecursionError):
        return False


def refuse_json_of_no_document(text: str, where: str) -> np.ndarray | list | None:
    """One line for a ``.json`` file that holds JSON other than an object, a number or an array of
    rows (a grid: ``[[5, 3, 0, ...], ...]``): an array of other values, ``null``, a string: it is neither a puzzle document nor a grid, whose text the other readers would
    misread ("'[1' is not an integer", "bad character 'n'").

    Parameters
    ----------
    text : str
        The file's text.
    where : str
        Its name, for the message.

    Returns
    -------
    ndarray, list or None
        The ``(N, 3)`` clues when the text is a plain clue list (:func:`plain_clue_list`), for the
        grid reader to take as they are rather than scan the text again; the rows ``json.loads``
        read of a grid as an array of rows, for the grid reader not to parse the text again; None
        for any other text.

    Raises
    ------
    PuzzleError
        The text is JSON but neither an object nor a number.
    """
    if (clues := plain_clue_list(text)) is not None:   # rows of numbers, read by NumPy: json.loads took 50 bytes a character
        return clues
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as e:
        if text.lstrip("\ufeff \t\r\n").startswith("["):   # broken JSON, not a grid's text ("bad cell '[[1'")
            reason = _json_reason(e, text)   # "nested too deep" past the recursion limit
            raise PuzzleError(f"{where}: not a JSON puzzle document ({clip(reason, 80)})") from None
        return None   # not JSON at all: the other readers name what is wrong
    kinds = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    if type(value) not in kinds:   # a number: a compact line of digits is a puzzle too
        return None
    if isinstance(value, list) and value and all(isinstance(row, list) for row in value):
        return value   # a grid as an array of rows ([[5, 3, 0, ...], ...]): the grid reader reads it
    raise PuzzleError(f"{where}: a puzzle document is a JSON object ({{\"size\": ..., \"givens\": ...}}), "
                      f"found {kinds[type(value)]}")


def rule_entries_text(rules: str | None) -> list | None:
    """A record's ``rules`` cell (batch's input and output: a JSON list of rule entries) -> the
    list, None for none (empty, JSON null); one entry standing alone is a list of one.

    Parameters
    ----------
    rules : str or None
        The cell's text.

    Returns
    -------
    list or None

    Raises
    ------
    PuzzleError
        Not JSON, or JSON of another kind (one line naming what is wrong).
    """
    if rules is None or not str(rules).strip():
        return None
    try:
        entries = loads_keys_once(str(rules))
    except DuplicateKey as e:
        raise PuzzleError(f"rules: key {e.key!r} given twice in one rule entry; give each key once") from None
    except json.JSONDecodeError as e:
        raise PuzzleError(f"rules: not JSON ({e.msg} at character {e.pos}): expected a list of rule entries") from None
    except (ValueError, RecursionError) as e:   # an integer of over 4,300 digits, nesting too deep
        why = json_failure(e)[:100]
        raise PuzzleError(f"rules: not a usable JSON list of rule entries ({why})") from None
    if entries is None:   # JSON null: what batch's own output says of a record without rules
        return None
    if isinstance(entries, dict):   # one entry standing alone, as a document's "rules" may be
        entries = [entries]
    if not isinstance(entries, list):
        kind = {bool: "true/false", str: "string", int: "number", float: "number"}[type(entries)]
        shown = str(rules).strip()
        shown = shown if len(shown) <= 40 else shown[:40] + "..."
        raise PuzzleError(f"rules: expected a JSON list of rule entries, found a JSON {kind} ({shown})")
    return entries
