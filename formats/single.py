"""An export to one file: :func:`formats.write_model` writes it, ``NAME.manifest.json`` beside
it describes it (``export --to model.lp``); or its bytes on standard output without a
manifest (``export --to -``).

Only the formats whose whole model is one file take this road: free MPS, CPLEX LP, DIMACS
CNF, OPB and the MATLAB ``.mat`` (the registered formats with ``one_file``), and the puzzle's ISS string
(``.iss``, :mod:`formats.iss`). CSV and Parquet are several
files, fixed MPS has its names file, and ``solve_sudoku.m`` goes with its ``model.mat``: those
are export directories (:func:`formats.directory.export_model`).
"""
from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO

from pipeline.core import stops
from pipeline.core.build import Model
from pipeline.core.errors import FormatError, clip
from pipeline.core.manifest import MANIFEST_NAME

from formats.base import FORMATS, Format, refuse_unknown_options, write_model
from formats.directory import MANIFEST_SUFFIX, resolve_formats, write_manifest
from formats.staging import listed_export_files, read_manifest_json
from formats.files import (WriteFailed, check_path_argument, file_sha256, missing_directories, remove_empty_directories,
                           write_failure)


def single_file_formats() -> list[str]:
    """The registered formats one file holds whole (:attr:`formats.base.Format.one_file`;
    ``mps`` in its free form), in registry order.

    Returns
    -------
    list of str

    Examples
    --------
    >>> single_file_formats()
    ['mps', 'lp', 'matlab', 'cnf', 'opb', 'iss']
    """
    return [name for name, fmt in FORMATS.items() if fmt.one_file]


def single_file_extensions() -> list[str]:
    """Every extension of the one-file formats, in registry order (what ``export --to NAME.EXT`` takes).

    Returns
    -------
    list of str

    Examples
    --------
    >>> single_file_extensions()
    ['.mps', '.lp', '.mat', '.cnf', '.dimacs', '.opb', '.iss.txt', '.iss']
    """
    return [ext for name in single_file_formats() for ext in FORMATS[name].extensions]


def _gzip_formats() -> list[str]:
    """The one-file formats whose file may be gzip-compressed (``model.lp.gz``; a ``.mat`` may not)."""
    return [name for name, fmt in FORMATS.items() if fmt.one_file and fmt.gzip]


def single_file_format(path: str | os.PathLike) -> Format | None:
    """The one-file format the extension of ``path`` names, or None (``path`` is a directory).

    ``.gz`` after the extension is looked through; a path ending in a separator (``out.lp/``)
    names a directory whatever its extension.

    Parameters
    ----------
    path : str or Path
        ``export --to``'s value.

    Returns
    -------
    Format or None

    Examples
    --------
    >>> [getattr(single_file_format(p), "name", None) for p in ("a.lp", "b.mps.gz", "c.mat", "out", "d.csv", "e.lp/")]
    ['lp', 'mps', 'matlab', None, None, None]
    """
    text = os.fspath(path)
    if not text or text.endswith(("/", os.sep)):
        return None
    name = Path(text).name.lower()
    name = name[:-3] if name.endswith(".gz") else name
    found = [(len(ext), FORMATS[key]) for key in single_file_formats()
             for ext in FORMATS[key].extensions if name.endswith(ext) and len(name) > len(ext)]
    return max(found, key=lambda pair: pair[0])[1] if found else None


def file_like_directory_note(path: str | os.PathLike) -> str | None:
    """A note for an export directory named like a file of no one-file format (``--to
    model.txt``): the user may have wanted one file, and gets a directory of every format's
    files. Not a refusal: scripts name directories after their inputs (``out-killer.json``).

    A name ending with a separator (``out.txt/``), an existing directory, the extension of a
    several-file format (``t.parquet``, ``d.csv``: a directory named after its dataset, as Spark
    and pandas write them) and an extension that is not all letters (``run.2026``, ``out.v2``)
    get no note.

    Parameters
    ----------
    path : str or Path
        ``export --to``'s value, which :func:`single_file_format` took for a directory.

    Returns
    -------
    str or None
    """
    text = os.fspath(path)
    if not text or text.endswith(("/", os.sep)) or Path(text).is_dir():
        return None
    name = Path(text).name
    suffix = Path(name[:-3] if name.lower().endswith(".gz") else name).suffix
    several = {ext for fmt in FORMATS.values() for ext in fmt.extensions}
    if len(suffix) > 1 and suffix[1:].isascii() and suffix[1:].isalpha() and suffix.lower() not in several:
        ones = ", ".join(single_file_extensions())
        return (f"note: {text}: no one-file format has the extension {suffix} (they are {ones}), so it is a "
                f"directory of every chosen format's files")
    return None


def manifest_path(path: str | os.PathLike) -> Path:
    """``model.lp`` -> ``model.lp.manifest.json``: where the manifest of a single file lies.

    Parameters
    ----------
    path : str or Path
        The single file.

    Returns
    -------
    Path
    """
    path = Path(path)
    return path.with_name(path.name + MANIFEST_SUFFIX)


def _one_format(formats: str | Sequence[str] | None) -> list[Format]:
    """The formats ``formats`` names (``"all"``: every exporting one; None: none named)."""
    return [] if formats is None else resolve_formats(formats)


def _chosen(path_format: Format | None, formats: str | Sequence[str] | None, where: str) -> Format:
    """The one format to write: the extension's, which ``formats`` (when given) must agree with."""
    named = _one_format(formats)
    names = ", ".join(dict.fromkeys(f.name for f in named))
    if len(set(f.name for f in named)) > 1:
        raise FormatError(f"{where}: one file holds one format, but formats names {names}: "
                          f"give a directory to export several")
    if path_format is None:
        if not named:
            raise FormatError(f"{where}: name one format ({', '.join(single_format_names())})")
        fmt = named[0]
        if not fmt.one_file:
            raise FormatError(f"{where}: {fmt.name} is several files, not one: give a directory "
                              f"(one file: {', '.join(single_format_names())})")
        return fmt
    if named and named[0].name != path_format.name:
        other = named[0]
        fix = (f"name the file NAME{other.extensions[0]}" if other.one_file
               else f"{other.name} is several files: give a directory")
        raise FormatError(f"{where}: the extension says {path_format.name} but formats says {other.name}: {fix}")
    return path_format


def single_format_names() -> list[str]:
    """The one-file formats as ``--formats`` spells them (``mat`` for matlab).

    Returns
    -------
    list of str

    Examples
    --------
    >>> single_format_names()
    ['mps', 'lp', 'mat', 'cnf', 'opb', 'iss']
    """
    return ["mat" if name == "matlab" else name for name in single_file_formats()]


def _refuse_several_file_options(fmt: Format, options: dict[str, Any], where: str) -> None:
    refuse_unknown_options(options)
    if fmt.name == "mps" and options.get("mps_style", "free") != "free":
        if options["mps_style"] != "fixed":   # not a style at all: said as the writer says it
            raise FormatError(f"{where}: unknown mps_style {clip(repr(options['mps_style']), 40)}; expected free or "
                              f"fixed")
        raise FormatError(f"{where}: one MPS file is the free form; mps_style {options['mps_style']!r} also writes "
                          f"a names file: give a directory")


def export_file(model: Model, path: str | os.PathLike, formats: str | Sequence[str] | None = None,
                **options: Any) -> dict[str, list[Path]]:
    """Write ``model`` to the one file ``path`` (:func:`formats.write_model`), then its manifest
    ``path + ".manifest.json"`` beside it (the same content as an export directory's
    ``manifest.json``: the file, its SHA-256, the model's metadata).

    Parameters
    ----------
    model : Model
        The model to write.
    path : str or Path
        The file: its extension (``.mps``, ``.lp``, ``.cnf``/``.dimacs``, ``.opb``, ``.mat``;
        ``.gz`` after any but ``.mat``) picks the format.
    formats : str or list of str, optional
        When given, it must name the extension's format (and only it).
    **options
        Export options, as :func:`formats.directory.export_model` takes them; the format gets
        those its ``write`` and ``describe`` declare. ``mps_style`` must be ``"free"``.

    Returns
    -------
    dict of str to list of Path
        ``{format name: [path], "manifest": [the manifest's path]}``.

    Raises
    ------
    FormatError
        An extension of no one-file format, ``formats`` naming another or several formats, a
        ``.mat.gz``, fixed MPS, ``path`` (or its manifest's path) being a directory, or ``path``
        being a file an export directory's ``manifest.json`` lists.
    WriteFailed
        Writing a file failed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from pipeline import build_model, parse_puzzle
    >>> from formats import read_model
    >>> model = build_model(parse_puzzle("1......2........"))
    >>> with tempfile.TemporaryDirectory() as out:
    ...     written = export_file(model, pathlib.Path(out, "single.lp"))
    ...     back = read_model(written["lp"][0])
    ...     names = sorted(p.name for p in pathlib.Path(out).iterdir())
    >>> names, back.Aeq.shape == (model.n_rows, model.n_cols)
    (['single.lp', 'single.lp.manifest.json'], True)
    """
    check_path_argument(path, "export_file")
    named_format = single_file_format(path)   # of the text as given: "k.lp/" names a directory
    if os.fspath(path).endswith(("/", os.sep)):
        raise FormatError(f"{os.fspath(path)}: names a directory (it ends in a separator); export_file writes one "
                          "file, export_model a directory")
    path = Path(path)
    where = str(path)
    if formats is not None and not _one_format(formats):   # "" or []: export_model refuses them too
        raise FormatError(f"formats: {formats!r} names no format; one file takes one of "
                          f"{', '.join(single_format_names())}")
    fmt = _chosen(named_format, formats, where)
    if named_format is None:
        raise FormatError(f"{where}: not the name of one {fmt.name} file (end it in {fmt.extensions[0]})")
    _refuse_several_file_options(fmt, options, where)
    if path.name.lower().endswith(".gz") and not fmt.gzip:
        raise FormatError(f"{where}: a {fmt.name} file cannot be gzip-compressed (only {', '.join(_gzip_formats())})")
    manifest = manifest_path(path)
    for target in (path, manifest):
        if target.is_dir() and not target.is_symlink():
            raise FormatError(f"{target}: is a directory (an export directory of before?); "
                              f"--to {path.name} writes one file: remove it or choose another name")
    if path.name in listed_export_files(read_manifest_json(path.parent / MANIFEST_NAME)):
        # replacing it would leave that set with a file of another model (as a directory export
        # refuses to mix): the user picks another name, or exports the directory again
        raise FormatError(f"{where}: a file of the export in {path.parent} (its {MANIFEST_NAME} lists it); "
                          f"choose another name, or export into {path.parent} again")
    # the file under a hidden name beside it, then its manifest, then the file renamed: a failure
    # on the way (a full disk at the manifest) leaves the pair of before, never a file without
    # its manifest
    # short, whatever the name's length (a 200-character name doubled was past NAME_MAX), and
    # ending in the name's extensions, which say the format and the compression
    staged = path.with_name(f".{os.getpid()}.{hashlib.sha256(os.fsencode(path.name)).hexdigest()[:8]}.partial"
                            f"{''.join(path.suffixes[-2:])[:40]}")
    made = missing_directories(path.parent)   # made by the write below; removed again if it fails
    try:
        write_model(model, staged, fmt.name, **fmt.pick_options(options, "write"))
        described = {}
        if fmt.describe is not None:
            described[fmt.name] = fmt.describe(model, **fmt.pick_options(options, "describe"))
        write_manifest(path.parent, model, {fmt.name: [path.name]}, described,
                       {path.name: file_sha256(staged)}, name=manifest.name)
        os.replace(staged, path)
    except WriteFailed as e:   # named as the file asked for, never the hidden one
        _undo(staged, made)
        if e.path != staged:
            raise
        raise WriteFailed(path, e.reason, e.errno, e.strerror) from None
    except OSError as e:
        _undo(staged, made)
        raise write_failure(path, e) from None
    except BaseException:
        _undo(staged, made)
        raise
    return {fmt.name: [path], "manifest": [manifest]}


def _undo(staged: Path, made: list[Path]) -> None:
    """After a failed :func:`export_file`: its hidden file, and the directories it made (a parent
    that is a file, or gone, holds no hidden file: nothing to remove, and the write's own error
    is the one to report)."""
    try:
        staged.unlink(missing_ok=True)
    except OSError:   # a read-only file system says EROFS even of a file never made
        pass
    remove_empty_directories(made)


def export_stream(model: Model, stream: BinaryIO, formats: str | Sequence[str] | None, *,
                  where: str = "standard output", **options: Any) -> Format:
    """Write ``model`` in one one-file format to ``stream`` (``export --to -``: standard
    output), without a manifest. The bytes are those :func:`formats.write_model` writes (to a
    temporary file first, then copied).

    Parameters
    ----------
    model : Model
        The model to write.
    stream : binary file object
        Where the bytes go.
    formats : str or list of str
        Exactly one one-file format (``mps``, ``lp``, ``cnf``, ``opb``, ``mat``).
    where : str
        How messages name the stream (a device such as ``/dev/null`` by its path).
    **options
        Export options (as :func:`export_file`).

    Returns
    -------
    Format
        The format written.

    Raises
    ------
    FormatError
        ``formats`` missing, naming several formats or one of several files.
    """
    named = _one_format(formats)
    if len(set(f.name for f in named)) != 1:
        listed = ", ".join(dict.fromkeys(f.name for f in named)) or "none"
        raise FormatError(f"{where} takes one file: name one format with formats "
                          f"({', '.join(single_format_names())}; named: {listed})")
    fmt = _chosen(None, formats, where)
    _refuse_several_file_options(fmt, options, where)
    with stops.temporary_directory("sudoku-export-") as tmp:
        path = Path(tmp) / f"model{fmt.extensions[0]}"
        write_model(model, path, fmt.name, **fmt.pick_options(options, "write"))
        with open(path, "rb") as f:
            shutil.copyfileobj(f, stream, 1 << 20)
    stream.flush()
    return fmt
