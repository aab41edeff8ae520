# The two commands: `make run` (install, migrate, seed the demo bot, serve on 127.0.0.1:8000)
# and `make test` (install, run the whole suite). `make bench` prints the benchmark figures.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat requirements.txt | md5sum | cut -c1-12)
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install messages gettext-tools run test bench lint format browser wrk saml-tools clean prod prod-stop prod-status

$(STAMP): requirements.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP) messages

# The back office's French (config/locale/fr): the .po is in the repository, the .mo is built here with
# Debian's gettext (msgfmt), installed with apt-get when it is missing; never committed.
messages: $(STAMP) gettext-tools
	$(BIN)/python manage.py compilemessages --ignore=.venv --ignore=tests --ignore=bench -v 0

gettext-tools:
	@command -v msgfmt >/dev/null 2>&1 || { \
		echo "Installing Debian's gettext for the back office's translations"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq gettext >/dev/null; }

run: install saml-tools
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py seed_demo --base-url http://$(HOST):$(PORT)
	$(BIN)/daphne --bind $(HOST) --port $(PORT) config.asgi:application

# The production layout on this machine, as it runs on several (deploy/prod.py): nginx with TLS on
# https://127.0.0.1:8443 in front of gunicorn's uvicorn workers, with the background work (vector jobs, live
# chat's clocks) as a program of its own (manage.py run_background; `make run` keeps it in its one process),
# kept running by supervisord. Needs
# DATABASE_URL (PostgreSQL) and REDIS_URL, e.g.
#   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bots REDIS_URL=redis://127.0.0.1:6379/1 make prod
# Installs Debian's nginx with apt-get when it is missing. PROD_* variables: see deploy/prod.py.
prod: install
	$(BIN)/python deploy/prod.py start

prod-stop:
	$(BIN)/python deploy/prod.py stop

prod-status:
	$(BIN)/python deploy/prod.py status

# The browser tests drive Debian's chromium (never a downloaded browser).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "Installing Debian's chromium for the browser tests"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }

# The talk speed benchmark's load tool: Debian's wrk (never a downloaded binary).
wrk:
	@command -v wrk >/dev/null 2>&1 || { \
		echo "Installing Debian's wrk for bench/talk_speed.py"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq wrk >/dev/null; }

# SAML2 for chatboxes (accounts/saml): pysaml2 signs and checks XML signatures with Debian's xmlsec1.
saml-tools:
	@command -v xmlsec1 >/dev/null 2>&1 || { \
		echo "Installing Debian's xmlsec1 for SAML2 (accounts/saml)"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq xmlsec1 >/dev/null; }

test: install browser saml-tools
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

# Every benchmark prints its figures (the README records them). kb_import needs this machine's
# PostgreSQL for its PostgreSQL figures (BENCH_POSTGRES_URL, a scratch database it recreates).
BENCH_POSTGRES_URL ?= postgres://postgres@127.0.0.1:5432/kbbench
bench: install wrk
	$(BIN)/python bench/matching.py
	$(BIN)/python bench/talk.py
	$(BIN)/python bench/kb_import.py --postgres-url $(BENCH_POSTGRES_URL)
	$(BIN)/python bench/livechat.py --postgres-url $(BENCH_POSTGRES_URL)
	$(BIN)/python bench/dialogs_export.py --postgres-url $(BENCH_POSTGRES_URL)
	$(BIN)/python bench/analytics.py --postgres-url $(BENCH_POSTGRES_URL)
	$(BIN)/python bench/talk_load.py
	$(BIN)/python bench/talk_speed.py
	$(BIN)/python bench/distant_database.py
	$(BIN)/python bench/worker_memory.py
	$(BIN)/python bench/index_files.py --postgres-url $(BENCH_POSTGRES_URL)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
