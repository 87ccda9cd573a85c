"""Writing a file so that a crash or a full disk never leaves it half written."""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path


def write_atomically(path: Path, text: str, *, private: bool = False) -> None:
    """Replace ``path`` by ``text`` in one step: a temporary file beside it, synced, then
    renamed over it. ``private``: readable by the owner only (0600, its folder 0700); else the
    umask decides, as for any file the user writes."""
    if private:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if private else 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
