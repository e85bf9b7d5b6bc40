"""The batch's one-line reasons (pipeline/batch/text.py): a failed run's reason keeps the whole
message on one line, bounded, and tells when the project must be installed where chunks go."""
from __future__ import annotations

import pytest

from pipeline.batch.text import LONGEST_REASON, needs_project_installed, run_failure


def test_a_reason_of_several_lines_is_joined_not_cut_to_its_first():
    assert run_failure(RuntimeError("Error during deserialization. This frequently\noccurs if ...\n")) == (
        "RuntimeError: Error during deserialization. This frequently occurs if ...")


def test_a_long_reason_is_cut_at_a_word_with_an_ellipsis():
    text = run_failure(ValueError("word " * 200))
    assert text.endswith("word ...") and len(text) <= len("ValueError: ") + LONGEST_REASON + 4


def test_an_empty_message_is_the_type_name():
    assert run_failure(EOFError()) == "EOFError: EOFError"


def test_cancelled_futures_say_how_many_chunks_and_why():
    client = pytest.importorskip("distributed.client")
    groups = [client.CancelledFuturesGroup([client.FutureCancelledError(f"k{j}", reason) for j in range(n)], reason)
              for n, reason in ((3, "scheduler-connection-lost"), (1, "lost dependencies"))]
    assert run_failure(client.FuturesCancelledError(groups)) == (
        "FuturesCancelledError: 4 chunks cancelled by Dask (lost dependencies, scheduler-connection-lost)")


@pytest.mark.parametrize("error, expected", [
    (ModuleNotFoundError("No module named 'pipeline'", name="pipeline"), True),
    (ModuleNotFoundError("No module named 'pipeline.batch'", name="pipeline.batch"), True),
    (ModuleNotFoundError("No module named 'numba'", name="numba"), False),
    (RuntimeError("Error during deserialization of the task graph. This frequently"), True),
    (RuntimeError("a worker died"), False),
])
def test_only_a_project_that_cannot_be_loaded_asks_for_an_install(error, expected):
    assert needs_project_installed(error) is expected
