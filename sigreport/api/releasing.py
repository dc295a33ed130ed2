"""The release steps of a build: the previous report it is analysed against, the release folder's checks,
the manifest and notes written beside the report, and the archive's index rewritten after.

``sigreport.archive.releases`` (and the rendering of the index's trend plots) is imported by the release
paths only: ``validate`` and a plain build need not pay for it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sigreport.api.progress import say as say_line
from sigreport.archive import store
from sigreport.archive.manifest import MANIFEST_NAME
from sigreport.data import Dataset
from sigreport.results import Results
from sigreport.results.io import SCHEMA_VERSION, from_dict
from sigreport.spec import SpecFile, load_spec_file
from sigreport.version import __version__

if TYPE_CHECKING:
    from sigreport.archive import releases


def plan_release(spec_path: SpecFile | str | Path, name: str, archive: str | Path | None = None,
                 force: bool = False, previous: str | Path | None = None) -> releases.ReleasePlan:
    """Where ``build --release NAME`` writes, checked before any analysis runs."""
    from sigreport.archive import releases

    sf = spec_path if isinstance(spec_path, SpecFile) else load_spec_file(spec_path)
    return releases.plan_release_for(sf, name, archive, force, previous)


def previous_of(release: releases.ReleasePlan | None, dest: Path, say: store.Say | None = None) -> Results | None:
    """The previous report: a release's previous release (or --previous), else the report in ``dest``. A
    release's previous report that cannot be used is a user error naming its results.json (``--previous``)
    or is skipped with a line through ``say`` (a damaged release of the archive)."""
    if release is None:
        return previous_results(dest)
    from sigreport.archive import releases
    from sigreport.archive.documents import document_error

    found = releases.previous_report(release.archive, release.name, release.previous_dir, say)
    if found is None:
        return None
    path, doc = found
    if doc.get("schema_version") != SCHEMA_VERSION:  # written by another sigreport: nothing to carry over
        (say or say_line)(f"sigreport: the previous report {path} has results.json schema_version "
                          f"{doc.get('schema_version')}, this sigreport writes {SCHEMA_VERSION}: its test choices "
                          "are not carried over")
        return None
    try:
        return choices_of(doc)  # an older or partial report still serves
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise document_error(path, "", f"cannot be used as the previous report: {exc}") from None


def previous_results(dest: Path) -> Results | None:
    """The results of the report already in ``dest`` (the previous report of a build into it), if readable."""
    try:
        return choices_of(json.loads((dest / "results.json").read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


#: What a build reads of its previous report: each analysis's header, whose ``method`` is the choice that
#: ``selection: fixed`` keeps and whose change is warned about.
HEADER_FIELDS = ("id", "kind", "metric", "corpus", "level", "method", "alpha")


def choices_of(doc: dict[str, Any]) -> Results:
    """The previous report ``doc`` as :class:`Results` whose records hold their header only (every other field
    empty): a build reads nothing else of it, and reading a large report's every pair typed would take
    seconds."""
    analyses = [{k: a[k] for k in HEADER_FIELDS if k in a} if isinstance(a, dict) else a
                for a in doc.get("analyses", [])]
    return from_dict({**doc, "analyses": analyses}, partial=True)


def check_release_destination(dest: Path, release: releases.ReleasePlan | None, force: bool) -> bool:
    """With the output folder's lock held: a release build's folder is still as planned (a build that
    waited may find the release written meanwhile: refused, releases are immutable); a plain build into a
    release folder (``-o ARCHIVE/NAME``) is refused unless ``force``. Returns whether a plain build replaces
    a release of a sigreport archive (its index is then rewritten)."""
    if release is None and not (dest / MANIFEST_NAME).is_file():  # a plain report: releases need not be imported
        return False
    from sigreport.archive import releases

    if release is not None:
        releases.check_release_unchanged(release)
        return False
    if not force:
        raise store.refuse(dest, f"{dest} is a release (it holds {MANIFEST_NAME}); releases are "
                                 "immutable and listed in their archive's index: rebuild it with --release "
                                 f"{dest.name} --archive {dest.parent} --force, or pass --force to replace it "
                                 "with a plain report")
    return releases.is_archive(dest.parent)


def release_context(release: releases.ReleasePlan) -> Any:
    """The :class:`~sigreport.archive.releases.ReleaseContext` a release's report names at its top."""
    from sigreport.archive import releases

    return releases.release_context(release, SCHEMA_VERSION)


def finish_release(release: releases.ReleasePlan, folder: Path, sf: SpecFile, dataset: Dataset,
                   formats: list[str], templates: str | Path | None) -> list[str]:
    """The manifest and release notes written into the release's (temporary) ``folder``; the files written."""
    from sigreport.api import release_notes as notes
    from sigreport.archive import releases

    code = [f for f in (getattr(m.func, "source_file", None) for m in dataset.aggregates.values()) if f]
    given = releases.release_inputs(sf, formats, templates, __version__, code)
    sources = releases.NoteSources(notes.dataset_scores(dataset), notes.release_scores, notes.section_anchors)
    return releases.finish_release(release, folder, given, sources)


def rewrite_index(release: releases.ReleasePlan | None, dest: Path, replaced_release: bool,
                  say: store.Say) -> None:
    """After a release build, or a plain build that replaced a release (``replaced_release``): the archive's
    index rewritten from the releases present."""
    if release is None and not replaced_release:
        return
    from sigreport.archive import releases
    from sigreport.render.figures.trend import draw_trend

    releases.write_index(release.archive if release else dest.parent, say, draw_trend)
