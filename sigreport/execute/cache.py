"""A content-addressed cache of analysis results (``--cache DIR``).

An entry's name is its node's content key (:func:`sigreport.plan.content_keys`: function, parameters,
block fingerprints, dependency keys, sigreport version), so a changed input can never hit an old entry.
Entries are pickled records signed with HMAC-SHA256 under a random key kept in the cache folder
(``.key``, created once, mode 0600): a truncated, corrupted or foreign entry fails the check and is
ignored and rewritten, never unpickled. Writes go to a temporary file renamed into place, so a
killed build leaves no half entry. A cache that cannot be written is a user error, raised before
the build computes anything (:meth:`Cache.open`).

The same folder also keeps the report's drawn figures (:meth:`Cache.section` ``"figures"``, keyed by
:func:`sigreport.render.figure_cache.figure_key`): the two kinds of entry share the signing key but not
their folders or counters.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import secrets
import tempfile
import time
from pathlib import Path
from typing import Any

MAGIC = b"sigreport-cache-1\n"
LIMIT = 2 * 1024**3  # bytes a cache folder keeps after a build (least recently used entries go first)
PACKAGE = Path(__file__).resolve().parent.parent


def code_digest() -> str:
    """sha256 of sigreport's own source files: a changed installation (even at the same version number, as
    in a development checkout) never hits entries another code computed."""
    h = hashlib.sha256()
    for f in sorted(PACKAGE.rglob("*.py")):
        h.update(f.relative_to(PACKAGE).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


class CacheError(Exception):
    """The cache folder cannot be used (not writable, not a folder)."""


class Cache:
    def __init__(self, folder: Path, key: bytes, version: str):
        self.folder = folder
        self.key = key
        self.version = version
        self.hits = 0
        self.misses = 0
        self.rejected = 0

    def section(self, name: str) -> "Cache":
        """A cache for another kind of entry in the subfolder ``name``, signed with the same key (its own
        hit and miss counts)."""
        return Cache(self.folder / name, self.key, self.version)

    @classmethod
    def open(cls, folder: str | Path, version: str) -> "Cache":
        folder = Path(folder)
        if folder.exists() and not folder.is_dir():
            raise CacheError(f"cache folder {folder}: it is a file, not a folder")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            key_file = folder / ".key"
            if not key_file.exists():
                fd, tmp = tempfile.mkstemp(dir=folder, prefix=".key-")
                with os.fdopen(fd, "wb") as f:
                    f.write(secrets.token_bytes(32))
                os.chmod(tmp, 0o600)
                os.replace(tmp, key_file)
            key = key_file.read_bytes()
            probe = folder / f".probe-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise CacheError(f"cache folder {folder}: it cannot be written ({exc.strerror or exc})") from None
        if len(key) != 32:
            raise CacheError(f"cache folder {folder}: its .key file is damaged; delete the folder")
        return cls(folder, key, version)

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.pkl"

    def _sign(self, key: str, payload: bytes) -> bytes:
        return hmac.new(self.key, key.encode() + b"\0" + payload, hashlib.sha256).digest()

    def get(self, key: str) -> tuple[bool, Any]:
        """(True, value) for a valid entry; (False, None) when missing or not to be trusted."""
        try:
            blob = self._path(key).read_bytes()
        except OSError:
            self.misses += 1
            return False, None
        sig, payload = blob[len(MAGIC):len(MAGIC) + 32], blob[len(MAGIC) + 32:]
        if not blob.startswith(MAGIC) or not hmac.compare_digest(sig, self._sign(key, payload)):
            self.rejected += 1
            self.misses += 1
            return False, None
        try:  # signed by this folder's key, so it is ours; code that moved a class since cannot load it
            value = pickle.loads(payload)
        except Exception:  # noqa: BLE001 - any failure to load is a miss, rewritten by the caller
            self.rejected += 1
            self.misses += 1
            return False, None
        self.hits += 1
        try:  # the entry's time is its last use: prune keeps the recently used ones
            os.utime(self._path(key))
        except OSError:
            pass
        return True, value

    def put(self, key: str, value: Any) -> None:
        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                f.write(MAGIC + self._sign(key, payload) + payload)
            os.replace(tmp, path)
        except OSError:  # a cache that fills up mid-build only costs speed
            pass

    def prune(self, limit: int = LIMIT, since: float | None = None) -> tuple[int, int]:
        """Remove the least recently used entries (of every section) until the folder holds at most ``limit``
        bytes, but never one used or written at or after ``since`` (this build's start: a build never
        removes what it needs). Leftover temporary files of killed builds, older than a day, go first.
        Returns (entries removed, bytes freed).

        Why: every changed input adds entries and a new sigreport version orphans all old ones; without
        this the folder beside the spec would only grow. Entries are found again by their content key, so
        removing one only costs a recomputation; a build racing with another's removal sees a miss."""
        entries, total, removed, freed = [], 0, 0, 0
        stale = time.time() - 86_400
        for path in self.folder.rglob("*"):
            try:
                st = path.stat()
            except OSError:
                continue
            if path.name.startswith(".tmp-") and st.st_mtime < stale:
                removed, freed = removed + _remove(path), freed + st.st_size
            elif path.suffix == ".pkl" and path.is_file():
                entries.append((st.st_mtime, st.st_size, path))
                total += st.st_size
        for mtime, size, path in sorted(entries):
            if total <= limit or (since is not None and mtime >= since):
                break
            if _remove(path):
                removed, freed, total = removed + 1, freed + size, total - size
        return removed, freed


def _remove(path: Path) -> int:
    try:
        path.unlink()
        return 1
    except OSError:
        return 0
