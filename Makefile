# Entry points, each self-contained on a fresh machine (needs python3 >= 3.11 and PyPI):
#   make demo    set up .venv, ingest a sample conversation, recall, show the injected block
#   make check   the edit loop: lint + the fast tests (`-m "not slow"`), under 2 minutes
#   make test    what CI runs: lint, the browser tests' Debian packages if missing, every test
#                (fast and slow), the documentation site, the OpenClaw and AstrBot plugins'
#                tests, and the built wheel installed and run in a clean virtualenv
#   make wheel-smoke   build the sdist and wheel; install the wheel alone into a clean
#                virtualenv and run `remem --version`, `remem --help` and `remem demo` from it
#   make screenshots   PNGs of every web UI page into docs/screenshots (the README shows them)
#   make docs          the documentation site from docs/ into site/ (mkdocs build --strict)
#   make test-astrbot  the AstrBot plugin (integrations/astrbot) inside a real AstrBot from PyPI
# docs/development.md has what each takes on an idle 2-core machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
# Two workers: the machine has two cores.
PYTEST_WORKERS ?= 2

# The web UI's browser tests drive Debian's headless chromium (chromium-headless-shell):
# Playwright's own browser download needs network this project does not have. The headless
# build is enough for Playwright and, with --no-install-recommends and curl, pulls ~114
# packages on a bare Debian 12 and no systemd (the full `chromium` pulls ~176 with systemd,
# ~309 with its recommends; docs/decisions/0010-test-browser.md). A developer's full chromium
# is used when it is already there. Installed when missing and we are root with apt-get;
# otherwise the browser tests skip and say why (under CI=true they fail instead).
BROWSERS := /usr/bin/chromium-headless-shell /usr/bin/chromium
# Where `make wheel-smoke` builds, installs and runs the wheel (removed and made again each run)
SMOKE := build/wheel-smoke

.PHONY: demo test check lint cli-help browser wheel-smoke screenshots docs bench-locomo clean node test-openclaw test-astrbot

$(STAMP): pyproject.toml benchmarks/pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "remem needs Python 3.11+; set PYTHON=python3.11")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@# the benchmark package beside remem (`remem bench` runs it); nothing to download
	$(BIN)/python -m pip install --quiet --no-build-isolation --no-deps -e benchmarks
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/remem demo

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks docgen
	$(BIN)/ruff format --check src tests benchmarks docgen
	$(BIN)/mypy

# `remem --help` prints a kept copy of typer's text (src/remem/cli/help_text.py): write it
# again after adding or renaming a command (tests/unit/cli/test_help_text.py says when).
cli-help: $(STAMP)
	$(BIN)/python -m remem.cli.help_text

# The README's REST examples run with curl (tests/docs): installed the same way when missing.
# Says what it installs, and why, before it does.
browser:
	@missing=""; have=""; for b in $(BROWSERS); do [ -x $$b ] && have=$$b; done; \
	[ -n "$$have" ] || missing=" chromium-headless-shell"; \
	command -v curl >/dev/null 2>&1 || missing="$$missing curl"; \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "make browser: installing Debian's$$missing with --no-install-recommends: the headless"; \
		echo "  browser the web UI tests drive and its runtime libraries, curl for the README's REST"; \
		echo "  examples; nothing else (~114 packages, ~156 MB download on a bare Debian 12)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "missing$$missing and no root apt-get to install it: tests that need it will skip or fail"; fi

# The fast suite: lint, then every test not marked slow (tests/conftest.py marks real-model,
# browser, PostgreSQL-server, fuzz and README tests slow). For the edit loop; CI runs `make test`.
check: $(STAMP) lint
	$(BIN)/pytest -n $(PYTEST_WORKERS) -q -m "not slow"

# --durations: the slowest tests are printed with every run, so a suite creeping past its
# 15-minute budget shows where the time went. --dist worksteal: a worker that runs out of tests
# takes some of the other's instead of idling while it finishes a long tail (idle machine:
# 15 min 17 s -> 12 min 59 s for the same 3,570 tests); tests/conftest.py starts the longest
# first. CI took 27.7 min on 2026-12-06 (pytest 20-21 min): the command-line tests now run
# `remem` in process (tests/cli_inproc.py), docs/development.md has the figures.
# The AstrBot plugin's virtualenv (built once per machine, ~5 min on a fresh one, mostly
# downloads) is built while pytest runs, its output in build/astrbot-env.log; when that fails
# (no PyPI), test-astrbot below tries again and says why, or skips.
test: $(STAMP) lint browser
	@mkdir -p build; ($(MAKE) --no-print-directory $(ASTRBOT_STAMP) >build/astrbot-env.log 2>&1 \
		|| true) & \
	$(BIN)/pytest -n $(PYTEST_WORKERS) -q --dist worksteal --durations=25 --durations-min=20; \
	status=$$?; wait; exit $$status
	$(MAKE) --no-print-directory docs
	$(MAKE) --no-print-directory test-openclaw
	$(MAKE) --no-print-directory test-astrbot
	$(MAKE) --no-print-directory wheel-smoke

# The package as a user gets it: `python -m build` makes the sdist and builds the wheel from it
# (without build isolation: the dev install already has setuptools and build, and no second
# environment is downloaded); the wheel goes alone into a clean virtualenv (its dependencies
# from the same package sources the dev install used), and its `remem` runs from outside the
# checkout with its own temporary config, data and cache directories.
wheel-smoke: $(STAMP)
	rm -rf $(SMOKE)
	$(BIN)/python -m build --quiet --no-isolation --outdir $(SMOKE)/dist .
	$(PYTHON) -m venv $(SMOKE)/venv
	$(SMOKE)/venv/bin/python -m pip install --quiet --no-compile $(SMOKE)/dist/remem-*.whl
	@home=$$(mktemp -d) && cd $$home && export XDG_CONFIG_HOME=$$home/config \
		XDG_DATA_HOME=$$home/data XDG_CACHE_HOME=$$home/cache && \
	$(CURDIR)/$(SMOKE)/venv/bin/python -c 'import remem, sys; \
		sys.exit(0 if "/site-packages/" in remem.__file__ else f"remem loaded from {remem.__file__}")' && \
	$(CURDIR)/$(SMOKE)/venv/bin/remem --version && \
	$(CURDIR)/$(SMOKE)/venv/bin/remem --help >/dev/null && \
	$(CURDIR)/$(SMOKE)/venv/bin/remem demo >/dev/null && \
	echo "wheel-smoke: $$(ls $(CURDIR)/$(SMOKE)/dist | tr '\n' ' ')installed in a clean virtualenv; --version, --help and demo ran"; \
	status=$$?; rm -rf $$home; exit $$status

# The OpenClaw plugin (integrations/openclaw, TypeScript): npm ci from its package-lock.json,
# tsc, then node's own test runner against a real `remem serve` of this checkout (REMEM_BIN
# picks another binary). Debian's nodejs and npm are installed when missing, as for chromium.
OPENCLAW := integrations/openclaw
REMEM_BIN ?= $(CURDIR)/$(BIN)/remem

node:
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "node or npm is missing: installing Debian's nodejs and npm for the OpenClaw plugin"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm; \
	else echo "node and npm are missing and there is no root apt-get to install them"; exit 1; fi

test-openclaw: $(STAMP) node
	cd $(OPENCLAW) && npm ci --no-audit --no-fund && npm run build
	cd $(OPENCLAW) && REMEM_BIN=$(REMEM_BIN) node --test dist/test/*.test.js

# The AstrBot plugin's tests: AstrBot 4.14.6 from PyPI with its ~50 pinned dependencies, in a
# virtualenv of its own so its pins never move remem's; remem goes in from this checkout.
# Without PyPI (and no environment built yet) they skip, saying so; the tests themselves need
# no network. The remote-mode test runs `remem serve` from the project's .venv (remem[server]:
# its mcp>=2.3 is not for AstrBot's virtualenv) and skips, saying so, when there is none.
ASTRBOT_DIR   := integrations/astrbot
ASTRBOT_VENV  := $(ASTRBOT_DIR)/.venv
ASTRBOT_REQS  := $(ASTRBOT_DIR)/tests/requirements.txt
ASTRBOT_STAMP := $(ASTRBOT_VENV)/.installed-stamp

$(ASTRBOT_STAMP): pyproject.toml $(ASTRBOT_REQS)
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "remem needs Python 3.11+; set PYTHON=python3.11")'
	@test -x $(ASTRBOT_VENV)/bin/python || $(PYTHON) -m venv $(ASTRBOT_VENV)
	$(ASTRBOT_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(ASTRBOT_VENV)/bin/python -m pip install --quiet -r $(ASTRBOT_REQS) -e .
	@touch $(ASTRBOT_STAMP)

test-astrbot:
	@if [ ! -f $(ASTRBOT_STAMP) ]; then \
		probe=$$(mktemp -d); \
		$(PYTHON) -m pip download --quiet --no-deps --dest $$probe astrbot==4.14.6 >/dev/null 2>&1; \
		found=$$?; rm -rf $$probe; \
		if [ $$found != 0 ]; then \
			echo "SKIPPED test-astrbot: PyPI is unreachable, so AstrBot cannot be installed (pip download astrbot==4.14.6 failed)"; \
			exit 0; fi; fi; \
	$(MAKE) --no-print-directory $(ASTRBOT_STAMP) && \
	REMEM_SERVER_PYTHON=$$([ -x $(BIN)/python ] && echo $(abspath $(BIN))/python) \
		$(ASTRBOT_VENV)/bin/python -m pytest -q -rs $(ASTRBOT_DIR)/tests

# Chinese pages need a CJK font in the screenshots (fonts-noto-cjk), not in the tests.
screenshots: $(STAMP) browser
	@if ! fc-list :lang=zh 2>/dev/null | grep -q . && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends fonts-noto-cjk; fi
	PYTHONPATH=tests:tests/ui $(BIN)/python tests/ui/screenshots.py docs/screenshots

# The reference pages (CLI, configuration, REST) are generated from the code during the build
# (docgen/hooks.py); --strict turns a broken link or a missing page into a failure.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

bench-locomo: $(STAMP)
	$(BIN)/remem bench ../shared/bench/locomo

clean:
	rm -rf $(VENV) $(ASTRBOT_VENV) build dist site *.egg-info src/*.egg-info .pytest_cache .ruff_cache
	rm -rf $(OPENCLAW)/node_modules $(OPENCLAW)/dist
