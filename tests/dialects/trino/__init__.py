"""Tests of the Trino dialect: its front end, DDL generation and the Trino corpus."""
