"""The Examples sections of the docstrings run as doctests, and the public functions that issue 7
lists have one (Parameters, Returns, Raises and Examples, numpydoc style)."""
from __future__ import annotations

import doctest
import importlib
import pkgutil
import re

import pytest

import formats
import pipeline

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

# Public functions that must carry a numpydoc docstring with a runnable Examples section, as
# "module:attribute" (the attribute may be re-exported; the doctest runs where it is defined).
REQUIRED = [
    "pipeline.core.puzzle:parse_puzzle",
    "pipeline.core.build:build_model",
    "pipeline.core.verify:verify_grid",
    "pipeline.solvers.highs:solve",
    "pipeline.solvers.highs:count_solutions",
    "formats:write_model",
    "formats:read_model",
    "formats.solutions:read_solution",
    "formats:export_model",
    "formats:import_solution",
    "pipeline.batch:run_batch",
]
# Being written on other branches of issue 7 (s7-cli: export_model, import_solution; s7-batch:
# run_batch): skipped while they have no Examples yet. Empty this set once they are merged.
PENDING: set[str] = set()
SECTIONS = ("Parameters", "Returns", "Raises", "Examples")


def _modules() -> list[str]:
    names = ["pipeline", "formats"]
    for package in (pipeline, formats):
        names += [info.name for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
                  if not info.name.endswith("__main__")]
    return sorted(names)


def _run(tests: list[doctest.DocTest]) -> tuple[int, int, str]:
    """(failed, attempted, report) of running ``tests``."""
    out: list[str] = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in tests:
        runner.run(test, out=out.append)
    result = runner.summarize(verbose=False)
    return result.failed, result.attempted, "".join(out)


@pytest.mark.parametrize("name", _modules())
def test_module_doctests_pass(name):
    module = importlib.import_module(name)
    tests = doctest.DocTestFinder(exclude_empty=True).find(module)
    failed, attempted, report = _run(tests)
    assert failed == 0, f"{name}: {failed} of {attempted} doctest examples failed\n{report[-4000:]}"


def _has_section(doc: str, section: str) -> bool:
    """A numpydoc section header: the word on its own line, underlined by as many dashes."""
    return re.search(rf"^[ ]*{section}\n[ ]*-{{{len(section)}}}[ ]*$", doc, re.M) is not None


def _resolve(spec: str):
    module_name, attribute = spec.split(":")
    return getattr(importlib.import_module(module_name), attribute)


@pytest.mark.parametrize("spec", REQUIRED)
def test_listed_public_function_has_numpydoc_and_examples(spec):
    func = _resolve(spec)
    doc = func.__doc__ or ""
    missing = [s for s in SECTIONS if not _has_section(doc, s)]
    if spec in PENDING and missing:
        pytest.skip(f"{spec}: docstring being written on another branch (missing {', '.join(missing)})")
    assert not missing, f"{spec}: docstring lacks the numpydoc section(s) {', '.join(missing)}"
    tests = doctest.DocTestFinder(recurse=False).find(func, func.__name__, globs=vars(importlib.import_module(func.__module__)))
    failed, attempted, report = _run(tests)
    assert attempted > 0, f"{spec}: its Examples section has no >>> lines"
    assert failed == 0, f"{spec}: {failed} of {attempted} examples failed\n{report[-4000:]}"


def test_required_list_names_real_functions():
    # a renamed or moved function must be renamed here too, not silently dropped
    for spec in REQUIRED:
        assert callable(_resolve(spec)), spec


def test_section_check_needs_the_underline():
    assert not _has_section("Examples\n    ---\n", "Examples")
    assert not _has_section("see the Examples\n    --------\n", "Examples")
    assert _has_section("x\n    Examples\n    --------\n", "Examples")


def test_a_failing_example_is_reported():
    # the runner itself can fail: a wrong expected output counts as a failure
    test = doctest.DocTestParser().get_doctest(">>> 1 + 1\n3\n", {}, "probe", None, 0)
    failed, attempted, _ = _run([test])
    assert (failed, attempted) == (1, 1)
