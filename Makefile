# Two entry points on a fresh machine: `make export` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
OUT    ?= out
# empty PUZZLE: the CLI's built-in default, seed 000's puzzle (SEEDS.md section 1)
PUZZLE ?=
EXPORT_ARGS ?= --scheme ijk --order F --clues rows --formats all

.PHONY: export test solvers bench bench-quick bench-batch venv clean help

help:
	@echo "make export   export the default puzzle (MATLAB ijk/F) into $(OUT)/"
	@echo "make test     run the whole test suite"
	@echo "make solvers  install the Debian solvers used by the interop tests (glpk-utils, coinor-cbc, octave)"
	@echo "make bench    writer/build/batch benchmarks (table + bench/results/*.json)"

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed pyproject.toml
	$(PY) -m pip install -q -e '.[test,dask,progress]'
	touch $@

venv: $(VENV)/.installed

export: $(VENV)/.installed
	$(PY) -m pipeline export $(PUZZLE) --to $(OUT) $(EXPORT_ARGS)

test: $(VENV)/.installed-test
	$(PY) -m pytest -q

# Debian solvers for the interop tests; needs root (or sudo). Skips with a reason otherwise.
solvers:
	@if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null; then SUDO=sudo; else \
	  echo "make solvers: not root and no sudo: skipping apt (interop tests will skip)"; exit 0; fi; \
	if ! command -v apt-get >/dev/null; then echo "make solvers: no apt-get: skipping"; exit 0; fi; \
	if command -v glpsol >/dev/null && command -v cbc >/dev/null && command -v octave >/dev/null; then \
	  echo "make solvers: glpsol, cbc and octave already installed"; exit 0; fi; \
	$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq \
	  glpk-utils coinor-cbc octave >/dev/null && echo "make solvers: installed glpk-utils coinor-cbc octave"

bench: $(VENV)/.installed-test
	$(PY) bench/run.py

bench-quick: $(VENV)/.installed-test
	$(PY) bench/run.py --quick

# batch throughput, 1 vs 2 workers on a sample of ../shared/data
bench-batch: $(VENV)/.installed-test
	$(PY) bench/run.py --batch

clean:
	rm -rf $(OUT) .pytest_cache
