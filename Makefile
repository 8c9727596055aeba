# One entry point for everything: `make demo`, `make test`, `make lint`, `make bench`.
# Each target sets itself up (virtual environment, packages, Chromium) and is
# idempotent: the second run reinstalls nothing unless pyproject.toml changed.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# Two installs: everything (make test, lint, bench: every extra and the dev tools), and
# what the demo needs (pressmark[render]: no Ray, no MCP SDK, no test tools). The full
# install satisfies the demo's too.
STAMP      := $(VENV)/.pressmark-installed
DEMO_STAMP := $(VENV)/.pressmark-demo-installed

.PHONY: demo test lint unit bench setup bytecode chromium pywb clean

setup: $(STAMP) bytecode chromium

# The Markdown layer's hot modules are compiled in place (mypyc; pyproject.toml lists
# them): an edit to any of them reinstalls, so no stale compiled module shadows it.
NATIVE_SRC := $(wildcard src/pressmark/markdown/*.py src/pressmark/markdown/*.pyi \
                          src/pressmark/cite/_cut.py src/pressmark/cite/*.c \
                          src/pressmark/snapshot/_prescan.py \
                          src/pressmark/markdown/*.c src/pressmark/markdown/*.h) hatch_build.py

$(STAMP): pyproject.toml $(NATIVE_SRC)
	@sh scripts/ensure-venv.sh "$(PYTHON)" "$(VENV)"
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	@sh scripts/install-editable.sh "$(PY)" '.[render,ray,mcp]' --group dev
	@touch $(STAMP) $(DEMO_STAMP)

# pip 25.1 or later reads the dev group; the demo's install needs no particular pip.
$(DEMO_STAMP): pyproject.toml $(NATIVE_SRC)
	@sh scripts/ensure-venv.sh "$(PYTHON)" "$(VENV)"
	@sh scripts/install-editable.sh "$(PY)" '.[render]'
	@touch $(DEMO_STAMP)

# With PYTHONDONTWRITEBYTECODE=1 (set in some shells and CI) Python writes no .pyc for the
# editable sources, and every `pressmark` start compiles pressmark's own modules again: a
# fifth of a `pressmark md` start-up. Compiled here instead, on every `make` (up-to-date
# files are skipped). Python checks each .pyc against its source's mtime and size, so an
# edited module is compiled at import, as before, until the next `make`.
bytecode: $(STAMP)
	@$(PY) -m compileall -q src/pressmark

chromium:
	@sh scripts/ensure-chromium.sh

# pywb replays the store's pages in the WARC fidelity tests; it pins old dependencies, so
# it has a venv of its own (~/.cache/pressmark-test/pywb), installed once.
pywb:
	@sh scripts/ensure-pywb.sh "$(PYTHON)"

# The demo installs pressmark[render] only and never installs a browser: without a
# Chromium the JavaScript shells stay unrendered, and the demo says so and how to get one.
demo: $(DEMO_STAMP)
	@$(PY) -m compileall -q src/pressmark
	$(VENV)/bin/pressmark demo

lint: $(STAMP)
	$(PY) -m ruff check src tests bench examples
	$(PY) -m mypy src

unit: $(STAMP)
	$(PY) -m pytest -m "not browser" tests/unit

test: setup lint pywb
	$(PY) -m pytest

bench: setup
	@for b in bench/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache pressmark-demo
	find src -name '*.so' -delete
