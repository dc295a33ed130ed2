"""A content-addressed cache of analysis results (``--cache DIR``), in a folder that is sigreport's own.

An entry's name is its node's content key (:func:`sigreport.plan.content_keys`: function, parameters,
block fingerprints, dependency keys, sigreport version), so a changed input can never hit an old entry.

Ownership. The cache works only in a folder it created or found empty: it marks the folder with a
``CACHEDIR.TAG`` (the cache-directory tag that backup tools skip, with a line naming sigreport) and a
``.gitignore`` of ``*``, and refuses a non-empty folder without that tag (``--cache ~/.cache`` is an error,
never a folder to clean). Inside it, it reads, touches and removes only files of its own layout
(``XX/<64 hex>.pkl`` and its ``XX/.tmp-*`` files, in the folder and its ``figures/`` section) that start
with its header; anything else in the folder is never walked into or removed.

Trust. Entries are pickled records signed with HMAC-SHA256 under a random per-user key kept outside every
cache folder (``$XDG_CONFIG_HOME/sigreport/cache-key``, by default ``~/.config/sigreport/cache-key``, mode
0600, owned by the user). A pickle is loaded only after its signature checks, so someone who can write
the cache folder but not the user's key can make a build recompute (a planted, truncated or foreign entry
is ignored and rewritten), never make it load their bytes. Why a key and not a data-only format: the
cached values are the analyses' typed records (and intermediate arrays) of many kinds, and pickle keeps
them exact to the byte with no second serialiser to maintain; the signature makes the pickle safe to load.

Writes go to a temporary file renamed into place, so a killed build leaves no half entry. A cache that
cannot be used is a user error (:class:`CacheError`), raised before the build computes anything.

The same folder also keeps the report's drawn figures (:meth:`Cache.section` ``"figures"``, keyed by
the figure tasks' content keys, :mod:`sigreport.render.figure_cache`): the two kinds of entry share the
signing key but not their folders or counters.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import re
import secrets
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

MAGIC = b"sigreport-cache-1\n"
LIMIT = 2 * 1024**3  # bytes a cache folder keeps after a build (least recently used entries go first)
PACKAGE = Path(__file__).resolve().parent.parent
TAG = "CACHEDIR.TAG"
TAG_SIGNATURE = "Signature: 8a477f597d28d172789f06886806bc55"  # https://bford.info/cachedir/
TAG_TEXT = (f"{TAG_SIGNATURE}\n# This file is a cache directory tag created by sigreport: the folder is its result cache.\n"
            "# sigreport removes only its own entries here. See https://bford.info/cachedir/\n")
SECTIONS = ("figures", "builds")  # subfolders of the cache holding another kind of entry (Cache.section)
SUBFOLDER = re.compile(r"[0-9a-f]{2}")
ENTRY = re.compile(r"[0-9a-f]{64}\.pkl")
TEMPORARY = re.compile(r"\.tmp-[a-z0-9_]{8}")  # tempfile.mkstemp(prefix=".tmp-")
LEGACY_KEY = ".key"  # where earlier versions kept the key: inside the cache folder
STALE = 86_400  # seconds after which a temporary file is a killed build's


def build_code() -> str:
    """sigreport's version and source digest (as the analysis cache keys its entries): the software part of a
    build's fingerprint (:mod:`sigreport.speed.unchanged`)."""
    from sigreport.version import __version__

    return f"{__version__}+{code_digest()}"


def code_digest() -> str:
    """sha256 of sigreport's own source files: a changed installation (even at the same version number, as
    in a development checkout) never hits entries another code computed."""
    h = hashlib.sha256()
    for f in sorted(PACKAGE.rglob("*.py")):
        h.update(f.relative_to(PACKAGE).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


class CacheError(Exception):
    """The cache folder or key cannot be used (a file, a folder that is not sigreport's, not writable)."""


def key_path() -> Path:
    """Where the user's cache key lives: ``$XDG_CONFIG_HOME/sigreport/cache-key`` (``~/.config`` by default),
    outside every cache folder, so writing a cache folder is not enough to sign an entry."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    try:
        root = Path(base) if os.path.isabs(base) else Path.home() / ".config"
    except RuntimeError:  # no home folder known
        raise CacheError("cache key: no home folder is known; set XDG_CONFIG_HOME") from None
    return root / "sigreport" / "cache-key"


def load_key(path: Path) -> bytes:
    """The 32-byte key at ``path``, created (mode 0600) when missing; a key other users could read or
    write, or a damaged one, is refused."""
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise CacheError(f"cache key {path}: it cannot be read ({exc.strerror or exc})") from None
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".cache-key-")  # mode 0600
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(secrets.token_bytes(32))
                f.flush()
                os.fsync(f.fileno())
            try:
                os.link(tmp, path)  # never replaces a key another build made a moment ago
            except FileExistsError:
                pass
        finally:
            os.unlink(tmp)
        return _read_key(path)
    except OSError as exc:
        raise CacheError(f"cache key {path}: it cannot be created ({exc.strerror or exc}); "
                         "set XDG_CONFIG_HOME to a writable folder") from None


def _read_key(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        data = os.read(fd, 64)
    finally:
        os.close(fd)
    if st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise CacheError(f"cache key {path}: other users can read or write it (owner uid {st.st_uid}, mode "
                         f"{stat.filemode(st.st_mode)}); remove it and sigreport makes a new one")
    if len(data) != 32:
        raise CacheError(f"cache key {path}: it is damaged ({len(data)} bytes, not 32); remove it and sigreport "
                         "makes a new one")
    return data


def is_own_folder(folder: Path) -> bool:
    """Whether ``folder`` holds sigreport's cache tag."""
    try:
        with open(folder / TAG, encoding="utf-8", errors="replace") as f:
            text = f.read(1024)
    except OSError:
        return False
    return text.startswith(TAG_SIGNATURE) and "created by sigreport" in text


def is_legacy_folder(folder: Path) -> bool:
    """A cache folder written by a sigreport that kept its key inside (``.key``, 32 bytes) and nothing but
    entry subfolders, the figures section and its own probe files: it is taken over (tagged, key removed)."""
    try:
        if not (folder / LEGACY_KEY).is_file() or (folder / LEGACY_KEY).stat().st_size != 32:
            return False
        names = os.listdir(folder)
    except OSError:
        return False
    return all(n == LEGACY_KEY or n in SECTIONS or SUBFOLDER.fullmatch(n) or n.startswith((".probe-", ".key-"))
               for n in names)


def check_folder(folder: Path) -> None:
    """Raise :class:`CacheError` unless ``folder`` can be sigreport's cache: missing, empty, or tagged as
    sigreport's. Reads only (a build calls it before reading the data, and opens the cache later)."""
    try:
        if not os.path.lexists(folder):
            return
        if not folder.is_dir():
            raise CacheError(f"cache folder {folder}: it is a file, not a folder")
        if is_own_folder(folder) or is_legacy_folder(folder) or all(map(_being_claimed, os.listdir(folder))):
            return
    except OSError as exc:
        raise CacheError(f"cache folder {folder}: it cannot be read ({exc.strerror or exc})") from None
    raise CacheError(f"cache folder {folder}: it is not empty and not a sigreport cache (no {TAG} of "
                     "sigreport's); the cache keeps to a folder of its own: give a new or empty folder")


def _being_claimed(name: str) -> bool:
    """A file :func:`claim` writes: a folder holding only these is empty, or being made a cache by another
    build at this moment."""
    return name in (TAG, ".gitignore") or name.startswith((".tag-", ".probe-"))


def claim(folder: Path) -> None:
    """Make ``folder`` (checked by :func:`check_folder`) sigreport's cache: create it, tag it, and write a
    ``.gitignore`` of ``*`` so that it is never committed; a legacy folder's key goes."""
    folder.mkdir(parents=True, exist_ok=True)
    if is_own_folder(folder):
        return
    legacy = is_legacy_folder(folder)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tag-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(TAG_TEXT)
    os.chmod(tmp, 0o644)
    os.replace(tmp, folder / TAG)
    (folder / ".gitignore").write_text("*\n", encoding="utf-8")
    if legacy:
        (folder / LEGACY_KEY).unlink(missing_ok=True)


class Cache:
    def __init__(self, folder: Path, key: bytes, version: str):
        self.folder = folder
        self.key = key
        self.version = version
        self.hits = 0
        self.misses = 0
        self.rejected = 0

    def section(self, name: str) -> "Cache":
        """A cache for another kind of entry in the subfolder ``name`` (one of :data:`SECTIONS`), signed with
        the same key (its own hit and miss counts)."""
        if name not in SECTIONS:
            raise ValueError(f"unknown cache section {name!r}")
        return Cache(self.folder / name, self.key, self.version)

    @classmethod
    def open(cls, folder: str | Path, version: str, key_file: Path | None = None) -> "Cache":
        """The cache in ``folder`` (created and tagged when missing or empty), signed with the user's key
        (``key_file``, by default :func:`key_path`). Raises :class:`CacheError` for a folder that is not
        sigreport's, a key inside the folder, or a folder or key that cannot be used."""
        folder = Path(folder)
        check_folder(folder)
        key_file = Path(key_file) if key_file is not None else key_path()
        if key_file.resolve().is_relative_to(folder.resolve()):
            raise CacheError(f"cache folder {folder}: it would hold the cache key {key_file}; choose another folder")
        key = load_key(key_file)
        try:
            claim(folder)
            probe = folder / f".probe-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise CacheError(f"cache folder {folder}: it cannot be written ({exc.strerror or exc})") from None
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
        try:  # signed with this user's key, so written by sigreport; code that moved a class since cannot load it
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
            if path.parent.is_symlink():  # not a folder of the cache's own: write nothing through it
                return
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                f.write(MAGIC + self._sign(key, payload) + payload)
            os.replace(tmp, path)
        except OSError:  # a cache that fills up mid-build only costs speed
            pass

    def own_files(self) -> Iterator[tuple[os.DirEntry[str], bool]]:
        """(file, is temporary) for every file of the cache's own layout in this folder and its sections;
        nothing else is looked into, symbolic links are not followed."""
        for section in (self.folder, *(self.folder / s for s in SECTIONS)):
            if section != self.folder and section.is_symlink():
                continue
            for sub in _scan(section):
                if not (SUBFOLDER.fullmatch(sub.name) and sub.is_dir(follow_symlinks=False)):
                    continue
                for f in _scan(Path(sub.path)):
                    if not f.is_file(follow_symlinks=False):
                        continue
                    if ENTRY.fullmatch(f.name) and f.name.startswith(sub.name):
                        yield f, False
                    elif TEMPORARY.fullmatch(f.name):
                        yield f, True

    def prune(self, limit: int = LIMIT, since: float | None = None) -> tuple[int, int]:
        """Remove the least recently used entries (of every section) until the folder holds at most ``limit``
        bytes, but never one used or written at or after ``since`` (this build's start: a build never
        removes what it needs). Leftover temporary files of killed builds, older than a day, go first.
        Only files of the cache's own layout that start with its header are removed (:meth:`own_files`).
        Returns (entries removed, bytes freed).

        Why: every changed input adds entries and a new sigreport version orphans all old ones; without
        this the folder beside the spec would only grow. Entries are found again by their content key, so
        removing one only costs a recomputation; a build racing with another's removal sees a miss."""
        entries, total, removed, freed = [], 0, 0, 0
        stale = time.time() - STALE
        for f, temporary in self.own_files():
            try:
                st = f.stat(follow_symlinks=False)
            except OSError:
                continue
            if temporary:
                if st.st_mtime < stale and _remove_own(Path(f.path), empty_ok=True):
                    removed, freed = removed + 1, freed + st.st_size
            else:
                entries.append((st.st_mtime, st.st_size, Path(f.path)))
                total += st.st_size
        for mtime, size, path in sorted(entries):
            if total <= limit or (since is not None and mtime >= since):
                break
            if _remove_own(path):
                removed, freed, total = removed + 1, freed + size, total - size
        return removed, freed


def _scan(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as it:
            return list(it)
    except OSError:
        return []


def _remove_own(path: Path, empty_ok: bool = False) -> bool:
    """Remove ``path`` if it is a regular file that starts with the cache's header (or, for a temporary file
    of a build killed before it wrote, is empty)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            head = os.read(fd, len(MAGIC))
        finally:
            os.close(fd)
        if head != MAGIC and not (empty_ok and head == b""):
            return False
        path.unlink()
        return True
    except OSError:
        return False
