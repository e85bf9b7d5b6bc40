"""A registry by name whose built-in entries are imported on first use (issue 34, start-up).

The rule kinds (:data:`pipeline.core.rules.RULES`) and the solvers
(:data:`pipeline.solvers.SOLVERS`) are registries of this kind: each knows its built-in names, in
their order, and the module that defines each, and imports a module only when one of its names is
looked up. A process that reads a thermometer puzzle and solves it with one engine then pays for
that rule's module and that engine's, not for sixty rule classes and every solver's imports.
"""
from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, MutableMapping
from typing import Any, TypeVar

__all__ = ["LazyRegistry"]

T = TypeVar("T")


class LazyRegistry(MutableMapping[str, T]):
    """name -> entry, in registration order; a built-in entry's module is imported on first use.

    Iterating, ``len`` and ``in`` give the names without importing anything; ``registry[name]``,
    ``get``, ``values`` and ``items`` give entries (importing their modules). A module is found
    in one of two ways: ``(name, module, attribute)`` reads the entry off the module, and
    ``(name, module, None)`` expects the module to register its entries when imported (as the
    solver modules call ``register_solver``).

    Parameters
    ----------
    builtins : iterable of (str, str, str or None)
        ``(name, module path, attribute or None)`` per built-in entry, in order.
    """

    def __init__(self, builtins: Iterable[tuple[str, str, str | None]]) -> None:
        entries = list(builtins)
        self._order: list[str] = [name for name, _, _ in entries]
        self._where: dict[str, tuple[str, str | None]] = {name: (module, attr) for name, module, attr in entries}
        self._loaded: dict[str, T] = {}

    def __getitem__(self, name: str) -> T:
        entry = self._loaded.get(name)
        if entry is not None:
            return entry
        if name not in self._where:
            raise KeyError(name)
        module, attr = self._where[name]
        imported = importlib.import_module(module)
        if attr is not None:
            self._loaded[name] = getattr(imported, attr)
        elif name not in self._loaded:   # the module registers itself: it must have registered this
            raise KeyError(f"{name} (module {module} did not register it)")
        self._where.pop(name, None)
        return self._loaded[name]

    def __setitem__(self, name: str, entry: T) -> None:
        self.put(name, entry)

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._order.remove(name)
        self._where.pop(name, None)
        self._loaded.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._order))

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name in self._where or name in self._loaded)

    def put(self, name: str, entry: T) -> None:
        """``entry`` under ``name``: a new name at the end, a known one replaced in its place.

        Parameters
        ----------
        name : str
            The entry's name.
        entry : object
            What the name gives.
        """
        if name not in self:
            self._order.append(name)
        self._where.pop(name, None)
        self._loaded[name] = entry

    def loaded(self, name: str) -> T | None:
        """``name``'s entry if its module is already imported, else None (nothing is imported).

        Parameters
        ----------
        name : str
            The entry's name.

        Returns
        -------
        object or None
        """
        return self._loaded.get(name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._order!r})"

    def pop(self, name: str, default: Any = None) -> Any:
        """Remove ``name`` and return its entry (``default`` when it is not registered).

        Parameters
        ----------
        name : str
            The entry's name.
        default : object
            What to return when ``name`` is not registered.

        Returns
        -------
        object
        """
        if name not in self:
            return default
        entry = self[name]
        del self[name]
        return entry
