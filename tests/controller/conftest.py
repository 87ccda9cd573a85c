"""Fixtures for the controller tests (defined in table_helpers.py)."""

from table_helpers import placed

__all__ = ["placed"]
