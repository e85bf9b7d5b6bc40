# Two entry points on a fresh machine: `make export` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
OUT    ?= out
# empty PUZZLE: the CLI's built-in default, seed 000's puzzle (SEEDS.md section 1)
PUZZLE ?=
EXPORT_ARGS ?= --scheme ijk --order F --clues rows --formats all

.PHONY: export test test-slow lint solvers bench bench-quick bench-batch bench-sat bench-generate bench-baseline bench-iss bench-iss-side venv clean help

help:
	@echo "make export   export the default puzzle (MATLAB ijk/F) into $(OUT)/"
	@echo "make test     run the test suite (all but the slow collections, which make bench runs)"
	@echo "make test-slow  the slow collections alone (pytest -m slow: ISS's whole collection, tdoku counts, ...)"
	@echo "make lint     ruff, the import-linter layer contract and mypy (pipeline/, formats/)"
	@echo "make solvers  install the Debian solvers and browser the tests use (MIP, SAT, PB, chromium, gnuplot)"
	@echo "make bench    writer/build/batch/SAT benchmarks (table + bench/results/*.json)"
	@echo "make bench-sat  the SAT section alone (issue 8 targets; SAT_BENCH_ARGS=--quick)"
	@echo "make bench-generate  generate/explain/rate targets alone (issue 9)"
	@echo "make bench-iss  ISS's 359 published puzzles: read and solved right, by type (docs/iss-collection.md)"
	@echo "make bench-iss-side  ISS's entries beside ISS itself (ISS_DIR=checkout; the MATHEMAGIC killers by default)"
	@echo "make bench-baseline  writer times against an older checkout (BASELINE=DIR)"

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $@

EXTRAS ?= test,dask,progress,cpsat,fast,plot,lint
$(VENV)/.installed-test: $(VENV)/.installed pyproject.toml
	$(PY) -m pip install -q -e '.[$(EXTRAS)]'
	touch $@

venv: $(VENV)/.installed

export: $(VENV)/.installed
	$(PY) -m pipeline export $(PUZZLE) --to $(OUT) $(EXPORT_ARGS)

# both cores (pytest-xdist); PYTEST_ARGS="-n 0 -k name" for one test in the foreground. One BLAS
# thread: numpy's OpenBLAS would start one per core in every child process the tests run, each
# spinning about 0.1 s on the core the other test worker uses (the commands set it themselves).
# --durations: the slowest tests in CI's log, where the suite's time (17 min of the 20 allowed) is watched.
# The slow collections (marked `slow`: ISS's whole published collection beyond a cover of its
# constraint kinds, HiGHS's tdoku counts, sat4j on every puzzle) run in `make test-slow`, part of
# `make bench`: CI reached 1,176 s of its 1,200 with them.
PYTEST_ARGS ?= -n 2
test: $(VENV)/.installed-test
	OPENBLAS_NUM_THREADS=1 $(PY) -m pytest -q -m "not slow" --durations=15 $(PYTEST_ARGS)

test-slow: $(VENV)/.installed-test
	OPENBLAS_NUM_THREADS=1 $(PY) -m pytest -q -m slow $(PYTEST_ARGS)

lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check pipeline formats tests bench examples
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

# Debian solvers and the browser the tests use; needs root (or sudo). Skips with a reason otherwise.
# Octave's figures (solve_sudoku.m's sudoku_figure, headless) need gnuplot and a font: `octave`
# only recommends them, so a machine without recommends has neither. Without gnuplot Octave says
# "no graphics toolkits are available!"; without fonts-freefont-otf (octave-common's recommends)
# it cannot create axes: "ft_text_renderer: invalid bounding box, cannot render", because its
# default font is the file /usr/share/fonts/opentype/freefont/FreeSans.otf, loaded by path, not
# through fontconfig (other installed fonts do not help). fonts-freefont-otf is in APT_PACKAGES;
# gnuplot-nox is installed by name when no gnuplot is there (not in APT_PACKAGES: it replaces
# gnuplot-qt/-x11, which print headless as well). A figure is really printed
# (tests/formats/octave_figure_probe.m), not only the commands looked up. A figure that still
# cannot be printed is no failed set-up (exit 0, one line with the probe's reason: the figure
# tests skip with it); only a failed apt-get is (exit 1).
APT_PACKAGES = glpk-utils coinor-cbc octave fonts-freefont-otf minisat picosat cadical cryptominisat clasp \
               minisat+ sat4j chromium chromium-driver
APT_COMMANDS = glpsol cbc octave minisat picosat cadical cryptominisat5 clasp minisat+ sat4j chromium gnuplot
OCTAVE_FIGURE_PROBE = $(CURDIR)/tests/formats/octave_figure_probe.m
solvers:
	@figure_prints() { \
	  d=$$(mktemp -d) && ( cd "$$d" && octave-cli --no-gui --quiet --no-window-system \
	    --eval "probe_png = '$$d/probe.png'; run('$(OCTAVE_FIGURE_PROBE)')" >log 2>&1 ); \
	  figure=$$(grep -m1 '^figure probe' "$$d/log" 2>/dev/null || echo "figure probe: cannot print: octave-cli did not run"); \
	  figure=$${figure#figure probe: }; \
	  head -c 4 "$$d/probe.png" 2>/dev/null | grep -q PNG; ok=$$?; rm -rf "$$d"; return $$ok; }; \
	missing=; for c in $(APT_COMMANDS); do command -v $$c >/dev/null || missing="$$missing $$c"; done; \
	if [ -z "$$missing" ] && figure_prints; then \
	  echo "make solvers: all installed ($(APT_COMMANDS)); octave $$figure"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null; then SUDO=sudo; else \
	  echo "make solvers: not root and no sudo: skipping apt (missing:$${missing:- nothing, but no figure}; interop and figure tests will skip)"; exit 0; fi; \
	if ! command -v apt-get >/dev/null; then echo "make solvers: no apt-get: skipping"; exit 0; fi; \
	echo "make solvers: installing (missing:$${missing:- nothing, but Octave cannot print a figure})"; \
	$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq \
	  $(APT_PACKAGES) >/dev/null && echo "make solvers: installed $(APT_PACKAGES)" || exit 1; \
	if ! command -v gnuplot >/dev/null; then \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null \
	    && echo "make solvers: installed gnuplot-nox (Octave's figures, headless)" || exit 1; \
	fi; \
	if figure_prints; then echo "make solvers: octave $$figure"; else \
	  echo "make solvers: solvers installed, but Octave cannot print a figure headless, so the figure tests will skip: $${figure#cannot print: }"; fi

# every section runs even when an earlier one reports a missed target (exit 1): the exit status
# says so at the end, after all the tables are printed and written
bench: $(VENV)/.installed-test
	@status=0; \
	$(PY) bench/run.py || status=1; \
	$(PY) bench/generate_bench.py || status=1; \
	$(PY) bench/sat_rules_bench.py || status=1; \
	$(PY) bench/rules_bench.py || status=1; \
	OPENBLAS_NUM_THREADS=1 $(PY) -m pytest -q -m slow $(PYTEST_ARGS) || status=1; \
	if [ $$status -ne 0 ]; then echo "make bench: some targets were missed or slow tests failed (see above)"; fi; \
	exit $$status

bench-quick: $(VENV)/.installed-test
	@status=0; \
	$(PY) bench/run.py --quick || status=1; \
	$(PY) bench/generate_bench.py --quick || status=1; \
	$(PY) bench/sat_rules_bench.py --quick || status=1; \
	$(PY) bench/rules_bench.py --quick || status=1; \
	exit $$status

# ISS's published collections (../shared/data/iss): read and solved right, by constraint type;
# writes docs/iss-collection.md (ISS_ARGS="--limit 20 --time-limit 10" for a short run)
ISS_ARGS ?=
bench-iss: $(VENV)/.installed-test
	$(PY) bench/iss_collection.py $(ISS_ARGS)

# ISS's entries one by one beside ISS itself (ISS_DIR=an ISS checkout): whole solve processes
# against ISS's solver call; the MATHEMAGIC killers by default (ISS_SIDE_ARGS="--only REGEX --rounds 3")
ISS_SIDE_ARGS ?=
bench-iss-side: $(VENV)/.installed-test
	$(PY) bench/iss_side_by_side.py $(ISS_SIDE_ARGS)

# batch throughput, 1 vs 2 workers on a sample of ../shared/data
bench-batch: $(VENV)/.installed-test
	$(PY) bench/run.py --batch

# the SAT engine and CNF/OPB writers alone (also part of `make bench`), e.g. SAT_BENCH_ARGS="--only batch"
SAT_BENCH_ARGS ?=
bench-sat: $(VENV)/.installed-test
	$(PY) bench/sat_bench.py $(SAT_BENCH_ARGS)

# generate/explain/rate targets alone (issue 9; also part of `make bench`)
bench-generate: $(VENV)/.installed-test
	$(PY) bench/generate_bench.py

# writer times against an older checkout of this repository, alternating in one run:
# make bench-baseline BASELINE=../baseline (a `git worktree add ../baseline <commit>`)
BASELINE ?= ../baseline
bench-baseline: $(VENV)/.installed-test
	@if [ -d "$(BASELINE)/pipeline" ]; then $(PY) bench/compare_baseline.py --baseline $(BASELINE); \
	else echo "make bench-baseline: no checkout at $(BASELINE) (set BASELINE=DIR)"; fi

clean:
	rm -rf $(OUT) .pytest_cache
