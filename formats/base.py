"""What every format shares: the registry and ModelData (file handling is in :mod:`formats.files`,
re-exported here for the formats that import it from this module).

A format registers under a name and file extensions. It may provide
``export(model, directory, *, options...) -> [paths]`` (the files it contributes to ``pipeline
export``), ``write(model, path, *, options...)`` (one file), ``read(path) -> ModelData`` (round
trip) and ``describe(model, *, options...) -> dict`` (what the manifest records of its files, e.g.
name maps). The options each function takes are its keyword parameters; the entry refuses any
other with a one-line :class:`FormatError` (:mod:`pipeline.core.options`).
Reading back yields :class:`ModelData`, plain arrays that tests compare with the Model.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import scipy.sparse as sp

from pipeline.core.build import ConstraintRows, Model, constraint_rows  # noqa: F401  (re-exported)
from pipeline.core.errors import FormatError
from pipeline.core.manifest import model_metadata
from pipeline.core.options import declared_options, pick, refusing_unknown

from formats.files import (atomic_open, open_binary, open_text, read_regular, read_regular_text,  # noqa: F401
                           refuse_directory_name)   # (re-exported)
from formats.staging import note_export_endings


@dataclass
class ModelData:
    """A 0-1 program as read from a file: ``row_lower <= Aeq x <= row_upper``, bounds, integrality.

    ``Aeq`` holds EVERY row a file has, whatever its sense (the name is the historical one): for
    a model with inequality rows, the ``=`` rows of ``Model.Aeq`` come first (``row_lower =
    row_upper = beq``), then those of ``Model.Aineq`` (``row_lower = -inf``, ``row_upper =
    bineq``); :attr:`senses` names them.
    """

    Aeq: sp.csr_matrix
    row_lower: np.ndarray
    row_upper: np.ndarray
    lb: np.ndarray
    ub: np.ndarray
    cost: np.ndarray
    integrality: np.ndarray  # bool per column
    row_labels: np.ndarray | None = None
    col_names: np.ndarray | None = None
    metadata: dict = field(default_factory=dict)

    @classmethod
    def from_model(cls, model) -> "ModelData":
        """The ModelData that a faithful writer+reader pair must reproduce: ``[Aeq; Aineq]``."""
        rows = constraint_rows(model)
        lower = rows.lower
        return cls(rows.matrix.tocsr(), lower, rows.rhs.astype(float, copy=True), model.lb.copy(), model.ub.copy(),
                   model.cost, model.integrality, rows.labels, model.col_names, model_metadata(model))

    @property
    def senses(self) -> np.ndarray:
        """Per row ``"E"`` (``=``), ``"L"`` (``<=``), ``"G"`` (``>=``), ``"R"`` (ranged) or ``"N"`` (free)."""
        lo, up = np.asarray(self.row_lower, float), np.asarray(self.row_upper, float)
        fin_l, fin_u = np.isfinite(lo), np.isfinite(up)
        return np.select([fin_l & fin_u & (lo == up), ~fin_l & fin_u, fin_l & ~fin_u, fin_l & fin_u],
                         ["E", "L", "G", "R"], "N")


@dataclass(frozen=True)
class Format:
    """One registered model format: its name, file extensions and what it can do.

    ``export(model, directory, *, options...) -> [paths]`` (its files in ``pipeline export``),
    ``write(model, path, *, options...)`` (one file), ``read(path) -> ModelData`` and
    ``describe(model, *, options...) -> dict``; a format provides any subset. The options are
    the functions' keyword parameters (:attr:`options`); an unknown one is refused with one line.
    """

    name: str
    extensions: tuple[str, ...]
    description: str
    export: Callable | None = None
    write: Callable | None = None
    read: Callable | None = None
    # ``describe(model, *, options...) -> dict``: facts of this format's files for the manifest
    describe: Callable | None = None
    #: Whether ``export --formats all`` (the default) writes it; a puzzle format (``iss``) is
    #: written only when named, so that a puzzle it cannot hold never breaks ``all``.
    in_all: bool = True
    #: Whether its files can hold a model's objective: ``all`` leaves out one that cannot (CNF)
    #: for a model with an objective; named, it refuses the model with one line.
    carries_objective: bool = True
    #: The names ``export`` may write in an export directory: an unlisted file of one of these
    #: names is another export's (``check`` fails); other files there are the user's own.
    file_names: tuple[str, ...] = ()
    #: Its export's time relative to the others' on a large model (seconds for the empty
    #: 100x100's 4 million nonzeros, measured once): what ``export_model`` balances when it
    #: splits the formats between processes (:mod:`formats.forked`).
    cost: float = 1.0
    #: ``file_differences(directory, model, names) -> {name: what differs}``: each of its export's
    #: files against the model on its own, for ``check`` to blame the file edited (a format whose
    #: reader takes several files at once: CSV); None: the read-back alone judges its files.
    file_differences: Callable | None = None
    #: Whether ``write`` puts the whole model in one file (``export --to model.EXT``, ``--to -``).
    one_file: bool = False
    #: Whether that one file may be gzip-compressed (``model.lp.gz``).
    gzip: bool = False
    #: The option names ``write``, ``export`` and ``describe`` declare (read from their signatures).
    options: Mapping[str, frozenset[str]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        declared = {}
        for what, positional in (("write", 2), ("export", 2), ("describe", 1)):
            fn = getattr(self, what)
            if fn is not None:
                declared[what] = declared_options(fn, positional)
                object.__setattr__(self, what, refusing_unknown(fn, declared[what], f"format {self.name}: {what}",
                                                                FormatError))
        object.__setattr__(self, "options", declared)

    def pick_options(self, options: Mapping[str, Any], what: str) -> dict[str, Any]:
        """The entries of ``options`` this format's ``write``, ``export`` or ``describe``
        declares (``export_model`` holds every format's options and passes each its own).

        Parameters
        ----------
        options : mapping
            Option names and values.
        what : {"write", "export", "describe"}
            Whose declared options.

        Returns
        -------
        dict
        """
        return pick(options, self.options.get(what, frozenset()))


FORMATS: dict[str, Format] = {}


def register(fmt: Format) -> Format:
    """Add ``fmt`` to :data:`FORMATS` under its name (a later entry of the same name replaces it).

    Parameters
    ----------
    fmt : Format
        The entry; its ``extensions`` are what :func:`format_for` matches paths against.

    Returns
    -------
    Format
        ``fmt`` itself, so a module can keep it (``FORMAT = register(Format(...))``).

    Raises
    ------
    Nothing: registration never fails.
    """
    FORMATS[fmt.name] = fmt
    note_export_endings(fmt.extensions, fmt.file_names)   # check and the export's commit know its files
    return fmt


def refuse_unknown_options(options: Mapping[str, Any]) -> None:
    """Refuse an export option that no registered format's ``export`` or ``describe`` declares
    (``export_model`` passes each format only its own, so a misspelt one would vanish).

    Parameters
    ----------
    options : mapping
        The options given to ``export_model``.

    Raises
    ------
    FormatError
        One line naming the first unknown option and the ones the formats take.
    """
    known: set[str] = set()
    for fmt in FORMATS.values():
        known |= fmt.options.get("export", frozenset()) | fmt.options.get("describe", frozenset())
    for name in options:
        if name not in known:
            raise FormatError(f"export: no format takes option {name!r} (they take: {', '.join(sorted(known))})")


def _strip_gz(path: Path) -> str:
    name = path.name.lower()
    return name[:-3] if name.endswith(".gz") else name


def format_for(name_or_path: str | os.PathLike, *, need: str | None = None) -> Format:
    """A registered format by name, or by the extension of a path (``.gz`` ignored).

    Parameters
    ----------
    name_or_path : str or pathlib.Path
        A format name (``"mps"``) or a file name; the longest matching extension wins
        (``.fixed.mps`` over ``.mps``).
    need : {"write", "read", "export", "describe"}, optional
        Refuse a format that lacks this function.

    Returns
    -------
    Format

    Raises
    ------
    FormatError
        No format of that name or extension (the message lists the known ones), or it lacks
        ``need``.

    Examples
    --------
    >>> format_for("model.lp.gz").name
    'lp'
    >>> format_for("model.xyz")
    Traceback (most recent call last):
        ...
    pipeline.core.errors.FormatError: format: no format named or matching 'model.xyz'; known formats: ...
    """
    key = str(name_or_path)
    fmt = FORMATS.get(key.lower())
    if fmt is None:
        name = _strip_gz(Path(key))
        matches = [f for f in FORMATS.values() for ext in f.extensions if name.endswith(ext)]
        # the longest matching extension wins (".fixed.mps" over ".mps")
        matches.sort(key=lambda f: -max(len(e) for e in f.extensions if name.endswith(e)))
        fmt = matches[0] if matches else None
    if fmt is None:
        known = ", ".join(sorted(FORMATS))
        raise FormatError(f"format: no format named or matching {key!r}; known formats: {known}")
    if need and getattr(fmt, need) is None:
        raise FormatError(f"format: {fmt.name} has no {need}er")
    return fmt


def write_model(model: Model, path: str | os.PathLike, format: str | None = None, **options: Any) -> Path:
    """Write ``model`` to one file, format by name or by the path's extension.

    The file is written to a temporary name and renamed (:func:`formats.files.atomic_open`),
    gzip-compressed when the path ends in ``.gz``.

    Parameters
    ----------
    model : Model
        The model to write (its convention and clue encoding are recorded where the format
        has room for them).
    path : str or pathlib.Path
        Destination file.
    format : str, optional
        Format name; default: from the extension of ``path``.
    **options
        The format's writer options (e.g. ``style="fixed"`` for MPS); another is refused.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    FormatError
        ``model`` is not a :class:`Model`, an unknown format or extension, a format that cannot
        write, an option it refuses, or a ``format`` that is not the one the path's extension names.
    OSError
        The file cannot be created.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from pipeline import build_model, parse_puzzle
    >>> model = build_model(parse_puzzle("1..." "..3." ".4.." "...2", box="2x2"))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = write_model(model, Path(tmp) / "model.mps")
    ...     lines = path.read_text().splitlines()
    >>> path.name, lines[0], lines[2:5]
    ('model.mps', 'NAME SUDOKU FREE', ['ROWS', ' N obj', ' E cell_1_1'])
    """
    if not isinstance(model, Model):   # a puzzle here failed deep inside a writer, untyped
        raise FormatError(f"write_model: model must be a Model (pipeline.build_model or pipeline.build), found "
                          f"{type(model).__name__}; pipeline.export(puzzle, path) builds one from a puzzle")
    refuse_directory_name(path)   # before Path() drops the slash: "a.lp/" was written as a.lp
    fmt = format_for(format or path, need="write")
    if format is not None:
        _check_extension(fmt, Path(path))
    assert fmt.write is not None   # format_for(need="write") refused a format without one
    fmt.write(model, Path(path), **options)
    return Path(path)


def _check_extension(fmt: Format, path: Path) -> None:
    """A format named beside a path whose extension is another format's is refused: MPS text in
    ``model.lp`` is read back as LP (and fails). A name of no known format's stays the caller's."""
    name = _strip_gz(path)
    if any(name.endswith(ext) for ext in fmt.extensions):
        return
    try:
        other = format_for(path.name)
    except FormatError:
        return
    raise FormatError(f"{path}: the extension says {other.name} but format says {fmt.name}: "
                      f"name the file NAME{fmt.extensions[0]}")


def read_model(path: str | os.PathLike, format: str | None = None) -> ModelData:
    """Read a model file back into :class:`ModelData`, format by name or by extension.

    Parameters
    ----------
    path : str or pathlib.Path
        A file written by this package or by another tool in a registered format (``.gz``
        is decompressed).
    format : str, optional
        Format name; default: from the extension of ``path``.

    Returns
    -------
    ModelData
        The matrix, row bounds, column bounds, costs, integrality, names and whatever metadata
        the file carries.

    Raises
    ------
    FormatError
        Unknown format or extension, a format that cannot read, or a file that is not a
        valid model of that format (one line naming the file and the place).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from pipeline import build_model, parse_puzzle
    >>> model = build_model(parse_puzzle("1..." "..3." ".4.." "...2", box="2x2"))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     back = read_model(write_model(model, Path(tmp) / "model.lp"))
    >>> back.Aeq.shape, (back.Aeq != model.Aeq).nnz, back.metadata["clue_encoding"]
    ((68, 64), 0, 'rows')
    """
    _check_model_path(path)
    read = format_for(format or path, need="read").read
    assert read is not None   # format_for(need="read") refused a format without one
    return read(Path(path))


def _check_model_path(path: Any) -> None:
    """Refuse what is no model file before a format is looked for by its name: ``None`` (was "no
    format named or matching 'None'"), a manifest (was "... matching 'out/manifest.json'") or a
    directory (an export's: "... matching 'out'"), naming the model files inside it."""
    if not isinstance(path, (str, os.PathLike)):
        raise FormatError(f"read_model: path must be a file's path (str or os.PathLike), not {type(path).__name__}")
    if Path(path).name.endswith("manifest.json") and Path(path).is_file():   # an export's, or a one-file one's
        raise FormatError(f"{path}: a manifest, not a model file: read a model file it lists, or check the "
                          f"export with 'python -m pipeline check {Path(path).parent}'")
    if not Path(path).is_dir():
        return
    readable = []
    # an export's model.* first (its other CSV files are parts of the csv format's set)
    names = sorted((entry.name for entry in Path(path).iterdir() if entry.is_file()),
                   key=lambda n: (not n.startswith("model."), n))
    for name in names:
        try:
            format_for(name, need="read")
        except FormatError:
            continue
        readable.append(name)
    inside = (f"; read a model file in it: {', '.join(str(Path(path, n)) for n in readable[:3])}"
              f"{', ...' if len(readable) > 3 else ''}" if readable else "")
    raise FormatError(f"{path}: a directory, not a model file{inside}")
