"""Tests of the Spark dialect: its front end, DDL generation and the Spark corpus."""
