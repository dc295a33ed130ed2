"""manifest.json: what a release was built from and what it contains, so it can be trusted later.

A manifest records the software (sigreport, Python and the libraries that shape the numbers or the files),
the spec as given with its sha256, every input file's name, size and sha256, the seed and the resamples,
and the sha256 of every output file. ``verify`` rebuilds from it and compares; ``diff`` reads it to say
whether data, spec or software changed between two releases. Only ``built_at`` may differ between two
builds of the same inputs, and ``verify`` ignores it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import platform
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

from sigreport.archive.documents import check, document_error, load_json
from sigreport.errors import Problem, UserError

MANIFEST_NAME = "manifest.json"
SPEC_COPY = "spec.yaml"
DIFF_NAME = "diff.html"
FORMAT = "sigreport-release"
MANIFEST_VERSION = 1
IGNORED_BY_VERIFY = ("built_at",)
# Libraries whose version can change a number or a byte of the report (read from installed metadata,
# never imported: importing weasyprint costs seconds and may fail without system libraries).
LIBRARIES = ("numpy", "scipy", "pandas", "pydantic", "jinja2", "weasyprint", "matplotlib", "pyyaml", "pyarrow")


@dataclasses.dataclass(frozen=True)
class InputFile:
    """One input the build read: its role (scores, predictions, annotations, template, aggregate), the path as the
    spec gives it (relative to the spec's folder), and its size and sha256."""

    role: str
    path: str
    size: int
    sha256: str

    @property
    def name(self) -> str:
        return Path(self.path).name

    def to_json(self) -> dict[str, Any]:
        return {"role": self.role, "name": self.name, "path": self.path, "size": self.size, "sha256": self.sha256}


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    """sha256 of a file, read in chunks (inputs may be large)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def describe_input(role: str, given: str, resolved: Path) -> InputFile:
    return InputFile(role, given, resolved.stat().st_size, sha256_file(resolved))


def software_versions(libraries: Iterable[str] = LIBRARIES) -> dict[str, str | None]:
    """Installed versions from package metadata (None when a library is not installed)."""
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in libraries:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


SIMD_LEVELS = ("AVX512_SPR", "AVX512_ICL", "AVX512_SKX", "AVX512F", "AVX2", "AVX", "SSE42", "SSE2", "SVE", "ASIMD",
               "NEON", "VSX4", "VSX3", "VSX2", "VX")
"""numpy's names of CPU SIMD extensions, best first: the platform records the best one this CPU offers."""


def platform_info() -> dict[str, Any]:
    """What the numbers of a build may depend on besides the software versions: the CPU (model, the best
    SIMD level numpy found), the BLAS libraries loaded with their kernel (OpenBLAS picks one per CPU, or
    ``OPENBLAS_CORETYPE``), the operating system and Python. ``verify`` compares it with its own to say
    whether a rebuild ran on another machine. Call it after the build (the BLAS libraries are loaded then)."""
    return {"machine": platform.machine(), "cpu": cpu_model(), "simd": simd_level(), "blas": blas_libraries(),
            "os": platform.platform(), "python": f"{platform.python_implementation()} {platform.python_version()}"}


def cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith(("model name", "Processor", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def simd_level() -> str | None:
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # pragma: no cover - numpy before 2.0
        return None
    return next((name for name in SIMD_LEVELS if features.get(name)), None)


def blas_libraries() -> list[dict[str, str | None]]:
    """Each BLAS library loaded in this process (``threadpoolctl``): its implementation, version and kernel."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # pragma: no cover - a dependency; a manifest is still written without it
        return []
    seen = []
    for lib in threadpool_info():
        if lib.get("user_api") == "blas":
            entry = {"library": lib.get("internal_api"), "version": lib.get("version"),
                     "kernel": lib.get("architecture") or lib.get("threading_layer")}
            if entry not in seen:
                seen.append(entry)
    return sorted(seen, key=lambda e: tuple(str(v) for v in e.values()))  # not the order they were loaded in


def manifest_digest(folder: Path) -> str:
    """sha256 of a release's manifest.json: it holds the hash of every other file and input, so this one
    value pins the whole release; published elsewhere (a release note, a tag), it lets ``verify --digest``
    detect a manifest rewritten to match edited files."""
    return sha256_file(folder / MANIFEST_NAME)


def output_hashes(folder: Path) -> dict[str, str]:
    """sha256 of every output file of a release folder, by POSIX path relative to it.

    manifest.json is left out (it cannot hold its own hash), and so are hidden files: those are the
    store's bookkeeping (marker, lock), not part of the report."""
    out = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if rel.as_posix() == MANIFEST_NAME or any(part.startswith(".") for part in rel.parts):
            continue
        if path.is_file():
            out[rel.as_posix()] = sha256_file(path)
    return out


def build_manifest(*, release: str, sequence: int, sigreport_version: str, spec_text: str, spec_name: str,
                   spec_path: str, inputs: Iterable[InputFile], outputs: Mapping[str, str], seed: int,
                   resamples: int | None, formats: Iterable[str], previous: str | None,
                   software: Mapping[str, str | None] | None = None, templates: str | None = None,
                   built_at: str | None = None, machine: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The manifest document. ``sequence`` is the build order within the archive (1, 2, ...): the index
    lists releases by it, newest first, because names need not sort and clocks need not agree."""
    soft = dict(software if software is not None else software_versions())
    doc: dict[str, Any] = {
        "format": FORMAT,
        "manifest_version": MANIFEST_VERSION,
        "release": release,
        "sequence": sequence,
        "previous": previous,
        "sigreport_version": sigreport_version,
        "python_version": soft.pop("python", platform.python_version()),
        "libraries": soft,
        "spec": {"name": spec_name, "path": spec_path, "copy": SPEC_COPY,
                 "sha256": sha256_bytes(spec_text.encode("utf-8")), "text": spec_text},
        "inputs": [f.to_json() for f in inputs],
        "templates": templates,
        "seed": seed,
        "resamples": resamples,
        "formats": list(formats),
        "outputs": dict(sorted(outputs.items())),
    }
    if machine is not None:
        doc["platform"] = dict(machine)
    if built_at is not None:
        doc["built_at"] = built_at
    return doc


def dumps(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


INPUT_ENTRY = {"role!": "str", "name!": "str", "path!": "str", "size": "int", "sha256!": "sha256"}
MANIFEST = {"release!": "str", "sequence!": "int", "previous": "str|null", "sigreport_version": "str|null",
            "python_version": "str|null", "libraries!": ("map", "str|null"),
            "spec!": {"name": "str", "path": "str", "copy": "str", "sha256!": "sha256", "text": "str"},
            "inputs!": ("list", INPUT_ENTRY), "templates": "str|null", "seed": "int", "resamples": "int|null",
            "formats": ("list", "str"), "outputs!": ("map", "sha256"), "built_at": "str",
            "platform": ("map", "any"),
            "item_scores": ("list", {"metric!": "str", "corpus!": "str", "items!": "sha256",
                                     "systems!": ("map", "sha256")})}
"""The fields of a manifest sigreport reads back (``verify``, ``diff``, the index), with their JSON types."""


def read_manifest(folder: Path) -> dict[str, Any]:
    """Read and check a release's manifest; anything that is not sigreport's manifest, or a manifest with a
    field of the wrong type (edited by hand, damaged), is a user error naming the file and the field."""
    path = folder / MANIFEST_NAME
    if not path.is_file() and not path.is_symlink():
        source = str(path)
        raise UserError(source, [Problem(source, None, "", f"{folder} is not a sigreport release "
                                         f"(no {MANIFEST_NAME})")])
    doc = load_json(path, "manifest")
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise document_error(path, "format", f"not a sigreport manifest (expected format '{FORMAT}')")
    if doc.get("manifest_version") != MANIFEST_VERSION:
        raise document_error(path, "manifest_version", f"manifest version {doc.get('manifest_version')!r} is not "
                             f"supported (this sigreport reads {MANIFEST_VERSION})")
    check(doc, MANIFEST, path, "manifest")
    if doc["sequence"] < 1:
        raise document_error(path, "sequence", f"expected a build number of 1 or more, got {doc['sequence']}")
    return doc


@dataclasses.dataclass(frozen=True, kw_only=True)
class ManifestFacts:
    """What ``sigreport diff`` compares of two manifests, read leniently (a hand-made or partial manifest's
    missing field reads as None or empty): each input's sha256 by (role, file name), the spec's sha256 and
    text, and the software versions (sigreport, Python, then each library)."""

    inputs: Mapping[tuple[str | None, str | None], str | None]
    spec_sha256: str | None
    spec_text: str | None
    versions: Mapping[str, str | None]


def manifest_facts(m: Mapping[str, Any]) -> ManifestFacts:
    """The :class:`ManifestFacts` of a manifest as read (:func:`read_manifest`) or given."""
    spec = m.get("spec") or {}
    text = spec.get("text")
    return ManifestFacts(
        inputs={(f.get("role"), f.get("name")): f.get("sha256") for f in m.get("inputs") or []},
        spec_sha256=spec.get("sha256"), spec_text=text if isinstance(text, str) else None,
        versions={"sigreport": m.get("sigreport_version"), "python": m.get("python_version"),
                  **(m.get("libraries") or {})})
