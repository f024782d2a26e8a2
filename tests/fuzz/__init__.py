"""A long fuzz run that CI does not pay for: generated scripts and mutated metadata documents.

``python -m tests.fuzz --minutes 30`` (what a nightly job calls; ``--help`` for the rest) runs
the library and the command line on hostile input until the time is up and reports every
finding once: an exception other than the package's own errors, a command that ends other than
with its exit codes or prints a traceback, a case slower than its limit. Each finding's input is
written to the output folder, so that it becomes a regression test. The property tests of the
suite run with large counts under ``ICEBERG_UDF_FUZZ=nightly`` (``tests/conftest.py``).

- :mod:`.scripts`: SQL scripts of both dialects, with Trino routines built statement by
  statement (nested branches, loops, declarations), each piece sometimes hostile.
- :mod:`.documents`: metadata documents, valid ones mutated (hostile values, deep nesting,
  deleted and copied parts).
- :mod:`.checks`: what runs each case (library calls, commands) and what counts as a finding.
"""
