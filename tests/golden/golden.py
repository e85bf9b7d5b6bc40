"""Golden exports: every puzzle x convention x clue encoding, both MPS styles, every format.

``python tests/golden/golden.py`` (re)writes ``tests/golden/digests.json``; ``test_golden.py``
exports the same set again and compares. Text files (CSV, MPS, LP, the ``.m`` script, the
manifest) are compared byte for byte through their SHA-256; ``.mat`` and Parquet files carry a
creation date or writer version in their headers, so their decoded content is hashed instead
(every array, every column, the schema metadata). The manifest's ``sha256`` (the digests of the
files, ``.mat`` headers with their dates among them) and ``pipeline_version`` (the installed
package's) are left out of its digest: the rest of it is compared byte for byte as written.
Regenerate only when an issue asks for a file to change, and say so in the commit.
"""
from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DIGESTS = HERE / "digests.json"

PUZZLES = {
    # seed 000 (SEEDS.md section 1), the built-in default
    "seed000": dict(source="050079000000000500092000060080000407020600010070250080000040000008020000730001000"),
    "classic4": dict(source="1.......2......3", box="2x2"),
    # the first Sudoku-X of ../shared/data/sets/9x9_x.txt
    "x9": dict(source="..1...2....23....44........5.3....6..1......5..6..........78.......9.....7...1.9.",
               variant="x"),
    # janko.at Chaos 651 (../shared/data/sets/jigsaw.csv), a 6x6 jigsaw with both diagonals
    "jigsawx6": dict(source="...3..1...42..............4....15...", variant="jigsaw_x",
                     regions="000111000111222222333334555434555444"),
}


#: Large N, every format of ``--formats all`` (CNF and OPB too): the empty 36x36 (box 6x6) is past
#: the N <= 25 of pairwise at-most-one, so its CNF takes the ladder encoding of the 100x100, and
#: its numbers run to 6 digits with signs (issue 34: the vectorised writers, byte for byte).
LARGE = {"empty36-all": dict(source="." * 36 * 36, box="6x6")}


def conventions(variant: str):
    schemes = ("ijk", "block") if variant in ("classic", "x") else ("ijk",)
    for scheme in schemes:
        for order in ("F", "C"):
            for clues in ("rows", "bounds", "reduce"):
                yield scheme, order, clues


def _hash_arrays(h, obj) -> None:
    """Feed a decoded object (dict / array / scalar / str) into ``h`` deterministically."""
    import scipy.sparse as sp

    if isinstance(obj, dict):
        for key in sorted(obj):
            h.update(repr(key).encode())
            _hash_arrays(h, obj[key])
    elif sp.issparse(obj):
        m = sp.csc_matrix(obj)
        m.sort_indices()
        for part in (np.asarray(m.shape), m.indptr, m.indices, m.data):
            _hash_arrays(h, part)
    elif isinstance(obj, np.ndarray):
        if obj.dtype == object:
            h.update(repr(obj.shape).encode())
            for item in obj.ravel():
                _hash_arrays(h, item)
        else:
            h.update(repr((obj.shape, obj.dtype.str)).encode())
            h.update(np.ascontiguousarray(obj).tobytes())
    elif isinstance(obj, (list, tuple)):
        h.update(b"[")
        for item in obj:
            _hash_arrays(h, item)
        h.update(b"]")
    else:
        h.update(repr(obj).encode())


#: Manifest fields that vary between equal exports (file digests of .mat headers with a date,
#: the installed version): left out of the manifest's digest.
VOLATILE_MANIFEST_FIELDS = ("sha256", "pipeline_version")


def manifest_bytes(path: Path) -> bytes:
    """``manifest.json`` as the writer writes it (indent 2, one newline) without the volatile fields."""
    meta = json.loads(path.read_text())
    for key in VOLATILE_MANIFEST_FIELDS:
        meta.pop(key, None)
    return (json.dumps(meta, indent=2) + "\n").encode()


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes, or of its decoded content for ``.mat`` and Parquet (and of the
    manifest without its volatile fields)."""
    h = hashlib.sha256()
    if path.name == "manifest.json":
        h.update(manifest_bytes(path))
    elif path.suffix == ".mat":
        import scipy.io

        content = scipy.io.loadmat(path, squeeze_me=False, struct_as_record=False, mat_dtype=False)
        content = {k: v for k, v in content.items() if not k.startswith("__")}
        h.update(b"mat:")
        _hash_arrays(h, _plain_mat(content))
    elif path.suffix == ".parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        h.update(b"parquet:")
        h.update(repr(table.schema.remove_metadata()).encode())
        _hash_arrays(h, {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()
                         if not k.startswith(b"ARROW")})
        for name in table.column_names:
            _hash_arrays(h, {name: table.column(name).to_pylist()})
    else:
        h.update(path.read_bytes())
    return h.hexdigest()


def _plain_mat(obj):
    """MATLAB structs (mat_struct) -> dicts so that they hash by content."""
    import scipy.io.matlab as sio

    if isinstance(obj, dict):
        return {k: _plain_mat(v) for k, v in obj.items()}
    if isinstance(obj, sio.mat_struct):
        return {k: _plain_mat(getattr(obj, k)) for k in obj._fieldnames}
    if isinstance(obj, np.ndarray) and obj.dtype == object:
        out = np.empty(obj.shape, dtype=object)
        for idx, item in np.ndenumerate(obj):
            out[idx] = _plain_mat(item)
        return out
    return obj


def export_set(directory: Path) -> dict[str, dict[str, str]]:
    """Export every golden case under ``directory``; ``{case: {file name: digest}}``."""
    from pipeline import build_model, parse_puzzle
    from formats.directory import export_model

    digests: dict[str, dict[str, str]] = {}
    for name, spec in PUZZLES.items():
        spec = dict(spec)
        source = spec.pop("source")
        puzzle = parse_puzzle(source, **spec)
        for scheme, order, clues in conventions(puzzle.variant):
            case = f"{name}-{scheme}-{order}-{clues}"
            out = directory / case
            model = build_model(puzzle, scheme, order, clues)
            export_model(model, out, ["csv", "mps", "lp", "parquet", "matlab"], mps_style="both",
                         dense="always")
            digests[case] = {p.name: file_digest(p) for p in sorted(out.iterdir()) if p.is_file()}
    for case, spec in LARGE.items():
        spec = dict(spec)
        out = directory / case
        export_model(build_model(parse_puzzle(spec.pop("source"), **spec)), out, "all", mps_style="both")
        digests[case] = {p.name: file_digest(p) for p in sorted(out.iterdir()) if p.is_file()}
    return digests


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        digests = export_set(Path(tmp))
    DIGESTS.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
    print(f"wrote {DIGESTS} ({len(digests)} exports, {sum(map(len, digests.values()))} files)")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parents[1]))
    sys.exit(main())
