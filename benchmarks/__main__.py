"""``python -m benchmarks``: every benchmark, tables to stdout and ``benchmarks/results.md``."""

from benchmarks.run import main

main()
