"""The benchmark harness: page and write timings through Django's full stack, by hand.

    python -m benchmarks [--preset small|large|federation] [--database sqlite|postgres]
                         [--repeat N] [--out results/]

It never runs in CI's pass/fail. See README.md, "Performance", and
``benchmarks/__main__.py`` for what is measured and how.
"""
