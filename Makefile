# Shortcuts; dev.py does the work and needs nothing but Python 3.12+.
PYTHON ?= python3

.PHONY: start test bench

start:
	$(PYTHON) dev.py start

test:
	$(PYTHON) dev.py test

# By hand only, never in CI: timings through the full stack (see README, "Performance").
# make bench ARGS="--preset large --database postgres"
bench:
	$(PYTHON) -c "import dev; dev.ensure_venv()"
	.venv/bin/python -m benchmarks $(ARGS)
