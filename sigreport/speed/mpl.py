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


# (font properties, fontext, directory, fallback, rebuild, findfont's rc settings, font list) -> the font files
_FONTS: dict[tuple[Any, ...], tuple[Any, ...]] = {}
_FONTS_MAX = 1024
# the settings matplotlib's findfont reads (its own cache key) besides its arguments
_FONT_RC = tuple(f"font.{k}" for k in ("family", "style", "variant", "weight", "stretch", "size", "serif",
                                       "sans-serif", "cursive", "fantasy", "monospace"))


@contextlib.contextmanager
def found_fonts() -> Iterator[None]:
    """Within the block, matplotlib looks up the font files of a text's font properties once per process,
    not at every measurement and every drawn text.

    Why: ``FontManager._find_fonts_by_props`` (the list of files for a family list) has no cache of its
    own, and each call runs ``findfont`` per family, each reading eleven settings to key its cache: about a
    tenth of a figure's drawing. The answer is a function of the properties (every field, copied: they are
    mutable), the arguments, the settings ``findfont`` keys its own cache by, the system-font switch it
    reads and the font manager (its identity, font lists and default families), all in the key, so the fonts,
    and the files, are the ones a fresh lookup gives. A lookup that fails (an exception) is not kept.
    Only the process's font manager is wrapped (an attribute of the instance), and restored on exit.
    """
    if is_plain():
        yield
        return
    import os

    import matplotlib
    from matplotlib import font_manager

    fonts = font_manager.fontManager
    original = getattr(fonts, "_find_fonts_by_props", None)
    if original is None or "_find_fonts_by_props" in vars(fonts):  # absent, or already wrapped (nested block)
        yield
        return
    rc = matplotlib.rcParams

    def key_of(prop: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
        settings = tuple(tuple(v) if isinstance(v, list) else v for v in (rc[k] for k in _FONT_RC))
        return (tuple(vars(prop).items()), args, settings, os.getenv("MPL_IGNORE_SYSTEM_FONTS"), id(fonts),
                len(fonts.ttflist), len(fonts.afmlist), tuple(fonts.defaultFamily.items()))

    def find(prop: Any, fontext: str = "ttf", directory: Any = None, fallback_to_default: bool = True,
             rebuild_if_missing: bool = True) -> Any:
        args = (fontext, directory, fallback_to_default, rebuild_if_missing)
        if type(prop) is not font_manager.FontProperties:  # a pattern, a path or a dict: looked up afresh
            return original(prop, *args)
        key = key_of(prop, args)
        try:
            hit = _FONTS.get(key)
        except TypeError:  # a property that cannot be hashed (a font file given as an unhashable path)
            return original(prop, *args)
        if hit is None:
            hit = tuple(original(prop, *args))
            if len(_FONTS) >= _FONTS_MAX:
                del _FONTS[next(iter(_FONTS))]
            _FONTS[key] = hit
        return list(hit)

    fonts._find_fonts_by_props = find  # type: ignore[method-assign]
    try:
        yield
    finally:
        del fonts._find_fonts_by_props


def lay_out_across(fig: Any, texts: Any) -> None:
    """Bring ``fig`` to the state its drawing leaves for the horizontal extents of ``texts`` and of its drawn
    tick labels, without drawing it where that provably gives the same extents; else (and on the plain path)
    ``fig.draw_without_rendering()``.

    Why: :func:`sigreport.render.figures.output.keep_inside` only needs where each text ends left and right
    after layout, and a full draw (every line, tick mark and text laid out for a renderer that writes nothing)
    was about a fifth of a leaderboard's cost. Of what a draw does, the horizontal extents depend on the view
    limits (made current), each axes' active position (its aspect applied) and the ticks' places and labels
    (updated for each drawn axis): those steps are run here, as the draw runs them, in its order. The rest
    moves no text sideways: an x-axis label's height (set at the draw) does not move it sideways when its
    transform's x is independent of y. Where that cannot be shown (:func:`_across_only`: a layout engine,
    subfigures, axes locators or inset axes, other than plain rectilinear axes, a draw callback, an annotation,
    a title, an offset text or y-axis label among ``texts``, a text turned with its transform) the figure is
    drawn.
    """
    if is_plain() or not _across_only(fig, list(texts)):
        fig.draw_without_rendering()
        return
    if not fig.get_visible():
        return
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        ax._unstale_viewLim()
        ax.apply_aspect()
        if ax.axison:
            for axis in ax._axis_map.values():
                if axis.get_visible():
                    axis._update_ticks()


def _across_only(fig: Any, texts: list[Any]) -> bool:
    """Whether :func:`lay_out_across` may skip the draw of ``fig`` for ``texts`` (its docstring's conditions)."""
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    if type(fig) is not Figure or fig.get_layout_engine() is not None or fig.subfigs \
            or fig.canvas.callbacks.callbacks.get("draw_event"):
        return False
    owned: set[int] = set()  # texts a draw moves: titles, offset texts, y-axis labels
    for ax in fig.axes:
        if type(ax) is not Axes or ax.get_axes_locator() is not None or ax.child_axes \
                or not hasattr(ax, "_axis_map"):
            return False
        owned |= {id(t) for t in (ax.title, ax._left_title, ax._right_title, ax.xaxis.offsetText,
                                  ax.yaxis.offsetText, ax.yaxis.label)}
    return all(type(t) is Text and id(t) not in owned and not t.get_transform_rotates_text()
               and _x_ignores_y(t.get_transform()) for t in texts)


def _x_ignores_y(transform: Any) -> bool:
    """Whether ``transform`` maps x independently of y (affine, no shear into x): then a draw that sets a
    text's height, as it does an x-axis label's, leaves its horizontal extent as it was."""
    if not transform.is_affine:
        return False
    return bool(transform.get_matrix()[0, 1] == 0)
