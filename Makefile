# payscope: `make run` starts the TUI on the embedded sandbox; `make test` runs the whole suite.
VENV   ?= .venv
PYTHON ?= python3
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# The suite runs in parallel, one worker per core (pytest-xdist).
PYTEST_ARGS ?= -n auto

.PHONY: run test lint format bench clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	@touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/payscope $(ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

test: lint
	$(VENV)/bin/pytest $(PYTEST_ARGS)

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# Every benchmark runs even when an earlier one misses its target; the exit status says if any did.
BENCHES := bench/client_overhead.py bench/sandbox.py bench/listener.py bench/startup.py \
           bench/events_memory.py bench/events_latency.py
bench: $(STAMP)
	@failed=""; for b in $(BENCHES); do echo "== $$b"; $(PY) $$b || failed="$$failed $$b"; done; \
	if [ -n "$$failed" ]; then echo "targets missed in:$$failed"; exit 1; fi

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache *.egg-info
