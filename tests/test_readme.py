"""Every ``python -m pipeline`` command of README.md's and docs/*.md's shell blocks runs as written,
the README stays short (under 300 lines, the two set-up commands first) and every relative link
of those pages points to a file (and heading) that exists.

Each command runs from a repository root (a temporary copy of this one, so that ``out/`` and
``results*/`` written by the tour never touch the working tree), with ``python`` = this
interpreter, and must exit 0, or the code a ``# ... exit N`` comment on its line states.
Commands that need what the README produces elsewhere get it the README's way: ``out/`` from
``make export``'s own command line, ``out/sudoku.csv`` from ``out/solve_sudoku.m`` under GNU
Octave. A command that needs an absent tool (Octave, Dask, a scheduler) is skipped with the
reason.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from doc_pages import PROJECT, README, page_with, pages

from pipeline.solvers import SOLVERS

TIMEOUT = 600  # s; a hang fails the command instead of the suite
EXPORT = ["-m", "pipeline", "export", "--to", "out", "--scheme", "ijk", "--order", "F"]  # make export


SHELL = ("sh", "bash", "shell", "console")


def shell_lines(page: Path) -> list[tuple[int, str]]:
    """``(line number, stripped line)`` of each line inside a shell block (an untagged fence too)."""
    lines, fence = [], None
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = None if fence is not None else (stripped[3:].strip() or "sh")
            continue
        if fence in SHELL and stripped:
            lines.append((number, stripped))
    return lines


def readme_commands() -> list[tuple[str, str]]:
    """``(where, command line)`` of each ``python -m pipeline`` line in a shell block of the README
    and of each docs page; ``where`` is ``README.md:L12``."""
    return [(f"{page.relative_to(PROJECT)}:L{number}", line) for page in pages()
            for number, line in shell_lines(page) if line.startswith("python -m pipeline")]


def expected_exit(line: str) -> int:
    comment = line.split("#", 1)[1] if "#" in line else ""
    found = re.search(r"\bexits? (?:code )?(\d+)", comment)
    return int(found.group(1)) if found else 0


def why_not_runnable(argv: list[str]) -> str | None:
    if "--scheduler" in argv:
        return f"needs a running Dask scheduler at {argv[argv.index('--scheduler') + 1]} (a placeholder address)"
    if "dask" in argv:
        try:
            import distributed  # noqa: F401
        except ImportError:
            return "dask[distributed] is not installed (extra 'dask')"
    if "--solver" in argv:
        tool = argv[argv.index("--solver") + 1]
        if tool in ("cbc", "glpk", "octave") and not shutil.which({"glpk": "glpsol", "octave": "octave-cli"}.get(tool, tool)):
            return f"solver {tool} not installed"
    return None


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """A copy of the repository (sources, examples, tests/data; no outputs, no .git)."""
    copy = tmp_path_factory.mktemp("readme") / "repo"
    shutil.copytree(PROJECT, copy, ignore=shutil.ignore_patterns(
        ".git", ".venv", "out", "results*", "__pycache__", "*.egg-info", ".pytest_cache", ".ruff_cache"))
    return copy


def run(root: Path, args: list[str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(root))
    return subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)


def prepare(root: Path, argv: list[str]) -> None:
    """Make the files an ``import`` or ``report`` line of the tour reads, as the README makes them."""
    if argv[3:4] == ["report"]:
        # each OUT directory comes from the README's own batch line writing it (that line may run
        # in another xdist worker's copy); running it again only resumes
        for out in (a for a in argv[4:] if not a.startswith("-")):
            if argv[argv.index(out) - 1] == "--to" or (root / out / "_SUCCESS").is_file():
                continue
            maker = [shlex.split(line, comments=True) for _, line in COMMANDS if " batch " in line
                     and out.rstrip("/") in [a.rstrip("/") for a in shlex.split(line, comments=True)]]
            assert maker, f"the README has no batch line writing {out}"
            done = run(root, maker[0][1:])
            assert done.returncode == 0, done.stderr
        return
    # a file another README line writes with --to (generate's CSV feeding batch): that line may
    # have run in another xdist worker's copy, so make it here when it is missing
    for arg in argv[3:]:
        if arg.startswith("-") or (root / arg).exists():
            continue
        maker = [shlex.split(line, comments=True) for _, line in COMMANDS
                 if f"--to {arg}" in line and shlex.split(line, comments=True) != argv]
        if maker:
            done = run(root, maker[0][1:])
            assert done.returncode == 0, done.stderr
    if not any(a.startswith("out/") for a in argv):
        return
    if not (root / "out" / "manifest.json").is_file():
        done = run(root, EXPORT)
        assert done.returncode == 0, done.stderr
    if "out/sudoku.csv" in argv and not (root / "out" / "sudoku.csv").is_file():
        octave = shutil.which("octave-cli") or shutil.which("octave")
        if octave is None:
            pytest.skip("out/sudoku.csv comes from out/solve_sudoku.m: GNU Octave (or MATLAB) not installed")
        subprocess.run([octave, "--no-gui", "--quiet", "--eval", "run('out/solve_sudoku.m')"], cwd=root,
                       capture_output=True, text=True, timeout=TIMEOUT, check=False)  # Octave 7.3 exits 1 always
        assert (root / "out" / "sudoku.csv").is_file(), "solve_sudoku.m under Octave wrote no out/sudoku.csv"


COMMANDS = readme_commands()


def test_the_tour_has_the_commands_the_issue_names():
    text = " ".join(line for where, line in COMMANDS if where.startswith("README.md:"))
    for name in ("examples/puzzle.txt", "examples/clues.csv", "examples/grid16.txt", "examples/solved.txt",
                 "examples/jigsaw_regions.txt", "examples/puzzles.parquet", "examples/puzzles.csv"):
        assert name in text, f"README tour no longer uses {name}"
    for name in ("examples/killer.json", "examples/thermo.json"):  # rule puzzles in the README's tour
        assert name in text, f"README tour no longer uses {name}"
    for where, line in COMMANDS:
        for path in re.findall(r"\bexamples/\S+", line):
            assert (PROJECT / path).is_file(), f"{where} {line!r} names {path}, which is not shipped"


@pytest.mark.parametrize("where,line", COMMANDS, ids=[where for where, _ in COMMANDS])
def test_readme_command(root, where, line):
    argv = shlex.split(line, comments=True)
    assert argv[:3] == ["python", "-m", "pipeline"]
    reason = why_not_runnable(argv)
    if reason:
        pytest.skip(f"{where}: {reason}")
    prepare(root, argv)
    done = run(root, argv[1:])
    want = expected_exit(line)
    assert done.returncode == want, (f"{where}: {line}\nexit {done.returncode}, expected {want}\n"
                                     f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    if want == 0:
        assert (done.stdout + done.stderr).strip(), f"{where} printed nothing"
        assert "Traceback" not in done.stderr


def test_solver_table_lists_exactly_the_registry():
    """The solver table (docs/solvers.md) is checked against the registry, so a new solver entry
    without a row (or a row for a removed one) fails here."""
    _, text = page_with("| name | what | reads |")
    table = text.split("| name | what | reads |", 1)[1].split("\n\n", 1)[0]
    first_cells = [line.split("|")[1] for line in table.splitlines()[2:] if line.startswith("|")]
    named = {name for cell in first_cells for name in re.findall(r"`([^`]+)`", cell.split("(")[0])}
    assert named == set(SOLVERS), (sorted(named - set(SOLVERS)), sorted(set(SOLVERS) - named))


def test_the_readme_is_short():
    """Issue 32: the README is a newcomer's page; tables and long explanations live in docs/."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < 300, f"README.md has {len(lines)} lines: move detail to a docs/ page"


def test_the_readme_starts_with_the_two_set_up_commands():
    """The first commands a newcomer meets are exactly `make export` then `make test`."""
    text = README.read_text(encoding="utf-8")
    first_block = text.split("```", 2)[1]
    commands = [line.split("#", 1)[0].strip() for line in first_block.splitlines()[1:]]
    assert [c for c in commands if c] == ["make export", "make test"]
    first_shell_lines = [line.split("#", 1)[0].strip() for _, line in shell_lines(README)[:2]]
    assert first_shell_lines == ["make export", "make test"], "another command comes before the set-up"


def heading_anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens,
    ``-1``, ``-2`` ... for repeats; headings inside code blocks are not headings."""
    anchors: set[str] = set()
    fence = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.strip().startswith("```"):
            fence = not fence
            continue
        found = None if fence else re.match(r"#{1,6} +(.+?) *#* *$", line)
        if found:
            slug = re.sub(r"[^\w\- ]", "", found.group(1).lower()).replace(" ", "-")
            anchor, repeat = slug, 0
            while anchor in anchors:
                repeat += 1
                anchor = f"{slug}-{repeat}"
            anchors.add(anchor)
    return anchors


def relative_links(page: Path) -> list[str]:
    """The targets of a page's Markdown links and images outside code blocks and code spans,
    web addresses left out."""
    prose = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    prose = re.sub(r"`[^`\n]*`", "", prose)
    targets = re.findall(r"\]\(([^)\s]+)\)", prose)
    return [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:", t)]


@pytest.mark.parametrize("page", pages(), ids=[str(p.relative_to(PROJECT)) for p in pages()])
def test_every_relative_link_points_to_a_file_and_heading(page):
    broken = []
    for target in relative_links(page):
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no file {file.relative_to(PROJECT) if file.is_relative_to(PROJECT) else file}")
        elif anchor and file.suffix == ".md" and anchor not in heading_anchors(file):
            broken.append(f"{target}: no heading with anchor #{anchor} in {file.name}")
    assert not broken, f"{page.relative_to(PROJECT)}: " + "; ".join(broken)


def test_the_link_checker_sees_a_broken_link_and_anchor(tmp_path):
    """The checker above can fail: a made-up page with one good and two broken links."""
    (tmp_path / "other.md").write_text("# Other page\n## What `--solver auto` picks\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("[ok](other.md#what---solver-auto-picks) [gone](missing.md) [bad](other.md#nowhere)\n"
                    "`[code](not-a-link.md)` [web](https://example.org/x)\n", encoding="utf-8")
    assert relative_links(page) == ["other.md#what---solver-auto-picks", "missing.md", "other.md#nowhere"]
    assert "what---solver-auto-picks" in heading_anchors(tmp_path / "other.md")
    assert "nowhere" not in heading_anchors(tmp_path / "other.md")


def python_blocks(page: Path) -> list[str]:
    """The ```python blocks of a page that hold doctest examples (``>>>``)."""
    return [block for block in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
            if ">>>" in block]


def test_the_readme_has_a_python_section():
    text = README.read_text(encoding="utf-8")
    assert "## From Python" in text and python_blocks(README)
    for name in ("read_puzzle", "solve", "count", "build", "export", "decode"):
        assert f".{name}(" in text, name


@pytest.mark.parametrize("page", [p for p in [README, *sorted((PROJECT / "docs").glob("*.md"))] if python_blocks(p)],
                         ids=lambda p: str(p.relative_to(PROJECT)))
def test_python_examples_of_the_pages_run_as_doctests(root, page):
    """Every ``>>>`` example of the README and the docs pages runs from the repository root (a
    copy: the files they write stay out of the checkout)."""
    blocks = python_blocks(page)
    script = ("import doctest, json, sys\n"
              "blocks = json.loads(sys.stdin.read())\n"
              "failed = 0\n"
              "for i, block in enumerate(blocks):\n"
              "    test = doctest.DocTestParser().get_doctest(block, {}, f'block {i}', 'page', 0)\n"
              "    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)\n"
              "    failed += runner.run(test).failed\n"
              "sys.exit(1 if failed else 0)\n")
    proc = subprocess.run([sys.executable, "-c", script], input=json.dumps(blocks), cwd=root,
                          env=dict(os.environ, PYTHONPATH=str(root)), capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


def test_the_readme_lists_every_rule_family():
    """The README's "Rule families" names every registered rule kind (issue 33: supported and
    missing families are listed), so a new rule is not left out of it."""
    from pipeline.core.rules import RULES

    text = README.read_text(encoding="utf-8")
    section = text.split("## Rule families", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`([a-z]+)`", section))
    assert set(RULES) <= named, sorted(set(RULES) - named)
    assert "Still missing" in section
