"""Fixtures for the web view's tests (helpers in web_helpers.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from web_helpers import new_browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for a whole test module (starting one takes seconds)."""
    driver = new_browser()
    try:
        yield driver
    finally:
        driver.quit()
