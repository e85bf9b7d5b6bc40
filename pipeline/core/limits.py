"""What the operating system lets this process have, as the memory guards read it."""
from __future__ import annotations

__all__ = ["address_space_allowed"]


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
