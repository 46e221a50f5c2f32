# The README's two commands: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 5000

.PHONY: run run-cluster test lint bench audit clean messages

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Installs are constrained by requirements.lock, so every machine gets the same versions.
$(VENV)/.installed: pyproject.toml requirements.lock | $(BIN)/python
	$(BIN)/pip install --quiet -c requirements.lock -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml requirements.lock | $(BIN)/python
	$(BIN)/pip install --quiet -c requirements.lock -e '.[test,measure]'
	touch $(VENV)/.installed $@

run: $(VENV)/.installed
	$(BIN)/python -m app --host $(HOST) --port $(PORT)

# Several processes on this machine: redis-server, two app processes (5001, 5002) and, if nginx
# is installed, nginx on 127.0.0.1:5000 in front (README "Several processes"). Ctrl-C stops all.
run-cluster: $(VENV)/.installed
	$(BIN)/python deploy/cluster.py

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# Three workers (pytest-xdist) on CI's two cores: a browser test spends much of its time waiting
# on Chromium and the live server, so a third worker fills those waits. Work stealing: an idle
# worker takes tests queued on a busy one, so a run does not wait on one worker's slow tail
# (with plain `load`, the last 2% of a 17-minute run took five minutes).
TEST_WORKERS ?= 3

# --durations: the slowest tests head CI's report, so the 15-minute budget is watched where it is spent.
test: lint
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist worksteal --durations=25

# The UI strings: extract every _() of app/, templates/ and static/js/ into messages.pot and
# merge it into each language's messages.po; translate the new entries there (docs/zh-terms.md).
# The app compiles the .po files itself when it starts (app/web/i18n.py).
messages: $(VENV)/.installed-test
	$(BIN)/pybabel extract -F babel.cfg --no-wrap --sort-by-file --project "Collective Lab" --omit-header -k translate:2 -o app/translations/messages.pot .
	$(BIN)/pybabel update --no-wrap -i app/translations/messages.pot -d app/translations

audit:
	$(PYTHON) .ci/audit_pins.py

bench: $(VENV)/.installed-test
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
