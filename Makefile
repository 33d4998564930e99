# Targets that people and CI both run. `make test` is the whole suite (lint, types, tests).
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
RUNTIME_STAMP := $(VENV)/.runtime-stamp
# The generated gRPC stubs (never committed) and the local buf install (npm ci).
PB := clients/python/cardcore_proto/__init__.py
NODE_STAMP := node_modules/.installed-stamp
# The Node client (clients/node): its own package and lockfile (npm ci).
NODE_CLIENT_STAMP := clients/node/node_modules/.installed-stamp
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: setup simulate test check lint typecheck buflint bufbreaking pytest pytest-tree pytest-serial pytest-solo pytest-compiled nodetest golden bench clean proto serve demo web-vendor docs wheel compiled

setup: $(STAMP) $(PB)

# What serving needs: the repository's three distributions, editable — the engine (.), the
# Python client with the stubs (clients/python: its install generates them from proto/) and the
# service (services). `make serve` stops here: a first contact installs no test tools.
$(RUNTIME_STAMP): pyproject.toml clients/python/pyproject.toml services/pyproject.toml $(wildcard proto/cardcore/v1/*.proto)
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e . -e clients/python -e 'services[postgres]'
	touch $(RUNTIME_STAMP)

# ... and the dev tools (pyproject.toml's dependency group; pip 25.1 or later reads it).
$(STAMP): $(RUNTIME_STAMP)
	$(BIN)/python -m pip install --quiet --group dev
	touch $(STAMP)

## proto: regenerate the Python stubs of proto/ with the pinned grpcio-tools
proto: $(STAMP)
	$(BIN)/python clients/python/_protogen.py

$(PB): $(STAMP) $(wildcard proto/cardcore/v1/*.proto) clients/python/_protogen.py
	$(BIN)/python clients/python/_protogen.py

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

$(NODE_CLIENT_STAMP): clients/node/package.json clients/node/package-lock.json
	cd clients/node && npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_CLIENT_STAMP)

## serve: the gRPC and REST server with the embedded SQLite store, kept out of the source tree
## (SERVE_DB, default ~/.local/share/cardcore/cardcore.db); SERVE_ARGS=... to add flags
SERVE_DB ?= $(HOME)/.local/share/cardcore/cardcore.db
serve: $(RUNTIME_STAMP) web-vendor
	mkdir -p "$(dir $(SERVE_DB))"
	$(BIN)/cardcore serve --db "$(SERVE_DB)" $(SERVE_ARGS)

## demo: a server on a free port, one bot game of every registered game with one client seat
demo: $(RUNTIME_STAMP)
	$(BIN)/cardcore demo

## simulate: a seeded bot simulation of every registered game
simulate: $(RUNTIME_STAMP)
	@for g in $$($(BIN)/cardcore games --names); do \
		$(BIN)/cardcore simulate $$g --seed 1 --games 100 || exit 1; \
	done

## check: ruff (lint + format), mypy --strict, buf lint and buf breaking
check: lint typecheck buflint bufbreaking

lint: $(STAMP)
	$(BIN)/ruff check cardcore services clients tests benchmarks tools examples hatch_build.py
	$(BIN)/ruff format --check cardcore services clients tests benchmarks tools examples hatch_build.py

# Each distribution's build hook is a top-level `hatch_build` module: checked one at a time.
typecheck: $(STAMP) $(PB)
	$(BIN)/mypy --strict cardcore
	$(BIN)/mypy --strict services/cardcore_server clients/python/cardcore_client clients/python/_protogen.py
	$(BIN)/mypy --strict hatch_build.py
	$(BIN)/mypy --strict services/hatch_build.py
	$(BIN)/mypy --strict clients/python/hatch_build.py

buflint: $(NODE_STAMP)
	node_modules/.bin/buf lint

# The proto only grows: no change may break a client of the previous commit's contract.
bufbreaking: $(NODE_STAMP)
	node_modules/.bin/buf breaking --against '.git#ref=HEAD~1'

## test: everything CI runs. What can share the machine runs at once (lint and types, the tree's
## tests, the `serial` ones beside them, the compiled build's, Node's, the docs; -k: each runs
## whatever another does), then the `solo` tests with the machine to themselves. All always run;
## any failing fails the target.
test: COMPILE_OPT = 0
test:
	$(MAKE) --no-print-directory -k -j6 --output-sync=target \
		check pytest-tree pytest-serial pytest-compiled nodetest docs; a=$$?; \
	$(MAKE) --no-print-directory pytest-solo; b=$$?; \
	if [ $$a -ne 0 ]; then exit $$a; fi; exit $$b

## docs: the documentation site (mkdocs.yml) into build/site, strictly: a broken link or anchor,
## a docstring mkdocstrings cannot render, or a warning of the reference generators fails it.
## `$(BIN)/mkdocs serve` serves it while you write.
docs: $(STAMP) $(PB)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir build/site

## web-vendor: the web table's Pyodide runtime (npm `pyodide`, as package-lock.json pins it) in
## the service's package, where `cardcore serve` serves it (/web/pyodide/) and wheels ship it:
## from node_modules/pyodide after `npm ci`, else downloaded from the npm registry (no Node
## needed), every file checked against the pin (services/cardcore_server/pyodide_runtime.py)
web-vendor: $(RUNTIME_STAMP)
	$(BIN)/python services/cardcore_server/pyodide_runtime.py

## compiled: the compiled build of this tree (mypyc, the modules [tool.cardcore.compiled] lists),
## as its wheel installs it, into build/compiled: PYTHONPATH=build/compiled runs it
## (CARDCORE_PURE=1 there runs the same files' pure modules). Never beside the sources, where an
## extension built yesterday would shadow a .py edited today. Needs a C compiler. The C code is
## built at -O3, as the wheel ships it (the stamp holds the level); `make test` builds it at -O0
## (the same code, half the build time) where it finds none up to date. Built as a release builds
## it: the sdist, then from it both wheels (build/release, offline: .venv's build tools), so that
## the test of the wheels (RELEASE_TEST) checks these and the engine is compiled once.
COMPILED := build/compiled/.stamp
RELEASE := build/release/.stamp
COMPILE_OPT ?= 3
# The contract, the golden logs, the differential test, the unit tests of bad input (a seat,
# a position, a command text, a rules value of the wrong type answered alike by both builds), of
# the log (a tampered log is a CorruptLog naming its entry, never a crash, in both builds) and of
# the RNG (the compiled build draws in 64-bit words: the spec's numbers all the same).
BOTH_BUILDS := tests/contract tests/golden tests/builds $(wildcard tests/unit/test_position_*.py) \
	tests/unit/test_boundaries.py tests/unit/test_seats.py tests/unit/test_command_text.py \
	tests/unit/test_log.py tests/unit/test_log_fast.py tests/unit/test_copies.py tests/unit/test_races.py \
	tests/unit/test_rng.py tests/unit/test_native.py
# The compiled build first on the path, the tree (for tests/) after it: Python's safe-path mode
# and pytest's append mode keep the tree's folder from going in front of it, in every process.
# CARDCORE_REQUIRE_COMPILED: the differential test fails, never skips, when it finds no build.
ON_COMPILED := PYTHONSAFEPATH=1 PYTHONPATH=$(abspath build/compiled):$(CURDIR) CARDCORE_REQUIRE_COMPILED=1
# The test that installs the compiled wheel into a new virtualenv and runs it both ways: on the
# wheels of build/release (CARDCORE_TEST_RELEASE) in pytest-compiled's run, not in the tree's,
# where it would build them all again (without the variable it does: a test run by hand).
RELEASE_TEST := tests/e2e/test_compiled_build.py::test_both_wheels_from_the_sdist_and_the_compiled_one_both_ways
compiled: $(COMPILED)
$(RELEASE): $(STAMP) pyproject.toml hatch_build.py $(shell find cardcore -name '*.py')
	rm -rf build/release
	mkdir -p build/release/sdist
	CARDCORE_COMPILE=0 $(BIN)/python -m build --no-isolation --outdir build/release . >/dev/null
	tar -xzf build/release/cardcore-$(ENGINE_VERSION).tar.gz -C build/release/sdist
	CARDCORE_COMPILE=1 CARDCORE_COMPILE_OPT=$(COMPILE_OPT) $(BIN)/python -m build --wheel --no-isolation \
		--outdir build/release build/release/sdist/cardcore-$(ENGINE_VERSION) >/dev/null
	rm -rf build/release/sdist
	echo "$(COMPILE_OPT)" > $@
$(COMPILED): $(RELEASE)
	rm -rf build/compiled
	$(BIN)/python -m zipfile -e $$(ls build/release/cardcore-*.whl | grep -v -- -none-any) build/compiled
	cp $(RELEASE) $@

# Four runs (tests/conftest.py says why): every test but the `serial` and `solo` ones on
# PYTEST_WORKERS pytest-xdist workers (pytest-tree); the `serial` ones (the browser tests and the
# served first contact: they mostly wait, and hold no timing to a bound) in one process of their
# own (pytest-serial), which `make test` runs beside the others; the `solo` ones (timings held to
# bounds) in one process with the machine to themselves (pytest-solo); all three on the tree's
# Python; and the suites that hold the two builds to one behaviour (BOTH_BUILDS) on the compiled
# build (build/compiled: pytest-compiled). `make pytest` runs the four in turn, always all four;
# any failing fails it. pytest exits 5 when it collected no test: that is a failure here, never a
# silent pass (RUN_PYTEST says so).
# Bytecode goes to $(VENV)/pycache, never into the tree: the suite's Python processes
# (workers, servers, CLIs) then compile the sources once, not each on its own.
# The browser tests (tests/web) need node_modules (playwright-core, axe-core, pyodide).
# Three workers on CI's two cores: the tests spend much of their time waiting on the servers
# and command lines they start (the tree's run measured 245 s with three, 276 s with two).
PYTEST_WORKERS ?= 3
PYTEST := env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX=$(abspath $(VENV))/pycache \
	HYPOTHESIS_PROFILE=ci $(BIN)/python -m pytest
NO_TESTS_FAIL := rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest ran no tests: failing" >&2; exit 1; fi; exit $$rc
pytest: COMPILE_OPT = 0
pytest:
	$(MAKE) --no-print-directory -k pytest-tree pytest-serial pytest-solo pytest-compiled

pytest-tree: $(STAMP) $(PB) $(NODE_STAMP) web-vendor
	$(PYTEST) -n $(PYTEST_WORKERS) --dist loadgroup -m "not solo and not serial" --ignore=tests/builds \
		--deselect $(RELEASE_TEST); $(NO_TESTS_FAIL)

pytest-serial: $(STAMP) $(PB) $(NODE_STAMP) web-vendor
	$(PYTEST) -m serial; $(NO_TESTS_FAIL)

pytest-solo: $(STAMP) $(PB) $(NODE_STAMP) web-vendor
	$(PYTEST) -m solo; $(NO_TESTS_FAIL)

pytest-compiled: COMPILE_OPT = 0
pytest-compiled: $(STAMP) $(COMPILED)
	$(ON_COMPILED) CARDCORE_TEST_RELEASE=$(abspath build/release) $(PYTEST) --import-mode=append -n 2 \
		$(BOTH_BUILDS) $(RELEASE_TEST); $(NO_TESTS_FAIL)

## nodetest: the Node client's tests (node --test) against a live `cardcore serve`, and the Node
## verifier over the golden logs; the buf curl smoke script too
nodetest: $(STAMP) $(PB) $(NODE_STAMP) $(NODE_CLIENT_STAMP)
	cd clients/node && CARDCORE_PYTHON=$(abspath $(BIN))/python node --test --test-timeout=300000 test/*.test.js

## wheel: the engine's sdist, then from it the pure wheel (py3-none-any) and the compiled one
## (mypyc, this platform's tag; needs a C compiler) into dist/. Builds are isolated, as a
## release's: pip fetches hatchling (and for the compiled wheel mypy and setuptools);
## BUILD_ARGS=--no-isolation builds offline with .venv's tools instead
ENGINE_VERSION = $(shell sed -n 's/^__version__ = "\(.*\)"/\1/p' cardcore/version.py)
BUILD_ARGS ?=
wheel: $(STAMP)
	rm -rf build/sdist dist/cardcore-$(ENGINE_VERSION).tar.gz dist/cardcore-$(ENGINE_VERSION)-*.whl
	mkdir -p build/sdist dist
	CARDCORE_COMPILE= $(BIN)/python -m build $(BUILD_ARGS) --outdir dist .
	tar -xzf dist/cardcore-$(ENGINE_VERSION).tar.gz -C build/sdist
	CARDCORE_COMPILE=1 CARDCORE_COMPILE_OPT=$(COMPILE_OPT) $(BIN)/python -m build $(BUILD_ARGS) --wheel --outdir dist build/sdist/cardcore-$(ENGINE_VERSION)
	rm -rf build/sdist

## golden: regenerate tests/golden/ on purpose (review the diff before committing)
golden: $(STAMP)
	$(BIN)/python -m tests.golden.regenerate

## bench: performance figures (pytest-benchmark); never part of `make test`
bench: $(STAMP)
	$(BIN)/python -m pytest benchmarks --benchmark-only --benchmark-timer=time.process_time \
		-p no:cacheprovider -o testpaths=benchmarks

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis node_modules clients/node/node_modules clients/python/cardcore_proto services/cardcore_server/web/vendor
