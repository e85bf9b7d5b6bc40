"""The solution-format registry: what a parser returns (:class:`RawSolution`), what
:func:`formats.solutions.read_solution` returns (:class:`SolutionVector`), and detection by content."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from pipeline.core.conventions import Convention
from pipeline.core.decode import grid_from_vector
from pipeline.core.errors import FormatError

HEAD_CHARS = 1 << 16  # detection looks at the first 64 KiB only


@dataclass
class SolutionVector:
    """A solver's answer over all ``N^3`` positions of ``convention`` (exactly 0.0 or 1.0)."""

    values: np.ndarray
    format: str
    status: str | None
    objective: float | None
    convention: Convention
    path: Path | None = None
    #: the values of the export's auxiliary columns (a rule's, the extra cells' digits) at the full
    #: positions ``aux_columns`` (from ``N^3`` on), when the answer gives them; else None
    aux: np.ndarray | None = None
    aux_columns: np.ndarray | None = None
    #: the parser's note on what it read of a file of several answers (:attr:`RawSolution.note`)
    note: str = ""

    def grid(self) -> np.ndarray:
        """The N x N grid of this answer (refuses a cell holding several digits)."""
        return grid_from_vector(self.values, self.convention, where=str(self.path or "solution"))

    def over(self, columns: np.ndarray) -> np.ndarray | None:
        """The answer over a model's ``columns`` (full positions: cells, then auxiliary columns).

        Parameters
        ----------
        columns : numpy.ndarray
            A model's columns (:attr:`pipeline.core.build.Model.columns`).

        Returns
        -------
        numpy.ndarray or None
            None when ``columns`` hold an auxiliary column this answer does not give (a grid, or an
            answer read without the export's manifest).
        """
        columns = np.asarray(columns)
        cells = columns < self.values.size
        x = np.zeros(columns.size)
        x[cells] = self.values[columns[cells]]
        if cells.all():
            return x
        if self.aux is None or self.aux_columns is None:
            return None
        at = np.searchsorted(self.aux_columns, columns[~cells])
        if (at >= self.aux_columns.size).any() or (self.aux_columns[np.minimum(at, self.aux_columns.size - 1)]
                                                   != columns[~cells]).any():
            return None
        x[~cells] = self.aux[at]
        return x


@dataclass
class RawSolution:
    """What a parser found, before mapping: names+values, positional values, or a grid.

    ``dense`` says whether the format lists every column (absent = error) or only nonzeros
    (absent = 0). ``kind`` is ``names``, ``positions`` (solver-column order of the exported
    model; ``full_ok`` also accepts all ``N^3`` values) or ``grid``.
    """

    kind: str
    values: np.ndarray
    names: np.ndarray | None = None
    grid: np.ndarray | None = None
    dense: bool = True
    status: str | None = None
    objective: float | None = None
    full_ok: bool = False
    format: str | None = None  # set when one parser serves several layouts
    # CNF/OPB numbering (formats/solutions/sat.py): values[k] is the value of variable numbers[k]
    # (position numbers[k] - 1), kept sparse so the file's numbers size nothing before the mapping
    # has bounded them by the model's variable count; numbers beyond N^3 are auxiliaries; only
    # exported columns count
    numbered: bool = False
    numbers: np.ndarray | None = None
    #: a sentence on what was read when the file held more than one answer (clasp's ``-n K``
    #: enumeration: which model); empty otherwise
    note: str = ""


@dataclass(frozen=True)
class SolutionFormat:
    """A registered solution-file reader: ``detect(head_text)`` and ``parse(text, where)``."""

    name: str
    description: str
    detect: Callable[[str], bool]
    parse: Callable[[str, str], RawSolution]
    #: a line per value at most: a file of more lines than the model has values is refused before
    #: it is parsed; False for a reader that bounds what it parses itself (a saved workspace's
    #: other variables are passed over unread)
    lines_bounded: bool = True


SOLUTION_FORMATS: dict[str, SolutionFormat] = {}


@dataclass(frozen=True)
class BinarySolutionFormat:
    """A reader of a binary answer file (a MAT-file): ``detect(first_bytes)`` and
    ``parse(data, where, most_values)``, ``most_values`` bounding what it may allocate."""

    name: str
    description: str
    detect: Callable[[bytes], bool]
    parse: Callable[[bytes, str, int], RawSolution]


#: Tried on a file's first bytes before it is read as text (in registration order).
BINARY_SOLUTION_FORMATS: dict[str, BinarySolutionFormat] = {}


def register_binary_solution_format(fmt: BinarySolutionFormat) -> BinarySolutionFormat:
    """Add a binary reader (tried, in registration order, before the text formats).

    Parameters
    ----------
    fmt : BinarySolutionFormat
        The entry.
    """
    BINARY_SOLUTION_FORMATS[fmt.name] = fmt
    return fmt


def register_solution_format(fmt: SolutionFormat, *, before: str | None = None) -> SolutionFormat:
    """Add a reader; detection tries formats in registration order (``before`` to go earlier).

    Parameters
    ----------
    fmt : SolutionFormat
        The entry.
    before : str, optional
        Detect it before this format (default: last).
    """
    if before is None or before not in SOLUTION_FORMATS:
        SOLUTION_FORMATS[fmt.name] = fmt
        return fmt
    items = [(k, v) for k, v in SOLUTION_FORMATS.items() if k != fmt.name]
    SOLUTION_FORMATS.clear()
    for k, v in items:
        if k == before:
            SOLUTION_FORMATS[fmt.name] = fmt
        SOLUTION_FORMATS[k] = v
    return fmt


def detect_solution_format(head: str, where: str = "solution") -> SolutionFormat:
    """The first registered format whose detector accepts ``head``; FormatError listing all tried.

    Parameters
    ----------
    head : str
        The file's first bytes as text.
    where : str
        Named in the error message.
    """
    if not head.strip():
        raise FormatError(f"{where}: empty file")
    for fmt in SOLUTION_FORMATS.values():
        if fmt.detect(head):
            return fmt
    if "[ Problem Statistics ]" in head:   # minisat's screen, saved with > instead of its result file
        raise FormatError(f"{where}: minisat's screen output, which holds no assignment: give minisat a result file "
                          f"(minisat model.cnf answer.txt) and import that")
    raise FormatError(f"{where}: unrecognised solution format; tried {', '.join(SOLUTION_FORMATS)}")
