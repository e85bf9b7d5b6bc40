"""The option kernel's float type for the command line (pipeline.core.options.TypedFloat)."""
from __future__ import annotations

import copy
import pickle

import pytest

from pipeline.core.errors import PipelineError
from pipeline.core.options import Bound, float_option


@pytest.mark.parametrize("text, shown", [("1e400", "1e400"), ("-1E400", "-1E400"), ("1e-400", "1e-400"),
                                         ("inf", "inf"), ("nan", "nan"), ("0", "0"), ("2.50", "2.5"), ("1e3", "1000")])
def test_a_typed_float_shows_its_text_only_when_the_value_is_not_what_it_says(text, shown):
    """1e400 overflowed to inf and 1e-400 to 0, and messages said 'found inf', 'found 0'."""
    value = float_option(text)
    assert f"{value:g}" == shown
    assert repr(value) == (shown if shown != f"{float(text):g}" else repr(float(text)))


def test_a_bound_refusing_a_typed_float_shows_what_was_typed():
    with pytest.raises(PipelineError, match=r"^generate: --log-interval must be a finite number at least 0, found 1e400$"):
        Bound(0.0).apply("--log-interval", float_option("1e400"), "generate", PipelineError)


def test_a_bound_without_an_owner_names_the_option_as_a_command_line_does():
    """generate's --seed said "generate: --seed must be ..." where --clues says "--clues: must be ..."."""
    with pytest.raises(PipelineError, match=r"^--seed: must be an integer from 0 to 9, found -1$") as caught:
        Bound(0, 9, above="refuse", integer=True, what="an integer").apply("--seed", -1, "", PipelineError)
    assert caught.value.option == "--seed" and str(caught.value.named("-s")) == "-s: must be an integer from 0 to 9, found -1"


def test_a_typed_float_is_sent_and_copied_as_its_value():
    """Batch sends its options to worker processes: the copy is the plain float."""
    value = float_option("1e400")
    for copied in (pickle.loads(pickle.dumps(value)), copy.deepcopy(value)):
        assert type(copied) is float and copied == float("inf")
