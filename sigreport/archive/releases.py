"""An archive of releases: ``ARCHIVE/<name>/`` folders, each a report with its manifest, and the index.

Release names are checked before anything is written (a name may never leave the archive), releases are
ordered by the manifest's ``sequence`` (build order), and ``index.html`` / ``index.json`` are rewritten
atomically after every release build.
"""

from __future__ import annotations

import dataclasses
import datetime
import html
import json
import os
import re
import tempfile
from pathlib import Path
from collections.abc import Sequence
from typing import Any

from sigreport.archive import diff as diffs
from sigreport.archive import store
from sigreport.archive.manifest import (DIFF_NAME, MANIFEST_NAME, SPEC_COPY, InputFile, build_manifest,
                                        describe_input, dumps, output_hashes, read_manifest)
from sigreport.errors import Problem, UserError
from sigreport.results.decisions import decide_document
from sigreport.spec import SpecFile

NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
RESERVED = frozenset({"index.html", "index.json"})
INDEX_HTML = "index.html"
INDEX_JSON = "index.json"
RESULTS = "results.json"


def validate_release_name(name: str, source: str = "--release") -> str:
    """A release name is one plain folder name: letters, digits, '.', '_', '+', '-', at most 64
    characters, starting with a letter or digit, without '..' (so never a path, a hidden folder or
    a way out of the archive) and not one of the index files."""
    if not NAME_RE.fullmatch(name or "") or ".." in name or name.lower() in RESERVED:
        shown = (name or "").encode("unicode_escape").decode("ascii")[:80]
        raise UserError(source, [Problem(source, None, "release",
                                         f"'{shown}' is not a valid release name: use 1-64 letters, digits, "
                                         "'.', '_', '+' or '-', starting with a letter or digit, without '..'")])
    return name


@dataclasses.dataclass(frozen=True)
class Release:
    """One release folder of an archive and its manifest."""

    name: str
    path: Path
    manifest: dict[str, Any]

    @property
    def sequence(self) -> int:
        return int(self.manifest["sequence"])


def release_path(archive: Path, name: str) -> Path:
    """ARCHIVE/name, after checking the name (and that the result stays inside the archive)."""
    validate_release_name(name)
    path = archive / name
    if path.resolve().parent != archive.resolve():
        raise UserError(name, [Problem(name, None, "release", f"release '{name}' would leave the archive {archive}")])
    return path


def list_releases(archive: Path) -> list[Release]:
    """Every release of the archive, newest first (highest build ``sequence``; name breaks ties)."""
    if not archive.is_dir():
        return []
    out = []
    for child in archive.iterdir():
        if child.is_dir() and not child.name.startswith(".") and (child / MANIFEST_NAME).is_file():
            try:
                out.append(Release(child.name, child, read_manifest(child)))
            except UserError:
                continue  # a folder with someone else's manifest.json is not a release
    return sorted(out, key=lambda r: (r.sequence, r.name), reverse=True)


def require_archive(archive: Path) -> Path:
    if not archive.is_dir():
        raise UserError(str(archive), [Problem(str(archive), None, "--archive", f"no archive at {archive}")])
    return archive


def find_release(archive: Path, name: str) -> Release:
    """A release by name; an unknown name lists the known ones."""
    path = release_path(require_archive(archive), name)
    if not (path / MANIFEST_NAME).is_file():
        known = ", ".join(r.name for r in list_releases(archive)) or "none"
        raise UserError(str(archive), [Problem(str(archive), None, "release",
                                               f"no release '{name}' in {archive}; releases: {known}")])
    return Release(name, path, read_manifest(path))


def next_sequence(archive: Path) -> int:
    return max((r.sequence for r in list_releases(archive)), default=0) + 1


def previous_release(archive: Path, name: str) -> Release | None:
    """The release a new build of ``name`` is compared with: the newest other release of the archive."""
    return next((r for r in list_releases(archive) if r.name != name), None)


def read_results(folder: Path) -> dict[str, Any]:
    """The results.json document of a report folder (a user error when missing or not JSON)."""
    path = folder / RESULTS
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(str(folder), [Problem(str(path), None, "", f"{folder} has no {RESULTS}; "
                                              "not a sigreport report built with the json format")]) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UserError(str(path), [Problem(str(path), None, "", f"cannot read {RESULTS}: {exc}")]) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("analyses"), list):
        raise UserError(str(path), [Problem(str(path), None, "analyses", "not a sigreport results.json")])
    return doc


def previous_results(archive: Path, name: str, previous_dir: Path | None = None) -> dict[str, Any] | None:
    """The results.json document a release build of ``name`` compares with and fixes its choices on
    (``selection: fixed``): the report in ``previous_dir`` (``--previous``) when given, otherwise the
    archive's newest other release; None when there is none, so the caller can say so plainly."""
    if previous_dir is not None:
        return read_results(previous_dir)
    prev = previous_release(archive, name)
    return read_results(prev.path) if prev else None


# ---- building a release ------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ReleasePlan:
    """Where a release build goes, checked before anything is computed: the release folder, the release it
    replaces (only with ``force``) and the report it is compared with (``--previous``, else the archive's
    newest other release)."""

    name: str
    archive: Path
    dest: Path
    replaced: Release | None
    previous_dir: Path | None


def plan_release(archive: Path, name: str, force: bool = False, previous_dir: Path | None = None) -> ReleasePlan:
    """Check the release name and the archive; refuse to overwrite a release unless ``force``."""
    dest = release_path(archive, name)
    src = str(archive)
    if archive.exists() and not archive.is_dir():
        raise UserError(src, [Problem(src, None, "--archive", f"{archive} is a file, not an archive folder")])
    replaced = None
    if dest.exists():
        if not (dest / MANIFEST_NAME).is_file():
            raise UserError(src, [Problem(src, None, "release", f"{dest} exists and is not a sigreport release; "
                                          "choose another release name")])
        replaced = Release(name, dest, read_manifest(dest))
        if not force:
            raise UserError(src, [Problem(src, None, "release", f"release '{name}' already exists in {archive} "
                                          "(releases are immutable): choose a new name, or --force to replace it")])
    if previous_dir is not None:
        read_results(previous_dir)
    return ReleasePlan(name, archive, dest, replaced, previous_dir)


@dataclasses.dataclass(frozen=True)
class ReleaseInputs:
    """What the build read, as the manifest records it."""

    spec_text: str
    spec_name: str
    spec_path: str
    inputs: tuple[InputFile, ...]
    seed: int
    resamples: int | None
    formats: tuple[str, ...]
    templates: str | None
    sigreport_version: str


def plan_release_for(sf: SpecFile, name: str, archive: str | Path | None = None, force: bool = False,
                     previous: str | Path | None = None) -> ReleasePlan:
    """The archive is ``--archive``, else the spec's ``outputs.archive``, else ``reports/`` beside the spec."""
    if archive is not None:
        folder = Path(archive).resolve()
    elif sf.spec.outputs.archive:
        folder = sf.resolve(sf.spec.outputs.archive)
    else:
        folder = sf.folder / "reports"
    return plan_release(folder, name, force, Path(previous).resolve() if previous else None)


def release_inputs(sf: SpecFile, formats: list[str], templates: str | Path | None, version: str,
                   code: Sequence[Path] = ()) -> ReleaseInputs:
    """The spec as given and every file the build read (data tables, user templates, and ``code``: the
    modules of user aggregates), for the manifest. A module under the spec's folder is named relative to
    it (``verify`` finds it there, or under ``--data``); one elsewhere by its absolute path."""
    spec = sf.spec
    given = [(role, getattr(spec.data, role)) for role in ("scores", "predictions", "annotations")]
    inputs = [describe_input(role, path, sf.resolve(path)) for role, path in given if path]
    folder = sf.path.resolve().parent
    for module in sorted(set(code)):
        path = module.resolve()
        shown = path.relative_to(folder).as_posix() if path.is_relative_to(folder) else str(path)
        inputs.append(describe_input("aggregate", shown, path))
    tdir = Path(templates).resolve() if templates else None
    if tdir is not None:
        inputs += [describe_input("template", f.relative_to(tdir).as_posix(), f)
                   for f in sorted(tdir.rglob("*")) if f.is_file()]
    return ReleaseInputs(
        spec_text=sf.path.read_text(encoding="utf-8"), spec_name=sf.path.name, spec_path=str(sf.path.resolve()),
        inputs=tuple(inputs), seed=spec.seed, resamples=spec.tests.resamples, formats=tuple(formats),
        templates=str(tdir) if tdir else None, sigreport_version=version)


def previous_for(plan: ReleasePlan) -> tuple[str, dict[str, Any], dict[str, Any] | None] | None:
    """(label, results.json, manifest or None) of the report this release is compared with."""
    if plan.previous_dir is not None:
        d = plan.previous_dir
        m = read_manifest(d) if (d / MANIFEST_NAME).is_file() else None
        return (str(m["release"]) if m else str(d)), read_results(d), m
    prev = previous_release(plan.archive, plan.name)
    return (prev.name, read_results(prev.path), prev.manifest) if prev else None


def finish_release(plan: ReleasePlan, folder: Path, given: ReleaseInputs) -> list[str]:
    """Add the release's own files to a finished report folder (before it is moved into the archive): the
    spec copy, the HTML diff against the previous report and, last, manifest.json with every file's hash."""
    (folder / SPEC_COPY).write_text(given.spec_text, encoding="utf-8")
    written = [SPEC_COPY]
    prev = previous_for(plan)
    manifest = build_manifest(
        release=plan.name, sequence=next_sequence(plan.archive), sigreport_version=given.sigreport_version,
        spec_text=given.spec_text, spec_name=given.spec_name, spec_path=given.spec_path, inputs=given.inputs,
        outputs={}, seed=given.seed, resamples=given.resamples, formats=given.formats, templates=given.templates,
        previous=prev[0] if prev else None,
        built_at=datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat())
    if prev is not None and prev[1].get("schema_version") == read_results(folder).get("schema_version"):
        d = diffs.diff_results(prev[1], read_results(folder), prev[2], manifest, prev[0], plan.name)
        (folder / DIFF_NAME).write_text(diffs.render_html(d), encoding="utf-8")
        written.append(DIFF_NAME)
    manifest["outputs"] = output_hashes(folder)
    (folder / MANIFEST_NAME).write_text(dumps(manifest), encoding="utf-8")
    return written + [MANIFEST_NAME]


# ---- headline conclusions and the index -------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Best:
    metric: str
    corpus: str | None
    system: str
    mean: float
    tied: tuple[str, ...] = ()  # every system sharing the best value as shown (the first is ``system``)


@dataclasses.dataclass(frozen=True)
class Headline:
    """What a reader of the index wants first, from the report's decisions (the object its Conclusions and main
    table read): the best system(s) per metric and corpus, and how many of the decisions of the tests the
    conclusions follow are significant."""

    best: tuple[Best, ...]
    significant: int
    decisions: int


def best_systems(doc: dict[str, Any]) -> list[Best]:
    return list(headline(doc).best)


def headline(doc: dict[str, Any]) -> Headline:
    blocks = list(decide_document(doc))
    best = [Best(b.metric, b.corpus, b.best[0], float(b.values[b.best[0]]), tuple(b.best)) for b in blocks if b.best]
    return Headline(tuple(best), sum(b.n_significant for b in blocks), sum(b.n_decided for b in blocks))


def index_entries(archive: Path) -> list[dict[str, Any]]:
    """One entry per release, newest first, for index.json (and the HTML index)."""
    out = []
    for r in list_releases(archive):
        try:
            h: Headline | None = headline(read_results(r.path))
        except UserError:
            h = None
        m = r.manifest
        out.append({
            "release": r.name, "sequence": r.sequence, "previous": m.get("previous"),
            "sigreport_version": m.get("sigreport_version"), "title": _title(r.path),
            "report": next((f"{r.name}/{f}" for f in ("index.html", "report.pdf", RESULTS) if (r.path / f).is_file()),
                           None),
            "diff": f"{r.name}/{DIFF_NAME}" if (r.path / DIFF_NAME).is_file() else None,
            "best": [dataclasses.asdict(b) for b in h.best] if h else [],
            "significant": h.significant if h else None, "decisions": h.decisions if h else None,
        })
    return out


def _title(folder: Path) -> str | None:
    try:
        return str(read_results(folder).get("title") or "") or None
    except UserError:
        return None


#: How long an index rewrite waits for another one (it takes well under a second).
INDEX_WAIT = 120.0


def write_index(archive: Path) -> list[Path]:
    """Rewrite ARCHIVE/index.json and ARCHIVE/index.html from the releases now present, atomically.

    Scanning the releases and writing the index happen under the archive's index lock
    (``ARCHIVE/.index.json.lock``, :func:`~sigreport.archive.store.locked`): two release builds
    finishing at once would otherwise each scan, and the one that scanned first could write last and
    leave the other's release out of the index."""
    with store.locked(archive / INDEX_JSON, wait=INDEX_WAIT):
        entries = index_entries(archive)
        doc = {"format": "sigreport-archive-index", "index_version": 1, "releases": entries}
        atomic_write_text(archive / INDEX_JSON, dumps(doc))
        atomic_write_text(archive / INDEX_HTML, index_html(entries))
    return [archive / INDEX_JSON, archive / INDEX_HTML]


def atomic_write_text(path: Path, text: str) -> None:
    """Write to a temporary file in the same folder, fsync it, then os.replace: a reader sees the old or
    the new file, never half of one."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


STYLE = ("body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}"
         "table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem .6rem;"
         "border-bottom:1px solid #ddd;vertical-align:top}th{border-bottom:2px solid #444}"
         "ul{margin:0;padding-left:1.1rem}.muted{color:#666}")


def index_html(entries: list[dict[str, Any]]) -> str:
    """The archive's index page: self-contained (inline style, relative links only), every value escaped."""
    e = html.escape
    rows = []
    for en in entries:
        best = "".join(f"<li>{e(b['metric'])}{' on ' + e(str(b['corpus'])) if b['corpus'] else ''}: "
                       f"<b>{' = '.join(e(x) for x in (b.get('tied') or [b['system']]))}</b> (mean {b['mean']:.4g}"
                       f"{', tied' if len(b.get('tied') or ()) > 1 else ''})</li>" for b in en["best"])
        sig = (f"{en['significant']} of {en['decisions']}" if en["decisions"] is not None else "–")
        links = [f'<a href="{e(en["report"])}">report</a>'] if en["report"] else []
        if en["diff"]:
            links.append(f'<a href="{e(en["diff"])}">diff against {e(str(en["previous"]))}</a>')
        rows.append(f"<tr><td><b>{e(en['release'])}</b><br><span class=muted>#{en['sequence']}, sigreport "
                    f"{e(str(en['sigreport_version']))}</span></td><td>{e(en['title'] or '')}</td>"
                    f"<td><ul>{best}</ul></td><td>{sig}</td><td>{' · '.join(links)}</td></tr>")
    body = "\n".join(rows) or '<tr><td colspan=5 class=muted>no releases yet</td></tr>'
    return ("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>Releases</title>"
            f"<style>{STYLE}</style></head><body><h1>Releases</h1><p class=muted>Newest first (build order).</p>"
            "<table><thead><tr><th>release</th><th>title</th><th>best system per metric and corpus</th>"
            "<th>significant decisions (the tests the conclusions follow)</th><th>links</th></tr></thead><tbody>\n"
            f"{body}\n</tbody></table></body></html>\n")
