"""Does a model read from a file agree with the model its own metadata describes (issue 21).

Our files carry the puzzle and the convention in their metadata (docs/conventions.md), so the
model they mean is known twice: once from the rows and columns they list, once rebuilt from the
metadata. A reader that returned the listed model when the two disagree would hand back a model
the writer never writes (a line deleted, a coefficient changed): :func:`refuse_disagreement`
refuses it in one line. :func:`model_difference` is also the ``check`` command's comparison.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np
import scipy.sparse as sp

from pipeline.core.build import Model, build_model
from pipeline.core.errors import FormatError, PipelineError
from pipeline.core.manifest import Manifest, manifest_from_dict, model_metadata

from formats.base import ModelData

#: ``(key, model, its ModelData)`` that :func:`described_model` hands out while
#: :func:`sharing_model` is in force, instead of building the same model again.
_SHARED: ContextVar[tuple[str, Model, ModelData] | None] = ContextVar("shared_model", default=None)


def _model_key(man: Manifest) -> str | None:
    """What the built model depends on (the puzzle's own record, the convention, the clue
    encoding) as one string; None when it cannot be written (then nothing is shared)."""
    try:
        return json.dumps([man.puzzle.to_dict(), man.convention.scheme, man.convention.order, man.clue_encoding],
                          sort_keys=True)
    except (TypeError, ValueError):
        return None


@contextmanager
def sharing_model(man: Manifest, model: Model, data: ModelData) -> Iterator[None]:
    """While in force, the readers' agreement checks take ``model`` (and its ``data``) for
    metadata that describes the same puzzle, convention and clue encoding as ``man``, instead
    of building it again: ``check`` reads up to nine files of one model, and each rebuilt it
    beside the one ``check`` holds (0.4 GB more at 100x100). The readers only compare with it.

    Parameters
    ----------
    man : Manifest
        What ``model`` was built from.
    model : Model
        The model.
    data : ModelData
        ``ModelData.from_model(model)``.
    """
    key = _model_key(man)
    token = _SHARED.set((key, model, data) if key is not None else None)
    try:
        yield
    finally:
        _SHARED.reset(token)


def _shared(man: Manifest) -> tuple[str, Model, ModelData] | None:
    shared = _SHARED.get()
    return shared if shared is not None and shared[0] == _model_key(man) else None


def described_model(meta: dict, where: str, what: str = "metadata") -> Model:
    """The model ``meta`` (a file's metadata: puzzle, convention, clue encoding) describes.

    Parameters
    ----------
    meta : dict
        The metadata.
    where : str
        The file, as messages name it.
    what : str
        How the message names the metadata (``meta`` in a ``.mat`` file).

    Raises
    ------
    FormatError
        ``{where}: {what} does not describe a model: ...``.
    """
    try:
        man = manifest_from_dict(meta, where=where)
        shared = _shared(man)
        if shared is not None:
            return shared[1]
        return build_model(man.puzzle, man.convention.scheme, man.convention.order, man.clue_encoding)
    except PipelineError as e:
        raise FormatError(f"{where}: {what} does not describe a model: {e}") from None


def refuse_disagreement(data: ModelData, where: str, *, vectors: bool = True, names: bool = True,
                        model: Model | None = None, facts: bool = True) -> None:
    """FormatError when ``data`` carries our metadata (a ``puzzle``) and is not its model.

    Parameters
    ----------
    data : ModelData
        What a reader read.
    where : str
        The file, as messages name it.
    vectors : bool
        Compare bounds, right-hand sides, costs and integrality too (not only the matrix).
    names : bool
        Compare row and column names where the file carries them.
    model : Model, optional
        The model the metadata describes, when the reader built it already.
    facts : bool
        Hold what the metadata records of the model (:data:`RECORDED_FACTS`) against it too; a
        reader whose metadata is the export's manifest (CSV) leaves that to ``check``, which
        says it once, of the manifest.
    """
    meta = data.metadata or {}
    if "puzzle" not in meta:      # not one of ours: nothing to agree with
        return
    if model is None:
        probe = dict(meta)
        if probe.get("clue_encoding") == "reduce" and not isinstance(probe.get("kept_columns"), list):
            probe["kept_columns"] = []    # "by name": build_model finds the kept columns from the puzzle itself
        model = described_model(probe, where, "its metadata")
    shared = _SHARED.get()
    want = shared[2] if shared is not None and shared[1] is model else ModelData.from_model(model)
    got = data if names else ModelData(data.Aeq, data.row_lower, data.row_upper, data.lb, data.ub, data.cost,
                                       data.integrality, None, None, data.metadata)
    if meta.get("objective_sense") == "maximize" or meta.get("objective_offset"):
        raise FormatError(f"{where}: not the model its metadata describes: our models minimise, with no constant")
    difference = model_difference(got, want, cost=meta.get("objective") != "custom", vectors=vectors)
    if not difference and facts:
        difference = _misrecorded_fact(meta, model)
    if difference:
        # an edited file of ours: say how to read it anyway (without the metadata it is any model)
        raise FormatError(f"{where}: not the model its metadata describes ({meta.get('puzzle', '')[:24]!s}...): "
                          f"{difference} (edited by hand? drop its sudoku-pipeline metadata to read it as any model)")


#: What a file's metadata records of its model beside the puzzle (its size, its families), held
#: against the model the puzzle builds: ``"columns": 10**12`` beside a 64-column model was read
#: as ours, and handed on to whoever trusts the metadata.
RECORDED_FACTS = ("shape", "rows", "columns", "nonzeros", "inequalities", "inequality_nonzeros", "families",
                  "aux_columns")


def _misrecorded_fact(meta: dict, model: Model) -> str | None:
    """The first of :data:`RECORDED_FACTS` ``meta`` records otherwise than ``model`` has it."""
    expected = json.loads(json.dumps(model_metadata(model, with_columns=False)))
    for key in RECORDED_FACTS:
        if key in meta and key in expected and json.loads(json.dumps(meta[key])) != expected[key]:
            return (f"its metadata records {key!r} as {json.dumps(meta[key])[:40]}, the model has "
                    f"{json.dumps(expected[key])[:40]}")
    return None


def model_difference(got: ModelData, want: ModelData, *, cost: bool = True, vectors: bool = True) -> str | None:
    """The first way ``got`` differs from ``want`` (None when they are the same program).

    Names are compared where the file carries them (CNF, OPB and the dense CSV carry none); a
    file that lists rows or columns in another order (the long CSV form: order of first
    appearance) is put in ``want``'s order by its names first.

    Parameters
    ----------
    got, want : ModelData
    cost : bool
        Compare the objective too.
    vectors : bool
        Compare the row and column bounds, costs and integrality (not only the matrix and names).

    Returns
    -------
    str or None
    """
    got = _aligned(got, want)
    if got.Aeq.shape != want.Aeq.shape:
        return f"Aeq is {got.Aeq.shape[0]}x{got.Aeq.shape[1]}, not {want.Aeq.shape[0]}x{want.Aeq.shape[1]}"
    a, b = sp.csr_matrix(got.Aeq, dtype=np.float64), sp.csr_matrix(want.Aeq, dtype=np.float64)
    if _same_entries(a, b):   # the usual answer, without a != b's arrays of both matrices' entries
        differ = sp.coo_matrix(a.shape, dtype=bool)
    else:
        differ = (a != b).tocoo()
    if differ.nnz:
        first = np.lexsort((differ.col, differ.row))[0]
        i, j = int(differ.row[first]), int(differ.col[first])
        entries = "1 entry of Aeq differs" if differ.nnz == 1 else f"{differ.nnz} entries of Aeq differ"
        return (f"{entries}, the first at {_row_name(want, i)}, {_col_name(want, j)}: "
                f"{_number(a[i, j])} in the file, {_number(b[i, j])} in the model")
    fields = (["row_lower", "row_upper", "lb", "ub"] + (["cost"] if cost else [])) if vectors else []
    for name in fields:
        x, y = np.asarray(getattr(got, name), dtype=np.float64), np.asarray(getattr(want, name), dtype=np.float64)
        if x.shape != y.shape:
            return f"{name} differs (its length is {x.size}, not {y.size})"
        where = np.flatnonzero(x != y)
        if where.size:
            k = int(where[0])
            at = _row_name(want, k) if name.startswith("row") else _col_name(want, k)
            return (f"{name} differs in {where.size} place{'s' if where.size > 1 else ''}, the first at {at}: "
                    f"{_number(x[k])} in the file, {_number(y[k])} in the model")
    if vectors and not np.array_equal(np.asarray(got.integrality, bool), np.asarray(want.integrality, bool)):
        return "integrality differs"
    for name in ("row_labels", "col_names"):
        a = getattr(got, name)
        if a is not None and not np.array_equal(_as_str(a), _as_str(getattr(want, name))):
            return f"{name.replace('_', ' ')} differ"
    return None


def _row_name(model: ModelData, i: int) -> str:
    """``row <label>`` of row ``i`` (its 1-based number where the model carries no labels)."""
    return f"row {model.row_labels[i]}" if model.row_labels is not None else f"row {i + 1}"


def _col_name(model: ModelData, j: int) -> str:
    """``column <name>`` of column ``j`` (its 1-based number where the model carries no names)."""
    return f"column {model.col_names[j]}" if model.col_names is not None else f"column {j + 1}"


def _number(value: float) -> str:
    """A value as a file shows it: ``2`` rather than ``2.0``, ``inf``, ``0.5``."""
    return f"{value:.15g}"


def _aligned(got: ModelData, want: ModelData) -> ModelData:
    """``got`` with its rows and columns in ``want``'s order when both carry the same names."""
    a = sp.csr_matrix(got.Aeq)
    row_lower, row_upper = np.asarray(got.row_lower), np.asarray(got.row_upper)
    lb, ub, cost, integ = (np.asarray(v) for v in (got.lb, got.ub, got.cost, got.integrality))
    rows, cols = got.row_labels, got.col_names
    order = _order(rows, want.row_labels)
    if order is not None:
        a, row_lower, row_upper, rows = a[order], row_lower[order], row_upper[order], np.asarray(rows)[order]
    order = _order(cols, want.col_names)
    if order is not None:
        a, cols = a[:, order], np.asarray(cols)[order]
        lb, ub, cost, integ = (v[order] if v.shape == order.shape else v for v in (lb, ub, cost, integ))
    return ModelData(a, row_lower, row_upper, lb, ub, cost, integ, rows, cols, got.metadata)


def _order(names, wanted) -> np.ndarray | None:
    """Indices putting ``names`` in the order of ``wanted`` (None: no names, or not the same set)."""
    if names is None or wanted is None:
        return None
    names, wanted = _as_str(names), _as_str(wanted)
    if names.shape != wanted.shape or np.array_equal(names, wanted):
        return None
    by_name = np.argsort(names, kind="stable")
    place = np.searchsorted(names[by_name], wanted)
    place = np.clip(place, 0, max(names.size - 1, 0))
    order = by_name[place]
    return order if np.array_equal(names[order], wanted) else None


def _as_str(names) -> np.ndarray:
    """``names`` as a str array, not copied when it is one already (a reader's and the model's
    names are: two copies of an empty 100x100's million column names were 0.1 GB)."""
    return np.asarray(names).astype(str, copy=False)


def _same_entries(a: sp.csr_matrix, b: sp.csr_matrix) -> bool:
    """Whether two CSR matrices of one shape list the same entries in the same places (both
    canonical: sorted, no duplicates), compared array by array; False says only "compare them"."""
    return bool(a.has_canonical_format and b.has_canonical_format and np.array_equal(a.indptr, b.indptr)
                and np.array_equal(a.indices, b.indices) and np.array_equal(a.data, b.data))
