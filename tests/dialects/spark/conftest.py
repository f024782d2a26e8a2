"""What the Spark tests share: the Spark forms compile stores for the benchmark corpus."""

from __future__ import annotations

import pytest

from benchmarks.corpus import generate
from translator.api import compile_script
from translator.metadata.model import SqlRepresentation


@pytest.fixture(scope="session")
def corpus_spark_forms() -> list[str]:
    """The Spark representation of every function of the corpus's first 2,000 statements:
    Trino functions' Spark forms (compound bodies among them) and Spark functions' bodies.
    Compiled once for the tests that hold our sqlglot classes to sqlglot's own."""
    forms = []
    for script in generate(2000):
        result = compile_script(script.text, script.dialect)
        for meta in result.functions.values():
            for definition in meta.definitions if meta is not None else []:
                for version in definition.versions:
                    for rep in version.representations:
                        if isinstance(rep, SqlRepresentation) and rep.dialect == "spark":
                            forms.append(rep.sql)
    return forms
