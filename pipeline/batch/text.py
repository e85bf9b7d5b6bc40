"""Small text helpers shared by the batch modules."""
from __future__ import annotations

from pipeline.core.clauses import EncodingTooLarge
from pipeline.core.errors import ModelTooLarge, bounded


def one_line(e: BaseException) -> str:
    """The first line of an exception's message (its type name when it has none)."""
    text = str(e).strip().splitlines()
    return bounded(text[0]) if text else type(e).__name__


#: What a record could not have the memory for: its status is ``memory_limit`` (``--retry``
#: names it once more is allowed), whether its solver or its parse met it.
TOO_LARGE = (MemoryError, EncodingTooLarge, ModelTooLarge)


def solver_failure(e: BaseException) -> dict[str, str]:
    """A record's fields after its solver failed with ``e``: status ``memory_limit`` for memory it
    could not have, its model's size refused ahead included (a status ``--retry`` names, once more
    is allowed), else ``error``; the error text ``solver: ...`` (an engine's own message,
    ``solver NAME: ...``, as it is)."""
    status = "memory_limit" if isinstance(e, TOO_LARGE) else "error"
    return {"status": status, "error": solver_said(one_line(e))}


def solver_said(text: str) -> str:
    """A record's ``error`` for what its engine said: ``solver: ...``, or the engine's own message
    as it is when it names the engine already (``solver dfs: ...``, not ``solver: solver dfs``).

    Parameters
    ----------
    text : str
        One line.

    Returns
    -------
    str
    """
    return text if text.startswith("solver ") else f"solver: {text}"


#: How a counted record's ``error`` begins when the time limit stopped its count after some
#: solutions (status ``optimal``, ``n_solutions`` a lower bound): ``--retry time_limit`` takes it.
LOWER_BOUND = "count: stopped by time_limit after "


def lower_bound(count: int) -> str:
    """The ``error`` of a count the time limit stopped after ``count`` solutions.

    Parameters
    ----------
    count : int
        Solutions found (at least one).

    Returns
    -------
    str
    """
    return f"{LOWER_BOUND}{count} solutions (a lower bound)"


#: The most characters of a failed run's reason kept (Dask's messages run to paragraphs).
LONGEST_REASON = 300


def run_failure(e: BaseException) -> str:
    """Why a batch run stopped on ``e`` (a worker's crash, a Dask cluster's failure), in one line:
    every line of the message joined, not only the first (Dask's "Error during deserialization of
    the task graph. This frequently" was cut mid-sentence), and a cancelled set of futures said as
    how many chunks and why, not "4 Futures cancelled:" and the keys.

    Parameters
    ----------
    e : BaseException
        What the run raised.

    Returns
    -------
    str
        ``TypeName: reason``, at most about :data:`LONGEST_REASON` characters.
    """
    groups = getattr(e, "error_groups", None)   # distributed.client.FuturesCancelledError
    if groups:
        count = sum(len(getattr(group, "errors", ())) for group in groups)
        reasons = sorted({str(getattr(group, "reason", "unknown")) for group in groups})
        text = f"{count} chunk{'s' if count != 1 else ''} cancelled by Dask ({', '.join(reasons)})"
    else:
        text = " ".join(str(e).split()) or type(e).__name__
        if len(text) > LONGEST_REASON:
            text = text[:LONGEST_REASON].rsplit(" ", 1)[0] + " ..."
    return f"{type(e).__name__}: {bounded(text)}"


def needs_project_installed(e: BaseException) -> bool:
    """Whether ``e`` says the code of this project could not be loaded where a chunk was sent (a
    Dask worker or scheduler without it): rerunning alone would fail the same way.

    Parameters
    ----------
    e : BaseException
        What the run raised.
    """
    text = str(e)
    return ((isinstance(e, ModuleNotFoundError) and (e.name or "").split(".")[0] == "pipeline")
            or "deserializ" in text and "task graph" in text)
