# vitexplain -- `make help` lists the targets (the one list). Every target but html creates .venv
# on first use (python3 -m venv + requirements.lock); html creates the light .venv-docs instead.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
PORT ?= 8888
# Notebooks run two at a time (one kernel each, cells in order): most of a notebook's time is
# kernel start and imports, which use one core.
NB_WORKERS ?= 2
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings
# The learner's working copy of notebooks/ (git-ignored): what `make lab` opens and saves into.
LAB_DIR := my-notebooks

# Inline figures need ipykernel's own backend: a Matplotlib backend exported from the caller's
# shell (MPLBACKEND=Agg) would reach the kernels, drop every figure and fail nbval.
unexport MPLBACKEND
# The kernels must be the venv's, whatever a user has in ~/.local/share/jupyter.
export JUPYTER_PREFER_ENV_PATH := 1

NOTEBOOKS := $(sort $(wildcard notebooks/*.ipynb))
LINT_DIRS := $(wildcard vitexplain tests notebooks benchmarks scripts e2e docs)
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: help setup lab lab-refresh test test-notebooks test-baseline test-notebooks-baseline html pdf e2e \
	figures weights ablation ablation-select robustness lint bench mutation clean

help:
	@echo "vitexplain -- targets (each but html creates $(VENV) from requirements.lock on first use):"
	@echo "  make setup    create $(VENV): pip install -r requirements.lock, then the package (-e .)"
	@echo "  make lab      JupyterLab at http://127.0.0.1:$(PORT) (token auth; PORT=...) on $(LAB_DIR)/,"
	@echo "                your own copy of notebooks/ (git-ignored), made on first use: run, edit"
	@echo "                and save freely, the series' notebooks stay as they are"
	@echo "  make lab-refresh  put the series' notebooks back into $(LAB_DIR)/ (a notebook you"
	@echo "                changed is first moved to $(LAB_DIR)-saved/<date>/)"
	@echo "  make test     pytest (tests/), then pytest --nbval notebooks/ (strict, stored outputs),"
	@echo "                figures written to a temporary folder and compared with figures/, then"
	@echo "                make test-notebooks-baseline"
	@echo "  make test-notebooks  only the notebook part of make test"
	@echo "  make test-baseline  the unit tests whose result can depend on the CPU's float kernels, under"
	@echo "                a baseline CPU instruction set (no AVX): all but those marked cpu_independent"
	@echo "  make test-notebooks-baseline  the wheel outside the repository: every notebook under"
	@echo "                nbval there, on a baseline CPU instruction set, figures compared"
	@echo "  make html     the series as a static site in build/html/ (Sphinx, stored outputs,"
	@echo "                offline; creates $(DOCS_VENV) from requirements-docs.lock, no torch)"
	@echo "  make pdf      the whole series as one printable PDF in build/ (singlehtml + Chromium)"
	@echo "  make e2e      browser tests: the notebooks in JupyterLab (a copy, as make lab; keyboard,"
	@echo "                alt text, git status unchanged after saving), and the site of make html"
	@echo "  make figures  re-execute every notebook in place: refreshes outputs and figures/"
	@echo "  make weights  retrain notebook 08's ViTs and 09's marker ViTs (seeded, about 4 min) and"
	@echo "                09's record into vitexplain/weights/"
	@echo "  make ablation-select  notebook 08's recipes on the validation pictures (3 seeds, ~15 min"
	@echo "                on 2 idle cores): the selection file vitexplain/weights/digits_selection.json"
	@echo "  make ablation the test column, once, for what the committed selection names (~15 min)"
	@echo "  make robustness  notebook 06's record: its model from seeds 0-5, and seed 0 perturbed"
	@echo "                (26 runs, ~9 min on 2 busy cores): vitexplain/weights/scramble_robustness.json"
	@echo "  make lint     ruff check and ruff format --check on $(LINT_DIRS)"
	@echo "  make bench    benchmarks/bench.py: vitexplain against PyTorch's own modules, as ratios"
	@echo "  make mutation  mutation testing (mutmut, pip-installed into $(VENV) on first use, not in"
	@echo "                the lock) of the idea modules and the grader's rules, each against its own"
	@echo "                tests; MODULES='attention vit' for some (long: see benchmarks/mutation.md)"
	@echo "  make clean    remove $(VENV), $(DOCS_VENV), caches and build artefacts (keeps figures/,"
	@echo "                notebooks/)"

setup: $(STAMP)

# torch is pinned (torch==2.13.0) in the lock, so pip never resolves an open torch range
# (which would pull a multi-GB CUDA build). The package goes in afterwards with --no-deps:
# the lock already holds everything it needs.
$(STAMP): requirements.lock pyproject.toml
	@test -x $(BIN)/python || { \
	    $(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { \
	        echo "$(PYTHON) is $$($(PYTHON) --version 2>&1); the lock needs Python 3.11 or newer" \
	             "(make ... PYTHON=python3.11)"; exit 1; }; \
	    echo "creating $(VENV) with $$($(PYTHON) --version)"; $(PYTHON) -m venv $(VENV); }
	$(BIN)/python -m pip install --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --disable-pip-version-check --no-deps --no-build-isolation -e .
	@# JupyterLab: no news feed, no update check (keys from apputils-extension/notification.json);
	@# widget state saved with the notebook, so a reopened Explore shows its figure (not "model not found").
	@mkdir -p $(LAB_SETTINGS)
	@printf '%s\n' '{"@jupyterlab/apputils-extension:notification": {"checkForUpdates": false, "fetchNews": "false"}, "@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": true}}' > $(LAB_SETTINGS)/overrides.json
	@touch $@

# What a newcomer reads in the terminal is the address: kernels talk to the server encrypted
# (CurveZMQ, which ipykernel supports; no warning per kernel about plain TCP), and no language
# server is looked for (none is installed: no list of 19 skipped ones).
LAB_QUIET := --KernelManager.transport_encryption=auto --LanguageServerManager.autodetect=False
# JupyterLab opens the learner's copy, never notebooks/: autosave and Ctrl+S write only into the
# git-ignored $(LAB_DIR)/ (scripts/lab_notebooks.py copies the notebooks it lacks).
lab: $(STAMP)
	@$(BIN)/python scripts/lab_notebooks.py $(LAB_DIR)
	@echo "JupyterLab on $(LAB_DIR)/ (your copy; \`make lab-refresh\` puts the series' version back)"
	$(BIN)/jupyter lab --no-browser $(ALLOW_ROOT) \
	    --ServerApp.ip=127.0.0.1 --ServerApp.port=$(PORT) --ServerApp.root_dir=$(LAB_DIR) \
	    $(LAB_QUIET)

lab-refresh: $(STAMP)
	$(BIN)/python scripts/lab_notebooks.py --refresh $(LAB_DIR)

# The notebook check: every notebook re-executed under strict nbval (stored text outputs must
# match), with its figures written to a temporary folder (VITEXPLAIN_FIGURES_DIR), never into
# figures/; then those figures are compared with the committed ones (nbval skips images). The
# sanitize file comes from pyproject.toml's addopts, as for a plain `pytest --nbval notebooks/`.
# Two at a time, the longest first (a notebook that starts last decides when the run ends):
# xdist keeps the order given (--no-loadscope-reorder; by default it starts the notebooks with
# the most cells first, which left 07, one that trains, to the end).
NBVAL := $(BIN)/python -m pytest -p no:cacheprovider --nbval --nbval-current-env \
    -n $(NB_WORKERS) --dist loadfile --no-loadscope-reorder
NB_LONGEST_FIRST = $(shell $(BIN)/python scripts/execute_notebooks.py --order $(NOTEBOOKS))
# Another CPU on this one: the kernels of a machine without AVX. Three libraries pick their SIMD
# code per CPU, which moves float results in the last bits: PyTorch (ATen, and oneDNN and MKL
# beneath it) and NumPy, each limited by its own variable. Stored outputs must not care.
ISA_BASELINE := ATEN_CPU_CAPABILITY=default MKL_ENABLE_INSTRUCTIONS=SSE4_2 ONEDNN_MAX_CPU_ISA=SSE41 \
    NPY_DISABLE_CPU_FEATURES=X86_V3,X86_V4,AVX512_ICL,AVX512_SPR

# The unit tests, the notebooks in the repository on this CPU, then the wheel's tests with the
# notebooks run again from the wheel outside the repository on a baseline CPU: each notebook twice.
# The unit runs load neither nbval's plugin nor pytest-playwright's: nbval imports nbformat, whose
# import costs 1.3 s of processor time in each pytest process (the controller and both workers).
# Without nbval, its option in pyproject.toml's addopts would be refused: the rest of addopts,
# which these runs keep, is repeated here (keep the two alike).
UNIT := $(BIN)/python -m pytest -p no:cacheprovider -p no:nbval -p no:playwright \
    -o addopts="-ra --strict-markers --dist loadgroup"

test: $(STAMP)
	$(UNIT) -n 2 -m "not wheel"
	@$(MAKE) --no-print-directory test-notebooks
	@$(MAKE) --no-print-directory test-notebooks-baseline

test-notebooks: $(STAMP)
ifneq ($(NOTEBOOKS),)
	@fresh=$$(mktemp -d -t vitexplain-figures.XXXXXX); \
	echo "notebooks under nbval$(if $(NB_ENV), with $(NB_ENV),); figures into $$fresh"; \
	env VITEXPLAIN_FIGURES_DIR=$$fresh $(NB_ENV) $(NBVAL) $(NB_LONGEST_FIRST); \
	$(BIN)/python scripts/compare_figures.py $$fresh --reference figures; \
	rm -rf $$fresh
else
	@echo "no notebooks/*.ipynb yet: notebook run skipped"
endif

# The unit tests on that other CPU too: their tolerances must hold wherever they run. The wheel's
# tests (make test-notebooks-baseline) and the lab copy's test do not depend on the CPU.
# The unit tests whose result can depend on the CPU's float kernels, under the baseline ones:
# every test but those marked cpu_independent (they compare no float that PyTorch or NumPy
# computed: worker processes, interrupts, kernels, text, integers), the wheel's and the lab
# copy's. A test that compares such a float, even within a tolerance, stays unmarked.
test-baseline: $(STAMP)
	env $(ISA_BASELINE) $(UNIT) -q -n 2 \
	    -m "not wheel and not cpu_independent" --ignore=tests/test_lab_notebooks.py

# The notebooks as a pip user on another CPU runs them: the wheel built and installed outside the
# repository (tests/test_wheel.py), every notebook under strict nbval there, under ISA_BASELINE,
# and the figures they draw compared with figures/.
test-notebooks-baseline: $(STAMP)
	env $(ISA_BASELINE) $(BIN)/python -m pytest -p no:cacheprovider -q -m wheel tests/test_wheel.py

# Browser test (e2e/): JupyterLab on a git-ignored copy of notebooks/ (as `make lab`, autosave on)
# driven by pytest-playwright in Debian's chromium, never a downloaded browser. apt-get runs only
# when /usr/bin/chromium is missing (needs root or sudo). The screenshot (lab_01.png) goes to a
# temporary folder; `make e2e E2E_FIGURES_DIR=figures` refreshes the committed screenshot instead.
# pytest prints the ten slowest tests: the 5-minute budget (CONTRIBUTING.md) is watched from CI's log.
CHROMIUM := /usr/bin/chromium
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
# Another apt-get (an unattended upgrade, a neighbour's install) may hold the dpkg lock: wait.
APT_WAIT := -o DPkg::Lock::Timeout=600
E2E_FIGURES_DIR ?=

# The static site: Sphinx + myst-nb (the notebooks' stored outputs, no kernel) +
# sphinx-book-theme, math written as MathML at build time (math-core); docs/ holds conf.py and the
# little of our own (docs/_ext/vx_site.py). It needs only the light environment of
# requirements-docs.lock, in .venv-docs (no torch). The sources are staged in build/site-src:
# docs/*.md and copies of the notebooks (myst-nb resolves a link by the file's real path, so a
# symlinked notebook would not find its neighbours), and links to what the pages point at.
DOCS_VENV := .venv-docs
DOCS_STAMP := $(DOCS_VENV)/.installed
SITE_SRC := build/site-src

$(DOCS_STAMP): requirements-docs.lock
	@test -x $(DOCS_VENV)/bin/python || { echo "creating $(DOCS_VENV)"; $(PYTHON) -m venv $(DOCS_VENV); }
	$(DOCS_VENV)/bin/python -m pip install --disable-pip-version-check -r requirements-docs.lock
	@touch $@

html: $(DOCS_STAMP)
	@rm -rf $(SITE_SRC) build/html build/doctrees build/jupyter_execute
	@mkdir -p $(SITE_SRC)/notebooks
	@cp -p $(NOTEBOOKS) $(SITE_SRC)/notebooks/
	@cp -p docs/*.md $(SITE_SRC)/
	@ln -s $(CURDIR)/figures $(CURDIR)/vitexplain $(CURDIR)/LICENSE $(CURDIR)/CITATION.cff $(SITE_SRC)/
	@# the Run it yourself page's downloads: wheel, sdist and a zip of the notebooks
	@$(DOCS_VENV)/bin/python scripts/site_downloads.py $(SITE_SRC)/downloads > /dev/null
	@# timed: e2e/test_site.py asserts this cold build took at most 20 s (build/html-build-ms)
	@start=$$(date +%s%N); $(DOCS_VENV)/bin/sphinx-build -q -W --keep-going -b html -c docs \
	    -d build/doctrees $(SITE_SRC) build/html; \
	echo $$(( ($$(date +%s%N) - start) / 1000000 )) > build/html-build-ms
	@echo "the site: build/html/index.html ($$(cat build/html-build-ms) ms)"

# The whole series as one printable PDF: the site's sources as one page (singlehtml, same conf.py),
# printed by Debian's Chromium with the site's print style, a tagged PDF (figures' alt text) with
# an outline (scripts/site_pdf.py). Not in CI (a minute or so); e2e/test_site_pdf.py checks it.
pdf: $(STAMP) html
	@rm -rf build/singlehtml build/doctrees-single
	$(DOCS_VENV)/bin/sphinx-build -q -W --keep-going -b singlehtml -c docs -d build/doctrees-single \
	    $(SITE_SRC) build/singlehtml
	$(BIN)/python scripts/site_pdf.py build/singlehtml/index.html build/vitexplain.pdf

e2e: $(STAMP) html
	@test -x $(CHROMIUM) || { echo "$(CHROMIUM) missing: installing Debian's chromium"; \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get $(APT_WAIT) update -q && \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get $(APT_WAIT) install -y -q chromium; }
	@out=$${E2E_FIGURES_DIR:+$$(realpath -m "$$E2E_FIGURES_DIR")}; \
	out=$${out:-$$(mktemp -d -t vitexplain-e2e.XXXXXX)}; \
	echo "browser test; screenshot and figures into $$out"; \
	VITEXPLAIN_FIGURES_DIR=$$out $(BIN)/python -m pytest -p no:cacheprovider e2e/ \
	    --screenshot only-on-failure --output $$out/failures --durations=10

# Each kernel starts in the notebook's own directory (notebooks/). A notebook saves its figures
# only where VITEXPLAIN_FIGURES_DIR points (vx.display_figure): here, figures/. The script stores no timings, no widget state, merged streams and no
# output for `explore` cells (live widgets): a second run changes no byte.
figures: $(STAMP)
ifneq ($(NOTEBOOKS),)
	VITEXPLAIN_FIGURES_DIR=$(CURDIR)/figures $(BIN)/python scripts/execute_notebooks.py $(NOTEBOOKS)
	$(BIN)/python scripts/export_site_vit.py
	$(BIN)/python scripts/explore_frames.py  # the site's Explore frames, into docs/_data/explore/
	$(BIN)/python scripts/export_exercises.py
else
	@echo "no notebooks/*.ipynb to execute"
endif

# Notebook 08's figures come from shipped weights, the same on every CPU; this remakes them with
# the notebook's own training code (same bytes on the same machine). Then notebook 09's marker
# model (3 seeds, seed 0 shipped) and its record, digits_marker.json (about 3 min on 2 cores).
weights: $(STAMP)
	$(BIN)/python scripts/train_digits.py
	$(BIN)/python scripts/explanations_digits.py
	$(BIN)/python scripts/export_site_vit.py

# Notebook 08's ablation in two steps. ablation-select trains the candidate recipes (3 seeds) on
# 1,100 pictures, scores the 300 validation pictures and writes the selection (rule, rows, seeds,
# counts, the chosen row) into vitexplain/weights/digits_selection.json: commit it first. ablation
# reads that committed file, trains what it names on all 1,400 and scores the 397 test pictures
# once per model, into vitexplain/weights/digits_ablation.csv.
ablation-select: $(STAMP)
	$(BIN)/python scripts/ablation_digits.py select

ablation: $(STAMP)
	$(BIN)/python scripts/ablation_digits.py test

# Notebook 06's record (not in CI): what its probes give from other starting seeds, and from
# seed 0's start changed in the last digits.
robustness: $(STAMP)
	$(BIN)/python scripts/robustness_06.py

lint: $(STAMP)
	$(BIN)/ruff check $(LINT_DIRS)
	$(BIN)/ruff format --check $(LINT_DIRS)

bench: $(STAMP)
	$(BIN)/python benchmarks/bench.py

# Not in CI and not in requirements.lock: mutmut is pinned here and installed on first use.
MUTMUT := mutmut==3.8.1
mutation: $(STAMP)
	@$(BIN)/python -c 'import importlib.metadata as m, sys; sys.exit(m.version("mutmut") != "$(word 2,$(subst ==, ,$(MUTMUT)))")' 2>/dev/null \
	    || $(BIN)/python -m pip install --disable-pip-version-check '$(MUTMUT)'
	nice $(BIN)/python benchmarks/mutation.py $(MODULES)

clean:
	rm -rf $(VENV) $(DOCS_VENV) build dist *.egg-info .pytest_cache .ruff_cache
	find . -path ./.git -prune -o -type d \( -name __pycache__ -o -name .ipynb_checkpoints \
	    -o -name .pytest_cache -o -name .ruff_cache -o -name '*.egg-info' \) -prune \
	    -exec rm -rf {} +
