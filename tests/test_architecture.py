"""The layers hold: import-linter's contract (pyproject.toml) and no project import inside a
function (the old way of dodging an import cycle). See docs/architecture.md."""
from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
PACKAGES = ("pipeline", "formats")

# In-function project imports still to be moved to module level, as (file, imported module).
# This list may only shrink: a new entry fails the test below.
KNOWN_LAZY: set[tuple[str, str]] = set()


def _lint_imports() -> str | None:
    beside = Path(sys.executable).with_name("lint-imports")
    return str(beside) if beside.exists() else shutil.which("lint-imports")


def test_import_linter_layers_contract_is_kept():
    exe = _lint_imports()
    if exe is None:
        pytest.skip("lint-imports not installed (pip install '.[lint]')")
    done = subprocess.run([exe], cwd=PROJECT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "KEPT" in done.stdout


def _project_module(node: ast.ImportFrom | ast.Import) -> str | None:
    if isinstance(node, ast.ImportFrom):
        if node.level:
            return "." * node.level + (node.module or "")
        names = [node.module or ""]
    else:
        names = [alias.name for alias in node.names]
    for name in names:
        if name.split(".")[0] in PACKAGES:
            return name
    return None


def function_level_project_imports() -> set[tuple[str, str]]:
    """``(file, module)`` for every project import placed inside a function body."""
    found = set()
    for package in PACKAGES:
        for path in sorted((PROJECT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for func in ast.walk(tree):
                if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for node in ast.walk(func):
                    if isinstance(node, (ast.Import, ast.ImportFrom)):
                        module = _project_module(node)
                        if module is not None:
                            found.add((str(path.relative_to(PROJECT)), module))
    return found


def test_no_new_project_import_inside_a_function():
    found = function_level_project_imports()
    new = sorted(found - KNOWN_LAZY)
    assert not new, f"project imports inside functions (move them to module level): {new}"


def test_known_lazy_imports_list_is_not_stale():
    stale = sorted(KNOWN_LAZY - function_level_project_imports())
    assert not stale, f"remove from KNOWN_LAZY, they are gone: {stale}"


def test_scanner_finds_a_function_level_import(tmp_path):
    # the scanner itself can fail: a nested import is seen
    tree = ast.parse("def f():\n    from pipeline.core.build import build_model\n")
    func = tree.body[0]
    assert [_project_module(n) for n in ast.walk(func) if isinstance(n, ast.ImportFrom)] == ["pipeline.core.build"]


def test_architecture_doc_names_every_module():
    # docs/architecture.md lists the tree one line per module: a new module gets its line there
    doc = (PROJECT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"(?<![\w/.])((?:pipeline|formats)/[\w/]*\.py)\b", doc))
    missing = [str(path.relative_to(PROJECT)) for package in PACKAGES
               for path in sorted((PROJECT / package).rglob("*.py"))
               if str(path.relative_to(PROJECT)) not in named]
    assert not missing, f"modules missing from docs/architecture.md's tree: {missing}"
