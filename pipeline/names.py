"""One name dictionary: names -> 0-based indices, vectorised, exact-match semantics.

The MPS and LP readers and :meth:`pipeline.conventions.Convention.positions_from_names` all look
names up through :class:`NameDictionary` (formats re-export it from :mod:`formats.text`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd


class NameDictionary:
    """Exact lookup of names (``str`` or ``bytes``) in a fixed list, by a pandas hash index.

    Measured against a hand-written 64-bit word hash and ``dict``: a pandas ``Index`` built once
    and queried with ``get_indexer`` is the fastest of the strategies the readers used.

    Parameters
    ----------
    names : array_like of str or bytes
        The names in index order; the first occurrence of a repeated name wins.

    Examples
    --------
    >>> NameDictionary(["a", "b", "c"]).indices(["c", "x", "a"]).tolist()
    [2, -1, 0]
    """

    def __init__(self, names) -> None:
        self._index = pd.Index(np.asarray(names).ravel())
        if not self._index.is_unique:
            # keep the first occurrence: the writers never repeat names, readers report them
            keep = ~self._index.duplicated(keep="first")
            self._positions = np.flatnonzero(keep)
            self._index = self._index[keep]
        else:
            self._positions = None

    def __len__(self) -> int:
        return len(self._index)

    def indices(self, queries) -> np.ndarray:
        """0-based index of each query name, ``-1`` where it is not in the dictionary.

        Parameters
        ----------
        queries : array_like of str or bytes
            Names to look up (same kind as the dictionary's names).

        Returns
        -------
        numpy.ndarray
            ``int64`` indices, shape ``(len(queries),)``.
        """
        queries = np.asarray(queries).ravel()
        if queries.size == 0:
            return np.zeros(0, dtype=np.int64)
        found = self._index.get_indexer(queries).astype(np.int64)
        if self._positions is not None:
            found = np.where(found >= 0, self._positions[np.maximum(found, 0)], -1)
        return found
