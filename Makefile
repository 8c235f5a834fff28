# One command sets up and runs the main job (`make demo`), one sets up and runs every test (`make test`).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test test-py test-js test-notebooks typecheck lint bench clean kernel-envs

$(STAMP): pyproject.toml js/package.json
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q -U pip
	$(BIN)/pip install -q -e ".[test]"
	touch $(STAMP)

setup: $(STAMP)

chromium:
	@command -v chromium >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)

demo: $(STAMP)
	$(BIN)/jupyter lab notebooks/quickstart.ipynb

lint: $(STAMP)
	$(BIN)/ruff check nbacp tests benchmarks
	$(BIN)/mypy

test-js: $(STAMP)
	cd js && npm test

# Virtualenvs with ipykernel 6.17.1 (+IPython 7.34, Colab) ... 7.4.0 for the kernel matrix tests,
# built in parallel once and cached in .cache/kernels/ (the tests build them too if missing).
kernel-envs: $(STAMP)
	cd tests && ../$(BIN)/python -m kernel_matrix

test-py: $(STAMP) chromium kernel-envs
	$(BIN)/pytest -q -p no:cacheprovider

test-notebooks: $(STAMP)
	NBACP_ANSWERS=$(CURDIR)/notebooks/answers $(BIN)/pytest -q -p no:cacheprovider --nbval notebooks --nbval-sanitize-with notebooks/sanitize.cfg --nbval-cell-timeout 120

test: lint test-js test-py test-notebooks

bench: $(STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) js/node_modules nbacp/widgets/static/*.js .cache/kernels
