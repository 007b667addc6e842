# payscope: `make run` starts the TUI on the embedded sandbox; `make test` runs the whole suite.
VENV   ?= .venv
PYTHON ?= python3
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# The suite runs in parallel (pytest-xdist), two workers per core and one more: about a third
# of a TUI test's time is spent waiting (the sandbox's answers, webhooks, frames), which another
# worker fills; fewer workers leave a core idle, more only add start-up cost.
WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) * 2 + 1 )))
PYTEST_ARGS ?= -n $(WORKERS)

.PHONY: run sandbox listen test test-under-load lint format bench docs screenshots clean lock upgrade-check

# Every dependency, the dev tools' too, installs at the version requirements.lock names (with its
# hashes); payscope itself then goes in editable, adding nothing. uv installs them (in a few
# seconds where pip takes about twenty): pip installs uv first, at the lock's version and hashes
# (its entry, cut out of the lock). Should uv fail (no wheel of it for this machine), pip installs
# the same lock.
LOCK := requirements.lock
UV_ENTRY := $(VENV)/uv-entry.txt
$(STAMP): pyproject.toml $(LOCK)
	@test -x $(PY) || { echo "make: creating the virtual environment $(VENV)"; $(PYTHON) -m venv $(VENV); }
	@echo "make: installing payscope and its dependencies into $(VENV)"
	@awk '/^uv==/ {entry = 1} entry {print} entry && !/\\$$/ {exit}' $(LOCK) > $(UV_ENTRY)
	@if $(PY) -m pip install -q --require-hashes --no-deps -r $(UV_ENTRY) && \
		$(VENV)/bin/uv pip install -q --python $(PY) --require-hashes -r $(LOCK) && \
		$(VENV)/bin/uv pip install -q --python $(PY) --no-deps -e .; then :; else \
		echo "make: uv could not install; pip installs the lock instead"; \
		$(PY) -m pip install -q --require-hashes -r $(LOCK) && $(PY) -m pip install -q --no-deps -e .; \
	fi
	@touch $(STAMP)
	@echo "make: installed. For the payscope command in your shell: source $(VENV)/bin/activate"

run: $(STAMP)
	$(VENV)/bin/payscope $(ARGS)

sandbox: $(STAMP)
	$(VENV)/bin/payscope sandbox $(ARGS)

listen: $(STAMP)
	$(VENV)/bin/payscope listen $(ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet

# The docs site (mkdocs-material) into site/; --strict: a broken link or a page left out of the
# navigation fails (so it fails `make lint` and `make test` too).
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict
	@echo "make: the docs are in site/ (open site/index.html)"

# The docs' pictures, drawn by the app on the snapshot tests' seeded sandbox (tests/test_docs_pictures.py
# fails when one no longer matches): run after changing a screen a picture shows, then look at it.
screenshots: $(STAMP)
	$(PY) docs/screenshots.py $(ARGS)

# The tests' files go to memory (/dev/shm) when it has 2 GB free: the sandboxes and journals
# of the tests commit with fsync, which a disk makes the suite wait for. Elsewhere they stay in
# the usual temp dir.
TEST_TMPDIR ?= $(shell d=/dev/shm; test -d $$d -a -w $$d && \
	test "$$(df -Pk $$d 2>/dev/null | awk 'NR == 2 {print $$4}')" -gt 2000000 2>/dev/null && echo $$d)

# Bytecode is written even where PYTHONDONTWRITEBYTECODE is set: each worker would otherwise
# compile (and rewrite the asserts of) every module it imports again, on every run. On a fresh
# checkout there is none yet, and every worker would make it at once: one collection makes it
# on the other core while lint runs.
PYTEST_ENV := PYTHONDONTWRITEBYTECODE= $(if $(TEST_TMPDIR),TMPDIR=$(TEST_TMPDIR))
PYTEST := $(PYTEST_ENV) $(VENV)/bin/pytest
test: $(STAMP)
	@if ls tests/__pycache__/conftest.*-pytest-*.pyc >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory lint; \
	else \
		echo "make: compiling the tests while lint runs (first run of this checkout)"; \
		$(PYTEST) --collect-only -q -p no:cacheprovider >/dev/null 2>&1 & warm=$$!; \
		$(MAKE) --no-print-directory lint; status=$$?; wait $$warm; exit $$status; \
	fi
	$(PYTEST) $(PYTEST_ARGS)

# `make test` with CPU-bound busy processes beside it the whole time (BUSY, two by default): the
# suite passes on a loaded machine, as no outcome depends on speed. The busy processes are the
# target's own, started and stopped by .ci/under_load.py (each checked to be its child before it
# is signalled). PYTEST_ARGS works as for `make test`.
BUSY ?= 2
test-under-load: $(STAMP)
	$(PY) .ci/under_load.py --busy $(BUSY) -- $(MAKE) --no-print-directory test

# requirements.lock anew from pyproject.toml, keeping the versions it has where they still fit;
# `make lock LOCK_ARGS=--upgrade` takes the newest allowed of everything (see upgrade-check first).
LOCK_ARGS ?=
lock: $(STAMP)
	$(VENV)/bin/uv pip compile pyproject.toml --extra dev --universal --python-version 3.11 \
		--generate-hashes --custom-compile-command "make lock" $(LOCK_ARGS) -o $(LOCK)

# The newest versions pyproject.toml allows, with Textual, Rich and textual-plotext let up to their
# next major release, in a scratch venv; says which versions changed against the lock, then runs
# the whole suite there and lists what failed. Nothing here touches $(VENV) or the lock.
UPGRADE_VENV ?= /tmp/payscope-upgrade
upgrade-check: $(STAMP)
	@echo "make: newest allowed versions into $(UPGRADE_VENV)"
	$(PYTHON) -m venv --clear $(UPGRADE_VENV)
	@$(PY) -c 'import re, tomllib; deps = tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]; \
		pins = [m for d in deps if (m := re.fullmatch(r"([A-Za-z0-9._-]+)==((\d+)\S*)", d))]; \
		print(*(f"{m[1]}>={m[2]},<{int(m[3]) + 1}" for m in pins), sep="\n")' > $(UPGRADE_VENV)/widened.txt
	$(VENV)/bin/uv pip compile -q pyproject.toml --extra dev --universal --python-version 3.11 \
		--override $(UPGRADE_VENV)/widened.txt --no-annotate --no-header -o $(UPGRADE_VENV)/newest.txt
	$(UPGRADE_VENV)/bin/python -m pip install -q --upgrade pip
	$(UPGRADE_VENV)/bin/python -m pip install -q -r $(UPGRADE_VENV)/newest.txt
	$(UPGRADE_VENV)/bin/python -m pip install -q --no-deps -e .
	@export LC_ALL=C; pins() { grep -oE '^[A-Za-z0-9._-]+==[^ ;\]+' "$$1" | tr 'A-Z_.' 'a-z--' | sort -u -t= -k1,1; }; \
	pins $(LOCK) > $(UPGRADE_VENV)/locked.pins; pins $(UPGRADE_VENV)/newest.txt > $(UPGRADE_VENV)/newest.pins; \
	echo "make: versions changed against $(LOCK):"; \
	join -t= -a1 -a2 -e '(none)' -o 0,1.2,2.2 $(UPGRADE_VENV)/locked.pins $(UPGRADE_VENV)/newest.pins \
		| awk -F= '$$2 != $$3 {print "  " $$1 " " $$2 " -> " $$3; n++} END {if (!n) print "  none"}'
	@echo "make: the suite on the newest versions (the pins' own check is left out: it fails by design)"
	@$(PYTEST_ENV) $(UPGRADE_VENV)/bin/pytest $(PYTEST_ARGS) -q -p no:cacheprovider --tb=no -rf \
		--deselect tests/test_pinned.py::test_what_is_installed_is_what_is_pinned \
		> $(UPGRADE_VENV)/suite.log 2>&1; status=$$?; \
	grep -E '^(FAILED|ERROR) ' $(UPGRADE_VENV)/suite.log | sed 's/^/  /'; tail -n 1 $(UPGRADE_VENV)/suite.log; \
	if [ $$status -eq 0 ]; then echo "make: the suite passes on the newest versions: an upgrade is 'make lock LOCK_ARGS=--upgrade' and the pins"; \
	else echo "make: the suite fails on the newest versions (log: $(UPGRADE_VENV)/suite.log)"; fi; exit $$status

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# Every benchmark runs even when an earlier one misses its target; the exit status says if any did.
# Each writes its figures to bench/results/<name>.json; docs/performance.md is then written from them.
BENCHES := bench/client_overhead.py bench/sandbox.py bench/listener.py bench/startup.py \
           bench/events_memory.py bench/events_latency.py bench/hardening.py \
           bench/analytics_chart.py bench/faults.py bench/listener_forward.py \
           bench/delivery.py bench/big_answer.py bench/export.py bench/uvicorn_overrides.py \
           bench/routing.py
bench: $(STAMP)
	@failed=""; for b in $(BENCHES); do echo "== $$b"; $(PY) $$b || failed="$$failed $$b"; done; \
	$(PY) bench/report.py; \
	if [ -n "$$failed" ]; then echo "targets missed in:$$failed"; exit 1; fi

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache *.egg-info site
