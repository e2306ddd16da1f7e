# The README's two commands: `make demo` and `make test`. Everything else is set up here.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
# Python 3.12: python3.12 on PATH (pyenv's shim honours .python-version), else pyenv's install.
PYTHON312 := $(shell if python3.12 --version >/dev/null 2>&1; then echo python3.12; \
	elif command -v pyenv >/dev/null 2>&1 && ls $$(pyenv root)/versions/3.12*/bin/python3.12 >/dev/null 2>&1; then \
	ls -d $$(pyenv root)/versions/3.12*/bin/python3.12 | tail -n 1; fi)
export PYTENSOR_FLAGS ?= blas__ldflags=

.PHONY: demo fortunes test bench lint fuzz docs clean

$(VENV)/.installed: pyproject.toml
	@if [ -z "$(PYTHON312)" ]; then echo "error: Python 3.12 not found (install it, e.g. 'pyenv install 3.12')" >&2; exit 2; fi
	@test -x $(PY) || $(PYTHON312) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev,dask,docs]"
	@touch $@

# The demo's real-text study reads Debian's fortunes: installed here when missing and we are
# root with apt-get (quietly, as .ci/run does); otherwise one line says how to get them.
# BAYESNB_FORTUNES names another folder of fortune files (bayesnb reads it too).
FORTUNES := $(or $(BAYESNB_FORTUNES),/usr/share/games/fortunes)

fortunes:
	@if [ ! -d "$(FORTUNES)" ] && [ "$(FORTUNES)" = /usr/share/games/fortunes ] \
	  && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing Debian's fortunes for the demo's text study (apt-get install fortunes)" >&2; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fortunes; } \
	    >/dev/null 2>&1 || true; \
	fi
	@[ -d "$(FORTUNES)" ] || echo "note: no fortunes at $(FORTUNES), so the demo has no \
	real-text study: install them with 'sudo apt-get install fortunes' (Debian/Ubuntu) or set \
	BAYESNB_FORTUNES to a folder of fortune files" >&2

demo: $(VENV)/.installed fortunes
	$(VENV)/bin/bayesnb demo

# On every core (pytest-xdist). worksteal measured faster than loadgroup here (which pins each
# group of tests sharing a compiled NUTS model to one worker, see tests/conftest.py, but leaves
# the other worker idle behind a late large group): a model may be compiled by both workers.
test: $(VENV)/.installed
	$(PY) -m pytest -q -n auto --dist worksteal

bench: $(VENV)/.installed
	$(PY) benchmarks/run_all.py

# Property tests with the long hypothesis profile (500 random examples, larger shapes).
fuzz: $(VENV)/.installed
	HYPOTHESIS_PROFILE=long $(PY) -m pytest -q tests/test_properties.py

# The documentation site (Sphinx; the gallery runs every examples/plot_*.py) into
# docs/_build/html, offline, with every warning an error.
docs: $(VENV)/.installed
	rm -rf docs/_build docs/generated docs/auto_examples docs/sg_execution_times.rst
	$(PY) -m sphinx -W --keep-going -b html docs docs/_build/html

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check .

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis docs/_build docs/generated docs/auto_examples docs/sg_execution_times.rst
