"""Fast text rendering of numeric arrays (no Python loop per value)."""
from __future__ import annotations

import numpy as np


def dense_01_rows(matrix, row_start: int, row_stop: int) -> bytes:
    """Rows of a 0/1 sparse matrix as comma-separated ``0``/``1`` text lines."""
    block = matrix[row_start:row_stop].toarray()
    m, n = block.shape
    if m == 0:
        return b""
    chars = np.empty((m, 2 * n), dtype=np.uint8)
    chars[:, 0::2] = np.where(block != 0, ord("1"), ord("0"))
    chars[:, 1::2] = ord(",")
    chars[:, -1] = ord("\n")
    return chars.tobytes()


def number_strings(values: np.ndarray) -> np.ndarray:
    """Floats -> shortest exact text (integers without a decimal point), as bytes."""
    values = np.asarray(values, dtype=float)
    integral = np.isfinite(values) & (values == np.rint(values)) & (np.abs(values) < 1e15)
    if integral.all():
        return values.astype(np.int64).astype("S20")
    out = np.array([repr(float(v)) for v in values], dtype="S32")
    out[integral] = values[integral].astype(np.int64).astype("S20")
    out[values == np.inf] = b"Inf"
    out[values == -np.inf] = b"-Inf"
    return out
