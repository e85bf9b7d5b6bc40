"""Fuzz of the command line (fixed budget, derandomised): option values and command arguments never
give a traceback; a value is accepted within its stated bounds or refused with one line. Moved
from test_cli.py (at the 800-line limit).
"""
from __future__ import annotations

import contextlib
import io
import json
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.cli.main import build_parser, main
from pipeline.cli.args import check_ranges
from pipeline.core.errors import PipelineError


# ---------------------------------------------------------------------------------------------
# fuzz (fixed budget, derandomised): option values and command arguments never give a
# traceback; a value is accepted within its stated bounds or refused with one line
# ---------------------------------------------------------------------------------------------
FUZZ_CLI = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
NUMBER_TEXT = st.one_of(st.text(max_size=12), st.floats().map(repr), st.integers(-10 ** 20, 10 ** 20).map(str),
                        st.sampled_from(["nan", "-nan", "inf", "-inf", "1e400", "0", "-0", "0x10", "1_000", " 5", "٣"]))


def parse_in_process(argv):
    """(args or None, exit code, stderr) of parsing ``argv`` plus the range checks, without running."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            args = build_parser().parse_args(argv)
            check_ranges(args)
        except SystemExit as e:
            return None, e.code, err.getvalue()
        except PipelineError as e:
            return None, 2, f"error: {e}\n"
    return args, 0, err.getvalue()


@FUZZ_CLI
@given(option=st.sampled_from(["--time-limit", "--threads", "--limit", "--size"]), value=NUMBER_TEXT)
def test_numeric_option_values_are_in_bounds_or_refused(option, value):
    args, code, err = parse_in_process(["count", f"{option}={value}"])
    if args is None:
        assert code == 2 and len(err.splitlines()) == 1 and "error" in err and "Traceback" not in err, err
        return
    if option == "--time-limit":
        assert math.isfinite(args.time_limit) and args.time_limit > 0
    elif option == "--threads":
        assert 1 <= args.threads <= 256
    elif option == "--size":
        assert args.size >= 1
    else:
        assert isinstance(args.limit, int)      # cmd_count refuses < 1 itself (tested in BAD)


FORMAT_TOKENS = st.sampled_from(["csv", "mps", "lp", "mat", "matlab", "cnf", "opb", "CSV", " lp ", "", "bogus", "m",
                                 "pq", "all", ",", "csv;mps", "../csv"])


@settings(max_examples=30, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(tokens=st.lists(FORMAT_TOKENS, max_size=4))
def test_export_formats_lists_write_those_formats_or_nothing(tmp_path_factory, tokens):
    out = tmp_path_factory.mktemp("formats") / "out"
    code = main(["export", "." * 16, "--to", str(out), "--formats", ",".join(tokens), "--quiet"])
    if code == 0:
        meta = json.loads((out / "manifest.json").read_text())
        listed = {name for names in meta["files"].values() for name in names}
        assert {p.name for p in out.iterdir()} == listed | {"manifest.json"}
        assert meta["files"], "an export that names no format must be refused"
    else:
        assert code == 2 and not out.exists()


def test_an_empty_formats_list_is_refused_not_read_as_all(tmp_path, capsys):
    """``--formats "$F"`` with F unset exported every format; ``','`` was refused already."""
    out = tmp_path / "out"
    assert main(["export", "." * 16, "--to", str(out), "--formats", ""]) == 2
    assert capsys.readouterr().err.startswith("error: formats: '' names no format; known: csv, ")
    assert not out.exists()


@FUZZ_CLI
@given(text=st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=90)
       .filter(lambda t: t.strip() not in ("-", "")))
def test_verify_any_grid_text_gives_a_verdict_or_one_line(text):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["verify", text])
        except SystemExit as e:
            code = e.code
    assert code in (0, 1, 2)
    if code == 2:
        assert len(err.getvalue().splitlines()) == 1 and "Traceback" not in err.getvalue()
    else:
        assert out.getvalue().startswith("ok: " if code == 0 else "invalid: ")
