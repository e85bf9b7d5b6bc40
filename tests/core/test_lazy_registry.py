"""The lazy registry shared by rule kinds and solvers (pipeline/core/registry.py): names without
imports, entries on first use, replacement in place, plug-ins last."""
from __future__ import annotations

import sys

import pytest

from pipeline.core.registry import LazyRegistry


def test_names_come_without_importing_and_entries_on_first_use():
    sys.modules.pop("json.tool", None)
    registry: LazyRegistry[object] = LazyRegistry([("tool", "json.tool", "main"), ("dumps", "json", "dumps")])
    assert list(registry) == ["tool", "dumps"] and len(registry) == 2 and "tool" in registry
    assert "json.tool" not in sys.modules and registry.loaded("tool") is None
    assert callable(registry["tool"]) and "json.tool" in sys.modules
    assert registry.loaded("tool") is registry["tool"]


def test_a_replacement_keeps_its_place_and_a_new_name_goes_last():
    registry: LazyRegistry[object] = LazyRegistry([("a", "json", "dumps"), ("b", "json", "loads")])
    registry["a"] = 1
    registry["c"] = 3
    assert list(registry) == ["a", "b", "c"] and registry["a"] == 1
    assert registry.pop("b") is not None and list(registry) == ["a", "c"]
    assert registry.pop("nope", "gone") == "gone"
    del registry["c"]
    with pytest.raises(KeyError):
        del registry["c"]


def test_a_self_registering_module_that_forgets_its_name_is_a_key_error():
    registry: LazyRegistry[object] = LazyRegistry([("x", "json", None)])
    with pytest.raises(KeyError, match="did not register it"):
        registry["x"]
    with pytest.raises(KeyError):
        registry["unknown"]
