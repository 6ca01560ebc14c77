# Two entry points, both self-contained on a fresh machine (needs python3 >= 3.11 and PyPI):
#   make demo   set up .venv, ingest a sample conversation, recall, show the injected block
#   make test   set up .venv, lint, run the whole test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
# Two workers: the machine has two cores.
PYTEST_WORKERS ?= 2

.PHONY: demo test lint bench-locomo clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "remem needs Python 3.11+; set PYTHON=python3.11")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/remem demo

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

test: $(STAMP) lint
	$(BIN)/pytest -n $(PYTEST_WORKERS) -q

bench-locomo: $(STAMP)
	$(BIN)/remem bench ../shared/bench/locomo

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache .ruff_cache
