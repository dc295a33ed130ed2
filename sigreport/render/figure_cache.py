"""Drawn figures kept between builds (``--cache DIR``): what a figure task's cache key is made of.

Drawing is most of a large report's render time, and a rebuild after one metric's data changed redraws
figures of records that did not change. The figures are plan tasks (:mod:`sigreport.render.views.drawing`,
run by :func:`sigreport.execute.run_plan` in the cache's ``figures`` section), so each record's figures
(the tuple of :class:`~sigreport.render.figures.output.FigureOutput`: SVG text, PDF bytes, name, caption,
missing characters) are stored under the task's content key (:func:`sigreport.plan.content_keys`), a
sha256 of everything that can change those bytes:

- the task's block fingerprint: the record's content (its results.json form, canonical JSON) and its
  metric's label and direction, the only inputs a drawing function reads (:func:`content_digest`), with
  the drawing environment (:func:`environment`): the versions of matplotlib, FreeType, fontTools and
  numpy, and every font file matplotlib resolves for the figure font list (path, size and modification
  time, regular and bold), since a font installed or updated changes glyph outlines and fallbacks;
- the task's parameters: the figure kinds asked for, whether the vector PDF is made (HTML-only builds draw
  no PDF; they also take a LaTeX build's entry, less its PDF, since the SVG is the same:
  :class:`~sigreport.render.views.drawing.FigureStore`) and the figure style (width, text size, font:
  :class:`~sigreport.render.figures.output.FigureStyle`);
- the store's ``version``: sigreport's version and the digest of its source files, so changed drawing
  code never hits an old entry.

The store itself (signed entries, atomic writes, a corrupted or foreign entry ignored and rewritten) is
the build's :class:`sigreport.execute.cache.Cache`; this layer only sees the small :class:`Store`
protocol (render does not import execute).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from typing import Protocol

from sigreport.render.figures import output
from sigreport.render.figures.output import FigureOutput, font_families
from sigreport.results.collection import MetricInfo
from sigreport.results.records import Record, jsonable

KEY_SCHEMA = "sigreport-figures-1"


class Store(Protocol):
    """Where drawn figures are kept: ``get`` gives ``(True, value)`` for a trusted entry, else
    ``(False, None)``; ``put`` stores (failures to write only cost speed); ``version`` names the code."""

    version: str

    def get(self, key: str) -> tuple[bool, object]: ...

    def put(self, key: str, value: object) -> None: ...


def environment() -> str:
    """What besides the record, the style and the code decides a figure's bytes on this machine (see the
    module docstring) for the current figure style's font; computed once per process and font."""
    return _environment(font_families())


@functools.lru_cache(maxsize=8)
def _environment(families: tuple[str, ...]) -> str:
    import matplotlib
    import numpy
    from matplotlib import font_manager, ft2font

    try:
        import fontTools

        fonttools = getattr(fontTools, "version", "?")
    except ImportError:  # pragma: no cover - a dependency of matplotlib
        fonttools = "none"
    parts = [f"matplotlib {matplotlib.__version__}", f"freetype {ft2font.__freetype_version__}",
             f"fonttools {fonttools}", f"numpy {numpy.__version__}"]
    with output.style():  # quiet: a fallback font without a bold face is logged by matplotlib otherwise
        for family in families:
            for weight in ("normal", "bold"):
                path = font_manager.findfont(font_manager.FontProperties(family=family, weight=weight),
                                             fallback_to_default=False)
                try:
                    st = os.stat(path)
                    parts.append(f"{family}/{weight}: {path} {st.st_size} {st.st_mtime_ns}")
                except OSError:
                    parts.append(f"{family}/{weight}: {path} missing")
    return "\n".join(parts)


def content_digest(record: Record, metric: MetricInfo | None) -> str:
    """sha256 of a record and its metric as canonical JSON (their results.json form, keys sorted)."""
    doc = {"metric": jsonable(metric) if metric is not None else None, "record": jsonable(record)}
    text = json.dumps(doc, sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def valid(value: object) -> bool:
    """Whether a stored value is a record's figures (anything else is redrawn and rewritten)."""
    return isinstance(value, tuple) and all(isinstance(f, FigureOutput) for f in value)
