"""Benchmarks of iceberg-udf: throughput, memory, merge scaling, Spark batch (not tests)."""
