"""What the operating system lets this process have, and what a model may take of it: the memory
guards every reader and builder asks before it allocates."""
from __future__ import annotations

import functools
import os
import sys
from decimal import Decimal, InvalidOperation

from pipeline.core.errors import ModelTooLarge, PuzzleError
from pipeline.core.textin import size_text

__all__ = ["KEPT_GRID_BYTES", "MAX_BYTES_ENV", "MAX_BYTES_LIMIT", "MODEL_BYTES_PER_NONZERO", "RULE_BYTES_PER_NONZERO",
           "address_space_allowed", "check_grid_size", "check_kept_grids", "grids_allowed", "memory_limit",
           "model_bytes", "release_freed_memory"]
#: Bytes a kept solution grid takes beyond 8 a cell (its array's header and the list's slot):
#: measured 797 bytes a 9x9 grid (3,000,000 listed by ``count --list`` peaked at 2.39 GB).
KEPT_GRID_BYTES = 160

# Models are refused before they are built when their estimated memory exceeds this many bytes
# (environment SUDOKU_PIPELINE_MAX_BYTES overrides; default: half of this machine's memory).
MAX_BYTES_ENV = "SUDOKU_PIPELINE_MAX_BYTES"
# The largest SUDOKU_PIPELINE_MAX_BYTES: far above any memory, and still an int64 and a float.
MAX_BYTES_LIMIT = 2 ** 63 - 1
# Bytes per nonzero of A (4 N^3 of them) across a build: CSR data and indices, the column table
# and the solver view's copy; measured peak RSS of build_model + Aeq at N = 64..144 is below it.
MODEL_BYTES_PER_NONZERO = 64
# Bytes per nonzero of the rows of rules beyond units: an empty 100x100 with non-consecutive
# (7.75 million rule nonzeros) peaked about 1 GB above its plain model (labels, per-rule blocks).
RULE_BYTES_PER_NONZERO = 128


def address_space_allowed(unbounded: int) -> int:
    """Three quarters of the process's address-space limit (``ulimit -v``; the interpreter and
    its libraries take the rest), or ``unbounded`` without one.

    Parameters
    ----------
    unbounded : int
        What to return when there is no limit (or no way to read it, as on Windows).

    Returns
    -------
    int
    """
    try:
        import resource
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, ValueError, OSError):   # no resource module (Windows)
        return unbounded
    return unbounded if soft == resource.RLIM_INFINITY or soft <= 0 else soft * 3 // 4


def memory_limit() -> int:
    """Bytes a model may need: ``$SUDOKU_PIPELINE_MAX_BYTES``, else half the physical memory (at
    most three quarters of an address-space limit, ``ulimit -v``).

    The variable holds a whole number of bytes from 1 to :data:`MAX_BYTES_LIMIT`, in digits
    (``8000000000``) or with an exponent (``8e9``, ``1.5e9``).

    Returns
    -------
    int

    Raises
    ------
    PuzzleError
        The variable is set to anything else (``0``, ``-1``, ``1.5``, ``inf``, ``nan``, ``8G``).
    """
    env = os.environ.get(MAX_BYTES_ENV)
    if env:
        # Decimal, not float: exact for any digits, and an exponent is never expanded, so
        # '1e999999999' is compared, not built; 'inf'/'nan' parse and are refused below
        try:
            value = Decimal(env.strip())
        except InvalidOperation:
            value = None
        if value is None or not value.is_finite() or value != value.to_integral_value() \
                or not 1 <= value <= MAX_BYTES_LIMIT:
            raise PuzzleError(f"{MAX_BYTES_ENV}: must be a whole number of bytes from 1 to 2**63 - 1 "
                              f"(e.g. 8000000000 or 8e9), found {env!r}")
        return int(value)
    try:
        half = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (ValueError, OSError, AttributeError):
        half = 8 << 30
    return min(half, address_space_allowed(MAX_BYTES_LIMIT))


def model_bytes(n: int, cells: int | None = None, values: int | None = None) -> int:
    """Estimated peak bytes of building the model of an N x N grid (4 N^3 nonzeros; ``4 C V`` for
    ``C`` cells of ``V`` values each).

    Parameters
    ----------
    n : int
        Grid side (digits per cell).
    cells : int, optional
        Cells indexed, when not ``N * N``: a layout's whole canvas.
    values : int, optional
        Values a cell may take, when more than ``N`` (a document's value set): a variable each.

    Returns
    -------
    int
    """
    return MODEL_BYTES_PER_NONZERO * 4 * (n * n if cells is None else cells) * max(n, values or 0)


def check_grid_size(n: int, where: str = "puzzle", *, cells: int | None = None, rule_nonzeros: float = 0,
                    values: int | None = None) -> None:
    """Refuse an N x N grid whose model could not be built in :func:`memory_limit` bytes.

    With 12 GiB allowed (half of 24 GiB) the largest N is 362; 8 GiB allow N = 319.

    Parameters
    ----------
    n : int
        Grid side.
    where : str
        Named in the error message.
    cells : int, optional
        Cells indexed, when not ``N * N``: a layout's whole canvas.
    rule_nonzeros : float
        Estimated nonzeros of the rows of rules beyond units (:data:`RULE_BYTES_PER_NONZERO` each).
    values : int, optional
        Values a cell may take, when more than ``N`` (a value set of 400 on an 80x80 was
        counted as 80 and built 3.4 GB under a 1 GB limit).
    """
    limit = memory_limit()
    need = model_bytes(n, cells, values) + RULE_BYTES_PER_NONZERO * rule_nonzeros
    if need <= limit:
        return
    more_values = values is not None and values > n
    if cells is not None or rule_nonzeros or more_values:   # no "largest N": the canvas, values or rules decide
        what = f"a layout of {cells:,} canvas cells" if cells is not None else f"a {n}x{n} grid"
        what += f" of {values:,} values" if more_values else ""
        what += " and its rules" if rule_nonzeros else ""
        raise ModelTooLarge(f"{where}: the model of {what} needs about {size_text(need)}, more than the "
                          f"{size_text(limit)} allowed (set {MAX_BYTES_ENV} to allow more)")
    largest = int(round((limit / (4 * MODEL_BYTES_PER_NONZERO)) ** (1 / 3)))
    while model_bytes(largest + 1) <= limit:
        largest += 1
    while largest > 1 and model_bytes(largest) > limit:
        largest -= 1
    side = str(n) if n < 10 ** 7 else f"{float(n):.1e}"   # a side of 10**30 was 31 digits twice
    raise ModelTooLarge(
        f"{where}: a {side}x{side} grid's model needs about {size_text(need)}, more than the {size_text(limit)} allowed "
        f"(largest N here: {largest}; set {MAX_BYTES_ENV} to allow more)"
    )


def grids_allowed(cells: int) -> int:
    """How many solution grids of ``cells`` cells :func:`memory_limit` holds (at least 1).

    Parameters
    ----------
    cells : int
        Cells of one grid (a layout's whole canvas).

    Returns
    -------
    int
    """
    return max(1, memory_limit() // (8 * cells + KEPT_GRID_BYTES))


def check_kept_grids(count: int, cells: int, what: str) -> None:
    """Refuse keeping ``count`` solution grids of ``cells`` cells when they would not fit in
    :func:`memory_limit` bytes (``count --list --limit 3000000`` of an empty 9x9 took 2.4 GB,
    whatever the allowance).

    Parameters
    ----------
    count : int
        Grids to keep (at most).
    cells : int
        Cells of one grid (a layout's whole canvas).
    what : str
        What keeps them, named in the message with what to change (``count --list: ... lower --limit``).
    """
    if count > grids_allowed(cells):
        need, limit = count * (8 * cells + KEPT_GRID_BYTES), memory_limit()
        raise ModelTooLarge(f"{what}: keeping {count:,} grids of {cells:,} cells needs about {size_text(need)}, more "
                            f"than the {size_text(limit)} allowed (set {MAX_BYTES_ENV} to allow more)")


def release_freed_memory() -> bool:
    """Hand the C heap's free pages back to the system (glibc's ``malloc_trim``) between phases
    that each allocate and free hundreds of MB, so the next phase does not start on top of them.

    glibc raises its threshold for serving an allocation from fresh pages after a large array is
    freed, so later arrays up to 32 MB come from the heap and stay in the process's memory after
    they are freed: after reading an empty 100x100's ``Aeq_long.csv``, 0.64 GB, of which
    ``malloc_trim`` returns 0.43 GB. pyarrow's pool, when pyarrow is loaded, is emptied too.

    Returns
    -------
    bool
        Whether memory was returned (False without glibc, as on macOS or musl).
    """
    arrow = sys.modules.get("pyarrow")    # its own pool keeps a Parquet read's buffers otherwise
    if arrow is not None and hasattr(arrow.default_memory_pool(), "release_unused"):
        arrow.default_memory_pool().release_unused()
    trim = _malloc_trim()
    return bool(trim(0)) if trim is not None else False


@functools.lru_cache(maxsize=1)
def _malloc_trim():
    """glibc's ``malloc_trim`` from the process's own symbols (no library search, which runs
    ``ldconfig``), or None where there is none."""
    import ctypes   # only here: every command imports this module, few free memory this way
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None
