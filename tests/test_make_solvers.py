"""`make solvers` (the first step of `.ci/run`) run for real on a fake machine (issue 32).

The Makefile's own `solvers` recipe runs under make with PATH holding only stubs: every command of
APT_COMMANDS, `id` (root), an `apt-get` that logs its calls and a fake `octave-cli` that answers the
figure probe as a real Octave does. No apt, no Octave, well under a second per case.

A figure Octave cannot print headless (e.g. without its default font, FreeSans.otf from
fonts-freefont-otf) is no failed set-up: exit 0 and one line with the probe's reason, which the
figure tests skip with. Only a failed apt-get install is.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
MAKE = shutil.which("make")
pytestmark = pytest.mark.skipif(MAKE is None or not Path("/bin/sh").exists(),
                                reason="no make or /bin/sh here: the Makefile's solvers target not run")

# what Octave 7.3 says without fonts-freefont-otf, as tests/formats/octave_figure_probe.m reports it
FONT_REASON = ("__go_axes__: ft_text_renderer: invalid bounding box, cannot render, unable to create "
               "graphics handle (ft_manager: unable to load font: "
               "/usr/share/fonts/opentype/freefont/FreeSans.otf)")
NO_TOOLKIT = "no graphics toolkits are available!"

# octave-cli as the probe sees it; FAKE_OCTAVE: "prints", "fails" (FAKE_REASON), or "needs-fonts"
# (fails until the fake apt-get installed fonts-freefont-otf)
FAKE_OCTAVE = """\
import os, re, sys
from pathlib import Path
state = Path(os.environ["FAKE_STATE"])
script = sys.argv[sys.argv.index("--eval") + 1]
with open(state / "octave.log", "a") as log:
    log.write(script + "\\n")
png = re.search(r"probe_png = '([^']*)'", script).group(1)
mode = os.environ["FAKE_OCTAVE"]
if mode == "prints" or (mode == "needs-fonts" and (state / "fonts-freefont-otf").exists()):
    Path(png).write_bytes(b"\\x89PNG\\r\\n\\x1a\\n")
    print("figure probe: printed with gnuplot")
else:
    print("warning: ft_manager: unable to load font: /usr/share/fonts/opentype/freefont/FreeSans.otf",
          file=sys.stderr)
    print("figure probe: cannot print: " + os.environ["FAKE_REASON"])
"""

# apt-get: logs each call; FAKE_APT "ok" or "fails-PACKAGE" (an install naming PACKAGE exits 100);
# an install makes the package's files: the fonts (a marker) and gnuplot-nox's gnuplot
FAKE_APT_GET = """\
import os, sys
from pathlib import Path
state, bin_dir = Path(os.environ["FAKE_STATE"]), Path(sys.argv[0]).parent
with open(state / "apt.log", "a") as log:
    log.write(" ".join(sys.argv[1:]) + "\\n")
if "install" in sys.argv:
    if os.environ["FAKE_APT"].removeprefix("fails-") in sys.argv:
        print("E: Unable to locate package", file=sys.stderr)
        sys.exit(100)
    if "fonts-freefont-otf" in sys.argv:
        (state / "fonts-freefont-otf").touch()
    if "gnuplot-nox" in sys.argv:
        (bin_dir / "gnuplot").write_text("#!/bin/sh\\nexit 0\\n")
        (bin_dir / "gnuplot").chmod(0o755)
"""


def _make_variable(name: str) -> list[str]:
    """A variable of the Makefile, as make itself expands it."""
    proc = subprocess.run([MAKE, "-s", "--no-print-directory", "-C", str(PROJECT),
                           "--eval", f"print-var: ; @echo $({name})", "print-var"],
                          capture_output=True, text=True, timeout=30, check=True)
    return proc.stdout.split()


def _script(path: Path, text: str, interpreter: str = "/bin/sh") -> None:
    path.write_text(f"#!{interpreter}\n{text}")
    path.chmod(0o755)


def _machine(tmp_path: Path, *, without: tuple[str, ...] = ()) -> tuple[Path, Path]:
    """(bin, state): every APT command but ``without`` as a stub, root, fake apt-get and octave-cli,
    and only the tools the recipe itself needs (mktemp, grep, head, rm) from the real system."""
    bin_dir, state = tmp_path / "bin", tmp_path / "state"
    bin_dir.mkdir()
    state.mkdir()
    for command in _make_variable("APT_COMMANDS"):
        if command not in without:
            _script(bin_dir / command, "exit 0\n")
    _script(bin_dir / "id", 'echo 0\n')
    _script(bin_dir / "octave-cli", FAKE_OCTAVE, sys.executable)
    _script(bin_dir / "apt-get", FAKE_APT_GET, sys.executable)
    for tool in ("mktemp", "grep", "head", "rm"):
        real = shutil.which(tool)
        assert real is not None, f"{tool} not found"
        (bin_dir / tool).symlink_to(real)
    return bin_dir, state


def _make_solvers(bin_dir: Path, state: Path, *, octave: str, apt: str = "ok",
                  reason: str = FONT_REASON) -> subprocess.CompletedProcess:
    tmp = state / "tmp"
    tmp.mkdir(exist_ok=True)
    env = {"PATH": str(bin_dir), "HOME": str(state), "TMPDIR": str(tmp), "LC_ALL": "C",
           "FAKE_STATE": str(state), "FAKE_OCTAVE": octave, "FAKE_APT": apt, "FAKE_REASON": reason}
    return subprocess.run([MAKE, "-s", "--no-print-directory", "-C", str(PROJECT), "solvers"],
                          capture_output=True, text=True, timeout=60, env=env)


def _apt_calls(state: Path) -> list[list[str]]:
    log = state / "apt.log"
    return [line.split() for line in log.read_text().splitlines()] if log.exists() else []


def test_a_figure_octave_cannot_print_is_no_failed_setup(tmp_path):
    """The machine of issue 32: every solver there, Octave's text renderer fails even after the
    install. Exit 0, one line with the probe's exact reason, and the figure tests will skip."""
    bin_dir, state = _machine(tmp_path)
    proc = _make_solvers(bin_dir, state, octave="fails")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    said = [line for line in proc.stdout.splitlines() if "figure headless" in line]
    assert said == ["make solvers: solvers installed, but Octave cannot print a figure headless, "
                    f"so the figure tests will skip: {FONT_REASON}"], proc.stdout
    assert proc.stdout.splitlines()[-1] == said[0]
    calls = _apt_calls(state)
    # it did try the fix (the font package with the solvers), and kept the gnuplot it had
    assert calls[0] == ["update", "-qq"]
    assert "fonts-freefont-otf" in calls[1] and set(_make_variable("APT_PACKAGES")) <= set(calls[1])
    assert len(calls) == 2 and not any("gnuplot-nox" in call for call in calls)
    # the probe ran twice (before and after the install), the real probe file each time
    probes = (state / "octave.log").read_text().splitlines()
    assert len(probes) == 2
    assert all(f"run('{PROJECT / 'tests/formats/octave_figure_probe.m'}')" in p for p in probes)
    assert list((state / "tmp").iterdir()) == []   # its scratch folders removed


def test_the_font_package_lets_octave_print(tmp_path):
    """Octave without fonts-freefont-otf (a recommends of octave-common): the install brings it and
    the second probe prints."""
    bin_dir, state = _machine(tmp_path)
    proc = _make_solvers(bin_dir, state, octave="needs-fonts")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "make solvers: octave printed with gnuplot"
    assert "cannot print a figure headless" not in proc.stdout


def test_nothing_missing_runs_no_apt(tmp_path):
    bin_dir, state = _machine(tmp_path)
    proc = _make_solvers(bin_dir, state, octave="prints")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == [
        f"make solvers: all installed ({' '.join(_make_variable('APT_COMMANDS'))}); octave printed with gnuplot"]
    assert _apt_calls(state) == []


def test_no_gnuplot_installs_gnuplot_nox(tmp_path):
    """Without any gnuplot (no recommends), gnuplot-nox alone, without its recommends; a figure that
    still cannot print then says so and exits 0 too."""
    bin_dir, state = _machine(tmp_path, without=("gnuplot",))
    proc = _make_solvers(bin_dir, state, octave="fails", reason=NO_TOOLKIT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "make solvers: installing (missing: gnuplot)" in proc.stdout
    calls = _apt_calls(state)
    assert calls[-1][-2:] == ["--no-install-recommends", "gnuplot-nox"] and "install" in calls[-1]
    assert proc.stdout.splitlines()[-1].endswith(f"so the figure tests will skip: {NO_TOOLKIT}")


@pytest.mark.parametrize("package", ["glpk-utils", "fonts-freefont-otf", "gnuplot-nox"])
def test_a_failed_install_fails_the_setup(tmp_path, package):
    """apt-get install failing (any package `make solvers` installs) is the one failed set-up: the
    recipe exits 1 (make: "Error 1", exit status 2), before any figure verdict."""
    bin_dir, state = _machine(tmp_path, without=("gnuplot",))
    proc = _make_solvers(bin_dir, state, octave="fails", apt=f"fails-{package}")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "solvers] Error 1" in proc.stderr
    assert "figure tests will skip" not in proc.stdout
    assert package in _apt_calls(state)[-1]
