"""Tests of translator/dialects: one folder per engine, as the package has."""
