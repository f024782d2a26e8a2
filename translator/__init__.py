"""iceberg-udf: compile SQL function DDL into Apache Iceberg UDF metadata and back.

Importing this package never imports pyspark; the Spark integration lives in ``translator.spark``.
"""

__version__ = "0.1.0"
