# Paddock: every target sets up its own virtual environment first (Python 3.11+ and PyPI only).
PY ?= $(shell command -v python3.11 || command -v python3.12 || command -v python3.13 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: install test lint typecheck demo run bench verify clean

$(STAMP): pyproject.toml
	@$(PY) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Paddock needs Python 3.11 or newer (set PY=/path/to/python3.11)"; exit 1; }
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/pytest

demo: $(STAMP)
	$(BIN)/paddock demo --out demo-out

run: $(STAMP)
	$(BIN)/paddock run

bench: $(STAMP)
	$(BIN)/paddock bench --json

verify: $(STAMP)
	$(BIN)/paddock verify --db demo-out/demo.db

clean:
	rm -rf $(VENV) demo-out .pytest_cache .ruff_cache .mypy_cache .hypothesis *.egg-info
