"""Drawn figures kept between builds (``--cache DIR``): a record whose figures were drawn before is not
drawn again.

Drawing is most of a large report's render time, and a rebuild after one metric's data changed redraws
figures of records that did not change. Each record's figures (the tuple of
:class:`~sigreport.render.figures.output.FigureOutput` that :func:`~sigreport.render.figures.figures_of`
yields: SVG text, PDF bytes, name, caption, missing characters) are stored under :func:`figure_key`,
a sha256 of everything that can change those bytes:

- the record's content (its results.json form, canonical JSON) and its metric's label and direction,
  the only inputs a drawing function reads;
- the figure style (width, text size, font: :class:`~sigreport.render.figures.output.FigureStyle`);
- the figure kinds asked for and whether the vector PDF is made (HTML-only builds draw no PDF; they
  also take a LaTeX build's entry, less its PDF, since the SVG is the same: :func:`lookup`);
- the store's ``version``: sigreport's version and the digest of its source files, so changed drawing
  code never hits an old entry;
- the drawing environment (:func:`environment`): the versions of matplotlib, FreeType, fontTools and
  numpy, and every font file matplotlib resolves for the figure font list (path, size and modification
  time, regular and bold), since a font installed or updated changes glyph outlines and fallbacks.

The store itself (signed entries, atomic writes, a corrupted or foreign entry ignored and rewritten) is
the build's :class:`sigreport.execute.cache.Cache`; this layer only sees the small :class:`FigureStore`
protocol (render does not import execute). The pipeline sets it for the drawing with
:func:`figure_cache`, as :func:`~sigreport.render.figures.output.figure_settings` sets the settings.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import hashlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Protocol

from sigreport.render.figures import output
from sigreport.speed.workers import Waiting
from sigreport.render.figures import draw_record
from sigreport.render.figures.output import (FigureOutput, current_settings, current_style, font_families,
                                             start_figures)
from sigreport.results.collection import MetricInfo
from sigreport.results.records import Record, jsonable

KEY_SCHEMA = "sigreport-figures-1"


class FigureStore(Protocol):
    """Where drawn figures are kept: ``get`` gives ``(True, value)`` for a trusted entry, else
    ``(False, None)``; ``put`` stores (failures to write only cost speed); ``version`` names the code."""

    version: str

    def get(self, key: str) -> tuple[bool, object]: ...

    def put(self, key: str, value: object) -> None: ...


_STORE: contextvars.ContextVar[FigureStore | None] = contextvars.ContextVar("sigreport_figure_cache",
                                                                           default=None)


@contextlib.contextmanager
def figure_cache(store: FigureStore | None) -> Iterator[None]:
    """Within the block, :func:`start_cached` answers from ``store`` and fills it (None: no cache)."""
    token = _STORE.set(store)
    try:
        yield
    finally:
        _STORE.reset(token)


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


def figure_key(record: Record, metric: MetricInfo | None, kinds: Sequence[str], pdf: bool, version: str,
               digest: str | None = None) -> str:
    """The content key of one record's figures (see the module docstring for what goes in and why), drawn in
    the current figure style (its width, text size and font are part of the key); ``digest``: the record's
    :func:`content_digest`, when already known."""
    doc = {"schema": KEY_SCHEMA, "version": version, "environment": environment(), "kinds": list(kinds),
           "pdf": bool(pdf), "content": digest or content_digest(record, metric),
           "style": dataclasses.asdict(current_style())}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode("utf-8")).hexdigest()


def _valid(value: object) -> bool:
    return isinstance(value, tuple) and all(isinstance(f, FigureOutput) for f in value)


def lookup(store: FigureStore, record: Record, metric: MetricInfo | None, kinds: Sequence[str],
           pdf: bool) -> tuple[str, tuple[FigureOutput, ...] | None]:
    """The record's key and its stored figures (None when not stored or not to be used).

    A build without PDFs (HTML only) also takes the entry a LaTeX build stored, without its PDF bytes:
    the SVG does not depend on whether the PDF is made (tests/render/test_figures.py checks that)."""
    digest = content_digest(record, metric)
    key = figure_key(record, metric, kinds, pdf, store.version, digest)
    hit, value = store.get(key)
    if hit and _valid(value):
        return key, value
    if not pdf:
        hit, value = store.get(figure_key(record, metric, kinds, True, store.version, digest))
        if hit and _valid(value):
            return key, tuple(dataclasses.replace(f, pdf=b"") for f in value)
    return key, None


def start_cached(records: Sequence[Record], metrics: Mapping[str, MetricInfo],
                 kinds: Sequence[Sequence[str]]) -> Waiting[list[tuple[FigureOutput, ...]]]:
    """Begin drawing each record's figures (``kinds[i]``: the figure kinds of record i, part of its key) and
    return the function that waits for the list: from the store set by :func:`figure_cache` where it has
    them, the others drawn by :func:`~sigreport.render.figures.output.start_figures` (in workers when the
    settings allow, while the caller works) and stored when waited for. Without a store, all are drawn."""
    store = _STORE.get()
    pdf = current_settings().pdf
    metric = [metrics.get(r.metric) if r.metric else None for r in records]
    fs = current_style()
    items = [(r, m, tuple(k), pdf, fs) for r, m, k in zip(records, metric, kinds)]  # what draw_record draws
    if store is None:
        return start_figures(draw_record, items)
    found = [lookup(store, r, m, k, pdf) for r, m, k in zip(records, metric, kinds)]
    out = [value for _, value in found]
    missing = [i for i in range(len(records)) if out[i] is None]
    drawing = start_figures(draw_record, [items[i] for i in missing])

    def wait() -> list[tuple[FigureOutput, ...]]:
        for i, value in zip(missing, drawing()):
            out[i] = value
            store.put(found[i][0], value)
        return out  # type: ignore[return-value]

    return Waiting(wait, drawing.cancel)
