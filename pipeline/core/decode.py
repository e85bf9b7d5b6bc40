"""Vectors <-> grids for any convention (the only place that turns x into a grid), and a solver's
answer (names, positional values or a grid, as :mod:`formats.solutions` parsed it) -> the 0/1
vector over all ``N^3`` positions of an export's convention."""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from pipeline.core.conventions import Convention
from pipeline.core.errors import FormatError, PipelineError, WrongValueCount, shortened
from pipeline.core.puzzle import default_box
from pipeline.core.verify import verify_grid

if TYPE_CHECKING:  # annotations only: manifest imports this module
    from pipeline.core.manifest import Manifest

#: A vector from an engine run here (HiGHS's default mip_feasibility_tolerance): farther from 0 or 1
#: than this is fractional.
INTEGRALITY_TOL = 1e-6
#: A solver's answer file: a value within this of 0 or 1 reads as 0 or 1. Gurobi's IntFeasTol and
#: CPLEX's epInt (which its .sol files state) default to 1e-5, so a valid answer of theirs may hold
#: 0.99999.
ANSWER_INTEGRALITY_TOL = 1e-5
#: More indices than any scheme's names have (x_i_j_k: 3, x_I_J_p_q_n: 5).
NAME_INDICES_MAX = 8


def vector_from_grid(grid: np.ndarray, conv: Convention) -> np.ndarray:
    """Completed or partial grid -> 0/1 vector over all ``N^3`` positions of ``conv``.

    Parameters
    ----------
    grid : numpy.ndarray
        ``(N, N)``, 0 for empty.
    conv : Convention
        Positions of the vector.
    """
    grid = np.asarray(grid)
    if grid.shape != (conv.rows, conv.cols):
        raise PipelineError(f"grid: expected {conv.rows}x{conv.cols}, found {'x'.join(map(str, grid.shape))}")
    x = np.zeros(conv.n_vars)
    if grid.dtype.kind in "iu" and grid.size and conv.n_vars <= MAX_POSITION_TABLE and 0 <= grid.min() and \
            grid.max() <= conv.v:   # digits in range: the convention's table (what position would say)
        flat = grid.ravel()
        cells = np.flatnonzero(flat)
        x[_grid_positions(conv)[cells, flat[cells] - 1]] = 1.0
        return x
    r, c = np.nonzero(grid)
    x[conv.position(r, c, grid[r, c] - 1)] = 1.0
    return x


#: :func:`vector_from_grid` reads a convention's positions from a table up to this many (a 16x16's
#: 4,096); past that, or with an entry out of range (its one-line error), it computes them.
MAX_POSITION_TABLE = 1 << 16


@functools.lru_cache(maxsize=16)
def _grid_positions(conv: Convention) -> np.ndarray:
    """Each canvas cell's (``r * cols + c``) position of each 0-based digit under ``conv``,
    ``(rows * cols, v)``, read-only, made once per convention (keyed by its fields, which are all
    the positions depend on): :meth:`Convention.position`'s checks and index arithmetic were half a
    simple rule puzzle's answer vector (16 of 32 us a 9x9)."""
    r, c, d = np.indices((conv.rows, conv.cols, conv.v)).reshape(3, -1)
    table = conv.position(r, c, d).reshape(conv.rows * conv.cols, conv.v)
    table.flags.writeable = False
    return table


def full_vector_of(n_vars: int, positions: np.ndarray, values: np.ndarray,
                   clue_positions: np.ndarray | None = None) -> np.ndarray:
    """All ``N^3`` positions from values at ``positions``; ``clue_positions`` (the variables a
    ``reduce`` export fixed and dropped) are set to 1, every other position is 0. Positions from
    ``n_vars`` on (auxiliary columns of rules, docs/conventions.md) are not the grid's: dropped.

    Parameters
    ----------
    n_vars : int
        ``N^3``.
    positions : numpy.ndarray
        Full positions of ``values`` (a reduced model's kept columns).
    values : numpy.ndarray
        The solver view's values.
    clue_positions : numpy.ndarray, optional
        Positions fixed to 1 and dropped by ``reduce``.
    """
    full = np.zeros(n_vars)
    positions = np.asarray(positions)
    if positions.size and positions.max() >= n_vars:   # auxiliary columns: not the grid's
        cells = positions < n_vars
        positions, values = positions[cells], np.asarray(values)[cells]
    full[positions] = values
    if clue_positions is not None:
        full[clue_positions] = 1.0
    return full


def grid_from_vector(x: np.ndarray, conv: Convention, where: str = "solution") -> np.ndarray:
    """0/1 vector over all ``N^3`` positions -> grid; refuses fractional or ambiguous vectors.

    Parameters
    ----------
    x : numpy.ndarray
        A 0/1 vector over all ``N^3`` positions of ``conv``.
    conv : Convention
        Its positions.
    where : str
        Named in the error message.
    """
    x = np.asarray(x, dtype=float)
    if x.shape != (conv.n_vars,):
        raise PipelineError(
            f"{where}: expected {conv.n_vars} values for a {conv.n}x{conv.n} grid ({conv.describe()}), found {x.size}"
        )
    if not np.all(np.isfinite(x)):
        k = int(np.flatnonzero(~np.isfinite(x))[0])
        raise PipelineError(f"{where}: value {x[k]} at position {k + 1} ({conv.names([k])[0]}) is not finite")
    rounded = np.rint(x)
    frac = np.abs(x - rounded)
    if frac.max(initial=0) > INTEGRALITY_TOL or rounded.min(initial=0) < 0 or rounded.max(initial=0) > 1:
        k = int(np.argmax(frac > INTEGRALITY_TOL) if frac.max() > INTEGRALITY_TOL else
                np.argmax((rounded < 0) | (rounded > 1)))
        raise PipelineError(
            f"{where}: value {x[k]:g} of {conv.names([k])[0]} (position {k + 1}) is not 0 or 1"
        )
    pos = np.flatnonzero(rounded == 1)
    r, c, d = conv.cell_digit(pos)
    cols = conv.cols
    per_cell = np.bincount(r * cols + c, minlength=conv.rows * cols)
    if per_cell.max(initial=0) > 1:
        cell = int(np.argmax(per_cell > 1))
        digits = (d[(r * cols + c) == cell] + 1).tolist()
        raise PipelineError(f"{where}: cell ({cell // cols + 1}, {cell % cols + 1}) holds several digits {digits}")
    grid = np.zeros((conv.rows, cols), dtype=np.int64)
    grid[r, c] = d + 1
    return grid


# ----------------------------------------------------------------------------------------------
# a solver's answer -> the full vector of the manifest's convention
# ----------------------------------------------------------------------------------------------
def _parse_names(names: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Classify names with pyarrow's vectorised regexes (a 100x100 file names 10^6 variables).

    Returns ``(ok, idx, short, col, arity)``: ``ok`` marks ``x_<int>_<int>...`` names of the
    most common arity, ``idx`` their 1-based indices (rows of ``ok``), ``short`` marks
    ``C<digits>``/``c<digits>`` short names and ``col`` their column numbers.
    """
    import pyarrow as pa   # lazily: only name-carrying solution files need it (solve starts faster)
    import pyarrow.compute as pc

    arr = pa.array(np.asarray(names, dtype=object), type=pa.string())

    def flag(x) -> np.ndarray:
        return np.asarray(pc.fill_null(x, False).to_numpy(zero_copy_only=False), dtype=bool)

    def ints(x) -> np.ndarray:
        return np.asarray(pc.fill_null(pc.cast(x, pa.int64()), 0).to_numpy(zero_copy_only=False), dtype=np.int64)

    # at most 18 digits per index: no int64 overflow
    ok = flag(pc.match_substring_regex(arr, r"^x(_[0-9]{1,18})+$"))
    arity = ints(pc.count_substring(arr, "_"))
    k = int(np.bincount(arity[ok]).argmax()) if ok.any() else 0
    ok &= arity == k
    if k > NAME_INDICES_MAX:   # no scheme names so many; one regex group per index would not compile
        idx = np.zeros((int(ok.sum()), 0), dtype=np.int64)
    elif ok.any():
        found = pc.extract_regex(arr, "^x" + "".join(f"_(?P<i{j}>[0-9]{{1,18}})" for j in range(k)) + "$")
        found = found.filter(pa.array(ok))  # the fields of a non-matching name are '' (not null)
        idx = np.column_stack([ints(found.field(j)) for j in range(k)]).reshape(-1, k)
    else:
        idx = np.zeros((0, k), dtype=np.int64)
    short_found = pc.extract_regex(arr, r"^[Cc](?P<c>[0-9]{1,18})$")
    short = flag(short_found.is_valid())
    col = ints(short_found.filter(pa.array(short)).field(0))
    return ok, idx, short, col, k


def check_binary_values(values: np.ndarray, labels: Callable[[int], str], where: str) -> np.ndarray:
    """Round within :data:`ANSWER_INTEGRALITY_TOL`; anything else is named: ``name = v is not 0 or 1``.

    Parameters
    ----------
    values : numpy.ndarray
        A solver's values.
    labels : callable
        ``labels(k)``: the name of value ``k`` for the message.
    where : str
        Named in the error message.
    """
    rounded = np.rint(values)
    with np.errstate(invalid="ignore"):  # inf/nan are refused below, with their name, not with a warning
        bad = ~np.isfinite(values) | (np.abs(values - rounded) > ANSWER_INTEGRALITY_TOL) | (rounded < 0) | (rounded > 1)
    if bad.any():
        k = int(np.argmax(bad))
        # a value strictly between 0 and 1 is a relaxation's, not a typo: say where such come from
        why = (" (fractional: an LP relaxation's value, as solvers write them when they stop, or find the model "
               "infeasible, before an integer solution)" if 0 < values[k] < 1 else "")
        raise FormatError(f"{where}: {labels(k)} = {values[k]:g} is not 0 or 1{why}")
    return rounded + 0.0  # -0.0 -> 0.0


def _list(names, k: int = 5) -> str:
    names = list(names)
    return ", ".join(names[:k]) + (f", ... ({len(names) - k} more)" if len(names) > k else "")


def _resolve_names(raw, manifest, where: str, fmt: str) -> tuple[np.ndarray, Convention, np.ndarray | None]:
    names = raw.names
    ok, idx, short, col, arity = _parse_names(names)
    if arity > NAME_INDICES_MAX:
        raise FormatError(f"{where}: names have {arity} indices ({shortened(str(names[ok][0]), 40)}); "
                          f"x_i_j_k names have 3 and x_I_J_p_q_n names 5")
    # a rule's auxiliary columns (skyscrapers, chaos, ...), named aux_<family>_<i>_<j>: the
    # manifest's puzzle says which there are; their values are checked, then left out of the grid
    aux = ~(ok | short) & np.char.startswith(np.asarray(names).astype(str), "aux_") if names.size else ok
    unknown = ~(ok | short | aux)
    if unknown.any():
        bad = names[unknown]
        more = f" (and {bad.size - 1} more)" if bad.size > 1 else ""
        raise FormatError(f"{where}: unknown variable name {str(bad[0])!r}{more}; expected x_i_j_k / x_I_J_p_q_n names, "
                          f"a rule's aux_... columns or C<column> short names")
    if aux.any() and manifest is None:
        raise FormatError(f"{where}: auxiliary columns ({names[aux][0]}) need the export's manifest "
                          f"(manifest.json) to say which rule they belong to")
    if (idx < 1).any():
        raise FormatError(f"{where}: variable {names[ok][int(np.argmax((idx < 1).any(axis=1)))]} has an index 0; "
                          f"names are 1-based")

    if manifest is None:
        conv = _infer_convention(raw, idx, arity, short, where, fmt)
        man_columns = np.arange(conv.n_vars)
    else:
        conv = manifest.convention
        man_columns = manifest.columns
    pos = np.empty(names.size, dtype=np.int64)
    if ok.any():
        shape = np.array(conv.shape)
        if arity != len(conv.shape):
            raise FormatError(
                f"{where}: names have {arity} indices ({names[ok][0]}) but the manifest's scheme {conv.scheme} "
                f"names variables x_{'_'.join(conv.index_names)}")
        if (idx > shape).any():
            found = str(names[ok][int(np.argmax((idx > shape).any(axis=1)))])   # a name the file has
            expected = "x_" + "_".join(map(str, shape))
            boxes = f" of {conv.h}x{conv.w} boxes" if arity == 5 else ""
            other = "puzzle size or box shape" if arity == 5 else "puzzle size"
            raise FormatError(f"{where}: the file names {found}, but the manifest's {conv.n}x{conv.n} puzzle{boxes} "
                              f"ends at {expected}: the file is for another {other}")
        pos[ok] = conv.tuple_to_position(*(idx - 1).T)
    if short.any():
        if (col >= man_columns.size).any():
            k = int(np.argmax(col >= man_columns.size))
            raise FormatError(f"{where}: column {names[short][k]} does not exist: the export has {man_columns.size} "
                              f"columns (C0..C{man_columns.size - 1}); the file is for another model")
        pos[short] = man_columns[col]
    if aux.any():
        pos[aux] = manifest.positions_of(np.asarray(names[aux]).astype(str), where)

    def label(positions) -> list[str]:
        return list(conv.names(positions) if manifest is None else manifest.names_of(positions, where))

    uniq, counts = np.unique(pos, return_counts=True)
    if (counts > 1).any():
        dup = uniq[counts > 1][0]
        raise FormatError(f"{where}: variable {label([dup])[0]} listed twice")
    # auxiliary columns come after the N^3 cell-digit positions
    size = max(conv.n_vars, int(man_columns.max(initial=-1)) + 1, int(pos.max(initial=-1)) + 1)
    exported = np.zeros(size, dtype=bool)
    exported[man_columns] = True
    if not exported[pos].all():
        k = int(np.argmax(~exported[pos]))
        raise FormatError(f"{where}: variable {names[k]} is not a column of this export (clue encoding "
                          f"{manifest.clue_encoding} removed it)")
    values = check_binary_values(raw.values, lambda k: names[k], where)
    present = np.zeros(size, dtype=bool)
    present[pos] = True
    if raw.dense:
        missing = man_columns[~present[man_columns]]
        if missing.size:
            raise FormatError(f"{where}: {missing.size} of {man_columns.size} variables missing ({fmt} lists every "
                              f"variable): {_list(label(missing))}")
    full = full_vector_of(conv.n_vars, pos, values, manifest.clue_positions if manifest is not None else None)
    if manifest is not None and not raw.dense:
        _refuse_a_smaller_models_answer(full, pos[values > 0.5], conv, where)
    return full, conv, _aux_values(man_columns, conv.n_vars, pos, values)


def _refuse_a_smaller_models_answer(full: np.ndarray, ones: np.ndarray, conv: Convention, where: str) -> None:
    """A nonzeros-only answer (CBC's) whose ones all lie in the first rows and columns while cells
    beyond them got no digit is another, smaller model's: a 9x9's answer read with a 16x16's
    manifest passed as a 16x16 of 175 empty cells, with an error line for each rule it broke. A
    valid answer leaves no cell empty (the clues a reduced export dropped are filled in first), so
    this never refuses one."""
    cells = ones[ones < conv.n_vars]
    if not cells.size:
        return
    rows, cols, _ = conv.cell_digit(cells)
    reach_r, reach_c = int(rows.max()) + 1, int(cols.max()) + 1
    if reach_r >= conv.rows and reach_c >= conv.cols:
        return
    r, c, _ = conv.all_cell_digit()
    filled = np.zeros((conv.rows, conv.cols), dtype=bool)
    on = full > 0.5
    filled[r[on], c[on]] = True
    if not filled.all():
        raise FormatError(f"{where}: the answer's digits reach only row {reach_r} and column {reach_c} of the manifest's "
                          f"{conv.rows}x{conv.cols} grid, and {int((~filled).sum())} cells have none: is it another "
                          f"model's answer?")


def _aux_values(columns: np.ndarray, n_vars: int, positions: np.ndarray, values: np.ndarray) -> np.ndarray | None:
    """The values of the export's auxiliary columns (``columns`` from ``n_vars`` on, in their
    order) from an answer's ``values`` at full ``positions``; None for a model without any. A
    column the answer does not name is 0: a format listing nonzeros only leaves it out, and a
    dense one was refused above when it did."""
    aux_columns = columns[columns >= n_vars]
    if not aux_columns.size:
        return None
    named = positions >= n_vars
    aux = np.zeros(aux_columns.size)
    aux[np.searchsorted(aux_columns, positions[named])] = values[named]
    return aux


def _infer_convention(raw, idx, arity, short, where: str, fmt: str) -> Convention:
    """No manifest: the names say the scheme; N only when the file lists all N^3 variables."""
    need = "pass the export's manifest (manifest.json)"
    if short.any():
        raise FormatError(f"{where}: short column names ({raw.names[short][0]}) need the export's column map; {need}")
    if idx.shape[0] == 0:
        raise FormatError(f"{where}: without a manifest the puzzle size is inferred only from a file listing all "
                          f"N^3 variables; this {fmt} file lists none; {need}")
    if arity not in (3, 5):
        raise FormatError(f"{where}: names with {arity} indices fit neither x_i_j_k nor x_I_J_p_q_n")
    top = idx.max(axis=0)
    n = int(top[-1]) if arity == 5 else int(top.max())
    if idx.shape[0] != n ** 3 or np.unique(idx, axis=0).shape[0] != n ** 3:
        raise FormatError(f"{where}: without a manifest the puzzle size is inferred only from a file listing all "
                          f"N^3 variables; this {fmt} file lists {idx.shape[0]} (largest index {n}); {need}")
    if arity == 3:
        # order F is the convention's default for files read outside Python (docs/conventions.md)
        return Convention("ijk", "F", *default_box(n))
    h, w = int(top[2]), int(top[3])
    if int(top[0]) * h != n or int(top[1]) * w != n:
        raise FormatError(f"{where}: block names reach {'x_' + '_'.join(map(str, top))}, which is no N x N grid")
    return Convention("block", "F", h, w)


def model_variable_count(manifest: Manifest) -> int | None:
    """The largest variable number a CNF/OPB answer for this export may name, or None if unknown.

    The export's manifest states the CNF and OPB variable counts (``formats.cnf.variables``,
    auxiliaries of the at-most-one encoding included); a manifest built from a Model in memory
    states none, and then only numbers beyond ``N^3`` are known to be auxiliaries.

    Parameters
    ----------
    manifest : pipeline.core.manifest.Manifest
        The export's manifest.
    """
    formats = manifest.data.get("formats")
    if not isinstance(formats, dict):
        return None
    stated = [facts.get("variables") for facts in (formats.get("cnf"), formats.get("opb")) if isinstance(facts, dict)]
    counts: list[int] = [c for c in stated if isinstance(c, int) and not isinstance(c, bool)]
    return max([manifest.convention.n_vars, *counts]) if counts else None


def _numbered_values(raw, manifest: Manifest, where: str) -> np.ndarray:
    """A CNF/OPB answer's sparse ``numbers``/``values`` over the ``N^3`` positions (NaN, or 0 for
    a nonzeros-only format, where absent). Every number is checked against the model's variable
    count first: the file's numbers size nothing."""
    n_vars = manifest.convention.n_vars
    if manifest.columns.size and int(manifest.columns[-1]) >= n_vars:   # auxiliary columns follow the cells
        n_vars = int(manifest.columns[-1]) + 1
    numbers = np.asarray(raw.numbers, dtype=np.int64)
    limit = model_variable_count(manifest)
    if numbers.size and limit is not None and int(numbers.max()) > limit:
        raise FormatError(f"{where}: variable {int(numbers.max())} is beyond the model's {limit} variables")
    x = np.full(n_vars, np.nan if raw.dense else 0.0)
    inside = numbers <= n_vars                # beyond N^3 (and the model's auxiliary columns): the encoding's
    x[numbers[inside] - 1] = np.asarray(raw.values)[inside]
    return x


def _resolve_positions(raw, manifest, where: str) -> tuple[np.ndarray, Convention, np.ndarray | None]:
    if manifest is None:
        raise FormatError(f"{where}: positional values carry no variable names; pass the export's manifest "
                          f"(manifest.json)")
    conv = manifest.convention
    n_cols, n_vars = manifest.n_cols, conv.n_vars
    x = raw.values
    if raw.numbered:
        x = _numbered_values(raw, manifest, where)[manifest.columns]
        if np.isnan(x).any():
            k = int(np.argmax(np.isnan(x)))
            missing = int(manifest.columns[k]) + 1
            last = int(np.max(raw.numbers, initial=0))
            # an answer that stops short of the model is usually another export's (a 9x9's
            # answer read with a 12x12's manifest): say so rather than only name the variable
            hint = (f"; the answer stops at variable {last} of the model's {n_vars} cell variables: is it another "
                    f"model's answer?" if last < missing else "")
            raise FormatError(f"{where}: the solver assigned no value to variable {missing} "
                              f"({manifest.col_names()[k]}){hint}")
    if x.size == n_cols:
        values = check_binary_values(x, lambda k: str(manifest.col_names()[k]), where)
        return (full_vector_of(n_vars, manifest.columns, values, manifest.clue_positions), conv,
                _aux_values(manifest.columns, n_vars, manifest.columns, values))
    if raw.full_ok and x.size == n_vars:
        return check_binary_values(x, lambda k: conv.names([k])[0], where), conv, None
    if raw.full_ok and n_cols != n_vars:
        expected = f"{n_cols} values (the export's columns) or {n_vars} (all variables of a {conv.n}x{conv.n} grid)"
    else:
        expected = f"{n_cols} values (the export's columns, {conv.n}x{conv.n} grid)"
    raise WrongValueCount(f"{where}: expected {expected}, found {x.size}", x.size)


def _values_as_digits(grid: np.ndarray, puzzle: Any, present: np.ndarray) -> np.ndarray:
    """A grid answer of a value-set puzzle written in its values (0-8, as ``solve`` and ``verify``
    show it) as the digits ``1..V`` that ``solve_sudoku.m`` writes; a grid of digits stays.

    A grid with a cell outside ``1..V`` (a 0) is in values. One that reads both ways (a 6x6 of the
    values 0-8 that happens to use only 1..6) is taken in digits, unless only the values reading
    solves the puzzle."""
    if getattr(puzzle, "values", None) is None:
        return grid
    value_of = np.asarray(puzzle.value_of)
    cells = grid[present]
    if not np.isin(cells, value_of).all():
        return grid
    order = np.argsort(value_of)
    out = grid.copy()
    out[present] = order[np.searchsorted(value_of[order], cells)] + 1
    if ((cells >= 1) & (cells <= value_of.size)).all():   # both readings: the one that solves the puzzle
        if verify_grid(grid, puzzle) or not verify_grid(out, puzzle):
            return grid
    return out


def _resolve_grid(raw, manifest, where: str) -> tuple[np.ndarray, Convention, np.ndarray | None]:
    grid = raw.grid
    rows, cols = grid.shape
    if manifest is None:
        if rows != cols:
            raise FormatError(f"{where}: a {rows}x{cols} grid (a gattai canvas?) needs the export's manifest")
        conv = Convention("ijk", "F", *default_box(rows))
        present = np.ones(grid.shape, dtype=bool)
    else:
        conv = manifest.convention
        if (rows, cols) != (conv.rows, conv.cols):
            raise FormatError(f"{where}: grid is {rows}x{cols}, the manifest's puzzle is {conv.rows}x{conv.cols}")
        present = np.asarray(manifest.puzzle.present).reshape(grid.shape)
        grid = _values_as_digits(grid, manifest.puzzle, present)
    empty = present & (grid == 0)
    if empty.any():
        r, c = np.argwhere(empty)[0]
        k = int(empty.sum())
        raise FormatError(f"{where}: {k} empty cell{'s' if k > 1 else ''} (first at ({r + 1}, {c + 1})); "
                          f"a solution grid must be complete")
    if (grid[~present] != 0).any() or grid.max(initial=0) > conv.v:   # v: the digits (N, or more values)
        r, c = np.argwhere((~present & (grid != 0)) | (grid > conv.v))[0]
        raise FormatError(f"{where}: cell ({r + 1}, {c + 1}) = {grid[r, c]} is not a digit 1..{conv.v}"
                          + (" (it lies outside every grid of the layout: 0 expected)" if not present[r, c] else ""))
    return vector_from_grid(grid, conv), conv, None


def solution_vector(raw: Any, manifest: Manifest | None, where: str,
                    fmt: str) -> tuple[np.ndarray, Convention, np.ndarray | None]:
    """A parsed solution mapped onto all ``N^3`` positions of the manifest's convention.

    Parameters
    ----------
    raw : formats.solutions.RawSolution
        What a solution parser found: ``kind`` ``names`` (``names`` + ``values``), ``positions``
        (values in the export's column order) or ``grid``; ``dense`` says whether an absent
        variable is an error (the format lists every column) or 0.
    manifest : pipeline.core.manifest.Manifest or None
        The export's convention, kept columns and clues; without it only files naming all
        ``N^3`` variables ``x_...`` (or grids) can be mapped, in order ``F``.
    where : str
        The file, as error messages name it.
    fmt : str
        The solution format's name (for messages).

    Returns
    -------
    values : numpy.ndarray
        Exactly 0.0 / 1.0 per position.
    convention : Convention
    aux : numpy.ndarray or None
        The values of the export's auxiliary columns (a rule's, the extra cells' digits), in the
        manifest's column order, when the answer is by names or by column; None for a grid, a model
        without any, or no manifest.

    Raises
    ------
    FormatError
        Unknown or duplicate names, values not 0 or 1, missing variables of a dense format, a
        file for another puzzle size or model, or a positional file without a manifest.
    """
    if raw.kind == "names":
        return _resolve_names(raw, manifest, where, fmt)
    if raw.kind == "positions":
        return _resolve_positions(raw, manifest, where)
    return _resolve_grid(raw, manifest, where)
