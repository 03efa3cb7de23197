"""One ``apply`` at a time per project: an exclusive lock on ``<root>/.unsentinel.lock``.

Two runs that rewrite the same tree at once would each compute from files the other is
replacing. The lock is an ``flock`` on the lock file, which the kernel drops when the
holder dies however it dies (``kill -9`` included), so a crash never leaves the project
locked; the file itself is removed on a normal exit. Where ``fcntl`` is missing (Windows)
the lock is the file's existence (``O_CREAT | O_EXCL``) and the holder's pid in it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

LOCK_NAME = ".unsentinel.lock"

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class LockError(Exception):
    """Another run holds the project's lock; the message says which and what to do."""


@contextlib.contextmanager
def project_lock(root: Path) -> Iterator[Path]:
    """Hold the project's lock for the duration of the ``with`` block, or raise LockError."""
    path = root / LOCK_NAME
    fd = _acquire_flock(path) if fcntl is not None else _acquire_exclusive(path)
    try:
        yield path
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # before the unlock: a waiting run then finds a fresh file
        os.close(fd)


def _acquire_flock(path: Path) -> int:
    assert fcntl is not None
    for _attempt in range(3):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise LockError(f"cannot create the lock file: {exc.strerror}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise LockError(_busy(holder)) from None
        except BaseException:
            os.close(fd)
            raise
        # The holder we waited on may have unlinked the file just before unlocking it:
        # the lock we got is then on a file nobody else will look at. Take the new one.
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            return fd
        os.close(fd)
    raise LockError(_busy(None))


def _acquire_exclusive(path: Path) -> int:  # pragma: no cover - Windows
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        raise LockError(_busy(None) + f" (if none is, delete {path})") from None
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def _holder(fd: int) -> str | None:
    try:
        return os.pread(fd, 32, 0).decode("ascii", "replace").strip() or None
    except OSError:
        return None


def _busy(holder: str | None) -> str:
    who = f" (pid {holder})" if holder else ""
    return (
        f"another unsentinel apply is running on this project{who}; run again when it has finished"
    )
