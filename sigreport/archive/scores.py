"""The archive's store of per-item scores: what a paired interval of a release-to-release change needs.

Input tables are not copied into a release, and in CI they are usually updated in place for the next release,
so the inputs a release was built from are soon gone. The item scores of every item-level block are kept
instead, compressed and by content hash, in ``ARCHIVE/item-scores/``: one file per block's item names and
one per system's values (little-endian float64 in item order, missing items NaN), each named by the sha256
of its uncompressed bytes (``<sha256>.gz``). A system whose scores did not change between two releases has
the same hash in both, so it costs nothing to keep again, and its hash says "same data" without reading it.

The release's manifest lists them (``item_scores``: per block its metric, corpus, items hash and each
system's values hash). A file is checked against its name when read: a damaged or missing one gives no
item scores (the notes fall back to the inputs, then to the unpaired interval, and say why).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Union

import numpy as np

from sigreport.archive.diff import ItemScores, ItemValues

STORE = "item-scores"
"""The store's folder in the archive (a reserved release name)."""
FIELD = "item_scores"
"""The manifest's field listing a release's item scores."""

Entry = Mapping[str, Union[str, Mapping[str, str]]]


def items_bytes(items: Sequence[object]) -> bytes:
    """A block's item names as stored: a JSON list of strings."""
    return json.dumps([str(i) for i in items], ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def values_bytes(values: ItemValues) -> bytes:
    """A system's values as stored: little-endian float64, in item order."""
    return np.ascontiguousarray(np.asarray(values, dtype="<f8")).tobytes()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def put(folder: Path, data: bytes) -> str:
    """Keep ``data`` in the store folder under its sha256 (written once: an existing file is that content);
    its hash. Written to a temporary file and renamed, so a reader never sees half of one."""
    digest = sha256(data)
    path = folder / f"{digest}.gz"
    if path.is_file():
        return digest
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{digest}.tmp-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(gzip.compress(data, compresslevel=6, mtime=0))
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return digest


def get(folder: Path, digest: str) -> bytes | None:
    """The content of hash ``digest``; None when its file is missing, unreadable or not that content."""
    try:
        data = gzip.decompress((folder / f"{digest}.gz").read_bytes())
    except (OSError, EOFError, ValueError):
        return None
    return data if sha256(data) == digest else None


def system_hash(items: str, values: str) -> str:
    """What "same data" compares: a system's values and the block's item names (either may change)."""
    return f"{items}:{values}"


def keep(archive: Path, found: ItemScores) -> tuple[list[dict[str, object]], ItemScores]:
    """Store a release's item scores in ``archive``: the manifest's ``item_scores`` entries, and the scores
    with their hashes (for the diff's "same data")."""
    folder = archive / STORE
    entries, hashes = [], {}
    for (metric, corpus), (items, systems) in found.blocks.items():
        if corpus is None:
            continue
        ih = put(folder, items_bytes(items))
        vh = {s: put(folder, values_bytes(v)) for s, v in systems.items()}
        entries.append({"metric": metric, "corpus": corpus, "items": ih, "systems": vh})
        hashes.update({(metric, corpus, s): system_hash(ih, h) for s, h in vh.items()})
    return entries, ItemScores(found.blocks, found.missing, hashes)


def hashes_of(entries: Sequence[Entry]) -> dict[tuple[str, str | None, str], str]:
    """(metric, corpus, system) -> its "same data" hash, from a manifest's ``item_scores``."""
    out = {}
    for e in entries:
        systems = e["systems"]
        assert isinstance(systems, Mapping)
        out.update({(str(e["metric"]), str(e["corpus"]), str(s)): system_hash(str(e["items"]), str(h))
                    for s, h in systems.items()})
    return out


def load(archive: Path, entries: Sequence[Entry], name: str) -> ItemScores:
    """A release's item scores from the store (``name``: the release, for the reason when they are not
    there); every file checked against its hash."""
    folder = archive / STORE
    hashes = hashes_of(entries)
    blocks: dict[tuple[str, str | None], tuple[tuple[str, ...], Mapping[str, ItemValues]]] = {}
    for e in entries:
        raw = get(folder, str(e["items"]))
        systems = e["systems"]
        assert isinstance(systems, Mapping)
        values = {str(s): get(folder, str(h)) for s, h in systems.items()}
        lost = [s for s, v in values.items() if v is None]
        if raw is None or lost:
            return ItemScores({}, f"the item scores of {name} are not in {folder} (or damaged)", hashes)
        items = tuple(str(i) for i in json.loads(raw.decode("utf-8")))
        arrays = {s: np.frombuffer(v, dtype="<f8") for s, v in values.items() if v is not None}
        if any(a.size != len(items) for a in arrays.values()):
            return ItemScores({}, f"the item scores of {name} in {folder} do not match their items", hashes)
        blocks[(str(e["metric"]), str(e["corpus"]))] = (items, arrays)
    return ItemScores(blocks, None, hashes)
