"""matplotlib's vector export, faster: font subsets and text measurements kept per process.

Two private matplotlib functions are wrapped while a figure is exported (and restored on exit), each only
where matplotlib has the exact function it expects; anything else goes through unchanged. Both keep values
keyed by everything the value depends on, so the files are the bytes a fresh export writes
(tests/render/test_figures.py and tests/render/test_render_parallel.py compare the bytes with and without). On the plain
path (:func:`sigreport.speed.is_plain`) neither is wrapped.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
from collections.abc import Iterator
from typing import Any

from sigreport.speed import is_plain


class _SubsetBytes:
    """A font subset already saved to bytes (stands in for fontTools' ``TTFont`` in matplotlib's PDF backend)."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


@dataclasses.dataclass(frozen=True)
class _Subset:
    font: _SubsetBytes
    glyph_index_map: dict[int, int]


# (font file, face, glyph ids) -> (subset font file bytes, glyph index map); bounded, oldest dropped first
_SUBSETS: dict[tuple[str, int, frozenset[int]], tuple[bytes, dict[int, int]]] = {}
_SUBSETS_MAX = 64


@contextlib.contextmanager
def subset_cache() -> Iterator[None]:
    """Within the block, matplotlib's PDF backend reuses the embedded font subset of an earlier figure
    with the same glyphs instead of subsetting the font again with fontTools.

    Why: subsetting DejaVu Sans is about half of a figure's PDF cost, and the figures of one report
    mostly draw the same characters (system names, digits). fontTools' subsetting is deterministic, so
    the cached bytes are the bytes a fresh subset would give: the PDFs are unchanged. Only matplotlib's
    ``get_glyphs_subset`` / ``font_as_file`` pair of 3.11+ is wrapped (restored on exit); with other
    versions the block does nothing.
    """
    if is_plain():
        yield
        return
    from matplotlib.backends import _backend_pdf_ps as ps

    original, as_file = getattr(ps, "get_glyphs_subset", None), getattr(ps, "font_as_file", None)
    if original is None or as_file is None or not hasattr(ps, "SubsetResults"):
        yield
        return

    def get_glyphs_subset(fontfile: Any, glyphs: Any) -> Any:
        key = (str(fontfile), int(getattr(fontfile, "face_index", 0)), frozenset(glyphs))
        hit = _SUBSETS.get(key)
        if hit is None:
            with original(fontfile, glyphs) as sub:
                hit = (as_file(sub.font).getvalue(), dict(sub.glyph_index_map))
            if len(_SUBSETS) >= _SUBSETS_MAX:
                del _SUBSETS[next(iter(_SUBSETS))]
            _SUBSETS[key] = hit
        return contextlib.nullcontext(_Subset(_SubsetBytes(hit[0]), hit[1]))

    def font_as_file(font: Any) -> io.BytesIO:
        return io.BytesIO(font.data) if isinstance(font, _SubsetBytes) else as_file(font)

    ps.get_glyphs_subset, ps.font_as_file = get_glyphs_subset, font_as_file  # type: ignore[assignment]
    try:
        yield
    finally:
        ps.get_glyphs_subset, ps.font_as_file = original, as_file  # type: ignore[assignment]


# (renderer class, text, font properties, math mode, dpi, (text rc settings, font list)) -> (width, height, descent)
_METRICS: dict[tuple[Any, ...], tuple[float, float, float]] = {}
_METRICS_MAX = 8192
# the settings a vector renderer's measurement of plain (not math) text reads besides its arguments
_METRIC_RC = ("text.hinting", "text.hinting_factor", "text.kerning_factor", "text.usetex", "pdf.use14corefonts")
_VECTOR_RENDERERS = {("matplotlib.backends.backend_svg", "RendererSVG"), ("matplotlib.backends.backend_pdf", "RendererPdf")}


@contextlib.contextmanager
def shared_text_metrics() -> Iterator[None]:
    """Within the block, the SVG and PDF renderers measure each text once per process, not once per file.

    matplotlib keeps a text's measured size for one renderer object, and every ``savefig`` makes a new
    one: each figure measured its labels again, twice (SVG and PDF), though a report's figures share most
    labels (axis numbers, system names). The vector renderers' measurement of plain text is a function of
    the renderer class, the text, its font properties, resolution, the text settings and the font list in
    the key, so the values, and the files, are the ones a fresh measurement gives (math text, which reads
    more settings, is measured afresh) (tests/render/test_figures.py compares the
    bytes with and without). Only ``matplotlib.text._get_text_metrics_with_cache`` is wrapped, for
    matplotlib's SVG and PDF renderers (any other goes through unchanged), and restored on exit.
    """
    if is_plain():
        yield
        return
    import matplotlib
    import matplotlib.text as mtext

    original = getattr(mtext, "_get_text_metrics_with_cache", None)
    if original is None:
        yield
        return
    from matplotlib import font_manager

    fonts = font_manager.fontManager
    rc = (tuple(matplotlib.rcParams[k] for k in _METRIC_RC), id(fonts), len(fonts.ttflist))

    def measured(renderer: Any, text: str, prop: Any, ismath: Any, dpi: float) -> Any:
        kind = type(getattr(renderer, "_renderer", renderer))  # a vector backend's MixedModeRenderer wraps it
        if ismath or (kind.__module__, kind.__qualname__) not in _VECTOR_RENDERERS:
            return original(renderer, text, prop, ismath, dpi)  # math and TeX read more settings: not kept
        key = (kind, text, prop.copy(), ismath, dpi, rc)  # a copy: FontProperties is mutable
        hit = _METRICS.get(key)
        if hit is None:
            hit = original(renderer, text, prop, ismath, dpi)
            if len(_METRICS) >= _METRICS_MAX:
                del _METRICS[next(iter(_METRICS))]
            _METRICS[key] = hit
        return hit

    mtext._get_text_metrics_with_cache = measured
    try:
        yield
    finally:
        mtext._get_text_metrics_with_cache = original
