"""Verification of a release: are its inputs the ones it was built from, are its files the ones it was
built with, and does a rebuild from those inputs give the same bytes?

Inputs are not copied into a release (they may be large or private); the manifest names them with their
path relative to the spec, and they are looked for beside the original spec (the path the manifest
records) or, with ``data_dir``, under that folder (by the path as the spec gives it, then by file name).
The rebuild itself is done by a function the caller passes in (the build lives above this layer).
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from sigreport.archive.manifest import (DIFF_NAME, IGNORED_BY_VERIFY, MANIFEST_NAME, SPEC_COPY, output_hashes,
                                        read_manifest, sha256_bytes, sha256_file)
from sigreport.errors import Problem, UserError

# (spec file, output folder, formats, templates folder or None) -> writes the report into the output folder
Builder = Callable[[Path, Path, list[str], "str | None"], None]
# Files a release adds to the report; a rebuild of the report alone does not produce them.
RELEASE_FILES = (SPEC_COPY, DIFF_NAME)


@dataclasses.dataclass(frozen=True)
class VerifyResult:
    """What verification found; empty tuples mean all is well."""

    release: str
    inputs_changed: tuple[str, ...]
    tampered: tuple[str, ...]  # files on disk whose hash differs from the manifest, missing or not listed
    not_reproduced: tuple[str, ...]  # files the rebuild wrote differently from the manifest, or not at all
    rebuilt: bool
    ignored: tuple[str, ...] = IGNORED_BY_VERIFY

    @property
    def ok(self) -> bool:
        return not (self.inputs_changed or self.tampered or self.not_reproduced)

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def lines(self) -> list[str]:
        if self.ok:
            how = "rebuilt byte-identical" if self.rebuilt else "every output file matches its manifest hash"
            return [f"ok: release {self.release}: {how}"]
        out = [f"release {self.release} does not verify:"]
        out += [f"  input changed: {x}" for x in self.inputs_changed]
        out += [f"  output differs from the manifest: {x}" for x in self.tampered]
        out += [f"  rebuild differs from the manifest: {x}" for x in self.not_reproduced]
        return out


def compare_hashes(expected: dict[str, str], actual: dict[str, str]) -> list[str]:
    """Files whose hash differs, that are missing, or that the manifest does not list."""
    out = [f"{k} (changed)" for k in sorted(expected) if k in actual and actual[k] != expected[k]]
    out += [f"{k} (missing)" for k in sorted(expected) if k not in actual]
    out += [f"{k} (not in the manifest)" for k in sorted(actual) if k not in expected]
    return out


def verify_release(folder: Path, rebuild: bool, data_dir: Path | None = None,
                   builder: Builder | None = None) -> VerifyResult:
    """Check a release: its files against the manifest, then (``rebuild``) its inputs' hashes and, when
    they match, a rebuild into a temporary folder against the manifest's output hashes."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UserError(str(folder), [Problem(str(folder), None, "", f"no release folder at {folder}")])
    m = read_manifest(folder)
    name = str(m["release"])
    tampered = tuple(compare_hashes(m["outputs"], output_hashes(folder)))
    if not rebuild:
        return VerifyResult(name, (), tampered, (), False)
    if builder is None:
        raise ValueError("a rebuild needs a builder")
    spec_text = spec_copy_text(folder, m)
    if spec_text is None:  # the spec copy was altered: listed in ``tampered``; nothing true to rebuild from
        return VerifyResult(name, (), tampered, (), False)
    located = locate_inputs(m, data_dir)
    changed = tuple(f"{entry['path']} ({where}: sha256 {actual[:12]}…, manifest {entry['sha256'][:12]}…)"
                    for entry, where, actual in located if actual != entry["sha256"])
    if changed:
        return VerifyResult(name, changed, tampered, (), False)
    rebuilt = rebuild_hashes(m, spec_text, [(e, w) for e, w, _ in located], builder)
    expected = {k: v for k, v in m["outputs"].items() if k not in RELEASE_FILES}
    return VerifyResult(name, (), tampered, tuple(compare_hashes(expected, rebuilt)), True)


def spec_copy_text(folder: Path, m: dict[str, Any]) -> str | None:
    """The spec kept in the release, or None when it differs from the manifest's hash (a rebuild needs the
    true spec)."""
    path = folder / SPEC_COPY
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(str(path), [Problem(str(path), None, "", f"cannot read the release's spec copy: {exc}")]) from None
    return text if sha256_bytes(text.encode("utf-8")) == m["spec"].get("sha256") else None


def locate_inputs(m: dict[str, Any], data_dir: Path | None) -> list[tuple[dict[str, Any], Path, str]]:
    """(manifest entry, where the file was found, its sha256) for every input; a missing one is an error."""
    spec_folder = Path(str(m["spec"].get("path", ""))).parent
    out, missing = [], []
    for entry in m["inputs"]:
        if entry.get("role") == "template":
            base = Path(str(m.get("templates") or ""))
            candidates = [base / entry["path"]]
        elif data_dir is not None:
            candidates = [Path(data_dir) / entry["path"], Path(data_dir) / entry["name"]]
        else:
            candidates = [spec_folder / entry["path"]]
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            missing.append(f"{entry['path']} (looked for {', '.join(str(c) for c in candidates)})")
        else:
            out.append((entry, found, sha256_file(found)))
    if missing:
        src = str(data_dir or spec_folder)
        raise UserError(src, [Problem(src, None, "inputs", f"input not found: {missing[0]}; give its folder with --data")])
    return out


def rebuild_hashes(m: dict[str, Any], spec_text: str, located: list[tuple[dict[str, Any], Path]],
                   builder: Builder) -> dict[str, str]:
    """Rebuild into a temporary folder laid out like the original (the spec under its own name, every
    input at its path relative to the spec) and hash what the build wrote."""
    with tempfile.TemporaryDirectory(prefix="sigreport-verify-") as tmp:
        data = [(e, w) for e, w in located if e.get("role") != "template"]
        depth = max((PurePosixPath(e["path"]).parts.count("..") for e, _ in data), default=0)
        spec_dir = Path(tmp, "in", *(["s"] * depth))
        spec_dir.mkdir(parents=True)
        spec_path = spec_dir / str(m["spec"].get("name") or SPEC_COPY)
        spec_path.write_text(spec_text, encoding="utf-8")
        for entry, where in data:
            if PurePosixPath(entry["path"]).is_absolute():
                continue  # read where the spec says
            target = (spec_dir / entry["path"]).resolve()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(where, target)
        out = Path(tmp, "out")
        builder(spec_path, out, list(m.get("formats") or []), m.get("templates"))
        hashes = output_hashes(out)
    hashes.pop(MANIFEST_NAME, None)
    return hashes
