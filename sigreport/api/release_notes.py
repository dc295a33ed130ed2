"""What a release note needs beyond the two results.json documents: the releases' per-item scores (for the
paired interval of each system's change) and where the two reports' sections are (for the HTML links).

The inputs are not copied into a release; their item scores are kept in the archive's store
(:mod:`sigreport.archive.scores`, listed by the manifest's ``item_scores``), so a diff of two releases of one
archive is paired even when the data was updated in place. A release without them (built before the store, or
copied out of its archive) has its inputs read where ``verify`` finds them (the path the manifest records,
relative to the original spec's folder, or under ``--data``), used only when every data table has the sha256
its manifest records: a table changed since the release gives no item scores, and the notes say why and fall
back to the unpaired interval. A spec with a user aggregate module gives none either: the notes do not run a
release's code (``verify`` does, by design).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sigreport.archive.diff import Diff, ItemScores, diff_results
from sigreport.archive.manifest import MANIFEST_NAME, read_manifest
from sigreport.archive.notes import Links
from sigreport.archive import scores
from sigreport.archive.releases import read_results
from sigreport.archive.verify import locate_inputs
from sigreport.data import Dataset, load_data
from sigreport.errors import UserError
from sigreport.spec import load_spec

DATA_ROLES = ("scores", "predictions", "annotations")
REPORT_PAGES = ("index.html", "report.pdf")


def dataset_scores(ds: Dataset) -> ItemScores:
    """The per-item values of every item-level block of a mean metric (corpus-level metrics have no
    per-item mean; blocks over corpora pair corpora, not items), with their hashes as the store keeps them."""
    blocks = {}
    for (metric, corpus), b in ds.blocks.items():
        spec = ds.metric_specs.get(metric)
        if corpus is None or b.level != "items" or (spec is not None and spec.corpus_level):
            continue
        blocks[(metric, corpus)] = (tuple(b.items), {s: b.scores[:, j] for j, s in enumerate(b.systems)})
    hashes = {(m, c, s): scores.system_hash(scores.sha256(scores.items_bytes(items)),
                                            scores.sha256(scores.values_bytes(v)))
              for (m, c), (items, systems) in blocks.items() for s, v in systems.items()}
    return ItemScores(blocks, None, hashes)


def release_scores(folder: Path, manifest: Mapping[str, Any] | None, data_dir: Path | None = None) -> ItemScores:
    """A release's per-item scores from the archive's store, else from its inputs, or why there are none
    (module doc)."""
    if manifest is None:
        return ItemScores({}, f"{folder.name} has no manifest naming its inputs")
    name = str(manifest.get("release") or folder.name)
    kept = manifest.get(scores.FIELD)
    if kept is not None:
        found = scores.load(folder.parent, kept, name)
        if found.missing is None:
            return found
        from_inputs = input_scores(folder, manifest, name, data_dir)
        return dataclasses.replace(from_inputs, hashes=found.hashes,
                                   missing=from_inputs.missing and f"{found.missing}; {from_inputs.missing}")
    return input_scores(folder, manifest, name, data_dir)


def input_scores(folder: Path, manifest: Mapping[str, Any], name: str, data_dir: Path | None) -> ItemScores:
    """A release's per-item scores from its inputs, where ``verify`` finds them, or why there are none."""
    if any(e.get("role") == "aggregate" for e in manifest.get("inputs") or []):
        return ItemScores({}, f"the spec of {name} uses a user aggregate module, which the notes do not run")
    data = {**manifest, "inputs": [e for e in manifest.get("inputs") or [] if e.get("role") in DATA_ROLES]}
    try:
        located, missing = locate_inputs(data, data_dir)
    except OSError as exc:
        return ItemScores({}, f"the inputs of {name} cannot be read: {exc.strerror or exc}")
    if missing:
        return ItemScores({}, f"an input of {name} is not found: {missing[0]}")
    changed = [e["path"] for e, _, sha in located if sha != e["sha256"]]
    if changed:
        return ItemScores({}, f"{changed[0]} has changed since {name} was built (its sha256 is not the manifest's)")
    try:
        sf = load_spec(str(manifest["spec"]["text"]), base_dir=Path(str(manifest["spec"].get("path", ""))).parent)
        paths = {e["role"]: str(where) for e, where, _ in located}
        sf = dataclasses.replace(sf, spec=sf.spec.model_copy(update={"data": sf.spec.data.model_copy(update=paths)}))
        return dataset_scores(load_data(sf))
    except (UserError, OSError, KeyError, TypeError, ValueError) as exc:
        why = exc.problems[0].render() if isinstance(exc, UserError) and exc.problems else str(exc)
        return ItemScores({}, f"the inputs of {name} cannot be read: {why}")


def section_anchors(doc: Mapping[str, Any]) -> dict[tuple[Any, Any], str]:
    """The HTML id of every (metric, corpus) section of the report of ``doc``, as the report names them
    (:func:`sigreport.render.names.assign` over the sections in record order)."""
    from sigreport.render import names

    keys = list(dict.fromkeys((a.get("metric"), a.get("corpus")) for a in doc.get("analyses") or []
                              if isinstance(a, dict)))
    keys = [k for k in keys if all(p is None or isinstance(p, str) for p in k)]
    return {k: names.section_anchor(v) for k, v in names.assign(keys).items()}


def report_page(folder: Path) -> Path | None:
    return next((folder / p for p in REPORT_PAGES if (folder / p).is_file()), None)


def links_between(old: Path, new: Path, old_doc: Mapping[str, Any], new_doc: Mapping[str, Any],
                  base: Path) -> Links:
    """Links from a page in ``base`` to the two reports' pages (relative), with their section anchors."""
    def rel(folder: Path) -> str | None:
        page = report_page(folder)
        return Path(os.path.relpath(page.resolve(), base.resolve())).as_posix() if page else None

    return Links(rel(old), rel(new), section_anchors(old_doc), section_anchors(new_doc))


def manifest_of(folder: Path) -> dict[str, Any] | None:
    return read_manifest(folder) if (folder / MANIFEST_NAME).is_file() else None


def diff_folders(old: Path, new: Path, old_label: str | None = None, new_label: str | None = None,
                 base: Path | None = None) -> tuple[Diff, Links]:
    """``sigreport diff``: two report folders compared (labels default to their release names, else the
    folder names), with their item scores when their inputs are found, and links from ``base``."""
    docs = [read_results(f) for f in (old, new)]
    mans = [manifest_of(f) for f in (old, new)]
    labels = [given or (str(m["release"]) if m else f.name) for given, m, f in
              ((old_label, mans[0], old), (new_label, mans[1], new))]
    items = [release_scores(f, m) for f, m in zip((old, new), mans)]
    d = diff_results(docs[0], docs[1], mans[0], mans[1], labels[0], labels[1], items[0], items[1])
    return d, links_between(old, new, docs[0], docs[1], base or Path.cwd())
