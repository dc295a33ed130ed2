"""Plugins' entry points, without importing :mod:`importlib.metadata` when no installed distribution has any.

``sigreport validate`` and ``build`` ask the method registry, which reads the ``sigreport.methods`` entry
points. ``importlib.metadata`` (with the ``email`` parser it imports) and its scan of every distribution
were about a tenth of ``validate``'s start-up (docs/performance.md), although almost every installation has no
plugin. Entry points are lines of ``entry_points.txt`` under a ``[group]`` header, in the ``*.dist-info``
and ``*.egg-info`` folders of the ``sys.path`` directories; when none of those files names the group, the
answer is no entry points, found by reading those small files alone. Anything this check cannot see as
importlib.metadata would (a ``sys.path`` entry that is a zip file or egg, a finder on ``sys.meta_path`` that
finds distributions of its own) makes it ask importlib.metadata, as the plain path always does.
"""

from __future__ import annotations

import os
import sys
from importlib.machinery import PathFinder
from typing import Any

from sigreport.speed import is_plain

_SUFFIXES = (".dist-info", ".egg-info")


def entry_points(group: str) -> list[Any]:
    """The entry points of ``group`` (``importlib.metadata.entry_points(group=group)``, as a list)."""
    if not is_plain() and not _may_declare(group):
        return []
    from importlib.metadata import entry_points as found

    return list(found(group=group))


def _may_declare(group: str) -> bool:
    """False only when no distribution importlib.metadata would find can declare ``group``."""
    if any(hasattr(f, "find_distributions") and f is not PathFinder for f in sys.meta_path):
        return True  # a finder with distributions of its own (the standard PathFinder is the one looked at here)
    header = f"[{group}]"
    for entry in sys.path:
        folder = entry or "."
        if not os.path.isdir(folder):
            if os.path.exists(folder):
                return True  # a zip file or an egg: importlib.metadata reads inside it
            continue
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if name.lower().endswith(_SUFFIXES) and _names(os.path.join(folder, name, "entry_points.txt"), header):
                return True
            if name.lower().endswith(".egg"):
                return True
    return False


def _names(path: str, header: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return any(line.strip() == header for line in fh)
    except OSError:
        return False
