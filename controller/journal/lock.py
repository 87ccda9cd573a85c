"""One writer per journal, and plain words for a journal that cannot be read or written.

The writer lock is ``flock`` on a sidecar file ``<journal>.lock`` (never the database file
itself: closing a second descriptor of the database would drop SQLite's own locks). The
kernel releases it when its holder exits in any way, ``kill -9`` included, so it never goes
stale. The file holds the holder's pid (for the refusal message) and is removed on release;
a taker checks after locking that the file it locked is still the one at the path (the
usual guard for lock files that are removed), else tries again. After a ``kill -9`` the file
stays, unlocked, and the next taker simply locks it.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time
from pathlib import Path
from types import TracebackType

from engine.errors import DvonnError

LOCK_SUFFIX = ".lock"


class JournalBusyError(DvonnError):
    """Another process holds the journal's writer lock; ``pid`` names it when known."""

    def __init__(self, path: Path, pid: int | None) -> None:
        who = f"process {pid}" if pid is not None else "another process"
        super().__init__(
            f"journal {path} is in use by {who} (another 'dvonn-board demo/play' or a "
            "service); stop it first, or use another --journal"
        )
        self.path = path
        self.pid = pid


def lock_path(journal: Path) -> Path:
    return journal.with_name(journal.name + LOCK_SUFFIX)


class WriterLock:
    """The exclusive writer lock of one journal, taken at once or refused (no waiting).

    A context manager; ``release()`` is safe twice. Raises JournalBusyError when held
    elsewhere (in this process too), OSError when the lock file cannot be made.
    """

    def __init__(self, journal: Path) -> None:
        self.journal = journal
        self.path = lock_path(journal)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise JournalBusyError(journal, read_holder(self.path)) from None
            except BaseException:
                os.close(fd)
                raise
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)  # its holder removed it while we waited to lock: take the new one
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError:
            pass  # the pid is only for the message of the one refused; the lock holds
        self._fd: int | None = fd

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Remove the lock file (still holding the lock), then drop the lock."""
        fd, self._fd = self._fd, None
        if fd is not None:
            try:
                self.path.unlink(missing_ok=True)
            except OSError:
                pass  # a file left behind is harmless: the next taker locks it
            os.close(fd)  # closing drops the flock

    def __enter__(self) -> WriterLock:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()


def read_holder(path: Path, patience: float = 0.5) -> int | None:
    """The pid written in a lock file (the holder writes it just after locking: wait a bit)."""
    deadline = time.monotonic() + patience
    while True:
        try:
            text = path.read_text(encoding="ascii", errors="replace").strip()
        except OSError:
            return None
        if text.isdigit():
            return int(text)
        if time.monotonic() > deadline:
            return None
        time.sleep(0.01)


# -- why a path cannot be used --------------------------------------------------------------

def _owner(st: os.stat_result) -> str:
    try:
        import pwd

        return pwd.getpwuid(st.st_uid).pw_name
    except (ImportError, KeyError):
        return f"uid {st.st_uid}"


def _describe(path: Path) -> str:
    try:
        st = path.stat()
    except OSError:
        return ""
    return f"owner {_owner(st)}, mode {stat.S_IMODE(st.st_mode):04o}"


def read_only_filesystem(path: Path) -> bool:
    """True when ``path`` (or its nearest existing parent) is on a read-only mount."""
    for p in (path, *path.parents):
        try:
            return bool(os.statvfs(p).f_flag & os.ST_RDONLY)
        except OSError:
            continue
    return False


def why_not_writable(journal: Path) -> str | None:
    """What keeps this process from writing the journal, in words; None if nothing seen.

    SQLite needs the file writable and, for its WAL, the folder too (it keeps
    ``<name>-wal`` and ``<name>-shm`` beside the file).
    """
    folder = journal.parent
    if read_only_filesystem(journal):
        return f"{folder} is on a read-only filesystem"
    if journal.exists() and not os.access(journal, os.W_OK):
        return f"the file is read-only for this user ({_describe(journal)})"
    if folder.exists() and not os.access(folder, os.W_OK | os.X_OK):
        return (f"its folder {folder} is not writable by this user ({_describe(folder)}); "
                f"SQLite keeps {journal.name}-wal and {journal.name}-shm there")
    for name in (journal.name + "-wal", journal.name + "-shm", journal.name + LOCK_SUFFIX):
        side = journal.with_name(name)
        if side.exists() and not os.access(side, os.W_OK):
            return f"{side} is read-only for this user ({_describe(side)})"
    return None


def why_not_readable(journal: Path) -> str | None:
    """What keeps this process from reading the journal, in words; None if nothing seen."""
    folder = journal.parent
    if folder.exists() and not os.access(folder, os.X_OK):
        return f"its folder {folder} cannot be entered by this user ({_describe(folder)})"
    if journal.exists() and not os.access(journal, os.R_OK):
        return f"the file is not readable by this user ({_describe(journal)})"
    return None


def os_problem(exc: OSError) -> str:
    """An OSError in words: 'permission denied', 'read-only filesystem', 'disk full'."""
    words = {
        errno.EACCES: "permission denied",
        errno.EPERM: "permission denied",
        errno.EROFS: "read-only filesystem",
        errno.ENOSPC: "no space left on the disk",
        errno.ENOENT: "no such file or folder",
        errno.ENOTDIR: "a part of the path is not a folder",
        errno.EISDIR: "is a folder",
    }
    return words.get(exc.errno or 0, exc.strerror or str(exc))
