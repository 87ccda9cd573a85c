"""Helpers of the command-line tests (a module of its own: every test folder has a conftest)."""

from __future__ import annotations

from pathlib import Path


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file and folder under ``folder``, with the bytes of each file."""
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<folder>"
            for p in sorted(folder.rglob("*"))}
