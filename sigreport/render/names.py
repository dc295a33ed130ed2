"""Names of report parts: slugs for table files, LaTeX labels and HTML ids, unique and stable.

A slug joins a key's parts with ``--`` and keeps letters, digits, ``_`` and ``-``; a name that had to
be cleaned gets a short hash of its raw text, so ``a b`` and ``a-b`` stay apart. Joining alone can
still collide (metric ``a`` on corpus ``b--c`` and metric ``a--b`` on corpus ``c``), and so can names
that differ only in case on a case-insensitive disk: :func:`assign` gives every member of such a
group a hash of its own key, and leaves every name that does not collide exactly as it was.
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
    """A unique slug for every distinct key; unique also when compared without case.

    A group of keys whose slugs collide gets hash suffixes from the keys themselves, so the result
    does not depend on the order of the keys, and names outside a collision do not change.
    """
    distinct = list(dict.fromkeys(keys))
    names = {k: slug(*k) for k in distinct}
    for length in (6, 10, 16, 64):
        groups: dict[str, list[Key]] = {}
        for k in distinct:
            groups.setdefault(names[k].casefold(), []).append(k)
        clashes = [g for g in groups.values() if len(g) > 1]
        if not clashes:
            return names
        for group in clashes:
            for k in group:
                names[k] = f"{slug(*k)}-{_digest(_key_text(k), length)}"
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


def table_file(name: str) -> str:
    return f"{name}.tex"


def html_id(name: str) -> str:
    return f"tab-{name}"


def figure_id(name: str) -> str:
    return f"fig-{name}"


def section_anchor(name: str) -> str:
    return f"s-{name}"
