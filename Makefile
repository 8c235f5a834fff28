# One command sets up and runs the main job (`make demo`), one sets up and runs every test (`make test`).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# `make demo` installs the demo extra only; the test extra holds it, so `make setup` marks both.
DEMO_STAMP := $(VENV)/.installed-demo

.PHONY: setup labextension demo demo-setup test-pip chromium test test-fast test-py test-slow-link test-colab-stack test-js test-notebooks lint bench bench-quick clean real-agents kernel-envs test-sdk1

# Root needs no sudo (and JupyterLab's --allow-root); everyone else gets sudo for apt-get only.
ROOT := $(filter 0,$(shell id -u))
SUDO := $(if $(ROOT),,sudo)
# The demo runs on a scratch copy of notebooks/ (gitignored): a person's runs, saves and new
# notebooks land there, never in a tracked file or in what `make test-notebooks` collects.
# The copy and the server are `python -m nbacp.demo notebooks|lab`, what a pip user runs.
DEMO_DIR := workspace
DEMO_PORT ?= 8888

$(STAMP): pyproject.toml js/package.json
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q -U pip
	$(BIN)/pip install -q -e ".[test]"
	touch $(STAMP) $(DEMO_STAMP)

$(DEMO_STAMP): pyproject.toml js/package.json
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q -U pip
	$(BIN)/pip install -q -e ".[demo]"
	touch $(DEMO_STAMP)

setup: $(STAMP) labextension

# The front-end piece (labextension/ -> nbacp/labextension): `pip install -e` builds it with the
# cards (when those are stale), so it is rebuilt here when its own sources change, and the venv's
# share/jupyter/labextensions/nbacp becomes a link to this checkout's build (what `jupyter
# labextension develop` does), so JupyterLab serves what was built last.
LABEXT := nbacp/labextension/package.json
LABEXT_LINK := $(VENV)/share/jupyter/labextensions/nbacp
$(LABEXT): labextension/package.json labextension/package-lock.json labextension/tsconfig.json labextension/build.mjs $(wildcard labextension/src/*.ts) $(wildcard labextension/schema/*.json)
	cd labextension && npm ci --no-audit --no-fund --loglevel=error && npm run build
	@touch $@

labextension: $(STAMP) $(LABEXT)
	@test -L $(LABEXT_LINK) || { rm -rf $(LABEXT_LINK) && mkdir -p $(dir $(LABEXT_LINK)) && ln -s $(CURDIR)/nbacp/labextension $(LABEXT_LINK); }
	@$(BIN)/jupyter labextension list 2>&1 | grep -E "^ +nbacp " || { echo "the nbacp extension is not listed" >&2; exit 1; }

chromium:
	@command -v chromium >/dev/null 2>&1 || ($(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)

demo-setup: $(DEMO_STAMP)
	@test -L $(LABEXT_LINK) || { rm -rf $(LABEXT_LINK) && mkdir -p $(dir $(LABEXT_LINK)) && ln -s $(CURDIR)/nbacp/labextension $(LABEXT_LINK); }
	$(BIN)/python -m nbacp.demo notebooks $(DEMO_DIR)

# Stop with Ctrl-C twice. NBACP_ANSWERS is dropped so every card waits for the person.
demo: $(DEMO_STAMP)
	$(BIN)/python -m nbacp.demo lab $(DEMO_DIR) --port $(DEMO_PORT)

# js/node_modules as js/package-lock.json pins it. `pip install -e` runs npm only while the built
# card.js is missing (pyproject's skip-if-exists), so a clone that built it before a devDependency
# came (tsc, vitest) would lack it: npm ci again whenever the lock is newer than node_modules.
JS_DEPS := js/node_modules/.package-lock.json
$(JS_DEPS): js/package.json js/package-lock.json
	cd js && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# Python: ruff's formatter (check only: `ruff format` rewrites), ruff's linter and mypy --strict; JavaScript: tsc --noEmit on js/src's JSDoc types (js/tsconfig.json) and on
# the front-end piece's TypeScript (labextension/tsconfig.json).
lint: $(STAMP) $(JS_DEPS) $(LABEXT)
	$(BIN)/ruff format --check nbacp tests benchmarks
	$(BIN)/ruff check nbacp tests benchmarks
	$(BIN)/mypy
	cd js && npm run typecheck
	cd labextension && npm run typecheck

test-js: $(STAMP) $(JS_DEPS) $(LABEXT)
	cd js && npm test
	cd labextension && npm test

# The real-agent tier's npm agents (exact pins + lock in tests/real_agents/), once per clone, timed.
AGENTS := .cache/agents
$(AGENTS)/.installed: tests/real_agents/package.json tests/real_agents/package-lock.json
	@mkdir -p $(AGENTS) && cp tests/real_agents/package.json tests/real_agents/package-lock.json $(AGENTS)/
	@start=$$(date +%s); cd $(AGENTS) && npm ci --no-audit --no-fund --loglevel=error \
		&& echo "real agents installed in $$(( $$(date +%s) - start )) s"
	@touch $@

real-agents: $(AGENTS)/.installed

# Virtualenvs with ipykernel 6.17.1 (+IPython 7.34, Colab) ... 7.4.0 for the kernel matrix tests,
# built in parallel once and cached in .cache/kernels/ (the tests build them too if missing), and
# JupyterLab with jupyter-collaboration for the notebook edits' browser test (support/rtc_stack.py).
kernel-envs: $(STAMP)
	cd tests && ../$(BIN)/python -m support.kernel_matrix
	cd tests && ../$(BIN)/python -m support.rtc_stack

test-py: $(STAMP) chromium real-agents kernel-envs
	$(BIN)/pytest -q -p no:cacheprovider --durations=15 -m "not slow_link and not colab_stack"

# Real JupyterLab + chromium behind a proxy delaying each way 0/150/400/1000 ms: the agent gets
# exactly what the page showed at the click (tests/browser/test_slow_link.py; about 90 s).
test-slow-link: $(STAMP) chromium
	$(BIN)/pytest -q -p no:cacheprovider -m slow_link tests/browser

# The slow-link cases (fast person, 0 and 400 ms, kernel idle or a cell awaiting) on Colab's
# widget stack, ipywidgets 7.7.1 + anywidget 0.9.21, in JupyterLab 3.6 from a venv built once in
# .cache/kernels/colab-lab3 (tests/browser/test_colab_stack.py, docs/kernels.md 'Colab in a
# browser'; about 60 s from nothing, 30 s with the venv built).
test-colab-stack: $(STAMP) chromium
	cd tests && ../$(BIN)/python -m support.colab_stack
	$(BIN)/pytest -q -p no:cacheprovider -m colab_stack tests/browser

# The unit tier alone, for the edit-and-rerun loop: no kernels, browser or real agents (and no set-up of theirs).
test-fast: $(STAMP)
	$(BIN)/pytest -q -p no:cacheprovider -m "not kernel and not browser and not real_agents"

# The core tiers again on the newest 1.x ACP Python SDK (pinned in tests/support/sdk1_env.py), in
# .cache/sdk1: unit, real peers, real kernels (this venv's ipykernel; the kernel matrix keeps SDK
# 0.12.1) and real agents, plus the resolver check. ACP Kit and acpremote tests skip there: neither
# has a release for SDK 1.x (docs/protocol.md, 'Two SDK lines').
test-sdk1: $(STAMP) real-agents
	cd tests && ../$(BIN)/python -m support.sdk1_env
	.cache/sdk1/bin/python -m pytest -q -p no:cacheprovider --timeout=300 -m "not browser" \
		--ignore=tests/browser --ignore=tests/test_first_run.py

test-notebooks: $(STAMP)
	NBACP_ANSWERS=$(CURDIR)/notebooks/answers $(BIN)/pytest -q -p no:cacheprovider --nbval notebooks --nbval-sanitize-with notebooks/sanitize.cfg --nbval-cell-timeout 120

# The pip user's path (.ci/pip-path): sdist and wheel, a wheel from the sdist without Node, the
# wheel's [demo] in a fresh venv running the quickstart, and Colab's kernel stack left untouched.
test-pip: $(STAMP)
	PYTHON=$(abspath $(BIN)/python) .ci/pip-path

# Each tier in turn, with its time, so CI's log shows where the minutes go (the whole run must stay well under 90).
TIERS := setup chromium real-agents kernel-envs lint test-js test-py test-slow-link test-colab-stack test-sdk1 test-notebooks test-pip bench-quick
test:
	@for tier in $(TIERS); do start=$$(date +%s); $(MAKE) --no-print-directory $$tier || exit 1; \
		echo "== tier $$tier: $$(( $$(date +%s) - start )) s"; done

bench: $(STAMP) chromium
	$(BIN)/python -m benchmarks

# Small sizes, no thresholds: fails only if a benchmark crashes (so benchmarks cannot rot unseen).
bench-quick: $(STAMP) chromium
	$(BIN)/python -m benchmarks --quick

clean:
	rm -rf $(VENV) js/node_modules nbacp/widgets/static/*.js labextension/node_modules labextension/lib nbacp/labextension $(AGENTS) .cache/kernels .cache/sdk1
