"""Verification of a release: are its files the ones its manifest lists, is its spec copy the spec the
manifest names, are its inputs the ones it was built from, and does a rebuild from them give the same report?

Every check always runs, and every mismatch is reported: a spec copy that differs from the manifest's hash
is tampering, never a reason to skip the rebuild; a rebuild that cannot be done (an input changed or
missing, the build fails) is said, and the release does not verify. The outcome is one of:

* **byte-identical**: the rebuild wrote every report file with the manifest's hash;
* **reproduced**: the same decisions and text, numbers within tolerance: results.json equal under
  :func:`sigreport.results.compare.compare_documents` (strings, booleans, integers and nulls exact, floats
  within ``RTOL``), every other text file (HTML outside its inline figures, LaTeX tables, Markdown, CSV)
  equal under :func:`~sigreport.results.compare.compare_text` (a printed number at most one unit apart in
  its last digit); PDFs and the files under ``figures/`` may differ in bytes (a figure's glyphs and
  coordinates depend on fonts, FreeType and the last digits), and are listed. Expected on another machine
  (another CPU's BLAS kernels sum in another order), so the manifest's platform is compared with this one;
* **not reproduced**: anything else.

What this proves, and what it cannot: the files agree with the manifest, and the manifest's spec and inputs
give this report. A manifest is not a signature: whoever can edit the files can write a consistent manifest
for a different spec or data. Pin a release by publishing its manifest's sha256 elsewhere (``verify`` and
``build --release`` print it; ``verify --digest HEX`` checks it).

Inputs are not copied into a release (they may be large or private); the manifest names them with their
path relative to the spec, and they are looked for beside the original spec (the path the manifest
records) or, with ``data_dir``, under that folder (by the path as the spec gives it, then by file name).
The rebuild itself is done by a function the caller passes in (the build lives above this layer).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from sigreport.archive.manifest import (DIFF_NAME, IGNORED_BY_VERIFY, MANIFEST_NAME, SPEC_COPY, manifest_digest,
                                        output_hashes, platform_info, read_manifest, sha256_bytes, sha256_file)
from sigreport.errors import Problem, UserError, printable
from sigreport.results.compare import Comparison, compare_documents, compare_text, strip_figures

# (spec file, output folder, formats, templates folder or None) -> writes the report into the output folder
Builder = Callable[[Path, Path, list[str], "str | None"], None]
# Files a release adds to the report; a rebuild of the report alone does not produce them.
RELEASE_FILES = (SPEC_COPY, DIFF_NAME)
RESULTS = "results.json"
TEXT_SUFFIXES = (".html", ".tex", ".md", ".csv", ".txt")
SHOWN = 5  # differences shown per file


class CannotRebuild(Exception):
    """Raised by a builder that lacks something the original build had (the previous release it was
    analysed against): the release does not verify, and the message says why."""


@dataclasses.dataclass(frozen=True)
class VerifyResult:
    """What verification found. ``tampered``, ``inputs_changed``, ``not_reproduced`` and ``not_rebuilt``
    (why no rebuild was possible) make a release fail; ``within_tolerance`` and ``figures_differ`` are
    files that differ in bytes but not in what they say (a reproduction, typically on another machine)."""

    release: str
    inputs_changed: tuple[str, ...]
    tampered: tuple[str, ...]  # files against the manifest, the spec copy against its hash, the digest
    not_reproduced: tuple[str, ...]  # report files the rebuild wrote differently beyond tolerance, or not at all
    rebuilt: bool
    ignored: tuple[str, ...] = IGNORED_BY_VERIFY
    digest: str = ""
    not_rebuilt: str | None = None  # why there is no rebuild, when one was asked for
    within_tolerance: tuple[str, ...] = ()
    figures_differ: tuple[str, ...] = ()
    max_rel_diff: float = 0.0
    machine: str = ""  # how the rebuild's platform compares with the manifest's

    @property
    def ok(self) -> bool:
        return not (self.inputs_changed or self.tampered or self.not_reproduced or self.not_rebuilt)

    @property
    def outcome(self) -> str:
        """"byte-identical", "reproduced", "not reproduced", "files match" (--no-rebuild) or "does not verify"
        (files or inputs differ from the manifest, or no rebuild was possible)."""
        if self.tampered or self.inputs_changed or self.not_rebuilt:
            return "does not verify"
        if not self.rebuilt:
            return "files match"
        if self.not_reproduced:
            return "not reproduced"
        return "reproduced" if self.within_tolerance or self.figures_differ else "byte-identical"

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def lines(self) -> list[str]:
        name = printable(self.release)
        head = {
            "byte-identical": f"ok: release {name}: rebuilt byte-identical: from its spec and inputs, every file "
                              "matches its manifest hash",
            "reproduced": f"ok: release {name}: reproduced: same decisions, numbers within tolerance (largest "
                          f"relative difference {self.max_rel_diff:.1e}), {self.machine}",
            "files match": f"ok: release {name}: every output file matches its manifest hash (not rebuilt)",
            "not reproduced": f"release {name}: not reproduced: the rebuild differs beyond tolerance ({self.machine})",
            "does not verify": f"release {name} does not verify:",
        }[self.outcome]
        out = [head]
        out += [f"  input changed: {x}" for x in self.inputs_changed]
        out += [f"  output differs from the manifest: {x}" for x in self.tampered]
        if self.not_rebuilt:
            out.append(f"  could not rebuild: {self.not_rebuilt}")
        out += [f"  rebuild differs from the manifest: {x}" for x in self.not_reproduced]
        out += [f"  numbers within tolerance: {x}" for x in self.within_tolerance]
        out += [f"  differ in bytes (figures, fonts): {x}" for x in self.figures_differ]
        if self.digest:
            out.append(f"  manifest sha256 {self.digest} (publish it to pin this release; check with --digest)")
        return [printable(line) for line in out]


def compare_hashes(expected: dict[str, str], actual: dict[str, str]) -> list[str]:
    """Files whose hash differs, that are missing, or that the manifest does not list."""
    out = [f"{k} (changed)" for k in sorted(expected) if k in actual and actual[k] != expected[k]]
    out += [f"{k} (missing)" for k in sorted(expected) if k not in actual]
    out += [f"{k} (not in the manifest)" for k in sorted(actual) if k not in expected]
    return out


def verify_release(folder: Path, rebuild: bool, data_dir: Path | None = None,
                   builder: Builder | None = None, digest: str | None = None,
                   say: Callable[[str], None] | None = None) -> VerifyResult:
    """Check a release: its files and its spec copy against the manifest (and the manifest against a
    published ``digest``), then (``rebuild``) its inputs' hashes and a rebuild into a temporary folder,
    compared with the manifest's hashes and, where the bytes differ, with the release's own files.
    ``say``: told what is being done, step by step (the command line prints it: a rebuild takes a while)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UserError(str(folder), [Problem(str(folder), None, "", f"no release folder at {folder}")])
    m = read_manifest(folder)
    name, own = str(m["release"]), manifest_digest(folder)
    tell = say or (lambda text: None)
    tell(f"verify {printable(name)}: checking {len(m['outputs'])} files and the spec copy against the manifest")
    tampered = compare_hashes(m["outputs"], output_hashes(folder))
    spec_text, spec_problems = spec_copy(folder, m)
    tampered += spec_problems
    if digest is not None and digest.strip().lower() != own:
        tampered.append(f"{MANIFEST_NAME} (sha256 {own[:12]}…, not the published {printable(digest.strip())[:12]}…)")
    base = VerifyResult(name, (), tuple(tampered), (), False, digest=own)
    if not rebuild:
        return base
    if builder is None:
        raise ValueError("a rebuild needs a builder")
    size = sum(int(e.get("size") or 0) for e in m["inputs"])
    tell(f"verify {printable(name)}: hashing {len(m['inputs'])} input file{'s' if len(m['inputs']) != 1 else ''} "
         f"({size / 1e6:,.1f} MB)")
    located, missing = locate_inputs(m, data_dir)
    changed = tuple(f"{entry['path']} ({where}: sha256 {actual[:12]}…, manifest {entry['sha256'][:12]}…)"
                    for entry, where, actual in located if actual != entry["sha256"])
    if missing or changed or spec_text is None:
        why = (f"input not found: {missing[0]}; give its folder with --data" if missing else
               "the spec copy cannot be read" if spec_text is None else "an input differs from the manifest")
        return dataclasses.replace(base, inputs_changed=changed, not_rebuilt=why)
    tell(f"verify {printable(name)}: rebuilding the report from its spec and inputs (no cache)")
    return rebuilt_result(base, folder, m, spec_text, [(e, w) for e, w, _ in located], builder, tell)


def spec_copy(folder: Path, m: dict[str, Any]) -> tuple[str | None, list[str]]:
    """The spec to rebuild from, and every disagreement about it: the copy's hash against the manifest's spec
    sha256, the copy against the spec text the manifest holds, that text against the sha256. Each is
    tampering, and none stops the rebuild: it uses the text that has the manifest's sha256 (the copy, else
    the manifest's text), or the copy when neither has it."""
    path = folder / SPEC_COPY
    want = m["spec"]["sha256"]
    inline = m["spec"].get("text")
    try:
        text: str | None = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        text, problems = None, [f"{SPEC_COPY} (cannot be read: {exc})"]
    else:
        actual = sha256_bytes(text.encode("utf-8"))
        problems = [] if actual == want else [f"{SPEC_COPY} (sha256 {actual[:12]}…, the manifest's spec sha256 "
                                              f"{want[:12]}…)"]
        if inline is not None and inline != text:
            problems.append(f"{SPEC_COPY} (differs from the spec text the manifest holds)")
    inline_ok = inline is not None and sha256_bytes(inline.encode("utf-8")) == want
    if inline is not None and not inline_ok:
        problems.append(f"{MANIFEST_NAME} (its spec text does not have its spec sha256)")
    if inline_ok and (text is None or sha256_bytes(text.encode("utf-8")) != want):
        return inline, problems
    return text, problems


def rebuilt_result(base: VerifyResult, folder: Path, m: dict[str, Any], spec_text: str,
                   located: list[tuple[dict[str, Any], Path]], builder: Builder,
                   tell: Callable[[str], None] = lambda text: None) -> VerifyResult:
    """Rebuild into a temporary folder and compare; a build that fails on its input is "could not rebuild"."""
    expected = {k: v for k, v in m["outputs"].items() if k not in RELEASE_FILES}
    with tempfile.TemporaryDirectory(prefix="sigreport-verify-") as tmp:
        try:
            out = rebuild_into(Path(tmp), m, spec_text, located, builder)
        except UserError as exc:
            return dataclasses.replace(base, not_rebuilt=f"the build failed: {' '.join(exc.render().split())}")
        except CannotRebuild as exc:
            return dataclasses.replace(base, not_rebuilt=str(exc))
        tell(f"verify {printable(base.release)}: comparing {len(expected)} report files with the manifest")
        found = compare_rebuild(folder, out, expected)
    return dataclasses.replace(base, rebuilt=True, machine=machine_note(m.get("platform")), **found)


def locate_inputs(m: dict[str, Any], data_dir: Path | None) -> tuple[list[tuple[dict[str, Any], Path, str]], list[str]]:
    """(manifest entry, where the file was found, its sha256) for every input found, and the inputs not found."""
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
    return out, missing


def rebuild_into(tmp: Path, m: dict[str, Any], spec_text: str, located: list[tuple[dict[str, Any], Path]],
                 builder: Builder) -> Path:
    """Rebuild into ``tmp/out``, laid out like the original (the spec under its own name, every input at its
    path relative to the spec); returns the report folder."""
    data = [(e, w) for e, w in located if e.get("role") != "template"]
    depth = max((PurePosixPath(e["path"]).parts.count("..") for e, _ in data), default=0)
    spec_dir = Path(tmp, "in", *(["s"] * depth))
    spec_dir.mkdir(parents=True)
    spec_path = spec_dir / (Path(str(m["spec"].get("name") or SPEC_COPY)).name or SPEC_COPY)
    spec_path.write_text(spec_text, encoding="utf-8")
    for entry, where in data:
        if PurePosixPath(entry["path"]).is_absolute():
            continue  # read where the spec says
        target = (spec_dir / entry["path"]).resolve()
        if not target.is_relative_to(Path(tmp).resolve()):
            continue  # a path that leaves the rebuild folder is read where it is
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(where, target)
    out = Path(tmp, "out")
    builder(spec_path, out, list(m.get("formats") or []), m.get("templates"))
    return out


def compare_rebuild(folder: Path, out: Path, expected: dict[str, str]) -> dict[str, Any]:
    """Sort every report file into identical, within tolerance, figure bytes, or not reproduced."""
    rebuilt = output_hashes(out)
    rebuilt.pop(MANIFEST_NAME, None)
    not_reproduced = [x for x in compare_hashes(expected, rebuilt) if not x.endswith("(changed)")]
    within, figures, worst = [], [], 0.0
    for rel in sorted(k for k in expected if k in rebuilt and rebuilt[k] != expected[k]):
        if rel.startswith("figures/") or rel.endswith(".pdf"):
            figures.append(rel)
            continue
        original = folder / rel
        if not original.is_file() or sha256_file(original) != expected[rel]:
            not_reproduced.append(f"{rel} (changed; the release's copy differs from the manifest too, so the two "
                                  "cannot be compared)")
            continue
        c = compare_file(rel, original, out / rel)
        if c is None or not c.equal:
            shown = "; ".join(c.differences[:SHOWN]) if c is not None else "binary file"
            not_reproduced.append(f"{rel} (changed: {shown})")
        else:
            within.append(f"{rel} ({c.floats_differ} number(s) differ, largest relative difference "
                          f"{c.max_rel_diff:.1e})")
            worst = max(worst, c.max_rel_diff)
    return {"not_reproduced": tuple(not_reproduced), "within_tolerance": tuple(within),
            "figures_differ": tuple(figures), "max_rel_diff": worst}


def compare_file(rel: str, original: Path, rebuilt: Path) -> Comparison | None:
    """The comparison of a report file with its rebuild by what it holds (None: not a file kind compared
    by content)."""
    if rel == RESULTS:
        try:
            a, b = (json.loads(p.read_text(encoding="utf-8")) for p in (original, rebuilt))
        except (OSError, UnicodeDecodeError, ValueError):
            return None
        return compare_documents(a, b)
    if rel.endswith(TEXT_SUFFIXES):
        try:
            a, b = (p.read_text(encoding="utf-8") for p in (original, rebuilt))
        except (OSError, UnicodeDecodeError):
            return None
        if rel.endswith(".html"):
            a, b = strip_figures(a), strip_figures(b)
        return compare_text(a, b)
    return None


PLATFORM_KEYS = ("cpu", "simd", "blas", "machine", "os", "python")


def machine_note(recorded: Any) -> str:
    """How this machine compares with the one the release was built on: "on another machine (blas:
    ... -> ...)", "on the same platform" or, for a manifest without a platform, "platform of the build unknown"."""
    if not isinstance(recorded, dict):
        return "platform of the original build unknown (its manifest records none)"
    here = platform_info()
    changed = [f"{k}: {_plat(recorded.get(k))} -> {_plat(here.get(k))}" for k in PLATFORM_KEYS
               if recorded.get(k) != here.get(k)]
    return f"on another machine ({'; '.join(changed)})" if changed else "on the same platform"


def _plat(v: Any) -> str:
    if isinstance(v, list):
        return ", ".join(" ".join(str(x) for x in (d.get("library"), d.get("version"), d.get("kernel")) if x)
                         if isinstance(d, dict) else str(d) for d in v) or "none"
    return str(v)
