"""One version: pyproject.toml -> the installed metadata -> ``pipeline.__version__`` and ``--version``."""
from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pipeline
from pipeline.core import version

PROJECT = Path(__file__).resolve().parents[2]
PYPROJECT_VERSION = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]["version"]


def test_version_comes_from_the_metadata_and_matches_pyproject():
    assert pipeline.__version__ == version.__version__ == metadata.version("sudoku-pipeline")
    assert pipeline.__version__ == PYPROJECT_VERSION


def test_version_option_prints_name_and_version():
    for command in ([sys.executable, "-m", "pipeline", "--version"],
                    [str(Path(sys.executable).with_name("sudoku-pipeline")), "--version"]):
        r = subprocess.run(command, capture_output=True, text=True, cwd=PROJECT, timeout=60)
        assert (r.returncode, r.stdout, r.stderr) == (0, f"sudoku-pipeline {PYPROJECT_VERSION}\n", ""), command


def test_checkout_without_metadata_reads_its_pyproject(monkeypatch):
    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    assert version.package_version() == PYPROJECT_VERSION


def test_checkout_version_reads_only_this_distributions_project_table(tmp_path):
    f = tmp_path / "pyproject.toml"
    f.write_text('[build-system]\nversion = "9"\n[project]\nname = "sudoku-pipeline"\nversion = "1.2.3"\n'
                 '[tool.x]\nversion = "7"\n')
    assert version._checkout_version(f) == "1.2.3"
    f.write_text('[project]\nname = "other"\nversion = "1.2.3"\n')
    assert version._checkout_version(f) is None
    assert version._checkout_version(tmp_path / "missing.toml") is None


def test_no_metadata_and_no_pyproject_is_unknown(tmp_path):
    """A copy of the module outside any checkout, in an interpreter without site-packages (-S: no
    installed metadata): the version says it is unknown instead of failing."""
    copy = tmp_path / "a" / "b" / "version.py"
    copy.parent.mkdir(parents=True)
    copy.write_text((PROJECT / "pipeline" / "core" / "version.py").read_text())
    code = ("import importlib.util, sys; s = importlib.util.spec_from_file_location('v', sys.argv[1]); "
            "m = importlib.util.module_from_spec(s); s.loader.exec_module(m); print(m.__version__)")
    # cwd elsewhere: the checkout's root holds the editable install's egg-info
    r = subprocess.run([sys.executable, "-S", "-c", code, str(copy)], capture_output=True, text=True, timeout=60,
                       cwd=tmp_path)
    assert (r.returncode, r.stdout.strip()) == (0, version.UNKNOWN_VERSION), r.stderr
    # the same module inside the checkout, still without metadata: pyproject.toml's version
    r = subprocess.run([sys.executable, "-S", "-c", code, str(PROJECT / "pipeline" / "core" / "version.py")],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert (r.returncode, r.stdout.strip()) == (0, PYPROJECT_VERSION), r.stderr


def test_version_is_listed_by_dir_though_read_on_first_use():
    assert "__version__" in dir(pipeline) and "__version__" in dir(version)
    assert "build_model" in dir(pipeline)
