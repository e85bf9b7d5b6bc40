"""pipeline.core.manifest: a manifest's fields are checked against each other (issue 11, items 2 and 8),
and any damaged manifest gives a one-line FormatError, never another exception (fuzzed with a
fixed budget)."""
from __future__ import annotations

import json
import re
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formats.files import load_manifest_file
from formats.solutions import solution_bytes_limit
from pipeline.core.build import build_model
from pipeline.core.errors import FormatError, PipelineError
from pipeline.core.manifest import Manifest, manifest_from_dict, manifest_from_json, metadata_convention, model_metadata
from pipeline.core.puzzle import parse_puzzle

MAX_EXAMPLES = 300
FUZZ = settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])


def reduce_meta() -> dict:
    model = build_model(parse_puzzle("1...........3...", box="2x2"), "block", "C", "reduce")
    return json.loads(json.dumps(model_metadata(model)))


META = reduce_meta()


def test_valid_manifest_round_trips():
    man = manifest_from_dict(META)
    assert isinstance(man, Manifest)
    assert man.columns.tolist() == META["kept_columns"]


@pytest.mark.parametrize("change,message", [
    ({"n_clues": 3}, "'n_clues' says 3 but its puzzle has 2"),
    ({"puzzle": "1..............."}, "'n_clues' says 2 but its puzzle has 1"),
    ({"n": 9}, "'n' says 9"),
    ({"puzzle": "/etc/passwd"}, "not the 16 cells"),
    ({"puzzle": "-"}, "not the 16 cells"),
    ({"puzzle": 12}, "'puzzle' must be a string"),
    ({"h": "2"}, "'h' must be an integer"),
    ({"h": True}, "'h' must be an integer"),
    ({"w": 10 ** 30}, "'w' must be an integer"),
    ({"clue_encoding": "zip"}, "unknown clue encoding"),
    ({"scheme": ["ijk"]}, "'scheme' must be a string"),
    ({"kept_columns": "1,2"}, "needs 'kept_columns'"),
    ({"kept_columns": [1.5]}, "needs 'kept_columns'"),
    ({"kept_columns": [10 ** 30]}, "outside 0..63"),
    ({"kept_columns": [-1]}, "outside 0..63"),
    ({"kept_columns": [3, 2]}, "must be increasing"),
    ({"kept_columns": [2, 2]}, "must be increasing"),
])
def test_inconsistent_fields_refused(change, message):
    with pytest.raises(FormatError, match="^manifest: .*" + message.replace("(", r"\(").replace(".", r"\.")):
        manifest_from_dict({**META, **change}, where="manifest")


@pytest.mark.parametrize("text,message", [("[]", "found array"), ('"x"', "found string"), ("null", "found null"),
                                          ("[" * 100_000, "not a readable JSON"), ("{", "not a readable JSON")])
def test_not_an_object(text, message):
    with pytest.raises(FormatError, match=message):
        manifest_from_json(text, "m.json")


def test_load_manifest_file_of_a_directory(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps(META))
    assert load_manifest_file(tmp_path).columns.tolist() == META["kept_columns"]


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
                    max_leaves=20)


def check(meta) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            man = manifest_from_json(json.dumps(meta), "m.json")
        except PipelineError as e:
            assert str(e) and "\n" not in str(e).strip()
            return
    assert isinstance(man, Manifest)
    # what import sizes an answer by reads the accepted fields without a traceback
    assert solution_bytes_limit(man) > 0


@FUZZ
@given(key=st.sampled_from(sorted(META)), value=JSON)
def test_fuzz_one_field_replaced(key, value):
    check({**META, key: value})


@FUZZ
@given(keys=st.sets(st.sampled_from(sorted(META))), kept=st.lists(st.integers(-2, 70) | st.integers(), max_size=70))
def test_fuzz_fields_dropped_and_kept_columns(keys, kept):
    check({**{k: v for k, v in META.items() if k not in keys}, "kept_columns": kept})


@FUZZ
@given(meta=JSON)
def test_fuzz_any_json(meta):
    check(meta)


def test_metadata_convention_reads_what_the_writers_record_and_names_what_is_wrong():
    from pipeline.core.puzzle import parse_puzzle

    for text, kw in (("." * 81, {}), ("." * 36, {"box": "2x3"}), ("." * 81, {"variant": "x"})):
        model = build_model(parse_puzzle(text, **kw), "block", "C")
        conv = metadata_convention(model_metadata(model), "f.cnf")
        assert (conv.scheme, conv.order, conv.n, conv.n_vars) == ("block", "C", model.convention.n,
                                                                  model.convention.n_vars)
    meta = model_metadata(build_model(parse_puzzle("." * 81)))
    with pytest.raises(FormatError, match=r"^f\.lp: metadata comment lacks 'scheme'$"):
        metadata_convention({k: v for k, v in meta.items() if k != "scheme"}, "f.lp")
    with pytest.raises(FormatError, match=r"^f\.lp: metadata comment: "):
        metadata_convention({**meta, "h": "three"}, "f.lp")
    with pytest.raises(FormatError, match=r"^f\.lp: metadata comment: .*ijkl"):
        metadata_convention({**meta, "scheme": "ijkl"}, "f.lp")


@pytest.mark.parametrize("key,value,said", [
    ("formats", "x", "field 'formats' must be an object, found string"),
    ("formats", {"csv": 3}, "field 'formats' must map each format to an object"),
    ("columns", "x", "field 'columns' must be a whole number of at least 0, found 'x'"),
    ("columns", [1, 2], "field 'columns' must be a whole number of at least 0, found [1, 2]"),
    ("rows", -3, "field 'rows' must be a whole number of at least 0, found -3"),
    ("inequalities", "many", "field 'inequalities' must be a whole number of at least 0, found 'many'"),
    ("files", [], "field 'files' must be an object, found array"),
    # a CNF answer's numbers are checked against it: a wrong count blamed the answer ('variable 419
    # is beyond the model's 216 variables')
    ("formats", {"cnf": {"variables": "lots"}},
     "field 'formats.cnf.variables' must be a whole number of at least the model's 64 cell variables, found 'lots'"),
    ("formats", {"opb": {"variables": 10}},
     "field 'formats.opb.variables' must be a whole number of at least the model's 64 cell variables, found 10"),
])
def test_fields_import_sizes_answers_by_are_checked(key, value, said):
    """``import`` sized an answer by ``formats`` and ``columns`` unchecked: a string there was an
    AttributeError or ValueError traceback."""
    with pytest.raises(FormatError, match="^manifest m.json: " + re.escape(said) + "$"):
        manifest_from_json(json.dumps({**META, key: value}), "m.json")
