"""Shared pytest configuration for the test suite (rootdir conftest; no tests/__init__.py)."""
