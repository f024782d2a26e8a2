"""Shared test helpers: paths, the REST schema every written document must pass, Spark."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
#: The workplace's shared data (seeds, corpus, conformance), beside the checkout.
SHARED = Path(os.environ.get("ICEBERG_UDF_SHARED", ROOT.parent / "shared"))


#: Hypothesis profiles, chosen by ``ICEBERG_UDF_FUZZ``: ``ci`` (the default: the counts each
#: test names, which CI pays for) or ``nightly`` (each test :data:`NIGHTLY_SCALE` times its
#: count, for a run CI does not wait on; ``python -m tests.fuzz`` is the other half of it).
FUZZ_PROFILE = os.environ.get("ICEBERG_UDF_FUZZ", "ci")
NIGHTLY_SCALE = 50
_SCALES = {"ci": 1, "nightly": NIGHTLY_SCALE}
if FUZZ_PROFILE not in _SCALES:
    raise pytest.UsageError(f"ICEBERG_UDF_FUZZ={FUZZ_PROFILE!r}: expected one of {sorted(_SCALES)}")
settings.register_profile("ci", deadline=None)
settings.register_profile(
    "nightly",
    max_examples=100 * NIGHTLY_SCALE,  # a test that names no count (hypothesis' own is 100)
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(FUZZ_PROFILE)


def examples(n: int) -> int:
    """A property test's count of examples: ``n`` in CI, many times that in a nightly run."""
    return n * _SCALES[FUZZ_PROFILE]


def require_shared(path: Path) -> None:
    """Skip the test, saying why, when ``path`` of the shared data is absent (a checkout without
    ``../shared`` beside it); in CI its absence fails instead."""
    if path.exists():
        return
    reason = f"{path} is absent: the test needs ../shared beside the checkout (ICEBERG_UDF_SHARED)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason)
    pytest.skip(reason)


@cache
def _schema_validator() -> Any:
    import jsonschema

    path = SHARED / "conformance" / "iceberg-rest-function-metadata.schema.json"
    require_shared(path)
    schema = json.loads(path.read_text())
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def assert_rest_schema_valid(document: dict[str, Any] | str) -> None:
    """Fail unless ``document`` passes the Iceberg REST catalog's FunctionMetadata schema."""
    doc = json.loads(document) if isinstance(document, str) else document
    errors = sorted(_schema_validator().iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


@pytest.fixture
def rest_schema_valid() -> Callable[[dict[str, Any] | str], None]:
    return assert_rest_schema_valid


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One real local Spark session for the whole run (pyspark, ``local[1]``, no UI).

    Spark is part of the product's promise, so its absence fails the run instead of skipping:
    the README's test command installs pyspark, and Java 17 is on the machine.
    """
    from pyspark.sql import SparkSession

    # Python workers (compile_dataframe) must run this interpreter, with this package on it.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    base = tmp_path_factory.mktemp("spark")
    session = (
        SparkSession.builder.master("local[1]")
        .appName("iceberg-udf-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.sql.warehouse.dir", str(base / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={base / 'derby'}")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
