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
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sigreport.archive import diff as diffs
from sigreport.archive import notes
from sigreport.archive import scores, store, trends
from sigreport.archive.documents import read_results_document
from sigreport.archive.manifest import (DIFF_NAME, MANIFEST_NAME, SPEC_COPY, InputFile, build_manifest,
                                        describe_input, dumps, output_hashes, platform_info, read_manifest)
from sigreport.errors import Problem, UserError
from sigreport.results.decisions import decide_records
from sigreport.results.reading import DocumentRecords, read_document, read_header
from sigreport.spec import SpecFile

NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
RESERVED = frozenset({"index.html", "index.json", "item-scores"})  # (item-scores: scores.STORE)
INDEX_HTML = "index.html"
INDEX_JSON = "index.json"
INDEX_FORMAT = "sigreport-archive-index"
RESULTS = "results.json"
ARCHIVE_MARKER = ".sigreport-archive"
"""Marks a folder as a sigreport archive: only there are ``index.html`` and ``index.json`` (re)written."""
Warn = Callable[[str], None]
Draw = Callable[["trends.Trend"], Any]  # a trend -> its drawn figure (with an ``svg``)


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


def previous_source(plan: ReleasePlan) -> tuple[str, Path, dict[str, Any], dict[str, Any] | None] | None:
    """(label, folder, results.json, manifest or None) of the report this release is compared with (damaged
    releases skipped: the build said so when it read the previous report for its plan)."""
    if plan.previous_dir is not None:
        d = plan.previous_dir
        m = read_manifest(d) if (d / MANIFEST_NAME).is_file() else None
        return (str(m["release"]) if m else str(d)), d, read_results(d), m
    prev = previous_release(plan.archive, plan.name)
    return (prev.name, prev.path, read_results(prev.path), prev.manifest) if prev else None


def previous_for(plan: ReleasePlan) -> tuple[str, dict[str, Any], dict[str, Any] | None] | None:
    """(label, results.json, manifest or None) of the report this release is compared with."""
    found = previous_source(plan)
    return (found[0], found[2], found[3]) if found else None


REPORT_PAGES = ("index.html", "report.pdf")


def report_page(folder: Path) -> str | None:
    """The file a link to a report opens: its HTML page, else its PDF."""
    return next((p for p in REPORT_PAGES if (folder / p).is_file()), None)


@dataclasses.dataclass(frozen=True)
class ReleaseContext:
    """What a release's own report says about its place in the archive: its name, the previous release (and
    a link to its report when it is in the same archive), whether it has a diff, and the archive's index."""

    name: str
    previous: str | None
    previous_page: str | None
    diff: str | None
    index: str = f"../{INDEX_HTML}"


def release_context(plan: ReleasePlan, schema_version: int) -> ReleaseContext:
    """The context of the release a build is writing (``schema_version``: the results.json it writes; a
    previous report of another version gets no diff)."""
    prev = previous_source(plan)
    if prev is None:
        return ReleaseContext(plan.name, None, None, None)
    label, folder, doc, _ = prev
    return ReleaseContext(plan.name, label, _page_in_archive(plan.archive, folder),
                          DIFF_NAME if read_header(doc).schema_version == schema_version else None)


def context_of(folder: Path, manifest: dict[str, Any]) -> ReleaseContext:
    """The context a release was built with, from its manifest (``verify`` rebuilds its report with it)."""
    prev = manifest.get("previous")
    page = _page_in_archive(folder.parent, folder.parent / prev) if isinstance(prev, str) and prev else None
    return ReleaseContext(str(manifest["release"]), prev if isinstance(prev, str) else None, page,
                          DIFF_NAME if DIFF_NAME in manifest.get("outputs", {}) else None)


def _page_in_archive(archive: Path, folder: Path) -> str | None:
    """'../v1.2/index.html' when ``folder`` is a release of ``archive`` with a report page, else None."""
    try:
        inside = folder.resolve().parent == archive.resolve() and (folder / MANIFEST_NAME).is_file()
    except OSError:
        return None
    page = report_page(folder) if inside else None
    return f"../{folder.name}/{page}" if page else None


@dataclasses.dataclass(frozen=True)
class NoteSources:
    """What the release notes read beyond the two documents, supplied by the build (the data layer and the
    renderer's names are above this layer): this release's item scores, a reader of another release's
    item scores from its folder and manifest, and the section anchors of a report from its results.json."""

    new_items: diffs.ItemScores | None = None
    old_items: Callable[[Path, Mapping[str, object] | None], diffs.ItemScores] | None = None
    anchors: Callable[[Mapping[str, object]], Mapping[notes.Key, str]] | None = None


def finish_release(plan: ReleasePlan, folder: Path, given: ReleaseInputs,
                   sources: NoteSources = NoteSources()) -> list[str]:
    """Add the release's own files to a finished report folder (before it is moved into the archive): the
    spec copy, the HTML diff against the previous report and, last, manifest.json with every file's hash."""
    (folder / SPEC_COPY).write_text(given.spec_text, encoding="utf-8")
    written = [SPEC_COPY]
    prev = previous_source(plan)
    manifest = build_manifest(
        release=plan.name, sequence=next_sequence(plan.archive), sigreport_version=given.sigreport_version,
        spec_text=given.spec_text, spec_name=given.spec_name, spec_path=given.spec_path, inputs=given.inputs,
        outputs={}, seed=given.seed, resamples=given.resamples, formats=given.formats, templates=given.templates,
        previous=prev[0] if prev else None, machine=platform_info(),
        built_at=datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat())
    new_doc = read_results(folder)
    new_items = sources.new_items
    if new_items is not None:  # kept in the archive, so that a later diff is paired (scores.py)
        manifest[scores.FIELD], new_items = scores.keep(plan.archive, new_items)
    if prev is not None and read_header(prev[2]).schema_version == read_header(new_doc).schema_version:
        label, old_folder, old_doc, old_m = prev
        old_items = sources.old_items(old_folder, old_m) if sources.old_items else None
        d = diffs.diff_results(read_document(old_doc), read_document(new_doc), old_m, manifest, label, plan.name,
                               old_items, new_items)
        (folder / DIFF_NAME).write_text(notes.render_html(d, release_links(plan, old_folder, old_doc, folder, new_doc,
                                                                           sources)), encoding="utf-8")
        written.append(DIFF_NAME)
    manifest["outputs"] = output_hashes(folder)
    (folder / MANIFEST_NAME).write_text(dumps(manifest), encoding="utf-8")
    return written + [MANIFEST_NAME]


def release_links(plan: ReleasePlan, old_folder: Path, old_doc: Mapping[str, object], folder: Path,
                  new_doc: Mapping[str, object], sources: NoteSources) -> notes.Links:
    """Links of the release's diff.html (in the release folder) to the previous report (when it is in the
    archive) and to the release's own report, at each section."""
    old_page = _page_in_archive(plan.archive, old_folder)
    new_page = report_page(folder)
    anchors = sources.anchors or (lambda doc: {})
    return notes.Links(old_page, new_page, anchors(old_doc), anchors(new_doc))


# ---- headline conclusions and the index -------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Best:
    metric: str
    corpus: str | None
    system: str
    mean: float
    tied: tuple[str, ...] = ()  # every system sharing the best value as shown (the first is ``system``)
    label: str | None = None  # the metric's label, and the decimals its values are shown with
    decimals: int | None = None


@dataclasses.dataclass(frozen=True)
class Headline:
    """What a reader of the index wants first, from the report's decisions (the object its Conclusions and main
    table read): the best system(s) per metric and corpus, and how many of the decisions of the tests the
    conclusions follow are significant."""

    best: tuple[Best, ...]
    significant: int
    decisions: int


def best_systems(doc: diffs.Document) -> list[Best]:
    return list(headline(doc).best)


def headline(doc: diffs.Document) -> Headline:
    """The headline of a results.json (as read, :class:`~sigreport.results.reading.DocumentRecords`, or as
    parsed) from its decisions."""
    found = diffs.read(doc)
    blocks = list(decide_records(found.records, found.metrics))
    best = [Best(b.metric, b.corpus, b.best[0], float(b.values[b.best[0]]), tuple(b.best), b.label, b.decimals)
            for b in blocks if b.best]
    return Headline(tuple(best), sum(b.n_significant for b in blocks), sum(b.n_decided for b in blocks))


Found = list[tuple[Release, DocumentRecords | None]]
"""What :func:`scan` finds: each release with its results.json read (None: the release has none)."""


def scan(archive: Path, warn: Warn | None = None) -> Found:
    """Every readable release with its results.json read once (None: the release has none), newest first. A
    release whose manifest or results.json cannot be read is left out, and ``warn`` names it and the reason."""
    out = []
    for r in list_releases(archive, warn):
        try:
            out.append((r, read_document(read_results(r.path)) if (r.path / RESULTS).exists() else None))
        except UserError as exc:
            if warn is not None:
                warn(f"sigreport: left release {r.name} out of the index of {archive}: {_reason(exc)}")
    return out


def index_entries(archive: Path, warn: Warn | None = None, found: Found | None = None) -> list[dict[str, Any]]:
    """One entry per release, newest first, for index.json (and the HTML index); ``found``: :func:`scan`'s."""
    out = []
    for r, doc in (found if found is not None else scan(archive, warn)):
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


def archive_trends(found: Found) -> tuple[trends.Trend, ...]:
    """The trends of the releases :func:`scan` found (oldest first; releases without results.json left out)."""
    return trends.trends([(r.name, doc) for r, doc in reversed(found) if doc is not None])


def _title(doc: DocumentRecords | None) -> str | None:
    return (doc.title or None) if doc is not None else None


#: How long an index rewrite waits for another one (it takes well under a second).
INDEX_WAIT = 120.0


def write_index(archive: Path, warn: Warn | None = None, draw: Draw | None = None) -> list[Path]:
    """Mark the archive as sigreport's and rewrite ARCHIVE/index.json and ARCHIVE/index.html from the releases
    now present, atomically; a damaged release is left out and ``warn`` names it. ``draw``: the plot of a
    trend as inline SVG (the renderer's, :func:`sigreport.render.figures.trend.draw_trend`); without it the
    index shows the trend tables alone.

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
        found = scan(archive, warn)
        _say_repaired(archive, found, warn)
        entries = index_entries(archive, warn, found)
        doc = {"format": INDEX_FORMAT, "index_version": 1, "releases": entries}
        found_trends = archive_trends(found)
        plots = {(t.metric, t.corpus): draw(t) for t in found_trends} if draw is not None else {}
        atomic_write_text(archive / INDEX_JSON, dumps(doc))
        atomic_write_text(archive / INDEX_HTML, index_html(entries, found_trends, plots))
    return [archive / INDEX_JSON, archive / INDEX_HTML]


def _say_repaired(archive: Path, found: Found, warn: Warn | None) -> None:
    """A release on disk that the index does not list (a build stopped after its release was in place and
    before the index was rewritten), or one the index lists that is gone: the rewrite repairs the index, and
    says so. The newest release is the one this build is adding, not a repair."""
    if warn is None or not (archive / INDEX_JSON).is_file():
        return
    try:
        listed = {str(r.get("release")) for r in json.loads((archive / INDEX_JSON).read_text(encoding="utf-8"))
                  .get("releases", []) if isinstance(r, dict)}
    except (OSError, ValueError, AttributeError):
        return  # a damaged index is rewritten whole; read_index's own checks name it where it is read
    names = [r.name for r, _ in found]
    missing = [n for n in names[1:] if n not in listed]  # found is newest first
    gone = sorted(listed - set(names))
    if missing:
        warn(f"the archive's index did not list {', '.join(missing)} (a release build was stopped before it rewrote "
             "the index): the index is repaired")
    if gone:
        warn(f"the archive's index listed {', '.join(gone)}, which is no longer in the archive: the index is repaired")


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


STYLE = ("body{font-family:system-ui,sans-serif;max-width:60rem;margin:1.5rem auto;padding:0 .75rem;color:#222;"
         "line-height:1.4}h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2rem}"
         "h3{font-size:1rem;margin:1.6rem 0 .4rem}"
         ".scroll{overflow-x:auto;max-width:100%;-webkit-overflow-scrolling:touch;"
         "background:linear-gradient(to left,#fff 40%,rgba(255,255,255,0)) right/2rem 100% no-repeat local,"
         "radial-gradient(farthest-side at 100% 50%,rgba(0,0,0,.22),rgba(0,0,0,0)) right/.8rem 100% no-repeat scroll}"
         "table{border-collapse:collapse}table.releases{width:100%;min-width:36rem}table.trend td,table.trend th,"
         "table.releases td:first-child{white-space:nowrap}"
         "th,td{text-align:left;padding:.35rem .55rem;border-bottom:1px solid #ddd;vertical-align:top}"
         "th{border-bottom:2px solid #444}td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}"
         "ul{margin:0;padding-left:1.1rem}.muted,.note{color:#555;font-size:.9rem}"
         "figure{margin:.6rem 0}figure svg{display:block;max-width:100%;height:auto}a{color:#0550ae}"
         "@media (max-width:600px){table.releases{min-width:0}table.releases thead{position:absolute;width:1px;"
         "height:1px;overflow:hidden;clip:rect(0 0 0 0)}table.releases,table.releases tbody,table.releases tr,"
         "table.releases td{display:block}table.releases tr{border-bottom:2px solid #ddd;padding:.35rem 0}"
         "table.releases td{border:0;padding:.15rem 0}table.releases td:first-child{white-space:normal}"
         "table.releases td[data-label]::before{content:attr(data-label);display:block;color:#555;"
         "font-size:.85rem;font-weight:600}}")
"""The index page's style: readable at a phone's 390 px (wide tables scroll inside their own box, with a shadow
at the right edge while there is more to see; the page never scrolls sideways; plots shrink to the width) and
at a desktop's. Under 600 px the releases table stacks: each release a block, each cell a line under the name
of its column (``data-label``), since its five columns would otherwise wrap the title and the best systems
word by word (as the report's settings table does)."""


def index_html(entries: list[dict[str, Any]], found: Sequence[trends.Trend] = (),
               plots: Mapping[tuple[str, str | None], Any] | None = None) -> str:
    """The archive's index page: self-contained (inline style and SVG, relative links only), every value
    escaped: the releases newest first, then per metric and corpus the trend table and (``plots``: the
    drawn figures, each with an ``svg``) its plot."""
    body = [releases_table(entries)]
    if found:
        body.append("<h2>Trends across releases</h2><p class=note>" + html.escape(trends.LEGEND) + "</p>")
        body += [trend_section(t, (plots or {}).get((t.metric, t.corpus))) for t in found]
    return ("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Releases</title>'
            f"<style>{STYLE}</style></head><body><h1>Releases</h1>\n" + "\n".join(body) + "\n</body></html>\n")


def trends_page(found: Sequence[trends.Trend], plots: Mapping[tuple[str, str | None], Any] | None = None) -> str:
    """``sigreport trend --format html``: the index's trend sections alone, as a page of their own."""
    body = ["<p class=note>" + html.escape(trends.LEGEND) + "</p>"]
    body += [trend_section(t, (plots or {}).get((t.metric, t.corpus))) for t in found]
    return ("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Trends across releases</title>'
            f"<style>{STYLE}</style></head><body><h1>Trends across releases</h1>\n" + "\n".join(body)
            + "\n</body></html>\n")


def releases_table(entries: list[dict[str, Any]]) -> str:
    e = html.escape
    rows = []
    for en in entries:
        best = "".join(f"<li>{e(_where(en, b))}: <b>{' = '.join(e(x) for x in (b.get('tied') or [b['system']]))}</b> "
                       f"({e(_shown(b))}{', tied' if len(b.get('tied') or ()) > 1 else ''})</li>" for b in en["best"])
        sig = (f"{en['significant']} of {en['decisions']}" if en["decisions"] is not None else "–")
        links = [f'<a href="{e(en["report"])}">report</a>'] if en["report"] else []
        if en["diff"]:
            links.append(f'<a href="{e(en["diff"])}">changes since {e(str(en["previous"]))}</a>')
        rows.append(f"<tr><td><b>{e(en['release'])}</b><br><span class=muted>#{en['sequence']}, sigreport "
                    f"{e(str(en['sigreport_version']))}</span></td><td data-label=title>{e(en['title'] or '')}</td>"
                    f'<td data-label="best system per metric and corpus"><ul>{best}</ul></td>'
                    f'<td data-label="significant decisions">{sig}</td>'
                    f'<td data-label=links>{" · ".join(links)}</td></tr>')
    body = "\n".join(rows) or '<tr><td colspan=5 class=muted>no releases yet</td></tr>'
    return ("<p class=muted>Newest first (build order).</p><div class=scroll><table class=releases><thead><tr>"
            "<th>release</th><th>title</th><th>best system per metric and corpus</th>"
            "<th>significant decisions (the tests the conclusions follow)</th><th>links</th></tr></thead><tbody>\n"
            f"{body}\n</tbody></table></div>")


def _where(entry: dict[str, Any], b: dict[str, Any]) -> str:
    return f"{b.get('label') or b['metric']} · {b['corpus']}" if b["corpus"] else str(b.get("label") or b["metric"])


def _shown(b: dict[str, Any]) -> str:
    """The best value as the report shows it (its metric's decimals)."""
    decimals = b.get("decimals")
    return f"{b['mean']:.{decimals}f}" if isinstance(decimals, int) else f"{b['mean']:.4g}"


def trend_section(t: trends.Trend, plot: Any) -> str:
    """One metric and corpus: the table of releases by system (oldest first; best in bold, significant
    changes marked) in its own scrolling box, then the plot."""
    e = html.escape
    header, rows, strong = trends.table(t)
    head = "".join(f"<th>{e(h)}</th>" for h in header)
    body = []
    for i, row in enumerate(rows):
        if all(c == "–" for c in row[1:]):
            continue  # a release without this metric and corpus
        cells = [f"<td>{e(row[0])}</td>"] + [
            f"<td class=num>{'<b>' + e(c) + '</b>' if (i, j) in strong else e(c)}</td>" for j, c in enumerate(row) if j]
        body.append("<tr>" + "".join(cells) + "</tr>")
    figure = f"<figure>{_inline(plot.svg)}</figure>" if plot is not None else ""
    return (f"<h3>{e(t.where)}</h3><div class=scroll><table class=trend><thead><tr>{head}</tr></thead><tbody>"
            + "".join(body) + f"</tbody></table></div>{figure}")


def _inline(svg: str) -> str:
    """An SVG element for an HTML page: the namespace declarations (URLs, never fetched) left out; the HTML
    parser puts ``<svg>`` and ``xlink:href`` in their namespaces itself."""
    return re.sub(r'\s+xmlns(:xlink)?="[^"]*"', "", svg)


# ---- what a release build says at its end ------------------------------------------------------------


def release_summary(plan: ReleasePlan) -> list[str]:
    """The end of ``build --release``: the diff's headline against the previous release, its counts, and
    where the release notes are (or that this is the first release)."""
    prev = previous_source(plan)
    if prev is None:
        return [f"first release of {plan.archive}: nothing to compare it with"]
    label, _, old_doc, old_m = prev
    old, new = read_document(old_doc), read_document(read_results(plan.dest))
    if old.schema_version != new.schema_version:
        return [f"{label} has results.json schema_version {old.schema_version}: not compared"]
    d = diffs.diff_results(old, new, old_m, read_manifest(plan.dest), label, plan.name)
    c = d.counts()
    counts = [plural(c["decisions_flipped"], "decision flipped", "decisions flipped"),
              plural(c["best_or_order"], "best system or order changed", "best systems or orders changed")]
    counts += [plural(c[k], one, many) for k, one, many in (
        ("systems_added", "system added", "systems added"), ("systems_removed", "system removed", "systems removed"),
        ("comparisons_new", "new comparison", "new comparisons"),
        ("test_choices_changed", "test choice changed", "test choices changed")) if c[k]]
    notes_path = plan.dest / DIFF_NAME
    return [d.headline, "  " + "; ".join(counts),
            f"  release notes: {notes_path}" if notes_path.is_file() else "  (no diff.html)"]


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"
