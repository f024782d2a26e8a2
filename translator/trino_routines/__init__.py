"""Trino SQL routines: an analyzer with Trino's rules, and a lowering of compound bodies.

A small compiler in four passes, each its own module:

- :mod:`.syntax`: the AST of a routine (header and ``BEGIN ... END`` statements), built from
  the Trino lark grammar's parse; expressions stay text, with their offsets.
- :mod:`.expr_types`: Trino types of expressions where they can be derived (sqlglot trees).
- :mod:`.analyzer`: Trino's routine analyzer (scopes, labels, RETURN, types, determinism),
  with Trino's error codes, messages and positions.
- :mod:`.lowering`: a compound body as one expression for an engine that cannot hold
  statements (Spark): assignments substituted forward, branches as CASE, loops as folds.
- :mod:`.meaning`: what a Trino expression means, written in Spark: 1-based subscripts, integer
  division, ISO day of week...; a difference it cannot express refuses the body.
"""
