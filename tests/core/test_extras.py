"""Install hints match how the package was installed (issue 32): the checkout's editable install
stays editable, an installed wheel gets the distribution's extra."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from pipeline.core import extras
from pipeline.core.extras import DISTRIBUTION, EXTRAS, checkout_root, install_hint

PROJECT = Path(__file__).resolve().parents[2]


def test_the_checkout_is_found():
    assert checkout_root() == PROJECT


def test_in_the_checkout_root_the_hint_is_an_editable_install_of_dot(monkeypatch):
    monkeypatch.chdir(PROJECT)
    hint = install_hint("fast")
    assert hint.endswith("-m pip install -e '.[fast]'")
    python = hint.split(" -m ")[0]
    assert Path(python).resolve() == Path(os.path.realpath(os.sys.executable))


def test_elsewhere_the_hint_names_the_checkout(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert install_hint("plot").endswith(f"-m pip install -e '{PROJECT}[plot]'")
    assert install_hint(None).endswith(f"-m pip install -e '{PROJECT}'")


def test_an_installed_copy_gets_the_distribution(monkeypatch, tmp_path):
    monkeypatch.setattr(extras, "checkout_root", lambda: None)
    monkeypatch.chdir(tmp_path)
    assert install_hint("cpsat").endswith(f"-m pip install '{DISTRIBUTION}[cpsat]'")
    assert install_hint(None).endswith(f"-m pip install '{DISTRIBUTION}'")


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_every_named_extra_is_declared_in_pyproject(extra):
    import tomllib

    declared = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert extra in declared and declared[extra]


def test_the_old_sat_extra_is_kept_empty_and_its_packages_are_core():
    import tomllib

    project = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]
    assert project["optional-dependencies"]["sat"] == []
    core = " ".join(project["dependencies"])
    assert "python-sat" in core and "pindakaas" in core


def test_from_the_filesystem_root_the_python_path_stays_absolute(monkeypatch):
    monkeypatch.setattr(extras, "checkout_root", lambda: None)
    monkeypatch.chdir("/")
    python = install_hint(None).split(" -m ")[0]
    assert Path(python).is_absolute()
