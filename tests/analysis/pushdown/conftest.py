"""One local Spark session for every Spark test (starting a JVM costs seconds)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark():
    """A ``local[2]`` SparkSession, or a skip naming what is missing (pyspark, Java)."""
    from assay.data.engine import spark_missing, spark_session

    missing = spark_missing()
    if missing is not None:
        pytest.skip(f"Spark tests need pyspark and Java 17: {missing}")
    session = spark_session("local[2]")
    # Tables of a few thousand rows: one shuffle partition, no code generation per query
    # (compiling costs more than it saves on a few thousand rows), no adaptive replanning.
    session.conf.set("spark.sql.shuffle.partitions", "1")
    session.conf.set("spark.sql.codegen.wholeStage", "false")
    session.conf.set("spark.sql.codegen.factoryMode", "NO_CODEGEN")
    session.conf.set("spark.sql.adaptive.enabled", "false")
    yield session
    session.stop()
