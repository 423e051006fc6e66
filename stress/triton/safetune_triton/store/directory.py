"""The directory store's on-disk protocol, in Python: the same files and locks as the C++
DirectoryStore (impl/store/directory_store.cpp; docs/store.md, "The directory store"), so that
Python and C++ processes share one store.

Contract:
- `<name>.json` is an entry, `<name>` = entry.entry_name(kernel, key, device name).
- `<name>.lock`: byte 0 is the entry's claim, an OFD lock (F_OFD_SETLK) held for a whole
  attempt; byte 1 its views, a shared lock around each read and publication (an invalidate of a
  C++ process takes it exclusive). OFD locks belong to the open file description: they exclude
  other descriptions in this process too, and the kernel drops them when the holder dies, even on
  SIGKILL, so a killed owner blocks no one and no time-out is guessed.
- publish() writes `.tmp.<host>.<pid>.<random>` in the directory, fsyncs it, link()s it to the
  entry's name (which fails when an entry is there: False), unlinks the temp name and fsyncs the
  directory. A reader sees a whole entry or none.
- quarantine() renames the entry into quarantine/ with a `.reason` file beside it.
- Every failure of the file system raises StoreError naming the step and the path.
"""

import errno
import fcntl
import os
import secrets
import socket
import struct
from contextlib import contextmanager

from .entry import entry_name

CLAIM_BYTE = 0
VIEW_BYTE = 1
# struct flock on Linux x86_64 and aarch64: l_type, l_whence (short), l_start, l_len (off_t),
# l_pid (pid_t, 0 for OFD locks), padded to 32 bytes.
_FLOCK = "hhxxxxqqi4x"


class StoreError(RuntimeError):
    """The store's directory could not be read or written."""


def _fail(what, path, error):
    return StoreError("results store: cannot {} '{}': {}".format(what, path, os.strerror(error)))


def _ofd_lock(fd, byte, kind, wait):
    """Locks one byte of `fd`; False when `wait` is False and another description holds it."""
    request = struct.pack(_FLOCK, kind, os.SEEK_SET, byte, 1, 0)
    while True:
        try:
            fcntl.fcntl(fd, fcntl.F_OFD_SETLKW if wait else fcntl.F_OFD_SETLK, request)
            return True
        except InterruptedError:
            continue
        except OSError as error:
            if error.errno in (errno.EAGAIN, errno.EACCES) and not wait:
                return False
            raise


def _host_name():
    return socket.gethostname().replace("/", "_").replace(".", "_") or "host"


class DirectoryStore:
    def __init__(self, directory):
        self.directory = os.path.abspath(directory).rstrip("/") or "/"
        for folder in (self.directory, self._path("quarantine"), self._path("withdrawn")):
            try:
                os.makedirs(folder, exist_ok=True)
            except OSError as error:
                raise _fail("create the directory", folder, error.errno)
            if not os.path.isdir(folder):
                raise StoreError("results store: '{}' is not a directory".format(folder))

    def _path(self, name):
        return os.path.join(self.directory, name)

    def where(self, kernel, key, device_name):
        return self._path(entry_name(kernel, key, device_name) + ".json")

    def read(self, path):
        """The entry's text, or None when there is none."""
        try:
            with open(path, "rb") as entry:
                return entry.read().decode("utf-8", errors="replace")
        except FileNotFoundError:
            return None
        except OSError as error:
            raise _fail("read", path, error.errno)

    @contextmanager
    def _locked(self, entry_path, byte, kind, wait):
        lock_path = entry_path[: -len(".json")] + ".lock"
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as error:
            raise _fail("open the lock file", lock_path, error.errno)
        try:
            try:
                held = _ofd_lock(fd, byte, kind, wait)
            except OSError as error:
                raise _fail("lock", lock_path, error.errno)
            yield held
        finally:
            os.close(fd)  # drops the lock

    def claim(self, entry_path, wait=True):
        """A context holding the entry's claim; it yields False when `wait` is False and another
        attempt holds it."""
        return self._locked(entry_path, CLAIM_BYTE, fcntl.F_WRLCK, wait)

    def view(self, entry_path):
        """A context holding a shared view of the entry, for one read or one publication."""
        return self._locked(entry_path, VIEW_BYTE, fcntl.F_RDLCK, True)

    def publish(self, entry_path, text):
        """Publishes `text` once; False when an entry was there already (left as it is)."""
        temp = self._path(
            ".tmp.{}.{}.{}".format(_host_name(), os.getpid(), secrets.token_hex(8))
        )
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        except OSError as error:
            raise _fail("create", temp, error.errno)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(text.encode("utf-8"))
                out.flush()
                os.fsync(out.fileno())
            os.link(temp, entry_path)
            linked = True
        except FileExistsError:
            linked = False
        except OSError as error:
            raise _fail("publish", entry_path, error.errno)
        finally:
            _unlink_quietly(temp)
        self._sync_directory()
        return linked

    def quarantine(self, entry_path, reason):
        """Renames the entry into quarantine/, with why beside it (the caller holds the claim)."""
        stem = os.path.join(
            self._path("quarantine"),
            os.path.basename(entry_path)[: -len(".json")] + "." + secrets.token_hex(8),
        )
        try:
            os.rename(entry_path, stem + ".json")
        except FileNotFoundError:
            return
        except OSError as error:
            raise _fail("move aside", entry_path, error.errno)
        try:  # best effort: the entry is out of the way already
            with open(stem + ".reason", "x", encoding="utf-8") as why:
                why.write(reason + "\n")
        except OSError:
            pass
        self._sync_directory()

    def _sync_directory(self):
        try:
            fd = os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as error:
            raise _fail("open", self.directory, error.errno)
        try:
            os.fsync(fd)
        except OSError as error:
            raise _fail("fsync", self.directory, error.errno)
        finally:
            os.close(fd)


def _unlink_quietly(path):
    try:
        os.unlink(path)
    except OSError:
        pass
