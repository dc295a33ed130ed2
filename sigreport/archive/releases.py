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
from collections.abc import Callable, Sequence
from typing import Any

from sigreport.archive import diff as diffs
from sigreport.archive import store
from sigreport.archive.documents import read_results_document
from sigreport.archive.manifest import (DIFF_NAME, MANIFEST_NAME, SPEC_COPY, InputFile, build_manifest,
                                        describe_input, dumps, output_hashes, platform_info, read_manifest)
from sigreport.errors import Problem, UserError
from sigreport.results.decisions import decide_document
from sigreport.spec import SpecFile

NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
RESERVED = frozenset({"index.html", "index.json"})
INDEX_HTML = "index.html"
INDEX_JSON = "index.json"
INDEX_FORMAT = "sigreport-archive-index"
RESULTS = "results.json"
ARCHIVE_MARKER = ".sigreport-archive"
"""Marks a folder as a sigreport archive: only there are ``index.html`` and ``index.json`` (re)written."""
Warn = Callable[[str], None]


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


def list_releases(archive: Path, warn: Warn | None = None) -> list[Release]:
    """Every release of the archive, newest first (highest build ``sequence``; name breaks ties). A folder
    whose manifest.json cannot be read (damaged, edited, someone else's) is no release: ``warn`` names it."""
    if not archive.is_dir():
        return []
    out = []
    for child in sorted(archive.iterdir()):
        if child.is_dir() and not child.name.startswith(".") and (child / MANIFEST_NAME).is_file():
            try:
                out.append(Release(child.name, child, read_manifest(child)))
            except UserError as exc:
                if warn is not None:
                    warn(f"sigreport: skipped {child.name} in the archive {archive}: {_reason(exc)}")
    return sorted(out, key=lambda r: (r.sequence, r.name), reverse=True)


def _reason(exc: UserError) -> str:
    p = exc.problems[0]
    return f"{p.file}: {p.render()}"


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


def previous_release(archive: Path, name: str, warn: Warn | None = None) -> Release | None:
    """The release a new build of ``name`` is compared with: the newest other release of the archive whose
    manifest and results.json can be read (a damaged one is skipped, and ``warn`` names it)."""
    for r in list_releases(archive, warn):
        if r.name == name:
            continue
        try:
            read_results(r.path)
        except UserError as exc:
            if warn is not None:
                warn(f"sigreport: release {r.name} is not used as the previous release: {_reason(exc)}")
            continue
        return r
    return None


def read_results(folder: Path) -> dict[str, Any]:
    """The results.json document of a report folder, checked for every field sigreport reads from it (a user
    error naming the file and the field when missing, not JSON, or of another shape)."""
    path = folder / RESULTS
    if not path.exists() and not path.is_symlink():
        raise UserError(str(folder), [Problem(str(path), None, "", f"{folder} has no {RESULTS}; "
                                              "not a sigreport report built with the json format")])
    return read_results_document(path)


def previous_results(archive: Path, name: str, previous_dir: Path | None = None,
                     warn: Warn | None = None) -> dict[str, Any] | None:
    """The results.json document a release build of ``name`` compares with and fixes its choices on
    (``selection: fixed``): the report in ``previous_dir`` (``--previous``) when given, otherwise the
    archive's newest other readable release; None when there is none, so the caller can say so plainly."""
    found = previous_report(archive, name, previous_dir, warn)
    return found[1] if found else None


def previous_report(archive: Path, name: str, previous_dir: Path | None = None,
                    warn: Warn | None = None) -> tuple[Path, dict[str, Any]] | None:
    """(results.json path, document) of the previous report (see :func:`previous_results`)."""
    if previous_dir is not None:
        return previous_dir / RESULTS, read_results(previous_dir)
    prev = previous_release(archive, name, warn)
    return (prev.path / RESULTS, read_results(prev.path)) if prev else None


def is_release_folder(folder: Path) -> bool:
    """Whether ``folder`` holds a release (its manifest.json; a plain report never has one)."""
    return (folder / MANIFEST_NAME).is_file()


def is_archive(folder: Path) -> bool:
    """Whether ``folder`` is a sigreport archive: marked, or written by a sigreport from before the marker (its
    index.json is sigreport's, or it has no index files and holds a release)."""
    if (folder / ARCHIVE_MARKER).is_file():
        return True
    index = folder / INDEX_JSON
    if index.is_file():
        try:
            return json.loads(index.read_text(encoding="utf-8")).get("format") == INDEX_FORMAT
        except (OSError, UnicodeDecodeError, ValueError, AttributeError, RecursionError):
            return False
    if (folder / INDEX_HTML).exists():
        return False
    try:
        return any(c.is_dir() and is_release_folder(c) for c in folder.iterdir())
    except OSError:
        return False


def check_archive(archive: Path) -> None:
    """Refuse an archive folder that is a file, or a non-empty folder that is not a sigreport archive: a
    release build writes ``index.html`` and ``index.json`` there and must never replace a user's."""
    src = str(archive)
    if archive.exists() and not archive.is_dir():
        raise UserError(src, [Problem(src, None, "--archive", f"{archive} is a file, not an archive folder")])
    try:
        foreign = archive.is_dir() and any(not _bookkeeping(c.name) for c in archive.iterdir()) \
            and not is_archive(archive)
    except OSError as exc:
        raise UserError(src, [Problem(src, None, "--archive", f"cannot read {archive}: {exc.strerror}")]) from None
    if foreign:
        raise UserError(src, [Problem(src, None, "--archive", f"{archive} is not a sigreport archive (no "
                                      f"{ARCHIVE_MARKER}) and not empty; a release build writes index.html and "
                                      "index.json there and never replaces yours: choose another archive folder "
                                      "(--archive or outputs.archive), new or empty")])


def _bookkeeping(name: str) -> bool:
    """A hidden file or folder a build of this archive keeps beside a release or the index while it works
    (``.NAME.lock``, ``.NAME.tmp-*``, ``.NAME.old-*``)."""
    return name.startswith(".") and (name.endswith(".lock") or ".tmp-" in name or ".old-" in name)


def check_release_unchanged(plan: "ReleasePlan") -> None:
    """Call with the release's lock held: refuse when another build wrote the release after
    :func:`plan_release` checked (a build that waited with ``--wait``); releases are immutable."""
    if plan.replaced is None and os.path.lexists(plan.dest):
        src = str(plan.archive)
        raise UserError(src, [Problem(src, None, "release", f"release '{plan.name}' was written by another build "
                                      f"while this one waited (releases are immutable): choose a new name, or "
                                      "--force to replace it")])


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
    check_archive(archive)
    if previous_dir is not None:  # read now: a damaged report must not cost a whole build
        read_results(previous_dir)
        if (previous_dir / MANIFEST_NAME).is_file():
            read_manifest(previous_dir)
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
    """(label, results.json, manifest or None) of the report this release is compared with (damaged releases
    skipped: the build said so when it read the previous report for its plan)."""
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
        previous=prev[0] if prev else None, machine=platform_info(),
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


def index_entries(archive: Path, warn: Warn | None = None) -> list[dict[str, Any]]:
    """One entry per release, newest first, for index.json (and the HTML index). A release whose manifest or
    results.json cannot be read is left out, and ``warn`` names it and the reason."""
    out = []
    for r in list_releases(archive, warn):
        try:
            doc = read_results(r.path) if (r.path / RESULTS).exists() else None
        except UserError as exc:
            if warn is not None:
                warn(f"sigreport: left release {r.name} out of the index of {archive}: {_reason(exc)}")
            continue
        h = headline(doc) if doc is not None else None
        m = r.manifest
        out.append({
            "release": r.name, "sequence": r.sequence, "previous": m.get("previous"),
            "sigreport_version": m.get("sigreport_version"), "title": _title(doc),
            "report": next((f"{r.name}/{f}" for f in ("index.html", "report.pdf", RESULTS) if (r.path / f).is_file()),
                           None),
            "diff": f"{r.name}/{DIFF_NAME}" if (r.path / DIFF_NAME).is_file() else None,
            "best": [dataclasses.asdict(b) for b in h.best] if h else [],
            "significant": h.significant if h else None, "decisions": h.decisions if h else None,
        })
    return out


def _title(doc: dict[str, Any] | None) -> str | None:
    return (str(doc.get("title") or "") or None) if doc is not None else None


#: How long an index rewrite waits for another one (it takes well under a second).
INDEX_WAIT = 120.0


def write_index(archive: Path, warn: Warn | None = None) -> list[Path]:
    """Mark the archive as sigreport's and rewrite ARCHIVE/index.json and ARCHIVE/index.html from the releases
    now present, atomically; a damaged release is left out and ``warn`` names it.

    Scanning the releases and writing the index happen under the archive's index lock
    (``ARCHIVE/.index.json.lock``, :func:`~sigreport.archive.store.locked`): two release builds
    finishing at once would otherwise each scan, and the one that scanned first could write last and
    leave the other's release out of the index. The archive is checked again there: index files a user
    put into an unmarked folder meanwhile are never replaced."""
    with store.locked(archive / INDEX_JSON, wait=INDEX_WAIT):
        if not (archive / ARCHIVE_MARKER).is_file():
            if (archive / INDEX_HTML).exists() or (archive / INDEX_JSON).exists():
                check_archive(archive)
            atomic_write_text(archive / ARCHIVE_MARKER, "sigreport archive: releases and their index\n")
        entries = index_entries(archive, warn)
        doc = {"format": INDEX_FORMAT, "index_version": 1, "releases": entries}
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
