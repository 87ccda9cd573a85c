"""Checks on the files a command is told to read or write, made before it starts.

Each failure is a DvonnError of one line naming the option and the path, so a command
refuses bad paths before it creates or changes anything.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from controller.i18n import Msg
from controller.journal.lock import read_only_filesystem
from engine.errors import DvonnError


def check_output_file(option: str, path: str | None, *, force: bool = True,
                      suffixes: tuple[str, ...] = ()) -> None:
    """Refuse an output path that cannot be written: a folder, a missing folder, a file that
    exists (unless ``force``), a read-only place, or a name without one of ``suffixes``."""
    if path is None:
        return
    p = Path(path).expanduser()
    where = f"{option} {path}"
    if suffixes and p.suffix.lower() not in suffixes:
        raise DvonnError(Msg("{where}: the name must end in one of {value}",
                             where=where, value=', '.join(suffixes)))
    if p.is_dir():
        raise DvonnError(Msg("{where}: is a folder; give a file name", where=where))
    folder = p.parent
    if not folder.exists():
        raise DvonnError(Msg("{where}: the folder {folder} does not exist",
                             where=where, folder=folder))
    if not folder.is_dir():
        raise DvonnError(Msg("{where}: {folder} is not a folder", where=where, folder=folder))
    if p.exists() and not force:
        raise DvonnError(Msg("{where}: the file exists; pass --force to overwrite it", where=where))
    if read_only_filesystem(folder):
        raise DvonnError(Msg("{where}: {folder} is on a read-only filesystem",
                             where=where, folder=folder))
    if p.exists() and not os.access(p, os.W_OK):
        raise DvonnError(Msg("{where}: the file is read-only for this user", where=where))
    if not p.exists() and not os.access(folder, os.W_OK | os.X_OK):
        raise DvonnError(Msg("{where}: the folder {folder} is not writable by this user",
                             where=where, folder=folder))
    if not p.exists():
        _probe(where, folder)


def _probe(where: str, folder: Path) -> None:
    """Make and remove a scratch file: the permission bits do not tell everything (root on a
    kernel filesystem, an NFS export, a full disk of inodes)."""
    try:
        fd, name = tempfile.mkstemp(dir=folder, prefix=".dvonn-board-probe-")
    except OSError as exc:
        raise DvonnError(Msg("{where}: cannot create a file in {folder}: {value}",
                             where=where, folder=folder, value=exc.strerror or exc)) from None
    os.close(fd)
    os.unlink(name)


def check_input_file(option: str, path: str) -> Path:
    """The path of a file to read: refuse a missing one, a folder, an unreadable one."""
    p = Path(path).expanduser()
    where = f"{option} {path}" if option else path
    if not p.exists():
        raise DvonnError(Msg("{where}: no such file", where=where))
    if p.is_dir():
        raise DvonnError(Msg("{where}: is a folder, not a file", where=where))
    if not os.access(p, os.R_OK):
        raise DvonnError(Msg("{where}: not readable by this user", where=where))
    return p
