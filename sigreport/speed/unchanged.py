"""A rebuild where nothing changed leaves the report as it is.

A command-line build (with the cache on) ends by keeping a *build record* in the cache's ``builds/`` section,
under a sha256 of the report folder's path: the build's fingerprint and the size and modification time of
every file it left in the folder. The next build into that folder computes the fingerprint first, before
reading any data; when it is the same, every file is still there as written (same names, sizes and
times) and the record says the report is *stable*, the build stops there: nothing is read, computed or
written, and the command line says so.

The fingerprint is a sha256 of

* the bytes of every input the build reads (``input_paths``: the spec, its data files with their globs
  expanded, the ``--templates`` folder, a plugin's module files) and of sigreport's own templates;
* the build's options that change its files (``--formats``, ``--strict``, ``--templates``);
* the software: sigreport's version and the digest of its source (as the analysis cache keys it), the
  Python version, and the path, size and time of the top file of each library that writes into a report
  (numpy, scipy, pandas, pyarrow, matplotlib, jinja2, weasyprint, ...), so that an upgrade rebuilds.

*Stable*: a report depends on the report it replaces only through the methods that ``selection`` chose
(each record's ``selection.previous_method``); a build whose automatically chosen methods are the ones its
previous report had writes a report that the next build would write again, byte for byte. The first build
of a spec with ``auto`` tests is not stable (it had no previous report), so its second build runs and the
third is left as it is; a spec without ``auto`` tests is left as it is from its second build.

Not covered (use ``--no-cache``, which also turns this off): a change of installed fonts, which the
figure cache does notice.

The plain path (:func:`sigreport.speed.is_plain`) never finds a report up to date: it rebuilds.
"""

from __future__ import annotations

import dataclasses
import glob
import hashlib
import importlib.util
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from sigreport.speed import is_plain

SECTION = "builds"
LIBRARIES = ("numpy", "scipy", "pandas", "pyarrow", "matplotlib", "jinja2", "markupsafe", "weasyprint", "yaml",
             "pydantic", "pydantic_core", "fontTools", "statsmodels")
RECORD_VERSION = 1


@dataclasses.dataclass(frozen=True)
class BuildRecord:
    """What a build left: its fingerprint and the inputs it was taken of, the report folder and every file in
    it with (size, mtime in ns), whether the next build would write the same report (``stable``), and the
    build's warnings (said again)."""

    version: int
    fingerprint: str
    inputs: tuple[str, ...]
    dest: str
    files: Mapping[str, tuple[int, int]]
    stable: bool
    warnings: tuple[Any, ...]


def record_key(spec: Path, out: str | Path | None) -> str:
    """The cache key of the build record of a spec built into ``out`` (None: the spec's ``outputs.dir``)."""
    where = str(Path(out).resolve()) if out else ""
    return hashlib.sha256(f"build record\0{Path(spec).resolve()}\0{where}".encode()).hexdigest()


def _hash_file(h: Any, path: Path) -> None:
    try:
        with path.open("rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
    except OSError as exc:  # the build itself says what is wrong with it
        h.update(f"unreadable {exc.errno}".encode())


def _hash_path(h: Any, path: Path) -> None:
    """A file's bytes, a folder's files (names and bytes, sorted), or that nothing is there."""
    h.update(b"\0path\0" + str(path).encode())
    if path.is_dir():
        for root, dirs, files in os.walk(path):
            dirs.sort()
            for name in sorted(files):
                f = Path(root) / name
                h.update(b"\0file\0" + f.relative_to(path).as_posix().encode() + b"\0")
                _hash_file(h, f)
    elif path.is_file():
        _hash_file(h, path)
    else:
        h.update(b"\0missing")


def expanded(paths: Iterable[Path]) -> list[Path]:
    """The paths with their globs expanded (sorted), each one as it is when it matches nothing."""
    out = []
    for p in paths:
        s = str(p)
        if glob.has_magic(s):
            out += sorted(Path(m) for m in glob.glob(s, recursive=True)) or [p]
        else:
            out.append(p)
    return out


def software() -> str:
    """Python's version and each library's top file (path, size, time); a missing library is said so.
    ``find_spec`` of a top-level name finds its file without importing it."""
    parts = [sys.version]
    for name in LIBRARIES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        origin = getattr(spec, "origin", None)
        if not origin:
            parts.append(f"{name}: none")
            continue
        try:
            st = os.stat(origin)
            parts.append(f"{name}: {origin} {st.st_size} {st.st_mtime_ns}")
        except OSError:
            parts.append(f"{name}: {origin} unreadable")
    return "\n".join(parts)


def builtin_templates() -> list[Path]:
    """The templates shipped with sigreport (as :func:`sigreport.render.template_dirs` finds them, without
    importing the renderers)."""
    here = Path(__file__).resolve().parent.parent
    return [c for c in (here / "templates", here.parent / "templates") if (c / "html").is_dir()]


def fingerprint(inputs: Iterable[Path], options: Mapping[str, Any], code: str) -> str:
    """The sha256 of what a build's files depend on (see the module's docstring); ``code``: sigreport's
    version and source digest."""
    h = hashlib.sha256(f"sigreport build fingerprint {RECORD_VERSION}\0{code}\0{software()}\0".encode())
    h.update(repr(sorted(options.items())).encode())
    for p in expanded(inputs):
        _hash_path(h, p)
    for t in builtin_templates():
        h.update(b"\0templates")
        _hash_path(h, t)
    return h.hexdigest()


def folder_files(dest: Path) -> dict[str, tuple[int, int]] | None:
    """Every file under ``dest`` (hidden ones too) with its size and mtime in ns; None when ``dest`` is not a
    folder or cannot be read."""
    out: dict[str, tuple[int, int]] = {}
    try:
        if not dest.is_dir() or dest.is_symlink():
            return None
        for root, dirs, files in os.walk(dest):
            base = Path(root)
            for name in files + [d for d in dirs if (base / d).is_symlink()]:
                st = os.lstat(base / name)
                out[(base / name).relative_to(dest).as_posix()] = (st.st_size, st.st_mtime_ns)
    except OSError:
        return None
    return out


def may_leave_reports() -> bool:
    """Whether a build may leave an up-to-date report as it is: never on the plain path, which rebuilds. The one
    place that decides it (the command line asks here before it looks into a cache)."""
    return not is_plain()


def up_to_date(cache: Any, spec: Path, out: str | Path | None, options: Mapping[str, Any], code: str
               ) -> BuildRecord | None:
    """The build record of ``spec`` built into ``out`` when the report it names is the one this build would
    write again: same fingerprint (of the inputs the record lists, read now), stable, every file as the build
    left it. None otherwise (and always on the plain path). Reads the data files, not the spec's models."""
    if cache is None or not may_leave_reports():
        return None
    found, record = cache.section(SECTION).get(record_key(spec, out))
    if not found or not isinstance(record, BuildRecord) or record.version != RECORD_VERSION or not record.stable:
        return None
    if folder_files(Path(record.dest)) != dict(record.files):
        return None
    if fingerprint([Path(p) for p in record.inputs], options, code) != record.fingerprint:
        return None
    return record


def remember(cache: Any, spec: Path, out: str | Path | None, dest: Path, inputs: Iterable[Path], fp: str,
             is_stable: bool, warnings: Iterable[Any]) -> None:
    """Keep the build record of the report just written into ``dest`` (nothing when the folder cannot be read)."""
    if cache is None:
        return
    files = folder_files(dest)
    if files is None:
        return
    record = BuildRecord(RECORD_VERSION, fp, tuple(str(p) for p in inputs), str(dest), files, is_stable,
                         tuple(warnings))
    cache.section(SECTION).put(record_key(spec, out), record)


def options_of(formats: Any, strict: bool, templates: Any) -> dict[str, Any]:
    """The build options that change a report's files, as the fingerprint takes them."""
    return {"formats": list(formats) if formats else None, "strict": bool(strict), "templates": str(templates or "")}
