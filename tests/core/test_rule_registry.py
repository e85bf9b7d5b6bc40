"""The rule registry (pipeline/core/rules/__init__.py): every built-in kind in row order, each
module imported when its kind is first used, the table's facts held to the classes, and plug-ins
added and removed."""
from __future__ import annotations

import subprocess
import sys

import pytest

from pipeline.core.errors import PuzzleError
from pipeline.core.rules import BUILTIN_RULES, RULES, Rule, get_rule, register_rule, rule_order, unregister_rule


def test_the_table_matches_the_classes():
    for kind, module, name, is_global in BUILTIN_RULES:
        cls = RULES[kind]
        assert (cls.kind, cls.__module__, cls.__name__) == (kind, f"pipeline.core.rules.{module}", name)
        assert cls.global_rule is is_global, kind
    assert list(RULES) == [kind for kind, _, _, _ in BUILTIN_RULES]
    assert RULES.global_kinds() == [kind for kind, cls in RULES.items() if cls.global_rule]


def test_a_class_is_importable_from_the_package_by_name():
    from pipeline.core import rules

    assert rules.Cage is RULES["cage"] and rules.window_units.__module__ == "pipeline.core.rules.units"
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        rules.Nope   # noqa: B018
    with pytest.raises(PuzzleError, match=r"^rule: unknown rule 'nope'; expected one of windoku, diagonal"):
        get_rule("nope")


def test_only_the_kinds_used_are_imported():
    code = ("import sys\n"
            "from pipeline.core.puzzle import parse_puzzle\n"
            "parse_puzzle({'size': 4, 'rules': [{'rule': 'thermo', 'cells': ['r1c1', 'r1c2']}]})\n"
            "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('pipeline.core.rules.')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    loaded = set(eval(done.stdout))   # noqa: S307 (our own list of names)
    assert "order" in loaded
    assert not loaded & {"skyscraper", "anyof", "chaos", "connected", "fullrank", "automaton", "pairlines", "classlines"}


def test_a_plug_in_goes_last_and_a_replacement_keeps_its_place():
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Plug(Rule):
        kind = "plugtest"
        families = ("plugtest",)
        global_rule = True

    original = RULES["thermo"]
    position = rule_order(original.__new__(original))
    try:
        register_rule(Plug)
        assert list(RULES)[-1] == "plugtest" and "plugtest" in RULES.global_kinds()
        replacement = dataclass(frozen=True)(type("Thermo2", (original,), {}))
        register_rule(replacement)
        assert RULES["thermo"] is replacement and list(RULES).index("thermo") == position
    finally:
        register_rule(original)
        unregister_rule("plugtest")
    assert "plugtest" not in RULES and RULES["thermo"] is original and unregister_rule("plugtest") is None


def test_monkeypatching_a_kind_in_and_out(monkeypatch):
    """Tests register a kind for a while (``monkeypatch.setitem``); the registry takes it back."""
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Temporary(Rule):
        kind = "temporarytest"
        families = ("temporarytest",)

    with monkeypatch.context() as patch:
        patch.setitem(RULES, "temporarytest", Temporary)
        assert RULES["temporarytest"] is Temporary and list(RULES)[-1] == "temporarytest"
    assert "temporarytest" not in RULES
    with pytest.raises(PuzzleError, match="is kind 'temporarytest', not 'other'"):
        RULES["other"] = Temporary
    with pytest.raises(KeyError):
        del RULES["temporarytest"]


@pytest.mark.parametrize("word, known", [("killer", "cage"), ("Killer Cage", "cage"), ("thermometer", "thermo"),
                                         ("Anti-Knight", "antiknight"), ("non_consecutive", "nonconsecutive"),
                                         ("German whispers", "whisper"), ("kropky", "kropki"), ("arrows", "arrow")])
def test_an_unknown_rule_word_names_the_registered_one(word, known):
    """A setter's word for a rule ("killer") was answered with the list of sixty kinds alone."""
    with pytest.raises(PuzzleError, match=rf"^rule: unknown rule {word!r} \(did you mean {known!r}\?\); expected one of "):
        get_rule(word)
    assert RULES[known].kind == known


@pytest.mark.parametrize("word", ["nope", "xyz", "", "cages and more"])
def test_no_suggestion_without_a_close_word(word):
    with pytest.raises(PuzzleError, match=rf"^rule: unknown rule {word!r}; expected one of windoku"):
        get_rule(word)
