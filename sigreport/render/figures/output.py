"""A drawn figure as files: deterministic SVG (inline-ready) and vector PDF, its caption and LaTeX snippet.

Every figure is built inside :func:`style` (a local ``matplotlib.rc_context``) on a bare
``matplotlib.figure.Figure`` (no pyplot, so no global backend or figure registry is touched) and turned
into bytes by :func:`export`. Same record, same bytes: the SVG hash salt is fixed, dates and creator
tools are left out of both files, and the font is matplotlib's bundled DejaVu Sans; a system font is used
only for a character DejaVu Sans lacks (CJK system names: :data:`FALLBACK_FONTS`, when installed), and a
character no font has is drawn as a box without matplotlib's warning, the report saying so instead
(:attr:`FigureOutput.missing`).

Text choice: in the SVG text is drawn as paths (``svg.fonttype='path'``), so the browser needs no font
and the label positions measured at drawing time are exactly what is shown (with ``'none'`` a
substituted font of other widths could make labels collide); the words stay available to screen
readers through the root's ``aria-label`` and ``<title>``. The PDF report turns the outlines back into
text (:mod:`.svg_text`: the same glyphs at the same positions, in matplotlib's own font files, which is
far cheaper for WeasyPrint to draw than one glyph reference per character). In the PDF the font is embedded as a
TrueType subset (``pdf.fonttype=42``): text stays text (searchable, ``pdftotext`` reads it) and there are
no Type 3 fonts, which some publishers' PDF checks reject.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import html
import io
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from sigreport import defaults
from sigreport.speed import workers
from sigreport.speed.mpl import found_fonts, lay_out_across, shared_text_metrics, subset_cache

from sigreport.render.logs import quiet
from sigreport.render.options import FigureStyleOptions
from sigreport.render.pages import Page

if TYPE_CHECKING:  # matplotlib is imported only when a figure is drawn
    from sigreport.results.records import McNemarRecord, PairwiseRecord, PosthocRecord
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox

RC: dict[str, Any] = {
    "svg.hashsalt": "sigreport",  # clip-path ids are hashes: fixed salt, same ids on every run
    "svg.fonttype": "path",
    "pdf.fonttype": 42,
    "font.family": ["DejaVu Sans"],  # shipped inside matplotlib; fallbacks appended by font_families()
    "font.size": 9.0,
    "axes.unicode_minus": True,
    "axes.linewidth": 0.8,
    "lines.solid_capstyle": "butt",
    "savefig.dpi": 72,
    "savefig.bbox": None,
    "savefig.pad_inches": 0.0,
    "savefig.transparent": False,
    "savefig.facecolor": "white",
    "figure.dpi": 72,
    "path.simplify": False,
}
SVG_METADATA = {"Date": None, "Creator": None}
PDF_METADATA = {"CreationDate": None, "Producer": "sigreport", "Creator": None}
FIGURE_DIR = "figures"
# Tried in this order for characters DejaVu Sans lacks (Latin, Greek and Cyrillic it has): CJK first.
FALLBACK_FONTS = ("Noto Sans CJK SC", "Noto Sans CJK JP", "Droid Sans Fallback", "WenQuanYi Zen Hei",
                  "Noto Sans", "Noto Sans Symbols2")


@dataclasses.dataclass(frozen=True)
class FigureOutput:
    """One figure as the report uses it.

    ``name``: stable file stem (``figures/<name>.pdf``, ``#fig-<name>`` in HTML); ``caption``: plain
    text (escaped by each target); ``svg``: an inline-ready ``<svg>`` element (no XML declaration, ids
    prefixed with ``name`` so several figures can share one HTML page); ``pdf``: the vector PDF bytes.
    """

    name: str
    caption: str
    svg: str
    pdf: bytes
    missing: str = ""  # characters no available font has, drawn as boxes (for the report's warning)
    env: str = "figure"  # drawn at the column width (figure) or at the text width (figure*)

    @property
    def latex(self) -> str:
        """A ready ``figure`` (or ``figure*``) float for ``\\input{}``: the PDF at its width, caption and label."""
        return latex_snippet(self, env=self.env)


def latex_snippet(fig: FigureOutput, directory: str | None = None, env: str = "figure", label: str | None = None) -> str:
    """The LaTeX float that shows ``fig`` from ``<directory>/<name>.pdf`` (``env``: figure at ``\\columnwidth``
    or figure* at ``\\textwidth``; ``label``: its ``\\label``, ``fig:<name>`` by default).

    ``directory`` None: ``\\sigreportdir/figures``, the snippet defining ``\\sigreportdir`` as ``.`` unless the
    paper defined it before (``\\newcommand{\\sigreportdir}{reports/summarization}`` when the report folder is
    not beside the paper's .tex file), so the same snippet works from any folder."""
    from sigreport.render.latex import escape  # same layer; kept local so the module stays light

    width = r"\textwidth" if env == "figure*" else r"\columnwidth"
    where = directory if directory is not None else f"\\sigreportdir/{FIGURE_DIR}"
    head = "\\providecommand{\\sigreportdir}{.}\n" if directory is None else ""
    return (f"{head}\\begin{{{env}}}[t]\n\\centering\n"
            f"\\includegraphics[width={width}]{{{where}/{fig.name}.pdf}}\n"
            f"\\caption{{{escape(fig.caption)}}}\n\\label{{{label or 'fig:' + fig.name}}}\n\\end{{{env}}}\n")


@dataclasses.dataclass(frozen=True)
class FigureStyle:
    """What a figure is drawn for (``outputs.figure_style`` on the page of ``outputs.latex.page``): its width
    in pt at print (``width``, the page's column width unless asked otherwise), the text width it may widen to
    when its text cannot fit (``wider``; None: it may not), the text size in pt (``size``; small text such as
    tick labels one point less, at least :data:`MIN_TEXT`), and the font (``font``: a family matplotlib knows,
    DejaVu Sans behind it for missing glyphs).

    Every figure is drawn exactly ``width`` wide (or ``wider``, then in ``figure*``) and included at that
    width, so its text prints at ``size``."""

    width: float = 229.5
    wider: float | None = 469.0
    size: float = 9.0
    font: str = "cmr10"
    column: float = 229.5  # the page's \\columnwidth: a figure wider than it is set in figure*

    @property
    def small(self) -> float:
        """Secondary text (tick labels, cell values): a point under :attr:`size`, at least :data:`MIN_TEXT`."""
        return max(MIN_TEXT, self.size - 1.0)

    def inches(self, wide: bool = False) -> float:
        """The drawn width in inches (``wide``: the text width)."""
        return (self.wider if wide and self.wider is not None else self.width) / 72.0


MIN_TEXT = 8.0  # pt: no figure text is set smaller at the printed width
DEFAULT_STYLE = FigureStyle()
_STYLE: contextvars.ContextVar[FigureStyle] = contextvars.ContextVar("sigreport_figure_style", default=DEFAULT_STYLE)


@contextlib.contextmanager
def figure_style(fs: FigureStyle) -> Iterator[None]:
    """Within the block, figures are drawn with ``fs``."""
    token = _STYLE.set(fs)
    try:
        yield
    finally:
        _STYLE.reset(token)


def current_style() -> FigureStyle:
    """The :class:`FigureStyle` of this block (:func:`figure_style`)."""
    return _STYLE.get()


def style_of(page: Page, options: FigureStyleOptions | None = None) -> FigureStyle:
    """The figure style of ``outputs.figure_style`` (``options``; None: the defaults) on ``page``: width
    column, text or pt; font serif (the page's), sans or a family; size the page's body size minus one, at
    least :data:`MIN_TEXT`."""
    options = options or FigureStyleOptions()
    width = options.width
    two = page.textwidth > page.columnwidth + 1
    if width == "text":
        w, wider = page.textwidth, None
    elif width == "column":
        w, wider = page.columnwidth, page.textwidth if two else None
    else:
        w, wider = float(width), None
    size = options.font_size or max(MIN_TEXT, page.fontsize - 1.0)
    font = options.font
    family = page.serif if font == "serif" else defaults.GENERIC_FONTS.get(font) or font
    return FigureStyle(round(w, 2), round(wider, 2) if wider is not None else None, float(size), family,
                       round(page.columnwidth, 2))


#: Characters matplotlib's cmr10 draws as other glyphs (TeX's OT1 encoding): '_' as a dot accent, '<' and '>' as
#: inverted '!' and '?', '|' as an en dash, '{' and '}' as an em dash and a double acute, '"' and '\\' as quotes.
CMR10_WRONG = frozenset('"<>\\_{|}')
#: The serif a figure falls back to when cmr10 would draw one of its texts wrongly.
CMR10_FALLBACK = "STIXGeneral"


def readable_style(fs: FigureStyle, texts: Iterable[str]) -> FigureStyle:
    """``fs``, or ``fs`` in :data:`CMR10_FALLBACK` when its font is cmr10 and one of ``texts`` (the names the
    figures draw: systems, corpora, metric labels, class labels) holds a character of :data:`CMR10_WRONG`:
    "org__model" must not be drawn as "org˙˙model". One font for every figure of a report, so they match."""
    if fs.font != "cmr10" or not any(CMR10_WRONG.intersection(t) for t in texts):
        return fs
    return dataclasses.replace(fs, font=CMR10_FALLBACK)


@contextlib.contextmanager
def style() -> Iterator[None]:
    """The figure style, set for the drawing only (restored afterwards, so a user's rcParams are kept)."""
    import matplotlib

    fs = current_style()
    rc = {**RC, "font.family": list(font_families()), "font.size": fs.size, "xtick.labelsize": fs.small,
          "ytick.labelsize": fs.small, "axes.labelsize": fs.size, "axes.titlesize": fs.size,
          "mathtext.fontset": "cm" if fs.font == "cmr10" else "stix" if fs.font.startswith("STIX") else "dejavusans"}
    # matplotlib: "Failed to find font weight bold for <fallback>"; fontTools: "'created' timestamp seems very
    # low" when subsetting cmr10
    with matplotlib.rc_context(rc), warnings.catch_warnings(), quiet("matplotlib.font_manager", "fontTools"), \
            found_fonts():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .* missing from font", category=UserWarning)
        # tick labels are plain text (the minus sign from DejaVu Sans), so their labels become text in the PDF
        warnings.filterwarnings("ignore", message=r"cmr10 font should ideally be used with mathtext")
        yield


def font_families() -> tuple[str, ...]:
    """The style's font (:func:`current_style`), DejaVu Sans, then the :data:`FALLBACK_FONTS` installed on
    this machine (matplotlib >= 3.6 takes a list and uses the first font that has each glyph). Fixed per
    machine and style, so rebuilds give the same bytes. A font matplotlib does not know is left out."""
    return _families(current_style().font)


@functools.lru_cache(maxsize=8)
def _families(font: str) -> tuple[str, ...]:
    from matplotlib import font_manager

    installed = {f.name for f in font_manager.fontManager.ttflist}
    first = (font,) if font != "DejaVu Sans" and font in installed else ()
    return (*first, "DejaVu Sans", *(f for f in FALLBACK_FONTS if f in installed))


@functools.lru_cache(maxsize=8)
def _charmap(family: str) -> frozenset[int]:
    from matplotlib import font_manager, ft2font

    path = font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=False)
    return frozenset(ft2font.FT2Font(path).get_charmap())


def missing_warning(missing: str) -> str:
    """The report's warning for characters drawn as boxes (matplotlib's own warning is silenced)."""
    return (f"The figures draw {' '.join(missing)} as boxes: no installed font has these characters (tried "
            f"{', '.join(font_families())}); the tables show the names in full.")


def missing_glyphs(texts: list[str]) -> str:
    """The characters of ``texts`` that no font of :func:`font_families` has, in order of appearance."""
    maps = [_charmap(f) for f in font_families()]
    out: list[str] = []
    for ch in "".join(texts):
        if not ch.isspace() and ch not in out and not any(ord(ch) in m for m in maps):
            out.append(ch)
    return "".join(out)


def new_figure(width: float, height: float) -> Figure:
    """A bare figure (inches) with an Agg canvas, outside pyplot's registry; call inside :func:`style`."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=72)
    FigureCanvasAgg(fig)
    return fig


@dataclasses.dataclass(frozen=True)
class FigureSettings:
    """How a report's figures are produced (never what they show).

    ``pdf``: whether :func:`export` also writes the vector PDF. Only LaTeX output uses it (HTML and the
    PDF report embed the SVG), and embedding the font makes it most of a figure's cost.
    ``jobs``: how many worker processes :func:`start_figures` may draw in (the build's ``--jobs``).
    """

    pdf: bool = True
    jobs: int = 1
    ready: workers.Ready | None = None  # workers forked ahead (see sigreport.render.figures.warm_up), used instead of forking new ones


_SETTINGS: contextvars.ContextVar[FigureSettings] = contextvars.ContextVar("sigreport_figures",
                                                                           default=FigureSettings())
T = TypeVar("T")
Item = TypeVar("Item")  # an item drawn


@contextlib.contextmanager
def figure_settings(pdf: bool = True, jobs: int = 1, ready: workers.Ready | None = None) -> Iterator[None]:
    """Within the block (and in workers forked within it), figures are produced with these settings."""
    token = _SETTINGS.set(FigureSettings(pdf, max(1, int(jobs)), ready))
    try:
        yield
    finally:
        _SETTINGS.reset(token)


def current_settings() -> FigureSettings:
    """The settings :func:`figure_settings` set for this block (the defaults outside one)."""
    return _SETTINGS.get()


def start_figures(fn: Callable[[Item], T], items: list[Item]) -> workers.Waiting[list[T]]:
    """Begin ``[fn(item) for item in items]`` (``fn`` a module function, the items picklable) in worker
    processes when :func:`figure_settings` allows more than one and there are at least two items, and return
    the function that waits for them and gives them in order (a report model made from results alone:
    :func:`sigreport.render.views.drawing.draw_here`; a build runs its figure tasks with the plan runner's
    forked executor instead). Without workers, the figures are drawn here when that function is
    called (:func:`sigreport.speed.workers.start`).

    Why processes: drawing and exporting (matplotlib, pure Python) is most of a large report's render
    time and holds the GIL. Byte-identical to drawing here: each figure is drawn inside :func:`style` from
    the same record with the same rcParams, fixed SVG hash salt and font list (:func:`font_families`, a
    property of the machine), and nothing is shared between figures but caches keyed by their inputs (font
    subsets, text measurements: they only save work). Workers made ready ahead (``ready`` of
    :func:`figure_settings`, :func:`sigreport.render.figures.warm_up`) are sent the items (pickled); else
    workers are forked now, inheriting the items, and only the finished :class:`FigureOutput` values
    travel back. Without ``fork`` (Windows, macOS defaults aside), and on the plain path, the figures are
    drawn here.
    """
    settings = current_settings()
    draw = lambda i: fn(items[i])  # noqa: E731 - done here, or in workers forked now
    if settings.ready is not None and settings.ready.size:
        return settings.ready.run(fn, items, draw)
    jobs = min(settings.jobs, len(items))
    if jobs <= 1:
        return workers.start(draw, len(items), 0)
    font_families()  # once, before forking: every worker inherits the same list
    return workers.start(draw, len(items), jobs)


def export(fig: Figure, name: str, caption: str) -> FigureOutput:
    """Write ``fig`` as SVG and (unless :func:`figure_settings` says not) PDF with fixed metadata; call inside
    :func:`style`."""
    svg_buf, pdf_buf = io.BytesIO(), io.BytesIO()
    with shared_text_metrics():
        fig.savefig(svg_buf, format="svg", metadata=SVG_METADATA)
        if current_settings().pdf:
            with subset_cache():
                try:
                    fig.savefig(pdf_buf, format="pdf", metadata=PDF_METADATA)
                except IndexError:  # matplotlib's PDF writer fails on U+FEFF (a label's invisible BOM)
                    if not _drop_bom(fig):
                        raise
                    pdf_buf = io.BytesIO()
                    fig.savefig(pdf_buf, format="pdf", metadata=PDF_METADATA)
    wide = fig.get_figwidth() * 72 > current_style().column + 1
    return FigureOutput(name, caption, inline_svg(svg_buf.getvalue().decode("utf-8"), name, caption),
                        pdf_buf.getvalue(), missing_glyphs(drawn_texts(fig)), "figure*" if wide else "figure")


def _drop_bom(fig: Figure) -> bool:
    """Remove every U+FEFF (zero width, nothing drawn) from the texts of ``fig``; whether there was one.
    matplotlib's PDF writer raises IndexError on it; names in the data holding one are refused when read,
    but a label from the spec may still carry one."""
    from matplotlib.text import Text

    found = False
    for t in fig.findobj(Text):
        if "\ufeff" in t.get_text():
            t.set_text(t.get_text().replace("\ufeff", ""))
            found = True
    return found


def drawn_texts(fig: Figure) -> list[str]:
    """Every visible text of ``fig``: its own texts and artists, and per axes the texts, titles and, where
    the axis is drawn, its label and tick labels.

    Why not ``fig.findobj``: it walks every axis's children, and asking an axis for them creates its tick
    objects even when the axis is off (the heatmaps draw their labels as plain texts), which cost more
    than the rest of the walk.
    """
    titles = [ax.get_title(loc) for ax in fig.axes for loc in ("left", "center", "right")]
    return [t.get_text() for t in _text_artists(fig, ticks=True) if t.get_visible()] + titles


def _text_artists(fig: Figure, ticks: bool) -> list[Text]:
    """The text artists :func:`drawn_texts` reads (titles aside): the figure's, each axes', and where an axis
    is drawn its label and (``ticks``) its tick labels, visible or not."""
    from matplotlib.text import Text

    found: list[Text] = [a for a in (*fig.texts, *fig.artists) if isinstance(a, Text)]
    for ax in fig.axes:
        found += [a for a in (*ax.texts, *ax.artists) if isinstance(a, Text)]
        if ax.axison:
            for axis in (ax.xaxis, ax.yaxis):
                if axis.get_visible():
                    found += [axis.label, *(axis.get_ticklabels() if ticks else ())]
    return found


EDGE = 1.0  # pt: every text ends at least this far inside the figure (the PDF's glyph boxes and Agg's differ by less)


def keep_inside(fig: Figure) -> list[Text]:
    """Move each text of ``fig`` that runs past its left or right edge back inside, by as little as it takes
    (:data:`EDGE` from the edge), measured after layout (the figure is drawn, not rendered), and return the
    texts that cannot be moved in: wider than the figure, or a tick label (its place is its tick's). The
    caller wraps or shortens those; nothing is moved when every text fits, so such a figure is unchanged.

    Why after layout: a label centred under an axes that sits right of the figure's centre (long pair names
    on the left) ends past the edge though it is narrower than the figure, and a PDF viewer or a paper's
    page clips it ("(95% CI" without its ")"). Measured as the SVG and PDF files measure (unhinted outlines,
    :func:`_vector_renderer`): Agg's hinted widths are up to 2% narrower, enough to put a centred line's
    last glyph past the edge of the PDF. The layout is the draw's as far as these extents depend on it
    (:func:`sigreport.speed.mpl.lay_out_across`: the figure is drawn, not rendered, unless that provably
    gives the same extents)."""
    texts = _text_artists(fig, ticks=False)
    lay_out_across(fig, texts)
    renderer = _vector_renderer(fig)
    pad, width = EDGE * fig.dpi / 72, fig.bbox.width
    stuck: list[Text] = []
    for t in texts:
        if not t.get_visible() or not t.get_text():
            continue
        box = t.get_window_extent(renderer)
        if box.x0 >= pad and box.x1 <= width - pad:
            continue
        if box.width > width - 2 * pad:
            stuck.append(t)
            continue
        _shift(t, pad - box.x0 if box.x0 < pad else width - pad - box.x1)
    for ax in fig.axes:
        stuck += [t for t in _tick_texts(ax) if _outside(t.get_window_extent(renderer), pad, width)]
    return stuck


def _vector_renderer(fig: Figure) -> Any:
    """A renderer that measures text as the SVG and PDF backends do (unhinted, at 72 dpi), writing nowhere."""
    from matplotlib.backends.backend_svg import RendererSVG

    return RendererSVG(fig.bbox.width, fig.bbox.height, io.StringIO())


def _outside(box: Bbox, pad: float, width: float) -> bool:
    return bool(box.x0 < pad or box.x1 > width - pad)


def _tick_texts(ax: Axes) -> list[Text]:
    """The tick labels of ``ax`` that are drawn: visible, non-empty, at a tick inside the view limits."""
    out: list[Text] = []
    if not ax.axison:
        return out
    for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        if axis.get_visible():
            lo, hi = min(lo, hi), max(lo, hi)
            out += [t.label1 for t in axis.get_major_ticks() if lo <= t.get_loc() <= hi
                    and t.label1.get_visible() and t.label1.get_text()]
    return out


def _shift(t: Text, dx: float) -> None:
    """Move ``t`` by ``dx`` display units to the right, in the coordinates of its own transform (an axis label's
    x is a fraction of its axes, its y set by the axis at every draw)."""
    transform = t.get_transform()
    x, y = transform.transform(t.get_unitless_position())
    t.set_position(tuple(transform.inverted().transform((x + dx, y))))


def inline_svg(svg: str, name: str, caption: str) -> str:
    """matplotlib's SVG file as an element to paste into HTML.

    Drops the XML declaration, DOCTYPE, RDF metadata and the document-wide ``<style>`` (its rule moves
    to the root as inherited attributes); prefixes every id and internal reference with ``name``
    (two figures on a page would otherwise share glyph and clip ids); sizes the root to its container
    (``width="100%"``, the natural size as ``max-width``, the ``viewBox`` keeping the aspect ratio)
    and gives it a title for screen readers.
    """
    svg = re.sub(r"<\?xml[^>]*\?>\s*", "", svg)
    svg = re.sub(r"<!DOCTYPE[^>]*>\s*", "", svg)
    svg = re.sub(r"\s*<metadata>.*?</metadata>", "", svg, flags=re.S)
    svg = re.sub(r"\s*<style type=\"text/css\">.*?</style>", "", svg, flags=re.S)
    svg = re.sub(r"\s*<defs>\s*</defs>", "", svg)
    prefix = re.sub(r"[^A-Za-z0-9_-]", "-", name)
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}-\1"', svg)
    svg = re.sub(r'href="#([^"]+)"', rf'href="#{prefix}-\1"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}-\1)", svg)
    match = re.search(r"<svg\b[^>]*>", svg)
    if match is None:  # pragma: no cover - matplotlib always writes a root element
        raise RuntimeError("matplotlib wrote an SVG without a root element")
    root = match.group(0)
    width = re.search(r'\bwidth="([\d.]+)pt"', root)
    new_root = re.sub(r'\s(width|height)="[\d.]+pt"', "", root)
    natural = f"max-width:{width.group(1)}pt;" if width else ""
    label = html.escape(caption, quote=True)
    new_root = new_root.replace(
        "<svg", f'<svg width="100%" style="{natural}height:auto" role="img" aria-label="{label}" '
                'stroke-linejoin="round" stroke-linecap="butt"', 1)
    title = f"<title>{html.escape(caption, quote=False)}</title>"
    return svg[: match.start()] + new_root + "\n " + title + svg[match.end():].rstrip() + "\n"


def slug(analysis_id: str) -> str:
    """A file-name-safe stem from an analysis id (``auc/*/posthoc`` -> ``auc-all-posthoc``)."""
    s = analysis_id.replace("*", "all")
    return re.sub(r"[^A-Za-z0-9]+", "-", s).strip("-") or "figure"


def measure(fig: Figure, text: str, size: float, weight: str = "normal") -> tuple[float, float]:
    """Width and height in inches of ``text`` as the figure would draw it (Agg's text metrics).

    Remembered per text, size, weight, resolution and font settings (:func:`_text_size`): a report
    measures the same system names for every figure, and each measurement lays the text out again.
    """
    import matplotlib

    rc = matplotlib.rcParams
    return _text_size(text, float(size), weight, float(fig.dpi), font_families(),
                      (rc["text.hinting"], rc["text.hinting_factor"], rc["text.kerning_factor"]))


@functools.lru_cache(maxsize=4096)
def _text_size(text: str, size: float, weight: str, dpi: float, families: tuple[str, ...],
               rc_key: tuple[object, ...]) -> tuple[float, float]:
    """Agg's width and height of ``text`` in inches; the arguments are everything the answer depends on
    (``rc_key``: the text rc settings the renderer reads, which are the caller's current ones)."""
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.font_manager import FontProperties

    renderer = RendererAgg(1, 1, dpi)
    prop = FontProperties(family=list(families), size=size, weight=weight)
    w, h, _ = renderer.get_text_width_height_descent(text, prop, ismath=False)
    return w / dpi, h / dpi


def wrap(text: str, size: float, width: float, sep: str = " ") -> str:
    """``text`` with each line broken at ``sep`` (greedily, as many pieces on a line as fit, never inside
    parentheses: "(95% CI)" stays whole) into lines at most ``width`` inches wide, measured as the SVG and
    PDF files draw them (:func:`vector_width`); a piece wider than ``width`` keeps its own line."""
    out: list[str] = []
    for line in text.split("\n"):
        current = ""
        for piece in _pieces(line, sep):
            trial = f"{current}{sep}{piece}" if current else piece
            if current and vector_width(trial, size) > width:
                out.append(current)
                trial = piece
            current = trial
        out.append(current)
    return "\n".join(out)


def _pieces(line: str, sep: str) -> list[str]:
    """``line`` split at ``sep``, except where ``sep`` is inside parentheses."""
    out: list[str] = []
    for part in line.split(sep):
        if out and out[-1].count("(") > out[-1].count(")"):
            out[-1] += sep + part
        else:
            out.append(part)
    return out


def vector_width(text: str, size: float) -> float:
    """Width in inches of one line of plain ``text`` at ``size`` pt in the style's fonts as the SVG and PDF
    files draw it (unhinted outlines; :func:`measure` gives Agg's hinted width, up to 2% narrower)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    prop = FontProperties(family=list(font_families()), size=size)
    return float(text_to_path.get_text_width_height_descent(text, prop, ismath=False)[0]) / 72


TICK_PAD = 3.5  # points between an axes edge and its tick labels (matplotlib's default xtick/ytick pad)


def tick_labels(ax: Axes, xticks: Sequence[tuple[float, str]], yticks: Sequence[tuple[float, str]],
                size: float) -> list[Text]:
    """Category labels beside ``ax`` where matplotlib would put them with ``set_xticks`` /
    ``set_yticks(..., labels)`` and ``tick_params(length=0)``: x labels under the bottom edge, turned 90
    degrees and centred on their cell; y labels left of the left edge, right-aligned.

    Why not matplotlib's ticks: each tick is an object with two marks, two labels and a grid line that is
    laid out and measured again on every save; for a heatmap with 20 systems that was a third of the
    figure's cost. Plain texts in the same place look the same. They belong to the figure, not the axes
    (``ax.texts`` stays the cell annotations); the axes' own ticks should be off (``ax.set_axis_off()``).
    """
    from matplotlib.transforms import ScaledTranslation

    fig = ax.get_figure()
    assert fig is not None
    pad = TICK_PAD / 72
    below = ax.get_xaxis_transform() + ScaledTranslation(0, -pad, fig.dpi_scale_trans)
    left = ax.get_yaxis_transform() + ScaledTranslation(-pad, 0, fig.dpi_scale_trans)
    out = [fig.text(x, 0, s, transform=below, rotation=90, ha="center", va="top", fontsize=size)
           for x, s in xticks if s]
    out += [fig.text(0, y, s, transform=left, ha="right", va="center_baseline", fontsize=size)
            for y, s in yticks if s]
    return out


def family_systems(record: PairwiseRecord | McNemarRecord | PosthocRecord) -> list[str]:
    """Systems of a pairwise family in order of first appearance in its pairs (the spec's order)."""
    return list(dict.fromkeys(s for p in record.pairs for s in (p.a, p.b)))
