# hubplan — the two commands a new machine needs:
#   make lab    set up .venv and open the workbook (notebooks/00_overview.ipynb, default scenario)
#   make test   set up .venv and run every check: ruff, pytest (+ doctests), nbval over notebooks/
#   make present  the overview as a code-free dashboard (Voila) on http://127.0.0.1:8866/
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# JupyterLab refuses to run as root unless told; CI and containers run as root.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: lab present test lint pytest bench clean notebooks properties netbox-check

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "hubplan needs Python >= 3.11; found " + sys.version.split()[0])'
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || { \
	  echo "python3 -m venv failed: installing Debian's python3-venv"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv && \
	  $(PYTHON) -m venv $(VENV); }

$(STAMP): pyproject.toml templates/jupyterlab/overrides.json | $(BIN)/python
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	@# No news or update toasts over the workbook while presenting (and no network calls).
	@mkdir -p $(VENV)/share/jupyter/lab/settings
	@cp templates/jupyterlab/overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	@touch $(STAMP)

# What the tests need beyond Python: the appendix tests open the workbook in LibreOffice,
# the browser test drives Debian's Chromium (no `playwright install`); CJK fonts for both.
# The Slurm test starts Debian's slurmctld (with scontrol from slurm-client) on the exported
# files, in a private mount and network namespace (unshare, mount, ip: loopback only).
# The GB200 block-topology test needs slurmctld >= 24.05 (BlockSizes; Debian 12 has 22.05):
# where the host's is older, a minimal Debian 13 root with its slurmctld (24.11) is made
# with debootstrap in SLURM24_ROOT (about 2 minutes, 200 MB; tests/test_delivery_block.py).
# Installed from Debian's packages when missing (as root, like CI); rechecked whenever this
# Makefile changes.
SLURM24_ROOT ?= /var/tmp/hubplan-slurm24/root
SYSDEPS := $(VENV)/.sysdeps
$(SYSDEPS): Makefile | $(BIN)/python
	@command -v soffice >/dev/null 2>&1 && test -x /usr/bin/chromium || { \
	  echo "soffice or chromium not found: installing Debian's libreoffice-calc-nogui, chromium and fonts-noto-cjk"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    libreoffice-calc-nogui chromium fonts-noto-cjk; }
	@command -v pdftotext >/dev/null 2>&1 || { \
	  echo "pdftotext not found (the appendix print test reads LibreOffice's PDF with it): installing Debian's poppler-utils"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends poppler-utils; }
	@PATH="$$PATH:/usr/sbin:/sbin"; command -v slurmctld >/dev/null 2>&1 && command -v scontrol >/dev/null 2>&1 \
	  && command -v unshare >/dev/null 2>&1 && command -v mount >/dev/null 2>&1 \
	  && command -v ip >/dev/null 2>&1 || { \
	  echo "slurmctld not found: installing Debian's slurmctld, slurm-client and iproute2"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	    slurmctld slurm-client util-linux mount iproute2; }
	@PATH="$$PATH:/usr/sbin:/sbin"; v=$$(slurmctld -V 2>/dev/null | cut -d' ' -f2); \
	  if [ "$$(printf '%s\n24.05\n' "$$v" | sort -V | head -n1)" != 24.05 ] \
	     && [ ! -x $(SLURM24_ROOT)/usr/sbin/slurmctld ]; then \
	    echo "slurmctld $$v predates 24.05: making a Debian 13 root with its slurmctld in $(SLURM24_ROOT)"; \
	    command -v debootstrap >/dev/null 2>&1 || { apt-get update -qq && \
	      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; }; \
	    debootstrap --variant=minbase --include=slurmctld,slurm-client trixie \
	      $(SLURM24_ROOT) http://deb.debian.org/debian && touch $(SLURM24_ROOT)/etc/hosts; fi
	@touch $(SYSDEPS)

lab: $(STAMP)
	@# Served from the repository root, so the file browser reaches templates/scenarios/ (the
	@# files the overview tells users to edit), not only notebooks/.
	$(BIN)/jupyter lab $(ROOT_FLAG) --ServerApp.root_dir=$(CURDIR) notebooks/00_overview.ipynb

# The overview as a clean dashboard for a workshop: no code cells, loopback only, offline.
PORT ?= 8866
present: $(STAMP)
	$(BIN)/voila notebooks/present.ipynb --no-browser --Voila.ip=127.0.0.1 --port=$(PORT)

lint: $(STAMP)
	$(BIN)/ruff check hubplan tests notebooks benchmarks scripts
	$(BIN)/ruff format --check hubplan tests benchmarks scripts
	$(BIN)/lint-imports

pytest: $(STAMP) $(SYSDEPS)
	HUBPLAN_SLURM24_ROOT=$(SLURM24_ROOT) $(BIN)/python -m pytest --nbval-lax --nbval-current-env \
	  --nbval-cell-timeout=300 \
	  --nbval-sanitize-with tests/nbval_sanitize.cfg tests hubplan notebooks

test: lint pytest

bench: $(STAMP) $(SYSDEPS)
	$(BIN)/python benchmarks/bench_plan.py
	$(BIN)/python benchmarks/bench_network.py
	$(BIN)/python benchmarks/bench_facility.py
	$(BIN)/python benchmarks/bench_appendix.py
	$(BIN)/python benchmarks/bench_cost.py
	$(BIN)/python benchmarks/bench_scale.py
	@# In the browser: Voila and Chromium, a control committed to the figure it moves,
	@# timed with the page's Performance API (tests/test_browser.py writes the table).
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/test_browser.py -k overview_dashboard
	@cat build/browser-timing.txt
	$(BIN)/python benchmarks/bench_cli.py

# The long property campaigns, on fresh examples: random scenarios and random CLI flags
# (README, "Property campaign").
properties: $(STAMP)
	HUBPLAN_LONG=1 $(BIN)/python -m pytest -q -p no:cacheprovider tests/test_properties.py \
	  tests/test_cli.py

# Import the NetBox files of the default, GB200 NVL72 and 16K plans into a real NetBox (pinned in
# scripts/netbox_check.py; Debian PostgreSQL and Redis, all on loopback) through its own
# bulk-import pages, and count accepted/rejected rows per file. Slow (tens of minutes on
# 2 cores), so not part of `make test`; `make test` checks columns and choices offline.
netbox-check: $(STAMP)
	$(BIN)/python scripts/netbox_check.py

# Re-run the notebooks; keep outputs only of NBVAL_CHECK_OUTPUT cells, strip widget state.
notebooks: $(STAMP)
	$(BIN)/python scripts/refresh_notebooks.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .ruff_cache
