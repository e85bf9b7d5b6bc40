"""What every format shares: the registry and ModelData (file handling is in :mod:`formats.files`,
re-exported here for the formats that import it from this module).

A format registers under a name and file extensions. It may provide
``export(model, directory) -> [paths]`` (the files it contributes to ``pipeline export``),
``write(model, path, **options)`` (one file), ``read(path) -> ModelData`` (round trip) and
``describe(model, **options) -> dict`` (what the manifest records of its files, e.g. name maps).
Reading back yields :class:`ModelData`, plain arrays that tests compare with the Model.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import scipy.sparse as sp

from pipeline.errors import FormatError
from pipeline.manifest import model_metadata

from .files import atomic_open, open_binary, open_text, read_regular, read_regular_text  # noqa: F401  (re-exported)


@dataclass
class ModelData:
    """A 0-1 program as read from a file: ``row_lower <= Aeq x <= row_upper``, bounds, integrality."""

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
        """The ModelData that a faithful writer+reader pair must reproduce."""
        return cls(model.Aeq.tocsr(), model.beq.copy(), model.beq.copy(), model.lb.copy(), model.ub.copy(),
                   model.cost, model.integrality, model.row_labels, model.col_names, model_metadata(model))


@dataclass(frozen=True)
class Format:
    name: str
    extensions: tuple[str, ...]
    description: str
    export: Callable | None = None
    write: Callable | None = None
    read: Callable | None = None
    # ``describe(model, **options) -> dict``: facts of this format's files for the manifest
    describe: Callable | None = None


FORMATS: dict[str, Format] = {}


def register(fmt: Format) -> Format:
    """Add a format to the registry (by name; extensions used for lookup by path)."""
    FORMATS[fmt.name] = fmt
    return fmt


def _strip_gz(path: Path) -> str:
    name = path.name.lower()
    return name[:-3] if name.endswith(".gz") else name


def format_for(name_or_path, *, need: str | None = None) -> Format:
    """A registered format by name, or by the extension of a path (``.gz`` ignored)."""
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


def write_model(model, path, format: str | None = None, **options) -> Path:
    """Write ``model`` to one file, format by name or by the path's extension."""
    fmt = format_for(format or path, need="write")
    fmt.write(model, Path(path), **options)
    return Path(path)


def read_model(path, format: str | None = None) -> ModelData:
    """Read a model file back into ModelData, format by name or by extension."""
    fmt = format_for(format or path, need="read")
    return fmt.read(Path(path))
