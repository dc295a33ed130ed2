"""Names of report parts: slugs for table files, LaTeX labels and HTML ids, unique and stable.

A slug joins a key's parts with ``--`` and keeps letters, digits, ``_`` and ``-``; a name that had to
be cleaned gets a short hash of its raw text, so ``a b`` and ``a-b`` stay apart. Joining alone can
still collide (metric ``a`` on corpus ``b--c`` and metric ``a--b`` on corpus ``c``), and so can names
that differ only in case on a case-insensitive disk: :func:`assign` (:func:`distinct`) gives every member
of such a group a hash of its own key, and leaves every name that does not collide exactly as it was. The
report's tables (main tables included) and figures are each named in one such pass, so no file of
``tables/`` or ``figures/`` can overwrite another; a writer asked to write one name twice refuses
(:func:`check_unique`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence

Key = tuple[str | None, ...]


def slug(*parts: str | None) -> str:
    """File- and label-safe name; a short hash keeps names with special characters distinct."""
    raw = "--".join("all" if p is None else str(p) for p in parts)
    clean = re.sub(r"[^A-Za-z0-9_-]+", "-", raw).strip("-")[:60] or "x"
    if clean != raw:
        clean += "-" + _digest(raw, 6)
    return clean


def _digest(text: str, n: int) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:n]


def _key_text(key: Key) -> str:
    """The key's parts, unambiguously (a part may contain ``--``)."""
    return json.dumps(list(key), ensure_ascii=False)


def assign(keys: Iterable[Key]) -> dict[Key, str]:
    """A unique slug for every distinct key; unique also when compared without case (:func:`distinct` of
    each key's :func:`slug`)."""
    return distinct([(k, slug(*k)) for k in dict.fromkeys(keys)])


def distinct(proposed: Sequence[tuple[Key, str]]) -> dict[Key, str]:
    """Every key's proposed name, unique also when compared without case: a group of keys whose names
    collide gets hash suffixes from the keys themselves (distinct keys, so distinct suffixes), so the result
    does not depend on the order of the keys, and names outside a collision do not change.
    """
    first = dict(proposed)
    if len(first) != len(proposed):
        raise ValueError("distinct needs distinct keys")
    names = dict(first)
    for length in (6, 10, 16, 64):
        groups: dict[str, list[Key]] = {}
        for k in names:
            groups.setdefault(names[k].casefold(), []).append(k)
        clashes = [g for g in groups.values() if len(g) > 1]
        if not clashes:
            return names
        for group in clashes:
            for k in group:
                names[k] = f"{first[k]}-{_digest(_key_text(k), length)}"
    raise AssertionError("sha256 prefixes of distinct keys collided")  # pragma: no cover


def unique_in_order(keys: Sequence[Key]) -> list[str]:
    """Names for a sequence of keys that may repeat: a repeat gets ``-2``, ``-3``, ... in order."""
    base = assign(keys)
    seen: dict[str, int] = {}
    taken = {n.casefold() for n in base.values()}
    out = []
    for k in keys:
        name = base[k]
        count = seen.get(name, 0) + 1
        seen[name] = count
        if count > 1:
            i = count
            while f"{name}-{i}".casefold() in taken:
                i += 1
            name = f"{name}-{i}"
            taken.add(name.casefold())
        out.append(name)
    return out


def check_unique(files: Sequence[str]) -> None:
    """A writer's last guard: two parts under one file name (without case) would leave one of them unwritten and
    the file count wrong; names come from :func:`distinct`, so this is a bug in sigreport, never the user's."""
    seen: dict[str, str] = {}
    for f in files:
        if f.casefold() in seen:
            raise AssertionError(f"two report parts named {seen[f.casefold()]!r} and {f!r}")
        seen[f.casefold()] = f


def table_file(name: str) -> str:
    return f"{name}.tex"


def html_id(name: str) -> str:
    return f"tab-{name}"


def figure_id(name: str) -> str:
    return f"fig-{name}"


def section_anchor(name: str) -> str:
    return f"s-{name}"
