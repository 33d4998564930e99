# Targets that people and CI both run. `make test` is the whole suite (lint, types, tests).
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: setup simulate test check lint typecheck pytest golden bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

## simulate: a seeded bot simulation of every registered game
simulate: $(STAMP)
	@for g in $$($(BIN)/cardcore games --names); do \
		$(BIN)/cardcore simulate $$g --seed 1 --games 100 || exit 1; \
	done

## check: ruff (lint + format) and mypy --strict
check: lint typecheck

lint: $(STAMP)
	$(BIN)/ruff check cardcore tests benchmarks
	$(BIN)/ruff format --check cardcore tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy --strict cardcore

## test: everything CI runs
test: check pytest

# pytest exits 5 when it collected no test: that is a failure here, never a silent pass.
pytest: $(STAMP)
	HYPOTHESIS_PROFILE=ci $(BIN)/python -m pytest; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest ran no tests: failing" >&2; exit 1; fi; exit $$rc

## golden: regenerate tests/golden/ on purpose (review the diff before committing)
golden: $(STAMP)
	$(BIN)/python -m tests.golden.regenerate

## bench: performance figures (pytest-benchmark); never part of `make test`
bench: $(STAMP)
	$(BIN)/python -m pytest benchmarks --benchmark-only -p no:cacheprovider -o testpaths=benchmarks

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
